import { describe, expect, it } from 'vitest';
import { oneUnitPerComparison, oneUnitPerResourceLine } from '../../src/model/quantity.js';

describe('oneUnitPerComparison', () => {
  it.each([
    ['memory 200Gi > 14958064Ki free', 'memory 200Gi > 14.2Gi free'],
    ['memory 8Gi > 8064Mi free', 'memory 8Gi > 7.8Gi free'],
    // the request rounds up and the free amount down: a comparison never reads false ("8Gi > 8.0Gi")
    ['memory 8191Mi > 8190Mi free', 'memory 8191Mi > 8190Mi free'],
    ['memory 8193Mi > 8Gi free', 'memory 8.1Gi > 8Gi free'],
    ['cpu 1500m > 500m free', 'cpu 1500m > 500m free'],
    ['nvidia.com/gpu 1 > 0 free', 'nvidia.com/gpu 1 > 0 free'],
    ['memory 7680Mi > 7390Mi free', 'memory 7680Mi > 7390Mi free'],
  ])('%s reads %s', (input, expected) => {
    expect(oneUnitPerComparison(input)).toBe(expected);
  });
});

describe('oneUnitPerResourceLine', () => {
  it.each([
    [
      'the node values of a memory line in the request\'s unit, allocatable and free rounded down, what is requested up',
      'requests memory 200Gi, node allocatable 15146480Ki, already requested 184Mi, free 14958064Ki',
      'requests memory 200Gi, node allocatable 14.4Gi, already requested 0.2Gi, free 14.2Gi',
    ],
    [
      'a line already in one unit is left as it is',
      'requests memory 2Gi, node allocatable 16Gi, already requested 1Gi, free 15Gi',
      'requests memory 2Gi, node allocatable 16Gi, already requested 1Gi, free 15Gi',
    ],
    [
      'a small request against larger node amounts is left as it is (its own unit reads best)',
      'requests memory 512Mi, node allocatable 16Gi, already requested 15.8Gi, free 200Mi',
      'requests memory 512Mi, node allocatable 16Gi, already requested 15.8Gi, free 200Mi',
    ],
    [
      'cpu and GPU lines are never touched',
      'requests cpu 8, node allocatable 3920m, already requested 205m, free 3715m; requests nvidia.com/gpu 1, node allocatable 0, already requested 0, free 0',
      'requests cpu 8, node allocatable 3920m, already requested 205m, free 3715m; requests nvidia.com/gpu 1, node allocatable 0, already requested 0, free 0',
    ],
    [
      'an overcommitted node keeps its negative free amount, rounded away from zero',
      'requests ephemeral-storage 20Gi, node allocatable 10485760Ki, already requested 12Gi, free -2097152Ki',
      'requests ephemeral-storage 20Gi, node allocatable 10Gi, already requested 12Gi, free -2Gi',
    ],
  ])('%s', (_name, input, expected) => {
    expect(oneUnitPerResourceLine(input)).toBe(expected);
  });
});
