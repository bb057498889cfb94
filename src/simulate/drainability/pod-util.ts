/**
 * CA's pod predicates used by the drainability rules and by utilization (utils/drain/drain.go, utils/pod/pod.go).
 * They differ from the scheduler's on purpose: CA's own definitions decide scale-down.
 */
import type { OwnerReference, Pod, Volume } from '../../model/k8s.js';

export const SAFE_TO_EVICT = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
export const SAFE_TO_EVICT_LOCAL_VOLUMES = 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes';
export const DAEMONSET_POD = 'cluster-autoscaler.kubernetes.io/daemonset-pod';
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
/** drain.PodLongTerminatingExtraThreshold */
export const LONG_TERMINATING_EXTRA_MS = 30_000;
/** apiv1.DefaultTerminationGracePeriodSeconds */
export const DEFAULT_GRACE_SECONDS = 30;

/** metav1.GetControllerOf: the owner reference with controller: true (only that one). */
export function controllerRef(pod: Pod): OwnerReference | undefined {
  return pod.metadata.ownerReferences?.find((o) => o.controller === true);
}

/** CA: utils/pod/pod.go IsDaemonSetPod — controller kind DaemonSet, or the daemonset-pod annotation "true". */
export function isDaemonSetPod(pod: Pod): boolean {
  if (controllerRef(pod)?.kind === 'DaemonSet') return true;
  return pod.metadata.annotations?.[DAEMONSET_POD] === 'true';
}

/** CA: utils/pod/pod.go IsMirrorPod — the kubelet's config.mirror annotation is present (any value). */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations !== undefined && Object.hasOwn(pod.metadata.annotations, MIRROR_ANNOTATION);
}

/** Exactly "true" (CA compares strings; "True" or "yes" are ignored). */
export function hasSafeToEvictAnnotation(pod: Pod): boolean {
  return pod.metadata.annotations?.[SAFE_TO_EVICT] === 'true';
}

export function hasNotSafeToEvictAnnotation(pod: Pod): boolean {
  return pod.metadata.annotations?.[SAFE_TO_EVICT] === 'false';
}

/** 1.36+: safe-to-evict "on-completion". */
export function hasSafeToEvictOnCompletionAnnotation(pod: Pod): boolean {
  return pod.metadata.annotations?.[SAFE_TO_EVICT] === 'on-completion';
}

/** CA: drain.IsPodTerminal — Never + Succeeded/Failed, OnFailure + Succeeded, or any Failed pod. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  const restart = pod.spec.restartPolicy ?? 'Always';
  if (restart === 'Never' && (phase === 'Succeeded' || phase === 'Failed')) return true;
  if (restart === 'OnFailure' && phase === 'Succeeded') return true;
  return phase === 'Failed';
}

/** When a terminating pod becomes "long terminating": deletionTimestamp + grace (default 30s) + 30s. */
export function longTerminatingAt(pod: Pod): Date | undefined {
  const del = pod.metadata.deletionTimestamp;
  if (!del) return undefined;
  const t = Date.parse(del);
  if (!Number.isFinite(t)) return undefined;
  const grace = pod.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  return new Date(t + grace * 1000 + LONG_TERMINATING_EXTRA_MS);
}

/** CA: drain.IsPodLongTerminating — strictly after deletionTimestamp + grace + 30s. */
export function isPodLongTerminating(pod: Pod, now: Date): boolean {
  const at = longTerminatingAt(pod);
  return at !== undefined && at.getTime() < now.getTime();
}

/** Volumes the annotation declares safe to lose: exact names, comma-separated, no trimming (CA splits on ","). */
export function safeToEvictLocalVolumes(pod: Pod): Set<string> {
  const raw = pod.metadata.annotations?.[SAFE_TO_EVICT_LOCAL_VOLUMES];
  return new Set(raw === undefined ? [] : raw.split(','));
}

/** hostPath, or emptyDir that is not in memory: what CA calls local storage (drain.go isLocalVolume). */
export function isLocalVolume(v: Volume): boolean {
  return v.hostPath !== undefined || (v.emptyDir !== undefined && v.emptyDir?.medium !== 'Memory');
}

/** CA: drain.HasBlockingLocalStorage — local volumes not listed in safe-to-evict-local-volumes. */
export function blockingLocalVolumes(pod: Pod): Volume[] {
  const safe = safeToEvictLocalVolumes(pod);
  return (pod.spec.volumes ?? []).filter((v) => isLocalVolume(v) && !safe.has(v.name));
}

/** schema.ParseGroupVersion's group: "" for "v1", "apps" for "apps/v1"; undefined when it would fail to parse. */
export function apiGroupOf(apiVersion: string | undefined): string | undefined {
  const s = apiVersion ?? '';
  if (s === '' || s === '/') return '';
  const parts = s.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0];
  return undefined;
}

export function podKeyOf(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
}
