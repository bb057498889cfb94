// NodePools as Karpenter's scheduler sees them: order, template requirements, remaining limits, readiness, and the
// per-pool model it schedules against (provisioner.go NewScheduler, nodepool.go, nodeclaimtemplate.go). Pure.
import type { Node, Taint } from '../../../model/k8s.js';
import { type EC2NodeClass, type KarpenterCondition, NODEPOOL_LABEL, type NodeClaim, type NodePool } from '../../../model/karpenter.js';
import type { Resources } from '../../../model/scheduling.js';
import { parseResourceList } from '../../resources.js';
import { type KarpenterInstanceType, UNMODELLED_INSTANCE_LABELS, buildKarpenterInstanceTypes, nodeClassZones } from './instance-types.js';
import { type KRequirements, addRequirement, copyRequirements, getRequirement, labelRequirements, newRequirement, requirementHas, requirementsFrom } from './requirements.js';
import { karpenterHas } from './versions.js';
import type { KarpenterPlacementContext, PoolPlacement } from './placement-types.js';
import { cond, examples } from './util.js';
import type { PoolModel } from './state.js';
import { type FilterOutcome, filterInstanceTypes } from './nodeclaim.js';

// Instance types and DaemonSet overhead do not depend on the pod: reuse them across the pods of one context
const instanceTypeCache = new WeakMap<KarpenterPlacementContext, Map<EC2NodeClass, KarpenterInstanceType[]>>();
const poolCache = new WeakMap<KarpenterPlacementContext, Map<NodePool, PoolModel>>();
const preCache = new WeakMap<KarpenterPlacementContext, Map<NodePool, FilterOutcome>>();
// the pool's capacity types depend on the pool and the context only: once per pool, not per pod
const capacityTypesCache = new WeakMap<KarpenterPlacementContext, Map<NodePool, string[]>>();

function cachedInstanceTypes(ctx: KarpenterPlacementContext, nodeClass: EC2NodeClass): KarpenterInstanceType[] {
  let m = instanceTypeCache.get(ctx);
  if (!m) instanceTypeCache.set(ctx, (m = new Map()));
  let its = m.get(nodeClass);
  if (!its) {
    its = buildKarpenterInstanceTypes(ctx.instanceTypes, {
      nodeClass,
      ...(ctx.settings ? { settings: ctx.settings } : {}),
      ...(ctx.liveOfferings ? { liveOfferings: ctx.liveOfferings } : {}),
      ...(ctx.region ? { region: ctx.region } : {}),
    });
    m.set(nodeClass, its);
  }
  return its;
}

/** nodepool.go OrderByWeight: weight descending, equal weights by name DESCENDING (nodepool/nodepool.go:167). */
export function orderNodePools(pools: NodePool[]): NodePool[] {
  return [...pools].sort((a, b) => {
    const wa = a.spec.weight ?? 0;
    const wb = b.spec.weight ?? 0;
    if (wa !== wb) return wb - wa;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na === nb ? 0 : na > nb ? -1 : 1;
  });
}

/** nodeclaimtemplate.go NewNodeClaimTemplate: spec requirements + template labels + nodepool/nodeclass labels. */
export function templateRequirements(np: NodePool, version?: string): KRequirements {
  const reqs = requirementsFrom(np.spec.template.spec.requirements ?? []);
  const labels: Record<string, string> = {
    ...(np.spec.template.metadata?.labels ?? {}),
    [NODEPOOL_LABEL]: np.metadata.name ?? '',
  };
  const ref = np.spec.template.spec.nodeClassRef;
  if (ref?.group && ref.kind) labels[`${ref.group}/${ref.kind.toLowerCase()}`] = ref.name;
  for (const r of labelRequirements(labels).values()) addRequirement(reqs, r);
  // nodeclaimtemplate.go:86-89@v1.14.1; absent before v1.14 (:55-74@v1.6.2)
  if (karpenterHas(version, 'registered-initialized-requirements')) {
    addRequirement(reqs, newRequirement('karpenter.sh/registered', 'In', ['true']));
    addRequirement(reqs, newRequirement('karpenter.sh/initialized', 'In', ['true']));
  }
  return reqs;
}

/** limits minus the capacity of the pool's active nodes and node-less NodeClaims, each counting nodes=1 (scheduler.go updateRemainingResources). */
export function remainingLimits(np: NodePool, nodes: Node[], nodeClaims: NodeClaim[]): Resources | undefined {
  const limits = np.spec.limits;
  if (!limits || Object.keys(limits).length === 0) return undefined;
  const name = np.metadata.name ?? '';
  const remaining = parseResourceList(limits);
  const sub = (cap: Resources): void => {
    for (const k of Object.keys(remaining)) remaining[k] -= k === 'nodes' ? 1 : (cap[k] ?? 0);
  };
  const nodeNames = new Set<string>();
  for (const n of nodes) {
    if (n.metadata.labels?.[NODEPOOL_LABEL] !== name || n.metadata.deletionTimestamp) continue;
    nodeNames.add(n.metadata.name ?? '');
    const nc = nodeClaims.find((c) => c.status?.nodeName === n.metadata.name);
    const cap = parseResourceList(n.status?.capacity);
    // statenode.go Capacity: an uninitialized node's zero values come from its NodeClaim
    for (const [k, v] of Object.entries(parseResourceList(nc?.status?.capacity))) if (!cap[k]) cap[k] = v;
    sub(cap);
  }
  for (const nc of nodeClaims) {
    if (nc.metadata.labels?.[NODEPOOL_LABEL] !== name || nc.metadata.deletionTimestamp) continue;
    if (nc.status?.nodeName && nodeNames.has(nc.status.nodeName)) continue;
    sub(parseResourceList(nc.status?.capacity));
  }
  return remaining;
}

function nodeClassFor(np: NodePool, ctx: KarpenterPlacementContext): EC2NodeClass | undefined {
  const ref = np.spec.template.spec.nodeClassRef;
  return ctx.nodeClasses.find((c) => c.metadata.name === ref?.name);
}

function poolReadiness(np: NodePool, nodeClass: EC2NodeClass | undefined): { ready: boolean; reason: string } {
  const conds = np.status?.conditions;
  const ready = cond(conds, 'Ready');
  if (ready) {
    if (ready.status === 'True') return { ready: true, reason: '' };
    const bad = ['ValidationSucceeded', 'NodeClassReady']
      .map((t) => cond(conds, t))
      .filter((c): c is KarpenterCondition => !!c && c.status !== 'True')
      .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`);
    return { ready: false, reason: bad.length > 0 ? bad.join(', ') : `Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ''}` };
  }
  // no status yet (e.g. a manifest): judge from the NodeClass the way the NodeClassReady condition would
  if (!nodeClass) return { ready: false, reason: `NodeClassReady=False (NodeClassNotFound)` };
  const ncReady = cond(nodeClass.status?.conditions, 'Ready');
  if (ncReady && ncReady.status !== 'True') {
    return { ready: false, reason: `NodeClassReady=False (${ncReady.reason ?? 'NodeClassNotReady'}${ncReady.message ? `: ${ncReady.message}` : ''})` };
  }
  return { ready: true, reason: '' };
}

function emptyPool(np: NodePool, extra: Partial<PoolPlacement>): PoolPlacement {
  return {
    nodePool: np.metadata.name ?? '',
    weight: np.spec.weight ?? 0,
    verdict: 'not-evaluated',
    chosen: false,
    detail: '',
    daemonSets: [],
    daemonSetOverhead: {},
    capacityTypes: [],
    zones: [],
    funnel: [],
    notes: [],
    ...extra,
  };
}

/** Capacity types the pool admits among what EC2 offers (on-demand, spot; reserved with capacity reservations). */
function poolCapacityTypes(reqs: KRequirements, its: KarpenterInstanceType[]): string[] {
  const offered = new Set(its.flatMap((t) => t.offerings.map((o) => o.capacityType)));
  const r = getRequirement(reqs, 'karpenter.sh/capacity-type');
  return [...offered].filter((ct) => requirementHas(r, ct)).sort();
}

/** provisioner.go NewScheduler: each NodePool in weight order, dropped before scheduling or modelled for it (fresh placements per pod). */
export function poolModels(ctx: KarpenterPlacementContext): Array<{ model?: PoolModel; placement: PoolPlacement }> {
  const ordered = orderNodePools(ctx.nodePools);
  const models: Array<{ model?: PoolModel; placement: PoolPlacement }> = [];
  for (const np of ordered) {
    const name = np.metadata.name ?? '';
    const ref = np.spec.template.spec.nodeClassRef;
    const nodeClass = nodeClassFor(np, ctx);
    const zones = nodeClassZones(nodeClass).map((z) => z.zone);
    const ncInfo = ref
      ? {
          name: ref.name,
          found: !!nodeClass,
          ...(nodeClass ? { ready: cond(nodeClass.status?.conditions, 'Ready')?.status === 'True' } : {}),
          zones,
        }
      : undefined;
    const base = { ...(ncInfo ? { nodeClass: ncInfo } : {}), zones };
    if (ref && (ref.group !== 'karpenter.k8s.aws' || ref.kind !== 'EC2NodeClass')) {
      models.push({ placement: emptyPool(np, { ...base, stage: 'unmanaged-nodeclass', detail: `nodeClassRef ${ref.group}/${ref.kind} is not the AWS provider's EC2NodeClass: this Karpenter does not manage the pool` }) });
      continue;
    }
    // static NodePools are v1.8+; an older API server prunes spec.replicas
    if (np.spec.replicas !== undefined && karpenterHas(ctx.settings?.version, 'static-nodepools')) {
      models.push({ placement: emptyPool(np, { ...base, stage: 'static-nodepool', detail: `static NodePool (replicas ${np.spec.replicas}): Karpenter keeps the node count and never provisions for pending pods` }) });
      continue;
    }
    if (np.metadata.deletionTimestamp) {
      models.push({ placement: emptyPool(np, { ...base, stage: 'deleting', detail: 'the NodePool is being deleted' }) });
      continue;
    }
    const readiness = poolReadiness(np, nodeClass);
    if (!readiness.ready) {
      // provisioner.go NewScheduler: "ignoring nodepool, not ready" (a log line only; the pod gets no word about it)
      models.push({ placement: emptyPool(np, { ...base, stage: 'nodepool-not-ready', detail: `the NodePool is not Ready: ${readiness.reason}; Karpenter ignores it (log "ignoring nodepool, not ready")` }) });
      continue;
    }
    if (!nodeClass || zones.length === 0) {
      const why = !nodeClass ? `EC2NodeClass ${ref?.name ?? ''} not found` : `EC2NodeClass ${nodeClass.metadata.name ?? ''} has no resolved subnets (status.subnets)`;
      models.push({ placement: emptyPool(np, { ...base, stage: 'no-instance-types', detail: `${why}: Karpenter resolves no instance types and skips the pool` }) });
      continue;
    }
    const its = cachedInstanceTypes(ctx, nodeClass);
    const templateReqs = templateRequirements(np, ctx.settings?.version);
    let capsByPool = capacityTypesCache.get(ctx);
    if (!capsByPool) capacityTypesCache.set(ctx, (capsByPool = new Map()));
    let capacityTypes = capsByPool.get(np);
    if (!capacityTypes) capsByPool.set(np, (capacityTypes = poolCapacityTypes(templateReqs, its)));
    const placement = emptyPool(np, { ...base, capacityTypes: [...capacityTypes] });
    // scheduler.go NewScheduler pre-filter: requirements and offerings with no pod; an empty result drops the pool
    const bestEffort = ctx.settings?.minValuesPolicy === 'BestEffort';
    let preByPool = preCache.get(ctx);
    if (!preByPool) preCache.set(ctx, (preByPool = new Map()));
    const pre = preByPool.get(np) ?? filterInstanceTypes(its, templateReqs, {}, () => ({}), bestEffort);
    preByPool.set(np, pre);
    placement.funnel.push({ step: 'nodepool', remaining: pre.remaining.length, examples: examples(pre.remaining) });
    const unmodelled = [...templateReqs.keys()].filter((k) => UNMODELLED_INSTANCE_LABELS.has(k));
    if (unmodelled.length > 0) placement.notes.push(`requirements on ${unmodelled.join(', ')} are not modelled offline: treated as satisfied`);
    if (pre.remaining.length === 0) {
      placement.stage = 'nodepool-requirements';
      placement.detail = `the NodePool's own requirements leave no instance type (${pre.minValuesError ? 'minValues' : `of ${its.length}`}): Karpenter skips it and emits NodePool event NoCompatibleInstanceTypes "NodePool requirements filtered out all compatible available instance types${pre.minValuesError ? ' due to minValues incompatibility' : ''}"`;
      models.push({ placement });
      continue;
    }
    let pc = poolCache.get(ctx);
    if (!pc) poolCache.set(ctx, (pc = new Map()));
    let model = pc.get(np);
    if (!model) {
      const remaining = remainingLimits(np, ctx.nodes, ctx.nodeClaims);
      model = { np, name, weight: np.spec.weight ?? 0, nodeClass, templateReqs, taints: np.spec.template.spec.taints ?? [], instanceTypes: pre.remaining, ...(remaining ? { remaining } : {}), relaxMinValues: bestEffort, ...(ctx.settings?.version ? { version: ctx.settings.version } : {}) };
      pc.set(np, model);
    }
    models.push({ model, placement });
  }
  return models;
}

/**
 * The NodePools Karpenter's topology takes its domains from (provisioner.go NewScheduler: Ready, not being deleted, with
 * resolved instance types), each with its requirements and template labels, its taints and its instance types'
 * requirements (topology.go buildDomainGroups). From v1.11 the NodePool and NodeClass labels join the pool's own
 * requirements, by which v1.11 filters domains (topology.go:112-131@v1.11.0).
 */
export function topologyDomainSources(ctx: KarpenterPlacementContext): Array<{ reqs: KRequirements; poolReqs: KRequirements; taints: Taint[]; typeReqs: KRequirements[] }> {
  const out: Array<{ reqs: KRequirements; poolReqs: KRequirements; taints: Taint[]; typeReqs: KRequirements[] }> = [];
  for (const np of orderNodePools(ctx.nodePools)) {
    const ref = np.spec.template.spec.nodeClassRef;
    if (ref && (ref.group !== 'karpenter.k8s.aws' || ref.kind !== 'EC2NodeClass')) continue;
    if (np.spec.replicas !== undefined && karpenterHas(ctx.settings?.version, 'static-nodepools')) continue;
    const nodeClass = nodeClassFor(np, ctx);
    if (np.metadata.deletionTimestamp || !poolReadiness(np, nodeClass).ready || !nodeClass || nodeClassZones(nodeClass).length === 0) continue;
    const reqs = requirementsFrom(np.spec.template.spec.requirements ?? []);
    for (const r of labelRequirements(np.spec.template.metadata?.labels).values()) addRequirement(reqs, r);
    const poolReqs = copyRequirements(reqs);
    if (karpenterHas(ctx.settings?.version, 'topology-domains-by-nodepool')) {
      const labels: Record<string, string> = { [NODEPOOL_LABEL]: np.metadata.name ?? '' };
      if (ref?.group && ref.kind) labels[`${ref.group}/${ref.kind.toLowerCase()}`] = ref.name;
      for (const r of labelRequirements(labels).values()) addRequirement(poolReqs, r);
    }
    out.push({ reqs, poolReqs, taints: np.spec.template.spec.taints ?? [], typeReqs: cachedInstanceTypes(ctx, nodeClass).map((it) => it.requirements) });
  }
  return out;
}
