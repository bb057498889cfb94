// Reading the files casdoctor's flags name (--config, --node-groups, --eksctl, -f): one error shape, with file:line:col.
import {
  type Document,
  type DocumentOptions,
  isScalar,
  LineCounter,
  type ParseOptions,
  parseAllDocuments,
  parseDocument,
  type SchemaOptions,
  type YAMLError,
} from 'yaml';
import { InputError } from '../model/errors.js';
import { aliasBomb, isAliasBomb, isStackOverflow, MAX_YAML_ALIASES, readRegularFile, tooDeep } from './input-files.js';

/**
 * The text of a file a flag names. Only a regular file is read (a FIFO would block forever): anything else, and a file
 * that cannot be read, is an InputError "<flag> <path>: <problem>" (no such file or directory, permission denied, ...).
 */
export async function readFlagFile(flag: string, path: string): Promise<string> {
  return readRegularFile(flag, path);
}

/** A YAML syntax error as an InputError at file:line:col, in words (yamlProblem); `text` lets a duplicate key be named. */
export function malformedYaml(err: YAMLError, file: string, text?: string): InputError {
  if (isStackOverflow(err) || /call stack/i.test(err.message)) return tooDeep(file);
  const pos = err.linePos?.[0];
  return new InputError(
    `${file}${pos ? `:${pos.line}:${pos.col}` : ''}: malformed YAML: ${yamlProblem(err, text)}`,
    file,
    pos ? { line: pos.line, column: pos.col } : undefined,
  );
}

export interface YamlFile {
  doc: Document.Parsed;
  /** The line a node starts on (1 when the path is absent), for file:line in errors and findings. */
  lineOf(path: Array<string | number>): number;
}

/** Who reads a one-document file, for the error when it holds several: `--eksctl` takes one `ClusterConfig`. */
export interface OneDocument {
  flag: string;
  kind: string;
}

/**
 * Parses a file of one YAML document (empty documents around it, as a trailing `---`, are fine); its first syntax
 * error throws (see malformedYaml), and so do several documents, in the words of `one` (the flag and what it takes).
 */
export function parseYamlFile(
  text: string,
  file: string,
  options: ParseOptions & DocumentOptions & SchemaOptions = {},
  one?: OneDocument,
): YamlFile {
  const lineCounter = new LineCounter();
  const all = parseAllDocuments(text, { ...options, lineCounter });
  const docs = Array.isArray(all) ? all : [];
  const bad = docs.find((d) => d.errors.length > 0);
  if (bad) throw malformedYaml(bad.errors[0], file, text);
  // an empty document (a trailing `---`) holds a null scalar
  const full = docs.filter((d) => d.contents !== null && !(isScalar(d.contents) && d.contents.value === null));
  if (full.length > 1) {
    throw new InputError(
      one
        ? `${file} has ${full.length} YAML documents; ${one.flag} takes one ${one.kind}: split the file or pass the ${one.kind} document alone`
        : `${file} has ${full.length} YAML documents; casdoctor reads one from this file: split it`,
      file,
    );
  }
  const doc = full[0] ?? docs[0] ?? parseDocument(text, { ...options, lineCounter: new LineCounter() });
  // the caller turns the Document into JS (toJS / getIn): aliases are resolved there, so bound them here first
  checkAliases(doc, file);
  const lineOf = (path: Array<string | number>): number => {
    const node = doc.getIn(path, true) as { range?: number[] } | undefined;
    return node?.range ? lineCounter.linePos(node.range[0]).line : 1;
  };
  return { doc, lineOf };
}

/** Throws an InputError when resolving the document's aliases would expand beyond MAX_YAML_ALIASES (a "billion laughs"). */
export function checkAliases(doc: Document.Parsed, file: string): void {
  try {
    doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    if (isAliasBomb(e)) throw aliasBomb(file);
    if (isStackOverflow(e)) throw tooDeep(file);
    throw unresolvedAlias(e, file) ?? e;
  }
}

/** The yaml library's ReferenceError for `*name` with no `&name` before it, as an InputError in words; else undefined. */
export function unresolvedAlias(e: unknown, file: string, line?: number): InputError | undefined {
  if (!(e instanceof ReferenceError) || !/alias/i.test(e.message)) return undefined;
  const name = /:\s*(\S{1,80})\s*$/.exec(e.message)?.[1];
  return new InputError(
    `${file}${line ? `:${line}` : ''}: malformed YAML: the alias *${name ?? ''} refers to no anchor (&${name ?? 'name'}) set before it`,
    file,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Errors in the user's words

/**
 * The yaml library's message for an error, without its "at line X, column Y:" suffix and source excerpt, and in the
 * user's words where the library names its own API or internals.
 */
export function yamlProblem(err: YAMLError, text?: string): string {
  const first = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  switch (err.code) {
    case 'DUPLICATE_KEY': {
      const key = text !== undefined ? keyAt(text, err.pos[0]) : undefined;
      // a second object's apiVersion/kind at column 1 after a whole first object (its metadata): two files joined
      // (`cat a.yaml b.yaml`) where one lacks `---`
      const at = err.pos[0];
      const joined =
        text !== undefined &&
        (key === 'apiVersion' || key === 'kind') &&
        at > 0 &&
        text[at - 1] === '\n' &&
        /^metadata:/m.test(text.slice(Math.max(0, text.lastIndexOf('\n---', at)), at));
      return `duplicate key${key ? ` ${JSON.stringify(key)}` : ''} in one mapping (kubectl and kustomize reject it: keep one)${joined ? '; did you concatenate files without `---` between them?' : ''}`;
    }
    case 'MULTIPLE_DOCS':
      return 'more than one YAML document (--- separates them); this input takes one';
    case 'IMPOSSIBLE':
      return 'text the YAML parser cannot read here';
    default:
      // token names are the parser's own ("Unexpected block-map token"): say where, not what the parser calls it
      if (/^Unexpected [\w-]+ token$/.test(first)) return 'unexpected text here (is it indented like its neighbours?)';
      return first.replace(/;? ?please use YAML\.\w+\(\)/, '').replace(/\bYAML\.\w+\(\)/g, 'the YAML parser');
  }
}

/** The key text at offset (a duplicate key's position), bounded: it is foreign text, shown through sanitize. */
function keyAt(text: string, offset: number): string | undefined {
  const line = text.slice(offset, text.indexOf('\n', offset) < 0 ? undefined : text.indexOf('\n', offset));
  const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:#]*?)\s*:(?:\s|$)/.exec(line);
  const raw = m ? m[1] : line;
  let key = raw;
  if (raw.startsWith('"')) {
    try {
      key = JSON.parse(raw) as string;
    } catch {
      key = raw.slice(1, -1);
    }
  } else if (raw.startsWith("'")) key = raw.slice(1, -1).replaceAll("''", "'");
  return key.length > 80 ? `${key.slice(0, 80)}...` : key || undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Large YAML dumps, item by item (`kubectl get pods -A -o yaml`, multi-document files)

/** A YAML document larger than this that cannot be split into list items is refused (the yaml library needs ~50x). */
export const WHOLE_YAML_LIMIT = 16 << 20;

export interface YamlStreamOptions {
  /** Applied to each list item as it is parsed (the offline loader's projection), and to each single-object document. */
  mapItem?: (item: unknown) => unknown;
  /** Largest document parsed whole when it cannot be split (default WHOLE_YAML_LIMIT). */
  wholeLimitBytes?: number;
  /** Counts list items read by the fast parser and by the yaml library (tests, the bench). */
  stats?: { fast: number; library: number };
}

/** A span of the text: [start, end) in characters, and the 1-based line it starts on. */
interface Span {
  start: number;
  end: number;
  line: number;
}

/** Thrown by the fast item parser for anything outside the subset kubectl prints: the yaml library parses that item. */
class NotSimple extends Error {}

const DOC_MARKER = /^(?:---|\.\.\.)(?:[ \t\r\n]|$)/;

/**
 * Parses a YAML text the way parseAllDocuments does, in pieces: documents are split at their `---`/`...` lines, and a
 * document that is a List (a top-level `items:` block sequence) at its items, each parsed alone (and mapped), so
 * neither the library's whole-document tree nor all items unmapped are ever held. Whatever cannot be split safely (a
 * directive, content on a `---` line, anchors shared between items, a flow sequence) is parsed whole when it is at
 * most wholeLimitBytes, else refused with the fix (`-o json`). Errors are InputErrors at file:line:col.
 */
export async function parseYamlStream(text: string, file: string, options: YamlStreamOptions = {}): Promise<unknown[]> {
  const { parseAllDocuments } = await import('yaml');
  const limit = options.wholeLimitBytes ?? WHOLE_YAML_LIMIT;
  const whole = (span: Span, why: string): unknown[] => {
    if (span.end - span.start > limit) {
      throw new InputError(
        `${file}${span.line > 1 ? `:${span.line}` : ''}: a YAML document of ${Math.round((span.end - span.start) / 1e6)} MB that casdoctor cannot read item by item (${why}); re-run kubectl with \`-o json\` (casdoctor streams JSON of any size)`,
        file,
      );
    }
    return parseYamlDocs(parseAllDocuments, text.slice(span.start, span.end), file, span.line, options.mapItem);
  };
  // a directive (%YAML 1.1, %TAG) changes how every document after it is read: no splitting
  if (/^%/m.test(text)) return whole({ start: 0, end: text.length, line: 1 }, 'it has a % directive');
  const out: unknown[] = [];
  for (const span of documentSpans(text)) {
    const list = listSpans(text, span);
    if (list === undefined) {
      // one object per document (`kubectl get -o yaml` of one object, manifests joined by ---): the fast parser first
      let v: unknown;
      try {
        v = parseSimpleDocument(text, span);
        if (options.stats) options.stats.fast++;
      } catch (e) {
        if (!(e instanceof NotSimple)) throw e;
        if (options.stats) options.stats.library++;
        out.push(...whole(span, 'not a List of block items'));
        continue;
      }
      if (v !== null && v !== undefined) out.push(options.mapItem ? options.mapItem(v) : v);
      continue;
    }
    if (list === 'unsplittable') {
      out.push(...whole(span, 'not a List of block items'));
      continue;
    }
    // the List without its items (apiVersion, kind, metadata), items parsed one by one
    const shellText = `${text.slice(list.head.start, list.head.end)}items: []\n${text.slice(list.tail.start, list.tail.end)}`;
    const itemLines = list.tail.line - list.head.line - lineCount(text, list.head.start, list.head.end) - 1;
    let shell: unknown[];
    try {
      shell = parseYamlDocs(parseAllDocuments, shellText, file, list.head.line, undefined);
    } catch (e) {
      // an error after `items: []` is itemLines further down in the file
      if (e instanceof InputError && e.position && e.position.line > list.itemsLine) {
        const line = e.position.line + itemLines;
        throw new InputError(e.message.replace(`:${e.position.line}:`, `:${line}:`), file, { ...e.position, line });
      }
      throw e;
    }
    const doc = shell[0] as Record<string, unknown> | undefined;
    if (shell.length !== 1 || typeof doc !== 'object' || doc === null || !Array.isArray(doc.items)) {
      out.push(...whole(span, 'not a List of block items'));
      continue;
    }
    const items: unknown[] = [];
    // the whole document decides: items share anchors, or the library reads an item differently alone
    let shared = false;
    for (const item of list.items) {
      let v: unknown;
      try {
        v = parseSimpleItem(text, item);
        if (options.stats) options.stats.fast++;
      } catch (e) {
        if (!(e instanceof NotSimple)) throw e;
        if (options.stats) options.stats.library++;
        try {
          const parsed = parseYamlDocs(parseAllDocuments, text.slice(item.start, item.end), file, item.line, undefined, true);
          v = (parsed[0] as unknown[] | undefined)?.[0] ?? null;
        } catch (err) {
          if (err instanceof SharedAnchor) {
            shared = true;
            break;
          }
          // the library reads a few malformed layouts differently in context (a comment at an odd indent after a
          // block scalar header): the whole document, when it may be parsed whole, has the last word
          if (err instanceof InputError && span.end - span.start <= limit) {
            shared = true;
            break;
          }
          throw err;
        }
      }
      items.push(options.mapItem ? options.mapItem(v) : v);
    }
    if (shared) {
      out.push(...whole(span, 'its items share YAML anchors'));
      continue;
    }
    doc.items = items;
    out.push(doc);
  }
  return out;
}

/** An alias to an anchor outside the item being parsed. */
class SharedAnchor extends Error {}

function lineCount(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', start); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** parseAllDocuments on a piece of the file, errors at file:line:col of the whole file; nulls dropped as the loader does. */
function parseYamlDocs(
  parseAll: typeof import('yaml').parseAllDocuments,
  piece: string,
  file: string,
  firstLine: number,
  mapItem: ((item: unknown) => unknown) | undefined,
  item = false,
): unknown[] {
  const docs = parseAll(piece, { uniqueKeys: true });
  const out: unknown[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    const err = d.errors[0];
    if (err) {
      if (isStackOverflow(err) || /call stack/i.test(err.message)) throw tooDeep(file);
      const pos = err.linePos?.[0];
      const line = pos ? pos.line + firstLine - 1 : firstLine;
      throw new InputError(
        `${file}:${line}${pos ? `:${pos.col}` : ''}: malformed YAML: ${yamlProblem(err, piece)}`,
        file,
        pos ? { line, column: pos.col } : undefined,
      );
    }
    let v: unknown;
    try {
      v = d.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    } catch (e) {
      if (isAliasBomb(e)) throw aliasBomb(file);
      if (isStackOverflow(e)) throw tooDeep(file);
      if (item && e instanceof ReferenceError && /alias/i.test(e.message)) throw new SharedAnchor();
      throw unresolvedAlias(e, file, firstLine) ?? e;
    }
    if (v === null || v === undefined) continue;
    // a single object (multi-document manifests and dumps) is projected like a list item
    out.push(mapItem && !item && !(Array.isArray((v as { items?: unknown }).items)) ? mapItem(v) : v);
  }
  return out;
}

/** The documents of a stream: split at `---` and `...` lines (which end any scalar, so a split never cuts one). */
function documentSpans(text: string): Span[] {
  const out: Span[] = [];
  let start = 0;
  let startLine = 1;
  let line = 1;
  for (let at = 0; at < text.length; ) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    if ((text[at] === '-' || text[at] === '.') && DOC_MARKER.test(text.slice(at, Math.min(end, at + 5)))) {
      // `---` starts the next document with its line; `...` ends this one and is dropped (it holds at most a comment)
      const isEnd = text[at] === '.';
      if (at > start) out.push({ start, end: at, line: startLine });
      start = isEnd ? end : at;
      startLine = isEnd ? line + 1 : line;
    }
    at = end;
    line++;
  }
  if (text.length > start) out.push({ start, end: text.length, line: startLine });
  return out;
}

interface ListSpans {
  head: Span;
  tail: Span;
  /** The line of `items:` (1-based, in the file). */
  itemsLine: number;
  items: Span[];
}

const TOP_KEY = /^(?:[A-Za-z_][\w./-]*|"[^"\\\n]*"|'[^'\n]*')[ \t]*:(?:[ \t]|\r?$)/;

/**
 * A document's `items:` block sequence cut into one span per item; undefined when the document has no top-level
 * `items:` followed by block items, 'unsplittable' when a line does not fit the layout (then the document is parsed
 * whole). An item runs from its `- ` line to the next line at or left of its dash that is not blank or a comment.
 */
function listSpans(text: string, doc: Span): ListSpans | 'unsplittable' | undefined {
  let at = doc.start;
  let line = doc.line;
  let itemsAt = -1;
  let itemsLine = 0;
  // the head: up to a top-level `items:` line
  while (at < doc.end) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 || nl >= doc.end ? doc.end : nl + 1;
    const l = text.slice(at, Math.min(end, at + 32));
    if (l.startsWith('items') && /^items[ \t]*:[ \t]*(?:[ \t]#.*)?$/.test(text.slice(at, end).replace(/\r?\n$/, ''))) {
      itemsAt = at;
      itemsLine = line;
      at = end;
      line++;
      break;
    }
    if (/^---[ \t]+[^ \t#\r\n]/.test(l)) return 'unsplittable'; // content on the marker line
    at = end;
    line++;
  }
  if (itemsAt < 0) return undefined;
  const head: Span = { start: doc.start, end: itemsAt, line: doc.line };
  const items: Span[] = [];
  let dash = -1; // the items' indent
  let cur: Span | undefined;
  while (at < doc.end) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 || nl >= doc.end ? doc.end : nl + 1;
    let ind = 0;
    while (text[at + ind] === ' ') ind++;
    const c = text[at + ind];
    const blank = at + ind >= end || c === '\n' || c === '\r' || c === '#';
    if (!blank) {
      if (text[at + ind] === '\t') return 'unsplittable';
      const isDash = c === '-' && (text[at + ind + 1] === ' ' || text[at + ind + 1] === '\n' || text[at + ind + 1] === '\r' || at + ind + 1 >= end);
      if (dash < 0) {
        if (!isDash) return ind === 0 && TOP_KEY.test(text.slice(at, end)) ? undefined : 'unsplittable';
        dash = ind;
      }
      if (ind === dash && isDash) {
        if (cur) cur.end = at;
        cur = { start: at, end: doc.end, line };
        items.push(cur);
      } else if (ind <= dash) {
        // the list ends at the next top-level key; anything else at the dash's column is not a layout casdoctor cuts
        if (ind !== 0 || !TOP_KEY.test(text.slice(at, end))) return 'unsplittable';
        break;
      }
    }
    at = end;
    line++;
  }
  if (cur) cur.end = at;
  if (items.length === 0) return 'unsplittable';
  return { head, tail: { start: at, end: doc.end, line }, itemsLine, items };
}

// ---------------------------------------------------------------------------------------------------------------
// The fast item parser: block mappings and sequences, plain, quoted and literal scalars, as kubectl and yaml printers
// write them. Anything else (anchors, tags, flow collections, folded scalars, multi-line quotes, duplicate keys) throws
// NotSimple and the item goes to the yaml library, so what is returned is always what the library returns.

interface Tag {
  test?: RegExp;
  resolve: (s: string, onError: (m: string) => void, o: object) => unknown;
  default?: boolean | string;
}
let coreTags: Tag[] | undefined;
let coreOptions: object | undefined;

/** Sets up the yaml library's core-schema tags (the same resolution as parseAllDocuments with default options). */
async function loadCoreTags(): Promise<void> {
  if (coreTags) return;
  const { Document } = await import('yaml');
  const doc = new Document(null);
  coreTags = (doc.schema.tags as unknown as Tag[]).filter((t) => t.test && t.default === true);
  coreOptions = doc.options;
}

/** First characters of the plain scalars the core schema reads as something other than a string. */
const NOT_STRING_START = new Set([...'-+.0123456789~nNtTfF']);

function resolvePlain(s: string): unknown {
  if (s !== '' && !NOT_STRING_START.has(s[0])) return s;
  for (const t of coreTags as Tag[]) {
    if (t.test?.test(s)) {
      let bad = false;
      const v = t.resolve(s, () => (bad = true), coreOptions as object);
      if (bad) throw new NotSimple();
      // the null and bool tags resolve to a Scalar node
      return typeof v === 'object' && v !== null && 'value' in v ? (v as { value: unknown }).value : v;
    }
  }
  return s;
}

interface Line {
  indent: number;
  /** The text after the indent, without a trailing CR. */
  text: string;
  /** Empty or a comment. */
  skip: boolean;
}

function parseSimpleItem(text: string, span: Span, item = true): unknown {
  if (!coreTags) throw new NotSimple();
  const raw = text.slice(span.start, span.end).split('\n');
  if (raw.at(-1) === '') raw.pop();
  const lines: Line[] = raw.map((r) => {
    const l = r.endsWith('\r') ? r.slice(0, -1) : r;
    let ind = 0;
    while (l.charCodeAt(ind) === 32) ind++;
    const t = l.slice(ind);
    if (t.includes('\t') || t.includes('\r')) throw new NotSimple();
    return { indent: ind, text: t, skip: t === '' || t[0] === '#' };
  });
  const p = new SimpleParser(lines);
  const node = p.node(0, -1);
  p.skipBlank();
  if (p.i < lines.length) throw new NotSimple();
  if (!item) {
    // a document's top node starts at column 0 (an indented one is the library's to judge)
    if (lines.some((l) => !l.skip) && lines.find((l) => !l.skip)?.indent !== 0) throw new NotSimple();
    return node;
  }
  if (!Array.isArray(node) || node.length !== 1) throw new NotSimple();
  return node[0];
}

/** A whole document (its `---` line, if any, holding nothing else) as a block mapping or sequence. */
function parseSimpleDocument(text: string, span: Span): unknown {
  let start = span.start;
  if (text.startsWith('---', start)) {
    const nl = text.indexOf('\n', start);
    const marker = text.slice(start, nl < 0 ? span.end : nl).replace(/\r$/, '');
    if (!/^---(?:[ ]+#.*|[ ]*)$/.test(marker)) throw new NotSimple();
    start = nl < 0 ? span.end : nl + 1;
  }
  // a byte-order mark is the library's to skip
  if (text.charCodeAt(start) === 0xfeff) throw new NotSimple();
  return parseSimpleItem(text, { start, end: span.end, line: span.line }, false);
}

const PLAIN_START_BAD = /^(?:[-?:](?: |$)|[,[\]{}#&*!|>'"%@`?:])/;

class SimpleParser {
  i = 0;
  constructor(private readonly lines: Line[]) {}

  skipBlank(): void {
    while (this.i < this.lines.length && this.lines[this.i].skip) this.i++;
  }

  /** The block node starting at the next content line, when it is indented at least minIndent. */
  node(minIndent: number, _parent: number): unknown {
    this.skipBlank();
    const l = this.lines[this.i];
    if (!l || l.indent < minIndent) return null;
    if (isDashLine(l.text)) return this.seq(l.indent);
    return this.map(l.indent);
  }

  seq(ind: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent < ind) return out;
      if (l.indent > ind || !isDashLine(l.text)) {
        if (l.indent === ind) return out; // a key after a same-indent sequence: the enclosing mapping's
        throw new NotSimple();
      }
      let off = 1;
      while (l.text[off] === ' ') off++;
      const rest = l.text.slice(off);
      if (rest === '' || rest[0] === '#') {
        this.i++;
        out.push(this.node(ind + 1, ind));
      } else if (isDashLine(rest)) throw new NotSimple();
      else if (keySplit(rest) !== undefined) {
        // a compact mapping: `- key: value` and the keys under it at the column of `key`
        this.lines[this.i] = { indent: ind + off, text: rest, skip: false };
        out.push(this.map(ind + off));
      } else out.push(this.scalar(rest, ind));
    }
  }

  map(ind: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent < ind) return out;
      if (l.indent > ind) throw new NotSimple();
      if (isDashLine(l.text)) return out;
      const kv = keySplit(l.text);
      if (!kv) throw new NotSimple();
      const [key, rest] = kv;
      if (Object.hasOwn(out, key) || key === '__proto__') throw new NotSimple(); // the library words a duplicate
      let v: unknown;
      if (rest === '' || rest[0] === '#') {
        this.i++;
        this.skipBlank();
        const n = this.lines[this.i];
        // a sequence may sit at the key's own column (kubectl's style)
        if (n && (n.indent > ind || (n.indent === ind && isDashLine(n.text)))) v = this.node(ind, ind);
        else v = null;
      } else v = this.scalar(rest, ind);
      out[key] = v;
    }
  }

  /** A scalar starting on the current line after its key or dash; consumes its lines. */
  scalar(s: string, ind: number): unknown {
    const c = s[0];
    if (c === '|') return this.literal(s, ind);
    if (c === '"' || c === "'") {
      if (!closesOnLine(s)) return this.multiQuoted(s, ind);
      const [v, after] = quoted(s);
      if (!/^(?:[ ]+#.*|[ ]*)$/.test(after)) throw new NotSimple();
      this.i++;
      this.noContinuation(ind);
      return v;
    }
    if ((c === '{' || c === '[') && /^(?:\{\}|\[\])(?:[ ]+#.*|[ ]*)$/.test(s)) {
      this.i++;
      this.noContinuation(ind);
      return c === '{' ? {} : [];
    }
    if (PLAIN_START_BAD.test(s)) throw new NotSimple();
    let v = stripComment(s);
    if (v.includes(': ') || v.endsWith(':')) throw new NotSimple();
    this.i++;
    // a plain scalar continues on more-indented lines: folded with spaces, blank lines as newlines
    let blanks = 0;
    while (this.i < this.lines.length) {
      const n = this.lines[this.i];
      if (n.text === '') {
        blanks++;
        this.i++;
        continue;
      }
      if (n.indent <= ind || n.text[0] === '#') break;
      const t = stripComment(n.text);
      if (t !== n.text || t.includes(': ') || t.endsWith(':') || /^[-?:](?: |$)/.test(t)) throw new NotSimple();
      v += blanks ? '\n'.repeat(blanks) : ' ';
      v += t;
      blanks = 0;
      this.i++;
    }
    // the library resolves the folded text (a multi-line `1\n  2` is the string "1 2")
    return resolvePlain(v);
  }

  /**
   * A quoted scalar over several lines (go-yaml wraps long strings so): line breaks fold to a space, empty lines to
   * newlines, the continuation lines' indent is dropped.
   */
  multiQuoted(s: string, ind: number): string {
    const q = s[0];
    const segs: string[] = [s.slice(1)];
    this.i++;
    for (;;) {
      const n = this.lines[this.i];
      if (!n) throw new NotSimple();
      if (n.text !== '' && n.indent <= ind) throw new NotSimple();
      this.i++;
      if (closesOnLine(q + n.text)) {
        const after = quoted(q + n.text)[1];
        if (!/^(?:[ ]+#.*|[ ]*)$/.test(after)) throw new NotSimple();
        segs.push(q === '"' ? rawDoubleQuoted(q + n.text) : n.text.slice(0, n.text.length - after.length - 1));
        break;
      }
      segs.push(n.text);
    }
    let out = '';
    let empties = 0;
    for (let k = 0; k < segs.length; k++) {
      let seg = segs[k];
      const last = k === segs.length - 1;
      if (k > 0 && seg === '' && !last) {
        empties++;
        continue;
      }
      if (!last) {
        // an escaped line break (a trailing backslash) or escaped trailing space: the library's rules
        if (/\\ *$/.test(seg)) throw new NotSimple();
        seg = seg.replace(/ +$/, '');
      }
      if (k > 0) out += empties ? '\n'.repeat(empties) : ' ';
      empties = 0;
      out += q === '"' ? unescapeDouble(seg) : seg.replaceAll("''", "'");
    }
    this.noContinuation(ind);
    return out;
  }

  /** After a one-line value, a more-indented line would be an error (or a continuation the library reads its way). */
  noContinuation(ind: number): void {
    let j = this.i;
    while (j < this.lines.length && this.lines[j].text === '') j++;
    const n = this.lines[j];
    if (n && n.indent > ind && n.text[0] !== '#') throw new NotSimple();
  }

  /** `|`, `|-`, `|+`: lines kept as written, less their common indent. */
  literal(s: string, ind: number): string {
    const m = /^\|([-+]?)(?:[ ]+#.*|[ ]*)$/.exec(s);
    if (!m) throw new NotSimple(); // folded, an indentation indicator
    const chomp = m[1];
    this.i++;
    const body: string[] = [];
    let contentIndent = -1;
    let leadingMax = 0;
    while (this.i < this.lines.length) {
      const n = this.lines[this.i];
      if (n.text === '') {
        if (contentIndent < 0) leadingMax = Math.max(leadingMax, n.indent);
        else if (n.indent > contentIndent) throw new NotSimple();
        body.push('');
        this.i++;
        continue;
      }
      if (contentIndent < 0) {
        if (n.indent <= ind) break;
        contentIndent = n.indent;
        if (leadingMax > contentIndent) throw new NotSimple();
      }
      if (n.indent < contentIndent) break;
      body.push(' '.repeat(n.indent - contentIndent) + n.text);
      this.i++;
    }
    if (contentIndent < 0) throw new NotSimple(); // an empty block scalar: the library's chomping rules
    let trailing = 0;
    while (body.length && body.at(-1) === '') {
      body.pop();
      trailing++;
    }
    const text = body.join('\n');
    if (chomp === '-') return text;
    if (chomp === '+') return `${text}\n${'\n'.repeat(trailing)}`;
    return `${text}\n`;
  }
}

function isDashLine(t: string): boolean {
  return t[0] === '-' && (t.length === 1 || t[1] === ' ');
}

/** Plain keys already checked (a dump repeats a few hundred keys millions of times). */
const KEY_OK = new Map<string, boolean>();

/** `key: rest` → [key, rest]; undefined when the text is not a simple key (plain string or quoted). */
function keySplit(t: string): [string, string] | undefined {
  let key: string;
  let after: string;
  if (t[0] === '"' || t[0] === "'") {
    let q: [string, string];
    try {
      q = quoted(t);
    } catch {
      return undefined;
    }
    [key, after] = q;
    const m = /^[ ]*:(?: +|$)/.exec(after);
    if (!m) return undefined;
    return [key, after.slice(m[0].length)];
  }
  let colon = t.indexOf(':');
  while (colon >= 0 && colon + 1 < t.length && t.charCodeAt(colon + 1) !== 32) colon = t.indexOf(':', colon + 1);
  if (colon <= 0) return undefined;
  key = t.slice(0, colon);
  if (key.charCodeAt(key.length - 1) === 32) key = key.replace(/ +$/, '');
  let ok = KEY_OK.get(key);
  if (ok === undefined) {
    // only keys that resolve to strings: `8080:` or `true:` become numbers or booleans in the library
    ok =
      !PLAIN_START_BAD.test(key) && !key.includes(' #') && key.length <= 1000 && key !== '<<' && resolvePlain(key) === key;
    if (KEY_OK.size < 10_000) KEY_OK.set(key, ok);
  }
  if (!ok) return undefined;
  let a = colon + 1;
  while (t.charCodeAt(a) === 32) a++;
  return [key, t.slice(a)];
}

/** A one-line quoted scalar at the start of t: [value, text after the closing quote]. */
function quoted(t: string): [string, string] {
  if (t[0] === "'") {
    let j = 1;
    for (;;) {
      const q = t.indexOf("'", j);
      if (q < 0) throw new NotSimple();
      if (t[q + 1] === "'") j = q + 2;
      else return [t.slice(1, q).replaceAll("''", "'"), t.slice(q + 1)];
    }
  }
  let j = 1;
  let escaped = false;
  for (; j < t.length; j++) {
    const ch = t[j];
    if (ch === '\\') {
      escaped = true;
      j++;
    } else if (ch === '"') break;
  }
  if (j >= t.length) throw new NotSimple();
  const inner = t.slice(0, j + 1);
  if (!escaped) return [inner.slice(1, -1), t.slice(j + 1)];
  // JSON's escapes mean the same in YAML; YAML's own (\x, \e, \N, ...) go to the library
  if (/\\[^"\\/bfnrtu]/.test(inner)) throw new NotSimple();
  try {
    return [JSON.parse(inner) as string, t.slice(j + 1)];
  } catch {
    throw new NotSimple();
  }
}

/** Whether the quoted scalar opening t also closes on this line. */
function closesOnLine(t: string): boolean {
  const q = t[0];
  for (let j = 1; j < t.length; j++) {
    if (q === '"' && t[j] === '\\') j++;
    else if (t[j] === q) {
      if (q === "'" && t[j + 1] === "'") j++;
      else return true;
    }
  }
  return false;
}

/** The text of a double-quoted line up to (not including) its closing quote, escapes kept. */
function rawDoubleQuoted(t: string): string {
  let j = 1;
  for (; j < t.length && t[j] !== '"'; j++) if (t[j] === '\\') j++;
  return t.slice(1, j);
}

/** JSON's escapes mean the same in YAML; YAML's own (\x, \e, \N, ...) go to the library. */
function unescapeDouble(seg: string): string {
  if (!seg.includes('\\')) {
    if (seg.includes('"')) throw new NotSimple();
    return seg;
  }
  if (/\\[^"\\/bfnrtu]/.test(seg)) throw new NotSimple();
  try {
    return JSON.parse(`"${seg}"`) as string;
  } catch {
    throw new NotSimple();
  }
}

function stripComment(s: string): string {
  const h = s.indexOf(' #');
  if (h < 0 && s.charCodeAt(s.length - 1) !== 32) return s;
  return (h >= 0 ? s.slice(0, h) : s).replace(/ +$/, '');
}

/** parseYamlStream after the fast parser's tables are set up. */
export async function readYamlStream(text: string, file: string, options: YamlStreamOptions = {}): Promise<unknown[]> {
  await loadCoreTags();
  return parseYamlStream(text, file, options);
}
