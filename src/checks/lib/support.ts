// Shared helpers for checks: subjects, AWS tag commands, the "closest node groups" of a pending pod.
import type { Evidence, Subject } from '../../model/findings.js';
import type { Pod } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import type { FilterStatus } from '../../model/scheduling.js';
import type { Analysis } from '../../simulate/analysis.js';
import { analyzePods, type GroupEvaluation, type PodAnalysis } from '../../simulate/why-pending.js';
import { providerById } from '../../providers/index.js';

export function podSubject(pod: Pod): Subject {
  return { kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? 'default' };
}

export function podRef(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
}

export function groupSubject(g: NodeGroup): Subject {
  // the group's kind as its provider names it (AWS: AutoScalingGroup); JSON/SARIF consumers see a provider-neutral
  // kind for any other group
  return { kind: providerById(g.provider)?.words.groupKind ?? 'NodeGroup', name: g.name };
}

// the aws CLI command builders live with the AWS provider (the seam's remediation builders use them too)
export { asgTagCommand as tagCommand, awsStructureArg } from '../../providers/aws/commands.js';

/** why-pending's per-pod analyses for the pods in scope. */
export function pendingAnalyses(a: Analysis): PodAnalysis[] {
  return analyzePods(a);
}

export function blocked(a: Analysis): PodAnalysis[] {
  return pendingAnalyses(a).filter((p) => p.report.verdict === 'no-scale-up');
}

/**
 * The node groups a blocked pod is closest to fitting: among the groups whose template carries what the pod selects,
 * those with the fewest failing predicates. These are the failures worth fixing; the rest is noise.
 */
export function closestGroups(p: PodAnalysis): GroupEvaluation[] {
  const candidates = p.groups.filter((g) => g.targeted && g.template.node);
  // prefer the groups CA actually simulates (discovered, not skipped); the others only when nothing else is left
  const simulated = candidates.filter((g) => g.group.discovered && !g.skip);
  const targeted = simulated.length > 0 ? simulated : candidates;
  if (targeted.length === 0) return [];
  const min = Math.min(...targeted.map((g) => g.failures.length));
  if (min === 0) return [];
  return targeted.filter((g) => g.failures.length === min);
}

/** Closest groups whose failures include one of these plugins, with that plugin's status. */
export function closestFailures(
  p: PodAnalysis,
  plugins: string[],
): Array<{ g: GroupEvaluation; status: FilterStatus }> {
  const out: Array<{ g: GroupEvaluation; status: FilterStatus }> = [];
  for (const g of closestGroups(p)) {
    const status = g.failures.find((f) => plugins.includes(f.plugin));
    if (status) out.push({ g, status });
  }
  return out;
}

/** Pods blocked only by CA-level reasons on a group: the template passes every predicate. */
export function podsPassingPredicates(a: Analysis, g: NodeGroup): PodAnalysis[] {
  return blocked(a).filter((p) =>
    p.groups.some(
      (e) => e.group === g && e.template.node && e.failures.length === 0 && e.notEvaluated.length === 0,
    ),
  );
}

export function listNames(names: string[], max = 5): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/** Names (nodes, instances, groups) an evidence line lists before "and N more". */
export const EVIDENCE_NAMES = 10;
/** Node groups or nodes a finding's message names before "and N more". */
export const MESSAGE_NAMES = 3;
/** Evidence lists up to this long are kept whole (a small cluster's every group); longer ones are sampled. */
export const EVIDENCE_FULL = 8;
/** Entries a sampled evidence list keeps, before the one that counts the rest (the text report shows six). */
export const EVIDENCE_SAMPLE = 5;

/** The first `max` parts joined, then `and N more <noun>`: a message that stays a sentence at 1,000 node groups. */
export function boundedList(parts: readonly string[], noun: string, sep = ', ', max = MESSAGE_NAMES): string {
  if (parts.length <= max) return parts.join(sep);
  return `${parts.slice(0, max).join(sep)}${sep.trim() === ';' ? sep : ' '}and ${parts.length - max} more ${noun}`;
}

/**
 * Checks that report one finding per closest group report the first MESSAGE_NAMES; the last of them carries this
 * entry counting the others (hundreds of groups with one taint each would be hundreds of findings per pod).
 */
export function moreGroupsEvidence(total: number, reported: number, index: number): Evidence[] {
  if (total <= reported || index !== reported - 1) return [];
  return [
    {
      source: `${total - reported} more node groups`,
      observed: `fail the same check, not reported one by one (${total} in all); -o wide lists every node group`,
    },
  ];
}

/**
 * Evidence for a list of items, ranked most telling first: every item when there are at most EVIDENCE_FULL, else the
 * first EVIDENCE_SAMPLE and one entry counting the rest (only the kept items are built).
 */
export function boundedEvidence<T>(items: readonly T[], toEvidence: (item: T) => Evidence, noun: string, whereAll: string): Evidence[] {
  if (items.length <= EVIDENCE_FULL) return items.map(toEvidence);
  return [
    ...items.slice(0, EVIDENCE_SAMPLE).map(toEvidence),
    { source: `${items.length - EVIDENCE_SAMPLE} more ${noun}`, observed: `not listed (${items.length} in all); ${whereAll}` },
  ];
}
