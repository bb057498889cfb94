import { defineCheck } from './define-check.js';
import { blocked, listNames, podRef } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'cluster-scale-up-limit',
    title: 'A cluster-wide CA limit stops scale-up',
    summary:
      'Pending pods fit a node group, but --max-nodes-total, --cores-total or --memory-total is reached.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'nodes', 'autoScalingGroups'],
    messages: {
      limit: 'CA cannot add nodes for {count} Pending pod(s) ({pods}): {reason} ({detail}).',
    },
    upstream:
      'cluster-autoscaler core/static_autoscaler.go (max-nodes-total), core/scaleup/resource/manager.go',
  },
  run(ctx) {
    const byReason = new Map<string, { detail: string; pods: string[]; flag: string }>();
    for (const p of blocked(ctx.analysis)) {
      for (const e of p.groups) {
        if (
          (e.skip?.kind !== 'max-nodes-total' && e.skip?.kind !== 'resource-limit') ||
          e.failures.length ||
          !e.template.node
        )
          continue;
        const entry = byReason.get(e.skip.reason) ?? {
          detail: e.skip.detail,
          pods: [],
          flag: e.skip.kind === 'max-nodes-total' ? '--max-nodes-total' : '--cores-total / --memory-total',
        };
        if (!entry.pods.includes(podRef(p.pod))) entry.pods.push(podRef(p.pod));
        byReason.set(e.skip.reason, entry);
      }
    }
    for (const [reason, { detail, pods, flag }] of byReason) {
      ctx.report({
        messageId: 'limit',
        data: { count: pods.length, pods: listNames(pods), reason, detail },
        subject: { kind: 'Cluster', name: 'cluster' },
        caReason: reason,
        evidence: [{ source: 'CA flags', observed: detail }],
        remediation: `Raise ${flag} on the cluster-autoscaler Deployment, or remove capacity the cluster no longer needs.`,
      });
    }
  },
});
