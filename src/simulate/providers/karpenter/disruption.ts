/**
 * What keeps Karpenter from disrupting a node, in Karpenter's order and words (kubernetes-sigs/karpenter at
 * 2266468104f3, v1.14.0+20): candidate checks (pkg/controllers/state/statenode.go ValidateNodeDisruptable,
 * ValidatePodsDisruptable; pkg/controllers/disruption/types.go NewCandidate), then each method's filter (emptiness.go,
 * drift.go, consolidation.go ShouldDisrupt), then NodePool budgets per reason (helpers.go BuildDisruptionBudgetMapping).
 * Expiration (pkg/controllers/nodeclaim/expiration) is forceful and runs outside the disruption controller.
 * Pure: every input is a snapshot object; `now` is the instant evaluated.
 */
import { parseGoDuration } from '../../../model/duration.js';
import { shellCommand } from '../../../model/shell.js';
import type { KubeEvent, Node, Pod, PodDisruptionBudget, Toleration } from '../../../model/k8s.js';
import {
  CAPACITY_TYPE_LABEL,
  CAPACITY_TYPE_SPOT,
  DEFAULT_KARPENTER_FEATURE_GATES,
  DISRUPTED_TAINT_KEY,
  DO_NOT_DISRUPT_ANNOTATION,
  NODE_INITIALIZED_LABEL,
  NODE_REGISTERED_LABEL,
  NODEPOOL_LABEL,
  type KarpenterDeploymentSettings,
  type KarpenterCondition,
  type NodeClaim,
  type NodePool,
} from '../../../model/karpenter.js';
import { compileLabelSelector } from '../../predicates/labels.js';
import { tolerationsTolerateTaint } from '../../predicates/taint-toleration.js';
import { nodePoolBudgetState, type KarpenterDisruptionReason, type PoolBudgetState } from './budgets.js';
import { podKey } from '../../predicates/status.js';
import { ownedBy } from './requirements.js';
import { karpenterHas } from './versions.js';

export type KarpenterDisruptionMethod = 'emptiness' | 'drift' | 'consolidation' | 'expiration';

/** Method -> the budget reason it consumes (emptiness.go:112, drift.go:110, consolidation = Underutilized). */
export const METHOD_REASON: Record<Exclude<KarpenterDisruptionMethod, 'expiration'>, KarpenterDisruptionReason> = {
  emptiness: 'Empty',
  drift: 'Drifted',
  consolidation: 'Underutilized',
};

export type KarpenterBlockerId =
  | 'not-managed'
  | 'nodeclaim-without-node'
  | 'not-initialized'
  | 'marked-for-deletion'
  | 'nominated'
  | 'node-do-not-disrupt'
  | 'missing-nodepool-label'
  | 'nodepool-not-found'
  | 'pod-do-not-disrupt'
  | 'pdb-blocks-eviction'
  | 'multiple-pdbs'
  | 'static-nodepool'
  | 'instance-type-not-found'
  | 'missing-capacity-type-label'
  | 'missing-zone-label'
  | 'consolidation-disabled'
  | 'when-empty-not-empty'
  | 'consolidate-after'
  | 'not-consolidatable'
  | 'budget'
  | 'spot-to-spot-disabled';

export interface KarpenterDisruptionBlocker {
  id: KarpenterBlockerId;
  /** Methods this blocker stops. */
  blocks: KarpenterDisruptionMethod[];
  /** Only limits a method (spot-to-spot: replacing is blocked, deleting is not). */
  partial?: boolean;
  /** Karpenter's error text (logs, err.Error()), exactly; undefined where Karpenter says nothing. */
  karpenterText?: string;
  /** The event Karpenter publishes for it: reason and message as `kubectl describe` shows them. */
  event?: { reason: 'DisruptionBlocked' | 'Unconsolidatable'; on: 'Node and NodeClaim' | 'NodeClaim' | 'NodePool'; message: string };
  /** 'inferred': the condition lives in Karpenter's memory; we read it from its visible traces. */
  certainty: 'exact' | 'inferred';
  explanation: string;
  values: Record<string, string | number | boolean | null>;
  fix: string;
  /** Upstream file:line (kubernetes-sigs/karpenter). */
  source: string;
}

export interface KarpenterMethodVerdict {
  method: KarpenterDisruptionMethod;
  reason?: KarpenterDisruptionReason;
  /** Whether the method is about this node at all (emptiness: empty node; consolidation: non-empty; drift: Drifted). */
  applicable: boolean;
  possible: boolean;
  blockedBy: KarpenterBlockerId[];
  limitedBy: KarpenterBlockerId[];
  /** ISO time: expiration instant, or when consolidateAfter elapses. */
  at?: string;
  detail: string;
}

export interface KarpenterNodeDisruption {
  node?: string;
  nodeClaim?: string;
  nodePool?: string;
  /** NewCandidate succeeds for graceful methods (no candidate or pod blocker). */
  candidate: boolean;
  /** Candidate.IsEmpty (types.go:156-158): no reschedulable pod with a positive eviction cost. */
  empty: boolean;
  /** namespace/name of the pods that would have to move. */
  reschedulablePods: string[];
  blockers: KarpenterDisruptionBlocker[];
  methods: KarpenterMethodVerdict[];
  budgets?: PoolBudgetState;
  /** Facts that are not blockers: ignored annotations, what we could not evaluate. */
  notes: string[];
}

/** Everything the rules read. Treated as immutable: indexes derived from it are cached per context object. */
export interface KarpenterDisruptionContext {
  now: Date;
  nodes: readonly Node[];
  nodeClaims: readonly NodeClaim[];
  nodePools: readonly NodePool[];
  pods: readonly Pod[];
  pdbs: readonly PodDisruptionBudget[];
  events?: readonly KubeEvent[];
  /** version (e.g. "1.8.1") switches version-dependent rules; absent = HEAD behaviour. */
  settings?: Partial<Pick<KarpenterDeploymentSettings, 'featureGates' | 'batchMaxDuration' | 'version'>>;
  /** Instance type names each NodePool offers (from the placement funnel); enables "Instance Type %q not found". */
  instanceTypesByNodePool?: Readonly<Record<string, readonly string[]>>;
}

const ZONE_LABEL = 'topology.kubernetes.io/zone';
const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
const DEFAULT_EXPIRE_AFTER = '720h'; // nodeclaim.go:78 / nodepool.go:264 +kubebuilder:default
const DEFAULT_BATCH_MAX_DURATION_MS = 10_000; // options.go:135

// ------------------------------------------------------------------------------------------------ small helpers

function cond(conditions: readonly KarpenterCondition[] | undefined, type: string): KarpenterCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

function ms(iso: string | undefined | null): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

function iso(t: number): string {
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

function human(msValue: number): string {
  const s = Math.round(msValue / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
}

/** NillableDuration: "Never" -> null (disabled); a Go duration -> ms; undefined -> the default. */
function nillableDuration(v: string | undefined, dflt: string): { ms: number | null; error?: string } {
  const s = v ?? dflt;
  if (s === 'Never') return { ms: null };
  try {
    return { ms: parseGoDuration(s) };
  } catch (e) {
    return { ms: null, error: (e as Error).message };
  }
}

// pkg/utils/pod/scheduling.go:35-38 IsActive: not terminal, not terminating
function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

// scheduling.go:44-51 IsReschedulable
function isReschedulable(pod: Pod): boolean {
  const stsTerminating = ownedBy(pod, 'apps/v1', 'StatefulSet') && !!pod.metadata.deletionTimestamp;
  return (isActive(pod) || stsTerminating) && !ownedBy(pod, 'apps/v1', 'DaemonSet') && !ownedBy(pod, 'v1', 'Node');
}

// pkg/utils/disruption/disruption.go:48-69 EvictionCost
function evictionCost(pod: Pod): number {
  let cost = 1;
  const raw = pod.metadata.annotations?.['controller.kubernetes.io/pod-deletion-cost'];
  if (raw !== undefined && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw.trim()) && raw.trim() === raw) {
    cost += Number(raw) / 2 ** 27;
  }
  if (typeof pod.spec.priority === 'number') cost += pod.spec.priority / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}

const DISRUPTED_TAINT = { key: DISRUPTED_TAINT_KEY, effect: 'NoSchedule' };

// scheduling.go:255-257 ToleratesDisruptedNoScheduleTaint
function toleratesDisruptedTaint(pod: Pod): boolean {
  return tolerationsTolerateTaint(pod.spec.tolerations as Toleration[] | undefined, DISRUPTED_TAINT);
}

export type DoNotDisruptState =
  | { active: false; reason: 'absent' | 'elapsed' | 'invalid' | 'unsupported'; invalidMessage?: string; until?: string }
  | { active: true; value: string; until?: string };

/**
 * IsDoNotDisruptActive (pkg/utils/pod/scheduling.go:210-252) at `now`. Durations count from v1.12.0 (commit 501287b36,
 * #2874); before that only "true" blocked and any other value was silently ignored.
 */
export function podDoNotDisrupt(pod: Pod, now: Date, durationsSupported = true): DoNotDisruptState {
  const anns = pod.metadata.annotations;
  if (!anns || !Object.hasOwn(anns, DO_NOT_DISRUPT_ANNOTATION)) return { active: false, reason: 'absent' };
  const value = anns[DO_NOT_DISRUPT_ANNOTATION];
  if (value === 'true') return { active: true, value };
  if (!durationsSupported) return { active: false, reason: 'unsupported' };
  let d: number;
  try {
    d = parseGoDuration(value);
  } catch (e) {
    // scheduling.go:194-203 parseDoNotDisrupt; events.go:33 InvalidDoNotDisruptAnnotationEvent
    const message = `failed to parse ${JSON.stringify(value)} as a duration: ${(e as Error).message}`;
    return { active: false, reason: 'invalid', invalidMessage: message };
  }
  if (d <= 0) return { active: false, reason: 'invalid', invalidMessage: `duration ${JSON.stringify(value)} must be positive` };
  const start = ms(pod.status?.startTime);
  if (start === undefined) return { active: true, value }; // no startTime: fail safe (scheduling.go:234-236)
  const until = start + d;
  return now.getTime() - start < d ? { active: true, value, until: iso(until) } : { active: false, reason: 'elapsed', until: iso(until) };
}

/** The node-level view Karpenter's StateNode gives (statenode.go Labels/Annotations/Registered/Initialized). */
function stateNode(node: Node | undefined, claim: NodeClaim | undefined) {
  const registered = claim ? node?.metadata.labels?.[NODE_REGISTERED_LABEL] === 'true' : true;
  const initialized = claim ? node?.metadata.labels?.[NODE_INITIALIZED_LABEL] === 'true' : true;
  // statenode.go:281-309: an unregistered managed node is seen through its NodeClaim's labels and annotations
  const useClaim = !node || (claim && !registered);
  const labels = (useClaim ? claim?.metadata.labels : node?.metadata.labels) ?? {};
  const annotations = (useClaim ? claim?.metadata.annotations : node?.metadata.annotations) ?? {};
  return { registered, initialized, labels, annotations };
}

interface DeletionState {
  marked: boolean;
  why?: string;
  certainty: 'exact' | 'inferred';
}

// statenode.go:438-449 MarkedForDeletion / Deleted; the in-memory mark goes with the karpenter.sh/disrupted taint
function deletionState(node: Node | undefined, claim: NodeClaim | undefined): DeletionState {
  if (claim?.metadata.deletionTimestamp) {
    return { marked: true, why: `NodeClaim deletionTimestamp ${claim.metadata.deletionTimestamp}`, certainty: 'exact' };
  }
  if (cond(claim?.status?.conditions, 'InstanceTerminating')?.status === 'True') {
    return { marked: true, why: 'NodeClaim condition InstanceTerminating=True', certainty: 'exact' };
  }
  if (node && !claim && node.metadata.deletionTimestamp) {
    return { marked: true, why: `Node deletionTimestamp ${node.metadata.deletionTimestamp}`, certainty: 'exact' };
  }
  const taint = node?.spec?.taints?.find((t) => t.key === DISRUPTED_TAINT_KEY && t.effect === 'NoSchedule');
  if (taint) {
    return { marked: true, why: `taint ${DISRUPTED_TAINT_KEY}:NoSchedule (Karpenter taints the nodes it is disrupting)`, certainty: 'inferred' };
  }
  if (node?.metadata.deletionTimestamp) {
    return { marked: true, why: `Node deletionTimestamp ${node.metadata.deletionTimestamp}`, certainty: 'inferred' };
  }
  return { marked: false, certainty: 'exact' };
}

function isNodeReady(node: Node | undefined): boolean {
  return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

// ------------------------------------------------------------------------------------------------ index

interface Index {
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

function buildIndex(ctx: KarpenterDisruptionContext): Index {
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

function claimFor(n: Node, byPid: Map<string, NodeClaim>, byName: Map<string, NodeClaim>): NodeClaim | undefined {
  // Karpenter's cluster state keys nodes and NodeClaims by providerID (state/cluster.go)
  const pid = n.spec?.providerID;
  if (pid && byPid.has(pid)) return byPid.get(pid);
  return byName.get(n.metadata.name ?? '');
}

// ------------------------------------------------------------------------------------------------ the rules

const GRACEFUL: KarpenterDisruptionMethod[] = ['emptiness', 'drift', 'consolidation'];

/**
 * Disruption blockers for one Karpenter node (or a NodeClaim that has no Node), in Karpenter's order, and which
 * disruption methods remain possible at ctx.now.
 */
export function karpenterDisruptionBlockers(target: Node | NodeClaim, ctx: KarpenterDisruptionContext): KarpenterNodeDisruption {
  const idx = buildIndex(ctx);
  const isClaim = target.kind === 'NodeClaim' || (target as NodeClaim).spec?.nodeClassRef !== undefined;
  const claim = isClaim ? (target as NodeClaim) : claimFor(target as Node, idx.claimByProviderId, idx.claimByNodeName);
  const node = isClaim ? idx.nodeForClaim.get(target as NodeClaim) : (target as Node);
  const nodeName = node?.metadata.name;
  const sn = stateNode(node, claim);
  const poolName = sn.labels[NODEPOOL_LABEL];
  const np = poolName !== undefined ? idx.nodePools.get(poolName) : undefined;
  const blockers: KarpenterDisruptionBlocker[] = [];
  const notes: string[] = [];
  const now = ctx.now.getTime();
  const result = (extra: Partial<KarpenterNodeDisruption> = {}): KarpenterNodeDisruption => ({
    node: nodeName,
    nodeClaim: claim?.metadata.name,
    nodePool: poolName,
    candidate: false,
    empty: false,
    reschedulablePods: [],
    blockers,
    methods: [],
    notes,
    ...extra,
  });
  const blocked = (b: Omit<KarpenterDisruptionBlocker, 'certainty'> & { certainty?: 'exact' | 'inferred' }) =>
    blockers.push({ certainty: 'exact', ...b });
  const candidateEvent = (text: string) => ({
    reason: 'DisruptionBlocked' as const,
    on: 'Node and NodeClaim' as const,
    message: text.charAt(0).toUpperCase() + text.slice(1), // pretty.Sentence (pkg/utils/pretty/pretty.go:100)
  });

  // ---- ValidateNodeDisruptable (statenode.go:212-237): structural checks end the evaluation
  if (!claim) {
    blocked({
      id: 'not-managed',
      blocks: ['emptiness', 'drift', 'consolidation', 'expiration'],
      karpenterText: "node isn't managed by karpenter",
      explanation:
        poolName !== undefined
          ? `Node carries ${NODEPOOL_LABEL}=${poolName} but no NodeClaim in the input has its providerID (${node?.spec?.providerID ?? 'none'}); Karpenter only disrupts nodes it tracks through a NodeClaim and publishes no event for this one.`
          : 'No NodeClaim owns this node; Karpenter does not disrupt nodes it did not launch (no event is published).',
      values: { providerID: node?.spec?.providerID ?? null, nodePoolLabel: poolName ?? null },
      fix:
        poolName !== undefined
          ? 'Check that the NodeClaims were gathered (kubectl get nodeclaims -o json); a node whose NodeClaim was deleted must be drained and deleted by hand.'
          : 'Nothing to fix if another autoscaler (CA, a managed node group) owns this node.',
      source: 'pkg/controllers/state/statenode.go:213-215',
    });
    return result();
  }
  if (!node) {
    blocked({
      id: 'nodeclaim-without-node',
      blocks: ['emptiness', 'drift', 'consolidation'],
      karpenterText: 'nodeclaim does not have an associated node',
      // events.go:95-115 Blocked: no Node, so only the NodeClaim gets the event
      event: { reason: 'DisruptionBlocked', on: 'NodeClaim', message: 'Nodeclaim does not have an associated node' },
      explanation: `NodeClaim ${claim.metadata.name} has no Node yet (providerID ${claim.status?.providerID ?? 'not set'}); Karpenter does not disrupt it until the node registers, and the registration TTL replaces it if it never does.`,
      values: { providerID: claim.status?.providerID ?? null, launched: cond(claim.status?.conditions, 'Launched')?.status ?? null },
      fix: 'Look at the NodeClaim conditions Launched/Registered and the instance console output for why the kubelet did not join.',
      source: 'pkg/controllers/state/statenode.go:216-218',
    });
    return result({ methods: [expirationVerdict(claim, np, now, [])] });
  }
  if (!sn.initialized) {
    blocked({
      id: 'not-initialized',
      blocks: GRACEFUL,
      karpenterText: "node isn't initialized",
      event: candidateEvent("node isn't initialized"),
      explanation: `Node lacks ${NODE_INITIALIZED_LABEL}=true: Karpenter waits until it is Ready, its startup taints are gone and its extended resources are registered.`,
      values: {
        [NODE_INITIALIZED_LABEL]: node.metadata.labels?.[NODE_INITIALIZED_LABEL] ?? null,
        registered: sn.registered,
        ready: isNodeReady(node),
        startupTaints: (claim.spec.startupTaints ?? []).map((t) => `${t.key}:${t.effect}`).join(',') || null,
      },
      fix: 'Check the NodeClaim Initialized condition message: a startup taint nobody removes or a device plugin that never registers keeps it here.',
      source: 'pkg/controllers/state/statenode.go:219-221',
    });
  }
  const del = deletionState(node, claim);
  if (del.marked) {
    blocked({
      id: 'marked-for-deletion',
      blocks: GRACEFUL,
      certainty: del.certainty,
      karpenterText: 'node is deleting or marked for deletion',
      event: candidateEvent('node is deleting or marked for deletion'),
      explanation: `The node is already on its way out (${del.why}); it counts against the NodePool's budget until it is gone.`,
      values: { evidence: del.why ?? null },
      fix: 'Nothing to do unless it stays: a node stuck deleting usually waits on a PDB or a do-not-disrupt pod during drain.',
      source: 'pkg/controllers/state/statenode.go:222-224,438-449',
    });
  }
  const nominations = [...(idx.nominatedBy.get(`node/${nodeName}`) ?? []), ...(idx.nominatedBy.get(`nodeclaim/${claim.metadata.name}`) ?? [])];
  const preemptors = idx.preemptorsByNode.get(nodeName ?? '') ?? [];
  if (preemptors.length > 0) {
    // IsProvisionable skips preempting pods (pkg/utils/pod/scheduling.go:105,138-140): they never nominate a node
    notes.push(
      `Pending pod(s) ${preemptors.join(', ')} carry status.nominatedNodeName=${nodeName} (kube-scheduler preemption). Karpenter ignores preempting pods, so this does not block disruption; consolidating the node would take their target away.`,
    );
  }
  if (nominations.length > 0) {
    const until = Math.max(...nominations.map((n) => n.until));
    blocked({
      id: 'nominated',
      blocks: GRACEFUL,
      certainty: 'inferred',
      karpenterText: 'node is nominated for a pending pod',
      event: candidateEvent('node is nominated for a pending pod'),
      explanation: `Karpenter's last scheduling pass placed pending pod(s) ${[...new Set(nominations.map((n) => n.pod))].join(', ')} on this node (event Nominated); the nomination lasts max(2 x BATCH_MAX_DURATION, 10s) and is renewed while the pods stay pending.`,
      values: { pods: [...new Set(nominations.map((n) => n.pod))].join(', '), nominatedUntil: iso(until) },
      fix: 'Usually transient. If it persists, the pending pods keep landing here in simulation but never bind: look at why they stay Pending.',
      source: 'pkg/controllers/state/statenode.go:226-228,455-457; provisioning/scheduling/scheduler.go:312-320',
    });
  }
  if (sn.annotations[DO_NOT_DISRUPT_ANNOTATION] === 'true') {
    const text = `disruption is blocked through the "${DO_NOT_DISRUPT_ANNOTATION}" annotation`;
    blocked({
      id: 'node-do-not-disrupt',
      blocks: GRACEFUL,
      karpenterText: text,
      event: candidateEvent(text),
      explanation: `The ${sn.registered ? 'Node' : 'NodeClaim'} has ${DO_NOT_DISRUPT_ANNOTATION}: "true"; no voluntary method touches it (expiration still does).`,
      values: { annotation: DO_NOT_DISRUPT_ANNOTATION, value: 'true', on: sn.registered ? 'Node' : 'NodeClaim' },
      fix: shellCommand(['kubectl', 'annotate', 'node', nodeName ?? '<node>', `${DO_NOT_DISRUPT_ANNOTATION}-`]),
      source: 'pkg/controllers/state/statenode.go:229-231',
    });
  } else if (sn.annotations[DO_NOT_DISRUPT_ANNOTATION] !== undefined) {
    notes.push(
      `Node annotation ${DO_NOT_DISRUPT_ANNOTATION}="${sn.annotations[DO_NOT_DISRUPT_ANNOTATION]}" is ignored: on a node only "true" counts (statenode.go:229).`,
    );
  }
  if (poolName === undefined) {
    const text = `node doesn't have required label (label=${NODEPOOL_LABEL})`;
    blocked({
      id: 'missing-nodepool-label',
      blocks: GRACEFUL,
      karpenterText: text,
      event: candidateEvent(text),
      explanation: `The node has a NodeClaim but no ${NODEPOOL_LABEL} label, so Karpenter cannot find its NodePool.`,
      values: { label: NODEPOOL_LABEL },
      fix: `Restore the label from the NodeClaim: ${shellCommand(['kubectl', 'label', 'node', nodeName ?? '<node>', `${NODEPOOL_LABEL}=${claim.metadata.labels?.[NODEPOOL_LABEL] ?? '<nodepool>'}`])}`,
      source: 'pkg/controllers/state/statenode.go:233-235',
    });
    return result({ methods: [expirationVerdict(claim, np, now, blockers)] });
  }
  if (!np) {
    const text = `NodePool not found (NodePool=${poolName})`;
    blocked({
      id: 'nodepool-not-found',
      blocks: GRACEFUL,
      karpenterText: 'nodepool not found (NodePool=' + poolName + ')',
      event: { reason: 'DisruptionBlocked', on: 'Node and NodeClaim', message: text },
      explanation: `NodePool ${poolName} is not in the input (deleted, or it resolves no instance types, which Karpenter reports the same way).`,
      values: { nodePool: poolName },
      fix: `${shellCommand(['kubectl', 'get', 'nodepool', poolName])}; a NodePool whose NodeClass is not Ready resolves no instance types.`,
      source: 'pkg/controllers/disruption/types.go:183-186',
    });
    return result({ methods: [expirationVerdict(claim, undefined, now, blockers)] });
  }
  if (ctx.instanceTypesByNodePool?.[poolName] && ctx.instanceTypesByNodePool[poolName].length === 0) {
    notes.push(`NodePool ${poolName} resolves no instance types: Karpenter treats it as "NodePool not found" (types.go:183).`);
  }

  // ---- ValidatePodsDisruptable (statenode.go:244-264): do-not-disrupt pods, then PDBs
  const pods = idx.podsByNode.get(nodeName ?? '') ?? [];
  const tgp = claim.spec.terminationGracePeriod;
  // types.go:189-198: drift is "eventual"; with terminationGracePeriod set, pod blockers do not stop it
  const podBlocks: KarpenterDisruptionMethod[] = tgp ? ['emptiness', 'consolidation'] : GRACEFUL;
  const podTgpNote = tgp ? ` Drift still proceeds: the NodeClaim has terminationGracePeriod ${tgp}, after which pods are deleted anyway.` : '';
  const version = ctx.settings?.version;
  const durations = karpenterHas(version, 'do-not-disrupt-duration');
  for (const p of pods) {
    if (!isActive(p)) continue; // IsDisruptable: non-active pods never block
    const dnd = podDoNotDisrupt(p, ctx.now, durations);
    if (dnd.active) {
      const text = `pod has "${DO_NOT_DISRUPT_ANNOTATION}" annotation (Pod=${podKey(p)})`;
      blocked({
        id: 'pod-do-not-disrupt',
        blocks: podBlocks,
        karpenterText: text,
        event: candidateEvent(text),
        explanation:
          (dnd.value === 'true'
            ? `Pod ${podKey(p)} has ${DO_NOT_DISRUPT_ANNOTATION}: "true".`
            : dnd.until
              ? `Pod ${podKey(p)} has ${DO_NOT_DISRUPT_ANNOTATION}: "${dnd.value}", counted from its start (${p.status?.startTime}); protection ends at ${dnd.until}.`
              : `Pod ${podKey(p)} has ${DO_NOT_DISRUPT_ANNOTATION}: "${dnd.value}" but no status.startTime, so Karpenter keeps it protected.`) + podTgpNote,
        values: { pod: podKey(p), value: dnd.value, until: dnd.until ?? null },
        fix:
          dnd.value === 'true'
            ? `Remove the annotation when the work is done (${shellCommand(['kubectl', 'annotate', 'pod', '-n', p.metadata.namespace ?? 'default', p.metadata.name ?? '', `${DO_NOT_DISRUPT_ANNOTATION}-`])}), or use a duration such as "1h".`
            : `Wait until ${dnd.until ?? 'the pod reports a startTime'}, or shorten the duration.`,
        source: 'pkg/controllers/state/statenode.go:249-254; pkg/utils/pod/scheduling.go:210-252',
      });
    } else if (dnd.reason === 'invalid') {
      notes.push(`Pod ${podKey(p)}: Invalid ${DO_NOT_DISRUPT_ANNOTATION} annotation: ${dnd.invalidMessage}, ignoring annotation (pkg/utils/pod/events.go:33).`);
    } else if (dnd.reason === 'unsupported') {
      notes.push(
        `Pod ${podKey(p)}: ${DO_NOT_DISRUPT_ANNOTATION}="${p.metadata.annotations?.[DO_NOT_DISRUPT_ANNOTATION]}" does not protect it: Karpenter ${ctx.settings?.version} honours only "true" (durations arrived in v1.12.0).`,
      );
    } else if (dnd.reason === 'elapsed') {
      notes.push(`Pod ${podKey(p)}: the ${DO_NOT_DISRUPT_ANNOTATION} grace period elapsed at ${dnd.until}; it no longer blocks.`);
    }
  }
  for (const p of pods) {
    // pdb.go:88-130 isEvictable: pods Karpenter will not evict are not subject to PDBs
    if (!isActive(p) || toleratesDisruptedTaint(p) || ownedBy(p, 'v1', 'Node') || podDoNotDisrupt(p, ctx.now, durations).active) continue;
    const matching = ctx.pdbs.filter(
      (b) => (b.metadata.namespace ?? 'default') === (p.metadata.namespace ?? 'default') && compileLabelSelector(b.spec?.selector).matches(p.metadata.labels),
    );
    const keys = matching.map((b) => `${b.metadata.namespace ?? 'default'}/${b.metadata.name}`);
    if (!karpenterHas(version, 'pdb-list')) {
      // pdb.go:85-118@v1.6.2 isEvictable: the PDBs in list order, the first matching one decides; the text names one PDB
      // without brackets (statenode.go:247@v1.6.2); several PDBs are not refused before v1.7
      for (const [i, pb] of matching.entries()) {
        if (pb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' && (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'False')) break;
        if ((pb.status?.disruptionsAllowed ?? 0) !== 0) continue;
        const text = `pdb prevents pod evictions (PodDisruptionBudget=${keys[i]})`;
        blocked({
          id: 'pdb-blocks-eviction',
          blocks: podBlocks,
          karpenterText: text,
          event: candidateEvent(text),
          explanation: `PodDisruptionBudget ${keys[i]} allows 0 disruptions now (currentHealthy ${pb.status?.currentHealthy ?? '?'}, desiredHealthy ${pb.status?.desiredHealthy ?? '?'}, expectedPods ${pb.status?.expectedPods ?? '?'}) and covers pod ${podKey(p)}.${matching.length > 1 ? ` The pod is under ${matching.length} PDBs (${keys.join(', ')}); this Karpenter does not refuse that, but the eviction API will, so a drain of the node would stall.` : ''}${podTgpNote}`,
          values: { pod: podKey(p), pdb: keys[i], disruptionsAllowed: 0, minAvailable: pb.spec?.minAvailable ?? null, maxUnavailable: pb.spec?.maxUnavailable ?? null },
          fix: 'Add replicas or relax minAvailable/maxUnavailable so the PDB allows at least one disruption; set terminationGracePeriod on the NodePool to bound how long drift/expiry wait.',
          source: 'pkg/controllers/state/statenode.go:247@v1.6.2; pkg/utils/pdb/pdb.go:85-118@v1.6.2',
        });
        break;
      }
      if (matching.length > 1 && !blockers.some((x) => x.id === 'pdb-blocks-eviction' && x.values.pod === podKey(p))) {
        notes.push(`Pod ${podKey(p)} is under ${matching.length} PodDisruptionBudgets (${keys.join(', ')}): Karpenter ${version} does not check that (the check arrived in v1.7.0), so the node can be chosen and its drain then stalls, because the eviction API refuses pods under several PDBs.`);
      }
      continue;
    }
    if (matching.length > 1) {
      // the eviction API refuses pods under several PDBs whatever they allow (pdb.go:99-105)
      const text = `eviction does not support multiple PDBs (PodDisruptionBudget(s)=[${keys.join(' ')}])`;
      blocked({
        id: 'multiple-pdbs',
        blocks: podBlocks,
        karpenterText: text,
        event: candidateEvent(text),
        explanation: `Pod ${podKey(p)} is selected by ${matching.length} PodDisruptionBudgets (${keys.join(', ')}); the Kubernetes eviction API rejects such pods, so Karpenter (v1.7+) never tries.${podTgpNote}`,
        values: { pod: podKey(p), pdbs: keys.join(', ') },
        fix: 'Make the PDB selectors disjoint so each pod is covered by at most one PodDisruptionBudget.',
        source: 'pkg/controllers/state/statenode.go:257-258; pkg/utils/pdb/pdb.go:99-105',
      });
      continue;
    }
    const b = matching[0];
    if (!b) continue;
    if (b.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' && (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'False')) {
      continue; // pdb.go:110-116
    }
    const allowed = b.status?.disruptionsAllowed ?? 0;
    if (allowed === 0) {
      const text = `pdb prevents pod evictions (PodDisruptionBudget=[${keys[0]}])`;
      blocked({
        id: 'pdb-blocks-eviction',
        blocks: podBlocks,
        karpenterText: text,
        event: candidateEvent(text),
        explanation: `PodDisruptionBudget ${keys[0]} allows 0 disruptions now (currentHealthy ${b.status?.currentHealthy ?? '?'}, desiredHealthy ${b.status?.desiredHealthy ?? '?'}, expectedPods ${b.status?.expectedPods ?? '?'}) and covers pod ${podKey(p)}.${podTgpNote}`,
        values: {
          pod: podKey(p),
          pdb: keys[0],
          disruptionsAllowed: allowed,
          minAvailable: b.spec?.minAvailable ?? null,
          maxUnavailable: b.spec?.maxUnavailable ?? null,
        },
        fix: 'Add replicas or relax minAvailable/maxUnavailable so the PDB allows at least one disruption; set terminationGracePeriod on the NodePool to bound how long drift/expiry wait.',
        source: 'pkg/controllers/state/statenode.go:256-261; pkg/utils/pdb/pdb.go:118-122',
      });
    }
  }

  const candidateBlocked = blockers.length > 0;
  // types.go:81-107@v1.6.2 NewCandidate stops at the first failing check and publishes one DisruptionBlocked event for it
  // (statenode.go:202-250): the later blockers hold too, but Karpenter says nothing of them
  for (const b of blockers.slice(1)) {
    if (!b.event) continue;
    delete b.event;
    b.explanation += ` Karpenter publishes no event for this: it reports only the first blocker it finds ("${blockers[0].karpenterText ?? blockers[0].id}").`;
  }
  const candidateCount = blockers.length;
  const reschedulable = pods.filter(isReschedulable);
  const rescheduleCost = 1 + reschedulable.reduce((s, p) => s + Math.max(0, evictionCost(p)), 0);
  // types.go:156-158@v1.14.1 IsEmpty by eviction cost; before v1.14 no reschedulable pod at all (emptiness.go:48@v1.6.2)
  const empty = karpenterHas(version, 'emptiness-by-cost') ? rescheduleCost <= 1 : reschedulable.length === 0;
  const budgetState = idx.budgets.get(poolName);
  const disruption = np.spec.disruption ?? {};
  const staticPool = typeof np.spec.replicas === 'number';
  const consolidateAfter = nillableDuration(disruption.consolidateAfter, '0s');
  const policy = disruption.consolidationPolicy ?? 'WhenEmptyOrUnderutilized';
  const drifted = cond(claim.status?.conditions, 'Drifted')?.status === 'True';
  const consolidatable = cond(claim.status?.conditions, 'Consolidatable')?.status === 'True';
  const unconsolidatable = (message: string) => ({ reason: 'Unconsolidatable' as const, on: 'Node and NodeClaim' as const, message });

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
  if (candidateBlocked) for (const b of blockers.slice(candidateCount)) delete b.event;
  // ---- budgets per reason (helpers.go:262-313), only for the methods that concern this node
  const applicable: Record<Exclude<KarpenterDisruptionMethod, 'expiration'>, boolean> = {
    emptiness: empty,
    drift: drifted,
    consolidation: !empty,
  };
  // budgets hold back candidates that a method's filter kept (controller.go disrupt: GetCandidates with ShouldDisrupt,
  // then the budget mapping): not a node that is no candidate, nor a method something else already blocks
  const alreadyBlocked = (m: KarpenterDisruptionMethod): boolean => blockers.some((b) => !b.partial && b.blocks.includes(m));
  if (budgetState && !candidateBlocked) {
    for (const method of ['emptiness', 'drift', 'consolidation'] as const) {
      const reason = METHOD_REASON[method];
      const rb = budgetState.byReason[reason];
      if (!applicable[method] || rb.remaining > 0 || alreadyBlocked(method)) continue;
      const limiting = rb.limiting.map((i) => rb.budgets[i]);
      const describe = limiting
        .map((e) => {
          const b = e.budget;
          const sched = b.schedule !== undefined ? ` schedule "${b.schedule}" duration ${b.duration ?? '(none)'}` : '';
          const window = e.window.active && e.window.scheduled ? ` (active since ${e.window.since ? iso(e.window.since.getTime()) : '?'}${e.window.until ? ` until ${iso(e.window.until.getTime())}` : ''})` : '';
          const errText = e.error ? `: ${e.error}` : '';
          return `budgets[${e.index}] nodes "${b.nodes}"${b.reasons ? ` reasons [${b.reasons.join(',')}]` : ''}${sched}${window}${errText}`;
        })
        .join('; ');
      blocked({
        id: 'budget',
        blocks: [method],
        karpenterText: rb.event,
        event: rb.event ? { reason: 'DisruptionBlocked', on: 'NodePool', message: rb.event } : undefined,
        explanation: rb.failedClosed
          ? `A budget of NodePool ${poolName} is invalid, so Karpenter allows 0 disruptions for every reason: ${describe}.`
          : rb.allowed === 0
            ? `NodePool ${poolName} budgets allow 0 ${reason} disruptions now (${budgetState.numNodes} counted node(s)): ${describe}.`
            : `NodePool ${poolName} budgets allow ${rb.allowed} ${reason} disruption(s) of ${budgetState.numNodes} node(s), and ${budgetState.disrupting} node(s) already NotReady or being disrupted use them up.`,
        values: {
          reason,
          allowed: rb.allowed,
          disrupting: budgetState.disrupting,
          nodesCounted: budgetState.numNodes,
          limitingBudgets: rb.limiting.join(',') || null,
        },
        fix: rb.failedClosed
          ? 'Fix the schedule (5 fields or @daily/@weekly/…, UTC, no CRON_TZ) or the nodes value of the listed budget.'
          : rb.allowed === 0
            ? `Wait for the window to close or raise nodes on the listed budget (${shellCommand(['kubectl', 'edit', 'nodepool', poolName])}).`
            : 'Wait for the disrupting/NotReady nodes to finish; NotReady nodes that never recover hold the budget until removed.',
        source: 'pkg/controllers/disruption/helpers.go:262-313; pkg/apis/v1/nodepool.go:356-427',
      });
    }
  }

  // ---- spot-to-spot (consolidation.go:212-214,263-268): replacing a spot node needs the feature gate
  const gates = { ...DEFAULT_KARPENTER_FEATURE_GATES, ...ctx.settings?.featureGates };
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

  const methods = methodVerdicts(blockers, applicable, { drifted, empty, staticPool, consolidatableAt, gatesOn: gates.SpotToSpotConsolidation });
  methods.push(expirationVerdict(claim, np, now, blockers));
  return {
    node: nodeName,
    nodeClaim: claim.metadata.name,
    nodePool: poolName,
    candidate: !candidateBlocked,
    empty,
    reschedulablePods: reschedulable.map(podKey),
    blockers,
    methods,
    budgets: budgetState,
    notes,
  };
}

function methodVerdicts(
  blockers: KarpenterDisruptionBlocker[],
  applicable: Record<'emptiness' | 'drift' | 'consolidation', boolean>,
  f: { drifted: boolean; empty: boolean; staticPool: boolean; consolidatableAt?: number; gatesOn: boolean },
): KarpenterMethodVerdict[] {
  return (['emptiness', 'drift', 'consolidation'] as const).map((method) => {
    const hits = blockers.filter((b) => b.blocks.includes(method));
    const blockedBy = [...new Set(hits.filter((b) => !b.partial).map((b) => b.id))];
    const limitedBy = [...new Set(hits.filter((b) => b.partial).map((b) => b.id))];
    const possible = applicable[method] && blockedBy.length === 0;
    let detail: string;
    if (method === 'emptiness') {
      detail = !f.empty ? 'not empty: pods would have to move' : possible ? 'empty node: Karpenter may delete it' : 'empty node, blocked';
    } else if (method === 'drift') {
      detail = !f.drifted
        ? 'NodeClaim is not Drifted'
        : f.staticPool
          ? 'Drifted: replaced by static drift'
          : possible
            ? 'Drifted: Karpenter replaces it once its pods can be scheduled elsewhere or on a replacement'
            : 'Drifted, blocked';
    } else {
      detail = f.empty
        ? 'empty: handled by emptiness'
        : possible
          ? `possible if a scheduling simulation moves its pods to other nodes (delete) or one cheaper node (replace${limitedBy.length > 0 ? ' — not for spot, gate off' : f.gatesOn ? '; spot needs 15 cheaper types' : ''})`
          : 'blocked';
    }
    const verdict: KarpenterMethodVerdict = {
      method,
      reason: METHOD_REASON[method],
      applicable: applicable[method],
      possible,
      blockedBy,
      limitedBy,
      detail,
    };
    if (method !== 'drift' && f.consolidatableAt !== undefined) verdict.at = iso(f.consolidatableAt);
    return verdict;
  });
}

// nodeclaim/expiration/controller.go:58-107: forceful, ignores budgets and do-not-disrupt; the drain still waits on pods
function expirationVerdict(
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

/** Every Karpenter node (label karpenter.sh/nodepool or a NodeClaim) and every NodeClaim without a Node, by name. */
export function karpenterDisruptionReport(ctx: KarpenterDisruptionContext): KarpenterNodeDisruption[] {
  const idx = buildIndex(ctx);
  const out: KarpenterNodeDisruption[] = [];
  for (const n of ctx.nodes) {
    const managed = claimFor(n, idx.claimByProviderId, idx.claimByNodeName) !== undefined;
    if (managed || n.metadata.labels?.[NODEPOOL_LABEL] !== undefined) out.push(karpenterDisruptionBlockers(n, ctx));
  }
  for (const c of ctx.nodeClaims) if (!idx.nodeForClaim.has(c)) out.push(karpenterDisruptionBlockers(c, ctx));
  const k = (r: KarpenterNodeDisruption) => r.node ?? r.nodeClaim ?? '';
  return out.sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
}
