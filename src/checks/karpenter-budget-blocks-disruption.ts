import { defineCheck } from './define-check.js';
import { karpenterDisruptions, karpenterGate, karpenterInputs } from './lib/karpenter.js';

export default defineCheck({
  meta: {
    id: 'karpenter-budget-blocks-disruption',
    title: 'NodePool disruption budget allows no disruption now',
    summary: "A NodePool's disruption budgets allow 0 disruptions for a reason (Underutilized, Empty, Drifted) at --now; names the window.",
    severity: 'info',
    commands: ['scale-down-blockers'],
    requires: ['nodes'],
    autoscaler: 'karpenter',
    messages: {
      blocked: 'NodePool {pool} allows 0 {reason} disruptions now ({window}); Karpenter keeps {count} node(s) it would otherwise {verb}.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping; pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools', 'nodeClaims'])) return;
    const pools = new Map(karpenterInputs(ctx.analysis).nodePools.map((np) => [np.metadata.name ?? '', np]));
    const byPoolReason = new Map<string, { pool: string; reason: string; nodes: string[]; explanation: string; text?: string; fix: string }>();
    for (const d of karpenterDisruptions(ctx.analysis)) {
      if (!d.node) continue;
      for (const b of d.blockers) {
        if (b.id !== 'budget') continue;
        const reason = String(b.values.reason ?? '');
        const key = `${d.nodePool ?? ''}\u0000${reason}`;
        const e = byPoolReason.get(key) ?? { pool: d.nodePool ?? '', reason, nodes: [], explanation: b.explanation, text: b.karpenterText, fix: b.fix };
        e.nodes.push(d.node);
        byPoolReason.set(key, e);
      }
    }
    for (const e of byPoolReason.values()) {
      const np = pools.get(e.pool);
      const window = /\(([^()]*(?:active|window|since)[^()]*)\)/.exec(e.explanation)?.[1] ?? 'budget in force';
      ctx.report({
        messageId: 'blocked',
        data: {
          pool: e.pool,
          reason: e.reason,
          window,
          count: e.nodes.length,
          verb: e.reason === 'Underutilized' ? 'consolidate' : e.reason === 'Empty' ? 'delete as empty' : 'replace for drift',
        },
        subject: { kind: 'NodePool', name: e.pool },
        caReason: e.text ?? 'No allowed disruptions due to blocking budget',
        evidence: [
          { source: `NodePool ${e.pool} spec.disruption.budgets`, observed: e.explanation, expected: `at least one ${e.reason} disruption allowed` },
          { source: 'nodes held', observed: e.nodes.join(', ') },
          ...(np?.spec.disruption?.budgets ? [{ source: `NodePool ${e.pool}`, observed: JSON.stringify(np.spec.disruption.budgets) }] : []),
        ],
        remediation: `${e.fix} A budget with a schedule is usually deliberate (e.g. no consolidation in business hours): then nothing is wrong.`,
      });
    }
  },
});
