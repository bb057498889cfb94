import { defineCheck } from './define-check.js';
import { blocked, groupSubject, listNames, podRef, tagCommand } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'node-group-not-discovered',
    title: 'The node group that fits is not managed by CA',
    summary:
      "Pending pods fit an ASG that CA's --node-group-auto-discovery tags (or --nodes) do not select, so CA never scales it.",
    severity: 'error',
    commands: ['why-pending'],
    requires: ['pods', 'autoScalingGroups'],
    providers: ['aws'],
    messages: {
      notDiscovered:
        'Node group {group} would fit {count} Pending pod(s) ({pods}) but CA does not manage it: {why}.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go parseASGAutoDiscoverySpec; auto_scaling_groups.go buildAsgTags',
  },
  run(ctx) {
    const a = ctx.analysis;
    const byGroup = new Map<string, string[]>();
    for (const p of blocked(a)) {
      for (const e of p.groups) {
        if (e.group.discovered || !e.template.node || e.failures.length || e.notEvaluated.length) continue;
        byGroup.set(e.group.name, [...(byGroup.get(e.group.name) ?? []), podRef(p.pod)]);
      }
    }
    for (const g of a.asgGroups) {
      const pods = byGroup.get(g.name);
      if (!pods) continue;
      const tags = new Map((g.asg.Tags ?? []).map((t) => [t.Key, t.Value ?? '']));
      const fixes = Object.entries(a.ca.autoDiscovery.tags)
        .filter(([k, v]) => !tags.has(k) || (v !== undefined && tags.get(k) !== v))
        .map(([k, v]) => tagCommand(g.name, k, v ?? 'true'));
      ctx.report({
        messageId: 'notDiscovered',
        data: {
          group: g.name,
          count: pods.length,
          pods: listNames(pods),
          why: g.mismatch ?? 'no discovery configuration matches it',
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [
          {
            source: 'CA flags',
            observed: `--node-group-auto-discovery ${JSON.stringify(a.ca.flags.nodeGroupAutoDiscovery.value)}; --nodes ${JSON.stringify(a.ca.flags.nodes.value)}`,
          },
          {
            source: `ASG ${g.name} tags`,
            observed:
              [...tags.keys()]
                .filter((k) => k.startsWith('k8s.io/cluster-autoscaler/') && !k.includes('/node-template/'))
                .join(', ') || 'no CA tags',
          },
        ],
        remediation:
          fixes.length > 0
            ? `Tag the ASG so CA discovers it (CA picks it up within a minute):\n${fixes.map((f) => `  ${f}`).join('\n')}`
            : `Add --nodes=${g.minSize}:${g.maxSize}:${g.name} to CA, or tag the ASG for auto-discovery.`,
      });
    }
  },
});
