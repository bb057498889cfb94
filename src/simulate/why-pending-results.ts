// why-pending's results: a group's evaluation as the report shows it (its values in a few words, the counterfactual)
// and the expander's pick among the groups that fit. Moved out of why-pending.ts as is.
import { pickWithPriorityExpander } from './priority-expander.js';
import type { Pod, Pod as PodT } from '../model/k8s.js';
import { formatResource } from '../model/quantity.js';
import { type PodGroupResult, type PodReport } from '../model/why-pending.js';
import type { Analysis } from './analysis.js';
import { explainNodeAffinityMismatch } from './predicates/node-affinity.js';
import { insufficientResources } from './predicates/node-resources-fit.js';
import { findUntoleratedTaint } from './predicates/taint-toleration.js';
import { podRequests } from './resources.js';
import type { GroupEvaluation } from './why-pending-groups.js';

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

export function toGroupResult(g: GroupEvaluation, pod: PodT): PodGroupResult {
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
export function pickExpander(
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
