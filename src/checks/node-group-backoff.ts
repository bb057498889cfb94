import { remedyText } from '../providers/types.js';
import { defineCheck } from './define-check.js';
import { reportSkippedGroups } from './lib/group-skip.js';

export default defineCheck({
  meta: {
    id: 'node-group-backoff',
    title: 'Node group in backoff after a failed scale-up',
    summary:
      'CA backs a node group off after a failed scale-up (capacity, quota, bad launch template) and skips it for 5–30 minutes.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups', 'configMaps'],
    messages: {
      skipped: 'Node group {group} is in backoff ({detail}); {count} Pending pod(s) fit it: {pods}.',
    },
    upstream: 'cluster-autoscaler utils/backoff/exponential_backoff.go; clusterstate/clusterstate.go',
  },
  run(ctx) {
    reportSkippedGroups(
      ctx,
      'backoff',
      (g) =>
        `${remedyText(ctx.analysis.provider.inspectFailures(g, ctx.analysis.providerContext))}\nFix its cause (${ctx.analysis.provider.words.backoffCauses}). CA retries after the backoff (5m doubling to 30m).`,
    );
  },
});
