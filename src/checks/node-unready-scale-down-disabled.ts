import { defineCheck } from './define-check.js';
import { nodeSubject, nodesWithReason } from './lib/scale-down.js';

export default defineCheck({
  meta: {
    id: 'node-unready-scale-down-disabled',
    title: 'Unready node kept because unready scale-down is disabled',
    summary: 'The node is not Ready and CA runs with --scale-down-unready-enabled=false (ScaleDownUnreadyDisabled).',
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['nodes', 'autoScalingGroups'],
    messages: {
      unready: 'Node {node} is not Ready and CA runs with --scale-down-unready-enabled=false: CA keeps it.',
    },
    upstream: 'cluster-autoscaler core/scaledown/eligibility/eligibility.go (ScaleDownUnreadyEnabled)',
  },
  run(ctx) {
    for (const n of nodesWithReason(ctx.analysis, 'ScaleDownUnreadyDisabled')) {
      const ready = n.node.status?.conditions?.find((c) => c.type === 'Ready');
      ctx.report({
        messageId: 'unready',
        data: { node: n.name },
        subject: nodeSubject(n.node),
        ...(n.group ? { nodeGroup: n.group.name } : {}),
        caReason: 'ScaleDownUnreadyDisabled',
        evidence: [
          {
            source: `Node ${n.name} condition Ready`,
            observed: `${ready?.status ?? 'missing'}${ready?.reason ? ` (${ready.reason})` : ''}`,
            expected: 'True',
          },
        ],
        remediation:
          'Fix or replace the node, or let CA remove unready nodes after --scale-down-unready-time by dropping --scale-down-unready-enabled=false.',
      });
    }
  },
});
