/** The per-pod result of `why-pending`: the JSON contract's `pods[]` entries (extra fields only ever added). */

/** `not-evaluated`: no node group could be read (forbidden, not in the dump), so whether CA scales up is unknown. */
export type PodVerdict = 'not-pending' | 'fits-existing-node' | 'scale-up' | 'no-scale-up' | 'ignored-by-ca' | 'not-evaluated';

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
  template: { source: 'node' | 'asg' | 'none'; instanceType?: string; fromNode?: string; reason?: string };
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
  /** What CA's own log last said of this pod (or a sibling of its controller) on this group, when a log was read. */
  caLogged?: { text: string; at?: string; pod?: string };
}

export interface PodReport {
  namespace: string;
  name: string;
  verdict: PodVerdict;
  /** One line that explains the verdict. */
  summary: string;
  /** Why CA ignores the pod, when verdict is ignored-by-ca. */
  ignoredReason?: string;
  requests: Record<string, string>;
  scheduler: { message: string; nodes: PodNodeResult[] };
  nodeGroups: PodGroupResult[];
  /**
   * CA's newest event on the pod. `reason` is "" for the event CA records when the pod consumes a ProvisioningRequest
   * (CA skips it in normal scale-up); `provisioningRequest` then names it ("ns/name").
   */
  caEvent?: { reason: string; message: string; time?: string; ageSeconds?: number; provisioningRequest?: string };
  expander?: { name: string; choice?: string; candidates: string[]; note?: string };
}
