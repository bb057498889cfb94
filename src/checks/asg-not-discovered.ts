import type { AsgNodeGroup } from '../model/node-group.js';
import type { Analysis } from '../simulate/analysis.js';
import { auditedAsgGroups } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject, tagCommand } from '../providers/aws/asg-audit-checks.js';
import { EVIDENCE_NAMES, listNames } from './lib/support.js';

/** The cluster tag that ties the ASG to this cluster, if any. */
function clusterTag(a: Analysis, g: AsgNodeGroup): string | undefined {
  const names = a.clusterNames();
  for (const t of g.asg.Tags ?? []) {
    const m = /^kubernetes\.io\/cluster\/(.+)$/.exec(t.Key);
    if (m && names.has(m[1])) return `${t.Key}=${t.Value ?? ''}`;
    if (t.Key === 'eks:cluster-name' && names.has(t.Value ?? '')) return `${t.Key}=${t.Value}`;
  }
  return undefined;
}

export default defineCheck({
  meta: {
    id: 'asg-not-discovered',
    title: 'An ASG of this cluster is not managed by CA',
    summary:
      'An ASG that owns nodes of this cluster (or is tagged for it) matches neither --node-group-auto-discovery nor --nodes, so CA never scales it.',
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      ownsNodes: 'ASG {group} owns {count} node(s) of this cluster but CA never scales it: {why}.',
      tagged: 'ASG {group} is tagged for this cluster ({tag}) but CA never scales it: {why}.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go parseASGAutoDiscoverySpec; aws_wrapper.go getAutoscalingGroupsByTags; auto_scaling_groups.go buildAsgTags',
  },
  run(ctx) {
    const a = ctx.analysis;
    const spec = a.ca.autoDiscovery.tags;
    for (const g of auditedAsgGroups(a)) {
      if (g.discovered) continue;
      const tag = clusterTag(a, g);
      if (g.nodes.length === 0 && !tag) continue;
      const have = new Map((g.asg.Tags ?? []).map((t) => [t.Key, t.Value ?? '']));
      const missing = Object.entries(spec).filter(
        ([k, v]) => !have.has(k) || (v !== undefined && have.get(k) !== v),
      );
      const why = g.mismatch ?? 'not discovered';
      const discoveryFlags = a.ca.flags.nodeGroupAutoDiscovery.value;
      ctx.report({
        messageId: g.nodes.length > 0 ? 'ownsNodes' : 'tagged',
        severity: g.nodes.length > 0 ? 'error' : 'warning',
        data: { group: g.name, count: g.nodes.length, why, tag: tag ?? '' },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [
          {
            source: 'CA flags',
            observed:
              discoveryFlags.length > 0
                ? discoveryFlags.map((f) => `--node-group-auto-discovery=${f}`).join(' ')
                : 'no --node-group-auto-discovery',
            expected: Object.keys(spec).length
              ? `every tag of ${Object.entries(spec)
                  .map(([k, v]) => (v === undefined ? k : `${k}=${v}`))
                  .join(', ')} on the ASG`
              : undefined,
          },
          {
            source: `ASG ${g.name} tags`,
            observed:
              [...have]
                .filter(([k]) => k.startsWith('k8s.io/cluster-autoscaler/') && !k.includes('/node-template/'))
                .map(([k, v]) => `${k}=${v}`)
                .join(', ') || 'no k8s.io/cluster-autoscaler/ tags',
          },
          ...(g.nodes.length > 0
            ? [{ source: 'nodes', observed: listNames(g.nodes.map((n) => n.metadata.name ?? ''), EVIDENCE_NAMES) }]
            : []),
        ],
        remediation:
          missing.length > 0
            ? `Tag the ASG with what the discovery spec asks for (CA picks it up at its next refresh, within a minute):\n${missing
                .map(
                  ([k, v]) =>
                    `  ${tagCommand(g.name, k, v ?? (k.startsWith('k8s.io/cluster-autoscaler/') && k !== 'k8s.io/cluster-autoscaler/enabled' ? 'owned' : 'true'))}`,
                )
                .join('\n')}\nIf CA must not scale this group, nothing to do.`
            : `Add --nodes=${g.asgMinSize}:${g.asgMaxSize}:${g.name} to CA's arguments, or configure --node-group-auto-discovery=asg:tag=<key> with a tag this ASG carries.`,
      });
    }
  },
});
