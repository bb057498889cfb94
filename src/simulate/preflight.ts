/**
 * `casdoctor preflight`: workload manifests against node groups, offline. Node groups come from AWS (live or a dump)
 * or from files (eksctl, casdoctor's node-groups file); file-declared groups become the ASGs (and EKS nodegroups)
 * CA would see, so CA's own template builder (template-node.ts) and the scheduler predicates (scheduler.ts) decide.
 *
 * Two views per node group:
 *  - CA's: the scratch template CA builds when the group has no usable node (scaled to zero, or after a CA restart);
 *  - a real node's: a node of the group from the cluster, or one modelled from the declaration (the labels the
 *    kubelet/EKS/eksctl put on it, allocatable after the EKS AMI's reservations).
 * Everything is cached per Analysis (WeakMap), as why-pending's analyzePods does.
 */
import type { AutoScalingGroup, EksNodegroup, LaunchTemplateVersion } from '../model/aws.js';
import type {
  DaemonSet,
  Deployment,
  KubeObject,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  PriorityClass,
  StorageClass,
} from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import type {
  DeclaredNodeGroup,
  DeclaredNodeGroups,
  EksctlInstanceSelector,
  LocatedObject,
  ManifestSet,
  NotEvaluatedReason,
} from '../model/preflight.js';
import { isExternalGrpcDeclared } from '../model/preflight.js';
import { formatBytes, formatResource } from '../model/quantity.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../model/scheduling.js';
import { emptyInputs, type RawInputs } from '../model/snapshot.js';
import { Analysis } from './analysis.js';
import { buildCaConfig, findCaDeployment } from './ca-config.js';
import type { InstanceTypeInfo, StaticInstanceTypeData } from './instance-types.js';
import { compileLabelSelector } from './predicates/labels.js';
import { explainNodeAffinityMismatch } from './predicates/node-affinity.js';
import { insufficientResources } from './predicates/node-resources-fit.js';
import { findUntoleratedTaint } from './predicates/taint-toleration.js';
import { podClaimRefs, pvcKey } from './predicates/volume-binding.js';
import { buildWorkloads, ephemeralClaims, type PreflightWorkload } from './preflight-workloads.js';
import { nodeInfoFor, parseResourceList } from './resources.js';
import { buildClusterView, DEFAULT_FILTER_ORDER, evaluateAllFilters } from './scheduler.js';
import type { ScratchTemplate, TemplateResult } from './node-group-provider.js';
import { RESOURCES_PREFIX } from '../providers/aws/template.js';
import { SKIP_MAX_SIZE, SKIP_NOT_READY } from './why-pending.js';
import type { EC2NodeClass, NodePool } from '../model/karpenter.js';
import {
  karpenterPreflightContext,
  type KarpenterPoolSource,
  type KarpenterPreflightContext,
  type KarpenterPreflightNodeClass,
  type KarpenterPreflightPool,
  karpenterPreflightWorkload,
  type KarpenterWorkloadVerdict,
} from './providers/karpenter/preflight.js';
import { karpenterSettingsFromDeployments } from './providers/karpenter/settings.js';

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
const PREFLIGHT_PLUGINS = DEFAULT_FILTER_ORDER.filter((p) => p !== 'InterPodAffinity');

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

const contexts = new WeakMap<Analysis, PreflightContext>();
const placements = new WeakMap<Analysis, Map<PreflightWorkload, WorkloadPlacement>>();
const views = new WeakMap<Analysis, Map<string, { info: NodeInfo; view: ClusterView }>>();

/** The preflight data attached to an analysis, or undefined outside preflight. */
export function preflightOf(a: Analysis): PreflightContext | undefined {
  return contexts.get(a);
}

function byName<T extends KubeObject>(list: T[]): Map<string, T> {
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
function mergeObjects<T extends KubeObject>(override: T[], cluster: T[]): T[] {
  const keys = new Set(override.map(nsKey));
  return [...override, ...cluster.filter((o) => !keys.has(nsKey(o)))];
}

// ---------------------------------------------------------------------------------------------------------------
// Declared node groups -> what AWS would return for them

const MIB = 1024 * 1024;

interface DeclaredAws {
  asgs: AutoScalingGroup[];
  launchTemplateVersions: LaunchTemplateVersion[];
  eksNodegroups: EksNodegroup[];
  /** Instance types made up for groups given by capacity alone. */
  syntheticTypes: StaticInstanceTypeData['instanceTypes'];
}

/** The instance type name casdoctor invents for a group declared by capacity alone. */
export function syntheticInstanceType(groupName: string): string {
  return `custom-${groupName}`;
}

export function declaredToAws(groups: DeclaredNodeGroup[]): DeclaredAws {
  const out: DeclaredAws = { asgs: [], launchTemplateVersions: [], eksNodegroups: [], syntheticTypes: {} };
  for (const g of groups) {
    let types = g.instanceTypes;
    if (types.length === 0 && g.capacity) {
      const name = syntheticInstanceType(g.name);
      const cap = parseResourceList(g.capacity);
      out.syntheticTypes[name] = {
        vcpu: Math.max(1, Math.ceil((cap.cpu ?? 0) / 1000)),
        memoryMiB: Math.floor((cap.memory ?? 0) / MIB),
        gpu: cap['nvidia.com/gpu'] ?? 0,
        architecture: g.architecture ?? 'amd64',
        ...(cap.pods ? { maxPods: cap.pods } : {}),
      };
      types = [name];
    }
    const ltName = `casdoctor-${g.name}`;
    out.launchTemplateVersions.push({
      LaunchTemplateName: ltName,
      VersionNumber: 1,
      DefaultVersion: true,
      LaunchTemplateData: types.length > 0 ? { InstanceType: types[0] } : {},
    });
    const tags = g.asgTags.map((t) => ({
      Key: t.key,
      Value: t.value,
      ResourceId: g.name,
      ResourceType: 'auto-scaling-group',
      PropagateAtLaunch: true,
    }));
    // explicit capacity acts as node-template/resources tags: CA sets capacity and allocatable from them
    for (const [k, v] of Object.entries(g.capacity ?? {})) {
      tags.push({
        Key: `${RESOURCES_PREFIX}${k}`,
        Value: v,
        ResourceId: g.name,
        ResourceType: 'auto-scaling-group',
        PropagateAtLaunch: false,
      });
    }
    const spec = { LaunchTemplateName: ltName, Version: '$Default' };
    out.asgs.push({
      AutoScalingGroupName: g.name,
      MinSize: g.minSize,
      MaxSize: g.maxSize,
      DesiredCapacity: g.desiredCapacity,
      AvailabilityZones: [...g.zones],
      Instances: [],
      Tags: tags,
      ...(types.length > 1
        ? {
            MixedInstancesPolicy: {
              LaunchTemplate: {
                LaunchTemplateSpecification: spec,
                Overrides: types.map((t) => ({ InstanceType: t })),
              },
            },
          }
        : { LaunchTemplate: spec }),
    });
    if (g.managed && g.eks && g.clusterName) {
      out.eksNodegroups.push({
        nodegroupName: g.name,
        clusterName: g.clusterName,
        labels: { ...g.eks.labels },
        taints: g.eks.taints.map((t) => ({ ...t })),
        capacityType: g.eks.capacityType,
        instanceTypes: [...g.instanceTypes],
        scalingConfig: { minSize: g.minSize, maxSize: g.maxSize, desiredSize: g.desiredCapacity },
        tags: { ...g.eks.tags },
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Real nodes of declared groups

/**
 * Allocatable after the EKS-optimized AMI's reservations (bootstrap: kube-reserved cpu 6% of the first core, 1% of
 * the second, 0.5% of the next two, 0.25% above; memory 255Mi + 11Mi per max pod; eviction-hard 100Mi memory,
 * 10% nodefs; 1Gi ephemeral-storage kube-reserved). An estimate: real nodes also lose some memory to the kernel.
 */
export function estimateAllocatable(
  capacity: Record<string, number>,
  maxPods: number,
): Record<string, number> {
  const out = { ...capacity };
  const cores = (capacity.cpu ?? 0) / 1000;
  let reservedCpu = 0;
  if (cores > 0) reservedCpu += 60;
  if (cores > 1) reservedCpu += 10;
  if (cores > 2) reservedCpu += 5 * Math.min(2, cores - 2);
  if (cores > 4) reservedCpu += 2.5 * (cores - 4);
  if (capacity.cpu !== undefined) out.cpu = Math.max(0, capacity.cpu - Math.ceil(reservedCpu));
  if (capacity.memory !== undefined)
    out.memory = Math.max(0, capacity.memory - (255 + 11 * maxPods + 100) * MIB);
  const storage = capacity['ephemeral-storage'];
  if (storage !== undefined) out['ephemeral-storage'] = Math.max(0, Math.floor(storage * 0.9) - 1024 * MIB);
  return out;
}

function resourceMapOf(r: Record<string, number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r))
    out[k] = k === 'cpu' ? `${v}m` : k === 'memory' || k === 'ephemeral-storage' ? formatBytes(v) : String(v);
  return out;
}

/** A node of a declared group as the kubelet, the cloud provider and EKS would register it. */
export function modelRealNode(
  d: DeclaredNodeGroup,
  scratch: ScratchTemplate,
  info: InstanceTypeInfo | undefined,
): { node: Node; estimated: boolean } | undefined {
  const template = scratch.node;
  const zone = template?.metadata.labels?.['topology.kubernetes.io/zone'] ?? d.zones[0];
  if (!zone) return undefined;
  const region = zone.slice(0, -1);
  const arch = info?.architecture ?? d.architecture ?? 'amd64';
  const name = template?.metadata.name ?? `node-of-${d.name}`;
  const instanceType = d.instanceTypes[0];
  const labels: Record<string, string> = {
    'kubernetes.io/arch': arch,
    'kubernetes.io/os': 'linux',
    ...(instanceType ? { 'node.kubernetes.io/instance-type': instanceType } : {}),
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    'topology.ebs.csi.aws.com/zone': zone,
    'kubernetes.io/hostname': name,
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    ...(instanceType ? { 'beta.kubernetes.io/instance-type': instanceType } : {}),
    'failure-domain.beta.kubernetes.io/region': region,
    'failure-domain.beta.kubernetes.io/zone': zone,
    ...d.labels,
  };
  if (labels['kubernetes.io/os'] !== 'linux') labels['beta.kubernetes.io/os'] = labels['kubernetes.io/os'];
  const maxPods = info?.maxPods ?? 110;
  const capacity: Record<string, number> = {};
  if (info) {
    capacity.cpu = info.vcpu * 1000;
    capacity.memory = info.memoryMiB * MIB;
    if (info.gpu > 0) capacity['nvidia.com/gpu'] = info.gpu;
  }
  capacity.pods = maxPods;
  if (d.volumeSizeGiB) capacity['ephemeral-storage'] = d.volumeSizeGiB * 1024 * MIB;
  Object.assign(capacity, parseResourceList(d.capacity));
  let allocatable: Record<string, number>;
  let estimated = false;
  if (d.allocatable) allocatable = { ...capacity, ...parseResourceList(d.allocatable) };
  else if (info) {
    allocatable = estimateAllocatable(capacity, maxPods);
    estimated = true;
  } else allocatable = { ...capacity };
  return {
    node: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, uid: `${name}-real`, labels },
      spec: d.taints.length ? { taints: d.taints.map((t) => ({ ...t })) } : {},
      status: {
        capacity: resourceMapOf(capacity),
        allocatable: resourceMapOf(allocatable),
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    },
    estimated,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Building the analysis

function copyInputs(raw: RawInputs): RawInputs {
  const out = { ...raw, provided: new Set(raw.provided), gaps: [...raw.gaps], warnings: [...raw.warnings] };
  for (const [k, v] of Object.entries(out))
    if (Array.isArray(v)) (out as Record<string, unknown>)[k] = [...v];
  return out;
}

function hasCaDiscovery(args: string[] | undefined): boolean {
  return (args ?? []).some((a) => /^--?(nodes|node-group-auto-discovery)(=|$)/.test(a));
}

/**
 * Builds the Analysis preflight's checks run on: the cluster's data (if any) with the manifests' DaemonSets,
 * PriorityClasses, StorageClasses, PVCs and CA Deployment merged over it, and the declared node groups as ASGs.
 */
export function buildPreflight(input: PreflightInput, options: PreflightOptions): Analysis {
  const m = input.manifests;
  const raw = input.cluster ? copyInputs(input.cluster.raw) : emptyInputs();
  const notes: string[] = [];
  const warnings: string[] = [];
  // the externalgrpc provider's own file: its groups and templates come from the provider's code, not from ASGs
  const grpcDeclared = input.declared.filter(isExternalGrpcDeclared);
  if (grpcDeclared.length > 0) {
    raw.externalGrpcConfigs = [...(raw.externalGrpcConfigs ?? []), ...grpcDeclared.map((d) => d.externalGrpc)];
    raw.sources.push(...grpcDeclared.map((d) => d.file));
  }
  const declaredGroups = input.declared
    .filter((d) => !isExternalGrpcDeclared(d))
    .flatMap((d) => d.groups.map((g) => resolveInstanceSelector(g, options.staticInstanceTypes)));
  const aws = declaredToAws(declaredGroups);
  if (declaredGroups.length > 0) {
    const names = new Set(declaredGroups.map((g) => g.name));
    raw.autoScalingGroups = [
      ...raw.autoScalingGroups.filter((a) => !names.has(a.AutoScalingGroupName)),
      ...aws.asgs,
    ];
    raw.launchTemplateVersions = [...raw.launchTemplateVersions, ...aws.launchTemplateVersions];
    raw.eksNodegroups = [...raw.eksNodegroups, ...aws.eksNodegroups];
    for (const k of ['autoScalingGroups', 'launchTemplateVersions', 'eksNodegroups'] as const)
      raw.provided.add(k);
    raw.sources.push(...input.declared.filter((d) => !isExternalGrpcDeclared(d)).map((d) => d.file));
  }
  for (const d of input.declared) warnings.push(...d.warnings);

  const manifestDeployments = manifestObjects<Deployment>(m, 'Deployment').map((o) => o.object);
  const caFromManifests = findCaDeployment(manifestDeployments);
  raw.deployments = mergeObjects(manifestDeployments, raw.deployments);
  // the manifests are the Deployments preflight judges: the CA checks run on a CA Deployment among them
  raw.provided.add('deployments');
  raw.daemonSets = mergeObjects(
    manifestObjects<DaemonSet>(m, 'DaemonSet').map((o) => o.object),
    raw.daemonSets,
  );
  raw.priorityClasses = mergeObjects(
    manifestObjects<PriorityClass>(m, 'PriorityClass').map((o) => o.object),
    raw.priorityClasses,
  );
  raw.storageClasses = mergeObjects(
    manifestObjects<StorageClass>(m, 'StorageClass').map((o) => o.object),
    raw.storageClasses,
  );
  raw.pvcs = mergeObjects(
    manifestObjects<PersistentVolumeClaim>(m, 'PersistentVolumeClaim').map((o) => o.object),
    raw.pvcs,
  );
  raw.pvs = mergeObjects(
    manifestObjects<PersistentVolume>(m, 'PersistentVolume').map((o) => o.object),
    raw.pvs,
  );

  // CA's configuration, and whether anything tells CA which groups to manage
  const caArgs = [...(options.caArgs ?? [])];
  const probe = buildCaConfig({
    deployment: findCaDeployment(raw.deployments)?.deployment,
    overrideArgs: caArgs,
  });
  const caConfigSource: PreflightContext['caConfigSource'] = caFromManifests
    ? 'manifests'
    : input.cluster && probe.found
      ? 'cluster'
      : caArgs.length > 0
        ? 'ca-args'
        : 'defaults';
  const assumedDiscovery = !probe.found && !hasCaDiscovery(caArgs) && raw.autoScalingGroups.length > 0;
  if (assumedDiscovery) {
    // No CA Deployment and no --ca-args naming groups: treat every group as CA-managed, with its own min/max
    for (const a of raw.autoScalingGroups)
      caArgs.push(`--nodes=${a.MinSize}:${Math.max(a.MinSize, a.MaxSize)}:${a.AutoScalingGroupName}`);
    notes.push(
      'no CA configuration (no cluster-autoscaler Deployment among the inputs, no --ca-args): assuming CA manages every node group; pass --ca-args "--node-group-auto-discovery=..." to check discovery too',
    );
  }

  const staticTypes: StaticInstanceTypeData = {
    ...options.staticInstanceTypes,
    instanceTypes: { ...options.staticInstanceTypes.instanceTypes, ...aws.syntheticTypes },
  };
  const analysis = new Analysis(raw, { now: options.now, caArgs, staticInstanceTypes: staticTypes });

  const priorityClasses = byName(raw.priorityClasses);
  const built = buildWorkloads({ objects: m.objects, priorityClasses });
  warnings.push(...built.warnings);

  const declaredByName = new Map(declaredGroups.map((g) => [g.name, g]));
  const relevant = new Set(analysis.nodeGroups.map((g) => g.name));
  const groups = analysis.nodeGroupsResult.nodeGroups
    .filter((g) => relevant.has(g.name) || declaredByName.has(g.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((g) => preflightGroup(analysis, g, declaredByName.get(g.name)));
  for (const g of groups) {
    if (g.declared) notes.push(...g.declared.notes.map((n) => `node group ${g.group.name}: ${n}`));
  }
  for (const d of grpcDeclared) {
    notes.push(`${d.file}: the externalgrpc provider's config; templates as the provider builds them (allocatable = capacity, only cpu, memory, ephemeral-storage, pods 110, no zone labels)`);
    // CA 1.35+ reads only nodeBytes, which this provider never fills (externalgrpc_node_group.go:231-241@1.35.2)
    if (analysis.ca.version.minor >= 35)
      notes.push(
        `${d.file}: ${analysis.ca.found ? `CA 1.${analysis.ca.version.minor}` : `no CA Deployment among the inputs, so CA 1.${analysis.ca.version.minor} is assumed; it`} reads no template from this provider (CA 1.35+ reads only nodeBytes, the provider answers nodeInfo) and crashes while a group has no Ready node: the templates below are what CA 1.29-1.34 builds${analysis.ca.found ? '' : '; add CA\'s Deployment to -f to evaluate your version'}`,
      );
    for (const g of d.groups) notes.push(...g.notes.map((n) => `node group ${g.name}: ${n}`));
  }

  const storageClasses = byName(raw.storageClasses);
  const ctx: PreflightContext = {
    manifests: m,
    workloads: built.workloads,
    pdbs: manifestObjects<PodDisruptionBudget>(m, 'PodDisruptionBudget'),
    pvcs: manifestObjects<PersistentVolumeClaim>(m, 'PersistentVolumeClaim'),
    storageClassObjects: manifestObjects<StorageClass>(m, 'StorageClass'),
    storageClasses,
    clusterPods: input.cluster?.raw.pods ?? [],
    nodeGroupSourceGiven: input.declared.some((d) => !d.noGroupsReason) || input.cluster !== undefined,
    groups,
    caConfigSource,
    assumedDiscovery,
    operatorPods: operatorPodsOf(m),
    notes,
    warnings,
  };
  for (const pdb of ctx.pdbs) {
    const by = operatorPodsSelectedBy(ctx, pdb.object);
    if (by.length > 0)
      notes.push(
        `PodDisruptionBudget ${pdb.object.metadata.namespace}/${pdb.object.metadata.name} selects operator-managed pods (${by.map((o) => `from ${o.owner}, made by the ${o.operator}`).join('; ')}): they are not among the manifests, so preflight does not evaluate them`,
      );
  }
  const karpenter = karpenterContext(input, raw, options.now, analysis, groups, built.workloads, warnings);
  if (karpenter) ctx.karpenter = karpenter;
  contexts.set(analysis, ctx);
  return analysis;
}

/** The same-named object of a later source replaces an earlier one (cluster < --nodepools < -f), files warn. */
function mergeKarpenter<T extends NodePool | EC2NodeClass>(
  layers: Array<{ source: KarpenterPoolSource; items: Array<{ object: T; location?: { file: string; line: number } }> }>,
  warnings: string[],
): Array<{ object: T; source: KarpenterPoolSource; location?: { file: string; line: number } }> {
  const out = new Map<string, { object: T; source: KarpenterPoolSource; location?: { file: string; line: number } }>();
  for (const layer of layers) {
    for (const it of layer.items) {
      const name = it.object.metadata.name ?? '';
      const prev = out.get(name);
      if (prev?.location && it.location && (prev.location.file !== it.location.file || prev.location.line !== it.location.line))
        warnings.push(`${prev.location.file}:${prev.location.line}: ${it.object.kind} ${name} is defined again at ${it.location.file}:${it.location.line}; the later one is used`);
      out.set(name, { object: it.object, source: layer.source, ...(it.location ? { location: it.location } : {}) });
    }
  }
  return [...out.values()];
}

function karpenterContext(
  input: PreflightInput,
  raw: RawInputs,
  now: Date,
  analysis: Analysis,
  groups: PreflightGroup[],
  workloads: PreflightWorkload[],
  warnings: string[],
): KarpenterPreflightContext | undefined {
  const of = <T extends KubeObject>(objs: LocatedObject[] | undefined, kind: string) =>
    (objs ?? []).filter((o) => o.object.kind === kind) as Array<LocatedObject<T>>;
  const via: KarpenterPoolSource = input.cluster?.via ?? 'from';
  const pools = mergeKarpenter<NodePool>(
    [
      { source: via, items: (input.cluster?.raw.nodePools ?? []).map((object) => ({ object })) },
      { source: 'nodepools-file', items: of<NodePool>(input.karpenter?.objects, 'NodePool') },
      { source: 'manifests', items: of<NodePool>(input.manifests.objects, 'NodePool') },
    ],
    warnings,
  );
  if (pools.length === 0) return undefined;
  const classes = mergeKarpenter<EC2NodeClass>(
    [
      { source: via, items: (input.cluster?.raw.ec2NodeClasses ?? []).map((object) => ({ object })) },
      { source: 'nodepools-file', items: of<EC2NodeClass>(input.karpenter?.objects, 'EC2NodeClass') },
      { source: 'manifests', items: of<EC2NodeClass>(input.manifests.objects, 'EC2NodeClass') },
    ],
    warnings,
  );
  const knownZones = new Set<string>();
  for (const g of groups) for (const z of g.zones) knownZones.add(z);
  for (const pv of raw.pvs)
    for (const t of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [])
      for (const e of t.matchExpressions ?? []) if (ZONE_KEYS.includes(e.key)) for (const v of e.values ?? []) knownZones.add(v);
  // zones the workloads select: the stand-in NodeClass offers them, so an unknown subnet set is "not evaluated"
  for (const w of workloads) {
    const sel = w.pod.spec.nodeSelector ?? {};
    for (const k of ZONE_KEYS) if (sel[k]) knownZones.add(sel[k]);
    for (const t of w.pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [])
      for (const e of t.matchExpressions ?? []) if (ZONE_KEYS.includes(e.key) && e.operator === 'In') for (const v of e.values ?? []) knownZones.add(v);
  }
  const settings = karpenterSettingsFromDeployments(raw.deployments);
  return karpenterPreflightContext({
    pools: pools.map((p): KarpenterPreflightPool => ({ nodePool: p.object, source: p.source, ...(p.location ? { location: p.location } : {}) })),
    nodeClasses: classes.map((c): KarpenterPreflightNodeClass => ({ nodeClass: c.object, source: c.source, ...(c.location ? { location: c.location } : {}) })),
    daemonSets: raw.daemonSets,
    pods: input.cluster?.raw.pods ?? [],
    nodes: input.cluster?.raw.nodes ?? [],
    nodeClaims: input.cluster?.raw.nodeClaims ?? [],
    pvcs: [],
    pvs: raw.pvs,
    storageClasses: raw.storageClasses,
    instanceTypes: analysis.instanceTypes,
    ...(settings ? { settings } : {}),
    now,
    knownZones: [...knownZones],
  });
}

/** The workload's claims as the API server and PV controller leave them (default class filled in, pre-bound ones bound). */
function appliedClaims(a: Analysis, w: PreflightWorkload): { pvcs: PersistentVolumeClaim[]; zoned: boolean } {
  const pod = placementOf(a, w).pod;
  const claims = workloadClaims(a, w).filter((c) => c.pvc && pod.spec.volumes?.some((v) => v.name === c.volume));
  const pvcs = claims.map((c): PersistentVolumeClaim => {
    const pvc = asApplied(c.pvc as PersistentVolumeClaim, a.raw.pvs);
    const spec = { ...(pvc.spec ?? {}) };
    // the DefaultStorageClass admission fills the class in; offline the cluster's default is assumed to exist
    if (spec.storageClassName === undefined) spec.storageClassName = c.className || UNKNOWN_DEFAULT_CLASS;
    const ann = { ...(pvc.metadata.annotations ?? {}) };
    if (spec.volumeName) ann['pv.kubernetes.io/bind-completed'] = 'yes';
    return { ...pvc, metadata: { ...pvc.metadata, annotations: ann }, spec };
  });
  const zoned = claims.some((c) => {
    const name = c.pvc?.spec?.volumeName;
    const pv = name ? a.raw.pvs.find((v) => v.metadata.name === name) : undefined;
    if (pv) return (pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []).some((t) => (t.matchExpressions ?? []).some((e) => ZONE_KEYS.includes(e.key)));
    return (c.storageClass?.allowedTopologies ?? []).some((t) => (t.matchLabelExpressions ?? []).some((e) => ZONE_KEYS.includes(e.key)));
  });
  return { pvcs, zoned };
}

const karpenterVerdicts = new WeakMap<Analysis, Map<PreflightWorkload, KarpenterWorkloadVerdict>>();

/** Karpenter's answer for one workload (undefined without NodePools): the pod placementOf evaluates, its claims as applied. */
export function karpenterPlacementOf(a: Analysis, w: PreflightWorkload): KarpenterWorkloadVerdict | undefined {
  const ctx = preflightOf(a);
  if (!ctx?.karpenter) return undefined;
  let perAnalysis = karpenterVerdicts.get(a);
  if (!perAnalysis) karpenterVerdicts.set(a, (perAnalysis = new Map()));
  const hit = perAnalysis.get(w);
  if (hit) return hit;
  if (perAnalysis.size === 0) {
    // every workload's claims at once: the placement context (and its instance-type caches) stays one object
    const pvcs = placementWorkloads(ctx).flatMap((x) => appliedClaims(a, x).pvcs);
    ctx.karpenter.placement.pvcs = pvcs;
    if (ctx.karpenter.unlimited) ctx.karpenter.unlimited.pvcs = pvcs;
  }
  const pod = placementOf(a, w).pod;
  const verdict = karpenterPreflightWorkload(ctx.karpenter, pod, appliedClaims(a, w).zoned);
  perAnalysis.set(w, verdict);
  return verdict;
}

/**
 * What keeps casdoctor (not CA) from building a group's template: a declared group it cannot resolve, or an ASG whose
 * launch template / launch configuration / instance requirements are not among the inputs. CA, which reads AWS, would
 * know; so the group is "not evaluated", never CA's "unable to find instance type".
 */
function notEvaluatedReason(
  declared: DeclaredNodeGroup | undefined,
  scratch: ScratchTemplate,
): NotEvaluatedReason | undefined {
  if (declared?.unresolved) return declared.unresolved;
  if (declared || scratch.source !== 'none' || !scratch.missing?.length) return undefined;
  return {
    missing: `data CA reads from AWS: ${scratch.reason ?? scratch.missing.join(', ')}`,
    supply: `add the output of ${scratch.missing.map(awsCommandFor).join(' and ')} to the --from dump, or run with --live and that permission`,
  };
}

function awsCommandFor(permission: string): string {
  switch (permission) {
    case 'ec2:DescribeLaunchTemplateVersions':
      return '`aws ec2 describe-launch-template-versions`';
    case 'autoscaling:DescribeLaunchConfigurations':
      return '`aws autoscaling describe-launch-configurations`';
    case 'ec2:GetInstanceTypesFromInstanceRequirements':
      return '`aws ec2 get-instance-types-from-instance-requirements`';
    case 'ec2:DescribeImages':
      return '`aws ec2 describe-images`';
    default:
      return permission;
  }
}

/** eksctl's bytequantity: a number with an optional unit (mib, gib, tib, mb, gb, tb, m, g, t); a bare number is GiB. */
export function parseEksctlMemoryMiB(text: string): number | undefined {
  const m = /^\s*([0-9]+(?:\.[0-9]{0,3})?)\s?(mib|gib|tib|mb|gb|tb|m|g|t)?\s*$/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'gib').toLowerCase()[0];
  return Math.round(unit === 'm' ? n : unit === 't' ? n * 1024 * 1024 : n * 1024);
}

/**
 * Resolves an eksctl instanceSelector offline as eksctl would (pkg/eks/nodegroup_service.go expandInstanceSelector):
 * exact vCPUs, memory and GPU count, cpuArchitecture (default x86_64), allow/deny regexes, over the instance-type
 * table. Not modelled: EKS support and availability in the group's zones, so the list may be longer than eksctl's.
 */
export function resolveInstanceSelector(
  g: DeclaredNodeGroup,
  data: StaticInstanceTypeData,
): DeclaredNodeGroup {
  const sel: EksctlInstanceSelector | undefined = g.instanceSelector;
  if (!sel || g.instanceTypes.length > 0) return g;
  const memoryMiB = sel.memory !== undefined ? parseEksctlMemoryMiB(sel.memory) : undefined;
  const selText = Object.entries(sel)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');
  const unresolved = (missing: string): DeclaredNodeGroup => ({
    ...g,
    unresolved: {
      missing,
      supply: 'list the types eksctl chose in instanceTypes (`eksctl get nodegroup -o yaml` shows them), or run with --live',
    },
  });
  if (sel.memory !== undefined && memoryMiB === undefined)
    return unresolved(`the instance types of instanceSelector {${selText}}: memory ${JSON.stringify(sel.memory)} is not a size eksctl reads`);
  let allow: RegExp | undefined;
  let deny: RegExp | undefined;
  try {
    allow = sel.allow !== undefined ? new RegExp(sel.allow) : undefined;
    deny = sel.deny !== undefined ? new RegExp(sel.deny) : undefined;
  } catch {
    return unresolved(`the instance types of instanceSelector {${selText}}: a regex casdoctor cannot read`);
  }
  const arch = sel.cpuArchitecture === 'arm64' ? 'arm64' : 'amd64';
  const matches = Object.entries(data.instanceTypes)
    .filter(
      ([name, t]) =>
        (sel.vCPUs === undefined || t.vcpu === sel.vCPUs) &&
        (memoryMiB === undefined || t.memoryMiB === memoryMiB) &&
        (sel.gpus === undefined || t.gpu === sel.gpus) &&
        t.architecture === arch &&
        (!allow || allow.test(name)) &&
        (!deny || !deny.test(name)),
    )
    .map(([name]) => name)
    .sort();
  if (matches.length === 0)
    return unresolved(`the instance types of instanceSelector {${selText}}: none in casdoctor's instance-type table matches`);
  return {
    ...g,
    instanceTypes: matches,
    notes: [
      ...g.notes,
      `instanceSelector {${selText}} matches ${matches.length} instance type(s) in casdoctor's table (${matches.slice(0, 6).join(', ')}${matches.length > 6 ? ', ...' : ''}); CA simulates the first, ${matches[0]}`,
    ],
  };
}

/** The operator-managed pods a PDB's selector matches (same namespace). */
export function operatorPodsSelectedBy(ctx: PreflightContext, pdb: PodDisruptionBudget): OperatorPods[] {
  const sel = pdb.spec?.selector;
  if (sel === undefined || sel === null) return [];
  const compiled = compileLabelSelector(sel);
  const ns = pdb.metadata.namespace ?? 'default';
  return ctx.operatorPods.filter((o) => o.namespace === ns && compiled.matches(o.labels));
}

function preflightGroup(a: Analysis, g: NodeGroup, declared: DeclaredNodeGroup | undefined): PreflightGroup {
  const t: TemplateResult = a.template(g);
  const scratch: ScratchTemplate = t.scratch ?? t;
  let gate: PreflightGroup['gate'];
  const notEvaluated = notEvaluatedReason(declared, scratch);
  if (notEvaluated) {
    gate = {
      kind: 'not-evaluated',
      reason: 'not evaluated',
      detail: `casdoctor lacks ${notEvaluated.missing}; to evaluate it, ${notEvaluated.supply}`,
    };
  } else if (!g.discovered) {
    gate = {
      kind: 'not-discovered',
      reason: 'not discovered by CA',
      detail: g.mismatch ?? 'not managed by CA',
    };
  } else if (g.maxSize === 0) {
    gate = { kind: 'max-size-zero', reason: SKIP_MAX_SIZE, detail: 'max size 0: CA can never add a node' };
  } else if (scratch.source === 'none') {
    gate = {
      kind: 'no-template',
      reason: SKIP_NOT_READY,
      detail: scratch.reason ?? 'CA cannot build a template node',
    };
  }
  let real: PreflightGroup['real'];
  if (notEvaluated) {
    // a node modelled without its instance type would be a guess: neither view is evaluated
  } else if (declared) {
    const info =
      scratch.instanceTypeInfo ??
      (declared.instanceTypes[0] ? a.instanceTypes.lookup(declared.instanceTypes[0]) : undefined);
    const modelled = modelRealNode(declared, scratch, info);
    if (modelled) {
      real = {
        node: modelled.node,
        pods: scratch.pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: modelled.node.metadata.name } })),
        source: `a ${declared.name} node as ${declared.origin === 'eksctl' ? 'eksctl' : 'the node-groups file'} declares it${modelled.estimated ? ' (allocatable estimated)' : ''}`,
        estimated: modelled.estimated,
      };
    }
  } else if (t.source === 'node' && t.node) {
    real = { node: t.node, pods: t.pods, source: `node ${t.fromNode}`, estimated: false };
  }
  const templateZone = scratch.node?.metadata.labels?.['topology.kubernetes.io/zone'];
  return {
    group: g,
    ...(declared ? { declared, location: declared.location } : {}),
    scratch,
    ...(gate ? { gate } : {}),
    ...(notEvaluated ? { notEvaluated } : {}),
    ...(real ? { real } : {}),
    zones: [...g.zones],
    ...(templateZone ? { templateZone } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Placement

/** Every claim the workload's pods mount, with where it comes from. */
export interface WorkloadClaim {
  volume: string;
  claimName: string;
  pvc?: PersistentVolumeClaim;
  origin: 'volumeClaimTemplate' | 'ephemeral' | 'manifest' | 'cluster' | 'missing';
  location?: { file: string; line: number };
  /** The StorageClass name the claim resolves to ('' = none). */
  className: string;
  storageClass?: StorageClass;
}

function defaultClass(classes: Map<string, StorageClass>): StorageClass | undefined {
  return [...classes.values()].find((sc) => {
    const ann = sc.metadata.annotations ?? {};
    return (
      ann['storageclass.kubernetes.io/is-default-class'] === 'true' ||
      ann['storageclass.beta.kubernetes.io/is-default-class'] === 'true'
    );
  });
}

export function workloadClaims(a: Analysis, w: PreflightWorkload): WorkloadClaim[] {
  const ctx = preflightOf(a);
  if (!ctx) return [];
  const generated = new Map(
    [...w.generatedClaims, ...ephemeralClaims(w.pod)].map((c) => [c.metadata.name ?? '', c]),
  );
  const manifestPvcs = new Map(
    ctx.pvcs.map((p) => [pvcKey(p.object.metadata.namespace, p.object.metadata.name ?? ''), p]),
  );
  const clusterPvcs = new Map(
    a.raw.pvcs.map((p) => [pvcKey(p.metadata.namespace, p.metadata.name ?? ''), p]),
  );
  return podClaimRefs(w.pod).map((ref) => {
    const key = pvcKey(w.namespace, ref.claimName);
    let pvc: PersistentVolumeClaim | undefined;
    let origin: WorkloadClaim['origin'] = 'missing';
    let location: WorkloadClaim['location'];
    if (generated.has(ref.claimName)) {
      pvc = generated.get(ref.claimName);
      origin = ref.ephemeral ? 'ephemeral' : 'volumeClaimTemplate';
    } else if (manifestPvcs.has(key)) {
      const located = manifestPvcs.get(key);
      pvc = located?.object;
      location = located?.location;
      origin = 'manifest';
    } else if (clusterPvcs.has(key)) {
      pvc = clusterPvcs.get(key);
      origin = 'cluster';
    }
    const explicit = pvc?.spec?.storageClassName;
    const className =
      typeof explicit === 'string' ? explicit : (defaultClass(ctx.storageClasses)?.metadata.name ?? '');
    const storageClass = className ? ctx.storageClasses.get(className) : undefined;
    return {
      volume: ref.volume,
      claimName: ref.claimName,
      ...(pvc ? { pvc } : {}),
      origin,
      ...(location ? { location } : {}),
      className,
      ...(storageClass ? { storageClass } : {}),
    };
  });
}

/** Whether a StorageClass's volumes live in a single zone: EBS, or allowedTopologies on a zone key. */
export function isZonalStorageClass(sc: StorageClass): boolean {
  if (ZONAL_PROVISIONERS.has(sc.provisioner)) return true;
  return (sc.allowedTopologies ?? []).some((t) =>
    (t.matchLabelExpressions ?? []).some((e) => ZONE_KEYS.includes(e.key)),
  );
}

/** Immediate unless WaitForFirstConsumer (the API default is Immediate). */
export function bindsImmediately(sc: StorageClass): boolean {
  return sc.volumeBindingMode !== 'WaitForFirstConsumer';
}

/**
 * The volume data the predicates see: all claims the workloads will have (cluster, manifests, generated), PVs from the
 * cluster, and StorageClasses as WaitForFirstConsumer: an Immediate claim gets its volume wherever the class allows
 * before the pod schedules, so for placement it constrains the node as a delayed one does (the zonal checks report
 * the Immediate risk itself). Unknown classes become unconstrained placeholders.
 */
function volumeData(
  a: Analysis,
  ctx: PreflightContext,
): Pick<ClusterView, 'pvcs' | 'pvs' | 'storageClasses'> {
  const pvcs = new Map<string, PersistentVolumeClaim>();
  for (const p of a.raw.pvcs) pvcs.set(pvcKey(p.metadata.namespace, p.metadata.name ?? ''), asApplied(p, a.raw.pvs));
  for (const w of ctx.workloads) {
    for (const c of [...w.generatedClaims, ...ephemeralClaims(w.pod)]) {
      pvcs.set(pvcKey(c.metadata.namespace, c.metadata.name ?? ''), c);
    }
  }
  const storageClasses = new Map<string, StorageClass>();
  for (const [name, sc] of ctx.storageClasses) {
    storageClasses.set(name, { ...sc, volumeBindingMode: 'WaitForFirstConsumer' });
  }
  const referenced = new Set<string>();
  for (const c of pvcs.values())
    if (typeof c.spec?.storageClassName === 'string') referenced.add(c.spec.storageClassName);
  for (const name of referenced) {
    if (name !== '' && !storageClasses.has(name)) {
      storageClasses.set(name, {
        metadata: { name },
        provisioner: 'casdoctor.io/unknown-class',
        volumeBindingMode: 'WaitForFirstConsumer',
      });
    }
  }
  if (!defaultClass(storageClasses)) {
    storageClasses.set(UNKNOWN_DEFAULT_CLASS, {
      metadata: {
        name: UNKNOWN_DEFAULT_CLASS,
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      },
      provisioner: 'casdoctor.io/unknown-class',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
  }
  return { pvcs, pvs: new Map(a.raw.pvs.map((v) => [v.metadata.name ?? '', v])), storageClasses };
}

/** Stands for the cluster's default StorageClass when no input names one; a display name, as it reaches messages. */
export const UNKNOWN_DEFAULT_CLASS = "the cluster's default StorageClass (not among the inputs)";

/** A claim that asks for no class ("" in spec or the beta annotation): only a pre-provisioned PV satisfies it. */
function wantsNoClass(pvc: PersistentVolumeClaim): boolean {
  const beta = pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  return beta !== undefined ? beta === '' : pvc.spec?.storageClassName === '';
}

/**
 * The PV the PV controller binds a claim to once both are applied (pkg/controller/volume/persistentvolume
 * pv_controller.go syncUnboundClaim): the pre-bound one (spec.volumeName), or for a class-less claim a PV without a
 * class whose access modes, capacity and the claim's selector match and that no other claim reserves.
 */
export function staticVolumeFor(pvc: PersistentVolumeClaim, pvs: PersistentVolume[]): PersistentVolume | undefined {
  const wanted = pvc.spec?.volumeName;
  if (wanted) return pvs.find((v) => v.metadata.name === wanted);
  if (!wantsNoClass(pvc)) return undefined;
  const request = parseResourceList({ storage: String(pvc.spec?.resources?.requests?.storage ?? '0') }).storage ?? 0;
  const modes = pvc.spec?.accessModes ?? [];
  const selector = pvc.spec?.selector ? compileLabelSelector(pvc.spec.selector) : undefined;
  return pvs.find((v) => {
    const ref = v.spec?.claimRef;
    const otherClaim =
      ref &&
      (ref.name !== pvc.metadata.name || (ref.namespace ?? 'default') !== (pvc.metadata.namespace ?? 'default'));
    if (otherClaim) return false;
    if ((v.spec?.storageClassName ?? '') !== '') return false;
    const capacity = parseResourceList({ storage: String(v.spec?.capacity?.storage ?? '0') }).storage ?? 0;
    if (capacity < request) return false;
    if (!modes.every((m) => (v.spec?.accessModes ?? []).includes(m))) return false;
    return !selector || selector.matches(v.metadata.labels ?? {});
  });
}

/** A claim as it will be once applied: bound to the static PV the inputs hold for it. */
function asApplied(pvc: PersistentVolumeClaim, pvs: PersistentVolume[]): PersistentVolumeClaim {
  if (pvc.status?.phase === 'Bound') return pvc;
  const pv = staticVolumeFor(pvc, pvs);
  if (!pv) return pvc;
  return {
    ...pvc,
    spec: { ...(pvc.spec ?? {}), volumeName: pv.metadata.name ?? '' },
    status: { ...(pvc.status ?? {}), phase: 'Bound' },
  };
}

function viewFor(a: Analysis, key: string, node: Node, pods: Pod[]): { info: NodeInfo; view: ClusterView } {
  let perAnalysis = views.get(a);
  if (!perAnalysis) views.set(a, (perAnalysis = new Map()));
  const hit = perAnalysis.get(key);
  if (hit) return hit;
  const ctx = preflightOf(a) as PreflightContext;
  const vol = volumeData(a, ctx);
  const view = buildClusterView({
    nodes: [node],
    pods,
    pvcs: [...vol.pvcs.values()],
    pvs: [...vol.pvs.values()],
    storageClasses: [...vol.storageClasses.values()],
    has: { pvcs: true, pvs: true, storageClasses: true },
  });
  const built = { info: view.nodeInfos[0] ?? nodeInfoFor(node, pods), view };
  perAnalysis.set(key, built);
  return built;
}

const GPU_RE = /gpu|neuron|habana|gaudi/i;

/** Which kind of mismatch a failing plugin is, with its values. */
export function describeFailure(pod: Pod, info: NodeInfo, s: FilterStatus): DescribedFailure {
  const base = { plugin: s.plugin, reasons: s.reasons };
  switch (s.plugin) {
    case 'NodeResourcesFit': {
      const short = insufficientResources(pod, info);
      const values = short
        .map((r) =>
          r.resource === 'pods'
            ? `pods: ${r.used} already, allocatable ${r.capacity}`
            : `${r.resource}: requests ${formatResource(r.resource, r.requested)}, allocatable ${formatResource(r.resource, r.capacity)}${r.used > 0 ? ` (${formatResource(r.resource, r.used)} used by DaemonSets and system pods)` : ''}`,
        )
        .join('; ');
      const gpu = short.some((r) => GPU_RE.test(r.resource));
      const brief = short
        .map((r) =>
          r.resource === 'pods'
            ? `${r.used} pods = max ${r.capacity}`
            : `${r.resource} ${formatResource(r.resource, r.requested)} > ${formatResource(r.resource, Math.max(0, r.capacity - r.used))} free`,
        )
        .join(', ');
      return {
        ...base,
        category: gpu ? 'gpu' : 'resources',
        values: values || (s.details ?? []).join('; '),
        short: brief || s.reasons.join(', '),
      };
    }
    case 'TaintToleration': {
      const t = findUntoleratedTaint(pod.spec.tolerations, info.node.spec?.taints);
      const values = t
        ? `taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect} not tolerated`
        : (s.details ?? []).join('; ');
      return { ...base, category: 'taint', values, short: values };
    }
    case 'NodeAffinity': {
      const lines = explainNodeAffinityMismatch(pod, info.node);
      const text = lines.join('; ');
      const category: FailureCategory = /kubernetes\.io\/arch/.test(text)
        ? 'arch'
        : ZONE_KEYS.some((k) => text.includes(k))
          ? 'zone'
          : /kubernetes\.io\/os/.test(text)
            ? 'os'
            : GPU_RE.test(text)
              ? 'gpu'
              : 'selector';
      return { ...base, category, values: text, short: lines[0] ?? s.reasons.join(', ') };
    }
    case 'VolumeBinding':
    case 'VolumeZone': {
      const text = (s.details ?? s.reasons).join('; ');
      const category = ZONE_KEYS.some((k) => text.includes(k)) ? 'zone' : 'volume';
      return { ...base, category, values: text, short: s.reasons.join(', ') };
    }
    case 'PodTopologySpread':
      return {
        ...base,
        category: 'topology',
        values: (s.details ?? s.reasons).join('; '),
        short: s.reasons.join(', '),
      };
    case 'NodePorts':
      return {
        ...base,
        category: 'ports',
        values: (s.details ?? s.reasons).join('; '),
        short: s.reasons.join(', '),
      };
    default:
      return {
        ...base,
        category: 'other',
        values: (s.details ?? s.reasons).join('; '),
        short: s.reasons.join(', '),
      };
  }
}

function fit(a: Analysis, pod: Pod, key: string, node: Node, pods: Pod[]): FitResult {
  const { info, view } = viewFor(a, key, node, pods);
  const all = evaluateAllFilters(pod, info, view, {
    plugins: PREFLIGHT_PLUGINS,
    taintReason: a.caTaintReason,
  });
  return {
    fits: all.failures.length === 0 && all.notEvaluated.length === 0,
    failures: all.failures,
    notEvaluated: all.notEvaluated,
    described: all.failures.map((f) => describeFailure(pod, info, f)),
  };
}

/** The pod preflight evaluates: volumes whose claim is in no input dropped when the cluster's claims are unknown. */
function evaluationPod(a: Analysis, w: PreflightWorkload, notes: string[]): Pod {
  const claims = workloadClaims(a, w);
  // a claim in no input may come from another chart or a later step: unknown, not "not found"
  const missing = claims.filter((c) => c.origin === 'missing');
  // a static claim (pre-bound, or class "") whose PV is in no input: unknown unless the cluster's PVs were read
  const clusterPvsKnown = a.raw.provided.has('pvs');
  const unknownPv = clusterPvsKnown
    ? []
    : claims.filter(
        (c) =>
          c.origin !== 'missing' &&
          c.pvc &&
          c.pvc.status?.phase !== 'Bound' &&
          (c.pvc.spec?.volumeName || wantsNoClass(c.pvc)) &&
          !staticVolumeFor(c.pvc, a.raw.pvs),
      );
  if (missing.length === 0 && unknownPv.length === 0) return w.pod;
  const drop = new Set([...missing, ...unknownPv].map((c) => c.volume));
  if (missing.length > 0)
    notes.push(
      `PersistentVolumeClaim(s) ${missing.map((c) => c.claimName).join(', ')} are in no input: their volumes' placement is not evaluated`,
    );
  if (unknownPv.length > 0)
    notes.push(
      `PersistentVolumeClaim(s) ${unknownPv.map((c) => (c.pvc?.spec?.volumeName ? `${c.claimName} (pre-bound to PersistentVolume ${c.pvc.spec.volumeName})` : `${c.claimName} (no class: binds to a pre-provisioned PersistentVolume)`)).join(', ')}: the volume is in no input, so its placement is not evaluated`,
    );
  return {
    ...w.pod,
    spec: { ...w.pod.spec, volumes: (w.pod.spec.volumes ?? []).filter((v) => !drop.has(v.name)) },
  };
}

/** How every node group fares for the workload's sample pod, in CA's view (from zero) and on a real node. */
export function placementOf(a: Analysis, w: PreflightWorkload): WorkloadPlacement {
  let perAnalysis = placements.get(a);
  if (!perAnalysis) placements.set(a, (perAnalysis = new Map()));
  const hit = perAnalysis.get(w);
  if (hit) return hit;
  const ctx = preflightOf(a) as PreflightContext;
  const notes: string[] = [];
  const pod = evaluationPod(a, w, notes);
  const groups: GroupPlacement[] = ctx.groups.map((g) => {
    const out: GroupPlacement = { g };
    if (!g.gate && g.scratch.node) out.ca = fit(a, pod, `ca:${g.group.name}`, g.scratch.node, g.scratch.pods);
    if (g.real) out.real = fit(a, pod, `real:${g.group.name}`, g.real.node, g.real.pods);
    return out;
  });
  const caFits = groups.filter((p) => p.ca?.fits);
  const realOnly = groups.filter(
    (p) => p.real?.fits && !p.ca?.fits && (p.g.gate === undefined || p.g.gate.kind === 'no-template'),
  );
  // a group casdoctor cannot build, or whose only open question is a predicate it could not evaluate
  const notEvaluated = groups.filter(
    (p) =>
      p.g.gate?.kind === 'not-evaluated' ||
      (!p.g.gate && p.ca !== undefined && p.ca.failures.length === 0 && p.ca.notEvaluated.length > 0),
  );
  const result: WorkloadPlacement = { workload: w, pod, groups, caFits, realOnly, notEvaluated, notes };
  perAnalysis.set(w, result);
  return result;
}

/** Workloads CA would ever scale up for: pod-producing, not DaemonSets, at least one replica. */
export function placementWorkloads(ctx: PreflightContext): PreflightWorkload[] {
  return ctx.workloads.filter((w) => w.kind !== 'DaemonSet' && (w.replicas ?? 1) > 0);
}
