import { formatDuration, parseGoDuration } from '../model/duration.js';
import { defineCheck } from './define-check.js';
import { context, workloadRef, workloadSubject } from './lib/preflight.js';
import { quoted, yamlSnippet } from './lib/snippets.js';

export const POD_SCALE_UP_DELAY = 'cluster-autoscaler.kubernetes.io/pod-scale-up-delay';

export default defineCheck({
  meta: {
    id: 'workload-scale-up-delay-misuse',
    title: 'pod-scale-up-delay annotation that CA ignores',
    summary:
      'A pod-scale-up-delay annotation CA ignores: on the controller instead of the pod template, not a Go duration, or below --new-pod-scale-up-delay.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      onController:
        '{workload} sets {annotation}: "{value}" on its own metadata, not on the pod template; CA reads it only from pods, so it has no effect.',
      unparsable:
        '{workload} sets {annotation}: "{value}", which is not a Go duration; CA logs an error and uses --new-pod-scale-up-delay ({global}).',
      belowGlobal:
        '{workload} sets {annotation}: "{value}", shorter than --new-pod-scale-up-delay={global}; CA ignores a delay below the global one.',
    },
    upstream: 'cluster-autoscaler core/static_autoscaler.go filterOutYoungPods',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    const globalMs = ctx.analysis.ca.flags.newPodScaleUpDelay.value;
    const global = formatDuration(globalMs);
    for (const w of pf.workloads) {
      const own = w.located.object.metadata.annotations?.[POD_SCALE_UP_DELAY];
      const onPod = w.templateMeta.annotations?.[POD_SCALE_UP_DELAY];
      const base = { workload: workloadRef(w), annotation: POD_SCALE_UP_DELAY, global };
      if (w.kind !== 'Pod' && own !== undefined && onPod === undefined) {
        ctx.report({
          messageId: 'onController',
          data: { ...base, value: own },
          subject: workloadSubject(w),
          evidence: [
            { source: `${w.kind} metadata.annotations`, observed: `${POD_SCALE_UP_DELAY}: "${own}"` },
            {
              source: 'pod template metadata.annotations',
              observed: 'no such annotation',
              expected: 'the annotation here',
            },
          ],
          remediation: `Move the annotation to the pod template:\n${yamlSnippet({ spec: { template: { metadata: { annotations: { [POD_SCALE_UP_DELAY]: quoted(own) } } } } }, 2)}`,
        });
        continue;
      }
      if (onPod === undefined) continue;
      let ms: number;
      try {
        ms = parseGoDuration(onPod);
      } catch {
        ctx.report({
          messageId: 'unparsable',
          data: { ...base, value: onPod },
          subject: workloadSubject(w),
          evidence: [
            {
              source: 'pod template annotation',
              observed: `"${onPod}"`,
              expected: 'a Go duration such as "600s" or "10m"',
            },
          ],
          remediation: `Write the delay as a Go duration with a unit, e.g. ${POD_SCALE_UP_DELAY}: "10m".`,
        });
        continue;
      }
      if (ms < globalMs) {
        ctx.report({
          messageId: 'belowGlobal',
          data: { ...base, value: onPod },
          subject: workloadSubject(w),
          evidence: [
            { source: 'pod template annotation', observed: `"${onPod}"` },
            {
              source: 'CA flag --new-pod-scale-up-delay',
              observed: global,
              expected: `at most ${formatDuration(ms)}`,
            },
          ],
          remediation:
            'The annotation can only lengthen the delay. Remove it, or lower --new-pod-scale-up-delay on CA if some pods must scale up sooner.',
        });
      }
    }
  },
});
