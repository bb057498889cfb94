// Simulation of a ProvisioningRequest's PodSets: the copies of each PodSet's pod that fit existing nodes, then node
// groups that would take the rest, all or nothing for best-effort-atomic (pkg/provisioningrequest/{checkcapacity,
// besteffortatomic}, core/scaleup/orchestrator/orchestrator.go).
import type { PodTemplate, ProvisioningRequest } from '../../model/ca-crds.js';
import type { Pod } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { nodeInfoFor, podRequests } from '../resources.js';
import { runFilters } from '../scheduler.js';
import {
  ALL_OR_NOTHING_REASON,
  AWS_NOT_ATOMIC,
  podTemplatesFor,
  PROVREQ_CLASS_ANNOTATION,
  type ProvReqClassKind,
  provReqClassKind,
} from '../provisioning-request.js';

/**
 * How casdoctor's why-pending sees one node group for one pod. `GroupEvaluation` from simulate/why-pending.ts has this
 * shape: pass `(pod) => analyzePod(analysis, pod).groups`.
 */
export interface GroupFit {
  group: { name: string; maxSize: number; targetSize: number; discovered: boolean };
  /** CA would scale this group for the pod (discovered, not skipped, every predicate passes on the template). */
  fits: boolean;
  templateInfo?: NodeInfo;
  failures: readonly FilterStatus[];
  notEvaluated: readonly FilterStatus[];
  skip?: { reason: string; detail: string };
  blockers: readonly string[];
}

export type EvaluateGroups = (pod: Pod) => readonly GroupFit[];

export interface ProvReqSimulationOptions {
  /** casdoctor's per-group evaluation of one pod (why-pending). */
  evaluateGroups: EvaluateGroups;
  /** Existing nodes with their pods (Analysis.view): where check-capacity looks, and what atomic fills first. */
  view: ClusterView;
  /** --max-nodes-per-scaleup (default 1000). */
  maxNodesPerScaleUp?: number;
  taintReason?: 'with-taint' | 'redacted';
}

export interface PodSetPlacement {
  podSet: number;
  template: string;
  count: number;
  /** Pods of this PodSet placed on existing nodes. */
  placedOnNodes: number;
  /** Why the rest did not fit existing nodes: scheduler reason -> number of nodes giving it. */
  nodeReasons: Record<string, number>;
}

export interface PodSetOnGroup {
  podSet: number;
  template: string;
  /** Pods that still need new nodes. */
  pods: number;
  fits: boolean;
  reasons: string[];
  /** Pods of this PodSet one new node of the group holds (0 when it does not fit). */
  podsPerNode: number;
  nodesNeeded: number;
}

export interface GroupPlan {
  group: string;
  /** Every remaining pod fits this group within its headroom: CA could pick it (all-or-nothing). */
  fits: boolean;
  nodesNeeded: number;
  /** maxSize - targetSize, capped by --max-nodes-per-scaleup. */
  headroom: number;
  /** The group-level reason when it does not fit (CA's skip reason, the first failing predicate, or ALL_OR_NOTHING_REASON). */
  reason?: string;
  detail?: string;
  podSets: PodSetOnGroup[];
}

export interface ProvReqSimulation {
  classKind: ProvReqClassKind;
  totalPods: number;
  existing: { placed: number; podSets: PodSetPlacement[] };
  /** best-effort-atomic only: the groups CA could scale for the pods that do not fit existing nodes. */
  groups: GroupPlan[];
  verdict: 'fits-existing' | 'scale-up' | 'no-fit' | 'not-simulated';
  /** One sentence: the simulation's answer. */
  reason: string;
  caveats: string[];
}

/** The pods CA injects for a PodSet (CA: provisioningrequest/pods/pods.go PodsForProvisioningRequest). */
export function podForPodSet(pr: ProvisioningRequest, template: PodTemplate, podSet: number, index: number): Pod {
  const meta = template.template?.metadata ?? {};
  const ns = pr.metadata.namespace ?? 'default';
  const name = `${pr.metadata.name ?? ''}-${podSet}-${index}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      uid: `${ns}/${name}`,
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      annotations: {
        ...(meta.annotations ?? {}),
        'autoscaling.x-k8s.io/consume-provisioning-request': pr.metadata.name ?? '',
        [PROVREQ_CLASS_ANNOTATION]: pr.spec?.provisioningClassName ?? '',
      },
      ...(pr.metadata.creationTimestamp ? { creationTimestamp: pr.metadata.creationTimestamp } : {}),
      ownerReferences: [
        {
          apiVersion: pr.apiVersion ?? 'autoscaling.x-k8s.io/v1',
          kind: 'ProvisioningRequest',
          name: pr.metadata.name ?? '',
          ...(pr.metadata.uid ? { uid: pr.metadata.uid } : {}),
          controller: true,
        },
      ],
    },
    spec: { ...template.template.spec, nodeName: undefined },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
    },
  };
}

function withPods(info: NodeInfo, pods: Pod[]): NodeInfo {
  return nodeInfoFor(info.node, [...info.pods, ...pods]);
}

function copyOf(pod: Pod, n: number): Pod {
  return { ...pod, metadata: { ...pod.metadata, name: `${pod.metadata.name ?? ''}-c${n}`, uid: `${pod.metadata.uid ?? ''}-c${n}` } };
}

/**
 * How many copies of `pod` fit on one node, at most `limit`: every predicate for the first copy, resource arithmetic for
 * the rest, and one predicate check of a second copy (host ports, anti-affinity, topology spread stop at one per node).
 */
export function copiesThatFit(
  pod: Pod,
  info: NodeInfo,
  view: ClusterView,
  limit: number,
  taintReason?: 'with-taint' | 'redacted',
): { count: number; failure?: FilterStatus } {
  if (limit <= 0) return { count: 0 };
  const options = taintReason ? { taintReason } : undefined;
  const first = runFilters(pod, info, view, options);
  if (!first.fits) return { count: 0, ...(first.failure ? { failure: first.failure } : first.notEvaluated[0] ? { failure: first.notEvaluated[0] } : {}) };
  const req = podRequests(pod);
  let n = Number.POSITIVE_INFINITY;
  for (const [res, amount] of Object.entries(req)) {
    if (amount <= 0 || res === 'pods') continue;
    const free = (info.allocatable[res] ?? 0) - (info.requested[res] ?? 0);
    n = Math.min(n, Math.floor(free / amount));
  }
  const podSlots = (info.allocatable.pods ?? 110) - info.pods.length;
  n = Math.max(1, Math.min(n, podSlots, limit));
  if (n >= 2 && dependsOnOtherPods(pod)) {
    const one = withPods(info, [copyOf(pod, 1)]);
    const infos = view.nodeInfos.includes(info)
      ? view.nodeInfos.map((x) => (x === info ? one : x))
      : [...view.nodeInfos, one];
    const second = runFilters(copyOf(pod, 2), one, { ...view, nodeInfos: infos }, options);
    if (!second.fits) n = 1;
  }
  return { count: n };
}

/** Whether a second copy can fail where the first passed for a reason other than resources (checked only then: O(nodes)). */
function dependsOnOtherPods(pod: Pod): boolean {
  const spec = pod.spec;
  return (
    (spec.topologySpreadConstraints?.length ?? 0) > 0 ||
    (spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 ||
    (spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 ||
    [...(spec.containers ?? []), ...(spec.initContainers ?? [])].some((c) => c.ports?.some((p) => (p.hostPort ?? 0) > 0)) ||
    (spec.volumes ?? []).some((v) => v.persistentVolumeClaim !== undefined)
  );
}

function groupReason(g: GroupFit): { reason: string; detail?: string } {
  if (!g.group.discovered) return { reason: 'not discovered by CA' };
  if (g.skip) return { reason: g.skip.reason, detail: g.skip.detail };
  if (!g.templateInfo) return { reason: 'no template node' };
  const f = g.failures[0];
  if (f) return { reason: f.reasons.join(', '), detail: `${f.plugin}: ${(f.details ?? f.reasons).join('; ')}` };
  if (g.notEvaluated.length) return { reason: `not evaluated: ${g.notEvaluated.map((s) => s.plugin).join(', ')}` };
  if (g.blockers.length) return { reason: g.blockers[0] };
  return { reason: 'does not fit' };
}

/**
 * The PodSets of a ProvisioningRequest against the cluster, the way its class treats them:
 * check-capacity fits them on existing nodes only (TrySchedulePods, breakOnFailure); best-effort-atomic first fills
 * existing nodes, then needs ONE node group whose new nodes (within max size) hold every remaining pod.
 */
export function simulateProvisioningRequest(
  pr: ProvisioningRequest,
  podTemplates: readonly PodTemplate[],
  options: ProvReqSimulationOptions,
  processorInstance = '',
): ProvReqSimulation {
  const classKind = provReqClassKind(pr, processorInstance);
  const { templates, missing } = podTemplatesFor(pr, podTemplates);
  const podSets = pr.spec?.podSets ?? [];
  const totalPods = podSets.reduce((n, ps) => n + (ps.count ?? 0), 0);
  const caveats: string[] = [];
  const empty = { placed: 0, podSets: [] };
  if (classKind === 'unsupported') {
    return { classKind, totalPods, existing: empty, groups: [], verdict: 'not-simulated', reason: `class "${pr.spec?.provisioningClassName ?? ''}" is not handled by this CA`, caveats };
  }
  if (missing.length > 0) {
    return { classKind, totalPods, existing: empty, groups: [], verdict: 'not-simulated', reason: `PodTemplate(s) ${missing.join(', ')} not found`, caveats };
  }
  const samples = podSets.map((_, i) => podForPodSet(pr, templates[i]!, i, 0));

  // existing nodes, in snapshot order (CA's HintingSimulator tries nodes in its own order: the placement may differ, the count rarely)
  const infos = [...options.view.nodeInfos];
  const view: ClusterView = { ...options.view, nodeInfos: infos };
  const placements: PodSetPlacement[] = [];
  let placedTotal = 0;
  let blockedEarly = false;
  podSets.forEach((ps, i) => {
    const count = ps.count ?? 0;
    let remaining = blockedEarly && classKind === 'check-capacity' ? 0 : count;
    const nodeReasons: Record<string, number> = {};
    if (!(blockedEarly && classKind === 'check-capacity')) {
      for (let k = 0; k < infos.length && remaining > 0; k++) {
        const { count: c, failure } = copiesThatFit(samples[i], infos[k], view, remaining, options.taintReason);
        if (c === 0) {
          for (const r of failure?.reasons ?? ['does not fit']) nodeReasons[r] = (nodeReasons[r] ?? 0) + 1;
          continue;
        }
        const copies = Array.from({ length: c }, (_, j) => podForPodSet(pr, templates[i]!, i, count - remaining + j));
        infos[k] = withPods(infos[k], copies);
        remaining -= c;
      }
    }
    const placed = blockedEarly && classKind === 'check-capacity' ? 0 : count - remaining;
    if (remaining > 0) blockedEarly = true;
    placedTotal += placed;
    placements.push({ podSet: i, template: ps.podTemplateRef?.name ?? '', count, placedOnNodes: placed, nodeReasons });
  });
  const existing = { placed: placedTotal, podSets: placements };

  if (classKind === 'check-capacity') {
    caveats.push('check-capacity never scales up: it only answers whether existing nodes have room');
    if (placedTotal >= totalPods) {
      return { classKind, totalPods, existing, groups: [], verdict: 'fits-existing', reason: `all ${totalPods} pods fit existing nodes: CA sets Provisioned=True (CapacityIsFound)`, caveats };
    }
    const short = placements.find((p) => p.placedOnNodes < p.count)!;
    return {
      classKind,
      totalPods,
      existing,
      groups: [],
      verdict: 'no-fit',
      reason: `only ${short.placedOnNodes} of ${short.count} pods of PodSet ${short.podSet} (PodTemplate ${short.template}) fit existing nodes${reasonsText(short.nodeReasons)}: CA sets Provisioned=False (CapacityIsNotFound)`,
      caveats,
    };
  }

  // best-effort-atomic: the pods left after existing capacity must all fit one group (orchestrator.go allOrNothing)
  caveats.push(AWS_NOT_ATOMIC);
  if (placedTotal >= totalPods) {
    return { classKind, totalPods, existing, groups: [], verdict: 'fits-existing', reason: `all ${totalPods} pods fit existing nodes: CA sets Provisioned=True (CapacityIsFound) without a scale-up`, caveats };
  }
  const maxPerScaleUp = options.maxNodesPerScaleUp ?? 1000;
  const perPodSet = samples.map((s) => options.evaluateGroups(s));
  const names = [...new Set(perPodSet.flatMap((l) => l.map((g) => g.group.name)))].sort();
  const groups: GroupPlan[] = names.map((name) => {
    let nodesNeeded = 0;
    let reason: { reason: string; detail?: string } | undefined;
    let headroom = 0;
    const sets: PodSetOnGroup[] = [];
    placements.forEach((p, i) => {
      const pods = p.count - p.placedOnNodes;
      const g = perPodSet[i].find((x) => x.group.name === name);
      if (!g) {
        sets.push({ podSet: i, template: p.template, pods, fits: false, reasons: ['not evaluated'], podsPerNode: 0, nodesNeeded: 0 });
        reason ??= { reason: 'not evaluated' };
        return;
      }
      headroom = Math.max(0, Math.min(g.group.maxSize - g.group.targetSize, maxPerScaleUp));
      if (pods === 0) {
        sets.push({ podSet: i, template: p.template, pods, fits: true, reasons: [], podsPerNode: 0, nodesNeeded: 0 });
        return;
      }
      if (!g.fits || !g.templateInfo) {
        const r = groupReason(g);
        sets.push({ podSet: i, template: p.template, pods, fits: false, reasons: [r.reason], podsPerNode: 0, nodesNeeded: 0 });
        reason ??= r;
        return;
      }
      const per = copiesThatFit(samples[i], g.templateInfo, options.view, pods, options.taintReason).count;
      const need = per > 0 ? Math.ceil(pods / per) : 0;
      nodesNeeded += need;
      sets.push({ podSet: i, template: p.template, pods, fits: per > 0, reasons: [], podsPerNode: per, nodesNeeded: need });
    });
    if (!reason && nodesNeeded > headroom) {
      const g = perPodSet.flat().find((x) => x.group.name === name)!;
      reason = {
        reason: ALL_OR_NOTHING_REASON,
        detail: `needs ${nodesNeeded} new node(s); the group can add ${headroom} (desired ${g.group.targetSize}, max ${g.group.maxSize}${g.group.maxSize - g.group.targetSize > maxPerScaleUp ? `, --max-nodes-per-scaleup ${maxPerScaleUp}` : ''})`,
      };
    }
    return { group: name, fits: reason === undefined, nodesNeeded, headroom, ...(reason ?? {}), podSets: sets };
  });
  const options_ = groups.filter((g) => g.fits);
  const remaining = totalPods - placedTotal;
  caveats.push('node counts are per PodSet, summed: CA binpacks the PodSets together and may need fewer nodes');
  if (options_.length > 0) {
    const list = options_.map((g) => `${g.group} (+${g.nodesNeeded})`).join(', ');
    return {
      classKind,
      totalPods,
      existing,
      groups,
      verdict: 'scale-up',
      reason: `${remaining} of ${totalPods} pods need new nodes; ${options_.length === 1 ? 'one group can take them all' : 'groups that can take them all'}: ${list}`,
      caveats,
    };
  }
  const first = groups.find((g) => g.reason === ALL_OR_NOTHING_REASON) ?? groups[0];
  return {
    classKind,
    totalPods,
    existing,
    groups,
    verdict: 'no-fit',
    reason:
      groups.length === 0
        ? `${remaining} of ${totalPods} pods need new nodes and there is no node group`
        : `${remaining} of ${totalPods} pods need new nodes and no single node group can take them all (${first.group}: ${first.reason}${first.detail ? `, ${first.detail}` : ''})`,
    caveats,
  };
}

function reasonsText(reasons: Record<string, number>): string {
  const entries = Object.entries(reasons).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (entries.length === 0) return '';
  return ` (${entries.map(([r, n]) => `${n} ${r}`).join(', ')})`;
}
