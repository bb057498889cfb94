import type {
  AutoScalingGroup,
  Ec2Image,
  Ec2InstanceTypeInfo,
  Ec2InstanceTypeOffering,
  Ec2SpotPrice,
  EksNodegroup,
  IamEvaluationResult,
  LaunchConfiguration,
  LaunchTemplateVersion,
  ScalingActivity,
} from './aws.js';
import type { KarpenterLogSummary } from './karpenter-log.js';
import type {
  ConfigMap,
  DaemonSet,
  Deployment,
  Job,
  KubeEvent,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  PriorityClass,
  ReplicaSet,
  ReplicationController,
  ServiceAccount,
  StatefulSet,
  StorageClass,
} from './k8s.js';
import type { CapacityBuffer, PodTemplate, ProvisioningRequest } from './ca-crds.js';
import type { CaLogSummary } from './ca-log.js';
import type { ExternalGrpcConfigInput } from './externalgrpc.js';
import type { EC2NodeClass, NodeClaim, NodePool } from './karpenter.js';
import type { CaLogText, CaProxyText } from './ca-record.js';

/** Why a piece of data is missing from the snapshot. */
export type GapReason =
  | 'forbidden'
  | 'unauthorized'
  | 'not-found'
  | 'throttled'
  | 'timeout'
  | 'error'
  | 'not-provided';

export interface Gap {
  /** e.g. "poddisruptionbudgets.policy", "autoscaling:DescribeAutoScalingGroups" */
  resource: string;
  /** e.g. "cluster scope", "namespace payments" */
  scope?: string;
  reason: GapReason;
  detail: string;
}

/**
 * Everything gathered, in upstream shapes. Produced by the offline loader (from files) or the live gatherers
 * (from the APIs); the two must be interchangeable.
 */
export interface RawInputs {
  pods: Pod[];
  nodes: Node[];
  events: KubeEvent[];
  pdbs: PodDisruptionBudget[];
  pvcs: PersistentVolumeClaim[];
  pvs: PersistentVolume[];
  storageClasses: StorageClass[];
  replicaSets: ReplicaSet[];
  /** core/v1 ReplicationControllers: what CA's drain rules look up for pods they own. */
  replicationControllers: ReplicationController[];
  deployments: Deployment[];
  statefulSets: StatefulSet[];
  daemonSets: DaemonSet[];
  jobs: Job[];
  priorityClasses: PriorityClass[];
  configMaps: ConfigMap[];
  serviceAccounts: ServiceAccount[];
  /** CA's ProvisioningRequests (autoscaling.x-k8s.io); provided and empty when the CRD is not installed. */
  provisioningRequests: ProvisioningRequest[];
  /** PodTemplates (core v1): what ProvisioningRequests and CapacityBuffers reference. */
  podTemplates: PodTemplate[];
  /** CA's CapacityBuffers (autoscaling.x-k8s.io); provided and empty when the CRD is not installed. */
  capacityBuffers: CapacityBuffer[];
  /** Karpenter's NodePools (karpenter.sh/v1); provided and empty when the CRD is not installed. */
  nodePools: NodePool[];
  /** Karpenter's EC2NodeClasses (karpenter.k8s.aws/v1); provided and empty when the CRD is not installed. */
  ec2NodeClasses: EC2NodeClass[];
  /** Karpenter's NodeClaims (karpenter.sh/v1); provided and empty when the CRD is not installed. */
  nodeClaims: NodeClaim[];
  autoScalingGroups: AutoScalingGroup[];
  launchTemplateVersions: LaunchTemplateVersion[];
  launchConfigurations: LaunchConfiguration[];
  /** from describe-instance-types */
  instanceTypes: Ec2InstanceTypeInfo[];
  /** from get-instance-types-from-instance-requirements: [{InstanceType}] in API order */
  instanceTypesFromRequirements: Array<{ InstanceType: string }>;
  images: Ec2Image[];
  /** from describe-instance-type-offerings --location-type availability-zone (read when Karpenter is present) */
  instanceTypeOfferings: Ec2InstanceTypeOffering[];
  scalingActivities: ScalingActivity[];
  iamEvaluationResults: IamEvaluationResult[];
  eksNodegroups: EksNodegroup[];
  /** What could not be gathered, and why. */
  gaps: Gap[];
  /** Non-fatal notes from gathering (unknown files, ...). */
  warnings: string[];
  /** Where the data came from: file paths, or "live: <context>" / "live: aws <region>". */
  sources: string[];
  /** Which kinds of data the source could have provided at all (live gathers everything; a dump only what it holds). */
  provided: Set<DataKind>;
  /** CA's own log, live (`pods/log`): current and previous container; absent when not read. */
  caLogTexts?: CaLogText[];
  /** CA's /metrics and /snapshotz through the pod proxy (`pods/proxy`); absent when not read. */
  caProxyTexts?: CaProxyText[];
  /** CA's logs parsed (live from caLogTexts, offline from log files in --from): bounded summaries. */
  caLogs?: CaLogSummary[];
  /** The externalgrpc provider's config texts (a bare nodegroup-config.yaml in --from), credentials already scrubbed. */
  externalGrpcConfigs?: ExternalGrpcConfigInput[];
  /** Karpenter's controller logs (JSON lines in --from, or live): bounded summaries, for `casdoctor history`. */
  karpenterLogs?: KarpenterLogSummary[];
  /** Karpenter's log texts, bounded, kept only for `casdoctor snapshot` to write them again (as caLogTexts for CA). */
  karpenterLogTexts?: Array<{ name: string; text: string; truncated: boolean }>;
  /** CloudTrail LookupEvents records (`aws cloudtrail lookup-events --output json` Events, or live), as AWS prints them. */
  cloudTrailEvents?: Array<Record<string, unknown>>;
  /** ec2:DescribeSpotPriceHistory records (live when Karpenter is present, or its `--output json` in --from): spot prices. */
  spotPriceHistory?: Ec2SpotPrice[];
  /** Where the spot prices came from ("live ec2:DescribeSpotPriceHistory <region>", file paths). */
  spotPriceSources?: string[];
  /** A `casdoctor snapshot` directory's own record of when it was taken (its README.md), read with --from. */
  takenAt?: string;
  /** Every Pod of a --from input came as a single object (`kubectl get pod NAME -o json`), none in a List. */
  podsOneByOne?: boolean;
  /**
   * Why the pods of a --from input are only part of the cluster's (simulate/partial-input.ts), set by the loader; a live
   * gathering lists every namespace's pods.
   */
  podsPartial?: { detail: string; missingNamespaces: string[]; oneByOne: boolean; podsOnly?: string[] };
}

export type DataKind = Exclude<
  keyof RawInputs,
  'gaps' | 'warnings' | 'sources' | 'provided' | 'caLogTexts' | 'caProxyTexts' | 'caLogs' | 'externalGrpcConfigs' | 'karpenterLogs' | 'karpenterLogTexts' | 'cloudTrailEvents' | 'spotPriceHistory' | 'spotPriceSources' | 'takenAt' | 'podsOneByOne' | 'podsPartial'
>;

export const DATA_KINDS: readonly DataKind[] = [
  'pods',
  'nodes',
  'events',
  'pdbs',
  'pvcs',
  'pvs',
  'storageClasses',
  'replicaSets',
  'replicationControllers',
  'deployments',
  'statefulSets',
  'daemonSets',
  'jobs',
  'priorityClasses',
  'configMaps',
  'serviceAccounts',
  'provisioningRequests',
  'podTemplates',
  'capacityBuffers',
  'nodePools',
  'ec2NodeClasses',
  'nodeClaims',
  'autoScalingGroups',
  'launchTemplateVersions',
  'launchConfigurations',
  'instanceTypes',
  'instanceTypesFromRequirements',
  'images',
  'instanceTypeOfferings',
  'scalingActivities',
  'iamEvaluationResults',
  'eksNodegroups',
];

/**
 * A kind's objects, or undefined when the kind was not gathered: neither provided (read offline, listed live) nor
 * present. Provided and empty is [] (e.g. the CRD is not installed).
 */
export function gatheredList<K extends DataKind>(raw: RawInputs, kind: K): RawInputs[K] | undefined {
  const value = raw[kind];
  return raw.provided.has(kind) || (Array.isArray(value) && value.length > 0) ? value : undefined;
}

export function emptyInputs(): RawInputs {
  const r: Partial<RawInputs> = { gaps: [], warnings: [], sources: [], provided: new Set() };
  for (const k of DATA_KINDS) (r as Record<string, unknown>)[k] = [];
  return r as RawInputs;
}
