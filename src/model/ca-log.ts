// What casdoctor reads from Cluster Autoscaler's own log: a bounded summary, built line by line by
// src/simulate/ca-log (pure) and fed by src/gather/ca-log-file.ts (files, pod-log strings).
// Every map keeps only the LATEST record per key plus counts, and every list is capped, so a summary's size depends on
// the limits below, never on the log's size. Times are ISO-8601 strings (UTC).
import type { BlockingPodReason, UnremovableReason } from './scale-down.js';

/**
 * How a line was wrapped. 'klog' = `I1121 10:00:00.123456       1 file.go:123] msg`; 'json' = `--logging-format=json`
 * (`{"ts":…,"caller":…,"msg":…,"v":…}`, CA ≥ 1.29); 'prefixed-*' = either behind a timestamp prefix (`kubectl logs
 * --timestamps`, a CRI log file, a CloudWatch export) or inside a docker/fluent-bit `{"log":…}` wrapper.
 */
export type CaLogFormat = 'klog' | 'json' | 'prefixed-klog' | 'prefixed-json' | 'unknown';

export type CaLogLevel = 'I' | 'W' | 'E' | 'F';

/** Where the log came from. */
export type CaLogSource =
  | { kind: 'file'; path: string; /** Several files of one CA merged by time (rotated logs), oldest first. */ paths?: string[] }
  | { kind: 'pod'; namespace: string; pod: string; container?: string; previous?: boolean }
  | { kind: 'text'; name?: string };

/** Caps on what a summary keeps. Beyond a cap the least recently seen key is dropped and counted in `dropped`. */
export interface CaLogLimits {
  /** pod × node group predicate failures */
  predicateFailures: number;
  /** per-pod "can be moved to" records */
  podMoves: number;
  /** per-pod "Pod ns/name is unschedulable" records (the pods CA tried to scale up for) */
  unschedulablePods: number;
  /** per-node scale-down records */
  nodes: number;
  /** per-node-group records (expansion options, sizes, backoffs) */
  groups: number;
  /** distinct normalized error messages */
  errors: number;
  /** distinct AWS error keys */
  awsErrors: number;
  /** distinct unknown-line shapes kept as samples */
  unknownSamples: number;
  /** final scale-up plans kept (latest) */
  plans: number;
  /** fatal lines kept (latest) */
  fatals: number;
  /** characters kept of any one message */
  messageChars: number;
}

export const DEFAULT_CA_LOG_LIMITS: Readonly<CaLogLimits> = {
  predicateFailures: 20_000,
  podMoves: 10_000,
  unschedulablePods: 10_000,
  nodes: 10_000,
  groups: 2_000,
  errors: 500,
  awsErrors: 500,
  unknownSamples: 50,
  plans: 50,
  fatals: 20,
  messageChars: 2_000,
};

/** First/last sighting and how often: the common tail of every record. */
export interface CaLogSeen {
  firstSeen?: string;
  lastSeen?: string;
  count: number;
}

/** CA's main-loop cadence ("Starting main loop", V4). Without --v=4 the count stays 0 and `signal` is undefined. */
export interface CaLogMainLoop {
  signal?: 'starting-main-loop';
  count: number;
  first?: string;
  last?: string;
  /** Longest gap between two consecutive loops, and when the gap ended. */
  maxGapMs?: number;
  maxGapEndedAt?: string;
  /** Gap from the last loop to the last line of the log (a loop that stopped shows here). */
  sinceLastLoopMs?: number;
}

/**
 * "Pod <pod> can't be scheduled on <group>, predicate checking error: …" (V2), the latest per pod × node group.
 * `pod` is "namespace/name" from CA 1.28 on; before that CA logged the name only (`namespace` undefined).
 */
export interface CaLogPredicateFailure extends CaLogSeen {
  pod: string;
  namespace?: string;
  name: string;
  group: string;
  /** Scheduler plugin ("NodeAffinity", "TaintToleration", …) or the pre-1.20 predicate ("GeneralPredicates"). */
  plugin?: string;
  /** The plugin's reason strings, e.g. ["node(s) didn't match Pod's node affinity/selector"]. */
  reasons: string[];
  debugInfo?: string;
  /** The template node CA simulated on, when the line names it ("template-node-for-<group>-<n>"). */
  templateNode?: string;
  /** The error text after "predicate checking error: " / "predicate failed: ", truncated. */
  error: string;
  /** Which template parsed the line (see CA_LOG_TEMPLATES). */
  template: string;
  /** "N other pods similar to <pod> can't be scheduled on <group>": the latest N. */
  similarPods?: number;
}

/** "Pod ns/name can be moved to <node>" (V4, hinting simulator: pod-list filtering and scale-down simulation alike). */
export interface CaLogPodMove extends CaLogSeen {
  pod: string;
  node: string;
}

/** Per node group: what the scale-up side said about it. */
export interface CaLogGroupRecord {
  group: string;
  /** "Expanding Node Group <g> would waste x% CPU, y% Memory, z% Blended" (least-waste expander), latest. */
  waste?: CaLogSeen & { cpuPct: number; memoryPct: number; blendedPct: number };
  /** "Best option to resize: <g>" */
  bestOption?: CaLogSeen;
  /** "priority expander: <g> chosen as the highest available" (--expander=priority) */
  priorityPick?: CaLogSeen;
  /** "Estimated <n> nodes needed in <g>", latest n. */
  estimate?: CaLogSeen & { nodes: number };
  /** "No pod can fit to <g>" */
  noPodFits?: CaLogSeen;
  /** "Skipping node group <g> - max size reached" and friends; latest reason. */
  skipped?: CaLogSeen & { reason: string };
  /** "Node group <g> is not ready for scaleup - unhealthy | backoff [with status: …]" */
  notReady?: CaLogSeen & { reason: 'unhealthy' | 'backoff'; status?: string };
  /** "Scale-up: setting group <g> size to <n>" (core) */
  scaleUp?: CaLogSeen & { size: number };
  /** "Setting asg <g> size to <n>" (AWS provider) */
  setAsgSize?: CaLogSeen & { size: number };
  /** "Scale-up timed out for node group <g> after <d>" */
  timeout?: CaLogSeen & { after: string };
  /** "Disabling scale-up for node group <g> until <t>; errorClass=<c>; errorCode=<code>" */
  backoff?: CaLogSeen & { until: string; errorClass?: string; errorCode?: string };
  /** "Unable to build proper template node for <g>: <err>" */
  templateError?: CaLogSeen & { error: string };
  /** "ASG <g> scaling failed with [description: ]<text>" (AWS scaling activity) */
  scalingFailed?: CaLogSeen & { description: string };
}

/** One group of a "Final scale-up plan: [{g 3->4 (max: 10)} …]". */
export interface CaLogPlanEntry {
  group: string;
  from: number;
  to: number;
  max: number;
}

export interface CaLogPlan {
  time?: string;
  groups: CaLogPlanEntry[];
}

/** What CA last said about a node in scale-down. */
export type CaLogNodeStatus = 'unremovable' | 'removable' | 'unneeded' | 'removing';

export interface CaLogNodeRecord extends CaLogSeen {
  node: string;
  status: CaLogNodeStatus;
  /** CA's reason name where the line implies one (unremovable only). */
  reason?: UnremovableReason;
  /** BlockedByPod: the pod CA named and the reason its error text maps to. */
  blockingPod?: { namespace?: string; name: string; reason: BlockingPodReason };
  /** CA's own text after the node name, truncated. */
  message: string;
  template: string;
  /** "utilization too big (0.808290)" / "cpu requested (75.6% of allocatable)": resource and fraction 0..1. */
  utilization?: { resource: string; value: number };
  /** "<node> was unneeded for <d>" */
  unneededFor?: string;
}

export type CaLogAwsErrorKind =
  | 'access-denied'
  | 'throttling'
  | 'unknown-instance-type'
  | 'template-node'
  | 'no-availability-zone'
  | 'web-identity'
  | 'other';

/** An AWS-side failure CA logged, keyed by kind + action + resource (or group). */
export interface CaLogAwsError extends CaLogSeen {
  kind: CaLogAwsErrorKind;
  /** IAM action, e.g. "autoscaling:SetDesiredCapacity" or "sts:AssumeRoleWithWebIdentity". */
  action?: string;
  resource?: string;
  principal?: string;
  /** ASG named by the line, when one is. */
  group?: string;
  instanceType?: string;
  message: string;
}

/** Loop-level health signals; each is a count with its latest message. */
export type CaLogHealthKind =
  | 'failed-to-fix-node-group-sizes'
  | 'failed-to-get-node-infos'
  | 'cluster-not-ready'
  | 'failed-to-regenerate-asg-cache'
  | 'failed-to-scale-up'
  | 'failed-to-scale-down'
  | 'failed-to-create-aws-manager'
  | 'no-expansion-options'
  | 'no-unschedulable-pods'
  /** "Wrong configmap|configuration for priority expander …" (the PriorityConfigMapInvalid event's text) */
  | 'priority-expander-config-invalid'
  /** client-go's reflector cannot list a kind CA watches (typically RBAC: "… is forbidden: User … cannot list resource …"). */
  | 'kube-api-list-failed';

export interface CaLogHealthRecord extends CaLogSeen {
  kind: CaLogHealthKind;
  lastMessage: string;
  /** kube-api-list-failed: the kind ("*v1.VolumeAttachment"), and when forbidden the resource, API group and user. */
  listKind?: string;
  forbidden?: { resource: string; group: string; user: string };
}

/** The same E/W message (numbers and ids normalized) seen again and again. */
export interface CaLogRepeatedError extends CaLogSeen {
  level: CaLogLevel;
  normalized: string;
  /** The latest raw message, truncated. */
  sample: string;
  /** In how many distinct main loops it appeared (0 when the log has no loop lines). */
  loops: number;
}

export interface CaLogFatal {
  time?: string;
  file?: string;
  message: string;
}

export interface CaLogUnknownSample {
  /** 'unparsed' = no klog/json envelope; 'unmatched' = an envelope but no template knows the message. */
  kind: 'unparsed' | 'unmatched';
  /** The first line of this shape, truncated. */
  example: string;
  count: number;
}

export interface CaLogLineCounts {
  total: number;
  blank: number;
  /** Envelope parsed and a template recognised the message. */
  recognised: number;
  /** Envelope parsed, message unknown to every template (most V4 chatter). */
  unmatched: number;
  /** No envelope at all. */
  unparsed: number;
  /** Header-less lines after a parsed line (multi-line AWS errors, goroutine dumps), folded into that line. */
  continuation: number;
}

export interface CaLogSummary {
  source: CaLogSource;
  /** The envelope most lines used. */
  format: CaLogFormat;
  formats: Partial<Record<CaLogFormat, number>>;
  firstTime?: string;
  lastTime?: string;
  /** Where klog's missing year came from. */
  yearFrom?: 'prefix' | 'now';
  lines: CaLogLineCounts;
  levels: Record<CaLogLevel, number>;
  /** "Cluster Autoscaler <ver>" (V1, at start-up), latest. */
  version?: { version: string; time?: string };
  /** Minor-version range the matched templates' wording implies (e.g. lowercase "node … cannot be removed" ≤ 1.32). */
  wording?: { minMinor: number; maxMinor?: number; consistent: boolean };
  mainLoop: CaLogMainLoop;
  predicateFailures: CaLogPredicateFailure[];
  podMoves: CaLogPodMove[];
  /** "Pod ns/name is unschedulable" (V1, klogx-capped per loop): the pods CA considered for scale-up, latest sighting each. */
  unschedulablePods: Array<CaLogSeen & { pod: string }>;
  /** "N pods marked as unschedulable can be scheduled." — latest N. */
  schedulableFiltered?: CaLogSeen & { pods: number };
  groups: CaLogGroupRecord[];
  /** "Regenerating instance to ASG map for ASG names|tags: …" (V4): the latest lists; "[]" means discovery matched nothing. */
  asgRefresh?: CaLogSeen & { names?: string; tags?: string; nextRefresh?: string };
  /**
   * Scale-down's 5-minute recheck gate: "Scale-down calculation: ignoring N nodes unremovable in the last 5m0s" and
   * "N nodes found to be unremovable in simulation, will re-check them at T" (latest of each). A node's logged reason is
   * then up to --unremovable-node-recheck-timeout old.
   */
  scaleDownRecheck?: CaLogSeen & { ignoredNodes?: number; unremovableNodes?: number; recheckAt?: string };
  plans: CaLogPlan[];
  nodes: CaLogNodeRecord[];
  awsErrors: CaLogAwsError[];
  health: CaLogHealthRecord[];
  fatals: CaLogFatal[];
  repeatedErrors: CaLogRepeatedError[];
  unknownSamples: CaLogUnknownSample[];
  /** Lines whose shape was not sampled because the sample was full. */
  unknownNotSampled: number;
  /** Keys dropped from a capped map (least recently seen first), per map. */
  dropped: Partial<Record<'predicateFailures' | 'podMoves' | 'unschedulablePods' | 'nodes' | 'groups' | 'errors' | 'awsErrors', number>>;
  /** Template id -> lines it matched. */
  templateHits: Record<string, number>;
  limits: CaLogLimits;
}
