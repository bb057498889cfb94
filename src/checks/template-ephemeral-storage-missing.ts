import { formatBytes } from '../model/quantity.js';
import { caLaunchTemplateVersion, realShape, relevanceText, targetedPods } from '../providers/aws/asg-audit.js';
import { podRequests } from '../simulate/resources.js';
import { RESOURCES_PREFIX } from '../providers/aws/template.js';
import { defineCheck } from './define-check.js';
import {
  groupSubject,
  scratchCases,
  severityForPods,
  tagCommand,
  workloadList,
  workloadNames,
} from '../providers/aws/asg-audit-checks.js';

const GI = 1024 ** 3;

export default defineCheck({
  meta: {
    id: 'template-ephemeral-storage-missing',
    title: "CA's scratch template has no ephemeral-storage",
    summary:
      "CA's AWS scratch template has no ephemeral-storage unless a resources tag sets it, so pods that request ephemeral-storage never trigger a scale-up from zero.",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'pods'],
    providers: ['aws'],
    messages: {
      missing: "Node group {group}: CA's scratch template has no ephemeral-storage; {effect} ({when}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate; cloudprovider/aws/README.md (node-template/resources/ephemeral-storage)',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const { g, s, relevance } of scratchCases(a)) {
      if (s.node.status?.allocatable?.['ephemeral-storage'] !== undefined || relevance === 'unlikely') continue;
      const affected = targetedPods(a, g).filter((p) => (podRequests(p)['ephemeral-storage'] ?? 0) > 0);
      const workloads = workloadNames(a, affected);
      const severity = severityForPods(relevance, affected);
      // what to tag: the real nodes' allocatable, else the root volume less the kubelet's 10% eviction threshold
      const shape = realShape(a, g);
      const realValue = shape?.allocatable['ephemeral-storage'];
      const root = (
        caLaunchTemplateVersion(a, g)?.LaunchTemplateData?.BlockDeviceMappings as
          Array<{ Ebs?: { VolumeSize?: number } }> | undefined
      )?.[0]?.Ebs?.VolumeSize;
      const value =
        realValue !== undefined
          ? formatBytes(Math.floor(realValue / GI) * GI)
          : root !== undefined
            ? `${Math.floor(root * 0.9)}Gi`
            : '<GiB the node offers>';
      ctx.report({
        messageId: 'missing',
        severity,
        data: {
          group: g.name,
          effect:
            workloads.length > 0
              ? `CA never scales it for ${workloadList(workloads)}, which request ephemeral-storage ("Insufficient ephemeral-storage")`
              : 'a pod that requests ephemeral-storage would never make CA scale it',
          when: relevanceText(relevance, g),
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        schedulerReason: workloads.length > 0 ? 'Insufficient ephemeral-storage' : undefined,
        evidence: [
          {
            source: `ASG ${g.name} scratch template`,
            observed: 'no ephemeral-storage in capacity or allocatable',
          },
          ...(realValue !== undefined
            ? [
                {
                  source: `node ${shape!.nodes[0].metadata.name}`,
                  observed: `ephemeral-storage allocatable ${formatBytes(realValue)}`,
                },
              ]
            : root !== undefined
              ? [{ source: 'launch template', observed: `root volume ${root} GiB` }]
              : []),
        ],
        remediation: `Tell CA the ephemeral storage a new node offers:\n  ${tagCommand(g.name, `${RESOURCES_PREFIX}ephemeral-storage`, value)}`,
      });
    }
  },
});
