// Reads an eksctl ClusterConfig (--eksctl) into declared node groups: what the ASG and, for managed node groups,
// eks:DescribeNodegroup would tell CA, and what real nodes of each group carry.
// eksctl: pkg/apis/eksctl.io/v1alpha5 (types.go, defaults.go); docs "Auto Scaling" (propagateASGTags, scaling from 0).
import { InputError } from '../../model/errors.js';
import { shellCommand } from '../../model/shell.js';
import type { Taint } from '../../model/k8s.js';
import type {
  DeclaredNodeGroup,
  DeclaredNodeGroups,
  EksctlInstanceSelector,
  EksTaint,
  NotEvaluatedReason,
} from '../../model/preflight.js';
import { MAX_YAML_ALIASES } from '../../gather/input-files.js';
import { parseYamlFile, readFlagFile } from '../../gather/yaml-file.js';

export const LABEL_TAG = 'k8s.io/cluster-autoscaler/node-template/label/';
export const TAINT_TAG = 'k8s.io/cluster-autoscaler/node-template/taint/';
// eksctl: pkg/apis/eksctl.io/v1alpha5 ClusterNameLabel / NodeGroupNameLabel, set on every node group's labels (setDefaultNodeLabels)
const EKSCTL_CLUSTER_LABEL = 'alpha.eksctl.io/cluster-name';
const EKSCTL_NODEGROUP_LABEL = 'alpha.eksctl.io/nodegroup-name';
/** eksctl's DefaultNodeCount and default instance type / root volume when the config names none. */
const DEFAULT_NODE_COUNT = 2;
const DEFAULT_INSTANCE_TYPE = 'm5.large';
const DEFAULT_VOLUME_SIZE_GIB = 80;

const K8S_EFFECT: Record<string, string> = {
  NoSchedule: 'NoSchedule',
  NoExecute: 'NoExecute',
  PreferNoSchedule: 'PreferNoSchedule',
  NO_SCHEDULE: 'NoSchedule',
  NO_EXECUTE: 'NoExecute',
  PREFER_NO_SCHEDULE: 'PreferNoSchedule',
};
const EKS_EFFECT: Record<string, string> = {
  NoSchedule: 'NO_SCHEDULE',
  NoExecute: 'NO_EXECUTE',
  PreferNoSchedule: 'PREFER_NO_SCHEDULE',
};

export async function readEksctlConfig(path: string): Promise<DeclaredNodeGroups> {
  return parseEksctlConfig(await readFlagFile('--eksctl', path), path);
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses a ClusterConfig; anything eksctl itself would reject as malformed is an InputError naming file and line. */
export function parseEksctlConfig(text: string, file: string): DeclaredNodeGroups {
  // logLevel error: the yaml library's process warnings ("Keys with collection values ...") never leak
  // duplicate keys are refused, as eksctl's strict decoding does (sigs.k8s.io/yaml UnmarshalStrict)
  const { doc, lineOf } = parseYamlFile(
    text,
    file,
    { uniqueKeys: true, version: '1.1', merge: true, logLevel: 'error' },
    { flag: '--eksctl', kind: 'ClusterConfig' },
  );
  const cfg = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  if (!isObj(cfg) || cfg.kind !== 'ClusterConfig' || !String(cfg.apiVersion ?? '').startsWith('eksctl.io/')) {
    throw new InputError(
      `${file}: not an eksctl ClusterConfig (apiVersion eksctl.io/v1alpha5, kind ClusterConfig)`,
      file,
    );
  }
  const meta = isObj(cfg.metadata) ? cfg.metadata : {};
  const clusterName = typeof meta.name === 'string' ? meta.name : undefined;
  const region = typeof meta.region === 'string' ? meta.region : undefined;
  const warnings: string[] = [];
  const clusterZones = clusterAvailabilityZones(cfg);
  const groups: DeclaredNodeGroup[] = [];
  for (const [field, managed] of [
    ['nodeGroups', false],
    ['managedNodeGroups', true],
  ] as const) {
    const list = cfg[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list))
      throw new InputError(`${file}:${lineOf([field])}: ${field} must be a list`, file);
    list.forEach((ng, i) => {
      const line = lineOf([field, i]);
      if (!isObj(ng) || typeof ng.name !== 'string' || ng.name === '') {
        throw new InputError(`${file}:${line}: ${field}[${i}] needs a name`, file);
      }
      groups.push(
        nodeGroupFrom(ng, {
          managed,
          file,
          line,
          clusterName,
          region,
          clusterZones,
          subnets: cfg.vpc,
          path: `${field}[${i}]`,
        }),
      );
    });
  }
  // Auto Mode and hybrid-node clusters have no ASG for CA to scale: nothing is unread, so nothing is "incomplete"
  const noGroupsReason = groups.length === 0 ? noNodeGroupsReason(cfg, file) : undefined;
  const seen = new Set<string>();
  for (const g of groups) {
    if (seen.has(g.name)) {
      throw new InputError(`${file}:${g.location.line}: node group name ${g.name} is used twice`, file);
    }
    seen.add(g.name);
  }
  return {
    origin: 'eksctl',
    file,
    ...(clusterName ? { clusterName } : {}),
    ...(region ? { region } : {}),
    groups,
    warnings,
    ...(noGroupsReason ? { noGroupsReason } : {}),
  };
}

function noNodeGroupsReason(cfg: Obj, file: string): string {
  const auto = isObj(cfg.autoModeConfig) && cfg.autoModeConfig.enabled === true;
  const hybrid = isObj(cfg.remoteNetworkConfig);
  const kind = auto
    ? 'an EKS Auto Mode cluster (autoModeConfig.enabled): EKS provisions its nodes, not CA'
    : hybrid
      ? 'a hybrid-nodes cluster (remoteNetworkConfig): its nodes are not in ASGs CA scales'
      : 'no ASG CA could scale';
  return `${file} declares no nodeGroups or managedNodeGroups, ${kind}`;
}

function clusterAvailabilityZones(cfg: Obj): string[] {
  if (Array.isArray(cfg.availabilityZones)) return cfg.availabilityZones.map(String);
  const zones: string[] = [];
  for (const z of subnetZones(cfg.vpc).values()) if (!zones.includes(z)) zones.push(z);
  return zones;
}

/** vpc.subnets.{private,public}: keyed by AZ name, or by an alias with an `az` field. Alias/AZ -> AZ. */
function subnetZones(vpc: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const subnets = isObj(vpc) && isObj(vpc.subnets) ? vpc.subnets : undefined;
  if (!subnets) return out;
  for (const kind of ['private', 'public']) {
    const m = subnets[kind];
    if (!isObj(m)) continue;
    for (const [key, v] of Object.entries(m)) {
      const az =
        isObj(v) && typeof v.az === 'string'
          ? v.az
          : /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/.test(key)
            ? key
            : undefined;
      if (az) {
        out.set(key, az);
        if (isObj(v) && typeof v.id === 'string') out.set(v.id, az);
      }
    }
  }
  return out;
}

function stringMap(v: unknown, what: string, file: string, line: number): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new InputError(`${file}:${line}: ${what} must be a map`, file);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = val === null ? '' : String(val);
  return out;
}

function intField(ng: Obj, key: string, file: string, line: number): number | undefined {
  const v = ng[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new InputError(
      `${file}:${line}: ${key} must be a non-negative integer, got ${JSON.stringify(v)}`,
      file,
    );
  }
  return v;
}

/** Sets an ASG tag in place: a key given again takes the new value where the key first stood. */
export function setTag(tags: Array<{ key: string; value: string }>, key: string, value: string): void {
  const at = tags.findIndex((t) => t.key === key);
  if (at >= 0) tags[at] = { key, value };
  else tags.push({ key, value });
}

/** Taints as eks:DescribeNodegroup returns them (NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE). */
export function eksTaintsOf(taints: Taint[]): EksTaint[] {
  return taints.map((t) => ({
    key: t.key,
    ...(t.value !== undefined ? { value: t.value } : {}),
    effect: EKS_EFFECT[t.effect] ?? t.effect,
  }));
}

/** Taints in the list form ([{key, value, effect}]) or the older map form ({key: "value:Effect"}). */
export function parseEksctlTaints(v: unknown, file: string, line: number): Taint[] {
  if (v === undefined || v === null) return [];
  const effectOf = (e: unknown, key: string): string => {
    const effect = K8S_EFFECT[String(e ?? '')];
    if (!effect) {
      throw new InputError(
        `${file}:${line}: taint ${key} has effect ${JSON.stringify(e)}; use NoSchedule, PreferNoSchedule or NoExecute`,
        file,
      );
    }
    return effect;
  };
  if (Array.isArray(v)) {
    return v.map((t) => {
      if (!isObj(t) || typeof t.key !== 'string')
        throw new InputError(`${file}:${line}: a taint needs a key`, file);
      return {
        key: t.key,
        ...(t.value !== undefined && t.value !== null ? { value: String(t.value) } : {}),
        effect: effectOf(t.effect, t.key),
      };
    });
  }
  if (isObj(v)) {
    return Object.entries(v).map(([key, raw]) => {
      const s = String(raw ?? '');
      const colon = s.lastIndexOf(':');
      if (colon < 0)
        throw new InputError(`${file}:${line}: taint ${key}: "${s}" is not "<value>:<effect>"`, file);
      const value = s.slice(0, colon);
      return { key, ...(value !== '' ? { value } : {}), effect: effectOf(s.slice(colon + 1), key) };
    });
  }
  throw new InputError(`${file}:${line}: taints must be a list or a map`, file);
}

interface GroupContext {
  managed: boolean;
  file: string;
  line: number;
  clusterName?: string;
  region?: string;
  clusterZones: string[];
  subnets: unknown;
  path: string;
}

function nodeGroupFrom(ng: Obj, c: GroupContext): DeclaredNodeGroup {
  const name = ng.name as string;
  const notes: string[] = [];
  const { file, line } = c;

  // Instance types: instanceType, instanceTypes (managed), instancesDistribution.instanceTypes (unmanaged "mixed")
  let instanceTypes: string[] = [];
  const dist = isObj(ng.instancesDistribution) ? ng.instancesDistribution : undefined;
  if (Array.isArray(ng.instanceTypes)) instanceTypes = ng.instanceTypes.map(String);
  else if (dist && Array.isArray(dist.instanceTypes)) instanceTypes = dist.instanceTypes.map(String);
  else if (typeof ng.instanceType === 'string' && ng.instanceType !== 'mixed')
    instanceTypes = [ng.instanceType];
  // eksctl: pkg/eks/nodegroup_service.go Normalize/ExpandInstanceSelectorOptions: an IsZero() selector (`{}`, as
  // `--dry-run` writes it) is absent; a managed group with a launchTemplate gets no default type (the template has it)
  const instanceSelector = selectorOf(ng.instanceSelector, file, line);
  const launchTemplate = isObj(ng.launchTemplate) ? ng.launchTemplate : undefined;
  let unresolved: NotEvaluatedReason | undefined;
  if (instanceTypes.length === 0) {
    if (instanceSelector) {
      // resolved against the instance-type table in simulate/preflight.ts resolveInstanceSelector
    } else if (c.managed && launchTemplate) {
      const id = String(launchTemplate.id ?? launchTemplate.name ?? '?');
      const version = launchTemplate.version !== undefined ? ` version ${String(launchTemplate.version)}` : '';
      unresolved = {
        missing: `the instance type of launch template ${id}${version}, which the file does not hold`,
        supply: `run preflight with --live, or --from a dump holding \`${shellCommand(['aws', 'ec2', 'describe-launch-template-versions', launchTemplate.id !== undefined ? '--launch-template-id' : '--launch-template-name', id])}\`, or list the type in instanceTypes`,
      };
    } else {
      instanceTypes = [DEFAULT_INSTANCE_TYPE];
      notes.push(`no instance type given: eksctl's default ${DEFAULT_INSTANCE_TYPE} assumed`);
    }
  }

  // Sizes: eksctl defaults desiredCapacity to 2 (DefaultNodeCount), min and max to the desired capacity
  const minRaw = intField(ng, 'minSize', file, line);
  const maxRaw = intField(ng, 'maxSize', file, line);
  const desiredRaw = intField(ng, 'desiredCapacity', file, line);
  const desiredCapacity = desiredRaw ?? minRaw ?? DEFAULT_NODE_COUNT;
  const minSize = minRaw ?? desiredCapacity;
  const maxSize = maxRaw ?? Math.max(desiredCapacity, minSize);
  if (maxSize < minSize) {
    throw new InputError(
      `${file}:${line}: ${c.path} (${name}): maxSize ${maxSize} is below minSize ${minSize}`,
      file,
    );
  }
  if (desiredRaw === undefined && minRaw === undefined) {
    notes.push(`no desiredCapacity/minSize: eksctl's default of ${DEFAULT_NODE_COUNT} nodes assumed`);
  }

  // Zones: the group's own, its subnets' zones, else the cluster's
  let zones: string[] = [];
  // eksctl: pkg/apis/eksctl.io/v1alpha5/types.go NodeGroup.LocalZones (self-managed groups only)
  if (!c.managed && Array.isArray(ng.localZones) && ng.localZones.length > 0) zones = ng.localZones.map(String);
  else if (Array.isArray(ng.availabilityZones)) zones = ng.availabilityZones.map(String);
  else if (Array.isArray(ng.subnets)) {
    const byKey = subnetZones(c.subnets);
    zones = [...new Set(ng.subnets.map((s) => byKey.get(String(s))).filter((z): z is string => !!z))];
    if (zones.length === 0) notes.push('the zones of the group subnets are not in the file');
  }
  if (zones.length === 0) zones = [...c.clusterZones];
  if (zones.length === 0) {
    const region = c.region ?? 'us-east-1';
    zones = [`${region}a`, `${region}b`, `${region}c`];
    notes.push(
      `no availability zones in the file: assuming ${zones.join(', ')} (eksctl picks zones of the region)`,
    );
  }

  const userLabels = stringMap(ng.labels, `${c.path}.labels`, file, line);
  const labels: Record<string, string> = { ...userLabels };
  if (c.clusterName) labels[EKSCTL_CLUSTER_LABEL] = c.clusterName;
  labels[EKSCTL_NODEGROUP_LABEL] = name;
  const amiFamily = typeof ng.amiFamily === 'string' ? ng.amiFamily : '';
  if (/^Windows/i.test(amiFamily)) labels['kubernetes.io/os'] = 'windows';
  const taints = parseEksctlTaints(ng.taints, file, line);
  const userTags = stringMap(ng.tags, `${c.path}.tags`, file, line);
  const propagate = ng.propagateASGTags === true;
  const spot = ng.spot === true;
  const volumeSizeGiB = typeof ng.volumeSize === 'number' ? ng.volumeSize : DEFAULT_VOLUME_SIZE_GIB;

  const asgTags: Array<{ key: string; value: string }> = [];
  const addTag = (key: string, value: string) => setTag(asgTags, key, value);
  const cluster = c.clusterName;
  const iam = isObj(ng.iam) ? ng.iam : undefined;
  const addons = iam && isObj(iam.withAddonPolicies) ? iam.withAddonPolicies : undefined;
  if (c.managed) {
    // EKS tags every managed node group's ASG for CA auto-discovery and with eks:cluster-name / eks:nodegroup-name
    if (cluster) {
      addTag('eks:cluster-name', cluster);
      addTag('k8s.io/cluster-autoscaler/enabled', 'true');
      addTag(`k8s.io/cluster-autoscaler/${cluster}`, 'owned');
    }
    addTag('eks:nodegroup-name', name);
  } else {
    if (cluster) addTag(`kubernetes.io/cluster/${cluster}`, 'owned');
    // eksctl docs "Enable Auto Scaling": withAddonPolicies.autoScaler sets the two discovery tags
    if (addons?.autoScaler === true && cluster) {
      addTag('k8s.io/cluster-autoscaler/enabled', 'true');
      addTag(`k8s.io/cluster-autoscaler/${cluster}`, 'owned');
    }
    for (const [k, v] of Object.entries(userTags)) addTag(k, v);
  }
  if (propagate) {
    // eksctl: pkg/cfn/builder/nodegroup.go GenerateClusterAutoscalerTags writes label tags and taint tags with the
    // taint's value only (no ":<effect>"), which CA's extractTaintsFromAsg ignores; resources are never propagated.
    // A tag the user wrote under `tags` keeps its value.
    const addGenerated = (key: string, value: string) => {
      if (!Object.hasOwn(userTags, key)) addTag(key, value);
    };
    for (const [k, v] of Object.entries(labels)) {
      if (k !== 'kubernetes.io/os') addGenerated(`${LABEL_TAG}${k}`, v);
    }
    for (const t of taints) addGenerated(`${TAINT_TAG}${t.key}`, t.value ?? '');
    if (c.managed) for (const [k, v] of Object.entries(userTags)) addTag(k, v);
  }

  const group: DeclaredNodeGroup = {
    name,
    origin: 'eksctl',
    location: { file, line },
    managed: c.managed,
    ...(cluster ? { clusterName: cluster } : {}),
    instanceTypes,
    labels,
    taints,
    asgTags,
    zones,
    minSize,
    maxSize,
    desiredCapacity,
    volumeSizeGiB,
    notes,
    ...(propagate ? { propagateASGTags: true } : {}),
    ...(instanceSelector && instanceTypes.length === 0 ? { instanceSelector } : {}),
    ...(unresolved ? { unresolved } : {}),
  };
  if (c.managed) {
    const capacityType = spot ? 'SPOT' : 'ON_DEMAND';
    group.eks = { labels: { ...labels }, taints: eksTaintsOf(taints), capacityType, tags: userTags };
    // EKS adds these to every node of a managed node group
    group.labels['eks.amazonaws.com/nodegroup'] = name;
    group.labels['eks.amazonaws.com/capacityType'] = capacityType;
    if (taints.some((t) => t.value === undefined)) {
      notes.push(
        'a taint without a value: CA only reads EKS taints that have both key and value from DescribeNodegroup',
      );
    }
  }
  return group;
}

/** A non-empty instanceSelector, or undefined for an absent or IsZero() one (`instanceSelector: {}`). */
function selectorOf(v: unknown, file: string, line: number): EksctlInstanceSelector | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new InputError(`${file}:${line}: instanceSelector must be a map`, file);
  const out: EksctlInstanceSelector = {};
  if (typeof v.vCPUs === 'number' && v.vCPUs !== 0) out.vCPUs = v.vCPUs;
  if (v.memory !== undefined && v.memory !== null && String(v.memory) !== '') out.memory = String(v.memory);
  if (typeof v.gpus === 'number') out.gpus = v.gpus;
  if (typeof v.cpuArchitecture === 'string' && v.cpuArchitecture !== '') out.cpuArchitecture = v.cpuArchitecture;
  if (typeof v.allow === 'string') out.allow = v.allow;
  if (typeof v.deny === 'string') out.deny = v.deny;
  return Object.keys(out).length > 0 ? out : undefined;
}
