import { formatDurationShort } from '../model/duration.js';
import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-status-stale',
    title: "CA's status ConfigMap is stale or missing",
    summary:
      'cluster-autoscaler-status was not updated for over 3 minutes (or is absent): CA is probably not running its loop.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['configMaps'],
    messages: {
      stale:
        'ConfigMap {name} was last updated {age} ago (at {at}); CA writes it every loop, so CA is probably not running.',
      missing: 'ConfigMap {name} is missing; CA creates it at start-up and deletes it when it exits.',
    },
    upstream:
      'cluster-autoscaler clusterstate/utils/status.go; FAQ "How can I check what is going on in CA?"',
  },
  run(ctx) {
    const a = ctx.analysis;
    const ns = a.ca.flags.namespace.value;
    const name = `${ns}/${a.ca.flags.statusConfigMapName.value}`;
    const subject = { kind: 'ConfigMap', name: a.ca.flags.statusConfigMapName.value, namespace: ns };
    const logs = shellCommand(['kubectl', '-n', a.ca.deployment?.namespace ?? ns, 'logs', `deploy/${a.ca.deployment?.name ?? 'cluster-autoscaler'}`, '--tail=100']);
    const status = a.caStatus;
    if (!status) {
      if (!a.ca.found || a.ca.flags.writeStatusConfigmap.value === false) return;
      ctx.report({
        messageId: 'missing',
        data: { name },
        subject,
        evidence: [{ source: 'ConfigMaps', observed: 'absent' }],
        remediation: `Check that CA runs and is healthy:\n  ${logs}`,
      });
      return;
    }
    if (!status.stale) {
      // a status casdoctor cannot parse says nothing of CA's health: not evaluated, with what could not be read
      if (status.unreadable)
        ctx.skip(
          'unreadable',
          `ConfigMap ${name} could not be parsed (${status.unreadable}); CA's health from it is not evaluated. Give it whole: ${shellCommand(['kubectl', '-n', ns, 'get', 'configmap', a.ca.flags.statusConfigMapName.value, '-o', 'json'])}`,
        );
      return;
    }
    const at = status.lastUpdated ?? status.time;
    ctx.report({
      messageId: 'stale',
      data: { name, age: formatDurationShort(status.ageMs ?? 0), at: at?.toISOString() ?? 'unknown' },
      subject,
      evidence: [
        {
          source: `ConfigMap ${name}`,
          observed: `last updated ${at?.toISOString() ?? 'unknown'}`,
          expected: 'within 3 minutes',
        },
      ],
      remediation: `Check that CA runs and is not crash-looping or stuck (a failing AWS refresh stops the loop):\n  ${logs}\nWhen reading a dump, pass --now with the time the dump was taken.`,
    });
  },
});
