// The collection after a large load: it runs only above its threshold, and when it runs the garbage is gone.
import { describe, expect, it } from 'vitest';
import { SHED_THRESHOLD_BYTES, shedLoadGarbage } from '../../src/gather/shed-garbage.js';

describe('shedLoadGarbage', () => {
  it('does nothing while the heap in use is below the threshold (every cluster below some thousands of nodes)', () => {
    expect(process.memoryUsage().heapUsed).toBeLessThan(SHED_THRESHOLD_BYTES);
    expect(shedLoadGarbage()).toBe(false);
  });

  it('collects what is no longer referenced when the heap is above it', () => {
    // ~60 MB of objects no longer referenced once made, as a load drops its parsed pages
    const made = (() => Array.from({ length: 300_000 }, (_, i) => ({ name: `pod-${i}`, labels: { app: `a${i % 97}` }, n: i })).length)();
    expect(made).toBe(300_000);
    const before = process.memoryUsage().heapUsed;
    expect(shedLoadGarbage(0)).toBe(true);
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 20 * 1024 * 1024);
  });
});
