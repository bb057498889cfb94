// Manifest snippets for remediations, emitted by the yaml library so a hostile name or value cannot add keys or lines.
import { Scalar, stringify, YAMLMap, YAMLSeq } from 'yaml';

/** A string the snippet shows in double quotes (annotation and label values, as users write them). */
export function quoted(value: string): Scalar<string> {
  const s = new Scalar(value);
  s.type = Scalar.QUOTE_DOUBLE;
  return s;
}

/** A list the snippet shows on one line: `[a, b]`. */
export function flowList(items: unknown[]): YAMLSeq {
  const seq = new YAMLSeq();
  for (const item of items) seq.items.push(item);
  seq.flow = true;
  return seq;
}

/** A mapping in the order given (a plain object would move integer-like keys such as label "1" first). */
export function orderedMap(entries: Array<[string, unknown]>): YAMLMap {
  const map = new YAMLMap();
  for (const [k, v] of entries) map.set(k, v);
  return map;
}

/** A mapping the snippet shows on one line: `{name: x}`. */
export function flowMap(entries: Record<string, unknown>): YAMLMap {
  const map = new YAMLMap();
  for (const [k, v] of Object.entries(entries)) map.set(k, v);
  map.flow = true;
  return map;
}

/** YAML for `value`, every line indented by `indent` spaces, no trailing newline; long strings are never folded. */
export function yamlSnippet(value: unknown, indent = 0, opts: { indentSeq?: boolean } = {}): string {
  const text = stringify(value, { lineWidth: 0, flowCollectionPadding: false, indentSeq: opts.indentSeq ?? true }).replace(/\n$/, '');
  const pad = ' '.repeat(indent);
  return text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}
