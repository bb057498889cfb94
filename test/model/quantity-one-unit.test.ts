import { describe, expect, it } from 'vitest';
import { oneUnitPerComparison } from '../../src/model/quantity.js';

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
