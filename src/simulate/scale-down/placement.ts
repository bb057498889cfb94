// Scale-down's placement simulation: where the pods of a node CA removes would go, first fit from the last node found,
// committed only when every pod lands (simulator/cluster.go findPlaceFor, scheduling/hinting_simulator.go
// TrySchedulePods, plugin_runner.go RunFiltersUntilPassingNode).
import type { Pod } from '../../model/k8s.js';
import type { PodMove } from '../../model/scale-down.js';
import type { ClusterView, NodeInfo } from '../../model/scheduling.js';
import type { Analysis } from '../analysis.js';
import { podMatchesNodeSelectorAndAffinity } from '../predicates/node-affinity.js';
import { findUntoleratedTaint } from '../predicates/taint-toleration.js';
import { nodeInfoFor, podRequests } from '../resources.js';
import { formatFitError, runFilters } from '../scheduler.js';

export interface SimState {
  /** The simulated snapshot, changed in place by tryPlace (NodeInfo objects themselves are never mutated). */
  infos: NodeInfo[];
  view: ClusterView;
  index: Map<string, number>;
  /** Nodes pods may move to (podDestinations); removed and being-deleted nodes are not. */
  destinations: Set<string>;
  /** plugin_runner.go RunFiltersUntilPassingNode: the search starts after the last node found. */
  lastIndex: number;
  /** Free pods/cpu/memory per node, so the search skips nodes NodeResourcesFit would reject without running filters. */
  room: RoomIndex;
}

/** Pods the simulation moved, with the node they really run on (CA persists successful simulations in the loop). */
const movedFrom = new WeakMap<Pod, string>();

type PlacementResult = { ok: true; moves: PodMove[] } | { ok: false; pod: Pod; message: string };

/** A new view object sharing `infos`: predicates memoize per view (and per view and incoming pod). */
export function withInfos(view: ClusterView, infos: NodeInfo[]): ClusterView {
  return { ...view, nodeInfos: infos };
}

function hasRequiredAntiAffinity(pod: Pod): boolean {
  return (pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
}

/**
 * Max free pods, cpu and memory over ranges of node positions (a segment tree): "the first node from i on with room
 * for this pod" in O(log n) instead of a scan. It only prunes nodes NodeResourcesFit certainly rejects (same
 * arithmetic as insufficientResources), so the first node passing every filter is the one the scan would find.
 */
export class RoomIndex {
  private readonly size: number;
  private readonly pods: Float64Array;
  private readonly cpu: Float64Array;
  private readonly memory: Float64Array;

  constructor(readonly n: number) {
    let size = 1;
    while (size < n) size *= 2;
    this.size = size;
    this.pods = new Float64Array(2 * size).fill(-Infinity);
    this.cpu = new Float64Array(2 * size).fill(-Infinity);
    this.memory = new Float64Array(2 * size).fill(-Infinity);
  }

  /** Sets node i's free room; an ineligible node (not a destination) gets none. */
  set(i: number, ni: NodeInfo, eligible: boolean): void {
    let at = this.size + i;
    const free = (name: string) => {
      const v = (ni.allocatable[name] ?? 0) - (ni.requested[name] ?? 0);
      return Number.isNaN(v) ? Infinity : v; // never prune on a value the predicate would not reject
    };
    const pods = (ni.allocatable.pods ?? 0) - ni.pods.length;
    this.pods[at] = eligible ? (Number.isNaN(pods) ? Infinity : pods) : -Infinity;
    this.cpu[at] = eligible ? free('cpu') : -Infinity;
    this.memory[at] = eligible ? free('memory') : -Infinity;
    for (at >>= 1; at >= 1; at >>= 1) {
      const l = 2 * at;
      this.pods[at] = Math.max(this.pods[l], this.pods[l + 1]);
      this.cpu[at] = Math.max(this.cpu[l], this.cpu[l + 1]);
      this.memory[at] = Math.max(this.memory[l], this.memory[l + 1]);
    }
  }

  private roomy(at: number, cpu: number, memory: number): boolean {
    // insufficientResources: pods.length + 1 > allocatable pods; wanted > capacity - used only for wanted > 0
    return this.pods[at] >= 1 && !(cpu > 0 && cpu > this.cpu[at]) && !(memory > 0 && memory > this.memory[at]);
  }

  /** The first position in [from, to) that may have room for the requests, or -1. */
  next(from: number, to: number, cpu: number, memory: number): number {
    return from >= to ? -1 : this.descend(1, 0, this.size, from, to, cpu, memory);
  }

  private descend(at: number, lo: number, hi: number, from: number, to: number, cpu: number, memory: number): number {
    if (hi <= from || lo >= to || !this.roomy(at, cpu, memory)) return -1;
    if (hi - lo === 1) return lo;
    const mid = (lo + hi) >> 1;
    const left = this.descend(2 * at, lo, mid, from, to, cpu, memory);
    return left >= 0 ? left : this.descend(2 * at + 1, mid, hi, from, to, cpu, memory);
  }
}

function isDestination(s: Pick<SimState, 'destinations'>, ni: NodeInfo): boolean {
  return s.destinations.has(ni.node.metadata.name ?? '') && !ni.node.spec?.unschedulable;
}

export function buildRoomIndex(s: Omit<SimState, 'room'>): RoomIndex {
  const room = new RoomIndex(s.infos.length);
  s.infos.forEach((ni, i) => room.set(i, ni, isDestination(s, ni)));
  return room;
}

/** A node leaves podDestinations (its pods moved away): it takes no more pods. */
export function removeDestination(s: SimState, name: string): void {
  s.destinations.delete(name);
  const at = s.index.get(name);
  if (at !== undefined) s.room.set(at, s.infos[at], false);
}

/**
 * Moves `podsToMove` off `removed` ('' for none) in CA's order: first fit from the last node found. Commits the moves
 * to `s` when every pod finds a node, else leaves `s` as it was (with the scheduler's message only when `explain`).
 * The view object (and so the predicates' per-view memos) is kept unless a pod with required anti-affinity moves:
 * only that per-view list depends on where pods are.
 */
export function tryPlace(
  a: Analysis,
  s: SimState,
  removed: string,
  podsToMove: Pod[],
  { explain }: { explain: boolean },
): PlacementResult {
  const { infos, room } = s;
  const saved: Array<[number, NodeInfo]> = [];
  const put = (i: number, ni: NodeInfo) => {
    saved.push([i, infos[i]]);
    infos[i] = ni;
    room.set(i, ni, isDestination(s, ni));
  };
  const rollback = () => {
    for (let k = saved.length - 1; k >= 0; k--) {
      const [i, ni] = saved[k];
      infos[i] = ni;
      room.set(i, ni, isDestination(s, ni));
    }
  };
  let view = s.view;
  const at = s.index.get(removed);
  if (at !== undefined) {
    const moving = new Set(podsToMove);
    const ni = infos[at];
    // the removed node stays in the snapshot without the moved pods, so topology domains are preserved
    put(at, nodeInfoFor(ni.node, ni.pods.filter((p) => !moving.has(p))));
    if (podsToMove.some(hasRequiredAntiAffinity)) view = withInfos(view, infos);
  }
  let lastIndex = s.lastIndex;
  const moves: PodMove[] = [];
  const opts = { taintReason: a.caTaintReason };
  const n = infos.length;
  for (const pod of podsToMove) {
    const moving: Pod = { ...pod, spec: { ...pod.spec, nodeName: undefined } };
    delete moving.spec.nodeName;
    const from = movedFrom.get(pod) ?? removed;
    if (from) movedFrom.set(moving, from);
    const req = podRequests(moving);
    const cpu = req.cpu ?? 0;
    const memory = req.memory ?? 0;
    let placedAt = -1;
    // positions lastIndex..n-1, then 0..lastIndex-1, as the scan (lastIndex + i) % n
    for (const [lo, hi] of [
      [lastIndex, n],
      [0, lastIndex],
    ]) {
      for (let idx = room.next(lo, hi, cpu, memory); idx >= 0; idx = room.next(idx + 1, hi, cpu, memory)) {
        const ni = infos[idx];
        const name = ni.node.metadata.name ?? '';
        if (name === removed || !s.destinations.has(name) || ni.node.spec?.unschedulable) continue;
        // NodeAffinity's and TaintToleration's own tests first: a node they reject is passed over without building
        // its explanation (every plugin runs here, so these rejections are runFilters' too)
        if (!podMatchesNodeSelectorAndAffinity(moving, ni.node) || findUntoleratedTaint(moving.spec.tolerations, ni.node.spec?.taints)) continue;
        if (runFilters(moving, ni, view, opts).fits) {
          placedAt = idx;
          break;
        }
      }
      if (placedAt >= 0) break;
    }
    if (placedAt < 0 && !explain) {
      rollback();
      return { ok: false, pod, message: '' };
    }
    if (placedAt < 0) {
      const reasons: string[][] = [];
      let count = 0;
      for (const ni of infos) {
        const name = ni.node.metadata.name ?? '';
        if (name === removed || !s.destinations.has(name)) continue;
        count++;
        const r = runFilters(moving, ni, view, opts);
        if (r.failure) reasons.push(r.failure.reasons);
        else if (r.notEvaluated.length)
          reasons.push([`node(s) could not be evaluated (${r.notEvaluated.map((x) => x.plugin).join('/')})`]);
      }
      const message =
        count === 0 ? 'no other node can take pods' : formatFitError(count, reasons);
      rollback();
      return { ok: false, pod, message };
    }
    const target = infos[placedAt];
    put(placedAt, nodeInfoFor(target.node, [...target.pods, moving]));
    // per-(view, pod) state is computed afresh for each incoming pod from the shared array; only the per-view list of
    // pods with required anti-affinity would go stale, so a new view is needed only when such a pod lands
    if (hasRequiredAntiAffinity(moving)) view = withInfos(view, infos);
    lastIndex = (placedAt + 1) % n;
    moves.push({
      namespace: pod.metadata.namespace ?? 'default',
      name: pod.metadata.name ?? '',
      destination: target.node.metadata.name ?? '',
    });
  }
  s.view = view;
  s.lastIndex = lastIndex;
  return { ok: true, moves };
}

/** Where a pod of the simulation really runs, when CA's simulation moved it (undefined for pods in place). */
export function simulatedMoveOf(pod: Pod): string | undefined {
  return movedFrom.get(pod);
}
