import { auditedAsgGroups } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject } from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'mixed-instances-weighted',
    title: 'A MixedInstancesPolicy uses instance weights',
    summary:
      'With WeightedCapacity the ASG counts capacity units, not instances, while CA treats DesiredCapacity as a node count: its sizes and scale-ups are off.',
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      weighted:
        'Node group {group} weights its overrides ({weights}); CA reads DesiredCapacity {desired} as {desired} nodes while the ASG runs {instances} instance(s).',
    },
    upstream:
      'kubernetes/autoscaler#4851; cluster-autoscaler cloudprovider/aws/auto_scaling_groups.go (TargetSize = DesiredCapacity)',
  },
  run(ctx) {
    for (const g of auditedAsgGroups(ctx.analysis)) {
      const overrides = g.asg.MixedInstancesPolicy?.LaunchTemplate?.Overrides ?? [];
      const weighted = overrides.filter(
        (o) => o.WeightedCapacity !== undefined && o.WeightedCapacity !== '1',
      );
      if (weighted.length === 0) continue;
      const weights = overrides
        .map((o) => `${o.InstanceType ?? 'requirements'}=${o.WeightedCapacity ?? '1'}`)
        .join(', ');
      ctx.report({
        messageId: 'weighted',
        data: { group: g.name, weights, desired: g.targetSize, instances: (g.asg.Instances ?? []).length },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [{ source: `ASG ${g.name} MixedInstancesPolicy`, observed: `WeightedCapacity ${weights}` }],
        remediation:
          'Remove WeightedCapacity from the overrides (every instance then counts 1), or move the types with other weights to their own ASGs.',
      });
    }
  },
});
