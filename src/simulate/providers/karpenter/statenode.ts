/**
 * Karpenter's view of one node and its pods, as the disruption rules read it: StateNode (pkg/controllers/state/
 * statenode.go), the pod predicates of pkg/utils/pod/scheduling.go and the eviction cost of pkg/utils/disruption.
 * Pure helpers over snapshot objects.
 */
import { parseGoDuration } from '../../../model/duration.js';
import type { Node, Pod, Toleration } from '../../../model/k8s.js';
import {
  DISRUPTED_TAINT_KEY,
  DO_NOT_DISRUPT_ANNOTATION,
  NODE_INITIALIZED_LABEL,
  NODE_REGISTERED_LABEL,
  type KarpenterCondition,
  type NodeClaim,
} from '../../../model/karpenter.js';
import { tolerationsTolerateTaint } from '../../predicates/taint-toleration.js';
import { ownedBy } from './requirements.js';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';

// ------------------------------------------------------------------------------------------------ small helpers

export function cond(conditions: readonly KarpenterCondition[] | undefined, type: string): KarpenterCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function ms(iso: string | undefined | null): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

export function iso(t: number): string {
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

export function human(msValue: number): string {
  const s = Math.round(msValue / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
}

/** NillableDuration: "Never" -> null (disabled); a Go duration -> ms; undefined -> the default. */
export function nillableDuration(v: string | undefined, dflt: string): { ms: number | null; error?: string } {
  const s = v ?? dflt;
  if (s === 'Never') return { ms: null };
  try {
    return { ms: parseGoDuration(s) };
  } catch (e) {
    return { ms: null, error: (e as Error).message };
  }
}

// pkg/utils/pod/scheduling.go:35-38 IsActive: not terminal, not terminating
export function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

// scheduling.go:44-51 IsReschedulable
export function isReschedulable(pod: Pod): boolean {
  const stsTerminating = ownedBy(pod, 'apps/v1', 'StatefulSet') && !!pod.metadata.deletionTimestamp;
  return (isActive(pod) || stsTerminating) && !ownedBy(pod, 'apps/v1', 'DaemonSet') && !ownedBy(pod, 'v1', 'Node');
}

// pkg/utils/disruption/disruption.go:48-69 EvictionCost
export function evictionCost(pod: Pod): number {
  let cost = 1;
  const raw = pod.metadata.annotations?.['controller.kubernetes.io/pod-deletion-cost'];
  if (raw !== undefined && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw.trim()) && raw.trim() === raw) {
    cost += Number(raw) / 2 ** 27;
  }
  if (typeof pod.spec.priority === 'number') cost += pod.spec.priority / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}

const DISRUPTED_TAINT = { key: DISRUPTED_TAINT_KEY, effect: 'NoSchedule' };

// scheduling.go:255-257 ToleratesDisruptedNoScheduleTaint
export function toleratesDisruptedTaint(pod: Pod): boolean {
  return tolerationsTolerateTaint(pod.spec.tolerations as Toleration[] | undefined, DISRUPTED_TAINT);
}

export type DoNotDisruptState =
  | { active: false; reason: 'absent' | 'elapsed' | 'invalid' | 'unsupported'; invalidMessage?: string; until?: string }
  | { active: true; value: string; until?: string };

/**
 * IsDoNotDisruptActive (pkg/utils/pod/scheduling.go:210-252) at `now`. Durations count from v1.12.0 (commit 501287b36,
 * #2874); before that only "true" blocked and any other value was silently ignored.
 */
export function podDoNotDisrupt(pod: Pod, now: Date, durationsSupported = true): DoNotDisruptState {
  const anns = pod.metadata.annotations;
  if (!anns || !Object.hasOwn(anns, DO_NOT_DISRUPT_ANNOTATION)) return { active: false, reason: 'absent' };
  const value = anns[DO_NOT_DISRUPT_ANNOTATION];
  if (value === 'true') return { active: true, value };
  if (!durationsSupported) return { active: false, reason: 'unsupported' };
  let d: number;
  try {
    d = parseGoDuration(value);
  } catch (e) {
    // scheduling.go:194-203 parseDoNotDisrupt; events.go:33 InvalidDoNotDisruptAnnotationEvent
    const message = `failed to parse ${JSON.stringify(value)} as a duration: ${(e as Error).message}`;
    return { active: false, reason: 'invalid', invalidMessage: message };
  }
  if (d <= 0) return { active: false, reason: 'invalid', invalidMessage: `duration ${JSON.stringify(value)} must be positive` };
  const start = ms(pod.status?.startTime);
  if (start === undefined) return { active: true, value }; // no startTime: fail safe (scheduling.go:234-236)
  const until = start + d;
  return now.getTime() - start < d ? { active: true, value, until: iso(until) } : { active: false, reason: 'elapsed', until: iso(until) };
}

/** The node-level view Karpenter's StateNode gives (statenode.go Labels/Annotations/Registered/Initialized). */
export function stateNode(node: Node | undefined, claim: NodeClaim | undefined) {
  const registered = claim ? node?.metadata.labels?.[NODE_REGISTERED_LABEL] === 'true' : true;
  const initialized = claim ? node?.metadata.labels?.[NODE_INITIALIZED_LABEL] === 'true' : true;
  // statenode.go:281-309: an unregistered managed node is seen through its NodeClaim's labels and annotations
  const useClaim = !node || (claim && !registered);
  const labels = (useClaim ? claim?.metadata.labels : node?.metadata.labels) ?? {};
  const annotations = (useClaim ? claim?.metadata.annotations : node?.metadata.annotations) ?? {};
  return { registered, initialized, labels, annotations };
}

export interface DeletionState {
  marked: boolean;
  why?: string;
  certainty: 'exact' | 'inferred';
}

// statenode.go:438-449 MarkedForDeletion / Deleted; the in-memory mark goes with the karpenter.sh/disrupted taint
export function deletionState(node: Node | undefined, claim: NodeClaim | undefined): DeletionState {
  if (claim?.metadata.deletionTimestamp) {
    return { marked: true, why: `NodeClaim deletionTimestamp ${claim.metadata.deletionTimestamp}`, certainty: 'exact' };
  }
  if (cond(claim?.status?.conditions, 'InstanceTerminating')?.status === 'True') {
    return { marked: true, why: 'NodeClaim condition InstanceTerminating=True', certainty: 'exact' };
  }
  if (node && !claim && node.metadata.deletionTimestamp) {
    return { marked: true, why: `Node deletionTimestamp ${node.metadata.deletionTimestamp}`, certainty: 'exact' };
  }
  const taint = node?.spec?.taints?.find((t) => t.key === DISRUPTED_TAINT_KEY && t.effect === 'NoSchedule');
  if (taint) {
    return { marked: true, why: `taint ${DISRUPTED_TAINT_KEY}:NoSchedule (Karpenter taints the nodes it is disrupting)`, certainty: 'inferred' };
  }
  if (node?.metadata.deletionTimestamp) {
    return { marked: true, why: `Node deletionTimestamp ${node.metadata.deletionTimestamp}`, certainty: 'inferred' };
  }
  return { marked: false, certainty: 'exact' };
}

export function isNodeReady(node: Node | undefined): boolean {
  return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}
