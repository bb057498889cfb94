import { remedyText } from '../providers/types.js';
import { analyzeScaleDown, type NodeScaleDown } from '../simulate/scale-down.js';
import { defineCheck } from './define-check.js';
import { nodesWithReason } from './lib/scale-down.js';
import { groupSubject, listNames } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'node-group-min-size-reached',
    title: 'Node group at its min size keeps its nodes',
    summary: "The node group's desired capacity is at its min size (NodeGroupMinSizeReached): CA removes none of its nodes.",
    severity: 'info',
    commands: ['scale-down-blockers'],
    requires: ['nodes', 'autoScalingGroups'],
    messages: {
      atMin: 'Node group {group} is at its min size (desired {desired}, min {min}): CA keeps node(s) {nodes}.',
      wouldGoBelow:
        'Node group {group} (desired {desired}, min {min}) can lose {free} node(s), which CA takes from {removed}: it keeps node(s) {nodes}.',
    },
    upstream: 'cluster-autoscaler processors/nodes/pre_filtering_processor.go, core/scaledown/unneeded/nodes.go verifyMinSize',
  },
  run(ctx) {
    const words = ctx.analysis.provider.words;
    const byGroup = new Map<string, NodeScaleDown[]>();
    for (const n of nodesWithReason(ctx.analysis, 'NodeGroupMinSizeReached')) {
      const g = n.group?.name ?? '';
      byGroup.set(g, [...(byGroup.get(g) ?? []), n]);
    }
    for (const [name, nodes] of [...byGroup].sort(([x], [y]) => (x < y ? -1 : 1))) {
      const g = nodes[0].group!;
      const flag = g.via === 'nodes-flag';
      const atMin = g.targetSize <= g.minSize;
      const removed = analyzeScaleDown(ctx.analysis).nodes.filter((n) => n.group === g && n.report.removable);
      ctx.report({
        messageId: atMin ? 'atMin' : 'wouldGoBelow',
        data: {
          group: name,
          desired: g.targetSize,
          min: g.minSize,
          free: g.targetSize - g.minSize,
          removed: listNames(removed.map((n) => n.name)),
          nodes: listNames(nodes.map((n) => n.name)),
        },
        subject: groupSubject(g),
        nodeGroup: name,
        caReason: 'NodeGroupMinSizeReached',
        evidence: [
          {
            source: flag ? `--nodes=${g.minSize}:${g.maxSize}:${name}` : words.groupSource(name),
            observed: `${words.targetSizeField} ${g.targetSize}, ${words.minSizeField} ${g.minSize}`,
            expected: `${words.targetSizeField} > ${words.minSizeField} for CA to remove a node`,
          },
        ],
        remediation: flag
          ? `Lower the min in CA's --nodes flag, e.g. --nodes=${Math.max(0, g.minSize - 1)}:${g.maxSize}:${name}, if the group may shrink.`
          : `${remedyText(ctx.analysis.provider.lowerMinSize(g, Math.max(0, g.minSize - 1), ctx.analysis.providerContext))}\nIf the min is a deliberate floor, nothing is wrong.`,
      });
    }
  },
});
