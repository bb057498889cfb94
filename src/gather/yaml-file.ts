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
import { loadCoreTags, NotSimple, parseSimpleDocument, parseSimpleItem, type Span } from './yaml-simple.js';

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

/** parseYamlStream after the fast parser's tables are set up. */
export async function readYamlStream(text: string, file: string, options: YamlStreamOptions = {}): Promise<unknown[]> {
  await loadCoreTags();
  return parseYamlStream(text, file, options);
}
