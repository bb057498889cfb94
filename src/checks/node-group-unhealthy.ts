import { defineCheck } from './define-check.js';
import { reportSkippedGroups } from './lib/group-skip.js';

export default defineCheck({
  meta: {
    id: 'node-group-unhealthy',
    title: 'Node group unhealthy: too many unready or unregistered nodes',
    summary:
      'CA marks a group unhealthy when too many of its nodes are unready or never registered, and skips it ("not ready for scale-up").',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups', 'configMaps'],
    messages: {
      skipped: 'Node group {group} is unhealthy ({detail}); {count} Pending pod(s) fit it: {pods}.',
    },
    upstream: 'cluster-autoscaler clusterstate/clusterstate.go IsNodeGroupHealthy',
  },
  run(ctx) {
    reportSkippedGroups(
      ctx,
      'unhealthy',
      (g) => ctx.analysis.provider.words.unhealthyFix(g, ctx.analysis.providerContext, ctx.analysis.provider),
    );
  },
});
