import { formatResource } from '../model/quantity.js';
import type { Resources } from '../model/scheduling.js';
import type { Analysis } from '../simulate/analysis.js';
import { describeResources } from '../simulate/resources.js';
import { remedyText } from '../providers/types.js';
import type { GroupEvaluation } from '../simulate/why-pending.js';
import { defineCheck } from './define-check.js';
import { resourceEvidence } from './lib/fix-safety.js';
import {
  boundedEvidence,
  boundedList,
  closestFailures,
  MESSAGE_NAMES,
  pendingAnalyses,
  podSubject,
  tagCommand,
} from './lib/support.js';

const RESOURCES_TAG = 'k8s.io/cluster-autoscaler/node-template/resources/';

// Families worth suggesting for a general workload: no accelerators, FPGAs, Macs or high-memory bare metal.
const SPECIAL_FAMILY = /^(f\d|vt\d|mac|inf\d|trn\d|dl\d|u-|u\d|p\d|g\d|hpc\d)/;

/**
 * Smallest instance types in CA's table whose capacity holds `need` (cpu millis, memory bytes, nvidia.com/gpu),
 * preferring the family of the group's own type (r5.2xlarge -> r5.8xlarge).
 */
function smallestFitting(
  a: Analysis,
  need: Resources,
  arch: string | undefined,
  like: string | undefined,
): string[] {
  const gpus = need['nvidia.com/gpu'] ?? 0;
  const family = like?.split('.')[0];
  const fits: Array<{ name: string; vcpu: number; mem: number; same: boolean; common: boolean }> = [];
  for (const name of a.instanceTypes.names()) {
    const t = a.instanceTypes.lookup(name);
    if (!t || (arch && t.architecture !== arch) || name.includes('metal')) continue;
    if (gpus === 0 && (t.gpu > 0 || SPECIAL_FAMILY.test(name))) continue;
    if (t.vcpu * 1000 < (need.cpu ?? 0)) continue;
    if (t.memoryMiB * 1024 * 1024 < (need.memory ?? 0)) continue;
    if (t.gpu < gpus) continue;
    const fam = name.split('.')[0];
    // current-generation general purpose, memory and compute families are what most node groups use
    fits.push({
      name,
      vcpu: t.vcpu,
      mem: t.memoryMiB,
      same: fam === family,
      common: /^[mrc]([5-9]|\d\d)[a-z]*$/.test(fam),
    });
  }
  const size = (f: { vcpu: number; mem: number }) => f.vcpu * 4096 + f.mem;
  fits.sort(
    (x, y) =>
      Number(y.same) - Number(x.same) ||
      Number(y.common) - Number(x.common) ||
      size(x) - size(y) ||
      (x.name < y.name ? -1 : 1),
  );
  const picked = fits.slice(0, 3);
  return picked.map((f) => `${f.name} (${f.vcpu} vCPU, ${Math.round(f.mem / 1024)}Gi)`);
}

function gpuTagFix(g: GroupEvaluation, resource: string, need: number, a: Analysis): string | undefined {
  // another provider's scratch template: its own way to declare the resource (externalgrpc: none beyond cpu/memory/storage)
  if (g.template.source === 'provider') {
    const r = a.provider.setTemplateResource(g.group, resource, String(need), a.providerContext);
    return `CA's scratch template of ${g.group.name} has no ${resource}. ${remedyText(r)}`;
  }
  if (g.template.source !== 'asg') return undefined;
  const info = g.template.instanceTypeInfo;
  const hasTag = a.provider.templateDeclares(g.group, 'resources', resource);
  if (hasTag) return undefined;
  // the fix rule (lib/fix-safety.ts): no resource tag for a device the instance type does not have
  const evidence = resourceEvidence(a, g.group, resource);
  if (!evidence.ok)
    return `${g.group.name} cannot offer ${resource}: ${evidence.why}. A tag would make CA launch nodes the pod never fits; it needs a group of an instance type with ${resource}.`;
  const note =
    resource === 'nvidia.com/gpu' && info && info.gpu === 0
      ? `CA's instance-type table gives ${info.name} 0 GPUs, so its scratch template has ${resource}: 0. `
      : `CA's scratch template has no ${resource} (CA only knows nvidia.com/gpu, from its instance-type table). `;
  return `${note}If ${g.group.name}'s nodes have it, tell CA:\n  ${tagCommand(g.group.name, `${RESOURCES_TAG}${resource}`, String(need))}`;
}

export default defineCheck({
  meta: {
    id: 'pod-insufficient-resources',
    title: "Pod requests more than the node group's template node offers",
    summary:
      "A Pending pod's requests (cpu, memory, ephemeral-storage, GPUs, pods) exceed what every candidate group's template can hold.",
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      insufficient: 'Pod {pod} requests {requests}, more than {groups} can hold: {shortfall}.',
    },
    upstream:
      'kube-scheduler noderesources/fit.go; cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const p of pendingAnalyses(a)) {
      if (p.report.verdict !== 'no-scale-up') continue;
      const hits = closestFailures(p, ['NodeResourcesFit']);
      if (hits.length === 0) continue;
      const reasons = [...new Set(hits.flatMap((h) => h.status.reasons))];
      // the closest groups in snapshot order, as the text report's table lists them; hundreds are named as a count
      const shortfall = boundedList(
        hits.map(
          (h) =>
            `${h.g.group.name} (${h.g.template.instanceType ?? h.g.template.source}): ${h.status.reasons.join(', ')}`,
        ),
        'node groups',
        '; ',
      );
      const fixes: string[] = [];
      let unfixed = 0;
      for (const h of hits) {
        for (const r of h.status.reasons) {
          const m = /^Insufficient (.+)$/.exec(r);
          if (m?.[1].includes('/')) {
            const fix = gpuTagFix(h.g, m[1], p.requests[m[1]] ?? 1, a);
            if (fix && fixes.length < MESSAGE_NAMES) fixes.push(fix);
            else if (fix) unfixed++;
          }
        }
      }
      if (unfixed > 0) fixes.push(`The same for ${unfixed} more (group, resource) pair(s) of the other closest groups.`);
      if (fixes.length === 0) {
        const daemon: Resources = {};
        const first = hits[0].g.templateInfo;
        for (const [k, v] of Object.entries(first?.requested ?? {})) daemon[k] = v;
        const need: Resources = {};
        for (const k of new Set([...Object.keys(p.requests), ...Object.keys(daemon)]))
          need[k] = (p.requests[k] ?? 0) + (daemon[k] ?? 0);
        const types = !a.provider.suggestsInstanceTypes ? [] : smallestFitting(
          a,
          need,
          first?.node.metadata.labels?.['kubernetes.io/arch'],
          hits[0].g.template.instanceType,
        );
        fixes.push(
          `Lower the pod's requests to what a node of the group can hold, or add a node group with a larger instance type${
            types.length
              ? `: with its DaemonSets (${describeResources(daemon) || 'none'}) it needs ${describeResources(need)}, e.g. ${types.join(', ')}`
              : ''
          }.${hits.some((h) => h.g.template.source === 'asg' || h.g.template.source === 'provider') ? " Remember real nodes have less allocatable than CA's scratch template (allocatable = capacity)." : ''}`,
        );
      }
      ctx.report({
        messageId: 'insufficient',
        data: {
          pod: `${p.report.namespace}/${p.report.name}`,
          requests: Object.entries(p.requests)
            .filter(([, v]) => v > 0)
            .map(([k, v]) => `${k} ${formatResource(k, v)}`)
            .join(', '),
          groups:
            hits.length === 1
              ? 'the template of its node group'
              : `the templates of ${hits.length} node groups`,
          shortfall,
        },
        subject: podSubject(p.pod),
        ...(hits.length === 1 ? { nodeGroup: hits[0].g.group.name } : {}),
        schedulerReason: reasons.join(', '),
        evidence: boundedEvidence(
          hits,
          (h) => ({
            source: `${h.g.group.name} template (${h.g.template.source === 'node' ? `node ${h.g.template.fromNode}` : a.provider.templateSourceLabel(h.g.group, h.g.template, 'type', a.providerContext)})`,
            observed: (h.status.details ?? h.status.reasons).join('; '),
          }),
          'node group templates too small for the pod',
          '-o wide lists every node group',
        ),
        remediation: fixes.join('\n'),
      });
    }
  },
});
