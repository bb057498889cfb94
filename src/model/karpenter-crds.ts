// Karpenter's custom resources as casdoctor reads them (NodePool, NodeClaim: karpenter.sh; EC2NodeClass:
// karpenter.k8s.aws), declared as ca-crds.ts declares CA's: the RawInputs field, the API resource, how to provide it
// offline, and recognition by content. All three are cluster-scoped. Only v1 is read: v1beta1 (Karpenter v0.32-v0.37)
// and v1alpha5 (before v0.33) objects are refused with a message naming the version that converts them.
import type { EC2NodeClass, NodeClaim, NodePool } from './karpenter.js';
import type { DataKind, RawInputs } from './snapshot.js';

/** The RawInputs fields of Karpenter's resources. Absent from `provided` = not gathered; [] provided = none exist. */
export interface KarpenterCrdInputs {
  nodePools: NodePool[];
  ec2NodeClasses: EC2NodeClass[];
  nodeClaims: NodeClaim[];
}

export type KarpenterCrdKind = keyof KarpenterCrdInputs;

export const KARPENTER_CRD_KINDS: readonly KarpenterCrdKind[] = ['nodePools', 'ec2NodeClasses', 'nodeClaims'];

/** The Kubernetes kind of each, as in `kind:` and `<Kind>List`. */
export const KARPENTER_CRD_OBJECT_KIND: Record<KarpenterCrdKind, string> = {
  nodePools: 'NodePool',
  ec2NodeClasses: 'EC2NodeClass',
  nodeClaims: 'NodeClaim',
};

/** API group, the version casdoctor reads, and the plural (the live LIST path and RBAC's resource). */
export const KARPENTER_CRD_API: Record<KarpenterCrdKind, { group: string; version: 'v1'; plural: string }> = {
  nodePools: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' },
  ec2NodeClasses: { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses' },
  nodeClaims: { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' },
};

/** The API resource of each kind, as gaps and RBAC name it. */
export const KARPENTER_CRD_RESOURCES: Record<KarpenterCrdKind, string> = {
  nodePools: 'nodepools.karpenter.sh',
  ec2NodeClasses: 'ec2nodeclasses.karpenter.k8s.aws',
  nodeClaims: 'nodeclaims.karpenter.sh',
};

/** How a user provides each kind offline (for skipped checks). Cluster-scoped: no -A. */
export const KARPENTER_CRD_HOW_TO_PROVIDE: Record<KarpenterCrdKind, string> = {
  nodePools: 'kubectl get nodepools.karpenter.sh -o json > nodepools.json',
  ec2NodeClasses: 'kubectl get ec2nodeclasses.karpenter.k8s.aws -o json > ec2nodeclasses.json',
  nodeClaims: 'kubectl get nodeclaims.karpenter.sh -o json > nodeclaims.json',
};

/** The data kind name for a check's `requires`. */
export function karpenterCrdDataKind(kind: KarpenterCrdKind): DataKind {
  return kind;
}

export function isKarpenterCrdKind(kind: string): kind is KarpenterCrdKind {
  return (KARPENTER_CRD_KINDS as readonly string[]).includes(kind);
}

/** The objects a snapshot holds, or undefined when the kind was not gathered (neither provided nor present). */
export function karpenterCrdList<K extends KarpenterCrdKind>(raw: RawInputs, kind: K): RawInputs[K] | undefined {
  const value = raw[kind];
  if (value.length > 0 || raw.provided.has(kind)) return value;
  return undefined;
}

function objectOf(o: unknown): Record<string, unknown> | undefined {
  return typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
}

/** apiVersion each kind is read at (karpenter pkg/apis/v1, karpenter-provider-aws pkg/apis/v1). */
const V1_API_VERSION: Record<KarpenterCrdKind, string> = {
  nodePools: 'karpenter.sh/v1',
  ec2NodeClasses: 'karpenter.k8s.aws/v1',
  nodeClaims: 'karpenter.sh/v1',
};

export function isNodePool(o: unknown): o is NodePool {
  const r = objectOf(o);
  const template = objectOf(objectOf(r?.spec)?.template);
  const spec = objectOf(template?.spec);
  // the API requires spec.template.spec.requirements and nodeClassRef (nodepool.go NodeClaimTemplateSpec)
  return (
    r?.kind === 'NodePool' &&
    r.apiVersion === V1_API_VERSION.nodePools &&
    objectOf(r.metadata) !== undefined &&
    Array.isArray(spec?.requirements) &&
    objectOf(spec?.nodeClassRef) !== undefined
  );
}

export function isEC2NodeClass(o: unknown): o is EC2NodeClass {
  const r = objectOf(o);
  return (
    r?.kind === 'EC2NodeClass' &&
    r.apiVersion === V1_API_VERSION.ec2NodeClasses &&
    objectOf(r.metadata) !== undefined &&
    objectOf(r.spec) !== undefined
  );
}

export function isNodeClaim(o: unknown): o is NodeClaim {
  const r = objectOf(o);
  const spec = objectOf(r?.spec);
  return (
    r?.kind === 'NodeClaim' &&
    r.apiVersion === V1_API_VERSION.nodeClaims &&
    objectOf(r.metadata) !== undefined &&
    Array.isArray(spec?.requirements) &&
    objectOf(spec?.nodeClassRef) !== undefined
  );
}

/** Recognition of one kind by content. */
export function isKarpenterObject(kind: KarpenterCrdKind, o: unknown): boolean {
  if (kind === 'nodePools') return isNodePool(o);
  if (kind === 'ec2NodeClasses') return isEC2NodeClass(o);
  return isNodeClaim(o);
}

// Karpenter's older APIs: v1beta1 (v0.32-v0.37: NodePool, NodeClaim, EC2NodeClass) and v1alpha5/v1alpha1 (before
// v0.33: Provisioner, Machine, AWSNodeTemplate). Karpenter v1.0 serves v1 and converts v1beta1 objects to it (its
// conversion webhook); v1.1 dropped v1beta1. v0.32 is the one release serving both v1alpha5 and v1beta1.
const LEGACY_KINDS: Record<string, string> = {
  Provisioner: 'NodePool',
  Machine: 'NodeClaim',
  AWSNodeTemplate: 'EC2NodeClass',
};

/**
 * Why an object of Karpenter's older APIs is not read, or undefined when `kind`/`apiVersion` is not one of them. The
 * text names no object (one line per file and kind).
 */
export function karpenterLegacyProblem(kind: string, apiVersion: unknown): string | undefined {
  const v = typeof apiVersion === 'string' ? apiVersion : '';
  const group = v.split('/')[0];
  if (group !== 'karpenter.sh' && group !== 'karpenter.k8s.aws') return undefined;
  if (Object.hasOwn(LEGACY_KINDS, kind)) {
    return `a Karpenter ${kind} (${v}, before Karpenter v0.33) is not supported: casdoctor reads Karpenter v1 ${LEGACY_KINDS[kind]}s; migrate to v1beta1 with Karpenter v0.32, then to v1 with Karpenter v1.0, and dump with \`${howFor(LEGACY_KINDS[kind])}\``;
  }
  const target = (Object.keys(KARPENTER_CRD_OBJECT_KIND) as KarpenterCrdKind[]).find((k) => KARPENTER_CRD_OBJECT_KIND[k] === kind);
  if (!target || v === V1_API_VERSION[target]) return undefined;
  if (/\/v1beta1$/.test(v)) {
    return `a ${kind} of ${v} (Karpenter v0.32-v0.37) is not supported: casdoctor reads ${V1_API_VERSION[target]}, which Karpenter v1.0 serves and converts v1beta1 objects to; upgrade to Karpenter v1.0 or later and dump with \`${KARPENTER_CRD_HOW_TO_PROVIDE[target]}\``;
  }
  return `a ${kind} of ${v || 'no apiVersion'} is not supported: casdoctor reads ${V1_API_VERSION[target]} (Karpenter v1.0 or later); dump with \`${KARPENTER_CRD_HOW_TO_PROVIDE[target]}\``;
}

function howFor(kind: string): string {
  const k = (Object.keys(KARPENTER_CRD_OBJECT_KIND) as KarpenterCrdKind[]).find((x) => KARPENTER_CRD_OBJECT_KIND[x] === kind);
  return k ? KARPENTER_CRD_HOW_TO_PROVIDE[k] : 'kubectl get nodepools.karpenter.sh -o json';
}

/** The v1 kind an object of Karpenter's older APIs corresponds to (Provisioner → nodePools), for the gap it leaves. */
export function karpenterLegacyTarget(kind: string): KarpenterCrdKind | undefined {
  const v1Kind = Object.hasOwn(LEGACY_KINDS, kind) ? LEGACY_KINDS[kind] : kind;
  return (Object.keys(KARPENTER_CRD_OBJECT_KIND) as KarpenterCrdKind[]).find((k) => KARPENTER_CRD_OBJECT_KIND[k] === v1Kind);
}
