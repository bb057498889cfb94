// Reading --from files: what a file is (a dump, CA's log, /metrics or /snapshotz, Karpenter's log), read bounded and
// decompressed, and parsed as JSON or YAML documents (streamed when large); offline.ts adds what they hold to RawInputs.
import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { createGunzip } from 'node:zlib';
import { InputError } from '../model/errors.js';
import { sniffCaLog } from './ca-log-file.js';
import { sniffKarpenterLog } from '../simulate/providers/karpenter/log/index.js';
import { readDocuments } from './json-stream.js';
import { aliasBomb, compressionOf, decompressed, fileError, inputText, isAliasBomb, isStackOverflow, stripBom, MAX_YAML_ALIASES, tooDeep, zstdSupported, zstdUnsupported } from './input-files.js';
import { isObject } from './shape.js';

/** Files whose name says "a kubectl or aws dump": read as JSON/YAML unless their content is CA's record. */
export const DOCUMENT_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);
/** How much of a file is read to recognise it (CA's /metrics lists its own families first, sorted by name). */
export const HEAD_BYTES = 256 << 10;

export type FileKind = 'document' | 'ca-log' | 'karpenter-log' | 'ca-metrics' | 'ca-snapshotz' | 'empty' | 'unrecognised';

/**
 * What a file holds, from its first bytes: CA's log (klog or JSON lines, plain or gzip), CA's /metrics text, CA's
 * /snapshotz JSON, or a kubectl/aws dump (by extension, or JSON/YAML content in a file named otherwise).
 */
export async function recognise(file: string): Promise<FileKind> {
  const { bytes, gzip } = await readBounded(file, HEAD_BYTES);
  // pods.json.gz is named as a dump once its compression suffix is set aside
  const dumpName = DOCUMENT_EXTENSIONS.has(extname(gzip ? file.replace(/\.(?:gz|zst|zstd)$/i, '') : file).toLowerCase());
  if (bytes.length === 0) {
    // nothing to recognise: `casdoctor snapshot` writes an empty log (CA logged nothing in the window) by this name
    if (/^ca-log-.+\.log$/.test(basename(file))) return 'ca-log';
    return dumpName ? 'document' : 'empty';
  }
  if (bytes.includes(0)) return dumpName ? 'document' : 'unrecognised';
  const head = bytes.toString('utf8');
  if (sniffCaLog(head)) return 'ca-log';
  // Karpenter's log: JSON lines, which would otherwise be read (and refused) as one JSON document
  if (sniffKarpenterLog(head)) return 'karpenter-log';
  if (isCaMetricsHead(head)) return 'ca-metrics';
  if (SNAPSHOTZ_HEAD_RE.test(head)) return 'ca-snapshotz';
  if (dumpName || /^\s*[[{]/.test(head) || /^(?:---|apiVersion:|kind:|items:)/m.test(head)) return 'document';
  return 'unrecognised';
}

// CA's /snapshotz (CA: debuggingsnapshot/debugging_snapshot.go DebuggingSnapshotImpl): its first member, in Go's field
// order or sorted (jq -S)
const SNAPSHOTZ_HEAD_RE = /^\s*\{\s*"(?:NodeList|UnscheduledPodsCanBeScheduled|Error|StartTimestamp|EndTimestamp|TemplateNodes)"\s*:/;
const METRIC_LINE_RE = /^(?:#.*|[A-Za-z_:][A-Za-z0-9_:]*(?:\{.*\})?[ \t]+\S+(?:[ \t]+-?\d+)?)$/;

/** Prometheus text exposition (every line a comment or a sample) with CA's own families. */
function isCaMetricsHead(head: string): boolean {
  const lines = head.split('\n');
  if (lines.length > 1) lines.pop(); // cut mid-line
  let samples = 0;
  let ca = false;
  for (const raw of lines) {
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (l.trim() === '') continue;
    if (!METRIC_LINE_RE.test(l)) return false;
    if (l[0] !== '#') samples++;
    if (/^(?:# (?:HELP|TYPE) )?cluster_autoscaler_/.test(l)) ca = true;
  }
  return ca && samples > 0;
}

/** A streaming decompressor (zstd only where the runtime has it: zstdSupported). */
function decompressor(kind: 'gzip' | 'zstd'): Transform {
  if (kind === 'gzip') return createGunzip();
  return (zlib as unknown as { createZstdDecompress: () => Transform }).createZstdDecompress();
}

/**
 * The first maxBytes of a regular file, decompressed when it starts with gzip's (or zstd's) magic bytes (a bomb stops at
 * the cap); `gzip` says it was compressed.
 */
export async function readBounded(file: string, maxBytes: number): Promise<{ bytes: Buffer; gzip: boolean; truncated: boolean }> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO with no writer would block the open forever (input-files.ts readRegularFile)
    fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw fileError('--from', file, e);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new InputError(`--from ${file}: not a regular file`, file);
    const magic = Buffer.alloc(4);
    const { bytesRead } = await fh.read(magic, 0, 4, 0);
    const compression = compressionOf(magic.subarray(0, bytesRead));
    if (compression === 'zstd' && !zstdSupported()) throw zstdUnsupported('--from', file);
    const gzip = compression !== undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const source = fh.createReadStream({ start: 0, autoClose: false });
    const stream = compression ? source.pipe(decompressor(compression)) : source;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (size + chunk.length > maxBytes) {
          chunks.push(chunk.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          break;
        }
        chunks.push(chunk);
        size += chunk.length;
      }
    } catch (e) {
      // a gzip stream cut short still gives its first bytes; anything else is a file error
      if (!gzip || size === 0) throw e;
      truncated = true;
    } finally {
      source.destroy();
      if (stream !== source) stream.destroy();
    }
    return { bytes: Buffer.concat(chunks, size), gzip, truncated };
  } catch (e) {
    if (e instanceof InputError) throw e;
    if ((e as NodeJS.ErrnoException).code !== undefined && !String((e as NodeJS.ErrnoException).code).startsWith('Z_'))
      throw fileError('--from', file, e);
    throw new InputError(`--from ${file}: ${e instanceof Error ? e.message : String(e)}`, file);
  } finally {
    await fh.close();
  }
}

/** CA's debugging snapshot: one JSON object with NodeList and/or TemplateNodes, and StartTimestamp. */
export function isSnapshotz(text: string): boolean {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return false;
  }
  return isObject(doc) && ('NodeList' in doc || 'TemplateNodes' in doc) && 'StartTimestamp' in doc;
}

/**
 * The text of a gzip'd (or zstd) dump, decompressed with the bound every compressed input has (input-files.ts
 * MAX_DECOMPRESSED_BYTES); undefined for a file that is not compressed (it is read, and streamed, from the file).
 */
export async function compressedText(file: string): Promise<string | undefined> {
  const fh = await open(file, 'r');
  let bytes: Buffer;
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    if (!compressionOf(head.subarray(0, bytesRead))) return undefined;
    bytes = await fh.readFile();
  } finally {
    await fh.close();
  }
  return inputText(await decompressed('--from', file, bytes));
}

/** readDocuments with file-system errors, hostile nesting and alias bombs as InputErrors naming the file. */
export async function readDocumentsOf(
  file: string,
  text: string | undefined,
  options: Parameters<typeof readDocuments>[2] & { wholeYamlLimitBytes?: number },
): Promise<unknown[]> {
  try {
    if (text !== undefined) {
      // a decompressed dump: its text is in memory already (large YAML still item by item)
      const first = /[^\s]/.exec(text.slice(0, 4096))?.[0];
      if (text.length >= (options?.streamThresholdBytes ?? YAML_STREAM_THRESHOLD) && first !== undefined && first !== '{' && first !== '[') {
        const { readYamlStream } = await import('./yaml-file.js');
        return await readYamlStream(text, file, {
          ...(options?.mapItem ? { mapItem: options.mapItem } : {}),
          ...(options?.wholeYamlLimitBytes !== undefined ? { wholeLimitBytes: options.wholeYamlLimitBytes } : {}),
        });
      }
      return await parseDocuments(text, file);
    }
    // a large YAML dump is read item by item (yaml-file.ts parseYamlStream): the yaml library needs ~50x a file's size
    const yamlSize = await largeYamlSize(file, options?.streamThresholdBytes ?? YAML_STREAM_THRESHOLD);
    if (yamlSize !== undefined) {
      if (yamlSize > MAX_TEXT)
        throw new InputError(
          `${file}: ${Math.round(yamlSize / 1e6)} MB is too large to read as YAML text; re-run kubectl with \`-o json\` (casdoctor streams JSON of any size)`,
          file,
        );
      const { readYamlStream } = await import('./yaml-file.js');
      return await readYamlStream(await readFile(file, 'utf8'), file, {
        ...(options?.mapItem ? { mapItem: options.mapItem } : {}),
        ...(options?.wholeYamlLimitBytes !== undefined ? { wholeLimitBytes: options.wholeYamlLimitBytes } : {}),
      });
    }
    return await readDocuments(file, parseDocuments, options);
  } catch (e) {
    if (e instanceof InputError) throw e;
    if (isStackOverflow(e)) throw tooDeep(file);
    if (isAliasBomb(e)) throw aliasBomb(file);
    if ((e as NodeJS.ErrnoException).code !== undefined) throw fileError('--from', file, e);
    throw e;
  }
}

const YAML_STREAM_THRESHOLD = 8 << 20;
// V8's longest string (json-stream.ts MAX_STRING)
const MAX_TEXT = (1 << 29) - 24;

/** The file's size when it is at least `threshold` bytes of YAML (its first non-blank character opens no JSON value). */
async function largeYamlSize(file: string, threshold: number): Promise<number | undefined> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size < threshold) return undefined;
    const head = Buffer.alloc(Math.min(size, 4096));
    await fh.read(head, 0, head.length, 0);
    const first = /[^\s\ufeff]/.exec(head.toString('utf8'))?.[0];
    return first === undefined || first === '{' || first === '[' ? undefined : size;
  } finally {
    await fh.close();
  }
}

/** JSON (one value) or YAML (one or more documents). Malformed input → InputError with line and column. */
export async function parseDocuments(text: string, file: string): Promise<unknown[]> {
  // PowerShell's `>` writes a byte-order mark: JSON.parse refuses it (and line 1 stays line 1 without it)
  text = stripBom(text);
  const trimmed = text.trimStart();
  if (trimmed === '') return [];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return [JSON.parse(text)];
    } catch (e) {
      throw jsonError(e, text, file);
    }
  }
  const { parseAllDocuments } = await import('yaml');
  const { malformedYaml, unresolvedAlias } = await import('./yaml-file.js');
  // duplicate keys are an error, as `kubectl kustomize` and the API server's strict decoding make them
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  const out: unknown[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    const err = d.errors[0];
    if (err) throw malformedYaml(err, file, text);
    let v: unknown;
    try {
      v = d.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    } catch (e) {
      if (isAliasBomb(e)) throw aliasBomb(file);
      throw unresolvedAlias(e, file) ?? e;
    }
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

function jsonError(e: unknown, text: string, file: string): InputError {
  const msg = e instanceof Error ? e.message : String(e);
  const m = /position (\d+)/.exec(msg);
  let line: number;
  let column: number;
  if (m) {
    const offset = Number(m[1]);
    const before = text.slice(0, offset);
    line = before.split('\n').length;
    column = offset - before.lastIndexOf('\n');
  } else {
    // "Unexpected end of JSON input": the position is the end of the file
    const lines = text.split('\n');
    line = lines.length;
    column = (lines.at(-1)?.length ?? 0) + 1;
  }
  return new InputError(`${file}:${line}:${column}: malformed JSON: ${msg}`, file, { line, column });
}
