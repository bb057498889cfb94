import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterInputs } from './lib/karpenter.js';
import { REGISTRATION_TTL_MS, stuckNodeClaims } from '../simulate/providers/karpenter/placement.js';

const STAGE_WORD = { launch: 'was created {age} ago and never launched', registration: 'launched {age} ago, but its Node never registered', initialization: 'registered {age} ago, but its Node never initialized' } as const;

export default defineCheck({
  meta: {
    id: 'karpenter-nodeclaim-not-registered',
    title: 'NodeClaim launched but its node never joined',
    summary: "A NodeClaim's instance launched but no Node registered (or it never initialized): Karpenter's pods wait, then it is replaced after 15m.",
    severity: 'warning',
    commands: ['why-pending'],
    requires: [],
    autoscaler: 'karpenter',
    messages: {
      stuck: 'NodeClaim {name} of NodePool {pool} {what}{ttl}.',
    },
    upstream: 'kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/liveness.go (registrationTimeout 15m), registration.go, initialization.go',
  },
  run(ctx) {
    if (!karpenterGate(ctx, ['nodeClaims'])) return;
    const now = ctx.analysis.now;
    const k = karpenterInputs(ctx.analysis);
    for (const c of stuckNodeClaims(k.nodeClaims, undefined, now, k.settings?.version)) {
      // a node initializing for a minute is normal; only a long wait is a finding
      if (c.stage === 'initialization' && c.ageMs < REGISTRATION_TTL_MS) continue;
      if (c.stage !== 'initialization' && c.ageMs < 60_000) continue;
      const min = Math.round(c.ageMs / 60_000);
      const instanceId = c.providerID?.split('/').pop();
      ctx.report({
        messageId: 'stuck',
        data: {
          name: c.name,
          pool: c.nodePool,
          what: STAGE_WORD[c.stage].replace('{age}', `${min}m`),
          ttl: c.boundMs !== undefined ? (c.overdue ? `, past Karpenter's ${Math.round(c.boundMs / 60_000)}m timeout` : `; Karpenter deletes it ${Math.round(c.boundMs / 60_000)}m after it was created (${Math.max(0, Math.round((c.boundMs - c.ageMs) / 60_000))}m left) and launches another`) : '',
        },
        subject: { kind: 'NodeClaim', name: c.name },
        ...(c.overdue ? { severity: 'error' as const } : {}),
        caReason: c.stage === 'registration' ? 'Registered=Unknown' : c.stage === 'launch' ? 'Launched=False' : 'Initialized=False',
        evidence: [{ source: `NodeClaim ${c.name} status`, observed: c.message, ...(c.providerID ? { expected: `a Node with spec.providerID ${c.providerID}` } : {}) }],
        remediation:
          c.stage === 'registration'
            ? `The instance runs but its kubelet did not join: read its console output (${instanceId ? shellCommand(['aws', 'ec2', 'get-console-output', '--instance-id', instanceId, '--latest']) : 'aws ec2 get-console-output --instance-id <instance-id> --latest'}) and check the EC2NodeClass role is in the aws-auth ConfigMap or an EKS access entry of type EC2_LINUX, and that its subnets reach the API server.`
            : c.stage === 'launch'
              ? `${shellCommand(['kubectl', 'describe', 'nodeclaim', c.name])}: the Launched condition and the events name the EC2 error (capacity, quota, AMI, instance profile).`
              : `${shellCommand(['kubectl', 'describe', 'nodeclaim', c.name])}: a startup taint nobody removes or a device plugin that never reports its resource keeps the node uninitialized.`,
      });
    }
  },
});
