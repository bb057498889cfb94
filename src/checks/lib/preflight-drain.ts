/**
 * Cluster Autoscaler's pod drainability rules, judged on a manifest's pod template before anything runs.
 * CA: simulator/drainability/rules/rules.go Default() order; the first DrainOk/Skip outcome wins, as upstream.
 * Unlike CA, which stops at the first blocking rule, preflight collects every blocking rule after it, so one CI run
 * lists everything to fix. Rules that need a live pod (LongTerminating, ReplicaCount's missing controller, Terminal)
 * cannot apply to a manifest. A later home for this is src/simulate/drainability/ (the shared rules), once it exists.
 */
import type { CaConfig } from '../../model/ca-config.js';
import type { LabelSelector, Pod, Volume } from '../../model/k8s.js';
import { compileLabelSelector } from '../../simulate/predicates/labels.js';

export const SAFE_TO_EVICT = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
export const SAFE_TO_EVICT_LOCAL_VOLUMES = 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes';
const DAEMONSET_POD = 'cluster-autoscaler.kubernetes.io/daemonset-pod';
const MIRROR = 'kubernetes.io/config.mirror';

// CA: simulator/drainability/rules/replicated/rule.go replicatedKind
export const REPLICATED_KINDS = new Set(['ReplicationController', 'Job', 'ReplicaSet', 'StatefulSet']);

export type BlockingRule = 'Replicated' | 'System' | 'NotSafeToEvict' | 'LocalStorage';

export interface DrainBlocker {
  rule: BlockingRule;
  /** CA's BlockingPodReason (utils/drain/drain.go). */
  reason: 'NotReplicated' | 'UnmovableKubeSystemPod' | 'NotSafeToEvictAnnotation' | 'LocalStorageRequested';
  detail: string;
  /** The local volumes that block (LocalStorage only). */
  volumes?: string[];
  /** The controller kind that is not replicated (Replicated only); undefined for a pod without controller. */
  controllerKind?: string;
}

export interface DrainVerdict {
  /** A rule before the blocking ones lets CA evict the pod: nothing after it is evaluated (rules.go order). */
  drainOk?: { rule: 'Mirror' | 'DaemonSet' | 'SafeToEvict' | 'OnCompletion'; detail: string };
  blockers: DrainBlocker[];
}

export interface DrainOptions {
  config: CaConfig;
  /** Whether some PodDisruptionBudget in the inputs matches the pod (the System rule only blocks without one). */
  hasPdb: boolean;
}

function controllerOf(pod: Pod) {
  return pod.metadata.ownerReferences?.find((o) => o.controller === true);
}

/** CA: rules/localstorage + utils/drain HasBlockingLocalStorage: hostPath, or emptyDir not backed by memory. */
export function isLocalStorage(v: Volume): boolean {
  if (v.hostPath) return true;
  return v.emptyDir !== undefined && v.emptyDir !== null && v.emptyDir.medium !== 'Memory';
}

/** Names listed in safe-to-evict-local-volumes: comma-separated, exact, not trimmed (as CA splits them). */
export function safeLocalVolumes(pod: Pod): Set<string> {
  const raw = pod.metadata.annotations?.[SAFE_TO_EVICT_LOCAL_VOLUMES];
  return new Set(raw === undefined || raw === '' ? [] : raw.split(','));
}

/** The scale-down blockers a pod built from a manifest would be, in CA's rule order. */
export function drainVerdict(pod: Pod, o: DrainOptions): DrainVerdict {
  const ann = pod.metadata.annotations ?? {};
  const f = o.config.flags;
  const minor = o.config.version.minor;
  // rules/mirror: static pods are skipped
  if (ann[MIRROR] !== undefined)
    return { drainOk: { rule: 'Mirror', detail: 'a mirror (static) pod' }, blockers: [] };
  const ctrl = controllerOf(pod);
  // rules/daemonset
  if (ctrl?.kind === 'DaemonSet' || ann[DAEMONSET_POD] === 'true') {
    return { drainOk: { rule: 'DaemonSet', detail: 'a DaemonSet pod' }, blockers: [] };
  }
  // rules/safetoevict: exactly "true"
  if (ann[SAFE_TO_EVICT] === 'true') {
    return { drainOk: { rule: 'SafeToEvict', detail: `${SAFE_TO_EVICT}: "true"` }, blockers: [] };
  }
  // rules/oncompletion (1.36+): CA waits for the pod to finish instead
  if (minor >= 36 && ann[SAFE_TO_EVICT] === 'on-completion') {
    return { drainOk: { rule: 'OnCompletion', detail: `${SAFE_TO_EVICT}: "on-completion"` }, blockers: [] };
  }
  const blockers: DrainBlocker[] = [];
  // rules/replicated
  const customAllowed = !(
    f.skipNodesWithCustomControllerPods.supported && f.skipNodesWithCustomControllerPods.value
  );
  if (!ctrl) {
    blockers.push({
      rule: 'Replicated',
      reason: 'NotReplicated',
      detail: 'the pod has no controller (ownerReferences)',
    });
  } else if (!REPLICATED_KINDS.has(ctrl.kind) && !customAllowed) {
    blockers.push({
      rule: 'Replicated',
      reason: 'NotReplicated',
      detail: `its controller is a ${ctrl.kind}, not one of ${[...REPLICATED_KINDS].join(', ')} (--skip-nodes-with-custom-controller-pods=true)`,
      controllerKind: ctrl.kind,
    });
  }
  // rules/system: kube-system pods without a PDB block; from 1.33 only during their first hour, after which the pod is
  // DrainOk and the rules below are never reached
  if (f.skipNodesWithSystemPods.value && pod.metadata.namespace === 'kube-system' && !o.hasPdb) {
    blockers.push({
      rule: 'System',
      reason: 'UnmovableKubeSystemPod',
      detail:
        minor >= 33
          ? 'a kube-system pod without a PodDisruptionBudget (blocks during its first hour, --blocking-system-pod-distruption-timeout)'
          : 'a kube-system pod without a PodDisruptionBudget',
    });
    if (minor >= 33) return { blockers };
  }
  // rules/notsafetoevict: exactly "false"
  if (ann[SAFE_TO_EVICT] === 'false') {
    blockers.push({
      rule: 'NotSafeToEvict',
      reason: 'NotSafeToEvictAnnotation',
      detail: `${SAFE_TO_EVICT}: "false"`,
    });
  }
  // rules/localstorage
  if (f.skipNodesWithLocalStorage.value) {
    const safe = safeLocalVolumes(pod);
    const local = (pod.spec.volumes ?? [])
      .filter((v) => isLocalStorage(v) && !safe.has(v.name))
      .map((v) => v.name);
    if (local.length > 0) {
      blockers.push({
        rule: 'LocalStorage',
        reason: 'LocalStorageRequested',
        detail: `local volume(s) ${local.join(', ')} not listed in ${SAFE_TO_EVICT_LOCAL_VOLUMES}`,
        volumes: local,
      });
    }
  }
  return { blockers };
}

/** Whether a PDB in the inputs (manifests, or the cluster's) selects the pod. */
export function pdbSelects(
  pod: Pod,
  pdbs: Array<{ metadata: { namespace?: string }; spec?: { selector?: LabelSelector | null } }>,
): boolean {
  const ns = pod.metadata.namespace ?? 'default';
  return pdbs.some(
    (p) =>
      (p.metadata.namespace ?? 'default') === ns &&
      compileLabelSelector(p.spec?.selector).matches(pod.metadata.labels ?? {}),
  );
}
