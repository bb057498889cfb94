// preflight's placement: the claims a workload mounts, the failures described for the report, and where each
// workload's pod fits. Moved out of preflight.ts as is.
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../model/k8s.js';
import { formatResource } from '../model/quantity.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../model/scheduling.js';
import { Analysis } from './analysis.js';
import { compileLabelSelector } from './predicates/labels.js';
import { explainNodeAffinityMismatch } from './predicates/node-affinity.js';
import { insufficientResources } from './predicates/node-resources-fit.js';
import { findUntoleratedTaint } from './predicates/taint-toleration.js';
import { podClaimRefs, pvcKey } from './predicates/volume-binding.js';
import { ephemeralClaims, type PreflightWorkload } from './preflight-workloads.js';
import { nodeInfoFor, parseResourceList } from './resources.js';
import { buildClusterView, evaluateAllFilters } from './scheduler.js';
import { type DescribedFailure, type FailureCategory, type FitResult, type GroupPlacement, PREFLIGHT_PLUGINS, type PreflightContext, type WorkloadPlacement, ZONAL_PROVISIONERS, ZONE_KEYS, placements, preflightOf, views } from './preflight-context.js';

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
export function asApplied(pvc: PersistentVolumeClaim, pvs: PersistentVolume[]): PersistentVolumeClaim {
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
