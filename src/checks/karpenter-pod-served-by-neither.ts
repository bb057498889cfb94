import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterPendingViews } from './lib/karpenter.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'karpenter-pod-served-by-neither',
    title: 'Pending pod routed away from Karpenter that CA cannot place',
    summary: 'A Pending pod that Karpenter ignores (karpenter.sh/nodepool DoesNotExist) and that no CA node group fits: no autoscaler acts.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods'],
    autoscaler: 'karpenter',
    // the pods Karpenter leaves to CA and CA cannot place: neither autoscaler's alone
    routes: ['neither'],
    messages: {
      neither: 'Pod {pod} is left to CA (Karpenter {ignores}), but no CA node group fits it: {groups}.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go:491-500@v1.6.2 (configured to not run on a Karpenter provisioned node)',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools'])) return;
    for (const { p, v } of karpenterPendingViews(ctx.analysis, pendingAnalyses(ctx.analysis))) {
      const r = v.routing;
      // a pod Karpenter tries and fails is karpenter-pod-unplaceable's; one CA ignores is pod-ignored-by-ca's
      if (r.route !== 'neither' || !r.karpenterIgnores || r.karpenterIgnores.id === 'karpenter-absent' || !r.caConsiders) continue;
      if (r.karpenterIgnores.id === 'not-unschedulable') continue;
      const groups = p.report.nodeGroups.length
        ? p.report.nodeGroups.map((g) => `${g.name}: ${g.reasons.join(', ') || 'does not fit'}`).join('; ')
        : 'CA has no node group';
      ctx.report({
        messageId: 'neither',
        data: { pod: `${p.report.namespace}/${p.report.name}`, ignores: `ignores it: ${r.karpenterIgnores.text}`, groups },
        subject: podSubject(p.pod),
        caReason: r.karpenterIgnores.emitsEvent ? r.karpenterIgnores.text : 'Karpenter records no event',
        evidence: [
          { source: 'Karpenter', observed: r.karpenterIgnores.text },
          ...p.report.nodeGroups.map((g) => ({ source: `node group ${g.name}`, observed: g.reasons.join(', ') || 'does not fit', ...(g.values ? { expected: g.values } : {}) })),
        ],
        remediation:
          'Either give CA a node group that fits the pod (casdoctor why-pending shows why each group fails), or let Karpenter take it: remove the karpenter.sh/nodepool DoesNotExist requirement from the pod template so a NodePool can place it.',
      });
    }
  },
});
