// The scale-down analysis' shapes, shared by the planner's stages (src/simulate/scale-down.ts and scale-down/*).
import type { Node, OwnerReference, Pod } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import type { BlockingPodReason, GroupScaleDownOptions, NodeWait, ScaleDownNodeReport, UnremovableReason } from '../../model/scale-down.js';
import type { TrackedPdb } from '../drainability/pdb-tracker.js';

/** A pod that blocks the node, with what the remediation needs. */
export interface BlockerDetail {
  pod: Pod;
  reason: BlockingPodReason;
  message: string;
  rule: string;
  first: boolean;
  /** LocalStorageRequested: the volumes safe-to-evict-local-volumes would have to name. */
  localVolumes?: string[];
  /** NotEnoughPdb: the PDBs with no disruptions left (at the time CA evaluated the node). */
  pdbs?: TrackedPdb[];
  /** ControllerNotFound / MinReplicasReached / NotReplicated: the pod's controller reference. */
  controller?: OwnerReference;
  /** UnmovableKubeSystemPod on CA 1.33+: when the pod stops blocking. */
  blocksUntil?: Date;
  /** UnmovableKubeSystemPod on CA <= 1.32: when 1.33+ would let it go (creation + 1h). */
  wouldStopBlockingOn133?: Date;
  /** MinReplicasReached: the ReplicaSet's spec.replicas. */
  replicas?: number;
}

export interface NodeScaleDown {
  node: Node;
  name: string;
  group?: NodeGroup;
  report: ScaleDownNodeReport;
  blockers: BlockerDetail[];
  /** Whether CA's removal simulation ran for the node (it passed every earlier stage). */
  simulated: boolean;
  /** NoPlaceToMovePods: the pod that fits nowhere. */
  unplaceablePod?: Pod;
}

export interface Cooldown {
  /** What started it. */
  cause: 'scale-up' | 'scale-down-failure' | 'scale-down-delete';
  at: Date;
  flag: string;
  delayMs: number;
  leftMs: number;
  /** The ASG, when --scale-down-delay-type-local=true applies the delay to one group only. */
  group?: string;
  evidence: string;
}

export interface ScaleDownAnalysis {
  nodes: NodeScaleDown[];
  /** Nodes the command looks at (its --node / --nodegroup / -l), in snapshot order. */
  inScope: NodeScaleDown[];
  summary: string;
  cooldowns: Cooldown[];
  /** When the CA pod (re)started: its in-memory unneeded timers start from zero then. */
  caStartedAt?: Date;
  scaleDownEnabled: boolean;
  clusterUnhealthy: boolean;
  pdbs: TrackedPdb[];
  groupOptions: Map<string, GroupScaleDownOptions>;
  notes: string[];
}

/** A node on its way through the planner's stages: the first stage that keeps it sets its reason. */
export interface Working {
  entry: NodeScaleDown;
  reason?: UnremovableReason;
  summary?: string;
  waits: NodeWait[];
  podsToReschedule: Pod[];
  onCompletion: Pod[];
  ready: boolean;
}
