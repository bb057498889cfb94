import { shellCommand } from '../model/shell.js';
import { nodesWithoutProviderId } from '../providers/externalgrpc/stalls.js';
import { defineCheck } from './define-check.js';
import { configSource, grpcGate, grpcInput, PROVIDER_REPO } from './lib/externalgrpc.js';

// src/providers/externalgrpc/stalls.ts: a node joined without --provider-id; its VM can never be deleted.
export default defineCheck({
  meta: {
    id: 'externalgrpc-node-without-provider-id',
    title: 'externalgrpc node joined without a providerID: its VM can never be deleted',
    summary:
      "A node that joined without --provider-id gives its instance record an empty providerID: CA never sees the instance, and a scale-down of the node leaves the record PendingDeletion/Failed and the VM running, since the provider cannot address an empty providerID.",
    severity: 'warning',
    commands: ['scale-down-blockers', 'asg-audit'],
    requires: ['nodes'],
    providers: ['externalgrpc'],
    messages: {
      noId: 'Node {node} of node group {group} has no spec.providerID, and neither has its instance record {instance}: CA never sees the instance, and when the node is deleted the provider cannot terminate its VM (the record stays PendingDeletion/Failed, the VM keeps running).',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:827-835 (providerID copied from the Node), l.2136-2140 + provider/provier.go:40-42 (NewCloudprovider("") fails), wrapper/wrapper.go:258-260 (NodeGroupNodes skips it), nodegroup/node_controller.go:99-110 (re-reads a node only on label, annotation or taint changes)`,
  },
  run(ctx) {
    if (!grpcGate(ctx, { nodes: true })) return;
    const a = ctx.analysis;
    const input = grpcInput(a);
    const templates = new Map(Object.entries(input.config.instanceParameters).map(([k, v]) => [k, v.providerIdTemplate]));
    for (const n of nodesWithoutProviderId(input.groups, a.raw.nodes, templates)) {
      const id = n.template ? n.template.replace('{{InstanceID}}', '<instance id>') : 'externalgrpc://<provider>/<account>/<region>/<instance id>';
      ctx.report({
        messageId: 'noId',
        data: { node: n.node, group: n.group, instance: n.instance.id },
        subject: { kind: 'Node', name: n.node },
        nodeGroup: n.group,
        evidence: [
          { source: `Node ${n.node}`, observed: 'spec.providerID ""', expected: id },
          { source: `${configSource(a)} instances[id=${n.instance.id}]`, observed: `stage ${n.instance.stage}, providerID ""`, expected: id },
        ],
        remediation:
          `Give the node its providerID (an empty one can be set once; replace <instance id> with the VM's instance id from the cloud console), then change an annotation so the provider re-reads the node and copies the id into its record (it ignores other node changes):\n` +
          `  ${shellCommand(['kubectl', 'patch', 'node', n.node, '--type', 'merge', '-p', JSON.stringify({ spec: { providerID: id } })])}\n` +
          `  ${shellCommand(['kubectl', 'annotate', 'node', n.node, '--overwrite', 'casdoctor.io/provider-id-set=true'])}\n` +
          "For new nodes, have after_created_hook.sh pass the kubelet --provider-id (the group's providerIdTemplate with the instance id) to kubeadm join.",
      });
    }
  },
});
