/**
 * "Why was this node not consolidated?" in Karpenter's own order: its NodeClaim's Consolidatable condition and since
 * when, the NodePool's policy, then each method as the disruption controller runs them (pkg/controllers/disruption/
 * controller.go:105-113@v1.14.1: emptiness, static drift, drift, multi-node, single-node consolidation), with what
 * Karpenter's search leaves open ("Karpenter may decide either"), and the node's latest consolidation events (v1.9+).
 * Pure: reads the disruption verdict already computed and the snapshot's objects.
 */
import type { KubeEvent } from '../../../model/k8s.js';
import type { NodeClaim, NodePool } from '../../../model/karpenter.js';
import type { KarpenterNodeDisruption } from './disruption-types.js';

export interface ConsolidationStep {
  method: 'emptiness' | 'drift' | 'multi-node' | 'single-node' | 'expiration';
  verdict: 'not-applicable' | 'blocked' | 'possible' | 'may-decide-either';
  why: string;
}

export interface ConsolidationStory {
  /** The NodeClaim's Consolidatable condition: its status ('absent' when not set) and lastTransitionTime. */
  consolidatable: { status: string; since?: string };
  policy: string;
  consolidateAfter: string;
  steps: ConsolidationStep[];
  /** The latest Karpenter event of each consolidation reason on the Node or its NodeClaim. */
  said: Array<{ reason: string; message: string; at?: string }>;
}

/** The events that tell a node's consolidation (pkg/events/reason.go; the three Consolidation* from v1.9.0). */
const STORY_REASONS = ['DisruptionBlocked', 'Unconsolidatable', 'ConsolidationRejected', 'ConsolidationCandidate', 'ConsolidationApproved'] as const;

function eventAt(e: KubeEvent): string | undefined {
  return e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? undefined;
}

export function consolidationStory(
  d: KarpenterNodeDisruption,
  claim: NodeClaim | undefined,
  np: NodePool | undefined,
  events: readonly KubeEvent[],
): ConsolidationStory {
  const c = claim?.status?.conditions?.find((x) => x.type === 'Consolidatable');
  const policy = np?.spec.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized';
  const verdict = (m: string) => d.methods.find((x) => x.method === m);
  const blockedText = (m: string) => {
    const v = verdict(m);
    return v && v.blockedBy.length ? `blocked by ${v.blockedBy.join(', ')}` : (v?.detail ?? 'not evaluated');
  };
  const steps: ConsolidationStep[] = [];
  const empt = verdict('emptiness');
  steps.push({ method: 'emptiness', verdict: !empt?.applicable ? 'not-applicable' : empt.possible ? 'possible' : 'blocked', why: !empt?.applicable ? 'pods would have to move' : empt.possible ? 'empty: Karpenter deletes it' : blockedText('emptiness') });
  const drift = verdict('drift');
  steps.push({ method: 'drift', verdict: !drift?.applicable ? 'not-applicable' : drift.possible ? 'possible' : 'blocked', why: !drift?.applicable ? 'not Drifted' : drift.possible ? drift.detail : blockedText('drift') });
  const cons = verdict('consolidation');
  if (!cons?.applicable) {
    steps.push({ method: 'multi-node', verdict: 'not-applicable', why: 'empty: emptiness handles it' });
    steps.push({ method: 'single-node', verdict: 'not-applicable', why: 'empty: emptiness handles it' });
  } else if (!cons.possible) {
    steps.push({ method: 'multi-node', verdict: 'blocked', why: blockedText('consolidation') });
    steps.push({ method: 'single-node', verdict: 'blocked', why: blockedText('consolidation') });
  } else {
    // multinodeconsolidation.go:35,79-83@v1.14.1: the first 100 candidates by disruption cost, a binary search, 1 minute
    steps.push({
      method: 'multi-node',
      verdict: 'may-decide-either',
      why: 'Karpenter tries this node with up to 99 other candidates (ordered by disruption cost) in a binary search bounded by 1 minute; whether a batch with it fits on fewer, cheaper nodes depends on the other candidates and prices casdoctor does not model (multinodeconsolidation.go:35,79-83@v1.14.1)',
    });
    // singlenodeconsolidation.go:33,62-69@v1.14.1; consolidation.go:48 MinInstanceTypesForSpotToSpotConsolidation
    const spot = cons.limitedBy.includes('spot-to-spot-disabled') ? ' (not with a spot node: SpotToSpotConsolidation is off)' : '; a spot node is replaced by spot only with at least 15 cheaper instance types';
    steps.push({
      method: 'single-node',
      verdict: 'may-decide-either',
      why: `deleted if its pods fit on the other nodes, or replaced by one cheaper node${spot}; candidates are tried in order within 3 minutes, so a later one may not be reached in a pass (singlenodeconsolidation.go:33,62-69@v1.14.1)${policy === 'Balanced' ? '; Balanced also needs a score of at least 1/k (k=2) of savings against disruption (nodepool.go:163-178@v1.14.0)' : ''}`,
    });
  }
  const exp = verdict('expiration');
  if (exp?.applicable) steps.push({ method: 'expiration', verdict: 'possible', why: exp.detail });

  const said: ConsolidationStory['said'] = [];
  for (const reason of STORY_REASONS) {
    let best: { e: KubeEvent; at?: string } | undefined;
    for (const e of events) {
      if (e.reason !== reason) continue;
      const at = eventAt(e);
      if (!best || (at ?? '') > (best.at ?? '')) best = { e, ...(at ? { at } : {}) };
    }
    if (best) said.push({ reason, message: best.e.message ?? '', ...(best.at ? { at: best.at } : {}) });
  }
  return {
    consolidatable: { status: c?.status ?? 'absent', ...(c?.lastTransitionTime ? { since: c.lastTransitionTime } : {}) },
    policy,
    consolidateAfter: np?.spec.disruption?.consolidateAfter ?? '0s',
    steps,
    said,
  };
}
