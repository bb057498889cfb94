/**
 * Expiration (pkg/controllers/nodeclaim/expiration): forceful, outside the disruption controller, so budgets and
 * do-not-disrupt do not hold it; only the drain waits on pods.
 */
import type { NodeClaim, NodePool } from '../../../model/karpenter.js';
import type { KarpenterBlockerId, KarpenterDisruptionBlocker, KarpenterMethodVerdict } from './disruption-types.js';
import { human, iso, ms, nillableDuration } from './statenode.js';

const DEFAULT_EXPIRE_AFTER = '720h'; // nodeclaim.go:78 / nodepool.go:264 +kubebuilder:default

// nodeclaim/expiration/controller.go:58-107: forceful, ignores budgets and do-not-disrupt; the drain still waits on pods
export function expirationVerdict(
  claim: NodeClaim,
  np: NodePool | undefined,
  now: number,
  blockers: KarpenterDisruptionBlocker[],
): KarpenterMethodVerdict {
  const raw = claim.spec.expireAfter ?? np?.spec.template.spec.expireAfter;
  const d = nillableDuration(raw, DEFAULT_EXPIRE_AFTER);
  const created = ms(claim.metadata.creationTimestamp);
  const base = { method: 'expiration' as const, blockedBy: [] as KarpenterBlockerId[], limitedBy: [] as KarpenterBlockerId[] };
  if (claim.metadata.deletionTimestamp) return { ...base, applicable: false, possible: false, detail: 'NodeClaim is already deleting' };
  if (d.ms === null) {
    return { ...base, applicable: false, possible: false, detail: d.error ? `expireAfter "${raw}" does not parse: ${d.error}` : 'expireAfter is Never' };
  }
  if (created === undefined) return { ...base, applicable: true, possible: true, detail: `expires ${raw ?? DEFAULT_EXPIRE_AFTER} after creation (creationTimestamp unknown)` };
  const at = created + d.ms;
  const podWaits = blockers.filter((b) => b.id === 'pod-do-not-disrupt' || b.id === 'pdb-blocks-eviction' || b.id === 'multiple-pdbs');
  const tgp = claim.spec.terminationGracePeriod;
  const drainNote =
    podWaits.length > 0
      ? tgp
        ? `; its drain waits on ${podWaits.length} blocked pod(s) for at most terminationGracePeriod ${tgp}`
        : `; its drain waits on ${podWaits.length} blocked pod(s) with no terminationGracePeriod to bound it`
      : '';
  return {
    ...base,
    applicable: true,
    possible: true,
    limitedBy: [...new Set(podWaits.map((b) => b.id))],
    at: iso(at),
    detail:
      (at <= now
        ? `expired at ${iso(at)} (expireAfter ${raw ?? DEFAULT_EXPIRE_AFTER}): Karpenter deletes the NodeClaim regardless of budgets and do-not-disrupt`
        : `expires at ${iso(at)} (in ${human(at - now)}, expireAfter ${raw ?? DEFAULT_EXPIRE_AFTER}), regardless of budgets and do-not-disrupt`) + drainNote,
  };
}
