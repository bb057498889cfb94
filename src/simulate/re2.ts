/**
 * Go regexp (RE2 syntax) for JavaScript: reject what Go's regexp.Compile rejects, with Go's error text, and translate
 * the rest into an equivalent RegExp. CA compiles priority-expander rules with regexp.Compile (expander/priority/priority.go).
 *
 * Differences handled: lookaround and backreferences do not exist in RE2 (errors); `(?P<n>` named groups, leading
 * `(?ims)` flags, `\A`, `\z`, `\Q..\E`, `\pL`, `[[:alpha:]]`, `\a`, octal escapes translate; a punctuation escape such
 * as `\-` is literal. Not translatable (reported as `unsupported`, never guessed): flags after the start or in
 * `(?i:...)` groups, `(?U)`, negated POSIX classes. `\s`/`\w`/`\d` are ASCII in Go; node-group names are ASCII.
 */

export interface Re2Result {
  regex?: RegExp;
  /** Go's error, e.g. "error parsing regexp: invalid or unsupported Perl syntax: `(?=`". CA rejects the whole ConfigMap. */
  error?: string;
  /** Valid RE2 that casdoctor cannot evaluate in JavaScript. */
  unsupported?: string;
}

const HEX = /^[0-9a-fA-F]$/;
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

class Re2Error extends Error {}
class Re2Unsupported extends Error {}

function goError(code: string, arg: string): Re2Error {
  return new Re2Error(`error parsing regexp: ${code}: \`${arg}\``);
}

function escapeLiteral(ch: string, inClass: boolean): string {
  if (inClass) return ch === ']' || ch === '\\' || ch === '^' || ch === '-' ? `\\${ch}` : ch;
  return JS_SYNTAX.has(ch) ? `\\${ch}` : ch;
}

function codePointLiteral(cp: number, inClass: boolean): string {
  const ch = String.fromCodePoint(cp);
  if (/[\x20-\x7e]/.test(ch)) return escapeLiteral(ch, inClass);
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u{${cp.toString(16)}}`;
}

/** Translates Go RE2 syntax into a JavaScript RegExp (unanchored, as CA matches with FindStringIndex). */
export function compileRe2(pattern: string): Re2Result {
  try {
    const { source, flags } = translate(pattern);
    try {
      return { regex: new RegExp(source, flags) };
    } catch (e) {
      // a construct both engines reject but this translator does not recognise: Go's wording may differ
      return { error: `error parsing regexp: ${e instanceof Error ? e.message : String(e)}` };
    }
  } catch (e) {
    if (e instanceof Re2Error) return { error: e.message };
    if (e instanceof Re2Unsupported) return { unsupported: e.message };
    throw e;
  }
}

function translate(p: string): { source: string; flags: string } {
  let out = '';
  let i = 0;
  const jsFlags = new Set<string>();
  let unicode = false;
  let depth = 0;
  // what the previous token was, for repetition checks: 'none' (start, after '(' or '|'), 'atom', 'repeat'
  let prev: 'none' | 'atom' | 'repeat' = 'none';
  let lastRepeatStart = -1;
  let atStart = true;

  const readEscape = (inClass: boolean): string => {
    // p[i] === '\\'
    const c = p[i + 1];
    if (c === undefined) throw goError('trailing backslash at end of expression', '');
    const start = i;
    i += 2;
    if (c >= '1' && c <= '7' && /[0-7]/.test(p[i] ?? '')) {
      let digits = c;
      while (digits.length < 3 && /[0-7]/.test(p[i] ?? '')) digits += p[i++];
      return codePointLiteral(parseInt(digits, 8), inClass);
    }
    if (c >= '1' && c <= '9') throw goError('invalid escape sequence', p.slice(start, i));
    if (c === '0') {
      let digits = '';
      while (digits.length < 2 && /[0-7]/.test(p[i] ?? '')) digits += p[i++];
      return codePointLiteral(parseInt(digits || '0', 8), inClass);
    }
    if (c === 'x') {
      if (p[i] === '{') {
        const end = p.indexOf('}', i);
        const hex = end < 0 ? '' : p.slice(i + 1, end);
        if (end < 0 || hex === '' || ![...hex].every((h) => HEX.test(h))) throw goError('invalid escape sequence', p.slice(start, end < 0 ? p.length : end + 1));
        i = end + 1;
        return codePointLiteral(parseInt(hex, 16), inClass);
      }
      const hex = p.slice(i, i + 2);
      if (hex.length < 2 || ![...hex].every((h) => HEX.test(h))) throw goError('invalid escape sequence', p.slice(start, i + hex.length));
      i += 2;
      return codePointLiteral(parseInt(hex, 16), inClass);
    }
    if ('dDsSwW'.includes(c)) return `\\${c}`;
    if ('fnrtv'.includes(c)) return `\\${c}`;
    if (c === 'a') return '\\x07';
    if (c === 'p' || c === 'P') {
      let name: string;
      if (p[i] === '{') {
        const end = p.indexOf('}', i);
        if (end < 0) throw goError('invalid character class range', p.slice(start));
        name = p.slice(i + 1, end);
        i = end + 1;
      } else {
        name = p[i] ?? '';
        i += 1;
      }
      let neg = c === 'P';
      if (name.startsWith('^')) {
        neg = !neg;
        name = name.slice(1);
      }
      if (!/^[A-Za-z_]+$/.test(name)) throw goError('invalid character class range', p.slice(start, i));
      unicode = true;
      const prop = name === 'Any' ? 'Any' : name.length <= 2 ? name : `Script=${name}`;
      return `\\${neg ? 'P' : 'p'}{${prop}}`;
    }
    if (!inClass) {
      if (c === 'b' || c === 'B') return `\\${c}`;
      if (c === 'A') {
        if (jsFlags.has('m')) throw new Re2Unsupported('\\A with the (?m) flag has no JavaScript equivalent');
        return '^';
      }
      if (c === 'z') {
        if (jsFlags.has('m')) throw new Re2Unsupported('\\z with the (?m) flag has no JavaScript equivalent');
        return '$';
      }
      if (c === 'C') return '[\\s\\S]';
      if (c === 'Q') {
        const end = p.indexOf('\\E', i);
        const lit = end < 0 ? p.slice(i) : p.slice(i, end);
        i = end < 0 ? p.length : end + 2;
        return [...lit].map((ch) => codePointLiteral(ch.codePointAt(0)!, false)).join('');
      }
    }
    // Go: any ASCII punctuation may be escaped; letters and digits not listed above are errors
    if (c.charCodeAt(0) < 0x80 && !/[0-9A-Za-z]/.test(c)) return escapeLiteral(c, inClass);
    throw goError('invalid escape sequence', p.slice(start, i));
  };

  const readClass = (): string => {
    const start = i;
    i++; // [
    let body = '';
    if (p[i] === '^') {
      body += '^';
      i++;
    }
    let first = true;
    for (;;) {
      if (i >= p.length) throw goError('missing closing ]', p.slice(start));
      const ch = p[i];
      if (ch === ']' && !first) {
        i++;
        break;
      }
      first = false;
      if (ch === '[' && p[i + 1] === ':') {
        const end = p.indexOf(':]', i + 2);
        if (end > 0) {
          const name = p.slice(i + 2, end);
          if (name.startsWith('^')) throw new Re2Unsupported(`negated POSIX class [:${name}:]`);
          if (!(name in POSIX)) throw goError('invalid character class range', p.slice(i, end + 2));
          body += POSIX[name];
          i = end + 2;
          continue;
        }
      }
      if (ch === '\\') {
        body += readEscape(true);
        continue;
      }
      body += ch === '[' || ch === ']' ? `\\${ch}` : ch;
      i++;
    }
    return `[${body}]`;
  };

  while (i < p.length) {
    const ch = p[i];
    if (ch === '(') {
      if (p[i + 1] === '?') {
        const t = p.slice(i);
        if (t.startsWith('(?P<') || (t[2] === '<' && t[3] !== '=' && t[3] !== '!')) {
          const end = t.indexOf('>');
          const name = end < 0 ? '' : t.slice(t[2] === 'P' ? 4 : 3, end);
          if (end < 0 || !/^[A-Za-z0-9_]+$/.test(name)) throw goError('invalid named capture', end < 0 ? t : t.slice(0, end + 1));
          if (/^[0-9]/.test(name)) throw new Re2Unsupported(`group name "${name}" starts with a digit`);
          out += `(?<${name}>`;
          i += end + 1;
          depth++;
          prev = 'none';
          atStart = false;
          continue;
        }
        if (t[2] === '<') {
          // Go parses "(?<" as a named capture; "(?<=x)" has an invalid name
          const end = t.indexOf('>');
          throw goError('invalid named capture', end < 0 ? t : t.slice(0, end + 1));
        }
        // flags: (?i) (?i:...) (?-s) ...
        let j = 2;
        let flagsOn = '';
        let neg = false;
        while (j < t.length && /[imsU-]/.test(t[j])) {
          if (t[j] === '-') neg = true;
          else if (!neg) flagsOn += t[j];
          j++;
        }
        const term = t[j];
        if ((term === ')' || term === ':') && j > 2 && !t.slice(2, j).endsWith('-')) {
          if (term === ')' && atStart && !neg && !flagsOn.includes('U')) {
            for (const f of flagsOn) jsFlags.add(f);
            i += j + 1;
            continue;
          }
          throw new Re2Unsupported(`the flag group ${t.slice(0, j + 1)} ${term === ':' ? '' : 'after the start '}has no JavaScript equivalent here`);
        }
        if (term === ':' && j === 2) {
          out += '(?:';
          i += 3;
          depth++;
          prev = 'none';
          atStart = false;
          continue;
        }
        throw goError('invalid or unsupported Perl syntax', t.slice(0, Math.min(j + 1, t.length)));
      }
      out += '(';
      i++;
      depth++;
      prev = 'none';
      atStart = false;
      continue;
    }
    atStart = false;
    if (ch === ')') {
      if (depth === 0) throw goError('unexpected )', p);
      depth--;
      out += ')';
      i++;
      prev = 'atom';
      continue;
    }
    if (ch === '|') {
      out += '|';
      i++;
      prev = 'none';
      continue;
    }
    if (ch === '*' || ch === '+' || ch === '?' || (ch === '{' && /^\{\d+(,\d*)?\}/.test(p.slice(i)))) {
      const start = i;
      let op: string;
      if (ch === '{') {
        op = /^\{\d+(,\d*)?\}/.exec(p.slice(i))![0];
        const [lo, hi] = op.slice(1, -1).split(',');
        const min = Number(lo);
        const max = hi === undefined ? min : hi === '' ? -1 : Number(hi);
        if (min > 1000 || max > 1000 || (max >= 0 && max < min)) throw goError('invalid repeat count', op);
      } else op = ch;
      i += op.length;
      if (p[i] === '?') {
        op += '?';
        i++;
      }
      if (prev === 'none') throw goError('missing argument to repetition operator', op);
      if (prev === 'repeat') throw goError('invalid nested repetition operator', p.slice(lastRepeatStart, i));
      lastRepeatStart = start;
      out += op;
      prev = 'repeat';
      continue;
    }
    if (ch === '[') {
      out += readClass();
      prev = 'atom';
      continue;
    }
    if (ch === '\\') {
      const esc = readEscape(false);
      out += esc;
      prev = esc === '^' || esc === '$' || esc === '\\b' || esc === '\\B' ? 'none' : 'atom';
      continue;
    }
    if (ch === '^' || ch === '$') {
      out += ch;
      i++;
      prev = 'none';
      continue;
    }
    // a literal (including a "{" that starts no repeat, which Go takes literally)
    out += ch === '{' || ch === '}' || ch === ']' || ch === '/' ? `\\${ch}` : ch;
    i++;
    prev = 'atom';
  }
  if (depth > 0) throw goError('missing closing )', p);
  return { source: out, flags: [...jsFlags].join('') + (unicode ? 'u' : '') };
}
