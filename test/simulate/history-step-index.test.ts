// The index the window's stories use instead of scanning every step: time ranges by binary search (stable among equal
// times), positions merged in order, and the node stories of many nodes the same as one by one.
import { describe, expect, it } from 'vitest';
import type { HistoryStep } from '../../src/model/history.js';
import { indexSteps, lastBetween, lowerBound, mergePositions, upperBound } from '../../src/simulate/history/step-index.js';

const step = (t: number, extra: Partial<HistoryStep> = {}): HistoryStep => ({ t, kind: 'disrupting', actor: 'karpenter', summary: `at ${t}`, source: { kind: 'karpenter-log', where: `k.log:${t}` }, ...extra });

describe('step index', () => {
  const list = [step(10), step(20, { summary: 'first at 20' }), step(20, { summary: 'second at 20' }), step(30), step(45.5)];

  it('bounds by time, the upper one after every equal time and the lower one before', () => {
    expect(upperBound(list, 20)).toBe(3);
    expect(lowerBound(list, 20)).toBe(1);
    expect(upperBound(list, 5)).toBe(0);
    expect(lowerBound(list, 46)).toBe(5);
    expect(lowerBound(list, 45.5)).toBe(4);
  });

  it('finds the last step at or before a time and after another, the later of equal times, with a filter', () => {
    expect(lastBetween(list, 0, 25)?.summary).toBe('second at 20');
    expect(lastBetween(list, 20, 25)).toBeUndefined();
    expect(lastBetween(list, 19, 25, (s) => s.summary === 'first at 20')?.summary).toBe('first at 20');
    expect(lastBetween(undefined, 0, 100)).toBeUndefined();
    expect(lastBetween(list, 30, 100)?.t).toBe(45.5);
  });

  it('merges positions in order without repeats', () => {
    expect(mergePositions([1, 5, 9], undefined, [2, 5], [])).toEqual([1, 2, 5, 9]);
    expect(mergePositions(undefined)).toEqual([]);
    const one = [3, 4];
    const merged = mergePositions(one);
    merged.push(7);
    expect(one).toEqual([3, 4]);
  });

  it('indexes by node, instance and NodeClaim, leaving out the pod steps that name a node, once per array', () => {
    const steps = [
      step(1, { node: 'n1', instanceId: 'i-1' }),
      step(2, { kind: 'pod-scheduled', node: 'n1', pod: 'a/p' }),
      step(3, { nodeClaim: 'c1', node: 'n1' }),
      step(4, { kind: 'evicted', pod: 'a/p' }),
      step(5, { kind: 'scale-up', reason: 'expander', group: 'g' }),
      step(6, { kind: 'scale-up', group: 'g' }),
    ];
    const ix = indexSteps(steps);
    expect(ix.byNode.get('n1')).toEqual([0, 2]);
    expect(ix.byInstance.get('i-1')).toEqual([0]);
    expect(ix.byClaim.get('c1')).toEqual([2]);
    expect(ix.evictedByPod.get('a/p')).toEqual([3]);
    expect(ix.raisesByGroup.get('g')?.map((s) => s.t)).toEqual([6]);
    expect(indexSteps(steps)).toBe(ix);
  });
});
