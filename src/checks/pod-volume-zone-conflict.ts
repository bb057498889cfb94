import { defineCheck } from './define-check.js';
import { closestFailures, pendingAnalyses, podSubject } from './lib/support.js';

const ZONE_LABELS = [
  'topology.kubernetes.io/zone',
  'topology.ebs.csi.aws.com/zone',
  'failure-domain.beta.kubernetes.io/zone',
];

export default defineCheck({
  meta: {
    id: 'pod-volume-zone-conflict',
    title: "Pod's volume is in a zone the node group's template is not",
    summary:
      "A Pending pod's bound volume (EBS) sits in an AZ other than the one CA simulates for the group (the first AZ, or the real node's).",
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    messages: {
      zone: 'Pod {pod} needs a node in {volumeZone} for its volumes, but node group {group} is simulated in {templateZone}: {reason}.',
      binding: 'Pod {pod} cannot bind its volumes on node group {group}: {reason}.',
    },
    upstream: 'kube-scheduler volumebinding, volumezone; ca-semantics §2.3 Multi-AZ / PVC',
  },
  run(ctx) {
    for (const p of pendingAnalyses(ctx.analysis)) {
      if (p.report.verdict !== 'no-scale-up') continue;
      for (const { g, status } of closestFailures(p, ['VolumeBinding', 'VolumeZone'])) {
        const labels = g.template.node?.metadata.labels ?? {};
        const templateZone = ZONE_LABELS.map((k) => labels[k]).find(Boolean) ?? 'an unknown zone';
        const zoneDetail = (status.details ?? []).join('; ');
        // us-east-1a, us-gov-west-1b, Local Zones such as us-east-1-bos-1a
        const volumeZone = /\b([a-z]{2}(?:-[a-z]+)+-\d+(?:-[a-z]+-\d+)?[a-z])\b/.exec(zoneDetail.replaceAll(templateZone, ''))?.[1];
        const multiAz = g.group.zones.length > 1;
        const remediation = [
          multiAz
            ? `${g.group.name} spans ${g.group.zones.join(', ')}, but CA builds one template in ${templateZone} and never scales it for a volume elsewhere. Split it into one ASG per AZ and run CA with --balance-similar-node-groups.`
            : `${g.group.name} launches only in ${g.group.zones.join(', ') || templateZone}. Add a node group in ${volumeZone ?? "the volume's zone"} (CA discovers it by the same tags).`,
          'For new volumes, use a StorageClass with volumeBindingMode: WaitForFirstConsumer so the volume is created where the pod lands.',
        ].join('\n');
        ctx.report({
          messageId: volumeZone ? 'zone' : 'binding',
          data: {
            pod: `${p.report.namespace}/${p.report.name}`,
            group: g.group.name,
            reason: status.reasons.join(', '),
            volumeZone: volumeZone ?? '',
            templateZone,
          },
          subject: podSubject(p.pod),
          nodeGroup: g.group.name,
          schedulerReason: status.reasons[0],
          evidence: [
            {
              source: `${status.plugin} on ${g.group.name} template`,
              observed: zoneDetail || status.reasons.join(', '),
            },
            {
              source: `ASG ${g.group.name}`,
              observed: `AvailabilityZones ${JSON.stringify(g.group.zones)}; template zone ${templateZone}`,
            },
          ],
          remediation,
        });
      }
    }
  },
});
