// Node -> group membership as the provider decides it (sunkaimr/cluster-autoscaler-grpc-cloud-provider @ f792442):
// MatchNodeGroup (nodegroup/node_group.go:523-577) and NodeGroupForNode (wrapper/wrapper.go:77-104).
import type { GrpcNodeGroupSpec } from '../../../model/externalgrpc.js';
import type { Node, Taint } from '../../../model/k8s.js';
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
    .map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`);
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
  const match = matchNodeGroup(node, groups);
  const name = node.metadata.name ?? '';
  const providerID = node.spec?.providerID ?? '';
  const byName = name !== providerID;
  const holders = groups.filter((g) =>
    g.instances.some((i) => (byName ? i.name === name : i.providerID !== '' && i.providerID === providerID)),
  );
  if (holders.length === 0) return { groupId: match.groupId, via: 'match', match };
  const g = holders[0];
  const rec = g.instances.find((i) => (byName ? i.name === name : i.providerID === providerID));
  const m: NodeMembership = { groupId: g.id, via: 'record', match };
  if (rec) m.recordStage = rec.stage;
  if (match.groupId !== g.id && rec?.stage === 'Running') m.movesTo = match.groupId;
  if (holders.length > 1) {
    m.error = `node(${byName ? name : providerID}) matched multiple nodegroup [${holders.map((h) => h.id).join(' ')}]`;
  }
  return m;
}
