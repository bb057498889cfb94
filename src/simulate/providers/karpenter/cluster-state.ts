/**
 * The indexes Karpenter's cluster state keeps (pkg/controllers/state/cluster.go): NodeClaims by providerID and node
 * name, pods by node, NodePool budgets (helpers.go BuildDisruptionBudgetMapping counts) and live nominations.
 * Built once per context object and cached.
 */
import { parseGoDuration } from '../../../model/duration.js';
import type { Node, Pod } from '../../../model/k8s.js';
import { NODEPOOL_LABEL, type NodeClaim, type NodePool } from '../../../model/karpenter.js';
import { podKey } from '../../predicates/status.js';
import { nodePoolBudgetState, type PoolBudgetState } from './budgets.js';
import type { KarpenterDisruptionContext } from './disruption-types.js';
import { cond, deletionState, isNodeReady, ms, stateNode } from './statenode.js';

const DEFAULT_BATCH_MAX_DURATION_MS = 10_000; // options.go:135

export interface Index {
  claimByProviderId: Map<string, NodeClaim>;
  claimByNodeName: Map<string, NodeClaim>;
  nodeForClaim: Map<NodeClaim, Node>;
  nodePools: Map<string, NodePool>;
  podsByNode: Map<string, Pod[]>;
  budgets: Map<string, PoolBudgetState>;
  nominatedBy: Map<string, { pod: string; at: number; until: number; source: 'event' }[]>;
  preemptorsByNode: Map<string, string[]>;
}

const indexCache = new WeakMap<KarpenterDisruptionContext, Index>();

function nominationWindowMs(ctx: KarpenterDisruptionContext): number {
  let batch = DEFAULT_BATCH_MAX_DURATION_MS;
  try {
    if (ctx.settings?.batchMaxDuration) batch = parseGoDuration(ctx.settings.batchMaxDuration);
  } catch {
    /* Karpenter refuses to start with a bad value; keep the default */
  }
  return Math.max(2 * batch, 10_000); // statenode.go:504-507 nominationWindow
}

export function buildIndex(ctx: KarpenterDisruptionContext): Index {
  const cached = indexCache.get(ctx);
  if (cached) return cached;
  const claimByProviderId = new Map<string, NodeClaim>();
  const claimByNodeName = new Map<string, NodeClaim>();
  for (const c of ctx.nodeClaims) {
    if (c.status?.providerID) claimByProviderId.set(c.status.providerID, c);
    if (c.status?.nodeName) claimByNodeName.set(c.status.nodeName, c);
  }
  const nodeForClaim = new Map<NodeClaim, Node>();
  for (const n of ctx.nodes) {
    const c = claimFor(n, claimByProviderId, claimByNodeName);
    if (c) nodeForClaim.set(c, n);
  }
  const nodePools = new Map(ctx.nodePools.map((np) => [np.metadata.name ?? '', np]));
  const podsByNode = new Map<string, Pod[]>();
  const preemptorsByNode = new Map<string, string[]>();
  for (const p of ctx.pods) {
    if (p.spec.nodeName) {
      const list = podsByNode.get(p.spec.nodeName) ?? [];
      list.push(p);
      podsByNode.set(p.spec.nodeName, list);
    } else if (p.status?.nominatedNodeName && (p.status.phase ?? 'Pending') === 'Pending') {
      const list = preemptorsByNode.get(p.status.nominatedNodeName) ?? [];
      list.push(podKey(p));
      preemptorsByNode.set(p.status.nominatedNodeName, list);
    }
  }

  // helpers.go:266-294: count managed, initialized nodes per pool; NotReady or deleting ones consume the budget
  const counts = new Map<string, { numNodes: number; disrupting: number }>();
  for (const n of ctx.nodes) {
    const c = claimFor(n, claimByProviderId, claimByNodeName);
    if (!c) continue;
    const sn = stateNode(n, c);
    if (!sn.initialized) continue;
    if (cond(c.status?.conditions, 'InstanceTerminating')?.status === 'True') continue;
    const pool = sn.labels[NODEPOOL_LABEL];
    if (pool === undefined) continue;
    const entry = counts.get(pool) ?? { numNodes: 0, disrupting: 0 };
    entry.numNodes++;
    if (!isNodeReady(n) || deletionState(n, c).marked) entry.disrupting++;
    counts.set(pool, entry);
  }
  const budgets = new Map<string, PoolBudgetState>();
  for (const [name, np] of nodePools) {
    budgets.set(name, nodePoolBudgetState(np, counts.get(name) ?? { numNodes: 0, disrupting: 0 }, ctx.now));
  }

  // scheduling/events.go:35-49 NominatePodEvent "Pod should schedule on: nodeclaim/x, node/y"
  const nominatedBy = new Map<string, { pod: string; at: number; until: number; source: 'event' }[]>();
  const window = nominationWindowMs(ctx);
  for (const e of ctx.events ?? []) {
    if (e.reason !== 'Nominated' || !e.message?.startsWith('Pod should schedule on: ')) continue;
    const at = ms(e.series?.lastObservedTime) ?? ms(e.lastTimestamp) ?? ms(e.eventTime) ?? ms(e.firstTimestamp);
    if (at === undefined || at > ctx.now.getTime() || at + window <= ctx.now.getTime()) continue;
    const targets = e.message.slice('Pod should schedule on: '.length).split(', ');
    for (const t of targets) {
      const m = /^(node|nodeclaim)\/(.+)$/.exec(t.trim());
      if (!m) continue;
      const k = `${m[1]}/${m[2]}`;
      const list = nominatedBy.get(k) ?? [];
      list.push({ pod: `${e.involvedObject.namespace ?? 'default'}/${e.involvedObject.name ?? ''}`, at, until: at + window, source: 'event' });
      nominatedBy.set(k, list);
    }
  }
  const idx = { claimByProviderId, claimByNodeName, nodeForClaim, nodePools, podsByNode, budgets, nominatedBy, preemptorsByNode };
  indexCache.set(ctx, idx);
  return idx;
}

export function claimFor(n: Node, byPid: Map<string, NodeClaim>, byName: Map<string, NodeClaim>): NodeClaim | undefined {
  // Karpenter's cluster state keys nodes and NodeClaims by providerID (state/cluster.go)
  const pid = n.spec?.providerID;
  if (pid && byPid.has(pid)) return byPid.get(pid);
  return byName.get(n.metadata.name ?? '');
}
