import { defineCheck } from './define-check.js';
import { SAFE_TO_EVICT } from './lib/preflight-drain.js';
import { context, drainOf, workloadRef, workloadSubject } from './lib/preflight.js';

export default defineCheck({
  meta: {
    id: 'workload-not-safe-to-evict',
    title: 'Pods annotated safe-to-evict: "false"',
    summary:
      'Pods annotated cluster-autoscaler.kubernetes.io/safe-to-evict: "false": no node running one is ever scaled down.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      notSafe:
        '{workload} annotates its pods {annotation}: "false": CA never removes a node running one of them (NotSafeToEvictAnnotation).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/notsafetoevict/rule.go',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    for (const w of pf.workloads) {
      const blocker = drainOf(ctx.analysis, w).blockers.find((b) => b.rule === 'NotSafeToEvict');
      if (!blocker) continue;
      ctx.report({
        messageId: 'notSafe',
        data: { workload: workloadRef(w), annotation: SAFE_TO_EVICT },
        subject: workloadSubject(w),
        caReason: blocker.reason,
        evidence: [{ source: 'pod template metadata.annotations', observed: `${SAFE_TO_EVICT}: "false"` }],
        remediation: [
          'Remove the annotation if the pods can be restarted elsewhere (give them a PodDisruptionBudget to keep enough replicas up).',
          'If they truly must not be interrupted, run them on a node group CA does not scale down, or accept that their nodes stay.',
          `Since CA 1.36, ${SAFE_TO_EVICT}: "on-completion" lets CA wait for a batch pod to finish instead.`,
        ].join('\n'),
      });
    }
  },
});
