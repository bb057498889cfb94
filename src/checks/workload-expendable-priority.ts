import { defineCheck } from './define-check.js';
import { context, workloadRef, workloadSubject } from './lib/preflight.js';

export default defineCheck({
  meta: {
    id: 'workload-expendable-priority',
    title: 'Workload priority below the expendable cutoff',
    summary:
      'Pods whose priority is below --expendable-pods-priority-cutoff: they never trigger a scale-up and never keep a node from scaling down.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      expendable:
        '{workload} runs at priority {priority} ({from}), below --expendable-pods-priority-cutoff={cutoff}: CA never adds a node for its pods and may remove the nodes they run on.',
    },
    upstream:
      'cluster-autoscaler core/podlistprocessor/filter_out_expendable.go, core/static_autoscaler.go FilterOutExpendablePods',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    const cutoff = ctx.analysis.ca.flags.expendablePodsPriorityCutoff.value;
    const origin = ctx.analysis.ca.flags.expendablePodsPriorityCutoff.origin;
    for (const w of pf.workloads) {
      // CA drops DaemonSet pods from scale-up anyway
      if (w.kind === 'DaemonSet' || !w.priority) continue;
      // strictly below the cutoff (filter_out_expendable.go: pod priority < cutoff)
      if (w.priority.value >= cutoff) continue;
      const from =
        w.priority.source === 'spec'
          ? 'spec.priority'
          : w.priority.source === 'global-default'
            ? `global default PriorityClass ${w.priority.className}`
            : `PriorityClass ${w.priority.className}`;
      ctx.report({
        messageId: 'expendable',
        data: { workload: workloadRef(w), priority: w.priority.value, from, cutoff },
        subject: workloadSubject(w),
        caReason: 'expendable',
        evidence: [
          { source: 'pod priority', observed: `${w.priority.value} (${from})` },
          {
            source: 'CA flag --expendable-pods-priority-cutoff',
            observed: `${cutoff} (${origin === 'default' ? 'default' : `from ${origin === 'override' ? '--ca-args' : 'the CA Deployment'}`})`,
            expected: `a priority >= ${cutoff}`,
          },
        ],
        remediation: [
          `Give the pods a PriorityClass with value >= ${cutoff} (priorityClassName in the pod template), or lower the cutoff on CA (--expendable-pods-priority-cutoff).`,
          'Overprovisioning placeholders are meant to be expendable: ignore this finding for them (casdoctor.io/ignore annotation).',
        ].join('\n'),
      });
    }
  },
});
