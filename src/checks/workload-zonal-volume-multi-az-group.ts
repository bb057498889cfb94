import { isZonalStorageClass, workloadClaims } from '../simulate/preflight.js';
import { defineCheck } from './define-check.js';
import { listNames, placements, workloadRef, workloadSubject } from './lib/preflight.js';
import { flowList, yamlSnippet } from './lib/snippets.js';

export default defineCheck({
  meta: {
    id: 'workload-zonal-volume-multi-az-group',
    title: 'Zonal volumes on a node group that spans zones',
    summary:
      "A workload with zonal volumes (EBS) that runs on a multi-AZ node group: CA's template is in the group's first zone only, so pods whose volume is elsewhere get no scale-up.",
    severity: 'warning',
    commands: ['preflight'],
    requires: ['autoScalingGroups'],
    messages: {
      multiAz:
        "{workload} keeps zonal volume(s) {claims} and fits node group(s) {groups} that span several zones; CA's template for {first} is in {templateZone} only, so a pod whose volume is in {others} cannot trigger a scale-up there.",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go getAsgTemplate (AvailabilityZones[0]); kubernetes/autoscaler#1431, #3845; eksctl docs "Zone-aware Auto Scaling"',
  },
  run(ctx) {
    for (const p of placements(ctx.analysis)) {
      const multi = p.caFits.filter((g) => g.g.zones.length > 1);
      if (multi.length === 0) continue;
      const zonal = workloadClaims(ctx.analysis, p.workload).filter(
        (c) =>
          c.storageClass &&
          isZonalStorageClass(c.storageClass) &&
          c.origin !== 'ephemeral' &&
          c.origin !== 'missing',
      );
      if (zonal.length === 0) continue;
      const first = multi[0];
      const others = first.g.zones.filter((z) => z !== first.g.templateZone);
      ctx.report({
        messageId: 'multiAz',
        data: {
          workload: workloadRef(p.workload),
          claims: listNames(zonal.map((c) => `${c.claimName} (${c.className})`)),
          groups: listNames(multi.map((g) => `${g.g.group.name} [${g.g.zones.join(', ')}]`)),
          first: first.g.group.name,
          templateZone: first.g.templateZone ?? first.g.zones[0],
          others: others.join(' or '),
        },
        subject: workloadSubject(p.workload),
        schedulerReason: 'node(s) had volume node affinity conflict',
        evidence: multi.map((g) => ({
          source: `node group ${g.g.group.name}`,
          observed: `zones ${g.g.zones.join(', ')}; CA's template zone ${g.g.templateZone ?? g.g.zones[0]}`,
          expected: 'one zone per node group',
        })),
        remediation: [
          'Give stateful workloads one node group per zone, each tagged or labelled for its zone, and run CA with',
          '--balance-similar-node-groups so it spreads scale-ups across them. In eksctl:',
          yamlSnippet(
            {
              nodeGroups: first.g.zones.map((z) => ({
                name: `${first.g.group.name}-${z.slice(-2)}`,
                availabilityZones: flowList([z]),
              })),
            },
            2,
            { indentSeq: false },
          ),
        ].join('\n'),
      });
    }
  },
});
