import { formatDurationShort } from '../model/duration.js';
import { analyzeScaleDown } from '../simulate/scale-down.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'scale-down-in-cooldown',
    title: 'Scale-down is in cooldown',
    summary: 'A recent scale-up, failed scale-down or deletion keeps CA from deleting any node for a while (--scale-down-delay-after-*).',
    severity: 'info',
    commands: ['scale-down-blockers'],
    requires: ['events'],
    messages: {
      cooldown:
        'Scale-down{scope} is in cooldown for {left} more: {flag}={delay} after the {cause} at {at}.',
    },
    upstream: 'cluster-autoscaler core/static_autoscaler.go isScaleDownInCooldown',
  },
  run(ctx) {
    for (const c of analyzeScaleDown(ctx.analysis).cooldowns) {
      ctx.report({
        messageId: 'cooldown',
        data: {
          scope: c.group ? ` of node group ${c.group}` : '',
          left: formatDurationShort(Math.ceil(c.leftMs / 1000) * 1000),
          flag: c.flag,
          delay: formatDurationShort(c.delayMs),
          cause: c.cause.replaceAll('-', ' '),
          at: c.at.toISOString(),
        },
        subject: c.group ? { kind: 'AutoScalingGroup', name: c.group } : { kind: 'Cluster', name: 'cluster-autoscaler' },
        ...(c.group ? { nodeGroup: c.group } : {}),
        caReason: 'scale down in cooldown',
        evidence: [{ source: c.evidence.split(':')[0], observed: c.evidence }],
        remediation: `Nothing to fix: CA resumes deleting unneeded nodes when the cooldown ends. To shorten it, lower ${c.flag} on CA.`,
      });
    }
  },
});
