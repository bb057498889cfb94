/**
 * The shapes of Karpenter's disruption verdicts (what disruption.ts answers per node), and the context they read.
 * Pure types and constants; the rules live in candidate.ts, consolidation.ts, disruption-budgets.ts and expiration.ts.
 */
import type { KubeEvent, Node, Pod, PodDisruptionBudget } from '../../../model/k8s.js';
import type { KarpenterDeploymentSettings, NodeClaim, NodePool } from '../../../model/karpenter.js';
import type { KarpenterDisruptionReason, PoolBudgetState } from './budgets.js';

export type KarpenterDisruptionMethod = 'emptiness' | 'drift' | 'consolidation' | 'expiration';

/** Method -> the budget reason it consumes (emptiness.go:112, drift.go:110, consolidation = Underutilized). */
export const METHOD_REASON: Record<Exclude<KarpenterDisruptionMethod, 'expiration'>, KarpenterDisruptionReason> = {
  emptiness: 'Empty',
  drift: 'Drifted',
  consolidation: 'Underutilized',
};

export type KarpenterBlockerId =
  | 'not-managed'
  | 'nodeclaim-without-node'
  | 'not-initialized'
  | 'marked-for-deletion'
  | 'nominated'
  | 'node-do-not-disrupt'
  | 'missing-nodepool-label'
  | 'nodepool-not-found'
  | 'pod-do-not-disrupt'
  | 'pdb-blocks-eviction'
  | 'multiple-pdbs'
  | 'static-nodepool'
  | 'instance-type-not-found'
  | 'missing-capacity-type-label'
  | 'missing-zone-label'
  | 'consolidation-disabled'
  | 'when-empty-not-empty'
  | 'consolidate-after'
  | 'not-consolidatable'
  | 'budget'
  | 'spot-to-spot-disabled';

export interface KarpenterDisruptionBlocker {
  id: KarpenterBlockerId;
  /** Methods this blocker stops. */
  blocks: KarpenterDisruptionMethod[];
  /** Only limits a method (spot-to-spot: replacing is blocked, deleting is not). */
  partial?: boolean;
  /** Karpenter's error text (logs, err.Error()), exactly; undefined where Karpenter says nothing. */
  karpenterText?: string;
  /** The event Karpenter publishes for it: reason and message as `kubectl describe` shows them. */
  event?: { reason: 'DisruptionBlocked' | 'Unconsolidatable'; on: 'Node and NodeClaim' | 'NodeClaim' | 'NodePool'; message: string };
  /** 'inferred': the condition lives in Karpenter's memory; we read it from its visible traces. */
  certainty: 'exact' | 'inferred';
  explanation: string;
  values: Record<string, string | number | boolean | null>;
  fix: string;
  /** Upstream file:line (kubernetes-sigs/karpenter). */
  source: string;
}

export interface KarpenterMethodVerdict {
  method: KarpenterDisruptionMethod;
  reason?: KarpenterDisruptionReason;
  /** Whether the method is about this node at all (emptiness: empty node; consolidation: non-empty; drift: Drifted). */
  applicable: boolean;
  possible: boolean;
  blockedBy: KarpenterBlockerId[];
  limitedBy: KarpenterBlockerId[];
  /** ISO time: expiration instant, or when consolidateAfter elapses. */
  at?: string;
  detail: string;
}

export interface KarpenterNodeDisruption {
  node?: string;
  nodeClaim?: string;
  nodePool?: string;
  /** NewCandidate succeeds for graceful methods (no candidate or pod blocker). */
  candidate: boolean;
  /** Candidate.IsEmpty (types.go:156-158): no reschedulable pod with a positive eviction cost. */
  empty: boolean;
  /** namespace/name of the pods that would have to move. */
  reschedulablePods: string[];
  blockers: KarpenterDisruptionBlocker[];
  methods: KarpenterMethodVerdict[];
  budgets?: PoolBudgetState;
  /** Facts that are not blockers: ignored annotations, what we could not evaluate. */
  notes: string[];
}

/** Everything the rules read. Treated as immutable: indexes derived from it are cached per context object. */
export interface KarpenterDisruptionContext {
  now: Date;
  nodes: readonly Node[];
  nodeClaims: readonly NodeClaim[];
  nodePools: readonly NodePool[];
  pods: readonly Pod[];
  pdbs: readonly PodDisruptionBudget[];
  events?: readonly KubeEvent[];
  /** version (e.g. "1.8.1") switches version-dependent rules; absent = HEAD behaviour. */
  settings?: Partial<Pick<KarpenterDeploymentSettings, 'featureGates' | 'batchMaxDuration' | 'version'>>;
  /** Instance type names each NodePool offers (from the placement funnel); enables "Instance Type %q not found". */
  instanceTypesByNodePool?: Readonly<Record<string, readonly string[]>>;
}

/** The methods that honour budgets and do-not-disrupt (controller.go:103-114); expiration is forceful. */
export const GRACEFUL: KarpenterDisruptionMethod[] = ['emptiness', 'drift', 'consolidation'];
