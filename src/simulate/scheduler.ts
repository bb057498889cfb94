/**
 * The kube-scheduler Filter pass over our predicates (pkg/scheduler/framework/runtime/framework.go
 * RunPreFilterPlugins / RunFilterPlugins) and the "0/N nodes are available" message (framework/types.go
 * FitError.Error()). CA runs the same pass against template nodes (simulator/clustersnapshot/predicate/plugin_runner.go).
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo, PredicateResult } from '../model/scheduling.js';
import { INTER_POD_AFFINITY, interPodAffinity } from './predicates/inter-pod-affinity.js';
import { NODE_AFFINITY, nodeAffinity } from './predicates/node-affinity.js';
import { NODE_NAME, nodeName } from './predicates/node-name.js';
import { NODE_PORTS, nodePorts } from './predicates/node-ports.js';
import { NODE_RESOURCES_FIT, nodeResourcesFit, nodeResourcesFitReasons } from './predicates/node-resources-fit.js';
import { NODE_UNSCHEDULABLE, nodeUnschedulable } from './predicates/node-unschedulable.js';
import { POD_TOPOLOGY_SPREAD, podTopologySpread } from './predicates/pod-topology-spread.js';
import {
  REASON_UNTOLERATED_TAINT_REDACTED,
  TAINT_TOLERATION,
  taintToleration,
} from './predicates/taint-toleration.js';
import { VOLUME_BINDING, volumeBinding, volumeBindingPreFilter } from './predicates/volume-binding.js';
import { VOLUME_ZONE, volumeZone } from './predicates/volume-zone.js';
import { nodeInfoFor } from './resources.js';

export type FilterFn = (pod: Pod, nodeInfo: NodeInfo, view: ClusterView) => FilterStatus;

export interface FilterPlugin {
  name: string;
  filter: FilterFn;
  /** Node-independent rejection checked before any Filter (the plugin's PreFilter). */
  preFilter?: (pod: Pod, view: ClusterView) => FilterStatus;
}

/** Our Filter plugins in kube-scheduler's default order (pkg/scheduler/apis/config/v1/default_plugins.go). */
export const FILTER_PLUGINS: readonly FilterPlugin[] = [
  { name: NODE_UNSCHEDULABLE, filter: nodeUnschedulable },
  { name: NODE_NAME, filter: nodeName },
  { name: TAINT_TOLERATION, filter: taintToleration },
  { name: NODE_AFFINITY, filter: nodeAffinity },
  { name: NODE_PORTS, filter: nodePorts },
  { name: NODE_RESOURCES_FIT, filter: nodeResourcesFit },
  { name: VOLUME_BINDING, filter: volumeBinding, preFilter: volumeBindingPreFilter },
  { name: VOLUME_ZONE, filter: volumeZone },
  { name: POD_TOPOLOGY_SPREAD, filter: podTopologySpread },
  { name: INTER_POD_AFFINITY, filter: interPodAffinity },
];

export const DEFAULT_FILTER_ORDER: readonly string[] = FILTER_PLUGINS.map((p) => p.name);

export interface RunFiltersOptions {
  /** Plugin names to run (kept in default order); default all. Mirrors a --scheduler-config-file that disables some. */
  plugins?: readonly string[];
  /**
   * TaintToleration's reason: "with-taint" ("node(s) had untolerated taint {k: v}", kube-scheduler before
   * kubernetes#134740) or "redacted" ("node(s) had untolerated taint(s)", 1.35+ and patch releases from Nov 2025).
   */
  taintReason?: 'with-taint' | 'redacted';
}

function selectedPlugins(options?: RunFiltersOptions): readonly FilterPlugin[] {
  if (!options?.plugins) return FILTER_PLUGINS;
  const wanted = new Set(options.plugins);
  return FILTER_PLUGINS.filter((p) => wanted.has(p.name));
}

function isRejection(s: FilterStatus): boolean {
  return s.code !== 'Success' && s.code !== 'NotEvaluated';
}

function styled(s: FilterStatus, options?: RunFiltersOptions): FilterStatus {
  if (options?.taintReason === 'redacted' && s.plugin === TAINT_TOLERATION && isRejection(s)) {
    return { ...s, reasons: [REASON_UNTOLERATED_TAINT_REDACTED] };
  }
  return s;
}

export interface PreFilterResult {
  /** The first PreFilter rejection: the pod fits no node, whatever the node. */
  failure?: FilterStatus;
  notEvaluated: FilterStatus[];
}

/** Runs the node-independent PreFilter checks (VolumeBinding's: missing PVCs, unbound immediate claims). */
export function runPreFilters(pod: Pod, view: ClusterView, options?: RunFiltersOptions): PreFilterResult {
  const notEvaluated: FilterStatus[] = [];
  for (const plugin of selectedPlugins(options)) {
    if (!plugin.preFilter) continue;
    const s = plugin.preFilter(pod, view);
    if (s.code === 'NotEvaluated') notEvaluated.push(s);
    else if (s.code !== 'Success') return { failure: s, notEvaluated };
  }
  return { notEvaluated };
}

/**
 * PreFilter, then Filter plugins in order, stopping at the first rejection like the scheduler. NotEvaluated
 * statuses are collected and evaluation continues; `fits` is true only if every plugin passed.
 */
export function runFilters(
  pod: Pod,
  nodeInfo: NodeInfo,
  view: ClusterView,
  options?: RunFiltersOptions,
): PredicateResult {
  const pre = runPreFilters(pod, view, options);
  if (pre.failure) return { fits: false, failure: pre.failure, notEvaluated: pre.notEvaluated };
  const notEvaluated = [...pre.notEvaluated];
  for (const plugin of selectedPlugins(options)) {
    const s = plugin.filter(pod, nodeInfo, view);
    if (s.code === 'Success') continue;
    if (s.code === 'NotEvaluated') {
      if (!notEvaluated.some((n) => n.plugin === s.plugin)) notEvaluated.push(s);
      continue;
    }
    return { fits: false, failure: styled(s, options), notEvaluated };
  }
  return { fits: notEvaluated.length === 0, notEvaluated };
}

export interface AllFiltersResult {
  /** Every rejecting plugin in scheduler order; failures[0] is what the scheduler (and CA) would report. */
  failures: FilterStatus[];
  notEvaluated: FilterStatus[];
}

/**
 * Like runFilters but without stopping at the first rejection: every plugin's verdict, for explaining all that
 * would have to change. A PreFilter rejection comes first; each plugin, and each reason, appears at most once.
 */
export function evaluateAllFilters(
  pod: Pod,
  nodeInfo: NodeInfo,
  view: ClusterView,
  options?: RunFiltersOptions,
): AllFiltersResult {
  const pre = runPreFilters(pod, view, options);
  const failures: FilterStatus[] = pre.failure ? [pre.failure] : [];
  const notEvaluated = [...pre.notEvaluated];
  const seen = (list: FilterStatus[], s: FilterStatus) => list.some((x) => x.plugin === s.plugin);
  for (const plugin of selectedPlugins(options)) {
    const s = plugin.filter(pod, nodeInfo, view);
    if (s.code === 'Success') continue;
    if (s.code === 'NotEvaluated') {
      if (!seen(notEvaluated, s)) notEvaluated.push(s);
    } else if (!seen(failures, s) && !s.reasons.every((r) => failures.some((f) => f.reasons.includes(r)))) {
      // VolumeZone repeats VolumeBinding's PreFilter reason for a missing claim: one root cause, listed once
      failures.push(styled(s, options));
    }
  }
  return { failures, notEvaluated };
}

export interface NodeExplanation {
  name: string;
  fits: boolean;
  /** The scheduler's reasons for this node (empty when it fits or could not be evaluated). */
  reasons: string[];
  result: PredicateResult;
}

export interface Explanation {
  /**
   * kube-scheduler's FitError text when no node fits ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had
   * untolerated taint {a: b}."), without the preemption suffix; "" when some node fits.
   */
  message: string;
  nodes: NodeExplanation[];
  /** Names of the nodes the pod fits on, in view order. */
  fittingNodes: string[];
  /** Set when a PreFilter rejected the pod on every node. */
  preFilterFailure?: FilterStatus;
}

/** Histogram entry casdoctor adds for nodes it could not evaluate (never a scheduler reason). */
export function notEvaluatedReason(plugins: string[]): string {
  return `node(s) could not be evaluated (${plugins.join('/')})`;
}

/** Formats FitError.Error(): "0/N nodes are available: [<preFilterMsg>.] [<sorted histogram>.] [<postFilterMsg>]". */
export function formatFitError(
  numAllNodes: number,
  reasonsPerNode: Iterable<readonly string[]>,
  extra: { preFilterMsg?: string; postFilterMsg?: string } = {},
): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (extra.preFilterMsg) {
    msg += ` ${extra.preFilterMsg}.`;
  } else {
    const histogram = new Map<string, number>();
    for (const reasons of reasonsPerNode)
      for (const r of reasons) histogram.set(r, (histogram.get(r) ?? 0) + 1);
    // sort.Strings on "<count> <reason>": byte order, so "10 x" sorts before "2 y"
    const parts = [...histogram].map(([r, n]) => `${n} ${r}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (parts.length > 0) msg += ` ${parts.join(', ')}.`;
  }
  if (extra.postFilterMsg) msg += ` ${extra.postFilterMsg}`;
  return msg;
}

export interface ParsedFitError {
  numAllNodes: number;
  preFilterMsg?: string;
  /** reason -> number of nodes */
  reasons: Map<string, number>;
  /** e.g. "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling." */
  postFilterMsg?: string;
}

/** Best-effort parse of a FailedScheduling / PodScheduled message produced by FitError.Error(). */
export function parseFitError(message: string): ParsedFitError | undefined {
  const m = /^0\/(\d+) nodes are available: ?(.*)$/s.exec(message.trim());
  if (!m) return undefined;
  const out: ParsedFitError = { numAllNodes: Number(m[1]), reasons: new Map() };
  let rest = m[2];
  const cut = rest.indexOf('. ');
  let first = cut === -1 ? rest : rest.slice(0, cut);
  rest = cut === -1 ? '' : rest.slice(cut + 2).trim();
  if (cut === -1 && first.endsWith('.')) first = first.slice(0, -1);
  if (/^\d+ /.test(first)) {
    for (const part of first.split(/, (?=\d+ )/)) {
      const pm = /^(\d+) (.*)$/s.exec(part);
      if (pm) out.reasons.set(pm[2], (out.reasons.get(pm[2]) ?? 0) + Number(pm[1]));
    }
  } else if (first) {
    out.preFilterMsg = first;
  }
  if (rest) out.postFilterMsg = rest;
  return out;
}

/** Maps every historical TaintToleration reason to the current redacted one, for comparing with live events. */
export function normalizeSchedulerReason(reason: string): string {
  if (/^node\(s\) had untolerated taint \{.*\}$/s.test(reason)) return REASON_UNTOLERATED_TAINT_REDACTED;
  if (/^node\(s\) had taints? .*that the pod didn't tolerate$/s.test(reason))
    return REASON_UNTOLERATED_TAINT_REDACTED;
  return reason;
}

/**
 * Runs the filters against every node of the view and reproduces the scheduler's FitError message, one node at a
 * time: the reference explainAgainstNodes must agree with (test/simulate/scheduler-node-classes.test.ts).
 * Nodes that could not be fully evaluated count as not fitting and appear in the histogram under
 * notEvaluatedReason(...), so the counts add up to N.
 */
export function explainAgainstNodesPerNode(pod: Pod, view: ClusterView, options?: RunFiltersOptions): Explanation {
  return explain(pod, view, options, (ni) => runFilters(pod, ni, view, options));
}

/**
 * explainAgainstNodes with node classes: nodes alike in everything the pod's static Filter plugins read (the label
 * keys its nodeSelector / required node affinity name, taints, spec.unschedulable) get those plugins' statuses
 * once per class; the per-node plugins (ports, resources, topology spread, inter-pod affinity, and volumes when the
 * pod has claims) run per node. Nodes failing a static plugin share one result object. Same verdicts, reasons and
 * message as explainAgainstNodesPerNode; NodeResourcesFit's failures carry no details (the values per resource).
 */
export function explainAgainstNodes(pod: Pod, view: ClusterView, options?: RunFiltersOptions): Explanation {
  const classOf = nodeClassKeyer(pod, view);
  if (!classOf) return explainAgainstNodesPerNode(pod, view, options);
  // the explanation keeps reasons only (why-pending reads nothing else of it): no resource details per pod × node
  const plugins = selectedPlugins(options).map((p) => (p.name === NODE_RESOURCES_FIT ? { ...p, filter: nodeResourcesFitReasons } : p));
  const pre = runPreFilters(pod, view, options);
  const withClaims = podHasClaims(pod);
  const isStatic = plugins.map((p) => STATIC_PLUGINS.has(p.name) || (!withClaims && VOLUME_PLUGINS.has(p.name)));
  const classes = new Map<number, Array<FilterStatus | undefined>>();
  // a failure in the leading run of static plugins decides the node the same way for the whole class
  const decided = new Map<number, PredicateResult>();
  return explain(pod, view, options, (ni, i) => {
    const key = classOf(ni, i);
    const early = decided.get(key);
    if (early) return early;
    let statuses = classes.get(key);
    if (!statuses) classes.set(key, (statuses = new Array<FilterStatus | undefined>(plugins.length)));
    // one shared empty list for the common case (a plugin that cannot evaluate copies it first)
    let notEvaluated = pre.notEvaluated.length > 0 ? [...pre.notEvaluated] : NONE_NOT_EVALUATED;
    let leading = true;
    for (let i = 0; i < plugins.length; i++) {
      const plugin = plugins[i];
      let s: FilterStatus;
      if (isStatic[i]) s = statuses[i] ??= plugin.filter(pod, ni, view);
      else {
        leading = false;
        s = plugin.filter(pod, ni, view);
      }
      if (s.code === 'Success') continue;
      if (s.code === 'NotEvaluated') {
        if (notEvaluated === NONE_NOT_EVALUATED) notEvaluated = [s];
        else if (!notEvaluated.some((n) => n.plugin === s.plugin)) notEvaluated.push(s);
        continue;
      }
      const result: PredicateResult = { fits: false, failure: styled(s, options), notEvaluated };
      if (leading) decided.set(key, result);
      return result;
    }
    return { fits: notEvaluated.length === 0, notEvaluated };
  });
}

const NONE_NOT_EVALUATED: FilterStatus[] = Object.freeze([]) as unknown as FilterStatus[];

/** Plugins that read only the node's labels, taints and spec.unschedulable (and its name, see nodeClassKeyer). */
const STATIC_PLUGINS = new Set([NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY]);
/** Succeed without reading the node when the pod has no claims (volume-binding.ts podClaims, volume-zone.ts). */
const VOLUME_PLUGINS = new Set([VOLUME_BINDING, VOLUME_ZONE]);

function podHasClaims(pod: Pod): boolean {
  return (pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim || v.ephemeral);
}

const taintKeys = new WeakMap<Node, string>();

function taintKey(node: Node): string {
  let k = taintKeys.get(node);
  if (k === undefined) taintKeys.set(node, (k = JSON.stringify(node.spec?.taints ?? [])));
  return k;
}

/** Class ids of a view's nodes for one set of label keys, by position; a position whose Node changed is keyed again. */
interface ClassIds {
  nodes: Array<Node | undefined>;
  ids: number[];
  byKey: Map<string, number>;
}
const classIdsByView = new WeakMap<ClusterView, Map<string, ClassIds>>();

/**
 * The node-class id for a pod (nodes with equal ids are alike for its static plugins), or undefined when its static
 * plugins read the node's name (spec.nodeName, matchFields): then every node is its own class and the per-node path
 * runs. Ids are kept per view and set of label keys, so pods selecting on the same keys key each node once.
 */
function nodeClassKeyer(pod: Pod, view: ClusterView): ((ni: NodeInfo, i: number) => number) | undefined {
  if (pod.spec.nodeName) return undefined;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms?.some((t) => (t.matchFields?.length ?? 0) > 0)) return undefined;
  const keys = [
    ...new Set([
      ...Object.keys(pod.spec.nodeSelector ?? {}),
      ...(terms ?? []).flatMap((t) => (t.matchExpressions ?? []).map((e) => e.key)),
    ]),
  ].sort();
  const keyOf = (node: Node) => {
    const labels = node.metadata.labels ?? {};
    // JSON keeps the key unambiguous whatever the label values hold (null: the label is absent)
    const values = keys.map((key) => (Object.hasOwn(labels, key) ? labels[key] : null));
    return `${node.spec?.unschedulable ? 1 : 0}${taintKey(node)}${JSON.stringify(values)}`;
  };
  let perView = classIdsByView.get(view);
  if (!perView) classIdsByView.set(view, (perView = new Map()));
  const sig = JSON.stringify(keys);
  let c = perView.get(sig);
  if (!c) perView.set(sig, (c = { nodes: [], ids: [], byKey: new Map() }));
  const cache = c;
  return (ni, i) => {
    if (cache.nodes[i] === ni.node) return cache.ids[i];
    const key = keyOf(ni.node);
    let id = cache.byKey.get(key);
    if (id === undefined) cache.byKey.set(key, (id = cache.byKey.size));
    cache.nodes[i] = ni.node;
    cache.ids[i] = id;
    return id;
  };
}

function explain(
  pod: Pod,
  view: ClusterView,
  options: RunFiltersOptions | undefined,
  filterNode: (ni: NodeInfo, i: number) => PredicateResult,
): Explanation {
  const total = view.nodeInfos.length;
  if (total === 0) return { message: 'no nodes available to schedule pods', nodes: [], fittingNodes: [] };
  const pre = runPreFilters(pod, view, options);
  if (pre.failure) {
    const failure = pre.failure;
    const result = { fits: false, failure, notEvaluated: pre.notEvaluated };
    const nodes = view.nodeInfos.map((ni) => ({ name: ni.node.metadata.name ?? '', fits: false, reasons: failure.reasons, result }));
    return {
      message: formatFitError(total, [], { preFilterMsg: failure.reasons.join(', ') }),
      nodes,
      fittingNodes: [],
      preFilterFailure: failure,
    };
  }
  const nodes: NodeExplanation[] = [];
  const fittingNodes: string[] = [];
  const histogramInput: Array<readonly string[]> = [];
  for (let i = 0; i < total; i++) {
    const ni = view.nodeInfos[i];
    const result = filterNode(ni, i);
    const name = ni.node.metadata.name ?? '';
    const reasons = result.failure?.reasons ?? [];
    nodes.push({ name, fits: result.fits, reasons, result });
    if (result.fits) fittingNodes.push(name);
    else if (result.failure) histogramInput.push(reasons);
    else histogramInput.push([notEvaluatedReason(result.notEvaluated.map((s) => s.plugin))]);
  }
  const message = fittingNodes.length > 0 ? '' : formatFitError(total, histogramInput);
  return { message, nodes, fittingNodes };
}

export interface ClusterViewInput {
  nodes: Node[];
  pods: Pod[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  storageClasses?: StorageClass[];
  /** Which kinds were gathered; defaults to "the array was given". */
  has?: Partial<ClusterView['has']>;
  namespaceLabels?: Map<string, Record<string, string>>;
}

/** A pod the scheduler's cache holds on a node: assigned and not terminal (its informer drops Succeeded/Failed). */
export function isAssignedActivePod(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return Boolean(pod.spec?.nodeName) && phase !== 'Succeeded' && phase !== 'Failed';
}

/** Builds the view: pods indexed by spec.nodeName in one pass; pods on unknown nodes are dropped. */
export function buildClusterView(input: ClusterViewInput): ClusterView {
  const byNode = new Map<string, Pod[]>();
  for (const n of input.nodes) byNode.set(n.metadata.name ?? '', []);
  for (const p of input.pods) {
    if (!isAssignedActivePod(p)) continue;
    byNode.get(p.spec.nodeName!)?.push(p);
  }
  const nodeInfos = input.nodes.map((n) => nodeInfoFor(n, byNode.get(n.metadata.name ?? '') ?? []));
  const pvcs = new Map<string, PersistentVolumeClaim>();
  for (const c of input.pvcs ?? []) pvcs.set(`${c.metadata.namespace ?? 'default'}/${c.metadata.name}`, c);
  const pvs = new Map<string, PersistentVolume>();
  for (const v of input.pvs ?? []) pvs.set(v.metadata.name ?? '', v);
  const storageClasses = new Map<string, StorageClass>();
  for (const s of input.storageClasses ?? []) storageClasses.set(s.metadata.name ?? '', s);
  return {
    nodeInfos,
    pvcs,
    pvs,
    storageClasses,
    namespaceLabels: input.namespaceLabels,
    has: {
      pvcs: input.has?.pvcs ?? input.pvcs !== undefined,
      pvs: input.has?.pvs ?? input.pvs !== undefined,
      storageClasses: input.has?.storageClasses ?? input.storageClasses !== undefined,
    },
  };
}
