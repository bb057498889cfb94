// Shared helpers for the asg-audit checks: subjects, AWS CLI snippets, severity by how soon a template matters.
import type { Severity, Subject } from '../../model/findings.js';
import type { Node, Pod } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import type { NodeInfo } from '../../model/scheduling.js';
import { shellCommand } from '../../model/shell.js';
import type { Analysis } from '../../simulate/analysis.js';
import {
  auditedGroups,
  type ScratchRelevance,
  scratchInfo,
  scratchOf,
  scratchRelevance,
  workloadName,
} from './asg-audit.js';
import type { ScratchTemplate } from '../../simulate/node-group-provider.js';
import { awsStructureArg } from '../../checks/lib/support.js';

export { groupSubject, listNames, tagCommand } from '../../checks/lib/support.js';

/** The CA Deployment as a finding subject (cluster-wide configuration findings). */
export function caSubject(a: Analysis): Subject {
  return {
    kind: 'Deployment',
    name: a.ca.deployment?.name ?? 'cluster-autoscaler',
    ...(a.ca.deployment?.namespace ? { namespace: a.ca.deployment.namespace } : {}),
  };
}

export function deleteTagCommand(asg: string, key: string): string {
  const tag = { ResourceId: asg, ResourceType: 'auto-scaling-group', Key: key };
  return shellCommand(['aws', 'autoscaling', 'delete-tags', '--tags', awsStructureArg(tag, true)]);
}

/** error when CA uses the scratch template now, warning when the group can reach zero, info otherwise. */
export function severityFor(r: ScratchRelevance): Severity {
  return r === 'now' ? 'error' : r === 'at-zero' ? 'warning' : 'info';
}

/** One notch lower (error -> warning -> info). */
export function softer(s: Severity): Severity {
  return s === 'error' ? 'warning' : 'info';
}

/** severityFor(r) when a Pending pod is affected, one notch softer when only running pods are, info when none is. */
export function severityForPods(r: ScratchRelevance, affected: Pod[]): Severity {
  const base = severityFor(r);
  return affected.some((p) => !p.spec.nodeName) ? base : affected.length > 0 ? softer(base) : 'info';
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The workloads of these pods ("Deployment web/api"), each once, sorted. */
export function workloadNames(a: Analysis, pods: Pod[]): string[] {
  return [...new Set(pods.map((p) => workloadName(a, p)))].sort();
}

/** "Deployment batch/report-builder (Pending: batch/report-builder-x)" lists, capped. */
export function workloadList(workloads: string[], max = 4): string {
  if (workloads.length === 0) return 'no workload yet';
  if (workloads.length <= max) return workloads.join(', ');
  return `${workloads.slice(0, max).join(', ')} and ${workloads.length - max} more`;
}

export function isManaged(g: NodeGroup): boolean {
  if (g.provider !== 'aws') return false;
  return (g.asg.Tags ?? []).some((t) => t.Key === 'eks:nodegroup-name');
}

/** Resource tags the ASG carries (they set capacity and allocatable of the scratch template). */
export function taggedResources(g: NodeGroup): Set<string> {
  const prefix = 'k8s.io/cluster-autoscaler/node-template/resources/';
  if (g.provider !== 'aws') return new Set();
  return new Set(
    (g.asg.Tags ?? []).filter((t) => t.Key.startsWith(prefix)).map((t) => t.Key.slice(prefix.length)),
  );
}

/** A discovered group of the audit with the scratch template CA builds for it. */
export interface ScratchCase {
  g: NodeGroup;
  s: ScratchTemplate & { node: Node };
  info: NodeInfo;
  relevance: ScratchRelevance;
}

/** What the template-* checks look at: each audited group CA discovers whose scratch template has a node. */
export function scratchCases(a: Analysis): ScratchCase[] {
  const out: ScratchCase[] = [];
  for (const g of auditedGroups(a)) {
    if (!g.discovered) continue;
    const s = scratchOf(a, g);
    const info = scratchInfo(a, g);
    if (!s.node || !info) continue;
    out.push({ g, s: s as ScratchCase['s'], info, relevance: scratchRelevance(a, g) });
  }
  return out;
}
