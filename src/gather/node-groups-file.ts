// Reads casdoctor's own node-groups file (--node-groups; schema: schemas/node-groups.schema.json) into declared
// node groups. The reader enforces the same rules as the schema, with file:line in every error. The externalgrpc
// provider's nodegroup-config.yaml is accepted too: its groups get the template the provider itself builds.
import { InputError } from '../model/errors.js';
import { parseExternalGrpcConfig, scrubExternalGrpcCredentials } from '../providers/externalgrpc/config.js';
import { buildProviderTemplateNode } from '../providers/externalgrpc/template.js';
import { isValidQuantity } from '../model/quantity.js';
import type { ExternalGrpcConfigInput } from '../model/externalgrpc.js';
import type { DeclaredNodeGroup, DeclaredNodeGroups, ExternalGrpcDeclaredNodeGroups } from '../model/preflight.js';
import { eksTaintsOf, LABEL_TAG, parseEksctlTaints, setTag, TAINT_TAG } from '../providers/aws/gather-eksctl.js';
import { parseYamlFile, readFlagFile } from './yaml-file.js';

export const NODE_GROUPS_API_VERSION = 'casdoctor.io/v1alpha1';
const ZONE_RE = /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/;
const TOP_KEYS = new Set(['apiVersion', 'kind', 'clusterName', 'region', 'nodeGroups']);
const GROUP_KEYS = new Set([
  'name',
  'instanceType',
  'instanceTypes',
  'capacity',
  'allocatable',
  'architecture',
  'labels',
  'taints',
  'propagateASGTags',
  'tags',
  'managed',
  'spot',
  'zones',
  'minSize',
  'maxSize',
  'desiredCapacity',
  'volumeSize',
]);

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export async function readNodeGroupsFile(path: string): Promise<DeclaredNodeGroups> {
  return parseNodeGroupsFile(await readFlagFile('--node-groups', path), path);
}

export function parseNodeGroupsFile(text: string, file: string): DeclaredNodeGroups {
  const { doc, lineOf } = parseYamlFile(
    text,
    file,
    { uniqueKeys: true, logLevel: 'error' },
    { flag: '--node-groups', kind: 'NodeGroups' },
  );
  const fail = (path: Array<string | number>, msg: string): never => {
    throw new InputError(`${file}:${lineOf(path)}: ${msg}`, file);
  };
  const root = doc.toJS() as unknown;
  if (isExternalGrpcConfig(root)) return nodeGroupsFromExternalGrpcConfig(text, file, lineOf);
  if (!isObj(root)) return fail([], 'a node-groups file is a mapping with apiVersion, kind and nodeGroups');
  if (root.apiVersion !== NODE_GROUPS_API_VERSION || root.kind !== 'NodeGroups') {
    fail([], `expected apiVersion ${NODE_GROUPS_API_VERSION} and kind NodeGroups`);
  }
  for (const k of Object.keys(root)) if (!TOP_KEYS.has(k)) fail([k], `unknown field ${k}`);
  const clusterName = optString(root, 'clusterName', [], fail);
  const region = optString(root, 'region', [], fail);
  if (!Array.isArray(root.nodeGroups)) return fail(['nodeGroups'], 'nodeGroups must be a list');
  const seen = new Set<string>();
  const groups = root.nodeGroups.map((ng, i) => {
    const g = groupFrom(ng, i, { file, lineOf, fail, clusterName });
    if (seen.has(g.name)) fail(['nodeGroups', i, 'name'], `node group name ${g.name} is used twice`);
    seen.add(g.name);
    return g;
  });
  return {
    origin: 'node-groups-file',
    file,
    ...(clusterName ? { clusterName } : {}),
    ...(region ? { region } : {}),
    groups,
    warnings: groups.length === 0 ? [`${file}: nodeGroups is empty`] : [],
  };
}

type Fail = (path: Array<string | number>, msg: string) => never;

function optString(o: Obj, key: string, base: Array<string | number>, fail: Fail): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') return fail([...base, key], `${key} must be a non-empty string`);
  return v;
}

function optInt(o: Obj, key: string, base: Array<string | number>, fail: Fail): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    return fail([...base, key], `${key} must be a non-negative integer`);
  }
  return v;
}

function stringMap(o: Obj, key: string, base: Array<string | number>, fail: Fail): Record<string, string> {
  const v = o[key];
  if (v === undefined) return {};
  if (!isObj(v)) return fail([...base, key], `${key} must be a map of strings`);
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') fail([...base, key, k], `${key}.${k} must be a string (quote it)`);
  }
  return v as Record<string, string>;
}

function resources(
  o: Obj,
  key: string,
  base: Array<string | number>,
  fail: Fail,
): Record<string, string> | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!isObj(v)) return fail([...base, key], `${key} must be a map of resource quantities`);
  const out: Record<string, string> = {};
  for (const [k, q] of Object.entries(v)) {
    const s = typeof q === 'number' ? String(q) : q;
    if (typeof s !== 'string' || !isValidQuantity(s))
      fail([...base, key, k], `${key}.${k}: ${JSON.stringify(q)} is not a quantity`);
    out[k] = s as string;
  }
  return out;
}

function groupFrom(
  ng: unknown,
  i: number,
  c: { file: string; lineOf: (p: Array<string | number>) => number; fail: Fail; clusterName?: string },
): DeclaredNodeGroup {
  const base: Array<string | number> = ['nodeGroups', i];
  const { fail, file } = c;
  if (!isObj(ng)) return fail(base, `nodeGroups[${i}] must be a mapping`);
  for (const k of Object.keys(ng)) if (!GROUP_KEYS.has(k)) fail([...base, k], `unknown field ${k}`);
  const name = optString(ng, 'name', base, fail);
  if (!name) return fail(base, `nodeGroups[${i}] needs a name`);
  const notes: string[] = [];
  let instanceTypes: string[] = [];
  if (ng.instanceTypes !== undefined) {
    if (
      !Array.isArray(ng.instanceTypes) ||
      ng.instanceTypes.length === 0 ||
      ng.instanceTypes.some((t) => typeof t !== 'string' || t === '')
    ) {
      fail([...base, 'instanceTypes'], 'instanceTypes must be a non-empty list of instance type names');
    }
    instanceTypes = ng.instanceTypes as string[];
    if (ng.instanceType !== undefined)
      fail([...base, 'instanceType'], 'give instanceType or instanceTypes, not both');
  } else {
    const t = optString(ng, 'instanceType', base, fail);
    if (t) instanceTypes = [t];
  }
  const capacity = resources(ng, 'capacity', base, fail);
  const allocatable = resources(ng, 'allocatable', base, fail);
  if (instanceTypes.length === 0 && !capacity) {
    fail(base, `node group ${name} needs instanceType, instanceTypes or capacity`);
  }
  if (instanceTypes.length === 0 && capacity && (!capacity.cpu || !capacity.memory)) {
    fail(
      [...base, 'capacity'],
      `node group ${name}: without an instance type, capacity needs cpu and memory`,
    );
  }
  const arch = ng.architecture;
  if (arch !== undefined && arch !== 'amd64' && arch !== 'arm64')
    fail([...base, 'architecture'], 'architecture is amd64 or arm64');
  if (!Array.isArray(ng.zones) || ng.zones.length === 0)
    return fail([...base], `node group ${name} needs zones (a non-empty list)`);
  for (const [j, z] of ng.zones.entries()) {
    if (typeof z !== 'string' || !ZONE_RE.test(z))
      fail([...base, 'zones', j], `${JSON.stringify(z)} is not an availability zone such as us-east-1a`);
  }
  const zones = ng.zones as string[];
  const maxSize = optInt(ng, 'maxSize', base, fail);
  if (maxSize === undefined) return fail(base, `node group ${name} needs maxSize`);
  const minSize = optInt(ng, 'minSize', base, fail) ?? 0;
  const desiredCapacity = optInt(ng, 'desiredCapacity', base, fail) ?? minSize;
  if (maxSize < minSize) fail([...base, 'maxSize'], `maxSize ${maxSize} is below minSize ${minSize}`);
  if (desiredCapacity < minSize || desiredCapacity > maxSize) {
    fail(
      [...base, 'desiredCapacity'],
      `desiredCapacity ${desiredCapacity} is outside minSize..maxSize (${minSize}..${maxSize})`,
    );
  }
  const labels = stringMap(ng, 'labels', base, fail);
  const taints = parseEksctlTaints(ng.taints, file, c.lineOf([...base, 'taints']));
  const tags = stringMap(ng, 'tags', base, fail);
  for (const k of ['propagateASGTags', 'managed', 'spot']) {
    if (ng[k] !== undefined && typeof ng[k] !== 'boolean') fail([...base, k], `${k} must be true or false`);
  }
  const propagate = ng.propagateASGTags !== false;
  const managed = ng.managed === true;
  const volumeSize = optInt(ng, 'volumeSize', base, fail);

  const asgTags: Array<{ key: string; value: string }> = [];
  const addTag = (key: string, value: string) => setTag(asgTags, key, value);
  if (managed) {
    if (!c.clusterName) fail(base, `node group ${name} is managed: the file needs clusterName`);
    addTag('eks:cluster-name', c.clusterName as string);
    addTag('eks:nodegroup-name', name);
    addTag('k8s.io/cluster-autoscaler/enabled', 'true');
    addTag(`k8s.io/cluster-autoscaler/${c.clusterName}`, 'owned');
  }
  if (propagate && !managed) {
    for (const [k, v] of Object.entries(labels)) addTag(`${LABEL_TAG}${k}`, v);
    for (const t of taints) addTag(`${TAINT_TAG}${t.key}`, `${t.value ?? ''}:${t.effect}`);
  }
  for (const [k, v] of Object.entries(tags)) addTag(k, v);
  if (capacity && instanceTypes.length > 0) {
    notes.push('capacity overrides the instance type as node-template/resources tags do');
  }
  const realLabels = { ...labels };
  const capacityType = ng.spot === true ? 'SPOT' : 'ON_DEMAND';
  const group: DeclaredNodeGroup = {
    name,
    origin: 'node-groups-file',
    location: { file, line: c.lineOf(base) },
    managed,
    ...(c.clusterName ? { clusterName: c.clusterName } : {}),
    instanceTypes,
    ...(capacity ? { capacity } : {}),
    ...(allocatable ? { allocatable } : {}),
    ...(arch ? { architecture: arch as 'amd64' | 'arm64' } : {}),
    labels: realLabels,
    taints,
    asgTags,
    zones,
    minSize,
    maxSize,
    desiredCapacity,
    ...(volumeSize !== undefined ? { volumeSizeGiB: volumeSize } : {}),
    notes,
  };
  if (managed) {
    // managed: CA learns labels and taints from DescribeNodegroup, whatever propagateASGTags says
    group.eks = { labels: { ...labels }, taints: eksTaintsOf(taints), capacityType, tags: {} };
    group.labels['eks.amazonaws.com/nodegroup'] = name;
    group.labels['eks.amazonaws.com/capacityType'] = capacityType;
  }
  return group;
}

/** The externalgrpc provider's nodegroup-config.yaml: no apiVersion/kind, nodeGroups[] keyed by `id` (node_group.go:117-134). */
function isExternalGrpcConfig(root: unknown): boolean {
  if (!isObj(root) || root.apiVersion !== undefined || root.kind !== undefined) return false;
  const groups = root.nodeGroups;
  return (
    root.cloudProviderOption !== undefined ||
    (Array.isArray(groups) && groups.length > 0 && groups.every((g) => isObj(g) && typeof g.id === 'string' && g.name === undefined))
  );
}

// Labels BuildNodeFromTemplate adds that a real node overrides: kept out of the declared labels
const PROVIDER_GENERATED = new Set(['kubernetes.io/hostname']);

/**
 * Declared groups from the provider's config, each with the template the provider answers CA with
 * (BuildNodeFromTemplate, node_group.go:1040-1100): labels and taints from nodeTemplate, capacity cpu, memory,
 * ephemeral-storage (the provider's defaults when a value does not parse) and pods 110, allocatable = capacity, no
 * zone labels. Credentials are scrubbed before the text is parsed; the `default` group the provider adds is included.
 */
export function nodeGroupsFromExternalGrpcConfig(
  text: string,
  file: string,
  lineOf: (path: Array<string | number>) => number = () => 1,
): ExternalGrpcDeclaredNodeGroups {
  const input: ExternalGrpcConfigInput = { source: { kind: 'file', path: file }, text: scrubExternalGrpcCredentials(text).text };
  const cfg = parseExternalGrpcConfig([input]);
  const fatal = cfg.problems.find((p) => p.fatal);
  if (fatal) throw new InputError(`${file}: ${fatal.path ? `${fatal.path}: ` : ''}${fatal.message}`, file);
  const warnings = cfg.problems.map((p) => `${file}: ${p.path ? `${p.path}: ` : ''}${p.message}`);
  // a fixed clock: the template's conditions are the only time in it, and preflight does not read them
  const now = new Date(0);
  const groups: DeclaredNodeGroup[] = [];
  cfg.nodeGroups.forEach((spec, i) => {
    const built = buildProviderTemplateNode(spec, now);
    const notes: string[] = [];
    if (spec.implicit) notes.push('not in the file: the provider adds this catch-all group itself (min 0, max 1000, no instanceParameter)');
    if (!built) {
      warnings.push(`${file}: node group ${spec.id} has no nodeTemplate: the provider dereferences it and crashes`);
      return;
    }
    if (built.droppedCapacity.length) notes.push(`capacity ${built.droppedCapacity.join(', ')} never reaches CA (the provider reads only cpu, memory, ephemeral-storage)`);
    for (const d of built.defaulted) notes.push(`capacity.${d.resource} ${d.declared === undefined ? 'missing' : `"${d.declared}" does not parse`}: the provider uses ${d.used}`);
    if (Object.keys(spec.nodeTemplate?.allocatable ?? {}).length) notes.push('nodeTemplate.allocatable is ignored by the provider');
    if (spec.instanceParameter === '') notes.push('no instanceParameter: a scale-up of this group cannot create instances');
    const labels = Object.fromEntries(Object.entries(built.node.metadata.labels ?? {}).filter(([k]) => !PROVIDER_GENERATED.has(k)));
    const taints = built.node.spec?.taints ?? [];
    const capacity = Object.fromEntries(Object.entries(built.node.status?.capacity ?? {}).map(([k, v]) => [k, String(v)]));
    const asgTags: Array<{ key: string; value: string }> = [];
    for (const [k, v] of Object.entries(labels)) setTag(asgTags, `${LABEL_TAG}${k}`, v);
    for (const t of taints) setTag(asgTags, `${TAINT_TAG}${t.key}`, `${t.value ?? ''}:${t.effect}`);
    groups.push({
      name: spec.id,
      origin: 'node-groups-file',
      location: { file, line: spec.implicit ? 1 : lineOf(['nodeGroups', i]) },
      managed: false,
      instanceTypes: [],
      capacity,
      allocatable: { ...capacity },
      architecture: 'amd64',
      labels,
      taints,
      asgTags,
      zones: [],
      minSize: spec.minSize,
      maxSize: spec.maxSize,
      desiredCapacity: Math.min(Math.max(spec.targetSize, spec.minSize), spec.maxSize),
      notes,
    });
  });
  return {
    origin: 'node-groups-file',
    file,
    groups,
    warnings: groups.length === 0 ? [...warnings, `${file}: nodeGroups is empty`] : warnings,
    externalGrpc: input,
  };
}
