// The time-sorted steps indexed once per run, so that the window's verdict for each of 20,000 removed nodes does not
// scan 400,000 steps (it did: 26 s of CPU for 500 nodes). Built on first use and kept beside the array it indexes.
import type { HistoryStep } from '../../model/history.js';

export interface StepIndex {
  /** Positions in the sorted steps, ascending, by node name, instance id and NodeClaim (pod-scheduled/-started excluded). */
  byNode: Map<string, number[]>;
  byInstance: Map<string, number[]>;
  byClaim: Map<string, number[]>;
  /** Evicted steps by pod (the node a pod ran on is known only from the identity). */
  evictedByPod: Map<string, number[]>;
  /** The same by the node the pod ran on, for the identity's pod → node map it was built with. */
  evictedByNode?: { nodeOfPod: ReadonlyMap<string, string>; byNode: Map<string, { pods: string[]; at: number[] }> };
  /** pod-nominated steps by their NodeClaim. */
  nominatedByClaim: Map<string, HistoryStep[]>;
  /** Karpenter's provisioning batches (its log's pod-unschedulable lines), in time order. */
  karpenterBatches: HistoryStep[];
  /** Disruptions that name a node, in time order. */
  disruptions: HistoryStep[];
  /** Raised desired capacities (scale-up but the expander's choice, desired-capacity) by group (undefined: no group). */
  raisesByGroup: Map<string | undefined, HistoryStep[]>;
  /** pod-triggered-scale-up steps by group. */
  triggeredByGroup: Map<string | undefined, HistoryStep[]>;
  /** The ASGs' own terminations (activities), by group. */
  asgTerminationsByGroup: Map<string | undefined, HistoryStep[]>;
}

const cache = new WeakMap<readonly HistoryStep[], StepIndex>();

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

/** The index of steps sorted by time (enrich's output); computed once per array. */
export function indexSteps(steps: readonly HistoryStep[]): StepIndex {
  const hit = cache.get(steps);
  if (hit) return hit;
  const ix: StepIndex = {
    byNode: new Map(),
    byInstance: new Map(),
    byClaim: new Map(),
    evictedByPod: new Map(),
    nominatedByClaim: new Map(),
    karpenterBatches: [],
    disruptions: [],
    raisesByGroup: new Map(),
    triggeredByGroup: new Map(),
    asgTerminationsByGroup: new Map(),
  };
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (s.kind === 'evicted' && s.pod) push(ix.evictedByPod, s.pod, i);
    if (s.kind === 'pod-nominated' && s.nodeClaim && s.pod) push(ix.nominatedByClaim, s.nodeClaim, s);
    if (s.kind === 'pod-unschedulable' && s.source.kind === 'karpenter-log') ix.karpenterBatches.push(s);
    if (s.kind === 'disrupting' && s.node !== undefined) ix.disruptions.push(s);
    if ((s.kind === 'scale-up' || s.kind === 'desired-capacity') && s.reason !== 'expander') push(ix.raisesByGroup, s.group, s);
    if (s.kind === 'pod-triggered-scale-up' && s.pod) push(ix.triggeredByGroup, s.group, s);
    if (s.kind === 'instance-terminated' && s.source.kind === 'asg-activity' && s.reason !== 'terminate-api-call') push(ix.asgTerminationsByGroup, s.group, s);
    if (s.kind === 'pod-scheduled' || s.kind === 'pod-started') continue;
    if (s.node !== undefined) push(ix.byNode, s.node, i);
    if (s.instanceId !== undefined) push(ix.byInstance, s.instanceId, i);
    if (s.nodeClaim !== undefined) push(ix.byClaim, s.nodeClaim, i);
  }
  cache.set(steps, ix);
  return ix;
}

/** Evictions of the pods that ran on each node (by the identity's pod → node map), built once per map. */
export function evictionsOf(ix: StepIndex, nodeOfPod: ReadonlyMap<string, string>, node: string): { pods: string[]; at: number[] } | undefined {
  if (ix.evictedByNode?.nodeOfPod !== nodeOfPod) {
    const byNode = new Map<string, { pods: string[]; at: number[] }>();
    for (const [pod, at] of ix.evictedByPod) {
      const n = nodeOfPod.get(pod);
      if (n === undefined) continue;
      const e = byNode.get(n) ?? { pods: [], at: [] };
      e.pods.push(pod);
      for (const i of at) e.at.push(i);
      byNode.set(n, e);
    }
    ix.evictedByNode = { nodeOfPod, byNode };
  }
  return ix.evictedByNode.byNode.get(node);
}

/** The first index of a time-sorted list whose time is above t. */
export function upperBound(list: readonly HistoryStep[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index of a time-sorted list whose time is at or above t. */
export function lowerBound(list: readonly HistoryStep[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last step of a time-sorted list at or before `to` and after `after` that `pred` accepts (scanning back). */
export function lastBetween(list: readonly HistoryStep[] | undefined, after: number, to: number, pred: (s: HistoryStep) => boolean = () => true): HistoryStep | undefined {
  if (!list) return undefined;
  for (let i = upperBound(list, to) - 1; i >= 0 && list[i].t > after; i--) if (pred(list[i])) return list[i];
  return undefined;
}

/** The positions of several keys merged, ascending, without repeats. */
export function mergePositions(...lists: Array<readonly number[] | undefined>): number[] {
  const present = lists.filter((l): l is readonly number[] => l !== undefined && l.length > 0);
  if (present.length === 0) return [];
  if (present.length === 1) return present[0].slice();
  const all: number[] = [];
  for (const l of present) for (const x of l) all.push(x);
  all.sort((a, b) => a - b);
  return all.filter((x, i) => i === 0 || x !== all[i - 1]);
}
