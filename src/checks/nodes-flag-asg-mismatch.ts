import { shellCommand } from '../model/shell.js';
import { auditedGroups, isAsgScoped } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { caSubject, groupSubject } from '../providers/aws/asg-audit-checks.js';
import { isAsgGroup } from '../providers/aws/words.js';

export default defineCheck({
  meta: {
    id: 'nodes-flag-asg-mismatch',
    title: 'A --nodes entry disagrees with its ASG',
    summary:
      "A --nodes=min:max:asg entry names an ASG that does not exist, or sets min/max outside the ASG's own MinSize/MaxSize (CA uses the flag's values).",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      missing: '--nodes={spec} names ASG {group}, which does not exist in this region.',
      maxAbove:
        "--nodes={spec} lets CA scale {group} to {flagMax} but the ASG's MaxSize is {asgMax}: SetDesiredCapacity above {asgMax} fails.",
      minBelow:
        "--nodes={spec} lets CA scale {group} down to {flagMin} but the ASG's MinSize is {asgMin}: CA's scale-down below {asgMin} fails.",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/auto_scaling_groups.go register ("Explicit registered groups should always use the manually provided min/max values")',
  },
  run(ctx) {
    const a = ctx.analysis;
    const audited = new Set(auditedGroups(a).map((g) => g.name));
    for (const s of a.ca.nodeGroupSpecs) {
      const g = a.nodeGroupsResult.nodeGroups.find((x) => x.name === s.name);
      if (g && isAsgScoped(a) && !audited.has(g.name)) continue;
      if (g && !isAsgGroup(g)) continue;
      if (!g) {
        ctx.report({
          messageId: 'missing',
          severity: 'error',
          data: { spec: s.raw, group: s.name },
          subject: caSubject(a),
          evidence: [{ source: 'autoscaling:DescribeAutoScalingGroups', observed: `no ASG named ${s.name}` }],
          remediation: `Fix the name in --nodes=${s.raw} (ASG names are case-sensitive), or remove the flag. CA keeps explicit groups registered even when they do not exist.`,
        });
        continue;
      }
      const evidence = [
        { source: 'CA flags', observed: `--nodes=${s.raw}` },
        { source: `ASG ${g.name}`, observed: `MinSize ${g.asgMinSize}, MaxSize ${g.asgMaxSize}` },
      ];
      if (s.max > g.asgMaxSize) {
        ctx.report({
          messageId: 'maxAbove',
          data: { spec: s.raw, group: g.name, flagMax: s.max, asgMax: g.asgMaxSize },
          subject: groupSubject(g),
          nodeGroup: g.name,
          caReason: 'FailedToScaleUpGroup',
          evidence,
          remediation: `Make them agree: ${shellCommand(['aws', 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', g.name, '--max-size', String(s.max)])}, or --nodes=${s.min}:${g.asgMaxSize}:${g.name}.`,
        });
      }
      if (s.min < g.asgMinSize) {
        ctx.report({
          messageId: 'minBelow',
          data: { spec: s.raw, group: g.name, flagMin: s.min, asgMin: g.asgMinSize },
          subject: groupSubject(g),
          nodeGroup: g.name,
          caReason: 'ScaleDownFailed',
          evidence,
          remediation: `Make them agree: ${shellCommand(['aws', 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', g.name, '--min-size', String(s.min)])}, or --nodes=${g.asgMinSize}:${s.max}:${g.name}.`,
        });
      }
    }
  },
});
