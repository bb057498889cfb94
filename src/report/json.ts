import type { Finding, Skipped } from '../model/findings.js';
import { safeJsonText } from './sanitize.js';

export interface JsonReport {
  /** 1 for every command's first contract; why-pending writes 2 (docs/json.md). */
  schemaVersion: 1 | 2 | 3;
  command: string;
  now: string;
  findings: Finding[];
  skipped: Skipped[];
  /** Further keys in insertion order; an array or any other iterable (a generator) is streamed element by element. */
  [extra: string]: unknown;
}

/** Chunks are joined until they reach this size before they are handed on (few writes, none holding the document). */
export const JSON_CHUNK_CHARS = 64 * 1024;

/** Containers this deep are written element by element; deeper values are one JSON.stringify (a pod, a node). */
const STREAM_DEPTH = 2;

/**
 * The stable machine contract: keys in a fixed order, two-space indent, trailing newline. The data is never altered;
 * only characters JSON.stringify leaves raw that a terminal acts on (C1, bidi) are written as \u escapes.
 */
export function renderJson(report: JsonReport): string {
  let out = '';
  for (const chunk of jsonChunks(report)) out += chunk;
  return out;
}

/**
 * renderJson as a sequence of chunks, so that no string ever holds the whole document: top-level arrays (and iterables,
 * whose elements are then built one at a time) are written element by element. The concatenation is byte-equal to
 * `JSON.stringify(document, null, 2)` plus a newline, sanitized as renderJson does.
 */
export function* jsonChunks(report: JsonReport, chunkChars = JSON_CHUNK_CHARS): Generator<string> {
  const { schemaVersion, command, now, findings, skipped, ...rest } = report;
  let buf = '';
  for (const piece of valuePieces({ schemaVersion, command, now, findings, skipped, ...rest }, '', 0)) {
    buf += piece;
    if (buf.length >= chunkChars) {
      yield safeJsonText(buf);
      buf = '';
    }
  }
  yield safeJsonText(`${buf}\n`);
}

function isPlainContainer(v: unknown): v is object {
  return typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** A non-array iterable written as a JSON array (a generator of report entries); strings and maps are not. */
function isStreamedIterable(v: unknown): v is Iterable<unknown> {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function' &&
    !(v instanceof Map) &&
    !(v instanceof Set)
  );
}

/** JSON.stringify(v, null, 2) at an indentation of `indent`; undefined when JSON.stringify would omit the value. */
function stringifyAt(v: unknown, indent: string): string | undefined {
  const s = JSON.stringify(v, null, 2) as string | undefined;
  if (s === undefined) return undefined;
  // JSON strings never hold a raw line feed, so every one is the indentation's
  return indent && s.includes('\n') ? s.replaceAll('\n', `\n${indent}`) : s;
}

/** The pieces of one value, in JSON.stringify's exact layout (indent 2). */
function* valuePieces(v: unknown, indent: string, depth: number): Generator<string> {
  if (depth < STREAM_DEPTH && (Array.isArray(v) || isStreamedIterable(v))) {
    yield* arrayPieces(v as Iterable<unknown>, indent, depth);
    return;
  }
  if (depth < STREAM_DEPTH && isPlainContainer(v) && !Array.isArray(v)) {
    yield* objectPieces(v as Record<string, unknown>, indent, depth);
    return;
  }
  yield stringifyAt(v, indent) ?? 'null';
}

function* arrayPieces(items: Iterable<unknown>, indent: string, depth: number): Generator<string> {
  const inner = `${indent}  `;
  let first = true;
  for (const item of items) {
    yield `${first ? '[' : ','}\n${inner}`;
    first = false;
    // JSON.stringify writes null for an element it would omit (undefined, a function)
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield 'null';
    else yield* valuePieces(item, inner, depth + 1);
  }
  yield first ? '[]' : `\n${indent}]`;
}

function* objectPieces(obj: Record<string, unknown>, indent: string, depth: number): Generator<string> {
  const inner = `${indent}  `;
  let first = true;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `;
    first = false;
    yield* valuePieces(value, inner, depth + 1);
  }
  yield first ? '{}' : `\n${indent}}`;
}
