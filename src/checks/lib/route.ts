// Routing as a first-class fact: for each pod that waits for a node, who serves it (CA, Karpenter, both, neither, or not
// known) and the verdict that follows, computed once per Analysis. The headline, the counts, the JSON verdict, the
// findings (engine.ts gives a check only the pods of its autoscaler) and the exit code all read it from here.
import type { Pod } from '../../model/k8s.js';
import type { AutoscalerKey, AutoscalerVerdict, PodRoute } from '../../model/why-pending.js';
import type { Analysis } from '../../simulate/analysis.js';
import { karpenterOf } from '../../simulate/providers/karpenter/inputs.js';
import type { PlacementStage } from '../../simulate/providers/karpenter/placement.js';
import { decidePodRoute, requiresKarpenterNode, type RouteDecision } from '../../simulate/providers/karpenter/routing.js';
import { analyzePod, type PodAnalysis } from '../../simulate/why-pending.js';
import { formatDurationShort } from '../../model/duration.js';
import { karpenterPodView, stageText, type KarpenterPodView } from './karpenter.js';

/** Which autoscalers run in the cluster, as far as the input tells. */
export interface AutoscalersInInput {
  ca: boolean;
  karpenter: boolean;
}

/**
 * Without Karpenter in the input CA is taken as present, found or not (its defaults, as casdoctor always did); beside
 * Karpenter, CA runs when its Deployment was found.
 */
export function autoscalersInInput(a: Analysis): AutoscalersInInput {
  const karpenter = karpenterOf(a).present;
  return { ca: !karpenter || a.ca.found, karpenter };
}

/**
 * A Karpenter cluster without Cluster Autoscaler: Karpenter in the input and no trace of CA running — no CA Deployment,
 * no --ca-args (CA outside the cluster), no fresh status ConfigMap (CA in a namespace the dump left out). Its Auto
 * Scaling groups, if any, are then no CA node groups: nothing autoscales them. CA's checks are not part of its reports:
 * nothing to install, no ASGs to ask for, no flags to add.
 */
export function isKarpenterOnly(a: Analysis): boolean {
  if (!karpenterOf(a).present || a.ca.found) return false;
  if (Object.values(a.ca.flags).some((f) => f.origin === 'override')) return false;
  const status = a.caStatus;
  return !(status && !status.stale && !status.unreadable);
}

// pools Karpenter drops before scheduling: a decided "no", not a "could not evaluate"
const SKIPPED_POOL_STAGES = new Set<PlacementStage | undefined>(['unmanaged-nodeclass', 'static-nodepool', 'deleting', 'nodepool-not-ready', 'no-instance-types']);

/** Karpenter's own verdict on a Pending pod, in the shared vocabulary. */
export function karpenterVerdict(a: Analysis, v: KarpenterPodView): AutoscalerVerdict {
  const x = v.explanation;
  const r = v.routing;
  if (r.karpenterIgnores) return { verdict: 'ignored', summary: `Karpenter ignores it: ${r.karpenterIgnores.text}` };
  if (!x.eligibility.provisionable) return { verdict: 'ignored', summary: `Karpenter does not provision for it: ${x.eligibility.reason ?? 'not provisionable'}` };
  // the scheduling pass decided: capacity Karpenter already has or brings takes it, or its verdict hangs on what is not modelled
  if (x.outcome === 'in-flight' && x.inFlight && v.nominatedClaims.length === 0) {
    return { verdict: 'scale-up', summary: `Karpenter launches no new node for it: it fits ${x.inFlight.kind === 'node' ? 'node' : 'NodeClaim'} ${x.inFlight.name}. ${x.inFlight.why}` };
  }
  if (x.outcome === 'not-evaluated') return { verdict: 'not-evaluated', summary: `whether Karpenter provisions is not known: ${x.notEvaluated ?? 'not evaluated'}` };
  const fitting = x.pools.filter((p) => p.verdict === 'fits' && !p.launchError);
  if (fitting.length > 0) {
    const claim = x.stuckNodeClaims.find((c) => v.nominatedClaims.includes(c.name));
    if (claim) {
      const left = claim.boundMs !== undefined ? (claim.overdue ? `, past its ${formatDurationShort(claim.boundMs)} ${claim.stage} timeout` : `: Karpenter deletes it in ${formatDurationShort(claim.boundMs - claim.ageMs)} and launches another`) : '';
      const state = claim.stage === 'registration' ? 'no Node registered' : claim.stage === 'launch' ? 'not launched' : 'not initialized';
      return { verdict: 'scale-up', summary: `Karpenter nominated it to NodeClaim ${claim.name} (NodePool ${claim.nodePool}), ${state} after ${formatDurationShort(claim.ageMs)}${left}` };
    }
    if (v.nominatedClaims.length > 0) return { verdict: 'scale-up', summary: `Karpenter nominated it to NodeClaim ${v.nominatedClaims.join(', ')}` };
    const pool = fitting.find((p) => p.chosen) ?? fitting[0];
    const examples = pool.funnel.at(-1)?.examples ?? [];
    return { verdict: 'scale-up', summary: `Karpenter launches a node in NodePool ${pool.nodePool}${examples.length ? ` (e.g. ${examples.slice(0, 3).join(', ')})` : ''}` };
  }
  const unknown = x.pools.filter((p) => p.verdict === 'not-evaluated' && !SKIPPED_POOL_STAGES.has(p.stage));
  const why = x.pools.map((p) =>
    p.verdict === 'fits' ? `${p.nodePool}: its NodeClaim cannot launch` : `${p.nodePool}: ${p.verdict === 'not-evaluated' ? `${unknown.includes(p) ? 'not evaluated' : 'skipped'} (${stageText(p.stage)})` : stageText(p.stage)}`,
  );
  if (unknown.length > 0) return { verdict: 'not-evaluated', summary: `whether Karpenter provisions is not known: ${why.join('; ')}` };
  return { verdict: 'no-scale-up', summary: x.pools.length ? `no NodePool fits it: ${why.join('; ')}` : 'Karpenter has no NodePool' };
}

/** CA's own verdict on a pod, from the analysis (the verdict casdoctor always gave). */
function caVerdict(p: PodAnalysis): AutoscalerVerdict {
  return { verdict: p.report.verdict, summary: p.report.summary };
}

export interface PodRouteFact extends RouteDecision {
  /** Each autoscaler in the input with its own verdict. */
  autoscalers: Partial<Record<AutoscalerKey, AutoscalerVerdict>>;
}

const facts = new WeakMap<Analysis, Map<Pod, PodRouteFact | undefined>>();

/** Whether a pod waits for a node (a route applies): not finished or scheduled, and no existing node takes it. */
export function waitsForNode(p: PodAnalysis): boolean {
  return p.report.verdict !== 'not-pending' && p.report.verdict !== 'fits-existing-node';
}

/** The route of a pod that waits for a node, once per Analysis; undefined for a pod that needs none. */
export function podRoute(a: Analysis, p: PodAnalysis): PodRouteFact | undefined {
  let m = facts.get(a);
  if (!m) facts.set(a, (m = new Map()));
  if (m.has(p.pod)) return m.get(p.pod);
  let fact: PodRouteFact | undefined;
  if (waitsForNode(p)) {
    const present = autoscalersInInput(a);
    const autoscalers: PodRouteFact['autoscalers'] = {};
    if (present.ca) autoscalers.ca = caVerdict(p);
    if (present.karpenter) autoscalers.karpenter = karpenterVerdict(a, karpenterPodView(a, p));
    const meantFor = present.karpenter && requiresKarpenterNode(p.pod) ? 'karpenter' : undefined;
    fact = { ...decidePodRoute({ ...autoscalers, ...(meantFor ? { meantFor } : {}) }), autoscalers };
  }
  m.set(p.pod, fact);
  return fact;
}

/** The autoscalers whose findings are about a pod: its route's, or every one in the input for a pod that needs no node. */
export function podAudience(a: Analysis, pod: Pod): readonly AutoscalerKey[] {
  const fact = podRoute(a, analyzePod(a, pod));
  if (fact) return fact.audience;
  const present = autoscalersInInput(a);
  return (['ca', 'karpenter'] as const).filter((k) => present[k]);
}

/** Whether a check about `autoscaler` (or about pods of the given routes) is about this pod. */
export function checkIsAboutPod(a: Analysis, pod: Pod, autoscaler: AutoscalerKey, routes?: readonly PodRoute[]): boolean {
  if (routes) {
    const fact = podRoute(a, analyzePod(a, pod));
    return fact !== undefined && routes.includes(fact.route);
  }
  return podAudience(a, pod).includes(autoscaler);
}

/** What a Karpenter-only cluster has instead of CA, in a parenthesis: no Deployment, and the groups nothing resizes. */
function noCaParenthesis(a: Analysis, names: boolean): string {
  const groups = a.nodeGroups.map((g) => g.name).sort();
  if (groups.length === 0) return 'no CA Deployment, no node group';
  const list = names ? `: ${groups.slice(0, 5).join(', ')}${groups.length > 5 ? `, and ${groups.length - 5} more` : ''}` : '';
  return `no CA Deployment; ${groups.length} ${a.provider.words.groupsCounted ?? 'node group(s)'} that no autoscaler resizes${list}`;
}

/** A report header's first fact on a Karpenter-only cluster: Karpenter and its version, instead of CA's defaults. */
export function karpenterHeaderText(a: Analysis): string {
  const version = karpenterOf(a).settings?.version;
  return `Karpenter${version ? ` ${version}` : ''} · no Cluster Autoscaler in the input (${noCaParenthesis(a, false)})`;
}

/** The overview's Cluster Autoscaler line on a Karpenter-only cluster. */
export function noCaOverviewLine(a: Analysis): string {
  return `none in the input (${noCaParenthesis(a, true)}): Karpenter alone adds nodes`;
}
