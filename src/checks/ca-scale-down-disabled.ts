import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-scale-down-disabled',
    title: 'Cluster Autoscaler runs with scale-down disabled',
    summary: 'CA runs with --scale-down-enabled=false: it never removes a node, whatever the node looks like.',
    severity: 'error',
    commands: ['scale-down-blockers'],
    requires: ['deployments'],
    messages: {
      disabled: 'Cluster Autoscaler {deployment} runs with --scale-down-enabled=false: it removes no node at all.',
    },
    upstream: 'cluster-autoscaler core/static_autoscaler.go RunOnce (ScaleDownEnabled)',
  },
  run(ctx) {
    const ca = ctx.analysis.ca;
    const flag = ca.flags.scaleDownEnabled;
    if (!ca.found || flag.value) return;
    const deployment = `${ca.deployment?.namespace}/${ca.deployment?.name}`;
    ctx.report({
      messageId: 'disabled',
      data: { deployment },
      subject: { kind: 'Deployment', name: ca.deployment?.name ?? '', namespace: ca.deployment?.namespace ?? '' },
      evidence: [
        {
          source: flag.origin === 'override' ? 'casdoctor --ca-args' : `Deployment ${deployment} args`,
          observed: (flag.raw ?? ['--scale-down-enabled=false']).join(' '),
          expected: '--scale-down-enabled=true (the default)',
        },
      ],
      remediation:
        'Remove --scale-down-enabled=false from the cluster-autoscaler container args (the flag is deprecated; the default is true). To keep single nodes, annotate them instead:\n  kubectl annotate node <node> cluster-autoscaler.kubernetes.io/scale-down-disabled=true',
    });
  },
});
