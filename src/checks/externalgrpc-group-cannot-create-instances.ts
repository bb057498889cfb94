import { defineCheck } from './define-check.js';
import { configSource, grpcFindings, grpcGate, grpcGroupSubject, PROVIDER_REPO } from './lib/externalgrpc.js';

// G6: a group without instanceParameter is offered to CA with room to grow; every create it gets fails in the provider.
export default defineCheck({
  meta: {
    id: 'externalgrpc-group-cannot-create-instances',
    title: 'CA may scale up an externalgrpc group that cannot create instances',
    summary:
      'An externalgrpc group has no instanceParameter but maxSize above its target (the provider\'s `default` group always): a scale-up CA sends there only creates failed records.',
    severity: 'warning',
    commands: ['why-pending', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      noParameter:
        'Node group {group} has no instanceParameter but room to grow (target {target}, max {max}): a scale-up CA sends there creates records that fail with "nodegroup({group}).InstanceParameter[] not exist", and CA sees no error until --max-node-provision-time.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:1842-1849 (createInstance), l.1404-1428 (default group: no instanceParameter)`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    const a = ctx.analysis;
    for (const f of grpcFindings(a, 'G6').filter((x) => x.kind === 'no-instance-parameter')) {
      const group = f.group ?? '';
      const implicit = f.values.implicit === true;
      ctx.report({
        messageId: 'noParameter',
        data: { group, target: Number(f.values.targetSize), max: Number(f.values.maxSize) },
        subject: grpcGroupSubject(group),
        nodeGroup: group,
        evidence: [{ source: `${configSource(a)} nodeGroups[id=${group}]`, observed: `instanceParameter "", targetSize ${String(f.values.targetSize)}, maxSize ${String(f.values.maxSize)}`, expected: 'an instanceParameter, or maxSize = targetSize' }],
        remediation: implicit
          ? 'The provider adds `default` itself (min 0, max 1000, 8 CPU / 16G template). Declare a group with id "default" in the provider\'s config with maxSize equal to the nodes it holds, so CA never picks it for a scale-up; the provider then keeps your declaration.'
          : `Set maxSize: ${String(f.values.targetSize)} on ${group} so CA never scales it, or give it an instanceParameter (a key of cloudProviderOption.instanceParameter).`,
      });
    }
  },
});
