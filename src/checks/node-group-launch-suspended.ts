import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { blocked, groupSubject, listNames, podRef } from './lib/support.js';
import { isAsgGroup } from '../providers/aws/words.js';

export default defineCheck({
  meta: {
    id: 'node-group-launch-suspended',
    title: "The ASG's Launch process is suspended",
    summary:
      'CA raises the desired capacity of a group whose Launch process is suspended: AWS launches nothing and the pods stay Pending.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    providers: ['aws'],
    messages: {
      suspended:
        'Node group {group} has the Launch process suspended ({reason}); {count} Pending pod(s) fit it: {pods}.',
    },
    upstream:
      'AWS Auto Scaling suspend-processes; cluster-autoscaler cloudprovider/aws/auto_scaling_groups.go',
  },
  run(ctx) {
    const byGroup = new Map<string, string[]>();
    for (const p of blocked(ctx.analysis)) {
      for (const e of p.groups) {
        if (!e.group.discovered || e.skip || e.failures.length || e.notEvaluated.length || !e.template.node)
          continue;
        if (!isAsgGroup(e.group) || !e.group.suspendedProcesses.includes('Launch')) continue;
        byGroup.set(e.group.name, [...(byGroup.get(e.group.name) ?? []), podRef(p.pod)]);
      }
    }
    for (const g of ctx.analysis.asgGroups) {
      const pods = byGroup.get(g.name);
      if (!pods) continue;
      const reason =
        (g.asg.SuspendedProcesses ?? []).find((s) => s.ProcessName === 'Launch')?.SuspensionReason ??
        'no reason given';
      ctx.report({
        messageId: 'suspended',
        data: { group: g.name, reason, count: pods.length, pods: listNames(pods) },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [{ source: `ASG ${g.name} SuspendedProcesses`, observed: g.suspendedProcesses.join(', ') }],
        remediation: shellCommand(['aws', 'autoscaling', 'resume-processes', '--auto-scaling-group-name', g.name, '--scaling-processes', 'Launch']),
      });
    }
  },
});
