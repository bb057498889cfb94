/**
 * What keeps Karpenter from disrupting a node, in Karpenter's order and words (kubernetes-sigs/karpenter at
 * 2266468104f3, v1.14.0+20): candidate checks (pkg/controllers/state/statenode.go ValidateNodeDisruptable,
 * ValidatePodsDisruptable; pkg/controllers/disruption/types.go NewCandidate), then each method's filter (emptiness.go,
 * drift.go, consolidation.go ShouldDisrupt), then NodePool budgets per reason (helpers.go BuildDisruptionBudgetMapping).
 * Expiration (pkg/controllers/nodeclaim/expiration) is forceful and runs outside the disruption controller.
 * Pure: every input is a snapshot object; `now` is the instant evaluated.
 *
 * Carved along Karpenter's own files: candidate.ts (NewCandidate), consolidation.ts (the methods' filters),
 * disruption-budgets.ts (budgets per reason), expiration.ts; statenode.ts and cluster-state.ts hold the state views.
 */
import { NODEPOOL_LABEL, type NodeClaim } from '../../../model/karpenter.js';
import type { Node } from '../../../model/k8s.js';
import { podKey } from '../../predicates/status.js';
import { newCandidate, startEvaluation } from './candidate.js';
import { buildIndex, claimFor } from './cluster-state.js';
import { consolidationFilters, spotToSpotBlocker, spotToSpotGate } from './consolidation.js';
import { budgetBlockers } from './disruption-budgets.js';
import {
  METHOD_REASON,
  type KarpenterDisruptionBlocker,
  type KarpenterDisruptionContext,
  type KarpenterDisruptionMethod,
  type KarpenterMethodVerdict,
  type KarpenterNodeDisruption,
} from './disruption-types.js';
import { expirationVerdict } from './expiration.js';
import { iso } from './statenode.js';

export {
  METHOD_REASON,
  type KarpenterBlockerId,
  type KarpenterDisruptionBlocker,
  type KarpenterDisruptionContext,
  type KarpenterDisruptionMethod,
  type KarpenterMethodVerdict,
  type KarpenterNodeDisruption,
} from './disruption-types.js';
export { podDoNotDisrupt, type DoNotDisruptState } from './statenode.js';

/**
 * Disruption blockers for one Karpenter node (or a NodeClaim that has no Node), in Karpenter's order, and which
 * disruption methods remain possible at ctx.now.
 */
export function karpenterDisruptionBlockers(target: Node | NodeClaim, ctx: KarpenterDisruptionContext): KarpenterNodeDisruption {
  const ev = startEvaluation(target, ctx);
  const { blockers, notes, now } = ev;
  const result = (extra: Partial<KarpenterNodeDisruption> = {}): KarpenterNodeDisruption => ({
    node: ev.nodeName,
    nodeClaim: ev.claim?.metadata.name,
    nodePool: ev.poolName,
    candidate: false,
    empty: false,
    reschedulablePods: [],
    blockers,
    methods: [],
    notes,
    ...extra,
  });
  const c = newCandidate(ev);
  if (c === 'stop') return result();
  if (c === 'expiration-only') return result({ methods: [expirationVerdict(ev.claim!, ev.np, now, blockers)] });
  const { claim, nodeName, poolName, np, candidateBlocked, reschedulable, empty } = c;
  const budgetState = ev.idx.budgets.get(poolName);
  const { staticPool, drifted, consolidatableAt } = consolidationFilters(ev, c);

  // ---- budgets per reason (helpers.go:262-313), only for the methods that concern this node
  const applicable: Record<Exclude<KarpenterDisruptionMethod, 'expiration'>, boolean> = {
    emptiness: empty,
    drift: drifted,
    consolidation: !empty,
  };
  // budgets hold back candidates that a method's filter kept (controller.go disrupt: GetCandidates with ShouldDisrupt,
  // then the budget mapping): not a node that is no candidate, nor a method something else already blocks
  const alreadyBlocked = (m: KarpenterDisruptionMethod): boolean => blockers.some((b) => !b.partial && b.blocks.includes(m));
  budgetBlockers(ev, c, budgetState, applicable, alreadyBlocked);
  spotToSpotBlocker(ev, c, staticPool, alreadyBlocked);

  const methods = methodVerdicts(blockers, applicable, { drifted, empty, staticPool, consolidatableAt, gatesOn: spotToSpotGate(ev) });
  methods.push(expirationVerdict(claim, np, now, blockers));
  return {
    node: nodeName,
    nodeClaim: claim.metadata.name,
    nodePool: poolName,
    candidate: !candidateBlocked,
    empty,
    reschedulablePods: reschedulable.map(podKey),
    blockers,
    methods,
    budgets: budgetState,
    notes,
  };
}

function methodVerdicts(
  blockers: KarpenterDisruptionBlocker[],
  applicable: Record<'emptiness' | 'drift' | 'consolidation', boolean>,
  f: { drifted: boolean; empty: boolean; staticPool: boolean; consolidatableAt?: number; gatesOn: boolean },
): KarpenterMethodVerdict[] {
  return (['emptiness', 'drift', 'consolidation'] as const).map((method) => {
    const hits = blockers.filter((b) => b.blocks.includes(method));
    const blockedBy = [...new Set(hits.filter((b) => !b.partial).map((b) => b.id))];
    const limitedBy = [...new Set(hits.filter((b) => b.partial).map((b) => b.id))];
    const possible = applicable[method] && blockedBy.length === 0;
    let detail: string;
    if (method === 'emptiness') {
      detail = !f.empty ? 'not empty: pods would have to move' : possible ? 'empty node: Karpenter may delete it' : 'empty node, blocked';
    } else if (method === 'drift') {
      detail = !f.drifted
        ? 'NodeClaim is not Drifted'
        : f.staticPool
          ? 'Drifted: replaced by static drift'
          : possible
            ? 'Drifted: Karpenter replaces it once its pods can be scheduled elsewhere or on a replacement'
            : 'Drifted, blocked';
    } else {
      detail = f.empty
        ? 'empty: handled by emptiness'
        : possible
          ? `possible if a scheduling simulation moves its pods to other nodes (delete) or one cheaper node (replace${limitedBy.length > 0 ? ' — not for spot, gate off' : f.gatesOn ? '; spot needs 15 cheaper types' : ''})`
          : 'blocked';
    }
    const verdict: KarpenterMethodVerdict = {
      method,
      reason: METHOD_REASON[method],
      applicable: applicable[method],
      possible,
      blockedBy,
      limitedBy,
      detail,
    };
    if (method !== 'drift' && f.consolidatableAt !== undefined) verdict.at = iso(f.consolidatableAt);
    return verdict;
  });
}

/** Every Karpenter node (label karpenter.sh/nodepool or a NodeClaim) and every NodeClaim without a Node, by name. */
export function karpenterDisruptionReport(ctx: KarpenterDisruptionContext): KarpenterNodeDisruption[] {
  const idx = buildIndex(ctx);
  const out: KarpenterNodeDisruption[] = [];
  for (const n of ctx.nodes) {
    const managed = claimFor(n, idx.claimByProviderId, idx.claimByNodeName) !== undefined;
    if (managed || n.metadata.labels?.[NODEPOOL_LABEL] !== undefined) out.push(karpenterDisruptionBlockers(n, ctx));
  }
  for (const c of ctx.nodeClaims) if (!idx.nodeForClaim.has(c)) out.push(karpenterDisruptionBlockers(c, ctx));
  const k = (r: KarpenterNodeDisruption) => r.node ?? r.nodeClaim ?? '';
  return out.sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
}
