// CA: simulator/drainability/rules/terminal/rule.go — finished pods never block.
import type { Pod } from '../../model/k8s.js';
import { isPodTerminal } from './pod-util.js';
import { type DrainContext, type DrainStatus, drainOk, UNDEFINED } from './types.js';

export const TERMINAL = 'Terminal';

export function terminal(_ctx: DrainContext, pod: Pod): DrainStatus {
  return isPodTerminal(pod) ? drainOk(`completed (phase ${pod.status?.phase}): nothing left to move`) : UNDEFINED;
}
