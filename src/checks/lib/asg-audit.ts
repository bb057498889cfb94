// Shared helpers for the asg-audit checks: subjects, AWS CLI snippets, severity by how soon a template matters.
import type { Severity, Subject } from '../../model/findings.js';
import type { NodeGroup } from '../../model/node-group.js';
import type { Analysis } from '../../simulate/analysis.js';
import type { ScratchRelevance } from '../../simulate/asg-audit.js';

export { groupSubject, listNames, tagCommand } from '../support.js';

/** The CA Deployment as a finding subject (cluster-wide configuration findings). */
export function caSubject(a: Analysis): Subject {
  return {
    kind: 'Deployment',
    name: a.ca.deployment?.name ?? 'cluster-autoscaler',
    ...(a.ca.deployment?.namespace ? { namespace: a.ca.deployment.namespace } : {}),
  };
}

export function deleteTagCommand(asg: string, key: string): string {
  return `aws autoscaling delete-tags --tags ResourceId=${asg},ResourceType=auto-scaling-group,Key=${key}`;
}

/** error when CA uses the scratch template now, warning when the group can reach zero, info otherwise. */
export function severityFor(r: ScratchRelevance): Severity {
  return r === 'now' ? 'error' : r === 'at-zero' ? 'warning' : 'info';
}

/** One notch lower (error -> warning -> info). */
export function softer(s: Severity): Severity {
  return s === 'error' ? 'warning' : 'info';
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "Deployment batch/report-builder (Pending: batch/report-builder-x)" lists, capped. */
export function workloadList(workloads: string[], max = 4): string {
  if (workloads.length === 0) return 'no workload yet';
  if (workloads.length <= max) return workloads.join(', ');
  return `${workloads.slice(0, max).join(', ')} and ${workloads.length - max} more`;
}

export function isManaged(g: NodeGroup): boolean {
  return (g.asg.Tags ?? []).some((t) => t.Key === 'eks:nodegroup-name');
}

/** Resource tags the ASG carries (they set capacity and allocatable of the scratch template). */
export function taggedResources(g: NodeGroup): Set<string> {
  const prefix = 'k8s.io/cluster-autoscaler/node-template/resources/';
  return new Set(
    (g.asg.Tags ?? []).filter((t) => t.Key.startsWith(prefix)).map((t) => t.Key.slice(prefix.length)),
  );
}
