// CA: simulator/drainability/rules/oncompletion/rule.go (1.36+) — safe-to-evict "on-completion": wait for the pod to finish.
import type { Pod } from '../../model/k8s.js';
import { hasSafeToEvictOnCompletionAnnotation } from './pod-util.js';
import type { DrainContext, DrainStatus } from './types.js';
import { UNDEFINED } from './types.js';

export const ON_COMPLETION = 'OnCompletion';

export function onCompletion(_ctx: DrainContext, pod: Pod): DrainStatus {
  return hasSafeToEvictOnCompletionAnnotation(pod)
    ? { outcome: 'WaitForCompletion', message: 'safe-to-evict: "on-completion": CA deletes the node only after this pod finishes' }
    : UNDEFINED;
}
