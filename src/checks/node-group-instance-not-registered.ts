import { formatDurationShort } from '../model/duration.js';
import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { groupSubject, listNames } from './lib/support.js';

const GRACE_MS = 10 * 60_000;

export default defineCheck({
  meta: {
    id: 'node-group-instance-not-registered',
    title: 'ASG instances in service with no Kubernetes node',
    summary:
      'CA scaled up and AWS launched instances, but no Node carries their providerID after 10 minutes: the nodes never joined.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['nodes', 'autoScalingGroups'],
    providers: ['aws'],
    messages: {
      unregistered:
        'Node group {group} has {count} InService instance(s) with no Node for over 10 minutes: {instances}.',
      unknownAge:
        'Node group {group} has {count} InService instance(s) with no Node, launch time unknown: {instances}.',
    },
    upstream: 'cluster-autoscaler clusterstate/clusterstate.go (longUnregistered, --max-node-provision-time)',
  },
  run(ctx) {
    const a = ctx.analysis;
    const launched = new Map<string, Date>();
    for (const act of a.raw.scalingActivities) {
      const m = /Launching a new EC2 instance: (i-[0-9a-f]+)/.exec(act.Description ?? '');
      const t = act.EndTime ?? act.StartTime;
      if (m && t && act.StatusCode === 'Successful') launched.set(m[1], new Date(t));
    }
    for (const g of a.nodeGroups) {
      if (!g.discovered || g.unregisteredInstances.length === 0) continue;
      const old: string[] = [];
      const unknown: string[] = [];
      for (const i of g.unregisteredInstances) {
        const at = launched.get(i.InstanceId);
        if (!at) unknown.push(i.InstanceId);
        else if (a.now.getTime() - at.getTime() > GRACE_MS)
          old.push(`${i.InstanceId} (${formatDurationShort(a.now.getTime() - at.getTime())} ago)`);
      }
      const remediation = `The instances run but the kubelet never registered. On one of them check the bootstrap (cloud-init / nodeadm logs), the instance profile's IAM role in the aws-auth ConfigMap or an EKS access entry, security groups to the API server, and kubelet --provider-id aws:///<az>/<instance-id>:\n  ${shellCommand(['aws', 'ec2', 'get-console-output', '--instance-id', g.unregisteredInstances[0].InstanceId ?? '', '--latest', '--output', 'text'])}`;
      if (old.length) {
        ctx.report({
          messageId: 'unregistered',
          data: { group: g.name, count: old.length, instances: listNames(old) },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            {
              source: `ASG ${g.name} Instances`,
              observed: `InService: ${listNames(old)}`,
              expected: 'a Node with providerID aws:///<zone>/<instance-id>',
            },
          ],
          remediation,
        });
      }
      if (unknown.length && a.raw.provided.has('nodes')) {
        ctx.report({
          messageId: 'unknownAge',
          severity: 'warning',
          data: { group: g.name, count: unknown.length, instances: listNames(unknown) },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            { source: `ASG ${g.name} Instances`, observed: `InService without Node: ${listNames(unknown)}` },
          ],
          remediation: `If they launched more than a few minutes ago: ${remediation}`,
        });
      }
    }
  },
});
