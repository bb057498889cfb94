import { scrubArgs } from './scrub-args.js';
import type {
  AutoDiscoveryConfig,
  CaConfig,
  CaFlags,
  CaVersion,
  FlagOrigin,
  FlagValue,
  GpuLimit,
  MinMax,
  NodeGroupSpec,
  ParsedFlag,
  ParsedFlags,
  VersionedFlag,
} from '../model/ca-config.js';
import { parseGoDuration } from '../model/duration.js';
import type { Container, Deployment } from '../model/k8s.js';

/** Newest CA minor whose defaults casdoctor knows (reference §0: release-1.37). */
export const NEWEST_KNOWN_MINOR = 37;

type FlagKind = 'bool' | 'duration' | 'int' | 'float' | 'string' | 'multi' | 'slice' | 'minmax';

interface FlagDef<T> {
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
const FLAG_DEFS: { [K in keyof CaFlags]: FlagDef<CaFlags[K]['value']> } = {
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
const OTHER_FLAG_VERSIONS = new Map<string, { since?: number; until?: number }>(
  [...OTHER_BOOL_FLAGS, ...OTHER_VALUE_FLAGS]
    .filter(([, since, until]) => since !== undefined || until !== undefined)
    .map(([name, since, until]) => [name, { since, until }]),
);

const DEF_BY_NAME = new Map<string, { key: keyof CaFlags; def: FlagDef<unknown> }>();
for (const [key, def] of Object.entries(FLAG_DEFS) as Array<[keyof CaFlags, FlagDef<unknown>]>) {
  DEF_BY_NAME.set(def.name, { key, def });
}
const BOOL_FLAGS = new Set<string>([
  ...OTHER_BOOL_FLAGS.map(([name]) => name),
  ...[...DEF_BY_NAME.values()].filter((d) => d.def.kind === 'bool').map((d) => d.def.name),
]);
const KNOWN_FLAGS = new Set<string>([
  ...DEF_BY_NAME.keys(),
  ...OTHER_BOOL_FLAGS.map(([name]) => name),
  ...OTHER_VALUE_FLAGS.map(([name]) => name),
]);
/** klog's Go flag "v" is the only single-letter flag, so pflag gives it the shorthand -v. */
const SHORTHANDS: Record<string, string> = { v: 'v' };

/** The CA Deployment: any namespace, the first container whose image contains "cluster-autoscaler". */
export function findCaDeployment(
  deployments: Deployment[],
): { deployment: Deployment; container: Container } | undefined {
  for (const deployment of deployments) {
    const container = caContainerOf(deployment);
    if (container) return { deployment, container };
  }
  return undefined;
}

// cluster-autoscaler-grpc-cloud-provider (a CA cloud-provider server) carries "cluster-autoscaler" in its image name
// too: an image whose repository name goes on to name a provider or gRPC server is not CA
function isCaImage(image: string): boolean {
  if (!image.includes('cluster-autoscaler')) return false;
  const repo = image.replace(/@.*$/, '').replace(/:[^/]*$/, '').split('/').pop() ?? '';
  return !/^cluster-autoscaler-.*(provider|grpc)/.test(repo);
}

function caContainerOf(deployment: Deployment): Container | undefined {
  return deployment.spec?.template?.spec?.containers?.find((ct) => isCaImage(ct.image ?? ''));
}

/** CA version from the image tag. Only plain vX.Y.Z tags count; anything else assumes the newest known minor. */
export function parseCaVersion(image: string): { version?: string; minor?: number; known: boolean } {
  const withoutDigest = image.split('@')[0];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const tag = colon > lastSlash ? withoutDigest.slice(colon + 1) : undefined;
  const m = tag ? /^v?(\d+)\.(\d+)\.(\d+)$/.exec(tag) : null;
  if (m && m[1] === '1') return { version: tag, minor: Number(m[2]), known: true };
  return { version: tag || undefined, minor: NEWEST_KNOWN_MINOR, known: false };
}

/** The arguments CA sees: `command` after the cluster-autoscaler binary, then `args`. */
export function caContainerArgs(container: Container): string[] {
  const command = container.command ?? [];
  const args = container.args ?? [];
  if (command.length === 0) return [...args];
  const binIdx = command.findIndex((part) => /(^|\/)cluster-autoscaler$/.test(part));
  if (binIdx >= 0) return [...command.slice(binIdx + 1), ...args];
  // e.g. ["sh", "-c", "./cluster-autoscaler --v=4 ..."]: split the script after the binary.
  const script = command.find((part) => /(^|[\s/])cluster-autoscaler(\s|$)/.test(part));
  if (script) {
    const words = script.trim().split(/\s+/);
    const i = words.findIndex((w) => /(^|\/)cluster-autoscaler$/.test(w));
    return [...words.slice(i + 1), ...args];
  }
  return [...command.filter((part) => part.startsWith('-')), ...args];
}

/**
 * Go pflag semantics as CA uses them (CA main.go: kube_flag.InitFlags, which normalises "_" to "-"):
 * `--f=v`, `--f v`, bare `--bool`, `--bool=false` (never `--bool false`), `-v=4` / `-v 4` / `-v4`, `--` ends flags.
 */
export function parseCaArgs(args: string[]): ParsedFlags {
  const out: ParsedFlags = { flags: [], values: {}, unknownFlags: [], positional: [], errors: [] };
  const push = (name: string, value: string, raw: string) => {
    out.flags.push({ name, value, raw } satisfies ParsedFlag);
    if (!out.values[name]) out.values[name] = [];
    out.values[name].push(value);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      out.positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = (eq >= 0 ? body.slice(0, eq) : body).replaceAll('_', '-');
      if (!KNOWN_FLAGS.has(name)) {
        out.unknownFlags.push(`--${name}`);
        out.errors.push(`unknown flag: --${name}`);
        continue;
      }
      if (eq >= 0) push(name, body.slice(eq + 1), arg);
      else if (BOOL_FLAGS.has(name)) push(name, 'true', arg);
      else if (i + 1 < args.length) {
        push(name, args[i + 1], `${arg} ${args[i + 1]}`);
        i++;
      } else out.errors.push(`flag needs an argument: --${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1];
      const name = SHORTHANDS[letter];
      if (!name) {
        out.unknownFlags.push(arg.split('=')[0]);
        out.errors.push(`unknown shorthand flag: '${letter}' in ${arg}`);
        continue;
      }
      const rest = arg.slice(2);
      if (rest.startsWith('=')) push(name, rest.slice(1), arg);
      else if (rest !== '') push(name, rest, arg);
      else if (i + 1 < args.length) {
        push(name, args[i + 1], `${arg} ${args[i + 1]}`);
        i++;
      } else out.errors.push(`flag needs an argument: 'v' in -v`);
      continue;
    }
    out.positional.push(arg);
  }
  return out;
}

/**
 * `--node-group-auto-discovery` specs. CA: cloudprovider/aws/aws_manager.go parseASGAutoDiscoverySpec; all specs are merged
 * into one tag map and ANDed (auto_scaling_groups.go buildAsgTags, kubernetes/autoscaler#7009), the later value winning.
 */
export function parseAutoDiscoverySpecs(specs: string[]): AutoDiscoveryConfig {
  const result: AutoDiscoveryConfig = { tags: {}, specs: [], errors: [] };
  for (const spec of specs) {
    const parsed = parseOneAutoDiscoverySpec(spec);
    result.specs.push({ raw: spec, tags: parsed.tags, ...(parsed.error ? { error: parsed.error } : {}) });
    if (parsed.error) {
      result.errors.push(parsed.error);
      continue;
    }
    Object.assign(result.tags, parsed.tags);
  }
  return result;
}

function parseOneAutoDiscoverySpec(spec: string): {
  tags: Record<string, string | undefined>;
  error?: string;
} {
  const colon = spec.indexOf(':');
  if (colon < 0) {
    return {
      tags: {},
      error: `invalid node group auto discovery spec specified via --node-group-auto-discovery: ${spec}`,
    };
  }
  const discoverer = spec.slice(0, colon);
  if (discoverer !== 'asg') return { tags: {}, error: `unsupported discoverer specified: ${discoverer}` };
  const param = spec.slice(colon + 1);
  const eq = param.indexOf('=');
  if (eq < 0) return { tags: {}, error: `invalid key=value pair [${param}]` }; // Go prints the []string with %s
  const key = param.slice(0, eq);
  const value = param.slice(eq + 1);
  if (key !== 'tag') {
    return {
      tags: {},
      error: `unsupported parameter key "${key}" is specified for discoverer "${discoverer}". The only supported key is "tag"`,
    };
  }
  if (value === '') return { tags: {}, error: 'tag value not supplied' };
  const tags: Record<string, string | undefined> = {};
  for (const label of value.split(',')) {
    const e = label.indexOf('=');
    // CA stores "" for both `key` and `key=`; an empty value becomes a tag-key filter (aws_wrapper.go getAutoscalingGroupsByTags).
    const v = e >= 0 ? label.slice(e + 1) : '';
    tags[e >= 0 ? label.slice(0, e) : label] = v === '' ? undefined : v;
  }
  return { tags };
}

/** One `--nodes` spec. CA: config/dynamic/node_group_spec.go SpecFromString with scale-to-zero support (AWS). */
export function parseNodeGroupSpec(value: string): NodeGroupSpec | { error: string } {
  // auto_scaling_groups.go parseExplicitAsgs and buildAsgFromSpec both wrap the error with this prefix.
  const prefix = 'failed to parse node group spec: failed to parse node group spec: ';
  const first = value.indexOf(':');
  const second = first >= 0 ? value.indexOf(':', first + 1) : -1;
  if (second < 0) return { error: `${prefix}wrong nodes configuration: ${value}` };
  const [minS, maxS, name] = [value.slice(0, first), value.slice(first + 1, second), value.slice(second + 1)];
  const min = parseGoInt(minS);
  if (min === undefined) return { error: `${prefix}failed to set min size: ${minS}, expected integer` };
  const max = parseGoInt(maxS);
  if (max === undefined) return { error: `${prefix}failed to set max size: ${maxS}, expected integer` };
  if (min < 0) return { error: `${prefix}invalid node group spec: min size must be >= 0` };
  if (max < min)
    return { error: `${prefix}invalid node group spec: max size must be greater or equal to min size` };
  if (name === '') return { error: `${prefix}invalid node group spec: name must not be blank` };
  return { raw: value, min, max, name };
}

/** strconv.Atoi: optional sign, decimal digits. */
function parseGoInt(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** strconv.ParseInt(s, 0, 64) as pflag's int flags use it: sign, 0x / 0o / 0b prefixes, underscores. */
function parseGoIntFlag(s: string): number | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|\d[\d_]*)$/.exec(s);
  if (!m) return undefined;
  const digits = m[2].replaceAll('_', '');
  if (/^0\d/.test(digits) && /[89]/.test(digits)) return undefined;
  const n = /^0\d/.test(digits) ? Number.parseInt(digits, 8) : Number(digits);
  if (Number.isNaN(n)) return undefined;
  return m[1] === '-' ? -n : n;
}

/** Go's strconv.ParseBool: undefined for anything else. */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

function parseGoFloat(s: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|[Ii]nf(inity)?|NaN)$/.test(s)) return undefined;
  const n = Number(s.replace(/^([+-]?)[Ii]nf(inity)?$/, '$1Infinity'));
  return n;
}

/** CA: config/flags/flags.go parseMinMaxFlag. */
function parseMinMax(value: string): MinMax | { error: string } {
  const colon = value.indexOf(':');
  if (colon < 0) return { error: `wrong nodes configuration: ${value}` };
  const [minS, maxS] = [value.slice(0, colon), value.slice(colon + 1)];
  const min = parseGoIntFlag(minS);
  if (min === undefined) {
    return {
      error: `failed to set min size: ${minS}, expected integer, err: strconv.ParseInt: parsing "${minS}": invalid syntax`,
    };
  }
  const max = parseGoIntFlag(maxS);
  if (max === undefined) {
    return {
      error: `failed to set max size: ${maxS}, expected integer, err: strconv.ParseInt: parsing "${maxS}": invalid syntax`,
    };
  }
  if (min < 0) return { error: 'min size must be greater or equal to  0' }; // sic: two spaces upstream
  if (max < min) return { error: 'max size must be greater or equal to min size' };
  return { min, max };
}

/** CA: config/flags/flags.go parseSingleGpuLimit. */
function parseGpuLimit(value: string): GpuLimit | { error: string } {
  const parts = value.split(':');
  if (parts.length !== 3) return { error: `incorrect gpu limit specification: ${value}` };
  const min = parseGoIntFlag(parts[1]);
  if (min === undefined) return { error: `incorrect gpu limit - min is not integer: ${value}` };
  const max = parseGoIntFlag(parts[2]);
  if (max === undefined) return { error: `incorrect gpu limit - max is not integer: ${value}` };
  if (min < 0) return { error: `incorrect gpu limit - min is less than 0; ${value}` };
  if (max < 0) return { error: `incorrect gpu limit - max is less than 0; ${value}` };
  if (min > max) return { error: `incorrect gpu limit - min is greater than max; ${value}` };
  return { type: parts[0], min, max };
}

function convert(def: FlagDef<unknown>, raw: string): { value: unknown } | { error: string } {
  const bad = (why: string) => ({ error: `invalid argument "${raw}" for "--${def.name}" flag: ${why}` });
  switch (def.kind) {
    case 'bool': {
      const v = parseGoBool(raw);
      return v === undefined ? bad(`strconv.ParseBool: parsing "${raw}": invalid syntax`) : { value: v };
    }
    case 'int': {
      const v = parseGoIntFlag(raw);
      return v === undefined ? bad(`strconv.ParseInt: parsing "${raw}": invalid syntax`) : { value: v };
    }
    case 'float': {
      const v = parseGoFloat(raw);
      return v === undefined ? bad(`strconv.ParseFloat: parsing "${raw}": invalid syntax`) : { value: v };
    }
    case 'duration':
      try {
        return { value: parseGoDuration(raw) };
      } catch {
        return bad(`time: invalid duration "${raw}"`);
      }
    case 'minmax': {
      const v = parseMinMax(raw);
      return 'error' in v ? { error: `Failed to parse flags: ${v.error}` } : { value: v };
    }
    default:
      return { value: raw };
  }
}

function supportedIn(def: { since?: number; until?: number }, minor: number): boolean {
  return (def.since === undefined || minor >= def.since) && (def.until === undefined || minor < def.until);
}

/** The CA minors that have a flag (by its name without dashes); undefined for a flag no CA version has. */
export function flagVersions(name: string): { since?: number; until?: number } | undefined {
  const def = DEF_BY_NAME.get(name)?.def;
  if (def) return { since: def.since, until: def.until };
  if (OTHER_FLAG_VERSIONS.has(name)) return OTHER_FLAG_VERSIONS.get(name);
  return KNOWN_FLAGS.has(name) ? {} : undefined;
}

/** "unknown flag: --x (not in cluster-autoscaler 1.N)" plus where the flag exists, for a flag another version has. */
function versionedFlagOf(
  name: string,
  range: { since?: number; until?: number },
  minor: number,
): VersionedFlag {
  return {
    flag: `--${name}`,
    ...(range.since !== undefined && minor < range.since ? { since: range.since } : {}),
    ...(range.until !== undefined && minor >= range.until ? { until: range.until } : {}),
  };
}

/** CA's version as reports print it: the image tag ("v1.32.1"), else the minor casdoctor assumes ("1.32"). */
export function caVersionText(ca: CaConfig): string {
  return ca.version.version ?? `1.${ca.version.minor}`;
}

/** CA's effective configuration for its version: defaults, then the Deployment's args, then --ca-args overrides. */
export function buildCaConfig(input: { deployment?: Deployment; overrideArgs?: string[] }): CaConfig {
  const container = input.deployment ? caContainerOf(input.deployment) : undefined;
  const found = !!container;
  const image = container?.image;
  const parsedVersion = image ? parseCaVersion(image) : undefined;
  const version: CaVersion = {
    ...(image ? { image } : {}),
    ...(parsedVersion?.version ? { version: parsedVersion.version } : {}),
    minor: parsedVersion?.minor ?? NEWEST_KNOWN_MINOR,
    known: parsedVersion?.known ?? false,
  };
  const minor = version.minor;
  const deploymentArgs = container ? caContainerArgs(container) : [];
  const overrideArgs = input.overrideArgs ?? [];
  const fromDeployment = parseCaArgs(deploymentArgs);
  const fromOverride = parseCaArgs(overrideArgs);

  const errors: string[] = [...fromDeployment.errors, ...fromOverride.errors];
  const unknownFlags: string[] = [...fromDeployment.unknownFlags, ...fromOverride.unknownFlags];
  const warnings: string[] = [];
  if (!found) warnings.push(`no cluster-autoscaler Deployment found: using the defaults of CA 1.${minor}`);
  else if (!version.known) {
    warnings.push(
      `CA version not recognised from image ${image ?? '(none)'}: assuming the defaults of CA 1.${NEWEST_KNOWN_MINOR}`,
    );
  }

  const versionedFlags: VersionedFlag[] = [];
  // flags casdoctor only recognises: the same version gate as the typed ones
  for (const parsed of [fromDeployment, fromOverride]) {
    for (const name of Object.keys(parsed.values)) {
      const range = OTHER_FLAG_VERSIONS.get(name);
      if (!range || supportedIn(range, minor)) continue;
      const msg = `unknown flag: --${name} (not in cluster-autoscaler 1.${minor})`;
      if (version.known) {
        unknownFlags.push(`--${name}`);
        versionedFlags.push(versionedFlagOf(name, range, minor));
        errors.push(msg);
      } else warnings.push(msg);
    }
  }
  const flags = {} as Record<keyof CaFlags, FlagValue<unknown>>;
  for (const [key, def] of Object.entries(FLAG_DEFS) as Array<[keyof CaFlags, FlagDef<unknown>]>) {
    const supported = supportedIn(def, minor);
    const overrideRaw = fromOverride.values[def.name];
    const deploymentRaw = fromDeployment.values[def.name];
    // --ca-args replace the Deployment's values of the same flag, also for repeatable flags.
    const raw = overrideRaw ?? deploymentRaw;
    const origin: FlagOrigin = overrideRaw ? 'override' : deploymentRaw ? 'deployment' : 'default';
    const fallback = def.def(minor);
    if (!raw) {
      flags[key] = { value: fallback, origin, supported };
      continue;
    }
    if (!supported) {
      const msg = `unknown flag: --${def.name} (not in cluster-autoscaler 1.${minor})`;
      if (version.known) {
        unknownFlags.push(`--${def.name}`);
        versionedFlags.push(versionedFlagOf(def.name, def, minor));
        errors.push(msg);
      } else warnings.push(msg);
    }
    if (def.kind === 'multi') {
      flags[key] = { value: [...raw], origin, raw: [...raw], supported };
      continue;
    }
    if (def.kind === 'slice') {
      // pflag StringSlice: each occurrence is CSV-split and appended.
      const values = raw.flatMap((r) => (r === '' ? [] : r.split(',').map((s) => s.trim())));
      flags[key] = { value: values, origin, raw: [...raw], supported };
      continue;
    }
    const last = raw[raw.length - 1];
    const conv = convert(def, last);
    if ('error' in conv) {
      errors.push(conv.error);
      flags[key] = { value: fallback, origin, raw: [last], supported };
    } else flags[key] = { value: conv.value, origin, raw: [last], supported };
  }
  const typed = flags as unknown as CaFlags;

  // CA: config/flags/flags.go createAutoscalingOptions.
  if (
    typed.drainPriorityConfig.origin !== 'default' &&
    typed.maxGracefulTerminationSec.origin !== 'default'
  ) {
    errors.push(
      'Invalid configuration, could not use --drain-priority-config together with --max-graceful-termination-sec',
    );
  }
  const gpuLimits: GpuLimit[] = [];
  for (const g of typed.gpuTotal.value) {
    const parsed = parseGpuLimit(g);
    if ('error' in parsed) errors.push(`Failed to parse flags: ${parsed.error}`);
    else gpuLimits.push(parsed);
  }
  const nodeGroupSpecs: NodeGroupSpec[] = [];
  for (const spec of typed.nodes.value) {
    const parsed = parseNodeGroupSpec(spec);
    if ('error' in parsed) errors.push(parsed.error);
    else nodeGroupSpecs.push(parsed);
  }
  const autoDiscovery = parseAutoDiscoverySpecs(typed.nodeGroupAutoDiscovery.value);
  errors.push(...autoDiscovery.errors);
  if (nodeGroupSpecs.length > 0 && typed.nodeGroupAutoDiscovery.value.length > 0) {
    // cloudprovider/aws/README.md: "do not provide a --nodes argument if --node-group-auto-discovery is specified".
    warnings.push('both --nodes and --node-group-auto-discovery are set; the AWS README advises against it');
  }

  return {
    found,
    ...(container && input.deployment
      ? {
          deployment: {
            namespace: input.deployment.metadata.namespace,
            name: input.deployment.metadata.name,
            container: container.name,
            ...(image ? { image } : {}),
            ...(typeof input.deployment.spec?.replicas === 'number'
              ? { replicas: input.deployment.spec.replicas }
              : {}),
          },
        }
      : {}),
    version,
    // what reports quote of CA's command line: secret-like values blanked (they were parsed from the raw arrays above)
    deploymentArgs: scrubArgs(deploymentArgs),
    overrideArgs: scrubArgs(overrideArgs),
    flags: typed,
    nodeGroupSpecs,
    gpuLimits,
    autoDiscovery,
    errors,
    unknownFlags: [...new Set(unknownFlags)],
    versionedFlags: dedupeBy(versionedFlags, (f) => f.flag),
    warnings,
  };
}

function dedupeBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => !seen.has(key(t)) && seen.add(key(t)));
}
