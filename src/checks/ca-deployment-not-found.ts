import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-deployment-not-found',
    title: 'No Cluster Autoscaler Deployment found',
    summary:
      'No Deployment runs a cluster-autoscaler image: nothing scales the cluster; casdoctor assumes CA defaults.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['deployments'],
    messages: {
      notFound:
        'No Deployment with a cluster-autoscaler container was found; casdoctor assumes the defaults of CA 1.{minor}.',
    },
    upstream: 'cluster-autoscaler/FAQ.md',
  },
  run(ctx) {
    // with --ca-args the user told casdoctor CA's flags (e.g. CA runs outside the cluster)
    if (ctx.analysis.ca.found || ctx.analysis.ca.overrideArgs.length > 0) return;
    ctx.report({
      messageId: 'notFound',
      data: { minor: ctx.analysis.ca.version.minor },
      subject: { kind: 'Deployment', name: 'cluster-autoscaler' },
      evidence: [
        {
          source: 'Deployments',
          observed: `${ctx.analysis.raw.deployments.length} deployment(s), none with an image containing "cluster-autoscaler"`,
        },
      ],
      remediation:
        'Install CA (e.g. the cluster-autoscaler Helm chart with --set autoDiscovery.clusterName=<cluster>), or pass its flags with --ca-args "<flags>" if it runs outside the cluster.',
    });
  },
});
