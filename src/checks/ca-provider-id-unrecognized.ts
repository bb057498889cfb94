import { shellCommand } from '../model/shell.js';
import { caVersionText } from '../simulate/ca-config.js';
import {
  nodesWithUnrecognizedProviderId,
  UNRECOGNIZED_PROVIDER_ID_TOLERATED_MINOR,
} from '../providers/aws/node-groups.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-provider-id-unrecognized',
    title: 'A node whose providerID stops every CA loop (CA before 1.33)',
    summary:
      'Before 1.33, one node with a providerID the AWS provider cannot parse (e.g. eks-hybrid://) fails every CA loop: CA scales nothing.',
    severity: 'error',
    commands: ['why-pending', 'scale-down-blockers'],
    requires: ['nodes', 'deployments'],
    providers: ['aws'],
    messages: {
      breaksLoop:
        'Node {node} has providerID "{providerID}", which the AWS provider of CA {version} cannot parse; every CA loop fails on it, so CA scales no node group up or down.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_cloud_provider.go NodeGroupForNode (kubernetes/autoscaler#8045, fixed in 1.33.0)',
  },
  run(ctx) {
    const ca = ctx.analysis.ca;
    // an unrecognised image tag means "assume the newest CA", which ignores such nodes
    if (!ca.found || !ca.version.known || ca.version.minor >= UNRECOGNIZED_PROVIDER_ID_TOLERATED_MINOR) return;
    const version = caVersionText(ca);
    const sorted = nodesWithUnrecognizedProviderId(ctx.analysis.raw.nodes).sort((x, y) =>
      (x.node.metadata.name ?? '').localeCompare(y.node.metadata.name ?? ''),
    );
    for (const { node, providerID } of sorted) {
      const name = node.metadata.name ?? '';
      ctx.report({
        messageId: 'breaksLoop',
        data: { node: name, providerID, version },
        subject: { kind: 'Node', name },
        caReason: 'wrong id',
        evidence: [
          { source: `Node ${name} spec.providerID`, observed: providerID, expected: 'aws:///<zone>/<instance-id>' },
          {
            source: 'CA log (expected)',
            observed: `Failed to get node infos for groups: wrong id: expected format aws:///<zone>/<name>, got ${providerID}`,
          },
        ],
        remediation: `Upgrade CA to 1.${UNRECOGNIZED_PROVIDER_ID_TOLERATED_MINOR} or newer, which skips nodes it cannot map to an ASG. Until then CA works only without such nodes in the cluster: move hybrid/foreign nodes to a cluster this CA does not manage, or remove them:\n  ${shellCommand(['kubectl', 'drain', name, '--ignore-daemonsets'])}\n  ${shellCommand(['kubectl', 'delete', 'node', name])}`,
      });
    }
  },
});
