import type { Severity } from '../model/findings.js';
import { shellCommand } from '../model/shell.js';
import { auditedAsgGroups } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject } from '../providers/aws/asg-audit-checks.js';

const EFFECTS: Record<string, { severity: Severity; effect: string; fix: string }> = {
  Launch: {
    severity: 'error',
    effect:
      'CA raises DesiredCapacity but AWS launches nothing; after --max-node-provision-time CA backs off',
    fix: 'Launch',
  },
  Terminate: {
    severity: 'warning',
    effect:
      'the ASG does not terminate instances on scale-in or replace unhealthy ones; scale-downs do not complete as CA expects',
    fix: 'Terminate',
  },
  AZRebalance: {
    severity: 'info',
    effect:
      'the ASG stops rebalancing AZs; CA does not rebalance zones inside one ASG either, so the zones drift apart',
    fix: 'AZRebalance',
  },
};

export default defineCheck({
  meta: {
    id: 'asg-process-suspended',
    title: 'An Auto Scaling process CA relies on is suspended',
    summary:
      "The ASG has Launch, Terminate or AZRebalance suspended: CA's scale-ups launch nothing, scale-downs do not complete, or zones drift.",
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      suspended: 'Node group {group} has the {process} process suspended ({reason}): {effect}.',
    },
    upstream:
      'AWS Auto Scaling SuspendProcesses; cluster-autoscaler cloudprovider/aws/auto_scaling_groups.go',
  },
  run(ctx) {
    for (const g of auditedAsgGroups(ctx.analysis)) {
      if (!g.discovered) continue;
      for (const p of g.asg.SuspendedProcesses ?? []) {
        const e = EFFECTS[p.ProcessName];
        if (!e) continue;
        ctx.report({
          messageId: 'suspended',
          severity: e.severity,
          data: {
            group: g.name,
            process: p.ProcessName,
            reason: p.SuspensionReason ?? 'no reason given',
            effect: e.effect,
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            { source: `ASG ${g.name} SuspendedProcesses`, observed: g.suspendedProcesses.join(', ') },
          ],
          remediation: shellCommand(['aws', 'autoscaling', 'resume-processes', '--auto-scaling-group-name', g.name, '--scaling-processes', e.fix]),
        });
      }
    }
  },
});
