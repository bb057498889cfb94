import { readFile } from 'node:fs/promises';
import { checkAutoscaler, DOCS_BASE } from '../checks/define-check.js';
import { CHECKS, findCheck } from '../checks/index.js';
import { UsageError } from '../model/errors.js';
import { fitTable } from '../report/table.js';
import { requireOutput } from './common.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export async function runListChecks(o: GlobalOptions, deps: Deps): Promise<RunResult> {
  const output = requireOutput(o.output, ['table', 'json'], 'checks');
  if (output === 'json') {
    deps.stdout(
      `${JSON.stringify(
        CHECKS.map((c) => ({
          id: c.meta.id,
          severity: c.meta.severity,
          autoscaler: checkAutoscaler(c.meta),
          commands: c.meta.commands,
          title: c.meta.title,
          summary: c.meta.summary,
          docsUrl: `${DOCS_BASE}/${c.meta.id}.md`,
        })),
        null,
        2,
      )}\n`,
    );
    return { exitCode: EXIT.ok };
  }
  // which autoscaler a check is about: Karpenter's are marked before their summary (CA's, the default, are not)
  const rows = CHECKS.map((c) => [
    c.meta.id,
    c.meta.severity,
    c.meta.commands.join(','),
    `${checkAutoscaler(c.meta) === 'karpenter' ? '[Karpenter] ' : ''}${c.meta.summary}`,
  ]);
  const head = ['CHECK', 'SEVERITY', 'COMMANDS', 'SUMMARY'];
  if (deps.stdoutIsTTY && deps.terminalWidth) {
    // at a terminal the summary wraps beside the other columns, or goes under each row when there is no room
    deps.stdout(`${fitTable(head, rows.map((r) => [r[0], r[1], r[2].replaceAll(',', ', '), r[3]]), deps.terminalWidth)}\n`);
    return { exitCode: EXIT.ok };
  }
  const widths = [0, 1, 2].map((i) => Math.max(head[i].length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) {
    deps.stdout(
      `${r
        .slice(0, 3)
        .map((v, i) => v.padEnd(widths[i]))
        .join('  ')}  ${r[3]}\n`,
    );
  }
  return { exitCode: EXIT.ok };
}

/** Edit distance, for "did you mean" on a mistyped check id. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** Ids that contain the input, then the closest by edit distance. */
export function suggestChecks(id: string, max = 3): string[] {
  const ids = CHECKS.map((c) => c.meta.id);
  const containing = ids.filter((x) => id.length >= 3 && x.includes(id));
  const close = ids
    .filter((x) => !containing.includes(x))
    .map((x) => ({ x, d: distance(id, x) }))
    .filter((e) => e.d <= Math.max(2, Math.floor(e.x.length / 4)))
    .sort((a, b) => a.d - b.d || (a.x < b.x ? -1 : 1))
    .map((e) => e.x);
  return [...containing, ...close].slice(0, max);
}

export async function runExplain(id: string, o: GlobalOptions, deps: Deps): Promise<RunResult> {
  const check = findCheck(id);
  if (!check) {
    const near = suggestChecks(id);
    throw new UsageError(
      `no check "${id}"${near.length ? `; did you mean ${near.join(', ')}?` : ''} (casdoctor checks lists them)`,
    );
  }
  const doc = await readFile(new URL(`../../docs/checks/${id}.md`, import.meta.url), 'utf8');
  if (deps.stdoutIsTTY && deps.terminalWidth) {
    // at a terminal: rendered and wrapped to its width; in a pipe the Markdown itself (explain x > x.md)
    const { renderMarkdownForTerminal } = await import('../report/explain-text.js');
    const { terminalStyle } = await import('../report/style.js');
    deps.stdout(renderMarkdownForTerminal(doc, deps.terminalWidth, await terminalStyle(o.color)));
    return { exitCode: EXIT.ok };
  }
  deps.stdout(doc.endsWith('\n') ? doc : `${doc}\n`);
  return { exitCode: EXIT.ok };
}
