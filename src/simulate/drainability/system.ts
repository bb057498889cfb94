/**
 * CA: simulator/drainability/rules/system/rule.go (only with --skip-nodes-with-system-pods=true). A kube-system pod no
 * PDB covers blocks; since 1.33 only until --blocking-system-pod-distruption-timeout after its creation, then it is
 * drained like any pod (DrainOk, so rules 10-12 never see it).
 */
import type { Pod } from '../../model/k8s.js';
import { blocked, type DrainContext, type DrainStatus, drainOk, UNDEFINED } from './types.js';

export const SYSTEM = 'System';

/** When a kube-system pod stops blocking (1.33+), or undefined when it blocks for as long as it exists. */
export function systemPodBlocksUntil(ctx: DrainContext, pod: Pod): Date | undefined {
  const timeout = ctx.options.blockingSystemPodDistruptionTimeoutMs;
  if (ctx.options.minor < 33 || timeout === undefined) return undefined;
  const created = Date.parse(pod.metadata.creationTimestamp ?? '');
  if (!Number.isFinite(created)) return undefined;
  return new Date(created + timeout);
}

export function system(ctx: DrainContext, pod: Pod): DrainStatus {
  if ((pod.metadata.namespace ?? 'default') !== 'kube-system' || ctx.pdbs.matching(pod).length > 0) return UNDEFINED;
  const until = systemPodBlocksUntil(ctx, pod);
  if (until !== undefined && ctx.now.getTime() > until.getTime()) {
    return drainOk(
      `kube-system pod without a PDB, created ${pod.metadata.creationTimestamp}: past --blocking-system-pod-distruption-timeout, CA drains it`,
    );
  }
  return blocked(
    'UnmovableKubeSystemPod',
    `non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: ${pod.metadata.name ?? ''}`,
  );
}
