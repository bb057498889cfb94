import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterPendingViews } from './lib/karpenter.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

// requirements.go:233 — a custom label a pod selects must be in the NodePool's requirements or template labels
const UNKNOWN = /label "([^"]+)" does not have known values/;

export default defineCheck({
  meta: {
    id: 'karpenter-custom-label-unknown',
    title: 'Pod selects a custom label no NodePool defines',
    summary: 'A Pending pod selects a custom node label that no NodePool lists in its requirements or template labels.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods'],
    autoscaler: 'karpenter',
    messages: {
      unknown: 'Pod {pod} selects custom label {label}, which NodePool(s) {pools} neither list in spec.template.spec.requirements nor set in spec.template.metadata.labels.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/scheduling/requirements.go (label "%s" does not have known values)',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools'])) return;
    for (const { p, v } of karpenterPendingViews(ctx.analysis, pendingAnalyses(ctx.analysis))) {
      const x = v.explanation;
      if (!x.eligibility.provisionable || x.chosen || v.routing.route === 'ca' || v.routing.route === 'both') continue;
      const byLabel = new Map<string, string[]>();
      for (const pl of x.pools) {
        const m = UNKNOWN.exec(pl.error ?? '');
        if (m) byLabel.set(m[1], [...(byLabel.get(m[1]) ?? []), pl.nodePool]);
      }
      for (const [label, pools] of byLabel) {
        const value = p.pod.spec.nodeSelector?.[label];
        ctx.report({
          messageId: 'unknown',
          data: { pod: `${p.report.namespace}/${p.report.name}`, label, pools: pools.join(', ') },
          subject: podSubject(p.pod),
          caReason: `label "${label}" does not have known values`,
          evidence: pools.map((pool) => ({
            source: `NodePool ${pool}`,
            observed: `spec.template.spec.requirements and spec.template.metadata.labels have no ${label}`,
            expected: value !== undefined ? `${label}=${value}` : `a requirement on ${label}`,
          })),
          remediation: `Add the label to the NodePool meant for the pod, as a template label (its nodes then carry it):\n  ${shellCommand(['kubectl', 'patch', 'nodepool', pools[0], '--type', 'merge', '-p', JSON.stringify({ spec: { template: { metadata: { labels: { [label]: value ?? '<value>' } } } } })])}\nor as a requirement (key ${label}, operator In, values [${value ?? '<value>'}]). Or drop the selector from the pod.`,
        });
      }
    }
  },
});
