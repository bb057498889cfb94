import { defineCheck } from './define-check.js';
import { nodeSubject, nodesWithReason } from './lib/scale-down.js';
import { tagCommand } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'node-not-autoscaled',
    title: 'Node that no CA node group owns',
    summary: 'The node belongs to no node group CA manages (NotAutoscaled): CA never removes it, only moves pods onto it.',
    severity: 'info',
    commands: ['scale-down-blockers'],
    requires: ['nodes', 'autoScalingGroups'],
    messages: {
      notAutoscaled: 'Node {node} belongs to no node group CA manages: {why}.',
    },
    upstream: 'cluster-autoscaler processors/nodes/pre_filtering_processor.go, cloudprovider/aws NodeGroupForNode',
  },
  run(ctx) {
    const wanted = ctx.analysis.ca.autoDiscovery.tags;
    for (const n of nodesWithReason(ctx.analysis, 'NotAutoscaled')) {
      const asg = n.report.nodeGroup;
      const missing = [...n.report.summary.matchAll(/missing tag "([^"]+)"/g)].map((m) => m[1]);
      const commands = missing.map((key) => `  ${tagCommand(asg ?? '', key, wanted[key] ?? 'owned')}`);
      const fix = asg
        ? commands.length
          ? `If CA should manage ASG ${asg}, add the auto-discovery tag(s) it lacks:\n${commands.join('\n')}\nIf the group is deliberately unmanaged, nothing is wrong.`
          : `If CA should manage ASG ${asg}, make it match --node-group-auto-discovery or list it in --nodes. If the group is deliberately unmanaged, nothing is wrong.`
        : ctx.analysis.provider.words.nodesOutsideGroups(ctx.analysis.providerContext, ctx.analysis.provider);
      ctx.report({
        messageId: 'notAutoscaled',
        data: { node: n.name, why: n.report.summary },
        subject: nodeSubject(n.node),
        ...(asg ? { nodeGroup: asg } : {}),
        caReason: 'NotAutoscaled',
        evidence: [
          { source: `Node ${n.name} spec.providerID`, observed: n.node.spec?.providerID ?? '<none>' },
          { source: 'node groups', observed: n.report.summary },
        ],
        remediation: fix,
      });
    }
  },
});
