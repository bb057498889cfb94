import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { blockerRole, blockersWithReason } from './lib/scale-down.js';
import { podRef, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-not-replicated',
    title: 'Pod without a replicating controller blocks scale-down',
    summary: 'A bare pod, or one owned by a custom controller, blocks its node (NotReplicated): nothing would recreate it.',
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups'],
    messages: {
      bare: 'Pod {pod} on node {node} has no controller: CA will not remove the node (NotReplicated).',
      custom:
        'Pod {pod} on node {node} is owned by {kind} {owner}, not a ReplicationController, ReplicaSet, Job or StatefulSet: CA will not remove the node (NotReplicated).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/replicated/rule.go',
  },
  run(ctx) {
    for (const { node, blocker } of blockersWithReason(ctx.analysis, 'NotReplicated')) {
      const pod = blocker.pod;
      const c = blocker.controller;
      const annotate = shellCommand(['kubectl', 'annotate', 'pod', '-n', pod.metadata.namespace ?? 'default', pod.metadata.name ?? '', 'cluster-autoscaler.kubernetes.io/safe-to-evict=true']);
      ctx.report({
        messageId: c ? 'custom' : 'bare',
        data: { pod: podRef(pod), node: node.name, kind: c?.kind ?? '', owner: c?.name ?? '' },
        subject: podSubject(pod),
        ...(node.group ? { nodeGroup: node.group.name } : {}),
        caReason: 'NotReplicated',
        evidence: [
          {
            source: `Pod ${podRef(pod)} ownerReferences`,
            observed: c ? `${c.apiVersion ?? ''} ${c.kind} ${c.name}` : '<none>',
            expected: 'a ReplicaSet, StatefulSet, Job or ReplicationController',
          },
          { source: `CA on node ${node.name}`, observed: `${blocker.message}; ${blockerRole(blocker)}` },
        ],
        remediation: c
          ? `If the ${c.kind} operator recreates its pods, tell CA the pod may be evicted (set it in the operator's pod template so it sticks):\n  ${annotate}\nor run CA with --skip-nodes-with-custom-controller-pods=false.`
          : `A pod started with kubectl run or a bare manifest is lost when its node goes. Run it under a Deployment, StatefulSet or Job; or, if losing it is fine, delete it or mark it evictable:\n  ${annotate}`,
      });
    }
  },
});
