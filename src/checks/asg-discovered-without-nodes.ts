import { auditedAsgGroups } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject, listNames } from '../providers/aws/asg-audit-checks.js';
import { EVIDENCE_NAMES } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'asg-discovered-without-nodes',
    title: 'CA manages an ASG that owns no node of this cluster',
    summary:
      "CA's discovery matches an ASG whose running instances are not nodes of this cluster, or which is tagged for another cluster.",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'nodes'],
    providers: ['aws'],
    messages: {
      unregistered:
        'ASG {group} is managed by CA ({via}) and runs {count} instance(s) ({instances}) that are not nodes of this cluster.',
      foreign:
        'ASG {group} is managed by CA ({via}) but is tagged for another cluster ({tag}) and owns no node here.',
    },
    upstream:
      'cluster-autoscaler clusterstate/clusterstate.go (long-unregistered nodes), core/static_autoscaler.go removeOldUnregisteredNodes',
  },
  run(ctx) {
    const a = ctx.analysis;
    const ours = a.clusterNames();
    for (const g of auditedAsgGroups(a)) {
      if (!g.discovered || g.nodes.length > 0) continue;
      const via = g.via === 'nodes-flag' ? '--nodes' : '--node-group-auto-discovery';
      const inService = (g.asg.Instances ?? []).filter((i) => i.LifecycleState === 'InService');
      if (inService.length > 0) {
        ctx.report({
          messageId: 'unregistered',
          severity: 'error',
          data: {
            group: g.name,
            via,
            count: inService.length,
            instances: listNames(inService.map((i) => i.InstanceId)),
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            {
              source: `ASG ${g.name} Instances`,
              // a group of hundreds of instances: a sample and the count
              observed: listNames(inService.map((i) => `${i.InstanceId} ${i.InstanceType ?? ''} InService`), EVIDENCE_NAMES),
              expected: 'a Node whose spec.providerID names each instance',
            },
          ],
          remediation: `If the ASG belongs to another cluster, narrow CA's discovery (e.g. add the tag k8s.io/cluster-autoscaler/<this-cluster> to the spec and only to this cluster's ASGs): CA treats instances that never register as unregistered nodes and deletes them after --max-node-provision-time (${Math.round(a.ca.flags.maxNodeProvisionTime.value / 60000)}m). If it is this cluster's, find out why the instances do not join (bootstrap, aws-auth / access entries, security groups).`,
        });
        continue;
      }
      if (ours.size === 0) continue;
      const foreign = (g.asg.Tags ?? []).find((t) => {
        if (t.Key === 'eks:cluster-name') return !!t.Value && !ours.has(t.Value);
        const m = /^kubernetes\.io\/cluster\/(.+)$/.exec(t.Key);
        return !!m && !ours.has(m[1]);
      });
      if (!foreign) continue;
      ctx.report({
        messageId: 'foreign',
        data: { group: g.name, via, tag: `${foreign.Key}=${foreign.Value ?? ''}` },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [
          { source: `ASG ${g.name} tags`, observed: `${foreign.Key}=${foreign.Value ?? ''}` },
          { source: 'this cluster', observed: [...ours].sort().join(', ') },
        ],
        remediation:
          "Make the discovery spec cluster-specific: --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster-name>, with that tag only on this cluster's ASGs. Otherwise this CA scales another cluster's nodes.",
      });
    }
  },
});
