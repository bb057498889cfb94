import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterInputs, karpenterPendingViews } from './lib/karpenter.js';
import { pendingAnalyses } from './lib/support.js';
import { templateRequirements } from '../simulate/providers/karpenter/placement.js';
import { compatible, podRequirements } from '../simulate/providers/karpenter/requirements.js';
import { tolerationsTolerateTaint } from '../simulate/predicates/taint-toleration.js';

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
      exhausted: 'NodePool {pool} has used up its limits ({remaining} left of {limits}), so Karpenter launches no node for {count} Pending pod(s) that match it: {pods}.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go:706-724 (all available instance types exceed limits for nodepool)',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools', 'nodeClaims'])) return;
    const pools = new Map(karpenterInputs(ctx.analysis).nodePools.map((np) => [np.metadata.name ?? '', np]));
    const hits = new Map<string, { pods: string[]; remaining: string; stage: string; error: string }>();
    for (const { p, v } of karpenterPendingViews(ctx.analysis, pendingAnalyses(ctx.analysis))) {
      const x = v.explanation;
      if (!x.eligibility.provisionable || x.chosen || v.routing.route === 'ca' || v.routing.route === 'both') continue;
      for (const pl of x.pools) {
        if (pl.stage !== 'node-limit' && pl.stage !== 'resource-limits') continue;
        const np = pools.get(pl.nodePool);
        if (!np) continue;
        // limits come first in Karpenter's order: name only the pods the pool's taints and requirements would admit
        const tolerated = (np.spec.template.spec.taints ?? []).every((t) => tolerationsTolerateTaint(p.pod.spec.tolerations, t));
        if (!tolerated || compatible(templateRequirements(np), podRequirements(p.pod)) !== undefined) continue;
        const h = hits.get(pl.nodePool) ?? {
          pods: [],
          remaining: Object.entries(pl.remainingLimits ?? {}).map(([k, val]) => `${k} ${String(val)}`).join(', '),
          stage: pl.stage,
          error: pl.error ?? '',
        };
        h.pods.push(`${p.report.namespace}/${p.report.name}`);
        hits.set(pl.nodePool, h);
      }
    }
    for (const [pool, h] of hits) {
      const np = pools.get(pool)!;
      const limits = Object.entries(np.spec.limits ?? {}).map(([k, val]) => `${k} ${String(val)}`).join(', ');
      ctx.report({
        messageId: 'exhausted',
        data: { pool, remaining: h.remaining || '0', limits, count: h.pods.length, pods: h.pods.join(', ') },
        subject: { kind: 'NodePool', name: pool },
        caReason: h.error,
        evidence: [
          { source: `NodePool ${pool} spec.limits`, observed: limits, expected: 'room for one more node of a type that fits the pod' },
          { source: `NodePool ${pool} remaining`, observed: h.remaining || '0' },
        ],
        remediation: `Raise the limit if the pool may grow (${shellCommand(['kubectl', 'patch', 'nodepool', pool, '--type', 'merge', '-p'])} '{"spec":{"limits":{...}}}'), or free capacity in it; the pods otherwise wait until nodes of the pool go away. Since Karpenter v1.5 its event no longer names the pool: this is the pool.`,
      });
    }
  },
});
