// CA: simulator/drainability/rules/safetoevict/rule.go — safe-to-evict "true" moves the pod whatever follows.
import type { Pod } from '../../model/k8s.js';
import { hasSafeToEvictAnnotation, SAFE_TO_EVICT } from './pod-util.js';
import { type DrainContext, type DrainStatus, drainOk, UNDEFINED } from './types.js';

export const SAFE_TO_EVICT_RULE = 'SafeToEvict';

export function safeToEvict(_ctx: DrainContext, pod: Pod): DrainStatus {
  return hasSafeToEvictAnnotation(pod)
    ? drainOk(`${SAFE_TO_EVICT}: "true": CA moves it without checking controller, kube-system, local storage or PDBs`)
    : UNDEFINED;
}
