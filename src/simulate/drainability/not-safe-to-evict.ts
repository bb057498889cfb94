// CA: simulator/drainability/rules/notsafetoevict/rule.go — safe-to-evict "false" blocks.
import type { Pod } from '../../model/k8s.js';
import { hasNotSafeToEvictAnnotation } from './pod-util.js';
import { blocked, type DrainContext, type DrainStatus, UNDEFINED } from './types.js';

export const NOT_SAFE_TO_EVICT = 'NotSafeToEvict';

export function notSafeToEvict(_ctx: DrainContext, pod: Pod): DrainStatus {
  return hasNotSafeToEvictAnnotation(pod)
    ? blocked('NotSafeToEvictAnnotation', `pod annotated as not safe to evict present: ${pod.metadata.name ?? ''}`)
    : UNDEFINED;
}
