import { defineCheck } from './define-check.js';
import { closestFailures, MESSAGE_NAMES, moreGroupsEvidence, pendingAnalyses, podSubject } from './lib/support.js';

const PLUGINS: Record<string, string> = {
  PodTopologySpread:
    'Relax the constraint (maxSkew, whenUnsatisfiable: ScheduleAnyway), or give CA node groups in the missing topology domains (one ASG per AZ).',
  InterPodAffinity:
    "Check the required pod (anti-)affinity: a template node copies a real node's topology labels, so anti-affinity on hostname is fine but on zone it can exclude every group in that zone.",
  NodePorts: "The template node already uses the host port (a DaemonSet): change the pod's hostPort.",
  NodeUnschedulable:
    'The template comes from a cordoned node; uncordon it, or run CA with --scale-from-unschedulable (1.35+).',
};

export default defineCheck({
  meta: {
    id: 'pod-scheduling-constraint',
    title: "Pod's topology spread, pod affinity, host ports or node name exclude the node group",
    summary:
      'A Pending pod fails a placement rule on the template node other than resources, selectors, taints and volumes.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      constraint: 'Pod {pod} fails {plugin} on node group {group}: {reason}.',
    },
    upstream: 'kube-scheduler podtopologyspread, interpodaffinity, nodeports, nodeunschedulable',
  },
  run(ctx) {
    for (const p of pendingAnalyses(ctx.analysis)) {
      if (p.report.verdict !== 'no-scale-up') continue;
      const hits = closestFailures(p, Object.keys(PLUGINS));
      const reported = hits.slice(0, MESSAGE_NAMES);
      for (const [i, { g, status }] of reported.entries()) {
        ctx.report({
          messageId: 'constraint',
          data: {
            pod: `${p.report.namespace}/${p.report.name}`,
            plugin: status.plugin,
            group: g.group.name,
            reason: status.reasons.join(', '),
          },
          subject: podSubject(p.pod),
          nodeGroup: g.group.name,
          schedulerReason: status.reasons[0],
          evidence: [
            {
              source: `${status.plugin} on ${g.group.name} template`,
              observed: (status.details ?? status.reasons).join('; '),
            },
            ...moreGroupsEvidence(hits.length, reported.length, i),
          ],
          remediation: PLUGINS[status.plugin],
        });
      }
    }
  },
});
