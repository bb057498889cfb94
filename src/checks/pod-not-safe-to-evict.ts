import { shellCommand } from '../model/shell.js';
import { SAFE_TO_EVICT } from '../simulate/drainability/pod-util.js';
import { defineCheck } from './define-check.js';
import { blockerRole, blockersWithReason, templateHint } from './lib/scale-down.js';
import { podRef, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-not-safe-to-evict',
    title: 'Pod annotated safe-to-evict: "false" blocks scale-down',
    summary: 'A pod annotated cluster-autoscaler.kubernetes.io/safe-to-evict: "false" keeps its node (NotSafeToEvictAnnotation).',
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups'],
    messages: {
      annotated: 'Pod {pod} on node {node} is annotated {annotation}: "false": CA will not remove the node (NotSafeToEvictAnnotation).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/notsafetoevict/rule.go',
  },
  run(ctx) {
    for (const { node, blocker } of blockersWithReason(ctx.analysis, 'NotSafeToEvictAnnotation')) {
      const pod = blocker.pod;
      ctx.report({
        messageId: 'annotated',
        data: { pod: podRef(pod), node: node.name, annotation: SAFE_TO_EVICT },
        subject: podSubject(pod),
        ...(node.group ? { nodeGroup: node.group.name } : {}),
        caReason: 'NotSafeToEvictAnnotation',
        evidence: [
          { source: `Pod ${podRef(pod)} metadata.annotations`, observed: `${SAFE_TO_EVICT}: "false"` },
          { source: `CA on node ${node.name}`, observed: `${blocker.message}; ${blockerRole(blocker)}` },
        ],
        remediation: [
          `The annotation is a deliberate "never interrupt me". If the workload can be restarted elsewhere, remove it from ${templateHint(ctx.analysis, pod)}, or for the running pod:`,
          `  ${shellCommand(['kubectl', 'annotate', 'pod', '-n', pod.metadata.namespace ?? 'default', pod.metadata.name ?? '', `${SAFE_TO_EVICT}-`])}`,
          'For batch work, CA 1.36+ understands safe-to-evict: "on-completion": the node goes once the pod finishes.',
        ].join('\n'),
      });
    }
  },
});
