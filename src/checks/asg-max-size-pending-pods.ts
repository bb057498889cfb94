import { auditedGroups } from '../providers/aws/asg-audit.js';
import { remedyText } from '../providers/types.js';
import { blockedPodsPassingGroups } from '../simulate/why-pending.js';
import { defineCheck } from './define-check.js';
import { reportSkippedGroups } from './lib/group-skip.js';

export default defineCheck({
  meta: {
    id: 'asg-max-size-pending-pods',
    title: 'A node group is at its max size while pods that fit it are Pending',
    summary:
      'The ASG is at its max size and Pending pods fit its template: CA skips it ("max node group size reached").',
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      skipped: 'Node group {group} is at its max size ({detail}); {count} Pending pod(s) fit it: {pods}.',
    },
    upstream: 'cluster-autoscaler core/scaleup/orchestrator/orchestrator.go filterValidScaleUpNodeGroups',
  },
  run(ctx) {
    const groups = auditedGroups(ctx.analysis);
    // why-pending's skip is 'max-size' only for a group with desired >= max: without one, skip the pod analysis
    if (!groups.some((g) => g.targetSize >= g.maxSize)) return;
    const audited = new Set(groups.map((g) => g.name));
    // only pods passing an audited at-max group's template can be reported: analyse those, not every Pending pod
    const atMax = ctx.analysis.nodeGroups.filter((g) => g.discovered && g.targetSize >= g.maxSize && audited.has(g.name));
    const scoped = {
      ...ctx,
      report: (i: Parameters<typeof ctx.report>[0]) => audited.has(i.nodeGroup ?? '') && ctx.report(i),
    };
    reportSkippedGroups(scoped, 'max-size', (g) =>
      g.via === 'nodes-flag'
        ? `Raise the max in CA's --nodes=${g.minSize}:${g.maxSize}:${g.name} flag (and the ASG's MaxSize to match).`
        : remedyText(ctx.analysis.provider.raiseMaxSize(g, Math.max(g.maxSize * 2, g.maxSize + 2), ctx.analysis.providerContext)),
      blockedPodsPassingGroups(ctx.analysis, atMax),
    );
  },
});
