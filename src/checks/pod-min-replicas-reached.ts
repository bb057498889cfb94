import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { blockerRole, blockersWithReason, workloadOf } from './lib/scale-down.js';
import { podRef, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-min-replicas-reached',
    title: 'Pod of a ReplicaSet below --min-replica-count blocks scale-down',
    summary: "The pod's ReplicaSet/ReplicationController has fewer replicas than --min-replica-count (MinReplicasReached).",
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups', 'replicaSets'],
    messages: {
      tooFew:
        'Pod {pod} on node {node} belongs to {owner} with {replicas} replica(s), below --min-replica-count={min}: CA will not remove the node (MinReplicasReached).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/replicacount/rule.go',
  },
  run(ctx) {
    const min = ctx.analysis.ca.flags.minReplicaCount.value;
    for (const { node, blocker } of blockersWithReason(ctx.analysis, 'MinReplicasReached')) {
      const pod = blocker.pod;
      const w = workloadOf(ctx.analysis, pod);
      const owner = `${blocker.controller?.kind ?? 'ReplicaSet'} ${blocker.controller?.name ?? '?'}`;
      ctx.report({
        messageId: 'tooFew',
        data: { pod: podRef(pod), node: node.name, owner, replicas: blocker.replicas ?? '?', min },
        subject: podSubject(pod),
        ...(node.group ? { nodeGroup: node.group.name } : {}),
        caReason: 'MinReplicasReached',
        evidence: [
          { source: owner, observed: `spec.replicas ${blocker.replicas ?? '?'}`, expected: `>= ${min} (--min-replica-count)` },
          { source: `CA on node ${node.name}`, observed: `${blocker.message}; ${blockerRole(blocker)}` },
        ],
        remediation:
          w && w.kind === 'Deployment'
            ? `Run at least ${min} replicas (${shellCommand(['kubectl', 'scale', 'deployment', '-n', w.namespace, w.name, `--replicas=${min}`])}), or lower --min-replica-count on CA (default 0).`
            : `Run at least ${min} replicas, or lower --min-replica-count on CA (default 0).`,
      });
    }
  },
});
