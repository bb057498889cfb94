// The scheduling pass' working state: NodePool models, existing capacity and NodeClaims planned in the pass. Types only.
import type { Pod, Taint } from '../../../model/k8s.js';
import type { EC2NodeClass, NodePool } from '../../../model/karpenter.js';
import type { Resources } from '../../../model/scheduling.js';
import type { KarpenterInstanceType } from './instance-types.js';
import type { KRequirements } from './requirements.js';
import type { Topology } from './topology.js';

export interface PoolModel {
  np: NodePool;
  name: string;
  weight: number;
  nodeClass?: EC2NodeClass;
  templateReqs: KRequirements;
  taints: Taint[];
  instanceTypes: KarpenterInstanceType[];
  remaining?: Resources;
  relaxMinValues: boolean;
  /** The AWS controller version (versions.ts), undefined when unknown. */
  version?: string;
  daemons?: { byType: Map<KarpenterInstanceType, Resources>; names: string[]; max: Resources };
}

/** Capacity Karpenter already has or is bringing: an uninitialized node, or a launched NodeClaim without a node. */
export interface ExistingCapacity {
  kind: 'node' | 'nodeclaim';
  name: string;
  nodePool?: string;
  taints: Taint[];
  reqs: KRequirements;
  remaining: Resources;
  why: string;
}

/** A NodeClaim planned earlier in the same pass, which later pods may join (scheduler.go addToInflightNode). */
export interface PlannedClaim {
  nodePool: string;
  taints: Taint[];
  reqs: KRequirements;
  types: KarpenterInstanceType[];
  overheadOf: (it: KarpenterInstanceType) => Resources;
  requests: Resources;
  pods: string[];
}

export interface PassState {
  existing: ExistingCapacity[];
  planned: PlannedClaim[];
  /** Per NodePool, its limits less the NodeClaims planned in this pass (subtractMax: the largest type each). */
  remaining: Map<string, Resources>;
  /** Karpenter's topology for the pass (topology.go NewTopology over the pass' pods). */
  topology?: Topology;
}

/** The pod's topology as one attempt sees it: the relaxed pod, its strict requirements and a fresh NodeClaim hostname. */
export interface TopologyRun {
  t: Topology;
  owner: string;
  pod: Pod;
  strict: KRequirements;
  /** nodeclaim.go NewNodeClaim: "hostname-placeholder-%04d", registered as a hostname domain once a pod is added. */
  hostname: string;
}
