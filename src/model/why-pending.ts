/** The per-pod result of `why-pending`: the JSON contract's `pods[]` entries (extra fields only ever added). */

/**
 * One vocabulary for both autoscalers (JSON v3). The analysis gives CA's own verdict in it; why-pending reports the
 * verdict of the autoscaler(s) that serve the pod (`route`). `ignored`: every autoscaler that could act ignores the pod
 * (CA's pod filter, Karpenter's IsProvisionable or `karpenter.sh/nodepool DoesNotExist`). `not-evaluated`: what decides
 * could not be read (no node group in the dump, a template that cannot be built), so the answer is unknown.
 */
export type PodVerdict =
  | 'not-pending'
  | 'fits-existing-node'
  | 'scale-up'
  | 'no-scale-up'
  | 'ignored'
  | 'not-evaluated'
  /** CA cannot run its loop (src/simulate/ca-running.ts): nothing is scaled up or down, whatever CA would do. */
  | 'ca-not-running';

/**
 * Who adds a node for a pod that waits for one: Cluster Autoscaler alone, Karpenter alone, both (either may provision,
 * whichever acts first), neither, or not known (what decides could not be evaluated).
 */
export type PodRoute = 'ca' | 'karpenter' | 'both' | 'neither' | 'unknown';

/** An autoscaler casdoctor reproduces. */
export type AutoscalerKey = 'ca' | 'karpenter';

/** One autoscaler's own verdict on a pod, in the shared vocabulary. */
export interface AutoscalerVerdict {
  verdict: PodVerdict;
  summary: string;
}

export interface PodNodeResult {
  name: string;
  fits: boolean;
  /** The scheduler's reason strings for this node (empty when it fits). */
  reasons: string[];
  /** Plugins casdoctor could not evaluate on this node (never counted as a pass). */
  notEvaluated?: string[];
}

export interface PodGroupResult {
  name: string;
  /** CA would scale this group up for the pod: discovered, not skipped, and the template passes every predicate. */
  fits: boolean;
  /** The reasons CA would give for this group: its skip reason, else the first failing plugin's reasons. */
  reasons: string[];
  template: { source: 'node' | 'asg' | 'provider' | 'none'; instanceType?: string; fromNode?: string; reason?: string };
  discovered: boolean;
  minSize: number;
  maxSize: number;
  targetSize: number;
  /** CA's skip reason for the group (before predicates run), e.g. "max node group size reached". */
  skipReason?: string;
  /** Whether the template passes the scheduler predicates, regardless of CA's skip reasons. */
  predicatesPass: boolean;
  /** kube-scheduler plugin that failed first, e.g. "TaintToleration". */
  failedPlugin?: string;
  /** The first failing reason's values, short enough for a table cell ("cpu 8 > 3715m free"). */
  values?: string;
  /** Concrete values behind the reasons. */
  details: string[];
  /** Plugins that could not be evaluated on the template. */
  notEvaluated?: string[];
  /** The expander's likely choice among the fitting groups. */
  expanderChoice?: boolean;
  /** Other obstacles after CA decides to scale the group (e.g. the ASG's Launch process is suspended). */
  blockers?: string[];
  /**
   * Set when the real CA may decide either way for this group: it copies any Ready node of the group as its template,
   * the group's nodes differ (zone, instance type, taints, allocatable), and the pod fits some of them but not others.
   * Says which nodes and why; `fits` above follows the node casdoctor took (the first good node in snapshot order).
   */
  caMayDecideEither?: string;
  /**
   * The counterfactual: the stage of CA's group filter that removed this group although the pod would otherwise fit
   * its template ("max-size", "backoff", "unhealthy", "no-template", "resource-limit", "max-nodes-total"), and the
   * smallest change that flips it ("raise the max size of G from 10 to 11").
   */
  counterfactual?: { stage: string; change: string };
  /** What CA's own log last said of this pod (or a sibling of its controller) on this group, when a log was read. */
  caLogged?: { text: string; at?: string; pod?: string };
}

/**
 * The per-node results in compact form, as computePod keeps them: node i's result is `table[codes[i]]`, its name
 * `names[i]`. Equal pods' results build equal tables and codes (codes in order of first occurrence). A symbol key: not
 * part of the JSON contract.
 */
export const SCHEDULER_CODES: unique symbol = Symbol('scheduler codes');
export interface SchedulerCodes {
  table: ReadonlyArray<Omit<PodNodeResult, 'name'>>;
  codes: Uint32Array;
  names: readonly string[];
}

export interface PodReport {
  namespace: string;
  name: string;
  verdict: PodVerdict;
  /** One line that explains the verdict. */
  summary: string;
  /** Why CA ignores the pod, when CA's verdict is ignored. */
  ignoredReason?: string;
  /**
   * Who serves the pod (set by why-pending for a pod that waits for a node); `verdict` and `summary` are then that
   * route's. Absent: the analysis' own (CA's) verdict.
   */
  route?: PodRoute;
  /** Each autoscaler in the input with its own verdict on the pod (set with `route`). */
  autoscalers?: Partial<Record<AutoscalerKey, AutoscalerVerdict>>;
  requests: Record<string, string>;
  scheduler: { message: string; nodes: PodNodeResult[]; [SCHEDULER_CODES]?: SchedulerCodes };
  nodeGroups: PodGroupResult[];
  /**
   * CA's newest event on the pod. `reason` is "" for the event CA records when the pod consumes a ProvisioningRequest
   * (CA skips it in normal scale-up); `provisioningRequest` then names it ("ns/name").
   */
  caEvent?: { reason: string; message: string; time?: string; ageSeconds?: number; provisioningRequest?: string };
  expander?: { name: string; choice?: string; candidates: string[]; note?: string };
}

/** JSON contract v2 (docs/json.md): the scheduler's view of a pod as kube-scheduler aggregates it. */
export interface SchedulerSummary {
  nodesTotal: number;
  /** How many nodes the pod fits on now. */
  fits: number;
  /** The first of them, in snapshot order (at most FIT_NODES_SAMPLE). */
  fitNodes: string[];
  /** One entry per scheduler reason: how many nodes gave it and the first few of them (a node may give several). */
  reasons: Array<{ reason: string; count: number; sampleNodes: string[] }>;
  /** kube-scheduler's FitError text, "0/N nodes are available: ..."; "" when some node fits. */
  message: string;
  /** Every node's result (v1's scheduler.nodes): only with --show-nodes or for a single named pod. */
  nodes?: PodNodeResult[];
}

/** CA's scale-up size for the pods of one equivalence group on a group they fit (CA: estimator/binpacking_estimator.go). */
export interface ScaleUpSize {
  /** The Pending pods this estimate is for: the pod and its equivalent replicas. */
  pods: number;
  /** How many of them one new node of the group holds (its allocatable less DaemonSet and mirror pods). */
  podsPerNode: number;
  nodesNeeded: number;
  /** max size − target size (target counts registered and upcoming nodes), capped by --max-nodes-total and --max-nodes-per-scaleup. */
  nodesAllowed: number;
  /** What bounds nodesAllowed. */
  limitedBy: 'max-size' | 'max-nodes-total' | 'max-nodes-per-scaleup';
  podsPlaced: number;
  /** Pods this scale-up cannot place: they stay Pending until the limit moves or another group takes them. */
  podsLeftPending: number;
}

/** A node group's row in JSON v2: v1's PodGroupResult, with CA's scale-up size when the pod fits the group. */
export interface PodGroupResultV2 extends PodGroupResult {
  scaleUp?: ScaleUpSize;
}

/** JSON v2: every node group, counted by reason (the groups not listed in full are in here too). */
export interface NodeGroupSummary {
  total: number;
  fits: number;
  /** How many groups `nodeGroups` lists in full (every group with --show-nodes or for a single named pod). */
  listed: number;
  reasons: Array<{ reason: string; count: number; sampleGroups: string[] }>;
}

/** JSON v2 `pods[]` entry carrying an evaluation. */
export interface PodEntryV2 extends Omit<PodReport, 'scheduler' | 'nodeGroups'> {
  /** Set when the entry stands for several equivalent Pending pods (the others say `sameAs`). */
  equivalentPods?: { count: number; controller: string };
  scheduler: SchedulerSummary;
  nodeGroups: PodGroupResultV2[];
  nodeGroupSummary: NodeGroupSummary;
}

/** JSON v2 `pods[]` entry of a pod equivalent to an earlier one: its identity, its verdict and its own CA event. */
export interface PodSameAsEntryV2 {
  namespace: string;
  name: string;
  /** "namespace/name" of the entry that carries the evaluation. */
  sameAs: string;
  verdict: PodVerdict;
  route?: PodRoute;
  caEvent?: PodReport['caEvent'];
}
