import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { grpcFindings, grpcGate, PROVIDER_REPO } from './lib/externalgrpc.js';

const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];

// G6: nodes no group template matches land in the provider's own `default` group, which it exposes to CA.
export default defineCheck({
  meta: {
    id: 'externalgrpc-default-group-holds-nodes',
    title: "Nodes in the provider's hidden default group, which CA may remove",
    summary:
      "A node matches no externalgrpc group's nodeTemplate, so the provider files it under its own `default` group (min 0): CA treats it as autoscaled and may scale it down.",
    severity: 'warning',
    commands: ['scale-down-blockers', 'asg-audit'],
    requires: ['nodes'],
    providers: ['externalgrpc'],
    messages: {
      inDefault:
        "Node {node} matches no configured node group and sits in the provider's default group (min 0, max 1000): CA may remove it when it is underutilized{role}.",
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:561-564 (MatchNodeGroup), l.1404-1428 (default group), wrapper/wrapper.go:60-73`,
  },
  run(ctx) {
    if (!grpcGate(ctx, { nodes: true })) return;
    const a = ctx.analysis;
    const byName = new Map(a.raw.nodes.map((n) => [n.metadata.name ?? '', n]));
    for (const f of grpcFindings(a, 'G6').filter((x) => x.kind === 'default-holds-nodes')) {
      for (const name of f.values.nodes as string[]) {
        const labels = byName.get(name)?.metadata.labels ?? {};
        const cp = CONTROL_PLANE_LABELS.some((k) => k in labels);
        ctx.report({
          messageId: 'inDefault',
          data: { node: name, role: cp ? ' — it is a control-plane node' : '' },
          subject: { kind: 'Node', name },
          nodeGroup: 'default',
          ...(cp ? { severity: 'error' as const } : {}),
          evidence: [
            { source: `Node ${name}`, observed: `labels ${Object.keys(labels).sort().join(', ') || 'none'}`, expected: "a superset of some group's nodeTemplate.labels (and taints within its nodeTemplate.taints)" },
          ],
          remediation: `Give the node a group: add one to the provider's config whose nodeTemplate labels and taints it carries, with minSize = maxSize when CA must not resize it (or relabel the node to match the group it came from). Until then keep CA off it:\n  ${shellCommand(['kubectl', 'annotate', 'node', name, 'cluster-autoscaler.kubernetes.io/scale-down-disabled=true'])}`,
        });
      }
    }
  },
});
