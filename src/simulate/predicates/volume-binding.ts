/**
 * kube-scheduler VolumeBinding PreFilter + Filter (pkg/scheduler/framework/plugins/volumebinding/volume_binding.go,
 * binder.go FindPodVolumes).
 *
 * PreFilter (node independent): every PVC the pod names must exist, not be Lost or being deleted; unbound claims
 * whose class is not WaitForFirstConsumer ("immediate") reject the pod outright.
 * Filter: bound claims need their PV to exist and its node affinity to match the node; unbound WaitForFirstConsumer
 * claims need a matching Available PV on this node, or a provisioner whose class allowedTopologies match the node.
 *
 * Simplifications: dynamic provisioning is assumed to succeed when the class allows the node's topology
 * (no CSIStorageCapacity check, so "did not have enough free storage" is never reported); a StorageClass without
 * volumeBindingMode is Immediate (the API default); a PVC counts as bound with spec.volumeName and either the
 * pv.kubernetes.io/bind-completed annotation or status.phase Bound; a PVC without a class uses the default class.
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../model/k8s.js';
import { toInt } from '../../model/quantity.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { compileLabelSelector } from './labels.js';
import { explainTermsMismatch, nodeSelectorTermsMatch } from './node-affinity.js';
import { failure, memoByViewAndPod, notEvaluated, success } from './status.js';

export const VOLUME_BINDING = 'VolumeBinding';
export const REASON_VOLUME_NODE_AFFINITY_CONFLICT = 'node(s) had volume node affinity conflict';
export const REASON_VOLUME_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const REASON_PV_NOT_EXIST =
  'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const REASON_NOT_ENOUGH_SPACE = 'node(s) did not have enough free storage';
export const REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

export function pvcNotFoundReason(claimName: string): string {
  return `persistentvolumeclaim "${claimName}" not found`;
}

const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
const ANN_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const ANN_BETA_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

export interface PodClaimRef {
  volume: string;
  claimName: string;
  /** generic ephemeral volume: the claim is named <pod>-<volume> and created by a controller */
  ephemeral: boolean;
}

/** The PVCs a pod uses, in volume order (persistentVolumeClaim and generic ephemeral volumes). */
export function podClaimRefs(pod: Pod): PodClaimRef[] {
  const out: PodClaimRef[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (v.persistentVolumeClaim) {
      out.push({ volume: v.name, claimName: v.persistentVolumeClaim.claimName, ephemeral: false });
    } else if (v.ephemeral) {
      out.push({ volume: v.name, claimName: `${pod.metadata.name}-${v.name}`, ephemeral: true });
    }
  }
  return out;
}

export function pvcKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

/** A claim is fully bound once spec.volumeName is set and binding completed (pv_controller isPVCFullyBound). */
export function isClaimBound(pvc: PersistentVolumeClaim): boolean {
  if (!pvc.spec?.volumeName) return false;
  return Object.hasOwn(pvc.metadata.annotations ?? {}, ANN_BIND_COMPLETED) || pvc.status?.phase === 'Bound';
}

const defaultClassCache = new WeakMap<Map<string, StorageClass>, string | undefined>();

function defaultClassName(classes: Map<string, StorageClass>): string | undefined {
  if (defaultClassCache.has(classes)) return defaultClassCache.get(classes);
  let found: StorageClass | undefined;
  for (const sc of classes.values()) {
    const ann = sc.metadata.annotations ?? {};
    if (ann[ANN_DEFAULT_CLASS] !== 'true' && ann[ANN_BETA_DEFAULT_CLASS] !== 'true') continue;
    // the newest default class wins, as the DefaultStorageClass admission plugin picks it
    if (!found || (sc.metadata.creationTimestamp ?? '') > (found.metadata.creationTimestamp ?? ''))
      found = sc;
  }
  defaultClassCache.set(classes, found?.metadata.name);
  return found?.metadata.name;
}

/** storagehelpers.GetPersistentVolumeClaimClass, falling back to the default class when the class is unset (null). */
export function claimClassName(pvc: PersistentVolumeClaim, classes?: Map<string, StorageClass>): string {
  const beta = pvc.metadata.annotations?.[ANN_BETA_STORAGE_CLASS];
  if (beta !== undefined) return beta;
  const name = pvc.spec?.storageClassName;
  if (typeof name === 'string') return name;
  return (classes && defaultClassName(classes)) ?? '';
}

interface ClassifiedClaims {
  bound: Array<{ ref: PodClaimRef; pvc: PersistentVolumeClaim }>;
  delayed: Array<{ ref: PodClaimRef; pvc: PersistentVolumeClaim; className: string; sc?: StorageClass }>;
  immediate: Array<{ ref: PodClaimRef; pvc: PersistentVolumeClaim }>;
}

type PreFilterOutcome = { status: FilterStatus; claims?: ClassifiedClaims };

function preFilterOutcome(pod: Pod, view: ClusterView): PreFilterOutcome {
  const refs = podClaimRefs(pod);
  if (refs.length === 0) return { status: success(VOLUME_BINDING) };
  const names = refs.map((r) => r.claimName).join(', ');
  if (!view.has.pvcs) {
    return {
      status: notEvaluated(VOLUME_BINDING, [
        `PersistentVolumeClaims were not gathered; the pod uses claim(s) ${names}`,
      ]),
    };
  }
  const ns = pod.metadata.namespace;
  const claims: ClassifiedClaims = { bound: [], delayed: [], immediate: [] };
  // podHasPVCs: existence and state of every claim first
  const found: Array<{ ref: PodClaimRef; pvc: PersistentVolumeClaim }> = [];
  for (const ref of refs) {
    const pvc = view.pvcs.get(pvcKey(ns, ref.claimName));
    if (!pvc) {
      const reason = ref.ephemeral
        ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${ref.claimName}"`
        : pvcNotFoundReason(ref.claimName);
      return {
        status: failure(
          VOLUME_BINDING,
          'UnschedulableAndUnresolvable',
          [reason],
          [
            `volume ${ref.volume} refers to PersistentVolumeClaim ${pvcKey(ns, ref.claimName)}, which does not exist`,
          ],
        ),
      };
    }
    if (pvc.status?.phase === 'Lost') {
      return {
        status: failure(VOLUME_BINDING, 'UnschedulableAndUnresolvable', [
          `persistentvolumeclaim "${ref.claimName}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ''}"`,
        ]),
      };
    }
    if (pvc.metadata.deletionTimestamp) {
      return {
        status: failure(VOLUME_BINDING, 'UnschedulableAndUnresolvable', [
          `persistentvolumeclaim "${ref.claimName}" is being deleted`,
        ]),
      };
    }
    if (ref.ephemeral) {
      const owner = pvc.metadata.ownerReferences?.find((o) => o.controller);
      if (
        !owner ||
        (pod.metadata.uid && owner.uid && owner.uid !== pod.metadata.uid) ||
        owner.kind !== 'Pod'
      ) {
        return {
          status: failure(VOLUME_BINDING, 'UnschedulableAndUnresolvable', [
            `PVC ${pvcKey(ns, ref.claimName)} was not created for pod ${pvcKey(ns, pod.metadata.name ?? '')} (pod is not owner)`,
          ]),
        };
      }
    }
    found.push({ ref, pvc });
  }
  // GetPodVolumeClaims: classify
  for (const { ref, pvc } of found) {
    if (isClaimBound(pvc)) {
      claims.bound.push({ ref, pvc });
      continue;
    }
    if (!view.has.storageClasses) {
      return {
        status: notEvaluated(VOLUME_BINDING, [
          `StorageClasses were not gathered; cannot tell how unbound claim ${ref.claimName} binds`,
        ]),
      };
    }
    const className = claimClassName(pvc, view.storageClasses);
    const sc = className ? view.storageClasses.get(className) : undefined;
    const delay = sc?.volumeBindingMode === 'WaitForFirstConsumer';
    if (delay && !pvc.spec?.volumeName) claims.delayed.push({ ref, pvc, className, sc });
    else claims.immediate.push({ ref, pvc });
  }
  if (claims.immediate.length > 0) {
    return {
      status: failure(
        VOLUME_BINDING,
        'UnschedulableAndUnresolvable',
        [REASON_UNBOUND_IMMEDIATE],
        claims.immediate.map(
          ({ pvc }) =>
            `claim ${pvc.metadata.name} is ${pvc.status?.phase ?? 'unbound'}${pvc.spec?.volumeName ? ` (pre-bound to ${pvc.spec.volumeName})` : ''} with Immediate binding (class ${claimClassName(pvc, view.storageClasses) || '<none>'})`,
        ),
      ),
    };
  }
  return { status: success(VOLUME_BINDING), claims };
}

const cachedPreFilter = memoByViewAndPod(preFilterOutcome);

/** The node-independent part (the plugin's PreFilter): Success, a rejection, or NotEvaluated. */
export function volumeBindingPreFilter(pod: Pod, view: ClusterView): FilterStatus {
  return cachedPreFilter(pod, view).status;
}

function labelsOnlyNode(node: Node): Node {
  // volume.CheckNodeAffinity matches PV node affinity against the node's labels only
  return { metadata: { labels: node.metadata.labels ?? {} } };
}

function pvNodeAffinityMatches(pv: PersistentVolume, node: Node): boolean {
  const required = pv.spec?.nodeAffinity?.required;
  if (!required) return true;
  return nodeSelectorTermsMatch(required.nodeSelectorTerms, labelsOnlyNode(node));
}

function storageOf(m: Record<string, string | number> | undefined): number {
  const q = m?.storage;
  if (q === undefined) return 0;
  try {
    return toInt(q);
  } catch {
    return 0;
  }
}

/** Available PVs a delayed claim could bind to, ignoring node affinity (binder findMatchingVolumes, pv_util). */
function staticCandidates(
  pvc: PersistentVolumeClaim,
  className: string,
  view: ClusterView,
): PersistentVolume[] {
  const wantModes = pvc.spec?.accessModes ?? [];
  const wantSize = storageOf(pvc.spec?.resources?.requests);
  const wantMode = pvc.spec?.volumeMode ?? 'Filesystem';
  const selector = pvc.spec?.selector;
  const compiled = selector ? compileLabelSelector(selector) : undefined;
  const out: PersistentVolume[] = [];
  for (const pv of view.pvs.values()) {
    const ref = pv.spec?.claimRef;
    const preBound =
      ref?.name === pvc.metadata.name &&
      (ref?.namespace ?? 'default') === (pvc.metadata.namespace ?? 'default') &&
      (!ref?.uid || !pvc.metadata.uid || ref.uid === pvc.metadata.uid);
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== wantMode) continue;
    if (pv.metadata.deletionTimestamp) continue;
    if (preBound) {
      out.push(pv);
      continue;
    }
    if (pv.status?.phase !== 'Available' || ref) continue;
    if (compiled && !compiled.matches(pv.metadata.labels)) continue;
    if ((pv.spec?.storageClassName ?? '') !== className) continue;
    const modes = pv.spec?.accessModes ?? [];
    if (!wantModes.every((m) => modes.includes(m))) continue;
    if (storageOf(pv.spec?.capacity) < wantSize) continue;
    out.push(pv);
  }
  return out;
}

const candidateCache = new WeakMap<ClusterView, Map<string, PersistentVolume[]>>();

function cachedCandidates(
  pvc: PersistentVolumeClaim,
  className: string,
  view: ClusterView,
): PersistentVolume[] {
  let perView = candidateCache.get(view);
  if (!perView) {
    perView = new Map();
    candidateCache.set(view, perView);
  }
  const key = pvcKey(pvc.metadata.namespace, pvc.metadata.name ?? '');
  let list = perView.get(key);
  if (!list) {
    list = staticCandidates(pvc, className, view);
    perView.set(key, list);
  }
  return list;
}

/** MatchTopologySelectorTerms: no terms match every node; terms ORed; each expression needs label value in values. */
export function allowedTopologiesMatch(sc: StorageClass, node: Node): boolean {
  const terms = sc.allowedTopologies ?? [];
  if (terms.length === 0) return true;
  const labels = node.metadata.labels ?? {};
  return terms.some((t) =>
    (t.matchLabelExpressions ?? []).every(
      (e) => Object.hasOwn(labels, e.key) && e.values.includes(labels[e.key]),
    ),
  );
}

export function volumeBinding(pod: Pod, nodeInfo: NodeInfo, view: ClusterView): FilterStatus {
  const pre = cachedPreFilter(pod, view);
  if (pre.status.code !== 'Success' || !pre.claims) return pre.status;
  const { bound, delayed } = pre.claims;
  if (bound.length === 0 && delayed.length === 0) return success(VOLUME_BINDING);
  if (!view.has.pvs) {
    return notEvaluated(VOLUME_BINDING, [
      `PersistentVolumes were not gathered; cannot check claim(s) ${[...bound, ...delayed].map((c) => c.ref.claimName).join(', ')}`,
    ]);
  }
  const node = nodeInfo.node;
  const details: string[] = [];
  let boundSatisfied = true;
  let boundFound = true;
  let unboundSatisfied = true;
  // checkBoundClaims stops at the first missing PV or conflict
  for (const { ref, pvc } of bound) {
    const pvName = pvc.spec?.volumeName ?? '';
    const pv = view.pvs.get(pvName);
    if (!pv) {
      boundFound = false;
      details.push(`claim ${ref.claimName} is bound to PersistentVolume ${pvName}, which does not exist`);
      break;
    }
    if (!pvNodeAffinityMatches(pv, node)) {
      boundSatisfied = false;
      const why = explainTermsMismatch(
        pv.spec?.nodeAffinity?.required?.nodeSelectorTerms,
        labelsOnlyNode(node),
        'PV node affinity',
      );
      details.push(
        `claim ${ref.claimName} is bound to PersistentVolume ${pvName}; on node ${node.metadata.name}: ${why.join('; ')}`,
      );
      break;
    }
  }
  for (const { ref, pvc, className, sc } of delayed) {
    const candidates = cachedCandidates(pvc, className, view).filter((pv) => pvNodeAffinityMatches(pv, node));
    if (candidates.length > 0) continue;
    if (!sc?.provisioner || sc.provisioner === NO_PROVISIONER) {
      unboundSatisfied = false;
      details.push(
        `claim ${ref.claimName}: no Available PersistentVolume of class ${className} fits this node and the class cannot provision`,
      );
      break;
    }
    if (!allowedTopologiesMatch(sc, node)) {
      unboundSatisfied = false;
      const allowed = (sc.allowedTopologies ?? [])
        .map((t) =>
          (t.matchLabelExpressions ?? []).map((e) => `${e.key} in [${e.values.join(', ')}]`).join(' and '),
        )
        .join(' or ');
      details.push(
        `claim ${ref.claimName}: StorageClass ${className} allows only ${allowed}; node ${node.metadata.name} does not match`,
      );
      break;
    }
  }
  const reasons: string[] = [];
  if (!boundSatisfied) reasons.push(REASON_VOLUME_NODE_AFFINITY_CONFLICT);
  if (!unboundSatisfied) reasons.push(REASON_VOLUME_BIND_CONFLICT);
  if (!boundFound) reasons.push(REASON_PV_NOT_EXIST);
  if (reasons.length === 0) return success(VOLUME_BINDING);
  return failure(VOLUME_BINDING, 'UnschedulableAndUnresolvable', reasons, details);
}
