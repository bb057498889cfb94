// A YAML document as the Go decoders see it: scalars keep their source text and whether they were quoted, so each
// field can be converted the way yaml.v3 (ConfigMap) or viper+mapstructure (file) would. Pure: text in, data out.
import { type Document, isAlias, isMap, isScalar, isSeq, type Node as YamlNode, parseDocument } from 'yaml';

export interface TScalar {
  kind: 'scalar';
  /** The scalar's text ("" for an empty/null value). */
  text: string;
  quoted: boolean;
  /** Plain `~`, `null`, `Null`, `NULL` or an empty value. */
  isNull: boolean;
}
export interface TMap {
  kind: 'map';
  entries: Map<string, TNode>;
}
export interface TSeq {
  kind: 'seq';
  items: TNode[];
}
export type TNode = TScalar | TMap | TSeq;

const MAX_DEPTH = 64;
/** Bounds alias expansion ("billion laughs"). */
const MAX_NODES = 200_000;

function convert(node: unknown, doc: Document.Parsed, depth: number, budget: { left: number }): TNode {
  if (depth > MAX_DEPTH) throw new Error('YAML nested too deeply');
  if (--budget.left < 0) throw new Error('YAML expands to too many nodes (aliases)');
  if (isAlias(node)) return convert(node.resolve(doc), doc, depth + 1, budget);
  if (isMap(node)) {
    const entries = new Map<string, TNode>();
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? String(pair.key.source ?? pair.key.value ?? '') : String(pair.key);
      entries.set(k, convert(pair.value, doc, depth + 1, budget));
    }
    return { kind: 'map', entries };
  }
  if (isSeq(node)) return { kind: 'seq', items: node.items.map((i) => convert(i, doc, depth + 1, budget)) };
  if (isScalar(node)) {
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
    const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
    const isNull = node.value === null && !quoted;
    const text = quoted || block ? String(node.value ?? '') : isNull ? '' : (node.source ?? String(node.value));
    return { kind: 'scalar', text, quoted: quoted || block, isNull };
  }
  // an empty value (`key:`) arrives as null
  return { kind: 'scalar', text: '', quoted: false, isNull: true };
}

/** Parses one YAML document into a tree; throws Error with the parser's first message on a syntax error. */
export function parseTree(text: string): TNode | undefined {
  const doc = parseDocument(text, { uniqueKeys: false });
  const err = doc.errors[0];
  if (err) throw new Error(err.message.split('\n')[0]);
  if (doc.contents === null) return undefined;
  return convert(doc.contents as YamlNode, doc, 0, { left: MAX_NODES });
}

/** A map entry by key: exact (yaml.v3 tags) or case-insensitive (mapstructure, which viper's Unmarshal uses). */
export function field(m: TNode | undefined, key: string, caseInsensitive: boolean): TNode | undefined {
  if (m?.kind !== 'map') return undefined;
  const exact = m.entries.get(key);
  if (exact !== undefined || !caseInsensitive) return exact;
  const lower = key.toLowerCase();
  for (const [k, v] of m.entries) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export function isNullNode(n: TNode | undefined): boolean {
  return n === undefined || (n.kind === 'scalar' && n.isNull);
}
