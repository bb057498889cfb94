import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { InputError } from '../model/errors.js';
import { type DataKind, emptyInputs, type RawInputs } from '../model/snapshot.js';
import { type ReadOptions, readDocuments, SharedPool } from './json-stream.js';
import { type FieldProfile, fitToShape } from './shape.js';
import { fromTransport, KIND_TO_DATA, kindTarget, Prefitted, prefit, whoOf } from './prefit.js';

const PREFIT_URL = new URL('./prefit.js', import.meta.url).href;

const K8S_DATA_KINDS = new Set<DataKind>(Object.values(KIND_TO_DATA));

const LOADABLE_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

export interface LoadOptions extends Omit<ReadOptions, 'parallel' | 'mapItem'> {
  /** Called once per file read, for progress on stderr. */
  onFile?: (path: string) => void;
  /**
   * 'read' (the default) keeps only the fields of Kubernetes objects that casdoctor reads (src/gather/shape.ts), as
   * each is parsed; 'why-pending' keeps even less of pods already on a node; 'all' keeps whole objects, for `casdoctor
   * snapshot`, which writes them back out.
   */
  fields?: 'read' | 'why-pending' | 'all';
  /** Parse workers for large files (not with fields 'all'): size threshold and count (0: none); defaults in json-stream.ts. */
  parallel?: { thresholdBytes?: number; workers?: number };
}

/**
 * Reads `kubectl get -o json|yaml` and `aws ... --output json` dumps from files and directories (recursively),
 * recognising each document by its content, not its file name.
 */
export async function loadOffline(paths: string[], options: LoadOptions = {}): Promise<RawInputs> {
  const inputs = emptyInputs();
  const files: string[] = [];
  for (const p of paths) files.push(...(await listFiles(p)));
  const fields = options.fields ?? 'read';
  const profile: FieldProfile | undefined = fields === 'all' ? undefined : fields;
  const { parallel, ...read } = options;
  // one set of parse workers for every large file of this load, started by the first
  const pool = new SharedPool(PREFIT_URL, profile, parallel?.workers);
  try {
    for (const file of files) await loadFile(inputs, file, profile, read, { ...parallel, pool });
  } finally {
    await pool.close();
  }
  dedupe(inputs);
  return inputs;
}

async function loadFile(
  inputs: RawInputs,
  file: string,
  profile: FieldProfile | undefined,
  options: Omit<LoadOptions, 'parallel'>,
  parallel: { thresholdBytes?: number; pool: SharedPool },
): Promise<void> {
  options.onFile?.(file);
  const docs = await readDocuments(
    file,
    parseDocuments,
    profile
      ? {
          ...options,
          mapItem: (item) => prefit(item, profile),
          parallel: {
            mapperUrl: PREFIT_URL,
            mapperArg: profile,
            fromTransport,
            thresholdBytes: parallel.thresholdBytes,
            pool: parallel.pool,
          },
        }
      : options,
  );
  let recognised = 0;
  const problems: string[] = [];
  for (const doc of docs) recognised += addDocument(inputs, doc, file, problems, profile);
  if (recognised === 0 && docs.length > 0 && !docs.every(isEmptyList)) {
    inputs.warnings.push(`${file}: no Kubernetes object or AWS output casdoctor recognises; ignored`);
  }
  if (problems.length > 0) {
    inputs.warnings.push(
      `${file}: ${problems.length} value(s) of the wrong type ignored (${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; ...' : ''})`,
    );
  }
  inputs.sources.push(file);
}

async function listFiles(path: string): Promise<string[]> {
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(path);
  } catch {
    throw new InputError(`--from ${path}: no such file or directory`, path);
  }
  if (st.isFile()) return [path];
  if (!st.isDirectory()) throw new InputError(`--from ${path}: not a file or directory`, path);
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

/** JSON (one value) or YAML (one or more documents). Malformed input → InputError with line and column. */
export async function parseDocuments(text: string, file: string): Promise<unknown[]> {
  const trimmed = text.trimStart();
  if (trimmed === '') return [];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return [JSON.parse(text)];
    } catch (e) {
      throw jsonError(e, text, file);
    }
  }
  const { parseAllDocuments } = await import('yaml');
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  const out: unknown[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    const err = d.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      throw new InputError(
        `${file}${pos ? `:${pos.line}:${pos.col}` : ''}: malformed YAML: ${err.message.split('\n')[0]}`,
        file,
        pos ? { line: pos.line, column: pos.col } : undefined,
      );
    }
    const v = d.toJS({ maxAliasCount: 100 });
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

function jsonError(e: unknown, text: string, file: string): InputError {
  const msg = e instanceof Error ? e.message : String(e);
  const m = /position (\d+)/.exec(msg);
  let line: number;
  let column: number;
  if (m) {
    const offset = Number(m[1]);
    const before = text.slice(0, offset);
    line = before.split('\n').length;
    column = offset - before.lastIndexOf('\n');
  } else {
    // "Unexpected end of JSON input": the position is the end of the file
    const lines = text.split('\n');
    line = lines.length;
    column = (lines.at(-1)?.length ?? 0) + 1;
  }
  return new InputError(`${file}:${line}:${column}: malformed JSON: ${msg}`, file, { line, column });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyList(doc: unknown): boolean {
  return isObject(doc) && Array.isArray(doc.items) && doc.items.length === 0;
}

/** Adds one parsed document; returns how many objects it recognised. */
function addDocument(
  inputs: RawInputs,
  doc: unknown,
  file: string,
  problems: string[],
  profile: FieldProfile | undefined,
): number {
  if (Array.isArray(doc)) return doc.reduce<number>((n, d) => n + addDocument(inputs, d, file, problems, profile), 0);
  if (!isObject(doc)) return 0;
  // Kubernetes List / XxxList
  if (Array.isArray(doc.items) && (typeof doc.kind !== 'string' || doc.kind.endsWith('List'))) {
    const itemKind = typeof doc.kind === 'string' && doc.kind !== 'List' ? doc.kind.slice(0, -4) : undefined;
    // An empty typed list (PodDisruptionBudgetList, as the API server and `casdoctor snapshot` write it) still says
    // "there are none", unlike an empty `List`.
    const typed = itemKind !== undefined ? kindTarget(itemKind) : undefined;
    if (typed && doc.items.length === 0) {
      inputs.provided.add(typed);
      return 1;
    }
    let n = 0;
    for (const item of doc.items)
      n += addKubeObject(inputs, item, file, problems, profile, itemKind, doc.apiVersion);
    return n;
  }
  if (typeof doc.kind === 'string' && isObject(doc.metadata)) return addKubeObject(inputs, doc, file, problems, profile);
  return addAwsOutput(inputs, doc, file, problems);
}

const unknownKindsWarned = new WeakMap<RawInputs, Set<string>>();

function addKubeObject(
  inputs: RawInputs,
  item: unknown,
  file: string,
  problems: string[],
  profile: FieldProfile | undefined,
  listItemKind?: string,
  listApiVersion?: unknown,
): number {
  if (item instanceof Prefitted) {
    for (const p of item.problems) problems.push(`${item.who}: ${p}`);
    inputs.provided.add(item.target);
    const obj = item.obj;
    if (obj && typeof obj.apiVersion !== 'string' && typeof listApiVersion === 'string' && listApiVersion !== 'v1')
      obj.apiVersion = listApiVersion;
    if (obj) (inputs[item.target] as unknown[]).push(obj);
    return 1;
  }
  if (!isObject(item)) {
    inputs.warnings.push(`${file}: a list item is not an object; ignored`);
    return 0;
  }
  const kind = typeof item.kind === 'string' ? item.kind : listItemKind;
  if (!kind) {
    inputs.warnings.push(`${file}: a list item has no kind; ignored`);
    return 0;
  }
  if (
    kind === 'Event' &&
    typeof item.apiVersion === 'string' &&
    item.apiVersion.startsWith('events.k8s.io/')
  ) {
    item = fromEventsV1(item);
  }
  const target = kindTarget(kind);
  if (!target) {
    let warned = unknownKindsWarned.get(inputs);
    if (!warned) unknownKindsWarned.set(inputs, (warned = new Set()));
    if (!warned.has(kind)) {
      warned.add(kind);
      inputs.warnings.push(`${file}: kind ${kind} is not used by casdoctor; ignored`);
    }
    return 0;
  }
  const obj = item as Record<string, unknown>;
  if (!isObject(obj.metadata)) {
    inputs.warnings.push(`${file}: a ${kind} without metadata; ignored`);
    return 0;
  }
  if (typeof obj.kind !== 'string') obj.kind = kind;
  if (typeof obj.apiVersion !== 'string' && typeof listApiVersion === 'string' && listApiVersion !== 'v1') {
    obj.apiVersion = listApiVersion;
  }
  // Wrong-typed fields are dropped here, once, so the analysis never meets them (a hand-edited dump).
  const found: string[] = [];
  const fitted = fitToShape(target, obj, found, '', profile !== undefined, profile);
  const who = whoOf(kind, obj.metadata);
  for (const p of found) problems.push(`${who}: ${p}`);
  inputs.provided.add(target);
  if (fitted) (inputs[target] as unknown[]).push(fitted);
  return 1;
}

/** events.k8s.io/v1 Event → core v1 shape (regarding → involvedObject, note → message). */
function fromEventsV1(e: Record<string, unknown>): Record<string, unknown> {
  return {
    ...e,
    apiVersion: 'v1',
    involvedObject: e.regarding ?? {},
    message: e.note,
    source: { component: e.reportingController },
    lastTimestamp:
      (e.series as Record<string, unknown> | undefined)?.lastObservedTime ??
      e.deprecatedLastTimestamp ??
      null,
    firstTimestamp: e.deprecatedFirstTimestamp ?? null,
  };
}

function addAwsOutput(
  inputs: RawInputs,
  doc: Record<string, unknown>,
  file: string,
  problems: string[],
): number {
  const fitted = (kind: DataKind, key: string, items: Record<string, unknown>[]) =>
    items.filter((item, i) => {
      const found: string[] = [];
      const usable = fitToShape(kind, item, found, `${key}[${i}]`) !== undefined;
      problems.push(...found);
      return usable;
    });
  const arrays: Array<[string, DataKind]> = [
    ['AutoScalingGroups', 'autoScalingGroups'],
    ['LaunchTemplateVersions', 'launchTemplateVersions'],
    ['LaunchConfigurations', 'launchConfigurations'],
    ['Images', 'images'],
    ['Activities', 'scalingActivities'],
    ['EvaluationResults', 'iamEvaluationResults'],
  ];
  let n = 0;
  for (const [key, target] of arrays) {
    const v = doc[key];
    if (v === undefined) continue;
    if (!Array.isArray(v)) throw new InputError(`${file}: ${key} is not an array`, file);
    const items = fitted(target, key, v.filter(isObject));
    (inputs[target] as unknown[]).push(...items);
    inputs.provided.add(target);
    n += items.length || 1;
  }
  if (doc.InstanceTypes !== undefined) {
    if (!Array.isArray(doc.InstanceTypes))
      throw new InputError(`${file}: InstanceTypes is not an array`, file);
    const items = doc.InstanceTypes.filter(isObject);
    // get-instance-types-from-instance-requirements prints only names; describe-instance-types prints full info
    const namesOnly =
      items.length > 0 && items.every((i) => Object.keys(i).every((k) => k === 'InstanceType'));
    const target: DataKind = namesOnly ? 'instanceTypesFromRequirements' : 'instanceTypes';
    (inputs[target] as unknown[]).push(...fitted(target, 'InstanceTypes', items));
    inputs.provided.add(target);
    n += items.length || 1;
  }
  if (isObject(doc.nodegroup) && typeof doc.nodegroup.nodegroupName === 'string') {
    if (fitted('eksNodegroups', 'nodegroup', [doc.nodegroup]).length) inputs.eksNodegroups.push(doc.nodegroup as never);
    inputs.provided.add('eksNodegroups');
    n += 1;
  }
  return n;
}

/** The same object in several files (or twice in one) is kept once: the last one read wins. */
function dedupe(inputs: RawInputs): void {
  for (const kind of K8S_DATA_KINDS) {
    const list = inputs[kind] as Array<{ metadata: { uid?: string; name?: string; namespace?: string } }>;
    const seen = new Map<string, number>();
    list.forEach((o, i) => {
      const key = o.metadata.uid ?? `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
      seen.set(key, i);
    });
    if (seen.size !== list.length) {
      const keep = new Set(seen.values());
      (inputs[kind] as unknown[]) = list.filter((_, i) => keep.has(i));
    }
  }
  const asgs = new Map(inputs.autoScalingGroups.map((a) => [a.AutoScalingGroupName, a]));
  if (asgs.size !== inputs.autoScalingGroups.length) inputs.autoScalingGroups = [...asgs.values()];
}
