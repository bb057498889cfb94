/**
 * kube-scheduler InterPodAffinity Filter (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go), required
 * terms only. Checks, in upstream order: the pod's affinity (every term needs a matching pod in the node's domain,
 * unless no pod anywhere matches and the pod matches its own terms), the pod's anti-affinity, and existing pods'
 * anti-affinity against the pod.
 *
 * Terms select namespaces per upstream: `namespaces`, plus `namespaceSelector` ({} = all namespaces); neither set
 * means the owning pod's namespace. A non-empty namespaceSelector needs view.namespaceLabels; without it the plugin
 * is NotEvaluated where the answer depends on it. A candidate node missing from view.nodeInfos (CA's template node)
 * contributes its own pods, as CA adds it to its snapshot.
 */
import type { LabelSelectorRequirement, Pod, PodAffinityTerm } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { type CompiledSelector, compileLabelSelector, describeLabelSelector } from './labels.js';
import { failure, memoByView, memoByViewAndPod, notEvaluated, podKey, success } from './status.js';

export const INTER_POD_AFFINITY = 'InterPodAffinity';
export const REASON_POD_AFFINITY = "node(s) didn't match pod affinity rules";
export const REASON_POD_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
export const REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";

interface Term {
  raw: PodAffinityTerm;
  topologyKey: string;
  selector: CompiledSelector;
  namespaces: Set<string>;
  /** undefined when the term has no namespaceSelector (labels.Nothing()) */
  nsSelector?: CompiledSelector;
}

type Match = 'yes' | 'no' | 'unknown';

function buildTerms(owner: Pod, terms: PodAffinityTerm[] | undefined): Term[] {
  const ownerLabels = owner.metadata.labels ?? {};
  const ownerNs = owner.metadata.namespace ?? 'default';
  return (terms ?? []).map((t) => {
    // matchLabelKeys / mismatchLabelKeys fold into the selector (the API server does this on create since 1.33)
    const extra: LabelSelectorRequirement[] = [];
    for (const k of t.matchLabelKeys ?? []) {
      if (Object.hasOwn(ownerLabels, k)) extra.push({ key: k, operator: 'In', values: [ownerLabels[k]] });
    }
    for (const k of t.mismatchLabelKeys ?? []) {
      if (Object.hasOwn(ownerLabels, k)) extra.push({ key: k, operator: 'NotIn', values: [ownerLabels[k]] });
    }
    const noNamespaces = (t.namespaces?.length ?? 0) === 0 && !t.namespaceSelector;
    return {
      raw: t,
      topologyKey: t.topologyKey,
      selector: compileLabelSelector(t.labelSelector, extra),
      namespaces: new Set(noNamespaces ? [ownerNs] : (t.namespaces ?? [])),
      nsSelector: t.namespaceSelector ? compileLabelSelector(t.namespaceSelector) : undefined,
    };
  });
}

/** AffinityTerm.Matches: namespace selected, then labelSelector. */
function termMatches(term: Term, pod: Pod, view: ClusterView): Match {
  const ns = pod.metadata.namespace ?? 'default';
  let nsMatch: Match = term.namespaces.has(ns) ? 'yes' : 'no';
  if (nsMatch === 'no' && term.nsSelector) {
    if (term.nsSelector.empty) nsMatch = 'yes';
    else if (view.namespaceLabels)
      nsMatch = term.nsSelector.matches(view.namespaceLabels.get(ns)) ? 'yes' : 'no';
    else nsMatch = term.nsSelector.valid ? 'unknown' : 'no';
  }
  if (nsMatch === 'no') return 'no';
  if (!term.selector.matches(pod.metadata.labels)) return 'no';
  return nsMatch;
}

function allTermsMatch(terms: Term[], pod: Pod, view: ClusterView): boolean {
  return terms.length > 0 && terms.every((t) => termMatches(t, pod, view) === 'yes');
}

function pair(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

interface Tally {
  count: number;
  example: string;
}

function bump(m: Map<string, Tally>, key: string, example: string): void {
  const t = m.get(key);
  if (t) t.count++;
  else m.set(key, { count: 1, example });
}

interface ExistingAnti {
  pod: Pod;
  nodeInfo: NodeInfo;
  terms: Term[];
}

/** Pods on view nodes with required anti-affinity (NodeInfo.PodsWithRequiredAntiAffinity), once per view. */
const existingAntiPods = memoByView((view: ClusterView): ExistingAnti[] => {
  const out: ExistingAnti[] = [];
  for (const ni of view.nodeInfos) {
    for (const p of ni.pods) {
      const raw = p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
      if (raw && raw.length > 0) out.push({ pod: p, nodeInfo: ni, terms: buildTerms(p, raw) });
    }
  }
  return out;
});

const nodeNamesOf = memoByView(
  (view: ClusterView) => new Set(view.nodeInfos.map((ni) => ni.node.metadata.name)),
);

interface AffinityState {
  affinity: Term[];
  anti: Term[];
  /** incoming terms need namespace labels we do not have */
  needsNamespaceLabels: boolean;
  affinityCounts: Map<string, Tally>;
  antiCounts: Map<string, Tally>;
  existingAnti: Map<string, Tally>;
  existingAntiUnknown: Map<string, Tally>;
}

function addIncomingCounts(state: AffinityState, ni: NodeInfo, view: ClusterView): void {
  const labels = ni.node.metadata.labels ?? {};
  for (const existing of ni.pods) {
    if (allTermsMatch(state.affinity, existing, view)) {
      for (const t of state.affinity) {
        if (Object.hasOwn(labels, t.topologyKey)) {
          bump(state.affinityCounts, pair(t.topologyKey, labels[t.topologyKey]), podKey(existing));
        }
      }
    }
    for (const t of state.anti) {
      if (termMatches(t, existing, view) === 'yes' && Object.hasOwn(labels, t.topologyKey)) {
        bump(state.antiCounts, pair(t.topologyKey, labels[t.topologyKey]), podKey(existing));
      }
    }
  }
}

function addExistingAnti(state: AffinityState, incoming: Pod, entry: ExistingAnti, view: ClusterView): void {
  const labels = entry.nodeInfo.node.metadata.labels ?? {};
  for (const t of entry.terms) {
    const m = termMatches(t, incoming, view);
    if (m === 'no' || !Object.hasOwn(labels, t.topologyKey)) continue;
    const key = pair(t.topologyKey, labels[t.topologyKey]);
    const example = `${podKey(entry.pod)} on node ${entry.nodeInfo.node.metadata.name}`;
    bump(m === 'yes' ? state.existingAnti : state.existingAntiUnknown, key, example);
  }
}

/**
 * Existing pods' labels by node position, once per view: label key to the positions of the nodes holding a pod with
 * that label, and per value, ascending. Callers that change view.nodeInfos in place (scale-down's simulation)
 * replace NodeInfo objects, never mutate them: `sync` adds the labels of replaced positions, so a list may name a node
 * that no longer holds such a pod (a superset, filtered by the real match), never miss one. Two levels, not
 * "key\0value" strings: building those for every label of 100k pods, and hashing each, was most of the index's time.
 */
interface PodLabelIndex {
  infos: NodeInfo[];
  byKey: Map<string, { positions: number[]; byValue: Map<string, number[]> }>;
}

function insertPosition(list: number[], pos: number): void {
  if (list.length === 0 || list[list.length - 1] < pos) {
    list.push(pos);
    return;
  }
  // a replaced position: insert in order unless present
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < pos) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== pos) list.splice(lo, 0, pos);
}

function addPosition(m: Map<string, number[]>, key: string, pos: number): void {
  const list = m.get(key);
  if (!list) m.set(key, [pos]);
  else insertPosition(list, pos);
}

function indexNode(index: PodLabelIndex, ni: NodeInfo, pos: number): void {
  for (const p of ni.pods) {
    const labels = p.metadata.labels;
    if (!labels) continue;
    for (const k in labels) {
      if (!Object.hasOwn(labels, k)) continue;
      let entry = index.byKey.get(k);
      if (!entry) index.byKey.set(k, (entry = { positions: [], byValue: new Map() }));
      insertPosition(entry.positions, pos);
      const v = labels[k];
      addPosition(entry.byValue, typeof v === 'string' ? v : String(v), pos);
    }
  }
}

// Keyed by the nodeInfos array, not the view: scale-down's simulation makes a new view over the same array whenever a
// pod with required anti-affinity moves, and rebuilding the index from every pod then was most of its time at 15,000
// nodes with 1,000 groups. The sync below follows the positions replaced in place.
const podLabelIndexes = new WeakMap<NodeInfo[], PodLabelIndex>();

function podLabelIndex(view: ClusterView): PodLabelIndex {
  const infos = view.nodeInfos;
  let index = podLabelIndexes.get(infos);
  if (!index || index.infos.length !== infos.length) {
    index = { infos: [...infos], byKey: new Map() };
    for (let i = 0; i < infos.length; i++) indexNode(index, infos[i], i);
    podLabelIndexes.set(infos, index);
    return index;
  }
  for (let i = 0; i < infos.length; i++) {
    if (index.infos[i] === infos[i]) continue;
    index.infos[i] = infos[i];
    indexNode(index, infos[i], i);
  }
  return index;
}

function unionSorted(lists: number[][]): number[] {
  if (lists.length === 1) return lists[0];
  return [...new Set(lists.flat())].sort((a, b) => a - b);
}

/** Positions of the nodes that may hold a pod the selector matches; undefined when no requirement narrows it. */
function candidatePositions(selector: CompiledSelector, index: PodLabelIndex): number[] | undefined {
  if (!selector.requirements) return []; // matches nothing (no selector, or an invalid one)
  let best: number[] | undefined;
  for (const r of selector.requirements) {
    let list: number[];
    const entry = index.byKey.get(r.key);
    if (r.operator === 'In') list = entry ? unionSorted((r.values ?? []).map((v) => entry.byValue.get(v) ?? [])) : [];
    else if (r.operator === 'Exists') list = entry?.positions ?? [];
    else continue;
    if (!best || list.length < best.length) best = list;
  }
  return best;
}

/**
 * The nodes whose pods can count for the incoming pod's terms: a pod counts for its affinity only when it matches
 * every term (so one term's candidates suffice), for its anti-affinity when it matches any term. Undefined: all nodes.
 */
function incomingCandidates(state: AffinityState, index: PodLabelIndex): number[] | undefined {
  const lists: number[][] = [];
  if (state.affinity.length > 0) {
    let best: number[] | undefined;
    for (const t of state.affinity) {
      const c = candidatePositions(t.selector, index);
      if (c && (!best || c.length < best.length)) best = c;
    }
    if (!best) return undefined;
    lists.push(best);
  }
  for (const t of state.anti) {
    const c = candidatePositions(t.selector, index);
    if (!c) return undefined;
    lists.push(c);
  }
  return lists.length === 0 ? [] : unionSorted(lists);
}

function newState(pod: Pod, view: ClusterView): AffinityState {
  const affinity = buildTerms(
    pod,
    pod.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
  );
  const anti = buildTerms(
    pod,
    pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
  );
  const needsNamespaceLabels =
    !view.namespaceLabels && [...affinity, ...anti].some((t) => t.nsSelector && !t.nsSelector.empty);
  return {
    affinity,
    anti,
    needsNamespaceLabels,
    affinityCounts: new Map(),
    antiCounts: new Map(),
    existingAnti: new Map(),
    existingAntiUnknown: new Map(),
  };
}

/** The PreFilter state scanning every pod of the view: the reference the indexed state must equal. */
const affinityStateByScan = memoByViewAndPod((pod: Pod, view: ClusterView): AffinityState => {
  const state = newState(pod, view);
  if (state.affinity.length > 0 || state.anti.length > 0)
    for (const ni of view.nodeInfos) addIncomingCounts(state, ni, view);
  for (const entry of existingAntiPods(view)) addExistingAnti(state, pod, entry, view);
  return state;
});

/**
 * The PreFilter state from the nodes whose pods carry a label the terms require (in view order, so counts and the
 * first example are the scan's), and the existing anti-affinity terms whose selector the pod's labels can meet.
 */
const affinityState = memoByViewAndPod((pod: Pod, view: ClusterView): AffinityState => {
  const state = newState(pod, view);
  if (state.affinity.length > 0 || state.anti.length > 0) {
    const infos = view.nodeInfos;
    const positions = incomingCandidates(state, podLabelIndex(view));
    if (positions === undefined) for (const ni of infos) addIncomingCounts(state, ni, view);
    else for (const i of positions) addIncomingCounts(state, infos[i], view);
  }
  const entries = existingAntiPods(view);
  for (const i of existingAntiCandidates(entries, pod)) addExistingAnti(state, pod, entries[i], view);
  return state;
});

/** Existing anti-affinity entries by what their terms require of the incoming pod's labels, once per entry list. */
interface ExistingAntiIndex {
  /** entries with a term no requirement narrows: always candidates */
  always: number[];
  byPair: Map<string, number[]>;
  byKey: Map<string, number[]>;
}

const existingAntiIndexes = new WeakMap<ExistingAnti[], ExistingAntiIndex>();

function existingAntiIndex(entries: ExistingAnti[]): ExistingAntiIndex {
  let index = existingAntiIndexes.get(entries);
  if (index) return index;
  index = { always: [], byPair: new Map(), byKey: new Map() };
  entries.forEach((entry, i) => {
    for (const t of entry.terms) {
      const reqs = t.selector.requirements;
      if (!reqs) continue; // selects no pod
      // the requirement with the fewest values: the incoming pod must carry one of them for the term to match
      let best: (typeof reqs)[number] | undefined;
      for (const r of reqs) {
        if (r.operator !== 'In' && r.operator !== 'Exists') continue;
        if (!best || (r.values?.length ?? 0) < (best.values?.length ?? 0)) best = r;
      }
      if (!best) {
        if (index.always[index.always.length - 1] !== i) index.always.push(i);
      }
      else if (best.operator === 'Exists') addPosition(index.byKey, best.key, i);
      else for (const v of best.values ?? []) addPosition(index.byPair, pair(best.key, v), i);
    }
  });
  existingAntiIndexes.set(entries, index);
  return index;
}

/** Positions in `entries` whose terms may match the pod, ascending (the scan's order). */
function existingAntiCandidates(entries: ExistingAnti[], pod: Pod): number[] {
  if (entries.length === 0) return [];
  const index = existingAntiIndex(entries);
  const lists: number[][] = [index.always];
  const labels = pod.metadata.labels ?? {};
  for (const k in labels) {
    if (!Object.hasOwn(labels, k)) continue;
    const byKey = index.byKey.get(k);
    if (byKey) lists.push(byKey);
    const byPair = index.byPair.get(pair(k, labels[k]));
    if (byPair) lists.push(byPair);
  }
  return unionSorted(lists);
}

/** The state including a candidate node that is not part of the view (its own pods count too). */
function stateWithCandidate(
  state: AffinityState,
  pod: Pod,
  nodeInfo: NodeInfo,
  view: ClusterView,
): AffinityState {
  // Nothing on the candidate can change the counts (CA's template node for a pod without pod (anti-)affinity, none
  // of whose DaemonSet pods has required anti-affinity): the view's state as it is, not four copied maps per template.
  const incoming = state.affinity.length > 0 || state.anti.length > 0;
  if (!incoming && !nodeInfo.pods.some((p) => (p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0))
    return state;
  const copy: AffinityState = {
    ...state,
    affinityCounts: new Map([...state.affinityCounts].map(([k, v]) => [k, { ...v }])),
    antiCounts: new Map([...state.antiCounts].map(([k, v]) => [k, { ...v }])),
    existingAnti: new Map([...state.existingAnti].map(([k, v]) => [k, { ...v }])),
    existingAntiUnknown: new Map([...state.existingAntiUnknown].map(([k, v]) => [k, { ...v }])),
  };
  if (incoming) addIncomingCounts(copy, nodeInfo, view);
  for (const p of nodeInfo.pods) {
    const raw = p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (raw && raw.length > 0)
      addExistingAnti(copy, pod, { pod: p, nodeInfo, terms: buildTerms(p, raw) }, view);
  }
  return copy;
}

function describeTerm(t: Term): string {
  return `topologyKey ${t.topologyKey}, selector ${describeLabelSelector(t.raw.labelSelector)}`;
}

export function interPodAffinity(pod: Pod, nodeInfo: NodeInfo, view: ClusterView): FilterStatus {
  return filterWithState(affinityState(pod, view), pod, nodeInfo, view);
}

/** interPodAffinity with its PreFilter state from a scan of every pod: the reference for the indexed state's tests. */
export function interPodAffinityByScan(pod: Pod, nodeInfo: NodeInfo, view: ClusterView): FilterStatus {
  return filterWithState(affinityStateByScan(pod, view), pod, nodeInfo, view);
}

function filterWithState(prefilter: AffinityState, pod: Pod, nodeInfo: NodeInfo, view: ClusterView): FilterStatus {
  let state = prefilter;
  const invalid = state.affinity.find((t) => !t.selector.valid) ?? state.anti.find((t) => !t.selector.valid);
  if (invalid) {
    // upstream PreFilter fails with the selector parse error; the pod cannot be scheduled anywhere
    return failure(INTER_POD_AFFINITY, 'Error', [
      `invalid labelSelector in pod affinity term: ${describeLabelSelector(invalid.raw.labelSelector)}`,
    ]);
  }
  if (state.needsNamespaceLabels) {
    return notEvaluated(INTER_POD_AFFINITY, [
      "namespace labels were not gathered; the pod's affinity terms use a namespaceSelector",
    ]);
  }
  const node = nodeInfo.node;
  if (!nodeNamesOf(view).has(node.metadata.name)) state = stateWithCandidate(state, pod, nodeInfo, view);
  const labels = node.metadata.labels ?? {};

  // satisfyPodAffinity
  let podsExist = true;
  for (const t of state.affinity) {
    if (!Object.hasOwn(labels, t.topologyKey)) {
      return failure(
        INTER_POD_AFFINITY,
        'UnschedulableAndUnresolvable',
        [REASON_POD_AFFINITY],
        [`node ${node.metadata.name} has no label ${t.topologyKey} (pod affinity term: ${describeTerm(t)})`],
      );
    }
    if ((state.affinityCounts.get(pair(t.topologyKey, labels[t.topologyKey]))?.count ?? 0) <= 0)
      podsExist = false;
  }
  // upstream special case: the first pod of a group with affinity to itself may go anywhere
  if (!podsExist && !(state.affinityCounts.size === 0 && allTermsMatch(state.affinity, pod, view))) {
    const missing = state.affinity.filter(
      (t) => (state.affinityCounts.get(pair(t.topologyKey, labels[t.topologyKey]))?.count ?? 0) <= 0,
    );
    return failure(
      INTER_POD_AFFINITY,
      'UnschedulableAndUnresolvable',
      [REASON_POD_AFFINITY],
      missing.map(
        (t) =>
          `no pod matching all affinity terms runs in ${t.topologyKey}=${labels[t.topologyKey]} (term: ${describeTerm(t)})`,
      ),
    );
  }

  // satisfyPodAntiAffinity
  if (state.antiCounts.size > 0) {
    for (const t of state.anti) {
      if (!Object.hasOwn(labels, t.topologyKey)) continue;
      const tally = state.antiCounts.get(pair(t.topologyKey, labels[t.topologyKey]));
      if (tally && tally.count > 0) {
        return failure(
          INTER_POD_AFFINITY,
          'Unschedulable',
          [REASON_POD_ANTI_AFFINITY],
          [
            `${tally.count} pod(s) in ${t.topologyKey}=${labels[t.topologyKey]} match the pod's anti-affinity term (${describeTerm(t)}), e.g. ${tally.example}`,
          ],
        );
      }
    }
  }

  // satisfyExistingPodsAntiAffinity
  if (state.existingAnti.size > 0 || state.existingAntiUnknown.size > 0) {
    let unknown: { key: string; tally: Tally } | undefined;
    for (const [k, v] of Object.entries(labels)) {
      const key = pair(k, v);
      const tally = state.existingAnti.get(key);
      if (tally && tally.count > 0) {
        return failure(
          INTER_POD_AFFINITY,
          'Unschedulable',
          [REASON_EXISTING_ANTI_AFFINITY],
          [
            `pod ${tally.example} has required anti-affinity (${k}) against this pod; node ${node.metadata.name} is in ${k}=${v}`,
          ],
        );
      }
      const maybe = state.existingAntiUnknown.get(key);
      if (maybe && !unknown) unknown = { key: `${k}=${v}`, tally: maybe };
    }
    if (unknown) {
      return notEvaluated(INTER_POD_AFFINITY, [
        `namespace labels were not gathered; anti-affinity of pod ${unknown.tally.example} (${unknown.key}) uses a namespaceSelector`,
      ]);
    }
  }
  return success(INTER_POD_AFFINITY);
}
