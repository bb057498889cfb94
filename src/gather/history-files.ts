// The history's file and text sources: Karpenter's log (recognised in --from by offline.ts, parsed here), and the CA
// log re-read line by line for its timed decisions (the summary offline.ts keeps is per key, not per time). Streamed,
// plain or gzip, one bounded line at a time; the parsing itself is pure (src/simulate).
import { constants, createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { CaLogText } from '../model/ca-record.js';
import { InputError } from '../model/errors.js';
import type { KarpenterLogSummary } from '../model/karpenter-log.js';
import type { RawInputs } from '../model/snapshot.js';
import { createCaLogStepper, type CaLogSteps } from '../simulate/history/source-logs.js';
import { createKarpenterLogParser } from '../simulate/providers/karpenter/log/index.js';
import { fileError } from './input-files.js';

/** A line longer than this is cut (a log line is a few KB; a binary blob without "\n" must not grow without bound). */
const MAX_LINE_BYTES = 1 << 20;

async function probe(path: string): Promise<{ mtime: Date; gzip: boolean }> {
  try {
    // O_NONBLOCK: opening a FIFO with no writer would block forever (input-files.ts readRegularFile)
    const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new InputError(`${path}: not a regular file`, path);
      const head = Buffer.alloc(2);
      const { bytesRead } = await fh.read(head, 0, 2, 0);
      return { mtime: st.mtime, gzip: bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b };
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw e instanceof InputError ? e : fileError('--from', path, e);
  }
}

/** Streams a file's lines (plain or gzip by magic bytes) into `push`; returns the file's mtime. */
export async function streamFileLines(path: string, push: (line: string) => void, chunkBytes = 1 << 20): Promise<Date> {
  const { mtime, gzip } = await probe(path);
  let rest: Buffer | undefined;
  const feed = (buf: Buffer) => {
    let start = 0;
    if (rest) {
      const nl = buf.indexOf(10);
      if (nl < 0) {
        rest = Buffer.concat([rest, buf]);
        if (rest.length > MAX_LINE_BYTES) {
          push(rest.toString('utf8', 0, MAX_LINE_BYTES));
          rest = undefined;
        }
        return;
      }
      push(Buffer.concat([rest, buf.subarray(0, nl)]).toString('utf8'));
      rest = undefined;
      start = nl + 1;
    }
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      push(buf.toString('utf8', start, Math.min(nl, start + MAX_LINE_BYTES)));
      start = nl + 1;
    }
    if (start < buf.length) rest = Buffer.from(buf.subarray(start));
  };
  try {
    const raw = createReadStream(path, { highWaterMark: chunkBytes });
    const stream = gzip ? raw.pipe(createGunzip()) : raw;
    for await (const chunk of stream as AsyncIterable<Buffer>) feed(chunk);
  } catch (e) {
    // a gzip'd log cut short (a rotated file still being written) keeps what was read
    if (!(gzip && String((e as NodeJS.ErrnoException).code ?? '').startsWith('Z_'))) throw e instanceof InputError ? e : new InputError(`${path}: ${e instanceof Error ? e.message : String(e)}`, path);
  }
  if (rest) push(rest.toString('utf8'));
  return mtime;
}

/** Karpenter's log file → its bounded summary. */
export async function readKarpenterLogFile(path: string): Promise<KarpenterLogSummary> {
  const parser = createKarpenterLogParser({ source: { kind: 'file', path } });
  await streamFileLines(path, (l) => parser.push(l));
  return parser.finish();
}

/** Karpenter's log fetched live (GET pods/log) → its bounded summary. */
export function parseKarpenterLogText(text: string, source: KarpenterLogSummary['source']): KarpenterLogSummary {
  const parser = createKarpenterLogParser({ source });
  forEachLine(text, (l) => parser.push(l));
  return parser.finish();
}

function forEachLine(text: string, push: (l: string) => void): void {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      if (start < text.length) push(text.slice(start));
      return;
    }
    push(text.slice(start, nl));
    start = nl + 1;
  }
}

export interface CaLogStepsOf extends CaLogSteps {
  where: string;
}

/**
 * CA's log as timed steps: offline, each log file offline.ts recognised (its summary's source), read again line by line;
 * live, the text gathered from the pod. `now` dates klog's year-less lines (--now, else the file's mtime).
 */
export async function readCaLogSteps(raw: RawInputs, now: Date | undefined): Promise<CaLogStepsOf[]> {
  const out: CaLogStepsOf[] = [];
  for (const s of raw.caLogs ?? []) {
    if (s.source.kind !== 'file') continue;
    const path = s.source.path;
    const { mtime } = await probe(path);
    const stepper = createCaLogStepper({ where: path, now: (now ?? mtime).getTime() });
    await streamFileLines(path, (l) => stepper.push(l));
    out.push({ ...stepper.finish(), where: path });
  }
  // live text only: offline.ts keeps a file's text too (for `snapshot`), with no pod, and the file was read above
  for (const t of raw.caLogTexts ?? []) if (t.pod !== '') out.push(caLogTextSteps(t, now ?? new Date()));
  return out;
}

function caLogTextSteps(t: CaLogText, now: Date): CaLogStepsOf {
  const where = `pod ${t.namespace}/${t.pod}${t.previous ? ' (previous)' : ''}`;
  const stepper = createCaLogStepper({ where, now: now.getTime() });
  forEachLine(t.text, (l) => stepper.push(l));
  return { ...stepper.finish(), where };
}

// ------------------------------------------------------------------------------------------ `casdoctor record`'s journal

/** The file that marks a directory as `casdoctor record`'s journal. */
export const JOURNAL_MARKER = 'casdoctor-record.json';
const JOURNAL_ROTATED = /^journal-\d{8}\.jsonl$/;

/** Is this path a journal directory `casdoctor record` wrote? */
export function isJournalDir(path: string): boolean {
  try {
    return statSync(path).isDirectory() && existsSync(join(path, JOURNAL_MARKER));
  } catch {
    return false;
  }
}

/** The journal files of a directory, oldest first (rotated ones by sequence, then the current one). */
export function journalFiles(dir: string): string[] {
  const rotated = readdirSync(dir)
    .filter((n) => JOURNAL_ROTATED.test(n))
    .sort();
  return [...rotated, ...(existsSync(join(dir, 'current.jsonl')) ? ['current.jsonl'] : [])].map((n) => join(dir, n));
}

const JOURNAL_KINDS = { events: 'events', nodes: 'nodes', pods: 'pods', nodeclaims: 'nodeClaims', configmaps: 'configMaps' } as const;

/**
 * A journal as inputs: the last version of each object seen (events, nodes, pods, NodeClaims, CA's status ConfigMap),
 * and the objects deleted since with a deletionTimestamp of when the watch saw them go (when they carry none), so a node
 * gone for days still joins its name to its instance. A broken line is an InputError naming the file and line.
 */
export async function readJournal(dir: string, into: RawInputs): Promise<void> {
  const last = new Map<string, { kind: (typeof JOURNAL_KINDS)[keyof typeof JOURNAL_KINDS]; object: Record<string, unknown> }>();
  const seen = new Set<(typeof JOURNAL_KINDS)[keyof typeof JOURNAL_KINDS]>();
  for (const file of journalFiles(dir)) {
    let n = 0;
    let cut = false;
    await streamFileLines(file, (l) => {
      n++;
      if (l.trim() === '' || cut) return;
      let r: { at?: string; type?: string; resource?: string; object?: Record<string, unknown> };
      try {
        r = JSON.parse(l);
      } catch {
        // the last line of the current file may be cut by a crash mid-append: the rest of that file is skipped
        if (file.endsWith('current.jsonl')) {
          cut = true;
          into.warnings.push(`${file}:${n}: a cut line (the recorder stopped mid-write); the rest of this file is skipped`);
          return;
        }
        throw new InputError(`${file}:${n}: not a journal record (JSON expected)`, file);
      }
      const kind = JOURNAL_KINDS[r.resource as keyof typeof JOURNAL_KINDS];
      if (!kind || !r.object || typeof r.object !== 'object') return;
      seen.add(kind);
      const meta = (r.object.metadata ?? {}) as { uid?: string; name?: string; namespace?: string; deletionTimestamp?: string };
      const key = `${kind} ${meta.uid ?? `${meta.namespace ?? ''}/${meta.name ?? ''}`}`;
      if (r.type === 'DELETED' && kind !== 'events') {
        const object = { ...r.object, metadata: { ...meta, deletionTimestamp: meta.deletionTimestamp ?? r.at } };
        last.set(key, { kind, object });
      } else if (r.type === 'DELETED') return;
      else last.set(key, { kind, object: r.object });
    });
  }
  // an object a dump in --from holds too is the journal's (its last version seen), never counted twice
  const uids = new Set<string>();
  for (const { object } of last.values()) {
    const uid = (object.metadata as { uid?: string } | undefined)?.uid;
    if (uid) uids.add(uid);
  }
  for (const kind of new Set([...last.values()].map((x) => x.kind))) {
    const list = into[kind] as Array<{ metadata?: { uid?: string } }>;
    const kept = list.filter((o) => !o.metadata?.uid || !uids.has(o.metadata.uid));
    list.length = 0;
    for (const o of kept) list.push(o);
  }
  for (const { kind, object } of last.values()) (into[kind] as unknown[]).push(object);
  for (const k of seen) into.provided.add(k);
  into.sources.push(dir);
}
