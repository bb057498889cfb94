import { remedyText } from '../providers/types.js';
import { defineCheck } from './define-check.js';
import { reportSkippedGroups } from './lib/group-skip.js';

export default defineCheck({
  meta: {
    id: 'node-group-max-size-reached',
    title: 'Node group at its max size while pods that fit it are Pending',
    summary:
      'The node group Pending pods fit is at its max size: CA skips it ("max node group size reached").',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      skipped: 'Node group {group} is at its max size ({detail}); {count} Pending pod(s) fit it: {pods}.',
    },
    upstream: 'cluster-autoscaler core/scaleup/orchestrator/orchestrator.go filterValidScaleUpNodeGroups',
  },
  run(ctx) {
    const a = ctx.analysis;
    reportSkippedGroups(ctx, 'max-size', (g) =>
      g.via === 'nodes-flag'
        ? `Raise the max in CA's --nodes=${g.minSize}:${g.maxSize}:${g.name} flag (and the ASG's MaxSize to match).`
        : `${remedyText(a.provider.raiseMaxSize(g, Math.max(g.maxSize * 2, g.maxSize + 2), a.providerContext))}\nor add capacity in another node group the pods can use.`,
    );
  },
});
