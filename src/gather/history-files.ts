// The history's file and text sources: Karpenter's log (recognised in --from by offline.ts, parsed here), and the CA
// log re-read line by line for its timed decisions (the summary offline.ts keeps is per key, not per time). Streamed,
// plain or gzip, one bounded line at a time; the parsing itself is pure (src/simulate).
import { constants, createReadStream } from 'node:fs';
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
