// CA: simulator/drainability/rules/longterminating/rule.go — pods terminating past grace + 30s count as gone.
import type { Pod } from '../../model/k8s.js';
import { isPodLongTerminating, longTerminatingAt } from './pod-util.js';
import { type DrainContext, type DrainStatus, skipDrain, UNDEFINED } from './types.js';

export const LONG_TERMINATING = 'LongTerminating';

export function longTerminating(ctx: DrainContext, pod: Pod): DrainStatus {
  if (!isPodLongTerminating(pod, ctx.now)) return UNDEFINED;
  return skipDrain(
    `terminating since ${pod.metadata.deletionTimestamp}, past its grace period + 30s (${longTerminatingAt(pod)?.toISOString()}): CA ignores it`,
  );
}
