/**
 * CA: simulator/drainability/rules/localstorage/rule.go (only with --skip-nodes-with-local-storage=true): a hostPath
 * or non-memory emptyDir volume that safe-to-evict-local-volumes does not name blocks.
 */
import type { Pod } from '../../model/k8s.js';
import { blockingLocalVolumes } from './pod-util.js';
import { blocked, type DrainContext, type DrainStatus, UNDEFINED } from './types.js';

export const LOCAL_STORAGE = 'LocalStorage';

export function localStorage(_ctx: DrainContext, pod: Pod): DrainStatus {
  return blockingLocalVolumes(pod).length > 0
    ? blocked('LocalStorageRequested', `pod with local storage present: ${pod.metadata.name ?? ''}`)
    : UNDEFINED;
}
