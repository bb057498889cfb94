import { defineCheck } from './define-check.js';
import { karpenterDisruptions, karpenterGate } from './lib/karpenter.js';

// the blockers a user placed on purpose or by accident: annotations and PodDisruptionBudgets
const HELD = new Set(['node-do-not-disrupt', 'pod-do-not-disrupt', 'pdb-blocks-eviction', 'multiple-pdbs']);

export default defineCheck({
  meta: {
    id: 'karpenter-node-disruption-blocked',
    title: 'Karpenter node held by do-not-disrupt or a PodDisruptionBudget',
    summary: 'A Karpenter node cannot be consolidated, drifted or emptied: a karpenter.sh/do-not-disrupt annotation or a PDB holds it.',
    severity: 'info',
    commands: ['scale-down-blockers'],
    requires: ['nodes', 'pods'],
    autoscaler: 'karpenter',
    messages: {
      held: 'Node {node} of NodePool {pool} stays: {reason}.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/state/statenode.go ValidateNodeDisruptable, ValidatePodsDisruptable; pkg/utils/pod/scheduling.go IsDisruptable',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools', 'nodeClaims'])) return;
    for (const d of karpenterDisruptions(ctx.analysis)) {
      if (!d.node) continue;
      const b = d.blockers.find((x) => HELD.has(x.id));
      if (!b) continue;
      ctx.report({
        messageId: 'held',
        data: { node: d.node, pool: d.nodePool ?? '?', reason: b.karpenterText ?? b.explanation },
        subject: { kind: 'Node', name: d.node },
        ...(d.nodePool ? { nodeGroup: `nodepool/${d.nodePool}` } : {}),
        caReason: b.event ? `${b.event.reason}: ${b.event.message}` : b.id,
        evidence: [{ source: `Node ${d.node}${d.nodeClaim ? ` / NodeClaim ${d.nodeClaim}` : ''}`, observed: b.explanation }],
        remediation: b.fix,
      });
    }
  },
});
