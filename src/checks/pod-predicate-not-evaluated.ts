import { defineCheck } from './define-check.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-predicate-not-evaluated',
    title: 'A scheduling rule could not be evaluated for a Pending pod',
    summary:
      'casdoctor lacked data (PVCs, PVs, StorageClasses ...) to evaluate a predicate; the verdict for that pod is incomplete.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['pods'],
    messages: {
      notEvaluated:
        'Pod {pod}: {plugins} could not be evaluated ({detail}); casdoctor does not count them as passed.',
    },
  },
  run(ctx) {
    for (const p of pendingAnalyses(ctx.analysis)) {
      const statuses = p.groups.flatMap((g) => g.notEvaluated);
      if (statuses.length === 0) continue;
      const plugins = [...new Set(statuses.map((s) => s.plugin))];
      const detail = [...new Set(statuses.flatMap((s) => s.details ?? []))].join('; ');
      ctx.report({
        messageId: 'notEvaluated',
        data: {
          pod: `${p.report.namespace}/${p.report.name}`,
          plugins: plugins.join(', '),
          detail: detail || 'missing data',
        },
        subject: podSubject(p.pod),
        evidence: statuses
          .slice(0, 3)
          .map((s) => ({ source: s.plugin, observed: (s.details ?? []).join('; ') })),
        remediation:
          'Add the missing objects to the dump (kubectl get pvc,pv,storageclass -A -o json), or grant casdoctor list on them.',
      });
    }
  },
});
