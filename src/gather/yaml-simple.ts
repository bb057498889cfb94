// The fast item parser: block mappings and sequences, plain, quoted and literal scalars, as kubectl and yaml printers
// write them. Anything else (anchors, tags, flow collections, folded scalars, multi-line quotes, duplicate keys) throws
// NotSimple and the item goes to the yaml library, so what is returned is always what the library returns.
// yaml-file.ts hands it the spans of a stream's documents and list items.

/** A span of the text: [start, end) in characters, and the 1-based line it starts on. */
export interface Span {
  start: number;
  end: number;
  line: number;
}

/** Thrown by the fast item parser for anything outside the subset kubectl prints: the yaml library parses that item. */
export class NotSimple extends Error {}

interface Tag {
  test?: RegExp;
  resolve: (s: string, onError: (m: string) => void, o: object) => unknown;
  default?: boolean | string;
}
let coreTags: Tag[] | undefined;
let coreOptions: object | undefined;

/** Sets up the yaml library's core-schema tags (the same resolution as parseAllDocuments with default options). */
export async function loadCoreTags(): Promise<void> {
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

export function parseSimpleItem(text: string, span: Span, item = true): unknown {
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
export function parseSimpleDocument(text: string, span: Span): unknown {
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
