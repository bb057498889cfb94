// asg-audit's derived data: which ASGs are audited, what CA's templates look like next to the real nodes, which
// workloads depend on the difference. Pure; cached per Analysis.
import type { NodeGroupReport, TemplateReport } from '../../model/asg-audit.js';
import type { LaunchTemplateSpecification, LaunchTemplateVersion } from '../../model/aws.js';
import { isPendingCandidate, type Node, type PersistentVolume, type Pod, type Taint, taintKey } from '../../model/k8s.js';
import type { AsgNodeGroup, NodeGroup } from '../../model/node-group.js';
import { formatResource } from '../../model/quantity.js';
import type { NodeInfo, Resources } from '../../model/scheduling.js';
import type { Analysis } from '../../simulate/analysis.js';
import { controllerRef, isDaemonSetPod } from '../../simulate/drainability/pod-util.js';
import type { InstanceTypeInfo } from '../../simulate/instance-types.js';
import { podMatchesNodeSelectorAndAffinity } from '../../simulate/predicates/node-affinity.js';
import { findUntoleratedTaint, tolerationsTolerateTaint } from '../../simulate/predicates/taint-toleration.js';
import { nodeInfoFor, parseResourceList } from '../../simulate/resources.js';
import type { ScratchTemplate, TemplateResult } from '../../simulate/node-group-provider.js';
import { resolveLaunchTemplateVersion } from './template.js';
import { sanitizeTaints } from '../../simulate/template-node.js';

// ---------------------------------------------------------------------------------------------------------------
// Scope

const scopes = new WeakMap<Analysis, string[]>();

/** Restricts the audit to these ASG names (--asg); undefined or empty = every relevant ASG. */
export function setAuditedAsgs(a: Analysis, names: string[] | undefined): void {
  if (names && names.length > 0) scopes.set(a, [...new Set(names)]);
  else scopes.delete(a);
}

/** Names passed to --asg that are not in the snapshot. */
export function unknownAsgNames(a: Analysis, names: string[]): string[] {
  const all = new Set(a.raw.autoScalingGroups.map((g) => g.AutoScalingGroupName));
  return names.filter((n) => !all.has(n));
}

/**
 * The ASGs asg-audit looks at: those CA discovers, those owning nodes of this cluster or tagged for it
 * (Analysis.nodeGroups), plus any named with --asg; restricted to --asg when given. Sorted by name.
 */
export function auditedGroups(a: Analysis): NodeGroup[] {
  const names = scopes.get(a);
  if (!names) return a.nodeGroups;
  const wanted = new Set(names);
  return a.nodeGroupsResult.nodeGroups
    .filter((g) => wanted.has(g.name))
    .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/** The audited groups that are Auto Scaling groups (all of them under CA's AWS provider). */
export function auditedAsgGroups(a: Analysis): AsgNodeGroup[] {
  return auditedGroups(a).filter((g): g is AsgNodeGroup => g.provider === 'aws');
}

/** True when --asg restricts the audit (cluster-wide checks then stay quiet about other ASGs). */
export function isAsgScoped(a: Analysis): boolean {
  return scopes.has(a);
}

// ---------------------------------------------------------------------------------------------------------------
// Workloads

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

const workloadPodsCache = new WeakMap<Analysis, Pod[]>();

/** Active pods that a node group's shape can matter to: not DaemonSet, mirror or terminal pods. Input order. */
export function workloadPods(a: Analysis): Pod[] {
  let pods = workloadPodsCache.get(a);
  if (!pods) {
    pods = a.raw.pods.filter(
      (p) => isActive(p) && !isDaemonSetPod(p) && !p.metadata.annotations?.[MIRROR_ANNOTATION],
    );
    workloadPodsCache.set(a, pods);
  }
  return pods;
}

const ownerIndexCache = new WeakMap<Analysis, Map<string, { kind: string; name: string }>>();

function ownerIndex(a: Analysis): Map<string, { kind: string; name: string }> {
  let idx = ownerIndexCache.get(a);
  if (!idx) {
    idx = new Map();
    for (const o of [...a.raw.replicaSets, ...a.raw.jobs]) {
      const ctrl = o.metadata.ownerReferences?.find((r) => r.controller);
      if (ctrl) idx.set(`${o.kind ?? ''}/${o.metadata.namespace}/${o.metadata.name}`, ctrl);
    }
    ownerIndexCache.set(a, idx);
  }
  return idx;
}

/** "Deployment web/api", "StatefulSet payments/ledger-db", "CronJob batch/etl", or "Pod ns/name" for a bare pod. */
export function workloadName(a: Analysis, pod: Pod): string {
  const ns = pod.metadata.namespace ?? 'default';
  const ctrl = controllerRef(pod);
  if (!ctrl) return `Pod ${ns}/${pod.metadata.name}`;
  if (ctrl.kind === 'ReplicaSet' || ctrl.kind === 'Job') {
    const parent = ownerIndex(a).get(`${ctrl.kind}/${ns}/${ctrl.name}`);
    if (parent) return `${parent.kind} ${ns}/${parent.name}`;
  }
  return `${ctrl.kind} ${ns}/${ctrl.name}`;
}

export function podRef(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}

function uniqueSorted(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

// ---------------------------------------------------------------------------------------------------------------
// When the scratch template matters

/**
 * 'now': CA uses the ASG scratch template today (no usable node). 'at-zero': the group can scale to zero, and after
 * that (plus a CA restart, which drops the cached node template) CA uses the scratch. 'unlikely': min size >= 1.
 */
export type ScratchRelevance = 'now' | 'at-zero' | 'unlikely';

export function scratchRelevance(a: Analysis, g: NodeGroup): ScratchRelevance {
  const t = a.template(g);
  if (t.source === 'asg') return 'now';
  return g.minSize === 0 ? 'at-zero' : 'unlikely';
}

export function relevanceText(r: ScratchRelevance, g: NodeGroup): string {
  if (r === 'now') return 'CA uses this template now: the group has no usable node';
  if (r === 'at-zero')
    return 'the group can scale to zero, and after that CA builds this template once it restarts';
  return `CA uses this template only when no node of the group is Ready, min size ${g.minSize}`;
}

/** The ASG scratch template of a group (also when a real node is the current template). */
export function scratchOf(a: Analysis, g: NodeGroup): ScratchTemplate {
  const t = a.template(g);
  return t.scratch ?? t;
}

// ---------------------------------------------------------------------------------------------------------------
// Launch templates and the kubelet flags they carry

/** The launch template an ASG points at (the ASG's own, or its MixedInstancesPolicy's). */
export function launchTemplateSpecOf(g: NodeGroup): LaunchTemplateSpecification | undefined {
  if (g.provider !== 'aws') return undefined;
  return g.launchTemplate ?? g.mixedInstances?.launchTemplate;
}

export function versionsOf(a: Analysis, spec: LaunchTemplateSpecification): LaunchTemplateVersion[] {
  return a.raw.launchTemplateVersions
    .filter(
      (v) =>
        (spec.LaunchTemplateId !== undefined && v.LaunchTemplateId === spec.LaunchTemplateId) ||
        (spec.LaunchTemplateName !== undefined && v.LaunchTemplateName === spec.LaunchTemplateName),
    )
    .sort((x, y) => (x.VersionNumber ?? 0) - (y.VersionNumber ?? 0));
}

/** The launch template version CA reads for the group (CA: aws_wrapper.go getInstanceTypeByLaunchTemplate). */
export function caLaunchTemplateVersion(a: Analysis, g: NodeGroup): LaunchTemplateVersion | undefined {
  const spec = launchTemplateSpecOf(g);
  return spec ? resolveLaunchTemplateVersion(spec, a.raw.launchTemplateVersions) : undefined;
}

export interface BootstrapConfig {
  labels: Record<string, string>;
  taints: Taint[];
  /** e.g. "launch template lt-0abc v3 UserData" */
  source: string;
}

function decodeBase64Text(s: string): string | undefined {
  try {
    const bin = atob(s.replace(/\s+/g, ''));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(bin, (c) => c.charCodeAt(0)),
    );
    // gzip or other binary user data: not readable
    return /[\x00-\x08\x0e-\x1f]/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

const FLAG_VALUE = `[=\\s]+["']?([^\\s"'\\\\]+)`;

/** kubelet --node-labels / --register-with-taints found in a launch template (UserData, or its description). */
export function bootstrapFromLaunchTemplate(v: LaunchTemplateVersion): BootstrapConfig | undefined {
  const where = `launch template ${v.LaunchTemplateId ?? v.LaunchTemplateName} v${v.VersionNumber}`;
  const texts: Array<[string, string]> = [];
  const userData = v.LaunchTemplateData?.UserData;
  if (typeof userData === 'string') {
    const text = decodeBase64Text(userData);
    if (text) texts.push([`${where} UserData`, text]);
  }
  const description = (v as { VersionDescription?: unknown }).VersionDescription;
  if (typeof description === 'string') texts.push([`${where} VersionDescription`, description]);
  const labels: Record<string, string> = {};
  const taints: Taint[] = [];
  const sources: string[] = [];
  for (const [source, text] of texts) {
    let found = false;
    for (const m of text.matchAll(new RegExp(`--node-labels${FLAG_VALUE}`, 'g'))) {
      for (const pair of m[1].split(',')) {
        const eq = pair.indexOf('=');
        if (eq > 0) labels[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      found = true;
    }
    for (const m of text.matchAll(new RegExp(`--register-with-taints${FLAG_VALUE}`, 'g'))) {
      for (const spec of m[1].split(',')) {
        const t = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(spec);
        if (t) taints.push({ key: t[1], value: t[2] ?? '', effect: t[3] });
      }
      found = true;
    }
    if (found) sources.push(source);
  }
  if (sources.length === 0) return undefined;
  return { labels, taints, source: sources.join(', ') };
}

// ---------------------------------------------------------------------------------------------------------------
// Real nodes next to the scratch template

// Per-node labels: the scratch sets its own (first zone, template hostname); the multi-AZ check covers zones.
const PER_NODE_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.ebs.csi.aws.com/zone',
  'topology.k8s.aws/zone-id',
  'k8s.io/cloud-provider-aws',
]);

function consistentLabels(nodes: Node[]): Record<string, string> {
  if (nodes.length === 0) return {};
  const out: Record<string, string> = { ...(nodes[0].metadata.labels ?? {}) };
  for (const n of nodes.slice(1)) {
    const l = n.metadata.labels ?? {};
    for (const k of Object.keys(out)) if (l[k] !== out[k]) delete out[k];
  }
  for (const k of PER_NODE_LABELS) delete out[k];
  return out;
}

export interface GroupProfile {
  group: NodeGroup;
  template: TemplateResult;
  scratch: ScratchTemplate;
  nodes: Node[];
  /** Labels every node of the group carries with the same value (per-node topology labels left out). */
  nodeLabels: Record<string, string>;
  /** Taints every node of the group carries, after CA's sanitisation. */
  nodeTaints: Taint[];
  bootstrap?: BootstrapConfig;
}

const profileCache = new WeakMap<Analysis, Map<string, GroupProfile>>();

export function groupProfile(a: Analysis, g: NodeGroup): GroupProfile {
  let byName = profileCache.get(a);
  if (!byName) profileCache.set(a, (byName = new Map()));
  let p = byName.get(g.name);
  if (p) return p;
  const nodes = g.nodes;
  const taintSets = nodes.map((n) => new Set(sanitizeTaints(n.spec?.taints, a.ca).map(taintKey)));
  const nodeTaints =
    nodes.length === 0
      ? []
      : sanitizeTaints(nodes[0].spec?.taints, a.ca).filter((t) => taintSets.every((s) => s.has(taintKey(t))));
  const version = caLaunchTemplateVersion(a, g);
  const bootstrap = version ? bootstrapFromLaunchTemplate(version) : undefined;
  p = {
    group: g,
    template: a.template(g),
    scratch: scratchOf(a, g),
    nodes,
    nodeLabels: consistentLabels(nodes),
    nodeTaints: nodeTaints.map(({ key, value, effect }) => ({ key, value: value ?? '', effect })),
    ...(bootstrap ? { bootstrap } : {}),
  };
  byName.set(g.name, p);
  return p;
}

function nodeNames(nodes: Node[]): string {
  const names = nodes.map((n) => n.metadata.name ?? '');
  return names.length <= 3
    ? names.join(', ')
    : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

/** The label keys a pod's nodeSelector and required node affinity refer to. */
function selectedKeys(pod: Pod): Set<string> {
  const keys = new Set(Object.keys(pod.spec.nodeSelector ?? {}));
  const terms =
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) for (const e of t.matchExpressions ?? []) keys.add(e.key);
  return keys;
}

const bySelectedKeyCache = new WeakMap<Analysis, Map<string, Pod[]>>();

/** workloadPods indexed by the node label keys their nodeSelector / required node affinity name, once per analysis. */
function podsBySelectedKey(a: Analysis): Map<string, Pod[]> {
  let idx = bySelectedKeyCache.get(a);
  if (!idx) {
    idx = new Map();
    for (const pod of workloadPods(a)) {
      for (const k of selectedKeys(pod)) {
        const list = idx.get(k);
        if (list) list.push(pod);
        else idx.set(k, [pod]);
      }
    }
    bySelectedKeyCache.set(a, idx);
  }
  return idx;
}

function withLabels(node: Node, labels: Record<string, string>): Node {
  return { ...node, metadata: { ...node.metadata, labels: { ...(node.metadata.labels ?? {}), ...labels } } };
}

function withTaints(node: Node, taints: Taint[]): Node {
  return { ...node, spec: { ...(node.spec ?? {}), taints } };
}

export interface LabelDrift {
  key: string;
  /** The value real nodes (or the kubelet flags of the launch template) give. */
  expected: string;
  /** The scratch template's value, when it has the label. */
  templateValue?: string;
  /** Where the expected value comes from. */
  source: string;
  /** Workloads that select the label and get no node from the scratch template. */
  workloads: string[];
  /** Pending pods among them. */
  pendingPods: string[];
}

/**
 * Labels real nodes carry (or the launch template's kubelet --node-labels set) that CA's scratch template lacks or
 * sets differently, and that some workload selects: the "works only while a node exists" trap.
 */
export function labelDrifts(a: Analysis, g: NodeGroup): LabelDrift[] {
  const p = groupProfile(a, g);
  const scratchNode = p.scratch.node;
  if (!scratchNode) return [];
  const expected = new Map<string, { value: string; source: string }>();
  for (const [k, v] of Object.entries(p.bootstrap?.labels ?? {}))
    expected.set(k, { value: v, source: `kubelet --node-labels in ${p.bootstrap!.source}` });
  for (const [k, v] of Object.entries(p.nodeLabels))
    expected.set(k, { value: v, source: `node${p.nodes.length > 1 ? 's' : ''} ${nodeNames(p.nodes)}` });
  const have = scratchNode.metadata.labels ?? {};
  const drifted = [...expected].filter(([k, e]) => have[k] !== e.value);
  if (drifted.length === 0) return [];
  const patched = withLabels(scratchNode, Object.fromEntries(drifted.map(([k, e]) => [k, e.value])));
  const byKey = new Map<string, { workloads: string[]; pending: string[] }>();
  // only pods whose selectors name a drifted key can change their answer; the output lists are sorted, so order is free
  const bySelected = podsBySelectedKey(a);
  const candidates = new Set<Pod>();
  for (const [k] of drifted) for (const pod of bySelected.get(k) ?? []) candidates.add(pod);
  for (const pod of candidates) {
    const keys = selectedKeys(pod);
    const relevant = drifted.filter(([k]) => keys.has(k)).map(([k]) => k);
    if (relevant.length === 0) continue;
    if (podMatchesNodeSelectorAndAffinity(pod, scratchNode)) continue;
    if (!podMatchesNodeSelectorAndAffinity(pod, patched)) continue;
    for (const k of relevant) {
      const e = byKey.get(k) ?? { workloads: [], pending: [] };
      e.workloads.push(workloadName(a, pod));
      if (isPendingCandidate(pod)) e.pending.push(podRef(pod));
      byKey.set(k, e);
    }
  }
  return drifted
    .filter(([k]) => byKey.has(k))
    .map(([k, e]) => ({
      key: k,
      expected: e.value,
      ...(Object.hasOwn(have, k) ? { templateValue: have[k] } : {}),
      source: e.source,
      workloads: uniqueSorted(byKey.get(k)!.workloads),
      pendingPods: uniqueSorted(byKey.get(k)!.pending),
    }));
}

export interface TaintDrift {
  taint: Taint;
  /** 'missing': real nodes have it, the scratch template does not. 'extra': only the scratch template has it. */
  kind: 'missing' | 'extra';
  source: string;
  /** missing: Pending workloads CA would scale the group for that cannot run there; extra: workloads of the real nodes CA would not scale for. */
  workloads: string[];
  pendingPods: string[];
}

const HARD_EFFECTS = ['NoSchedule', 'NoExecute'];

/** Taints of the real nodes (or the launch template's --register-with-taints) against the scratch template's. */
export function taintDrifts(a: Analysis, g: NodeGroup): TaintDrift[] {
  const p = groupProfile(a, g);
  const scratchNode = p.scratch.node;
  if (!scratchNode) return [];
  let expected: Taint[];
  let source: string;
  if (p.nodes.length > 0) {
    expected = p.nodeTaints;
    source = `node${p.nodes.length > 1 ? 's' : ''} ${nodeNames(p.nodes)}`;
  } else if (p.bootstrap && p.bootstrap.taints.length > 0) {
    expected = sanitizeTaints(p.bootstrap.taints, a.ca);
    source = `kubelet --register-with-taints in ${p.bootstrap.source}`;
  } else return [];
  const scratchTaints = scratchNode.spec?.taints ?? [];
  const have = new Set(scratchTaints.map(taintKey));
  const want = new Set(expected.map(taintKey));
  const out: TaintDrift[] = [];
  for (const t of expected) {
    if (have.has(taintKey(t)) || !HARD_EFFECTS.includes(t.effect)) continue;
    // CA would pick this group for Pending pods that match the scratch template but not tolerate the real taint
    // Pending candidates are unscheduled: the index holds them in input order
    const pods = workloadIndex(a).unscheduled.filter(
      (pod) =>
        isPendingCandidate(pod) &&
        podMatchesNodeSelectorAndAffinity(pod, scratchNode) &&
        !findUntoleratedTaint(pod.spec.tolerations, scratchTaints) &&
        !tolerationsTolerateTaint(pod.spec.tolerations, t),
    );
    out.push(driftOf(a, t, 'missing', source, pods));
  }
  for (const t of scratchTaints) {
    if (want.has(taintKey(t)) || !HARD_EFFECTS.includes(t.effect)) continue;
    const realNode = p.nodes[0] ?? withTaints(scratchNode, expected);
    // pods the real nodes take but the scratch template refuses
    const idx = workloadIndex(a);
    const onNodes = p.nodes.flatMap((n) => idx.byNode.get(n.metadata.name ?? '') ?? []);
    const pods = [...onNodes, ...idx.unscheduled.filter((pod) => isPendingCandidate(pod) && podMatchesNodeSelectorAndAffinity(pod, realNode))]
      .filter((pod) => !tolerationsTolerateTaint(pod.spec.tolerations, t))
      .sort((x, y) => (idx.order.get(x) ?? 0) - (idx.order.get(y) ?? 0));
    out.push(driftOf(a, t, 'extra', source, pods));
  }
  return out;
}

function driftOf(
  a: Analysis,
  taint: Taint,
  kind: TaintDrift['kind'],
  source: string,
  pods: Pod[],
): TaintDrift {
  return {
    taint,
    kind,
    source,
    workloads: uniqueSorted(pods.map((p) => workloadName(a, p))),
    pendingPods: uniqueSorted(pods.filter(isPendingCandidate).map(podRef)),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Resources

/** Pods whose requests the scratch template's DaemonSet and kube-proxy pods already take. */
export function scratchInfo(a: Analysis, g: NodeGroup): NodeInfo | undefined {
  const s = scratchOf(a, g);
  return s.node ? nodeInfoFor(s.node, s.pods) : undefined;
}

/**
 * Workload pods that a new node of the group would have to hold: pods on the group's nodes, and Pending pods whose
 * selectors the scratch template satisfies and whose tolerations cover its taints.
 */
const targetedCache = new WeakMap<Analysis, Map<string, Pod[]>>();
const workloadIndexCache = new WeakMap<Analysis, { order: Map<Pod, number>; unscheduled: Pod[]; byNode: Map<string, Pod[]> }>();

/** Workload pods indexed once per analysis: by node, the unscheduled ones, and their input order. */
function workloadIndex(a: Analysis) {
  let idx = workloadIndexCache.get(a);
  if (!idx) {
    const order = new Map<Pod, number>();
    const unscheduled: Pod[] = [];
    const byNode = new Map<string, Pod[]>();
    workloadPods(a).forEach((p, i) => {
      order.set(p, i);
      const n = p.spec.nodeName;
      if (!n) unscheduled.push(p);
      else {
        let list = byNode.get(n);
        if (!list) byNode.set(n, (list = []));
        list.push(p);
      }
    });
    idx = { order, unscheduled, byNode };
    workloadIndexCache.set(a, idx);
  }
  return idx;
}

/**
 * The workload pods that use a group: those running on its nodes, and unscheduled ones its scratch template would take.
 * Indexed by node and cached per group (several checks ask), in input order.
 */
export function targetedPods(a: Analysis, g: NodeGroup): Pod[] {
  let perGroup = targetedCache.get(a);
  if (!perGroup) targetedCache.set(a, (perGroup = new Map()));
  const hit = perGroup.get(g.name);
  if (hit) return hit;
  const s = scratchOf(a, g);
  const idx = workloadIndex(a);
  const out: Pod[] = [];
  for (const n of g.nodes) out.push(...(idx.byNode.get(n.metadata.name ?? '') ?? []));
  if (s.node) {
    for (const pod of idx.unscheduled) {
      if (podMatchesNodeSelectorAndAffinity(pod, s.node) && !findUntoleratedTaint(pod.spec.tolerations, s.node.spec?.taints))
        out.push(pod);
    }
  }
  out.sort((x, y) => (idx.order.get(x) ?? 0) - (idx.order.get(y) ?? 0));
  perGroup.set(g.name, out);
  return out;
}

export interface RealShape {
  /** Nodes compared: those of the scratch's instance type when there are any, else all nodes of the group. */
  nodes: Node[];
  instanceType?: string;
  /** false when no node has the scratch template's instance type. */
  sameType: boolean;
  /** Smallest value over the nodes, per resource. */
  capacity: Resources;
  allocatable: Resources;
  /** DaemonSet and mirror pods of the node CA would copy. */
  overhead: Resources;
  estimated: false;
}

export interface EstimatedShape {
  capacity: Resources;
  allocatable: Resources;
  estimated: true;
  /** How the estimate was made. */
  basis: string;
}

function minOver(nodes: Node[], field: 'capacity' | 'allocatable'): Resources {
  const out: Resources = {};
  nodes.forEach((n, i) => {
    const r = parseResourceList(n.status?.[field]);
    if (i === 0) Object.assign(out, r);
    else for (const k of Object.keys(out)) out[k] = k in r ? Math.min(out[k], r[k]) : out[k];
  });
  return out;
}

/** The real nodes' shape (min over nodes), comparing like with like when the group mixes instance types. */
export function realShape(a: Analysis, g: NodeGroup): RealShape | undefined {
  if (g.nodes.length === 0) return undefined;
  const scratchType = scratchOf(a, g).instanceType;
  const typeOf = (n: Node) => n.metadata.labels?.['node.kubernetes.io/instance-type'];
  const same = scratchType ? g.nodes.filter((n) => typeOf(n) === scratchType) : [];
  const nodes = same.length > 0 ? same : g.nodes;
  const types = uniqueSorted(nodes.map((n) => typeOf(n) ?? '?'));
  const t = a.template(g);
  const overhead =
    t.source === 'node' && t.node
      ? nodeInfoFor(t.node, t.pods).requested
      : (scratchInfo(a, g)?.requested ?? {});
  return {
    nodes,
    ...(types.length === 1 && types[0] !== '?' ? { instanceType: types[0] } : {}),
    sameType: same.length > 0,
    capacity: minOver(nodes, 'capacity'),
    allocatable: minOver(nodes, 'allocatable'),
    overhead,
    estimated: false,
  };
}

const MI = 1024 * 1024;

/**
 * Allocatable of an EKS AMI node of this type (bootstrap defaults): kube-reserved memory 255Mi + 11Mi per max pod,
 * eviction threshold 100Mi, CPU 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above.
 * An upper bound: the kernel keeps a few percent of RAM, so a real node has less.
 */
export function eksAllocatableEstimate(info: InstanceTypeInfo): EstimatedShape | undefined {
  if (info.maxPods === undefined) return undefined;
  const cores = info.vcpu;
  let reservedMilli = 0;
  for (let c = 1; c <= cores; c++) reservedMilli += c === 1 ? 60 : c === 2 ? 10 : c <= 4 ? 5 : 2.5;
  const reservedMem = (255 + 11 * info.maxPods + 100) * MI;
  return {
    capacity: { cpu: cores * 1000, memory: info.memoryMiB * MI, pods: info.maxPods },
    allocatable: {
      cpu: cores * 1000 - Math.ceil(reservedMilli),
      memory: info.memoryMiB * MI - reservedMem,
      pods: info.maxPods,
    },
    estimated: true,
    basis: `EKS AMI defaults for ${info.name} (max pods ${info.maxPods}: kube-reserved ${255 + 11 * info.maxPods}Mi + eviction 100Mi, cpu ${Math.ceil(reservedMilli)}m)`,
  };
}

export function fmt(name: string, v: number | undefined): string {
  return v === undefined ? 'none' : formatResource(name, v);
}

// ---------------------------------------------------------------------------------------------------------------
// Zonal volumes

const ZONE_KEYS = [
  'topology.ebs.csi.aws.com/zone',
  'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/zone',
];

/** Zones a PV is pinned to: its node affinity (EBS CSI) or its zone labels. */
export function pvZones(pv: PersistentVolume): string[] {
  const zones = new Set<string>();
  for (const t of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const e of t.matchExpressions ?? []) {
      if (ZONE_KEYS.includes(e.key) && e.operator === 'In') for (const v of e.values ?? []) zones.add(v);
    }
  }
  if (zones.size === 0) {
    for (const k of ZONE_KEYS) {
      const v = pv.metadata.labels?.[k];
      if (v) for (const z of v.split('__')) if (z.trim()) zones.add(z.trim());
    }
  }
  return [...zones].sort();
}

export interface ZonalVolume {
  pod: Pod;
  claim: string;
  pv: string;
  zones: string[];
}

/** The pod's bound claims whose volumes live in specific zones. */
export function zonalVolumesOf(a: Analysis, pod: Pod): ZonalVolume[] {
  const out: ZonalVolume[] = [];
  for (const v of pod.spec.volumes ?? []) {
    const claim = v.persistentVolumeClaim?.claimName;
    if (!claim) continue;
    const pvc = a.raw.pvcs.find(
      (c) =>
        c.metadata.name === claim &&
        (c.metadata.namespace ?? 'default') === (pod.metadata.namespace ?? 'default'),
    );
    const pvName = pvc?.spec?.volumeName;
    if (!pvName) continue;
    const pv = a.raw.pvs.find((x) => x.metadata.name === pvName);
    if (!pv) continue;
    const zones = pvZones(pv);
    if (zones.length > 0) out.push({ pod, claim, pv: pvName, zones });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The JSON view of a node group

function templateReport(t: ScratchTemplate | TemplateResult): TemplateReport {
  const n = t.node;
  const strings = (m: Record<string, string | number> | undefined) =>
    Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, String(v)]));
  return {
    source: t.source,
    ...(t.instanceType ? { instanceType: t.instanceType } : {}),
    ...(t.fromNode ? { fromNode: t.fromNode } : {}),
    ...(t.reason ? { reason: t.reason } : {}),
    labels: { ...(n?.metadata.labels ?? {}) },
    taints: (n?.spec?.taints ?? []).map((x) => ({ key: x.key, value: x.value ?? '', effect: x.effect })),
    capacity: strings(n?.status?.capacity),
    allocatable: strings(n?.status?.allocatable),
  };
}

/** What the group launches: MixedInstancesPolicy overrides in API order, else the resolved template's type. */
export function configuredInstanceTypes(a: Analysis, g: NodeGroup): string[] {
  if (g.provider === 'aws' && g.mixedInstances && g.mixedInstances.instanceTypes.length > 0)
    return [...g.mixedInstances.instanceTypes];
  const s = scratchOf(a, g);
  return s.instanceType ? [s.instanceType] : [];
}

export function nodeGroupReport(a: Analysis, g: NodeGroup): NodeGroupReport {
  const t = a.template(g);
  return {
    name: g.name,
    discovered: g.discovered,
    via: g.via,
    minSize: g.minSize,
    maxSize: g.maxSize,
    desiredCapacity: g.targetSize,
    // a group of another provider has no ASG sizes of its own: CA's sizes stand in
    asgMinSize: g.provider === 'aws' ? g.asgMinSize : g.minSize,
    asgMaxSize: g.provider === 'aws' ? g.asgMaxSize : g.maxSize,
    zones: [...g.zones],
    instanceTypes: configuredInstanceTypes(a, g),
    nodes: g.nodes.length,
    template: templateReport(t),
    scratchTemplate: templateReport(t.scratch ?? t),
  };
}

/** Memory for people: "16Gi", "15391Mi", "62506.9Mi" (tags and commands keep exact quantities). */
export function humanResource(name: string, v: number | undefined): string {
  if (v === undefined) return 'none';
  if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) {
    if (v % (1024 * MI) === 0) return `${v / (1024 * MI)}Gi`;
    const mi = v / MI;
    return Number.isInteger(mi) ? `${mi}Mi` : `${mi.toFixed(1)}Mi`;
  }
  return formatResource(name, v);
}
