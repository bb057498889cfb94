// The one place where foreign text (names, labels, annotations, events, tags, status text, server errors, manifests,
// file contents quoted in parse errors) becomes output. Nothing from a cluster, an AWS account or a pull request may
// drive the reader's terminal or PR page: control characters and bidi/format characters are shown as escapes
// (`\x1b`, `\u202e`) and never emitted; markdown and HTML are escaped for GitHub; long values are cut with a count.
// Sanitize a foreign value BEFORE styling it: the colours and links casdoctor adds itself must keep working.

import { escapeChar, FORMAT, UNSAFE_MULTI_LINE, UNSAFE_ONE_LINE } from '../model/text.js';

export interface SafeTextOptions {
  /**
   * Keep line feeds and tabs (remediation snippets, multi-line notes, error texts). CRLF becomes LF; a lone CR is always
   * escaped, since it moves the cursor back over text already printed. Default: one line, where `\n` and `\t` are
   * escaped too (a newline in a table cell or a header would forge a line of casdoctor's own).
   */
  multiline?: boolean;
  /** Longest value kept, in UTF-16 code units; the rest becomes `…(+N chars)`. Default {@link DEFAULT_MAX}. */
  max?: number;
}

/** Generous: whole finding messages pass intact; a 256 KiB annotation or an endless event message does not. */
export const DEFAULT_MAX = 10_000;

// C0 controls (ESC, BEL, CR, BS ...), DEL, C1 controls (CSI 0x9b, OSC 0x9d ...), the bidi marks, embeddings, overrides
// and isolates (Trojan Source, CVE-2021-42574), the Arabic letter mark, and the Unicode line/paragraph separators.
export { escapeChar };

function asString(s: unknown): string {
  return typeof s === 'string' ? s : s === undefined || s === null ? '' : String(s);
}

/** Cuts `s` to `max` code units (never inside a surrogate pair) and says how much was cut. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = Math.max(0, max);
  const c = s.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return `${s.slice(0, cut)}…(+${s.length - cut} chars)`;
}

/**
 * Foreign text for a terminal, a log or any plain-text format: control characters, DEL, C1 controls and bidi/format
 * characters become visible escapes; the value is cut at `max`. Text without any of them is returned as is.
 */
export function safeText(s: unknown, o: SafeTextOptions = {}): string {
  let t = asString(s);
  t = truncate(t, o.max ?? DEFAULT_MAX);
  if (o.multiline) {
    if (t.includes('\r')) t = t.replaceAll('\r\n', '\n');
    UNSAFE_MULTI_LINE.lastIndex = 0;
    return UNSAFE_MULTI_LINE.test(t) ? t.replace(UNSAFE_MULTI_LINE, escapeChar) : t;
  }
  UNSAFE_ONE_LINE.lastIndex = 0;
  return UNSAFE_ONE_LINE.test(t) ? t.replace(UNSAFE_ONE_LINE, escapeChar) : t;
}

/** {@link safeText} for a multi-line block: line feeds and tabs stay. */
export function safeLines(s: unknown, max?: number): string {
  return safeText(s, { multiline: true, ...(max === undefined ? {} : { max }) });
}

export interface SafeMarkdownOptions {
  /** One line (a table cell, a list item): newlines become spaces. Default: a block, whose lines stay lines. */
  cell?: boolean;
  /** With `cell`: the text starts a line or a list item, where it must not open a heading, quote or list either. */
  lineStart?: boolean;
  max?: number;
}

// One pass (so nothing inserted is escaped again): backslash before the punctuation that starts markup inline (code
// spans, emphasis, strikethrough, links, images, table cells), entities for `&` and `<` (no HTML), and a zero-width space
// after `@` / `#` / `GH-` where GitHub would mention or link. That is Renovate's proven form: GitHub's mention and
// reference filters run on the rendered text, so `&#64;` alone, decoded to `@` before they run, would still mention.
const MD_INLINE = /[\\`*_~[\]|&<]|@(?=[A-Za-z0-9_-])|#(?=\d)|\bGH-(?=\d)/gi;
const ZWSP = '&#8203;';

function markdownInline(t: string): string {
  return t.replace(MD_INLINE, (m) => {
    if (m === '&') return '&amp;';
    if (m === '<') return '&lt;';
    if (m === '@' || m === '#') return `${m}${ZWSP}`;
    if (m.length === 3) return `${m.slice(0, 2)}${ZWSP}-`;
    return `\\${m}`;
  });
}

// What may open a block at the start of a line: headings, quotes, list items, setext underlines, ordered lists.
const BLOCK_START = /^( {0,3})(#|>|-|\+|=|(\d{1,9})([.)]))/;

/**
 * Foreign text for GitHub-flavoured markdown (a PR comment): {@link safeText} first, then HTML (`<`, `&`) and the
 * markdown that could add links, images, code, emphasis or tables is escaped; a line cannot open a heading, quote or list;
 * `@user`, `#123` and `GH-123` do not mention or link. `>` stays literal mid-line, where it opens nothing. Bare URLs stay
 * visible text (GitHub may autolink them; the address is always shown).
 */
export function safeMarkdown(s: unknown, o: SafeMarkdownOptions = {}): string {
  if (o.cell) {
    const one = safeText(asString(s).replace(/\r\n|\r|\n/g, ' '), { max: o.max });
    return o.lineStart ? markdownLine(one) : markdownInline(one);
  }
  return safeText(s, { multiline: true, max: o.max }).split('\n').map(markdownLine).join('\n');
}

function markdownLine(line: string): string {
  return markdownInline(line).replace(BLOCK_START, (_m, sp: string, tok: string, digits?: string, dot?: string) =>
    digits !== undefined ? `${sp}${digits}\\${dot}` : `${sp}\\${tok}`,
  );
}

/** A markdown code span holding foreign text on one line; `cell` also escapes `|`, which GFM splits cells on even in code. */
export function safeCodeSpan(s: unknown, o: { cell?: boolean; max?: number } = {}): string {
  let t = safeText(s, { max: o.max });
  if (o.cell) t = t.replaceAll('|', '\\|');
  const longest = Math.max(0, ...[...t.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

// Characters JSON.stringify leaves raw that a terminal or a browser still acts on: DEL, C1 controls, bidi and line
// separators. They only ever occur inside JSON strings, where `\uXXXX` is the same character.
const JSON_RAW_UNSAFE = new RegExp(`[\\u007f-\\u009f${FORMAT}]`, 'g');

/**
 * Serialized JSON made safe to print: the data is unchanged (a parser reads the same values), but no character in it
 * can act on a terminal. JSON.stringify already writes C0 controls (ESC, BEL, CR) as `\u001b` and so on.
 */
export function safeJsonText(json: string): string {
  JSON_RAW_UNSAFE.lastIndex = 0;
  if (!JSON_RAW_UNSAFE.test(json)) return json;
  return json.replace(JSON_RAW_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// The escape sequences casdoctor writes itself: chalk's SGR colours (level 1: bold, dim, red, green, yellow, cyan and
// their resets), OSC 8 links to its own docs (no other target), and the clear-screen that starts a --watch round at a terminal.
const OWN_SEQUENCE =
  '\\u001b\\[(?:1|2|22|3[1-9])m|\\u001b\\]8;;(?:https://github\\.com/casdoctor/casdoctor/[^\\u0000-\\u001f\\u007f-\\u009f]*)?\\u0007';
const UNSAFE_OUTPUT = `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT}]`;
const OWN_AT = new RegExp(OWN_SEQUENCE, 'y');
const UNSAFE_OUT = new RegExp(UNSAFE_OUTPUT, 'g');
const OWN_OR_UNSAFE = new RegExp(`${OWN_SEQUENCE}|${UNSAFE_OUTPUT}`, 'g');
const WATCH_CLEAR = '\u001b[H\u001b[2J';

/** Whether `s` holds a control or bidi character that is not part of one of casdoctor's own sequences. */
function hasForeignControl(s: string): boolean {
  UNSAFE_OUT.lastIndex = 0;
  for (let m = UNSAFE_OUT.exec(s); m; m = UNSAFE_OUT.exec(s)) {
    OWN_AT.lastIndex = m.index;
    if (!OWN_AT.test(s)) return true;
    UNSAFE_OUT.lastIndex = OWN_AT.lastIndex;
  }
  return false;
}

/**
 * The last net on stdout: keeps the escape sequences casdoctor writes itself and makes every other control or bidi
 * character visible. Renderers sanitize each foreign value; this catches a value a command printed without them.
 */
export function guardTerminalOutput(s: string): string {
  const head = s.startsWith(WATCH_CLEAR) ? WATCH_CLEAR : '';
  const body = head ? s.slice(head.length) : s;
  // a scan without building strings: a coloured 9 MB report passes in a fraction of the time a replace takes
  if (!hasForeignControl(body)) return s;
  OWN_OR_UNSAFE.lastIndex = 0;
  return head + body.replace(OWN_OR_UNSAFE, (m) => (m.length > 1 ? m : escapeChar(m)));
}
