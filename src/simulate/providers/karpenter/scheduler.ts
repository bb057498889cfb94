// Why a pending pod gets no Karpenter node: one provisioning pass over the Pending pods, as Karpenter's scheduler does it
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go, scheduling/scheduler.go). Pure.
import type { Pod } from '../../../model/k8s.js';
import type { Resources } from '../../../model/scheduling.js';
import { type KRequirements, addRequirement, copyRequirements, newRequirement, withKarpenterTextVersion } from './requirements.js';
import { podKey } from '../../predicates/status.js';
import { KARPENTER_MODELLED, karpenterHas, karpenterVersion } from './versions.js';
import type { KarpenterPendingExplanation, KarpenterPlacementContext, PoolPlacement } from './placement-types.js';
import { karpenterRequests } from './util.js';
import { hasDRARequirements, karpenterPodEligibility } from './eligibility.js';
import { volumeAlternatives } from './volume-topology.js';
import { daemonPods } from './daemonsets.js';
import type { ExistingCapacity, PassState, PlannedClaim, PoolModel, TopologyRun } from './state.js';
import { poolModels, topologyDomainSources } from './nodepools.js';
import { newTopology, nextHostname, recordTopology, registerDomain, topologyConcerns, unmodelledTopology, updateTopology } from './topology.js';
import { tryPlanned } from './nodeclaim.js';
import { existingCapacity, tryExisting } from './existing-node.js';
import { type RelaxationAttempt, relaxationAttempts } from './preferences.js';
import { type PoolEvaluation, evaluatePool, limitsToRaise, subtractMax } from './new-nodeclaim.js';
import { stuckNodeClaims } from './liveness.js';

/**
 * Karpenter's provisioning decision for one pending pod, per NodePool in its order. Pools Karpenter drops before
 * scheduling (static, not Ready, no instance types) are 'not-evaluated'; the rest get the first failing stage and
 * Karpenter's error text for it. The first pool that fits wins (scheduler.go addToNewNodeClaim keeps the lowest index).
 */
export function explainKarpenterPending(pod: Pod, ctx: KarpenterPlacementContext): KarpenterPendingExplanation {
  // requirement texts as the Karpenter in the input prints them (Gt/Lt before v1.9.0)
  return withKarpenterTextVersion(ctx.settings?.version, () => schedulingPass(ctx).get(pod) ?? explainPending(pod, ctx));
}

const passCache = new WeakMap<KarpenterPlacementContext, Map<Pod, KarpenterPendingExplanation>>();

/**
 * One provisioning pass over every Pending pod Karpenter considers, as its scheduler does it: pods by CPU then memory,
 * descending (queue.go:38), each tried on existing capacity, then on the NodeClaims planned earlier in the pass, then on
 * a new NodeClaim, whose largest instance type is charged against the NodePool's limits (scheduler.go:450-466,625).
 */
function schedulingPass(ctx: KarpenterPlacementContext): Map<Pod, KarpenterPendingExplanation> {
  const hit = passCache.get(ctx);
  if (hit) return hit;
  const out = new Map<Pod, KarpenterPendingExplanation>();
  passCache.set(ctx, out);
  const pods = (ctx.pods ?? []).filter((p) => !p.spec.nodeName && (p.status?.phase ?? 'Pending') === 'Pending' && karpenterPodEligibility(p, ctx).provisionable);
  if (pods.length === 0) return out;
  const req = new Map(pods.map((p) => [p, karpenterRequests([p])]));
  pods.sort((a, b) => {
    const ra = req.get(a) as Resources;
    const rb = req.get(b) as Resources;
    return (rb.cpu ?? 0) - (ra.cpu ?? 0) || (rb.memory ?? 0) - (ra.memory ?? 0) || (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || podKey(a).localeCompare(podKey(b));
  });
  const state: PassState = { existing: existingCapacity(ctx, daemonPods(ctx)), planned: [], remaining: new Map(), topology: newTopology(ctx, topologyDomainSources(ctx), pods) };
  for (const p of pods) out.set(p, explainPending(p, ctx, state));
  return out;
}

function explainPending(pod: Pod, ctx: KarpenterPlacementContext, pass?: PassState): KarpenterPendingExplanation {
  const out: KarpenterPendingExplanation = { pod: podKey(pod), eligibility: karpenterPodEligibility(pod, ctx), outcome: 'no-node', pools: [], stuckNodeClaims: [], notes: [] };
  const ds = daemonPods(ctx);
  // scheduler.go NewScheduler: a PreferNoSchedule taint on any pool makes relaxation tolerate PreferNoSchedule
  const toleratePNS = ctx.nodePools.some((np) => (np.spec.template.spec.taints ?? []).some((t) => t.effect === 'PreferNoSchedule'));

  const models = poolModels(ctx);

  const evaluated = models.filter((m) => m.model);
  if (!out.eligibility.provisionable) {
    out.outcome = 'ignored';
    out.pools = models.map((m) => m.placement);
    if (out.eligibility.silent) out.notes.push('Karpenter leaves this pod to another autoscaler (e.g. Cluster Autoscaler) and records no event');
    return finish(out, ctx);
  }
  if (evaluated.length === 0) {
    // provisioner.go Schedule: ErrNodePoolsNotFound -> "no dynamic nodepools found", or scheduler.go:605 when all templates were dropped
    const anyUsable = models.some((m) => m.placement.stage === 'nodepool-requirements' || m.placement.stage === 'no-instance-types');
    const version = ctx.settings?.version;
    // scheduler.go:510-511@v1.9.0; before v1.9 zero templates schedule nothing and say nothing (scheduler.go:550,628@v1.6.2)
    const zeroEvent = karpenterHas(version, 'zero-templates-event');
    if (anyUsable && zeroEvent) out.event = 'Failed to schedule pod, nodepool requirements filtered out all available instance types';
    const noPools = karpenterHas(version, 'dynamic-nodepools-text') ? 'no dynamic nodepools found' : 'no nodepools found';
    out.notes.push(anyUsable ? `every NodePool was dropped before scheduling${zeroEvent ? '' : ': Karpenter creates no NodeClaim and publishes no event'}` : `${noPools} (Karpenter logs this; the pod gets no event)`);
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }

  // scheduler.go add: with IGNORE_DRA_REQUESTS (default true) a pod with ResourceClaims fails before any NodePool is tried
  if (hasDRARequirements(pod) && ctx.settings?.env?.IGNORE_DRA_REQUESTS !== 'false' && karpenterHas(ctx.settings?.version, 'dra-refusal')) {
    out.event = 'Failed to schedule pod, pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter';
    out.notes.push('the pod uses Dynamic Resource Allocation (resourceClaims); Karpenter runs with IGNORE_DRA_REQUESTS and does not provision for it');
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }
  const podReqs = karpenterRequests([pod]);
  const vol = volumeAlternatives(pod, ctx);
  out.notes.push(...vol.notes);
  // topology spread, pod (anti-)affinity and the anti-affinity of running pods, as Karpenter's topology does them
  // (topology.ts); what casdoctor cannot reproduce leaves the pod not evaluated (below)
  const unmodelled = unmodelledTopology(pod, ctx);
  const topology = unmodelled.length > 0 ? undefined : (pass?.topology ?? newTopology(ctx, topologyDomainSources(ctx), [pod]));
  const owner = podKey(pod);
  const volumeInStrict = !karpenterHas(ctx.settings?.version, 'volume-requirements-separate');

  // preferences.go Relax, one step per failed attempt (preferences.ts). The reported error is the last attempt's.
  const attempts = relaxationAttempts(pod, ctx.settings?.preferencePolicy === 'Ignore', toleratePNS);
  let chosen: string | undefined;
  let lastErrors: Array<{ placement: PoolPlacement; error: string; overhead: Resources }> = [];
  // the pass's capacity is not used for a pod whose topology casdoctor does not model (see below)
  const inPass = pass && unmodelled.length === 0 ? pass : undefined;
  let existing: ExistingCapacity | undefined;
  let planned: PlannedClaim | undefined;
  let chosenEval: PoolEvaluation | undefined;
  let lastAttempt = attempts[0];
  let run: TopologyRun | undefined;
  for (const attempt of attempts) {
    lastAttempt = attempt;
    lastErrors = [];
    run = undefined;
    if (topology) {
      // scheduler.go trySchedule: topology.Update with the pod as relaxed so far
      updateTopology(topology, attempt.pod, owner);
      // before v1.9 the volumes' zones are injected into the pod's node affinity, so topology reads them as the pod's own
      // (volumetopology.go Inject:68-73@v1.6.2); from v1.9 they stay apart (StrictRequirements without volumes)
      const strict = volumeInStrict && vol.alternatives[0] ? copyRequirements(attempt.strict) : attempt.strict;
      if (volumeInStrict && vol.alternatives[0]) for (const r of vol.alternatives[0].values()) addRequirement(strict, r);
      if (topologyConcerns(topology, attempt.pod, owner)) run = { t: topology, owner, pod: attempt.pod, strict, hostname: nextHostname(topology) };
    }
    // scheduler.go add: existing capacity, then NodeClaims planned in this pass, then a new NodeClaim
    existing = inPass ? tryExisting(inPass, pod, attempt.requirements, podReqs, run) : undefined;
    planned = inPass && !existing ? tryPlanned(inPass, pod, attempt.requirements, podReqs, attempt.toleratePreferNoSchedule, run) : undefined;
    for (const { model, placement } of models) {
      if (!model) continue;
      const r = evaluatePool(model, placement, pod, attempt.requirements, podReqs, vol.alternatives, ds, attempt.toleratePreferNoSchedule, inPass?.remaining.get(model.name), run);
      if (r.fits && !chosen) {
        chosen = model.name;
        chosenEval = r;
      }
      if (!r.fits && r.error) lastErrors.push({ placement, error: r.error, overhead: r.overhead });
    }
    if (chosen || existing || planned) {
      if (attempt.relaxed) out.notes.push(`Karpenter places the pod only after relaxing: ${attempt.relaxed}`);
      break;
    }
  }
  if (lastAttempt) explainLimits(models, pod, lastAttempt, podReqs, vol.alternatives, ds, inPass, run);
  if (existing) {
    // no new node: the pod waits for capacity Karpenter has (its Nominated event names it)
    out.outcome = 'in-flight';
    out.inFlight = { kind: existing.kind, name: existing.name, ...(existing.nodePool ? { nodePool: existing.nodePool } : {}), why: existing.why };
    out.notes.push(`Karpenter launches no node for this pod: it fits ${existing.kind === 'node' ? 'node' : 'NodeClaim'} ${existing.name}, which it already has (scheduler.go addToExistingNode); ${existing.why}`);
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }
  if (planned) {
    out.outcome = 'new-node';
    out.chosen = planned.nodePool;
    for (const m of models) m.placement.chosen = m.model !== undefined && m.placement.nodePool === planned.nodePool && m.placement.verdict === 'fits';
    out.notes.push(`Karpenter packs this pod into the NodeClaim of NodePool ${planned.nodePool} it launches in the same pass for ${planned.pods.filter((x) => x !== podKey(pod)).join(', ')}: one node for them, not one each (scheduler.go addToInflightNode)`);
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }
  if (inPass && chosen && chosenEval?.types && chosenEval.reqs && chosenEval.overheadOf) {
    const model = models.find((m) => m.model?.name === chosen)?.model as PoolModel;
    const reqs = chosenEval.reqs;
    if (topology) {
      // every NodeClaim has a hostname (nodeclaim.go NewNodeClaim); Add registers it and records the pod (topology.go Record)
      const host = run?.hostname ?? nextHostname(topology);
      if (!reqs.has('kubernetes.io/hostname')) reqs.set('kubernetes.io/hostname', newRequirement('kubernetes.io/hostname', 'In', [host]));
      registerDomain(topology, 'kubernetes.io/hostname', host);
      recordTopology(topology, lastAttempt?.pod ?? pod, owner, model.taints, reqs, false);
    }
    inPass.planned.push({ nodePool: chosen, taints: model.taints, reqs, types: chosenEval.types, overheadOf: chosenEval.overheadOf, requests: { ...podReqs }, pods: [podKey(pod)] });
    const rem = inPass.remaining.get(chosen) ?? model.remaining;
    if (rem) inPass.remaining.set(chosen, subtractMax(rem, chosenEval.types));
  }
  // nodeclaim.go CanAdd checks topology after taints and requirements (topology.go AddRequirements, :134-141@v1.6.2): a pool
  // rejected before stays rejected; one that gets that far is not evaluated when casdoctor cannot reproduce the topology
  if (unmodelled.length > 0 && markNotModelled(out, evaluated, unmodelled)) {
    chosen = undefined;
    lastErrors = [];
  }
  for (const m of models) if (m.model && m.placement.nodePool === chosen) m.placement.chosen = true;
  for (const m of models) {
    const before = m.model && inPass ? inPass.planned.filter((pc) => pc.nodePool === m.model?.name && !pc.pods.includes(podKey(pod))) : [];
    if (before.length > 0 && m.placement.remainingLimits) {
      m.placement.notes.push(`remaining limits after the NodeClaim(s) Karpenter plans earlier in the same pass for ${before.flatMap((pc) => pc.pods).join(', ')}, each charged with its largest instance type (scheduler.go subtractMax)`);
    }
  }
  out.pools = models.map((m) => m.placement);
  if (chosen) {
    out.chosen = chosen;
    out.outcome = 'new-node';
  } else if (lastErrors.length > 0) {
    // events.go PodFailedToScheduleEvent: "Failed to schedule pod, " + multierr of the per-pool errors ("; ")
    out.event = `Failed to schedule pod, ${lastErrors.map((e) => e.error).join('; ')}`;
    out.legacyEvent = `Failed to schedule pod, ${lastErrors.map((e) => e.placement.legacyError ?? e.error).join('; ')}`;
  }
  return finish(out, ctx);
}

/**
 * Issue 24 item 4: for a pool stopped by its limits, say whether the limit is what stops the pod (and the value that
 * lets it in) or what would stop it next; evaluated on a scratch placement so the shown one keeps Karpenter's verdict.
 */
function explainLimits(
  models: Array<{ model?: PoolModel; placement: PoolPlacement }>,
  pod: Pod,
  lastAttempt: RelaxationAttempt,
  podReqs: Resources,
  volumeAlts: KRequirements[],
  ds: Array<{ name: string; pod: Pod }>,
  inPass: PassState | undefined,
  run: TopologyRun | undefined,
): void {
  for (const { model, placement } of models) {
    if (!model || (placement.stage !== 'resource-limits' && placement.stage !== 'node-limit')) continue;
    const scratch: PoolPlacement = { ...placement, funnel: [...placement.funnel], notes: [] };
    const r = evaluatePool(model, scratch, pod, lastAttempt.requirements, podReqs, volumeAlts, ds, lastAttempt.toleratePreferNoSchedule, {}, run);
    placement.withoutLimits = r.fits && r.types ? { fits: true, raise: limitsToRaise(model, inPass?.remaining.get(model.name) ?? model.remaining ?? {}, r.types) } : { fits: false, ...(scratch.stage ? { stage: scratch.stage } : {}), ...(r.error ? { error: r.error } : {}) };
    const w = placement.withoutLimits;
    placement.detail += w.fits
      ? `; the limit is what stops the pod: raise ${Object.entries(w.raise ?? {}).map(([k, v]) => `limits.${k} to at least ${v}`).join(' and ')}, or free capacity in the pool`
      : `; raising the limit would not help: the pool would still reject the pod at ${w.stage ?? 'a later check'}${w.error ? ` (${w.error})` : ''}`;
  }
}

/** The pools that pass every check before a topology casdoctor cannot reproduce are not evaluated, and so is the pod. */
function markNotModelled(out: KarpenterPendingExplanation, evaluated: Array<{ model?: PoolModel; placement: PoolPlacement }>, unmodelled: string[]): boolean {
  const notModelled = evaluated.filter((m) => m.placement.verdict === 'fits' || ['volume-topology', 'instance-types', 'min-values'].includes(m.placement.stage ?? ''));
  if (notModelled.length === 0) return false;
  const what = unmodelled.join('; ');
  for (const m of notModelled) {
    const pl = m.placement;
    pl.verdict = 'not-evaluated';
    pl.stage = 'topology';
    pl.chosen = false;
    delete pl.error;
    delete pl.legacyError;
    delete pl.launchError;
    pl.detail = `not evaluated: ${what}; Karpenter narrows the NodeClaim to the domains these allow or fails with "unsatisfiable topology constraint" (topology.go AddRequirements), and casdoctor cannot reproduce it here`;
  }
  out.outcome = 'not-evaluated';
  out.notEvaluated = `Karpenter's verdict depends on ${what}, which casdoctor does not evaluate for Karpenter; NodePool(s) ${notModelled.map((m) => m.placement.nodePool).join(', ')} pass every check before it`;
  return true;
}

function finish(out: KarpenterPendingExplanation, ctx: KarpenterPlacementContext): KarpenterPendingExplanation {
  // NodeClaims of pools the pod could use (the chosen one, or any evaluated pool when none fits)
  const pools = new Set(
    out.pools.filter((p) => p.chosen || (!out.chosen && p.verdict !== 'not-evaluated')).map((p) => p.nodePool),
  );
  if (out.eligibility.provisionable) out.stuckNodeClaims = stuckNodeClaims(ctx.nodeClaims, pools, ctx.now, ctx.settings?.version);
  const v = karpenterVersion(ctx.settings?.version);
  if (!ctx.settings) out.notes.push(`Karpenter's controller Deployment is not in the input, so its version is unknown: casdoctor applies v${KARPENTER_MODELLED.newest} behaviour (add \`kubectl get deployments -A -o json\` to the dump)`);
  else if (v.note) out.notes.push(v.note);
  return out;
}
