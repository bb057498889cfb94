// Reads workload manifests for `casdoctor preflight -f`: files, directories (recursively) or stdin, each holding
// multi-document YAML or JSON (`helm template` and `kustomize build` output included). Every object keeps the file
// and line it was written at, so findings point there.
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isMap, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import { InputError } from '../model/errors.js';
import type { KubeObject } from '../model/k8s.js';
import type { LocatedObject, ManifestSet } from '../model/preflight.js';
import { malformedYaml } from './yaml-file.js';

/** The label used for objects read from stdin (`-f -`). */
export const STDIN_LABEL = '<stdin>';

/** Kinds preflight reads; everything else is counted and ignored. */
export const MANIFEST_KINDS = new Set([
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
  'PodDisruptionBudget',
  'PersistentVolumeClaim',
  'StorageClass',
  'PriorityClass',
  'HorizontalPodAutoscaler',
]);

const CLUSTER_SCOPED = new Set(['StorageClass', 'PriorityClass']);
const LOADABLE_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

export interface ReadManifestsOptions {
  /** Namespace for namespaced objects that name none (as `kubectl apply -n`); default "default". */
  defaultNamespace?: string;
  /** Reads all of stdin; injected so tests need no real stdin. */
  readStdin?: () => Promise<string>;
}

/** Reads every -f argument in order. A path that does not exist or a malformed document is an InputError. */
export async function readManifests(
  paths: string[],
  options: ReadManifestsOptions = {},
): Promise<ManifestSet> {
  const set: ManifestSet = { objects: [], sources: [], warnings: [], ignoredKinds: {} };
  if (paths.filter((p) => p === '-').length > 1) throw new InputError('-f - (stdin) can be given only once');
  for (const p of paths) {
    if (p === '-') {
      const text = await (options.readStdin ?? readAllStdin)();
      addParsed(set, parseManifestText(text, STDIN_LABEL));
      set.sources.push(STDIN_LABEL);
      continue;
    }
    for (const file of await listFiles(p)) {
      const text = await readFile(file, 'utf8');
      addParsed(set, parseManifestText(text, file));
      set.sources.push(file);
    }
  }
  finishSet(set, options.defaultNamespace ?? 'default');
  return set;
}

/** Turns parsed texts into a ManifestSet (defaults namespaces, drops duplicates): the pure tail of readManifests. */
export function manifestSetFrom(
  parsed: Array<{ file: string; result: ParsedManifests }>,
  defaultNamespace = 'default',
): ManifestSet {
  const set: ManifestSet = { objects: [], sources: [], warnings: [], ignoredKinds: {} };
  for (const p of parsed) {
    addParsed(set, p.result);
    set.sources.push(p.file);
  }
  finishSet(set, defaultNamespace);
  return set;
}

function addParsed(set: ManifestSet, parsed: ParsedManifests): void {
  set.objects.push(...parsed.objects);
  set.warnings.push(...parsed.warnings);
  for (const [k, n] of Object.entries(parsed.ignoredKinds))
    set.ignoredKinds[k] = (set.ignoredKinds[k] ?? 0) + n;
}

function objectKey(o: KubeObject): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** Defaults namespaces, then keeps the last of several objects with the same kind, namespace and name (as apply would). */
function finishSet(set: ManifestSet, defaultNamespace: string): void {
  for (const { object } of set.objects) {
    if (!CLUSTER_SCOPED.has(object.kind ?? '') && !object.metadata.namespace) {
      object.metadata.namespace = defaultNamespace;
    }
  }
  const last = new Map<string, number>();
  set.objects.forEach((o, i) => last.set(objectKey(o.object), i));
  if (last.size === set.objects.length) return;
  const kept: LocatedObject[] = [];
  set.objects.forEach((o, i) => {
    const winner = last.get(objectKey(o.object)) as number;
    if (winner === i) kept.push(o);
    else {
      const w = set.objects[winner].location;
      set.warnings.push(
        `${o.location.file}:${o.location.line}: ${o.object.kind} ${o.object.metadata.namespace ? `${o.object.metadata.namespace}/` : ''}${o.object.metadata.name} is defined again at ${w.file}:${w.line}; the later one is used`,
      );
    }
  });
  set.objects = kept;
}

async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function listFiles(path: string): Promise<string[]> {
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(path);
  } catch {
    throw new InputError(`-f ${path}: no such file or directory`, path);
  }
  if (st.isFile()) return [path];
  if (!st.isDirectory()) throw new InputError(`-f ${path}: not a file or directory`, path);
  const out: string[] = [];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const full = join(path, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(full)));
    else if (e.isFile() && LOADABLE_EXTENSIONS.has(extname(e.name).toLowerCase())) out.push(full);
  }
  return out;
}

export interface ParsedManifests {
  objects: LocatedObject[];
  warnings: string[];
  ignoredKinds: Record<string, number>;
}

/** A raw value with the 1-based line it starts at. */
interface RawDoc {
  value: unknown;
  line: number;
  /** For a List: the line of each element of `items` (or of a top-level JSON array). */
  itemLines?: number[];
}

/**
 * Parses one text: JSON (one or several concatenated values) or multi-document YAML. Lists (`kind: List`, `XxxList`,
 * or a JSON array) are unpacked with the line of each item. Malformed input throws InputError with file:line:column.
 */
export function parseManifestText(text: string, file: string): ParsedManifests {
  const out: ParsedManifests = { objects: [], warnings: [], ignoredKinds: {} };
  const trimmed = text.trimStart();
  if (trimmed === '') return out;
  const docs =
    trimmed.startsWith('{') || trimmed.startsWith('[') ? parseJson(text, file) : parseYaml(text, file);
  for (const doc of docs) addDoc(out, doc, file);
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function addDoc(out: ParsedManifests, doc: RawDoc, file: string): void {
  const v = doc.value;
  if (v === null || v === undefined) return;
  if (Array.isArray(v)) {
    v.forEach((item, i) => addObject(out, item, { file, line: doc.itemLines?.[i] ?? doc.line }));
    return;
  }
  if (isObject(v) && Array.isArray(v.items) && (typeof v.kind !== 'string' || v.kind.endsWith('List'))) {
    const itemKind = typeof v.kind === 'string' && v.kind !== 'List' ? v.kind.slice(0, -4) : undefined;
    v.items.forEach((item, i) => {
      if (itemKind && isObject(item) && typeof item.kind !== 'string') item.kind = itemKind;
      addObject(out, item, { file, line: doc.itemLines?.[i] ?? doc.line });
    });
    return;
  }
  addObject(out, v, { file, line: doc.line });
}

function addObject(out: ParsedManifests, item: unknown, location: { file: string; line: number }): void {
  const where = `${location.file}:${location.line}`;
  if (!isObject(item)) {
    out.warnings.push(`${where}: not a Kubernetes object (a mapping with kind and metadata); ignored`);
    return;
  }
  const kind = item.kind;
  if (typeof kind !== 'string' || kind === '') {
    out.warnings.push(`${where}: an object without kind; ignored`);
    return;
  }
  if (!MANIFEST_KINDS.has(kind)) {
    if (kind === 'ClusterConfig' && String(item.apiVersion ?? '').startsWith('eksctl.io/')) {
      out.warnings.push(
        `${where}: an eksctl ClusterConfig among the manifests; pass it with --eksctl to use its node groups`,
      );
    } else if (kind === 'NodeGroups' && String(item.apiVersion ?? '').startsWith('casdoctor.io/')) {
      out.warnings.push(
        `${where}: a casdoctor node-groups file among the manifests; pass it with --node-groups`,
      );
    }
    out.ignoredKinds[kind] = (out.ignoredKinds[kind] ?? 0) + 1;
    return;
  }
  if (!isObject(item.metadata)) {
    out.warnings.push(`${where}: ${kind} without metadata; ignored`);
    return;
  }
  const meta = item.metadata;
  if (typeof meta.name !== 'string' || meta.name === '') {
    if (typeof meta.generateName === 'string' && meta.generateName !== '') {
      meta.name = meta.generateName; // Jobs and Pods created with generateName: the prefix stands in for the name
    } else {
      out.warnings.push(`${where}: ${kind} without metadata.name; ignored`);
      return;
    }
  }
  checkStringMaps(out, item, where);
  out.objects.push({ object: item as KubeObject, location });
}

/** kubectl rejects non-string label and annotation values (`safe-to-evict: false` unquoted); say so, keep the text. */
function checkStringMaps(out: ParsedManifests, item: Record<string, unknown>, where: string): void {
  const metas: Array<[string, unknown]> = [['metadata', item.metadata]];
  const spec = item.spec;
  if (isObject(spec)) {
    const template = isObject(spec.template) ? spec.template : undefined;
    if (template) metas.push(['spec.template.metadata', template.metadata]);
    const jobTemplate = isObject(spec.jobTemplate) ? spec.jobTemplate : undefined;
    const jobSpec = jobTemplate && isObject(jobTemplate.spec) ? jobTemplate.spec : undefined;
    if (jobSpec && isObject(jobSpec.template))
      metas.push(['spec.jobTemplate.spec.template.metadata', jobSpec.template.metadata]);
  }
  for (const [path, meta] of metas) {
    if (!isObject(meta)) continue;
    for (const field of ['labels', 'annotations']) {
      const map = meta[field];
      if (!isObject(map)) continue;
      for (const [k, v] of Object.entries(map)) {
        if (typeof v === 'string') continue;
        out.warnings.push(
          `${where}: ${path}.${field}.${k} is ${v === null ? 'null' : `the ${typeof v} ${String(v)}`}, not a string; kubectl rejects it (quote the value)`,
        );
        map[k] = v === null ? '' : String(v);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// YAML

function parseYaml(text: string, file: string): RawDoc[] {
  const lineCounter = new LineCounter();
  // YAML 1.1 with merge keys, as kubectl and helm read manifests (go-yaml): `yes` is a boolean, `<<:` merges
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: false, version: '1.1', merge: true });
  const out: RawDoc[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    const err = d.errors[0];
    if (err) throw malformedYaml(err, file);
    const contents = d.contents;
    if (!contents) continue;
    const value = d.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    const lineOf = (offset: number) => lineCounter.linePos(offset).line;
    const doc: RawDoc = { value, line: lineOf(contents.range?.[0] ?? 0) };
    const items = isSeq(contents) ? contents : isMap(contents) ? contents.get('items', true) : undefined;
    if (isSeq(items))
      doc.itemLines = items.items.map((n) => lineOf((n as { range?: number[] }).range?.[0] ?? 0));
    out.push(doc);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON

interface JsonValueSpan {
  start: number;
  end: number;
  /** Start offsets of the elements of a top-level array, or of the `items` array of a top-level object. */
  elements: number[];
}

/**
 * Finds the top-level values of a JSON text (one, or several concatenated as `cat a.json b.json` makes) and where the
 * elements of a list start, without parsing values. Assumes valid JSON; JSON.parse reports errors afterwards.
 */
export function scanJsonValues(text: string): JsonValueSpan[] {
  const out: JsonValueSpan[] = [];
  type Frame = { open: '{' | '['; expectKey: boolean; key?: string; collect: boolean };
  const stack: Frame[] = [];
  let current: JsonValueSpan | undefined;
  const isWs = (c: string) => c === ' ' || c === '\n' || c === '\r' || c === '\t';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (isWs(c)) {
      i++;
      continue;
    }
    if (stack.length === 0) {
      current = { start: i, end: i, elements: [] };
      out.push(current);
    }
    const top = stack[stack.length - 1];
    if (top?.open === '[' && top.collect && c !== ']' && c !== ',') current?.elements.push(i);
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const raw = text.slice(i, j + 1);
      i = j + 1;
      if (top?.open === '{' && top.expectKey) {
        try {
          top.key = JSON.parse(raw) as string;
        } catch {
          top.key = undefined;
        }
        top.expectKey = false;
      } else if (stack.length === 0 && current) current.end = i;
      continue;
    }
    if (c === '{' || c === '[') {
      const collect =
        c === '[' && (stack.length === 0 || (stack.length === 1 && top?.open === '{' && top.key === 'items'));
      stack.push({ open: c, expectKey: c === '{', collect });
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      stack.pop();
      i++;
      if (stack.length === 0 && current) current.end = i;
      continue;
    }
    if (c === ',') {
      if (top?.open === '{') top.expectKey = true;
      i++;
      continue;
    }
    if (c === ':') {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !isWs(text[j]) && !',]}:{["'.includes(text[j])) j++;
    i = j === i ? i + 1 : j;
    if (stack.length === 0 && current) current.end = i;
  }
  return out;
}

function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

function parseJson(text: string, file: string): RawDoc[] {
  const lineOf = lineIndex(text);
  const spans = scanJsonValues(text);
  if (spans.length <= 1) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw jsonError(e, text, 0, text.length, file, lineOf);
    }
    const span = spans[0];
    return [{ value, line: lineOf(span?.start ?? 0), itemLines: span?.elements.map(lineOf) }];
  }
  return spans.map((span) => {
    try {
      const value = JSON.parse(text.slice(span.start, span.end)) as unknown;
      return { value, line: lineOf(span.start), itemLines: span.elements.map(lineOf) };
    } catch (e) {
      throw jsonError(e, text, span.start, span.end, file, lineOf);
    }
  });
}

/** A JSON.parse error as file:line:column; positions are relative to the parsed slice [start, end) of text. */
function jsonError(
  e: unknown,
  text: string,
  start: number,
  end: number,
  file: string,
  lineOf: (offset: number) => number,
): InputError {
  const msg = e instanceof Error ? e.message : String(e);
  const m = /position (\d+)/.exec(msg);
  const offset = Math.min(text.length, start + (m ? Number(m[1]) : end - start));
  const line = lineOf(offset);
  const column = offset - text.lastIndexOf('\n', offset - 1);
  return new InputError(`${file}:${line}:${column}: malformed JSON: ${msg}`, file, { line, column });
}
