import { auditedGroups, podRef, workloadPods, zonalVolumesOf } from '../providers/aws/asg-audit.js';
import { podMatchesNodeSelectorAndAffinity } from '../simulate/predicates/node-affinity.js';
import { findUntoleratedTaint } from '../simulate/predicates/taint-toleration.js';
import { isPendingCandidate } from '../model/k8s.js';
import { defineCheck } from './define-check.js';
import { groupSubject, listNames } from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'asg-multi-az-zonal-volumes',
    title: 'A multi-AZ node group runs pods with zonal volumes',
    summary:
      "An ASG spanning several AZs runs or receives pods bound to zonal (EBS) volumes; CA's template is one zone and CA cannot choose the AZ of a new instance.",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'pods', 'pvcs', 'pvs'],
    messages: {
      zonal:
        "Node group {group} spans {zones} and {count} pod(s) with zonal volumes use it ({pods}); CA's template is in {templateZone}{conflict}.",
    },
    upstream:
      'cluster-autoscaler FAQ.md (one node group per zone with --balance-similar-node-groups); kubernetes/autoscaler#1431, #3845',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const g of auditedGroups(a)) {
      if (!g.discovered || g.zones.length < 2) continue;
      const t = a.template(g);
      const node = t.node;
      const templateZone = node?.metadata.labels?.['topology.kubernetes.io/zone'] ?? g.zones[0];
      const names = new Set(g.nodes.map((n) => n.metadata.name));
      const users = workloadPods(a).filter((p) => {
        if (p.spec.nodeName) return names.has(p.spec.nodeName);
        return (
          !!node &&
          podMatchesNodeSelectorAndAffinity(p, node) &&
          !findUntoleratedTaint(p.spec.tolerations, node.spec?.taints)
        );
      });
      const zonal = users.flatMap((p) => zonalVolumesOf(a, p));
      if (zonal.length === 0) continue;
      const conflicts = zonal.filter((v) => isPendingCandidate(v.pod) && !v.zones.includes(templateZone));
      const pods = [...new Set(zonal.map((v) => podRef(v.pod)))];
      ctx.report({
        messageId: 'zonal',
        severity: conflicts.length > 0 ? 'error' : 'warning',
        data: {
          group: g.name,
          zones: g.zones.join(', '),
          count: pods.length,
          pods: listNames(pods),
          templateZone,
          conflict:
            conflicts.length > 0
              ? `, so CA never scales it for ${listNames([...new Set(conflicts.map((v) => podRef(v.pod)))])} (volume in ${[...new Set(conflicts.flatMap((v) => v.zones))].join(', ')})`
              : '',
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        schedulerReason: conflicts.length > 0 ? 'node(s) had volume node affinity conflict' : undefined,
        evidence: [
          {
            source: `ASG ${g.name}`,
            observed: `AvailabilityZones ${g.zones.join(', ')}; template zone ${templateZone} (${t.source === 'node' ? `node ${t.fromNode}` : 'first AZ'})`,
          },
          ...zonal.slice(0, 5).map((v) => ({
            source: `Pod ${podRef(v.pod)}`,
            observed: `${v.pod.spec.nodeName ? `on ${v.pod.spec.nodeName}` : 'Pending'}, claim ${v.claim} → ${v.pv} in ${v.zones.join(', ')}`,
          })),
        ],
        remediation: `Split ${g.name} into one ASG per AZ (same labels, taints and instance types) and run CA with --balance-similar-node-groups${
          a.ca.flags.balanceSimilarNodeGroups.value ? ' (already set)' : ''
        }: CA then scales the group in the volume's zone.`,
      });
    }
  },
});
