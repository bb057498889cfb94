// CA: simulator/drainability/rules/mirror/rule.go — static (mirror) pods are never moved and never block.
import type { Pod } from '../../model/k8s.js';
import { isMirrorPod } from './pod-util.js';
import { type DrainContext, type DrainStatus, skipDrain, UNDEFINED } from './types.js';

export const MIRROR = 'Mirror';

export function mirror(_ctx: DrainContext, pod: Pod): DrainStatus {
  return isMirrorPod(pod) ? skipDrain('mirror (static) pod: the kubelet owns it; CA neither moves it nor waits for it') : UNDEFINED;
}
