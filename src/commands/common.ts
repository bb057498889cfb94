import { readFile } from 'node:fs/promises';
import { shedLoadGarbage } from '../gather/shed-garbage.js';
import type { CaConfig } from '../model/ca-config.js';
import { InputError, UsageError } from '../model/errors.js';
import { shellCommand } from '../model/shell.js';
import type { RawInputs } from '../model/snapshot.js';
import { type JsonReport, jsonChunks } from '../report/json.js';
import { safeJsonText, safeText } from '../report/sanitize.js';
import type { Analysis } from '../simulate/analysis.js';
import { dumpTime } from '../simulate/dump-time.js';
import { looksLikeManifests } from '../simulate/partial-input.js';
import { caVersionText } from '../simulate/ca-config.js';
import type { Deps, GlobalOptions } from './types.js';

/** Validates -o for a command that supports only some formats. */
export function requireOutput<T extends string>(output: string, allowed: readonly T[], command: string): T {
  if (!(allowed as readonly string[]).includes(output)) {
    throw new UsageError(`${command}: -o ${output} is not supported; use one of: ${allowed.join(', ')}`);
  }
  return output as T;
}

/** The machine formats a report command prints its JSON report in: -o json, or -o yaml as kubectl prints it. */
export const MACHINE_FORMATS = ['json', 'yaml'] as const;

/** Where a machine report goes, chunk by chunk: a promise asks the writer to wait (backpressure). */
export type ChunkSink = (chunk: string) => void | Promise<void>;

/** A --watch round's machine report, written to the sink (streamed) only once the round's banner is out. */
export type DeferredWrite = (sink: ChunkSink) => Promise<void>;

/**
 * stdout as a sink that honours backpressure: the CLI's stdout returns what process.stdout.write returned, and false
 * means "wait for drain" (a slow reader on a pipe); a test's capture returns nothing and never waits.
 */
export function stdoutSink(deps: Deps): ChunkSink {
  const write = deps.stdout as (s: string) => unknown;
  return (chunk) => {
    if (write(chunk) !== false || !process.stdout.writableNeedDrain) return;
    return new Promise<void>((resolve) => {
      const done = () => {
        process.stdout.off('drain', done);
        process.stdout.off('close', done);
        resolve();
      };
      process.stdout.once('drain', done);
      // a reader gone (EPIPE ends the process in cli.ts) must not leave the writer waiting forever
      process.stdout.once('close', done);
    });
  };
}

/**
 * -o json or -o yaml, written to `sink` as it is produced: no string ever holds the document (a why-pending report on a
 * large cluster is past what V8 can hold in one). Byte-equal to {@link renderMachineReport}.
 */
export async function writeMachineReport(output: string, report: JsonReport, sink: ChunkSink): Promise<void> {
  const chunks = output === 'yaml' ? await yamlChunks(report) : jsonChunks(report);
  for (const chunk of chunks) {
    const wait = sink(chunk);
    if (wait) await wait;
  }
}

/**
 * -o json or -o yaml: the same document, as one string (a --watch round; small reports). YAML is written from the JSON
 * (never from live objects) with every string quoted when it holds a character a terminal acts on: the yaml library
 * then writes it as a double-quoted escape.
 */
export async function renderMachineReport(output: string, report: JsonReport): Promise<string> {
  let out = '';
  await writeMachineReport(output, report, (chunk) => void (out += chunk));
  return out;
}

/**
 * The YAML of the document, one top-level key, and one element of a top-level list, at a time. Each piece is what the
 * yaml library writes for the whole document at that place: a list under a key is indented by two (indentSeq).
 */
async function yamlChunks(report: JsonReport): Promise<Iterable<string>> {
  const { Document, visit } = await import('yaml');
  const yamlOf = (value: unknown): string => {
    const doc = new Document(value, { aliasDuplicateObjects: false });
    // a string holding a C1 or bidi character is double-quoted, where safeJsonText's \uXXXX escape is valid YAML
    visit(doc, {
      Scalar(_key, node) {
        if (typeof node.value === 'string' && YAML_QUOTE.test(node.value)) node.type = 'QUOTE_DOUBLE';
      },
    });
    return safeJsonText(doc.toString({ lineWidth: 0 }));
  };
  // the JSON document's own values (toJSON applied, undefined dropped), as the YAML was always written from the JSON
  const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');
  const { schemaVersion, command, now, findings, skipped, ...rest } = report;
  const doc: Record<string, unknown> = { schemaVersion, command, now, findings, skipped, ...rest };
  function* pieces(): Generator<string> {
    for (const key of Object.keys(doc)) {
      const value = doc[key];
      if (value === undefined || typeof value === 'function') continue;
      const list = Array.isArray(value) || isIterable(value) ? (value as Iterable<unknown>) : undefined;
      if (!list) {
        yield yamlOf(asJson({ [key]: value }));
        continue;
      }
      let first = true;
      for (const item of list) {
        if (first) yield yamlOf(asJson({ [key]: [] })).replace(/ ?\[\]\n$/, '\n');
        first = false;
        yield yamlOf([asJson(item ?? null)]).replace(/^(?=.)/gm, '  ');
      }
      if (first) yield yamlOf(asJson({ [key]: [] }));
    }
  }
  return pieces();
}

function isIterable(v: unknown): v is Iterable<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

const YAML_QUOTE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** -o name, as kubectl prints it: TYPE/NAME, one a line. */
export function renderNames(type: string, names: readonly string[]): string {
  return names.map((n) => `${type}/${safeText(n)}\n`).join('');
}

/** What a report's clock is, for its header: the dump's own time, or the wall clock for a dump that holds none. */
const NOW_SOURCES = new WeakMap<Date, 'dump' | 'wall-clock-for-dump'>();

/**
 * Parses --now. Without it, a --from run is as at the dump's own time (the newest of a snapshot's record, CA's status
 * ConfigMap, the newest event, CA's last log line: `raw` once gathered), and a live run is as at the real clock.
 */
export function resolveNow(opts: GlobalOptions, deps: Deps, raw?: RawInputs): Date {
  if (opts.now === undefined) {
    if (!raw || opts.from.length === 0) return deps.realNow();
    const dump = dumpTime(raw);
    const d = dump ? new Date(dump.at.getTime()) : deps.realNow();
    NOW_SOURCES.set(d, dump ? 'dump' : 'wall-clock-for-dump');
    return d;
  }
  // RFC 3339: date, 'T', time, zone
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(opts.now)) {
    throw new UsageError(
      `--now ${JSON.stringify(opts.now)} is not an RFC 3339 time (e.g. 2026-11-21T10:00:00Z)`,
    );
  }
  const d = new Date(opts.now);
  if (Number.isNaN(d.getTime()))
    throw new UsageError(`--now ${JSON.stringify(opts.now)} is not a valid time`);
  return d;
}

/** Splits a --ca-args string into flags, honouring single and double quotes like a shell. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let any = false;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      any = true;
    } else if (/\s/.test(ch)) {
      if (cur !== '' || any) out.push(cur);
      cur = '';
      any = false;
    } else {
      cur += ch;
    }
  }
  if (quote) throw new UsageError(`--ca-args: unterminated ${quote} quote in ${JSON.stringify(s)}`);
  if (cur !== '' || any) out.push(cur);
  // CA's flags as on its command line: a word that is no flag is only the value of the flag before it (--expander random)
  out.forEach((word, i) => {
    const prev = out[i - 1];
    const isValue = prev !== undefined && prev.startsWith('-') && !prev.includes('=') && !word.includes('=');
    if (!word.startsWith('-') && !isValue) {
      throw new UsageError(
        `--ca-args: ${JSON.stringify(word)} is not a flag; write CA's flags as on its command line, e.g. --ca-args "--${word.replace(/^-*/, '')}"`,
      );
    }
  });
  return out;
}

export function parseRequestTimeout(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(s.trim());
  if (!m)
    throw new UsageError(`--request-timeout ${JSON.stringify(s)}: use a duration such as 30s, 2m or 500ms`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n : unit === 's' ? n * 1000 : n * 60_000;
}

/** "CA v1.32.1 (kube-system/cluster-autoscaler)" and ` · ${detail}`, or "no CA found (defaults of 1.32)". */
export function caHeaderText(ca: CaConfig, detail?: string): string {
  if (!ca.found) return `no CA found (defaults of 1.${ca.version.minor})`;
  const text = `CA ${caVersionText(ca)} (${ca.deployment?.namespace}/${ca.deployment?.name})`;
  return detail ? `${text} · ${detail}` : text;
}

/** The facts of a text report's first line: CA, the clock, and where the data came from. */
export function reportHeader(
  ca: CaConfig,
  now: Date,
  opts: GlobalOptions,
  caDetail?: string,
  provider?: { id: string; source: string; ownSource: boolean },
): { ca: string; now: string; source: string } {
  const from = opts.from.length ? `from ${opts.from.join(', ')}` : 'live';
  const clock = NOW_SOURCES.get(now);
  return {
    ca: caHeaderText(ca, caDetail),
    now:
      clock === 'dump'
        ? `${now.toISOString()} (the dump's time; --now overrides)`
        : clock === 'wall-clock-for-dump'
          ? `${now.toISOString()} (the wall clock: the dump holds no time; pass --now)`
          : now.toISOString(),
    // a provider whose groups are listed kinds (AWS) has the input itself as source; another says which of its inputs
    // it runs with (ConfigMap or file)
    source: provider?.ownSource ? `${from} · ${provider.id} groups from ${provider.source}` : from,
  };
}

/** The analysis' provider for reportHeader. */
export function headerProvider(a: Analysis): { id: string; source: string; ownSource: boolean } {
  return { id: a.provider.id, source: a.provider.describeSource(a.providerContext), ownSource: a.provider.groupKinds.length === 0 };
}

/** The note when no node group could be listed: AWS asks for the ASGs (listedNote), another provider names its input. */
export function noNodeGroupsNote(a: Analysis, listedNote: string): string {
  if (a.provider.groupKinds.length > 0) return listedNote;
  return `no node groups from the ${a.provider.id} provider (${a.provider.describeSource(a.providerContext)}): node groups cannot be evaluated`;
}

/**
 * Gathers once: offline files when --from is given, else the live cluster and AWS. Offline, Kubernetes objects keep only
 * the fields casdoctor reads ('why-pending': fewer of pods already on a node) unless `wanted` is 'all' (snapshot
 * re-exports them).
 */
export async function gatherInputs(
  opts: GlobalOptions,
  deps: Deps,
  wanted: 'read' | 'why-pending' | 'all' = 'read',
): Promise<RawInputs> {
  const fields = deps.loadAllFields ? 'all' : wanted;
  const progress = await startProgress(deps, opts.output);
  try {
    if (opts.from.length > 0) {
      const { loadOffline } = await import('../gather/offline.js');
      // --now dates CA's log lines (klog has no year); without it, a log file's own time does
      const now = opts.now !== undefined ? resolveNow(opts, deps) : undefined;
      const inputs = await loadOffline(opts.from, { fields, ...(now ? { now } : {}), onFile: (f) => progress.update(`reading ${f}`) });
      shedLoadGarbage();
      // workload manifests given where a dump belongs (preflight reads a cluster's NodePools from --from beside its -f)
      if (!('filename' in opts) && looksLikeManifests(inputs)) {
        throw new InputError(
          `${opts.from.join(', ')}: these look like manifests (no Node, and no object has the uid, resourceVersion or status the API server adds): did you mean ${shellCommand(['casdoctor', 'preflight', ...opts.from.flatMap((f) => ['-f', f])])}? A cluster dump is \`kubectl get pods,nodes -A -o json\` output`,
        );
      }
      return inputs;
    }
    const { gatherLive } = await import('../gather/live.js');
    const raw = await gatherLive({
      kubeconfig: opts.kubeconfig,
      context: opts.context,
      profile: opts.profile,
      region: opts.region,
      requestTimeoutMs: parseRequestTimeout(opts.requestTimeout),
      fields,
      ...(opts.caLogSince !== undefined ? { caLogSince: opts.caLogSince } : {}),
      onProgress: (m: string) => progress.update(m),
      ...(deps.liveOverrides ?? {}),
    } as never);
    // CA's own log, read live as bounded text, is parsed here into the same bounded summary a log file gives offline
    if (raw.caLogTexts?.length) {
      const { parseCaLogFromPod } = await import('../gather/ca-log-file.js');
      const now = deps.realNow();
      raw.caLogs = raw.caLogTexts.map((t) => parseCaLogFromPod(t, now));
    }
    shedLoadGarbage();
    return raw;
  } finally {
    progress.stop();
  }
}

interface Progress {
  update(msg: string): void;
  stop(): void;
}

/** Narrower than this, a spinner line cannot be drawn (ora looped forever redrawing at a pty of 0 columns). */
export const SPINNER_MIN_COLUMNS = 20;

/**
 * Whether to show a spinner: only for a human format, only when stderr is a terminal that reports a sane width.
 * A machine format (-o json, sarif ...) is read by a program, so nothing is drawn beside it at all.
 */
export function wantsSpinner(stderr: { isTTY?: boolean; columns?: number }, output: string): boolean {
  return Boolean(stderr.isTTY) && (stderr.columns ?? 0) >= SPINNER_MIN_COLUMNS && output === 'table';
}

/** A spinner on stderr, only at a terminal of a sane width and for a human format; nothing otherwise. */
async function startProgress(deps: Deps, output: string): Promise<Progress> {
  if (!deps.stderrIsTTY || !wantsSpinner(process.stderr, output)) return { update() {}, stop() {} };
  const { default: ora } = await import('ora');
  const spinner = ora({ text: 'gathering', stream: process.stderr }).start();
  return {
    // progress names files and API calls: foreign text (a dump's file names), one short line
    update: (msg) => {
      spinner.text = safeText(msg, { max: 200 });
    },
    stop: () => spinner.stop(),
  };
}

export interface StaticInstanceTypeData {
  staticListLastUpdateTime: string;
  instanceTypes: Record<
    string,
    { vcpu: number; memoryMiB: number; gpu: number; architecture: string; maxPods?: number }
  >;
}

let instanceTypeData: StaticInstanceTypeData | undefined;

/** CA's static instance-type table, bundled as data/instance-types.json. */
export async function loadInstanceTypeData(): Promise<StaticInstanceTypeData> {
  if (!instanceTypeData) {
    const url = new URL('../../data/instance-types.json', import.meta.url);
    try {
      instanceTypeData = JSON.parse(await readFile(url, 'utf8')) as StaticInstanceTypeData;
    } catch (e) {
      throw new InputError(
        `cannot read the bundled instance-type table ${url.pathname}: ${(e as Error).message}`,
      );
    }
  }
  return instanceTypeData;
}
