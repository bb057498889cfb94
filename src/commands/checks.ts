import { readFile } from 'node:fs/promises';
import { type Autoscaler, type Check, type CheckMeta, checkAutoscaler, type CommandName, DOCS_BASE } from '../checks/define-check.js';
import { CHECKS, findCheck } from '../checks/index.js';
import type { Severity } from '../model/findings.js';
import type { ProviderId } from '../model/node-group.js';
import { UsageError } from '../model/errors.js';
import { fitTable } from '../report/table.js';
import { requireOutput } from './common.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

const SEVERITY_ORDER: readonly Severity[] = ['error', 'warning', 'info'];

/** A check's documentation page, as shipped in docs/checks/ (the package carries docs/). */
async function readDoc(id: string): Promise<string | undefined> {
  return readFile(new URL(`../../docs/checks/${id}.md`, import.meta.url), 'utf8').catch(() => undefined);
}

/**
 * Every severity a check can emit, most severe first: its page's first line declares them ("severity `warning (error
 * when a Pending pod is affected)`"); the default severity alone when the page names none.
 */
export function severityRange(meta: CheckMeta, doc: string | undefined): Severity[] {
  const line = /— severity (.*?), command\(s\):/.exec(doc ?? '')?.[1] ?? '';
  const named = new Set<Severity>([meta.severity, ...SEVERITY_ORDER.filter((s) => new RegExp(`\\b${s}\\b`).test(line))]);
  return SEVERITY_ORDER.filter((s) => named.has(s));
}

export interface CheckFilter {
  /** `casdoctor checks WORD`: an autoscaler, a CA cloud provider, a command, or part of a check id. */
  word?: string;
  provider?: string;
  command?: string;
}

const AUTOSCALER_WORDS: Record<string, Autoscaler> = {
  karpenter: 'karpenter',
  ca: 'cluster-autoscaler',
  'cluster-autoscaler': 'cluster-autoscaler',
};
const COMMANDS: readonly CommandName[] = ['why-pending', 'asg-audit', 'scale-down-blockers', 'preflight'];
const PROVIDERS: readonly ProviderId[] = ['aws', 'externalgrpc'];

/** Whether a check serves an autoscaler or provider: Karpenter is an autoscaler of its own; a CA check without a provider serves every one. */
function servesProvider(meta: CheckMeta, provider: string): boolean {
  const auto = AUTOSCALER_WORDS[provider];
  if (auto) return checkAutoscaler(meta) === auto;
  return checkAutoscaler(meta) === 'cluster-autoscaler' && (!meta.providers || meta.providers.includes(provider as ProviderId));
}

export function filterChecks(checks: readonly Check[], f: CheckFilter): Check[] {
  const known = [...Object.keys(AUTOSCALER_WORDS), ...PROVIDERS];
  if (f.provider !== undefined && !known.includes(f.provider))
    throw new UsageError(`--provider ${JSON.stringify(f.provider)}: use one of ${known.join(', ')}`);
  if (f.command !== undefined && !COMMANDS.includes(f.command as CommandName))
    throw new UsageError(`--command ${JSON.stringify(f.command)}: use one of ${COMMANDS.join(', ')}`);
  const out = checks.filter((c) => {
    if (f.provider !== undefined && !servesProvider(c.meta, f.provider)) return false;
    if (f.command !== undefined && !c.meta.commands.includes(f.command as CommandName)) return false;
    if (f.word === undefined) return true;
    if (known.includes(f.word)) return servesProvider(c.meta, f.word);
    if (COMMANDS.includes(f.word as CommandName)) return c.meta.commands.includes(f.word as CommandName);
    return c.meta.id.includes(f.word);
  });
  if (out.length === 0 && f.word !== undefined)
    throw new UsageError(
      `no check matches ${JSON.stringify(f.word)}: give an autoscaler (karpenter, ca), a provider (${PROVIDERS.join(', ')}), a command (${COMMANDS.join(', ')}) or part of a check id`,
    );
  return out;
}

export async function runListChecks(o: GlobalOptions, deps: Deps, filter: CheckFilter = {}): Promise<RunResult> {
  const output = requireOutput(o.output, ['table', 'json'], 'checks');
  const checks = filterChecks(CHECKS, filter);
  const ranges = new Map(await Promise.all(checks.map(async (c) => [c.meta.id, severityRange(c.meta, await readDoc(c.meta.id))] as const)));
  if (output === 'json') {
    deps.stdout(
      `${JSON.stringify(
        checks.map((c) => ({
          id: c.meta.id,
          severity: c.meta.severity,
          severities: ranges.get(c.meta.id),
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
  const rows = checks.map((c) => [
    c.meta.id,
    ranges.get(c.meta.id)!.join('/'),
    c.meta.commands.join(','),
    `${checkAutoscaler(c.meta) === 'karpenter' ? '[Karpenter] ' : ''}${c.meta.summary}`,
  ]);
  const head = ['CHECK', 'SEVERITY', 'COMMANDS', 'SUMMARY'];
  if (deps.stdoutIsTTY && deps.terminalWidth) {
    // at a terminal the summary wraps beside the other columns, or goes under each row when there is no room
    deps.stdout(`${fitTable(head, rows.map((r) => [r[0], r[1].replaceAll('/', ' / '), r[2].replaceAll(',', ', '), r[3]]), deps.terminalWidth)}\n`);
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

const compact = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const spaced = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

/**
 * The checks that explain a name casdoctor's own output prints (CA's reason `NotEnoughPdb`, the scheduler's
 * `Insufficient cpu`, Karpenter's `NodeClassNotReady`), best first, from what each check declares: its id and its page.
 * A page that names the term on its own (a code span) outranks one that mentions it inside a quoted event or log line.
 */
export function checksNaming(term: string, docs: ReadonlyMap<string, string>): string[] {
  const t = spaced(term.trim());
  if (compact(t).length < 4) return [];
  // CA's and Karpenter's reason names are CamelCase (NodeClassNotFound): their words count as the spaced ones do
  const words = term
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3);
  const scored: Array<{ id: string; score: number }> = [];
  for (const [id, doc] of docs) {
    // the page names it as a term of its own (`NotEnoughPdb`), or mentions it inside a longer line (an event, an example)
    const text = spaced(doc);
    const named = text.split(`\`${t}\``).length - 1;
    let score = named * 10 + (text.split(t).length - 1 - named);
    if (compact(id).includes(compact(t))) score += 20;
    else if (words.length) {
      const hits = words.filter((w) => compact(id).includes(w)).length;
      if (hits * 2 >= words.length) score += Math.round((10 * hits) / words.length);
    }
    if (score > 0) scored.push({ id, score });
  }
  return scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).map((e) => e.id);
}

export async function runExplain(id: string, o: GlobalOptions, deps: Deps): Promise<RunResult> {
  let check = findCheck(id);
  // a kebab-case word is a check id, mistyped or not: "did you mean" rather than a search of the pages
  if (!check && !/^[a-z0-9]+(-[a-z0-9]+)+$/.test(id)) {
    // not an id: a reason name casdoctor prints (CA's, the scheduler's, Karpenter's) leads to the check that explains it
    const docs = new Map<string, string>();
    for (const c of CHECKS) {
      const doc = await readDoc(c.meta.id);
      if (doc !== undefined) docs.set(c.meta.id, doc);
    }
    const naming = checksNaming(id, docs);
    if (naming.length === 0) {
      const near = suggestChecks(id);
      throw new UsageError(
        `no check "${id}"${near.length ? `; did you mean ${near.join(', ')}?` : ''} (casdoctor checks lists them)`,
      );
    }
    check = findCheck(naming[0])!;
    const others = naming.slice(1, 4);
    deps.stderr(
      `${JSON.stringify(id)} is explained by ${naming[0]}${others.length ? `; also named in ${others.join(', ')}${naming.length > 4 ? ', …' : ''}` : ''}\n`,
    );
  }
  if (!check) {
    const near = suggestChecks(id);
    throw new UsageError(`no check "${id}"${near.length ? `; did you mean ${near.join(', ')}?` : ''} (casdoctor checks lists them)`);
  }
  const doc = (await readDoc(check.meta.id)) ?? '';
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
