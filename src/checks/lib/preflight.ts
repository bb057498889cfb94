// Shared helpers for preflight's checks: subjects, the preflight context, short descriptions of node groups.
import { isGrpcGroup } from '../../providers/externalgrpc/words.js';
import type { Subject } from '../../model/findings.js';
import type { KubeObject } from '../../model/k8s.js';
import type { LocatedObject } from '../../model/preflight.js';
import type { Analysis } from '../../simulate/analysis.js';
import {
  type GroupPlacement,
  type PreflightContext,
  type PreflightGroup,
  placementOf,
  placementWorkloads,
  preflightOf,
  type WorkloadPlacement,
} from '../../simulate/preflight.js';
import type { PreflightWorkload } from '../../simulate/preflight-workloads.js';
import { type DrainVerdict, drainVerdict, pdbSelects } from './preflight-drain.js';
import { orderedMap, quoted, yamlSnippet } from './snippets.js';
import { tagCommand } from './support.js';
import { LABEL_PREFIX as LABEL_TAG } from '../../providers/aws/template.js';

export { workloadRef } from '../../simulate/preflight-workloads.js';

/** Kinds of object each preflight check judges (JUnit makes one testcase per object of these kinds and check). */
export const WORKLOAD_SUBJECT_KINDS = [
  'Deployment',
  'StatefulSet',
  'ReplicaSet',
  'ReplicationController',
  'Job',
  'CronJob',
  'Pod',
];
export const ALL_POD_KINDS = [...WORKLOAD_SUBJECT_KINDS, 'DaemonSet'];

export function context(a: Analysis): PreflightContext | undefined {
  return preflightOf(a);
}

export function workloadSubject(w: PreflightWorkload): Subject {
  return { kind: w.kind, name: w.name, namespace: w.namespace };
}

export function objectSubject(o: LocatedObject<KubeObject>): Subject {
  const m = o.object.metadata;
  return {
    kind: o.object.kind ?? '',
    name: m.name ?? '',
    ...(m.namespace ? { namespace: m.namespace } : {}),
  };
}

/** Placements of the workloads CA could ever scale up for (not DaemonSets, not scaled to 0 replicas). */
export function placements(a: Analysis): WorkloadPlacement[] {
  const ctx = preflightOf(a);
  if (!ctx) return [];
  return placementWorkloads(ctx).map((w) => placementOf(a, w));
}

/** Where CA's template for a group comes from, for evidence lines. */
export function templateSource(g: PreflightGroup): string {
  if (g.declared) {
    return `CA template for ${g.group.name} from ${g.declared.origin === 'eksctl' ? 'the eksctl node group' : 'the node-groups file'} ${g.declared.location.file}:${g.declared.location.line}`;
  }
  if (isGrpcGroup(g.group))
    return `CA template for node group ${g.group.name} (the provider's nodeTemplate: labels, taints, cpu, memory, ephemeral-storage)`;
  return `CA template for ASG ${g.group.name} (launch template / instance type and node-template tags)`;
}

/** The first reason a group cannot take the pod in CA's view, with values, in a few words. */
export function caShortReason(p: GroupPlacement): string {
  if (p.g.gate) return `${p.g.gate.reason}: ${p.g.gate.detail}`;
  const d = p.ca?.described[0];
  if (d) return d.short;
  const ne = p.ca?.notEvaluated[0];
  if (ne) return `${ne.plugin} not evaluated: ${(ne.details ?? []).join('; ')}`;
  return 'fits';
}

export function listNames(names: string[], max = 4, sep = ', '): string {
  if (names.length <= max) return names.join(sep);
  return `${names.slice(0, max).join(sep)}${sep}and ${names.length - max} more`;
}

/** Zones a set of placements' groups launch into, sorted. */
export function zonesOf(ps: GroupPlacement[]): string[] {
  return [...new Set(ps.flatMap((p) => p.g.zones))].sort();
}

/** How to add a template label/taint tag for a group, in the terms of where the group is defined. */
export function templateTagAdvice(g: PreflightGroup, tags: Array<{ key: string; value: string }>): string {
  if (tags.length === 0) return '';
  if (g.declared?.origin === 'eksctl') {
    const d = g.declared;
    const where = `In ${d.location.file} (node group ${g.group.name})`;
    const snippet = yamlSnippet({ tags: orderedMap(tags.map((t) => [t.key, quoted(t.value)])) }, 4);
    // eksctl: pkg/cfn/builder/nodegroup.go GenerateClusterAutoscalerTags propagates label tags only usefully: taint
    // tags get the value without ":<effect>" (CA ignores them) and resources are never propagated
    const labelsOnly = tags.every((t) => t.key.startsWith(LABEL_TAG));
    if (labelsOnly && !d.propagateASGTags) return [`${where} set \`propagateASGTags: true\`, or add the tags:`, snippet].join('\n');
    const why = labelsOnly
      ? ''
      : ' (`propagateASGTags` does not do it: eksctl writes taint tags without the `:<effect>` CA needs and no resource tags)';
    return [
      `${where} add the tags${why}${d.managed && !d.propagateASGTags ? ' and set `propagateASGTags: true` (eksctl copies a managed group\'s tags to its ASG)' : ''}:`,
      snippet,
    ].join('\n');
  }
  if (g.declared?.origin === 'node-groups-file') {
    return `In ${g.declared.location.file} (node group ${g.group.name}) set \`propagateASGTags: true\` (or add the tags ${tags.map((t) => `${t.key}=${t.value}`).join(', ')}).`;
  }
  return [
    `Tag the ASG so CA's template has them (the kubelet must still set them on real nodes):`,
    ...tags.map((t) => `    ${tagCommand(g.group.name, t.key, t.value)}`),
  ].join('\n');
}

/** CA's drainability verdict on a workload's sample pod (manifest level), with the PDBs of manifests and cluster. */
export function drainOf(a: Analysis, w: PreflightWorkload): DrainVerdict {
  const pf = preflightOf(a);
  const pdbs = [...(pf?.pdbs.map((p) => p.object) ?? []), ...a.raw.pdbs];
  return drainVerdict(w.pod, { config: a.ca, hasPdb: pdbSelects(w.pod, pdbs) });
}

/** Which kinds of manifest object each preflight check judges (JUnit testcases, SARIF rules are per check). */
export function preflightCheckKinds(id: string): string[] {
  switch (id) {
    case 'pdb-allows-no-disruption':
    case 'pdb-matches-nothing':
      return ['PodDisruptionBudget'];
    case 'storage-class-immediate-binding':
      return ['StorageClass'];
    case 'volume-immediate-binding-multi-az':
      return ['StatefulSet', 'PersistentVolumeClaim'];
    case 'ca-config-invalid':
    case 'discovery-spec-invalid':
      return ['Deployment'];
    case 'workload-bare-pod':
    case 'workload-custom-controller-owner':
      return ['Pod'];
    case 'workload-missing-requests':
      return ALL_POD_KINDS;
    default:
      return WORKLOAD_SUBJECT_KINDS;
  }
}
