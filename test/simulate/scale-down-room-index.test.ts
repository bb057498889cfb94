// The scale-down simulation's node index must find exactly the nodes a scan would not rule out on room alone, so the
// first node passing every filter stays the one CA's scan (plugin_runner.go RunFiltersUntilPassingNode) finds.
import { describe, expect, it } from 'vitest';
import type { NodeInfo } from '../../src/model/scheduling.js';
import { RoomIndex } from '../../src/simulate/scale-down/placement.js';

/** mulberry32: seeded, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function info(allocatable: Record<string, number>, requested: Record<string, number>, pods: number): NodeInfo {
  return {
    node: { metadata: { name: 'n' } },
    pods: Array.from({ length: pods }, () => ({ metadata: {}, spec: { containers: [] } })),
    allocatable,
    requested,
  } as NodeInfo;
}

/** insufficientResources' pods/cpu/memory checks, written out. */
function mayFit(ni: NodeInfo, eligible: boolean, cpu: number, memory: number): boolean {
  if (!eligible) return false;
  if (ni.pods.length + 1 > (ni.allocatable.pods ?? 0)) return false;
  if (cpu > 0 && cpu > (ni.allocatable.cpu ?? 0) - (ni.requested.cpu ?? 0)) return false;
  if (memory > 0 && memory > (ni.allocatable.memory ?? 0) - (ni.requested.memory ?? 0)) return false;
  return true;
}

describe('RoomIndex', () => {
  it('returns every position a linear scan would not rule out, in order, on 500 random node sets', () => {
    const r = rng(18);
    for (let round = 0; round < 500; round++) {
      const n = 1 + Math.floor(r() * 40);
      const nodes = Array.from({ length: n }, () => {
        const alloc: Record<string, number> = {};
        if (r() < 0.9) alloc.cpu = Math.floor(r() * 8) * 500;
        if (r() < 0.9) alloc.memory = Math.floor(r() * 8) * 2 ** 30;
        if (r() < 0.9) alloc.pods = Math.floor(r() * 4);
        const req: Record<string, number> = {};
        if (r() < 0.7) req.cpu = Math.floor(r() * 8) * 250;
        if (r() < 0.7) req.memory = r() < 0.05 ? Number.NaN : Math.floor(r() * 8) * 2 ** 29;
        return { ni: info(alloc, req, Math.floor(r() * 3)), eligible: r() < 0.8 };
      });
      const index = new RoomIndex(n);
      nodes.forEach((x, i) => index.set(i, x.ni, x.eligible));
      // change some nodes afterwards, as placements and rollbacks do
      for (let k = 0; k < 3; k++) {
        const i = Math.floor(r() * n);
        nodes[i] = { ni: info({ cpu: 2000, memory: 2 ** 32, pods: 2 }, { cpu: Math.floor(r() * 4) * 500 }, 1), eligible: r() < 0.5 };
        index.set(i, nodes[i].ni, nodes[i].eligible);
      }
      const cpu = r() < 0.2 ? 0 : Math.floor(r() * 6) * 250;
      const memory = r() < 0.2 ? 0 : Math.floor(r() * 6) * 2 ** 29;
      const from = Math.floor(r() * (n + 1));
      const to = from + Math.floor(r() * (n + 1 - from));
      const expected = nodes
        .map((x, i) => (i >= from && i < to && mayFit(x.ni, x.eligible, cpu, memory) ? i : -1))
        .filter((i) => i >= 0);
      const got: number[] = [];
      for (let i = index.next(from, to, cpu, memory); i >= 0; i = index.next(i + 1, to, cpu, memory)) got.push(i);
      expect(got, `round ${round}`).toEqual(expected);
    }
  });

  it('never rules out a node whose free memory is not a number (the predicate would not reject it)', () => {
    const index = new RoomIndex(2);
    index.set(0, info({ cpu: 1000, memory: 2 ** 30, pods: 10 }, { cpu: 1000 }, 0), true);
    index.set(1, info({ cpu: 1000, memory: Number.NaN, pods: 10 }, {}, 0), true);
    expect(index.next(0, 2, 500, 2 ** 40)).toBe(1);
  });
});
