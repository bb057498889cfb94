import type { CaConfig } from '../model/ca-config.js';
import { parseGoDuration } from '../model/duration.js';
import type { Pod, PriorityClass } from '../model/k8s.js';

const POD_SCALE_UP_DELAY = 'cluster-autoscaler.kubernetes.io/pod-scale-up-delay';
const DAEMONSET_POD = 'cluster-autoscaler.kubernetes.io/daemonset-pod';
// CA: apis/provisioningrequest/autoscaling.x-k8s.io/v1 ProvisioningRequestPodAnnotationKey and the deprecated key (provisioningrequest/pods)
export const CONSUME_PROVREQ_ANNOTATION = 'autoscaling.x-k8s.io/consume-provisioning-request';
export const CONSUME_PROVREQ_ANNOTATION_DEPRECATED = 'cluster-autoscaler.kubernetes.io/consume-provisioning-request';

/** The ProvisioningRequest a pod consumes (same namespace), as CA's pods filter reads it; undefined when none. */
export function consumedProvisioningRequest(pod: Pod): string | undefined {
  const ann = pod.metadata.annotations ?? {};
  if (Object.hasOwn(ann, CONSUME_PROVREQ_ANNOTATION)) return ann[CONSUME_PROVREQ_ANNOTATION];
  if (Object.hasOwn(ann, CONSUME_PROVREQ_ANNOTATION_DEPRECATED)) return ann[CONSUME_PROVREQ_ANNOTATION_DEPRECATED];
  return undefined;
}

export type PodStage =
  | { kind: 'scheduled'; node: string }
  | { kind: 'finished'; phase: string }
  | { kind: 'ignored'; reason: string; caWord: string }
  | { kind: 'candidate' };

export function podPriority(pod: Pod, priorityClasses: Map<string, PriorityClass>): number | undefined {
  if (typeof pod.spec.priority === 'number') return pod.spec.priority;
  const pc = pod.spec.priorityClassName ? priorityClasses.get(pod.spec.priorityClassName) : undefined;
  if (pc) return pc.value;
  for (const c of priorityClasses.values()) if (c.globalDefault) return c.value;
  return undefined;
}

export function isDaemonSetPod(pod: Pod): boolean {
  // CA: utils/pod/pod.go IsDaemonSetPod — owner kind DaemonSet, or the daemonset-pod annotation
  return (
    (pod.metadata.ownerReferences ?? []).some((o) => o.controller !== false && o.kind === 'DaemonSet') ||
    pod.metadata.annotations?.[DAEMONSET_POD] === 'true'
  );
}

/**
 * Whether CA considers a pod for scale-up at all, in CA's order (ca-semantics §2.1): scheduler filter, bucketing
 * (nodeName, deletion, nominated node, Unschedulable condition), expendable, DaemonSet, young pods.
 */
export function classifyPodForCa(
  pod: Pod,
  ca: CaConfig,
  priorityClasses: Map<string, PriorityClass>,
  now: Date,
): PodStage {
  const phase = pod.status?.phase ?? 'Pending';
  if (phase === 'Succeeded' || phase === 'Failed') return { kind: 'finished', phase };
  if (pod.spec.nodeName) return { kind: 'scheduled', node: pod.spec.nodeName };
  const schedulerName = pod.spec.schedulerName ?? 'default-scheduler';
  const allowed = ca.flags.allowedSchedulerNames.value;
  if (allowed.length > 0 && !allowed.includes(schedulerName)) {
    return {
      kind: 'ignored',
      caWord: 'scheduler not allowed',
      reason: `its schedulerName "${schedulerName}" is not in --allowed-scheduler-names (${allowed.join(',')})`,
    };
  }
  if (pod.metadata.deletionTimestamp) {
    return {
      kind: 'ignored',
      caWord: 'being deleted',
      reason: `it is being deleted (since ${pod.metadata.deletionTimestamp})`,
    };
  }
  if (pod.status?.nominatedNodeName) {
    // CA: FAQ "doesn't trigger scale-up if an unschedulable pod is already waiting for a lower priority pod preemption"
    return {
      kind: 'ignored',
      caWord: 'nominated node',
      reason: `it is nominated to node ${pod.status.nominatedNodeName} and waits for preemption there; CA treats it as placed`,
    };
  }
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  const unschedulable = scheduled?.status === 'False' && scheduled.reason === 'Unschedulable';
  const bypassed = ca.flags.bypassedSchedulerNames.value.includes(schedulerName);
  const unprocessed = bypassed && (!scheduled || (scheduled.status === 'False' && !scheduled.reason));
  if (!unschedulable && !unprocessed) {
    if (pod.spec.schedulingGates?.length) {
      return {
        kind: 'ignored',
        caWord: 'scheduling gated',
        reason: `it has scheduling gates (${pod.spec.schedulingGates.map((g) => g.name).join(', ')}); the scheduler has not tried it`,
      };
    }
    const why = scheduled
      ? `its PodScheduled condition is ${scheduled.status}${scheduled.reason ? ` (${scheduled.reason})` : ''}, not False/Unschedulable`
      : 'the scheduler has not marked it Unschedulable yet (no PodScheduled condition)';
    return { kind: 'ignored', caWord: 'not unschedulable', reason: why };
  }
  const priority = podPriority(pod, priorityClasses);
  const cutoff = ca.flags.expendablePodsPriorityCutoff.value;
  if (priority !== undefined && priority < cutoff) {
    // CA: core/podlistprocessor filter_out_expendable.go — strictly below the cutoff
    return {
      kind: 'ignored',
      caWord: 'expendable',
      reason: `its priority ${priority} is below --expendable-pods-priority-cutoff=${cutoff}; CA never scales up for expendable pods`,
    };
  }
  if (isDaemonSetPod(pod)) {
    return {
      kind: 'ignored',
      caWord: 'DaemonSet pod',
      reason: 'it is a DaemonSet pod; CA never scales up for DaemonSet pods',
    };
  }
  const provReq = ca.flags.enableProvisioningRequests.value ? consumedProvisioningRequest(pod) : undefined;
  if (provReq !== undefined) {
    // CA: processors/provreq/pods_filter.go:72-95@cluster-autoscaler-1.36.1 drops the pod from normal scale-up whether or
    // not the request exists or is provisioned, and records an event without a reason (pods_filter.go:52)
    const ref = `${pod.metadata.namespace ?? 'default'}/${provReq}`;
    return {
      kind: 'ignored',
      caWord: 'consumes ProvisioningRequest',
      reason: `it consumes ProvisioningRequest ${ref}, so CA drops it from normal scale-up whatever the request's state ("Unschedulable pod didn't trigger scale-up, because it's consuming ProvisioningRequest ${ref}"); only the request's own provisioning can bring its node`,
    };
  }
  const delayMs = scaleUpDelayMs(pod, ca);
  const created = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : Number.NaN;
  if (delayMs > 0 && Number.isFinite(created) && now.getTime() - created <= delayMs) {
    const left = Math.ceil((created + delayMs - now.getTime()) / 1000);
    return {
      kind: 'ignored',
      caWord: 'pod-scale-up-delay',
      reason: `it is younger than its scale-up delay of ${delayMs / 1000}s; CA considers it in ${left}s`,
    };
  }
  return { kind: 'candidate' };
}

/** The effective delay: the pod annotation wins only when it is >= --new-pod-scale-up-delay (CA static_autoscaler.go). */
export function scaleUpDelayMs(pod: Pod, ca: CaConfig): number {
  const global = ca.flags.newPodScaleUpDelay.value;
  const ann = pod.metadata.annotations?.[POD_SCALE_UP_DELAY];
  if (ann === undefined) return global;
  try {
    const v = parseGoDuration(ann);
    return Math.max(v, global);
  } catch {
    return global;
  }
}
