import { realShape, relevanceText, targetedPods } from '../providers/aws/asg-audit.js';
import { RESOURCES_PREFIX } from '../providers/aws/template.js';
import { isPendingCandidate } from '../model/k8s.js';
import { defineCheck } from './define-check.js';
import { groupSubject, scratchCases, taggedResources, tagCommand } from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'template-pods-overstated',
    title: "CA's scratch template allows 110 pods where the instance allows fewer",
    summary:
      "CA's AWS scratch template hard-codes pods = 110; with the VPC CNI an instance takes its ENI-based max pods, so CA under-sizes scale-ups of many small pods.",
    severity: 'info',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      overstated:
        "Node group {group}: CA's scratch template allows {templateValue} pods, a real {type} node takes {realValue} ({source}); CA packs up to {templateValue} pods onto each new node it plans ({when}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate (pods = 110, "TODO: get a real value"); amazon-eks-ami eni-max-pods.txt',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const { g, s, info, relevance } of scratchCases(a)) {
      if (taggedResources(g).has('pods') || relevance === 'unlikely') continue;
      const shape = realShape(a, g);
      const real = shape?.sameType ? shape.allocatable.pods : s.instanceTypeInfo?.maxPods;
      const mine = info.allocatable.pods;
      if (real === undefined || mine === undefined || mine <= real) continue;
      // more Pending pods than one real node takes: CA plans too few nodes (the rest wait for another loop)
      const pending = targetedPods(a, g).filter(isPendingCandidate).length;
      ctx.report({
        messageId: 'overstated',
        severity: relevance === 'now' && pending > real ? 'warning' : 'info',
        data: {
          group: g.name,
          templateValue: mine,
          type: s.instanceType ?? '',
          realValue: real,
          source: shape?.sameType ? `node ${shape.nodes[0].metadata.name}` : 'EKS max pods for the type',
          when: relevanceText(relevance, g),
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [
          { source: `ASG ${g.name} scratch template`, observed: `pods ${mine}` },
          {
            source: shape?.sameType
              ? `node ${shape.nodes[0].metadata.name}`
              : 'instance-type table (EKS AMI eni-max-pods)',
            observed: `pods ${real}`,
          },
        ],
        remediation: `Tell CA the real pod limit:\n  ${tagCommand(g.name, `${RESOURCES_PREFIX}pods`, String(real))}`,
      });
    }
  },
});
