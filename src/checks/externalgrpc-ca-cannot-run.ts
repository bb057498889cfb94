import { shellCommand } from '../model/shell.js';
import { caRunning, caScaleUpFails, caScaleUpNeverLands, type CaStopReason } from '../simulate/ca-running.js';
import { grpcChangeSize, grpcRetryInstances } from '../providers/externalgrpc/wording.js';
import { caInstanceView, countedInTargetSize } from '../providers/externalgrpc/groups.js';
import { defineCheck } from './define-check.js';
import { isGrpcGroup } from '../providers/externalgrpc/words.js';
import { configSource, grpcGate, grpcGroupSubject, PROVIDER_REPO, statusConfigMapCommand } from './lib/externalgrpc.js';

// The externalgrpc half of "can CA run at all" (src/simulate/ca-running.ts); CA's own pod is ca-pod-unhealthy's.
const KINDS = new Set<CaStopReason['kind']>(['options-panic', 'template-nil', 'scale-up-timeout-crash', 'size-fix-halt']);

export default defineCheck({
  meta: {
    id: 'externalgrpc-ca-cannot-run',
    title: 'CA crashes or skips every loop on what this externalgrpc provider answers',
    summary:
      "CA panics on the provider's answers (1.29-1.34 with autoscalingOptions, 1.35+ on a nil template) or fixes a group's size every loop without effect: nothing is scaled up or down.",
    severity: 'error',
    commands: ['why-pending', 'scale-down-blockers', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      certain: 'CA is not running: nothing is scaled up or down. {text}.',
      likely: 'CA is likely not running: nothing is scaled up or down. {text}.',
      scaleUpFails: 'Every scale-up of CA\'s fails: {text}.',
      neverLands: 'CA runs, but no node it adds ever joins: {text}.',
    },
    upstream:
      'kubernetes/autoscaler cluster-autoscaler/cloudprovider/externalgrpc/externalgrpc_node_group.go (GetOptions 1.29-1.34, TemplateNodeInfo 1.35), core/static_autoscaler.go (fixNodeGroupSize); ' +
      `${PROVIDER_REPO} wrapper/wrapper.go:313-353, nodegroup/node_group.go:966-989`,
  },
  run(ctx) {
    if (!grpcGate(ctx, { caVersion: true })) return;
    const a = ctx.analysis;
    const caNs = a.ca.deployment?.namespace ?? 'kube-system';
    const caName = a.ca.deployment?.name ?? 'cluster-autoscaler';
    const caLogs = shellCommand(['kubectl', '-n', caNs, 'logs', `deploy/${caName}`, '--previous', '--tail=100']);
    for (const r of caScaleUpFails(a)) {
      ctx.report({
        messageId: 'scaleUpFails',
        data: { text: r.text.replace(/^./, (c) => c.toUpperCase()) },
        subject: { kind: 'Deployment', name: caName, namespace: caNs },
        evidence: [{ source: `${configSource(a)} and the node's labels`, observed: r.text, expected: r.upstream }],
        remediation:
          'Make the node match exactly one group: change its labels, annotations or taints, or make the groups\' nodeTemplate labels exclusive (a group whose labels are a subset of another\'s matches every node of both). For two records naming one node, delete the stale one (stage Deleted or a reused name).',
      });
    }
    for (const r of caScaleUpNeverLands(a)) {
      ctx.report({
        messageId: 'neverLands',
        data: { text: r.text },
        subject: { kind: 'Deployment', name: caName, namespace: caNs },
        evidence: [{ source: `CA Deployment ${caNs}/${caName} (its image tag)`, observed: r.text, expected: r.upstream }],
        remediation:
          'Run CA 1.29-1.34 with no autoscalingOptions in any group (the provider then echoes CA\'s defaults, the provision time included; set the thresholds with CA\'s flags), or CA 1.26 or older, which has no per-group provision time. Until then every scale-up CA makes here ends in a deleted VM, or a VM left running when the delete hook fails: the records in stage PendingDeletion with status Failed in ' +
          `${statusConfigMapCommand(a)}.`,
      });
    }
    for (const r of caRunning(a).reasons.filter((x) => KINDS.has(x.kind))) {
      const base = {
        messageId: r.certainty,
        data: { text: r.text.replace(/^./, (c) => c.toUpperCase()) },
        severity: r.certainty === 'certain' ? ('error' as const) : ('warning' as const),
        evidence: [{ source: r.kind === 'size-fix-halt' ? `${configSource(a)} node group ${r.group ?? ''}` : `CA Deployment ${caNs}/${caName}`, observed: r.text, expected: r.upstream }],
      };
      if (r.kind === 'size-fix-halt') {
        const group = a.nodeGroupsResult.nodeGroups.find((g) => g.name === r.group);
        const spec = group && isGrpcGroup(group) ? group.grpc : undefined;
        const failed = (spec?.instances ?? []).filter((i) => countedInTargetSize(i) && i.stage === 'Pending' && i.status === 'Failed' && caInstanceView(i) === 'hidden');
        const retry = failed.length ? grpcRetryInstances(failed.map((i) => ({ id: i.id, stage: i.stage })), a.providerContext) : [];
        const lower = spec ? grpcChangeSize(spec.id, -1, a.providerContext).slice(1) : [];
        ctx.report({
          ...base,
          subject: grpcGroupSubject(r.group ?? ''),
          nodeGroup: r.group ?? '',
          remediation:
            (retry.length
              ? `Fix the cause of the failed create (its error is in the record and the provider's log), then let the provider retry it through its HTTP API (unauthenticated: port-forward, never expose it):\n  ${retry.join('\n  ')}\n`
              : '') +
            `Or lower ${r.group ?? ''}'s min size by one (casdoctor node-group-audit prints the POST /api/v1/nodegroup body) so the provider can drop the record${lower.length ? `, then drop it:\n  ${lower.join('\n  ')}` : '.'}\nA decrease alone (PATCH ?delta=-1) cannot go below min size and does nothing here.`,
        });
      } else {
        ctx.report({
          ...base,
          subject: { kind: 'Deployment', name: caName, namespace: caNs },
          remediation:
            r.kind === 'options-panic'
              ? `Remove autoscalingOptions from node group ${r.group ?? ''} (the provider then echoes CA's own defaults, the provision time included; set the thresholds with CA's flags), or run CA 1.26 or older. Not 1.27-1.28: they read every group's provision time as 0 and delete each new instance about one loop after it is listed. CA's last crash: ${caLogs}`
              : `Run CA 1.29-1.34 with no autoscalingOptions in any group (or 1.26 or older) until the provider is rebuilt on CA 1.35's proto (it must answer nodeBytes). CA's last crash: ${caLogs}`,
        });
      }
    }
  },
});
