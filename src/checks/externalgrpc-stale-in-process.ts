import { findProviderDeployment } from '../providers/externalgrpc/deployment.js';
import { IN_PROCESS_BOUND_MS, providerStartedAt, stageStalls } from '../providers/externalgrpc/stalls.js';
import { grpcRetryInstances } from '../providers/externalgrpc/wording.js';
import { defineCheck } from './define-check.js';
import { configSource, grpcGate, grpcInput, minutes, PROVIDER_REPO, providerLogsCommand } from './lib/externalgrpc.js';

// src/providers/externalgrpc/stalls.ts: InProcess records no handler will ever finish hold the stage's slots.
export default defineCheck({
  meta: {
    id: 'externalgrpc-stale-in-process',
    title: "externalgrpc records stuck InProcess use up the provider's create or delete parallelism",
    summary:
      "Records left InProcess by a provider restart (or waitJoined's 'node not found') are never handled again and count against --create-parallelism / --delete-parallelism for their stage, in every group: enough of them and no instance gets past that stage.",
    severity: 'error',
    commands: ['why-pending', 'scale-down-blockers', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      full: 'Stage {stage} is full: {count} record(s) stuck InProcess ({records}) hold all {limit} slot(s) of --{flag}, so the provider moves no instance of any node group past {stage}{effect}.',
      partial: '{count} record(s) stuck InProcess in stage {stage} ({records}) hold {count} of the {limit} slot(s) of --{flag} for good: the provider moves instances of every node group past {stage} {left} at a time.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:1580-1585 (one handler per stage), l.1606-1653 (InProcess counted, only Init retried), l.2001-2006 (waitJoined), main.go:59-60 (defaults 5 and 1)`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    const a = ctx.analysis;
    const dep = findProviderDeployment(a.raw.deployments);
    const started = providerStartedAt(dep, a.raw.pods);
    for (const s of stageStalls(grpcInput(a).groups, dep, started, a.now)) {
      const records = s.stale
        .slice(0, 5)
        .map((r) => `${r.instance.id}${r.instance.name ? ` (${r.instance.name})` : ''} of ${r.group}`)
        .join(', ') + (s.stale.length > 5 ? ` and ${s.stale.length - 5} more` : '');
      const create = s.flag === 'create-parallelism';
      const effect = create
        ? s.stage === 'Pending'
          ? ': no new instance is created for any scale-up'
          : ': new instances stop there and never join'
        : s.stage === 'PendingDeletion'
          ? ': no scale-down or unregistered-node delete runs its delete hook'
          : ': no VM is terminated';
      const whys = [...new Set(s.stale.map((r) => r.why))].map((w) =>
        w === 'restart'
          ? `updated before the provider's current process started (${started?.toISOString() ?? '?'}): the goroutine that handled it died with the old process`
          : w === 'joined-wait'
            ? "waitJoined's 'node not found' left it InProcess"
            : `InProcess for over ${minutes(IN_PROCESS_BOUND_MS)} (likely a provider restart; the input has no start time of the provider's pod to tell)`,
      );
      ctx.report({
        messageId: s.full ? 'full' : 'partial',
        severity: s.full && s.certain ? 'error' : 'warning',
        data: { stage: s.stage, count: String(s.stale.length), records, limit: String(s.limit), flag: s.flag, effect, left: String(Math.max(s.limit - s.stale.length, 0)) },
        subject: { kind: 'Instance', name: s.stale[0].instance.id },
        nodeGroup: s.stale[0].group,
        evidence: [
          {
            source: `${configSource(a)} instances in stage ${s.stage}`,
            observed: `${s.stale.length} with status InProcess: ${whys.join('; ')}`,
            expected: `fewer than ${s.limit} (--${s.flag}${dep && new RegExp(`--?${s.flag}`).test([...(dep.container.command ?? []), ...(dep.container.args ?? [])].join(' ')) ? '' : `, the provider's default`}) InProcess records in stage ${s.stage}, each with a step running`,
          },
        ],
        remediation:
          `Set the records back to Init through the provider's HTTP API so its ${s.stage} handler takes them again (unauthenticated: port-forward, never expose it):\n  ${grpcRetryInstances(s.stale.map((r) => ({ id: r.instance.id, stage: r.instance.stage })), a.providerContext).join('\n  ')}\n` +
          `A restart of the provider does not help: it reads the records back from its ConfigMap with the same status. Check first in its log that no step of theirs is still running: ${providerLogsCommand(a)} | grep ${s.stale[0].instance.id}`,
      });
    }
  },
});
