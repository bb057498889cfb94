// Karpenter's preference relaxation (scheduling/preferences.go Relax, the same order v1.4–v1.14): after a failed attempt
// it removes ONE thing and tries again, the first that applies of: the first required node-affinity term (while more
// than one is left), the heaviest preferred pod-affinity term, the heaviest preferred pod-anti-affinity term, the
// heaviest preferred node-affinity term, the first ScheduleAnyway topology spread constraint, and (when a NodePool has a
// PreferNoSchedule taint) a toleration for PreferNoSchedule. Under PREFERENCE_POLICY=Ignore the preferred terms and
// ScheduleAnyway constraints never bind, so their relaxation steps change nothing and are left out. Pure.
import type { NodeSelectorRequirement, Pod, PodAffinityTerm, TopologySpreadConstraint } from '../../../model/k8s.js';
import { type KRequirements, addRequirement, podRequirements, requiredTermCount, requirementsFrom } from './requirements.js';

export interface RelaxationAttempt {
  /** The pod as relaxed so far (its topology and affinity terms are what Karpenter's topology reads). */
  pod: Pod;
  /** podData.Requirements: node selector, the first required term and (Respect) the heaviest preferred node term. */
  requirements: KRequirements;
  /** podData.StrictRequirements: node selector and the first required term (what topology domains are read from). */
  strict: KRequirements;
  toleratePreferNoSchedule: boolean;
  /** What has been relaxed to reach this attempt ('' for the first). */
  relaxed: string;
}

type PreferredTerm = { weight?: number; preference?: { matchExpressions?: NodeSelectorRequirement[] } };
type PreferredPodTerm = { weight?: number; podAffinityTerm?: PodAffinityTerm };

const byWeight = <T extends { weight?: number }>(list: readonly T[]): T[] => [...list].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0));

function clonePod(pod: Pod): Pod {
  const a = pod.spec.affinity;
  return {
    ...pod,
    spec: {
      ...pod.spec,
      ...(a
        ? {
            affinity: {
              ...a,
              ...(a.nodeAffinity ? { nodeAffinity: { ...a.nodeAffinity } } : {}),
              ...(a.podAffinity ? { podAffinity: { ...a.podAffinity } } : {}),
              ...(a.podAntiAffinity ? { podAntiAffinity: { ...a.podAntiAffinity } } : {}),
            },
          }
        : {}),
      ...(pod.spec.topologySpreadConstraints ? { topologySpreadConstraints: [...pod.spec.topologySpreadConstraints] } : {}),
      ...(pod.spec.tolerations ? { tolerations: [...pod.spec.tolerations] } : {}),
    },
  };
}

/** One Relax step on a copy of the pod: the relaxed pod and what was relaxed, or undefined when nothing is left. */
function relaxOnce(pod: Pod, toleratePNS: boolean, ignore: boolean, state: { required: number; terms: number; prefPod: number; prefAnti: number; prefNode: number; tsc: number }): { pod: Pod; relaxed: string } | undefined {
  const p = clonePod(pod);
  const aff = p.spec.affinity;
  const req = aff?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (aff?.nodeAffinity && req.length > 1) {
    aff.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: req.slice(1) };
    state.required++;
    return { pod: p, relaxed: `required node-affinity term ${state.required + 1} of ${state.terms}` };
  }
  const prefPod = (aff?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredPodTerm[];
  if (!ignore && aff?.podAffinity && prefPod.length > 0) {
    aff.podAffinity.preferredDuringSchedulingIgnoredDuringExecution = byWeight(prefPod).slice(1);
    return { pod: p, relaxed: `${++state.prefPod} preferred pod-affinity term(s) dropped` };
  }
  const prefAnti = (aff?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredPodTerm[];
  if (!ignore && aff?.podAntiAffinity && prefAnti.length > 0) {
    aff.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution = byWeight(prefAnti).slice(1);
    return { pod: p, relaxed: `${++state.prefAnti} preferred pod-anti-affinity term(s) dropped` };
  }
  const prefNode = (aff?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredTerm[];
  if (!ignore && aff?.nodeAffinity && prefNode.length > 0) {
    aff.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution = byWeight(prefNode).slice(1);
    return { pod: p, relaxed: `${++state.prefNode} preferred node-affinity term(s) dropped` };
  }
  const tscs = p.spec.topologySpreadConstraints ?? [];
  const i = tscs.findIndex((c: TopologySpreadConstraint) => c.whenUnsatisfiable === 'ScheduleAnyway');
  if (!ignore && i >= 0) {
    // preferences.go removeTopologySpreadScheduleAnyway: the last constraint takes its place
    tscs[i] = tscs[tscs.length - 1];
    tscs.pop();
    return { pod: p, relaxed: `${++state.tsc} ScheduleAnyway topology spread constraint(s) dropped` };
  }
  if (toleratePNS && !(p.spec.tolerations ?? []).some((t) => t.operator === 'Exists' && !t.key && (t.effect === 'PreferNoSchedule' || !t.effect))) {
    p.spec.tolerations = [...(p.spec.tolerations ?? []), { operator: 'Exists', effect: 'PreferNoSchedule' }];
    return { pod: p, relaxed: 'PreferNoSchedule taints tolerated' };
  }
  return undefined;
}

/** The pod's attempts in the order preferences.go Relax produces them (ignorePreferences: PREFERENCE_POLICY=Ignore). */
export function relaxationAttempts(pod: Pod, ignorePreferences: boolean, toleratePNS: boolean): RelaxationAttempt[] {
  const terms = requiredTermCount(pod);
  const build = (p: Pod, relaxed: string, pns: boolean): RelaxationAttempt => {
    const strict = podRequirements(p, 0);
    const requirements = podRequirements(p, 0);
    // requirements.go newPodRequirements: the heaviest remaining preferred term joins the required ones
    const pref = ignorePreferences ? undefined : byWeight((p.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as PreferredTerm[])[0];
    if (pref) for (const r of requirementsFrom(pref.preference?.matchExpressions ?? []).values()) addRequirement(requirements, r);
    return { pod: p, requirements, strict, toleratePreferNoSchedule: pns, relaxed };
  };
  const out: RelaxationAttempt[] = [build(pod, '', false)];
  const state = { required: 0, terms, prefPod: 0, prefAnti: 0, prefNode: 0, tsc: 0 };
  let cur = pod;
  let pns = false;
  for (let guard = 0; guard < 200; guard++) {
    const next = relaxOnce(cur, toleratePNS, ignorePreferences, state);
    if (!next) break;
    cur = next.pod;
    if (next.relaxed === 'PreferNoSchedule taints tolerated') pns = true;
    out.push(build(cur, next.relaxed, pns));
  }
  return out;
}
