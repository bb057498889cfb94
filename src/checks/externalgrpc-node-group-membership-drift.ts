import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { grpcFindings, grpcGate, listValue, PROVIDER_REPO } from './lib/externalgrpc.js';

// G7: MatchNodeGroup re-runs on every node update; labels, annotations and taints decide the group.
export default defineCheck({
  meta: {
    id: 'externalgrpc-node-group-membership-drift',
    title: 'Node whose externalgrpc group follows a changeable label or taint',
    summary:
      "A node's externalgrpc group is decided by its labels, annotations and taints at every update: a changed label or a transient taint moves it to another group (often `default`).",
    severity: 'warning',
    commands: ['scale-down-blockers', 'asg-audit'],
    requires: ['nodes'],
    providers: ['externalgrpc'],
    messages: {
      moves: 'Node {node} is recorded in node group {recorded} but its labels, annotations and taints now match {matches}: the provider moves it at its next update, and CA then sizes and removes it as part of {matches}.',
      transient:
        'Node {node} carries {taints}, which the provider does not ignore when matching groups: while the taint is there it belongs to {matches}, and it changes group when the taint comes or goes.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:523-577 (MatchNodeGroup, KubeReservedTaints l.54-65), l.796-827 (UpdateNodeInNodeGroup)`,
  },
  run(ctx) {
    if (!grpcGate(ctx, { nodes: true })) return;
    for (const f of grpcFindings(ctx.analysis, 'G7')) {
      const node = f.node ?? '';
      const taints = listValue(f.values.transientTaints);
      ctx.report({
        messageId: f.kind === 'moves' ? 'moves' : 'transient',
        data: { node, recorded: String(f.values.recorded ?? f.group ?? ''), matches: String(f.values.matches), taints },
        subject: { kind: 'Node', name: node },
        nodeGroup: String(f.values.matches),
        evidence: [{ source: `Node ${node}`, observed: f.kind === 'moves' ? `matches ${String(f.values.matches)}` : `taints ${taints}`, expected: f.kind === 'moves' ? `the template of ${String(f.values.recorded)}` : 'no taint outside the group template' }],
        remediation:
          f.kind === 'moves'
            ? `Restore the label or taint that the group's nodeTemplate requires (${shellCommand(['kubectl', 'label', 'node', node])} <key>=<value>), or change the template. Labels and taints a group's template lists must never be edited by hand or by other controllers.`
            : `Add the taint to the group's nodeTemplate.taints (a node's taints must be a subset of its group's), or make the component that sets it use a key the provider ignores; only node.kubernetes.io/* condition taints and CA's own taints are ignored.`,
      });
    }
  },
});
