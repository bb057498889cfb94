import { formatDurationShort } from '../model/duration.js';
import { shellCommand } from '../model/shell.js';
import { caObjectEvents } from '../simulate/ca-events.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-graceful-degradation',
    title: 'CA is in graceful degradation: it skips part of the Pending pods',
    summary:
      'CA 1.37 with --enable-graceful-degradation ran out of --pending-pods-batching-timeout and now leaves the lowest-priority Pending pods out of each loop.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['events'],
    messages: {
      degraded:
        'CA entered graceful degradation {age} ago and has not left it: each loop it stops simulating Pending pods after --pending-pods-batching-timeout={timeout} and skips the lowest-priority ones, so some Pending pods get no scale-up and no event.',
    },
    upstream: 'cluster-autoscaler core/podlistprocessor/filter_out_schedulable.go manageGracefulDegradation (1.37)',
  },
  run(ctx) {
    const a = ctx.analysis;
    const ns = a.ca.flags.namespace.value;
    const name = a.ca.flags.statusConfigMapName.value;
    // newest first: the latest Started/Stopped decides whether CA is still degraded
    const latest = caObjectEvents(a.raw.events).find(
      (ev) =>
        ev.object.kind === 'ConfigMap' &&
        ev.object.name === name &&
        (ev.object.namespace ?? ns) === ns &&
        (ev.reason === 'GracefulDegradationStarted' || ev.reason === 'GracefulDegradationStopped'),
    );
    if (!latest || latest.reason !== 'GracefulDegradationStarted') return;
    const age = latest.time ? formatDurationShort(Math.max(0, a.now.getTime() - latest.time.getTime())) : 'some time';
    const timeout = formatDurationShort(a.ca.flags.pendingPodsBatchingTimeout.value);
    ctx.report({
      messageId: 'degraded',
      data: { age, timeout },
      subject: { kind: 'ConfigMap', name, namespace: ns },
      caReason: 'GracefulDegradationStarted',
      evidence: [
        { source: `CA event on ConfigMap ${ns}/${name}`, observed: `${latest.reason}: ${latest.message}` },
        { source: 'CA flags', observed: `--pending-pods-batching-timeout=${timeout}` },
      ],
      remediation: `CA's own advice: reduce the rate of new Pending pods so it can recover. Also give CA more CPU (the simulation is CPU-bound) or raise --pending-pods-batching-timeout. Watch for GracefulDegradationStopped:\n  ${shellCommand(['kubectl', '-n', ns, 'get', 'events', '--field-selector', `involvedObject.name=${name}`])}`,
    });
  },
});
