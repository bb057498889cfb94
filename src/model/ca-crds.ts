// Cluster Autoscaler's own custom resources (autoscaling.x-k8s.io) and the core PodTemplate they reference, in the shape
// `kubectl get provisioningrequests,capacitybuffers,podtemplates -A -o json` prints them.
import type { KubeObject, MetaCondition, ObjectMeta, PodSpec, Quantity } from './k8s.js';

// CA: apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go (v1beta1 has the same fields)
export const PROVISIONING_REQUEST_GROUP = 'autoscaling.x-k8s.io';
export const PROVISIONING_REQUEST_API_VERSIONS = ['autoscaling.x-k8s.io/v1', 'autoscaling.x-k8s.io/v1beta1'] as const;
// CA: apis/capacitybuffer/autoscaling.x-k8s.io/{v1alpha1,v1beta1}/types.go: same fields; v1beta1 is the storage version
export const CAPACITY_BUFFER_API_VERSIONS = ['autoscaling.x-k8s.io/v1beta1', 'autoscaling.x-k8s.io/v1alpha1'] as const;

export const CHECK_CAPACITY_CLASS = 'check-capacity.autoscaling.x-k8s.io';
export const BEST_EFFORT_ATOMIC_CLASS = 'best-effort-atomic-scale-up.autoscaling.x-k8s.io';

export interface ProvisioningRequestPodSet {
  podTemplateRef: { name?: string };
  count: number;
}

export interface ProvisioningRequest extends KubeObject {
  spec: {
    podSets: ProvisioningRequestPodSet[];
    provisioningClassName: string;
    /** e.g. noRetry: "true", processorInstance, ValidUntilSeconds. */
    parameters?: Record<string, string>;
  };
  status?: {
    conditions?: MetaCondition[] | null;
    provisioningClassDetails?: Record<string, string> | null;
  };
}

/** core/v1 PodTemplate: the pod shape lives under `.template`, not `.spec`. */
export interface PodTemplate extends KubeObject {
  template: { metadata?: ObjectMeta; spec: PodSpec };
}

export interface CapacityBufferSpec {
  /** default "buffer.x-k8s.io/active-capacity" */
  provisioningStrategy?: string;
  podTemplateRef?: { name: string };
  scalableRef?: { apiGroup?: string; kind: string; name: string };
  replicas?: number;
  percentage?: number;
  limits?: Record<string, Quantity>;
}

export interface CapacityBuffer extends KubeObject {
  spec: CapacityBufferSpec;
  status?: {
    podTemplateRef?: { name: string };
    replicas?: number;
    podTemplateGeneration?: number;
    provisioningStrategy?: string;
    conditions?: MetaCondition[];
  };
}

/** CA's own kinds in RawInputs. */
export type CaCrdKind = 'provisioningRequests' | 'podTemplates' | 'capacityBuffers';

/** The API resource of each kind, as gaps and RBAC name it. */
export const CA_CRD_RESOURCES: Record<CaCrdKind, string> = {
  provisioningRequests: 'provisioningrequests.autoscaling.x-k8s.io',
  podTemplates: 'podtemplates',
  capacityBuffers: 'capacitybuffers.autoscaling.x-k8s.io',
};

/** How a user provides each kind offline (for skipped checks). */
export const CA_CRD_HOW_TO_PROVIDE: Record<CaCrdKind, string> = {
  provisioningRequests: 'kubectl get provisioningrequests.autoscaling.x-k8s.io -A -o json > provreqs.json',
  podTemplates: 'kubectl get podtemplates -A -o json > podtemplates.json',
  capacityBuffers: 'kubectl get capacitybuffers.autoscaling.x-k8s.io -A -o json > capacitybuffers.json',
};

function objectOf(o: unknown): Record<string, unknown> | undefined {
  return typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
}

/** Offline recognition by content: apiVersion + kind, and the spec the API requires. */
export function isProvisioningRequest(o: unknown): o is ProvisioningRequest {
  const r = objectOf(o);
  return (
    r !== undefined &&
    r.kind === 'ProvisioningRequest' &&
    (PROVISIONING_REQUEST_API_VERSIONS as readonly unknown[]).includes(r.apiVersion) &&
    Array.isArray(objectOf(r.spec)?.podSets)
  );
}

export function isPodTemplate(o: unknown): o is PodTemplate {
  const r = objectOf(o);
  return r !== undefined && r.kind === 'PodTemplate' && r.apiVersion === 'v1' && objectOf(r.template) !== undefined;
}

export function isCapacityBuffer(o: unknown): o is CapacityBuffer {
  const r = objectOf(o);
  return (
    r !== undefined &&
    r.kind === 'CapacityBuffer' &&
    (CAPACITY_BUFFER_API_VERSIONS as readonly unknown[]).includes(r.apiVersion) &&
    objectOf(r.spec) !== undefined
  );
}

/** The condition of a type, as apimeta.FindStatusCondition. */
export function findCondition(
  conditions: readonly MetaCondition[] | null | undefined,
  type: string,
): MetaCondition | undefined {
  return (conditions ?? []).find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly MetaCondition[] | null | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}
