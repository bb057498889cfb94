import { defineCheck } from './define-check.js';
import { context, drainOf, workloadRef, workloadSubject } from './lib/preflight.js';

export default defineCheck({
  meta: {
    id: 'workload-bare-pod',
    title: 'Pod without a controller',
    summary:
      'A bare Pod (no controller): CA never removes the node it runs on, since nothing would recreate it.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      bare: '{workload} has no controller: CA never removes a node running it ({pod} is not replicated).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/replicated/rule.go',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    for (const w of pf.workloads) {
      if (w.kind !== 'Pod') continue;
      const blocker = drainOf(ctx.analysis, w).blockers.find(
        (b) => b.rule === 'Replicated' && !b.controllerKind,
      );
      if (!blocker) continue;
      ctx.report({
        messageId: 'bare',
        data: { workload: workloadRef(w), pod: `${w.namespace}/${w.name}` },
        subject: workloadSubject(w),
        caReason: blocker.reason,
        evidence: [
          {
            source: 'Pod metadata.ownerReferences',
            observed: 'none with controller: true',
            expected: 'a Deployment, StatefulSet or Job',
          },
        ],
        remediation: [
          'Run it from a controller: a Deployment (long-running), a Job (runs to completion) or a StatefulSet.',
          'If losing it on scale-down is fine, annotate it cluster-autoscaler.kubernetes.io/safe-to-evict: "true".',
        ].join('\n'),
      });
    }
  },
});
