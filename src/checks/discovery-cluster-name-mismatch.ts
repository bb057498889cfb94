import { defineCheck } from './define-check.js';
import { caSubject, listNames, tagCommand } from '../providers/aws/asg-audit-checks.js';
import { isAsgGroup } from '../providers/aws/words.js';

const CA_PREFIX = 'k8s.io/cluster-autoscaler/';

export default defineCheck({
  meta: {
    id: 'discovery-cluster-name-mismatch',
    title: "The cluster name in CA's discovery tags is not this cluster's",
    summary:
      "--node-group-auto-discovery asks for k8s.io/cluster-autoscaler/<name>, but no ASG carries that tag and the ASGs owning this cluster's nodes name a different cluster.",
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'nodes'],
    providers: ['aws'],
    messages: {
      mismatch:
        "CA discovers ASGs tagged {wanted}, which no ASG carries; the ASGs owning this cluster's nodes are tagged for cluster {names}.",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/README.md (Auto-Discovery Setup); aws_wrapper.go getAutoscalingGroupsByTags',
  },
  run(ctx) {
    const a = ctx.analysis;
    const wanted = Object.keys(a.ca.autoDiscovery.tags).filter(
      (k) => k.startsWith(CA_PREFIX) && k !== `${CA_PREFIX}enabled` && !k.includes('/node-template/'),
    );
    if (wanted.length === 0) return;
    const carried = new Set(a.raw.autoScalingGroups.flatMap((g) => (g.Tags ?? []).map((t) => t.Key)));
    const owning = a.nodeGroupsResult.nodeGroups.filter(isAsgGroup).filter((g) => g.nodes.length > 0);
    const names = new Map<string, string[]>();
    for (const g of owning) {
      for (const t of g.asg.Tags ?? []) {
        let name: string | undefined;
        if (t.Key === 'eks:cluster-name') name = t.Value;
        else if (t.Key.startsWith('kubernetes.io/cluster/'))
          name = t.Key.slice('kubernetes.io/cluster/'.length);
        else if (
          t.Key.startsWith(CA_PREFIX) &&
          !t.Key.includes('/node-template/') &&
          t.Key !== `${CA_PREFIX}enabled`
        )
          name = t.Key.slice(CA_PREFIX.length);
        if (name) names.set(name, [...new Set([...(names.get(name) ?? []), g.name])]);
      }
    }
    for (const key of wanted) {
      if (carried.has(key)) continue;
      const cluster = key.slice(CA_PREFIX.length);
      if (names.size === 0 || names.has(cluster)) continue;
      const theirs = [...names.keys()].sort();
      const example = owning[0];
      ctx.report({
        messageId: 'mismatch',
        data: { wanted: key, names: theirs.join(', ') },
        subject: caSubject(a),
        evidence: [
          {
            source: 'CA flags',
            observed: a.ca.flags.nodeGroupAutoDiscovery.value
              .map((v) => `--node-group-auto-discovery=${v}`)
              .join(' '),
          },
          ...theirs.slice(0, 3).map((n) => ({
            source: `ASGs ${listNames(names.get(n) ?? [], 3)}`,
            observed: `tagged for cluster ${n}`,
          })),
        ],
        remediation: `Use this cluster's name in the spec, e.g. --node-group-auto-discovery=asg:tag=${CA_PREFIX}enabled,${CA_PREFIX}${theirs[0]}${
          example
            ? `\nor tag the ASGs with the name CA expects:\n  ${tagCommand(example.name, key, 'owned')}`
            : ''
        }`,
      });
    }
  },
});
