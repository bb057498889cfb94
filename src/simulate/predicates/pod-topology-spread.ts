/**
 * kube-scheduler PodTopologySpread Filter (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go), for
 * required constraints (whenUnsatisfiable: DoNotSchedule) only.
 *
 * Domains come from view.nodeInfos: a node counts when it carries every constraint's topology key and passes the
 * constraint's inclusion policies (nodeAffinityPolicy Honor by default: the pod's nodeSelector/required affinity;
 * nodeTaintsPolicy Ignore by default). Matching pods: same namespace, not terminating, labelSelector plus
 * matchLabelKeys; an empty selector matches nothing, as upstream. skew = matching pods in the node's domain
 * + 1 if the pod matches itself - global minimum (0 when fewer domains than minDomains); skew > maxSkew rejects.
 *
 * A candidate node that is not in view.nodeInfos (e.g. CA's template node) is added to the domain counts with its
 * own pods, as CA adds the template to its forked snapshot: a new zone then is a domain with 0 matching pods.
 */
import type { LabelSelectorRequirement, Pod, TopologySpreadConstraint } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { type CompiledSelector, compileLabelSelector, describeLabelSelector } from './labels.js';
import { podMatchesNodeSelectorAndAffinity } from './node-affinity.js';
import { failure, memoByView, memoByViewAndPod, success } from './status.js';
import { findUntoleratedTaint } from './taint-toleration.js';

export const POD_TOPOLOGY_SPREAD = 'PodTopologySpread';
export const REASON_TOPOLOGY_SPREAD = "node(s) didn't match pod topology spread constraints";
export const REASON_TOPOLOGY_SPREAD_MISSING_LABEL = `${REASON_TOPOLOGY_SPREAD} (missing required label)`;

interface Constraint {
  raw: TopologySpreadConstraint;
  topologyKey: string;
  maxSkew: number;
  minDomains: number;
  selector: CompiledSelector;
  honorAffinity: boolean;
  honorTaints: boolean;
}

interface DomainCounts {
  counts: Map<string, number>;
  min: number;
  minDomain?: string;
}

interface SpreadState {
  constraints: Constraint[];
  invalid?: string;
  domains: DomainCounts[];
}

/** Required (DoNotSchedule) constraints with matchLabelKeys folded into the selector. */
function requiredConstraints(pod: Pod): { constraints: Constraint[]; invalid?: string } {
  const constraints: Constraint[] = [];
  const podLabels = pod.metadata.labels ?? {};
  for (const c of pod.spec.topologySpreadConstraints ?? []) {
    if (c.whenUnsatisfiable !== 'DoNotSchedule') continue;
    const extra: LabelSelectorRequirement[] = [];
    for (const key of c.matchLabelKeys ?? []) {
      if (Object.hasOwn(podLabels, key)) extra.push({ key, operator: 'In', values: [podLabels[key]] });
    }
    const selector = compileLabelSelector(c.labelSelector, extra);
    if (!selector.valid) {
      return { constraints, invalid: `invalid labelSelector ${describeLabelSelector(c.labelSelector)}` };
    }
    constraints.push({
      raw: c,
      topologyKey: c.topologyKey,
      maxSkew: c.maxSkew,
      minDomains: c.minDomains ?? 1,
      selector,
      honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
      honorTaints: c.nodeTaintsPolicy === 'Honor',
    });
  }
  return { constraints };
}

function hasAllKeys(labels: Record<string, string>, constraints: Constraint[]): boolean {
  return constraints.every((c) => Object.hasOwn(labels, c.topologyKey));
}

function nodeIncluded(pod: Pod, c: Constraint, ni: NodeInfo): boolean {
  if (c.honorAffinity && !podMatchesNodeSelectorAndAffinity(pod, ni.node)) return false;
  if (c.honorTaints && findUntoleratedTaint(pod.spec.tolerations, ni.node.spec?.taints)) return false;
  return true;
}

function countMatching(pods: Pod[], selector: CompiledSelector, namespace: string): number {
  if (selector.empty) return 0;
  let n = 0;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp || (p.metadata.namespace ?? 'default') !== namespace) continue;
    if (selector.matches(p.metadata.labels)) n++;
  }
  return n;
}

function minOf(counts: Map<string, number>): { min: number; minDomain?: string } {
  let min = Number.POSITIVE_INFINITY;
  let minDomain: string | undefined;
  for (const [domain, n] of counts) {
    if (n < min || (n === min && minDomain !== undefined && domain < minDomain)) {
      min = n;
      minDomain = domain;
    }
  }
  return { min, minDomain };
}

const nodeNamesOf = memoByView(
  (view: ClusterView) => new Set(view.nodeInfos.map((ni) => ni.node.metadata.name)),
);

const spreadState = memoByViewAndPod((pod: Pod, view: ClusterView): SpreadState => {
  const { constraints, invalid } = requiredConstraints(pod);
  if (invalid || constraints.length === 0) return { constraints, invalid, domains: [] };
  const namespace = pod.metadata.namespace ?? 'default';
  const counts = constraints.map(() => new Map<string, number>());
  for (const ni of view.nodeInfos) {
    const labels = ni.node.metadata.labels ?? {};
    if (!hasAllKeys(labels, constraints)) continue;
    constraints.forEach((c, i) => {
      if (!nodeIncluded(pod, c, ni)) return;
      const domain = labels[c.topologyKey];
      counts[i].set(domain, (counts[i].get(domain) ?? 0) + countMatching(ni.pods, c.selector, namespace));
    });
  }
  return { constraints, domains: counts.map((m) => ({ counts: m, ...minOf(m) })) };
});

export function podTopologySpread(pod: Pod, nodeInfo: NodeInfo, view: ClusterView): FilterStatus {
  const state = spreadState(pod, view);
  if (state.invalid) return failure(POD_TOPOLOGY_SPREAD, 'Error', [state.invalid]);
  if (state.constraints.length === 0) return success(POD_TOPOLOGY_SPREAD);
  const node = nodeInfo.node;
  const labels = node.metadata.labels ?? {};
  const inView = nodeNamesOf(view).has(node.metadata.name);
  const namespace = pod.metadata.namespace ?? 'default';
  for (let i = 0; i < state.constraints.length; i++) {
    const c = state.constraints[i];
    if (!Object.hasOwn(labels, c.topologyKey)) {
      return failure(
        POD_TOPOLOGY_SPREAD,
        'UnschedulableAndUnresolvable',
        [REASON_TOPOLOGY_SPREAD_MISSING_LABEL],
        [`node ${node.metadata.name} has no label ${c.topologyKey}`],
      );
    }
    const domain = labels[c.topologyKey];
    let { counts, min, minDomain } = state.domains[i];
    if (!inView && hasAllKeys(labels, state.constraints) && nodeIncluded(pod, c, nodeInfo)) {
      counts = new Map(counts);
      counts.set(domain, (counts.get(domain) ?? 0) + countMatching(nodeInfo.pods, c.selector, namespace));
      ({ min, minDomain } = minOf(counts));
    }
    if (counts.size < c.minDomains) {
      min = 0;
      minDomain = undefined;
    }
    const selfMatch = c.selector.matches(pod.metadata.labels) ? 1 : 0;
    const matchNum = counts.get(domain) ?? 0;
    const skew = matchNum + selfMatch - min;
    if (skew > c.maxSkew) {
      const minText =
        minDomain === undefined
          ? `global minimum 0 (${counts.size} domain(s) < minDomains ${c.minDomains})`
          : `global minimum ${min} (${c.topologyKey}=${minDomain})`;
      return failure(
        POD_TOPOLOGY_SPREAD,
        'Unschedulable',
        [REASON_TOPOLOGY_SPREAD],
        [
          `constraint ${c.topologyKey} maxSkew ${c.maxSkew} (selector ${describeLabelSelector(c.raw.labelSelector)}): ${c.topologyKey}=${domain} has ${matchNum} matching pod(s)${selfMatch ? ' + this pod' : ''}, ${minText}, skew ${skew} > ${c.maxSkew}`,
        ],
      );
    }
  }
  return success(POD_TOPOLOGY_SPREAD);
}

/** Exposed for callers that want to report spread data without filtering. */
export function topologySpreadDomains(
  pod: Pod,
  view: ClusterView,
): Array<{ topologyKey: string; counts: Map<string, number> }> {
  const state = spreadState(pod, view);
  return state.constraints.map((c, i) => ({
    topologyKey: c.topologyKey,
    counts: state.domains[i]?.counts ?? new Map(),
  }));
}
