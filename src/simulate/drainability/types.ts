/**
 * CA's drainability framework (simulator/drainability/status.go, context.go): each rule looks at one pod and returns an
 * outcome; rules run in order and the first non-Undefined outcome wins (rules/rules.go Rules.Drainable).
 */
import type { BlockingPodReason } from '../../model/scale-down.js';
import type { DaemonSet, Job, Pod, ReplicaSet, StatefulSet } from '../../model/k8s.js';
import type { RemainingPdbTracker } from './pdb-tracker.js';

/** drainability.OutcomeType: Undefined lets the next rule decide; the others are decisive. */
export type DrainOutcome = 'Undefined' | 'DrainOk' | 'BlockDrain' | 'SkipDrain' | 'WaitForCompletion';

export interface DrainStatus {
  outcome: DrainOutcome;
  /** Set with BlockDrain. */
  reason?: BlockingPodReason;
  /** CA's error text for BlockDrain, or casdoctor's explanation for a decisive non-blocking outcome. */
  message?: string;
}

/**
 * The controller objects CA's listers would return. A kind is undefined when the snapshot lacks it: the rule then
 * cannot look the controller up, and casdoctor says so instead of guessing.
 */
export interface ControllerListers {
  /** core/v1 ReplicationControllers (only `spec.replicas` is read). */
  replicationControllers?: Map<string, ReplicationControllerLike>;
  replicaSets?: Map<string, ReplicaSet>;
  statefulSets?: Map<string, StatefulSet>;
  daemonSets?: Map<string, DaemonSet>;
  jobs?: Map<string, Job>;
}

/** A core/v1 ReplicationController as `kubectl get rc -o json` prints it; the rule reads only metadata and spec.replicas. */
export interface ReplicationControllerLike {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; uid?: string };
  spec?: { replicas?: number };
}

/** The CA flags the rules read (options.NodeDeleteOptions) plus the version-dependent behaviour. */
export interface DrainOptions {
  /** CA minor version: System's timeout exists since 1.33, OnCompletion since 1.36. */
  minor: number;
  skipNodesWithSystemPods: boolean;
  skipNodesWithLocalStorage: boolean;
  skipNodesWithCustomControllerPods: boolean;
  minReplicaCount: number;
  /** --blocking-system-pod-distruption-timeout in ms (1.33+); undefined before 1.33. */
  blockingSystemPodDistruptionTimeoutMs?: number;
}

export interface DrainContext {
  now: Date;
  options: DrainOptions;
  /** undefined = CA's listers are nil: ReplicaCount does nothing (CA: drainCtx.Listers == nil). */
  listers?: ControllerListers;
  pdbs: RemainingPdbTracker;
}

/** One drainability rule: CA's Name() and a pure Drainable(). */
export interface DrainRule {
  name: string;
  drainable(ctx: DrainContext, pod: Pod): DrainStatus;
}

export const UNDEFINED: DrainStatus = { outcome: 'Undefined' };

export function drainOk(message: string): DrainStatus {
  return { outcome: 'DrainOk', message };
}

export function skipDrain(message: string): DrainStatus {
  return { outcome: 'SkipDrain', message };
}

export function blocked(reason: BlockingPodReason, message: string): DrainStatus {
  return { outcome: 'BlockDrain', reason, message };
}

/** "namespace/name" of an object, the key of every lister map. */
export function objectKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? 'default'}/${name ?? ''}`;
}
