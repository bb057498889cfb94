import { gatheredList } from '../model/snapshot.js';
import type { Evidence } from '../model/findings.js';
import { capacityBufferCaSettings, explainCapacityBuffer } from '../simulate/capacity-buffer.js';
import { defineCheck } from './define-check.js';

// buffer events older than this say nothing about the current loop (CA re-sends them at most every 5 min per reason)
const RECENT_MS = 30 * 60_000;

export default defineCheck({
  meta: {
    id: 'capacity-buffer-not-provisioning',
    title: 'CapacityBuffer not provisioning',
    summary:
      'A CapacityBuffer gets no fake pods from CA (not ready, empty, template missing, CA flags off), or its fake pods do not trigger a scale-up.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['capacityBuffers'],
    messages: {
      notInjected: 'CapacityBuffer {ref} keeps no capacity: {why}.',
      notTriggering: "CapacityBuffer {ref}: CA's {count} fake pod(s) did not trigger a scale-up {age} min ago: {reasons}.",
    },
    upstream:
      'cluster-autoscaler pkg/processors/capacitybuffer/pod_list_processor.go, scale_up_status_processor.go, pkg/capacitybuffer/translators/replicas.go',
  },
  run(ctx) {
    const a = ctx.analysis;
    const podTemplates = gatheredList(a.raw, 'podTemplates');
    const settings = capacityBufferCaSettings(a.ca);
    for (const buffer of gatheredList(a.raw, 'capacityBuffers') ?? []) {
      const state = explainCapacityBuffer(buffer, {
        settings,
        ...(podTemplates ? { podTemplates } : {}),
        workloads: {
          deployments: a.raw.deployments,
          replicaSets: a.raw.replicaSets,
          statefulSets: a.raw.statefulSets,
          jobs: a.raw.jobs,
        },
        events: a.raw.events,
      });
      const ref = `${state.namespace}/${state.name}`;
      const subject = { kind: 'CapacityBuffer', name: state.name, namespace: state.namespace };
      const evidence: Evidence[] = Object.values(state.conditions).map((c) => ({
        source: `CapacityBuffer ${ref} status.conditions`,
        observed: `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`,
      }));
      if (state.statusReplicas !== undefined) evidence.push({ source: `CapacityBuffer ${ref} status.replicas`, observed: String(state.statusReplicas) });
      if (state.desired.replicas !== undefined || state.desired.error) {
        evidence.push({
          source: 'casdoctor: replicas from spec',
          observed: state.desired.error ?? `${state.desired.replicas}${state.desired.fromPercentage !== undefined ? ` (percentage of ${state.desired.scalableReplicas} replicas = ${state.desired.fromPercentage})` : ''}${state.desired.fromLimits !== undefined ? ` (limits allow ${state.desired.fromLimits})` : ''}`,
        });
      }
      // without PodTemplates casdoctor cannot tell a missing template from an unread one: no claim either way
      if (state.phase === 'template-missing' && !podTemplates) continue;
      if (state.phase !== 'injected') {
        ctx.report({
          messageId: 'notInjected',
          data: { ref, why: state.summary },
          subject,
          ...(state.reason ? { caReason: state.reason } : {}),
          evidence,
          remediation: remediation(state.phase),
        });
        continue;
      }
      const last = state.events[0];
      if (last?.reason === 'NotTriggerScaleUp' && last.time && a.now.getTime() - last.time.getTime() <= RECENT_MS) {
        const reasons = Object.entries(last.reasons ?? {}).map(([r, n]) => `${n} ${r}`).join(', ') || last.message;
        ctx.report({
          messageId: 'notTriggering',
          data: { ref, count: last.podCount, age: Math.round((a.now.getTime() - last.time.getTime()) / 60_000), reasons },
          subject,
          caReason: 'NotTriggerScaleUp',
          evidence: [...evidence, { source: `Event on CapacityBuffer ${ref}`, observed: last.message }],
          remediation: "The fake pods fail on every node group like a real pod would: run `casdoctor why-pending` on a pod built from the buffer's PodTemplate, or fix the reasons listed (max size, taints, selectors).",
        });
      }
    }
  },
});

function remediation(phase: string): string {
  switch (phase) {
    case 'ca-not-configured':
      return "Run CA 1.34+ with `--capacity-buffer-controller-enabled=true` (fills the buffer status) and `--capacity-buffer-pod-injection-enabled=true` (injects the fake pods).";
    case 'not-ready':
      return 'Fix what the ReadyForProvisioning condition names: a podTemplateRef or scalableRef that exists, and replicas, percentage or limits that yield a number (limits must name a resource the pod requests).';
    case 'empty':
      return 'Set spec.replicas (or percentage / limits) above 0.';
    case 'template-missing':
      return 'Create the PodTemplate the buffer names, in the buffer\'s namespace.';
    case 'wrong-strategy':
      return 'Use provisioningStrategy buffer.x-k8s.io/active-capacity (the default) or leave it unset.';
    default:
      return 'Wait one CA loop for the controller to refresh the buffer status, then re-run.';
  }
}
