// The externalgrpc provider sunkaimr/cluster-autoscaler-grpc-cloud-provider as casdoctor models it: its node-group
// config (nodegroup-config.yaml / ConfigMap nodegroup-status), instance records and CA's --cloud-config. Pure data.
// Upstream: nodegroup/node_group.go, nodegroup/instance/instance.go, provider/provier.go at commit f792442.
import type { Taint } from './k8s.js';

/** instance.go:11-20, in lifecycle order. */
export const GRPC_INSTANCE_STAGES = [
  'Pending',
  'Creating',
  'Created',
  'Joined',
  'Running',
  'PendingDeletion',
  'Deleting',
  'Deleted',
] as const;
export type GrpcInstanceStage = (typeof GRPC_INSTANCE_STAGES)[number];

/** instance.go:24-30; '' is what waitInstanceCreated writes on reaching Created (node_group.go:1944). */
export const GRPC_INSTANCE_STATUSES = ['Init', 'InProcess', 'Success', 'Failed', 'Unknown', ''] as const;

/** One record of `instances[]` (instance.go:32-41), as written. */
export interface GrpcInstance {
  id: string;
  /** The Kubernetes node name ("" until the VM has an IP). */
  name: string;
  ip: string;
  /** externalgrpc://<provider>/<account>/<region>/<instanceID>; "" until the cloud create call succeeded. */
  providerID: string;
  /** Free text in the YAML; a value outside GRPC_INSTANCE_STAGES is kept as written. */
  stage: string;
  status: string;
  error: string;
  /** RFC 3339 as yaml.v3 writes a time.Time; undefined when absent. */
  updateTime?: string;
}

export type GrpcAutoscalingOptionKey =
  | 'scaleDownUtilizationThreshold'
  | 'scaleDownGpuUtilizationThreshold'
  | 'scaleDownUnneededTime'
  | 'scaleDownUnreadyTime';

/** node_group.go:144-149: Go zero values for every key not written. */
export interface GrpcAutoscalingOptions {
  scaleDownUtilizationThreshold: number;
  scaleDownGpuUtilizationThreshold: number;
  scaleDownUnneededTimeMs: number;
  scaleDownUnreadyTimeMs: number;
  /** The keys actually present in the YAML (the rest are Go zero values). */
  present: GrpcAutoscalingOptionKey[];
}

/** node_group.go:136-142 NodeTemplate. capacity/allocatable are map[string]string. */
export interface GrpcNodeTemplate {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  capacity: Record<string, string>;
  /** Written, but BuildNodeFromTemplate never reads it. */
  allocatable: Record<string, string>;
  taints: Taint[];
}

/** One entry of `nodeGroups[]` (node_group.go:117-134). */
export interface GrpcNodeGroupSpec {
  id: string;
  minSize: number;
  maxSize: number;
  targetSize: number;
  /** undefined = nil pointer: GetOptions returns CA's defaults unchanged (wrapper.go:336-340). */
  autoscalingOptions?: GrpcAutoscalingOptions;
  /** undefined = nil pointer: the provider dereferences it in MatchNodeGroup and BuildNodeFromTemplate. */
  nodeTemplate?: GrpcNodeTemplate;
  /** Key into cloudProviderOption.instanceParameter; "" = none (the group cannot create instances). */
  instanceParameter: string;
  instances: GrpcInstance[];
  /** true for the `default` group the provider adds itself when the config has none (loadNodeGroups l.1404-1428). */
  implicit?: boolean;
  /** Filled by buildNodeGroups from the provider's Deployment: which proto schema answers CA for this group. */
  servedBy?: { schemaEra: GrpcSchemaEra; image?: string };
}

export type ExternalGrpcConfigSource =
  | { kind: 'configmap'; namespace: string; name: string }
  | {
      kind: 'file';
      path: string;
      /** The ConfigMap key mounted at `path`, when the file comes from one (deploy/…-grpc-cloud-provider.yaml does). */
      fromConfigMap?: { namespace: string; name: string; key: string };
    };

/** One input text: the ConfigMap nodegroup-status data key NodeGroupsConfig, or the nodegroup-config.yaml file. */
export interface ExternalGrpcConfigInput {
  source: ExternalGrpcConfigSource;
  /** Already scrubbed of credential values (scrubExternalGrpcCredentials). */
  text: string;
  /** The ConfigMap's cluster-autoscaler.grpc-provider/last-updated annotation, when known. */
  lastUpdated?: string;
}

/** A config problem at a YAML path such as "nodeGroups[2].autoscalingOptions.scaleDownUnneededTime". */
export interface ExternalGrpcConfigProblem {
  source: string;
  path: string;
  message: string;
  /** The provider would not start (klog.Fatal in loadNodeGroups) or would crash on this group. */
  fatal: boolean;
}

/** Where cloud accounts sit: `accounts` (provier.go:15, what the code reads) or the README's `cloudProviderOption.<provider>`. */
export type AccountsLocation = 'accounts' | 'legacy' | 'both' | 'none';

export interface ExternalGrpcConfig {
  /** The input the provider loads at start-up; undefined when none is usable. */
  used?: ExternalGrpcConfigSource;
  /** Human-readable: "ConfigMap kube-system/nodegroup-status" or "file /opt/nodegroup-config.yaml". */
  usedDescription: string;
  /** Why that input: "ConfigMap present and non-empty", "ConfigMap absent", ... */
  usedReason: string;
  lastUpdated?: string;
  /** undefined unless both a ConfigMap and a file were given. */
  fileDiffersFromConfigMap?: boolean;
  /** What differs between file and ConfigMap (group ids and fields), when they differ. */
  fileDifferences: string[];
  /** Groups of the used input, with the implicit `default` appended when the input has none. */
  nodeGroups: GrpcNodeGroupSpec[];
  /** Names of cloudProviderOption.instanceParameter entries, with their providerIdTemplate (and the CVM InstanceType /
   * Placement.Zone of their `parameter`, when written). */
  instanceParameters: Record<string, { providerIdTemplate: string; instanceType?: string; zone?: string }>;
  accountsLocation: AccountsLocation;
  /** "<provider>/<account>" pairs found under cloudProviderOption.accounts (names only). */
  accounts: string[];
  /** Provider keys found at the legacy place cloudProviderOption.<provider> (ignored by the code: G9). */
  legacyAccountProviders: string[];
  /** YAML paths of credential values found in any input (values never kept). */
  credentialPaths: Array<{ source: string; path: string }>;
  problems: ExternalGrpcConfigProblem[];
}

/** CA's --cloud-config for externalgrpc (cloudprovider/externalgrpc/externalgrpc_cloud_provider.go cloudConfig). */
export interface ExternalGrpcCloudConfig {
  address?: string;
  keyPresent: boolean;
  certPresent: boolean;
  cacertPresent: boolean;
  /** CA dials with TLS only when `cert` is non-empty (else grpc.WithInsecure). */
  tls: boolean;
  /** grpc_timeout, or CA's default 5s (CA < 1.29 ignores the key: always 5s). */
  grpcTimeoutMs: number;
  grpcTimeoutRaw?: string;
  /** Errors CA would exit with (klog.Fatal in BuildExternalGrpc) or remarks. */
  problems: string[];
}

/** Where casdoctor thinks the provider's proto schema comes from (see findings.ts providerSchemaEra). */
export type GrpcSchemaEra = 'pre-1.35' | '1.35+' | 'unknown';
