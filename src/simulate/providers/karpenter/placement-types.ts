// The types of casdoctor's Karpenter scheduling model: the context it reads and the verdicts it returns. Pure.
import type { DaemonSet, Node, PersistentVolume, PersistentVolumeClaim, Pod, ResourceMap, StorageClass } from '../../../model/k8s.js';
import type { EC2NodeClass, KarpenterDeploymentSettings, NodeClaim, NodePool } from '../../../model/karpenter.js';
import type { InstanceTypeTable } from '../../instance-types.js';
import type { InstanceTypeOfferingRow } from './instance-types.js';

/** karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go registrationTimeout / LaunchTimeout. */
export const REGISTRATION_TTL_MS = 15 * 60_000;
export const LAUNCH_TTL_MS = 5 * 60_000;

export interface KarpenterPlacementContext {
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  nodeClaims: NodeClaim[];
  nodes: Node[];
  /** All pods (for DaemonSet pods already running, whose spec Karpenter prefers over the template). */
  pods?: Pod[];
  daemonSets: DaemonSet[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  storageClasses?: StorageClass[];
  instanceTypes: InstanceTypeTable;
  settings?: KarpenterDeploymentSettings;
  liveOfferings?: InstanceTypeOfferingRow[];
  region?: string;
  now: Date;
}

export type PlacementStage =
  | 'unmanaged-nodeclass'
  | 'static-nodepool'
  | 'deleting'
  | 'nodepool-not-ready'
  | 'no-instance-types'
  | 'nodepool-requirements'
  | 'node-limit'
  | 'resource-limits'
  | 'taints'
  | 'host-ports'
  | 'requirements'
  | 'volume-topology'
  | 'topology'
  | 'instance-types'
  | 'min-values';

export interface FunnelStep {
  step: 'nodepool' | 'limits' | 'requirements' | 'resources' | 'offerings' | 'minValues';
  /** Instance types still in the running after this step. */
  remaining: number;
  /** A few of them (cheapest-looking first: fewest vCPUs, then memory). */
  examples: string[];
}

export interface PoolPlacement {
  nodePool: string;
  weight: number;
  verdict: 'fits' | 'rejected' | 'not-evaluated';
  /** True for the pool Karpenter would launch into (the first that fits in weight order). */
  chosen: boolean;
  stage?: PlacementStage;
  /** Karpenter's error for this pool as it prints it at HEAD (one of the "; "-joined parts of the event). */
  error?: string;
  /** The same error as Karpenter <= v1.4 printed it (with pool name and DaemonSet overhead). */
  legacyError?: string;
  /** The pool fits, but launching would fail on the NodeClass' AMIs (amifamily/resolver.go Resolve): the NodeClaim never launches. */
  launchError?: string;
  /** Plain explanation with the values behind the verdict. */
  detail: string;
  nodeClass?: { name: string; found: boolean; ready?: boolean; zones: string[]; reason?: string };
  /** DaemonSets whose pods would run on this pool's nodes and their summed requests (the largest variant). */
  daemonSets: string[];
  daemonSetOverhead: ResourceMap;
  /** limits minus what the pool's nodes and in-flight NodeClaims hold (only limited resources). */
  remainingLimits?: ResourceMap;
  capacityTypes: string[];
  zones: string[];
  funnel: FunnelStep[];
  notes: string[];
  /**
   * For a pool stopped by its limits: what the pool would do without them. fits → the limit is what stops the pod, and
   * `raise` holds, per limited resource, the smallest spec.limits value that lets the smallest fitting type in; else the
   * stage and error that would still stop it.
   */
  withoutLimits?: { fits: boolean; raise?: ResourceMap; stage?: PlacementStage; error?: string };
}

export interface PodEligibility {
  provisionable: boolean;
  /** Why Karpenter does not consider the pod (IsProvisionable / Validate). */
  reason?: string;
  /** Karpenter ignores the pod without any event (karpenter.sh/nodepool DoesNotExist). */
  silent?: boolean;
  /** FailedScheduling event Karpenter publishes for an invalid pod. */
  event?: string;
}

export interface StuckNodeClaim {
  name: string;
  nodePool: string;
  stage: 'launch' | 'registration' | 'initialization';
  /** Since the condition that is still pending last changed (ms). */
  ageMs: number;
  /** Karpenter's own bound for this stage (registration 15m, launch 5m); undefined: no bound. */
  boundMs?: number;
  overdue: boolean;
  providerID?: string;
  nodeName?: string;
  message: string;
}

/**
 * What Karpenter does for the pod in its next pass: launch a NodeClaim ('new-node'), wait for capacity it already has
 * or is bringing ('in-flight': an existing node, an uninitialized node or a NodeClaim in flight), nothing ('no-node':
 * every NodePool rejects it), leave it alone ('ignored'), or casdoctor cannot tell ('not-evaluated', see notEvaluated).
 */
export type KarpenterOutcome = 'new-node' | 'in-flight' | 'no-node' | 'ignored' | 'not-evaluated';

export interface KarpenterPendingExplanation {
  pod: string;
  eligibility: PodEligibility;
  outcome: KarpenterOutcome;
  /** Why the outcome is 'not-evaluated': what casdoctor does not model for this pod, and what that means. */
  notEvaluated?: string;
  /** The capacity Karpenter already has or is bringing that takes the pod (outcome 'in-flight'). */
  inFlight?: { kind: 'node' | 'nodeclaim'; name: string; nodePool?: string; why: string };
  pools: PoolPlacement[];
  /** The NodePool Karpenter would launch into. */
  chosen?: string;
  /** The FailedScheduling event text at HEAD ("Failed to schedule pod, ..."), when no pool fits. */
  event?: string;
  /** The same as Karpenter <= v1.4 printed it. */
  legacyEvent?: string;
  stuckNodeClaims: StuckNodeClaim[];
  notes: string[];
}
