import { defineCheck } from './define-check.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-ignored-by-ca',
    title: 'Pending pod that Cluster Autoscaler ignores',
    summary:
      'A Pending pod CA never scales up for: expendable priority, pod-scale-up-delay, nominated node, gates, not yet Unschedulable.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['pods'],
    messages: {
      ignored: 'Pod {pod} is Pending but CA ignores it: {reason}.',
    },
    upstream: 'cluster-autoscaler core/static_autoscaler.go RunOnce, core/podlistprocessor/*',
  },
  run(ctx) {
    for (const p of pendingAnalyses(ctx.analysis)) {
      if (p.report.verdict !== 'ignored' || p.stage.kind !== 'ignored') continue;
      // pod-consumes-provisioning-request explains these with the ProvisioningRequest's state
      if (p.stage.caWord === 'consumes ProvisioningRequest') continue;
      const stage = p.stage;
      const fix: Record<string, string> = {
        expendable:
          'Give the pod a priority at or above --expendable-pods-priority-cutoff (priorityClassName), or lower the cutoff on CA. Overprovisioning placeholders are meant to be expendable: then nothing is wrong.',
        'pod-scale-up-delay':
          'Wait for the delay to pass, or lower the cluster-autoscaler.kubernetes.io/pod-scale-up-delay annotation.',
        'nominated node':
          'The scheduler is preempting lower-priority pods for it; wait, or check why preemption does not finish.',
        'not unschedulable':
          'The scheduler has not tried the pod yet: check that the scheduler named in spec.schedulerName runs.',
        'scheduling gated':
          'Remove the scheduling gates (spec.schedulingGates) once whatever set them is done.',
        'DaemonSet pod':
          "DaemonSet pods get a node when the node exists; fix the DaemonSet's tolerations or node selection.",
        'being deleted': 'Nothing to do: the pod is going away.',
        'scheduler not allowed':
          'Add the scheduler to --allowed-scheduler-names on CA, or use an allowed scheduler.',
      };
      ctx.report({
        messageId: 'ignored',
        data: { pod: `${p.report.namespace}/${p.report.name}`, reason: stage.reason },
        subject: podSubject(p.pod),
        caReason: stage.caWord,
        evidence: [{ source: 'Pod', observed: stage.reason }],
        remediation: fix[stage.caWord] ?? 'See the check documentation.',
      });
    }
  },
});
