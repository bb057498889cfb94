import { defineCheck } from './define-check.js';
import { REPLICATED_KINDS } from './lib/preflight-drain.js';
import { context, drainOf, workloadRef, workloadSubject } from './lib/preflight.js';

export default defineCheck({
  meta: {
    id: 'workload-custom-controller-owner',
    title: 'Pod owned by a custom controller',
    summary:
      'Pods owned by a controller kind CA does not know (an operator CRD): with --skip-nodes-with-custom-controller-pods=true their nodes are never scaled down.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      custom:
        '{workload} is controlled by a {owner}, not one of {known}: with --skip-nodes-with-custom-controller-pods=true CA never removes a node running it (NotReplicated).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/replicated/rule.go (replicatedKind)',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    for (const w of pf.workloads) {
      const blocker = drainOf(ctx.analysis, w).blockers.find(
        (b) => b.rule === 'Replicated' && b.controllerKind,
      );
      if (!blocker?.controllerKind) continue;
      const owner = w.pod.metadata.ownerReferences?.find((o) => o.controller === true);
      ctx.report({
        messageId: 'custom',
        data: {
          workload: workloadRef(w),
          owner: `${blocker.controllerKind}${owner?.name ? ` ${owner.name}` : ''}`,
          known: [...REPLICATED_KINDS].join(', '),
        },
        subject: workloadSubject(w),
        caReason: blocker.reason,
        evidence: [
          {
            source: 'metadata.ownerReferences (controller)',
            observed: `${owner?.apiVersion ?? ''} ${blocker.controllerKind}`.trim(),
            expected: [...REPLICATED_KINDS].join(' | '),
          },
        ],
        remediation: [
          'If the operator recreates its pods elsewhere, annotate them cluster-autoscaler.kubernetes.io/safe-to-evict: "true" (in the custom resource\'s pod template),',
          'or run CA with --skip-nodes-with-custom-controller-pods=false (then every custom-controller pod counts as replicated).',
        ].join('\n'),
      });
    }
  },
});
