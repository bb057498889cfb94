// --watch: re-run a command every interval, redraw in place at a terminal, and say what changed since the last round.
import type { ScaleDownNodeReport } from '../model/scale-down.js';
import type { PodReport, PodVerdict } from '../model/why-pending.js';
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
  /**
   * At a terminal, what each round redraws instead of the whole report: counts and one line per subject, under what
   * changed, so a round fits the screen (the full report is one run without --watch). Off a terminal, the report.
   */
  compact?(r: R): string;
}

const POD_MARK: Record<PodVerdict, string> = {
  'no-scale-up': '✖',
  ignored: '✖',
  'ca-not-running': '✖',
  'scale-up': '↑',
  'not-evaluated': '?',
  'fits-existing-node': '✔',
  'not-pending': '✔',
};

/** why-pending's compact round: the count of pods by verdict, then one line a pod (its mark, name and summary). */
export function compactPods(reports: readonly PodReport[]): string {
  const counts = new Map<string, number>();
  for (const r of reports) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
  const lines = [`${reports.length} pod(s): ${[...counts].map(([v, n]) => `${n} ${v}`).join(', ') || 'none Pending'}`];
  for (const r of reports) lines.push(`  ${POD_MARK[r.verdict]} ${safeText(`${r.namespace}/${r.name}`)}  ${safeText(r.summary)}`);
  return `${lines.join('\n')}\n`;
}

/** scale-down-blockers' compact round: how many nodes CA could remove, then one line a node (verdict, CA's reason). */
export function compactNodes(nodes: readonly ScaleDownNodeReport[]): string {
  const removable = nodes.filter((n) => n.removable).length;
  const lines = [`${removable} of ${nodes.length} node(s) could be removed now`];
  for (const n of nodes) lines.push(`  ${n.verdict.padEnd(9)} ${safeText(n.name)}  ${safeText(n.caReason ?? n.summary)}`);
  return `${lines.join('\n')}\n`;
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
      } else if (deps.stdoutIsTTY && w.compact) {
        // redrawn in place: what changed, then the counts and a line per subject; the full report scrolls no banner away
        deps.stdout(`${CLEAR_SCREEN}${header}\n${w.compact(next)}\n(compact view: the full report is the same command without --watch)\n${footer}`);
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
