import type { Container } from '../model/k8s.js';
import { containerRequestMap } from '../simulate/resources.js';
import { defineCheck } from './define-check.js';
import { context, workloadRef, workloadSubject } from './lib/preflight.js';

/** cpu / memory a container leaves without a request (a limit alone defaults the request, as the API server does). */
function missing(c: Container): string[] {
  const req = containerRequestMap(c);
  return ['cpu', 'memory'].filter((r) => req[r] === undefined || req[r] === null);
}

export default defineCheck({
  meta: {
    id: 'workload-missing-requests',
    title: 'Containers without cpu/memory requests',
    summary:
      'Containers without cpu or memory requests: CA plans scale-up (and counts utilization for scale-down) with zero for them.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      missing:
        '{workload}: {containers} set no {what} request; CA and the scheduler count {them} as 0, so no node is added for {them} and nodes look emptier than they are.',
    },
    upstream:
      'cluster-autoscaler simulator/utilization/info.go (requests, not usage); k8s component-helpers resource PodRequests',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    for (const w of pf.workloads) {
      const spec = w.pod.spec;
      const podLevel = spec.resources?.requests ?? {};
      const gaps: Array<{ name: string; what: string[] }> = [];
      const containers = [
        // a plain init container only raises the max; a sidecar (restartPolicy Always) adds to the sum
        ...(spec.initContainers ?? [])
          .filter((c) => c.restartPolicy === 'Always')
          .map((c) => ({ c, label: `sidecar ${c.name}` })),
        ...(spec.containers ?? []).map((c) => ({ c, label: `container ${c.name}` })),
      ];
      for (const { c, label } of containers) {
        // pod-level requests (spec.resources) cover cpu/memory for every container
        const what = missing(c).filter((r) => podLevel[r] === undefined);
        if (what.length > 0) gaps.push({ name: label, what });
      }
      if (gaps.length === 0) continue;
      const what = [...new Set(gaps.flatMap((g) => g.what))].join(' or ');
      const snippet = [
        '      resources:',
        '        requests:',
        '          cpu: 100m        # what the container needs at steady state',
        '          memory: 128Mi',
      ].join('\n');
      ctx.report({
        messageId: 'missing',
        data: {
          workload: workloadRef(w),
          containers: gaps.map((g) => g.name).join(', '),
          what,
          them: gaps.length === 1 ? 'it' : 'them',
        },
        subject: workloadSubject(w),
        evidence: gaps.map((g) => ({
          source: `${g.name} resources.requests`,
          observed: `no ${g.what.join(', ')}`,
          expected: 'cpu and memory requests',
        })),
        remediation: `Set requests on every container (a LimitRange default also works):\n${snippet}`,
      });
    }
  },
});
