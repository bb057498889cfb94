import { formatDurationShort } from '../model/duration.js';
import { shellCommand } from '../model/shell.js';
import { caPodProblems, caPodsHealth, type CaPodProblemKind } from '../simulate/ca-health.js';
import { podsMissingIn } from '../simulate/partial-input.js';
import { defineCheck } from './define-check.js';

const SEVERITY: Record<CaPodProblemKind, 'error' | 'warning'> = {
  'scaled-to-zero': 'error',
  'no-pod': 'error',
  'crash-loop': 'error',
  'oom-killed': 'error',
  'not-ready': 'error',
  restarting: 'warning',
};

export default defineCheck({
  meta: {
    id: 'ca-pod-unhealthy',
    title: "CA's own pod is not running, crash-looping or being OOM-killed",
    summary:
      "CA's pod is missing, not Ready, in CrashLoopBackOff, OOM-killed or restarting: CA scales nothing while it is down.",
    severity: 'error',
    commands: ['why-pending', 'asg-audit', 'scale-down-blockers'],
    requires: ['deployments', 'pods'],
    messages: {
      'scaled-to-zero': 'Deployment {deployment} has replicas: 0, so no CA runs: nothing is scaled up or down.',
      'no-pod': 'Deployment {deployment} has no pod, so no CA runs: nothing is scaled up or down.',
      'crash-loop': 'CA pod {pod} is crash-looping ({detail}): CA runs no loop, so it scales nothing up or down.',
      'oom-killed':
        'CA pod {pod} was OOM-killed ({detail}): each restart loses CA\'s state (backoffs, unneeded-node timers) and every loop cut short scales nothing.',
      'not-ready': 'CA pod {pod} is not Ready ({detail}), and no other CA replica is: CA is not running its loop.',
      restarting: 'CA pod {pod} keeps restarting ({detail}): each restart resets the scale-down timers.',
    },
    upstream: 'cluster-autoscaler main.go (liveness /health-check fails when the loop stalls); FAQ "How can I check what is going on in CA?"',
  },
  run(ctx) {
    const a = ctx.analysis;
    const health = caPodsHealth(a.ca, a.raw.deployments, a.raw.pods);
    const dep = `${a.ca.deployment?.namespace ?? 'kube-system'}/${a.ca.deployment?.name ?? 'cluster-autoscaler'}`;
    const problems = caPodProblems(health);
    // "no pod" from an input that left CA's pods out is no alarm: the input's pods are partial, or CA's status
    // ConfigMap was written moments ago (only a running CA writes it)
    if (problems.some((p) => p.kind === 'no-pod')) {
      const ns = a.ca.deployment?.namespace ?? 'kube-system';
      const st = a.caStatus;
      const partial = podsMissingIn(a.podsPartial, ns) ? a.podsPartial?.detail : undefined;
      const fresh =
        st && !st.stale && st.ageMs !== undefined
          ? `no pod of ${dep} is in the input, yet CA's status ConfigMap was updated ${formatDurationShort(Math.max(0, Math.round(st.ageMs / 1000)) * 1000)} before the report's time: the input's pods are partial; add \`${shellCommand(['kubectl', '-n', ns, 'get', 'pods', '-o', 'json'])}\``
          : undefined;
      if (partial || fresh) return ctx.skip('partial', partial ?? (fresh as string));
    }
    for (const p of problems) {
      const ns = p.pod?.namespace ?? a.ca.deployment?.namespace ?? 'kube-system';
      const subject = p.pod
        ? { kind: 'Pod', name: p.pod.name, namespace: p.pod.namespace }
        : { kind: 'Deployment', name: a.ca.deployment?.name ?? 'cluster-autoscaler', namespace: ns };
      const logs = p.pod
        ? shellCommand(['kubectl', '-n', ns, 'logs', p.pod.name, '-c', a.ca.deployment?.container ?? 'cluster-autoscaler', '--previous', '--tail=200'])
        : shellCommand(['kubectl', '-n', ns, 'describe', 'deployment', a.ca.deployment?.name ?? 'cluster-autoscaler']);
      const fix =
        p.kind === 'oom-killed'
          ? `Raise the CA container's memory limit (CA's memory grows with pods and nodes; the chart's 300Mi is too small for large clusters), then check why it died:\n  ${logs}`
          : p.kind === 'scaled-to-zero'
            ? `Scale CA back up:\n  ${shellCommand(['kubectl', '-n', ns, 'scale', 'deployment', a.ca.deployment?.name ?? 'cluster-autoscaler', '--replicas=1'])}`
            : `Read why CA stopped (the last lines before the exit name the cause: a flag CA rejects, an AWS error at start-up, an unknown instance type):\n  ${logs}`;
      ctx.report({
        messageId: p.kind,
        data: { deployment: dep, pod: p.pod ? `${p.pod.namespace}/${p.pod.name}` : dep, detail: p.detail },
        subject,
        severity: SEVERITY[p.kind],
        evidence: [
          {
            source: p.pod ? `Pod ${p.pod.namespace}/${p.pod.name} status` : `Deployment ${dep}`,
            observed: p.detail,
            expected: 'Running and Ready, no restarts',
          },
        ],
        remediation: fix,
      });
    }
  },
});
