// The character-level rule for foreign text, shared by the renderers (src/report/sanitize.ts) and the finding builder
// (a name with a line break must not split a finding's message or fix into lines that look like casdoctor's own).

export const FORMAT = '\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
/** Every control, C1 and bidi/line-separator character: escaped on one line. */
export const UNSAFE_ONE_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${FORMAT}]`, 'g');
/** The same, but line feeds and tabs stay (multi-line blocks). */
export const UNSAFE_MULTI_LINE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT}]`, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The visible form of one unsafe character: `\n`, `\r`, `\t`, `\x1b`, `\x9b`, `\u202e`. */
export function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Foreign text made one line: every unsafe character in its visible form. */
export function oneLine(s: string): string {
  UNSAFE_ONE_LINE.lastIndex = 0;
  return UNSAFE_ONE_LINE.test(s) ? s.replace(UNSAFE_ONE_LINE, escapeChar) : s;
}

/** Whether foreign text holds a character that {@link oneLine} would escape. */
export function hasUnsafe(s: string): boolean {
  UNSAFE_ONE_LINE.lastIndex = 0;
  return UNSAFE_ONE_LINE.test(s);
}
