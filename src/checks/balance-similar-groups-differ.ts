import { balancingConfigFrom, similarGroups } from '../simulate/balance-similar.js';
import { nodeInfoFor } from '../simulate/resources.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'balance-similar-groups-differ',
    title: 'Node groups of one instance type that --balance-similar-node-groups does not balance',
    summary:
      'With --balance-similar-node-groups, two node groups of the same instance type differ in a way CA counts (capacity, allocatable, free, labels): CA scales them separately.',
    severity: 'info',
    commands: ['asg-audit'],
    requires: ['deployments', 'autoScalingGroups'],
    messages: {
      differ: 'Node groups {a} and {b} both run {type}, but CA does not treat them as similar: {difference}.',
    },
    upstream:
      'cluster-autoscaler pkg/processors/nodegroupset/compare_nodegroups.go IsCloudProviderNodeInfoSimilar; aws_nodegroups.go; label_nodegroups.go',
  },
  run(ctx) {
    const a = ctx.analysis;
    const cfg = balancingConfigFrom(a.ca);
    if (!cfg.enabled) return;
    const byType = new Map<string, Array<{ group: string; info: ReturnType<typeof nodeInfoFor> }>>();
    for (const g of a.nodeGroups) {
      if (!g.discovered) continue;
      const t = a.template(g);
      if (!t.node || !t.instanceType) continue;
      const list = byType.get(t.instanceType) ?? [];
      list.push({ group: g.name, info: nodeInfoFor(t.node, t.pods) });
      byType.set(t.instanceType, list);
    }
    for (const [type, templates] of [...byType].sort(([x], [y]) => (x < y ? -1 : 1))) {
      for (const pair of similarGroups(templates, cfg)) {
        if (pair.similar) continue;
        ctx.report({
          messageId: 'differ',
          data: { a: pair.a, b: pair.b, type, difference: pair.difference ?? 'unknown' },
          subject: { kind: 'AutoScalingGroup', name: pair.a },
          nodeGroup: pair.a,
          evidence: [
            { source: "CA's templates", observed: `${pair.a} vs ${pair.b}: ${pair.difference ?? ''}` },
            { source: 'CA flags', observed: `labels ignored: ${[...cfg.ignoredLabels].sort().join(', ')}` },
          ],
          remediation:
            'Make the groups identical (instance type, root volume size, labels, taints, DaemonSets), or ignore a label that only differs per group with `--balancing-ignore-label=<key>`; `--balancing-label=<key>` compares only the labels named.',
        });
      }
    }
  },
});
