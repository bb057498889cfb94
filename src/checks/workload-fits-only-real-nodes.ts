import type { Evidence } from '../model/findings.js';
import type { Node, Pod } from '../model/k8s.js';
import { formatResource } from '../model/quantity.js';
import type { GroupPlacement } from '../simulate/preflight.js';
import { parseResourceList } from '../simulate/resources.js';
import { LABEL_PREFIX, RESOURCES_PREFIX } from '../providers/aws/template.js';
import { defineCheck } from './define-check.js';
import { systemLabelOwner } from './lib/fix-safety.js';
import {
  listNames,
  placements,
  templateSource,
  templateTagAdvice,
  workloadRef,
  workloadSubject,
} from './lib/preflight.js';

/** Label keys the pod's nodeSelector and required node affinity look at. */
function selectedKeys(pod: Pod): string[] {
  const keys = new Set(Object.keys(pod.spec.nodeSelector ?? {}));
  const terms =
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) for (const e of t.matchExpressions ?? []) keys.add(e.key);
  return [...keys].sort();
}

interface Gap {
  labels: Array<{ key: string; value: string; template?: string }>;
  resources: Array<{ name: string; value: string }>;
  other: string[];
  /** CA builds no template at all: why, in CA's words. */
  noTemplate?: string;
}

function gapBetween(p: GroupPlacement, pod: Pod): Gap {
  const gap: Gap = { labels: [], resources: [], other: [] };
  const real = p.g.real?.node as Node;
  const template = p.g.scratch.node;
  if (!template) {
    gap.noTemplate = p.g.gate?.detail ?? p.g.scratch.reason ?? 'no reason recorded';
    return gap;
  }
  const rl = real.metadata.labels ?? {};
  const tl = template.metadata.labels ?? {};
  for (const key of selectedKeys(pod)) {
    if (rl[key] !== tl[key] && Object.hasOwn(rl, key)) {
      gap.labels.push({ key, value: rl[key], ...(Object.hasOwn(tl, key) ? { template: tl[key] } : {}) });
    }
  }
  for (const d of p.ca?.described ?? []) {
    if (d.plugin === 'NodeAffinity' && gap.labels.length > 0) continue;
    if (d.plugin === 'NodeResourcesFit') {
      const realCap = parseResourceList(real.status?.capacity);
      const tmplCap = parseResourceList(template.status?.capacity);
      for (const r of Object.keys(realCap).sort()) {
        if ((tmplCap[r] ?? 0) === 0 && realCap[r] > 0 && d.values.includes(`${r}:`)) {
          gap.resources.push({ name: r, value: formatResource(r, realCap[r]) });
        }
      }
      if (gap.resources.length > 0) continue;
    }
    gap.other.push(`${d.reasons.join(', ')} (${d.values})`);
  }
  return gap;
}

function describeGap(g: Gap): string {
  const parts: string[] = [];
  if (g.labels.length) parts.push(`label(s) ${g.labels.map((l) => `${l.key}=${l.value}`).join(', ')}`);
  if (g.resources.length)
    parts.push(`resource(s) ${g.resources.map((r) => `${r.name}=${r.value}`).join(', ')}`);
  parts.push(...g.other);
  if (g.noTemplate) parts.push(`a template (${g.noTemplate})`);
  return parts.join('; ');
}

export default defineCheck({
  meta: {
    id: 'workload-fits-only-real-nodes',
    title: "Workload fits real nodes but not CA's template",
    summary:
      "A workload placeable only thanks to labels (or resources) real nodes carry but CA's template lacks: no scale-up from zero or after a CA restart.",
    severity: 'warning',
    commands: ['preflight'],
    requires: ['autoScalingGroups'],
    messages: {
      onlyReal:
        "{workload} fits real nodes of {groups} but not CA's template of it, which lacks {gap}: CA cannot scale up for it when the group has no usable node (scaled to zero, or after a CA restart).",
      noTemplate:
        '{workload} fits real nodes of {groups}, but CA builds no template for it ({reason}): CA cannot scale up for it when the group has no usable node (scaled to zero, or after a CA restart).',
    },
    upstream:
      'cluster-autoscaler processors/nodeinfosprovider/mixed_nodeinfos_processor.go (real node vs template), cloudprovider/aws/aws_manager.go extractLabelsFromAsg; kubernetes/autoscaler#3780, #4893',
  },
  run(ctx) {
    for (const p of placements(ctx.analysis)) {
      if (p.caFits.length > 0 || p.realOnly.length === 0) continue;
      const w = p.workload;
      const gaps = p.realOnly.map((g) => ({ g, gap: gapBetween(g, p.pod) }));
      const evidence: Evidence[] = [];
      const advice: string[] = [];
      for (const { g, gap } of gaps) {
        evidence.push({
          source: templateSource(g.g),
          observed: describeGap(gap) ? `lacks ${describeGap(gap)}` : 'does not fit',
          expected: 'what real nodes of the group carry',
        });
        if (g.g.real)
          evidence.push({
            source: g.g.real.source,
            observed: `takes the pod${gap.labels.length ? ` (${gap.labels.map((l) => `${l.key}=${l.value}`).join(', ')})` : ''}`,
          });
        // a dump without e.g. eks:DescribeNodegroup output builds a poorer template than CA (with the permission) would
        if (g.g.scratch.missing?.length) {
          evidence.push({
            source: 'casdoctor',
            observed: `the input lacks ${g.g.scratch.missing.join(', ')} data; CA with that data may know more`,
          });
        }
        const tags = [
          // the fix rule (lib/fix-safety.ts): no template tag for a label the cloud, kubelet, EKS or Karpenter sets
          ...gap.labels.filter((l) => !systemLabelOwner(l.key)).map((l) => ({ key: `${LABEL_PREFIX}${l.key}`, value: l.value })),
          ...gap.resources.map((r) => ({ key: `${RESOURCES_PREFIX}${r.name}`, value: r.value })),
        ];
        const a = templateTagAdvice(g.g, tags);
        if (a) advice.push(a);
      }
      // with minSize > 0 a real node normally exists and CA templates from it; at min 0 the template decides
      const allScaleToZero = p.realOnly.every((g) => g.g.group.minSize === 0);
      const first = gaps[0];
      const groupNames = listNames(p.realOnly.map((g) => g.g.group.name));
      ctx.report({
        ...(first.gap.noTemplate !== undefined
          ? {
              messageId: 'noTemplate' as const,
              data: { workload: workloadRef(w), groups: groupNames, reason: first.gap.noTemplate },
            }
          : {
              messageId: 'onlyReal' as const,
              data: {
                workload: workloadRef(w),
                groups: groupNames,
                gap: describeGap(first.gap) || 'what the pod selects',
              },
            }),
        subject: workloadSubject(w),
        severity: allScaleToZero ? 'error' : 'warning',
        ...(first.g.ca?.failures[0] ? { schedulerReason: first.g.ca.failures[0].reasons[0] } : {}),
        evidence,
        remediation:
          advice.join('\n') ||
          ctx.analysis.provider.words.templateFix,
      });
    }
  },
});
