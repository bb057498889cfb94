// After a large load the heap holds the snapshot and what loading it left behind (parsed pages, the parse workers'
// transport objects). V8 sets its next full collection from the heap it saw at the last one, made while loading, so
// at 15,000 nodes / 300k pods that garbage stayed through the whole analysis: scale-down-blockers peaked at 1.52 GB
// (bench/shapes-notes.md, fifth pass). One full collection after loading: 1.38 GB, for about 0.5 s.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Below this much heap in use after loading, a collection saves little and costs more than it is worth. */
export const SHED_THRESHOLD_BYTES = 512 * 1024 * 1024;

/** One full garbage collection when the heap in use is at least `thresholdBytes`; true when it ran. */
export function shedLoadGarbage(thresholdBytes = SHED_THRESHOLD_BYTES): boolean {
  if (process.memoryUsage().heapUsed < thresholdBytes) return false;
  let gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') {
    // V8 installs gc() in contexts created after the flag is set
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as (() => void) | undefined;
  }
  if (typeof gc !== 'function') return false;
  gc();
  return true;
}
