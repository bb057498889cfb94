import { versionSkew } from '../simulate/ca-health.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-version-skew',
    title: "CA's minor version is far from the cluster's",
    summary:
      "CA's minor version differs from the cluster's (newest kubelet): CA vendors one scheduler and is tested against one minor.",
    severity: 'warning',
    commands: ['why-pending', 'asg-audit', 'scale-down-blockers'],
    requires: ['deployments', 'nodes'],
    messages: {
      far: 'CA {ca} runs on a cluster at 1.{cluster} (newest kubelet): {distance} minor versions apart, CA simulates scheduling with the 1.{caMinor} scheduler.',
    },
    upstream: 'cluster-autoscaler README.md "Releases" (CA minor = Kubernetes minor); FAQ "What are the Kubernetes versions supported"',
  },
  run(ctx) {
    const a = ctx.analysis;
    if (!a.ca.found || !a.ca.version.known) return;
    const skew = versionSkew(
      a.ca.version.minor,
      a.raw.nodes.map((n) => n.status?.nodeInfo?.kubeletVersion ?? ''),
    );
    if (!skew) return;
    const distance = Math.abs(skew.caMinor - skew.clusterMinor);
    // kubelets may lag the control plane by a minor, so one minor apart is within what a snapshot can tell
    if (distance < 2) return;
    const subject = {
      kind: 'Deployment',
      name: a.ca.deployment?.name ?? 'cluster-autoscaler',
      namespace: a.ca.deployment?.namespace ?? 'kube-system',
    };
    ctx.report({
      messageId: 'far',
      data: { ca: a.ca.version.version ?? `1.${skew.caMinor}`, cluster: skew.clusterMinor, caMinor: skew.caMinor, distance },
      subject,
      evidence: [
        { source: 'CA image', observed: a.ca.version.image ?? `1.${skew.caMinor}`, expected: `cluster-autoscaler v1.${skew.clusterMinor}.x` },
      ],
      remediation: `Run the CA release whose minor matches the cluster: image registry.k8s.io/autoscaling/cluster-autoscaler:v1.${skew.clusterMinor}.x (the newest patch).`,
    });
  },
});
