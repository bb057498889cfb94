// Karpenter v1 custom resources in the shape `kubectl get nodepools,ec2nodeclasses,nodeclaims -o json` prints them:
// karpenter.sh/v1 NodePool and NodeClaim (kubernetes-sigs/karpenter pkg/apis/v1), karpenter.k8s.aws/v1 EC2NodeClass
// (aws/karpenter-provider-aws pkg/apis/v1). Pure data; unknown fields are kept (index signatures) so objects round-trip.
import type { KubeObject, MetaCondition, NodeSelectorRequirement, Quantity, ResourceMap, Taint } from './k8s.js';

export const KARPENTER_GROUP = 'karpenter.sh';
export const KARPENTER_AWS_GROUP = 'karpenter.k8s.aws';
export const NODEPOOL_API_VERSION = 'karpenter.sh/v1';
export const NODECLAIM_API_VERSION = 'karpenter.sh/v1';
export const EC2NODECLASS_API_VERSION = 'karpenter.k8s.aws/v1';

// Labels and annotations: karpenter pkg/apis/v1/labels.go
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
export const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
export const NODE_INITIALIZED_LABEL = 'karpenter.sh/initialized';
export const NODE_REGISTERED_LABEL = 'karpenter.sh/registered';
export const DO_NOT_DISRUPT_ANNOTATION = 'karpenter.sh/do-not-disrupt';
export const NODEPOOL_HASH_ANNOTATION = 'karpenter.sh/nodepool-hash';
export const NODECLAIM_MIN_VALUES_RELAXED_ANNOTATION = 'karpenter.sh/nodeclaim-min-values-relaxed';
/** Taint every NodeClaim carries until it registers (karpenter pkg/apis/v1/taints.go UnregisteredNoExecuteTaint). */
export const UNREGISTERED_TAINT_KEY = 'karpenter.sh/unregistered';
export const DISRUPTED_TAINT_KEY = 'karpenter.sh/disrupted';
export const CAPACITY_TYPE_SPOT = 'spot';
export const CAPACITY_TYPE_ON_DEMAND = 'on-demand';
export const CAPACITY_TYPE_RESERVED = 'reserved';
/** AWS provider labels (karpenter-provider-aws pkg/apis/v1/labels.go). */
export const EC2NODECLASS_LABEL = 'karpenter.k8s.aws/ec2nodeclass';

export type KarpenterCondition = MetaCondition;

// ---------------------------------------------------------------- NodePool (karpenter pkg/apis/v1/nodepool.go)

/** NodeSelectorRequirementWithMinValues; operators also include Gte/Lte (nodeclaim.go NodeSelectorOpGte/Lte). */
export interface NodeSelectorRequirementWithMinValues extends NodeSelectorRequirement {
  minValues?: number;
}

export interface NodeClassReference {
  group: string;
  kind: string;
  name: string;
}

export type ConsolidationPolicy = 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced' | string;
export type DisruptionReason = 'Underutilized' | 'Empty' | 'Drifted' | string;

export interface DisruptionBudget {
  /** "10%" or "5"; default "10%". */
  nodes: string;
  /** Cron syntax (UTC unless a TZ is given, e.g. "@daily", "0 9 * * mon-fri"). */
  schedule?: string;
  /** Go duration, e.g. "8h" (metav1.Duration string form). */
  duration?: string;
  reasons?: DisruptionReason[];
}

export interface NodePoolDisruption {
  /** "Never" or a Go duration ("0s" default). */
  consolidateAfter?: string;
  consolidationPolicy?: ConsolidationPolicy;
  budgets?: DisruptionBudget[];
  [k: string]: unknown;
}

export interface NodeClaimTemplateSpec {
  taints?: Taint[];
  startupTaints?: Taint[];
  requirements: NodeSelectorRequirementWithMinValues[];
  nodeClassRef: NodeClassReference;
  terminationGracePeriod?: string;
  /** "Never" or a Go duration; default "720h". */
  expireAfter?: string;
  [k: string]: unknown;
}

export interface NodeClaimTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: NodeClaimTemplateSpec;
}

export interface NodePoolSpec {
  template: NodeClaimTemplate;
  disruption?: NodePoolDisruption;
  /** Resource limits incl. "nodes" (ResourceList). */
  limits?: ResourceMap;
  /** 1-100; higher first. */
  weight?: number;
  /** Static NodePool (alpha, StaticCapacity gate): fixed node count. */
  replicas?: number;
  [k: string]: unknown;
}

export interface NodePoolStatus {
  /** Sum of the capacity of the pool's nodes (ResourceList; includes "nodes" on recent versions). */
  resources?: ResourceMap;
  /** Node count (v1.8+). */
  nodes?: number;
  nodeClassObservedGeneration?: number;
  conditions?: KarpenterCondition[];
  [k: string]: unknown;
}

export interface NodePool extends KubeObject {
  spec: NodePoolSpec;
  status?: NodePoolStatus;
}

export const NODEPOOL_CONDITIONS = ['Ready', 'ValidationSucceeded', 'NodeClassReady', 'NodeRegistrationHealthy'] as const;

// ---------------------------------------------------------------- NodeClaim (karpenter pkg/apis/v1/nodeclaim*.go)

export interface NodeClaimSpec {
  taints?: Taint[];
  startupTaints?: Taint[];
  requirements: NodeSelectorRequirementWithMinValues[];
  resources?: { requests?: ResourceMap };
  nodeClassRef: NodeClassReference;
  terminationGracePeriod?: string;
  expireAfter?: string;
  [k: string]: unknown;
}

export interface NodeClaimStatus {
  nodeName?: string;
  providerID?: string;
  imageID?: string;
  capacity?: ResourceMap;
  allocatable?: ResourceMap;
  conditions?: KarpenterCondition[];
  lastPodEventTime?: string;
  [k: string]: unknown;
}

export interface NodeClaim extends KubeObject {
  spec: NodeClaimSpec;
  status?: NodeClaimStatus;
}

// karpenter pkg/apis/v1/nodeclaim_status.go
export const NODECLAIM_CONDITIONS = [
  'Launched',
  'Registered',
  'Initialized',
  'Consolidatable',
  'Drifted',
  'Drained',
  'VolumesDetached',
  'InstanceTerminating',
  'ConsistentStateFound',
  'DisruptionReason',
] as const;
export type NodeClaimConditionType = (typeof NODECLAIM_CONDITIONS)[number] | 'Ready';

// ---------------------------------------------------------------- EC2NodeClass (karpenter-provider-aws pkg/apis/v1)

export interface SubnetSelectorTerm {
  tags?: Record<string, string>;
  id?: string;
}
export interface SecurityGroupSelectorTerm {
  tags?: Record<string, string>;
  id?: string;
  name?: string;
}
export interface CapacityReservationSelectorTerm {
  tags?: Record<string, string>;
  id?: string;
  ownerID?: string;
  instanceMatchCriteria?: string;
}
export interface AMISelectorTerm {
  /** e.g. "al2023@latest", "bottlerocket@v1.20.0". */
  alias?: string;
  tags?: Record<string, string>;
  id?: string;
  name?: string;
  owner?: string;
  ssmParameter?: string;
}

/**
 * spec.kubelet. Released v1 has a typed struct; at HEAD (unreleased, #9461) it is an open map of the upstream
 * KubeletConfiguration, so the typed fields are the ones Karpenter reads for scheduling and the rest passes through.
 */
export interface EC2KubeletConfiguration {
  clusterDNS?: string[];
  maxPods?: number;
  podsPerCore?: number;
  systemReserved?: Record<string, string>;
  kubeReserved?: Record<string, string>;
  evictionHard?: Record<string, string>;
  evictionSoft?: Record<string, string>;
  evictionSoftGracePeriod?: Record<string, string>;
  evictionMaxPodGracePeriod?: number;
  imageGCHighThresholdPercent?: number;
  imageGCLowThresholdPercent?: number;
  cpuCFSQuota?: boolean;
  [k: string]: unknown;
}

export interface BlockDevice {
  deleteOnTermination?: boolean;
  encrypted?: boolean;
  iops?: number;
  kmsKeyID?: string;
  snapshotID?: string;
  throughput?: number;
  volumeInitializationRate?: number;
  volumeSize?: Quantity;
  volumeType?: string;
}
export interface BlockDeviceMapping {
  deviceName?: string;
  ebs?: BlockDevice;
  rootVolume?: boolean;
}

export interface MetadataOptions {
  httpEndpoint?: string;
  httpProtocolIPv6?: string;
  httpPutResponseHopLimit?: number;
  httpTokens?: string;
}

export interface EC2NodeClassSpec {
  subnetSelectorTerms: SubnetSelectorTerm[];
  securityGroupSelectorTerms: SecurityGroupSelectorTerm[];
  capacityReservationSelectorTerms?: CapacityReservationSelectorTerm[];
  placementGroupSelector?: { name?: string; id?: string };
  associatePublicIPAddress?: boolean;
  amiSelectorTerms: AMISelectorTerm[];
  /** Deprecated in v1 beyond AMI selection by alias; still accepted. */
  amiFamily?: string;
  userData?: string;
  role?: string;
  instanceProfile?: string;
  tags?: Record<string, string>;
  kubelet?: EC2KubeletConfiguration;
  blockDeviceMappings?: BlockDeviceMapping[];
  instanceStorePolicy?: 'RAID0' | string;
  networkInterfaces?: Array<{ networkCardIndex: number; deviceIndex: number; interfaceType: string }>;
  detailedMonitoring?: boolean;
  metadataOptions?: MetadataOptions;
  context?: string;
  [k: string]: unknown;
}

export interface EC2Subnet {
  id: string;
  zone: string;
  zoneID?: string;
}
export interface EC2SecurityGroup {
  id: string;
  name?: string;
}
export interface EC2AMI {
  id: string;
  name?: string;
  deprecated?: boolean;
  /** e.g. [{key:"kubernetes.io/arch",operator:"In",values:["arm64"]}] — further filters instance types. */
  requirements: NodeSelectorRequirement[];
}
export interface EC2CapacityReservation {
  availabilityZone: string;
  endTime?: string;
  id: string;
  instanceMatchCriteria: string;
  instanceType: string;
  ownerID: string;
  reservationType?: 'default' | 'capacity-block' | string;
  interruptible?: boolean;
  state?: 'active' | 'expiring' | string;
}

export interface EC2NodeClassStatus {
  subnets?: EC2Subnet[];
  securityGroups?: EC2SecurityGroup[];
  capacityReservations?: EC2CapacityReservation[];
  amis?: EC2AMI[];
  instanceProfile?: string;
  conditions?: KarpenterCondition[];
  [k: string]: unknown;
}

export interface EC2NodeClass extends KubeObject {
  spec: EC2NodeClassSpec;
  status?: EC2NodeClassStatus;
}

// karpenter-provider-aws pkg/apis/v1/ec2nodeclass_status.go
export const EC2NODECLASS_CONDITIONS = [
  'Ready',
  'SubnetsReady',
  'SecurityGroupsReady',
  'AMIsReady',
  'InstanceProfileReady',
  'CapacityReservationsReady',
  'PlacementGroupReady',
  'ValidationSucceeded',
] as const;

// ---------------------------------------------------------------- Karpenter controller settings

/** Feature gates (karpenter pkg/operator/options/options.go FEATURE_GATES default at HEAD). */
export interface KarpenterFeatureGates {
  NodeRepair: boolean;
  ReservedCapacity: boolean;
  SpotToSpotConsolidation: boolean;
  NodeOverlay: boolean;
  StaticCapacity: boolean;
  CapacityBuffer: boolean;
  [gate: string]: boolean;
}

export const DEFAULT_KARPENTER_FEATURE_GATES: Readonly<KarpenterFeatureGates> = {
  NodeRepair: false,
  ReservedCapacity: true,
  SpotToSpotConsolidation: false,
  NodeOverlay: false,
  StaticCapacity: false,
  CapacityBuffer: false,
};

/** Default VM_MEMORY_OVERHEAD_PERCENT (karpenter-provider-aws pkg/operator/options/options.go). */
export const DEFAULT_VM_MEMORY_OVERHEAD_PERCENT = 0.075;

/** The Karpenter controller Deployment, reduced to what diagnosis needs. */
export interface KarpenterDeploymentSettings {
  namespace?: string;
  name?: string;
  /** From the controller image tag, e.g. "1.8.1"; undefined when it cannot be read (digest-only image). */
  version?: string;
  image?: string;
  /** Raw env values (only literal `value`s; valueFrom is recorded as undefined). */
  env: Record<string, string | undefined>;
  clusterName?: string;
  vmMemoryOverheadPercent: number;
  reservedENIs: number;
  featureGates: KarpenterFeatureGates;
  /** BATCH_MAX_DURATION / BATCH_IDLE_DURATION, Go durations (defaults 10s / 1s). */
  batchMaxDuration?: string;
  batchIdleDuration?: string;
  /** MIN_VALUES_POLICY: Strict (default) | BestEffort. */
  minValuesPolicy?: 'Strict' | 'BestEffort' | string;
  /** PREFERENCE_POLICY: Respect (default) | Ignore. */
  preferencePolicy?: 'Respect' | 'Ignore' | string;
  interruptionQueue?: string;
  /** Where the settings were read from, e.g. "Deployment kube-system/karpenter". */
  source?: string;
}

/** Parses FEATURE_GATES ("A=true,B=false") over the defaults; unknown or malformed entries are ignored. */
export function parseKarpenterFeatureGates(text: string | undefined): KarpenterFeatureGates {
  const gates: KarpenterFeatureGates = { ...DEFAULT_KARPENTER_FEATURE_GATES };
  for (const part of (text ?? '').split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (!k || (v !== 'true' && v !== 'false')) continue;
    gates[k] = v === 'true';
  }
  return gates;
}

/** The settings view from a Deployment's env (defaults where unset or unparsable). */
export function karpenterSettingsFromEnv(
  env: Record<string, string | undefined>,
  extra: Partial<Pick<KarpenterDeploymentSettings, 'namespace' | 'name' | 'version' | 'image' | 'source'>> = {},
): KarpenterDeploymentSettings {
  const overhead = Number(env.VM_MEMORY_OVERHEAD_PERCENT);
  const enis = Number(env.RESERVED_ENIS);
  return {
    ...extra,
    env,
    clusterName: env.CLUSTER_NAME,
    vmMemoryOverheadPercent:
      env.VM_MEMORY_OVERHEAD_PERCENT !== undefined && Number.isFinite(overhead) && overhead >= 0
        ? overhead
        : DEFAULT_VM_MEMORY_OVERHEAD_PERCENT,
    reservedENIs: env.RESERVED_ENIS !== undefined && Number.isInteger(enis) && enis >= 0 ? enis : 0,
    featureGates: parseKarpenterFeatureGates(env.FEATURE_GATES),
    batchMaxDuration: env.BATCH_MAX_DURATION,
    batchIdleDuration: env.BATCH_IDLE_DURATION,
    minValuesPolicy: env.MIN_VALUES_POLICY,
    preferencePolicy: env.PREFERENCE_POLICY,
    interruptionQueue: env.INTERRUPTION_QUEUE,
  };
}

/** Karpenter inputs gathered beside RawInputs (all optional: an empty list means the CRD exists but has no objects). */
export interface KarpenterInputs {
  nodePools: NodePool[];
  ec2NodeClasses: EC2NodeClass[];
  nodeClaims: NodeClaim[];
  settings?: KarpenterDeploymentSettings;
}
