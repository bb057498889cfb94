/**
 * ProvisioningRequest (autoscaling.x-k8s.io/v1): what CA does with one, and casdoctor's simulation of its PodSets.
 * CA: pkg/processors/provreq/*.go, pkg/provisioningrequest/{conditions,checkcapacity,besteffortatomic,pods}/*.go
 * (kubernetes-sigs/cluster-autoscaler; kubernetes/autoscaler cluster-autoscaler/... before 1.37).
 */
import type { CaConfig } from '../model/ca-config.js';
import {
  BEST_EFFORT_ATOMIC_CLASS,
  CHECK_CAPACITY_CLASS,
  findCondition,
  type PodTemplate,
  type ProvisioningRequest,
} from '../model/ca-crds.js';
import type { MetaCondition, Pod } from '../model/k8s.js';
import { consumedProvisioningRequest } from './ca-pod-filter.js';
import { caFlagBool, caFlagString } from './ca-flag-values.js';

export const PROVREQ_CLASS_ANNOTATION = 'autoscaling.x-k8s.io/provisioning-class-name';
export const PROVREQ_CLASS_ANNOTATION_DEPRECATED = 'cluster-autoscaler.kubernetes.io/provisioning-class-name';

// CA: pkg/processors/provreq/processor.go defaultReservationTime, defaultExpirationTime, defaultTerminalProvReqTTL
export const BOOKING_TIME_MS = 10 * 60_000;
export const EXPIRATION_TIME_MS = 7 * 24 * 3_600_000;
export const TERMINAL_TTL_MS = 7 * 24 * 3_600_000;
// CA: pkg/core/scaleup/orchestrator/rejectedreasons.go AllOrNothingReason
export const ALL_OR_NOTHING_REASON = 'not all pods would fit and scale-up is using all-or-nothing strategy';
export const AWS_NOT_ATOMIC =
  'best-effort-atomic is not atomic on ASGs: the AWS provider does not implement AtomicIncreaseSize, so CA raises the ' +
  "ASG's desired capacity like any scale-up and marks the request Provisioned without waiting for the instances " +
  '(cloudprovider/aws/aws_cloud_provider.go; executor.go increaseSize falls back to IncreaseSize)';

/** The ProvisioningRequest a pod consumes: CA drops such pods from normal scale-up (pods_filter.go). */
export function consumedProvisioningRequestRef(pod: Pod): { namespace: string; name: string } | undefined {
  const name = consumedProvisioningRequest(pod);
  if (name === undefined) return undefined;
  return { namespace: pod.metadata.namespace ?? 'default', name };
}

/** A pod with only the class annotation is NOT filtered: CA's pods filter reads the consume annotation alone. */
export function provisioningClassAnnotation(pod: Pod): string | undefined {
  const ann = pod.metadata.annotations ?? {};
  return ann[PROVREQ_CLASS_ANNOTATION] ?? ann[PROVREQ_CLASS_ANNOTATION_DEPRECATED];
}

/** The PodStage-style reason why-pending gives a consumer pod instead of "no scale-up". */
export function consumerPodReason(ref: { namespace: string; name: string }, state?: ProvReqState): string {
  const base = `CA is waiting on ProvisioningRequest ${ref.namespace}/${ref.name}`;
  if (!state) return `${base}, which is not in the snapshot (CA ignores the pod for normal scale-up either way)`;
  return `${base}: ${state.summary}`;
}

export type ProvReqClassKind = 'check-capacity' | 'best-effort-atomic' | 'unsupported';

/** What CA reads from its flags for ProvisioningRequests. */
export interface ProvReqCaSettings {
  /** --enable-provisioning-requests (1.30+); undefined when no CA deployment was found. */
  enabled: boolean | undefined;
  /** --check-capacity-processor-instance (1.33+). */
  processorInstance: string;
  /** --check-capacity-batch-processing (1.32+). */
  batchProcessing: boolean;
}

export function provReqCaSettings(ca: CaConfig): ProvReqCaSettings {
  const enabled = ca.found ? ca.version.minor >= 30 && caFlagBool(ca, 'enable-provisioning-requests', false) : undefined;
  return {
    enabled,
    processorInstance: caFlagString(ca, 'check-capacity-processor-instance', ''),
    batchProcessing: caFlagBool(ca, 'check-capacity-batch-processing', false),
  };
}

/** CA: pkg/provisioningrequest/supported_classes.go SupportedProvisioningClass. */
export function provReqClassKind(pr: ProvisioningRequest, processorInstance = ''): ProvReqClassKind {
  const cls = pr.spec?.provisioningClassName ?? '';
  if (cls === BEST_EFFORT_ATOMIC_CLASS) return processorInstance === '' ? 'best-effort-atomic' : 'unsupported';
  const instance = pr.spec?.parameters?.processorInstance ?? '';
  if (processorInstance === '') {
    if (instance !== '') return 'unsupported';
    return cls === CHECK_CAPACITY_CLASS ? 'check-capacity' : 'unsupported';
  }
  if (instance !== '') return instance === processorInstance && cls === CHECK_CAPACITY_CLASS ? 'check-capacity' : 'unsupported';
  // the deprecated prefixed class name (removed after 1.35 per the source comment)
  return cls.startsWith(processorInstance) && cls.slice(processorInstance.length) === CHECK_CAPACITY_CLASS
    ? 'check-capacity'
    : 'unsupported';
}

export type ProvReqPhase =
  | 'ca-disabled'
  | 'unsupported-class'
  | 'missing-templates'
  | 'new'
  | 'accepted'
  | 'waiting'
  | 'provisioned'
  | 'booking-expired'
  | 'failed';

export interface ProvReqState {
  namespace: string;
  name: string;
  className: string;
  classKind: ProvReqClassKind;
  phase: ProvReqPhase;
  /** The reason of the decisive condition, CA's own word (CapacityIsNotFound, Expired, ...). */
  reason?: string;
  /** The decisive condition's message, as CA wrote it. */
  message?: string;
  /** One sentence: what CA does with it now. */
  summary: string;
  podCount: number;
  noRetry: boolean;
  conditions: { accepted?: MetaCondition; provisioned?: MetaCondition; failed?: MetaCondition; bookingExpired?: MetaCondition };
  /** Provisioned=True: CA keeps the capacity booked (fake pods) until this time, then sets BookingExpired. */
  bookingExpiresAt?: Date;
  /** Not Provisioned: CA sets Failed=True (Expired) after this time. */
  expiresAt?: Date;
  /** Provisioned/Failed: CA deletes the object after this time. */
  deleteAt?: Date;
  missingTemplates: string[];
  notes: string[];
}

function ts(s: string | undefined): Date | undefined {
  if (!s) return undefined;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function ago(now: Date, d: Date): string {
  const min = Math.round((now.getTime() - d.getTime()) / 60_000);
  if (Math.abs(min) < 120) return `${min} min`;
  const h = Math.round(min / 60);
  return Math.abs(h) < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

export function podTemplatesFor(pr: ProvisioningRequest, podTemplates: readonly PodTemplate[]): {
  templates: Array<PodTemplate | undefined>;
  missing: string[];
} {
  const ns = pr.metadata.namespace ?? 'default';
  const templates = (pr.spec?.podSets ?? []).map((ps) =>
    podTemplates.find((t) => (t.metadata.namespace ?? 'default') === ns && t.metadata.name === ps.podTemplateRef?.name),
  );
  const missing = (pr.spec?.podSets ?? [])
    .filter((_, i) => templates[i] === undefined)
    .map((ps) => ps.podTemplateRef?.name ?? '');
  return { templates, missing };
}

/**
 * A ProvisioningRequest's state as CA's conditions record it, and what CA will do next against `now`.
 * `podTemplates` undefined = not gathered (missing templates are then not reported).
 */
export function explainProvisioningRequest(
  pr: ProvisioningRequest,
  ctx: { now: Date; settings: ProvReqCaSettings; podTemplates?: readonly PodTemplate[] },
): ProvReqState {
  const conditions = pr.status?.conditions ?? [];
  const c = {
    accepted: findCondition(conditions, 'Accepted'),
    provisioned: findCondition(conditions, 'Provisioned'),
    failed: findCondition(conditions, 'Failed'),
    bookingExpired: findCondition(conditions, 'BookingExpired'),
  };
  const cond = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) as ProvReqState['conditions'];
  const classKind = provReqClassKind(pr, ctx.settings.processorInstance);
  const podCount = (pr.spec?.podSets ?? []).reduce((n, ps) => n + (ps.count ?? 0), 0);
  const noRetryRaw = pr.spec?.parameters?.noRetry;
  const notes: string[] = [];
  if (noRetryRaw !== undefined && noRetryRaw !== 'true' && noRetryRaw !== 'false') {
    // CA: checkcapacity/provisioningclass.go logs "Ignoring Parameter noRetry with invalid value"
    notes.push(`parameter noRetry="${noRetryRaw}" is invalid: CA ignores it (only "true" and "false" are supported)`);
  }
  if (noRetryRaw === 'true' && classKind !== 'check-capacity') {
    notes.push('parameter noRetry only applies to the check-capacity class');
  }
  const missingTemplates = ctx.podTemplates ? podTemplatesFor(pr, ctx.podTemplates).missing : [];
  const created = ts(pr.metadata.creationTimestamp);
  const base = {
    namespace: pr.metadata.namespace ?? 'default',
    name: pr.metadata.name ?? '',
    className: pr.spec?.provisioningClassName ?? '',
    classKind,
    podCount,
    noRetry: noRetryRaw === 'true' && classKind === 'check-capacity',
    conditions: cond,
    missingTemplates,
    notes,
  };
  const now = ctx.now;
  const terminalSince = ts((c.provisioned?.status === 'True' ? c.provisioned : undefined)?.lastTransitionTime) ??
    ts((c.failed?.status === 'True' ? c.failed : undefined)?.lastTransitionTime);
  const deleteAt = terminalSince ? new Date(terminalSince.getTime() + TERMINAL_TTL_MS) : undefined;
  const withDelete = deleteAt ? { deleteAt } : {};

  if (ctx.settings.enabled === false) {
    return {
      ...base,
      phase: 'ca-disabled',
      summary:
        'CA runs without --enable-provisioning-requests=true: nothing processes it, and CA scales up for its consumer pods like for any pod (the consume annotation is only read with the flag)',
    };
  }
  if (classKind === 'unsupported') {
    const inst = pr.spec?.parameters?.processorInstance;
    const why = inst
      ? `its parameters.processorInstance "${inst}" does not match CA's --check-capacity-processor-instance "${ctx.settings.processorInstance}"`
      : ctx.settings.processorInstance && base.className === BEST_EFFORT_ATOMIC_CLASS
        ? `a CA with --check-capacity-processor-instance set processes only check-capacity requests`
        : `CA supports only ${CHECK_CAPACITY_CLASS} and ${BEST_EFFORT_ATOMIC_CLASS}`;
    return { ...base, phase: 'unsupported-class', summary: `this CA ignores class "${base.className}": ${why}` };
  }
  if (c.failed?.status === 'True') {
    return {
      ...base,
      ...withDelete,
      phase: 'failed',
      ...(c.failed.reason ? { reason: c.failed.reason } : {}),
      ...(c.failed.message ? { message: c.failed.message } : {}),
      summary: `Failed (${c.failed.reason ?? 'no reason'}): ${failedText(c.failed.reason)}; CA never retries it`,
    };
  }
  if (c.bookingExpired?.status === 'True') {
    const consumed = c.bookingExpired.reason === 'CapacityBookingConsumed';
    return {
      ...base,
      ...withDelete,
      phase: 'booking-expired',
      ...(c.bookingExpired.reason ? { reason: c.bookingExpired.reason } : {}),
      ...(c.bookingExpired.message ? { message: c.bookingExpired.message } : {}),
      summary: consumed
        ? 'the booking was consumed: all its pods were scheduled'
        : 'the 10-minute capacity booking expired: CA no longer holds the capacity, and pending consumer pods are on their own',
    };
  }
  if (missingTemplates.length > 0) {
    // CA: provreqwrapper/wrapper.go errMissingPodTemplates; the injector then sets Failed=True FailedToCreatePods
    return {
      ...base,
      phase: 'missing-templates',
      reason: 'FailedToCreatePods',
      message: `missing pod templates, ${(pr.spec?.podSets ?? []).length} pod templates were referenced, ${missingTemplates.length} templates were missing: ${missingTemplates.join(',')}`,
      summary: `its PodTemplate(s) ${missingTemplates.join(', ')} do not exist in namespace ${base.namespace}: CA marks it Failed (FailedToCreatePods)`,
    };
  }
  if (c.provisioned?.status === 'True') {
    const since = ts(c.provisioned.lastTransitionTime);
    const bookingExpiresAt = since ? new Date(since.getTime() + BOOKING_TIME_MS) : undefined;
    const booked = bookingExpiresAt
      ? bookingExpiresAt.getTime() > now.getTime()
        ? `CA keeps the capacity booked for ${ago(bookingExpiresAt, now)} more (until ${bookingExpiresAt.toISOString()})`
        : `the 10-minute booking ran out ${ago(now, bookingExpiresAt)} ago: CA sets BookingExpired on its next loop`
      : 'CA books the capacity for 10 minutes';
    const what =
      classKind === 'best-effort-atomic'
        ? c.provisioned.reason === 'CapacityIsFound'
          ? 'capacity was found on existing nodes'
          : 'CA requested the scale-up (best effort: the nodes may not all have started)'
        : 'capacity was found on existing nodes';
    return {
      ...base,
      ...withDelete,
      phase: 'provisioned',
      ...(c.provisioned.reason ? { reason: c.provisioned.reason } : {}),
      ...(c.provisioned.message ? { message: c.provisioned.message } : {}),
      ...(bookingExpiresAt ? { bookingExpiresAt } : {}),
      summary: `Provisioned (${c.provisioned.reason ?? 'no reason'}): ${what}; ${booked}`,
    };
  }
  const expiresAt = created ? new Date(created.getTime() + EXPIRATION_TIME_MS) : undefined;
  const expiry = expiresAt
    ? expiresAt.getTime() <= now.getTime()
      ? `; created more than 7 days ago, so CA marks it Failed (Expired) on its next loop`
      : ''
    : '';
  const withExpiry = expiresAt ? { expiresAt } : {};
  if (c.provisioned) {
    const retry = base.noRetry ? '' : ', retrying with backoff (--provisioning-request-initial-backoff-time 1m, doubling to 10m)';
    return {
      ...base,
      ...withExpiry,
      phase: 'waiting',
      ...(c.provisioned.reason ? { reason: c.provisioned.reason } : {}),
      ...(c.provisioned.message ? { message: c.provisioned.message } : {}),
      summary: `Provisioned=${c.provisioned.status} (${c.provisioned.reason ?? 'no reason'}): ${(c.provisioned.message ?? 'capacity not found').replace(/\.$/, '')}${retry}${expiry}`,
    };
  }
  if (c.accepted?.status === 'True') {
    return {
      ...base,
      ...withExpiry,
      phase: 'accepted',
      reason: c.accepted.reason ?? 'Accepted',
      summary: `accepted by CA, not decided yet${expiry}`,
    };
  }
  return {
    ...base,
    ...withExpiry,
    phase: 'new',
    summary: `no condition yet: CA has not picked it up (one request per loop; loops alternate with regular pods)${expiry}`,
  };
}

function failedText(reason: string | undefined): string {
  switch (reason) {
    case 'Expired':
      return 'not provisioned within 7 days of its creation';
    case 'CapacityIsNotFound':
      return 'no capacity on existing nodes, and noRetry is "true"';
    case 'FailedToCreatePods':
      return 'CA could not build pods from its PodTemplates';
    case 'FailedToBookCapacity':
      return 'CA could not build pods to book the capacity';
    default:
      return 'CA gave up on it';
  }
}

/**
 * The PodStage classifyPodForCa should return for a consumer pod (CA: pods_filter.go drops it before scale-up and logs
 * "Ignoring unschedulable pod %s/%s as it consumes ProvisioningRequest: %s/%s"). undefined for other pods.
 * `provisioningRequests` undefined = not gathered.
 */
export function provisioningRequestStage(
  pod: Pod,
  input: { provisioningRequests?: readonly ProvisioningRequest[]; podTemplates?: readonly PodTemplate[]; ca: CaConfig; now: Date },
): { kind: 'ignored'; caWord: string; reason: string } | undefined {
  const ref = consumedProvisioningRequestRef(pod);
  // CA installs the pods filter only with --enable-provisioning-requests (builder/autoscaler.go; main.go before 1.37)
  if (!ref || provReqCaSettings(input.ca).enabled === false) return undefined;
  const pr = input.provisioningRequests?.find(
    (p) => (p.metadata.namespace ?? 'default') === ref.namespace && p.metadata.name === ref.name,
  );
  let reason: string;
  if (pr) {
    const state = explainProvisioningRequest(pr, {
      now: input.now,
      settings: provReqCaSettings(input.ca),
      ...(input.podTemplates ? { podTemplates: input.podTemplates } : {}),
    });
    reason = consumerPodReason(ref, state);
  } else if (input.provisioningRequests) {
    reason = `it consumes ProvisioningRequest ${ref.namespace}/${ref.name}, which does not exist: nothing will provision it`;
  } else {
    reason = consumerPodReason(ref);
  }
  return { kind: 'ignored', caWord: 'consumes ProvisioningRequest', reason };
}
