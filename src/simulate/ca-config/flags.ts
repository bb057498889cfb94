// CA's flags as data: each flag casdoctor interprets with its kind, its default per CA minor and the minors that have
// it (config/flags/flags.go 1.34+, main.go before), and the flags CA accepts that casdoctor only recognises.
import type { CaFlags } from '../../model/ca-config.js';

/** Newest CA minor whose defaults casdoctor knows (reference §0: release-1.37). */
export const NEWEST_KNOWN_MINOR = 37;

type FlagKind = 'bool' | 'duration' | 'int' | 'float' | 'string' | 'multi' | 'slice' | 'minmax';

export interface FlagDef<T> {
  name: string;
  kind: FlagKind;
  /** Default for a CA minor version (also the fixed behaviour when the flag does not exist in that version). */
  def: (minor: number) => T;
  /** First minor with the flag. */
  since?: number;
  /** First minor without the flag (removed). */
  until?: number;
}

const c =
  <T>(v: T) =>
  () =>
    v;
const MIN = 60_000;
const HOUR = 60 * MIN;

// Defaults: CA config/flags/flags.go (1.34+; main.go before) and reference §1.2 / §2.7.
export const FLAG_DEFS: { [K in keyof CaFlags]: FlagDef<CaFlags[K]['value']> } = {
  // The default is build-dependent; the FAQ table says "gce" (reference §2.7). Always pass --cloud-provider=aws.
  cloudProvider: { name: 'cloud-provider', kind: 'string', def: c('gce') },
  namespace: { name: 'namespace', kind: 'string', def: c('kube-system') },
  clusterName: { name: 'cluster-name', kind: 'string', def: c('') },
  address: { name: 'address', kind: 'string', def: c(':8085') },
  statusConfigMapName: {
    name: 'status-config-map-name',
    kind: 'string',
    def: c('cluster-autoscaler-status'),
  },
  writeStatusConfigmap: { name: 'write-status-configmap', kind: 'bool', def: c(true) },
  nodeGroupAutoDiscovery: { name: 'node-group-auto-discovery', kind: 'multi', def: () => [] },
  nodes: { name: 'nodes', kind: 'multi', def: () => [] },
  awsUseStaticInstanceList: { name: 'aws-use-static-instance-list', kind: 'bool', def: c(false) },
  scanInterval: { name: 'scan-interval', kind: 'duration', def: c(10_000) },
  v: { name: 'v', kind: 'int', def: c(0) },
  recordDuplicatedEvents: { name: 'record-duplicated-events', kind: 'bool', def: c(false), since: 25 },
  debuggingSnapshotEnabled: { name: 'debugging-snapshot-enabled', kind: 'bool', def: c(false) },
  maxInactivity: { name: 'max-inactivity', kind: 'duration', def: c(10 * MIN) },
  maxFailingTime: { name: 'max-failing-time', kind: 'duration', def: c(15 * MIN) },
  maxStartupTime: {
    name: 'max-startup-time',
    kind: 'duration',
    def: (m) => (m >= 36 ? 20 * MIN : undefined),
    since: 36,
  },
  startupTaint: { name: 'startup-taint', kind: 'multi', def: () => [], since: 29 },
  statusTaint: { name: 'status-taint', kind: 'multi', def: () => [], since: 29 },
  ignoreTaint: { name: 'ignore-taint', kind: 'multi', def: () => [] },
  // First in the 1.36.0 tag's config/flags/flags.go (absent from 1.35.x).
  startupTaintPrefix: { name: 'startup-taint-prefix', kind: 'multi', def: () => [], since: 36 },
  forceDs: { name: 'force-ds', kind: 'bool', def: c(false), since: 27 },
  scaleFromUnschedulable: { name: 'scale-from-unschedulable', kind: 'bool', def: c(false), since: 35 },
  nodeInfoCacheExpireTime: { name: 'node-info-cache-expire-time', kind: 'duration', def: c(87_600 * HOUR) },
  maxNodesTotal: { name: 'max-nodes-total', kind: 'int', def: c(0) },
  coresTotal: { name: 'cores-total', kind: 'minmax', def: () => ({ min: 0, max: 320_000 }) },
  memoryTotal: { name: 'memory-total', kind: 'minmax', def: () => ({ min: 0, max: 6_400_000 }) },
  gpuTotal: { name: 'gpu-total', kind: 'multi', def: () => [] },
  newPodScaleUpDelay: { name: 'new-pod-scale-up-delay', kind: 'duration', def: c(0) },
  expendablePodsPriorityCutoff: { name: 'expendable-pods-priority-cutoff', kind: 'int', def: c(-10) },
  maxNodeProvisionTime: { name: 'max-node-provision-time', kind: 'duration', def: c(15 * MIN) },
  // Before 1.35 a constant of 15m (reference §2.7).
  maxNodeStartupTime: { name: 'max-node-startup-time', kind: 'duration', def: c(15 * MIN), since: 35 },
  initialNodeGroupBackoffDuration: {
    name: 'initial-node-group-backoff-duration',
    kind: 'duration',
    def: c(5 * MIN),
    since: 25,
  },
  maxNodeGroupBackoffDuration: {
    name: 'max-node-group-backoff-duration',
    kind: 'duration',
    def: c(30 * MIN),
    since: 25,
  },
  nodeGroupBackoffResetTimeout: {
    name: 'node-group-backoff-reset-timeout',
    kind: 'duration',
    def: c(3 * HOUR),
    since: 25,
  },
  maxTotalUnreadyPercentage: { name: 'max-total-unready-percentage', kind: 'float', def: c(45) },
  okTotalUnreadyCount: { name: 'ok-total-unready-count', kind: 'int', def: c(3) },
  scaleUpFromZero: { name: 'scale-up-from-zero', kind: 'bool', def: c(true) },
  enforceNodeGroupMinSize: { name: 'enforce-node-group-min-size', kind: 'bool', def: c(false), since: 26 },
  expander: { name: 'expander', kind: 'string', def: (m) => (m >= 33 ? 'least-waste' : 'random') },
  estimator: { name: 'estimator', kind: 'string', def: c('binpacking') },
  balanceSimilarNodeGroups: { name: 'balance-similar-node-groups', kind: 'bool', def: c(false) },
  parallelScaleUp: { name: 'parallel-scale-up', kind: 'bool', def: c(false), since: 28 },
  maxNodesPerScaleup: { name: 'max-nodes-per-scaleup', kind: 'int', def: c(1000), since: 25 },
  maxNodegroupBinpackingDuration: {
    name: 'max-nodegroup-binpacking-duration',
    kind: 'duration',
    def: c(10_000),
    since: 25,
  },
  maxBinpackingTime: { name: 'max-binpacking-time', kind: 'duration', def: c(5 * MIN), since: 31 },
  frequentLoopsEnabled: { name: 'frequent-loops-enabled', kind: 'bool', def: (m) => m >= 35, since: 30 },
  // Locked to true from 1.35; false in 1.32-1.34; absent before (reference §2.7).
  enableDynamicResourceAllocation: {
    name: 'enable-dynamic-resource-allocation',
    kind: 'bool',
    def: (m) => m >= 35,
    since: 32,
  },
  // In main.go from the 1.29.0 tag (reference §2.7 says 1.32+).
  bypassedSchedulerNames: { name: 'bypassed-scheduler-names', kind: 'slice', def: () => [], since: 29 },
  allowedSchedulerNames: { name: 'allowed-scheduler-names', kind: 'slice', def: () => [], since: 35 },
  scaleupSimulationForSkippedNodeGroupsEnabled: {
    name: 'scaleup-simulation-for-skipped-node-groups-enabled',
    kind: 'bool',
    def: c(false),
    since: 36,
  },
  // The flags of 1.34-1.37 casdoctor reads (CA config/flags/flags.go at the tags named by `since`).
  enableProvisioningRequests: { name: 'enable-provisioning-requests', kind: 'bool', def: c(false), since: 30 },
  capacityBufferControllerEnabled: {
    name: 'capacity-buffer-controller-enabled',
    kind: 'bool',
    def: c(false),
    since: 34,
  },
  capacityBufferPodInjectionEnabled: {
    name: 'capacity-buffer-pod-injection-enabled',
    kind: 'bool',
    def: c(false),
    since: 34,
  },
  nodeRemovalLatencyTrackingEnabled: {
    name: 'node-removal-latency-tracking-enabled',
    kind: 'bool',
    def: c(false),
    since: 35,
  },
  maxNodeSkipEvalTimeTrackerEnabled: {
    name: 'max-node-skip-eval-time-tracker-enabled',
    kind: 'bool',
    def: c(false),
    since: 35,
  },
  salvoScaleUp: { name: 'salvo-scale-up', kind: 'bool', def: c(false), since: 36 },
  salvoScaleUpBudget: { name: 'salvo-scale-up-budget', kind: 'duration', def: c(MIN), since: 36 },
  capacityQuotasEnabled: { name: 'capacity-quotas-enabled', kind: 'bool', def: c(false), since: 36 },
  fastpathBinpackingEnabled: { name: 'fastpath-binpacking-enabled', kind: 'bool', def: c(false), since: 36 },
  capacityBufferPodDryRunEnabled: {
    name: 'capacity-buffer-pod-dry-run-enabled',
    kind: 'bool',
    def: c(true),
    since: 36,
  },
  // Only on the cluster-autoscaler-release-1.37 branch (no 1.37.0 tag in kubernetes/autoscaler yet).
  enableGracefulDegradation: { name: 'enable-graceful-degradation', kind: 'bool', def: c(false), since: 37 },
  pendingPodsBatchingTimeout: {
    name: 'pending-pods-batching-timeout',
    kind: 'duration',
    def: c(4 * MIN),
    since: 37,
  },
  schedulerVerbosity: { name: 'scheduler-verbosity', kind: 'int', def: c(0), since: 37 },
  scaleDownEnabled: { name: 'scale-down-enabled', kind: 'bool', def: c(true) },
  scaleDownUtilizationThreshold: { name: 'scale-down-utilization-threshold', kind: 'float', def: c(0.5) },
  scaleDownGpuUtilizationThreshold: {
    name: 'scale-down-gpu-utilization-threshold',
    kind: 'float',
    def: c(0.5),
  },
  scaleDownUnneededTime: { name: 'scale-down-unneeded-time', kind: 'duration', def: c(10 * MIN) },
  scaleDownUnreadyTime: { name: 'scale-down-unready-time', kind: 'duration', def: c(20 * MIN) },
  // In main.go from the 1.27.1 tag, the first 1.27 release (reference §1.2 says 1.28).
  scaleDownUnreadyEnabled: { name: 'scale-down-unready-enabled', kind: 'bool', def: c(true), since: 27 },
  scaleDownDelayAfterAdd: { name: 'scale-down-delay-after-add', kind: 'duration', def: c(10 * MIN) },
  scaleDownDelayAfterDelete: { name: 'scale-down-delay-after-delete', kind: 'duration', def: c(0) },
  scaleDownDelayAfterFailure: { name: 'scale-down-delay-after-failure', kind: 'duration', def: c(3 * MIN) },
  scaleDownDelayTypeLocal: { name: 'scale-down-delay-type-local', kind: 'bool', def: c(false), since: 30 },
  unremovableNodeRecheckTimeout: {
    name: 'unremovable-node-recheck-timeout',
    kind: 'duration',
    def: c(5 * MIN),
  },
  // New in 1.26 at 5m; 30s from the 1.27.1 tag (main.go; reference §1.2 says 1.28).
  scaleDownSimulationTimeout: {
    name: 'scale-down-simulation-timeout',
    kind: 'duration',
    def: (m) => (m >= 27 ? 30_000 : 5 * MIN),
    since: 26,
  },
  // In main.go from the 1.25.0 tag (reference §1.2 says 1.26).
  maxScaleDownParallelism: { name: 'max-scale-down-parallelism', kind: 'int', def: c(10), since: 25 },
  // Removed in 1.33 (reference §1.2).
  maxEmptyBulkDelete: {
    name: 'max-empty-bulk-delete',
    kind: 'int',
    def: (m) => (m < 33 ? 10 : undefined),
    until: 33,
  },
  maxDrainParallelism: { name: 'max-drain-parallelism', kind: 'int', def: c(1), since: 25 },
  // New in 1.26 (false), default true from 1.28, removed in 1.32 (parallel drain is then always on).
  parallelDrain: { name: 'parallel-drain', kind: 'bool', def: (m) => m >= 28, since: 26, until: 32 },
  maxGracefulTerminationSec: { name: 'max-graceful-termination-sec', kind: 'int', def: c(600) },
  drainPriorityConfig: { name: 'drain-priority-config', kind: 'string', def: c(''), since: 29 },
  maxPodEvictionTime: { name: 'max-pod-eviction-time', kind: 'duration', def: c(2 * MIN), since: 25 },
  nodeDeleteDelayAfterTaint: {
    name: 'node-delete-delay-after-taint',
    kind: 'duration',
    def: c(5_000),
    since: 26,
  },
  nodeDeletionDelayTimeout: { name: 'node-deletion-delay-timeout', kind: 'duration', def: c(2 * MIN) },
  nodeDeletionBatcherInterval: {
    name: 'node-deletion-batcher-interval',
    kind: 'duration',
    def: c(0),
    since: 26,
  },
  cordonNodeBeforeTerminating: { name: 'cordon-node-before-terminating', kind: 'bool', def: (m) => m >= 34 },
  daemonsetEvictionForEmptyNodes: { name: 'daemonset-eviction-for-empty-nodes', kind: 'bool', def: c(false) },
  daemonsetEvictionForOccupiedNodes: {
    name: 'daemonset-eviction-for-occupied-nodes',
    kind: 'bool',
    def: c(true),
  },
  skipNodesWithSystemPods: { name: 'skip-nodes-with-system-pods', kind: 'bool', def: c(true) },
  // The flag name really is misspelled "distruption"; new in 1.33 (before: kube-system pods block forever).
  blockingSystemPodDistruptionTimeout: {
    name: 'blocking-system-pod-distruption-timeout',
    kind: 'duration',
    def: (m) => (m >= 33 ? HOUR : undefined),
    since: 33,
  },
  skipNodesWithLocalStorage: { name: 'skip-nodes-with-local-storage', kind: 'bool', def: c(true) },
  skipNodesWithCustomControllerPods: {
    name: 'skip-nodes-with-custom-controller-pods',
    kind: 'bool',
    def: c(true),
    since: 27,
  },
  minReplicaCount: { name: 'min-replica-count', kind: 'int', def: c(0) },
  ignoreDaemonsetsUtilization: { name: 'ignore-daemonsets-utilization', kind: 'bool', def: c(false) },
  ignoreMirrorPodsUtilization: { name: 'ignore-mirror-pods-utilization', kind: 'bool', def: c(false) },
  maxBulkSoftTaintCount: { name: 'max-bulk-soft-taint-count', kind: 'int', def: c(10) },
  maxBulkSoftTaintTime: { name: 'max-bulk-soft-taint-time', kind: 'duration', def: c(3_000) },
  nodeDeletionCandidateTtl: { name: 'node-deletion-candidate-ttl', kind: 'duration', def: c(0), since: 34 },
  scaleDownNonEmptyCandidatesCount: {
    name: 'scale-down-non-empty-candidates-count',
    kind: 'int',
    def: c(30),
  },
  scaleDownCandidatesPoolRatio: { name: 'scale-down-candidates-pool-ratio', kind: 'float', def: c(0.1) },
  scaleDownCandidatesPoolMinCount: { name: 'scale-down-candidates-pool-min-count', kind: 'int', def: c(50) },
};

// Flags CA (and klog / component-base) accepts that casdoctor does not interpret, with the CA minors that have them.
// Versions: the flag's first / last appearance in config/flags/flags.go (1.34+) or main.go at the cluster-autoscaler-1.2x.0 /
// 1.3x.0 tags and the release-1.37 branch; no `since` = present in 1.25.0 (or a klog / component-base flag).
type OtherFlag = [name: string, since?: number, until?: number];
const OTHER_BOOL_FLAGS: OtherFlag[] = [
  ['regional'],
  ['profiling'],
  ['clusterapi-cloud-config-authoritative'],
  ['emit-per-nodegroup-metrics'],
  ['dynamic-node-delete-delay-after-taint-enabled', 29],
  ['async-node-groups', 31],
  ['enable-proactive-scaleup', 31],
  ['check-capacity-batch-processing', 32],
  ['force-delete-unregistered-nodes', 32],
  ['force-delete-failed-nodes', 34],
  ['enable-csi-node-aware-scheduling', 35],
  ['bulk-mig-instances-listing-enabled', 31],
  ['gce-expander-ephemeral-storage-support', undefined, 33],
  ['node-autoprovisioning-enabled', undefined, 33],
  ['leader-elect'],
  ['logtostderr'],
  ['alsologtostderr'],
  ['add-dir-header'],
  ['skip-headers'],
  ['skip-log-headers'],
  ['one-output'],
];
const OTHER_VALUE_FLAGS: OtherFlag[] = [
  ['kubernetes'],
  ['kubeconfig'],
  ['kube-api-content-type', 29],
  ['kube-client-burst', 27],
  ['kube-client-qps', 27],
  ['cloud-config'],
  ['scheduler-config-file'],
  ['grpc-expander-cert'],
  ['grpc-expander-url'],
  ['balancing-ignore-label'],
  ['balancing-label', 25],
  ['gce-concurrent-refreshes'],
  ['gce-mig-instances-min-refresh-wait-time', 27],
  ['user-agent'],
  ['memory-difference-ratio', 27],
  ['max-free-difference-ratio', 27],
  ['max-allocatable-difference-ratio', 27],
  ['provisioning-request-initial-backoff-time', 32],
  ['provisioning-request-max-backoff-time', 32],
  ['provisioning-request-max-backoff-cache-size', 32],
  ['pod-injection-limit', 31],
  ['check-capacity-provisioning-request-max-batch-size', 32],
  ['check-capacity-provisioning-request-batch-timebox', 32],
  ['check-capacity-processor-instance', 33],
  ['cluster-snapshot-parallelism', 33],
  ['predicate-parallelism', 35],
  ['max-autoprovisioned-node-group-count', undefined, 33],
  // main.go of 1.32.x only; 1.33 moved leader election to component-base's --leader-elect-resource-name.
  ['lease-resource-name', 32, 33],
  ['feature-gates'],
  ['leader-elect-lease-duration'],
  ['leader-elect-renew-deadline'],
  ['leader-elect-retry-period'],
  ['leader-elect-resource-lock'],
  ['leader-elect-resource-name'],
  ['leader-elect-resource-namespace'],
  ['stderrthreshold'],
  ['log-dir'],
  ['log-file'],
  ['log-file-max-size'],
  ['log-backtrace-at'],
  ['vmodule'],
];
export const OTHER_FLAG_VERSIONS = new Map<string, { since?: number; until?: number }>(
  [...OTHER_BOOL_FLAGS, ...OTHER_VALUE_FLAGS]
    .filter(([, since, until]) => since !== undefined || until !== undefined)
    .map(([name, since, until]) => [name, { since, until }]),
);

export const DEF_BY_NAME = new Map<string, { key: keyof CaFlags; def: FlagDef<unknown> }>();
for (const [key, def] of Object.entries(FLAG_DEFS) as Array<[keyof CaFlags, FlagDef<unknown>]>) {
  DEF_BY_NAME.set(def.name, { key, def });
}
export const BOOL_FLAGS = new Set<string>([
  ...OTHER_BOOL_FLAGS.map(([name]) => name),
  ...[...DEF_BY_NAME.values()].filter((d) => d.def.kind === 'bool').map((d) => d.def.name),
]);
export const KNOWN_FLAGS = new Set<string>([
  ...DEF_BY_NAME.keys(),
  ...OTHER_BOOL_FLAGS.map(([name]) => name),
  ...OTHER_VALUE_FLAGS.map(([name]) => name),
]);
/** klog's Go flag "v" is the only single-letter flag, so pflag gives it the shorthand -v. */
export const SHORTHANDS: Record<string, string> = { v: 'v' };
