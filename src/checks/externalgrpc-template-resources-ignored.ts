import { defineCheck } from './define-check.js';
import { configSource, grpcFindings, grpcGate, grpcGroupSubject, listValue, PROVIDER_REPO } from './lib/externalgrpc.js';

// G3: BuildNodeFromTemplate reads capacity cpu/memory/ephemeral-storage only and sets allocatable = capacity.
export default defineCheck({
  meta: {
    id: 'externalgrpc-template-resources-ignored',
    title: "Declared allocatable and extended resources never reach CA's template",
    summary:
      "An externalgrpc group's nodeTemplate declares allocatable, GPUs or other resources the provider drops: CA's template has allocatable = capacity and only cpu, memory, ephemeral-storage.",
    severity: 'warning',
    commands: ['why-pending', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      allocatableIgnored:
        'Node group {group} declares allocatable {declared}, but the provider builds its template with allocatable = capacity ({used}): CA packs more onto a new node than the kubelet will allow.',
      capacityDropped:
        'Node group {group} declares {declared} in capacity; the provider reads only cpu, memory and ephemeral-storage, so CA never sees {resources} and no pod requesting {resources} makes CA scale this group up.',
      capacityDefaulted: 'Node group {group} capacity.{resource} {problem}: the provider uses {used} for the template.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:1040-1100 (BuildNodeFromTemplate)`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    const a = ctx.analysis;
    for (const f of grpcFindings(a, 'G3')) {
      const group = f.group ?? '';
      const base = { subject: grpcGroupSubject(group), nodeGroup: group };
      const src = `${configSource(a)} nodeGroups[id=${group}].nodeTemplate`;
      if (f.kind === 'allocatable-ignored') {
        const pairs = Object.entries(f.values).map(([k, v]) => [k.replace(/^allocatable\./, ''), String(v).split(' -> ')] as const);
        ctx.report({
          ...base,
          messageId: 'allocatableIgnored',
          data: { group, declared: pairs.map(([k, [d]]) => `${k}=${d}`).join(', '), used: pairs.map(([k, [, u]]) => `${k}=${u}`).join(', ') },
          evidence: [{ source: `${src}.allocatable`, observed: pairs.map(([k, [d]]) => `${k}=${d}`).join(', '), expected: `CA's template: ${pairs.map(([k, [, u]]) => `${k}=${u}`).join(', ')}` }],
          remediation:
            "The provider cannot express allocatable: set capacity to what the kubelet will report as allocatable (capacity minus kube-reserved, system-reserved and eviction threshold), so CA's template is not larger than the real node. Until a node of the group runs, CA plans with the template; afterwards with the real node.",
        });
      } else if (f.kind === 'capacity-dropped') {
        const dropped = f.values.dropped as string[];
        ctx.report({
          ...base,
          severity: dropped.some((r) => /gpu/i.test(r)) ? 'error' : 'warning',
          messageId: 'capacityDropped',
          data: { group, declared: listValue(dropped.map((r) => `${r}`)), resources: listValue(dropped) },
          evidence: [{ source: `${src}.capacity`, observed: `declares ${listValue(dropped)}`, expected: "only cpu, memory, ephemeral-storage reach CA's template (pods fixed at 110)" }],
          remediation:
            "CA can scale the group from zero for such pods only if the template carries the resource, which this provider cannot do. Keep at least one node of the group running: CA then builds the template from that real node, whose device plugin reports the resource. A minSize of 1 keeps it once it runs but starts none unless CA runs with --enforce-node-group-min-size=true (default false); start one with the provider's PATCH /api/v1/nodegroup/<id>?delta=1. Or patch BuildNodeFromTemplate to copy every capacity key.",
        });
      } else {
        ctx.report({
          ...base,
          messageId: 'capacityDefaulted',
          data: { group, resource: String(f.values.resource), problem: f.values.declared === '' ? 'is missing' : `"${String(f.values.declared)}" does not parse`, used: String(f.values.used) },
          evidence: [{ source: `${src}.capacity.${String(f.values.resource)}`, observed: f.values.declared === '' ? 'absent' : String(f.values.declared), expected: 'a Kubernetes quantity' }],
          remediation: `Write capacity.${String(f.values.resource)} as a Kubernetes quantity (e.g. cpu: "8", memory: 16Gi, ephemeral-storage: 200Gi).`,
        });
      }
    }
  },
});
