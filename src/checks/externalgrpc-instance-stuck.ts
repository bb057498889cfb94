import { shellQuote } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { grpcOptionsAsCaSees } from '../providers/externalgrpc/options.js';
import { grpcRetryInstances } from '../providers/externalgrpc/wording.js';
import { configSource, grpcFindings, grpcGate, grpcInput, minutes, PROVIDER_REPO, providerLogsCommand } from './lib/externalgrpc.js';

const NEXT_STEP: Record<string, string> = {
  Creating: 'the cloud has not reported the VM running',
  Created: 'the VM runs but after_created_hook.sh (which joins it to the cluster) has not succeeded',
  Joined: 'the hook ran but no Node with that name registered',
  PendingDeletion: 'before_delete_hook.sh has not succeeded',
  Deleting: 'the cloud has not confirmed the delete',
};

// STUCK: an instance record that stopped in a stage: a failed hook or a Joined wait is never retried (README FAQ).
export default defineCheck({
  meta: {
    id: 'externalgrpc-instance-stuck',
    title: 'externalgrpc instance stuck in a life-cycle stage (created but never joined)',
    summary:
      "An externalgrpc provider instance stays in Creating/Created/Joined/PendingDeletion/Deleting past a bound or failed there (节点创建后未加入集群): the provider does not retry it; CA counts it as upcoming, then long-unregistered.",
    severity: 'error',
    commands: ['why-pending', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      stuck: 'Instance {instance} of node group {group} is stuck in {stage} ({status}){age}: {next}; {why}.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:1606-1653 (handleRouteInstances retries only Init), l.1961-2028 (hooks and join), nodegroup/instance/instance.go:11-20; README FAQ`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    const a = ctx.analysis;
    const logs = providerLogsCommand(a);
    const input = grpcInput(a);
    // what CA does with an instance that never registers (static_autoscaler.go removeOldUnregisteredNodes; provider
    // DeleteNodes by providerID -> PendingDeletion, before_delete_hook over SSH, node_group.go:915-961, 2031-2056)
    const deleteFate = (group: string | undefined): string => {
      const spec = input.groups.find((g) => g.id === group);
      const mpt = grpcOptionsAsCaSees(spec, input.caMinor, input.caDefaults, input.era).values.maxNodeProvisionTimeMs;
      return `CA deletes an instance that has not registered within --max-node-provision-time (${minutes(mpt)} as CA ${a.ca.version.version ?? `1.${input.caMinor}`} reads it for the group): the provider marks the record PendingDeletion, lowers the target and runs before_delete_hook.sh, and when that fails over SSH as well the record stays PendingDeletion/Failed and the VM keeps running, outside the target size.`;
    };
    for (const f of grpcFindings(a, 'STUCK')) {
      const stage = String(f.values.stage);
      const status = String(f.values.status) || 'no status';
      const error = String(f.values.error);
      const age = typeof f.values.ageMs === 'number' ? ` for ${minutes(f.values.ageMs)}` : '';
      const failed = status === 'Failed';
      // waitJoined leaves "node not found" with status InProcess, which handleRouteInstances never retries (l.1642, l.2001-2006)
      const joinedNeverRetried = stage === 'Joined' && status === 'InProcess' && error !== '';
      const why = failed
        ? 'it failed there and the provider never retries a Failed record'
        : joinedNeverRetried
          ? `the provider does not look for the Node again (status InProcess is not retried: ${error})`
          : `longer than ${minutes(Number(f.values.boundMs))} (--max-node-provision-time)`;
      const name = f.message.match(/\(([^)]+)\) of "/)?.[1];
      const instance = name ? `${f.instance ?? ''} (${name})` : (f.instance ?? '');
      ctx.report({
        messageId: 'stuck',
        data: { instance, group: f.group ?? '', stage, status, age, next: NEXT_STEP[stage] ?? 'it has not moved on', why },
        subject: { kind: 'Instance', name: f.instance ?? '' },
        nodeGroup: f.group ?? '',
        ...(stage === 'Created' ? { caReason: 'ScaleUpTimedOut' } : {}),
        evidence: [
          { source: `${configSource(a)} instances[id=${f.instance ?? ''}]`, observed: `stage ${stage}, status ${status}${error ? `, error: ${error}` : ''}`, expected: 'stage Running' },
          ...(f.values.providerID ? [{ source: 'Nodes', observed: `no Node with spec.providerID ${String(f.values.providerID)}` }] : []),
        ],
        remediation:
          (stage === 'Created' || stage === 'Joined'
            ? `Find why the node did not join (the provider's log names the hook's output: ${logs} | grep ${f.instance ? shellQuote(f.instance) : ''}). A failed after_created_hook.sh is usually SSH: the password or key in the hook's environment, sshd on the image, or a security group. ${deleteFate(f.group)} Fix the cause, then have the provider retry the step (its HTTP API sets the record back to Init; it is unauthenticated: port-forward, never expose it):`
            : `Read the provider's log for the record (${logs} | grep ${f.instance ? shellQuote(f.instance) : ''}) and fix the cause; then have the provider retry the step through its HTTP API (it is unauthenticated: port-forward, never expose it):`) +
          `\n  ${grpcRetryInstances([{ id: f.instance ?? '', stage }], a.providerContext).join('\n  ')}`,
      });
    }
  },
});
