import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterInputs } from './lib/karpenter.js';

export default defineCheck({
  meta: {
    id: 'karpenter-nodeclass-not-ready',
    title: 'EC2NodeClass not Ready: its NodePools launch nothing',
    summary: 'An EC2NodeClass is not Ready (subnets, security groups, AMIs or instance profile unresolved); NodePools using it are ignored.',
    severity: 'error',
    commands: ['why-pending'],
    requires: [],
    autoscaler: 'karpenter',
    messages: {
      notReady: 'EC2NodeClass {name} is not Ready ({conditions}): Karpenter ignores NodePool(s) {pools} and launches no node for them.',
      notFound: 'NodePool {pool} references EC2NodeClass {name}, which does not exist: Karpenter ignores the NodePool.',
    },
    upstream: 'aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_status.go; kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go (ignoring nodepool, not ready)',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodePools', 'ec2NodeClasses'])) return;
    const k = karpenterInputs(ctx.analysis);
    const poolsOf = (name: string) =>
      k.nodePools.filter((np) => np.spec.template.spec.nodeClassRef?.name === name).map((np) => np.metadata.name ?? '');
    for (const nc of k.nodeClasses) {
      const conds = nc.status?.conditions ?? [];
      const ready = conds.find((c) => c.type === 'Ready');
      if (ready?.status === 'True') continue;
      const pools = poolsOf(nc.metadata.name ?? '');
      const bad = conds.filter((c) => c.type !== 'Ready' && c.status !== 'True');
      const conditions = (bad.length ? bad : ready ? [ready] : [])
        .map((c) => `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`)
        .join('; ') || 'no status conditions yet';
      ctx.report({
        messageId: 'notReady',
        data: { name: nc.metadata.name ?? '', conditions, pools: pools.length ? pools.join(', ') : '(none)' },
        subject: { kind: 'EC2NodeClass', name: nc.metadata.name ?? '' },
        ...(pools.length === 0 ? { severity: 'warning' as const } : {}),
        caReason: 'NodeClassNotReady',
        evidence: (bad.length ? bad : ready ? [ready] : []).map((c) => ({
          source: `EC2NodeClass ${nc.metadata.name ?? ''} status.conditions`,
          observed: `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`,
          expected: `${c.type}=True`,
        })),
        remediation: bad.some((c) => c.type === 'AMIsReady')
          ? `Fix spec.amiSelectorTerms so they match an AMI in the region (an alias such as al2023@latest, or tags/ids that exist), then check: ${shellCommand(['kubectl', 'get', 'ec2nodeclass', nc.metadata.name ?? ''])} -o jsonpath='{.status.amis}'`
          : `Fix the selector or role named by the failing condition, then check: ${shellCommand(['kubectl', 'describe', 'ec2nodeclass', nc.metadata.name ?? ''])}`,
      });
    }
    const names = new Set(k.nodeClasses.map((c) => c.metadata.name));
    for (const np of k.nodePools) {
      const ref = np.spec.template.spec.nodeClassRef;
      if (!ref || ref.kind !== 'EC2NodeClass' || names.has(ref.name)) continue;
      ctx.report({
        messageId: 'notFound',
        data: { pool: np.metadata.name ?? '', name: ref.name },
        subject: { kind: 'NodePool', name: np.metadata.name ?? '' },
        caReason: 'NodeClassNotFound',
        evidence: [{ source: `NodePool ${np.metadata.name ?? ''} spec.template.spec.nodeClassRef`, observed: `EC2NodeClass ${ref.name}`, expected: 'an existing EC2NodeClass' }],
        remediation: `Create EC2NodeClass ${ref.name} or point spec.template.spec.nodeClassRef.name at an existing one (kubectl get ec2nodeclasses).`,
      });
    }
  },
});
