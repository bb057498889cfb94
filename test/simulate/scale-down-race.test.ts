// Both sides of a NoPlaceToMovePods race: CA's planner persists each removable node's moves and simulates candidates
// in an order defined only in part (core/scaledown/planner/planner.go categorizeNodes,
// processors/scaledowncandidates: empty nodes first, then the previous loop's unneeded nodes).
import { describe, expect, it } from 'vitest';
import { noPlaceRace } from '../../src/simulate/scale-down-race.js';
import { analyzeSd, nodeName, sdWorld } from '../builders/scale-down-world.js';

describe('NoPlaceToMovePods races: CA may decide either, on both nodes', () => {
  it('two half-empty nodes whose pods can only go to each other: whichever CA simulates first is removable', () => {
    const w = sdWorld({ nodes: 3 });
    w.app('web', 'cart', nodeName(1), { cpu: '800m', memory: '512Mi' });
    w.app('web', 'search', nodeName(2), { cpu: '800m', memory: '512Mi' });
    // node 3 is busy (above the 50% threshold, so a destination only) with room for one 800m pod, not two
    w.app('web', 'db', nodeName(3), { cpu: '3000m', memory: '512Mi' });
    const r = analyzeSd(w.raw);
    const first = r.node(nodeName(1)).report;
    const second = r.node(nodeName(2)).report;
    expect(first.removable).toBe(true);
    expect(second.caReason).toBe('NoPlaceToMovePods');
    expect(second.caMayDecideEither).toEqual([
      `its pods fit on the cluster as it was before this loop (on ${nodeName(1)}), but ${nodeName(1)}, simulated earlier in this loop, took that room. CA's order varies, so in a loop that simulates this node first it can be removable and ${nodeName(1)} may get NoPlaceToMovePods instead; once CA has marked one unneeded it simulates it first in later loops (processors/scaledowncandidates/previouscandidates), so the first choice tends to stick`,
    ]);
    expect(first.caMayDecideEither).toEqual([
      `its removal takes room ${nodeName(2)}'s pods need (on ${nodeName(1)}); CA's order varies, so in a loop that simulates ${nodeName(2)} first, that node can be removable and this one may get NoPlaceToMovePods instead (core/scaledown/planner/planner.go categorizeNodes keeps each removable node's moves)`,
    ]);
  });

  it('says nothing when the pods fit nowhere even before the loop', () => {
    const w = sdWorld({ nodes: 3 });
    w.app('web', 'cart', nodeName(1), { cpu: '800m', memory: '512Mi' });
    // pinned to its node: it fits no other node whatever CA simulated before
    const pinned = w.app('web', 'pinned', nodeName(2), { cpu: '500m', memory: '512Mi' });
    pinned.spec.nodeSelector = { 'kubernetes.io/hostname': nodeName(2) };
    w.app('web', 'db', nodeName(3), { cpu: '3000m', memory: '512Mi' });
    const r = analyzeSd(w.raw);
    expect(r.node(nodeName(2)).report.caReason).toBe('NoPlaceToMovePods');
    expect(r.node(nodeName(2)).report.caMayDecideEither).toBeUndefined();
    expect(r.node(nodeName(1)).report.caMayDecideEither).toBeUndefined();
  });

  it('an empty node that left the destinations first is no race: CA simulates empty nodes first (EmptySorting)', () => {
    expect(
      noPlaceRace('n2', [{ name: 'n1', movedTo: [], empty: true }], () => {
        throw new Error('not asked: no node is on the other side');
      }),
    ).toBeUndefined();
    // with a non-empty earlier node too, the empty one stays gone when the pods are placed afresh
    let gone: string[] = [];
    const race = noPlaceRace('n3', [{ name: 'n1', movedTo: [], empty: true }, { name: 'n2', movedTo: ['n4'], empty: false }], (g) => {
      gone = [...g];
      return ['n4'];
    });
    expect(gone).toEqual(['n1']);
    expect([...(race?.others.keys() ?? [])]).toEqual(['n2']);
  });

  it('is no race when the earlier nodes did not touch the room the pods would take', () => {
    expect(noPlaceRace('n3', [{ name: 'n2', movedTo: ['n5'], empty: false }], () => ['n4'])).toBeUndefined();
    expect(noPlaceRace('n3', [{ name: 'n2', movedTo: ['n5'], empty: false }], () => undefined)).toBeUndefined();
  });
});
