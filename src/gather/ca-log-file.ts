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
 * Streams a log file (plain, gzip or zstd where the runtime has it, by magic bytes) through the parser. Lines are split on the bytes ("\n" never occurs
 * inside a UTF-8 sequence) and each is decoded on its own: a record then holds a copy of its line, never a slice of a
 * 1 MiB chunk (V8 keeps a sliced string's parent alive). Memory: one chunk, one partial line, the parser's bounded state.
 */
export async function readCaLogFile(path: string, opts: CaLogReadOptions = {}): Promise<CaLogSummary> {
  const { mtime, compression } = await probe(path);
  const now = opts.now ?? mtime;
  const parser = createCaLogParser({ source: { kind: 'file', path }, now, limits: opts.limits });
  let rest: Buffer | undefined;
  const feed = (chunk: Buffer) => {
    const buf = chunk;
    let start = 0;
    if (rest) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        rest = Buffer.concat([rest, chunk]);
        // a "line" without "\n" for megabytes is not a log: keep memory bounded by cutting it
        if (rest.length > 1 << 20) {
          parser.push(rest.toString('utf8'));
          rest = undefined;
        }
        return;
      }
      parser.push(Buffer.concat([rest, chunk.subarray(0, nl)]).toString('utf8'));
      rest = undefined;
      start = nl + 1;
    }
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      parser.push(buf.toString('utf8', start, nl));
      start = nl + 1;
    }
    if (start < buf.length) rest = Buffer.from(buf.subarray(start));
  };
  try {
    const raw = createReadStream(path, { highWaterMark: opts.chunkBytes ?? 1 << 20 });
    const stream =
      compression === 'gzip'
        ? raw.pipe(createGunzip())
        : compression === 'zstd'
          ? raw.pipe((zlib as unknown as { createZstdDecompress: () => Transform }).createZstdDecompress())
          : raw;
    for await (const chunk of stream as AsyncIterable<Buffer>) feed(chunk);
  } catch (e) {
    throw e instanceof InputError ? e : new InputError(`${path}: ${e instanceof Error ? e.message : String(e)}`, path);
  }
  if (rest) parser.push(rest.toString('utf8'));
  return parser.finish();
}
