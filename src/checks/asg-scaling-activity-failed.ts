import type { ScalingActivity } from '../model/aws.js';
import { auditedAsgGroups } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject } from '../providers/aws/asg-audit-checks.js';

/** Failures older than this are history, not findings. */
const RECENT_MS = 7 * 24 * 3600 * 1000;

function kindOf(message: string): { kind: string; fix: string } {
  if (/sufficient .*capacity|InsufficientInstanceCapacity/i.test(message))
    return {
      kind: 'EC2 capacity',
      fix: 'Offer AWS more choices: more instance types of the same shape in a MixedInstancesPolicy, more subnets/AZs (mind zonal volumes), or a capacity reservation.',
    };
  if (/vCPU|VcpuLimitExceeded|InstanceLimitExceeded/i.test(message))
    return {
      kind: 'account limit',
      fix: 'Request a higher EC2 vCPU quota (Service Quotas, "Running On-Demand ... instances"), or lower max sizes to what the quota allows.',
    };
  if (/spot/i.test(message))
    return {
      kind: 'Spot',
      fix: 'Add more Spot instance types and AZs, or allow On-Demand in the instances distribution.',
    };
  if (
    /launch template|launch configuration|instance profile|not authorized|Invalid|not supported|does not exist/i.test(
      message,
    )
  )
    return {
      kind: 'launch configuration',
      fix: 'Fix the launch template (or configuration) the message names; every scale-up fails until then.',
    };
  return { kind: 'launch', fix: 'Read the AWS message above; CA cannot fix this by itself.' };
}

const time = (a: ScalingActivity) => Date.parse(a.StartTime ?? '') || 0;

/** One format whether the dump came from aws-cli (+00:00, microseconds) or the SDK (Z, milliseconds). */
function when(a: ScalingActivity): string {
  const t = time(a);
  return t ? new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z') : (a.StartTime ?? '?');
}

export default defineCheck({
  meta: {
    id: 'asg-scaling-activity-failed',
    title: 'The ASG recently failed to launch instances',
    summary:
      'A recent scaling activity of the ASG failed (EC2 capacity, vCPU limits, Spot, a bad launch template); CA marks the group as out of resources and backs off.',
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'scalingActivities'],
    providers: ['aws'],
    messages: {
      failed: 'Node group {group}: a launch failed at {time} ({kind}){after}: "{message}".',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/auto_scaling_groups.go (placeholder-cannot-be-fulfilled after a Failed scaling activity)',
  },
  run(ctx) {
    const a = ctx.analysis;
    const now = a.now.getTime();
    for (const g of auditedAsgGroups(a)) {
      if (!g.discovered) continue;
      const acts = a.raw.scalingActivities
        .filter((x) => x.AutoScalingGroupName === g.name)
        .sort((x, y) => time(y) - time(x));
      const failed = acts.find(
        (x) => x.StatusCode === 'Failed' && now - time(x) <= RECENT_MS && time(x) <= now,
      );
      if (!failed) continue;
      const recovered = acts.find(
        (x) =>
          x.StatusCode === 'Successful' && /^Launching/.test(x.Description ?? '') && time(x) > time(failed),
      );
      const message = failed.StatusMessage ?? failed.Description ?? 'no status message';
      const k = kindOf(message);
      ctx.report({
        messageId: 'failed',
        severity: recovered ? 'info' : g.placeholderCount > 0 ? 'error' : 'warning',
        data: {
          group: g.name,
          time: when(failed),
          kind: k.kind,
          after: recovered
            ? `, later launches succeeded (${when(recovered)})`
            : g.placeholderCount > 0
              ? `, ${g.placeholderCount} requested instance(s) still missing`
              : '',
          message,
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        ...(recovered ? {} : { caReason: 'placeholder-cannot-be-fulfilled' }),
        evidence: [
          {
            source: 'autoscaling:DescribeScalingActivities',
            observed: `${failed.StatusCode} ${when(failed)}: ${failed.Description ?? ''}`,
          },
          ...(failed.Cause ? [{ source: 'cause', observed: failed.Cause }] : []),
        ],
        remediation: k.fix,
      });
    }
  },
});
