// Pod constraints Karpenter's topology handles (scheduling/topology.go). Pure.
import type { Pod, PodAffinityTerm } from '../../../model/k8s.js';
import { compileLabelSelector } from '../../predicates/labels.js';
import { podKey } from '../../predicates/status.js';
import type { KarpenterPlacementContext } from './placement-types.js';

interface AntiAffinityHolder {
  owner: Pod;
  term: PodAffinityTerm;
}

const antiAffinityByCtx = new WeakMap<KarpenterPlacementContext, AntiAffinityHolder[]>();

/** Bound, running pods with required anti-affinity: Karpenter's inverse topology groups (topology.go:280-322@v1.6.2). */
function antiAffinityHolders(ctx: KarpenterPlacementContext): AntiAffinityHolder[] {
  const hit = antiAffinityByCtx.get(ctx);
  if (hit) return hit;
  const out: AntiAffinityHolder[] = [];
  for (const p of ctx.pods ?? []) {
    if (!p.spec.nodeName || p.metadata.deletionTimestamp || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    for (const term of p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) out.push({ owner: p, term });
  }
  antiAffinityByCtx.set(ctx, out);
  return out;
}

/** Whether a pod-affinity term of `owner` selects `pod` (namespaces, then the label selector; a namespaceSelector is assumed to match). */
function termSelects(owner: Pod, term: PodAffinityTerm, pod: Pod): boolean {
  const ns = pod.metadata.namespace ?? 'default';
  const nsOk = term.namespaceSelector
    ? true
    : term.namespaces && term.namespaces.length > 0
      ? term.namespaces.includes(ns)
      : (owner.metadata.namespace ?? 'default') === ns;
  return nsOk && compileLabelSelector(term.labelSelector).matches(pod.metadata.labels);
}

/** The pod's constraints Karpenter's topology handles and casdoctor does not: required spread, affinity, anti-affinity, inverse anti-affinity. */
export function topologyConstraints(pod: Pod, ctx: KarpenterPlacementContext): string[] {
  const out: string[] = [];
  const tsc = (pod.spec.topologySpreadConstraints ?? []).filter((c) => c.whenUnsatisfiable !== 'ScheduleAnyway');
  if (tsc.length > 0) out.push(`topology spread on ${[...new Set(tsc.map((c) => c.topologyKey))].join(', ')}`);
  const aff = pod.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  if (aff.length > 0) out.push(`required pod affinity on ${[...new Set(aff.map((t) => t.topologyKey))].join(', ')}`);
  const anti = pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  if (anti.length > 0) out.push(`required pod anti-affinity on ${[...new Set(anti.map((t) => t.topologyKey))].join(', ')}`);
  const inverse = antiAffinityHolders(ctx).filter((h) => h.owner !== pod && termSelects(h.owner, h.term, pod));
  if (inverse.length > 0) {
    const owners = [...new Set(inverse.map((h) => podKey(h.owner)))];
    out.push(`the required anti-affinity of running pod(s) ${owners.slice(0, 3).join(', ')}${owners.length > 3 ? ` and ${owners.length - 3} more` : ''} against this pod (on ${[...new Set(inverse.map((h) => h.term.topologyKey))].join(', ')})`);
  }
  return out;
}
