// Workloads of a manifest set as preflight sees them: each pod-producing object with one sample pod, made the way
// its controller and the API server's admission would make it (owner, namespace, priority, default tolerations,
// StatefulSet claims from volumeClaimTemplates).
import type {
  KubeObject,
  ObjectMeta,
  PersistentVolumeClaim,
  Pod,
  PodSpec,
  PriorityClass,
  Toleration,
} from '../model/k8s.js';
import type { LocatedObject } from '../model/preflight.js';
import { isValidQuantity } from '../model/quantity.js';

export const WORKLOAD_KINDS = [
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  // core/v1: still creates pods (kubernetes/examples uses it); CA's drainability rules list it as replicated
  'ReplicationController',
  'Job',
  'CronJob',
  'Pod',
] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** Built-in PriorityClasses every cluster has (pkg/apis/scheduling SystemPriorityClasses). */
export const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};

export interface PreflightWorkload {
  located: LocatedObject;
  kind: WorkloadKind;
  namespace: string;
  name: string;
  /** The pod template's metadata (the object's own metadata for a Pod). */
  templateMeta: ObjectMeta;
  /** A pod as the controller would create it, after admission (priority, default tolerations). */
  pod: Pod;
  /** Pods the object asks for: spec.replicas (default 1), HPA minReplicas, Job parallelism; undefined for DaemonSets. */
  replicas?: number;
  /** An HPA in the inputs scales it: its minReplicas (the fewest pods a PDB has to work with). */
  hpaMinReplicas?: number;
  /** Claims the StatefulSet controller creates from volumeClaimTemplates for the sample pod (ordinal 0). */
  generatedClaims: PersistentVolumeClaim[];
  /** The priority admission resolved, and from where. */
  priority?: { value: number; className?: string; source: 'class' | 'global-default' | 'spec' };
  /** priorityClassName names a class found nowhere in the inputs (nor built in). */
  unknownPriorityClass?: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isWorkloadKind(kind: string | undefined): kind is WorkloadKind {
  return (WORKLOAD_KINDS as readonly string[]).includes(kind ?? '');
}

/** Where a workload kind keeps its pod spec, as a field path prefix. */
export function podSpecPath(kind: string | undefined): string {
  return kind === 'Pod' ? 'spec' : kind === 'CronJob' ? 'spec.jobTemplate.spec.template.spec' : 'spec.template.spec';
}

export interface InvalidQuantity {
  /** The full field path, e.g. spec.template.spec.containers[app].resources.requests.memory. */
  field: string;
  value: unknown;
}

/**
 * The first resource quantity of a workload's pod template the API server would refuse (`memory: 1.5.3Gi`), in
 * requests, limits, pod-level resources or overhead; undefined when all parse (model/quantity.ts, ParseQuantity's rules).
 */
export function invalidQuantityOf(o: KubeObject): InvalidQuantity | undefined {
  const t = podTemplateOf(o);
  if (!t) return undefined;
  const base = podSpecPath(o.kind);
  const check = (m: unknown, field: string): InvalidQuantity | undefined => {
    if (!isObj(m)) return undefined;
    for (const [name, q] of Object.entries(m)) {
      if ((typeof q !== 'string' && typeof q !== 'number') || !isValidQuantity(q)) return { field: `${field}.${name}`, value: q };
    }
    return undefined;
  };
  const spec = t.spec as unknown as Obj;
  for (const list of ['initContainers', 'containers'] as const) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObj(c) || !isObj(c.resources)) continue;
      const at = `${base}.${list}[${typeof c.name === 'string' ? c.name : cs.indexOf(c)}].resources`;
      const bad = check(c.resources.requests, `${at}.requests`) ?? check(c.resources.limits, `${at}.limits`);
      if (bad) return bad;
    }
  }
  const podLevel = isObj(spec.resources) ? spec.resources : undefined;
  return (
    check(podLevel?.requests, `${base}.resources.requests`) ??
    check(podLevel?.limits, `${base}.resources.limits`) ??
    check(spec.overhead, `${base}.overhead`)
  );
}

/** The pod template of a workload object: spec.template, spec.jobTemplate.spec.template, or the Pod itself. */
export function podTemplateOf(o: KubeObject): { metadata: ObjectMeta; spec: PodSpec } | undefined {
  const spec = isObj(o.spec) ? o.spec : undefined;
  if (o.kind === 'Pod') return spec ? { metadata: o.metadata, spec: spec as PodSpec } : undefined;
  let template: unknown = spec?.template;
  if (o.kind === 'CronJob') {
    const jt = isObj(spec?.jobTemplate) ? spec.jobTemplate : undefined;
    template = isObj(jt?.spec) ? (jt.spec as Obj).template : undefined;
  }
  if (!isObj(template) || !isObj(template.spec)) return undefined;
  return {
    metadata: (isObj(template.metadata) ? template.metadata : {}) as ObjectMeta,
    spec: template.spec as PodSpec,
  };
}

function uid(kind: string, namespace: string, name: string): string {
  return `casdoctor-preflight-${kind.toLowerCase()}-${namespace}-${name}`;
}

function replicasOf(o: KubeObject): number | undefined {
  const spec = isObj(o.spec) ? o.spec : {};
  switch (o.kind) {
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet':
    case 'ReplicationController':
      return typeof spec.replicas === 'number' ? spec.replicas : 1;
    case 'Job':
      return typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    case 'CronJob': {
      const jt = isObj(spec.jobTemplate) && isObj(spec.jobTemplate.spec) ? spec.jobTemplate.spec : {};
      return typeof jt.parallelism === 'number' ? jt.parallelism : 1;
    }
    case 'Pod':
      return 1;
    default:
      return undefined;
  }
}

/** The owner the controller sets on its pods (Deployment pods belong to a ReplicaSet, CronJob pods to a Job). */
function ownerFor(kind: WorkloadKind, o: KubeObject, podName: string): ObjectMeta['ownerReferences'] {
  const name = o.metadata.name ?? '';
  const ns = o.metadata.namespace ?? 'default';
  const ref = (apiVersion: string, k: string, n: string) => [
    { apiVersion, kind: k, name: n, uid: uid(k, ns, n), controller: true, blockOwnerDeletion: true },
  ];
  switch (kind) {
    case 'Deployment':
      return ref('apps/v1', 'ReplicaSet', podName.replace(/-[a-z0-9]+$/, ''));
    case 'CronJob':
      return ref('batch/v1', 'Job', podName.replace(/-[a-z0-9]+$/, ''));
    case 'Job':
      return ref('batch/v1', 'Job', name);
    case 'Pod':
      return o.metadata.ownerReferences;
    case 'ReplicationController':
      return ref('v1', kind, name);
    default:
      return ref('apps/v1', kind, name);
  }
}

function samplePodName(kind: WorkloadKind, name: string): string {
  switch (kind) {
    case 'StatefulSet':
      return `${name}-0`;
    case 'Pod':
      return name;
    case 'Deployment':
    case 'CronJob':
      return `${name}-preflight-0`;
    default:
      return `${name}-0`;
  }
}

// k8s plugin/pkg/admission/defaulttolerationseconds: every pod tolerates not-ready/unreachable NoExecute for 300s
const DEFAULT_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

function withDefaultTolerations(tolerations: Toleration[] | undefined): Toleration[] {
  const out = [...(tolerations ?? [])];
  for (const d of DEFAULT_TOLERATIONS) {
    if (!out.some((t) => t.key === d.key && (t.effect === d.effect || !t.effect))) out.push(d);
  }
  return out;
}

export interface BuildWorkloadsInput {
  objects: LocatedObject[];
  /** PriorityClasses from the manifests and the cluster, by name. */
  priorityClasses: Map<string, PriorityClass>;
}

/** One PreflightWorkload per pod-producing object, in input order; malformed ones are reported, not thrown. */
export function buildWorkloads(input: BuildWorkloadsInput): {
  workloads: PreflightWorkload[];
  warnings: string[];
} {
  const warnings: string[] = [];
  const workloads: PreflightWorkload[] = [];
  const hpaMin = hpaMinReplicas(input.objects);
  for (const located of input.objects) {
    const o = located.object;
    if (!isWorkloadKind(o.kind)) continue;
    const kind = o.kind;
    const template = podTemplateOf(o);
    const where = `${located.location.file}:${located.location.line}`;
    if (!template || !Array.isArray(template.spec.containers)) {
      warnings.push(`${where}: ${kind} ${o.metadata.name} has no pod template with containers; not checked`);
      continue;
    }
    const namespace = o.metadata.namespace ?? 'default';
    const name = o.metadata.name ?? '';
    const podName = samplePodName(kind, name);
    const spec = structuredClone(template.spec);
    spec.schedulerName ??= 'default-scheduler';
    spec.tolerations = withDefaultTolerations(spec.tolerations);
    const priority = resolvePriority(spec, input.priorityClasses);
    if (priority.value) {
      spec.priority = priority.value.value;
      if (priority.value.className) spec.priorityClassName = priority.value.className;
    }
    const generatedClaims =
      kind === 'StatefulSet' ? statefulSetClaims(o, namespace, name, podName, spec) : [];
    const meta = structuredClone(template.metadata);
    const ownerReferences = ownerFor(kind, o, podName);
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...meta,
        name: podName,
        namespace,
        uid: kind === 'Pod' && o.metadata.uid ? o.metadata.uid : uid('pod', namespace, podName),
        ...(ownerReferences ? { ownerReferences } : {}),
      },
      spec,
      status: { phase: 'Pending' },
    };
    const key = `${kind}/${namespace}/${name}`;
    const replicas = replicasOf(o);
    workloads.push({
      located,
      kind,
      namespace,
      name,
      templateMeta: template.metadata,
      pod,
      ...(replicas !== undefined ? { replicas } : {}),
      ...(hpaMin.has(key) ? { hpaMinReplicas: hpaMin.get(key) } : {}),
      generatedClaims,
      ...(priority.value ? { priority: priority.value } : {}),
      ...(priority.unknown ? { unknownPriorityClass: priority.unknown } : {}),
    });
  }
  return { workloads, warnings };
}

/** Priority admission: the named class (or a built-in one), else the global default class, else none. */
function resolvePriority(
  spec: PodSpec,
  classes: Map<string, PriorityClass>,
): { value?: PreflightWorkload['priority']; unknown?: string } {
  if (typeof spec.priority === 'number') return { value: { value: spec.priority, source: 'spec' } };
  const name = spec.priorityClassName;
  if (name) {
    const pc = classes.get(name);
    if (pc && typeof pc.value === 'number')
      return { value: { value: pc.value, className: name, source: 'class' } };
    if (name in SYSTEM_PRIORITY_CLASSES) {
      return { value: { value: SYSTEM_PRIORITY_CLASSES[name], className: name, source: 'class' } };
    }
    return { unknown: name };
  }
  const defaults = [...classes.values()].filter((c) => c.globalDefault === true);
  // the admission plugin picks the lowest-valued global default when several exist
  defaults.sort((a, b) => a.value - b.value);
  const d = defaults[0];
  if (d) return { value: { value: d.value, className: d.metadata.name, source: 'global-default' } };
  return {};
}

/** HorizontalPodAutoscalers in the inputs: "<Kind>/<ns>/<name>" of their target -> minReplicas (default 1). */
function hpaMinReplicas(objects: LocatedObject[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const { object: o } of objects) {
    if (o.kind !== 'HorizontalPodAutoscaler' || !isObj(o.spec)) continue;
    const ref = isObj(o.spec.scaleTargetRef) ? o.spec.scaleTargetRef : undefined;
    if (!ref || typeof ref.kind !== 'string' || typeof ref.name !== 'string') continue;
    const min = typeof o.spec.minReplicas === 'number' ? o.spec.minReplicas : 1;
    out.set(`${ref.kind}/${o.metadata.namespace ?? 'default'}/${ref.name}`, min);
  }
  return out;
}

/**
 * The PVCs the StatefulSet controller creates for ordinal 0: "<template>-<sts>-0", labelled with the selector's
 * matchLabels; the pod gets a persistentVolumeClaim volume per template (pkg/controller/statefulset/stateful_set_utils.go).
 */
function statefulSetClaims(
  o: KubeObject,
  namespace: string,
  stsName: string,
  podName: string,
  spec: PodSpec,
): PersistentVolumeClaim[] {
  const stsSpec = isObj(o.spec) ? o.spec : {};
  const templates = Array.isArray(stsSpec.volumeClaimTemplates) ? stsSpec.volumeClaimTemplates : [];
  const selector =
    isObj(stsSpec.selector) && isObj(stsSpec.selector.matchLabels) ? stsSpec.selector.matchLabels : {};
  const claims: PersistentVolumeClaim[] = [];
  for (const t of templates) {
    if (!isObj(t) || !isObj(t.metadata) || typeof t.metadata.name !== 'string') continue;
    const templateName = t.metadata.name;
    const claimName = `${templateName}-${podName}`;
    const claimSpec = isObj(t.spec) ? structuredClone(t.spec) : {};
    claims.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName,
        namespace,
        uid: uid('pvc', namespace, claimName),
        labels: { ...(selector as Record<string, string>) },
        annotations: {
          'casdoctor.io/generated-from': `StatefulSet/${stsName} volumeClaimTemplates ${templateName}`,
        },
      },
      spec: claimSpec as PersistentVolumeClaim['spec'],
      status: { phase: 'Pending' },
    });
    const volumes = (spec.volumes ?? []).filter((v) => v.name !== templateName);
    volumes.push({ name: templateName, persistentVolumeClaim: { claimName } });
    spec.volumes = volumes;
  }
  return claims;
}

/** Generic ephemeral volumes: the claim "<pod>-<volume>" the ephemeral volume controller creates, owned by the pod. */
export function ephemeralClaims(pod: Pod): PersistentVolumeClaim[] {
  const out: PersistentVolumeClaim[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (!v.ephemeral) continue;
    const vct = isObj(v.ephemeral.volumeClaimTemplate) ? v.ephemeral.volumeClaimTemplate : {};
    const name = `${pod.metadata.name}-${v.name}`;
    out.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name,
        namespace: pod.metadata.namespace,
        uid: uid('pvc', pod.metadata.namespace ?? 'default', name),
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: pod.metadata.name ?? '',
            uid: pod.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: (isObj(vct.spec) ? structuredClone(vct.spec) : {}) as PersistentVolumeClaim['spec'],
      status: { phase: 'Pending' },
    });
  }
  return out;
}

/** "Deployment web/api" */
export function workloadRef(w: { kind: string; namespace?: string; name: string }): string {
  return `${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name}`;
}
