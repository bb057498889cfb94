// Karpenter beside CA for one Analysis: the placement context built once, each Pending pod's per-NodePool explanation
// and routing (CA / Karpenter / both / neither), Karpenter's own events on the pod, and the disruption report of its
// nodes. Shared by the karpenter-* checks, why-pending, scale-down-blockers and overview. Pure; cached per Analysis.
import type { KubeEvent, Node, Pod } from '../../model/k8s.js';
import { NODEPOOL_LABEL } from '../../model/karpenter.js';
import type { DataKind } from '../../model/snapshot.js';
import type { Analysis } from '../../simulate/analysis.js';
import { eventsFor, eventTime } from '../../simulate/ca-events.js';
import { karpenterDisruptionReport, type KarpenterDisruptionContext, type KarpenterNodeDisruption } from '../../simulate/providers/karpenter/disruption.js';
import { karpenterOf, type KarpenterInputsView } from '../../simulate/providers/karpenter/inputs.js';
import {
  explainKarpenterPending,
  type KarpenterPendingExplanation,
  type KarpenterPlacementContext,
} from '../../simulate/providers/karpenter/placement.js';
import { caConsidersFromStage, routePendingPod, type PodRouting } from '../../simulate/providers/karpenter/routing.js';
import { nodePoolViews, type KarpenterNodePoolView } from '../../simulate/providers/karpenter/view.js';
import type { PodAnalysis } from '../../simulate/why-pending.js';
import { KARPENTER_CRD_HOW_TO_PROVIDE } from '../../model/karpenter-crds.js';
import { karpenterLogIndex, type KarpenterLogged, type KarpenterLogIndex } from '../../simulate/providers/karpenter/log-beside.js';
import { consolidationStory, type ConsolidationStory } from '../../simulate/providers/karpenter/consolidation-story.js';

/** The component Karpenter's events carry (source.component / reportingComponent). */
export const KARPENTER_COMPONENT = 'karpenter';

/** What each Karpenter input is and how to supply it offline, for skipped checks (one table: model/karpenter-crds.ts). */
const KARPENTER_HOW = KARPENTER_CRD_HOW_TO_PROVIDE;

export function karpenterInputs(a: Analysis): KarpenterInputsView {
  return karpenterOf(a);
}

/**
 * Why a Karpenter check cannot run: Karpenter is not in the input at all ('not-applicable': nothing to check), or one of
 * the lists it needs was not gathered ('not-provided', with the kubectl command that supplies it).
 */
export function karpenterSkip(
  a: Analysis,
  needs: ReadonlyArray<'nodePools' | 'ec2NodeClasses' | 'nodeClaims'>,
): { reason: string; detail: string } | undefined {
  const k = karpenterOf(a);
  const gap = needs.map((n) => a.gapFor(n as DataKind)).find((g) => g !== undefined);
  if (gap) return { reason: gap.reason, detail: gap.detail };
  if (!k.present) {
    return {
      reason: 'not-provided',
      detail: `no Karpenter in the input (no NodePool, EC2NodeClass, NodeClaim or Karpenter Deployment): if Karpenter runs, add \`${KARPENTER_HOW.nodePools}\` and \`${KARPENTER_HOW.nodeClaims}\` to the dump`,
    };
  }
  const provided: Record<string, boolean> = { nodePools: k.provided.nodePools, ec2NodeClasses: k.provided.nodeClasses, nodeClaims: k.provided.nodeClaims };
  const missing = needs.filter((n) => !provided[n]);
  if (missing.length > 0) {
    return {
      reason: 'not-provided',
      detail: `Karpenter runs but its ${missing.map((m) => (m === 'ec2NodeClasses' ? 'EC2NodeClasses' : m === 'nodePools' ? 'NodePools' : 'NodeClaims')).join(' and ')} are not in the input (add ${missing.map((m) => `\`${KARPENTER_HOW[m]}\``).join(' and ')} to the dump)`,
    };
  }
  return undefined;
}

const contexts = new WeakMap<Analysis, KarpenterPlacementContext>();

function regionOf(nodes: readonly Node[]): string | undefined {
  for (const n of nodes) {
    const r = n.metadata.labels?.['topology.kubernetes.io/region'];
    if (r) return r;
  }
  return undefined;
}

/** Karpenter's view of the cluster for placement: its CRDs, nodes, DaemonSets, volumes and the instance-type table. */
export function karpenterPlacementContext(a: Analysis): KarpenterPlacementContext {
  let ctx = contexts.get(a);
  if (ctx) return ctx;
  const k = karpenterOf(a);
  const region = regionOf(a.raw.nodes);
  ctx = {
    nodePools: k.nodePools,
    nodeClasses: k.nodeClasses,
    nodeClaims: k.nodeClaims,
    nodes: a.raw.nodes,
    pods: a.raw.pods,
    daemonSets: a.raw.daemonSets,
    pvcs: a.raw.pvcs,
    pvs: a.raw.pvs,
    storageClasses: a.raw.storageClasses,
    instanceTypes: a.instanceTypes,
    ...(k.settings ? { settings: k.settings } : {}),
    ...(k.offerings && k.offerings.length > 0 ? { liveOfferings: k.offerings } : {}),
    ...(region ? { region } : {}),
    now: a.now,
  };
  contexts.set(a, ctx);
  return ctx;
}

const explanations = new WeakMap<Analysis, Map<Pod, KarpenterPendingExplanation>>();

/** Karpenter's decision for one Pending pod, per NodePool (explainKarpenterPending), computed once per pod. */
export function karpenterPending(a: Analysis, pod: Pod): KarpenterPendingExplanation {
  let m = explanations.get(a);
  if (!m) explanations.set(a, (m = new Map()));
  let x = m.get(pod);
  if (!x) m.set(pod, (x = explainKarpenterPending(pod, karpenterPlacementContext(a))));
  return x;
}

export interface KarpenterSaid {
  reason: string;
  message: string;
  time?: string;
  ageSeconds?: number;
  count?: number;
}

function isKarpenterEvent(ev: KubeEvent): boolean {
  return ev.source?.component === KARPENTER_COMPONENT || ev.reportingComponent === KARPENTER_COMPONENT;
}

/** Karpenter's newest event of the given reason on an object (FailedScheduling, Nominated, DisruptionBlocked…). */
export function latestKarpenterEvent(a: Analysis, obj: Pod | Node | { kind: string; metadata: { name?: string; namespace?: string; uid?: string } }, reason: string, kind?: string): KarpenterSaid | undefined {
  let best: { ev: KubeEvent; t: number } | undefined;
  for (const ev of eventsFor(a.events, obj as Pod, kind ?? (obj as { kind?: string }).kind ?? 'Pod')) {
    if (ev.reason !== reason || !isKarpenterEvent(ev)) continue;
    const t = eventTime(ev)?.getTime() ?? Number.NEGATIVE_INFINITY;
    if (!best || t > best.t) best = { ev, t };
  }
  if (!best) return undefined;
  const time = Number.isFinite(best.t) ? new Date(best.t) : undefined;
  const count = best.ev.series?.count ?? best.ev.count;
  return {
    reason,
    message: best.ev.message ?? '',
    ...(time ? { time: time.toISOString(), ageSeconds: Math.max(0, Math.round((a.now.getTime() - time.getTime()) / 1000)) } : {}),
    ...(count !== undefined ? { count } : {}),
  };
}

export interface KarpenterPodView {
  explanation: KarpenterPendingExplanation;
  routing: PodRouting;
  /** Karpenter's FailedScheduling event on the pod, as it printed it. */
  said?: KarpenterSaid;
  /** Karpenter's Nominated event: the NodeClaim/node it expects the pod to land on. */
  nominated?: KarpenterSaid;
  /** The NodeClaims the Nominated event names (nodeclaim/x), when the event is recent. */
  nominatedClaims: string[];
  /** The latest line Karpenter's log has about the pod (could not schedule it, found it provisionable). */
  logged?: KarpenterLogged;
}

const podViews = new WeakMap<Analysis, Map<Pod, KarpenterPodView>>();

/** Who serves a Pending pod and Karpenter's reasons, for a pod why-pending analysed for CA. */
export function karpenterPodView(a: Analysis, p: PodAnalysis): KarpenterPodView {
  let m = podViews.get(a);
  if (!m) podViews.set(a, (m = new Map()));
  const hit = m.get(p.pod);
  if (hit) return hit;
  const explanation = karpenterPending(a, p.pod);
  const fitsExisting = p.report.verdict === 'fits-existing-node';
  const routing = routePendingPod({
    pod: p.pod,
    // a pod an existing node takes needs no new node from either autoscaler
    caGroups: fitsExisting ? [] : p.report.nodeGroups.map((g) => ({ name: g.name, fits: g.fits, ...(g.reasons.length ? { reason: g.reasons.join(', ') } : {}) })),
    nodePools: fitsExisting
      ? []
      : explanation.pools.map((pl) => ({ name: pl.nodePool, fits: pl.verdict === 'fits' && !pl.launchError, ...(pl.error ? { reason: pl.error } : pl.verdict === 'not-evaluated' && pl.detail ? { reason: pl.detail } : pl.launchError ? { reason: pl.launchError } : {}) })),
    caConsiders: caConsidersFromStage(p.stage),
    caPresent: a.ca.found,
    karpenterPresent: karpenterOf(a).present,
  });
  const said = latestKarpenterEvent(a, p.pod, 'FailedScheduling', 'Pod');
  const nominated = latestKarpenterEvent(a, p.pod, 'Nominated', 'Pod');
  const nominatedClaims = nominated
    ? nominated.message
        .replace(/^Pod should schedule on: /, '')
        .split(', ')
        .map((s) => /^nodeclaim\/(.+)$/.exec(s.trim())?.[1])
        .filter((s): s is string => !!s)
    : [];
  const view: KarpenterPodView = {
    explanation,
    routing,
    ...(said ? { said } : {}),
    ...(nominated ? { nominated } : {}),
    nominatedClaims,
  };
  const logged = karpenterLog(a)?.pods.get(`${p.pod.metadata.namespace ?? 'default'}/${p.pod.metadata.name ?? ''}`);
  if (logged) view.logged = logged;
  m.set(p.pod, view);
  return view;
}

const logIndexes = new WeakMap<Analysis, { idx: KarpenterLogIndex | undefined }>();

/** Karpenter's own log in the input (live `pods/log`, or files in --from), indexed by pod and node; undefined without one. */
export function karpenterLog(a: Analysis): KarpenterLogIndex | undefined {
  let hit = logIndexes.get(a);
  if (!hit) logIndexes.set(a, (hit = { idx: karpenterLogIndex(a.raw.karpenterLogs ?? []) }));
  return hit.idx;
}

const disruptionCtx = new WeakMap<Analysis, KarpenterDisruptionContext>();

export function karpenterDisruptionContext(a: Analysis): KarpenterDisruptionContext {
  let ctx = disruptionCtx.get(a);
  if (ctx) return ctx;
  const k = karpenterOf(a);
  ctx = {
    now: a.now,
    nodes: a.raw.nodes,
    nodeClaims: k.nodeClaims,
    nodePools: k.nodePools,
    pods: a.raw.pods,
    pdbs: a.raw.pdbs,
    events: a.raw.events,
    ...(k.settings ? { settings: k.settings } : {}),
  };
  disruptionCtx.set(a, ctx);
  return ctx;
}

const disruptions = new WeakMap<Analysis, KarpenterNodeDisruption[]>();

/** Every Karpenter node (and node-less NodeClaim) with what keeps Karpenter from disrupting it at analysis.now. */
export function karpenterDisruptions(a: Analysis): KarpenterNodeDisruption[] {
  let r = disruptions.get(a);
  if (!r) disruptions.set(a, (r = karpenterDisruptionReport(karpenterDisruptionContext(a))));
  return r;
}

/** "Why not consolidated" for one Karpenter node: its Consolidatable condition, Karpenter's order, its consolidation events. */
export function karpenterConsolidationStory(a: Analysis, d: KarpenterNodeDisruption): ConsolidationStory | undefined {
  if (!d.nodeClaim || !d.node) return undefined;
  const k = karpenterOf(a);
  const claim = k.nodeClaims.find((c) => c.metadata.name === d.nodeClaim);
  const np = d.nodePool !== undefined ? k.nodePools.find((x) => x.metadata.name === d.nodePool) : undefined;
  const events = [
    ...eventsFor(a.events, { kind: 'Node', metadata: { name: d.node } } as Node, 'Node'),
    ...(claim ? eventsFor(a.events, claim, 'NodeClaim') : []),
  ].filter(isKarpenterEvent);
  return consolidationStory(d, claim, np, events);
}

/** Nodes Karpenter launched (label karpenter.sh/nodepool). */
export function isKarpenterNode(n: Node): boolean {
  return n.metadata.labels?.[NODEPOOL_LABEL] !== undefined;
}

const views = new WeakMap<Analysis, KarpenterNodePoolView[]>();

/** Each NodePool as a node-group-shaped view, in Karpenter's order. */
export function karpenterPoolViews(a: Analysis): KarpenterNodePoolView[] {
  let v = views.get(a);
  if (!v) {
    const k = karpenterOf(a);
    views.set(a, (v = nodePoolViews({ nodePools: k.nodePools, nodes: a.raw.nodes, nodeClaims: k.nodeClaims, nodeClasses: k.nodeClasses })));
  }
  return v;
}

/**
 * The start of every karpenter-* check: false when there is nothing to check (Karpenter is not in the input, or a list
 * it needs is missing: then the check has called ctx.skip with how to supply it). Without any trace of Karpenter (no
 * object, no Deployment, its lists neither gathered nor refused) the checks stay quiet, so a CA-only report is unchanged.
 */
export function karpenterGate(
  ctx: { analysis: Analysis; skip(reason: string, detail: string): void },
  needs: ReadonlyArray<'nodePools' | 'ec2NodeClasses' | 'nodeClaims'>,
): boolean {
  const a = ctx.analysis;
  const k = karpenterOf(a);
  const refused = needs.some((n) => a.gapFor(n as DataKind) !== undefined);
  if (!k.present && !refused) return false;
  const skip = karpenterSkip(a, needs);
  if (skip) {
    ctx.skip(skip.reason, skip.detail);
    return false;
  }
  return true;
}

/** The Pending pods (in scope) why-pending explains, with Karpenter's view of each; pods an existing node takes are left out. */
export function karpenterPendingViews(a: Analysis, pods: readonly PodAnalysis[]): Array<{ p: PodAnalysis; v: KarpenterPodView }> {
  return pods
    .filter((p) => p.report.verdict !== 'not-pending' && p.report.verdict !== 'fits-existing-node')
    .map((p) => ({ p, v: karpenterPodView(a, p) }));
}

const STAGE_TEXT: Record<string, string> = {
  'unmanaged-nodeclass': 'NodeClass not managed',
  'static-nodepool': 'static NodePool',
  deleting: 'NodePool deleting',
  'nodepool-not-ready': 'NodePool not ready',
  'no-instance-types': 'no instance types',
  'nodepool-requirements': 'NodePool requirements',
  'node-limit': 'node limit',
  'resource-limits': 'resource limits',
  taints: 'taints',
  requirements: 'requirements',
  'volume-topology': 'volume topology',
  'instance-types': 'instance types',
  'min-values': 'minValues',
};

/** A placement stage in words ("requirements", "resource limits"). */
export function stageText(stage: string | undefined): string {
  return stage ? (STAGE_TEXT[stage] ?? stage) : '';
}
