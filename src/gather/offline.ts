import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isCapacityBuffer, isPodTemplate, isProvisioningRequest } from '../model/ca-crds.js';
import { InputError } from '../model/errors.js';
import { type DataKind, emptyInputs, type RawInputs } from '../model/snapshot.js';
import { partialPods } from '../simulate/partial-input.js';
import { scrubCaArgsInDeployments } from '../simulate/scrub-args.js';
import { readCaLogFiles } from './ca-log-file.js';
import { type ReadOptions, SharedPool } from './json-stream.js';
import { addSpotPrices } from './spot-prices.js';
import { internStrings, type InternTable } from './intern.js';
import { isStackOverflow, listInputFiles, MAX_LIST_NESTING, tooDeep, WarningCounter } from './input-files.js';
import { type FieldProfile, fitToShape } from './shape.js';
import { compressedText, DOCUMENT_EXTENSIONS, type FileKind, isSnapshotz, readBounded, readDocumentsOf, recognise } from './offline-read.js';
import {
  CA_CRD_TARGETS,
  fromTransport,
  KARPENTER_CRD_TARGETS,
  KIND_TO_DATA,
  kindTarget,
  PREFIT_URL,
  Prefitted,
  prefit,
  whoOf,
} from './prefit.js';
import {
  isKarpenterObject,
  KARPENTER_CRD_RESOURCES,
  type KarpenterCrdKind,
  karpenterLegacyProblem,
  karpenterLegacyTarget,
} from '../model/karpenter-crds.js';

const K8S_DATA_KINDS = new Set<DataKind>(Object.values(KIND_TO_DATA));

// What a directory walk reads: dumps, plus what CA's log, /metrics or a support bundle is saved as (ca.log, ca.txt,
// ca.log.gz, metrics.prom, a name without an extension); each is recognised by its content, never by its name.
const LOADABLE_EXTENSIONS = new Set([...DOCUMENT_EXTENSIONS, '.log', '.txt', '.gz', '.prom', '']);
/** CA's log text kept for `casdoctor snapshot --from` (the live cap, live-limits.ts caLogBytes). */
const CA_LOG_TEXT_BYTES = 32 << 20;
/** CA's /metrics page is tens of KB; a text beyond this is not one CA serves. */
export const CA_METRICS_FILE_BYTES = 16 << 20;
/** CA's /snapshotz holds every node and pod of the cluster (a few MB at 1,000 nodes): the same bound as live. */
export const CA_SNAPSHOTZ_FILE_BYTES = 64 << 20;

export interface LoadOptions extends Omit<ReadOptions, 'parallel' | 'mapItem'> {
  /**
   * Reference clock for CA log lines without a year (klog's "I1121 09:58:02"): --now when given; default each log
   * file's mtime (its last line was written before it; `casdoctor snapshot` sets it to the time the log was read).
   */
  now?: Date;
  /** Test hook: smaller caps on CA's /metrics and /snapshotz files (defaults CA_METRICS_FILE_BYTES, CA_SNAPSHOTZ_FILE_BYTES). */
  caRecordBytes?: { metrics?: number; snapshotz?: number };
  /** Called once per file read, for progress on stderr. */
  onFile?: (path: string) => void;
  /**
   * 'read' (the default) keeps only the fields of Kubernetes objects that casdoctor reads (src/gather/shape.ts), as
   * each is parsed; 'why-pending' keeps even less of pods already on a node; 'all' keeps whole objects, for `casdoctor
   * snapshot`, which writes them back out.
   */
  fields?: 'read' | 'why-pending' | 'all';
  /** Test hook: the largest YAML document parsed whole when it cannot be read item by item (yaml-file.ts WHOLE_YAML_LIMIT). */
  wholeYamlLimitBytes?: number;
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
  for (const p of paths) files.push(...(await listInputFiles('--from', p, LOADABLE_EXTENSIONS, inputs.warnings)));
  const fields = options.fields ?? 'read';
  const profile: FieldProfile | undefined = fields === 'all' ? undefined : fields;
  const { parallel, now, caRecordBytes, ...read } = options;
  // one set of parse workers for every large file of this load, started by the first
  const pool = new SharedPool(PREFIT_URL, profile, parallel?.workers);
  // one copy of each repeated string across the files of this load (node names in pods and events, owners, images)
  const strings: InternTable = new Map();
  // every CA log given is one log: rotated files and the previous container's are merged by time (ca-log-file.ts)
  const caLogFiles: string[] = [];
  try {
    for (const file of files) {
      const kind = await recognise(file);
      if (kind === 'document') await loadFile(inputs, file, profile, read, { ...parallel, pool }, strings);
      else {
        read.onFile?.(file);
        if (kind === 'ca-log') caLogFiles.push(file);
        await loadCaRecordFile(inputs, file, kind, { caps: caRecordBytes, keepLogText: fields === 'all' });
      }
    }
    if (caLogFiles.length) (inputs.caLogs ??= []).push(await readCaLogFiles(caLogFiles, now ? { now } : {}));
  } finally {
    await pool.close();
  }
  for (const p of paths) {
    const taken = await snapshotTakenAt(p);
    if (taken && (!inputs.takenAt || taken > inputs.takenAt)) inputs.takenAt = taken;
  }
  const pods = podsHow.get(inputs);
  if (pods && pods.loose > 0 && !pods.listed) inputs.podsOneByOne = true;
  dedupe(inputs);
  // one namespace's pods, or single pods: the answers that need the rest say "not evaluated" (partial-input.ts)
  const partial = partialPods(inputs);
  if (partial) inputs.podsPartial = partial;
  // pods without the nodes they run on: a dump of part of the cluster, said once (the checks that need nodes skip)
  if (partial?.podsOnly) inputs.warnings.push(partial.detail);
  else if (inputs.provided.has('pods') && !inputs.provided.has('nodes'))
    inputs.warnings.push(
      'no Nodes in the input: whether a Pending pod fits an existing node, and scale-down, are not evaluated (add `kubectl get nodes -o json`)',
    );
  refusedKarpenterGaps(inputs);
  scrubCaArgsInDeployments(inputs.deployments);
  // no credential of the externalgrpc provider's config stays in RawInputs (its ConfigMaps hold them: G8)
  (await import('../providers/externalgrpc/gather.js')).scrubExternalGrpcConfigMaps(inputs);
  return inputs;
}

/**
 * When a `casdoctor snapshot` directory was taken: its README.md's "Taken <time> by casdoctor" line (snapshot-writer.ts),
 * read bounded; undefined for anything else.
 */
async function snapshotTakenAt(dir: string): Promise<string | undefined> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(join(dir, 'README.md'), constants.O_RDONLY | constants.O_NONBLOCK);
    if (!(await fh.stat()).isFile()) return undefined;
    const head = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const m = /^Taken (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) by casdoctor /m.exec(head.toString('utf8', 0, bytesRead));
    return m && !Number.isNaN(Date.parse(m[1])) ? new Date(m[1]).toISOString() : undefined;
  } catch {
    // not a directory, or no README: not a snapshot
    return undefined;
  } finally {
    await fh?.close();
  }
}

/** A prefitted item with its strings interned (`internStrings`); anything else as it is. */
function interned(item: unknown, strings: InternTable): unknown {
  if (item instanceof Prefitted && item.obj) internStrings(item.obj, strings);
  return item;
}

async function loadFile(
  inputs: RawInputs,
  file: string,
  profile: FieldProfile | undefined,
  options: Omit<LoadOptions, 'parallel'>,
  parallel: { thresholdBytes?: number; pool: SharedPool },
  strings: InternTable,
): Promise<void> {
  options.onFile?.(file);
  // the externalgrpc provider's nodegroup-config.yaml: plain YAML, no apiVersion/kind; kept as scrubbed text
  if (/\.ya?ml$/i.test(file)) {
    const { isExternalGrpcConfigText, addExternalGrpcConfigFile } = await import('../providers/externalgrpc/gather.js');
    const fh = await open(file, 'r');
    let text: string | undefined;
    try {
      if ((await fh.stat()).size <= 4 << 20) text = (await fh.readFile()).toString('utf8');
    } finally {
      await fh.close();
    }
    if (text !== undefined && isExternalGrpcConfigText(text)) {
      addExternalGrpcConfigFile(inputs, file, text);
      inputs.sources.push(file);
      return;
    }
  }
  const docs = await readDocumentsOf(
    file,
    await compressedText(file),
    profile
      ? {
          ...options,
          mapItem: (item) => interned(prefit(item, profile), strings),
          parallel: {
            mapperUrl: PREFIT_URL,
            mapperArg: profile,
            fromTransport: (t) => interned(fromTransport(t), strings),
            thresholdBytes: parallel.thresholdBytes,
            pool: parallel.pool,
          },
        }
      : options,
  );
  let recognised = 0;
  const problems: string[] = [];
  // one warning per distinct text: ten million null items are one line with a count, not ten million lines
  const warnings = new WarningCounter();
  const sink = { warnings: { push: (w: string) => warnings.add(w) } };
  try {
    for (const doc of docs) recognised += addDocument(inputs, doc, file, problems, profile, sink, 0);
  } catch (e) {
    if (isStackOverflow(e)) throw tooDeep(file);
    throw e;
  }
  for (const w of warnings.flush()) inputs.warnings.push(w);
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

/** A file of CA's own record: its log (parsed by the caller), its /metrics or /snapshotz kept as text (bounded). */
async function loadCaRecordFile(
  inputs: RawInputs,
  file: string,
  kind: Exclude<FileKind, 'document'>,
  o: { caps?: LoadOptions['caRecordBytes']; keepLogText: boolean },
): Promise<void> {
  const { caps = {} } = o;
  if (kind === 'empty') return;
  if (kind === 'unrecognised') {
    inputs.warnings.push(
      `${file}: not a Kubernetes object, AWS output, Cluster Autoscaler log, /metrics or /snapshotz casdoctor recognises; ignored`,
    );
    return;
  }
  if (kind === 'karpenter-log') {
    const { readKarpenterLogFile } = await import('./history-files.js');
    (inputs.karpenterLogs ??= []).push(await readKarpenterLogFile(file));
    if (o.keepLogText) {
      // `casdoctor snapshot --from` writes Karpenter's log again, bounded as CA's is
      const { bytes, truncated } = await readBounded(file, CA_LOG_TEXT_BYTES);
      const text = bytes.toString('utf8');
      (inputs.karpenterLogTexts ??= []).push({ name: basename(file), text: truncated ? text.slice(0, text.lastIndexOf('\n') + 1) : text, truncated });
      if (truncated) inputs.warnings.push(`${file}: only the first ${CA_LOG_TEXT_BYTES >> 20} MiB of this Karpenter log are written to a snapshot`);
    }
    inputs.sources.push(file);
    return;
  }
  if (kind === 'ca-log') {
    // parsed with the other log files of the input, once all are known (loadOffline)
    if (o.keepLogText) {
      // `casdoctor snapshot --from` writes the log again: its text, bounded like a live read (live-limits.ts caLogBytes)
      const { bytes, truncated } = await readBounded(file, CA_LOG_TEXT_BYTES);
      let text = bytes.toString('utf8');
      if (truncated) {
        text = text.slice(0, text.lastIndexOf('\n') + 1);
        inputs.warnings.push(`${file}: only the first ${CA_LOG_TEXT_BYTES >> 20} MiB of this CA log are written to a snapshot`);
      }
      (inputs.caLogTexts ??= []).push({ namespace: '', pod: '', container: '', previous: false, sinceSeconds: 0, text, truncated });
    }
    inputs.sources.push(file);
    return;
  }
  const metrics = kind === 'ca-metrics';
  const cap = metrics ? (caps.metrics ?? CA_METRICS_FILE_BYTES) : (caps.snapshotz ?? CA_SNAPSHOTZ_FILE_BYTES);
  const mib = (n: number) => (n >= 1 << 20 ? `${n / (1 << 20)} MiB` : `${n} bytes`);
  const { bytes, truncated } = await readBounded(file, cap);
  let text = bytes.toString('utf8');
  if (metrics) {
    // a truncated page ends at its last whole line, so no sample is half-read (as live: live-ca-record.ts)
    if (truncated) {
      text = text.slice(0, text.lastIndexOf('\n') + 1);
      inputs.warnings.push(`${file}: larger than ${mib(cap)}; only the first ${mib(cap)} of CA's /metrics are read`);
    }
  } else {
    if (truncated) {
      inputs.warnings.push(`${file}: larger than ${mib(cap)}, more than casdoctor reads of CA's /snapshotz; ignored`);
      return;
    }
    if (!isSnapshotz(text)) {
      inputs.warnings.push(`${file}: starts like CA's /snapshotz but is not one (no NodeList or TemplateNodes with a StartTimestamp); ignored`);
      return;
    }
  }
  (inputs.caProxyTexts ??= []).push({
    namespace: '',
    pod: '',
    port: 0,
    path: metrics ? '/metrics' : '/snapshotz',
    text,
    truncated: metrics && truncated,
  });
  inputs.sources.push(file);
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
  sink: WarningSink,
  depth: number,
): number {
  if (Array.isArray(doc)) {
    if (depth >= MAX_LIST_NESTING) throw tooDeep(file);
    let n = 0;
    for (const d of doc) n += addDocument(inputs, d, file, problems, profile, sink, depth + 1);
    return n;
  }
  // a single object of a streamed YAML file, already fitted as it was parsed
  if (doc instanceof Prefitted) return addKubeObject(inputs, sink, doc, file, problems, profile);
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
      n += addKubeObject(inputs, sink, item, file, problems, profile, itemKind, doc.apiVersion);
    if (itemKind === 'Pod' || doc.items.some((i) => isPodItem(i))) podsRead(inputs).listed = true;
    return n;
  }
  if (typeof doc.kind === 'string' && isObject(doc.metadata)) {
    // `kubectl get pod NAME -o json` prints the one Pod, not a List: a dump of some pods, not the cluster's
    if (doc.kind === 'Pod') podsRead(inputs).loose++;
    return addKubeObject(inputs, sink, doc, file, problems, profile);
  }
  return addAwsOutput(inputs, doc, file, problems);
}

/** How the pods of a load came: in Lists (kubectl get pods), or as single objects (kubectl get pod NAME). */
const podsHow = new WeakMap<RawInputs, { loose: number; listed: boolean }>();
function podsRead(inputs: RawInputs): { loose: number; listed: boolean } {
  let r = podsHow.get(inputs);
  if (!r) podsHow.set(inputs, (r = { loose: 0, listed: false }));
  return r;
}
function isPodItem(i: unknown): boolean {
  if (i instanceof Prefitted) return i.target === 'pods';
  return isObject(i) && i.kind === 'Pod';
}

const unknownKindsWarned = new WeakMap<RawInputs, Set<string>>();
const MAX_NAMED_KINDS = 50;

/** Where per-object warnings of one file go (counted, see WarningCounter). */
interface WarningSink {
  warnings: { push(w: string): void };
}

function addKubeObject(
  inputs: RawInputs,
  sink: WarningSink,
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
    sink.warnings.push(`${file}: a list item is not an object; ignored`);
    return 0;
  }
  const kind = typeof item.kind === 'string' ? item.kind : listItemKind;
  if (!kind) {
    sink.warnings.push(`${file}: a list item has no kind; ignored`);
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
  // Karpenter's older APIs (Provisioner, v1beta1 NodePool ...): say which Karpenter version converts them
  const legacy = karpenterLegacyProblem(kind, (item as Record<string, unknown>).apiVersion ?? listApiVersion);
  if (legacy) {
    sink.warnings.push(`${file}: ${legacy}; ignored`);
    const legacyTarget = karpenterLegacyTarget(kind);
    if (legacyTarget) {
      let refused = karpenterRefused.get(inputs);
      if (!refused) karpenterRefused.set(inputs, (refused = new Map()));
      if (!refused.has(legacyTarget)) refused.set(legacyTarget, legacy);
    }
    return 0;
  }
  if (!target) {
    let warned = unknownKindsWarned.get(inputs);
    if (!warned) unknownKindsWarned.set(inputs, (warned = new Set()));
    if (warned.has(kind)) return 0;
    // each kind named once; past a few dozen (a generated dump) the rest are counted in one line
    if (warned.size >= MAX_NAMED_KINDS) sink.warnings.push(`${file}: an object of yet another kind not used by casdoctor; ignored`);
    else {
      warned.add(kind);
      inputs.warnings.push(`${file}: kind ${kind} is not used by casdoctor; ignored`);
    }
    return 0;
  }
  const obj = item as Record<string, unknown>;
  if (!isObject(obj.metadata)) {
    sink.warnings.push(`${file}: a ${kind} without metadata; ignored`);
    return 0;
  }
  if (typeof obj.kind !== 'string') obj.kind = kind;
  if (typeof obj.apiVersion !== 'string' && typeof listApiVersion === 'string' && listApiVersion !== 'v1') {
    obj.apiVersion = listApiVersion;
  }
  if (KARPENTER_CRD_TARGETS.has(target)) {
    if (!isKarpenterObject(target as KarpenterCrdKind, obj)) {
      sink.warnings.push(`${file}: a ${kind} of ${String(obj.apiVersion)} without the spec Karpenter requires; ignored`);
      return 0;
    }
    inputs.provided.add(target);
    (inputs[target] as unknown[]).push(obj);
    return 1;
  }
  if (CA_CRD_TARGETS.has(target)) {
    // a PodTemplate in a `v1` List carries no apiVersion of its own
    if (target === 'podTemplates' && obj.apiVersion === undefined && listApiVersion === 'v1') obj.apiVersion = 'v1';
    if (!isCaCrd(target, obj)) {
      sink.warnings.push(
        `${file}: a ${kind} of ${typeof obj.apiVersion === 'string' ? obj.apiVersion : 'no apiVersion'} without the spec Cluster Autoscaler reads; ignored`,
      );
      return 0;
    }
    inputs.provided.add(target);
    (inputs[target] as unknown[]).push(obj);
    return 1;
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

/** Karpenter kinds the input held only in an older API (v1beta1, v1alpha5), with why they were not read. */
const karpenterRefused = new WeakMap<RawInputs, Map<KarpenterCrdKind, string>>();

/** A kind given only in Karpenter's older API is a gap (checks say why they skip), unless v1 objects of it were read. */
function refusedKarpenterGaps(inputs: RawInputs): void {
  for (const [kind, problem] of karpenterRefused.get(inputs) ?? []) {
    if (inputs.provided.has(kind)) continue;
    const resource = KARPENTER_CRD_RESOURCES[kind];
    inputs.gaps.push({ resource, reason: 'error', detail: `unsupported: ${resource}: ${problem}` });
  }
}

/** CA's own resources (autoscaling.x-k8s.io) and PodTemplates, by apiVersion, kind and the spec the API requires. */
function isCaCrd(target: DataKind, obj: Record<string, unknown>): boolean {
  if (target === 'provisioningRequests') return isProvisioningRequest(obj);
  if (target === 'capacityBuffers') return isCapacityBuffer(obj);
  return isPodTemplate(obj);
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

/** CloudTrail records kept from --from (LookupEvents pages hold 50; 90 days of a busy account's instance calls fit). */
const MAX_CLOUDTRAIL_RECORDS = 200_000;

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
    ['InstanceTypeOfferings', 'instanceTypeOfferings'],
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
  // Karpenter's offerings are per zone: rows of another location type (the CLI's default is region) would match no zone
  const byZone = inputs.instanceTypeOfferings.filter((o) => (o.LocationType ?? 'availability-zone') === 'availability-zone');
  if (byZone.length !== inputs.instanceTypeOfferings.length) {
    inputs.instanceTypeOfferings = byZone;
    inputs.warnings.push(
      `${file}: instance type offerings not by availability zone are ignored; dump them with \`aws ec2 describe-instance-type-offerings --location-type availability-zone --output json\``,
    );
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
  // `aws cloudtrail lookup-events --output json`: each record's CloudTrailEvent is a JSON string, parsed by the history
  if (
    Array.isArray(doc.Events) &&
    (doc.Events.some((e) => isObject(e) && typeof e.EventName === 'string' && 'CloudTrailEvent' in e) || Object.keys(doc).every((k) => k === 'Events' || k === 'NextToken'))
  ) {
    const kept = (inputs.cloudTrailEvents ??= []);
    const records = doc.Events.filter(isObject);
    if (kept.length + records.length > MAX_CLOUDTRAIL_RECORDS) inputs.warnings.push(`${file}: more than ${MAX_CLOUDTRAIL_RECORDS} CloudTrail records; the rest are ignored`);
    for (const r of records.slice(0, Math.max(0, MAX_CLOUDTRAIL_RECORDS - kept.length))) kept.push(r);
    n += doc.Events.length || 1;
  }
  // `aws ec2 describe-spot-price-history --output json`: spot prices for "why this instance type"
  if (Array.isArray(doc.SpotPriceHistory)) n += addSpotPrices(inputs, doc.SpotPriceHistory, file);
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
