// Kubernetes objects in the shape `kubectl get -o json` prints them. Only the fields casdoctor reads are typed;
// everything else is kept as-is (index signatures) so a snapshot round-trips unchanged.

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  ownerReferences?: OwnerReference[];
  resourceVersion?: string;
  [k: string]: unknown;
}

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

export type Quantity = string | number;
export type ResourceMap = Record<string, Quantity>;

export interface ResourceRequirements {
  requests?: ResourceMap;
  limits?: ResourceMap;
}

export interface ContainerPort {
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
  name?: string;
}

export interface Container {
  name: string;
  image?: string;
  resources?: ResourceRequirements;
  ports?: ContainerPort[];
  restartPolicy?: string; // "Always" on an init container = sidecar
  args?: string[];
  command?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  [k: string]: unknown;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  namespaces?: string[];
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
    preferredDuringSchedulingIgnoredDuringExecution?: unknown[];
  };
  podAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: unknown[];
  };
  podAntiAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: unknown[];
  };
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal' | string;
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | '' | string;
  tolerationSeconds?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
  timeAdded?: string;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway' | string;
  labelSelector?: LabelSelector;
  minDomains?: number;
  nodeAffinityPolicy?: 'Honor' | 'Ignore' | string;
  nodeTaintsPolicy?: 'Honor' | 'Ignore' | string;
  matchLabelKeys?: string[];
}

export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  emptyDir?: { medium?: string; sizeLimit?: Quantity };
  hostPath?: { path: string; type?: string };
  ephemeral?: { volumeClaimTemplate?: unknown };
  [k: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  containers: Container[];
  initContainers?: Container[];
  overhead?: ResourceMap;
  volumes?: Volume[];
  priority?: number;
  priorityClassName?: string;
  schedulerName?: string;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never' | string;
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName. */
  serviceAccount?: string;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never' | string;
  schedulingGates?: Array<{ name: string }>;
  resources?: ResourceRequirements; // pod-level resources (k8s 1.32+ alpha/beta)
  [k: string]: unknown;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown' | string;
  conditions?: PodCondition[];
  nominatedNodeName?: string;
  startTime?: string;
  [k: string]: unknown;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: PodStatus;
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

export interface Node extends KubeObject {
  spec?: {
    providerID?: string;
    unschedulable?: boolean;
    taints?: Taint[];
    [k: string]: unknown;
  };
  status?: {
    capacity?: ResourceMap;
    allocatable?: ResourceMap;
    conditions?: NodeCondition[];
    nodeInfo?: {
      kubeletVersion?: string;
      architecture?: string;
      operatingSystem?: string;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
}

export interface KubeEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  series?: { count?: number; lastObservedTime?: string };
}

export interface PodDisruptionBudget extends KubeObject {
  spec?: {
    selector?: LabelSelector | null;
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    unhealthyPodEvictionPolicy?: string;
  };
  status?: {
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    expectedPods?: number;
  };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: {
    storageClassName?: string | null;
    volumeName?: string;
    accessModes?: string[];
    volumeMode?: 'Filesystem' | 'Block' | string;
    selector?: LabelSelector;
    resources?: ResourceRequirements;
    [k: string]: unknown;
  };
  status?: { phase?: 'Pending' | 'Bound' | 'Lost' | string; [k: string]: unknown };
}

export interface PersistentVolume extends KubeObject {
  spec?: {
    capacity?: ResourceMap;
    accessModes?: string[];
    volumeMode?: 'Filesystem' | 'Block' | string;
    claimRef?: ObjectReference;
    storageClassName?: string;
    nodeAffinity?: { required?: NodeSelector };
    csi?: { driver: string; volumeHandle: string; [k: string]: unknown };
    awsElasticBlockStore?: { volumeID: string; [k: string]: unknown };
    [k: string]: unknown;
  };
  status?: { phase?: string };
}

export interface StorageClass extends KubeObject {
  provisioner: string;
  volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer' | string;
  allowedTopologies?: Array<{ matchLabelExpressions?: Array<{ key: string; values: string[] }> }>;
  parameters?: Record<string, string>;
}

export interface WorkloadSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: { metadata?: ObjectMeta; spec?: PodSpec };
  [k: string]: unknown;
}

export interface Workload extends KubeObject {
  spec?: WorkloadSpec;
  status?: Record<string, unknown>;
}

export type ReplicaSet = Workload;
export type Deployment = Workload;
export type StatefulSet = Workload;
export type DaemonSet = Workload;
export type Job = Workload;
/** core/v1 ReplicationController: CA's drain rules treat it as a ReplicaSet (replicacount/rule.go). */
export type ReplicationController = Workload;

export interface PriorityClass extends KubeObject {
  value: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export type ServiceAccount = KubeObject;

/** metav1.Condition (status.conditions of CRDs): reason and lastTransitionTime are required by the API. */
export interface MetaCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** A taint as kubectl and kube-scheduler print it (pretty.Taint): `key=value:Effect`, or `key:Effect` when the value is empty. */
export function formatTaint(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

/** A taint as a comparison key, `key=value:Effect` with the `=` always written (CA's genTaintKeys). */
export function taintKey(t: Taint): string {
  return `${t.key}=${t.value ?? ''}:${t.effect}`;
}

/** A pod a scale-up could be for: Pending (no phase reads as Pending) and not bound to a node. */
export function isPendingCandidate(pod: Pod): boolean {
  const phase = pod.status?.phase ?? 'Pending';
  return phase === 'Pending' && !pod.spec?.nodeName;
}
