/**
 * The methods' filters (ShouldDisrupt) for one candidate, in pkg/controllers/disruption/controller.go:103-114 order:
 * static NodePools, consolidation.go's pricing labels, consolidation disabled, WhenEmpty, consolidateAfter (the
 * NodeClaim's Consolidatable condition, pkg/controllers/nodeclaim/disruption/consolidation.go), and the spot-to-spot
 * gate a replacement needs.
 */
import { shellCommand } from '../../../model/shell.js';
import { CAPACITY_TYPE_LABEL, CAPACITY_TYPE_SPOT, DEFAULT_KARPENTER_FEATURE_GATES } from '../../../model/karpenter.js';
import { podKey } from '../../predicates/status.js';
import type { Candidate, NodeEvaluation } from './candidate.js';
import { cond, human, INSTANCE_TYPE_LABEL, iso, ms, nillableDuration, ZONE_LABEL } from './statenode.js';
import { karpenterHas } from './versions.js';

export interface FilterFacts {
  staticPool: boolean;
  drifted: boolean;
  consolidatableAt?: number;
}

const unconsolidatable = (message: string) => ({ reason: 'Unconsolidatable' as const, on: 'Node and NodeClaim' as const, message });

export function consolidationFilters(ev: NodeEvaluation, c: Candidate): FilterFacts {
  const { ctx, sn, now, blockers, blocked } = ev;
  const { claim, nodeName, poolName, np, version, candidateBlocked, candidateCount, reschedulable, empty } = c;
  const disruption = np.spec.disruption ?? {};
  const staticPool = typeof np.spec.replicas === 'number';
  const consolidateAfter = nillableDuration(disruption.consolidateAfter, '0s');
  const policy = disruption.consolidationPolicy ?? 'WhenEmptyOrUnderutilized';
  const drifted = cond(claim.status?.conditions, 'Drifted')?.status === 'True';
  const consolidatable = cond(claim.status?.conditions, 'Consolidatable')?.status === 'True';

  // ---- method filters (ShouldDisrupt), in controller.go:103-114 method order
  if (staticPool) {
    blocked({
      id: 'static-nodepool',
      blocks: ['emptiness', 'consolidation'],
      explanation: `NodePool ${poolName} is static (spec.replicas=${np.spec.replicas}): Karpenter keeps exactly that many nodes and never consolidates them; drift is handled by static drift.`,
      values: { replicas: np.spec.replicas ?? null },
      fix: 'Lower spec.replicas to remove nodes from a static NodePool.',
      source: 'pkg/controllers/disruption/consolidation.go:101-104; emptiness.go:43-45; types.go:148-150',
    });
  }
  const offered = ctx.instanceTypesByNodePool?.[poolName];
  const instanceType = sn.labels[INSTANCE_TYPE_LABEL];
  if (!staticPool && !empty && offered && offered.length > 0 && !offered.includes(instanceType ?? '')) {
    const text = `Instance Type "${instanceType ?? ''}" not found`;
    blocked({
      id: 'instance-type-not-found',
      blocks: ['consolidation'],
      karpenterText: text,
      event: unconsolidatable(text),
      explanation: `NodePool ${poolName} no longer offers ${instanceType ?? 'the node\'s instance type'}, so Karpenter cannot price the node for consolidation.`,
      values: { instanceType: instanceType ?? null },
      fix: 'Expected after the NodePool requirements changed; drift replaces the node.',
      source: 'pkg/controllers/disruption/consolidation.go:110-113',
    });
  }
  if (!staticPool && !empty && sn.labels[CAPACITY_TYPE_LABEL] === undefined) {
    const text = `Node does not have label "${CAPACITY_TYPE_LABEL}"`;
    blocked({
      id: 'missing-capacity-type-label',
      blocks: ['consolidation'],
      karpenterText: text,
      event: unconsolidatable(text),
      explanation: 'Without its capacity type Karpenter cannot price the node.',
      values: { label: CAPACITY_TYPE_LABEL },
      fix: `Restore the label from the NodeClaim (${shellCommand(['kubectl', 'label', 'node', nodeName ?? '<node>'])} ${CAPACITY_TYPE_LABEL}=<on-demand|spot>).`,
      source: 'pkg/controllers/disruption/consolidation.go:114-117',
    });
  }
  if (!staticPool && !empty && sn.labels[ZONE_LABEL] === undefined) {
    const text = `Node does not have label "${ZONE_LABEL}"`;
    blocked({
      id: 'missing-zone-label',
      blocks: ['consolidation'],
      karpenterText: text,
      event: unconsolidatable(text),
      explanation: 'Without its zone Karpenter cannot price the node.',
      values: { label: ZONE_LABEL },
      fix: `Restore the label (${shellCommand(['kubectl', 'label', 'node', nodeName ?? '<node>'])} ${ZONE_LABEL}=<zone>).`,
      source: 'pkg/controllers/disruption/consolidation.go:118-121',
    });
  }
  if (!staticPool && consolidateAfter.ms === null) {
    const text = `NodePool "${poolName}" has consolidation disabled`;
    blocked({
      id: 'consolidation-disabled',
      blocks: ['emptiness', 'consolidation'],
      karpenterText: text,
      event: unconsolidatable(text),
      explanation: consolidateAfter.error
        ? `spec.disruption.consolidateAfter "${disruption.consolidateAfter}" does not parse (${consolidateAfter.error}).`
        : `spec.disruption.consolidateAfter is "Never": neither empty nor underutilized nodes are removed (drift and expiry still apply).`,
      values: { consolidateAfter: disruption.consolidateAfter ?? null },
      fix: `Set spec.disruption.consolidateAfter to a duration, e.g. ${shellCommand(['kubectl', 'patch', 'nodepool', poolName, '--type', 'merge', '-p', '{"spec":{"disruption":{"consolidateAfter":"5m"}}}'])}`,
      source: 'pkg/controllers/disruption/consolidation.go:122-125; emptiness.go:47-50',
    });
  }
  // consolidation.go:131-133@v1.14.1; before v1.14 "has non-empty consolidation disabled", for empty nodes too (:114-116@v1.6.2)
  const whenEmptyV14 = karpenterHas(version, 'when-empty-text');
  if (!staticPool && (!empty || !whenEmptyV14) && consolidateAfter.ms !== null && policy === 'WhenEmpty') {
    const text = whenEmptyV14 ? `NodePool "${poolName}" has consolidation policy WhenEmpty, but node is not empty` : `NodePool "${poolName}" has non-empty consolidation disabled`;
    blocked({
      id: 'when-empty-not-empty',
      blocks: ['consolidation'],
      karpenterText: text,
      event: unconsolidatable(text),
      explanation: `consolidationPolicy WhenEmpty only removes empty nodes; ${reschedulable.length} pod(s) would have to move (${reschedulable.slice(0, 5).map(podKey).join(', ')}${reschedulable.length > 5 ? ', …' : ''}).`,
      values: { consolidationPolicy: policy, reschedulablePods: reschedulable.length },
      fix: `Set consolidationPolicy: WhenEmptyOrUnderutilized (or Balanced) on NodePool ${poolName} to let Karpenter repack pods.`,
      source: 'pkg/controllers/disruption/consolidation.go:131-134',
    });
  }
  let consolidatableAt: number | undefined;
  if (!staticPool && consolidateAfter.ms !== null && !consolidatable) {
    const initialized = cond(claim.status?.conditions, 'Initialized');
    // nodeclaim/disruption/consolidation.go:62-77: timer runs from lastPodEventTime, else from initialization
    const from = ms(claim.status?.lastPodEventTime) ?? ms(initialized?.lastTransitionTime);
    consolidatableAt = from !== undefined ? from + consolidateAfter.ms : undefined;
    const underAfter = consolidatableAt !== undefined && now < consolidatableAt;
    const fromWhat = ms(claim.status?.lastPodEventTime) !== undefined ? 'the last pod event (status.lastPodEventTime)' : 'initialization';
    blocked({
      id: underAfter ? 'consolidate-after' : 'not-consolidatable',
      blocks: ['emptiness', 'consolidation'],
      explanation: underAfter
        ? `consolidateAfter ${disruption.consolidateAfter ?? '0s'} has not elapsed since ${fromWhat} at ${iso(consolidatableAt! - consolidateAfter.ms)}; the NodeClaim becomes Consolidatable at ${iso(consolidatableAt!)} (in ${human(consolidatableAt! - now)}) unless another pod event resets the timer.`
        : initialized?.status !== 'True'
          ? 'The NodeClaim is not Initialized, so its Consolidatable condition is not set.'
          : `consolidateAfter has elapsed but the NodeClaim has no Consolidatable=True condition yet (the snapshot predates the next reconcile, or the NodeClaim disruption controller is not running).`,
      values: {
        consolidateAfter: disruption.consolidateAfter ?? '0s',
        lastPodEventTime: claim.status?.lastPodEventTime ?? null,
        consolidatableAt: consolidatableAt !== undefined ? iso(consolidatableAt) : null,
      },
      fix: underAfter
        ? 'Wait, or lower spec.disruption.consolidateAfter; pods churning on the node keep resetting the timer.'
        : 'Re-check after a minute; if it stays unset, look at the Karpenter controller logs for the nodeclaim.disruption controller.',
      source: 'pkg/controllers/nodeclaim/disruption/consolidation.go:40-84; pkg/utils/disruption/disruption.go:79-93',
    });
  }

  // a node that is no candidate never reaches the methods' filters (ShouldDisrupt): Karpenter publishes nothing for them

  // a node that is no candidate never reaches the methods' filters (ShouldDisrupt): Karpenter publishes nothing for them
  if (candidateBlocked) for (const b of blockers.slice(candidateCount)) delete b.event;
  return { staticPool, drifted, consolidatableAt };
}

/** Whether the SpotToSpotConsolidation gate is on (the default table overlaid with the deployment's FEATURE_GATES). */
export function spotToSpotGate(ev: NodeEvaluation): boolean {
  return { ...DEFAULT_KARPENTER_FEATURE_GATES, ...ev.ctx.settings?.featureGates }.SpotToSpotConsolidation;
}

// spot-to-spot (consolidation.go:212-214,263-268): replacing a spot node needs the feature gate
export function spotToSpotBlocker(ev: NodeEvaluation, c: Candidate, staticPool: boolean, alreadyBlocked: (m: 'consolidation') => boolean): void {
  const { sn, blocked } = ev;
  const { candidateBlocked, empty } = c;
  const gates = { SpotToSpotConsolidation: spotToSpotGate(ev) };
  // the text comes only after a consolidation simulation chose a single spot replacement (consolidation.go:188-190,234-242@v1.6.2):
  // a candidate whose consolidation nothing else blocks; whether the simulation picks a spot replacement is not known offline
  if (!candidateBlocked && !alreadyBlocked('consolidation') && !staticPool && !empty && sn.labels[CAPACITY_TYPE_LABEL] === CAPACITY_TYPE_SPOT && !gates.SpotToSpotConsolidation) {
    const text = "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node";
    blocked({
      id: 'spot-to-spot-disabled',
      blocks: ['consolidation'],
      partial: true,
      certainty: 'inferred',
      karpenterText: text,
      event: unconsolidatable(text),
      explanation: 'The node is spot and the SpotToSpotConsolidation feature gate is off: consolidation can still delete it when its pods fit elsewhere, but never replace it with a cheaper spot node.',
      values: { capacityType: CAPACITY_TYPE_SPOT, SpotToSpotConsolidation: false },
      fix: 'Set FEATURE_GATES=SpotToSpotConsolidation=true on the Karpenter controller (it then needs 15 cheaper instance types to act).',
      source: 'pkg/controllers/disruption/consolidation.go:212-214,263-268',
    });
  }
}
