// CA's status ConfigMap (1.30+) is YAML that go-yaml writes in one narrow style: block mappings and sequences, plain
// words and numbers, double-quoted timestamps. The general YAML parser took 110-160 ms for the 180 KB status of 300
// node groups (every AWS command reads it). This reads that style only, giving exactly what `parse` from the yaml
// package (core schema) gives, and answers undefined for anything else so the caller falls back to the full parser.

type Value = unknown;

/** Thrown inside to abandon the fast path; never escapes parseStatusYaml. */
class NotSimple extends Error {}
const notSimple = (): never => {
  throw new NotSimple();
};

interface Line {
  indent: number;
  text: string;
}

/** A mapping key as go-yaml writes struct fields: a letter, then letters, digits, '_', '-', '.', '/'. */
const KEY = /^([A-Za-z][A-Za-z0-9_./-]*):(?: (.*))?$/;
// the yaml package's core schema (dist/schema/core): a plain scalar matching one of these is not a string
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OTHER_NUMBER = /^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/;
const SIMPLE_FLOAT = /^(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;

function scalar(raw: string): Value {
  if (raw === '{}') return {};
  if (raw === '[]') return [];
  const c = raw[0];
  if (c === '"') return /^"[^"\\]*"$/.test(raw) ? raw.slice(1, -1) : notSimple();
  if (c === "'") return /^'[^']*'$/.test(raw) ? raw.slice(1, -1) : notSimple();
  if (NULL.test(raw)) return null;
  if (BOOL.test(raw)) return raw[0] === 't' || raw[0] === 'T';
  if (INT.test(raw)) return /^(?:0|-?[1-9][0-9]{0,14})$/.test(raw) ? Number(raw) : notSimple();
  if (OTHER_NUMBER.test(raw)) return SIMPLE_FLOAT.test(raw) ? Number(raw) : notSimple();
  // a plain string: no indicator first, no ": " or " #" inside, no trailing space or colon (each means more YAML)
  if (/^[-?:,[\]{}#&*!|>'"%@`\s]/.test(raw) || raw.includes(': ') || raw.includes(' #') || /[\s:]$/.test(raw))
    return notSimple();
  return raw;
}

/**
 * `text` as the yaml package's `parse(text)` reads it, when it is written in go-yaml's block style with simple
 * scalars; undefined otherwise (flow collections other than {} and [], anchors, tags, comments, block scalars,
 * escapes, multi-line scalars, tabs, duplicate keys, documents markers...).
 */
export function parseStatusYaml(text: string): Value | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  const lines: Line[] = [];
  const raw = text.split('\n');
  if (raw[raw.length - 1] === '') raw.pop();
  for (const l of raw) {
    let indent = 0;
    while (l.charCodeAt(indent) === 32) indent++;
    if (indent === l.length) return undefined; // blank lines: not go-yaml's
    lines.push({ indent, text: l.slice(indent) });
  }
  if (lines.length === 0 || lines[0].indent !== 0) return undefined;
  let pos = 0;

  const mapping = (indent: number, first?: string): Record<string, Value> => {
    const out: Record<string, Value> = {};
    let pending = first;
    for (;;) {
      let t: string;
      if (pending !== undefined) {
        t = pending;
        pending = undefined;
      } else {
        const line = lines[pos];
        if (!line || line.indent < indent) break;
        if (line.indent > indent || line.text.startsWith('- ') || line.text === '-') notSimple();
        t = line.text;
        pos++;
      }
      const m = KEY.exec(t);
      // a key the core schema reads as null or a boolean, or one seen before (the yaml package rejects duplicates)
      if (!m || NULL.test(m[1]) || BOOL.test(m[1]) || Object.hasOwn(out, m[1])) notSimple();
      const key = m![1];
      const rest = m![2];
      if (rest !== undefined && rest !== '') {
        out[key] = scalar(rest);
        continue;
      }
      if (rest === '') notSimple(); // "key: " with a trailing space
      const next = lines[pos];
      if (next && next.indent > indent) out[key] = block(next.indent);
      else if (next && next.indent === indent && (next.text.startsWith('- ') || next.text === '-'))
        out[key] = sequence(indent); // go-yaml v2 writes a mapping's sequence at the mapping's own indent
      else out[key] = null;
    }
    return out;
  };

  const sequence = (indent: number): Value[] => {
    const out: Value[] = [];
    for (;;) {
      const line = lines[pos];
      if (!line || line.indent !== indent || !line.text.startsWith('- ')) break;
      pos++;
      const item = line.text.slice(2);
      if (item.startsWith(' ') || item === '') notSimple();
      if (KEY.test(item)) out.push(mapping(indent + 2, item));
      else if (item.startsWith('- ')) notSimple();
      else out.push(scalar(item));
    }
    const after = lines[pos];
    if (after && after.indent > indent) notSimple();
    return out;
  };

  const block = (indent: number): Value => {
    const line = lines[pos];
    return line.text.startsWith('- ') ? sequence(indent) : mapping(indent);
  };

  try {
    const doc = block(0);
    return pos === lines.length ? doc : undefined;
  } catch (e) {
    if (e instanceof NotSimple) return undefined;
    throw e;
  }
}
