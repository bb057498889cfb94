// Karpenter's preference relaxation order (scheduling/preferences.go). Pure.
import type { NodeSelectorRequirement, Pod } from '../../../model/k8s.js';
import { type KRequirements, addRequirement, podRequirements, requiredTermCount, requirementsFrom } from './requirements.js';

interface RelaxationAttempt {
  requirements: KRequirements;
  toleratePreferNoSchedule: boolean;
  /** What has been relaxed to reach this attempt ('' for the first). */
  relaxed: string;
}

type PreferredTerm = { weight?: number; preference?: { matchExpressions?: NodeSelectorRequirement[] } };

/** The pod's requirement sets in the order preferences.go Relax produces them. */
export function relaxationAttempts(pod: Pod, ignorePreferences: boolean, toleratePNS: boolean): RelaxationAttempt[] {
  const preferred = ignorePreferences
    ? []
    : [...((pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredTerm[])].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0));
  const terms = requiredTermCount(pod);
  const out: RelaxationAttempt[] = [];
  const build = (term: number, prefFrom: number): KRequirements => {
    const reqs = podRequirements(pod, term);
    const pref = preferred[prefFrom];
    // requirements.go newPodRequirements: the heaviest remaining preferred term joins the required ones
    if (pref) for (const r of requirementsFrom(pref.preference?.matchExpressions ?? []).values()) addRequirement(reqs, r);
    return reqs;
  };
  for (let t = 0; t < terms; t++) out.push({ requirements: build(t, 0), toleratePreferNoSchedule: false, relaxed: t > 0 ? `required node-affinity term ${t + 1} of ${terms}` : '' });
  for (let p = 1; p <= preferred.length; p++) {
    out.push({ requirements: build(terms - 1, p), toleratePreferNoSchedule: false, relaxed: `${p} preferred node-affinity term(s) dropped` });
  }
  if (toleratePNS) {
    out.push({ requirements: build(terms - 1, preferred.length), toleratePreferNoSchedule: true, relaxed: 'PreferNoSchedule taints tolerated' });
  }
  return out;
}
