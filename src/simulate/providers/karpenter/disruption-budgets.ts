/**
 * NodePool budgets per reason as the disruption controller applies them (pkg/controllers/disruption/helpers.go
 * BuildDisruptionBudgetMapping): a candidate a method's filter kept waits when its reason has no disruption left.
 * The budget arithmetic itself is budgets.ts.
 */
import { shellCommand } from '../../../model/shell.js';
import type { PoolBudgetState } from './budgets.js';
import type { Candidate, NodeEvaluation } from './candidate.js';
import { METHOD_REASON, type KarpenterDisruptionMethod } from './disruption-types.js';
import { iso } from './statenode.js';

export function budgetBlockers(
  ev: NodeEvaluation,
  c: Candidate,
  budgetState: PoolBudgetState | undefined,
  applicable: Record<Exclude<KarpenterDisruptionMethod, 'expiration'>, boolean>,
  alreadyBlocked: (m: KarpenterDisruptionMethod) => boolean,
): void {
  const { blocked } = ev;
  const { poolName, candidateBlocked } = c;
  if (budgetState && !candidateBlocked) {
    for (const method of ['emptiness', 'drift', 'consolidation'] as const) {
      const reason = METHOD_REASON[method];
      const rb = budgetState.byReason[reason];
      if (!applicable[method] || rb.remaining > 0 || alreadyBlocked(method)) continue;
      const limiting = rb.limiting.map((i) => rb.budgets[i]);
      const describe = limiting
        .map((e) => {
          const b = e.budget;
          const sched = b.schedule !== undefined ? ` schedule "${b.schedule}" duration ${b.duration ?? '(none)'}` : '';
          const window = e.window.active && e.window.scheduled ? ` (active since ${e.window.since ? iso(e.window.since.getTime()) : '?'}${e.window.until ? ` until ${iso(e.window.until.getTime())}` : ''})` : '';
          const errText = e.error ? `: ${e.error}` : '';
          return `budgets[${e.index}] nodes "${b.nodes}"${b.reasons ? ` reasons [${b.reasons.join(',')}]` : ''}${sched}${window}${errText}`;
        })
        .join('; ');
      blocked({
        id: 'budget',
        blocks: [method],
        karpenterText: rb.event,
        event: rb.event ? { reason: 'DisruptionBlocked', on: 'NodePool', message: rb.event } : undefined,
        explanation: rb.failedClosed
          ? `A budget of NodePool ${poolName} is invalid, so Karpenter allows 0 disruptions for every reason: ${describe}.`
          : rb.allowed === 0
            ? `NodePool ${poolName} budgets allow 0 ${reason} disruptions now (${budgetState.numNodes} counted node(s)): ${describe}.`
            : `NodePool ${poolName} budgets allow ${rb.allowed} ${reason} disruption(s) of ${budgetState.numNodes} node(s), and ${budgetState.disrupting} node(s) already NotReady or being disrupted use them up.`,
        values: {
          reason,
          allowed: rb.allowed,
          disrupting: budgetState.disrupting,
          nodesCounted: budgetState.numNodes,
          limitingBudgets: rb.limiting.join(',') || null,
        },
        fix: rb.failedClosed
          ? 'Fix the schedule (5 fields or @daily/@weekly/…, UTC, no CRON_TZ) or the nodes value of the listed budget.'
          : rb.allowed === 0
            ? `Wait for the window to close or raise nodes on the listed budget (${shellCommand(['kubectl', 'edit', 'nodepool', poolName])}).`
            : 'Wait for the disrupting/NotReady nodes to finish; NotReady nodes that never recover hold the budget until removed.',
        source: 'pkg/controllers/disruption/helpers.go:262-313; pkg/apis/v1/nodepool.go:356-427',
      });
    }
  }
}
