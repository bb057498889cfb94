// Karpenter beside CA in casdoctor's reports: per Pending pod who serves it and each NodePool's verdict in Karpenter's
// order and words (plus what its event stopped showing in v1.5), per Karpenter node what keeps it, and the JSON of both.
// Every foreign string (names, labels, event texts) goes through safeText.
import { stageText, type KarpenterPodView } from '../checks/lib/karpenter.js';
import type { ResourceMap } from '../model/k8s.js';
import { isByteResource, parseQuantity } from '../model/quantity.js';
import type { KarpenterNodeDisruption } from '../simulate/providers/karpenter/disruption.js';
import type { KarpenterLogged } from '../simulate/providers/karpenter/log-beside.js';
import type { ConsolidationStory } from '../simulate/providers/karpenter/consolidation-story.js';
import type { FunnelStep, PoolPlacement, StuckNodeClaim } from '../simulate/providers/karpenter/placement.js';
import { REGISTRATION_TTL_MS } from '../simulate/providers/karpenter/placement.js';
import { safeText as t } from './sanitize.js';
import { PLAIN, type Style } from './style.js';

const STEP_TEXT: Record<FunnelStep['step'], string> = {
  nodepool: 'allowed by the NodePool',
  limits: 'within remaining limits',
  requirements: "meet the pod's requirements",
  resources: 'have room for pod + DaemonSets',
  offerings: 'offered in an allowed zone × capacity type',
  minValues: 'after minValues',
};

export { stageText };

function ago(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  if (seconds < 90) return `${seconds}s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m ago`;
  return `${Math.round(seconds / 3600)}h ago`;
}

const isoSeconds = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');

/** "Karpenter logged  <line> at <time>" (its source line dim), beside a pod or a node, as "CA logged" is for CA. */
export function loggedLine(l: KarpenterLogged, indent: string, s: Style): string {
  return `${indent}Karpenter logged  ${t(l.text, { max: 1500 })}${s.dim(` at ${isoSeconds(l.time)} (${t(l.where)}:${l.line})`)}`;
}

/** The JSON of a Karpenter log line beside a verdict. */
export function loggedJson(l: KarpenterLogged): Record<string, unknown> {
  return { at: isoSeconds(l.time), kind: l.kind, text: l.text, ...(l.reason ? { reason: l.reason } : {}), ...(l.decision ? { decision: l.decision } : {}), source: l.where, line: l.line };
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 120 ? `${m}m` : `${Math.round(m / 60)}h`;
}

function gib(bytes: number): string {
  const g = bytes / 2 ** 30;
  if (Math.abs(g) < 1) return `${Math.round(bytes / 2 ** 20)}Mi`;
  return `${Number.isInteger(g) ? g : g.toFixed(1)}Gi`;
}

/** "cpu 78, memory 321.3Gi" from a ResourceMap (memory in Gi for a reader). */
export function resourcesText(r: ResourceMap | undefined): string {
  if (!r) return '';
  return Object.keys(r)
    .sort()
    .map((k) => {
      let v: string = String(r[k]);
      try {
        // a reader compares Gi, not 336865072Ki
        if (isByteResource(k)) v = gib(parseQuantity(r[k]));
      } catch {
        /* keep the text as given */
      }
      return `${k} ${v}`;
    })
    .join(', ');
}

function funnelText(funnel: FunnelStep[]): string {
  return funnel.map((f) => `${f.remaining} ${STEP_TEXT[f.step]}`).join(' → ');
}

function lastExamples(funnel: FunnelStep[]): string[] {
  return funnel.at(-1)?.examples ?? [];
}

function verdictWord(p: PoolPlacement, s: Style): string {
  if (p.verdict === 'fits') return p.launchError ? s.yellow('fits, launch fails') : p.chosen ? s.green('fits, chosen') : s.green('fits');
  if (p.verdict === 'not-evaluated') return s.yellow('skipped');
  return s.red('no');
}

/** The words a pre-v1.5 event gave that v1.5+ no longer prints (pool, overhead) plus the remaining limits. */
function lostWords(p: PoolPlacement): string {
  const parts = [`pool ${t(p.nodePool)}`];
  if (Object.keys(p.daemonSetOverhead).length > 0)
    parts.push(`daemonset overhead ${t(resourcesText(p.daemonSetOverhead))}${p.daemonSets.length ? ` (${t(p.daemonSets.map((d) => d.split('/').pop()).join(', '))})` : ''}`);
  if (p.remainingLimits) parts.push(`remaining limits ${t(resourcesText(p.remainingLimits))}`);
  return parts.join('; ');
}

function poolLines(p: PoolPlacement, s: Style): string[] {
  const out: string[] = [];
  const head = `    NodePool ${s.bold(t(p.nodePool))} (weight ${p.weight}): ${verdictWord(p, s)}`;
  if (p.verdict === 'fits') {
    out.push(`${head} — ${t(p.detail)}`);
    if (p.launchError) out.push(s.yellow(`      but the NodeClaim would fail to launch: ${t(p.launchError)}`));
  } else if (p.verdict === 'not-evaluated') {
    out.push(`${head} — ${t(p.detail || stageText(p.stage) || 'not evaluated')}`);
  } else {
    out.push(`${head} at ${s.bold(stageText(p.stage))} — Karpenter: ${t(p.error ?? '', { max: 1500 })}`);
    if (p.detail) out.push(`      ${t(p.detail, { max: 1500 })}`);
  }
  if (p.nodeClass && (!p.nodeClass.found || p.nodeClass.ready === false))
    out.push(s.yellow(`      EC2NodeClass ${t(p.nodeClass.name)} ${p.nodeClass.found ? 'is not Ready' : 'not found'}${p.nodeClass.reason ? `: ${t(p.nodeClass.reason)}` : ''}`));
  if (p.funnel.length > 0) {
    const ex = lastExamples(p.funnel);
    out.push(s.dim(`      instance types: ${funnelText(p.funnel)}${ex.length ? ` (e.g. ${t(ex.slice(0, 3).join(', '))})` : ''}`));
  }
  if (p.verdict === 'rejected') out.push(s.dim(`      v1.5+ no longer says: ${lostWords(p)}`));
  else if (p.verdict === 'fits' && p.zones.length) out.push(s.dim(`      zones ${t(p.zones.join(', '))} · capacity types ${t(p.capacityTypes.join(', ') || '-')}`));
  for (const n of p.notes) out.push(s.dim(`      note: ${t(n)}`));
  return out;
}

function stuckLine(c: StuckNodeClaim, nominated: boolean, s: Style): string {
  const bound = c.boundMs !== undefined ? (c.overdue ? `; past Karpenter's ${minutes(c.boundMs)} ${c.stage} timeout` : `; Karpenter deletes it at ${minutes(c.boundMs)} (${c.stage === 'registration' ? 'registration TTL' : 'launch TTL'}, ${minutes(c.boundMs - c.ageMs)} left)`) : '';
  const what = c.stage === 'registration' ? `launched ${minutes(c.ageMs)} ago, no Node registered` : c.stage === 'launch' ? `not launched after ${minutes(c.ageMs)}` : `registered, not initialized for ${minutes(c.ageMs)}`;
  return s.yellow(`    NodeClaim ${t(c.name)} (NodePool ${t(c.nodePool)})${nominated ? ', which Karpenter nominated for this pod,' : ''} ${what}${bound}${c.providerID ? ` · ${t(c.providerID)}` : ''}`);
}

/** The NodeClaims a pod waits for: the ones Karpenter nominated for it, else the stuck ones of the pool it would use. */
export function podStuckClaims(v: KarpenterPodView): Array<{ claim: StuckNodeClaim; nominated: boolean }> {
  const x = v.explanation;
  const limited = new Set(x.pools.filter((p) => p.stage === 'node-limit' || p.stage === 'resource-limits').map((p) => p.nodePool));
  return x.stuckNodeClaims
    .filter((c) => v.nominatedClaims.includes(c.name) || (x.chosen !== undefined && c.nodePool === x.chosen) || limited.has(c.nodePool))
    .map((claim) => ({ claim, nominated: v.nominatedClaims.includes(claim.name) }));
}

const ROUTE_TEXT: Record<string, string> = {
  ca: 'Cluster Autoscaler serves it',
  karpenter: 'Karpenter serves it',
  both: 'CA and Karpenter may both provision',
  neither: 'neither autoscaler serves it',
  'not-pending': 'not pending',
};

/** One short line on who serves the pod (for summaries). */
export function routeWord(v: KarpenterPodView): string {
  if (v.routing.route === 'ca' && v.explanation.eligibility.silent) return 'CA serves it; Karpenter ignores it (karpenter.sh/nodepool DoesNotExist)';
  // without CA in the cluster, Karpenter is the only autoscaler: no "neither", no "CA ignores it"
  if (!v.routing.caPresent && v.routing.route === 'neither') return 'Karpenter does not serve it';
  return ROUTE_TEXT[v.routing.route] ?? v.routing.route;
}

/** Who may add a node for the pod, in one clause (the per-pool reasons follow on their own lines). */
export function routeDetail(v: KarpenterPodView): string {
  const r = v.routing;
  const groups = r.caGroupsFitting.join(', ');
  const pools = r.nodePoolsFitting.join(', ');
  switch (r.route) {
    case 'both':
      return `CA node group(s) ${groups} and NodePool(s) ${pools} can each take it, so both may add a node for it (one is wasted); give the pod a karpenter.sh/nodepool DoesNotExist affinity, or a selector only one autoscaler's nodes carry`;
    case 'karpenter':
      return `${v.explanation.inFlight ? `no new node: it fits ${v.explanation.inFlight.kind === 'node' ? 'node' : 'NodeClaim'} ${v.explanation.inFlight.name}, which Karpenter already has` : `NodePool ${v.explanation.chosen ?? pools} would launch a node`}${!r.caPresent ? '' : r.caConsiders ? '; no CA node group fits it' : r.caIgnores ? `; CA ignores it: ${r.caIgnores}` : ''}`;
    case 'ca':
      return `CA node group(s) ${groups}${r.karpenterIgnores ? '' : '; no NodePool fits it'}`;
    case 'neither':
      if (!r.caPresent) return r.karpenterIgnores ? `Karpenter ignores it (${r.karpenterIgnores.text}), and no Cluster Autoscaler runs` : 'no NodePool fits it';
      return `${r.karpenterIgnores ? `Karpenter ignores it (${r.karpenterIgnores.text})` : 'no NodePool fits it'} and ${r.caConsiders ? 'no CA node group fits it' : `CA ignores it${r.caIgnores ? ` (${r.caIgnores})` : ''}`}`;
    default:
      return '';
  }
}

/** why-pending: the Karpenter section of one Pending pod, after CA's node-group table. */
export function renderKarpenterPodSection(v: KarpenterPodView, s: Style = PLAIN, opts: { version?: string } = {}): string[] {
  const x = v.explanation;
  const r = v.routing;
  const out: string[] = [];
  const mark = r.route === 'neither' ? s.red('✖') : r.route === 'both' ? s.yellow('▲') : s.green('✔');
  out.push(`  ${s.bold('Karpenter')}${opts.version ? s.dim(` ${t(opts.version)}`) : ''}  ${mark} ${s.bold(routeWord(v))}${routeDetail(v) ? `: ${t(routeDetail(v))}` : ''}`);
  if (!x.eligibility.provisionable) {
    out.push(`    Karpenter ${x.eligibility.silent ? 'ignores the pod without an event' : 'does not provision for it'}: ${t(x.eligibility.reason ?? '')}`);
    if (x.eligibility.event) out.push(`    Karpenter's event: ${t(x.eligibility.event, { max: 2000 })}`);
  }
  if (v.said)
    out.push(`  Karpenter said  ${t(v.said.reason)}${v.said.ageSeconds !== undefined ? ` ${ago(v.said.ageSeconds)}` : ''}${v.said.count && v.said.count > 1 ? ` (×${v.said.count})` : ''}: ${t(v.said.message, { max: 3000 })}`);
  else if (x.eligibility.provisionable && x.event) out.push(s.dim('  Karpenter said  nothing (no FailedScheduling event from karpenter on the pod)'));
  if (v.logged) out.push(loggedLine(v.logged, '  ', s));
  if (v.nominated)
    out.push(`  Karpenter said  Nominated${v.nominated.ageSeconds !== undefined ? ` ${ago(v.nominated.ageSeconds)}` : ''}: ${t(v.nominated.message, { max: 1000 })}`);
  if (x.eligibility.provisionable) {
    if (x.event && x.event !== v.said?.message) out.push(s.dim(`  casdoctor: Karpenter would say: ${t(x.event, { max: 3000 })}`));
    if (x.legacyEvent && x.legacyEvent !== x.event) out.push(s.dim(`  before v1.5 the same event read: ${t(x.legacyEvent, { max: 3000 })}`));
    for (const p of x.pools) out.push(...poolLines(p, s));
  }
  for (const { claim, nominated } of podStuckClaims(v)) out.push(stuckLine(claim, nominated, s));
  for (const n of x.notes) out.push(s.dim(`    note: ${t(n)}`));
  return out;
}

/** why-pending -o json: the `karpenter` object of one pod. */
export function karpenterPodJson(v: KarpenterPodView): Record<string, unknown> {
  const x = v.explanation;
  const r = v.routing;
  return {
    route: r.route,
    message: r.message,
    considers: r.karpenterConsiders,
    ...(r.karpenterIgnores ? { ignored: { reason: r.karpenterIgnores.id, text: r.karpenterIgnores.text, emitsEvent: r.karpenterIgnores.emitsEvent } } : {}),
    caGroupsFitting: r.caGroupsFitting,
    nodePoolsFitting: r.nodePoolsFitting,
    outcome: x.outcome,
    ...(x.notEvaluated ? { notEvaluated: x.notEvaluated } : {}),
    ...(x.inFlight ? { inFlight: x.inFlight } : {}),
    ...(x.chosen ? { chosen: x.chosen } : {}),
    ...(x.event ? { event: x.event } : {}),
    ...(x.legacyEvent ? { legacyEvent: x.legacyEvent } : {}),
    ...(v.said ? { said: v.said } : {}),
    ...(v.nominated ? { nominated: { ...v.nominated, nodeClaims: v.nominatedClaims } } : {}),
    ...(v.logged ? { logged: loggedJson(v.logged) } : {}),
    nodePools: x.pools.map((p) => ({
      name: p.nodePool,
      weight: p.weight,
      verdict: p.verdict,
      chosen: p.chosen,
      ...(p.stage ? { stage: p.stage } : {}),
      ...(p.error ? { error: p.error } : {}),
      ...(p.legacyError ? { legacyError: p.legacyError } : {}),
      ...(p.launchError ? { launchError: p.launchError } : {}),
      detail: p.detail,
      ...(p.nodeClass ? { nodeClass: p.nodeClass } : {}),
      daemonSets: p.daemonSets,
      daemonSetOverhead: p.daemonSetOverhead,
      ...(p.remainingLimits ? { remainingLimits: p.remainingLimits } : {}),
      capacityTypes: p.capacityTypes,
      zones: p.zones,
      funnel: p.funnel,
      notes: p.notes,
    })),
    stuckNodeClaims: podStuckClaims(v).map(({ claim, nominated }) => ({ ...claim, nominated, registrationTtlMs: REGISTRATION_TTL_MS })),
    notes: x.notes,
  };
}

// ------------------------------------------------------------------------------------------------ disruption

function methodLine(d: KarpenterNodeDisruption): string {
  return d.methods
    .filter((m) => m.applicable || m.method === 'expiration')
    .map((m) => `${m.method} ${m.possible ? 'possible' : `blocked (${m.blockedBy.join(', ')})`}${m.at ? ` at ${m.at}` : ''}`)
    .join(' · ');
}

/** Whether Karpenter would leave the node in place now (no graceful method is possible). */
export function karpenterKeeps(d: KarpenterNodeDisruption): boolean {
  return !d.methods.some((m) => m.method !== 'expiration' && m.applicable && m.possible);
}

/** scale-down-blockers: the Karpenter nodes, each with what keeps it in Karpenter's words and the fix. */
export function renderKarpenterDisruptionSection(
  list: KarpenterNodeDisruption[],
  s: Style = PLAIN,
  opts: {
    now?: string;
    caAbsent?: boolean;
    logged?: (d: KarpenterNodeDisruption) => KarpenterLogged | undefined;
    story?: (d: KarpenterNodeDisruption) => ConsolidationStory | undefined;
  } = {},
): string[] {
  if (list.length === 0) return [];
  const out: string[] = [];
  out.push(s.bold(`Karpenter nodes (Karpenter decides whether they go${opts.caAbsent ? '' : '; CA ignores them by design'})${opts.now ? s.dim(` · budgets at ${t(opts.now)}`) : ''}`));
  for (const d of list) {
    const name = d.node ?? `NodeClaim ${d.nodeClaim ?? ''}`;
    const keeps = karpenterKeeps(d);
    out.push(`  ${keeps ? s.red('kept') : s.green('may go')}  ${s.bold(t(name))}${d.nodePool ? ` (NodePool ${t(d.nodePool)}${d.nodeClaim && d.node ? `, NodeClaim ${t(d.nodeClaim)}` : ''})` : ''}${d.empty ? ' · empty' : ''}`);
    const logged = opts.logged?.(d);
    if (logged) out.push(loggedLine(logged, '    ', s));
    if (d.blockers.length === 0) out.push(s.dim('      no blocker: Karpenter may disrupt it when consolidation finds a cheaper arrangement'));
    for (const b of d.blockers) {
      const words = b.karpenterText ? `Karpenter: ${t(b.karpenterText, { max: 1000 })}` : t(b.id);
      out.push(`    · ${words}${b.partial ? s.dim(' (limits, does not forbid)') : ''}${b.certainty === 'inferred' ? s.dim(' (inferred)') : ''}`);
      out.push(`        ${t(b.explanation, { max: 1500 })}`);
      if (b.event) out.push(s.dim(`        event on the ${b.event.on}: ${b.event.reason} "${t(b.event.message, { max: 1000 })}"`));
      out.push(`        fix: ${t(b.fix, { max: 1500 })}`);
    }
    const m = methodLine(d);
    if (m) out.push(s.dim(`      ${t(m)}`));
    const story = opts.story?.(d);
    if (story) out.push(...storyLines(story, s));
    for (const n of d.notes) out.push(s.dim(`      note: ${t(n)}`));
  }
  return out;
}

/** Why not consolidated: the condition, the policy, Karpenter's order of methods, what its search leaves open, its events. */
function storyLines(st: ConsolidationStory, s: Style): string[] {
  const out: string[] = [];
  const cond = st.consolidatable.status === 'absent' ? 'Consolidatable not set' : `Consolidatable=${t(st.consolidatable.status)}${st.consolidatable.since ? ` since ${t(st.consolidatable.since)}` : ''}`;
  out.push(s.dim(`      consolidation: ${cond} · ${t(st.policy)}, consolidateAfter ${t(st.consolidateAfter)}`));
  out.push(s.dim(`      Karpenter's order: ${st.steps.filter((x) => x.method !== 'expiration').map((x) => `${x.method} ${x.verdict}`).join(' → ')}`));
  for (const x of st.steps) if (x.verdict === 'may-decide-either') out.push(s.dim(`        ${x.method}: Karpenter may decide either: ${t(x.why, { max: 1500 })}`));
  for (const e of st.said) out.push(`      Karpenter said  ${t(e.reason)}${e.at ? s.dim(` at ${t(e.at)}`) : ''}: ${t(e.message, { max: 1500 })}`);
  return out;
}

/** scale-down-blockers -o json: one Karpenter node. */
export function karpenterNodeJson(d: KarpenterNodeDisruption, logged?: KarpenterLogged, story?: ConsolidationStory): Record<string, unknown> {
  return { ...d, kept: karpenterKeeps(d), ...(logged ? { logged: loggedJson(logged) } : {}), ...(story ? { consolidation: story } : {}) };
}

/** why-pending -o json: each pod entry (not the `sameAs` ones) with its `karpenter` object; entries come in report order. */
export function withKarpenterEntries<T extends object>(
  entries: Iterable<T>,
  views: ReadonlyArray<KarpenterPodView | undefined>,
): Iterable<T | (T & { karpenter: Record<string, unknown> })> {
  // without Karpenter the entries pass through untouched (the CA-only document stays byte for byte the same)
  if (views.every((v) => v === undefined)) return entries;
  return {
    *[Symbol.iterator]() {
      let i = 0;
      for (const e of entries) {
        const v = views[i++];
        yield v && !('sameAs' in e) ? { ...e, karpenter: karpenterPodJson(v) } : e;
      }
    },
  };
}
