import { auditedAsgGroups, fmt, scratchInfo, targetedPods } from '../providers/aws/asg-audit.js';
import type { InstanceTypeInfo } from '../simulate/instance-types.js';
import { podRequests } from '../simulate/resources.js';
import { defineCheck } from './define-check.js';
import { groupSubject, listNames, workloadList, workloadNames } from '../providers/aws/asg-audit-checks.js';

const MI = 1024 * 1024;

function shape(t: InstanceTypeInfo): string {
  return `${t.vcpu} vCPU, ${fmt('memory', t.memoryMiB * MI)}, ${t.gpu} GPU, ${t.architecture}`;
}

export default defineCheck({
  meta: {
    id: 'mixed-instances-shape-differs',
    title: 'A MixedInstancesPolicy override differs in shape from the first one',
    summary:
      'CA simulates only the first override of a MixedInstancesPolicy; overrides with less vCPU, memory or GPU, or another architecture, launch nodes that pods CA planned for do not fit.',
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      smaller:
        'Node group {group}: CA simulates the first override {first} ({firstShape}) but the group may launch {other} ({otherShape}); {effect}.',
      larger:
        'Node group {group}: CA simulates the first override {first} ({firstShape}) but the group may launch the larger {other} ({otherShape}); CA under-uses those nodes and cannot target them by instance type.',
      unknown:
        "Node group {group}: override {other} is not in CA's instance-type list; casdoctor cannot compare it with {first}.",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_wrapper.go getInstanceTypesForAsgs (instanceTypesOverrides[0]); README "only the first instance type found will be used"; kubernetes/autoscaler#2057, #9568',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const g of auditedAsgGroups(a)) {
      const types = g.mixedInstances?.instanceTypes ?? [];
      if (types.length < 2) continue;
      const first = a.instanceTypes.lookup(types[0]);
      if (!first) continue; // template-instance-type-unknown reports it
      const info = scratchInfo(a, g);
      for (const name of types.slice(1)) {
        const other = a.instanceTypes.lookup(name);
        if (!other) {
          ctx.report({
            messageId: 'unknown',
            severity: 'info',
            data: { group: g.name, first: first.name, other: name },
            subject: groupSubject(g),
            nodeGroup: g.name,
            evidence: [
              { source: `ASG ${g.name} MixedInstancesPolicy`, observed: `overrides ${types.join(', ')}` },
            ],
          });
          continue;
        }
        const smaller: string[] = [];
        if (other.vcpu < first.vcpu) smaller.push(`cpu ${other.vcpu} < ${first.vcpu}`);
        if (other.memoryMiB < first.memoryMiB)
          smaller.push(
            `memory ${fmt('memory', other.memoryMiB * MI)} < ${fmt('memory', first.memoryMiB * MI)}`,
          );
        if (other.gpu < first.gpu) smaller.push(`GPU ${other.gpu} < ${first.gpu}`);
        if (other.architecture !== first.architecture)
          smaller.push(`architecture ${other.architecture}, not ${first.architecture}`);
        const larger = other.vcpu > first.vcpu || other.memoryMiB > first.memoryMiB || other.gpu > first.gpu;
        if (smaller.length === 0 && !larger) continue;
        const pair = {
          group: g.name,
          first: first.name,
          firstShape: shape(first),
          other: other.name,
          otherShape: shape(other),
        };
        const evidence = [
          { source: `ASG ${g.name} MixedInstancesPolicy`, observed: `overrides ${types.join(', ')}` },
          {
            source: "CA's instance-type table",
            observed: `${first.name}: ${shape(first)}; ${other.name}: ${shape(other)}`,
          },
        ];
        if (smaller.length === 0) {
          ctx.report({
            messageId: 'larger',
            severity: 'info',
            data: pair,
            subject: groupSubject(g),
            nodeGroup: g.name,
            evidence,
            remediation: `Keep one shape per ASG (CA sizes every new node as ${first.name}), or accept that the larger nodes are under-used.`,
          });
          continue;
        }
        // pods that fit a first-override node but not this one (requests vs the whole machine less the template's overhead)
        const over = info?.requested ?? {};
        const affected =
          other.architecture !== first.architecture
            ? []
            : targetedPods(a, g).filter((p) => {
                const r = podRequests(p);
                const fitsFirst =
                  (r.cpu ?? 0) <= first.vcpu * 1000 - (over.cpu ?? 0) &&
                  (r.memory ?? 0) <= first.memoryMiB * MI - (over.memory ?? 0);
                const fitsOther =
                  (r.cpu ?? 0) <= other.vcpu * 1000 - (over.cpu ?? 0) &&
                  (r.memory ?? 0) <= other.memoryMiB * MI - (over.memory ?? 0);
                return fitsFirst && !fitsOther;
              });
        const workloads = workloadNames(a, affected);
        ctx.report({
          messageId: 'smaller',
          data: {
            ...pair,
            effect:
              workloads.length > 0
                ? `${workloadList(workloads)} ${workloads.length === 1 ? 'fits' : 'fit'} the simulated node but not ${other.name} (${smaller.join('; ')})`
                : `a pod CA plans onto a new ${first.name} may not fit a ${other.name} (${smaller.join('; ')})`,
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence,
          remediation: `Keep one shape per ASG: use overrides with the same vCPU, memory, GPU and architecture as ${first.name} (e.g. ${
            listNames(
              a.instanceTypes
                .names()
                .filter((n) => {
                  const t = a.instanceTypes.lookup(n)!;
                  return (
                    n !== first.name &&
                    t.vcpu === first.vcpu &&
                    t.memoryMiB === first.memoryMiB &&
                    t.gpu === first.gpu &&
                    t.architecture === first.architecture &&
                    n.split('.')[1] === first.name.split('.')[1]
                  );
                })
                .slice(0, 4),
              4,
            ) || 'types of the same size'
          }), or split ${other.name} into its own ASG.`,
        });
      }
    }
  },
});
