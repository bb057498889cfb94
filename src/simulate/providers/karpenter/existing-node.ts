// Capacity Karpenter already has or is bringing, tried before a new NodeClaim (scheduling/existingnode.go). Pure.
import type { Pod, Taint } from '../../../model/k8s.js';
import { NODEPOOL_LABEL } from '../../../model/karpenter.js';
import type { Resources } from '../../../model/scheduling.js';
import { parseResourceList } from '../../resources.js';
import { type KRequirements, addRequirement, compatible, copyRequirements, labelRequirements, newRequirement, podRequirements, requirementsFrom } from './requirements.js';
import { type KarpenterPlacementContext, REGISTRATION_TTL_MS } from './placement-types.js';
import { cond, fitsResources, karpenterRequests, untoleratedTaints } from './util.js';
import type { ExistingCapacity, PassState, TopologyRun } from './state.js';
import { addTopologyRequirements, recordTopology } from './topology.js';

// taints a node carries while it starts, which Karpenter ignores on uninitialized capacity (statenode.go Taints)
const EPHEMERAL_TAINTS = new Set(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable', 'node.cloudprovider.kubernetes.io/uninitialized']);

function ageText(ms: number): string {
  return `${Math.max(0, Math.round(ms / 60_000))}m`;
}

/**
 * The existing capacity Karpenter tries before a new NodeClaim (scheduler.go add → addToExistingNode, existingnode.go
 * CanAdd; :631-667@v1.6.2): uninitialized nodes of its NodePools and launched NodeClaims whose node has not registered,
 * with their DaemonSets' requests and the pods already bound taken off. A NodeClaim past its registration timeout (15m)
 * or launch timeout (5m, v1.7+) is left out: Karpenter deletes it (liveness.go). Ready, initialized nodes are left out
 * too: kube-scheduler has already found no room on them, which is why the pod is Pending.
 */
export function existingCapacity(ctx: KarpenterPlacementContext, ds: Array<{ name: string; pod: Pod }>): ExistingCapacity[] {
  const out: ExistingCapacity[] = [];
  const now = ctx.now.getTime();
  const nodeNames = new Set(ctx.nodes.map((n) => n.metadata.name ?? ''));
  const daemonRequests = (taints: Taint[], reqs: KRequirements, already: Set<string>): Resources => {
    const list = ds.filter((d) => !already.has(d.name) && untoleratedTaints(taints, d.pod.spec.tolerations, false).length === 0 && compatible(reqs, podRequirements(d.pod), new Set()) === undefined);
    return list.length > 0 ? karpenterRequests(list.map((d) => d.pod)) : {};
  };
  const sub = (a: Resources, b: Resources): Resources => {
    const r = { ...a };
    for (const [k, v] of Object.entries(b)) r[k] = (r[k] ?? 0) - v;
    return r;
  };
  for (const n of ctx.nodes) {
    const pool = n.metadata.labels?.[NODEPOOL_LABEL];
    if (!pool || n.metadata.deletionTimestamp || n.metadata.labels?.['karpenter.sh/initialized'] === 'true') continue;
    const name = n.metadata.name ?? '';
    const claim = ctx.nodeClaims.find((c) => c.status?.nodeName === name);
    if (claim?.metadata.deletionTimestamp) continue;
    const alloc = parseResourceList(n.status?.allocatable);
    for (const [k, v] of Object.entries(parseResourceList(claim?.status?.allocatable))) if (!alloc[k]) alloc[k] = v;
    const startup = claim?.spec?.startupTaints ?? [];
    const taints = (n.spec?.taints ?? []).filter((t) => !EPHEMERAL_TAINTS.has(t.key) && !startup.some((st) => st.key === t.key && st.effect === t.effect));
    const reqs = labelRequirements({ ...(n.metadata.labels ?? {}), 'kubernetes.io/hostname': n.metadata.labels?.['kubernetes.io/hostname'] ?? name });
    const bound = (ctx.pods ?? []).filter((p) => p.spec.nodeName === name && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    const dsHere = new Set(bound.flatMap((p) => (p.metadata.ownerReferences ?? []).filter((o) => o.kind === 'DaemonSet').map((o) => `${p.metadata.namespace ?? 'default'}/${o.name}`)));
    const remaining = sub(sub(alloc, karpenterRequests(bound)), daemonRequests(taints, reqs, dsHere));
    out.push({ kind: 'node', name, nodePool: pool, taints, reqs, remaining, why: `Node ${name} (NodePool ${pool}) has registered but is not initialized yet; Karpenter counts it as capacity on its way` });
  }
  for (const nc of ctx.nodeClaims) {
    const pool = nc.metadata.labels?.[NODEPOOL_LABEL];
    if (!pool || nc.metadata.deletionTimestamp) continue;
    if (nc.status?.nodeName && nodeNames.has(nc.status.nodeName)) continue;
    const conds = nc.status?.conditions;
    if (cond(conds, 'Launched')?.status !== 'True') continue;
    const registered = cond(conds, 'Registered');
    const since = Date.parse(registered?.lastTransitionTime ?? nc.metadata.creationTimestamp ?? '');
    const age = Number.isFinite(since) ? now - since : 0;
    // liveness.go:44,56@v1.6.2: deleted 15m after creation (the Registered condition's lastTransitionTime) when no node registered
    if (age > REGISTRATION_TTL_MS) continue;
    const alloc = parseResourceList(nc.status?.allocatable);
    if (Object.keys(alloc).length === 0) continue;
    const reqs = requirementsFrom(nc.spec?.requirements ?? []);
    for (const r of labelRequirements(nc.metadata.labels).values()) addRequirement(reqs, r);
    // existingnode.go NewExistingNode: hostname In [HostName()], the NodeClaim's name while it has no node
    if (!reqs.has('kubernetes.io/hostname')) addRequirement(reqs, newRequirement('kubernetes.io/hostname', 'In', [nc.metadata.name ?? '']));
    const taints = nc.spec?.taints ?? [];
    const remaining = sub(alloc, daemonRequests(taints, reqs, new Set()));
    const name = nc.metadata.name ?? '';
    out.push({
      kind: 'nodeclaim',
      name,
      nodePool: pool,
      taints,
      reqs,
      remaining,
      why: `NodeClaim ${name} (NodePool ${pool}) launched ${ageText(age)} ago and its node has not registered yet; if none registers within ${ageText(REGISTRATION_TTL_MS - age)}, Karpenter deletes the NodeClaim (registration timeout 15m) and schedules the pod again`,
    });
  }
  // scheduler.go:655-666@v1.6.2: initialized first, then by name (none of these is initialized)
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function tryExisting(state: PassState, pod: Pod, reqs: KRequirements, podReqs: Resources, topo?: TopologyRun): ExistingCapacity | undefined {
  for (const e of state.existing) {
    if (untoleratedTaints(e.taints, pod.spec.tolerations, false).length > 0) continue;
    if (!fitsResources(podReqs, e.remaining)) continue;
    // existingnode.go CanAdd: Compatible without AllowUndefinedWellKnownLabels
    if (compatible(e.reqs, reqs, new Set()) !== undefined) continue;
    const nodeReqs = copyRequirements(e.reqs);
    for (const r of reqs.values()) addRequirement(nodeReqs, r);
    let finalReqs = nodeReqs;
    if (topo) {
      // existingnode.go CanAdd: topology.AddRequirements on the node's requirements, then Record on Add
      const a = addTopologyRequirements(topo.t, topo.pod, topo.owner, e.taints, topo.strict, nodeReqs, true);
      if (!a.reqs || compatible(nodeReqs, a.reqs, new Set()) !== undefined) continue;
      finalReqs = a.reqs;
      recordTopology(topo.t, topo.pod, topo.owner, e.taints, finalReqs, true);
    }
    for (const [k, v] of Object.entries(podReqs)) e.remaining[k] = (e.remaining[k] ?? 0) - v;
    e.reqs = finalReqs;
    return e;
  }
  return undefined;
}
