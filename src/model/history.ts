// `casdoctor history`: what the autoscalers (and everyone else) did to nodes, pods and groups over a window, and why.
// Every source becomes HistoryStep records on one time axis (src/simulate/history), from which a node's life, a pod's
// wait and a group's window are told. Texts are foreign: one line, bounded here, sanitized again when rendered.

/** Where a step was read. */
export type HistorySourceKind = 'event' | 'object' | 'ca-log' | 'karpenter-log' | 'asg-activity' | 'cloudtrail';

/** Who acted. 'person' only from an IAM principal CloudTrail names (a user, an SSO session, the console). */
export type HistoryActor =
  | 'cluster-autoscaler'
  | 'karpenter'
  | 'asg'
  | 'ec2'
  | 'eks'
  | 'scheduler'
  | 'kubelet'
  | 'node-controller'
  | 'person'
  | 'other-principal'
  | 'unknown';

export type HistoryStepKind =
  // a node's life
  | 'instance-launch-requested'
  | 'instance-launched'
  | 'launch-failed'
  | 'nodeclaim-created'
  | 'node-registered'
  | 'node-ready'
  | 'node-initialized'
  | 'node-not-ready'
  | 'unneeded'
  | 'disruption-candidate'
  | 'disrupting'
  | 'tainted'
  | 'evicted'
  | 'node-deleted'
  | 'nodeclaim-deleted'
  | 'instance-terminate-requested'
  | 'instance-terminated'
  | 'interruption'
  | 'rebalance-recommendation'
  | 'unhealthy'
  | 'timeout'
  // a group's scaling
  | 'scale-up'
  | 'scale-up-failed'
  | 'scale-up-timeout'
  | 'backoff'
  | 'scale-down'
  | 'desired-capacity'
  | 'offering-unavailable'
  // a pod's wait
  | 'pod-created'
  | 'pod-unschedulable'
  | 'pod-triggered-scale-up'
  | 'pod-not-triggered'
  | 'pod-nominated'
  | 'pod-scheduled'
  | 'pod-pulling'
  | 'pod-started'
  | 'error';

export interface HistorySource {
  kind: HistorySourceKind;
  /** The file, pod or API it came from ("events", "ca.log:1204", "CloudTrail 1f2e…"). */
  where: string;
}

export interface HistoryStep {
  /** Epoch ms. */
  t: number;
  kind: HistoryStepKind;
  actor: HistoryActor;
  /** The IAM principal (CloudTrail) or component that wrote it, as the source names it. */
  by?: string;
  node?: string;
  instanceId?: string;
  nodeClaim?: string;
  /** ASG or NodePool. */
  group?: string;
  /** ns/name */
  pod?: string;
  pods?: string[];
  /** The parsed reason word (underutilized, empty, spot_interrupted, ec2-health-check, InsufficientInstanceCapacity …). */
  reason?: string;
  /** What casdoctor says the step means, one line. */
  summary: string;
  /** The source's own text, one line, bounded (an ASG activity's Cause, an event's message, a log line's message). */
  raw?: string;
  source: HistorySource;
}

/** A source that was or was not read, and what would supply it. */
export interface HistorySourceStatus {
  kind: HistorySourceKind;
  name: string;
  state: 'read' | 'not-provided' | 'not-evaluated';
  /** Steps it gave within the window. */
  steps: number;
  /** The time range its records cover (ms), when known. */
  from?: number;
  to?: number;
  /** Why it was not read, and how to supply it. */
  detail?: string;
}

/** A phase of a pod's wait, with its length. */
export interface PodWaitPhase {
  name: string;
  from: number;
  to: number;
  ms: number;
  /** What this phase is made of (scan interval, the cloud's launch, the kubelet's bootstrap …). */
  what: string;
}

export interface HistoryFindingDraft {
  id: 'history-flapping' | 'history-scale-up-loop' | 'history-repeated-failures' | 'history-removed-by-other';
  severity: 'warning' | 'info';
  subject: string;
  group?: string;
  message: string;
  evidence: string[];
}
