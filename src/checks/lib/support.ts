// Shared helpers for checks: subjects, AWS tag commands, the "closest node groups" of a pending pod.
import type { Subject } from '../../model/findings.js';
import type { Pod } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import type { FilterStatus } from '../../model/scheduling.js';
import { shellCommand } from '../../model/shell.js';
import type { Analysis } from '../../simulate/analysis.js';
import { analyzePods, type GroupEvaluation, type PodAnalysis } from '../../simulate/why-pending.js';

export function podSubject(pod: Pod): Subject {
  return { kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? 'default' };
}

export function podRef(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
}

export function groupSubject(g: NodeGroup): Subject {
  return { kind: 'AutoScalingGroup', name: g.name };
}

export function tagCommand(asg: string, key: string, value: string): string {
  const tag = { ResourceId: asg, ResourceType: 'auto-scaling-group', Key: key, Value: value, PropagateAtLaunch: false };
  return shellCommand(['aws', 'autoscaling', 'create-or-update-tags', '--tags', awsStructureArg(tag, true)]);
}

// Values the aws CLI's shorthand syntax (Key=Value,Key=Value) takes literally, and `<placeholders>` for the user to
// fill in; anything else goes as JSON (aws-cli awscli/shorthand.py: `,` `=` quotes and brackets are syntax).
const SHORTHAND_VALUE = /^(?:[A-Za-z0-9_@%+:./$-]|<[A-Za-z0-9 ]+>)*$/;

/**
 * One structure as an aws CLI argument: shorthand (`A=x,B=y`) when every value is plain, else JSON, which the aws CLI
 * parses unambiguously (a `,` or `=` in a shorthand value would split it). `list` wraps the JSON form in [ ].
 */
export function awsStructureArg(fields: Record<string, string | boolean | number>, list = false): string {
  const plain = Object.values(fields).every((v) => typeof v !== 'string' || SHORTHAND_VALUE.test(v));
  if (plain) return Object.entries(fields).map(([k, v]) => `${k}=${String(v)}`).join(',');
  return JSON.stringify(list ? [fields] : fields);
}

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
