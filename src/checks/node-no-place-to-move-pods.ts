import { defineCheck } from './define-check.js';
import { nodeSubject, nodesWithReason } from './lib/scale-down.js';
import { podRef } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'node-no-place-to-move-pods',
    title: 'Underutilized node whose pods fit no other node',
    summary: "An underutilized node stays because one of its pods fits no other node by the scheduler's predicates (NoPlaceToMovePods).",
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups'],
    messages: {
      noPlace: 'Node {node} is underutilized ({util}) but pod {pod} fits no other node: {message}',
    },
    upstream: 'cluster-autoscaler simulator/cluster.go SimulateNodeRemoval / findPlaceFor',
  },
  run(ctx) {
    for (const n of nodesWithReason(ctx.analysis, 'NoPlaceToMovePods')) {
      const u = n.report.utilization;
      const pod = n.unplaceablePod;
      const msg = n.report.unplaceable?.message ?? '';
      ctx.report({
        messageId: 'noPlace',
        data: {
          node: n.name,
          util: u ? `${u.resource} ${(u.value * 100).toFixed(1)}% <= ${(u.threshold * 100).toFixed(0)}%` : 'below threshold',
          pod: pod ? podRef(pod) : '?',
          message: msg,
        },
        subject: nodeSubject(n.node),
        ...(n.group ? { nodeGroup: n.group.name } : {}),
        caReason: 'NoPlaceToMovePods',
        evidence: [
          { source: `scheduler predicates for ${pod ? podRef(pod) : 'the pod'} on the other nodes`, observed: msg },
          ...(n.report.podsToMove ?? []).map((m) => ({ source: 'simulation', observed: `${m.namespace}/${m.name} -> ${m.destination}` })),
        ],
        remediation: [
          'CA removes the node only if every movable pod fits elsewhere, with the same predicates the scheduler uses. Options:',
          '- make room elsewhere (other nodes are full, or reject the pod by taint, selector, affinity, hostPort or volume zone, as the message says);',
          "- relax the pod's nodeSelector / affinity / topology spread if it need not run on this group;",
          '- accept it: the node is needed for this pod.',
        ].join('\n'),
      });
    }
  },
});
