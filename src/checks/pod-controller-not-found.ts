import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { blockerRole, blockersWithReason } from './lib/scale-down.js';
import { podRef, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-controller-not-found',
    title: "Pod whose controller no longer exists blocks scale-down",
    summary: "A pod's owning ReplicaSet, Job, StatefulSet or DaemonSet is gone (ControllerNotFound): CA will not drain its node.",
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups', 'replicaSets', 'statefulSets', 'daemonSets', 'jobs'],
    messages: {
      orphan: 'Pod {pod} on node {node} is owned by {kind} {owner}, which does not exist: CA will not remove the node (ControllerNotFound).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/replicacount/rule.go',
  },
  run(ctx) {
    for (const { node, blocker } of blockersWithReason(ctx.analysis, 'ControllerNotFound')) {
      const c = blocker.controller;
      const pod = blocker.pod;
      ctx.report({
        messageId: 'orphan',
        data: { pod: podRef(pod), node: node.name, kind: c?.kind ?? 'controller', owner: c?.name ?? '?' },
        subject: podSubject(pod),
        ...(node.group ? { nodeGroup: node.group.name } : {}),
        caReason: 'ControllerNotFound',
        evidence: [
          { source: `Pod ${podRef(pod)} ownerReferences`, observed: `${c?.apiVersion ?? ''} ${c?.kind} ${c?.name} (controller: true)` },
          { source: `${c?.kind ?? 'controller'} list`, observed: `no ${c?.kind} ${pod.metadata.namespace}/${c?.name}`, expected: 'the owner exists' },
          { source: `CA on node ${node.name}`, observed: `${blocker.message}; ${blockerRole(blocker)}` },
        ],
        remediation: [
          `The pod was orphaned (its ${c?.kind} was deleted with --cascade=orphan, or by hand). If nothing should run it any more, delete it:`,
          `  ${shellCommand(['kubectl', 'delete', 'pod', '-n', pod.metadata.namespace ?? 'default', pod.metadata.name ?? ''])}`,
          `Otherwise recreate the ${c?.kind} (or move the workload under a new controller). safe-to-evict: "true" does not help here: CA checks the controller (ReplicaCount) before that annotation.`,
          'Only --skip-nodes-with-custom-controller-pods=false switches this check off in CA.',
        ].join('\n'),
      });
    }
  },
});
