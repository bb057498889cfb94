import type { Pod } from '../model/k8s.js';
import { explainNodeAffinityMismatch } from '../simulate/predicates/node-affinity.js';
import type { Analysis } from '../simulate/analysis.js';
import type { GroupEvaluation } from '../simulate/why-pending.js';
import { remedyText } from '../providers/types.js';
import { defineCheck } from './define-check.js';
import { realNodeTemplateCaveat, systemLabelAdvice, systemLabelOwner } from './lib/fix-safety.js';
import { blocked, boundedEvidence, boundedList, listNames, podSubject } from './lib/support.js';

/** Labels the pod asks for with a single value: nodeSelector entries and `In [one]` required-affinity expressions. */
function wantedLabels(pod: Pod): Array<[string, string]> {
  const out: Array<[string, string]> = Object.entries(pod.spec.nodeSelector ?? {});
  const terms =
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length === 1) {
    for (const e of terms[0].matchExpressions ?? []) {
      if (e.operator === 'In' && e.values?.length === 1) out.push([e.key, e.values[0]]);
    }
  }
  return out;
}

function affinity(a: Analysis, g: GroupEvaluation, wanted: Array<[string, string]>): number {
  // a group whose name or tags mention a wanted value is probably the one meant (demo-batch for node-pool=batch)
  const hay = [g.group.name, ...a.provider.groupTags(g.group)]
    .join(' ')
    .toLowerCase();
  return wanted.filter(([, v]) => v.length > 2 && hay.includes(v.toLowerCase())).length;
}

export default defineCheck({
  meta: {
    id: 'pod-node-selector-mismatch',
    title: "No node group's template matches the pod's node selector or affinity",
    summary:
      "A Pending pod selects labels that no node group's template node carries (often: a label only real nodes have).",
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      mismatch:
        "Pod {pod} selects {selector}, which no node group's template node carries; closest: {closest}.",
      realNodesOnly:
        "Pod {pod} selects {selector}; node group {group}'s real nodes carry it but CA's scratch template does not ({why}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate (labels from ASG tags)',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const p of blocked(a)) {
      const withTemplate = p.groups.filter((g) => g.template.node);
      if (withTemplate.length === 0 || p.groups.some((g) => g.targeted)) continue;
      const wanted = wantedLabels(p.pod);
      const selector =
        wanted.length > 0
          ? wanted.map(([k, v]) => `${k}=${v}`).join(', ')
          : JSON.stringify(
              p.pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? {},
            );
      const scored = withTemplate
        .map((g) => ({
          g,
          why: explainNodeAffinityMismatch(p.pod, g.template.node!),
          boost: affinity(a, g, wanted),
        }))
        .sort(
          (x, y) =>
            y.boost - x.boost || x.why.length - y.why.length || (x.g.group.name < y.g.group.name ? -1 : 1),
        );
      const best = scored.filter((s) => s.boost === scored[0].boost && s.why.length === scored[0].why.length);
      const podName = `${p.report.namespace}/${p.report.name}`;
      // closest first; at hundreds of groups a sample and the count
      const evidence = boundedEvidence(
        scored,
        (s) => ({
          source: `${s.g.group.name} template (${s.g.template.source === 'node' ? `node ${s.g.template.fromNode}` : a.provider.templateSourceLabel(s.g.group, s.g.template, 'labels', a.providerContext)})`,
          observed: s.why.join('; '),
          expected: selector,
        }),
        "node group templates without the pod's labels",
        '-o wide lists every node group',
      );
      // real nodes of the group carry the label while the template (scratch) doesn't: the classic scale-from-zero trap
      const realOnly = best.find(
        (s) =>
          (s.g.template.source === 'asg' || s.g.template.source === 'provider') &&
          s.g.group.nodes.some((n) => wanted.every(([k, v]) => n.metadata.labels?.[k] === v)),
      );
      const missingLabels = (g: GroupEvaluation) =>
        wanted
          .filter(([k, v]) => g.template.node?.metadata.labels?.[k] !== v)
          .map(([key, value]) => ({ group: g.group, key, value }));
      // the fix rule (lib/fix-safety.ts): a label the cloud, the kubelet, EKS or Karpenter sets is never a template tag;
      // a group missing one is not made to fit by tagging the rest, so only groups missing operator labels get tags
      const fixable = best.filter((s) => {
        const m = missingLabels(s.g);
        return m.length > 0 && m.every((e) => !systemLabelOwner(e.key));
      });
      // label edits for the groups the remediation names (listNames: the first five), not for every equally close one
      const named = fixable.slice(0, 5);
      const edits = named.flatMap((s) => missingLabels(s.g));
      const systemAdvice = wanted
        .filter(([k, v]) => systemLabelOwner(k) && best.some((s) => s.g.template.node?.metadata.labels?.[k] !== v))
        .map(([k, v]) => systemLabelAdvice(a, k, v));
      const onRealNodes = named
        .filter((s) => s.g.template.source === 'node' && s.g.template.fromNode)
        .map((s) => ({ group: s.g.group.name, node: s.g.template.fromNode! }));
      const realNodeNotes = onRealNodes.length
        ? [
            `${realNodeTemplateCaveat(onRealNodes, a.provider.templateLabelEdit)} Put the label on ${onRealNodes.length === 1 ? 'its' : 'their'} nodes as well (${a.provider.nodeLabelHowTo}).`,
          ]
        : [];
      const remediation =
        edits.length > 0
          ? [
              ...systemAdvice,
              `If ${listNames(fixable.map((s) => s.g.group.name))} is meant for this pod, ${remedyText(a.provider.setTemplateLabels(edits, a.providerContext))}`,
              ...realNodeNotes,
              "Otherwise fix the pod's nodeSelector / affinity to match a group that exists.",
            ].join('\n')
          : systemAdvice.length > 0
            ? [...systemAdvice, "Otherwise fix the pod's nodeSelector / affinity to match a group that exists."].join('\n')
            : a.provider.words.selectorFix;
      if (realOnly) {
        ctx.report({
          messageId: 'realNodesOnly',
          data: { pod: podName, selector, group: realOnly.g.group.name, why: realOnly.why.join('; ') },
          subject: podSubject(p.pod),
          nodeGroup: realOnly.g.group.name,
          schedulerReason: "node(s) didn't match Pod's node affinity/selector",
          evidence,
          remediation,
        });
        continue;
      }
      ctx.report({
        messageId: 'mismatch',
        data: {
          pod: podName,
          selector,
          closest: boundedList(
            best.map((s) => `${s.g.group.name} (${s.why.join('; ')})`),
            'node groups as close',
          ),
        },
        subject: podSubject(p.pod),
        ...(best.length === 1 ? { nodeGroup: best[0].g.group.name } : {}),
        schedulerReason: "node(s) didn't match Pod's node affinity/selector",
        evidence,
        remediation,
      });
    }
  },
});
