import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterPendingViews, stageText } from './lib/karpenter.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

// a pool that fails on a custom label is karpenter-custom-label-unknown's finding
const CUSTOM_LABEL = /label "[^"]+" does not have known values/;

export default defineCheck({
  meta: {
    id: 'karpenter-pod-unplaceable',
    title: 'Pending pod that no Karpenter NodePool fits',
    summary: 'A Pending pod Karpenter tries to place, but every NodePool rejects it; names the failing stage of each pool.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods'],
    autoscaler: 'karpenter',
    messages: {
      unplaceable: 'Pod {pod} fits no Karpenter NodePool and no CA node group takes it: {pools}.',
      unplaceableNoCa: 'Pod {pod} fits no Karpenter NodePool, and no Cluster Autoscaler runs: {pools}.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go, scheduling/nodeclaim.go',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools', 'ec2NodeClasses'])) return;
    for (const { p, v } of karpenterPendingViews(ctx.analysis, pendingAnalyses(ctx.analysis))) {
      const x = v.explanation;
      // capacity Karpenter already has takes it, or its verdict is not evaluated (topology): not "unplaceable"
      if (!x.eligibility.provisionable || x.chosen || x.outcome === 'in-flight' || x.outcome === 'not-evaluated' || v.routing.route === 'ca' || v.routing.route === 'both') continue;
      if (x.pools.some((pl) => pl.error && CUSTOM_LABEL.test(pl.error))) continue;
      const pools = x.pools.map((pl) =>
        pl.verdict === 'not-evaluated'
          ? `${pl.nodePool}: skipped (${stageText(pl.stage)})`
          : pl.verdict === 'fits'
            ? `${pl.nodePool}: fits but its NodeClaim cannot launch (${pl.launchError ?? ''})`
            : `${pl.nodePool}: ${stageText(pl.stage)} (${pl.error ?? ''})`,
      );
      ctx.report({
        messageId: v.routing.caPresent ? 'unplaceable' : 'unplaceableNoCa',
        data: { pod: `${p.report.namespace}/${p.report.name}`, pools: pools.length ? pools.join('; ') : 'there is no NodePool' },
        subject: podSubject(p.pod),
        caReason: x.event ?? 'no NodePool fits',
        evidence: x.pools.map((pl) => ({
          source: `NodePool ${pl.nodePool}`,
          observed: pl.verdict === 'rejected' ? `${stageText(pl.stage)}: ${pl.detail}` : pl.detail || pl.verdict,
          ...(pl.legacyError ? { expected: `Karpenter before v1.5 said: ${pl.legacyError}` } : {}),
        })),
        remediation:
          'Fix the first failing stage of the NodePool meant for this pod (casdoctor why-pending shows each stage with its values): widen its requirements, raise spec.limits, add a toleration, or make the pod ask for what the pool offers.',
      });
    }
  },
});
