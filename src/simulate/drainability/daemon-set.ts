// CA: simulator/drainability/rules/daemonset/rule.go — DaemonSet pods are evicted with the node, never moved.
import type { Pod } from '../../model/k8s.js';
import { isDaemonSetPod } from './pod-util.js';
import { type DrainContext, type DrainStatus, drainOk, UNDEFINED } from './types.js';

export const DAEMON_SET = 'DaemonSet';

export function daemonSet(_ctx: DrainContext, pod: Pod): DrainStatus {
  return isDaemonSetPod(pod)
    ? drainOk('DaemonSet pod: evicted with the node (best effort), never rescheduled elsewhere')
    : UNDEFINED;
}
