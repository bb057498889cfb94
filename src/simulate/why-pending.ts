import { caRunning, grpcCreatesStalled, podVerdictWhenCaCannotRun } from './ca-running.js';
import { grpcScaleUpNeverLands, grpcUpcomingFate } from '../providers/externalgrpc/records.js';
import { pickWithPriorityExpander } from './priority-expander.js';
import type { Node, Pod, Pod as PodT } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import { formatDurationShort } from '../model/duration.js';
import { formatResource } from '../model/quantity.js';
import type { ClusterView, FilterStatus, NodeInfo, Resources } from '../model/scheduling.js';
import { SCHEDULER_CODES, type PodGroupResult, type PodNodeResult, type PodReport, type PodVerdict } from '../model/why-pending.js';
import type { Analysis } from './analysis.js';
import { type CaPodEvent, latestCaEventForPod } from './ca-events.js';
import { classifyPodForCa, type PodStage } from './ca-pod-filter.js';
import {
  explainNodeAffinityMismatch,
  podMatchesNodeSelectorAndAffinity,
} from './predicates/node-affinity.js';
import { insufficientResources } from './predicates/node-resources-fit.js';
import { findUntoleratedTaint } from './predicates/taint-toleration.js';
import { nodeInfoFor, parseResourceList, podRequests } from './resources.js';
import { evaluateAllFilters, type Explanation, explainAgainstNodes } from './scheduler.js';
import { groupReadiness } from './node-groups.js';
import type { TemplateResult } from './node-group-provider.js';
import { alternativeTemplates, shapeDiffKeys, shapeDifference } from './template-node.js';

// CA: core/scaleup/orchestrator/skippedreasons.go
export const SKIP_NOT_READY = 'not ready for scale-up';
/** A group casdoctor cannot build a template for because data is missing (CA has it): not evaluated, never a verdict. */
export const SKIP_NOT_EVALUATED = 'not evaluated: data missing';
export const SKIP_BACKOFF = 'in backoff after failed scale-up';
export const SKIP_MAX_SIZE = 'max node group size reached';
export const MAX_TOTAL_NODES = 'max total nodes in cluster reached';

/** How one node group fares for one pod, with everything the checks need. */
export interface GroupEvaluation {
  group: NodeGroup;
  template: TemplateResult;
  templateInfo?: NodeInfo;
  /** Every failing plugin on the template (the scheduler stops at the first; casdoctor looks further to advise). */
  failures: FilterStatus[];
  notEvaluated: FilterStatus[];
  /** CA's skip reason, checked before predicates (orchestrator.go filterValidScaleUpNodeGroups order). */
  skip?: {
    reason: string;
    detail: string;
    kind: 'unhealthy' | 'backoff' | 'max-size' | 'no-template' | 'resource-limit' | 'max-nodes-total';
    /** The smallest change that lifts this stage for the group (the counterfactual), when one is known. */
    change?: string;
  };
  /** The template carries what the pod's nodeSelector / required node affinity asks for: the pod targets this group. */
  targeted: boolean;
  /** Obstacles after CA decides (suspended Launch). */
  blockers: string[];
  /** CA would scale this group for the pod. */
  fits: boolean;
  /** The verdict flips with the real node CA happens to copy as the template (see PodGroupResult.caMayDecideEither). */
  caMayDecideEither?: string;
}

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
      const stopped = upcoming?.group.provider === 'externalgrpc' && ['cannot-run', 'likely-cannot-run'].includes(caRunning(a).state);
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
      } else if (candidates.every((g) => g.group.provider === 'externalgrpc') && grpcCreatesStalled(a)) {
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

const templateInfos = new WeakMap<TemplateResult, NodeInfo>();
/** The template node with its DaemonSet pods, once per template (every examined pod is checked against it). */
function templateInfoOf(template: TemplateResult, node: NonNullable<TemplateResult['node']>): NodeInfo {
  let info = templateInfos.get(template);
  if (!info) templateInfos.set(template, (info = nodeInfoFor(node, template.pods)));
  return info;
}

function evaluateGroup(a: Analysis, pod: Pod, group: NodeGroup): GroupEvaluation {
  const template = a.template(group);
  let templateInfo: NodeInfo | undefined;
  let failures: FilterStatus[] = [];
  let notEvaluated: FilterStatus[] = [];
  let targeted = false;
  if (template.node) {
    templateInfo = templateInfoOf(template, template.node);
    const all = evaluateAllFilters(pod, templateInfo, a.view, { taintReason: a.caTaintReason });
    failures = all.failures;
    notEvaluated = all.notEvaluated;
    targeted = podMatchesNodeSelectorAndAffinity(pod, template.node);
  }
  const either = group.discovered && template.node ? templateChoiceMatters(a, pod, group, template, failures, notEvaluated) : undefined;
  const skip = group.discovered ? groupSkipReason(a, group, template) : undefined;
  const blockers: string[] = [...a.provider.scaleUpBlockers(group)];
  const fits =
    group.discovered &&
    !skip &&
    template.node !== undefined &&
    failures.length === 0 &&
    notEvaluated.length === 0 &&
    blockers.length === 0;
  return {
    group,
    template,
    ...(templateInfo ? { templateInfo } : {}),
    failures,
    notEvaluated,
    ...(skip ? { skip } : {}),
    targeted,
    blockers,
    fits,
    ...(either ? { caMayDecideEither: either } : {}),
  };
}

/**
 * Whether a difference in template shape can change the pod's predicates: different taints or allocatable always can;
 * different labels only when the pod selects on them, spreads or (anti-)affines over them, or mounts claims (volume zones).
 */
function podCouldCare(pod: Pod, diff: { labels: string[]; taints: boolean; allocatable: boolean }): boolean {
  if (diff.taints || diff.allocatable) return true;
  if (diff.labels.length === 0) return false;
  const spec = pod.spec;
  if (spec.volumes?.some((v) => v.persistentVolumeClaim || v.ephemeral)) return true;
  const keys = new Set<string>(Object.keys(spec.nodeSelector ?? {}));
  const na = spec.affinity?.nodeAffinity;
  for (const t of na?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [])
    for (const e of t.matchExpressions ?? []) keys.add(e.key);
  for (const c of spec.topologySpreadConstraints ?? []) keys.add(c.topologyKey);
  const affinity = [
    ...(spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
  ];
  for (const t of affinity) keys.add(t.topologyKey);
  return diff.labels.some((k) => keys.has(k));
}

const alternatives = new WeakMap<TemplateResult, TemplateResult[]>();

/**
 * CA copies the first good node of the group in its (informer-ordered, so run-dependent) node list. When the group's
 * good nodes differ in shape and the pod fits some but not others, say so instead of guessing one outcome.
 * CA: processors/nodeinfosprovider/mixed_nodeinfos_processor.go.
 */
function templateChoiceMatters(
  a: Analysis,
  pod: Pod,
  group: NodeGroup,
  template: TemplateResult,
  failures: FilterStatus[],
  notEvaluated: FilterStatus[],
): string | undefined {
  if (template.source !== 'node' || group.nodes.length < 2) return undefined;
  let alts = alternatives.get(template);
  if (!alts) alternatives.set(template, (alts = alternativeTemplates(group, template, a.templateContext)));
  if (alts.length === 0 || notEvaluated.length > 0) return undefined;
  const passes = failures.length === 0;
  const chosenNode = group.nodes.find((n) => n.metadata.name === template.fromNode);
  for (const alt of alts) {
    const altNode = group.nodes.find((n) => n.metadata.name === alt.fromNode);
    if (chosenNode && altNode && !podCouldCare(pod, shapeDiffKeysOnce(chosenNode, altNode))) continue;
    const r = evaluateAllFilters(pod, templateInfoOf(alt, alt.node!), a.view, { taintReason: a.caTaintReason });
    if (r.notEvaluated.length > 0 || (r.failures.length === 0) === passes) continue;
    const diff = chosenNode && altNode ? shapeDifference(chosenNode, altNode).join('; ') : 'shape';
    const verdict = (f: FilterStatus[]) => (f.length === 0 ? 'fits' : `fails (${f[0].reasons.join(', ')})`);
    return `CA copies any Ready node of ${group.name} as its template, and they differ (${diff}): on ${template.fromNode}'s shape the pod ${verdict(failures)}, on ${alt.fromNode}'s it ${verdict(r.failures)}; CA may decide either, from run to run`;
  }
  return undefined;
}

const shapeDiffs = new WeakMap<Node, WeakMap<Node, ReturnType<typeof shapeDiffKeys>>>();
/** shapeDiffKeys once per pair of nodes, not once per pod. */
function shapeDiffKeysOnce(x: Node, y: Node): ReturnType<typeof shapeDiffKeys> {
  let perX = shapeDiffs.get(x);
  if (!perX) shapeDiffs.set(x, (perX = new WeakMap()));
  let diff = perX.get(y);
  if (!diff) perX.set(y, (diff = shapeDiffKeys(x, y)));
  return diff;
}

const statusIndex = new WeakMap<Analysis, Map<string, NonNullable<Analysis['caStatus']>['nodeGroups'][number]>>();
function statusByName(a: Analysis): Map<string, NonNullable<Analysis['caStatus']>['nodeGroups'][number]> {
  let m = statusIndex.get(a);
  if (!m) {
    m = new Map();
    // the first entry of a name wins, as find() did
    for (const s of a.caStatus?.nodeGroups ?? []) if (!m.has(s.name)) m.set(s.name, s);
    statusIndex.set(a, m);
  }
  return m;
}

const skipReasons = new WeakMap<Analysis, Map<NodeGroup, GroupEvaluation['skip']>>();
/** skipReason once per group: it reads the group, its template and CA's status, never the pod. */
function groupSkipReason(a: Analysis, group: NodeGroup, template: TemplateResult): GroupEvaluation['skip'] {
  let perGroup = skipReasons.get(a);
  if (!perGroup) skipReasons.set(a, (perGroup = new Map()));
  if (!perGroup.has(group)) perGroup.set(group, skipReason(a, group, template));
  return perGroup.get(group);
}

/** CA's skip reasons, in orchestrator.go filterValidScaleUpNodeGroups order: health, backoff, max size, template. */
function skipReason(a: Analysis, group: NodeGroup, template: TemplateResult): GroupEvaluation['skip'] {
  const status = statusByName(a).get(group.name);
  const staleNote = a.caStatus?.stale ? ' (the status ConfigMap is stale)' : '';
  if (status?.health === 'Unhealthy' || status?.scaleUpStatus === 'Unhealthy') {
    const r = groupReadiness(group, a.now, a.ca);
    const startup = `${formatDurationShort(r.maxNodeStartupMs)}${r.fromFlag ? ' (--max-node-startup-time)' : ' (CA before 1.35: fixed)'}`;
    const counts =
      r.unready + r.notStarted > 0
        ? `; casdoctor counts ${r.ready} Ready, ${r.unready} Unready (not Ready for over ${startup}), ${r.notStarted} still starting`
        : '';
    return {
      kind: 'unhealthy',
      reason: SKIP_NOT_READY,
      detail: `CA's status ConfigMap reports the group Unhealthy (too many unready or unregistered nodes)${staleNote}${counts}`,
      change: `get ${group.name}'s unready or unregistered nodes Ready (or removed): CA then marks the group healthy again`,
    };
  }
  if (status?.scaleUpStatus === 'Backoff') {
    const b = status.backoff;
    return {
      kind: 'backoff',
      reason: SKIP_BACKOFF,
      detail: `CA's status ConfigMap reports Backoff${b ? `: ${b.errorCode}: ${b.errorMessage}` : ''}${staleNote}`,
      change: `fix what made ${group.name}'s last scale-up fail${b?.errorCode ? ` (${b.errorCode})` : ''}; CA retries when the backoff ends (5m, doubling to 30m)`,
    };
  }
  if (group.targetSize >= group.maxSize) {
    return {
      kind: 'max-size',
      reason: SKIP_MAX_SIZE,
      detail: `${a.provider.words.targetSizeProse} ${group.targetSize} >= max size ${group.maxSize}${group.via === 'nodes-flag' ? ' (max from --nodes)' : ''}`,
      change: `raise the max size of ${group.name} from ${group.maxSize} to ${group.targetSize + 1}${group.via === 'nodes-flag' ? ' (in --nodes)' : ''}`,
    };
  }
  if (template.source === 'none') {
    // casdoctor lacks the data (not CA): the group is not evaluated, which is not CA's "not ready for scale-up"
    const unknown = (template.missing?.length ?? 0) > 0;
    return {
      kind: 'no-template',
      reason: unknown ? SKIP_NOT_EVALUATED : SKIP_NOT_READY,
      detail: template.reason ?? 'CA cannot build a template node for the group',
      ...(unknown
        ? { change: `add ${template.missing!.join(', ')} to the input (casdoctor, not CA, lacks it)` }
        : template.reason?.startsWith('unable to get first AvailabilityZone')
          ? { change: `give ${group.name} an AvailabilityZone (a subnet): CA builds its template in the first one` }
          : {}),
    };
  }
  return undefined;
}

/** --max-nodes-total, --cores-total, --memory-total (CA: orchestrator.go, resource manager). */
function applyClusterLimits(a: Analysis, groups: GroupEvaluation[]): void {
  const maxTotal = a.ca.flags.maxNodesTotal.value;
  if (maxTotal > 0) {
    const ready = a.readyNodes().length;
    if (ready >= maxTotal) {
      for (const g of groups) {
        if (!g.group.discovered) continue;
        g.skip = {
          kind: 'max-nodes-total',
          reason: MAX_TOTAL_NODES,
          detail: `${ready} ready nodes >= --max-nodes-total=${maxTotal}`,
          change: `raise --max-nodes-total from ${maxTotal} to at least ${ready + 1}`,
        };
        g.fits = false;
      }
      return;
    }
  }
  const cores = a.ca.flags.coresTotal.value;
  const memory = a.ca.flags.memoryTotal.value;
  const { totalCores, totalMemGiB } = clusterTotals(a);
  for (const g of groups) {
    if (!g.group.discovered || g.skip || !g.templateInfo) continue;
    const { addCores, addMem } = templateAddition(g.template);
    const over: string[] = [];
    if (totalCores + addCores > cores.max) over.push('cpu');
    if (totalMemGiB + addMem > memory.max) over.push('memory');
    if (over.length) {
      // CA 1.35 changed the text (skippedreasons.go NewMaxResourceLimitReached → quota reasons)
      const reason =
        a.ca.version.minor >= 35
          ? `exceeded quota: "cluster-wide", resources: ${over.join(', ')}`
          : `max cluster ${over.join(', ')} limit reached`;
      g.skip = {
        kind: 'resource-limit',
        reason,
        detail: `cluster has ${totalCores} cores / ${Math.round(totalMemGiB)} GiB; one more ${g.template.instanceType ?? 'node'} exceeds --cores-total max ${cores.max} / --memory-total max ${memory.max}`,
        change: [
          ...(over.includes('cpu') ? [`raise the --cores-total max from ${cores.max} to at least ${totalCores + addCores}`] : []),
          ...(over.includes('memory') ? [`raise the --memory-total max from ${memory.max} to at least ${Math.ceil(totalMemGiB + addMem)}`] : []),
        ].join(' and '),
      };
      g.fits = false;
    }
  }
}

const templateAdditions = new WeakMap<TemplateResult, { addCores: number; addMem: number }>();
/** The cores and GiB one more node of the template adds, once per template (every examined pod asks). */
function templateAddition(template: TemplateResult): { addCores: number; addMem: number } {
  let add = templateAdditions.get(template);
  if (!add) {
    const cap = parseResourceList(template.node?.status?.capacity);
    templateAdditions.set(template, (add = { addCores: Math.ceil((cap.cpu ?? 0) / 1000), addMem: (cap.memory ?? 0) / 1024 ** 3 }));
  }
  return add;
}

/**
 * Cluster cores and memory as CA's resource manager counts them (core/scaleup/resource/manager.go): each node group's
 * target size times its template's capacity, plus the capacity of nodes in no node group.
 */
const totalsCache = new WeakMap<Analysis, { totalCores: number; totalMemGiB: number }>();
function clusterTotals(a: Analysis): { totalCores: number; totalMemGiB: number } {
  let totals = totalsCache.get(a);
  if (!totals) totalsCache.set(a, (totals = computeClusterTotals(a)));
  return totals;
}

function computeClusterTotals(a: Analysis): { totalCores: number; totalMemGiB: number } {
  let totalCores = 0;
  let totalMemGiB = 0;
  for (const g of a.nodeGroups) {
    if (!g.discovered) continue;
    const cap = parseResourceList(a.template(g).node?.status?.capacity);
    totalCores += g.targetSize * Math.ceil((cap.cpu ?? 0) / 1000);
    totalMemGiB += (g.targetSize * (cap.memory ?? 0)) / 1024 ** 3;
  }
  const managed = new Set(
    a.nodeGroups.filter((g) => g.discovered).flatMap((g) => g.nodes.map((n) => n.metadata.name)),
  );
  for (const n of a.raw.nodes) {
    if (managed.has(n.metadata.name)) continue;
    const cap = parseResourceList(n.status?.capacity);
    totalCores += Math.ceil((cap.cpu ?? 0) / 1000);
    totalMemGiB += (cap.memory ?? 0) / 1024 ** 3;
  }
  return { totalCores, totalMemGiB };
}

/** The first failing reason's values in a few words, for the table of node groups. */
function shortValues(pod: PodT, g: GroupEvaluation): string | undefined {
  if (!g.group.discovered) return g.group.mismatch?.replace(/ \(--node-group-auto-discovery\)$/, '');
  if (g.skip) return g.skip.detail;
  const first = g.failures[0];
  if (!first || !g.templateInfo) return g.blockers[0];
  switch (first.plugin) {
    case 'NodeResourcesFit':
      return insufficientResources(pod, g.templateInfo)
        .map((r) =>
          r.resource === 'pods'
            ? `${r.used} pods = max ${r.capacity}`
            : `${r.resource} ${formatResource(r.resource, r.requested)} > ${formatResource(r.resource, Math.max(0, r.capacity - r.used))} free`,
        )
        .join(', ');
    case 'TaintToleration': {
      const t = findUntoleratedTaint(pod.spec.tolerations, g.templateInfo.node.spec?.taints);
      return t ? `taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}` : undefined;
    }
    case 'NodeAffinity':
      return explainNodeAffinityMismatch(pod, g.templateInfo.node)[0];
    case 'VolumeBinding':
    case 'VolumeZone': {
      const text = (first.details ?? []).join(' ');
      const m = /In \[([^\]]+)\] \(node has [^=]+=([^)]+)\)/.exec(text);
      if (m) return `volume needs ${m[1]}, template in ${m[2]}`;
      return first.details?.[0]?.slice(0, 100);
    }
    default:
      return first.details?.[0]?.slice(0, 100);
  }
}

function toGroupResult(g: GroupEvaluation, pod: PodT): PodGroupResult {
  const first = g.failures[0];
  let reasons: string[];
  if (!g.group.discovered) reasons = ['not discovered by CA'];
  else if (g.skip) reasons = [g.skip.reason];
  else if (first) reasons = [...first.reasons];
  else if (g.notEvaluated.length) reasons = g.notEvaluated.map((s) => `not evaluated: ${s.plugin}`);
  else reasons = [...g.blockers];
  const details: string[] = [];
  if (g.skip) details.push(g.skip.detail);
  if (g.template.source === 'none' && g.template.reason && g.skip?.kind !== 'no-template')
    details.push(g.template.reason);
  for (const f of g.failures) details.push(...(f.details ?? f.reasons).map((d) => `${f.plugin}: ${d}`));
  for (const s of g.notEvaluated)
    details.push(...(s.details ?? []).map((d) => `${s.plugin} not evaluated: ${d}`));
  details.push(...g.blockers);
  const values = g.fits ? undefined : shortValues(pod, g);
  return {
    name: g.group.name,
    fits: g.fits,
    reasons,
    ...(values ? { values } : {}),
    template: {
      source: g.template.source,
      ...(g.template.instanceType ? { instanceType: g.template.instanceType } : {}),
      ...(g.template.fromNode ? { fromNode: g.template.fromNode } : {}),
      ...(g.template.reason ? { reason: g.template.reason } : {}),
    },
    discovered: g.group.discovered,
    minSize: g.group.minSize,
    maxSize: g.group.maxSize,
    targetSize: g.group.targetSize,
    ...(g.skip ? { skipReason: g.skip.reason } : {}),
    predicatesPass: g.template.node !== undefined && g.failures.length === 0 && g.notEvaluated.length === 0,
    ...(first ? { failedPlugin: first.plugin } : {}),
    details,
    ...(g.notEvaluated.length ? { notEvaluated: g.notEvaluated.map((s) => s.plugin) } : {}),
    ...(g.blockers.length ? { blockers: g.blockers } : {}),
    ...(g.caMayDecideEither ? { caMayDecideEither: g.caMayDecideEither } : {}),
    ...counterfactualOf(g),
  };
}

/**
 * The counterfactual of a group CA's staged filter rejects (orchestrator.go filterValidScaleUpNodeGroups: health,
 * backoff, max size, template; then --max-nodes-total and the cluster resource limits): the stage that removed a group
 * whose template the pod would otherwise fit, and the smallest change that flips it. A failing predicate on the
 * template is not restated here: the pod's findings say which and how to change it.
 */
function counterfactualOf(g: GroupEvaluation): Pick<PodGroupResult, 'counterfactual'> {
  if (!g.group.discovered || !g.skip?.change) return {};
  const passes = g.template.node !== undefined && g.failures.length === 0 && g.notEvaluated.length === 0;
  // no template: nothing to fit, the change is the template itself
  if (!passes && g.skip.kind !== 'no-template') return {};
  return { counterfactual: { stage: g.skip.kind, change: g.skip.change } };
}

/** Which fitting group CA's expander would likely pick (CA: expander/<name>). */
function pickExpander(
  a: Analysis,
  pod: Pod,
  allCandidates: GroupEvaluation[],
): NonNullable<PodReport['expander']> {
  const chain = a.ca.flags.expander.value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let candidates = allCandidates;
  let names = candidates.map((c) => c.group.name);
  const req = podRequests(pod);
  let priorityNote: string | undefined;
  for (const name of chain) {
    if (name === 'priority') {
      // CA: expander/priority/priority.go BestOptions is a filter; chain.go hands what it keeps to the next expander
      const pick = pickWithPriorityExpander(a.raw.configMaps, a.ca, names);
      if (!pick) continue;
      if (pick.choice !== undefined)
        return { name, choice: pick.choice, candidates: names, ...(pick.note ? { note: pick.note } : {}) };
      const kept = new Set(pick.kept);
      candidates = candidates.filter((c) => kept.has(c.group.name));
      names = candidates.map((c) => c.group.name);
      priorityNote = pick.note;
      continue;
    }
    if (name === 'least-waste') {
      // expander/waste: wasted = (alloc - requested) / alloc for cpu and memory, summed; lowest wins
      let best: GroupEvaluation | undefined;
      let bestScore = Number.POSITIVE_INFINITY;
      for (const c of candidates) {
        const alloc = c.templateInfo?.allocatable ?? {};
        const used = c.templateInfo?.requested ?? {};
        const cpuAlloc = alloc.cpu ?? 0;
        const memAlloc = alloc.memory ?? 0;
        const cpuWaste = cpuAlloc > 0 ? (cpuAlloc - (used.cpu ?? 0) - (req.cpu ?? 0)) / cpuAlloc : 1;
        const memWaste = memAlloc > 0 ? (memAlloc - (used.memory ?? 0) - (req.memory ?? 0)) / memAlloc : 1;
        const score = cpuWaste + memWaste;
        if (score < bestScore - 1e-9) {
          best = c;
          bestScore = score;
        }
      }
      return {
        name,
        ...(best ? { choice: best.group.name } : {}),
        candidates: names,
        ...(priorityNote
          ? { note: `priority kept ${names.join(', ')}: ${priorityNote}` }
          : chain.length > 1
            ? { note: `expander chain ${chain.join(',')}; casdoctor simulates ${name}` }
            : {}),
      };
    }
    if (name === 'random' || name === 'most-pods') {
      return {
        name,
        ...(candidates.length === 1 ? { choice: names[0] } : {}),
        candidates: names,
        note: candidates.length > 1 ? `${name} picks any of ${names.join(', ')}` : undefined,
      } as NonNullable<PodReport['expander']>;
    }
  }
  if (priorityNote !== undefined)
    return { name: 'priority', ...(candidates.length === 1 ? { choice: names[0] } : {}), candidates: names, note: priorityNote };
  const first = chain[0] ?? 'least-waste';
  return {
    name: first,
    ...(candidates.length === 1 ? { choice: names[0] } : {}),
    candidates: names,
    note: `casdoctor does not simulate the ${first} expander (its configuration or prices are not in the snapshot)`,
  };
}
