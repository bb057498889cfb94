import { auditedAsgGroups, caLaunchTemplateVersion, fmt, scratchOf } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject } from '../providers/aws/asg-audit-checks.js';

const MI = 1024 * 1024;

export default defineCheck({
  meta: {
    id: 'mixed-instances-attribute-based',
    title: 'The group uses attribute-based instance selection',
    summary:
      'For attribute-based instance selection CA simulates the first matching type, with CPU and memory replaced by the requirement minimums: bigger instances are under-used, GPU counts may be missing.',
    severity: 'info',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      minimums:
        'Node group {group} selects instances by attributes ({requirements}); CA simulates {type} with {simulated}, whatever the ASG launches.',
      unresolved:
        'Node group {group} selects instances by attributes ({requirements}); CA cannot build its template: {reason}.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go updateCapacityWithRequirementsOverrides; aws_wrapper.go getInstanceTypeFromInstanceRequirements',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const g of auditedAsgGroups(a)) {
      const fromPolicy = g.asg.MixedInstancesPolicy?.LaunchTemplate?.Overrides?.find(
        (o) => o.InstanceRequirements,
      )?.InstanceRequirements;
      const data = caLaunchTemplateVersion(a, g)?.LaunchTemplateData;
      const req = fromPolicy ?? (data && !data.InstanceType ? data.InstanceRequirements : undefined);
      if (!req) continue;
      const range = (r?: { Min?: number; Max?: number }, f: (n: number) => string = String) =>
        `${r?.Min !== undefined ? f(r.Min) : '0'}-${r?.Max !== undefined ? f(r.Max) : '∞'}`;
      const requirements = `vCPU ${range(req.VCpuCount)}, memory ${range(req.MemoryMiB, (n) => fmt('memory', n * MI))}`;
      const s = scratchOf(a, g);
      const cap = s.node?.status?.capacity;
      if (!s.node || !cap) {
        ctx.report({
          messageId: 'unresolved',
          severity: 'warning',
          data: { group: g.name, requirements, reason: s.reason ?? 'no template' },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [{ source: `ASG ${g.name}`, observed: requirements }],
          remediation:
            'CA needs ec2:DescribeImages and ec2:GetInstanceTypesFromInstanceRequirements for this group.',
        });
        continue;
      }
      const simulated = `cpu ${cap.cpu}, memory ${cap.memory}${Number(cap['nvidia.com/gpu'] ?? 0) > 0 ? `, nvidia.com/gpu ${cap['nvidia.com/gpu']}` : ''}`;
      ctx.report({
        messageId: 'minimums',
        data: { group: g.name, requirements, type: s.instanceType ?? '?', simulated },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [
          { source: `ASG ${g.name}`, observed: `InstanceRequirements ${requirements}` },
          ...s.notes
            .filter((n) => /attribute-based|requirements/.test(n))
            .map((n) => ({ source: 'CA template', observed: n })),
        ],
        remediation: fromPolicy
          ? 'Keep the requirement ranges narrow (Min close to Max) so the simulated node matches what launches, or list instance types as overrides.'
          : 'CA uses the first type EC2 returns for the launch template requirements; keep the ranges narrow, or set an InstanceType.',
      });
    }
  },
});
