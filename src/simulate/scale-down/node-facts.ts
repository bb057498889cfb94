// What scale-down reads before its stages: the drain options and listers from CA's flags and the snapshot, each node's
// readiness and deletion taints, the pods in CA's snapshot, and when CA's pod (re)started.
import type { CaConfig } from '../../model/ca-config.js';
import type { Node, Pod } from '../../model/k8s.js';
import type { Analysis } from '../analysis.js';
import { podPriority } from '../ca-pod-filter.js';
import type { ControllerListers, DrainOptions } from '../drainability/types.js';
import { compileLabelSelector } from '../predicates/labels.js';
import { TO_BE_DELETED_TAINT } from '../template-node.js';

/** CA: core/scaledown/actuation MaxCloudProviderNodeDeletionTime — a ToBeDeleted taint younger than this = being deleted. */
const MAX_NODE_DELETION_MS = 5 * 60_000;

export function drainOptions(ca: CaConfig): DrainOptions {
  const f = ca.flags;
  return {
    minor: ca.version.minor,
    skipNodesWithSystemPods: f.skipNodesWithSystemPods.value,
    skipNodesWithLocalStorage: f.skipNodesWithLocalStorage.value,
    skipNodesWithCustomControllerPods: f.skipNodesWithCustomControllerPods.value,
    minReplicaCount: f.minReplicaCount.value,
    ...(f.blockingSystemPodDistruptionTimeout.value !== undefined
      ? { blockingSystemPodDistruptionTimeoutMs: f.blockingSystemPodDistruptionTimeout.value }
      : {}),
  };
}

function byKey<T extends { metadata: { namespace?: string; name?: string } }>(items: T[]): Map<string, T> {
  return new Map(items.map((o) => [`${o.metadata.namespace ?? 'default'}/${o.metadata.name ?? ''}`, o]));
}

/** CA's listers, one kind at a time: a kind missing from the snapshot cannot be looked up. */
export function listers(a: Analysis): ControllerListers {
  const has = (k: 'replicaSets' | 'replicationControllers' | 'statefulSets' | 'daemonSets' | 'jobs') =>
    a.raw.provided.has(k) && !a.gapFor(k);
  return {
    ...(has('replicationControllers') ? { replicationControllers: byKey(a.raw.replicationControllers) } : {}),
    ...(has('replicaSets') ? { replicaSets: byKey(a.raw.replicaSets) } : {}),
    ...(has('statefulSets') ? { statefulSets: byKey(a.raw.statefulSets) } : {}),
    ...(has('daemonSets') ? { daemonSets: byKey(a.raw.daemonSets) } : {}),
    ...(has('jobs') ? { jobs: byKey(a.raw.jobs) } : {}),
  };
}

export function isReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function taintTime(node: Node, key: string): Date | undefined | null {
  const t = node.spec?.taints?.find((x) => x.key === key);
  if (!t) return null;
  const secs = Number(t.value);
  if (t.value && Number.isFinite(secs) && secs > 0) return new Date(secs * 1000);
  return t.timeAdded ? new Date(t.timeAdded) : undefined;
}

/** CA: actuation.IsNodeBeingDeleted — a ToBeDeletedByClusterAutoscaler taint younger than 5 minutes. */
export function beingDeleted(node: Node, now: Date): boolean {
  const t = taintTime(node, TO_BE_DELETED_TAINT);
  if (t === null) return false;
  if (t === undefined) return true;
  return now.getTime() - t.getTime() < MAX_NODE_DELETION_MS;
}

/** CA's snapshot: scheduled, non-terminal, non-expendable pods; pods nominated to a node count on it. */
export function caSnapshotPods(a: Analysis): { pods: Pod[]; expendable: Pod[] } {
  const cutoff = a.ca.flags.expendablePodsPriorityCutoff.value;
  const pods: Pod[] = [];
  const expendable: Pod[] = [];
  for (const p of a.raw.pods) {
    const phase = p.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    let placed = p;
    if (!p.spec?.nodeName) {
      const nominated = p.status?.nominatedNodeName;
      if (!nominated) continue;
      placed = { ...p, spec: { ...p.spec, nodeName: nominated } };
    }
    const prio = podPriority(p, a.priorityClasses);
    // CA: static_autoscaler.go FilterOutExpendablePods — never in the snapshot
    if (prio !== undefined && prio < cutoff) {
      expendable.push(placed);
      continue;
    }
    pods.push(placed);
  }
  return { pods, expendable };
}

export function caPodStart(a: Analysis): Date | undefined {
  const dep = a.raw.deployments.find(
    (d) => d.metadata.namespace === a.ca.deployment?.namespace && d.metadata.name === a.ca.deployment?.name,
  );
  if (!dep) return undefined;
  const sel = compileLabelSelector(dep.spec?.selector);
  let newest: Date | undefined;
  for (const p of a.raw.pods) {
    if (p.metadata.namespace !== dep.metadata.namespace || p.status?.phase !== 'Running') continue;
    if (!sel.matches(p.metadata.labels)) continue;
    const statuses = (p.status?.containerStatuses ?? []) as Array<{ state?: { running?: { startedAt?: string } } }>;
    const times = statuses.map((s) => s.state?.running?.startedAt).filter((t): t is string => !!t);
    const t = times.length ? times.sort().at(-1) : (p.status?.startTime as string | undefined);
    const d = t ? new Date(t) : undefined;
    if (d && !Number.isNaN(d.getTime()) && (!newest || d > newest)) newest = d;
  }
  return newest;
}
