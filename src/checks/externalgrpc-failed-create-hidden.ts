import { shellQuote } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { grpcOptionsAsCaSees } from '../providers/externalgrpc/options.js';
import { grpcChangeSize, grpcRetryInstances } from '../providers/externalgrpc/wording.js';
import type { GrpcFindingsInput } from '../providers/externalgrpc/findings.js';
import { configSource, grpcFindings, grpcGate, grpcInput, minutes, PROVIDER_REPO, providerLogsCommand } from './lib/externalgrpc.js';

/** MaxNodeProvisionTime as CA of this version reads it for the group (0 on CA 1.27-1.28 with this provider). */
function provisionTimeOf(input: GrpcFindingsInput, group: string | undefined): number {
  const spec = input.groups.find((g) => g.id === group);
  return grpcOptionsAsCaSees(spec, input.caMinor, input.caDefaults, input.era).values.maxNodeProvisionTimeMs;
}

// G5: a record whose cloud create failed has no providerID; NodeGroupNodes hides it, RefreshTargetSize counts it.
export default defineCheck({
  meta: {
    id: 'externalgrpc-failed-create-hidden',
    title: 'Failed instance creates CA counts as upcoming nodes',
    summary:
      "An externalgrpc instance whose cloud create failed has no providerID: CA never sees it or its error, but it counts in the group's target size, so CA waits for a node that will never come.",
    severity: 'warning',
    commands: ['why-pending', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      hidden:
        'Instance record {instance} of node group {group} failed in {stage}{age} ({error}): without a providerID CA never sees it or its error, yet it counts in the target size; CA counts it as an upcoming node until its size fix-up drops it (after --max-node-provision-time, {provision} as CA reads it for the group), and the provider never retries it.',
    },
    upstream: `${PROVIDER_REPO} wrapper/wrapper.go:256-262 (NodeGroupNodes skips empty providerID), nodegroup/node_group.go:734-749 (RefreshTargetSize), l.1642 (only Init retried); kubernetes/autoscaler externalgrpc_node_group.go:180-190 (ErrorInfo ignored without a state)`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    const a = ctx.analysis;
    const input = grpcInput(a);
    for (const f of grpcFindings(a, 'G5')) {
      const age = typeof f.values.ageMs === 'number' ? ` ${minutes(f.values.ageMs)} ago` : '';
      ctx.report({
        messageId: 'hidden',
        data: { instance: f.instance ?? '', group: f.group ?? '', stage: String(f.values.stage), age, error: String(f.values.error) || 'no error text', provision: minutes(provisionTimeOf(input, f.group)) },
        subject: { kind: 'Instance', name: f.instance ?? '' },
        nodeGroup: f.group ?? '',
        caReason: 'ScaleUpTimedOut',
        evidence: [
          { source: `${configSource(a)} instances[id=${f.instance ?? ''}]`, observed: `stage ${String(f.values.stage)}, status Failed, providerID ""`, expected: 'a providerID, or no record' },
        ],
        remediation: `The cloud error is only in the record and the provider's log (${providerLogsCommand(a)} | grep ${f.instance ? shellQuote(f.instance) : ''}). CA's size fix-up drops the record by itself after --max-node-provision-time (${minutes(provisionTimeOf(input, f.group))} as CA reads it for the group: DecreaseTargetSize removes Pending records), unless the group is at its min size (then the fix-up does nothing and CA skips every loop: externalgrpc-ca-cannot-run). Fix its cause (a sold-out instance type, quota, image or subnet), then retry the create through the provider's HTTP API (unauthenticated: port-forward, never expose it):\n  ${grpcRetryInstances([{ id: f.instance ?? '', stage: String(f.values.stage) }], a.providerContext).join('\n  ')}\nor drop it now (never below min size):\n  ${f.group ? grpcChangeSize(f.group, -1, a.providerContext).slice(1).join('') : ''}`,
      });
    }
  },
});
