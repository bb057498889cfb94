/**
 * Each Karpenter NodePool as a node-group-shaped view for the overview and mixed-cluster routing
 * (.notes/provider-seam.md "Karpenter"). A NodePool is not a CA node group: CA never scales it; min is 0 and the
 * ceiling is spec.limits.nodes (karpenter pkg/apis/v1/nodepool.go Limits), else unbounded.
 */
import type { Node, ResourceMap } from '../../../model/k8s.js';
import {
  NODEPOOL_LABEL,
  type EC2NodeClass,
  type NodeClaim,
  type NodePool,
} from '../../../model/karpenter.js';
import { parseQuantity } from '../../../model/quantity.js';

export interface NodePoolResourceUse {
  resource: string;
  /** Base units (cores, bytes, count). */
  used: number;
  limit?: number;
  /** Karpenter stops launching when usage would exceed the limit (Limits.ExceededBy, nodepool.go:191-203). */
  exceeded: boolean;
  usedText: string;
  limitText?: string;
}

/** NodeGroupBase-shaped (src/model/node-group.ts, provider-seam.md) plus what only a NodePool has. */
export interface KarpenterNodePoolView {
  provider: 'karpenter';
  name: string;
  discovered: true;
  via: 'provider';
  minSize: 0;
  /** spec.limits.nodes, else Infinity (replicas for a static NodePool). */
  maxSize: number;
  /** Non-deleting NodeClaims of the pool (spec.replicas for a static NodePool). */
  targetSize: number;
  zones: string[];
  /** Where `zones` came from. */
  zonesSource: 'nodeclass-status' | 'nodepool-requirements' | 'unknown';
  instanceIds: string[];
  nodes: Node[];
  /** NodeClaims launched (providerID known) whose Node is not in the snapshot yet. */
  unregisteredInstances: Array<{ InstanceId: string; LifecycleState?: string; AvailabilityZone?: string }>;
  placeholderCount: 0;
  nodePool: NodePool;
  nodeClaims: NodeClaim[];
  nodeClassName?: string;
  nodeClass?: EC2NodeClass;
  weight?: number;
  /** Static NodePool (spec.replicas). */
  replicas?: number;
  resources: NodePoolResourceUse[];
  /** Facts the overview should show: NodeClass missing, NodeClass without resolved subnets. */
  notes: string[];
}

/** i-… from "aws:///us-east-1a/i-0abc…" (the provider ID Karpenter's AWS provider sets). */
export function instanceIdFromProviderId(providerID: string | undefined): string | undefined {
  const m = /^aws:\/\/\/[^/]*\/(i-[0-9a-f]+)$/.exec(providerID ?? '');
  return m ? m[1] : undefined;
}

function zoneFromProviderId(providerID: string | undefined): string | undefined {
  const m = /^aws:\/\/\/([^/]+)\//.exec(providerID ?? '');
  return m ? m[1] : undefined;
}

function formatResourceValue(resource: string, value: number): string {
  if (resource === 'memory' || resource.endsWith('storage')) {
    const gi = value / 2 ** 30;
    return Number.isInteger(gi) ? `${gi}Gi` : `${gi.toFixed(1)}Gi`;
  }
  return Number.isInteger(value) ? String(value) : value.toFixed(3).replace(/0+$/, '');
}

function safeQuantity(q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  try {
    return parseQuantity(q);
  } catch {
    return undefined;
  }
}

function zonesFromRequirements(np: NodePool): string[] | undefined {
  const req = np.spec.template.spec.requirements?.find((r) => r.key === 'topology.kubernetes.io/zone' && r.operator === 'In');
  return req ? [...new Set(req.values ?? [])].sort() : undefined;
}

function usedResources(np: NodePool, nodes: Node[], claims: NodeClaim[]): ResourceMap {
  // status.resources is Karpenter's own sum over the pool's nodes (capacity); fall back to summing capacity ourselves
  if (np.status?.resources && Object.keys(np.status.resources).length > 0) {
    const out: ResourceMap = { ...np.status.resources };
    if (out.nodes === undefined) out.nodes = String(np.status.nodes ?? claims.length);
    return out;
  }
  const sum: Record<string, number> = {};
  const withNode = new Set(nodes.map((n) => n.metadata.name));
  const add = (cap: ResourceMap | undefined) => {
    for (const [k, v] of Object.entries(cap ?? {})) {
      const q = safeQuantity(v);
      if (q !== undefined) sum[k] = (sum[k] ?? 0) + q;
    }
  };
  for (const n of nodes) add(n.status?.capacity);
  for (const c of claims) if (!c.status?.nodeName || !withNode.has(c.status.nodeName)) add(c.status?.capacity);
  const out: ResourceMap = {};
  for (const [k, v] of Object.entries(sum)) out[k] = v;
  out.nodes = Math.max(nodes.length, claims.length);
  return out;
}

/** One NodePool's view: nodes by label karpenter.sh/nodepool, zones from its EC2NodeClass status.subnets. */
export function nodePoolView(
  np: NodePool,
  inputs: { nodes: readonly Node[]; nodeClaims: readonly NodeClaim[]; nodeClasses: readonly EC2NodeClass[] },
): KarpenterNodePoolView {
  const name = np.metadata.name ?? '';
  const nodes = inputs.nodes.filter((n) => n.metadata.labels?.[NODEPOOL_LABEL] === name);
  const claims = inputs.nodeClaims.filter((c) => c.metadata.labels?.[NODEPOOL_LABEL] === name);
  const notes: string[] = [];
  const ref = np.spec.template.spec.nodeClassRef;
  const nodeClass = ref ? inputs.nodeClasses.find((c) => c.metadata.name === ref.name) : undefined;
  if (ref && !nodeClass) notes.push(`${ref.kind} ${ref.name} is not in the input`);

  let zones: string[] = [];
  let zonesSource: KarpenterNodePoolView['zonesSource'] = 'unknown';
  const reqZones = zonesFromRequirements(np);
  const subnetZones = nodeClass?.status?.subnets?.map((s) => s.zone);
  if (subnetZones && subnetZones.length > 0) {
    zones = [...new Set(subnetZones)].sort();
    // the pool's own zone requirement narrows what the subnets offer
    if (reqZones) zones = zones.filter((z) => reqZones.includes(z));
    zonesSource = 'nodeclass-status';
  } else if (reqZones) {
    zones = reqZones;
    zonesSource = 'nodepool-requirements';
    if (nodeClass) notes.push(`${ref.kind} ${ref.name} has no resolved subnets in status.subnets`);
  } else if (nodeClass) {
    notes.push(`${ref.kind} ${ref.name} has no resolved subnets in status.subnets`);
  }

  const nodeNames = new Set(nodes.map((n) => n.metadata.name));
  const nodeProviderIds = new Set(nodes.map((n) => n.spec?.providerID).filter((p): p is string => !!p));
  const instanceIds = [
    ...new Set(
      [...nodes.map((n) => n.spec?.providerID), ...claims.map((c) => c.status?.providerID)]
        .map(instanceIdFromProviderId)
        .filter((i): i is string => i !== undefined),
    ),
  ];
  const unregisteredInstances = claims
    .filter((c) => c.status?.providerID && !nodeProviderIds.has(c.status.providerID) && !(c.status.nodeName && nodeNames.has(c.status.nodeName)))
    .map((c) => ({
      InstanceId: instanceIdFromProviderId(c.status!.providerID) ?? c.status!.providerID!,
      LifecycleState: c.metadata.deletionTimestamp ? 'Terminating' : 'Launched',
      AvailabilityZone: zoneFromProviderId(c.status!.providerID) ?? c.metadata.labels?.['topology.kubernetes.io/zone'],
    }));

  const limits = np.spec.limits ?? {};
  const used = usedResources(np, nodes, claims);
  const resources: NodePoolResourceUse[] = [];
  for (const resource of [...new Set([...Object.keys(limits), ...Object.keys(used)])].sort()) {
    const u = safeQuantity(used[resource]) ?? 0;
    const l = safeQuantity(limits[resource]);
    resources.push({
      resource,
      used: u,
      limit: l,
      exceeded: l !== undefined && u > l,
      usedText: formatResourceValue(resource, u),
      limitText: l !== undefined ? formatResourceValue(resource, l) : undefined,
    });
  }

  const limitNodes = safeQuantity(limits.nodes);
  const replicas = typeof np.spec.replicas === 'number' ? np.spec.replicas : undefined;
  return {
    provider: 'karpenter',
    name,
    discovered: true,
    via: 'provider',
    minSize: 0,
    maxSize: limitNodes ?? replicas ?? Infinity,
    targetSize: replicas ?? claims.filter((c) => !c.metadata.deletionTimestamp).length,
    zones,
    zonesSource,
    instanceIds,
    nodes,
    unregisteredInstances,
    placeholderCount: 0,
    nodePool: np,
    nodeClaims: claims,
    nodeClassName: ref?.name,
    nodeClass,
    weight: np.spec.weight,
    replicas,
    resources,
    notes,
  };
}

/** Views of every NodePool, in the order Karpenter tries them: weight descending, equal weights by name descending. */
export function nodePoolViews(inputs: {
  nodePools: readonly NodePool[];
  nodes: readonly Node[];
  nodeClaims: readonly NodeClaim[];
  nodeClasses: readonly EC2NodeClass[];
}): KarpenterNodePoolView[] {
  return inputs.nodePools
    .map((np) => nodePoolView(np, inputs))
    // karpenter pkg/utils/nodepool/nodepool.go:161-171 OrderByWeight: ties go to the name that sorts LAST
    .sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0) || (a.name > b.name ? -1 : a.name < b.name ? 1 : 0));
}
