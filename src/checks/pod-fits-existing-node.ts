import { defineCheck } from './define-check.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-fits-existing-node',
    title: 'Pending pod fits an existing node',
    summary:
      'A Pending pod that fits a node that exists now: CA will not scale up; the scheduler should place it.',
    severity: 'info',
    commands: ['why-pending'],
    requires: ['pods', 'nodes'],
    messages: {
      fits: 'Pod {pod} is Pending but fits existing node {node}; CA filters it out as schedulable and adds no node.',
    },
    upstream: 'cluster-autoscaler core/podlistprocessor/filter_out_schedulable.go',
  },
  run(ctx) {
    // a node that looks free may hold the pods the input left out
    const partial = ctx.analysis.podsPartial;
    if (partial) return ctx.skip('partial', partial.detail);
    for (const p of pendingAnalyses(ctx.analysis)) {
      if (p.report.verdict !== 'fits-existing-node') continue;
      const node = p.report.scheduler.nodes.find((n) => n.fits)?.name ?? '?';
      ctx.report({
        messageId: 'fits',
        data: { pod: `${p.report.namespace}/${p.report.name}`, node },
        subject: podSubject(p.pod),
        evidence: [{ source: 'scheduler predicates', observed: `fits ${node}` }],
        remediation:
          "Usually transient: the scheduler retries soon. If it persists, something casdoctor does not model blocks it (a scheduler extension, DRA, volume limits): read the pod's FailedScheduling event.",
      });
    }
  },
});
