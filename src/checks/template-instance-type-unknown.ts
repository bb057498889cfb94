import { shellCommand } from '../model/shell.js';
import { auditedAsgGroups, scratchOf } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject } from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'template-instance-type-unknown',
    title: "The ASG's instance type is not in CA's instance-type list",
    summary:
      "The instance type CA resolves for an ASG is in neither CA's static list nor what DescribeInstanceTypes returned, so CA cannot build its template.",
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      unknown:
        'ASG {group} uses instance type {type}, which CA does not know ({where}); CA cannot build its template: "{reason}".',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go getAsgTemplate; aws_cloud_provider.go BuildAWS; ec2_instance_types.go',
  },
  run(ctx) {
    const a = ctx.analysis;
    const table = a.instanceTypes;
    for (const g of auditedAsgGroups(a)) {
      const s = scratchOf(a, g);
      if (s.source !== 'none' || !s.instanceType || !/unknown EC2 instance type/.test(s.reason ?? ''))
        continue;
      const type = s.instanceType;
      const live = a.raw.instanceTypes.some((t) => t.InstanceType === type);
      const staticFlag = a.ca.flags.awsUseStaticInstanceList.value;
      const where = staticFlag
        ? `--aws-use-static-instance-list=true: only the static list of ${table.staticListLastUpdateTime}`
        : live
          ? `not in the static list of ${table.staticListLastUpdateTime}`
          : `not in the static list of ${table.staticListLastUpdateTime}${a.raw.provided.has('instanceTypes') ? ' and not returned by DescribeInstanceTypes' : ''}`;
      const t = a.template(g);
      const hasNode = t.source === 'node';
      ctx.report({
        messageId: 'unknown',
        severity: hasNode ? 'warning' : 'error',
        data: { group: g.name, type, where, reason: s.reason ?? '' },
        subject: groupSubject(g),
        nodeGroup: g.name,
        caReason: hasNode ? undefined : 'not ready for scale-up',
        evidence: [
          { source: `ASG ${g.name}`, observed: `instance type ${type}`, expected: "a type in CA's list" },
          {
            source: 'CA instance types',
            observed: `${table.source === 'static' ? 'static list' : 'DescribeInstanceTypes + static list'} (static list updated ${table.staticListLastUpdateTime})`,
          },
          ...(hasNode
            ? [
                {
                  source: 'template',
                  observed: `real node ${t.fromNode} is the template today; at zero CA has none`,
                },
              ]
            : []),
        ],
        remediation:
          staticFlag && live
            ? `Remove --aws-use-static-instance-list=true (or set it false) and grant ec2:DescribeInstanceTypes: CA then loads ${type} from EC2 at start-up.`
            : live
              ? `CA loads DescribeInstanceTypes only at start-up: restart CA (${shellCommand(['kubectl', '-n', a.ca.deployment?.namespace ?? 'kube-system', 'rollout', 'restart', `deployment/${a.ca.deployment?.name ?? 'cluster-autoscaler'}`])}) so it reads ${type}, or upgrade CA to a release whose static list has it.`
              : `Check the type name in the launch template; if it is right, upgrade CA to a release that knows ${type}, or make sure CA can call ec2:DescribeInstanceTypes at start-up (--aws-use-static-instance-list=false).`,
      });
    }
  },
});
