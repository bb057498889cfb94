// Reads workload manifests for `casdoctor preflight -f`: files, directories (recursively) or stdin, each holding
// multi-document YAML or JSON (`helm template` and `kustomize build` output included). Every object keeps the file
// and line it was written at, so findings point there.
import { isCollection, isMap, isPair, isSeq, LineCounter, parseAllDocuments, visit } from 'yaml';
import { InputError } from '../model/errors.js';
import type { Deployment, KubeObject } from '../model/k8s.js';
import { isEC2NodeClass, isNodePool, karpenterLegacyProblem } from '../model/karpenter-crds.js';
import type { LocatedObject, ManifestSet } from '../model/preflight.js';
import { scrubCaArgsInDeployments } from '../simulate/scrub-args.js';
import {
  aliasBomb,
  decompressed,
  inputText,
  isAliasBomb,
  isStackOverflow,
  listInputFiles,
  MAX_YAML_ALIASES,
  readRegularFile,
  tooDeep,
  WarningCounter,
} from './input-files.js';
import { malformedYaml, unresolvedAlias } from './yaml-file.js';

/** The label used for objects read from stdin (`-f -`). */
export const STDIN_LABEL = '<stdin>';

/** Kinds that make pods: preflight checks nothing without one. */
export const WORKLOAD_KINDS = new Set([
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'ReplicationController',
  'Job',
  'CronJob',
  'Pod',
]);

/** Kinds preflight reads; everything else is counted and ignored. */
export const MANIFEST_KINDS = new Set([
  ...WORKLOAD_KINDS,
  'PodDisruptionBudget',
  'PersistentVolumeClaim',
  // static provisioning: a claim pre-bound (volumeName) to a PV in the same manifests is bound once applied
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'HorizontalPodAutoscaler',
]);

/** Karpenter's kinds preflight reads beside the workloads (karpenter.sh/v1 NodePool, karpenter.k8s.aws/v1 EC2NodeClass). */
export const KARPENTER_MANIFEST_KINDS = new Set(['NodePool', 'EC2NodeClass']);

/** Custom resources well-known operators turn into pods (kept so a PDB for those pods is not "matches nothing"). */
export const OPERATOR_RESOURCE_KINDS: Record<string, string[]> = {
  'monitoring.coreos.com': ['Prometheus', 'Alertmanager', 'ThanosRuler', 'PrometheusAgent'],
};

export function isOperatorResource(o: { apiVersion?: unknown; kind?: unknown }): boolean {
  const group = String(o.apiVersion ?? '').split('/')[0];
  return (OPERATOR_RESOURCE_KINDS[group] ?? []).includes(String(o.kind ?? ''));
}

/** The containers of a workload's pod template (a Pod's own, a CronJob's job template's), [] when it has none. */
function podContainersOf(o: { kind?: string; spec?: unknown }): unknown[] {
  const at = (v: unknown, ...path: string[]): unknown =>
    path.reduce<unknown>((x, k) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined), v);
  const spec =
    o.kind === 'Pod'
      ? at(o, 'spec')
      : o.kind === 'CronJob'
        ? at(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec')
        : at(o, 'spec', 'template', 'spec');
  const containers = at(spec, 'containers');
  return Array.isArray(containers) ? containers : [];
}

/**
 * Throws an InputError (exit 2) when the manifests hold no workload: an empty `helm template |` pipe, an empty
 * directory or only ConfigMaps and Services would otherwise pass a CI gate with nothing checked.
 */
export function requireWorkloads(set: ManifestSet, paths: readonly string[]): void {
  // a workload counts when preflight can check it: a pod template with at least one container
  if (set.objects.some((o) => WORKLOAD_KINDS.has(o.object.kind ?? '') && podContainersOf(o.object).length > 0)) return;
  const counts = new Map<string, number>();
  for (const o of set.objects) counts.set(o.object.kind ?? '', (counts.get(o.object.kind ?? '') ?? 0) + 1);
  for (const [k, n] of Object.entries(set.ignoredKinds)) counts.set(k, (counts.get(k) ?? 0) + n);
  // kinds are foreign text: only plain identifiers are named
  const named = [...counts].filter(([k]) => /^[A-Za-z][A-Za-z0-9]{0,62}$/.test(k)).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const sources = paths.map((p) => (p === '-' ? 'stdin' : p)).join(', ');
  const found =
    total === 0
      ? set.sources.length === 0
        ? 'no file to read'
        : 'no Kubernetes objects'
      : `only ${named.map(([k, n]) => `${n} ${k}`).join(', ')}${named.length < counts.size ? ', ...' : ''}`;
  const unusable = set.objects.filter((o) => WORKLOAD_KINDS.has(o.object.kind ?? '')).length;
  throw new InputError(
    `no workloads in the input: did \`helm template\` fail? (-f ${sources}: ${found}${unusable ? `; ${unusable} workload(s) without a container to check` : ''})`,
  );
}

const CLUSTER_SCOPED = new Set(['StorageClass', 'PriorityClass', 'PersistentVolume', ...KARPENTER_MANIFEST_KINDS]);
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
    for (const file of await listInputFiles('-f', p, LOADABLE_EXTENSIONS, set.warnings)) {
      const text = await readRegularFile('-f', file);
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
  // `helm template | gzip` or a PowerShell pipe's byte-order mark, as for a file
  return inputText(await decompressed('-f', STDIN_LABEL, Buffer.concat(chunks)));
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
  // an unrendered Helm template: `{{- if … }}` would otherwise be read as (malformed) JSON or YAML
  const helm = HELM_ACTION.exec(text);
  const helmError = () => {
    const line = helm ? lineIndex(text)(helm.index) : 1;
    return new InputError(
      `${file}:${line}: an unrendered Helm template ("${helm?.[0].slice(0, 40)}"): render it first (\`helm template <release> <chart> | casdoctor preflight -f -\`)`,
      file,
      { line, column: 1 },
    );
  };
  if (helm && trimmed.startsWith('{{')) throw helmError();
  let docs: RawDoc[];
  try {
    docs = trimmed.startsWith('{') || trimmed.startsWith('[') ? parseJson(text, file) : parseYaml(text, file, out.warnings);
  } catch (e) {
    if (isStackOverflow(e)) throw tooDeep(file);
    if (helm && e instanceof InputError) throw helmError();
    throw e;
  }
  // an unquoted action (`name: {{ include … }}`) parses as a mapping key: the objects are garbage, not just literal
  if (helm && out.warnings.some((w) => w.includes(COLLECTION_KEY))) throw helmError();
  if (helm) {
    out.warnings.push(
      `${file}:${lineIndex(text)(helm.index)}: "${helm[0].slice(0, 40)}" looks like an unrendered Helm template; it is read literally (render it first: \`helm template <release> <chart> | casdoctor preflight -f -\`)`,
    );
  }
  for (const doc of docs) addDoc(out, doc, file);
  // one warning per distinct text: a million null items are one line with a count
  const counter = new WarningCounter();
  for (const w of out.warnings) counter.add(w);
  out.warnings = counter.flush();
  // secrets on command lines (a CA Deployment's --password) never reach a finding's evidence
  scrubCaArgsInDeployments(
    out.objects.filter((o) => o.object.kind === 'Deployment').map((o) => o.object as Deployment),
  );
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
  // Karpenter's kinds: v1 only, recognised as the offline loader recognises them (model/karpenter-crds.ts)
  const legacy = karpenterLegacyProblem(kind, item.apiVersion);
  if (legacy) {
    out.warnings.push(`${where}: ${legacy}; ignored`);
    out.ignoredKinds[kind] = (out.ignoredKinds[kind] ?? 0) + 1;
    return;
  }
  const karpenter = KARPENTER_MANIFEST_KINDS.has(kind) && /^karpenter\.(sh|k8s\.aws)\//.test(String(item.apiVersion ?? ''));
  if (!MANIFEST_KINDS.has(kind) && !isOperatorResource(item) && !karpenter) {
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
  if (karpenter && !(kind === 'NodePool' ? isNodePool(item) : isEC2NodeClass(item))) {
    out.warnings.push(
      `${where}: a ${kind} without the spec Karpenter requires (a NodePool needs spec.template.spec.requirements and nodeClassRef); ignored`,
    );
    return;
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
          `${where}: ${path}.${field}.${k} is ${v === null ? 'null' : typeof v === 'object' ? `a ${Array.isArray(v) ? 'list' : 'mapping'} (an unquoted "{{ }}"?)` : `the ${typeof v} ${String(v)}`}, not a string; kubectl rejects it (quote the value)`,
        );
        map[k] = v === null ? '' : String(v);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// YAML

/** A Helm template action: `{{ .Values.x }}`, `{{- include … }}`, a `{{/` comment. */
const HELM_ACTION =
  /\{\{-?\s*(?:\.(?:Values|Release|Chart|Files|Capabilities|Template)\b|(?:include|template|define|toYaml|tpl)\s|(?:if|with|range)\s[^}\n]*\.Values|\/\*)[^\n]*?\}\}/;

const COLLECTION_KEY = 'a mapping key that is itself a mapping or list';

function parseYaml(text: string, file: string, warnings: string[]): RawDoc[] {
  const lineCounter = new LineCounter();
  // YAML 1.1 with merge keys, as kubectl and helm read manifests (go-yaml): `yes` is a boolean, `<<:` merges;
  // logLevel error: the yaml library's own process warnings never leak, casdoctor words them with file:line
  const docs = parseAllDocuments(text, {
    lineCounter,
    // a duplicate key is an error, as `kubectl kustomize` (kyaml) and the API server's strict decoding make it
    uniqueKeys: true,
    version: '1.1',
    merge: true,
    logLevel: 'error',
  });
  const out: RawDoc[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    const err = d.errors[0];
    if (err) throw malformedYaml(err, file, text);
    const contents = d.contents;
    if (!contents) continue;
    visit(d, {
      Pair(_, pair) {
        if (isPair(pair) && isCollection(pair.key)) {
          const at = lineCounter.linePos(pair.key.range?.[0] ?? 0).line;
          warnings.push(
            `${file}:${at}: ${COLLECTION_KEY} (kubectl rejects it; an unquoted "{{ }}"?); read as text`,
          );
        }
      },
    });
    let value: unknown;
    try {
      value = d.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    } catch (e) {
      if (isAliasBomb(e)) throw aliasBomb(file);
      throw unresolvedAlias(e, file, lineCounter.linePos(contents.range?.[0] ?? 0).line) ?? e;
    }
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
