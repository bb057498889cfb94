// Node -> group membership as the provider decides it (sunkaimr/cluster-autoscaler-grpc-cloud-provider @ f792442):
// MatchNodeGroup (nodegroup/node_group.go:523-577) and NodeGroupForNode (wrapper/wrapper.go:77-104).
import type { GrpcInstance, GrpcNodeGroupSpec } from '../../model/externalgrpc.js';
import { type Node, type Taint, taintKey } from '../../model/k8s.js';
import { DEFAULT_GROUP_ID } from './config.js';

/** node_group.go:54-65: node-condition and CA taints ignored on both sides of the taint comparison. */
export const KUBE_RESERVED_TAINTS: readonly string[] = [
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/unschedulable',
  'node.kubernetes.io/memory-pressure',
  'node.kubernetes.io/disk-pressure',
  'node.kubernetes.io/network-unavailable',
  'node.kubernetes.io/pid-pressure',
  'node.kubernetes.io/out-of-service',
  'ToBeDeletedByClusterAutoscaler',
  'DeletionCandidateOfClusterAutoscaler',
];

/** genTaintKeys (l.529-538): "key=value:effect" for every taint not in KUBE_RESERVED_TAINTS. */
export function taintMatchKeys(taints: Taint[] | undefined): string[] {
  return (taints ?? [])
    .filter((t) => !KUBE_RESERVED_TAINTS.includes(t.key))
    .map(taintKey);
}

function isMapSuperset(map: Record<string, string> | undefined, sub: Record<string, string>): boolean {
  return Object.entries(sub).every(([k, v]) => map !== undefined && Object.hasOwn(map, k) && map[k] === v);
}

export interface MatchResult {
  /** The group the provider assigns: the first match, or `default` when none matches. */
  groupId: string;
  /** Every non-default group whose template the node satisfies, in config order. */
  candidates: string[];
  /** l.574: logged when several groups match (the first one is used). */
  error?: string;
  /** Why each non-matching group was rejected (for the G7 explanation). */
  rejected: Array<{ groupId: string; why: string }>;
}

/**
 * MatchNodeGroup: a node belongs to a group when labels ⊇ template labels, annotations ⊇ template annotations, and its
 * taints (minus KUBE_RESERVED_TAINTS) ⊆ template taints. `default` is skipped; no match -> `default`.
 */
export function matchNodeGroup(node: Node, groups: GrpcNodeGroupSpec[]): MatchResult {
  const candidates: string[] = [];
  const rejected: MatchResult['rejected'] = [];
  const nodeTaints = taintMatchKeys(node.spec?.taints);
  for (const g of groups) {
    if (g.id === DEFAULT_GROUP_ID || !g.nodeTemplate) continue;
    const t = g.nodeTemplate;
    if (!isMapSuperset(node.metadata.labels, t.labels)) {
      const missing = Object.keys(t.labels).filter((k) => node.metadata.labels?.[k] !== t.labels[k]);
      rejected.push({ groupId: g.id, why: `labels ${missing.join(', ')} missing or different` });
      continue;
    }
    if (!isMapSuperset(node.metadata.annotations, t.annotations)) {
      rejected.push({ groupId: g.id, why: 'annotations missing or different' });
      continue;
    }
    const allowed = new Set(taintMatchKeys(t.taints));
    const extra = nodeTaints.filter((k) => !allowed.has(k));
    if (extra.length) {
      rejected.push({ groupId: g.id, why: `taints ${extra.join(', ')} not in the template` });
      continue;
    }
    candidates.push(g.id);
  }
  const name = node.metadata.name ?? '';
  if (candidates.length === 0) return { groupId: DEFAULT_GROUP_ID, candidates, rejected };
  if (candidates.length === 1) return { groupId: candidates[0], candidates, rejected };
  return {
    groupId: candidates[0],
    candidates,
    rejected,
    error: `node(${name}) matched multiple nodegroup [${candidates.join(' ')}]`,
  };
}

export interface NodeMembership {
  /** The group CA is told (NodeGroupForNode); undefined when the provider answers NotFound. */
  groupId?: string;
  /** 'record': an instance record names the node; 'match': no record yet, the provider adds it by MatchNodeGroup at
   * the next node event (UpdateNodeInNodeGroup l.765-787); 'none': NotFound. */
  via: 'record' | 'match' | 'none';
  /** What MatchNodeGroup says today. */
  match: MatchResult;
  /** The stage of the record naming the node. */
  recordStage?: string;
  /** The record's group differs from MatchNodeGroup and the record is Running: the provider moves it (l.803-825). */
  movesTo?: string;
  /** Several records name the node (FindNodeGroupByNodeName l.607-633): first used, error logged. */
  error?: string;
}

/**
 * Which group CA gets for a node. With instance records (the ConfigMap), the provider answers by record
 * (FindNodeGroupByNodeName, or by providerID when node name == providerID); a node without a record is added by
 * MatchNodeGroup (so with a fresh file, no records, every node is placed by MatchNodeGroup).
 */
export function nodeMembership(node: Node, groups: GrpcNodeGroupSpec[]): NodeMembership {
  let perGroups = memberships.get(groups);
  if (!perGroups) memberships.set(groups, (perGroups = new WeakMap()));
  let m = perGroups.get(node);
  if (!m) perGroups.set(node, (m = computeMembership(node, groups)));
  return m;
}

/** Once per (groups, node): the groups and their nodes are read three times per command (groups, two findings). */
const memberships = new WeakMap<GrpcNodeGroupSpec[], WeakMap<Node, NodeMembership>>();

/** The groups holding a record of each node name / providerID, in group order, with each group's first such record. */
interface RecordIndex {
  byName: Map<string, RecordHolder[]>;
  byProviderID: Map<string, RecordHolder[]>;
}
interface RecordHolder {
  group: GrpcNodeGroupSpec;
  record: GrpcInstance;
}
const recordIndexes = new WeakMap<GrpcNodeGroupSpec[], RecordIndex>();

/** One pass over every group's records, instead of every record of every group for each node. */
function recordIndex(groups: GrpcNodeGroupSpec[]): RecordIndex {
  let index = recordIndexes.get(groups);
  if (index) return index;
  index = { byName: new Map(), byProviderID: new Map() };
  const add = (m: Map<string, RecordHolder[]>, key: string, group: GrpcNodeGroupSpec, record: GrpcInstance) => {
    const list = m.get(key);
    if (!list) m.set(key, [{ group, record }]);
    else if (list[list.length - 1].group !== group) list.push({ group, record });
  };
  for (const g of groups) {
    for (const i of g.instances) {
      add(index.byName, i.name, g, i);
      if (i.providerID !== '') add(index.byProviderID, i.providerID, g, i);
    }
  }
  recordIndexes.set(groups, index);
  return index;
}

function computeMembership(node: Node, groups: GrpcNodeGroupSpec[]): NodeMembership {
  const match = matchNodeGroup(node, groups);
  const name = node.metadata.name ?? '';
  const providerID = node.spec?.providerID ?? '';
  const byName = name !== providerID;
  const index = recordIndex(groups);
  const holders = (byName ? index.byName.get(name) : providerID !== '' ? index.byProviderID.get(providerID) : undefined) ?? [];
  if (holders.length === 0) return { groupId: match.groupId, via: 'match', match };
  const { group: g, record: rec } = holders[0];
  const m: NodeMembership = { groupId: g.id, via: 'record', match };
  m.recordStage = rec.stage;
  if (match.groupId !== g.id && rec.stage === 'Running') m.movesTo = match.groupId;
  if (holders.length > 1) {
    m.error = `node(${byName ? name : providerID}) matched multiple nodegroup [${holders.map((h) => h.group.id).join(' ')}]`;
  }
  return m;
}
