import { defineCheck } from './define-check.js';
import { blocked, groupSubject, listNames, podRef } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'node-group-no-template',
    title: 'CA cannot build a template node for the node group',
    summary:
      'No usable real node and no buildable scratch template (unknown instance type, missing launch template data): CA skips the group as "not ready for scale-up".',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      noTemplate:
        'Node group {group} has no template node: {reason}; CA skips it for every Pending pod ({count} now: {pods}).',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go getAsgTemplate; processors/nodeinfosprovider',
  },
  run(ctx) {
    const words = ctx.analysis.provider.words;
    const all = blocked(ctx.analysis);
    for (const g of ctx.analysis.nodeGroups) {
      if (!g.discovered) continue;
      const t = ctx.analysis.template(g);
      if (t.source !== 'none') continue;
      // only when "no template" is the reason CA gives for this group (health, backoff and max size come first)
      const pods = all.filter((p) => p.groups.some((e) => e.group === g && e.skip?.kind === 'no-template'));
      if (pods.length === 0) continue;
      const unknownType = /unknown EC2 instance type/.test(t.reason ?? '');
      ctx.report({
        messageId: 'noTemplate',
        data: {
          group: g.name,
          reason: t.reason ?? 'unknown',
          count: pods.length,
          pods: listNames(pods.map((p) => podRef(p.pod))),
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        caReason: 'not ready for scale-up',
        evidence: [
          {
            source: words.noTemplateSource(g, t, ctx.analysis.providerContext, ctx.analysis.provider),
            observed: t.reason ?? 'no template',
            expected: words.noTemplateExpected,
          },
          ...(t.missing ?? []).map((m) => ({ source: 'snapshot', observed: `missing ${m}` })),
        ],
        remediation: unknownType
          ? `CA's instance-type list lacks ${t.instanceType ?? 'the type'} and fails before it reads any node-template tag (aws_manager.go getAsgTemplate). Restart CA with --aws-use-static-instance-list=false and ec2:DescribeInstanceTypes (it loads the region's types at start-up only), upgrade CA to a release whose static list has the type, or use a type CA knows.`
          : t.missing?.length
            ? `Give casdoctor (and CA) the missing data: ${t.missing.join(', ')}.`
            : words.noTemplateFix,
      });
    }
  },
});
