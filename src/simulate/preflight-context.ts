// preflight's context: its inputs, options, per-group and per-workload results (the types), the per-Analysis caches and
// the small helpers they share. Moved out of preflight.ts as is.
import type { KubeObject, Node, PersistentVolumeClaim, Pod, PodDisruptionBudget, StorageClass } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import type { DeclaredNodeGroup, DeclaredNodeGroups, LocatedObject, ManifestSet, NotEvaluatedReason } from '../model/preflight.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../model/scheduling.js';
import { type RawInputs } from '../model/snapshot.js';
import { Analysis } from './analysis.js';
import type { StaticInstanceTypeData } from './instance-types.js';
import { type PreflightWorkload } from './preflight-workloads.js';
import { DEFAULT_FILTER_ORDER } from './scheduler.js';
import type { ScratchTemplate } from './node-group-provider.js';
import { type KarpenterPreflightContext } from './providers/karpenter/preflight.js';

/** Zone label keys the scheduler and the EBS CSI driver use. */
export const ZONE_KEYS = [
  'topology.kubernetes.io/zone',
  'topology.ebs.csi.aws.com/zone',
  'failure-domain.beta.kubernetes.io/zone',
];
/** Provisioners whose volumes live in one availability zone (EBS); EFS is regional. */
export const ZONAL_PROVISIONERS = new Set(['ebs.csi.aws.com', 'kubernetes.io/aws-ebs']);

/**
 * Plugins preflight runs on a lone template node. InterPodAffinity is left out: the other workloads' pods are not
 * placed anywhere offline, so "didn't match pod affinity rules" would be an artefact, not a finding.
 */
export const PREFLIGHT_PLUGINS = DEFAULT_FILTER_ORDER.filter((p) => p !== 'InterPodAffinity');

export interface PreflightInput {
  manifests: ManifestSet;
  /** Node groups from --eksctl / --node-groups. */
  declared: DeclaredNodeGroups[];
  /** Everything --live or --from gathered (ASGs, nodes, DaemonSets, the CA Deployment ...). */
  cluster?: { raw: RawInputs; via: 'live' | 'from' };
  /** NodePools and EC2NodeClasses from --nodepools files (those among -f manifests are read from `manifests`). */
  karpenter?: { objects: LocatedObject[] };
}

export interface PreflightOptions {
  now: Date;
  /** --ca-args, split into flags. */
  caArgs?: string[];
  staticInstanceTypes: StaticInstanceTypeData;
}

export type GateKind = 'not-discovered' | 'max-size-zero' | 'no-template' | 'not-evaluated';

export interface PreflightGroup {
  group: NodeGroup;
  declared?: DeclaredNodeGroup;
  /** CA's template at zero nodes. */
  scratch: ScratchTemplate;
  /** Why CA cannot scale the group for any pod ('not-evaluated': casdoctor cannot tell offline). */
  gate?: { kind: GateKind; reason: string; detail: string };
  /** Set with the 'not-evaluated' gate: what is missing and how to supply it. */
  notEvaluated?: NotEvaluatedReason;
  /** A real node of the group (cluster) or one modelled from the declaration. */
  real?: { node: Node; pods: Pod[]; source: string; estimated: boolean };
  /** Zones the group launches into. */
  zones: string[];
  /** The one zone CA's template represents (the ASG's first AZ). */
  templateZone?: string;
  /** Where the group is defined (eksctl / node-groups file). */
  location?: { file: string; line: number };
}

export type FailureCategory =
  | 'resources'
  | 'gpu'
  | 'selector'
  | 'arch'
  | 'os'
  | 'zone'
  | 'taint'
  | 'ports'
  | 'volume'
  | 'topology'
  | 'other';

export interface DescribedFailure {
  plugin: string;
  reasons: string[];
  category: FailureCategory;
  /** The values behind the reason, e.g. "cpu: requests 8, allocatable 2 (100m used)". */
  values: string;
  /** A few words for a one-line message, e.g. "cpu 8 > 1900m free", "taint dedicated=gpu:NoSchedule not tolerated". */
  short: string;
}

export interface FitResult {
  fits: boolean;
  failures: FilterStatus[];
  notEvaluated: FilterStatus[];
  described: DescribedFailure[];
}

export interface GroupPlacement {
  g: PreflightGroup;
  /** CA on its template (undefined when a gate stops CA before predicates). */
  ca?: FitResult;
  /** On a real node of the group. */
  real?: FitResult;
}

export interface WorkloadPlacement {
  workload: PreflightWorkload;
  /** The pod actually evaluated (volumes whose claims are nowhere in the inputs removed). */
  pod: Pod;
  groups: GroupPlacement[];
  /** Groups CA can scale for the pod from zero. */
  caFits: GroupPlacement[];
  /** Groups whose real nodes take the pod but whose CA template does not (and which CA manages). */
  realOnly: GroupPlacement[];
  /** Groups casdoctor could not evaluate (neither fits nor fails). */
  notEvaluated: GroupPlacement[];
  notes: string[];
}

export interface PreflightContext {
  manifests: ManifestSet;
  workloads: PreflightWorkload[];
  pdbs: Array<LocatedObject<PodDisruptionBudget>>;
  pvcs: Array<LocatedObject<PersistentVolumeClaim>>;
  storageClassObjects: Array<LocatedObject<StorageClass>>;
  /** Every StorageClass known (manifests over cluster), by name. */
  storageClasses: Map<string, StorageClass>;
  /** Pods the cluster runs (live / --from), for PDB matching. */
  clusterPods: Pod[];
  /** Whether any node-group source was given (--live, --from, --eksctl, --node-groups). */
  nodeGroupSourceGiven: boolean;
  groups: PreflightGroup[];
  /** CA's configuration came from: a CA Deployment among the manifests, the cluster, --ca-args, or defaults. */
  caConfigSource: 'manifests' | 'cluster' | 'ca-args' | 'defaults';
  /** No CA configuration names node groups: casdoctor assumed CA manages every group. */
  assumedDiscovery: boolean;
  /** Pods well-known operators create from custom resources among the manifests (labels as the operator sets them). */
  operatorPods: OperatorPods[];
  /** Karpenter's NodePools (manifests, --nodepools, the cluster) and how each workload fares; undefined without any. */
  karpenter?: KarpenterPreflightContext;
  notes: string[];
  warnings: string[];
}

/** The pods an operator makes from one custom resource (e.g. the StatefulSet pods of a Prometheus). */
export interface OperatorPods {
  /** e.g. "Prometheus monitoring/k8s". */
  owner: string;
  operator: string;
  namespace: string;
  labels: Record<string, string>;
}

// prometheus-operator: pkg/prometheus/server/statefulset.go, pkg/alertmanager/statefulset.go, pkg/thanos/statefulset.go
const OPERATOR_POD_LABELS: Record<string, (name: string) => Record<string, string>> = {
  Prometheus: (n) => ({ 'app.kubernetes.io/name': 'prometheus', prometheus: n, 'operator.prometheus.io/name': n }),
  PrometheusAgent: (n) => ({ 'app.kubernetes.io/name': 'prometheus-agent', 'operator.prometheus.io/name': n }),
  Alertmanager: (n) => ({ 'app.kubernetes.io/name': 'alertmanager', alertmanager: n }),
  ThanosRuler: (n) => ({ 'app.kubernetes.io/name': 'thanos-ruler', 'thanos-ruler': n }),
};

/** Pods the Prometheus operator creates from the Prometheus/Alertmanager/ThanosRuler resources among the manifests. */
export function operatorPodsOf(m: ManifestSet): OperatorPods[] {
  const out: OperatorPods[] = [];
  for (const { object } of m.objects) {
    const make = OPERATOR_POD_LABELS[object.kind ?? ''];
    if (!make || !String(object.apiVersion ?? '').startsWith('monitoring.coreos.com/')) continue;
    const name = object.metadata.name ?? '';
    const spec = (object as { spec?: { podMetadata?: { labels?: Record<string, string> } } }).spec;
    out.push({
      owner: `${object.kind} ${object.metadata.namespace ?? 'default'}/${name}`,
      operator: 'prometheus-operator',
      namespace: object.metadata.namespace ?? 'default',
      labels: {
        ...(spec?.podMetadata?.labels ?? {}),
        'app.kubernetes.io/managed-by': 'prometheus-operator',
        'app.kubernetes.io/instance': name,
        ...make(name),
      },
    });
  }
  return out;
}

export const contexts = new WeakMap<Analysis, PreflightContext>();
export const placements = new WeakMap<Analysis, Map<PreflightWorkload, WorkloadPlacement>>();
export const views = new WeakMap<Analysis, Map<string, { info: NodeInfo; view: ClusterView }>>();

/** The preflight data attached to an analysis, or undefined outside preflight. */
export function preflightOf(a: Analysis): PreflightContext | undefined {
  return contexts.get(a);
}

export function byName<T extends KubeObject>(list: T[]): Map<string, T> {
  return new Map(list.map((o) => [o.metadata.name ?? '', o]));
}

function nsKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** Objects of `kind` from the manifests, in input order. */
export function manifestObjects<T extends KubeObject>(m: ManifestSet, kind: string): Array<LocatedObject<T>> {
  return m.objects.filter((o) => o.object.kind === kind) as Array<LocatedObject<T>>;
}

/** `cluster` with `override` objects replacing those of the same namespace/name, overrides first. */
export function mergeObjects<T extends KubeObject>(override: T[], cluster: T[]): T[] {
  const keys = new Set(override.map(nsKey));
  return [...override, ...cluster.filter((o) => !keys.has(nsKey(o)))];
}
