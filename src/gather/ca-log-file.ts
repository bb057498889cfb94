// Cluster Autoscaler's log as an input: recognise a log file by content, stream it through the pure parser with bounded
// memory, or parse text another gatherer fetched (GET pods/log). The parsing itself is src/simulate/ca-log.
import { constants, createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { createGunzip } from 'node:zlib';
import type { CaLogLimits, CaLogSource, CaLogSummary } from '../model/ca-log.js';
import type { CaLogText } from '../model/ca-record.js';
import { InputError } from '../model/errors.js';
import { CA_LOG_TEMPLATES, createCaLogParser, parseEnvelope } from '../simulate/ca-log/index.js';
import { compressionOf, fileError, zstdSupported, zstdUnsupported } from './input-files.js';

export interface CaLogReadOptions {
  /** Reference clock for klog's year-less headers; default: the file's mtime (its last line was written before it). */
  now?: Date;
  limits?: Partial<CaLogLimits>;
  /** Read size per chunk (bytes); default 1 MiB. */
  chunkBytes?: number;
}

// Source files of CA's own call sites (klog "file.go:123]" or JSON "caller"): a CA log names these within a few lines.
const CA_FILES = new Set([
  'static_autoscaler.go',
  'orchestrator.go',
  'executor.go',
  'scale_up.go',
  'scale_down.go',
  'clusterstate.go',
  'auto_scaling_groups.go',
  'aws_manager.go',
  'aws_cloud_provider.go',
  'aws_wrapper.go',
  'filter_out_schedulable.go',
  'hinting_simulator.go',
  'klogx.go',
  'eligibility.go',
  'planner.go',
  'actuator.go',
  'cluster.go',
  'waste.go',
  'mixed_nodeinfos_processor.go',
  'pre_filtering_processor.go',
  'legacy.go',
  'leaderelection.go',
]);

const fileName = (f: string | undefined) => {
  if (!f) return '';
  const base = f.slice(f.lastIndexOf('/') + 1);
  const colon = base.indexOf(':');
  return colon < 0 ? base : base.slice(0, colon);
};

/**
 * Is this the start of a CA log? Most non-blank lines carry a klog/JSON envelope (or continue one), and at least two
 * (one in a one-line chunk) come from CA's own source files or match a CA message template.
 */
export function sniffCaLog(firstChunk: string): boolean {
  const all = firstChunk.split('\n');
  // the chunk's last line may be cut mid-way
  if (all.length > 1) all.pop();
  const lines = all.slice(0, 200).map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l.trim() !== '');
  if (lines.length === 0) return false;
  const now = Date.UTC(2100, 0, 1);
  let enveloped = 0;
  let ca = 0;
  for (const l of lines) {
    const e = parseEnvelope(l, now);
    if (!e) {
      if (enveloped > 0 && (l[0] === '\t' || l[0] === ' ')) enveloped++;
      continue;
    }
    enveloped++;
    if (CA_FILES.has(fileName(e.file)) || CA_LOG_TEMPLATES.some((t) => e.msg.startsWith(t.start) && t.re.test(e.msg.split('\n')[0]))) ca++;
  }
  return enveloped * 2 >= lines.length && ca >= Math.min(2, lines.length);
}

/** Parses a whole log held in memory (e.g. a pod log another gatherer fetched). */
export function parseCaLogText(text: string, opts: { now: Date; source?: CaLogSource; limits?: Partial<CaLogLimits> }): CaLogSummary {
  const p = createCaLogParser({ source: opts.source ?? { kind: 'text' }, now: opts.now, limits: opts.limits });
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      if (start < text.length) p.push(text.slice(start));
      break;
    }
    p.push(text.slice(start, nl));
    start = nl + 1;
  }
  return p.finish();
}

/** A pod log fetched live (GET pods/log), as a summary whose source names the pod and container. */
export function parseCaLogFromPod(t: CaLogText, now: Date, limits?: Partial<CaLogLimits>): CaLogSummary {
  return parseCaLogText(t.text, {
    now,
    limits,
    source: { kind: 'pod', namespace: t.namespace, pod: t.pod, container: t.container, previous: t.previous },
  });
}

/** The file's mtime and its compression (gzip or zstd magic bytes); only a regular file is accepted. */
async function probe(path: string): Promise<{ mtime: Date; compression: 'gzip' | 'zstd' | undefined }> {
  try {
    // O_NONBLOCK: opening a FIFO with no writer would block forever (see input-files.ts readRegularFile)
    const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new InputError(`${path}: not a regular file`, path);
      const head = Buffer.alloc(4);
      const { bytesRead } = await fh.read(head, 0, 4, 0);
      const compression = compressionOf(head.subarray(0, bytesRead));
      if (compression === 'zstd' && !zstdSupported()) throw zstdUnsupported('', path);
      return { mtime: st.mtime, compression };
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw fileError('', path, e);
  }
}

/**
 * The lines of a log file (plain, gzip or zstd where the runtime has it, by magic bytes). Lines are split on the bytes
 * ("\n" never occurs inside a UTF-8 sequence) and each is decoded on its own: a record then holds a copy of its line,
 * never a slice of a 1 MiB chunk (V8 keeps a sliced string's parent alive). Memory: one chunk and one partial line.
 */
async function* fileLines(path: string, compression: 'gzip' | 'zstd' | undefined, chunkBytes: number): AsyncGenerator<string> {
  let rest: Buffer | undefined;
  try {
    const raw = createReadStream(path, { highWaterMark: chunkBytes });
    const stream =
      compression === 'gzip'
        ? raw.pipe(createGunzip())
        : compression === 'zstd'
          ? raw.pipe((zlib as unknown as { createZstdDecompress: () => Transform }).createZstdDecompress())
          : raw;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      if (rest) {
        const nl = chunk.indexOf(10);
        if (nl < 0) {
          rest = Buffer.concat([rest, chunk]);
          // a "line" without "\n" for megabytes is not a log: keep memory bounded by cutting it
          if (rest.length > 1 << 20) {
            yield rest.toString('utf8');
            rest = undefined;
          }
          continue;
        }
        yield Buffer.concat([rest, chunk.subarray(0, nl)]).toString('utf8');
        rest = undefined;
        start = nl + 1;
      }
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl < 0) break;
        yield chunk.toString('utf8', start, nl);
        start = nl + 1;
      }
      if (start < chunk.length) rest = Buffer.from(chunk.subarray(start));
    }
  } catch (e) {
    throw e instanceof InputError ? e : new InputError(`${path}: ${e instanceof Error ? e.message : String(e)}`, path);
  }
  if (rest) yield rest.toString('utf8');
}

/** Streams a log file through the parser (see fileLines). Memory: one chunk, one partial line, the parser's bounded state. */
export async function readCaLogFile(path: string, opts: CaLogReadOptions = {}): Promise<CaLogSummary> {
  const { mtime, compression } = await probe(path);
  const now = opts.now ?? mtime;
  const parser = createCaLogParser({ source: { kind: 'file', path }, now, limits: opts.limits });
  for await (const line of fileLines(path, compression, opts.chunkBytes ?? 1 << 20)) parser.push(line);
  return parser.finish();
}

/**
 * Several logs of one CA (a rotated `cluster-autoscaler.log.1`, `.log.2.gz`, the previous container's, two exports of
 * one window) as one log: their entries merged by time, so the summary sees CA's loops in the order CA ran them. An
 * entry is a line with an envelope and the continuation lines after it; an entry without a time keeps its place after
 * the one before it in its file. Entries of equal time keep the order of the files (the oldest first); an entry that
 * another file already gave at the same time (overlapping exports) is read once. The summary's source names every file.
 */
export async function readCaLogFiles(paths: string[], opts: CaLogReadOptions = {}): Promise<CaLogSummary> {
  if (paths.length === 1) return readCaLogFile(paths[0], opts);
  const probes = await Promise.all(paths.map(probe));
  // year-less klog lines: each file's lines were written before its mtime; the newest file's bounds them all
  const now = opts.now ?? new Date(Math.max(...probes.map((p) => p.mtime.getTime())));
  const nowMs = now.getTime();
  const chunk = opts.chunkBytes ?? 1 << 20;
  interface Cursor {
    lines: AsyncGenerator<string>;
    /** The next entry's head line and its time; undefined when the file is done. */
    head?: string;
    time: number;
    order: number;
  }
  const cursors: Cursor[] = probes.map((p, i) => ({ lines: fileLines(paths[i], p.compression, chunk), time: -Infinity, order: i }));
  // the first line of each file, so the files can be put in order of their first time
  for (const c of cursors) {
    const r = await c.lines.next();
    if (r.done) continue;
    c.head = r.value;
    const t = parseEnvelope(r.value, nowMs)?.time;
    if (t !== undefined) c.time = t;
  }
  const parser = createCaLogParser({ source: { kind: 'file', path: paths.join(', '), paths }, now, limits: opts.limits });
  // the entries pushed at the current time (ms), by their first line: the same entry in another file (two exports of one
  // window overlap) is read once
  let atTime = -Infinity;
  const pushedAt = new Map<string, Cursor>();
  for (;;) {
    let next: Cursor | undefined;
    for (const c of cursors) {
      if (c.head === undefined) continue;
      if (!next || c.time < next.time || (c.time === next.time && c.order < next.order)) next = c;
    }
    if (!next) break;
    const head = next.head as string;
    if (next.time !== atTime) {
      atTime = next.time;
      pushedAt.clear();
    }
    const from = pushedAt.get(head);
    const repeat = from !== undefined && from !== next && next.time !== -Infinity;
    if (!repeat) {
      parser.push(head);
      if (pushedAt.size < 10_000) pushedAt.set(head, next);
    }
    next.head = undefined;
    // the entry's continuation lines, up to the next line with an envelope (the cursor's next head)
    for (;;) {
      const r = await next.lines.next();
      if (r.done) break;
      const e = parseEnvelope(r.value, nowMs);
      if (!e) {
        if (!repeat) parser.push(r.value);
        continue;
      }
      next.head = r.value;
      if (e.time !== undefined) next.time = e.time;
      break;
    }
  }
  return parser.finish();
}
