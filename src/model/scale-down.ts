/** The per-node result of `scale-down-blockers`: the JSON contract's `nodes[]` entries (extra fields only ever added). */

/** CA's UnremovableReason names (simulator/cluster.go), as exported in cluster_autoscaler_unremovable_nodes_count. */
export type UnremovableReason =
  | 'ScaleDownDisabledAnnotation'
  | 'ScaleDownUnreadyDisabled'
  | 'NotAutoscaled'
  | 'NotUnneededLongEnough'
  | 'NotUnreadyLongEnough'
  | 'NodeGroupMinSizeReached'
  | 'MinimalResourceLimitExceeded'
  | 'CurrentlyBeingDeleted'
  | 'NotUnderutilized'
  | 'NoPlaceToMovePods'
  | 'BlockedByPod'
  | 'UnexpectedError'
  | 'BlockedByOnCompletionPod';

/** CA's BlockingPodReason names (utils/drain/drain.go). */
export type BlockingPodReason =
  | 'ControllerNotFound'
  | 'MinReplicasReached'
  | 'NotReplicated'
  | 'LocalStorageRequested'
  | 'NotSafeToEvictAnnotation'
  | 'UnmovableKubeSystemPod'
  | 'NotEnoughPdb'
  | 'UnexpectedError';

export const BLOCKING_POD_REASONS: readonly BlockingPodReason[] = [
  'ControllerNotFound',
  'MinReplicasReached',
  'NotReplicated',
  'LocalStorageRequested',
  'NotSafeToEvictAnnotation',
  'UnmovableKubeSystemPod',
  'NotEnoughPdb',
  'UnexpectedError',
];

export interface BlockingPodReport {
  namespace: string;
  name: string;
  caReason: BlockingPodReason;
  /** CA's own error text for the pod, e.g. "pod with local storage present: web-0". */
  message: string;
  /** The drainability rule that decided (CA's rule Name(), e.g. "LocalStorage"). */
  rule: string;
  /** True for the pod CA reports: the first blocking pod in the node's pod list (GetPodsToMove stops there). */
  first: boolean;
  /** The pod runs on this other node; CA's simulation moved it here while removing that node earlier in the loop. */
  movedFrom?: string;
}

/** Why a pod on the node does not block, where users often believe it does. */
export type NotBlockingKind =
  | 'DaemonSet'
  | 'Mirror'
  | 'Completed'
  | 'LongTerminating'
  | 'SafeToEvict'
  | 'KubeSystemPastTimeout'
  | 'MemoryEmptyDir'
  | 'LocalVolumesAnnotated'
  | 'Expendable';

export interface NotBlockingPod {
  namespace: string;
  name: string;
  kind: NotBlockingKind;
  detail: string;
  /** MemoryEmptyDir / LocalVolumesAnnotated: the volume names. */
  volumes?: string[];
}

export interface NodeUtilization {
  /** requests / allocatable, 0..1 (may exceed 1 when the node is overcommitted). */
  cpu: number;
  memory: number;
  /** Only on GPU nodes: then the only resource that counts. */
  gpu?: number;
  /** The value CA compares: max(cpu, memory), or gpu on GPU nodes. */
  value: number;
  /** The resource that gave `value` (memory wins a tie, as in CA). */
  resource: string;
  threshold: number;
  /** Where the threshold came from: the CA flag or the ASG's autoscaling-options tag. */
  thresholdSource: 'flag' | 'asg-tag' | 'provider';
  /** DaemonSet / mirror pod requests left out of numerator and denominator. */
  ignoredDaemonSets: boolean;
  ignoredMirrorPods: boolean;
}

/** Something that delays the deletion of a node CA already considers removable (or will, once it passes). */
export interface NodeWait {
  /** loop-gate: CA skips all scale-down (--scale-down-enabled=false, cluster unhealthy). */
  kind: 'unneeded-time' | 'unready-time' | 'cooldown' | 'on-completion' | 'loop-gate';
  detail: string;
  /** Seconds left, when the data shows them. */
  leftSeconds?: number;
}

export interface PodMove {
  namespace: string;
  name: string;
  /** The node the simulation placed the pod on. */
  destination: string;
}

export interface UnplaceablePod {
  namespace: string;
  name: string;
  /** Set when CA's simulation had moved the pod here from another node earlier in the loop. */
  movedFrom?: string;
  /** kube-scheduler-style summary over the destination nodes ("0/9 nodes are available: ..."). */
  message: string;
}

export type ScaleDownVerdict = 'removable' | 'waiting' | 'blocked';

export interface ScaleDownNodeReport {
  name: string;
  /** The ASG (CA node group) the node belongs to, null when none. */
  nodeGroup: string | null;
  /** CA would delete the node: no UnremovableReason applies. */
  removable: boolean;
  /** CA's UnremovableReason for the node, null when removable. */
  caReason: UnremovableReason | null;
  /** removable, waiting (a timer or cooldown still runs), or blocked. */
  verdict: ScaleDownVerdict;
  /** One line explaining the verdict with concrete values. */
  summary: string;
  /** null when CA never computes it (the node is filtered out before eligibility). */
  utilization: NodeUtilization | null;
  /** Every pod that blocks the node by CA's drainability rules, even when the node is unremovable for another reason. */
  blockingPods: BlockingPodReport[];
  /** Pods that do not block, with why. */
  notBlocking: NotBlockingPod[];
  /** Where the simulation moved the node's pods (only for nodes CA simulates successfully). */
  podsToMove?: PodMove[];
  /** The first pod that fits nowhere (NoPlaceToMovePods). */
  unplaceable?: UnplaceablePod;
  waits: NodeWait[];
  notes: string[];
  /**
   * Where the real CA's verdict depends on a choice it makes differently from run to run (the order of a node's pods,
   * the order it simulates nodes in, where it places moved pods): "CA may decide either", with why. Absent when not.
   */
  caMayDecideEither?: string[];
  /** What CA's own log last said of the node (within 10 minutes of the log's end), when a log was read. */
  caLogged?: { status: 'unremovable' | 'removable' | 'unneeded' | 'removing'; reason?: string; message: string; at?: string };
}

/** A node group's scale-down options as CA reads them: the provider's GetOptions, else CA's flags. */
export interface GroupScaleDownOptions {
  threshold: number;
  gpuThreshold: number;
  /** 'provider': the provider's GetOptions answered (externalgrpc's autoscalingOptions). */
  thresholdSource: 'flag' | 'asg-tag' | 'provider';
  gpuThresholdSource: 'flag' | 'asg-tag' | 'provider';
  unneededTimeMs: number;
  unreadyTimeMs: number;
  ignoreDaemonSetsUtilization: boolean;
  /** Tag values CA would reject (warning log, default kept). */
  problems: string[];
}
