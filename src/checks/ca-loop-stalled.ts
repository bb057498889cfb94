import { formatDurationShort } from '../model/duration.js';
import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';

/** CA's own liveness rule of thumb: a loop every --scan-interval; three missed in a row is a stall, not jitter. */
const MISSED_LOOPS = 3;

export default defineCheck({
  meta: {
    id: 'ca-loop-stalled',
    title: "CA's main loop stopped or stalls",
    summary:
      "CA's log (or its last_activity metric) shows no main loop for more than three scan intervals: CA is stuck, not just slow.",
    severity: 'error',
    commands: ['why-pending', 'asg-audit', 'scale-down-blockers'],
    requires: ['deployments'],
    messages: {
      stopped:
        "CA's last main loop started at {at}, {gap} before {end} (--scan-interval {interval}): CA has stopped running its loop.",
      stalled:
        'CA ran no main loop for {gap} up to {at} (--scan-interval {interval}); it has run again since.',
      metric:
        "CA's last_activity{activity=\"main\"} metric is {gap} old at {end} (--scan-interval {interval}): CA has stopped running its loop.",
    },
    upstream:
      'cluster-autoscaler core/static_autoscaler.go RunOnce ("Starting main loop", V4); metrics/metrics.go last_activity',
  },
  run(ctx) {
    const a = ctx.analysis;
    const interval = a.ca.flags.scanInterval.value;
    const bound = MISSED_LOOPS * interval;
    const ns = a.ca.deployment?.namespace ?? 'kube-system';
    const dep = a.ca.deployment?.name ?? 'cluster-autoscaler';
    const subject = { kind: 'Deployment', name: dep, namespace: ns };
    const logs = shellCommand(['kubectl', '-n', ns, 'logs', `deploy/${dep}`, '--since=30m']);
    const remediation = `Read what CA did last (an AWS call that hangs, a huge cluster listing, a lost leader lease):\n  ${logs}\nCA's liveness probe on /health-check restarts it after --max-inactivity (10m) without a loop.`;
    const metrics = a.caMetrics;
    const log = a.caLog;
    if (!log && !metrics) {
      ctx.skip('not-provided', a.missingRecord('caLog')?.detail ?? 'no CA log or metrics in the input');
      return;
    }
    const intervalText = formatDurationShort(interval);
    if (log && log.mainLoop.count > 0) {
      const since = log.mainLoop.sinceLastLoopMs ?? 0;
      if (since > bound && log.mainLoop.last && log.lastTime) {
        ctx.report({
          messageId: 'stopped',
          data: { at: log.mainLoop.last, gap: formatDurationShort(since), end: `the log's last line (${log.lastTime})`, interval: intervalText },
          subject,
          evidence: [{ source: 'CA log', observed: `last "Starting main loop" at ${log.mainLoop.last}; last line at ${log.lastTime}`, expected: `a loop every ${intervalText}` }],
          remediation,
        });
        return;
      }
      const gap = log.mainLoop.maxGapMs ?? 0;
      if (gap > bound && log.mainLoop.maxGapEndedAt) {
        ctx.report({
          messageId: 'stalled',
          severity: 'warning',
          data: { gap: formatDurationShort(gap), at: log.mainLoop.maxGapEndedAt, interval: intervalText },
          subject,
          evidence: [{ source: 'CA log', observed: `${log.mainLoop.count} loops from ${log.mainLoop.first} to ${log.mainLoop.last}; longest gap ${formatDurationShort(gap)}`, expected: `a loop every ${intervalText}` }],
          remediation,
        });
      }
      return;
    }
    const main = metrics?.lastActivity.main;
    if (main !== undefined) {
      const age = a.now.getTime() - main * 1000;
      if (age > bound) {
        ctx.report({
          messageId: 'metric',
          data: { gap: formatDurationShort(age), end: a.now.toISOString(), interval: intervalText },
          subject,
          evidence: [{ source: 'CA /metrics', observed: `cluster_autoscaler_last_activity{activity="main"} ${main}`, expected: `within ${intervalText}` }],
          remediation,
        });
      }
      return;
    }
    ctx.skip(
      'not-provided',
      "CA's log has no \"Starting main loop\" lines (CA logs them at --v=4 and above) and no /metrics was read: the loop's cadence is unknown",
    );
  },
});
