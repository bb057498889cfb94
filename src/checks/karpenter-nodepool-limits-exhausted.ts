import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterInputs, karpenterPendingViews, stageText } from './lib/karpenter.js';
import { pendingAnalyses } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'karpenter-nodepool-limits-exhausted',
    title: "NodePool limits used up while pods it could take are Pending",
    summary: 'A NodePool has reached spec.limits (nodes or resources) while Pending pods that match it wait; Karpenter launches nothing there.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['pods'],
    autoscaler: 'karpenter',
    messages: {
      exhausted: 'NodePool {pool} has used up its limits ({remaining} left of {limits}): the limit is what stops {count} Pending pod(s), which the pool would otherwise take ({pods}); raise {raise}, or free capacity.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go:706-724 (all available instance types exceed limits for nodepool)',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools', 'nodeClaims'])) return;
    const pools = new Map(karpenterInputs(ctx.analysis).nodePools.map((np) => [np.metadata.name ?? '', np]));
    const hits = new Map<string, { pods: string[]; raise: Record<string, string | number>; others: Array<{ pod: string; why: string }>; remaining: string; error: string }>();
    for (const { p, v } of karpenterPendingViews(ctx.analysis, pendingAnalyses(ctx.analysis))) {
      const x = v.explanation;
      if (!x.eligibility.provisionable || x.chosen || x.outcome === 'in-flight' || v.routing.route === 'ca' || v.routing.route === 'both') continue;
      for (const pl of x.pools) {
        if ((pl.stage !== 'node-limit' && pl.stage !== 'resource-limits') || !pl.withoutLimits || !pools.has(pl.nodePool)) continue;
        const h = hits.get(pl.nodePool) ?? {
          pods: [],
          raise: {},
          others: [],
          remaining: Object.entries(pl.remainingLimits ?? {}).map(([k, val]) => `${k} ${String(val)}`).join(', '),
          error: pl.error ?? '',
        };
        const name = `${p.report.namespace}/${p.report.name}`;
        // limits come first in Karpenter's order (scheduler.go:551-568@v1.6.2): name only the pods the pool would take without them
        if (pl.withoutLimits.fits) {
          h.pods.push(name);
          if (Object.keys(h.raise).length === 0) h.raise = { ...(pl.withoutLimits.raise ?? {}) };
        } else {
          h.others.push({ pod: name, why: `${stageText(pl.withoutLimits.stage)}${pl.withoutLimits.error ? `: ${pl.withoutLimits.error}` : ''}` });
        }
        hits.set(pl.nodePool, h);
      }
    }
    for (const [pool, h] of hits) {
      if (h.pods.length === 0) continue; // raising the limit places none of them: each pod's own finding says what stops it
      const np = pools.get(pool)!;
      const limits = Object.entries(np.spec.limits ?? {}).map(([k, val]) => `${k} ${String(val)}`).join(', ');
      const raiseText = Object.entries(h.raise).map(([k, val]) => `limits.${k} to at least ${val}`).join(' and ');
      ctx.report({
        messageId: 'exhausted',
        data: { pool, remaining: h.remaining || '0', limits, raise: raiseText, count: h.pods.length, pods: h.pods.join(', ') },
        subject: { kind: 'NodePool', name: pool },
        caReason: h.error,
        evidence: [
          { source: `NodePool ${pool} spec.limits`, observed: limits, expected: `${raiseText} for the smallest instance type that fits ${h.pods[0]}` },
          { source: `NodePool ${pool} remaining`, observed: h.remaining || '0' },
          ...h.others.map((o) => ({ source: `Pod ${o.pod}`, observed: `raising the limit would not place it: NodePool ${pool} would still reject it at ${o.why}` })),
        ],
        remediation: `The limit is what stops these pods. If the pool may grow, raise it (${shellCommand(['kubectl', 'patch', 'nodepool', pool, '--type', 'merge', '-p', JSON.stringify({ spec: { limits: h.raise } })])} lets one more node of the smallest fitting type in; each further pod needs its own room), or free capacity in the pool. Since Karpenter v1.5 its event no longer names the pool: this is the pool.`,
      });
    }
  },
});
