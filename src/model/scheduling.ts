import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from './k8s.js';

/**
 * A resource list in integer units, the way the scheduler's framework.Resource holds them:
 * `cpu` in millicores, `memory` / `ephemeral-storage` in bytes, `pods` and extended resources as counts.
 */
export type Resources = Record<string, number>;

/** A node with the pods the simulation places on it (scheduler's NodeInfo). */
export interface NodeInfo {
  node: Node;
  pods: Pod[];
  /** sum of the pods' effective requests (see simulate/resources.ts) */
  requested: Resources;
  /** node.status.allocatable parsed */
  allocatable: Resources;
}

/**
 * Status codes of a Filter plugin, as kube-scheduler's framework.Code, plus NotEvaluated: casdoctor could not
 * evaluate the plugin (missing data). NotEvaluated is never a pass.
 */
export type FilterCode =
  | 'Success'
  | 'Unschedulable'
  | 'UnschedulableAndUnresolvable'
  | 'Error'
  | 'NotEvaluated';

export interface FilterStatus {
  /** kube-scheduler plugin name, e.g. "NodeResourcesFit", "TaintToleration" */
  plugin: string;
  code: FilterCode;
  /** The scheduler's exact reason strings, e.g. ["Insufficient cpu"], ["node(s) had untolerated taint {k: v}"] */
  reasons: string[];
  /** Concrete values for humans: "requests 8 cpu, node has 3.92 allocatable (1.2 used)". */
  details?: string[];
}

/** Everything predicates may look up beyond the pod and the node itself. */
export interface ClusterView {
  /** All nodes with their pods (for topology spread and inter-pod affinity). */
  nodeInfos: NodeInfo[];
  pvcs: Map<string, PersistentVolumeClaim>; // key "namespace/name"
  pvs: Map<string, PersistentVolume>; // key name
  storageClasses: Map<string, StorageClass>; // key name
  /** Namespace labels, when known (namespaceSelector in pod affinity). */
  namespaceLabels?: Map<string, Record<string, string>>;
  /** Which data kinds were available; a predicate needing a missing kind returns NotEvaluated. */
  has: { pvcs: boolean; pvs: boolean; storageClasses: boolean };
}

export interface PredicateResult {
  /** true only when every plugin returned Success. */
  fits: boolean;
  /** The first non-success status (the scheduler stops at the first failing Filter plugin), if any. */
  failure?: FilterStatus;
  /** Plugins that could not be evaluated (fits is then false unless the caller decides otherwise). */
  notEvaluated: FilterStatus[];
}
