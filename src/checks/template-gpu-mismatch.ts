import type { Pod } from '../model/k8s.js';
import { realShape, relevanceText, targetedPods } from '../providers/aws/asg-audit.js';
import { podRequests } from '../simulate/resources.js';
import { RESOURCES_PREFIX } from '../providers/aws/template.js';
import { isPendingCandidate } from '../model/k8s.js';
import { defineCheck } from './define-check.js';
import { resourceEvidence } from './lib/fix-safety.js';
import {
  groupSubject,
  scratchCases,
  severityFor,
  softer,
  tagCommand,
  workloadList,
  workloadNames,
} from '../providers/aws/asg-audit-checks.js';

// CA: utils/gpu/gpu.go lists these; Neuron devices are not in EC2 GpuInfo at all.
const GPU_RESOURCES = [
  'nvidia.com/gpu',
  'amd.com/gpu',
  'habana.ai/gaudi',
  'gpu.intel.com/xe',
  'aws.amazon.com/neuron',
  'aws.amazon.com/neuroncore',
  'aws.amazon.com/neurondevice',
];

/** The pod chooses its nodes (a nodeSelector or required node affinity), rather than landing wherever its tolerations allow. */
function selectsNodes(p: Pod): boolean {
  return (
    Object.keys(p.spec.nodeSelector ?? {}).length > 0 ||
    (p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.length ?? 0) > 0
  );
}

export default defineCheck({
  meta: {
    id: 'template-gpu-mismatch',
    title: "CA's scratch template has the wrong GPU count or GPU resource name",
    summary:
      "CA's AWS scratch template counts GPUs from its instance table and always names them nvidia.com/gpu; a type the table gives 0, or AMD / Neuron devices, make GPU pods unschedulable from zero.",
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'pods'],
    providers: ['aws'],
    messages: {
      nodes:
        "Node group {group}: the group's nodes offer {resource} {nodeValue}, CA's scratch template {templateText}; {effect} ({when}).",
      requests:
        "Node group {group}: CA's scratch template ({type}) offers {resource} {templateValue}, less than the {requested} requested by {workloads} ({when}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate (GPUs as nvidia.com/gpu); aws_util.go transformInstanceType; kubernetes/autoscaler#3869',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const { g, s, info, relevance } of scratchCases(a)) {
      const have = info.allocatable;
      const shape = realShape(a, g);
      const seen = new Set<string>();
      const targeted = targetedPods(a, g);
      for (const resource of GPU_RESOURCES) {
        const real = shape?.sameType ? shape.capacity[resource] : undefined;
        if (real === undefined || real === 0 || (have[resource] ?? 0) === real) continue;
        seen.add(resource);
        const users = targeted.filter((p) => (podRequests(p)[resource] ?? 0) > 0);
        const workloads = workloadNames(a, users);
        const base = severityFor(relevance);
        ctx.report({
          messageId: 'nodes',
          severity: users.length > 0 ? base : softer(base),
          data: {
            group: g.name,
            resource,
            nodeValue: real,
            templateText:
              have[resource] === undefined
                ? `has no ${resource}${resource !== 'nvidia.com/gpu' && (have['nvidia.com/gpu'] ?? 0) > 0 ? ` (it counts them as nvidia.com/gpu ${have['nvidia.com/gpu']})` : ''}`
                : `has ${have[resource]}`,
            effect:
              workloads.length > 0
                ? `${resource} is requested by ${workloadList(workloads)}`
                : `pods requesting ${resource} cannot scale it from zero`,
            when: relevanceText(relevance, g),
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            { source: `node ${shape!.nodes[0].metadata.name}`, observed: `${resource} ${real}` },
            { source: `ASG ${g.name} scratch template`, observed: `${resource} ${have[resource] ?? 'none'}` },
          ],
          remediation: `Tell CA the GPUs a node offers:\n  ${tagCommand(g.name, `${RESOURCES_PREFIX}${resource}`, String(real))}`,
        });
      }
      if (relevance === 'unlikely') continue;
      for (const resource of GPU_RESOURCES) {
        if (seen.has(resource)) continue;
        const users = targeted.filter((p) => (podRequests(p)[resource] ?? 0) > (have[resource] ?? 0));
        if (users.length === 0) continue;
        // the fix rule (lib/fix-safety.ts): a GPU tag only where the instance type has the device. Without it the
        // template is right, not wrong; a pod that merely tolerates the group's taints is not meant for it, and one
        // that selects it needs another instance type, never a tag (CA would launch nodes the pod never fits)
        const evidence = resourceEvidence(a, g, resource);
        if (!evidence.ok && !users.some(selectsNodes)) continue;
        const requested = Math.max(...users.map((p) => podRequests(p)[resource] ?? 0));
        const workloads = workloadNames(a, users);
        const pending = users.some(isPendingCandidate);
        const table = s.instanceTypeInfo;
        ctx.report({
          messageId: 'requests',
          severity: pending ? severityFor(relevance) : softer(severityFor(relevance)),
          data: {
            group: g.name,
            type: s.instanceType ?? '',
            resource,
            templateValue: have[resource] ?? 0,
            workloads: workloadList(workloads),
            requested,
            when: relevanceText(relevance, g),
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          schedulerReason: `Insufficient ${resource}`,
          evidence: [
            {
              source: "CA's instance-type table",
              observed: `${s.instanceType}: ${table?.gpu ?? 0} GPU(s)${resource === 'nvidia.com/gpu' ? '' : ' (always counted as nvidia.com/gpu)'}`,
            },
            { source: `ASG ${g.name} scratch template`, observed: `${resource} ${have[resource] ?? 'none'}` },
            ...users
              .filter(isPendingCandidate)
              .slice(0, 5)
              .map((p) => ({
                source: `Pod ${p.metadata.namespace}/${p.metadata.name}`,
                observed: `Pending, requests ${resource} ${podRequests(p)[resource]}`,
              })),
          ],
          remediation: evidence.ok
            ? `Tell CA the ${resource} count the device plugin advertises per node (${requested} at least):\n  ${tagCommand(g.name, `${RESOURCES_PREFIX}${resource}`, String(requested))}`
            : `Do not tag ${g.name} with ${resource}: ${evidence.why}, and CA would launch nodes these pods never fit. Point the pods at a group of an instance type with ${resource} (or give ${g.name} such a type in its launch template), or drop the selector that picks ${g.name}.`,
        });
      }
    }
  },
});
