// Small helpers of the Karpenter scheduling model: requests, resource fits and texts, taints (utils/resources, scheduling/taints.go). Pure.
import { type Pod, type ResourceMap, type Taint, type Toleration, formatTaint } from '../../../model/k8s.js';
import type { KarpenterCondition } from '../../../model/karpenter.js';
import { formatResource } from '../../../model/quantity.js';
import type { Resources } from '../../../model/scheduling.js';
import { tolerationsTolerateTaint } from '../../predicates/taint-toleration.js';
import { addResources, podRequests } from '../../resources.js';
import type { KarpenterInstanceType } from './instance-types.js';

export function cond(conds: KarpenterCondition[] | undefined, type: string): KarpenterCondition | undefined {
  return conds?.find((c) => c.type === type);
}

/** pretty.Taint: "k=v:Effect" or "k:Effect". */
export function prettyTaint(t: Taint): string {
  return formatTaint(t);
}

/** resources.String / pretty.Concise: JSON of the resource list, keys sorted (units approximated canonically). */
export function resourcesString(r: Resources): string {
  const keys = Object.keys(r).sort();
  if (keys.length === 0) return '{}';
  return `{${keys.map((k) => `"${k}":"${formatResource(k, r[k])}"`).join(',')}}`;
}

export function toResourceMap(r: Resources): ResourceMap {
  const out: ResourceMap = {};
  for (const k of Object.keys(r).sort()) out[k] = formatResource(k, r[k]);
  return out;
}

/** Karpenter's pod requests: scheduler requests plus pods=1 per pod (resources.RequestsForPods). */
export function karpenterRequests(pods: Pod[]): Resources {
  let out: Resources = {};
  for (const p of pods) out = addResources(out, podRequests(p));
  out.pods = pods.length;
  return out;
}

/** resources.Fits: any negative allocatable never fits; every request <= allocatable (missing = 0). */
export function fitsResources(requests: Resources, allocatable: Resources): boolean {
  if (Object.values(allocatable).some((v) => v < 0)) return false;
  return Object.entries(requests).every(([k, v]) => v <= (allocatable[k] ?? 0));
}

export function sortTypes(list: KarpenterInstanceType[]): KarpenterInstanceType[] {
  return [...list].sort((a, b) => a.info.vcpu - b.info.vcpu || a.info.memoryMiB - b.info.memoryMiB || a.name.localeCompare(b.name));
}

export function examples(list: KarpenterInstanceType[], n = 5): string[] {
  return sortTypes(list)
    .slice(0, n)
    .map((t) => t.name);
}

/** The pool's tolerations check (taints.go Tolerates): every template taint must be tolerated. */
export function untoleratedTaints(taints: Taint[], tolerations: Toleration[] | undefined, toleratePreferNoSchedule: boolean): Taint[] {
  const tol = [...(tolerations ?? [])];
  // scheduler.go NewScheduler: once any NodePool has a PreferNoSchedule taint, relaxation adds a toleration for it
  if (toleratePreferNoSchedule) tol.push({ operator: 'Exists', effect: 'PreferNoSchedule' });
  return taints.filter((t) => !tolerationsTolerateTaint(tol, t));
}

export function taintError(untolerated: Taint[]): string {
  return untolerated.map((t) => `did not tolerate taint (taint=${prettyTaint(t)})`).join('; ');
}
