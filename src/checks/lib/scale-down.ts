// Shared helpers for the scale-down-blockers checks: which nodes and pods to report, and concrete remediations.
import type { Subject } from '../../model/findings.js';
import type { Node, Pod, PodDisruptionBudget } from '../../model/k8s.js';
import type { BlockingPodReason } from '../../model/scale-down.js';
import type { Analysis } from '../../simulate/analysis.js';
import { controllerRef } from '../../simulate/drainability/pod-util.js';
import { analyzeScaleDown, type BlockerDetail, type NodeScaleDown } from '../../simulate/scale-down.js';
import { simulatedMoveOf } from '../../simulate/scale-down/placement.js';
import { orderedMap, quoted, yamlSnippet } from './snippets.js';

export function nodeSubject(node: Node): Subject {
  return { kind: 'Node', name: node.metadata.name ?? '' };
}

export function pdbSubject(pdb: PodDisruptionBudget): Subject {
  return { kind: 'PodDisruptionBudget', name: pdb.metadata.name ?? '', namespace: pdb.metadata.namespace ?? 'default' };
}

/** Nodes in the command's scope whose CA reason is this one. */
export function nodesWithReason(a: Analysis, reason: string): NodeScaleDown[] {
  return analyzeScaleDown(a).inScope.filter((n) => n.report.caReason === reason);
}

/**
 * Pods blocking nodes CA stops on (caReason BlockedByPod): all of them per node, not only the first, since the user has
 * to clear every one to free the node. Blockers on nodes unremovable for an earlier reason stay in the report only.
 */
export function blockersWithReason(
  a: Analysis,
  reason: BlockingPodReason,
): Array<{ node: NodeScaleDown; blocker: BlockerDetail }> {
  const out: Array<{ node: NodeScaleDown; blocker: BlockerDetail }> = [];
  for (const node of nodesWithReason(a, 'BlockedByPod')) {
    for (const blocker of node.blockers) if (blocker.reason === reason) out.push({ node, blocker });
  }
  return out;
}

/** "CA stops here" or "also blocks" for evidence. */
export function blockerRole(b: BlockerDetail): string {
  const role = b.first ? "the first blocking pod on the node: CA's reason" : 'also blocks the node (CA reports the first pod only)';
  const from = simulatedMoveOf(b.pod);
  return from ? `${role}; the pod runs on ${from}, CA's simulation moved it here when it removed that node` : role;
}

export interface Workload {
  kind: string;
  name: string;
  namespace: string;
  /** The selector a PDB for it should use. */
  matchLabels: Record<string, string>;
}

const GENERATED_LABELS = new Set([
  'pod-template-hash',
  'controller-revision-hash',
  'pod-template-generation',
  'statefulset.kubernetes.io/pod-name',
  'apps.kubernetes.io/pod-index',
  'batch.kubernetes.io/job-completion-index',
]);

/** The object that owns the pod template (Deployment above a ReplicaSet), for "change it here" advice. */
export function workloadOf(a: Analysis, pod: Pod): Workload | undefined {
  const ns = pod.metadata.namespace ?? 'default';
  const ref = controllerRef(pod);
  if (!ref) return undefined;
  const fallback = Object.fromEntries(
    Object.entries(pod.metadata.labels ?? {}).filter(([k]) => !GENERATED_LABELS.has(k)),
  );
  if (ref.kind === 'ReplicaSet') {
    const rs = a.raw.replicaSets.find((r) => r.metadata.namespace === ns && r.metadata.name === ref.name);
    const dep = rs?.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'Deployment');
    const d = dep ? a.raw.deployments.find((x) => x.metadata.namespace === ns && x.metadata.name === dep.name) : undefined;
    if (d) return { kind: 'Deployment', name: d.metadata.name ?? '', namespace: ns, matchLabels: d.spec?.selector?.matchLabels ?? fallback };
    return { kind: 'ReplicaSet', name: ref.name, namespace: ns, matchLabels: fallback };
  }
  const lists: Record<string, Array<{ metadata: { name?: string; namespace?: string }; spec?: { selector?: { matchLabels?: Record<string, string> } } }>> = {
    StatefulSet: a.raw.statefulSets,
    DaemonSet: a.raw.daemonSets,
    Job: a.raw.jobs,
  };
  const obj = lists[ref.kind]?.find((o) => o.metadata.namespace === ns && o.metadata.name === ref.name);
  return { kind: ref.kind, name: ref.name, namespace: ns, matchLabels: obj?.spec?.selector?.matchLabels ?? fallback };
}

/** A PodDisruptionBudget manifest covering the pod's workload. */
export function pdbManifest(w: Workload): string {
  const labels = Object.entries(w.matchLabels)
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([k, v]): [string, unknown] => [k, quoted(v)]);
  return yamlSnippet({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: w.name, namespace: w.namespace },
    spec: { maxUnavailable: 1, selector: { matchLabels: orderedMap(labels) } },
  });
}

/** Where an annotation has to go so it survives the next rollout. */
export function templateHint(a: Analysis, pod: Pod): string {
  const w = workloadOf(a, pod);
  return w ? `the pod template of ${w.kind} ${w.namespace}/${w.name} (spec.template.metadata.annotations)` : 'the pod';
}

export function age(from: Date | string | undefined, now: Date): string {
  if (!from) return 'unknown age';
  const t = typeof from === 'string' ? Date.parse(from) : from.getTime();
  const s = Math.round((now.getTime() - t) / 1000);
  if (s < 90) return `${s}s`;
  if (s < 5400) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}
