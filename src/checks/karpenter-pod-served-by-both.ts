import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterPendingViews } from './lib/karpenter.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'karpenter-pod-served-by-both',
    title: 'Pending pod both CA and Karpenter would add a node for',
    summary: 'In a mixed cluster a CA node group and a Karpenter NodePool both fit a Pending pod: both may scale up and one node is wasted.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['pods'],
    autoscaler: 'karpenter',
    messages: {
      both: 'Pod {pod} can be placed by CA node group(s) {groups} and by NodePool(s) {pools}: CA and Karpenter may both provision for it.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go Validate (karpenter.sh/nodepool DoesNotExist); cluster-autoscaler core/static_autoscaler.go',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools'])) return;
    for (const { p, v } of karpenterPendingViews(ctx.analysis, pendingAnalyses(ctx.analysis))) {
      const r = v.routing;
      if (r.route !== 'both') continue;
      ctx.report({
        messageId: 'both',
        data: { pod: `${p.report.namespace}/${p.report.name}`, groups: r.caGroupsFitting.join(', '), pools: r.nodePoolsFitting.join(', ') },
        subject: podSubject(p.pod),
        caReason: 'CA and Karpenter may both provision',
        evidence: [
          { source: 'Cluster Autoscaler', observed: `node group(s) ${r.caGroupsFitting.join(', ')} fit the pod` },
          { source: 'Karpenter', observed: `NodePool(s) ${r.nodePoolsFitting.join(', ')} fit the pod` },
        ],
        remediation:
          "Route the workload to one autoscaler. For CA, keep it off Karpenter (Karpenter then ignores it without an event):\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - {key: karpenter.sh/nodepool, operator: DoesNotExist}\nFor Karpenter, select a label only its nodes carry (e.g. nodeSelector karpenter.sh/nodepool: <pool>), which no CA group's template has.",
      });
    }
  },
});
