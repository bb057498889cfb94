// Cluster Autoscaler's configuration as casdoctor reconstructs it from the CA Deployment (plus --ca-args overrides).
// Values are typed and in casdoctor units: durations in ms, --memory-total in GiB, cores in cores.

/** Where a flag value came from. 'override' = casdoctor's --ca-args, applied last. */
export type FlagOrigin = 'default' | 'deployment' | 'override';

export interface FlagValue<T> {
  value: T;
  origin: FlagOrigin;
  /** The raw command-line value(s) that produced `value` (absent for defaults). */
  raw?: string[];
  /** false when the detected CA version has no such flag; `value` is then CA's fixed behaviour (or undefined). */
  supported: boolean;
}

export interface MinMax {
  min: number;
  max: number;
}

/** One `--nodes=<min>:<max>:<asg>` spec (CA: config/dynamic/node_group_spec.go SpecFromString). */
export interface NodeGroupSpec {
  raw: string;
  min: number;
  max: number;
  name: string;
}

/** One `--gpu-total=<type>:<min>:<max>` limit. */
export interface GpuLimit {
  type: string;
  min: number;
  max: number;
}

/** A command-line flag as written, after pflag's parsing and `_` -> `-` normalisation. */
export interface ParsedFlag {
  /** Normalised name without dashes, e.g. "scale-down-unneeded-time". */
  name: string;
  /** The value string; "true" for a bare boolean flag. */
  value: string;
  /** The argument(s) as written, e.g. "--scan-interval=10s" or "--nodes 1:3:asg". */
  raw: string;
}

export interface ParsedFlags {
  flags: ParsedFlag[];
  /** name -> every value given, in order. */
  values: Record<string, string[]>;
  /** Flags CA does not know in any version, as written (e.g. "--foo", "-scan-interval"). */
  unknownFlags: string[];
  /** Non-flag arguments (pflag keeps them; CA ignores them). */
  positional: string[];
  /** pflag errors, e.g. "flag needs an argument: --nodes". */
  errors: string[];
}

export interface CaVersion {
  image?: string;
  /** The tag as found, e.g. "v1.32.1" (also set for unrecognised tags such as "v1.30.0-eks-abc"). */
  version?: string;
  /** Minor version whose defaults are applied (newest known when the tag is not a plain vX.Y.Z). */
  minor: number;
  known: boolean;
}

/** Auto-discovery as CA's AWS provider parses it (CA: cloudprovider/aws/aws_manager.go parseASGAutoDiscoverySpec). */
export interface AutoDiscoveryConfig {
  /** All specs merged into one map and ANDed; undefined value = tag key must exist (any value). */
  tags: Record<string, string | undefined>;
  /** Each flag's own parse result, in order. */
  specs: Array<{ raw: string; tags: Record<string, string | undefined>; error?: string }>;
  errors: string[];
}

export interface CaFlags {
  // --- general / provider ---
  cloudProvider: FlagValue<string>;
  namespace: FlagValue<string>;
  clusterName: FlagValue<string>;
  address: FlagValue<string>;
  statusConfigMapName: FlagValue<string>;
  writeStatusConfigmap: FlagValue<boolean>;
  nodeGroupAutoDiscovery: FlagValue<string[]>;
  nodes: FlagValue<string[]>;
  awsUseStaticInstanceList: FlagValue<boolean>;
  scanInterval: FlagValue<number>;
  v: FlagValue<number>;
  recordDuplicatedEvents: FlagValue<boolean>;
  debuggingSnapshotEnabled: FlagValue<boolean>;
  maxInactivity: FlagValue<number>;
  maxFailingTime: FlagValue<number>;
  maxStartupTime: FlagValue<number | undefined>;
  // --- templates and taints ---
  startupTaint: FlagValue<string[]>;
  statusTaint: FlagValue<string[]>;
  ignoreTaint: FlagValue<string[]>;
  startupTaintPrefix: FlagValue<string[]>;
  forceDs: FlagValue<boolean>;
  scaleFromUnschedulable: FlagValue<boolean>;
  nodeInfoCacheExpireTime: FlagValue<number>;
  // --- scale-up ---
  maxNodesTotal: FlagValue<number>;
  coresTotal: FlagValue<MinMax>;
  memoryTotal: FlagValue<MinMax>;
  gpuTotal: FlagValue<string[]>;
  newPodScaleUpDelay: FlagValue<number>;
  expendablePodsPriorityCutoff: FlagValue<number>;
  maxNodeProvisionTime: FlagValue<number>;
  maxNodeStartupTime: FlagValue<number>;
  initialNodeGroupBackoffDuration: FlagValue<number>;
  maxNodeGroupBackoffDuration: FlagValue<number>;
  nodeGroupBackoffResetTimeout: FlagValue<number>;
  maxTotalUnreadyPercentage: FlagValue<number>;
  okTotalUnreadyCount: FlagValue<number>;
  scaleUpFromZero: FlagValue<boolean>;
  enforceNodeGroupMinSize: FlagValue<boolean>;
  expander: FlagValue<string>;
  estimator: FlagValue<string>;
  balanceSimilarNodeGroups: FlagValue<boolean>;
  parallelScaleUp: FlagValue<boolean>;
  maxNodesPerScaleup: FlagValue<number>;
  maxNodegroupBinpackingDuration: FlagValue<number>;
  maxBinpackingTime: FlagValue<number>;
  frequentLoopsEnabled: FlagValue<boolean>;
  enableDynamicResourceAllocation: FlagValue<boolean>;
  bypassedSchedulerNames: FlagValue<string[]>;
  allowedSchedulerNames: FlagValue<string[]>;
  scaleupSimulationForSkippedNodeGroupsEnabled: FlagValue<boolean>;
  // --- 1.30-1.37 features (ProvisioningRequest, CapacityBuffer, CapacityQuota, salvo scale-up, ...) ---
  enableProvisioningRequests: FlagValue<boolean>;
  capacityBufferControllerEnabled: FlagValue<boolean>;
  capacityBufferPodInjectionEnabled: FlagValue<boolean>;
  nodeRemovalLatencyTrackingEnabled: FlagValue<boolean>;
  maxNodeSkipEvalTimeTrackerEnabled: FlagValue<boolean>;
  salvoScaleUp: FlagValue<boolean>;
  salvoScaleUpBudget: FlagValue<number>;
  capacityQuotasEnabled: FlagValue<boolean>;
  fastpathBinpackingEnabled: FlagValue<boolean>;
  capacityBufferPodDryRunEnabled: FlagValue<boolean>;
  enableGracefulDegradation: FlagValue<boolean>;
  pendingPodsBatchingTimeout: FlagValue<number>;
  schedulerVerbosity: FlagValue<number>;
  // --- scale-down ---
  scaleDownEnabled: FlagValue<boolean>;
  scaleDownUtilizationThreshold: FlagValue<number>;
  scaleDownGpuUtilizationThreshold: FlagValue<number>;
  scaleDownUnneededTime: FlagValue<number>;
  scaleDownUnreadyTime: FlagValue<number>;
  scaleDownUnreadyEnabled: FlagValue<boolean>;
  scaleDownDelayAfterAdd: FlagValue<number>;
  scaleDownDelayAfterDelete: FlagValue<number>;
  scaleDownDelayAfterFailure: FlagValue<number>;
  scaleDownDelayTypeLocal: FlagValue<boolean>;
  unremovableNodeRecheckTimeout: FlagValue<number>;
  scaleDownSimulationTimeout: FlagValue<number>;
  maxScaleDownParallelism: FlagValue<number>;
  maxEmptyBulkDelete: FlagValue<number | undefined>;
  maxDrainParallelism: FlagValue<number>;
  parallelDrain: FlagValue<boolean>;
  maxGracefulTerminationSec: FlagValue<number>;
  drainPriorityConfig: FlagValue<string>;
  maxPodEvictionTime: FlagValue<number>;
  nodeDeleteDelayAfterTaint: FlagValue<number>;
  nodeDeletionDelayTimeout: FlagValue<number>;
  nodeDeletionBatcherInterval: FlagValue<number>;
  cordonNodeBeforeTerminating: FlagValue<boolean>;
  daemonsetEvictionForEmptyNodes: FlagValue<boolean>;
  daemonsetEvictionForOccupiedNodes: FlagValue<boolean>;
  skipNodesWithSystemPods: FlagValue<boolean>;
  blockingSystemPodDistruptionTimeout: FlagValue<number | undefined>;
  skipNodesWithLocalStorage: FlagValue<boolean>;
  skipNodesWithCustomControllerPods: FlagValue<boolean>;
  minReplicaCount: FlagValue<number>;
  ignoreDaemonsetsUtilization: FlagValue<boolean>;
  ignoreMirrorPodsUtilization: FlagValue<boolean>;
  maxBulkSoftTaintCount: FlagValue<number>;
  maxBulkSoftTaintTime: FlagValue<number>;
  nodeDeletionCandidateTtl: FlagValue<number>;
  scaleDownNonEmptyCandidatesCount: FlagValue<number>;
  scaleDownCandidatesPoolRatio: FlagValue<number>;
  scaleDownCandidatesPoolMinCount: FlagValue<number>;
}

export interface CaConfig {
  /** false when no CA Deployment was found: `flags` then hold the defaults of the newest known version. */
  found: boolean;
  deployment?: { namespace?: string; name?: string; container: string; image?: string; replicas?: number };
  version: CaVersion;
  /** The CA container's arguments after the binary (command tail + args). */
  deploymentArgs: string[];
  overrideArgs: string[];
  flags: CaFlags;
  /** Parsed --nodes (valid ones only; invalid ones are in `errors`). */
  nodeGroupSpecs: NodeGroupSpec[];
  /** Parsed --gpu-total (valid ones only). */
  gpuLimits: GpuLimit[];
  autoDiscovery: AutoDiscoveryConfig;
  /** Errors CA would fail to start with (flag syntax, bad values, bad --nodes / auto-discovery specs). */
  errors: string[];
  /** Flags the detected CA version does not know (CA exits with "unknown flag"). */
  unknownFlags: string[];
  /**
   * The subset of `unknownFlags` that other CA versions have: `since` = first minor with the flag (upgrade to it),
   * `until` = first minor without it (it was removed). Absent in configs built before this field existed.
   */
  versionedFlags?: VersionedFlag[];
  /** Non-fatal remarks (unknown version, --nodes together with auto-discovery, ...). */
  warnings: string[];
}

/** A flag CA has in some versions but not in the detected one. */
export interface VersionedFlag {
  /** As written on the command line, e.g. "--salvo-scale-up". */
  flag: string;
  /** First CA minor with the flag, when this version is older. */
  since?: number;
  /** First CA minor without the flag, when this version is newer (the flag was removed). */
  until?: number;
}
