// Karpenter's topology as its scheduler keeps it (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/
// topology.go, topologygroup.go, topologydomaingroup.go, topologynodefilter.go): one group per topology spread
// constraint and pod (anti-)affinity term, its domains (from the NodePools' requirements and instance types, and from
// existing nodes), the pods counted in each, and the requirement a NodeClaim gets from them. Pure.
import type { LabelSelector, Node, Pod, PodAffinityTerm, Taint, Toleration, TopologySpreadConstraint } from '../../../model/k8s.js';
import { compileLabelSelector } from '../../predicates/labels.js';
import { podKey } from '../../predicates/status.js';
import { UNMODELLED_INSTANCE_LABELS } from './instance-types.js';
import type { KarpenterPlacementContext } from './placement-types.js';
import {
  type KRequirement,
  type KRequirements,
  addRequirement,
  compatible,
  copyRequirements,
  labelRequirements,
  newRequirement,
  operatorOf,
  requirementHas,
  requirementString,
  requirementsFrom,
} from './requirements.js';
import { untoleratedTaints } from './util.js';
import { karpenterHas } from './versions.js';

export type TopologyType = 'topology spread' | 'pod affinity' | 'pod anti-affinity';

const HOSTNAME = 'kubernetes.io/hostname';
const MAX_INT32 = 2147483647;

/** A NodePool that provides a domain: its requirements (v1.11 filters domains by them) and its taints. */
interface DomainSource {
  reqs: KRequirements;
  taints: Taint[];
}

/** topologynodefilter.go TopologyNodeFilter: which nodes a spread constraint counts (nodeAffinityPolicy, nodeTaintsPolicy). */
interface NodeFilter {
  requirements: KRequirements[];
  taintPolicy: string;
  affinityPolicy: string;
  tolerations: Toleration[];
}

export interface TopologyGroup {
  type: TopologyType;
  key: string;
  maxSkew: number;
  minDomains?: number;
  namespaces: Set<string>;
  selector: LabelSelector | undefined;
  filter?: NodeFilter;
  domains: Map<string, number>;
  empty: Set<string>;
  owners: Set<string>;
}

export interface Topology {
  groups: Map<string, TopologyGroup>;
  inverse: Map<string, TopologyGroup>;
  domainGroups: Map<string, Map<string, DomainSource[]>>;
  ctx: KarpenterPlacementContext;
  nodes: Map<string, Node>;
  /** The pass' pending pods (podKey): not counted (topology.go NewTopology excludedPods). */
  excluded: Set<string>;
  /** NodeClaims created so far (nodeclaim.go NewNodeClaim's hostname-placeholder-%04d counter). */
  hostnames: number;
}

/** The requirement a topology puts on a NodeClaim; `choices` when Karpenter picks one of several domains at random. */
export interface TopologyAnswer {
  reqs?: KRequirements;
  error?: string;
  /** key → the domains Karpenter picks from at random (Go map order, topologygroup.go nextDomainTopologySpread). */
  choices?: Map<string, string[]>;
}

// ------------------------------------------------------------------------------------------------ node filter

function nodeFilterFor(pod: Pod, taintPolicy: string, affinityPolicy: string): NodeFilter {
  const sel = labelRequirements(pod.spec.nodeSelector);
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const requirements = !terms
    ? [sel]
    : terms.map((t) => {
        const r = copyRequirements(sel);
        for (const x of requirementsFrom(t.matchExpressions ?? []).values()) addRequirement(r, x);
        return r;
      });
  return { requirements, taintPolicy, affinityPolicy, tolerations: pod.spec.tolerations ?? [] };
}

/** topologynodefilter.go Matches; strict (existing nodes) or allowing undefined well-known labels (NodeClaims). */
function filterMatches(f: NodeFilter | undefined, taints: Taint[], reqs: KRequirements, strict: boolean): boolean {
  if (!f) return true;
  if (f.affinityPolicy === 'Honor' && f.requirements.length > 0) {
    if (!f.requirements.some((r) => compatible(reqs, r, strict ? new Set() : undefined) === undefined)) return false;
  }
  if (f.taintPolicy === 'Honor' && untoleratedTaints(taints, f.tolerations, false).length > 0) return false;
  return true;
}

// ------------------------------------------------------------------------------------------------ domains

/** topology.go buildDomainGroups: per key, the domains the NodePools' requirements and instance types allow. */
function buildDomainGroups(pools: ReadonlyArray<{ reqs: KRequirements; poolReqs: KRequirements; taints: Taint[]; typeReqs: KRequirements[] }>): Map<string, Map<string, DomainSource[]>> {
  const out = new Map<string, Map<string, DomainSource[]>>();
  const insert = (key: string, domain: string, src: DomainSource): void => {
    let g = out.get(key);
    if (!g) out.set(key, (g = new Map()));
    const list = g.get(domain) ?? [];
    list.push(src);
    g.set(domain, list);
  };
  for (const p of pools) {
    const src = { reqs: p.poolReqs, taints: p.taints };
    for (const itReqs of p.typeReqs) {
      const reqs = copyRequirements(p.reqs);
      for (const r of itReqs.values()) addRequirement(reqs, r);
      for (const [key, r] of reqs) if (!r.complement) for (const v of r.values) insert(key, v, src);
    }
    for (const [key, r] of p.poolReqs) if (operatorOf(r) === 'In') for (const v of r.values) insert(key, v, src);
  }
  return out;
}

/** topologydomaingroup.go ForEachDomain: the domains a pod may count, by its tolerations (and, v1.11 only, its requirements). */
function domainsFor(t: Topology, key: string, pod: Pod, filter: NodeFilter | undefined): string[] {
  const group = t.domainGroups.get(key);
  if (!group) return [];
  const taintPolicy = filter?.taintPolicy ?? '';
  const affinityPolicy = filter?.affinityPolicy ?? '';
  const byPool = karpenterHas(t.ctx.settings?.version, 'topology-domains-by-nodepool');
  const out: string[] = [];
  for (const [domain, sources] of group) {
    const ok = sources.some((s) => {
      if (byPool && affinityPolicy === 'Honor' && filter && filter.requirements.length > 0 && !filter.requirements.some((r) => compatible(s.reqs, r) === undefined)) return false;
      return taintPolicy === 'Ignore' || untoleratedTaints(s.taints, pod.spec.tolerations, false).length === 0;
    });
    if (ok) out.push(domain);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ groups

const compiled = new WeakMap<TopologyGroup, ReturnType<typeof compileLabelSelector>>();

/** topologygroup.go selects: the pod's namespace is the group's and its labels match (a missing selector matches nothing). */
function selects(g: TopologyGroup, pod: Pod): boolean {
  if (!g.namespaces.has(pod.metadata.namespace ?? 'default')) return false;
  let c = compiled.get(g);
  if (!c) compiled.set(g, (c = compileLabelSelector(g.selector)));
  return c.matches(pod.metadata.labels);
}

function record(g: TopologyGroup, ...domains: string[]): void {
  for (const d of domains) {
    g.domains.set(d, (g.domains.get(d) ?? 0) + 1);
    g.empty.delete(d);
  }
}

function newGroup(t: Topology, type: TopologyType, key: string, pod: Pod, namespaces: Set<string>, selector: LabelSelector | undefined, maxSkew: number, tsc?: TopologySpreadConstraint): TopologyGroup {
  // topologygroup.go NewTopologyGroup: only spread constraints filter nodes (taints Ignore, affinity Honor by default)
  const filter = type === 'topology spread' ? nodeFilterFor(pod, tsc?.nodeTaintsPolicy ?? 'Ignore', tsc?.nodeAffinityPolicy ?? 'Honor') : undefined;
  const g: TopologyGroup = { type, key, maxSkew, namespaces, selector, domains: new Map(), empty: new Set(), owners: new Set(), ...(filter ? { filter } : {}), ...(tsc?.minDomains !== undefined ? { minDomains: tsc.minDomains } : {}) };
  for (const d of domainsFor(t, key, pod, filter)) {
    g.domains.set(d, 0);
    g.empty.add(d);
  }
  return g;
}

/** topologygroup.go Hash: key, type, namespaces, selector, maxSkew and node filter (minDomains is not part of it). */
function hashOf(g: TopologyGroup): string {
  const f = g.filter ? { r: g.filter.requirements.map((r) => [...r.values()].map(requirementString).sort()), t: g.filter.taintPolicy, a: g.filter.affinityPolicy, tol: g.filter.tolerations } : null;
  return JSON.stringify([g.key, g.type, [...g.namespaces].sort(), g.selector ?? null, g.maxSkew, f]);
}

function ignoredForTopology(p: Pod): boolean {
  return !p.spec.nodeName || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' || !!p.metadata.deletionTimestamp;
}

/** topology.go countDomains: domains of existing nodes, then the scheduled pods the group selects, by their node's domain. */
function countDomains(t: Topology, g: TopologyGroup, excluded: ReadonlySet<string>): void {
  for (const n of t.ctx.nodes) {
    if (!filterMatches(g.filter, n.spec?.taints ?? [], labelRequirements(n.metadata.labels), true)) continue;
    const d = n.metadata.labels?.[g.key];
    if (d === undefined || g.domains.has(d)) continue;
    g.domains.set(d, 0);
    g.empty.add(d);
  }
  // TopologyListOptions: a missing selector lists every pod of the namespace (selects() matches none: labels.Nothing)
  const list = g.selector ? compileLabelSelector(g.selector) : { matches: () => true };
  for (const p of t.ctx.pods ?? []) {
    if (ignoredForTopology(p) || excluded.has(podKey(p))) continue;
    if (!g.namespaces.has(p.metadata.namespace ?? 'default') || !list.matches(p.metadata.labels)) continue;
    const node = t.nodes.get(p.spec.nodeName ?? '');
    if (!node) continue;
    let d = node.metadata.labels?.[g.key];
    if (d === undefined && g.key === HOSTNAME) d = node.metadata.name ?? '';
    if (d === undefined) continue;
    if (!filterMatches(g.filter, node.spec?.taints ?? [], labelRequirements(node.metadata.labels), true)) continue;
    record(g, d);
  }
}

type PreferredPodTerm = { weight?: number; podAffinityTerm?: PodAffinityTerm };

function affinityTerms(pod: Pod, respect: boolean): Array<{ type: TopologyType; term: PodAffinityTerm }> {
  const out: Array<{ type: TopologyType; term: PodAffinityTerm }> = [];
  const a = pod.spec.affinity;
  for (const [type, part] of [['pod affinity', a?.podAffinity], ['pod anti-affinity', a?.podAntiAffinity]] as const) {
    for (const term of part?.requiredDuringSchedulingIgnoredDuringExecution ?? []) out.push({ type, term });
    if (respect) for (const w of (part?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredPodTerm[]) if (w.podAffinityTerm) out.push({ type, term: w.podAffinityTerm });
  }
  return out;
}

function termNamespaces(pod: Pod, term: PodAffinityTerm): Set<string> {
  return term.namespaces && term.namespaces.length > 0 ? new Set(term.namespaces) : new Set([pod.metadata.namespace ?? 'default']);
}

/** What of the pod's topology casdoctor cannot reproduce (the verdict is then not evaluated). */
export function unmodelledTopology(pod: Pod, ctx: KarpenterPlacementContext): string[] {
  const out: string[] = [];
  const respect = ctx.settings?.preferencePolicy !== 'Ignore';
  const keys = [...(pod.spec.topologySpreadConstraints ?? []).map((c) => c.topologyKey), ...affinityTerms(pod, respect).map((x) => x.term.topologyKey)];
  const bad = [...new Set(keys.filter((k) => UNMODELLED_INSTANCE_LABELS.has(k)))];
  if (bad.length > 0) out.push(`topology on ${bad.join(', ')}, an instance-type label casdoctor cannot fill offline`);
  if (affinityTerms(pod, respect).some((x) => x.term.namespaceSelector)) out.push('a pod (anti-)affinity term with a namespaceSelector (the snapshot has no Namespace objects to select)');
  for (const h of ctx.pods ?? []) {
    if (ignoredForTopology(h) || h === pod) continue;
    for (const term of h.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
      if (term.namespaceSelector && compileLabelSelector(term.labelSelector).matches(pod.metadata.labels)) {
        out.push(`the required anti-affinity of running pod ${podKey(h)}, whose namespaceSelector casdoctor cannot resolve (no Namespace objects)`);
        return out;
      }
    }
  }
  return out;
}

/** topology.go Update: the pod (as relaxed so far) owns one group per spread constraint and (anti-)affinity term. */
export function updateTopology(t: Topology, pod: Pod, owner: string): void {
  const excluded = t.excluded;
  for (const g of t.groups.values()) g.owners.delete(owner);
  const respect = t.ctx.settings?.preferencePolicy !== 'Ignore';
  // the pod's own anti-affinity also restricts the pods it selects (inverse groups, owned by it)
  for (const term of pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) addInverse(t, pod, term, undefined, owner);
  const fresh: TopologyGroup[] = [];
  for (const tsc of pod.spec.topologySpreadConstraints ?? []) {
    if (!respect && tsc.whenUnsatisfiable !== 'DoNotSchedule') continue;
    const extra = (tsc.matchLabelKeys ?? []).filter((k) => pod.metadata.labels?.[k] !== undefined).map((k) => ({ key: k, operator: 'In', values: [pod.metadata.labels?.[k] as string] }));
    const selector = tsc.labelSelector && extra.length > 0 ? { ...tsc.labelSelector, matchExpressions: [...(tsc.labelSelector.matchExpressions ?? []), ...extra] } : tsc.labelSelector;
    fresh.push(newGroup(t, 'topology spread', tsc.topologyKey, pod, new Set([pod.metadata.namespace ?? 'default']), selector, tsc.maxSkew, tsc));
  }
  for (const { type, term } of affinityTerms(pod, respect)) fresh.push(newGroup(t, type, term.topologyKey, pod, termNamespaces(pod, term), term.labelSelector, MAX_INT32));
  for (const g of fresh) {
    const h = hashOf(g);
    let tg = t.groups.get(h);
    if (!tg) {
      countDomains(t, g, excluded);
      t.groups.set(h, (tg = g));
    }
    tg.owners.add(owner);
  }
}

function addInverse(t: Topology, holder: Pod, term: PodAffinityTerm, nodeLabels: Record<string, string> | undefined, owner: string): void {
  const g = newGroup(t, 'pod anti-affinity', term.topologyKey, holder, termNamespaces(holder, term), term.labelSelector, MAX_INT32);
  const h = hashOf(g);
  let tg = t.inverse.get(h);
  if (!tg) t.inverse.set(h, (tg = g));
  const d = nodeLabels?.[tg.key];
  if (d !== undefined) record(tg, d);
  tg.owners.add(owner);
}

/** topology.go NewTopology for the pods of one pass (`pending`, excluded from the counts). */
export function newTopology(
  ctx: KarpenterPlacementContext,
  pools: ReadonlyArray<{ reqs: KRequirements; poolReqs: KRequirements; taints: Taint[]; typeReqs: KRequirements[] }>,
  pending: readonly Pod[],
): Topology {
  const excluded = new Set(pending.map(podKey));
  const t: Topology = { groups: new Map(), inverse: new Map(), domainGroups: buildDomainGroups(pools), ctx, nodes: new Map(ctx.nodes.map((n) => [n.metadata.name ?? '', n])), excluded, hostnames: 0 };
  // topology.go updateInverseAffinities: every scheduled pod with required anti-affinity, at its node's domain
  for (const p of ctx.pods ?? []) {
    if (ignoredForTopology(p) || excluded.has(podKey(p))) continue;
    const node = t.nodes.get(p.spec.nodeName ?? '');
    if (!node) continue;
    for (const term of p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) addInverse(t, p, term, node.metadata.labels, podKey(p));
  }
  for (const p of pending) updateTopology(t, p, podKey(p));
  return t;
}

// ------------------------------------------------------------------------------------------------ next domain

function has(r: KRequirement, d: string): boolean {
  return requirementHas(r, d);
}

function minCount(g: TopologyGroup, podDomains: KRequirement): number {
  if (g.key === HOSTNAME) return 0;
  let min = MAX_INT32;
  let supported = 0;
  for (const [d, c] of g.domains) {
    if (!has(podDomains, d)) continue;
    supported++;
    if (c < min) min = c;
  }
  if (g.minDomains !== undefined && supported < g.minDomains) min = 0;
  return min;
}

/** topologygroup.go nextDomainTopologySpread: the domains with the fewest pods within maxSkew (Karpenter takes one at random). */
function nextSpread(g: TopologyGroup, pod: Pod, podDomains: KRequirement, nodeDomains: KRequirement): string[] {
  const self = selects(g, pod);
  if (g.key === HOSTNAME && operatorOf(nodeDomains) === 'In' && nodeDomains.values.size === 1) {
    const host = [...nodeDomains.values][0];
    return (g.domains.get(host) ?? 0) + (self ? 1 : 0) <= g.maxSkew ? [host] : [];
  }
  const min = minCount(g, podDomains);
  let best = MAX_INT32;
  let out: string[] = [];
  const candidates = operatorOf(nodeDomains) === 'In' ? [...nodeDomains.values].filter((d) => g.domains.has(d)) : [...g.domains.keys()].filter((d) => has(nodeDomains, d));
  for (const d of candidates) {
    const c = (g.domains.get(d) ?? 0) + (self ? 1 : 0);
    if (c - min > g.maxSkew) continue;
    if (c < best) {
      best = c;
      out = [d];
    } else if (c === best) out.push(d);
  }
  return out.sort();
}

function anyCompatiblePodDomain(g: TopologyGroup, podDomains: KRequirement): boolean {
  return [...g.domains].some(([d, c]) => has(podDomains, d) && c > 0);
}

/** topologygroup.go nextDomainAffinity: domains holding a selected pod; a self-selecting first pod bootstraps any domain. */
function nextAffinity(g: TopologyGroup, pod: Pod, podDomains: KRequirement, nodeDomains: KRequirement): { domains: string[]; random?: string[] } {
  const bootstrap = selects(g, pod) && ([...g.domains.keys()].length === g.empty.size || !anyCompatiblePodDomain(g, podDomains));
  if (g.key === HOSTNAME && operatorOf(nodeDomains) === 'In' && nodeDomains.values.size === 1) {
    const host = [...nodeDomains.values][0];
    if (!has(podDomains, host)) return { domains: [] };
    if ((g.domains.get(host) ?? 0) > 0 || bootstrap) return { domains: [host] };
    return { domains: [] };
  }
  const opts = [...g.domains].filter(([d, c]) => has(podDomains, d) && c > 0 && has(nodeDomains, d)).map(([d]) => d);
  if (opts.length > 0) return { domains: opts.sort() };
  if (!bootstrap) return { domains: [] };
  // a random domain of the intersection of pod and node domains (else any pod domain): Go map order
  const inter = [...g.domains.keys()].filter((d) => has(podDomains, d) && has(nodeDomains, d)).sort();
  const pod2 = [...g.domains.keys()].filter((d) => has(podDomains, d)).sort();
  const pick = inter.length > 0 ? inter : pod2;
  return pick.length > 1 ? { domains: pick, random: pick } : { domains: pick };
}

/** topologygroup.go nextDomainAntiAffinity: only domains without a selected pod. */
function nextAntiAffinity(g: TopologyGroup, podDomains: KRequirement, nodeDomains: KRequirement): string[] {
  if (g.key === HOSTNAME && operatorOf(nodeDomains) === 'In' && nodeDomains.values.size === 1) {
    const host = [...nodeDomains.values][0];
    return (g.domains.get(host) ?? 0) === 0 ? [host] : [];
  }
  return [...g.empty].filter((d) => has(nodeDomains, d) && has(podDomains, d)).sort();
}

/** pretty.Map(domains, 25): "k: v" sorted, at most 25, then " and N other(s)". */
function prettyCounts(m: Map<string, number>): string {
  const keys = [...m.keys()].sort();
  const shown = keys.slice(0, 25).map((k) => `${k}: ${m.get(k)}`).join(', ');
  return keys.length > 25 ? `${shown} and ${keys.length - 25} other(s)` : shown;
}

function matching(t: Topology, pod: Pod, owner: string, taints: Taint[], nodeReqs: KRequirements, strict: boolean): TopologyGroup[] {
  const out = [...t.groups.values()].filter((g) => g.owners.has(owner));
  for (const g of t.inverse.values()) if (selects(g, pod) && filterMatches(g.filter, taints, nodeReqs, strict)) out.push(g);
  return out;
}

/**
 * topology.go AddRequirements: every group the pod owns, and every inverse anti-affinity group that selects it, narrows
 * the node's requirement on its key to the domains it allows; none left is Karpenter's "unsatisfiable topology constraint".
 */
export function addTopologyRequirements(t: Topology, pod: Pod, owner: string, taints: Taint[], podReqs: KRequirements, nodeReqs: KRequirements, strict: boolean): TopologyAnswer {
  const reqs = copyRequirements(nodeReqs);
  const choices = new Map<string, string[]>();
  for (const g of matching(t, pod, owner, taints, nodeReqs, strict)) {
    const podDomains = podReqs.get(g.key) ?? newRequirement(g.key, 'Exists');
    const nodeDomains = nodeReqs.get(g.key) ?? newRequirement(g.key, 'Exists');
    let domains: string[];
    if (g.type === 'topology spread') {
      domains = nextSpread(g, pod, podDomains, nodeDomains);
      if (domains.length > 1) choices.set(g.key, domains);
    } else if (g.type === 'pod affinity') {
      const a = nextAffinity(g, pod, podDomains, nodeDomains);
      domains = a.domains;
      if (a.random) choices.set(g.key, a.random);
    } else domains = nextAntiAffinity(g, podDomains, nodeDomains);
    if (domains.length === 0) {
      // topology.go:153-156@v1.6.2 (the closing parenthesis is missing in Karpenter's format string)
      return { error: `unsatisfiable topology constraint for ${g.type}, key=${g.key} (counts = ${prettyCounts(g.domains)}, podDomains = ${requirementString(podDomains)}, nodeDomains = ${requirementString(nodeDomains)}` };
    }
    // a spread or a random bootstrap pins one domain: the first here, the others are in `choices`
    const pinned = choices.has(g.key) ? [choices.get(g.key)?.[0] as string] : domains;
    addRequirement(reqs, newRequirement(g.key, 'In', pinned));
  }
  return { reqs, ...(choices.size > 0 ? { choices } : {}) };
}

/** topology.go Record: the pod landed on a node with these requirements; every group that counts it records its domain. */
export function recordTopology(t: Topology, pod: Pod, owner: string, taints: Taint[], reqs: KRequirements, strict: boolean): void {
  for (const g of t.groups.values()) {
    if (!selects(g, pod) || !filterMatches(g.filter, taints, reqs, strict)) continue;
    const r = reqs.get(g.key);
    if (!r || r.complement) continue;
    if (g.type === 'pod anti-affinity') record(g, ...r.values);
    else if (r.values.size === 1) record(g, ...r.values);
  }
  for (const g of t.inverse.values()) {
    if (!g.owners.has(owner)) continue;
    const r = reqs.get(g.key);
    if (r && !r.complement) record(g, ...r.values);
  }
}

/** Whether any group or inverse group concerns the pod (it owns one, or an inverse group selects it). */
export function topologyConcerns(t: Topology, pod: Pod, owner: string): boolean {
  return [...t.groups.values()].some((g) => g.owners.has(owner)) || [...t.inverse.values()].some((g) => selects(g, pod));
}


/** nodeclaim.go NewNodeClaim: a fresh placeholder hostname for a NodeClaim. */
export function nextHostname(t: Topology): string {
  t.hostnames += 1;
  return `hostname-placeholder-${String(t.hostnames).padStart(4, '0')}`;
}

/** topology.go Register: a new domain (a NodeClaim's hostname once a pod is added) with no pods yet. */
export function registerDomain(t: Topology, key: string, domain: string): void {
  for (const g of [...t.groups.values(), ...t.inverse.values()]) {
    if (g.key !== key || g.domains.has(domain)) continue;
    g.domains.set(domain, 0);
    g.empty.add(domain);
  }
}
