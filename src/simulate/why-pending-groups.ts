// why-pending's node-group half: how one node group fares for one pod (CA's skip reasons, the template's filters,
// the template CA may copy instead) and the cluster-wide limits over all of them. Moved out of why-pending.ts as is.
import type { Node, Pod } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import { formatDurationShort } from '../model/duration.js';
import type { FilterStatus, NodeInfo } from '../model/scheduling.js';
import type { Analysis } from './analysis.js';
import { podMatchesNodeSelectorAndAffinity } from './predicates/node-affinity.js';
import { nodeInfoFor, parseResourceList } from './resources.js';
import { evaluateAllFilters } from './scheduler.js';
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

const templateInfos = new WeakMap<TemplateResult, NodeInfo>();
/** The template node with its DaemonSet pods, once per template (every examined pod is checked against it). */
export function templateInfoOf(template: TemplateResult, node: NonNullable<TemplateResult['node']>): NodeInfo {
  let info = templateInfos.get(template);
  if (!info) templateInfos.set(template, (info = nodeInfoFor(node, template.pods)));
  return info;
}

export function evaluateGroup(a: Analysis, pod: Pod, group: NodeGroup): GroupEvaluation {
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
export function applyClusterLimits(a: Analysis, groups: GroupEvaluation[]): void {
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
