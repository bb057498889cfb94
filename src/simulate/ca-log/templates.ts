// CA's log messages as a table: one entry per message template and wording, with the CA versions that print it and
// the upstream file. Adding a CA version means adding rows. Formats were read from kubernetes/autoscaler tags
// cluster-autoscaler-1.17.0 … 1.36.1 and branch cluster-autoscaler-release-1.37 (paths under cluster-autoscaler/).
import type {
  CaLogAwsErrorKind,
  CaLogGroupRecord,
  CaLogHealthKind,
  CaLogHealthRecord,
  CaLogNodeStatus,
  CaLogPlanEntry,
} from '../../model/ca-log.js';
import type { BlockingPodReason, UnremovableReason } from '../../model/scale-down.js';

export type CaLogTemplateKind =
  | 'main-loop'
  | 'version'
  | 'predicate-failure'
  | 'similar-pods'
  | 'pod-move'
  | 'unschedulable-pod'
  | 'schedulable-filtered'
  | 'expansion'
  | 'expander-pick'
  | 'scale-up-plan'
  | 'set-size'
  | 'scale-up-timeout'
  | 'backoff'
  | 'scale-down'
  | 'aws'
  | 'health'
  | 'fatal';

/** What a template reports; the parser implements it and keeps the bounded state. */
export interface CaLogSink {
  mainLoop(): void;
  version(version: string): void;
  /** `details` is called only when the error text differs from the record's last one (CA repeats it every loop). */
  predicateFailure(
    pod: { namespace?: string; name: string; group: string; error: string },
    details: () => { plugin?: string; reasons: string[]; debugInfo?: string },
  ): void;
  similarPods(name: string, group: string, others: number): void;
  podMove(pod: string, node: string): void;
  unschedulablePod(pod: string): void;
  schedulableFiltered(pods: number): void;
  group<K extends Exclude<keyof CaLogGroupRecord, 'group'>>(group: string, field: K, value: Omit<NonNullable<CaLogGroupRecord[K]>, 'count' | 'firstSeen' | 'lastSeen'>): void;
  plan(entries: CaLogPlanEntry[]): void;
  node(n: {
    node: string;
    status: CaLogNodeStatus;
    reason?: UnremovableReason;
    blockingPod?: { namespace?: string; name: string; reason: BlockingPodReason };
    message: string;
    utilization?: { resource: string; value: number };
    unneededFor?: string;
  }): void;
  health(kind: CaLogHealthKind, message: string, extra?: Pick<CaLogHealthRecord, 'listKind' | 'forbidden'>): void;
  fatal(message: string): void;
  asgRefresh(field: 'names' | 'tags' | 'nextRefresh', value: string): void;
  scaleDownRecheck(field: 'ignoredNodes' | 'unremovableNodes', value: number, recheckAt?: string): void;
  /** Ask the AWS-error detector to look at this text even if the line is not an error. */
  aws(text: string, group?: string, kindIfNothingElse?: CaLogAwsErrorKind): void;
}

export interface CaLogTemplate {
  /** Stable id: what the message says, plus the wording's first version when wordings differ. */
  id: string;
  kind: CaLogTemplateKind;
  /** CA versions printing this wording, for humans. */
  versions: string;
  /** Minor-version bounds of this wording, where it dates the CA binary. */
  minMinor?: number;
  maxMinor?: number;
  /** Upstream file (cluster-autoscaler/…) at the newest version printing it. */
  source: string;
  /** The message starts with this literal: a cheap test before the regex. */
  start: string;
  re: RegExp;
  apply(m: RegExpExecArray, sink: CaLogSink): void;
}

// ----------------------------------------------------------------------------------------------------------------
// sub-parsers

/** Splits a ", "-joined reason list, but not inside {…}, […] or (…) (taint reasons hold "{k: v}"). */
export function splitReasons(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '{' || c === '[' || c === '(') depth++;
    else if ((c === '}' || c === ']' || c === ')') && depth > 0) depth--;
    else if (c === ',' && depth === 0 && s[i + 1] === ' ') {
      out.push(s.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  const last = s.slice(start);
  if (last !== '' || out.length) out.push(last);
  return out.filter((r) => r !== '');
}

// CA ≥ 1.32: simulator/clustersnapshot/scheduling_error.go schedulingError.Error()
const PREDICATE_132 = /^predicate "([^"]*)" didn't pass \(predicateReasons=\[(.*?)\](?:; debugInfo=(.*?))?(?:; unexpectedError=(.*))?\)$/;

function parseError132(err: string): { plugin?: string; reasons: string[]; debugInfo?: string } {
  // "can't schedule pod ns/name: <msg>"
  const colon = err.startsWith("can't schedule pod ") ? err.indexOf(': ', "can't schedule pod ".length) : -1;
  const detail = colon >= 0 ? err.slice(colon + 2) : err;
  const m = PREDICATE_132.exec(detail);
  if (!m) return { reasons: [detail] };
  return { plugin: m[1], reasons: splitReasons(m[2]), debugInfo: m[3] };
}

// CA ≤ 1.17: simulator/predicates.go PredicateError.VerboseError(): "<P> predicate mismatch, cannot put ns/pod on node, reason: r1, r2"
const LEGACY_PREDICATE = /^(\S+) predicate mismatch, (?:cannot put \S+ on (\S+), )?reason: (.*)$/;

/** CA's drainability error texts -> BlockingPodReason (simulator/drainability/rules/*, utils/drain/drain.go before 1.29). */
const BLOCKING: Array<{ re: RegExp; reason: BlockingPodReason; kubeSystem?: boolean }> = [
  { re: /^non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: (\S+)/, reason: 'UnmovableKubeSystemPod', kubeSystem: true },
  { re: /^pod with local storage present: (\S+)/, reason: 'LocalStorageRequested' },
  { re: /^pod annotated as not safe to evict present: (\S+)/, reason: 'NotSafeToEvictAnnotation' },
  { re: /^not enough pod disruption budget to move ([^/\s]+)\/(\S+)/, reason: 'NotEnoughPdb' },
  { re: /^replication controller for ([^/\s]+)\/(\S+) has too few replicas/, reason: 'MinReplicasReached' },
  { re: /^(?:replication controller|daemonset|job|statefulset) for ([^/\s]+)\/(\S+?) is not (?:available|present)/, reason: 'ControllerNotFound' },
  { re: /^([^/\s]+)\/(\S+) is not replicated/, reason: 'NotReplicated' },
  { re: /^error when trying to get daemonset for ([^/\s]+)\/(\S+?) ?,/, reason: 'UnexpectedError' },
];

export function blockingPodOf(text: string): { namespace?: string; name: string; reason: BlockingPodReason } | undefined {
  for (const b of BLOCKING) {
    const m = b.re.exec(text);
    if (!m) continue;
    if (m[2] !== undefined) return { namespace: m[1], name: m[2], reason: b.reason };
    return { namespace: b.kubeSystem ? 'kube-system' : undefined, name: m[1], reason: b.reason };
  }
  return undefined;
}

function cannotBeRemoved(sink: CaLogSink, node: string, message: string): void {
  const pod = blockingPodOf(message);
  sink.node({ node, status: 'unremovable', reason: pod ? 'BlockedByPod' : undefined, blockingPod: pod, message });
}

const PLAN_ENTRY = /\{(\S+) (\d+)->(\d+) \(max: (\d+)\)\}/g;

/** "Disabling … until 2024-03-13 12:54:40.13918732 +0000 UTC m=+2030.419314682": drop Go's monotonic clock reading. */
const stripMonotonic = (s: string) => s.replace(/ m=[+-][\d.]+$/, '');

// ----------------------------------------------------------------------------------------------------------------
// the table (order matters only where two wordings share a start: the more specific first)

export const CA_LOG_TEMPLATES: readonly CaLogTemplate[] = [
  // CA: core/static_autoscaler.go RunOnce
  { id: 'starting-main-loop', kind: 'main-loop', versions: 'all', source: 'core/static_autoscaler.go', start: 'Starting main loop', re: /^Starting main loop$/, apply: (_m, s) => s.mainLoop() },
  // CA: main.go run
  { id: 'version', kind: 'version', versions: 'all', source: 'main.go', start: 'Cluster Autoscaler ', re: /^Cluster Autoscaler (v?\d+\.\d+\.\d+\S*)$/, apply: (m, s) => s.version(m[1].replace(/^v/, '')) },

  // --- scale-up: why a pod does not fit a group ---
  // CA: core/scaleup/orchestrator/orchestrator.go + simulator/clustersnapshot/scheduling_error.go
  {
    id: 'predicate-error-1.32', kind: 'predicate-failure', versions: '≥1.32', minMinor: 32, source: 'core/scaleup/orchestrator/orchestrator.go',
    start: 'Pod ', re: /^Pod ([^/\s]+)\/(\S+) can't be scheduled on (\S+), predicate checking error: (can't schedule pod .*)$/,
    apply: (m, s) => s.predicateFailure({ namespace: m[1], name: m[2], group: m[3], error: m[4] }, () => parseError132(m[4])),
  },
  // CA: core/scaleup/orchestrator/orchestrator.go + simulator/predicatechecker/error.go VerboseMessage
  {
    id: 'predicate-error-1.28', kind: 'predicate-failure', versions: '1.28–1.31', minMinor: 28, maxMinor: 31, source: 'core/scaleup/orchestrator/orchestrator.go',
    start: 'Pod ', re: /^Pod ([^/\s]+)\/(\S+) can't be scheduled on (\S+), predicate checking error: ((.*?); predicateName=(\S*); reasons: (.*?); debugInfo=(.*))$/,
    apply: (m, s) => s.predicateFailure({ namespace: m[1], name: m[2], group: m[3], error: m[4] }, () => ({ plugin: m[6] || undefined, reasons: splitReasons(m[7]), debugInfo: m[8] || undefined })),
  },
  // CA: core/scale_up.go (1.18–1.26), core/scaleup/orchestrator/orchestrator.go (1.27); the pod without its namespace
  {
    id: 'predicate-error-1.18', kind: 'predicate-failure', versions: '1.18–1.27', minMinor: 18, maxMinor: 27, source: 'core/scale_up.go',
    start: 'Pod ', re: /^Pod ([^/\s]+) can't be scheduled on (\S+), predicate checking error: ((.*?); predicateName=(\S*); reasons: (.*?); debugInfo=(.*))$/,
    apply: (m, s) => s.predicateFailure({ name: m[1], group: m[2], error: m[3] }, () => ({ plugin: m[5] || undefined, reasons: splitReasons(m[6]), debugInfo: m[7] || undefined })),
  },
  // CA: core/utils.go, core/utils/pod_schedulable.go (≤1.17): "predicate failed: <P> predicate mismatch, cannot put … on <template>, reason: …"
  {
    id: 'predicate-failed-legacy', kind: 'predicate-failure', versions: '≤1.17', maxMinor: 17, source: 'core/utils/pod_schedulable.go',
    start: 'Pod ', re: /^Pod (\S+) can't be scheduled on (\S+), predicate failed: (.*)$/,
    apply: (m, s) =>
      s.predicateFailure({ name: m[1], group: m[2], error: m[3] }, () => {
        const d = LEGACY_PREDICATE.exec(m[3]);
        return { plugin: d?.[1], reasons: d ? splitReasons(d[3]) : [m[3]], debugInfo: d?.[2] ? `nodeName: "${d[2]}"` : undefined };
      }),
  },
  // CA: core/scaleup/orchestrator/orchestrator.go (the equivalence group's other pods)
  { id: 'similar-pods', kind: 'similar-pods', versions: '≥1.18', source: 'core/scaleup/orchestrator/orchestrator.go', start: '', re: /^(\d+) other pods similar to (\S+) can't be scheduled on (\S+)$/, apply: (m, s) => s.similarPods(m[2], m[3], Number(m[1])) },

  // CA: core/scaleup/orchestrator/orchestrator.go (klogx, so the file logged is klogx.go; scale_up.go before 1.27)
  { id: 'pod-is-unschedulable', kind: 'unschedulable-pod', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go', start: 'Pod ', re: /^Pod (\S+\/\S+) is unschedulable$/, apply: (m, s) => s.unschedulablePod(m[1]) },

  // --- pods CA found schedulable on existing nodes ---
  // CA: simulator/scheduling/hinting_simulator.go
  { id: 'pod-can-be-moved', kind: 'pod-move', versions: 'all', source: 'simulator/scheduling/hinting_simulator.go', start: 'Pod ', re: /^Pod (\S+\/\S+) can be moved to (\S+)$/, apply: (m, s) => s.podMove(m[1], m[2]) },
  // CA: core/podlistprocessor/filter_out_schedulable.go (1.37 appends a skipped-pods note)
  { id: 'pods-can-be-scheduled', kind: 'schedulable-filtered', versions: 'all', source: 'core/podlistprocessor/filter_out_schedulable.go', start: '', re: /^(\d+) pods marked as unschedulable can be scheduled\./, apply: (m, s) => s.schedulableFiltered(Number(m[1])) },

  // --- expansion options and the expander ---
  // CA: core/scaleup/orchestrator/orchestrator.go
  { id: 'no-pod-can-fit', kind: 'expansion', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go', start: 'No pod can fit to ', re: /^No pod can fit to (\S+)$/, apply: (m, s) => s.group(m[1], 'noPodFits', {}) },
  // CA: core/scaleup/orchestrator/orchestrator.go
  { id: 'skip-max-size', kind: 'expansion', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go', start: 'Skipping node group ', re: /^Skipping node group (\S+) - (max size reached|atomic scale-up exceeds cluster node count limit)$/, apply: (m, s) => s.group(m[1], 'skipped', { reason: m[2] }) },
  // CA: core/scaleup/orchestrator/orchestrator.go
  { id: 'skip-resource-limit', kind: 'expansion', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go', start: 'Skipping node group ', re: /^Skipping node group (\S+); (maximal limit exceeded for .*)$/, apply: (m, s) => s.group(m[1], 'skipped', { reason: m[2] }) },
  // CA: core/scaleup/orchestrator/orchestrator.go (1.30 added "with status: …")
  {
    id: 'group-not-ready', kind: 'expansion', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go',
    start: 'Node group ', re: /^Node group (\S+) is not ready for scaleup - (unhealthy|backoff)(?: with status: (.*))?$/,
    apply: (m, s) => s.group(m[1], 'notReady', { reason: m[2] as 'unhealthy' | 'backoff', status: m[3] }),
  },
  // CA: core/scaleup/orchestrator/orchestrator.go
  { id: 'no-expansion-options', kind: 'health', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go', start: 'No expansion options', re: /^No expansion options$/, apply: (m, s) => s.health('no-expansion-options', m[0]) },
  // CA: expander/waste/waste.go (least-waste)
  {
    id: 'waste', kind: 'expansion', versions: 'all', source: 'expander/waste/waste.go',
    start: 'Expanding Node Group ', re: /^Expanding Node Group (\S+) would waste (-?[\d.]+)% CPU, (-?[\d.]+)% Memory, (-?[\d.]+)% Blended$/,
    apply: (m, s) => s.group(m[1], 'waste', { cpuPct: Number(m[2]), memoryPct: Number(m[3]), blendedPct: Number(m[4]) }),
  },
  // CA: core/scaleup/orchestrator/orchestrator.go
  { id: 'best-option', kind: 'expander-pick', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go', start: 'Best option to resize: ', re: /^Best option to resize: (\S+)$/, apply: (m, s) => s.group(m[1], 'bestOption', {}) },
  // CA: expander/priority/priority.go BestOptions
  { id: 'priority-expander-pick', kind: 'expander-pick', versions: 'all', source: 'expander/priority/priority.go', start: 'priority expander: ', re: /^priority expander: (\S+) chosen as the highest available$/, apply: (m, s) => s.group(m[1], 'priorityPick', {}) },
  // CA: expander/priority/priority.go reloadConfigMap (klog.Warning next to the PriorityConfigMapInvalid event)
  { id: 'priority-expander-config-invalid', kind: 'health', versions: 'all', source: 'expander/priority/priority.go', start: 'Wrong ', re: /^Wrong (?:configmap|configuration) for priority expander.*$/, apply: (m, s) => s.health('priority-expander-config-invalid', m[0]) },
  // CA: core/scaleup/orchestrator/orchestrator.go
  { id: 'estimated-nodes', kind: 'expander-pick', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go', start: 'Estimated ', re: /^Estimated (\d+) nodes needed in (\S+)$/, apply: (m, s) => s.group(m[2], 'estimate', { nodes: Number(m[1]) }) },
  // CA: core/scaleup/orchestrator/orchestrator.go; entries are processors/nodegroupset ScaleUpInfo.String()
  {
    id: 'final-scale-up-plan', kind: 'scale-up-plan', versions: 'all', source: 'core/scaleup/orchestrator/orchestrator.go',
    start: 'Final scale-up plan: ', re: /^Final scale-up plan: \[(.*)\]$/,
    apply: (m, s) => s.plan([...m[1].matchAll(PLAN_ENTRY)].map((e) => ({ group: e[1], from: Number(e[2]), to: Number(e[3]), max: Number(e[4]) }))),
  },
  // CA: core/scaleup/orchestrator/executor.go
  { id: 'scale-up-set-size', kind: 'set-size', versions: 'all', source: 'core/scaleup/orchestrator/executor.go', start: 'Scale-up: setting group ', re: /^Scale-up: setting group (\S+) size to (\d+)$/, apply: (m, s) => s.group(m[1], 'scaleUp', { size: Number(m[2]) }) },
  // CA: cloudprovider/aws/auto_scaling_groups.go setAsgSizeNoLock
  { id: 'aws-set-asg-size', kind: 'set-size', versions: 'all', source: 'cloudprovider/aws/auto_scaling_groups.go', start: 'Setting asg ', re: /^Setting asg (\S+) size to (\d+)$/, apply: (m, s) => s.group(m[1], 'setAsgSize', { size: Number(m[2]) }) },
  // CA: clusterstate/clusterstate.go updateScaleRequests
  { id: 'scale-up-timed-out', kind: 'scale-up-timeout', versions: 'all', source: 'clusterstate/clusterstate.go', start: 'Scale-up timed out for node group ', re: /^Scale-up timed out for node group (\S+) after (\S+)$/, apply: (m, s) => s.group(m[1], 'timeout', { after: m[2] }) },
  // CA: clusterstate/clusterstate.go backoffNodeGroup
  {
    id: 'disabling-scale-up', kind: 'backoff', versions: 'all', source: 'clusterstate/clusterstate.go',
    start: 'Disabling scale-up for node group ', re: /^Disabling scale-up for node group (\S+) until (.+?); errorClass=(\S*); errorCode=(\S*)$/,
    apply: (m, s) => s.group(m[1], 'backoff', { until: stripMonotonic(m[2]), errorClass: m[3] || undefined, errorCode: m[4] || undefined }),
  },

  // --- scale-down: per node ---
  // CA: core/scaledown/eligibility/eligibility.go
  {
    id: 'unremovable-utilization-1.29', kind: 'scale-down', versions: '≥1.29', minMinor: 29, source: 'core/scaledown/eligibility/eligibility.go',
    start: 'Node ', re: /^Node (\S+) unremovable: (\S+) requested \(([\d.e+-]+)% of allocatable\) is above the scale-down utilization threshold$/,
    apply: (m, s) => s.node({ node: m[1], status: 'unremovable', reason: 'NotUnderutilized', message: m[0].slice(m[1].length + 6), utilization: { resource: m[2], value: Number(m[3]) / 100 } }),
  },
  // CA: core/scaledown/eligibility/eligibility.go (1.25–1.28), core/scale_down.go (earlier)
  {
    id: 'not-suitable-utilization-legacy', kind: 'scale-down', versions: '≤1.28', maxMinor: 28, source: 'core/scaledown/eligibility/eligibility.go',
    start: 'Node ', re: /^Node (\S+) is not suitable for removal - (\S+) utilization too big \(([\d.e+-]+)\)$/,
    apply: (m, s) => s.node({ node: m[1], status: 'unremovable', reason: 'NotUnderutilized', message: m[0].slice(m[1].length + 6), utilization: { resource: m[2], value: Number(m[3]) } }),
  },
  // CA: simulator/cluster.go SimulateNodeRemoval
  { id: 'cannot-be-removed-1.33', kind: 'scale-down', versions: '≥1.33', minMinor: 33, source: 'simulator/cluster.go', start: 'Node ', re: /^Node (\S+) cannot be removed: (.*)$/, apply: (m, s) => cannotBeRemoved(s, m[1], m[2]) },
  // CA: simulator/cluster.go SimulateNodeRemoval (lower-case "node")
  { id: 'cannot-be-removed-1.24', kind: 'scale-down', versions: '1.24–1.32', minMinor: 24, maxMinor: 32, source: 'simulator/cluster.go', start: 'node ', re: /^node (\S+) cannot be removed: (.*)$/, apply: (m, s) => cannotBeRemoved(s, m[1], m[2]) },
  // CA: simulator/cluster.go FindNodesToRemove ("Fast evaluation: " / "Detailed evaluation: ")
  { id: 'cannot-be-removed-evaluation', kind: 'scale-down', versions: '≤1.23', maxMinor: 23, source: 'simulator/cluster.go', start: '', re: /^(?:Fast|Detailed) evaluation: node (\S+) cannot be removed: (.*)$/, apply: (m, s) => cannotBeRemoved(s, m[1], m[2]) },
  // CA: simulator/cluster.go SimulateNodeRemoval (findPlaceFor failed)
  { id: 'not-suitable-1.33', kind: 'scale-down', versions: '≥1.33', minMinor: 33, source: 'simulator/cluster.go', start: 'Node ', re: /^Node (\S+) is not suitable for removal: (.*)$/, apply: (m, s) => s.node({ node: m[1], status: 'unremovable', reason: 'NoPlaceToMovePods', message: m[2] }) },
  // CA: simulator/cluster.go SimulateNodeRemoval (lower-case "node")
  { id: 'not-suitable-1.24', kind: 'scale-down', versions: '1.24–1.32', minMinor: 24, maxMinor: 32, source: 'simulator/cluster.go', start: 'node ', re: /^node (\S+) is not suitable for removal: (.*)$/, apply: (m, s) => s.node({ node: m[1], status: 'unremovable', reason: 'NoPlaceToMovePods', message: m[2] }) },
  // CA: simulator/cluster.go FindNodesToRemove
  { id: 'not-suitable-evaluation', kind: 'scale-down', versions: '≤1.23', maxMinor: 23, source: 'simulator/cluster.go', start: '', re: /^(?:Fast|Detailed) evaluation: node (\S+) is not suitable for removal: (.*)$/, apply: (m, s) => s.node({ node: m[1], status: 'unremovable', reason: 'NoPlaceToMovePods', message: m[2] }) },
  // CA: simulator/cluster.go
  { id: 'may-be-removed', kind: 'scale-down', versions: 'all', source: 'simulator/cluster.go', start: '', re: /^(?:(?:Fast|Detailed) evaluation: )?[Nn]ode (\S+) may be removed$/, apply: (m, s) => s.node({ node: m[1], status: 'removable', message: 'may be removed' }) },
  // CA: core/scaledown/eligibility/eligibility.go (scale_down.go:175 before 1.2x: "that were unremovable")
  { id: 'ignoring-unremovable', kind: 'scale-down', versions: 'all', source: 'core/scaledown/eligibility/eligibility.go', start: 'Scale-down calculation: ignoring ', re: /^Scale-down calculation: ignoring (\d+) nodes,? (?:that were )?unremovable in the last (\S+)$/, apply: (m, s) => s.scaleDownRecheck('ignoredNodes', Number(m[1])) },
  // CA: core/scaledown/planner/planner.go
  {
    id: 'unremovable-recheck', kind: 'scale-down', versions: 'all', source: 'core/scaledown/planner/planner.go',
    start: '', re: /^(\d+) nodes found to be unremovable in simulation, will re-check them at (.+)$/,
    apply: (m, s) => s.scaleDownRecheck('unremovableNodes', Number(m[1]), stripMonotonic(m[2])),
  },
  // CA: core/scaledown/unneeded/nodes.go
  { id: 'unneeded-for', kind: 'scale-down', versions: 'all', source: 'core/scaledown/unneeded/nodes.go', start: '', re: /^(\S+) was unneeded for (\S+)$/, apply: (m, s) => s.node({ node: m[1], status: 'unneeded', message: `was unneeded for ${m[2]}`, unneededFor: m[2] }) },
  // CA: processors/nodes/pre_filtering_processor.go (with sizes), core/scaledown/unneeded/nodes.go (without)
  {
    id: 'skip-min-size', kind: 'scale-down', versions: 'all', source: 'processors/nodes/pre_filtering_processor.go',
    start: 'Skipping ', re: /^Skipping (\S+) - node group min size reached(?: \(current: \d+, min: \d+\))?$/,
    apply: (m, s) => s.node({ node: m[1], status: 'unremovable', reason: 'NodeGroupMinSizeReached', message: m[0].slice(9 + m[1].length + 3) }),
  },
  // CA: core/scaledown/eligibility/eligibility.go
  {
    id: 'skip-delete-consideration', kind: 'scale-down', versions: 'all', source: 'core/scaledown/eligibility/eligibility.go',
    start: 'Skip', re: /^Skipp(?:ing|ed) (\S+) from delete consideration - the node (is marked as no scale down|is currently being deleted|is not autoscaled)$/,
    apply: (m, s) =>
      s.node({
        node: m[1],
        status: 'unremovable',
        reason: m[2] === 'is marked as no scale down' ? 'ScaleDownDisabledAnnotation' : m[2] === 'is not autoscaled' ? 'NotAutoscaled' : 'CurrentlyBeingDeleted',
        message: `the node ${m[2]}`,
      }),
  },
  // CA: core/scaledown/unneeded/nodes.go
  { id: 'skip-scale-down-disabled', kind: 'scale-down', versions: 'all', source: 'core/scaledown/unneeded/nodes.go', start: 'Skipping ', re: /^Skipping (\S+) - scale down disabled annotation found$/, apply: (m, s) => s.node({ node: m[1], status: 'unremovable', reason: 'ScaleDownDisabledAnnotation', message: 'scale down disabled annotation found' }) },
  // CA: core/scaledown/actuation/actuator.go
  { id: 'removing-empty-node', kind: 'scale-down', versions: 'all', source: 'core/scaledown/actuation/actuator.go', start: 'Scale-down: removing empty node ', re: /^Scale-down: removing empty node "?([^"\s]+)"?$/, apply: (m, s) => s.node({ node: m[1], status: 'removing', message: 'removing empty node' }) },
  // CA: core/scaledown/actuation/actuator.go
  { id: 'removing-node', kind: 'scale-down', versions: 'all', source: 'core/scaledown/actuation/actuator.go', start: 'Scale-down: removing node ', re: /^Scale-down: removing node (\S+), utilization: (.*)$/, apply: (m, s) => s.node({ node: m[1], status: 'removing', message: `utilization: ${m[2]}` }) },

  // --- loop health ---
  // CA: core/static_autoscaler.go
  { id: 'failed-to-fix-node-group-sizes', kind: 'health', versions: 'all', source: 'core/static_autoscaler.go', start: 'Failed to fix node group sizes: ', re: /^Failed to fix node group sizes: (.*)$/, apply: (m, s) => { s.health('failed-to-fix-node-group-sizes', m[1]); s.aws(m[1]); } },
  // CA: core/static_autoscaler.go (≤1.34; the whole loop stops)
  { id: 'failed-to-get-node-infos', kind: 'health', versions: '≤1.34', maxMinor: 34, source: 'core/static_autoscaler.go', start: 'Failed to get node infos for groups: ', re: /^Failed to get node infos for groups: (.*)$/, apply: (m, s) => { s.health('failed-to-get-node-infos', m[1]); s.aws(m[1]); } },
  // CA: core/static_autoscaler.go (≥1.35 wording of the same failure)
  { id: 'failed-to-recompute-template-node-infos', kind: 'health', versions: '≥1.35', minMinor: 35, source: 'core/static_autoscaler.go', start: 'Failed to recompute template node infos: ', re: /^Failed to recompute template node infos: (.*)$/, apply: (m, s) => { s.health('failed-to-get-node-infos', m[1]); s.aws(m[1]); } },
  // CA: core/static_autoscaler.go
  { id: 'cluster-not-ready', kind: 'health', versions: 'all', source: 'core/static_autoscaler.go', start: 'Cluster is not ready for autoscaling', re: /^Cluster is not ready for autoscaling(.*)$/, apply: (m, s) => s.health('cluster-not-ready', m[0]) },
  // CA: core/static_autoscaler.go
  { id: 'failed-to-scale-up', kind: 'health', versions: 'all', source: 'core/static_autoscaler.go', start: 'Failed to scale up: ', re: /^Failed to scale up: (.*)$/, apply: (m, s) => { s.health('failed-to-scale-up', m[1]); s.aws(m[1]); } },
  // CA: core/static_autoscaler.go
  { id: 'failed-to-scale-down', kind: 'health', versions: 'all', source: 'core/static_autoscaler.go', start: 'Failed to scale down: ', re: /^Failed to scale down: (.*)$/, apply: (m, s) => { s.health('failed-to-scale-down', m[1]); s.aws(m[1]); } },
  // CA: core/static_autoscaler.go
  { id: 'no-unschedulable-pods', kind: 'health', versions: 'all', source: 'core/static_autoscaler.go', start: 'No unschedulable pods', re: /^No unschedulable pods$/, apply: (m, s) => s.health('no-unschedulable-pods', m[0]) },

  // --- the Kubernetes API, through client-go's informers ---
  // client-go tools/cache/reflector.go (v0.32: "<caller>: failed to list *T: <err>"); CA 1.32 on a ClusterRole without volumeattachments (issue #7663)
  {
    id: 'reflector-list-failed', kind: 'health', versions: 'all', source: 'vendor k8s.io/client-go/tools/cache/reflector.go', start: '',
    re: /^(?:\S+: )?failed to list (\*[\w.]+): (.*)$/,
    apply: (m, s) => {
      const f = /^(\S+) is forbidden: User "([^"]+)" cannot list resource "([^"]+)" in API group "([^"]*)"/.exec(m[2]);
      s.health('kube-api-list-failed', m[0], { listKind: m[1], forbidden: f ? { resource: f[3], group: f[4], user: f[2] } : undefined });
    },
  },
  // client-go tools/cache/reflector.go: the same failure again as an error ("Unhandled Error" ≤ v0.32, "Failed to watch" since); counted by the line above
  { id: 'reflector-watch-error', kind: 'health', versions: 'all', source: 'vendor k8s.io/client-go/tools/cache/reflector.go', start: '"', re: /^"(?:Unhandled Error|Failed to watch)" err="/, apply: () => undefined },

  // --- AWS provider ---
  // CA: cloudprovider/aws/aws_manager.go
  { id: 'failed-to-regenerate-asg-cache', kind: 'aws', versions: 'all', source: 'cloudprovider/aws/aws_manager.go', start: 'Failed to regenerate ASG cache: ', re: /^Failed to regenerate ASG cache: (.*)$/, apply: (m, s) => { s.health('failed-to-regenerate-asg-cache', m[1]); s.aws(m[1]); } },
  // CA: cloudprovider/aws/aws_cloud_provider.go BuildAWS (klog.Fatalf)
  { id: 'failed-to-create-aws-manager', kind: 'fatal', versions: 'all', source: 'cloudprovider/aws/aws_cloud_provider.go', start: 'Failed to create AWS Manager: ', re: /^Failed to create AWS Manager: (.*)$/, apply: (m, s) => { s.health('failed-to-create-aws-manager', m[1]); s.fatal(m[0]); s.aws(m[1], undefined, 'other'); } },
  // CA: processors/nodeinfosprovider/mixed_nodeinfos_processor.go (core/utils/utils.go ≤1.2x)
  { id: 'unable-to-build-template-node', kind: 'aws', versions: 'all', source: 'processors/nodeinfosprovider/mixed_nodeinfos_processor.go', start: 'Unable to build proper template node for ', re: /^Unable to build proper template node for (\S+): (.*)$/, apply: (m, s) => { s.group(m[1], 'templateError', { error: m[2] }); s.aws(m[2], m[1], 'template-node'); } },
  // CA: cloudprovider/aws/auto_scaling_groups.go (≥1.35 with "description: ")
  { id: 'asg-scaling-failed-1.35', kind: 'aws', versions: '≥1.35', minMinor: 35, source: 'cloudprovider/aws/auto_scaling_groups.go', start: 'ASG ', re: /^ASG (\S+) scaling failed with description: (.*)$/, apply: (m, s) => s.group(m[1], 'scalingFailed', { description: m[2] }) },
  // CA: cloudprovider/aws/auto_scaling_groups.go (1.24–1.34)
  { id: 'asg-scaling-failed-1.24', kind: 'aws', versions: '1.24–1.34', minMinor: 24, maxMinor: 34, source: 'cloudprovider/aws/auto_scaling_groups.go', start: 'ASG ', re: /^ASG (\S+) scaling failed with (.*)$/, apply: (m, s) => s.group(m[1], 'scalingFailed', { description: m[2] }) },
  // CA: cloudprovider/aws/auto_scaling_groups.go regenerate (≥1.25); "for ASG names: []" = discovery found nothing
  { id: 'regenerating-asg-map', kind: 'aws', versions: '≥1.25', minMinor: 25, source: 'cloudprovider/aws/auto_scaling_groups.go', start: 'Regenerating instance to ASG map for ASG ', re: /^Regenerating instance to ASG map for ASG (names|tags): (.*)$/, apply: (m, s) => s.asgRefresh(m[1] as 'names' | 'tags', m[2]) },
  // CA: cloudprovider/aws/aws_manager.go Refresh (V2; once per --aws refresh interval, 1 minute)
  { id: 'refreshed-asg-list', kind: 'aws', versions: 'all', source: 'cloudprovider/aws/aws_manager.go', start: 'Refreshed ASG list, next refresh after ', re: /^Refreshed ASG list, next refresh after (.+)$/, apply: (m, s) => s.asgRefresh('nextRefresh', stripMonotonic(m[1])) },
  // CA: cloudprovider/aws/auto_scaling_groups.go regenerate (≤1.24)
  { id: 'regenerating-asg-map-legacy', kind: 'aws', versions: '≤1.24', maxMinor: 24, source: 'cloudprovider/aws/auto_scaling_groups.go', start: 'Regenerating instance to ASG map for ASGs: ', re: /^Regenerating instance to ASG map for ASGs: (.*)$/, apply: (m, s) => s.asgRefresh('names', m[1]) },
  // CA: cloudprovider/aws/aws_cloud_provider.go BuildAWS (fatal only in 1.23.0, a fallback since)
  { id: 'failed-to-generate-instance-types', kind: 'aws', versions: 'all', source: 'cloudprovider/aws/aws_cloud_provider.go', start: 'Failed to generate AWS EC2 Instance Types: ', re: /^Failed to generate AWS EC2 Instance Types: (.*)$/, apply: (m, s) => s.aws(m[1], undefined, 'other') },
];

/** Templates indexed by the first character of `start` ('' = tried for every message). */
export function indexTemplates(templates: readonly CaLogTemplate[]): { byFirst: Map<string, CaLogTemplate[]>; any: CaLogTemplate[] } {
  const byFirst = new Map<string, CaLogTemplate[]>();
  const any: CaLogTemplate[] = [];
  for (const t of templates) {
    if (t.start === '') any.push(t);
    else {
      const k = t.start[0];
      const list = byFirst.get(k) ?? [];
      list.push(t);
      byFirst.set(k, list);
    }
  }
  return { byFirst, any };
}

/** Is this text an AWS error worth keeping, and of which kind? (texts from aws-sdk-go v1 ≤1.34 and v2 ≥1.35 alike) */
export interface AwsErrorMatch {
  kind: CaLogAwsErrorKind;
  action?: string;
  resource?: string;
  principal?: string;
  group?: string;
  instanceType?: string;
}

const NOT_AUTHORIZED = /(?:User: (\S+) )?is not authorized to perform: ([\w-]+:\w+)(?: on resource: (\S+?))?(?=[\s,;]|$)/;
const UNKNOWN_TYPE = /ASG "([^"]+)" uses the unknown EC2 instance type "([^"]+)"/;
const NO_AZ = /unable to get first AvailabilityZone for ASG "([^"]+)"/;

export function detectAwsError(text: string): AwsErrorMatch | undefined {
  if (text.includes('AssumeRoleWithWebIdentity') || text.includes('WebIdentityErr')) {
    const m = NOT_AUTHORIZED.exec(text);
    return { kind: 'web-identity', action: 'sts:AssumeRoleWithWebIdentity', resource: m?.[3], principal: m?.[1] };
  }
  if (text.includes('AccessDenied') || text.includes('UnauthorizedOperation') || text.includes('is not authorized to perform')) {
    const m = NOT_AUTHORIZED.exec(text);
    const asg = m?.[3] ? /autoScalingGroupName\/([^\s,;]+)/.exec(m[3]) : null;
    return { kind: 'access-denied', action: m?.[2], resource: m?.[3], principal: m?.[1], group: asg?.[1] };
  }
  if (text.includes('Throttling') || text.includes('Rate exceeded') || text.includes('RequestLimitExceeded')) return { kind: 'throttling' };
  const u = UNKNOWN_TYPE.exec(text);
  if (u) return { kind: 'unknown-instance-type', group: u[1], instanceType: u[2] };
  const z = NO_AZ.exec(text);
  if (z) return { kind: 'no-availability-zone', group: z[1] };
  return undefined;
}

/** A cheap pre-test: does the text possibly hold an AWS error detectAwsError knows? */
export function mayBeAwsError(text: string): boolean {
  return (
    text.includes('AccessDenied') ||
    text.includes('Unauthorized') ||
    text.includes('not authorized') ||
    text.includes('WebIdentity') ||
    text.includes('Throttling') ||
    text.includes('Rate exceeded') ||
    text.includes('RequestLimitExceeded') ||
    text.includes('unknown EC2 instance type') ||
    text.includes('AvailabilityZone for ASG')
  );
}
