/**
 * kube-scheduler TaintToleration Filter (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go):
 * the first NoSchedule/NoExecute taint the pod does not tolerate rejects the node.
 */
import { formatTaint, type Pod, type Taint, type Toleration } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { failure, success } from './status.js';

export const TAINT_TOLERATION = 'TaintToleration';

/** Reason up to the Oct 2025 patch releases: the first untolerated taint, value possibly empty ("{key: }"). */
export function untoleratedTaintReason(taint: Taint): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

/** Reason since kubernetes#134740 (1.35, backported to 1.34.2 and other patch releases): the taint is not named. */
export const REASON_UNTOLERATED_TAINT_REDACTED = 'node(s) had untolerated taint(s)';

const DO_NOT_SCHEDULE_EFFECTS = ['NoSchedule', 'NoExecute'];

/** core/v1 Toleration.ToleratesTaint: empty effect matches all effects; empty key with Exists matches all keys. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/**
 * The first taint with one of `effects` (default NoSchedule and NoExecute) that no toleration tolerates
 * (core/v1 helper FindMatchingUntoleratedTaint), or undefined.
 */
export function findUntoleratedTaint(
  tolerations: Toleration[] | undefined,
  taints: Taint[] | undefined,
  effects: string[] = DO_NOT_SCHEDULE_EFFECTS,
): Taint | undefined {
  for (const taint of taints ?? []) {
    if (!effects.includes(taint.effect)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

export function taintToleration(pod: Pod, nodeInfo: NodeInfo, _view?: ClusterView): FilterStatus {
  const taint = findUntoleratedTaint(pod.spec.tolerations, nodeInfo.node.spec?.taints);
  if (!taint) return success(TAINT_TOLERATION);
  const tolerations = pod.spec.tolerations ?? [];
  const tolerated = tolerations.length === 0 ? 'none' : tolerations.map(describeToleration).join('; ');
  return failure(
    TAINT_TOLERATION,
    'UnschedulableAndUnresolvable',
    [untoleratedTaintReason(taint)],
    [`node ${nodeInfo.node.metadata.name} has taint ${formatTaint(taint)}; pod tolerations: ${tolerated}`],
  );
}

export function describeToleration(t: Toleration): string {
  const key = t.key ? t.key : '<all keys>';
  const op = t.operator ?? 'Equal';
  const value = op === 'Exists' ? '' : `=${t.value ?? ''}`;
  return `${key}${op === 'Exists' ? ' exists' : value}:${t.effect ? t.effect : '<all effects>'}`;
}
