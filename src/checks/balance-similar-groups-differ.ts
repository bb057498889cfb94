import { balancingConfigFrom, similarSets } from '../simulate/balance-similar.js';
import { nodeInfoFor } from '../simulate/resources.js';
import { defineCheck } from './define-check.js';
import { listNames } from './lib/support.js';

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
      differSets:
        'Node groups {b} run {type} like {a}, but CA does not treat the two sets as similar: {difference} ({refA} vs {refB}).',
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
      // one finding per set that differs from the first (the set of the first group by name): linear in groups
      const sets = similarSets(templates, cfg);
      const first = sets[0];
      for (const set of sets.slice(1)) {
        const difference = set.difference ?? 'unknown';
        const refA = first.groups[0];
        const refB = set.groups[0];
        const single = first.groups.length === 1 && set.groups.length === 1;
        ctx.report({
          messageId: single ? 'differ' : 'differSets',
          data: single
            ? { a: refA, b: refB, type, difference }
            : { a: listNames(first.groups), b: listNames(set.groups), type, difference, refA, refB },
          subject: { kind: 'AutoScalingGroup', name: refB },
          nodeGroup: refB,
          evidence: [
            { source: "CA's templates", observed: `${refA} vs ${refB}: ${difference}` },
            ...(single ? [] : [{ source: 'similar sets', observed: `${set.groups.length} similar to ${refB}: ${set.groups.join(', ')}; ${first.groups.length} similar to ${refA}` }]),
            { source: 'CA flags', observed: `labels ignored: ${[...cfg.ignoredLabels].sort().join(', ')}` },
          ],
          remediation:
            'Make the groups identical (instance type, root volume size, labels, taints, DaemonSets), or ignore a label that only differs per group with `--balancing-ignore-label=<key>`; `--balancing-label=<key>` compares only the labels named.',
        });
      }
    }
  },
});
