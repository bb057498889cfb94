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
import type { DaemonSet, Deployment, KubeObject, PersistentVolume, PersistentVolumeClaim, PodDisruptionBudget, PriorityClass, StorageClass } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import type { DeclaredNodeGroup, EksctlInstanceSelector, LocatedObject, NotEvaluatedReason } from '../model/preflight.js';
import { isExternalGrpcDeclared } from '../model/preflight.js';
import { emptyInputs, type RawInputs } from '../model/snapshot.js';
import { Analysis } from './analysis.js';
import { buildCaConfig, findCaDeployment } from './ca-config.js';
import type { StaticInstanceTypeData } from './instance-types.js';
import { compileLabelSelector } from './predicates/labels.js';
import { buildWorkloads, type PreflightWorkload } from './preflight-workloads.js';
import type { ScratchTemplate, TemplateResult } from './node-group-provider.js';
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
import { type OperatorPods, type PreflightContext, type PreflightGroup, type PreflightInput, type PreflightOptions, ZONE_KEYS, byName, contexts, manifestObjects, mergeObjects, operatorPodsOf, preflightOf } from './preflight-context.js';
import { declaredToAws, modelRealNode } from './preflight-declared.js';
import { UNKNOWN_DEFAULT_CLASS, asApplied, placementOf, placementWorkloads, workloadClaims } from './preflight-placement.js';

// the context, the declared groups and the placement moved to preflight-context.ts, preflight-declared.ts and
// preflight-placement.ts; importers keep this path
export { type DescribedFailure, type FailureCategory, type FitResult, type GateKind, type GroupPlacement, manifestObjects, type OperatorPods, operatorPodsOf, type PreflightContext, type PreflightGroup, type PreflightInput, preflightOf, type PreflightOptions, type WorkloadPlacement, ZONAL_PROVISIONERS, ZONE_KEYS } from './preflight-context.js';
export { declaredToAws, estimateAllocatable, modelRealNode, syntheticInstanceType } from './preflight-declared.js';
export { bindsImmediately, describeFailure, isZonalStorageClass, placementOf, placementWorkloads, staticVolumeFor, UNKNOWN_DEFAULT_CLASS, type WorkloadClaim, workloadClaims } from './preflight-placement.js';

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
