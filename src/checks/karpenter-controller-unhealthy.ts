import { shellCommand } from '../model/shell.js';
import { karpenterHealth, type KarpenterHealthKind } from '../simulate/providers/karpenter/health.js';
import { podsMissingIn } from '../simulate/partial-input.js';
import { defineCheck } from './define-check.js';
import { karpenterGate, karpenterInputs, karpenterLog } from './lib/karpenter.js';

export default defineCheck({
  meta: {
    id: 'karpenter-controller-unhealthy',
    title: "Karpenter's controller is down, crash-looping, without a leader, or skips a NodePool",
    summary:
      "Karpenter's pods are missing, not Ready, in CrashLoopBackOff, OOM-killed or restarting, its log shows the leader lease lost, or a NodePool's ValidationSucceeded / NodeClassReady / NodeRegistrationHealthy condition is False: every Karpenter verdict below depends on it.",
    severity: 'error',
    commands: ['why-pending', 'scale-down-blockers'],
    requires: ['deployments', 'pods'],
    autoscaler: 'karpenter',
    messages: {
      'scaled-to-zero': 'Deployment {subject} has replicas: 0, so no Karpenter runs: it launches and consolidates nothing.',
      'no-pod': 'Deployment {subject} has no pod, so no Karpenter runs: it launches and consolidates nothing.',
      'crash-loop': 'Karpenter pod {subject} is crash-looping ({detail}): while it is down nothing is launched or consolidated.',
      'oom-killed': "Karpenter pod {subject} was OOM-killed ({detail}): each restart drops its in-memory state (the unavailable-offerings cache, nominations, disruption commands in flight).",
      'not-ready': 'Karpenter pod {subject} is not Ready ({detail}), and no other Karpenter replica is.',
      restarting: 'Karpenter pod {subject} keeps restarting ({detail}).',
      'leader-lost': 'Karpenter pod {subject} lost the leader lease ({detail}): only the leader launches and disrupts.',
      'nodepool-condition': 'NodePool {subject}: {detail}.',
    },
    upstream:
      'kubernetes-sigs/karpenter pkg/apis/v1/nodepool_status.go (conditions), pkg/controllers/provisioning/provisioner.go:281 (a NodePool not Ready is ignored), pkg/operator/operator.go (leader election)',
  },
  run(ctx) {
    const a = ctx.analysis;
    if (!karpenterGate(ctx, [])) return;
    const k = karpenterInputs(a);
    const h = karpenterHealth({ deployments: a.raw.deployments, pods: a.raw.pods, nodePools: k.nodePools, log: karpenterLog(a) });
    // "no pod" from an input that left Karpenter's namespace's pods out is no alarm
    if (h.problems.some((p) => p.kind === 'no-pod') && podsMissingIn(a.podsPartial, h.controller?.namespace ?? '')) {
      ctx.skip('partial', a.podsPartial?.detail ?? "the input's pods are partial");
      return;
    }
    // an EC2NodeClass that is not Ready is karpenter-nodeclass-not-ready's finding; the pool's condition only repeats it
    const classes = new Set(k.nodeClasses.map((c) => c.metadata.name));
    const ns = h.controller?.namespace ?? 'kube-system';
    let reported = 0;
    for (const p of h.problems) {
      const np = p.subject.kind === 'NodePool' ? k.nodePools.find((x) => x.metadata.name === p.subject.name) : undefined;
      if (p.condition === 'NodeClassReady' && np && classes.has(np.spec.template.spec.nodeClassRef.name)) continue;
      const subject = p.subject.namespace ? `${p.subject.namespace}/${p.subject.name}` : p.subject.name;
      const logs = shellCommand(['kubectl', '-n', ns, 'logs', p.subject.kind === 'Pod' ? p.subject.name : `deploy/${h.controller?.name ?? 'karpenter'}`, '-c', h.controller?.container ?? 'controller', '--previous', '--tail=200']);
      const fix: Record<KarpenterHealthKind, string> = {
        'scaled-to-zero': `Scale Karpenter back up: ${shellCommand(['kubectl', '-n', ns, 'scale', 'deployment', h.controller?.name ?? 'karpenter', '--replicas=2'])}`,
        'no-pod': `See why the Deployment has no pod: ${shellCommand(['kubectl', '-n', ns, 'describe', 'deployment', h.controller?.name ?? 'karpenter'])}`,
        'crash-loop': `Read why it exits (a setting it rejects, missing IAM, an unreachable API): ${logs}`,
        'oom-killed': `Raise the controller's memory limit (it grows with pods, nodes and instance types), then read why it died: ${logs}`,
        'not-ready': `Read its log and events: ${logs}`,
        restarting: `Read why it restarts: ${logs}`,
        'leader-lost': `A leader that cannot renew its Lease usually lost the API server (throttling, network): ${shellCommand(['kubectl', '-n', ns, 'get', 'lease', 'karpenter-leader-election', '-o', 'yaml'])}`,
        'nodepool-condition': `Read the condition's message: ${shellCommand(['kubectl', 'get', 'nodepool', p.subject.name, '-o', 'jsonpath={.status.conditions}'])}`,
      };
      reported++;
      ctx.report({
        messageId: p.kind,
        severity: p.severity,
        data: { subject, detail: p.detail },
        subject: p.subject,
        ...(p.subject.kind === 'NodePool' ? { nodeGroup: `nodepool/${p.subject.name}` } : {}),
        evidence: [{ source: `${p.subject.kind} ${subject}`, observed: p.detail }],
        remediation: fix[p.kind],
      });
    }
    // without the controller only the NodePools were evaluated: with nothing wrong there, the check could not run
    if (!h.controller && reported === 0) ctx.skip('not-provided', h.notEvaluated[0] ?? "Karpenter's controller Deployment is not in the input");
  },
});
