// Why a pending pod gets no Karpenter node: Karpenter's provisioning decision per NodePool, in its order and words
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go, scheduling/scheduler.go, scheduling/nodeclaim.go),
// plus what its event no longer says since v1.5 (which pool, the DaemonSet overhead, the remaining limits) and the
// instance types left at each filter step. Also NodeClaims of the pod's pools that launched but never joined. Pure.
import type {
  DaemonSet,
  Node,
  NodeSelectorRequirement,
  PodAffinityTerm,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ResourceMap,
  StorageClass,
  Taint,
  Toleration,
} from '../../../model/k8s.js';
import { formatTaint } from '../../../model/k8s.js';
import type { EC2NodeClass, KarpenterCondition, KarpenterDeploymentSettings, NodeClaim, NodePool } from '../../../model/karpenter.js';
import { NODEPOOL_LABEL } from '../../../model/karpenter.js';
import { formatResource } from '../../../model/quantity.js';
import type { Resources } from '../../../model/scheduling.js';
import type { InstanceTypeTable } from '../../instance-types.js';
import { tolerationsTolerateTaint } from '../../predicates/taint-toleration.js';
import { compileLabelSelector } from '../../predicates/labels.js';
import { addResources, parseResourceList, podRequests } from '../../resources.js';
import { buildKarpenterInstanceTypes, nodeClassZones, UNMODELLED_INSTANCE_LABELS } from './instance-types.js';
import type { InstanceTypeOfferingRow, KarpenterInstanceType, KarpenterOffering } from './instance-types.js';
import { withKarpenterTextVersion,
  activeWellKnownLabels,
  addRequirement,
  compatible,
  copyRequirements,
  describeAllowed,
  getRequirement,
  intersects,
  labelRequirements,
  newRequirement,
  operatorOf,
  podRequirements,
  requiredTermCount,
  requirementsFrom,
  requirementsString,
  requirementHas,
  NORMALIZED_LABELS,
  type KRequirements,
  ownedBy,
} from './requirements.js';
import { podKey } from '../../predicates/status.js';
import { KARPENTER_MODELLED, karpenterHas, karpenterVersion } from './versions.js';

/** karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go registrationTimeout / LaunchTimeout. */
export const REGISTRATION_TTL_MS = 15 * 60_000;
export const LAUNCH_TTL_MS = 5 * 60_000;

export interface KarpenterPlacementContext {
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  nodeClaims: NodeClaim[];
  nodes: Node[];
  /** All pods (for DaemonSet pods already running, whose spec Karpenter prefers over the template). */
  pods?: Pod[];
  daemonSets: DaemonSet[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  storageClasses?: StorageClass[];
  instanceTypes: InstanceTypeTable;
  settings?: KarpenterDeploymentSettings;
  liveOfferings?: InstanceTypeOfferingRow[];
  region?: string;
  now: Date;
}

export type PlacementStage =
  | 'unmanaged-nodeclass'
  | 'static-nodepool'
  | 'deleting'
  | 'nodepool-not-ready'
  | 'no-instance-types'
  | 'nodepool-requirements'
  | 'node-limit'
  | 'resource-limits'
  | 'taints'
  | 'host-ports'
  | 'requirements'
  | 'volume-topology'
  | 'topology'
  | 'instance-types'
  | 'min-values';

export interface FunnelStep {
  step: 'nodepool' | 'limits' | 'requirements' | 'resources' | 'offerings' | 'minValues';
  /** Instance types still in the running after this step. */
  remaining: number;
  /** A few of them (cheapest-looking first: fewest vCPUs, then memory). */
  examples: string[];
}

export interface PoolPlacement {
  nodePool: string;
  weight: number;
  verdict: 'fits' | 'rejected' | 'not-evaluated';
  /** True for the pool Karpenter would launch into (the first that fits in weight order). */
  chosen: boolean;
  stage?: PlacementStage;
  /** Karpenter's error for this pool as it prints it at HEAD (one of the "; "-joined parts of the event). */
  error?: string;
  /** The same error as Karpenter <= v1.4 printed it (with pool name and DaemonSet overhead). */
  legacyError?: string;
  /** The pool fits, but launching would fail on the NodeClass' AMIs (amifamily/resolver.go Resolve): the NodeClaim never launches. */
  launchError?: string;
  /** Plain explanation with the values behind the verdict. */
  detail: string;
  nodeClass?: { name: string; found: boolean; ready?: boolean; zones: string[]; reason?: string };
  /** DaemonSets whose pods would run on this pool's nodes and their summed requests (the largest variant). */
  daemonSets: string[];
  daemonSetOverhead: ResourceMap;
  /** limits minus what the pool's nodes and in-flight NodeClaims hold (only limited resources). */
  remainingLimits?: ResourceMap;
  capacityTypes: string[];
  zones: string[];
  funnel: FunnelStep[];
  notes: string[];
  /**
   * For a pool stopped by its limits: what the pool would do without them. fits → the limit is what stops the pod, and
   * `raise` holds, per limited resource, the smallest spec.limits value that lets the smallest fitting type in; else the
   * stage and error that would still stop it.
   */
  withoutLimits?: { fits: boolean; raise?: ResourceMap; stage?: PlacementStage; error?: string };
}

export interface PodEligibility {
  provisionable: boolean;
  /** Why Karpenter does not consider the pod (IsProvisionable / Validate). */
  reason?: string;
  /** Karpenter ignores the pod without any event (karpenter.sh/nodepool DoesNotExist). */
  silent?: boolean;
  /** FailedScheduling event Karpenter publishes for an invalid pod. */
  event?: string;
}

export interface StuckNodeClaim {
  name: string;
  nodePool: string;
  stage: 'launch' | 'registration' | 'initialization';
  /** Since the condition that is still pending last changed (ms). */
  ageMs: number;
  /** Karpenter's own bound for this stage (registration 15m, launch 5m); undefined: no bound. */
  boundMs?: number;
  overdue: boolean;
  providerID?: string;
  nodeName?: string;
  message: string;
}

/**
 * What Karpenter does for the pod in its next pass: launch a NodeClaim ('new-node'), wait for capacity it already has
 * or is bringing ('in-flight': an existing node, an uninitialized node or a NodeClaim in flight), nothing ('no-node':
 * every NodePool rejects it), leave it alone ('ignored'), or casdoctor cannot tell ('not-evaluated', see notEvaluated).
 */
export type KarpenterOutcome = 'new-node' | 'in-flight' | 'no-node' | 'ignored' | 'not-evaluated';

export interface KarpenterPendingExplanation {
  pod: string;
  eligibility: PodEligibility;
  outcome: KarpenterOutcome;
  /** Why the outcome is 'not-evaluated': what casdoctor does not model for this pod, and what that means. */
  notEvaluated?: string;
  /** The capacity Karpenter already has or is bringing that takes the pod (outcome 'in-flight'). */
  inFlight?: { kind: 'node' | 'nodeclaim'; name: string; nodePool?: string; why: string };
  pools: PoolPlacement[];
  /** The NodePool Karpenter would launch into. */
  chosen?: string;
  /** The FailedScheduling event text at HEAD ("Failed to schedule pod, ..."), when no pool fits. */
  event?: string;
  /** The same as Karpenter <= v1.4 printed it. */
  legacyEvent?: string;
  stuckNodeClaims: StuckNodeClaim[];
  notes: string[];
}

// ------------------------------------------------------------------------------------------------ helpers

function cond(conds: KarpenterCondition[] | undefined, type: string): KarpenterCondition | undefined {
  return conds?.find((c) => c.type === type);
}

/** pretty.Taint: "k=v:Effect" or "k:Effect". */
export function prettyTaint(t: Taint): string {
  return formatTaint(t);
}

/** resources.String / pretty.Concise: JSON of the resource list, keys sorted (units approximated canonically). */
export function resourcesString(r: Resources): string {
  const keys = Object.keys(r).sort();
  if (keys.length === 0) return '{}';
  return `{${keys.map((k) => `"${k}":"${formatResource(k, r[k])}"`).join(',')}}`;
}

function toResourceMap(r: Resources): ResourceMap {
  const out: ResourceMap = {};
  for (const k of Object.keys(r).sort()) out[k] = formatResource(k, r[k]);
  return out;
}

/** Karpenter's pod requests: scheduler requests plus pods=1 per pod (resources.RequestsForPods). */
function karpenterRequests(pods: Pod[]): Resources {
  let out: Resources = {};
  for (const p of pods) out = addResources(out, podRequests(p));
  out.pods = pods.length;
  return out;
}

/** resources.Fits: any negative allocatable never fits; every request <= allocatable (missing = 0). */
function fitsResources(requests: Resources, allocatable: Resources): boolean {
  if (Object.values(allocatable).some((v) => v < 0)) return false;
  return Object.entries(requests).every(([k, v]) => v <= (allocatable[k] ?? 0));
}

function sortTypes(list: KarpenterInstanceType[]): KarpenterInstanceType[] {
  return [...list].sort((a, b) => a.info.vcpu - b.info.vcpu || a.info.memoryMiB - b.info.memoryMiB || a.name.localeCompare(b.name));
}

function examples(list: KarpenterInstanceType[], n = 5): string[] {
  return sortTypes(list)
    .slice(0, n)
    .map((t) => t.name);
}

const offeringReqCache = new WeakMap<KarpenterOffering, KRequirements>();

function offeringRequirements(o: KarpenterOffering): KRequirements {
  const cached = offeringReqCache.get(o);
  if (cached) return cached;
  const r: KRequirements = new Map();
  offeringReqCache.set(o, r);
  addRequirement(r, newRequirement('karpenter.sh/capacity-type', 'In', [o.capacityType]));
  addRequirement(r, newRequirement('topology.kubernetes.io/zone', 'In', [o.zone]));
  if (o.zoneID) addRequirement(r, newRequirement('topology.k8s.aws/zone-id', 'In', [o.zoneID]));
  addRequirement(
    r,
    o.reservationID
      ? newRequirement('karpenter.k8s.aws/capacity-reservation-id', 'In', [o.reservationID])
      : newRequirement('karpenter.k8s.aws/capacity-reservation-id', 'DoesNotExist'),
  );
  return r;
}

/** The pool's tolerations check (taints.go Tolerates): every template taint must be tolerated. */
function untoleratedTaints(taints: Taint[], tolerations: Toleration[] | undefined, toleratePreferNoSchedule: boolean): Taint[] {
  const tol = [...(tolerations ?? [])];
  // scheduler.go NewScheduler: once any NodePool has a PreferNoSchedule taint, relaxation adds a toleration for it
  if (toleratePreferNoSchedule) tol.push({ operator: 'Exists', effect: 'PreferNoSchedule' });
  return taints.filter((t) => !tolerationsTolerateTaint(tol, t));
}

function taintError(untolerated: Taint[]): string {
  return untolerated.map((t) => `did not tolerate taint (taint=${prettyTaint(t)})`).join('; ');
}

// ------------------------------------------------------------------------------------------------ eligibility

/** labels.go IsRestrictedLabel of the input's version (the AWS provider adds karpenter.k8s.aws to the domains). */
function restrictedLabelError(key: string, version: string | undefined): string | undefined {
  const k = NORMALIZED_LABELS[key] ?? key;
  const wellKnown = activeWellKnownLabels();
  if (wellKnown.has(k)) return undefined;
  const domain = k.includes('/') ? k.split('/')[0] : '';
  if (karpenterHas(version, 'restricted-labels-karpenter-only')) {
    // labels.go:126-141@v1.9.0
    const restrictedDomains = ['karpenter.k8s.aws', 'karpenter.sh'];
    const msg = `using label ${k} is not allowed as it might interfere with the internal provisioning logic; specify a well known label: [${[...wellKnown].sort().join(' ')}], or a custom label that does not use a restricted domain: [${restrictedDomains.join(' ')}]`;
    if (restrictedDomains.some((d) => domain === d || domain.endsWith(`.${d}`))) return msg;
    if (k === 'kubernetes.io/hostname') return msg;
    return undefined;
  }
  // labels.go:122-163@v1.6.2 IsRestrictedNodeLabel: plain suffix matches, exceptions first, then hostname
  const restrictedDomains = ['k8s.io', 'karpenter.k8s.aws', 'karpenter.sh', 'kubernetes.io'];
  const exceptions = ['kops.k8s.io', 'node.kubernetes.io', 'node-restriction.kubernetes.io'];
  const restricted = exceptions.some((d) => domain.endsWith(d)) ? false : restrictedDomains.some((d) => domain.endsWith(d)) || k === 'kubernetes.io/hostname';
  if (!restricted) return undefined;
  return `label is restricted; specify a well known label or a custom label that does not use a restricted domain (label=${k}, well-known-labels=[${[...wellKnown].sort().join(' ')}], restricted-labels=[${restrictedDomains.join(' ')}])`;
}

/** pod/scheduling.go HasDRARequirements: pod-level resourceClaims or claims on any container. */
export function hasDRARequirements(pod: Pod): boolean {
  if (Array.isArray(pod.spec.resourceClaims) && pod.spec.resourceClaims.length > 0) return true;
  return [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])].some((c) => {
    const claims = (c.resources as { claims?: unknown[] } | undefined)?.claims;
    return Array.isArray(claims) && claims.length > 0;
  });
}

/** pod/scheduling.go IsProvisionable, then provisioner.go Validate (the parts that need no API lookups beyond PVCs). */
export function karpenterPodEligibility(pod: Pod, ctx: Pick<KarpenterPlacementContext, 'pvcs' | 'storageClasses' | 'settings'> = {}): PodEligibility {
  const version = ctx.settings?.version;
  const unschedulable = (pod.status?.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');
  if (!unschedulable) {
    return { provisionable: false, reason: 'kube-scheduler has not marked the pod PodScheduled=False reason Unschedulable; Karpenter only acts on such pods' };
  }
  if (pod.spec.nodeName) return { provisionable: false, reason: `the pod is bound to node ${pod.spec.nodeName}` };
  if (pod.status?.nominatedNodeName) {
    return { provisionable: false, reason: `the pod is preempting (nominatedNodeName ${pod.status.nominatedNodeName}); Karpenter waits` };
  }
  if (ownedBy(pod, 'apps/v1', 'DaemonSet')) return { provisionable: false, reason: 'DaemonSet pods never trigger Karpenter provisioning' };
  if (ownedBy(pod, 'v1', 'Node')) return { provisionable: false, reason: 'static (mirror) pods never trigger Karpenter provisioning' };

  // provisioner.go:578 KarpenterManagedLabelDoesNotExistError: ignored without an event (provisioner.go:209)
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  // NewPodRequirements: node selector, the heaviest preferred term, then the first required term
  const withPreferred = labelRequirements(pod.spec.nodeSelector);
  const preferred = [...((pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Array<{ weight?: number; preference?: { matchExpressions?: NodeSelectorRequirement[] } }>)].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0));
  for (const r of requirementsFrom(preferred[0]?.preference?.matchExpressions ?? []).values()) addRequirement(withPreferred, r);
  for (const r of requirementsFrom(terms[0]?.matchExpressions ?? []).values()) addRequirement(withPreferred, r);
  const np = withPreferred.get(NODEPOOL_LABEL);
  if (np && operatorOf(np) === 'DoesNotExist') {
    return {
      provisionable: false,
      silent: true,
      reason: `configured to not run on a Karpenter provisioned node (requirement=${NODEPOOL_LABEL} DoesNotExist)`,
    };
  }
  const errs: string[] = [];
  const validate = (key: string, operator: string, values: string[]): void => {
    const k = key;
    // nodeclaim_validation.go SupportedNodeSelectorOps: Gte/Lte from v1.9.0 (and the core API refuses them in pods)
    const ops = karpenterHas(version, 'requirement-bounds-gte') ? ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] : ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
    if (!ops.includes(operator)) {
      errs.push(`key ${k} has an unsupported operator ${operator}`);
    }
    const r = restrictedLabelError(k, version);
    if (r) errs.push(r);
    if (operator === 'In' && values.length === 0) errs.push(`key ${k} with operator ${operator} must have a value defined`);
  };
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) validate(k, 'In', [v]);
  for (const t of terms) {
    if (t.matchFields) errs.push('node selector term with matchFields is not supported');
    for (const r of t.matchExpressions ?? []) validate(r.key, r.operator, r.values ?? []);
  }
  // volumetopology.go ValidatePersistentVolumeClaims (the offline-checkable cases); it stops at the first bad claim
  for (const vol of pod.spec.volumes ?? []) {
    const ns = pod.metadata.namespace ?? 'default';
    const claim = vol.persistentVolumeClaim?.claimName ?? (vol.ephemeral ? `${pod.metadata.name ?? ''}-${vol.name}` : undefined);
    if (!claim || !ctx.pvcs) continue;
    const pvc = ctx.pvcs.find((p) => p.metadata.name === claim && (p.metadata.namespace ?? 'default') === ns);
    let e: string | undefined;
    const v17 = karpenterHas(version, 'pvc-validation-texts');
    if (!pvc) e = `getting persistent volume claim, persistentvolumeclaims "${claim}" not found (PersistentVolumeClaim=${claim})`;
    else if (v17 && pvc.metadata.deletionTimestamp) e = `persistentvolumeclaim is being deleted (PersistentVolumeClaim=${ns}/${claim})`;
    else if (v17 && pvc.spec?.volumeName && !pvc.metadata.annotations?.['pv.kubernetes.io/bind-completed']) {
      e = `pvc is considered unbound because it does not contain annotation (PersistentVolume=${pvc.spec.volumeName}, PersistentVolumeClaim=${claim}, annotation=pv.kubernetes.io/bind-completed)`;
    } else if (!pvc.spec?.volumeName && !pvc.spec?.storageClassName) {
      // volumetopology.go:171-175@v1.6.2 names the claim without its namespace and no StorageClass
      e = v17 ? `unbound pvc must define a storage class (PersistentVolumeClaim=${ns}/${claim}, StorageClass=)` : `unbound pvc must define a storage class (PersistentVolumeClaim=${claim})`;
    }
    if (e) {
      errs.push(e);
      break;
    }
  }
  if (errs.length > 0) {
    const err = errs.join('; ');
    // provisioner.go:176-178@v1.7.0 publishes PodFailedToScheduleEvent with the Validate error; before v1.7 only a V(1) log line
    if (!karpenterHas(version, 'validate-event')) return { provisionable: false, reason: `ignoring pod, ${err}`, silent: true };
    return { provisionable: false, reason: `ignoring pod, ${err}`, event: `Failed to schedule pod, ${err}` };
  }
  return { provisionable: true };
}

// ------------------------------------------------------------------------------------------------ volumes

/** volumetopology.go GetRequirements: one alternative list per claim (PV node affinity terms, else StorageClass topologies). */
function volumeAlternatives(pod: Pod, ctx: KarpenterPlacementContext): { alternatives: KRequirements[]; notes: string[] } {
  // before v1.13 only the first PV node-affinity term and the first StorageClass topology term count (volumetopology.go:116-121,137-139@v1.6.2)
  const firstOnly = !karpenterHas(ctx.settings?.version, 'volume-alternatives');
  let alternatives: KRequirements[] = [new Map()];
  const notes: string[] = [];
  for (const vol of pod.spec.volumes ?? []) {
    const claim = vol.persistentVolumeClaim?.claimName;
    if (!claim) continue;
    const ns = pod.metadata.namespace ?? 'default';
    const pvc = (ctx.pvcs ?? []).find((p) => p.metadata.name === claim && (p.metadata.namespace ?? 'default') === ns);
    if (!pvc) continue;
    let volAlts: KRequirements[] = [];
    if (pvc.spec?.volumeName) {
      const pv = (ctx.pvs ?? []).find((p) => p.metadata.name === pvc.spec?.volumeName);
      if (!pv) {
        notes.push(`PersistentVolume ${pvc.spec.volumeName} of claim ${claim} is not in the snapshot: its zone is not checked`);
        continue;
      }
      for (const term of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
        const exprs = (term.matchExpressions ?? []).filter((e) => !((pv.spec?.local || pv.spec?.hostPath) && e.key === 'kubernetes.io/hostname'));
        volAlts.push(requirementsFrom(exprs));
        if (firstOnly) break;
      }
    } else if (pvc.spec?.storageClassName) {
      const sc = (ctx.storageClasses ?? []).find((s) => s.metadata.name === pvc.spec?.storageClassName);
      for (const t of sc?.allowedTopologies ?? []) {
        const exprs = (t.matchLabelExpressions ?? []).map((e) => ({ key: e.key, operator: 'In', values: e.values }));
        if (exprs.length > 0) volAlts.push(requirementsFrom(exprs));
        if (firstOnly && exprs.length > 0) break;
      }
    }
    volAlts = volAlts.filter((a) => a.size > 0 || volAlts.length === 1);
    if (volAlts.length === 0) continue;
    // volumetopology.go mergeVolumeRequirementAlternatives: cross product of compatible alternatives
    const merged: KRequirements[] = [];
    for (const a of alternatives) {
      for (const v of volAlts) {
        if (intersects(a, v).length > 0) continue;
        const m = copyRequirements(a);
        for (const r of v.values()) addRequirement(m, r);
        merged.push(m);
      }
    }
    alternatives = merged.length > 0 ? merged : volAlts;
  }
  return { alternatives: alternatives.filter((a) => a.size > 0), notes };
}

// ------------------------------------------------------------------------------------------------ daemonsets

const daemonPodsByCtx = new WeakMap<KarpenterPlacementContext, Array<{ name: string; pod: Pod }>>();

/** The DaemonSet pods Karpenter adds to a new node, once per context (every Pending pod reads them). */
function daemonPods(ctx: KarpenterPlacementContext): Array<{ name: string; pod: Pod }> {
  const hit = daemonPodsByCtx.get(ctx);
  if (hit) return hit;
  // the first pod of each DaemonSet (namespace/name), in pod order: one pass over the pods, not one per DaemonSet
  const firstLive = new Map<string, Pod>();
  for (const p of ctx.pods ?? []) {
    for (const o of p.metadata.ownerReferences ?? []) {
      if (o.kind !== 'DaemonSet') continue;
      const k = `${p.metadata.namespace ?? 'default'}/${o.name}`;
      if (!firstLive.has(k)) firstLive.set(k, p);
    }
  }
  const out: Array<{ name: string; pod: Pod }> = [];
  for (const ds of ctx.daemonSets) {
    const name = `${ds.metadata.namespace ?? 'default'}/${ds.metadata.name ?? ''}`;
    // provisioner.go getDaemonSetPods: a running pod of the DaemonSet when the cluster has one, else the template
    const live = firstLive.get(`${ds.metadata.namespace ?? 'default'}/${ds.metadata.name}`);
    const spec = live?.spec ?? ds.spec?.template?.spec;
    if (!spec) continue;
    const pod: Pod = { metadata: { name: ds.metadata.name, namespace: ds.metadata.namespace }, spec: { ...spec } };
    // daemonset.go PodForDaemonSet merges limits into requests; podRequests does the same for a missing request
    const dsAffinity = ds.spec?.template?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (live && dsAffinity) pod.spec.affinity = { ...(pod.spec.affinity ?? {}), nodeAffinity: { ...(pod.spec.affinity?.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: dsAffinity } };
    out.push({ name, pod });
  }
  daemonPodsByCtx.set(ctx, out);
  return out;
}

/** scheduler.go isDaemonPodCompatible: template taints tolerated, template requirements compatible, the type intersects. */
function daemonCompatible(templateReqs: KRequirements, taints: Taint[], it: KarpenterInstanceType | undefined, pod: Pod): boolean {
  if (untoleratedTaints(taints, pod.spec.tolerations, true).length > 0) return false;
  for (let i = 0; i < requiredTermCount(pod); i++) {
    const reqs = podRequirements(pod, i);
    // it undefined: before v1.14 the overhead is one per template, whatever the instance type (scheduler.go:698-738@v1.6.2)
    if (compatible(templateReqs, reqs) === undefined && (!it || intersects(it.requirements, reqs).length === 0)) return true;
  }
  return false;
}

interface HostPort {
  ip: string;
  port: number;
  protocol: string;
}

/** scheduling/hostportusage.go GetHostPorts: the containers' hostPorts, hostIP defaulting to 0.0.0.0. */
function hostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort) continue;
      out.push({ ip: p.hostIP || '0.0.0.0', port: p.hostPort, protocol: p.protocol ?? 'TCP' });
    }
  }
  return out;
}

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** hostportusage.go Conflicts: the pod's first host port a DaemonSet already uses on the node (same protocol and port, overlapping IP). */
function hostPortClash(pod: Pod, daemons: Array<{ name: string; pod: Pod }>): { error: string; port: HostPort; daemonSet: string } | undefined {
  const mine = hostPorts(pod);
  if (mine.length === 0) return undefined;
  for (const n of mine) {
    for (const d of daemons) {
      for (const e of hostPorts(d.pod)) {
        if (n.protocol !== e.protocol || n.port !== e.port) continue;
        if (n.ip !== e.ip && !UNSPECIFIED.has(n.ip) && !UNSPECIFIED.has(e.ip)) continue;
        return {
          error: `pod hostport conflicts with existing hostport configuration (pod-hostport-ip=${n.ip}, pod-hostport-port=${n.port}, pod-hostport-protocol=${n.protocol}, existing-hostport-ip=${e.ip}, existing-hostport-port=${e.port}, existing-hostport-protocol=${e.protocol})`,
          port: n,
          daemonSet: d.name,
        };
      }
    }
  }
  return undefined;
}

// ------------------------------------------------------------------------------------------------ pools

interface PoolModel {
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

// Instance types and DaemonSet overhead do not depend on the pod: reuse them across the pods of one context
const instanceTypeCache = new WeakMap<KarpenterPlacementContext, Map<EC2NodeClass, KarpenterInstanceType[]>>();
const poolCache = new WeakMap<KarpenterPlacementContext, Map<NodePool, PoolModel>>();
const preCache = new WeakMap<KarpenterPlacementContext, Map<NodePool, FilterOutcome>>();
// the pool's capacity types depend on the pool and the context only: once per pool, not per pod
const capacityTypesCache = new WeakMap<KarpenterPlacementContext, Map<NodePool, string[]>>();

function cachedInstanceTypes(ctx: KarpenterPlacementContext, nodeClass: EC2NodeClass): KarpenterInstanceType[] {
  let m = instanceTypeCache.get(ctx);
  if (!m) instanceTypeCache.set(ctx, (m = new Map()));
  let its = m.get(nodeClass);
  if (!its) {
    its = buildKarpenterInstanceTypes(ctx.instanceTypes, {
      nodeClass,
      ...(ctx.settings ? { settings: ctx.settings } : {}),
      ...(ctx.liveOfferings ? { liveOfferings: ctx.liveOfferings } : {}),
      ...(ctx.region ? { region: ctx.region } : {}),
    });
    m.set(nodeClass, its);
  }
  return its;
}

/** nodepool.go OrderByWeight: weight descending, equal weights by name DESCENDING (nodepool/nodepool.go:167). */
export function orderNodePools(pools: NodePool[]): NodePool[] {
  return [...pools].sort((a, b) => {
    const wa = a.spec.weight ?? 0;
    const wb = b.spec.weight ?? 0;
    if (wa !== wb) return wb - wa;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na === nb ? 0 : na > nb ? -1 : 1;
  });
}

/** nodeclaimtemplate.go NewNodeClaimTemplate: spec requirements + template labels + nodepool/nodeclass labels. */
export function templateRequirements(np: NodePool, version?: string): KRequirements {
  const reqs = requirementsFrom(np.spec.template.spec.requirements ?? []);
  const labels: Record<string, string> = {
    ...(np.spec.template.metadata?.labels ?? {}),
    [NODEPOOL_LABEL]: np.metadata.name ?? '',
  };
  const ref = np.spec.template.spec.nodeClassRef;
  if (ref?.group && ref.kind) labels[`${ref.group}/${ref.kind.toLowerCase()}`] = ref.name;
  for (const r of labelRequirements(labels).values()) addRequirement(reqs, r);
  // nodeclaimtemplate.go:86-89@v1.14.1; absent before v1.14 (:55-74@v1.6.2)
  if (karpenterHas(version, 'registered-initialized-requirements')) {
    addRequirement(reqs, newRequirement('karpenter.sh/registered', 'In', ['true']));
    addRequirement(reqs, newRequirement('karpenter.sh/initialized', 'In', ['true']));
  }
  return reqs;
}

/** limits minus the capacity of the pool's active nodes and node-less NodeClaims, each counting nodes=1 (scheduler.go updateRemainingResources). */
export function remainingLimits(np: NodePool, nodes: Node[], nodeClaims: NodeClaim[]): Resources | undefined {
  const limits = np.spec.limits;
  if (!limits || Object.keys(limits).length === 0) return undefined;
  const name = np.metadata.name ?? '';
  const remaining = parseResourceList(limits);
  const sub = (cap: Resources): void => {
    for (const k of Object.keys(remaining)) remaining[k] -= k === 'nodes' ? 1 : (cap[k] ?? 0);
  };
  const nodeNames = new Set<string>();
  for (const n of nodes) {
    if (n.metadata.labels?.[NODEPOOL_LABEL] !== name || n.metadata.deletionTimestamp) continue;
    nodeNames.add(n.metadata.name ?? '');
    const nc = nodeClaims.find((c) => c.status?.nodeName === n.metadata.name);
    const cap = parseResourceList(n.status?.capacity);
    // statenode.go Capacity: an uninitialized node's zero values come from its NodeClaim
    for (const [k, v] of Object.entries(parseResourceList(nc?.status?.capacity))) if (!cap[k]) cap[k] = v;
    sub(cap);
  }
  for (const nc of nodeClaims) {
    if (nc.metadata.labels?.[NODEPOOL_LABEL] !== name || nc.metadata.deletionTimestamp) continue;
    if (nc.status?.nodeName && nodeNames.has(nc.status.nodeName)) continue;
    sub(parseResourceList(nc.status?.capacity));
  }
  return remaining;
}

function nodeClassFor(np: NodePool, ctx: KarpenterPlacementContext): EC2NodeClass | undefined {
  const ref = np.spec.template.spec.nodeClassRef;
  return ctx.nodeClasses.find((c) => c.metadata.name === ref?.name);
}

function poolReadiness(np: NodePool, nodeClass: EC2NodeClass | undefined): { ready: boolean; reason: string } {
  const conds = np.status?.conditions;
  const ready = cond(conds, 'Ready');
  if (ready) {
    if (ready.status === 'True') return { ready: true, reason: '' };
    const bad = ['ValidationSucceeded', 'NodeClassReady']
      .map((t) => cond(conds, t))
      .filter((c): c is KarpenterCondition => !!c && c.status !== 'True')
      .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`);
    return { ready: false, reason: bad.length > 0 ? bad.join(', ') : `Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ''}` };
  }
  // no status yet (e.g. a manifest): judge from the NodeClass the way the NodeClassReady condition would
  if (!nodeClass) return { ready: false, reason: `NodeClassReady=False (NodeClassNotFound)` };
  const ncReady = cond(nodeClass.status?.conditions, 'Ready');
  if (ncReady && ncReady.status !== 'True') {
    return { ready: false, reason: `NodeClassReady=False (${ncReady.reason ?? 'NodeClassNotReady'}${ncReady.message ? `: ${ncReady.message}` : ''})` };
  }
  return { ready: true, reason: '' };
}

function emptyPool(np: NodePool, extra: Partial<PoolPlacement>): PoolPlacement {
  return {
    nodePool: np.metadata.name ?? '',
    weight: np.spec.weight ?? 0,
    verdict: 'not-evaluated',
    chosen: false,
    detail: '',
    daemonSets: [],
    daemonSetOverhead: {},
    capacityTypes: [],
    zones: [],
    funnel: [],
    notes: [],
    ...extra,
  };
}

/** Capacity types the pool admits among what EC2 offers (on-demand, spot; reserved with capacity reservations). */
function poolCapacityTypes(reqs: KRequirements, its: KarpenterInstanceType[]): string[] {
  const offered = new Set(its.flatMap((t) => t.offerings.map((o) => o.capacityType)));
  const r = getRequirement(reqs, 'karpenter.sh/capacity-type');
  return [...offered].filter((ct) => requirementHas(r, ct)).sort();
}

// ------------------------------------------------------------------------------------------------ topology

interface AntiAffinityHolder {
  owner: Pod;
  term: PodAffinityTerm;
}

const antiAffinityByCtx = new WeakMap<KarpenterPlacementContext, AntiAffinityHolder[]>();

/** Bound, running pods with required anti-affinity: Karpenter's inverse topology groups (topology.go:280-322@v1.6.2). */
function antiAffinityHolders(ctx: KarpenterPlacementContext): AntiAffinityHolder[] {
  const hit = antiAffinityByCtx.get(ctx);
  if (hit) return hit;
  const out: AntiAffinityHolder[] = [];
  for (const p of ctx.pods ?? []) {
    if (!p.spec.nodeName || p.metadata.deletionTimestamp || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    for (const term of p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) out.push({ owner: p, term });
  }
  antiAffinityByCtx.set(ctx, out);
  return out;
}

/** Whether a pod-affinity term of `owner` selects `pod` (namespaces, then the label selector; a namespaceSelector is assumed to match). */
function termSelects(owner: Pod, term: PodAffinityTerm, pod: Pod): boolean {
  const ns = pod.metadata.namespace ?? 'default';
  const nsOk = term.namespaceSelector
    ? true
    : term.namespaces && term.namespaces.length > 0
      ? term.namespaces.includes(ns)
      : (owner.metadata.namespace ?? 'default') === ns;
  return nsOk && compileLabelSelector(term.labelSelector).matches(pod.metadata.labels);
}

/** The pod's constraints Karpenter's topology handles and casdoctor does not: required spread, affinity, anti-affinity, inverse anti-affinity. */
function topologyConstraints(pod: Pod, ctx: KarpenterPlacementContext): string[] {
  const out: string[] = [];
  const tsc = (pod.spec.topologySpreadConstraints ?? []).filter((c) => c.whenUnsatisfiable !== 'ScheduleAnyway');
  if (tsc.length > 0) out.push(`topology spread on ${[...new Set(tsc.map((c) => c.topologyKey))].join(', ')}`);
  const aff = pod.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  if (aff.length > 0) out.push(`required pod affinity on ${[...new Set(aff.map((t) => t.topologyKey))].join(', ')}`);
  const anti = pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  if (anti.length > 0) out.push(`required pod anti-affinity on ${[...new Set(anti.map((t) => t.topologyKey))].join(', ')}`);
  const inverse = antiAffinityHolders(ctx).filter((h) => h.owner !== pod && termSelects(h.owner, h.term, pod));
  if (inverse.length > 0) {
    const owners = [...new Set(inverse.map((h) => podKey(h.owner)))];
    out.push(`the required anti-affinity of running pod(s) ${owners.slice(0, 3).join(', ')}${owners.length > 3 ? ` and ${owners.length - 3} more` : ''} against this pod (on ${[...new Set(inverse.map((h) => h.term.topologyKey))].join(', ')})`);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ main

interface FilterOutcome {
  remaining: KarpenterInstanceType[];
  counts: { requirements: KarpenterInstanceType[]; resources: KarpenterInstanceType[]; offerings: KarpenterInstanceType[] };
  error?: string;
  minValuesError?: string;
  minDaemon?: Resources;
  maxDaemon?: Resources;
}

/** nodeclaim.go filterInstanceTypesByRequirements, plus the per-step lists for the funnel. */
function filterInstanceTypes(
  its: KarpenterInstanceType[],
  reqs: KRequirements,
  podReqs: Resources,
  daemonOverheadFor: (it: KarpenterInstanceType) => Resources,
  relaxMinValues = false,
  fitsNeedsOffering = true,
  minMaxText = true,
): FilterOutcome {
  let requirementsMet = false;
  let fits = false;
  let hasOffering = false;
  let reqAndFits = false;
  let reqAndOffering = false;
  let fitsAndOffering = false;
  let minDaemon: Resources | undefined;
  let maxDaemon: Resources | undefined;
  const byReq: KarpenterInstanceType[] = [];
  const byRes: KarpenterInstanceType[] = [];
  const byOff: KarpenterInstanceType[] = [];
  for (const it of its) {
    const overhead = daemonOverheadFor(it);
    if (Object.keys(overhead).length > 0) {
      minDaemon = minDaemon ? Object.fromEntries(Object.keys({ ...minDaemon, ...overhead }).map((k) => [k, Math.min(minDaemon?.[k] ?? 0, overhead[k] ?? 0)])) : overhead;
      maxDaemon = maxDaemon ? Object.fromEntries(Object.keys({ ...maxDaemon, ...overhead }).map((k) => [k, Math.max(maxDaemon?.[k] ?? 0, overhead[k] ?? 0)])) : overhead;
    }
    const total = addResources(podReqs, overhead);
    const itCompat = intersects(it.requirements, reqs).length === 0; // nodeclaim.go compatible()
    const available = it.offerings.filter((o) => o.available);
    const itHasOffering = available.some((o) => compatible(reqs, offeringRequirements(o)) === undefined);
    // nodeclaim.go fits(): from v1.14 a fit counts only with a compatible offering (nodeclaim.go:624-640@v1.14.1); before, resources alone
    const itFits = (!fitsNeedsOffering || itHasOffering) && fitsResources(total, it.allocatable);
    requirementsMet ||= itCompat;
    fits ||= itFits;
    hasOffering ||= itHasOffering;
    reqAndFits ||= itCompat && itFits && !itHasOffering;
    reqAndOffering ||= itCompat && itHasOffering && !itFits;
    fitsAndOffering ||= itFits && itHasOffering && !itCompat;
    if (itCompat) {
      byReq.push(it);
      if (fitsResources(total, it.allocatable)) {
        byRes.push(it);
        if (itHasOffering) byOff.push(it);
      }
    }
  }
  const remaining = byOff;
  const outcome: FilterOutcome = { remaining, counts: { requirements: byReq, resources: byRes, offerings: byOff }, ...(minDaemon ? { minDaemon } : {}), ...(maxDaemon ? { maxDaemon } : {}) };
  const resources = (): string => {
    if (!minDaemon || !maxDaemon) return resourcesString(podReqs);
    const a = resourcesString(addResources(minDaemon, podReqs));
    const b = resourcesString(addResources(maxDaemon, podReqs));
    // min=…, max=… is v1.14's per-type overhead (nodeclaim.go:474-485@v1.14.1); before, one overhead for all types
    return a === b || !minMaxText ? (minMaxText ? a : b) : `min=${a}, max=${b}`;
  };
  const tail = `requirements=${requirementsString(reqs)}, resources=${resources()}`;
  // types.go SatisfiesMinValues over the remaining types
  const withMin = [...reqs.values()].filter((r) => r.minValues !== undefined);
  // MIN_VALUES_POLICY=BestEffort relaxes minValues instead of failing (nodeclaim.go filterInstanceTypesByRequirements)
  if (remaining.length > 0 && withMin.length > 0 && !relaxMinValues) {
    const bad = withMin.filter((r) => new Set(remaining.flatMap((it) => [...getRequirement(it.requirements, r.key).values])).size < (r.minValues ?? 0));
    if (bad.length > 0) {
      outcome.minValuesError = `minValues requirement is not met for label(s) (label(s)=[${bad.map((r) => r.key).join(' ')}]), ${tail}`;
      outcome.remaining = [];
      outcome.error = outcome.minValuesError;
      return outcome;
    }
  }
  if (remaining.length > 0) return outcome;
  // nodeclaim.go InstanceTypeFilterError.Error
  let msg: string;
  if (!requirementsMet && !fits && !hasOffering) msg = 'no instance type met the scheduling requirements or had enough resources or had a required offering';
  else if (!requirementsMet && !fits) msg = 'no instance type met the scheduling requirements or had enough resources';
  else if (!requirementsMet && !hasOffering) msg = 'no instance type met the scheduling requirements or had a required offering';
  else if (!fits && !hasOffering) msg = 'no instance type had enough resources or had a required offering';
  else if (!requirementsMet) msg = 'no instance type met all requirements';
  else if (!fits) msg = 'no instance type has enough resources';
  else if (!hasOffering) msg = 'no instance type has the required offering';
  else if (reqAndFits) msg = 'no instance type which met the scheduling requirements and had enough resources, had a required offering';
  else if (fitsAndOffering) msg = 'no instance type which had enough resources and the required offering met the scheduling requirements';
  else if (reqAndOffering) msg = 'no instance type which met the scheduling requirements and the required offering had the required resources';
  else msg = 'no instance type met the requirements/resources/offering tuple';
  outcome.error = `${msg}, ${tail}`;
  if (msg === 'no instance type has enough resources' && (podReqs.cpu ?? 0) >= 1e9) outcome.error += ' (CPU request >= 1 Million, m vs M typo?)';
  return outcome;
}

/**
 * Karpenter's provisioning decision for one pending pod, per NodePool in its order. Pools Karpenter drops before
 * scheduling (static, not Ready, no instance types) are 'not-evaluated'; the rest get the first failing stage and
 * Karpenter's error text for it. The first pool that fits wins (scheduler.go addToNewNodeClaim keeps the lowest index).
 */
export function explainKarpenterPending(pod: Pod, ctx: KarpenterPlacementContext): KarpenterPendingExplanation {
  // requirement texts as the Karpenter in the input prints them (Gt/Lt before v1.9.0)
  return withKarpenterTextVersion(ctx.settings?.version, () => schedulingPass(ctx).get(pod) ?? explainPending(pod, ctx));
}

// ------------------------------------------------------------------------------------------------ one scheduling pass

/** Capacity Karpenter already has or is bringing: an uninitialized node, or a launched NodeClaim without a node. */
interface ExistingCapacity {
  kind: 'node' | 'nodeclaim';
  name: string;
  nodePool?: string;
  taints: Taint[];
  reqs: KRequirements;
  remaining: Resources;
  why: string;
}

/** A NodeClaim planned earlier in the same pass, which later pods may join (scheduler.go addToInflightNode). */
interface PlannedClaim {
  nodePool: string;
  taints: Taint[];
  reqs: KRequirements;
  types: KarpenterInstanceType[];
  overheadOf: (it: KarpenterInstanceType) => Resources;
  requests: Resources;
  pods: string[];
}

interface PassState {
  existing: ExistingCapacity[];
  planned: PlannedClaim[];
  /** Per NodePool, its limits less the NodeClaims planned in this pass (subtractMax: the largest type each). */
  remaining: Map<string, Resources>;
}

// taints a node carries while it starts, which Karpenter ignores on uninitialized capacity (statenode.go Taints)
const EPHEMERAL_TAINTS = new Set(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable', 'node.cloudprovider.kubernetes.io/uninitialized']);

function ageText(ms: number): string {
  return `${Math.max(0, Math.round(ms / 60_000))}m`;
}

/**
 * The existing capacity Karpenter tries before a new NodeClaim (scheduler.go add → addToExistingNode, existingnode.go
 * CanAdd; :631-667@v1.6.2): uninitialized nodes of its NodePools and launched NodeClaims whose node has not registered,
 * with their DaemonSets' requests and the pods already bound taken off. A NodeClaim past its registration timeout (15m)
 * or launch timeout (5m, v1.7+) is left out: Karpenter deletes it (liveness.go). Ready, initialized nodes are left out
 * too: kube-scheduler has already found no room on them, which is why the pod is Pending.
 */
function existingCapacity(ctx: KarpenterPlacementContext, ds: Array<{ name: string; pod: Pod }>): ExistingCapacity[] {
  const out: ExistingCapacity[] = [];
  const now = ctx.now.getTime();
  const nodeNames = new Set(ctx.nodes.map((n) => n.metadata.name ?? ''));
  const daemonRequests = (taints: Taint[], reqs: KRequirements, already: Set<string>): Resources => {
    const list = ds.filter((d) => !already.has(d.name) && untoleratedTaints(taints, d.pod.spec.tolerations, false).length === 0 && compatible(reqs, podRequirements(d.pod), new Set()) === undefined);
    return list.length > 0 ? karpenterRequests(list.map((d) => d.pod)) : {};
  };
  const sub = (a: Resources, b: Resources): Resources => {
    const r = { ...a };
    for (const [k, v] of Object.entries(b)) r[k] = (r[k] ?? 0) - v;
    return r;
  };
  for (const n of ctx.nodes) {
    const pool = n.metadata.labels?.[NODEPOOL_LABEL];
    if (!pool || n.metadata.deletionTimestamp || n.metadata.labels?.['karpenter.sh/initialized'] === 'true') continue;
    const name = n.metadata.name ?? '';
    const claim = ctx.nodeClaims.find((c) => c.status?.nodeName === name);
    if (claim?.metadata.deletionTimestamp) continue;
    const alloc = parseResourceList(n.status?.allocatable);
    for (const [k, v] of Object.entries(parseResourceList(claim?.status?.allocatable))) if (!alloc[k]) alloc[k] = v;
    const startup = claim?.spec?.startupTaints ?? [];
    const taints = (n.spec?.taints ?? []).filter((t) => !EPHEMERAL_TAINTS.has(t.key) && !startup.some((st) => st.key === t.key && st.effect === t.effect));
    const reqs = labelRequirements({ ...(n.metadata.labels ?? {}), 'kubernetes.io/hostname': n.metadata.labels?.['kubernetes.io/hostname'] ?? name });
    const bound = (ctx.pods ?? []).filter((p) => p.spec.nodeName === name && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    const dsHere = new Set(bound.flatMap((p) => (p.metadata.ownerReferences ?? []).filter((o) => o.kind === 'DaemonSet').map((o) => `${p.metadata.namespace ?? 'default'}/${o.name}`)));
    const remaining = sub(sub(alloc, karpenterRequests(bound)), daemonRequests(taints, reqs, dsHere));
    out.push({ kind: 'node', name, nodePool: pool, taints, reqs, remaining, why: `Node ${name} (NodePool ${pool}) has registered but is not initialized yet; Karpenter counts it as capacity on its way` });
  }
  for (const nc of ctx.nodeClaims) {
    const pool = nc.metadata.labels?.[NODEPOOL_LABEL];
    if (!pool || nc.metadata.deletionTimestamp) continue;
    if (nc.status?.nodeName && nodeNames.has(nc.status.nodeName)) continue;
    const conds = nc.status?.conditions;
    if (cond(conds, 'Launched')?.status !== 'True') continue;
    const registered = cond(conds, 'Registered');
    const since = Date.parse(registered?.lastTransitionTime ?? nc.metadata.creationTimestamp ?? '');
    const age = Number.isFinite(since) ? now - since : 0;
    // liveness.go:44,56@v1.6.2: deleted 15m after creation (the Registered condition's lastTransitionTime) when no node registered
    if (age > REGISTRATION_TTL_MS) continue;
    const alloc = parseResourceList(nc.status?.allocatable);
    if (Object.keys(alloc).length === 0) continue;
    const reqs = requirementsFrom(nc.spec?.requirements ?? []);
    for (const r of labelRequirements(nc.metadata.labels).values()) addRequirement(reqs, r);
    const taints = nc.spec?.taints ?? [];
    const remaining = sub(alloc, daemonRequests(taints, reqs, new Set()));
    const name = nc.metadata.name ?? '';
    out.push({
      kind: 'nodeclaim',
      name,
      nodePool: pool,
      taints,
      reqs,
      remaining,
      why: `NodeClaim ${name} (NodePool ${pool}) launched ${ageText(age)} ago and its node has not registered yet; if none registers within ${ageText(REGISTRATION_TTL_MS - age)}, Karpenter deletes the NodeClaim (registration timeout 15m) and schedules the pod again`,
    });
  }
  // scheduler.go:655-666@v1.6.2: initialized first, then by name (none of these is initialized)
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function tryExisting(state: PassState, pod: Pod, reqs: KRequirements, podReqs: Resources): ExistingCapacity | undefined {
  for (const e of state.existing) {
    if (untoleratedTaints(e.taints, pod.spec.tolerations, false).length > 0) continue;
    if (!fitsResources(podReqs, e.remaining)) continue;
    // existingnode.go CanAdd: Compatible without AllowUndefinedWellKnownLabels
    if (compatible(e.reqs, reqs, new Set()) !== undefined) continue;
    for (const [k, v] of Object.entries(podReqs)) e.remaining[k] = (e.remaining[k] ?? 0) - v;
    for (const r of reqs.values()) addRequirement(e.reqs, r);
    return e;
  }
  return undefined;
}

function tryPlanned(state: PassState, pod: Pod, reqs: KRequirements, podReqs: Resources, toleratePNS: boolean): PlannedClaim | undefined {
  // scheduler.go:455: the planned NodeClaims with the fewest pods first
  const order = [...state.planned].sort((a, b) => a.pods.length - b.pods.length);
  for (const pc of order) {
    if (untoleratedTaints(pc.taints, pod.spec.tolerations, toleratePNS).length > 0) continue;
    if (compatible(pc.reqs, reqs) !== undefined) continue;
    const total = addResources(pc.requests, podReqs);
    // cheap pruning before the per-type check: no type of the claim can hold more cpu or memory than its largest
    if ((total.cpu ?? 0) > Math.max(0, ...pc.types.map((t) => t.allocatable.cpu ?? 0)) || (total.memory ?? 0) > Math.max(0, ...pc.types.map((t) => t.allocatable.memory ?? 0))) continue;
    const merged = copyRequirements(pc.reqs);
    for (const r of reqs.values()) addRequirement(merged, r);
    const types = pc.types.filter((it) => intersects(it.requirements, merged).length === 0 && fitsResources(addResources(total, pc.overheadOf(it)), it.allocatable));
    if (types.length === 0) continue;
    pc.reqs = merged;
    pc.types = types;
    pc.requests = total;
    pc.pods.push(podKey(pod));
    return pc;
  }
  return undefined;
}

/**
 * The smallest spec.limits values that let a new node in: the fitting type that needs the least extra room (fewest
 * vCPUs, then memory), and for each limited resource it exceeds, limit - remaining + its capacity (nodes: one more).
 */
function limitsToRaise(model: PoolModel, remaining: Resources, types: KarpenterInstanceType[]): ResourceMap {
  const limits = parseResourceList(model.np.spec.limits);
  const smallest = sortTypes(types)[0];
  const out: ResourceMap = {};
  for (const [k, rem] of Object.entries(remaining)) {
    const need = k === 'nodes' ? 1 : (smallest?.capacity[k] ?? 0);
    if (need <= rem) continue;
    out[k] = formatResource(k, (limits[k] ?? 0) - rem + need);
  }
  return out;
}

/** scheduler.go subtractMax: limits are charged with the largest instance type the planned NodeClaim may become. */
function subtractMax(remaining: Resources, types: KarpenterInstanceType[]): Resources {
  const out = { ...remaining };
  for (const k of Object.keys(out)) {
    if (k === 'nodes') out[k] -= 1;
    else out[k] -= Math.max(0, ...types.map((t) => t.capacity[k] ?? 0));
  }
  return out;
}

const passCache = new WeakMap<KarpenterPlacementContext, Map<Pod, KarpenterPendingExplanation>>();

/**
 * One provisioning pass over every Pending pod Karpenter considers, as its scheduler does it: pods by CPU then memory,
 * descending (queue.go:38), each tried on existing capacity, then on the NodeClaims planned earlier in the pass, then on
 * a new NodeClaim, whose largest instance type is charged against the NodePool's limits (scheduler.go:450-466,625).
 */
function schedulingPass(ctx: KarpenterPlacementContext): Map<Pod, KarpenterPendingExplanation> {
  const hit = passCache.get(ctx);
  if (hit) return hit;
  const out = new Map<Pod, KarpenterPendingExplanation>();
  passCache.set(ctx, out);
  const pods = (ctx.pods ?? []).filter((p) => !p.spec.nodeName && (p.status?.phase ?? 'Pending') === 'Pending' && karpenterPodEligibility(p, ctx).provisionable);
  if (pods.length === 0) return out;
  const req = new Map(pods.map((p) => [p, karpenterRequests([p])]));
  pods.sort((a, b) => {
    const ra = req.get(a) as Resources;
    const rb = req.get(b) as Resources;
    return (rb.cpu ?? 0) - (ra.cpu ?? 0) || (rb.memory ?? 0) - (ra.memory ?? 0) || (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || podKey(a).localeCompare(podKey(b));
  });
  const state: PassState = { existing: existingCapacity(ctx, daemonPods(ctx)), planned: [], remaining: new Map() };
  for (const p of pods) out.set(p, explainPending(p, ctx, state));
  return out;
}

function explainPending(pod: Pod, ctx: KarpenterPlacementContext, pass?: PassState): KarpenterPendingExplanation {
  const out: KarpenterPendingExplanation = { pod: podKey(pod), eligibility: karpenterPodEligibility(pod, ctx), outcome: 'no-node', pools: [], stuckNodeClaims: [], notes: [] };
  const ordered = orderNodePools(ctx.nodePools);
  const ds = daemonPods(ctx);
  // scheduler.go NewScheduler: a PreferNoSchedule taint on any pool makes relaxation tolerate PreferNoSchedule
  const toleratePNS = ctx.nodePools.some((np) => (np.spec.template.spec.taints ?? []).some((t) => t.effect === 'PreferNoSchedule'));

  const models: Array<{ model?: PoolModel; placement: PoolPlacement }> = [];
  for (const np of ordered) {
    const name = np.metadata.name ?? '';
    const ref = np.spec.template.spec.nodeClassRef;
    const nodeClass = nodeClassFor(np, ctx);
    const zones = nodeClassZones(nodeClass).map((z) => z.zone);
    const ncInfo = ref
      ? {
          name: ref.name,
          found: !!nodeClass,
          ...(nodeClass ? { ready: cond(nodeClass.status?.conditions, 'Ready')?.status === 'True' } : {}),
          zones,
        }
      : undefined;
    const base = { ...(ncInfo ? { nodeClass: ncInfo } : {}), zones };
    if (ref && (ref.group !== 'karpenter.k8s.aws' || ref.kind !== 'EC2NodeClass')) {
      models.push({ placement: emptyPool(np, { ...base, stage: 'unmanaged-nodeclass', detail: `nodeClassRef ${ref.group}/${ref.kind} is not the AWS provider's EC2NodeClass: this Karpenter does not manage the pool` }) });
      continue;
    }
    // static NodePools are v1.8+; an older API server prunes spec.replicas
    if (np.spec.replicas !== undefined && karpenterHas(ctx.settings?.version, 'static-nodepools')) {
      models.push({ placement: emptyPool(np, { ...base, stage: 'static-nodepool', detail: `static NodePool (replicas ${np.spec.replicas}): Karpenter keeps the node count and never provisions for pending pods` }) });
      continue;
    }
    if (np.metadata.deletionTimestamp) {
      models.push({ placement: emptyPool(np, { ...base, stage: 'deleting', detail: 'the NodePool is being deleted' }) });
      continue;
    }
    const readiness = poolReadiness(np, nodeClass);
    if (!readiness.ready) {
      // provisioner.go NewScheduler: "ignoring nodepool, not ready" (a log line only; the pod gets no word about it)
      models.push({ placement: emptyPool(np, { ...base, stage: 'nodepool-not-ready', detail: `the NodePool is not Ready: ${readiness.reason}; Karpenter ignores it (log "ignoring nodepool, not ready")` }) });
      continue;
    }
    if (!nodeClass || zones.length === 0) {
      const why = !nodeClass ? `EC2NodeClass ${ref?.name ?? ''} not found` : `EC2NodeClass ${nodeClass.metadata.name ?? ''} has no resolved subnets (status.subnets)`;
      models.push({ placement: emptyPool(np, { ...base, stage: 'no-instance-types', detail: `${why}: Karpenter resolves no instance types and skips the pool` }) });
      continue;
    }
    const its = cachedInstanceTypes(ctx, nodeClass);
    const templateReqs = templateRequirements(np, ctx.settings?.version);
    let capsByPool = capacityTypesCache.get(ctx);
    if (!capsByPool) capacityTypesCache.set(ctx, (capsByPool = new Map()));
    let capacityTypes = capsByPool.get(np);
    if (!capacityTypes) capsByPool.set(np, (capacityTypes = poolCapacityTypes(templateReqs, its)));
    const placement = emptyPool(np, { ...base, capacityTypes: [...capacityTypes] });
    // scheduler.go NewScheduler pre-filter: requirements and offerings with no pod; an empty result drops the pool
    const bestEffort = ctx.settings?.minValuesPolicy === 'BestEffort';
    let preByPool = preCache.get(ctx);
    if (!preByPool) preCache.set(ctx, (preByPool = new Map()));
    const pre = preByPool.get(np) ?? filterInstanceTypes(its, templateReqs, {}, () => ({}), bestEffort);
    preByPool.set(np, pre);
    placement.funnel.push({ step: 'nodepool', remaining: pre.remaining.length, examples: examples(pre.remaining) });
    const unmodelled = [...templateReqs.keys()].filter((k) => UNMODELLED_INSTANCE_LABELS.has(k));
    if (unmodelled.length > 0) placement.notes.push(`requirements on ${unmodelled.join(', ')} are not modelled offline: treated as satisfied`);
    if (pre.remaining.length === 0) {
      placement.stage = 'nodepool-requirements';
      placement.detail = `the NodePool's own requirements leave no instance type (${pre.minValuesError ? 'minValues' : `of ${its.length}`}): Karpenter skips it and emits NodePool event NoCompatibleInstanceTypes "NodePool requirements filtered out all compatible available instance types${pre.minValuesError ? ' due to minValues incompatibility' : ''}"`;
      models.push({ placement });
      continue;
    }
    let pc = poolCache.get(ctx);
    if (!pc) poolCache.set(ctx, (pc = new Map()));
    let model = pc.get(np);
    if (!model) {
      const remaining = remainingLimits(np, ctx.nodes, ctx.nodeClaims);
      model = { np, name, weight: np.spec.weight ?? 0, nodeClass, templateReqs, taints: np.spec.template.spec.taints ?? [], instanceTypes: pre.remaining, ...(remaining ? { remaining } : {}), relaxMinValues: bestEffort, ...(ctx.settings?.version ? { version: ctx.settings.version } : {}) };
      pc.set(np, model);
    }
    models.push({ model, placement });
  }

  const evaluated = models.filter((m) => m.model);
  if (!out.eligibility.provisionable) {
    out.outcome = 'ignored';
    out.pools = models.map((m) => m.placement);
    if (out.eligibility.silent) out.notes.push('Karpenter leaves this pod to another autoscaler (e.g. Cluster Autoscaler) and records no event');
    return finish(out, ctx);
  }
  if (evaluated.length === 0) {
    // provisioner.go Schedule: ErrNodePoolsNotFound -> "no dynamic nodepools found", or scheduler.go:605 when all templates were dropped
    const anyUsable = models.some((m) => m.placement.stage === 'nodepool-requirements' || m.placement.stage === 'no-instance-types');
    const version = ctx.settings?.version;
    // scheduler.go:510-511@v1.9.0; before v1.9 zero templates schedule nothing and say nothing (scheduler.go:550,628@v1.6.2)
    const zeroEvent = karpenterHas(version, 'zero-templates-event');
    if (anyUsable && zeroEvent) out.event = 'Failed to schedule pod, nodepool requirements filtered out all available instance types';
    const noPools = karpenterHas(version, 'dynamic-nodepools-text') ? 'no dynamic nodepools found' : 'no nodepools found';
    out.notes.push(anyUsable ? `every NodePool was dropped before scheduling${zeroEvent ? '' : ': Karpenter creates no NodeClaim and publishes no event'}` : `${noPools} (Karpenter logs this; the pod gets no event)`);
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }

  // scheduler.go add: with IGNORE_DRA_REQUESTS (default true) a pod with ResourceClaims fails before any NodePool is tried
  if (hasDRARequirements(pod) && ctx.settings?.env?.IGNORE_DRA_REQUESTS !== 'false' && karpenterHas(ctx.settings?.version, 'dra-refusal')) {
    out.event = 'Failed to schedule pod, pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter';
    out.notes.push('the pod uses Dynamic Resource Allocation (resourceClaims); Karpenter runs with IGNORE_DRA_REQUESTS and does not provision for it');
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }
  const podReqs = karpenterRequests([pod]);
  const vol = volumeAlternatives(pod, ctx);
  out.notes.push(...vol.notes);
  const topology = topologyConstraints(pod, ctx);

  // preferences.go Relax, one step per failed attempt: next required node-affinity term, then the preferred node-affinity
  // terms heaviest first, then (when a pool has one) tolerate PreferNoSchedule. The reported error is the last attempt's.
  const attempts = relaxationAttempts(pod, ctx.settings?.preferencePolicy === 'Ignore', toleratePNS);
  let chosen: string | undefined;
  let lastErrors: Array<{ placement: PoolPlacement; error: string; overhead: Resources }> = [];
  // the pass's capacity is not used for a pod whose topology casdoctor does not model (see below)
  const inPass = pass && topology.length === 0 ? pass : undefined;
  let existing: ExistingCapacity | undefined;
  let planned: PlannedClaim | undefined;
  let chosenEval: PoolEvaluation | undefined;
  let lastAttempt = attempts[0];
  for (const attempt of attempts) {
    lastAttempt = attempt;
    lastErrors = [];
    // scheduler.go add: existing capacity, then NodeClaims planned in this pass, then a new NodeClaim
    existing = inPass ? tryExisting(inPass, pod, attempt.requirements, podReqs) : undefined;
    planned = inPass && !existing ? tryPlanned(inPass, pod, attempt.requirements, podReqs, attempt.toleratePreferNoSchedule) : undefined;
    for (const { model, placement } of models) {
      if (!model) continue;
      const r = evaluatePool(model, placement, pod, attempt.requirements, podReqs, vol.alternatives, ds, attempt.toleratePreferNoSchedule, inPass?.remaining.get(model.name));
      if (r.fits && !chosen) {
        chosen = model.name;
        chosenEval = r;
      }
      if (!r.fits && r.error) lastErrors.push({ placement, error: r.error, overhead: r.overhead });
    }
    if (chosen || existing || planned) {
      if (attempt.relaxed) out.notes.push(`Karpenter places the pod only after relaxing: ${attempt.relaxed}`);
      break;
    }
  }
  // issue 24 item 4: for a pool stopped by its limits, say whether the limit is what stops the pod (and the value that
  // lets it in) or what would stop it next; evaluated on a scratch placement so the shown one keeps Karpenter's verdict
  if (lastAttempt) {
    for (const { model, placement } of models) {
      if (!model || (placement.stage !== 'resource-limits' && placement.stage !== 'node-limit')) continue;
      const scratch: PoolPlacement = { ...placement, funnel: [...placement.funnel], notes: [] };
      const r = evaluatePool(model, scratch, pod, lastAttempt.requirements, podReqs, vol.alternatives, ds, lastAttempt.toleratePreferNoSchedule, {});
      placement.withoutLimits = r.fits && r.types ? { fits: true, raise: limitsToRaise(model, inPass?.remaining.get(model.name) ?? model.remaining ?? {}, r.types) } : { fits: false, ...(scratch.stage ? { stage: scratch.stage } : {}), ...(r.error ? { error: r.error } : {}) };
      const w = placement.withoutLimits;
      placement.detail += w.fits
        ? `; the limit is what stops the pod: raise ${Object.entries(w.raise ?? {}).map(([k, v]) => `limits.${k} to at least ${v}`).join(' and ')}, or free capacity in the pool`
        : `; raising the limit would not help: the pool would still reject the pod at ${w.stage ?? 'a later check'}${w.error ? ` (${w.error})` : ''}`;
    }
  }
  if (existing) {
    // no new node: the pod waits for capacity Karpenter has (its Nominated event names it)
    out.outcome = 'in-flight';
    out.inFlight = { kind: existing.kind, name: existing.name, ...(existing.nodePool ? { nodePool: existing.nodePool } : {}), why: existing.why };
    out.notes.push(`Karpenter launches no node for this pod: it fits ${existing.kind === 'node' ? 'node' : 'NodeClaim'} ${existing.name}, which it already has (scheduler.go addToExistingNode); ${existing.why}`);
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }
  if (planned) {
    out.outcome = 'new-node';
    out.chosen = planned.nodePool;
    for (const m of models) m.placement.chosen = m.model !== undefined && m.placement.nodePool === planned.nodePool && m.placement.verdict === 'fits';
    out.notes.push(`Karpenter packs this pod into the NodeClaim of NodePool ${planned.nodePool} it launches in the same pass for ${planned.pods.filter((x) => x !== podKey(pod)).join(', ')}: one node for them, not one each (scheduler.go addToInflightNode)`);
    out.pools = models.map((m) => m.placement);
    return finish(out, ctx);
  }
  if (inPass && chosen && chosenEval?.types && chosenEval.reqs && chosenEval.overheadOf) {
    const model = models.find((m) => m.model?.name === chosen)?.model as PoolModel;
    inPass.planned.push({ nodePool: chosen, taints: model.taints, reqs: chosenEval.reqs, types: chosenEval.types, overheadOf: chosenEval.overheadOf, requests: { ...podReqs }, pods: [podKey(pod)] });
    const rem = inPass.remaining.get(chosen) ?? model.remaining;
    if (rem) inPass.remaining.set(chosen, subtractMax(rem, chosenEval.types));
  }
  // nodeclaim.go CanAdd checks topology after taints and requirements (topology.go AddRequirements, :134-141@v1.6.2): a pool
  // rejected before stays rejected; one that gets that far is not evaluated, since its domains are not modelled here
  const unmodelled = topology.length > 0 ? evaluated.filter((m) => m.placement.verdict === 'fits' || ['volume-topology', 'instance-types', 'min-values'].includes(m.placement.stage ?? '')) : [];
  if (unmodelled.length > 0) {
    const what = topology.join('; ');
    for (const m of unmodelled) {
      const pl = m.placement;
      pl.verdict = 'not-evaluated';
      pl.stage = 'topology';
      pl.chosen = false;
      delete pl.error;
      delete pl.legacyError;
      delete pl.launchError;
      pl.detail = `not evaluated: ${what}; Karpenter narrows the NodeClaim to the domains these allow or fails with "unsatisfiable topology constraint" (topology.go AddRequirements), and casdoctor does not model its domains`;
    }
    chosen = undefined;
    lastErrors = [];
    out.outcome = 'not-evaluated';
    out.notEvaluated = `Karpenter's verdict depends on ${what}, which casdoctor does not evaluate for Karpenter; NodePool(s) ${unmodelled.map((m) => m.placement.nodePool).join(', ')} pass every check before it`;
  }
  for (const m of models) if (m.model && m.placement.nodePool === chosen) m.placement.chosen = true;
  for (const m of models) {
    const before = m.model && inPass ? inPass.planned.filter((pc) => pc.nodePool === m.model?.name && !pc.pods.includes(podKey(pod))) : [];
    if (before.length > 0 && m.placement.remainingLimits) {
      m.placement.notes.push(`remaining limits after the NodeClaim(s) Karpenter plans earlier in the same pass for ${before.flatMap((pc) => pc.pods).join(', ')}, each charged with its largest instance type (scheduler.go subtractMax)`);
    }
  }
  out.pools = models.map((m) => m.placement);
  if (chosen) {
    out.chosen = chosen;
    out.outcome = 'new-node';
  } else if (lastErrors.length > 0) {
    // events.go PodFailedToScheduleEvent: "Failed to schedule pod, " + multierr of the per-pool errors ("; ")
    out.event = `Failed to schedule pod, ${lastErrors.map((e) => e.error).join('; ')}`;
    out.legacyEvent = `Failed to schedule pod, ${lastErrors.map((e) => e.placement.legacyError ?? e.error).join('; ')}`;
  }
  return finish(out, ctx);
}

/**
 * amifamily/resolver.go Resolve: AMIs are matched to instance types at launch, not while scheduling, so a pool can
 * "fit" and its NodeClaim still fail to launch. amifamily/ami.go MapToInstanceTypes uses Compatible without undefined keys.
 */
export function amiLaunchError(nodeClass: EC2NodeClass | undefined, its: KarpenterInstanceType[]): string | undefined {
  if (!nodeClass) return undefined;
  const amis = nodeClass.status?.amis ?? [];
  if (amis.length === 0) return 'no amis exist given constraints';
  const ok = its.some((it) => amis.some((ami) => compatible(it.requirements, requirementsFrom(ami.requirements ?? []), UNMODELLED_INSTANCE_LABELS) === undefined));
  if (ok) return undefined;
  return `no instance types satisfy requirements of amis [${[...new Set(amis.map((a) => a.id))].join(' ')}]`;
}

interface RelaxationAttempt {
  requirements: KRequirements;
  toleratePreferNoSchedule: boolean;
  /** What has been relaxed to reach this attempt ('' for the first). */
  relaxed: string;
}

type PreferredTerm = { weight?: number; preference?: { matchExpressions?: NodeSelectorRequirement[] } };

/** The pod's requirement sets in the order preferences.go Relax produces them. */
export function relaxationAttempts(pod: Pod, ignorePreferences: boolean, toleratePNS: boolean): RelaxationAttempt[] {
  const preferred = ignorePreferences
    ? []
    : [...((pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredTerm[])].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0));
  const terms = requiredTermCount(pod);
  const out: RelaxationAttempt[] = [];
  const build = (term: number, prefFrom: number): KRequirements => {
    const reqs = podRequirements(pod, term);
    const pref = preferred[prefFrom];
    // requirements.go newPodRequirements: the heaviest remaining preferred term joins the required ones
    if (pref) for (const r of requirementsFrom(pref.preference?.matchExpressions ?? []).values()) addRequirement(reqs, r);
    return reqs;
  };
  for (let t = 0; t < terms; t++) out.push({ requirements: build(t, 0), toleratePreferNoSchedule: false, relaxed: t > 0 ? `required node-affinity term ${t + 1} of ${terms}` : '' });
  for (let p = 1; p <= preferred.length; p++) {
    out.push({ requirements: build(terms - 1, p), toleratePreferNoSchedule: false, relaxed: `${p} preferred node-affinity term(s) dropped` });
  }
  if (toleratePNS) {
    out.push({ requirements: build(terms - 1, preferred.length), toleratePreferNoSchedule: true, relaxed: 'PreferNoSchedule taints tolerated' });
  }
  return out;
}

interface PoolEvaluation {
  fits: boolean;
  error?: string;
  overhead: Resources;
  /** When it fits: the instance types left, the NodeClaim's combined requirements and the per-type DaemonSet overhead. */
  types?: KarpenterInstanceType[];
  reqs?: KRequirements;
  overheadOf?: (it: KarpenterInstanceType) => Resources;
}

function evaluatePool(
  model: PoolModel,
  placement: PoolPlacement,
  pod: Pod,
  podReq: KRequirements,
  podReqs: Resources,
  volumeAlts: KRequirements[],
  ds: Array<{ name: string; pod: Pod }>,
  toleratePNS: boolean,
  remainingOverride?: Resources,
): PoolEvaluation {
  const name = model.name;
  placement.funnel = placement.funnel.slice(0, 1);
  delete placement.error;
  delete placement.legacyError;
  delete placement.stage;
  placement.verdict = 'rejected';

  // daemon overhead per instance type (scheduler.go buildDaemonOverheadGroups): pod-independent, computed once per pool
  if (!model.daemons) {
    const byType = new Map<KarpenterInstanceType, Resources>();
    const names = new Set<string>();
    let max: Resources = {};
    const perType = karpenterHas(model.version, 'daemon-overhead-per-type');
    const perTemplate = perType ? undefined : ds.filter((d) => daemonCompatible(model.templateReqs, model.taints, undefined, d.pod));
    for (const it of model.instanceTypes) {
      const list = perTemplate ?? ds.filter((d) => daemonCompatible(model.templateReqs, model.taints, it, d.pod));
      for (const d of list) names.add(d.name);
      const o = list.length > 0 ? karpenterRequests(list.map((d) => d.pod)) : {};
      byType.set(it, o);
      if ((o.cpu ?? 0) + (o.memory ?? 0) >= (max.cpu ?? 0) + (max.memory ?? 0)) max = o;
    }
    model.daemons = { byType, names: [...names].sort(), max };
  }
  const daemons = model.daemons;
  const overheadOf = (it: KarpenterInstanceType): Resources => daemons.byType.get(it) ?? {};
  const maxOverhead = daemons.max;
  placement.daemonSets = daemons.names;
  placement.daemonSetOverhead = toResourceMap(maxOverhead);
  const legacy = (err: string): string => `incompatible with nodepool "${name}", daemonset overhead=${resourcesString(maxOverhead)}, ${err}`;
  // legacyErr null: the check did not exist before v1.5, so no legacy text (undefined would take the default)
  const reject = (stage: PlacementStage, error: string, detail: string, legacyErr: string | null = legacy(error)): PoolEvaluation => {
    placement.stage = stage;
    placement.error = error;
    if (legacyErr !== null) placement.legacyError = legacyErr;
    placement.detail = detail;
    return { fits: false, error, overhead: maxOverhead };
  };

  // scheduler.go:706-724 limits (as left by the NodeClaims planned earlier in the same pass, when there are some)
  let its = model.instanceTypes;
  const remainingNow = remainingOverride ?? model.remaining;
  if (remainingNow) {
    placement.remainingLimits = toResourceMap(remainingNow);
    // before v1.11 only filterByRemainingResources sees limits.nodes: no type has a "nodes" capacity, so it blocks only once
    // usage is already above the limit (remaining < 0: scheduler.go:764-780@v1.6.2), as "all available instance types exceed limits"
    if ('nodes' in remainingNow && remainingNow.nodes === 0 && karpenterHas(model.version, 'node-limit-scheduling')) {
      const e = `node limits have been exhausted for nodepool (NodePool=${name})`;
      // scheduler.go:709-714@v1.14.1, v1.11+ (PR #2526); never printed before, so no legacy text
      return reject('node-limit', e, `limits.nodes ${String(model.np.spec.limits?.nodes)} reached by the pool's nodes and in-flight NodeClaims`, null);
    }

    const rem = remainingNow;
    its = its.filter((it) => Object.entries(rem).every(([k, v]) => (k === 'nodes' ? 0 : (it.capacity[k] ?? 0)) <= v));
    placement.funnel.push({ step: 'limits', remaining: its.length, examples: examples(its) });
    if (its.length === 0) {
      const e = `all available instance types exceed limits for nodepool (NodePool=${name})`;
      const left = Object.entries(rem).map(([k, v]) => `${k} ${formatResource(k, v)}`).join(', ');
      // v1.4 scheduler.go: `all available instance types exceed limits for nodepool %q`
      return reject('resource-limits', e, `remaining limits (${left}) are below the capacity of every instance type${'nodes' in rem && rem.nodes < 0 ? ' (the pool is already over limits.nodes)' : ''}`, `all available instance types exceed limits for nodepool "${name}"`);
    }
  }
  // nodeclaim.go CanAdd: taints, then requirements
  const untolerated = untoleratedTaints(model.taints, pod.spec.tolerations, toleratePNS);
  if (untolerated.length > 0) {
    return reject('taints', taintError(untolerated), `the pod does not tolerate ${untolerated.map(prettyTaint).join(', ')}`);
  }
  // nodeclaim.go:120-124@v1.6.2: the host ports of the DaemonSets that run on the template (scheduler.go getDaemonHostPortUsage)
  const clash = hostPortClash(pod, ds.filter((d) => daemonCompatible(model.templateReqs, model.taints, undefined, d.pod)));
  if (clash) {
    return reject('host-ports', `checking host port usage, ${clash.error}`, `the pod's hostPort ${clash.port.port}/${clash.port.protocol} is already taken on every new node of this pool by DaemonSet ${clash.daemonSet}`);
  }
  const reqErr = compatible(model.templateReqs, podReq);
  if (reqErr) {
    const e = `incompatible requirements, ${reqErr}`;
    const undefinedLabel = /^label "([^"]+)" does not have known values/.exec(reqErr);
    const detail = undefinedLabel
      ? `the pod selects custom label ${undefinedLabel[1]}, which the NodePool neither lists in spec.template.spec.requirements nor sets in spec.template.metadata.labels`
      : `the pod's node selector/affinity and the NodePool's requirements do not overlap`;
    return reject('requirements', e, detail);
  }
  const base = copyRequirements(model.templateReqs);
  for (const r of podReq.values()) addRequirement(base, r);
  // volume topology alternatives (nodeclaim.go CanAdd / tryVolumeAlternative); the last alternative's error is reported
  const alts = volumeAlts.length > 0 ? volumeAlts : [undefined];
  let last: PoolEvaluation = { fits: false, overhead: maxOverhead };
  for (const alt of alts) {
    const reqs = copyRequirements(base);
    if (alt) {
      const vErr = compatible(reqs, alt);
      if (vErr) {
        const zones = describeAllowed(alt.get('topology.kubernetes.io/zone'));
        // before v1.9 the volume's requirements are merged into the pod's node affinity: an ordinary requirements error (volumetopology.go:68-73@v1.6.2)
        const vText = karpenterHas(model.version, 'volume-requirements-separate') ? `incompatible volume requirements, ${vErr}` : `incompatible requirements, ${vErr}`;
        last = reject('volume-topology', vText, `the pod's volume is bound to ${zones}, outside what the NodePool allows (NodeClass zones: ${placement.zones.join(', ') || 'none'})`);
        continue;
      }
      for (const r of alt.values()) addRequirement(reqs, r);
    }
    placement.funnel = placement.funnel.filter((f) => f.step === 'nodepool' || f.step === 'limits');
    const f = filterInstanceTypes(its, reqs, podReqs, overheadOf, model.relaxMinValues, karpenterHas(model.version, 'fits-needs-offering'), karpenterHas(model.version, 'daemon-overhead-per-type'));
    placement.funnel.push(
      { step: 'requirements', remaining: f.counts.requirements.length, examples: examples(f.counts.requirements) },
      { step: 'resources', remaining: f.counts.resources.length, examples: examples(f.counts.resources) },
      { step: 'offerings', remaining: f.counts.offerings.length, examples: examples(f.counts.offerings) },
    );
    if (f.minValuesError) {
      placement.funnel.push({ step: 'minValues', remaining: 0, examples: [] });
      last = reject('min-values', f.minValuesError, `after filtering, the instance types left do not reach the NodePool's minValues`);
      continue;
    }
    if (f.error) {
      const offering = f.counts.resources.length > 0 && f.counts.offerings.length === 0;
      const detail = f.counts.requirements.length === 0
        ? `no instance type matches the combined requirements (zones ${describeAllowed(reqs.get('topology.kubernetes.io/zone'))}, capacity types ${describeAllowed(reqs.get('karpenter.sh/capacity-type'))})`
        : f.counts.resources.length === 0
          ? `no instance type matching the requirements has room for the pod (${resourcesString(podReqs)}) plus the DaemonSet overhead (${resourcesString(maxOverhead)})`
          : offering
            ? `instance types fit, but none is offered in an allowed zone × capacity type (NodeClass zones ${placement.zones.join(', ')}; capacity types ${placement.capacityTypes.join(', ') || 'none'})`
            : 'no single instance type meets requirements, resources and offering together';
      last = reject('instance-types', f.error, detail);
      continue;
    }
    placement.verdict = 'fits';
    placement.detail = `${f.remaining.length} instance type(s) fit, e.g. ${examples(f.remaining, 3).join(', ')}`;
    const launch = amiLaunchError(model.nodeClass, f.remaining);
    if (launch) placement.launchError = launch;
    else delete placement.launchError;
    return { fits: true, overhead: maxOverhead, types: f.remaining, reqs, overheadOf };
  }
  return last;
}

// ------------------------------------------------------------------------------------------------ NodeClaims

/**
 * NodeClaims of the given pools that launched but never registered, or registered but never initialized — the
 * "node created but never joined" case. Karpenter deletes a NodeClaim not Registered 15m after the condition last
 * changed (liveness.go registrationTimeout) and one not Launched after 5m; initialization has no bound.
 */
export function stuckNodeClaims(nodeClaims: NodeClaim[], pools: ReadonlySet<string> | undefined, now: Date, version?: string): StuckNodeClaim[] {
  const out: StuckNodeClaim[] = [];
  // the 5m launch timeout is v1.7+ (liveness.go:60-130@v1.7.0); before, a NodeClaim that never launches is retried without bound
  const launchBound = karpenterHas(version, 'launch-timeout') ? LAUNCH_TTL_MS : undefined;
  for (const nc of nodeClaims) {
    const pool = nc.metadata.labels?.[NODEPOOL_LABEL] ?? '';
    if (pools && !pools.has(pool)) continue;
    if (nc.metadata.deletionTimestamp) continue;
    const conds = nc.status?.conditions;
    const launched = cond(conds, 'Launched');
    const registered = cond(conds, 'Registered');
    const initialized = cond(conds, 'Initialized');
    const since = (c: KarpenterCondition | undefined): number => {
      const t = Date.parse(c?.lastTransitionTime ?? nc.metadata.creationTimestamp ?? '');
      return Number.isFinite(t) ? now.getTime() - t : 0;
    };
    const base = {
      name: nc.metadata.name ?? '',
      nodePool: pool,
      ...(nc.status?.providerID ? { providerID: nc.status.providerID } : {}),
      ...(nc.status?.nodeName ? { nodeName: nc.status.nodeName } : {}),
    };
    if (launched?.status !== 'True') {
      const age = since(launched);
      out.push({
        ...base,
        stage: 'launch',
        ageMs: age,
        ...(launchBound !== undefined ? { boundMs: launchBound } : {}),
        overdue: launchBound !== undefined && age > launchBound,
        message: `not launched${launched?.message ? `: ${launched.message}` : launched?.reason ? ` (${launched.reason})` : ''}`,
      });
      continue;
    }
    if (registered?.status !== 'True') {
      const age = since(registered);
      out.push({
        ...base,
        stage: 'registration',
        ageMs: age,
        boundMs: REGISTRATION_TTL_MS,
        overdue: age > REGISTRATION_TTL_MS,
        message: `instance ${nc.status?.providerID ?? '(no providerID)'} launched but no Node registered${age > REGISTRATION_TTL_MS ? '; past the 15m registration timeout Karpenter deletes the NodeClaim (registration_timeout) and marks the NodePool NodeRegistrationHealthy=False' : ''}`,
      });
      continue;
    }
    if (initialized?.status !== 'True') {
      const age = since(initialized);
      out.push({
        ...base,
        stage: 'initialization',
        ageMs: age,
        overdue: false,
        message: `Node ${nc.status?.nodeName ?? ''} registered but not initialized${initialized?.message ? `: ${initialized.message}` : ''} (not Ready, startup taints still present, or extended resources not yet reported)`,
      });
    }
  }
  return out.sort((a, b) => b.ageMs - a.ageMs || a.name.localeCompare(b.name));
}

function finish(out: KarpenterPendingExplanation, ctx: KarpenterPlacementContext): KarpenterPendingExplanation {
  // NodeClaims of pools the pod could use (the chosen one, or any evaluated pool when none fits)
  const pools = new Set(
    out.pools.filter((p) => p.chosen || (!out.chosen && p.verdict !== 'not-evaluated')).map((p) => p.nodePool),
  );
  if (out.eligibility.provisionable) out.stuckNodeClaims = stuckNodeClaims(ctx.nodeClaims, pools, ctx.now, ctx.settings?.version);
  const v = karpenterVersion(ctx.settings?.version);
  if (!ctx.settings) out.notes.push(`Karpenter's controller Deployment is not in the input, so its version is unknown: casdoctor applies v${KARPENTER_MODELLED.newest} behaviour (add \`kubectl get deployments -A -o json\` to the dump)`);
  else if (v.note) out.notes.push(v.note);
  return out;
}
