import { shellCommand } from '../model/shell.js';
import { caVersionText } from '../simulate/ca-config.js';
import { defineCheck } from './define-check.js';
import { age, blockerRole, blockersWithReason, pdbManifest, workloadOf } from './lib/scale-down.js';
import { podRef, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-unmovable-kube-system',
    title: 'kube-system pod without a PodDisruptionBudget blocks scale-down',
    summary: 'A kube-system pod that no PDB covers keeps its node (UnmovableKubeSystemPod); since CA 1.33 only for its first hour.',
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups', 'pdbs'],
    messages: {
      unmovable:
        'Pod {pod} on node {node} is a kube-system pod no PodDisruptionBudget covers: CA will not remove the node {until} (UnmovableKubeSystemPod).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/system/rule.go',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const { node, blocker } of blockersWithReason(a, 'UnmovableKubeSystemPod')) {
      const pod = blocker.pod;
      const created = pod.metadata.creationTimestamp;
      const until = blocker.blocksUntil
        ? `until ${blocker.blocksUntil.toISOString()} (created ${age(created, a.now)} ago; --blocking-system-pod-distruption-timeout)`
        : `while the pod exists (CA ${caVersionText(a.ca)} has no timeout for it)`;
      const w = workloadOf(a, pod);
      const lines = [
        w
          ? `Give ${w.kind} ${w.namespace}/${w.name} a PodDisruptionBudget: CA then treats the pod like any other and the budget governs the eviction.`
          : 'Give the pod a PodDisruptionBudget: CA then treats it like any other pod.',
        ...(w ? ['', pdbManifest(w), ''] : []),
        `Or, if it may simply be evicted: ${shellCommand(['kubectl', 'annotate', 'pod', '-n', 'kube-system', pod.metadata.name ?? '', 'cluster-autoscaler.kubernetes.io/safe-to-evict=true'])}`,
      ];
      if (blocker.wouldStopBlockingOn133) {
        const old = blocker.wouldStopBlockingOn133.getTime() < a.now.getTime();
        lines.push(
          old
            ? `CA 1.33+ would not block on it: it is ${age(created, a.now)} old, past the 1h --blocking-system-pod-distruption-timeout.`
            : `CA 1.33+ would still block on it until ${blocker.wouldStopBlockingOn133.toISOString()} (1h after creation).`,
        );
      }
      ctx.report({
        messageId: 'unmovable',
        data: { pod: podRef(pod), node: node.name, until },
        subject: podSubject(pod),
        ...(node.group ? { nodeGroup: node.group.name } : {}),
        caReason: 'UnmovableKubeSystemPod',
        evidence: [
          { source: 'PodDisruptionBudgets in kube-system', observed: `none selects ${podRef(pod)}`, expected: 'one PDB covering the pod' },
          { source: `Pod ${podRef(pod)}`, observed: `created ${created ?? '?'} (${age(created, a.now)} ago)` },
          { source: `CA on node ${node.name}`, observed: `${blocker.message}; ${blockerRole(blocker)}` },
        ],
        remediation: lines.join('\n'),
      });
    }
  },
});
