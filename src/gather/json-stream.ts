// Reads one dump file for the offline loader. Large `kubectl get -o json` / `aws --output json` files are read in
// chunks and their List items parsed a few at a time: a 100k-pod List is over 1 GB, more than a JS string may hold, and
// holding the file's bytes, its text and its objects at once would triple the memory it needs.
import { isAscii } from 'node:buffer';
import { open, readFile } from 'node:fs/promises';
import { InputError } from '../model/errors.js';
import { shellCommand } from '../model/shell.js';
import type { ParsePool, Slot } from './parse-pool.js';

export interface ReadOptions {
  /** JSON files at least this large are streamed when they are indented Lists (default 8 MiB). */
  streamThresholdBytes?: number;
  /** Bytes read per chunk when streaming (default 4 MiB). */
  chunkBytes?: number;
  /** Largest file read as one string (default: V8's string limit); tests lower it. */
  wholeTextLimitBytes?: number;
  /**
   * Applied to each item of a streamed List as soon as its batch is parsed (the offline loader keeps only the fields it
   * reads, so the rest dies young instead of being copied into old space).
   */
  mapItem?: (item: unknown) => unknown;
  /**
   * Parse workers for large streamed Lists (src/gather/parse-pool.ts): `mapperUrl` is a module exporting mapItem (the
   * same function as `mapItem` above) and toTransport; `fromTransport` turns what a worker sends back into mapItem's
   * results. Without it, or when no worker can run, the main thread parses everything.
   */
  parallel?: {
    mapperUrl: string;
    /** Passed to the mapper module's mapItem in the workers (the loader's field profile). */
    mapperArg?: unknown;
    fromTransport: (t: unknown) => unknown;
    /** A pool shared by several reads (the caller closes it); else one is started for this file and closed after. */
    pool?: SharedPool;
    /** Files at least this large use workers (default 16 MiB). */
    thresholdBytes?: number;
    /** Workers to start (default: one per spare CPU, at most 3). */
    workers?: number;
  };
}

const PARALLEL_THRESHOLD = 16 << 20;
// What a worker parses per message: large enough that messaging costs nothing, small enough to balance the load.
const UNIT_BYTES = 1 << 20;

/** A parse pool started on first use and shared by the files of one load. */
export class SharedPool {
  // one start, shared by every caller (a live gathering asks from all its lists at once)
  private starting: Promise<ParsePool | undefined> | undefined;
  private started: ParsePool | undefined;
  private closed = false;
  constructor(
    private readonly mapperUrl: string,
    private readonly mapperArg: unknown,
    private readonly workers?: number,
  ) {}
  get(): Promise<ParsePool | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.starting ??= import('./parse-pool.js').then((m) => {
      const pool = m.ParsePool.create(this.mapperUrl, this.mapperArg, this.workers);
      // closed while it started: its idle workers are unref'd, so closing it need not be awaited
      if (this.closed) {
        void pool?.close();
        return undefined;
      }
      return (this.started = pool);
    });
    return this.starting;
  }
  async close(): Promise<void> {
    this.closed = true;
    const pool = this.started;
    this.started = undefined;
    await pool?.close();
  }
}

const DEFAULT_THRESHOLD = 8 << 20;
const DEFAULT_CHUNK = 4 << 20;
// V8's longest string is 2^29 - 24 characters; a file above this cannot be read as one string at all.
const MAX_STRING = (1 << 29) - 24;
// Items are parsed in batches of about this much text: below V8's large-object size, so each batch's string dies young
// instead of filling old space and forcing full GCs (measured: half the load time of 16 MiB batches at 100k pods).
const BATCH_BYTES = 64 << 10;

const NL = 0x0a;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Parses a file into its documents with `parse` (JSON or YAML, as the loader does), except large indented JSON Lists,
 * which are streamed. Both paths yield the same documents; malformed input throws the same InputError.
 */
export async function readDocuments(
  file: string,
  parse: (text: string, file: string) => Promise<unknown[]>,
  options: ReadOptions = {},
): Promise<unknown[]> {
  const threshold = options.streamThresholdBytes ?? DEFAULT_THRESHOLD;
  const limit = options.wholeTextLimitBytes ?? MAX_STRING;
  const fh = await open(file, 'r');
  let size = 0;
  try {
    size = (await fh.stat()).size;
    if (size >= threshold) {
      const par = options.parallel;
      const useWorkers = par !== undefined && size >= (par.thresholdBytes ?? PARALLEL_THRESHOLD);
      const own = useWorkers && !par.pool ? new SharedPool(par.mapperUrl, par.mapperArg, par.workers) : undefined;
      const pool = useWorkers ? await (par.pool ?? own)?.get() : undefined;
      try {
        const doc = await streamIndentedList(
          fh,
          size,
          options.chunkBytes ?? DEFAULT_CHUNK,
          options.mapItem,
          pool && par ? { pool, fromTransport: par.fromTransport } : undefined,
        );
        if (doc !== undefined) return [doc];
      } finally {
        await own?.close();
      }
    }
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    // Malformed: the whole-text parse below reports the file, line and column, when the file fits in a string.
    if (size > limit) throw await positionedError(file, e);
  } finally {
    await fh.close();
  }
  if (size > limit) {
    throw new InputError(
      `${file}: ${Math.round(size / 1e6)} MB is too large to read as one document; casdoctor streams large files only when they are indented like \`kubectl get -o json\` output (re-run kubectl, or indent it: ${shellCommand(['jq', '.', file])})`,
      file,
    );
  }
  return parse(await readFile(file, 'utf8'), file);
}

/** A SyntaxError from a streamed batch, located in the file by the offset attached when it was thrown. */
async function positionedError(file: string, e: SyntaxError): Promise<InputError> {
  const offset = (e as SyntaxError & { fileOffset?: number }).fileOffset ?? 0;
  let line = 1;
  let lineStart = 0;
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(DEFAULT_CHUNK);
    for (let pos = 0; pos < offset; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, offset - pos), pos);
      if (bytesRead === 0) break;
      for (let i = buf.indexOf(NL); i >= 0 && i < bytesRead; i = buf.indexOf(NL, i + 1)) {
        line++;
        lineStart = pos + i + 1;
      }
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
  const column = offset - lineStart + 1;
  return new InputError(`${file}:${line}:${column}: malformed JSON: ${e.message}`, file, { line, column });
}

function syntaxError(message: string, fileOffset: number): SyntaxError {
  return Object.assign(new SyntaxError(message), { fileOffset });
}

type FileHandle = Awaited<ReturnType<typeof open>>;

/**
 * Streams `{ ..., "items": [ {...}, ... ], ... }` written with a fixed indent (kubectl, aws-cli, JSON.stringify(x,
 * null, n)). Raw newlines cannot occur inside JSON strings, so in such a file a line `<indent><indent>}` can only close
 * an item and a line `<indent>]` only the items array. Returns undefined when the file does not have that layout; a
 * batch that is not valid JSON throws a SyntaxError carrying its file offset.
 */
async function streamIndentedList(
  fh: FileHandle,
  size: number,
  chunkBytes: number,
  mapItem: ((item: unknown) => unknown) | undefined,
  parallel: { pool: ParsePool; fromTransport: (t: unknown) => unknown } | undefined,
): Promise<Record<string, unknown> | undefined> {
  let buf = Buffer.allocUnsafe(2 * chunkBytes);
  let len = 0; // bytes of buf in use
  let base = 0; // file offset of buf[0]
  let position = 0; // file offset of the next read
  const fill = async (): Promise<void> => {
    if (buf.length - len < chunkBytes) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * buf.length, len + 2 * chunkBytes)); // an item larger than a chunk
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    const end = Math.min(position + chunkBytes, size);
    while (position < end) {
      const { bytesRead } = await fh.read(buf, len, end - position, position);
      if (bytesRead === 0) break;
      len += bytesRead;
      position += bytesRead;
    }
  };

  await fill();
  const head = buf.toString('latin1', 0, Math.min(len, 4096));
  const m = /^(?:\xef\xbb\xbf)?[ \t\r\n]*\{\r?\n( +)"/.exec(head);
  if (!m) return undefined;
  const unit = m[1];
  const itemsKey = Buffer.from(`\n${unit}"items": [`);
  const keyAt = buf.subarray(0, len).indexOf(itemsKey);
  if (keyAt < 0) return undefined;
  const bracket = keyAt + itemsKey.length - 1;
  // the first item opens on its own line at two indents, or the list is empty
  const after = buf.toString('latin1', bracket + 1, Math.min(len, bracket + 8 + 2 * unit.length));
  if (!new RegExp(`^\\r?\\n(${unit}${unit}\\{|${unit}\\])`).test(after)) return undefined;

  const shellHead = buf.toString('utf8', 0, bracket + 1);
  const itemClose = Buffer.from(`\n${unit}${unit}}`);
  const listClose = Buffer.from(`\n${unit}]`);
  // Items in file order: runs parsed here, and runs a worker parses (resolved when its answer arrives).
  const segments: Array<unknown[] | Promise<unknown[]>> = [];
  let items: unknown[] = [];
  segments.push(items);
  let start = bracket; // the '[' or ',' before the next unparsed item
  // a run of items from `start` to `end` goes to a worker; what follows goes into a new segment
  const toWorker = (par: NonNullable<typeof parallel>, slot: Slot, start: number, end: number, data: Buffer): void => {
    const bytes = par.pool.buffer(end - start + 1); // the spare last byte becomes the run's ']'
    bytes.set(data.subarray(start, end));
    const fileOffset = base + start;
    const p = par.pool.submit(slot, bytes, unit, fileOffset).then((r) => {
      if (r.crashed) throw new Error(`parse worker failed: ${r.error}`);
      if (r.error !== undefined) throw syntaxError(r.error, r.fileOffset ?? fileOffset);
      return (JSON.parse(r.text ?? '[]') as unknown[]).map(par.fromTransport);
    });
    p.catch(() => {}); // awaited with the rest below; not an unhandled rejection meanwhile
    segments.push(p);
    segments.push((items = []));
  };

  for (;;) {
    const data = buf.subarray(0, len);
    // the list's end is only looked for once the whole file is in the buffer (the tail after the items is small)
    const listEnd = position >= size ? data.indexOf(listClose, start) : -1;
    const limit = listEnd >= 0 ? listEnd : len - 1; // the byte after an item's '}' must be here: it becomes ']'
    // one search per batch: the first item end at least BATCH_BYTES on (searching every item end costs more than
    // parsing, since the indent makes the pattern common)
    for (;;) {
      // a run for a worker when one can take it, else a batch parsed here
      const slot = parallel?.pool.available();
      const span = slot ? UNIT_BYTES : BATCH_BYTES;
      const c = data.indexOf(itemClose, Math.max(start, start + span - itemClose.length));
      if (c < 0 || c + itemClose.length > limit) break;
      const end = c + itemClose.length;
      if (slot && parallel) toWorker(parallel, slot, start, end, data);
      else parseBatch(data, start, end, base, items, mapItem);
      start = end;
    }
    if (listEnd >= 0) {
      const c = data.lastIndexOf(itemClose, listEnd);
      if (c >= start) {
        parseBatch(data, start, c + itemClose.length, base, items, mapItem);
        start = c + itemClose.length;
      }
      // only whitespace may remain before the closing bracket (and the '[' itself when the list is empty)
      if (!/^\[?\s*$/.test(data.toString('latin1', start, listEnd)))
        throw syntaxError('Unexpected token in JSON', base + start);
      const doc = JSON.parse(shellHead + data.toString('utf8', listEnd));
      if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.items)) return undefined;
      const all: unknown[] = [];
      for (const seg of await Promise.all(segments)) for (const item of seg) all.push(item);
      doc.items = all;
      return doc;
    }
    if (position >= size) throw syntaxError('Unexpected end of JSON input', size);
    if (start > 0) {
      buf.copyWithin(0, start, len);
      len -= start;
      base += start;
      start = 0;
    }
    await fill();
  }
}

/**
 * Parses a run of items cut from an indented List (what a parse worker gets): `bytes` holds the '[' or ',' before the
 * first item through the last item's '}', plus one spare byte. Items go to `into`, mapped by `mapItem`.
 */
export function parseUnit(
  bytes: Buffer,
  unit: string,
  fileOffset: number,
  into: unknown[],
  mapItem: ((item: unknown) => unknown) | undefined,
): void {
  const itemClose = Buffer.from(`\n${unit}${unit}}`);
  const last = bytes.length - 1; // the spare byte
  let start = 0;
  while (start < last) {
    const c = bytes.indexOf(itemClose, Math.max(start, start + BATCH_BYTES - itemClose.length));
    const end = c < 0 || c + itemClose.length >= last ? last : c + itemClose.length;
    parseBatch(bytes, start, end, fileOffset, into, mapItem);
    start = end;
  }
}

/**
 * Parses data[start..end) as a JSON array: data[start] (the '[' of the list or the ',' after the previous batch) and
 * data[end] (the byte after an item's '}') are overwritten with '[' and ']'; data[end] is restored afterwards.
 */
function parseBatch(
  data: Buffer,
  start: number,
  end: number,
  dataOffset: number,
  into: unknown[],
  mapItem: ((item: unknown) => unknown) | undefined,
): void {
  if (data[start] !== COMMA && data[start] !== OPEN_BRACKET)
    throw syntaxError('Unexpected token in JSON', dataOffset + start);
  const saved = data[end];
  data[start] = OPEN_BRACKET;
  data[end] = CLOSE_BRACKET;
  const slice = data.subarray(start, end + 1);
  // ASCII (nearly every dump) decodes several times faster than UTF-8
  const text = isAscii(slice) ? slice.toString('ascii') : slice.toString('utf8');
  data[end] = saved;
  let batch: unknown[];
  try {
    batch = JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    const chars = at ? Number(at[1]) : text.length;
    throw Object.assign(err as SyntaxError, {
      fileOffset: dataOffset + start + Buffer.byteLength(text.slice(0, chars)),
    });
  }
  if (mapItem) for (const item of batch) into.push(mapItem(item));
  else for (const item of batch) into.push(item);
}
