import { caRunning, grpcCreatesStalled, podVerdictWhenCaCannotRun } from './ca-running.js';
import { grpcScaleUpNeverLands, grpcUpcomingFate } from '../providers/externalgrpc/records.js';
import { isGrpcGroup } from '../providers/externalgrpc/words.js';
import type { Pod } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import { formatResource } from '../model/quantity.js';
import type { ClusterView, Resources } from '../model/scheduling.js';
import { SCHEDULER_CODES, type PodGroupResult, type PodNodeResult, type PodReport, type PodVerdict } from '../model/why-pending.js';
import type { Analysis } from './analysis.js';
import { type CaPodEvent, latestCaEventForPod } from './ca-events.js';
import { classifyPodForCa, type PodStage } from './ca-pod-filter.js';
import { podRequests } from './resources.js';
import { evaluateAllFilters, type Explanation, explainAgainstNodes } from './scheduler.js';
import { groupReadiness } from './node-groups.js';
import { applyClusterLimits, evaluateGroup, type GroupEvaluation, templateInfoOf } from './why-pending-groups.js';
import { pickExpander, toGroupResult } from './why-pending-results.js';

// the node-group half and the results moved to why-pending-groups.ts and why-pending-results.ts; importers keep this path
export { MAX_TOTAL_NODES, SKIP_BACKOFF, SKIP_MAX_SIZE, SKIP_NOT_EVALUATED, SKIP_NOT_READY, type GroupEvaluation } from './why-pending-groups.js';

export interface PodAnalysis {
  pod: Pod;
  stage: PodStage;
  requests: Resources;
  report: PodReport;
  groups: GroupEvaluation[];
  caEvent?: CaPodEvent;
}

const cache = new WeakMap<Analysis, Map<Pod, PodAnalysis>>();
interface SharedResult {
  /** The first node the pod fits on, in view order. */
  fittingNode?: string;
  groups: GroupEvaluation[];
  /**
   * The report's parts, built by the first pod and shared by the others (5,000 nodes × 300 pods of one RS otherwise).
   * The scheduler's explanation itself is not kept: only what the report shows of it.
   */
  schedulerOut: PodReport['scheduler'];
  nodeGroups?: PodGroupResult[];
  /** nodeGroups with the expander's pick marked, for the group's pods CA scales up for. */
  nodeGroupsChosen?: PodGroupResult[];
  expander?: PodReport['expander'];
}
const equivalenceCache = new WeakMap<Analysis, Map<string, SharedResult>>();

/**
 * Pods of one ReplicaSet / Job share their spec, so the scheduler and CA reach the same answer for all of them
 * (CA groups them as "equivalence groups" too: core/utils/pod_equivalence). StatefulSet pods differ by volume.
 */
function equivalenceKey(pod: Pod): string | undefined {
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller);
  if (!owner?.uid || !['ReplicaSet', 'Job', 'ReplicationController'].includes(owner.kind)) return undefined;
  if (pod.spec.volumes?.some((v) => v.persistentVolumeClaim || v.ephemeral)) return undefined;
  return `${owner.kind}/${owner.uid}`;
}

/** The pods a why-pending run examines: the command's scope, Pending and unscheduled. Sorted by namespace/name. */
export function examinedPods(a: Analysis): Pod[] {
  return a.raw.pods.filter((p) => a.scope(p)).sort((x, y) => key(x).localeCompare(key(y)));
}

// per scope: the command's, and the check engine's narrowings of it to one autoscaler's pods (checks/lib/engine.ts)
const analyzedCache = new WeakMap<Analysis, Map<Analysis['scope'], PodAnalysis[]>>();

function analyzedFor(a: Analysis): PodAnalysis[] | undefined {
  return analyzedCache.get(a)?.get(a.scope);
}

/** The examined pods' analyses, computed once per analysis and scope (every why-pending check asks for them). */
export function analyzePods(a: Analysis): PodAnalysis[] {
  const hit = analyzedFor(a);
  if (hit) return hit;
  const result = examinedPods(a).map((p) => analyzePod(a, p));
  let m = analyzedCache.get(a);
  if (!m) analyzedCache.set(a, (m = new Map()));
  m.set(a.scope, result);
  return result;
}

/**
 * The examined pods why-pending finds blocked ('no-scale-up') that pass every predicate on the template of at least
 * one of `groups`, in examinedPods order: what analyzePods(a) filtered that way gives, taken from it when a command
 * already ran it; otherwise only pods CA considers and that pass such a template are analysed.
 */
export function blockedPodsPassingGroups(a: Analysis, groups: readonly NodeGroup[]): PodAnalysis[] {
  const wanted = new Set(groups);
  const hit = analyzedFor(a);
  if (hit) {
    return hit.filter(
      (p) =>
        p.report.verdict === 'no-scale-up' &&
        p.groups.some((e) => wanted.has(e.group) && e.template.node && !e.failures.length && !e.notEvaluated.length),
    );
  }
  if (groups.length === 0) return [];
  // one answer per equivalence key, as computePod shares its evaluation: pods of one ReplicaSet have the same spec
  const byKey = new Map<string, boolean>();
  const out: PodAnalysis[] = [];
  for (const pod of examinedPods(a)) {
    // only a pod CA considers can be 'no-scale-up' (computePod: scheduled, finished and ignored pods never are)
    if (classifyPodForCa(pod, a.ca, a.priorityClasses, a.now).kind !== 'candidate') continue;
    const eqKey = equivalenceKey(pod);
    let passes = eqKey ? byKey.get(eqKey) : undefined;
    if (passes === undefined) {
      passes = groups.some((g) => passesTemplate(a, pod, g));
      if (eqKey) byKey.set(eqKey, passes);
    }
    if (!passes) continue;
    const analysis = analyzePod(a, pod);
    if (analysis.report.verdict === 'no-scale-up') out.push(analysis);
  }
  return out;
}

/** evaluateGroup's predicate verdict alone: the group's template exists and the pod passes every Filter plugin on it. */
function passesTemplate(a: Analysis, pod: Pod, group: NodeGroup): boolean {
  const template = a.template(group);
  if (!template.node) return false;
  const all = evaluateAllFilters(pod, templateInfoOf(template, template.node), a.view, { taintReason: a.caTaintReason });
  return all.failures.length === 0 && all.notEvaluated.length === 0;
}

export function analyzePod(a: Analysis, pod: Pod): PodAnalysis {
  let perAnalysis = cache.get(a);
  if (!perAnalysis) cache.set(a, (perAnalysis = new Map()));
  const hit = perAnalysis.get(pod);
  if (hit) return hit;
  const result = computePod(a, pod);
  perAnalysis.set(pod, result);
  return result;
}

function key(p: Pod): string {
  return `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;
}

function computePod(a: Analysis, pod: Pod): PodAnalysis {
  const stage = classifyPodForCa(pod, a.ca, a.priorityClasses, a.now);
  const requests = podRequests(pod);
  const requestsOut: Record<string, string> = {};
  for (const [k, v] of Object.entries(requests)) if (v > 0) requestsOut[k] = formatResource(k, v);
  const ev = latestCaEventForPod(a.events, pod);
  const caEvent = ev
    ? {
        reason: ev.reason,
        message: ev.message,
        ...(ev.provisioningRequest
          ? { provisioningRequest: `${ev.provisioningRequest.namespace}/${ev.provisioningRequest.name}` }
          : {}),
        ...(ev.time
          ? {
              time: ev.time.toISOString(),
              ageSeconds: Math.round((a.now.getTime() - ev.time.getTime()) / 1000),
            }
          : {}),
      }
    : undefined;
  const base = {
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name ?? '',
    requests: requestsOut,
    ...(caEvent ? { caEvent } : {}),
  };

  if (stage.kind === 'scheduled' || stage.kind === 'finished') {
    const summary =
      stage.kind === 'scheduled'
        ? `scheduled on node ${stage.node}${pod.status?.phase === 'Pending' ? ' (containers not started yet)' : ''}`
        : `finished (${stage.phase})`;
    return {
      pod,
      stage,
      requests,
      groups: [],
      ...(ev ? { caEvent: ev } : {}),
      report: {
        ...base,
        verdict: 'not-pending',
        summary,
        scheduler: { message: '', nodes: [] },
        nodeGroups: [],
      },
    };
  }

  let eq = equivalenceCache.get(a);
  if (!eq) equivalenceCache.set(a, (eq = new Map()));
  const eqKey = equivalenceKey(pod);
  let shared = eqKey ? eq.get(eqKey) : undefined;
  if (!shared) {
    const { fittingNode, schedulerOut } = schedulerPart(a, pod);
    const computed: SharedResult = {
      ...(fittingNode !== undefined ? { fittingNode } : {}),
      groups: a.nodeGroups.map((g) => evaluateGroup(a, pod, g)),
      schedulerOut,
    };
    applyClusterLimits(a, computed.groups);
    shared = computed;
    if (eqKey) eq.set(eqKey, computed);
  }
  // Equivalent pods have the same spec, so the same scheduler entries, group results and expander choice.
  const schedulerOut = shared.schedulerOut;
  const groups = shared.groups;
  shared.nodeGroups ??= groups.map((g) => toGroupResult(g, pod));
  let nodeGroups = shared.nodeGroups;
  const fitsNode = shared.fittingNode;

  let verdict: PodVerdict;
  let summary: string;
  let ignoredReason: string | undefined;
  let expander: PodReport['expander'];
  if (fitsNode && a.podsPartial) {
    // the node looks free because the pods on it were left out of the input: whether it fits is not known
    verdict = 'not-evaluated';
    summary = `whether it fits existing node ${fitsNode} is not known: ${a.podsPartial.detail}`;
  } else if (fitsNode) {
    verdict = 'fits-existing-node';
    summary = `fits existing node ${fitsNode}; the scheduler should place it (CA does not scale up for it)`;
    if (stage.kind === 'ignored') summary += `; CA would ignore it anyway: ${stage.reason}`;
  } else if (stage.kind === 'ignored') {
    verdict = 'ignored';
    ignoredReason = stage.reason;
    summary = `CA ignores this pod: ${stage.reason}`;
  } else {
    const candidates = groups.filter((g) => g.fits);
    // CA counts a registered node that is not Ready yet, but younger than the max node startup time, as upcoming
    // (clusterstate.go updateReadinessStats / GetUpcomingNodes); an older one is Unready and no longer expected
    const upcoming = candidates.find((g) => {
      const starting = g.group.nodes.length ? groupReadiness(g.group, a.now, a.ca).notStarted : 0;
      return g.group.targetSize > g.group.nodes.length - starting + g.group.unregisteredInstances.length;
    });
    if (candidates.length > 0) {
      verdict = 'scale-up';
      // the rows with the expander's pick marked: a copy, shared only by the group's pods CA scales up for (another
      // pod of the same ReplicaSet may be ignored by CA, and its rows must not say "picks it")
      if (!shared.expander || !shared.nodeGroupsChosen) {
        shared.expander = pickExpander(a, pod, candidates);
        const picked = shared.expander.choice ?? candidates[0].group.name;
        shared.nodeGroupsChosen = nodeGroups.map((r) => (r.name === picked ? { ...r, expanderChoice: true } : r));
      }
      expander = shared.expander;
      nodeGroups = shared.nodeGroupsChosen;
      const choice = expander.choice ?? candidates[0].group.name;
      // externalgrpc records CA's loop has given up on, or will, and CA versions under which no node ever comes
      // (src/providers/externalgrpc/records.ts)
      const stopped = upcoming !== undefined && isGrpcGroup(upcoming.group) && ['cannot-run', 'likely-cannot-run'].includes(caRunning(a).state);
      const fate = upcoming ? grpcUpcomingFate(upcoming.group, a.ca, a.now, a.raw.events, { caStopped: stopped }) : undefined;
      const neverLands = candidates.map((g) => grpcScaleUpNeverLands(g.group, a.ca));
      summary = upcoming
        ? (fate?.summary ??
          `fits a node ${upcoming.group.name} is already adding (desired ${upcoming.group.targetSize}, ${upcoming.group.nodes.length} registered)`)
        : `CA can scale up ${candidates.length === 1 ? choice : `${candidates.length} node groups (${expander.name} likely picks ${choice})`}`;
      if (fate?.nothingWillCome) verdict = 'no-scale-up';
      else if (!upcoming && neverLands.every((t) => t !== undefined)) {
        verdict = 'no-scale-up';
        summary = neverLands[candidates.findIndex((g) => g.group.name === choice)] ?? neverLands[0]!;
      } else if (candidates.every((g) => isGrpcGroup(g.group)) && grpcCreatesStalled(a)) {
        verdict = 'no-scale-up';
        summary = `no node will come: ${grpcCreatesStalled(a)!}; once they are retried: ${summary}`;
      }
    } else if (unevaluable(groups).length > 0) {
      // a discovered group whose template casdoctor could not build might fit: the answer is unknown, not "no"
      const names = unevaluable(groups).map((g) => g.group.name);
      verdict = 'not-evaluated';
      summary = `whether CA scales up is not known: no evaluated node group fits, and ${names.join(', ')} could not be evaluated (${unevaluable(groups)[0].template.reason ?? 'data missing'})`;
    } else if (groups.length === 0 && nodeGroupsUnknown(a) !== undefined) {
      // no group because none could be read: whether CA scales up is not known, and not a "no" (the scheduler's half
      // above still stands)
      verdict = 'not-evaluated';
      summary = `whether CA scales up is not known: ${nodeGroupsUnknown(a)}`;
    } else {
      verdict = 'no-scale-up';
      summary = noScaleUpSummary(groups);
    }
  }
  const undecided = groups.filter((g) => g.caMayDecideEither).map((g) => g.group.name);
  if (undecided.length && (verdict === 'scale-up' || verdict === 'no-scale-up'))
    summary += `; CA may decide either for ${undecided.join(', ')}: the node it copies as the template varies between runs`;
  // a CA that cannot run decides every verdict (src/simulate/ca-running.ts)
  ({ verdict, summary } = podVerdictWhenCaCannotRun(a, verdict, summary));
  const report: PodReport = {
    ...base,
    verdict,
    summary,
    ...(ignoredReason ? { ignoredReason } : {}),
    scheduler: schedulerOut,
    nodeGroups,
    ...(expander ? { expander } : {}),
  };
  return { pod, stage, requests, report, groups, ...(ev ? { caEvent: ev } : {}) };
}

/**
 * The scheduler's half of a pod's result, in its compact form. The full explanation (one result per node: ~600 KB at
 * 5,000 nodes) dies here, before the node groups are evaluated: alive through their evaluation it was copied by every
 * scavenge and promoted, 180 MB of old-space garbage for 300 distinct workloads.
 */
function schedulerPart(a: Analysis, pod: Pod): { fittingNode?: string; schedulerOut: PodReport['scheduler'] } {
  const sched = explainAgainstNodes(pod, a.view, { taintReason: a.schedulerTaintReason });
  return {
    ...(sched.fittingNodes.length > 0 ? { fittingNode: sched.fittingNodes[0] } : {}),
    schedulerOut: schedulerReport(sched, a.view),
  };
}

const viewNodeNames = new WeakMap<ClusterView, string[]>();

type CodeTrie = Map<unknown, unknown>;
const END_OF_LIST = Symbol('end of list');
function descend(m: CodeTrie, key: unknown): CodeTrie {
  let next = m.get(key) as CodeTrie | undefined;
  if (!next) m.set(key, (next = new Map()));
  return next;
}

/**
 * The report's view of the scheduler. `nodes` (one entry per node, the JSON contract) is built when read, from one
 * small code per node into the pod's distinct results: the text report and most checks read only the message, so a
 * full entry per pod × node (~100 B each, 1.5M of them for 300 distinct workloads on 5,000 nodes) is never held.
 */
function schedulerReport(sched: Explanation, view: ClusterView): PodReport['scheduler'] {
  let names = viewNodeNames.get(view);
  if (!names) viewNodeNames.set(view, (names = view.nodeInfos.map((ni) => ni.node.metadata.name ?? '')));
  const nodeNames = names;
  const table: Array<Omit<PodNodeResult, 'name'>> = [];
  // (fits, reasons, notEvaluated plugins) → code, as a trie of their strings: no key string built per pod × node
  const trie: CodeTrie = new Map();
  const codes = new Uint32Array(sched.nodes.length);
  let lastResult: unknown;
  let lastCode = 0;
  sched.nodes.forEach((n, i) => {
    // nodes a static plugin rejects share one result object
    if (n.result === lastResult) {
      codes[i] = lastCode;
      return;
    }
    let m = descend(trie, n.fits);
    for (const r of n.reasons) m = descend(m, r);
    m = descend(m, END_OF_LIST);
    for (const x of n.result.notEvaluated) m = descend(m, x.plugin);
    let code = m.get(END_OF_LIST) as number | undefined;
    if (code === undefined) {
      m.set(END_OF_LIST, (code = table.length));
      const notEvaluated = n.result.notEvaluated.map((x) => x.plugin);
      table.push({ fits: n.fits, reasons: n.reasons, ...(notEvaluated.length ? { notEvaluated } : {}) });
    }
    codes[i] = code;
    lastResult = n.result;
    lastCode = code;
  });
  return {
    message: sched.message,
    get nodes(): PodNodeResult[] {
      return Array.from(codes, (code, i) => ({ name: nodeNames[i], ...table[code] }));
    },
    [SCHEDULER_CODES]: { table, codes, names: nodeNames },
  };
}

/** Discovered groups casdoctor could not build a template for, for lack of data CA has. */
function unevaluable(groups: GroupEvaluation[]): GroupEvaluation[] {
  return groups.filter((g) => g.group.discovered && g.template.source === 'none' && (g.template.missing?.length ?? 0) > 0);
}

/** Why the snapshot holds no node group at all, when that is for lack of data (not an account without ASGs). */
function nodeGroupsUnknown(a: Analysis): string | undefined {
  // a provider whose groups come from its own state (no listed kind) says which state it read
  if (a.provider.groupKinds.length === 0)
    return `no node groups from the ${a.provider.id} provider (${a.provider.describeSource(a.providerContext)}): ${a.provider.addNodeGroupsHint}`;
  for (const kind of a.provider.groupKinds) {
    const gap = a.gapFor(kind);
    if (gap) return `${gap.reason}: ${gap.detail}`;
    if (!a.raw.provided.has(kind)) return a.provider.words.noGroupsInInput ?? a.provider.addNodeGroupsHint;
  }
  return undefined;
}

function noScaleUpSummary(groups: GroupEvaluation[]): string {
  if (groups.length === 0) return 'no node group in the snapshot: CA has nothing to scale';
  const discovered = groups.filter((g) => g.group.discovered);
  if (discovered.length === 0) return 'CA discovers none of the node groups';
  const targeted = groups.filter((g) => g.targeted);
  if (targeted.length === 0) return "no node group's template matches the pod's node selector / affinity";
  const passing = targeted.filter((g) => g.failures.length === 0 && g.notEvaluated.length === 0);
  if (passing.length > 0) {
    const why = passing.map(
      (g) =>
        `${g.group.name}: ${g.skip?.reason ?? (g.group.discovered ? g.blockers[0] : 'not discovered by CA')}`,
    );
    return `the pod would fit ${passing.map((g) => g.group.name).join(', ')}, but ${why.join('; ')}`;
  }
  return 'no node group can host it';
}
