import { findUntoleratedTaint } from '../simulate/predicates/taint-toleration.js';
import { defineCheck } from './define-check.js';
import { quoted, yamlSnippet } from './lib/snippets.js';
import { closestFailures, MESSAGE_NAMES, moreGroupsEvidence, pendingAnalyses, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-untolerated-taint',
    title: 'Pod does not tolerate the taint of the node group it targets',
    summary:
      "The node group a Pending pod selects carries a NoSchedule/NoExecute taint the pod doesn't tolerate.",
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      taint:
        'Pod {pod} does not tolerate taint {taint} of node group {group} ({source} template), the group it selects.',
    },
    upstream: 'kube-scheduler pkg/scheduler/framework/plugins/tainttoleration',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const p of pendingAnalyses(a)) {
      if (p.report.verdict !== 'no-scale-up') continue;
      const hits = closestFailures(p, ['TaintToleration']).flatMap((h) => {
        const taint = findUntoleratedTaint(p.pod.spec.tolerations, h.g.template.node?.spec?.taints);
        return taint ? [{ ...h, taint }] : [];
      });
      const reported = hits.slice(0, MESSAGE_NAMES);
      for (const [i, { g, status, taint }] of reported.entries()) {
        const shown = `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
        const fromTag = ctx.analysis.provider.templateDeclares(g.group, 'taint', taint.key);
        ctx.report({
          messageId: 'taint',
          data: {
            pod: `${p.report.namespace}/${p.report.name}`,
            taint: shown,
            group: g.group.name,
            source: g.template.source === 'node' ? `real node ${g.template.fromNode}` : a.provider.templateSourceLabel(g.group, g.template, 'any', a.providerContext),
          },
          subject: podSubject(p.pod),
          nodeGroup: g.group.name,
          schedulerReason: status.reasons[0],
          evidence: [
            {
              source:
                g.template.source === 'node' ? `Node ${g.template.fromNode}` : a.provider.templateSourceLabel(g.group, g.template, 'taints', a.providerContext),
              observed: `taint ${shown}`,
            },
            {
              source: 'Pod spec.tolerations',
              observed: JSON.stringify(p.pod.spec.tolerations ?? []),
              expected: `a toleration for ${shown}`,
            },
            ...moreGroupsEvidence(hits.length, reported.length, i),
          ],
          remediation: [
            `If the pod belongs on ${g.group.name}, add to its pod template:`,
            yamlSnippet(
              {
                tolerations: [
                  taint.value
                    ? { key: taint.key, operator: 'Equal', value: quoted(taint.value), effect: taint.effect }
                    : { key: taint.key, operator: 'Exists', effect: taint.effect },
                ],
              },
              2,
              { indentSeq: false },
            ),
            fromTag
              ? `Otherwise remove the ASG tag k8s.io/cluster-autoscaler/node-template/taint/${taint.key} (and the kubelet taint) if the group is not meant to be dedicated.`
              : 'Otherwise point the pod at a group without the taint (its nodeSelector / affinity).',
          ].join('\n'),
        });
      }
    }
  },
});
