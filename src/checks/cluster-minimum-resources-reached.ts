import { defineCheck } from './define-check.js';
import { nodeSubject, nodesWithReason } from './lib/scale-down.js';

export default defineCheck({
  meta: {
    id: 'cluster-minimum-resources-reached',
    title: 'Removing the node would go below --cores-total / --memory-total minimums',
    summary: "A removable node stays because the cluster would drop below CA's --cores-total or --memory-total minimum (MinimalResourceLimitExceeded).",
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['nodes', 'autoScalingGroups'],
    messages: {
      minimum: 'Node {node} is removable, but {detail}.',
    },
    upstream: 'cluster-autoscaler core/scaledown/unneeded/nodes.go, core/scaledown/resource/limits.go',
  },
  run(ctx) {
    const f = ctx.analysis.ca.flags;
    for (const n of nodesWithReason(ctx.analysis, 'MinimalResourceLimitExceeded')) {
      ctx.report({
        messageId: 'minimum',
        data: { node: n.name, detail: n.report.summary },
        subject: nodeSubject(n.node),
        ...(n.group ? { nodeGroup: n.group.name } : {}),
        caReason: 'MinimalResourceLimitExceeded',
        evidence: [
          {
            source: 'CA flags',
            observed: `--cores-total=${f.coresTotal.value.min}:${f.coresTotal.value.max} --memory-total=${f.memoryTotal.value.min}:${f.memoryTotal.value.max}`,
          },
        ],
        remediation: 'Lower the minimum (the first number) of --cores-total / --memory-total on CA if the cluster may shrink further.',
      });
    }
  },
});
