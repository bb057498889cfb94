import { defineCheck } from './define-check.js';
import { caSubject, listNames } from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'discovery-nodes-flag-mixed',
    title: '--nodes is used together with --node-group-auto-discovery',
    summary:
      'CA is given both --nodes and --node-group-auto-discovery, which the AWS README says not to combine; --nodes wins for the ASGs it names.',
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      mixed: 'CA has {nodes} --nodes flag(s) ({names}) and --node-group-auto-discovery; {overlap}.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/README.md ("do not provide a --nodes argument if --node-group-auto-discovery is specified"); auto_scaling_groups.go register',
  },
  run(ctx) {
    const a = ctx.analysis;
    const specs = a.ca.nodeGroupSpecs;
    if (specs.length === 0 || a.ca.flags.nodeGroupAutoDiscovery.value.length === 0) return;
    const tags = a.ca.autoDiscovery.tags;
    const both = specs.filter((s) => {
      const asg = a.raw.autoScalingGroups.find((g) => g.AutoScalingGroupName === s.name);
      if (!asg || Object.keys(tags).length === 0) return false;
      const have = new Map((asg.Tags ?? []).map((t) => [t.Key, t.Value ?? '']));
      return Object.entries(tags).every(([k, v]) => have.has(k) && (v === undefined || have.get(k) === v));
    });
    ctx.report({
      messageId: 'mixed',
      data: {
        nodes: specs.length,
        names: listNames(specs.map((s) => s.raw)),
        overlap:
          both.length > 0
            ? `${listNames(both.map((s) => s.name))} also match the discovery tags, and CA uses the --nodes min/max for them, not the ASG's`
            : 'no ASG is selected by both',
      },
      subject: caSubject(a),
      evidence: [
        {
          source: 'CA flags',
          observed: [
            ...specs.map((s) => `--nodes=${s.raw}`),
            ...a.ca.flags.nodeGroupAutoDiscovery.value.map((v) => `--node-group-auto-discovery=${v}`),
          ].join(' '),
        },
      ],
      remediation:
        'Pick one mechanism: tag the --nodes ASGs for discovery and drop --nodes (CA then reads min/max from the ASG), or drop discovery and list every ASG with --nodes.',
    });
  },
});
