// --watch: re-run a command every interval, redraw in place at a terminal, and say what changed since the last round.
import { safeText } from '../report/sanitize.js';
import { type DeferredWrite, stdoutSink } from './common.js';
import type { Deps, RunResult } from './types.js';
import { EXIT } from './types.js';

/** A round: its text, or (machine formats) a write that streams its document; dropped once written. */
type Round = { text: string; exitCode: number; write?: DeferredWrite };

export interface WatchOptions<R extends Round> {
  intervalMs: number;
  deps: Deps;
  round(): Promise<R>;
  /** Human lines describing what changed from the previous round. */
  changes(prev: R, next: R): string[];
  /** -o json|yaml|name: stdout is a stream of reports alone; the round banner and changes go to stderr, nothing is cleared. */
  machine?: boolean;
}

const CLEAR_SCREEN = '\u001b[H\u001b[2J';

export async function watchLoop<R extends Round>(w: WatchOptions<R>): Promise<RunResult> {
  const { deps } = w;
  let stop = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const removeHandler = deps.onInterrupt?.(() => {
    stop = true;
    if (timer) clearTimeout(timer);
    wake?.();
  });
  let prev: R | undefined;
  let last: R | undefined;
  try {
    for (let n = 1; !stop; n++) {
      const next = await w.round();
      const changed = prev ? w.changes(prev, next) : [];
      const at = deps.realNow().toISOString().replace(/\.\d+Z$/, 'Z');
      const header = [
        `round ${n} at ${at} · every ${w.intervalMs / 1000}s · Ctrl-C to stop`,
        ...(prev ? [changed.length ? 'changed since the last round:' : 'no change since the last round'] : []),
        ...changed.map((c) => `  * ${safeText(c)}`),
        '',
      ].join('\n');
      // repeated at the bottom: on a small terminal the top of a long report scrolls away
      const footer = prev && changed.length ? `\n${changed.length} change(s) since the last round (listed at the top)\n` : '';
      if (w.machine) {
        // like kubectl get -w -o json: one document per round on stdout; what a person reads on stderr
        deps.stderr(`${header}${footer}`);
        if (next.write) {
          await next.write(stdoutSink(deps));
          // the write holds the round's whole analysis: not kept into the next round
          next.write = undefined;
        } else deps.stdout(next.text);
      } else deps.stdout(`${deps.stdoutIsTTY ? CLEAR_SCREEN : n > 1 ? '\n' : ''}${header}\n${next.text}${footer}`);
      prev = next;
      last = next;
      if (stop) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, w.intervalMs);
      });
    }
  } finally {
    removeHandler?.();
  }
  return { exitCode: last?.exitCode ?? EXIT.ok };
}
