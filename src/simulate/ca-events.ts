import type { KubeEvent, KubeObject } from '../model/k8s.js';

/** Event reasons Cluster Autoscaler emits (reference §1.6, §2.5). */
export const CA_EVENT_REASONS = [
  'NotTriggerScaleUp',
  'TriggeredScaleUp',
  'ScaleDown',
  'ScaleDownFailed',
  'ScaleDownEmpty',
  'ScaledUpGroup',
  'FailedToScaleUpGroup',
  'ScaleUpTimedOut',
  'FailedToRevertScaleUp',
  'ScaleUpFailed',
  'MaxNodesTotalReached',
  'ClusterUnhealthy',
  'DeleteUnregistered',
  'DeleteUnregisteredFailed',
  'ClusterAutoscalerCleanup',
  // on the status ConfigMap when --enable-graceful-degradation trips (CA 1.37: core/podlistprocessor/filter_out_schedulable.go)
  'GracefulDegradationStarted',
  'GracefulDegradationStopped',
  // on the cluster-autoscaler-priority-expander ConfigMap (CA: expander/priority/priority.go; present since at least 1.20)
  'PriorityConfigMapInvalid',
  'PriorityConfigMapNotMatchedGroup',
  'PriorityConfigMapNoGroupMatched',
] as const;
export type CaEventReason = (typeof CA_EVENT_REASONS)[number];
const CA_REASON_SET = new Set<string>(CA_EVENT_REASONS);

/** CA's only event without a reason (CA 1.30+: processors/provreq/pods_filter.go LogIgnoredInScaleUpEvent). */
export const PROVREQ_CONSUMER_PREFIX =
  "Unschedulable pod didn't trigger scale-up, because it's consuming ProvisioningRequest ";
/** The ConfigMap the priority expander reads, in CA's --namespace (CA: expander/priority/priority.go PriorityConfigMapName). */
export const PRIORITY_CONFIGMAP_NAME = 'cluster-autoscaler-priority-expander';

export interface ScaleUpGroupChange {
  group: string;
  from: number;
  to: number;
  max: number;
}

export interface CaPodEvent {
  /** '' only for the ProvisioningRequest consumer event, which CA records without a reason. */
  reason: CaEventReason | '';
  type?: string;
  message: string;
  /** Newest of lastTimestamp / eventTime / series.lastObservedTime / firstTimestamp. */
  time?: Date;
  count: number;
  /**
   * NotTriggerScaleUp only: 'current' = "pod didn't trigger scale-up: N reason, ...", 'legacy' = "(it wouldn't fit if a new
   * node is added): ...", 'legacy-no-reasons' = the oldest form without reasons, 'max-total-nodes' = 1.33+ special case.
   */
  format?: 'current' | 'legacy' | 'legacy-no-reasons' | 'max-total-nodes' | 'unrecognised';
  /** NotTriggerScaleUp: reason -> number of node groups giving it. A set: upstream prints it in random map order. */
  reasons?: Record<string, number>;
  maxTotalNodesReached?: boolean;
  /** TriggeredScaleUp: each group resized ("{ng 1->2 (max: 10)}"). */
  groups?: ScaleUpGroupChange[];
  /** The empty-reason event: the ProvisioningRequest the pod consumes, so CA skips it in normal scale-up. */
  provisioningRequest?: { namespace: string; name: string };
  event: KubeEvent;
}

const NOT_TRIGGERED = "pod didn't trigger scale-up";
const LEGACY_SUFFIX = " (it wouldn't fit if a new node is added)";

/**
 * Parse the reason list of a NotTriggerScaleUp message. Reasons may contain ", " themselves (`exceeded quota: "cluster-wide",
 * resources: cpu, memory`, `max cluster cpu, memory limit reached`), so split only where ", " is followed by "<count> ".
 * CA: processors/status/eventing_scale_up_processor.go.
 */
export function parseNotTriggerReasons(list: string): Record<string, number> {
  const reasons: Record<string, number> = {};
  for (const part of list.split(/, (?=\d+ )/)) {
    const m = /^(\d+) ([\s\S]+)$/.exec(part.trim());
    if (!m) continue;
    const reason = m[2].trim();
    reasons[reason] = (reasons[reason] ?? 0) + Number(m[1]);
  }
  return reasons;
}

/** "pod triggered scale-up: [{ng 1->2 (max: 10)} {ng2 0->3 (max: 5)}]". CA: nodegroupset ScaleUpInfo.String(). */
export function parseTriggeredScaleUp(message: string): ScaleUpGroupChange[] {
  const groups: ScaleUpGroupChange[] = [];
  for (const m of message.matchAll(/\{(.*?) (-?\d+)->(-?\d+) \(max: (-?\d+)\)\}/g)) {
    groups.push({ group: m[1], from: Number(m[2]), to: Number(m[3]), max: Number(m[4]) });
  }
  return groups;
}

export function eventTime(ev: KubeEvent): Date | undefined {
  let best: Date | undefined;
  for (const v of [ev.lastTimestamp, ev.eventTime, ev.series?.lastObservedTime, ev.firstTimestamp]) {
    if (!v) continue;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) continue;
    if (!best || d.getTime() > best.getTime()) best = d;
  }
  return best;
}

function isFromCa(ev: KubeEvent): boolean {
  const component = ev.source?.component || ev.reportingComponent || '';
  return component === '' || component === 'cluster-autoscaler';
}

/** A CA event, parsed. Returns undefined for events that are not Cluster Autoscaler's. */
export function parseCaPodEvent(ev: KubeEvent): CaPodEvent | undefined {
  const reason = ev.reason ?? '';
  const message = ev.message ?? '';
  const provReq = reason === '' ? parseProvisioningRequestRef(message) : undefined;
  if ((!CA_REASON_SET.has(reason) && !provReq) || !isFromCa(ev)) return undefined;
  const time = eventTime(ev);
  const base: CaPodEvent = {
    reason: reason as CaEventReason | '',
    ...(ev.type ? { type: ev.type } : {}),
    message,
    ...(time ? { time } : {}),
    count: ev.series?.count ?? ev.count ?? 1,
    event: ev,
  };
  if (reason === 'NotTriggerScaleUp') return { ...base, ...parseNotTriggerMessage(message) };
  if (reason === 'TriggeredScaleUp') return { ...base, groups: parseTriggeredScaleUp(message) };
  if (provReq) return { ...base, provisioningRequest: provReq };
  return base;
}

/** "…consuming ProvisioningRequest ns/name" -> {ns, name}; undefined for any other message. */
export function parseProvisioningRequestRef(message: string): { namespace: string; name: string } | undefined {
  const text = message.trim();
  if (!text.startsWith(PROVREQ_CONSUMER_PREFIX)) return undefined;
  const ref = text.slice(PROVREQ_CONSUMER_PREFIX.length);
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/** A CA event about an object other than a pod: a CapacityBuffer, the status ConfigMap or the priority-expander ConfigMap. */
export interface CaObjectEvent {
  reason: CaEventReason;
  type?: string;
  message: string;
  time?: Date;
  count: number;
  object: { kind: string; namespace?: string; name: string };
  /** CapacityBuffer NotTriggerScaleUp / TriggeredScaleUp: how many of the buffer's fake pods the event is about. */
  fakePods?: number;
  /** CapacityBuffer TriggeredScaleUp: the groups resized ("[{ng 1->2 (max: 10)}]"). */
  groups?: ScaleUpGroupChange[];
  /** CapacityBuffer NotTriggerScaleUp: the per-pod reason messages as CA joined them (with "," and no space). */
  reasonsText?: string;
  /** PriorityConfigMapNotMatchedGroup: the node group no priority regex matches. */
  nodeGroup?: string;
  event: KubeEvent;
}

const BUFFER_NOT_TRIGGERED = /^capacity buffer (\d+) fake pods didn't trigger scale-up: ([\s\S]*)$/;
const BUFFER_TRIGGERED = /^capacity buffer (\d+) fake pods triggered scale-up: ([\s\S]*)$/;
const PRIORITY_NOT_MATCHED =
  /^Priority expander: node group (.+) not found in priority expander configuration\. The group won't be used\.$/;

/**
 * A CA event about a CapacityBuffer (CA 1.34+: processors/capacitybuffer/scale_up_status_processor.go), the status
 * ConfigMap (GracefulDegradation*, 1.37) or the priority-expander ConfigMap (PriorityConfigMap*); undefined otherwise.
 */
export function parseCaObjectEvent(ev: KubeEvent): CaObjectEvent | undefined {
  const reason = ev.reason ?? '';
  const kind = ev.involvedObject?.kind ?? '';
  if (!CA_REASON_SET.has(reason) || !isFromCa(ev) || kind === 'Pod' || kind === '') return undefined;
  const message = (ev.message ?? '').trim();
  const time = eventTime(ev);
  const out: CaObjectEvent = {
    reason: reason as CaEventReason,
    ...(ev.type ? { type: ev.type } : {}),
    message,
    ...(time ? { time } : {}),
    count: ev.series?.count ?? ev.count ?? 1,
    object: {
      kind,
      ...(ev.involvedObject.namespace ? { namespace: ev.involvedObject.namespace } : {}),
      name: ev.involvedObject.name ?? '',
    },
    event: ev,
  };
  if (kind === 'CapacityBuffer') {
    const not = BUFFER_NOT_TRIGGERED.exec(message);
    if (reason === 'NotTriggerScaleUp' && not) return { ...out, fakePods: Number(not[1]), reasonsText: not[2] };
    const yes = BUFFER_TRIGGERED.exec(message);
    if (reason === 'TriggeredScaleUp' && yes)
      return { ...out, fakePods: Number(yes[1]), groups: parseTriggeredScaleUp(yes[2]) };
    return out;
  }
  if (reason === 'PriorityConfigMapNotMatchedGroup') {
    const m = PRIORITY_NOT_MATCHED.exec(message);
    if (m) return { ...out, nodeGroup: m[1] };
  }
  return out;
}

/** Every CA event about non-pod objects, newest first (ties: by object and reason, so output is stable). */
export function caObjectEvents(events: KubeEvent[]): CaObjectEvent[] {
  const out: CaObjectEvent[] = [];
  for (const ev of events) {
    const parsed = parseCaObjectEvent(ev);
    if (parsed) out.push(parsed);
  }
  return out.sort(
    (a, b) =>
      (b.time?.getTime() ?? 0) - (a.time?.getTime() ?? 0) ||
      `${a.object.kind}/${a.object.namespace ?? ''}/${a.object.name}/${a.reason}`.localeCompare(
        `${b.object.kind}/${b.object.namespace ?? ''}/${b.object.name}/${b.reason}`,
      ),
  );
}

function parseNotTriggerMessage(
  message: string,
): Pick<CaPodEvent, 'format' | 'reasons' | 'maxTotalNodesReached'> {
  const text = message.trim();
  if (text === `${NOT_TRIGGERED}${LEGACY_SUFFIX}`) return { format: 'legacy-no-reasons', reasons: {} };
  if (text.startsWith(`${NOT_TRIGGERED}${LEGACY_SUFFIX}:`)) {
    return {
      format: 'legacy',
      reasons: parseNotTriggerReasons(text.slice(NOT_TRIGGERED.length + LEGACY_SUFFIX.length + 1)),
    };
  }
  if (text.startsWith(`${NOT_TRIGGERED}:`)) {
    const list = text.slice(NOT_TRIGGERED.length + 1).trim();
    // 1.33+: core/static_autoscaler.go emits this instead of per-group reasons when --max-nodes-total is hit.
    if (list === 'max total nodes in cluster reached') {
      return { format: 'max-total-nodes', reasons: {}, maxTotalNodesReached: true };
    }
    return { format: 'current', reasons: parseNotTriggerReasons(list) };
  }
  return { format: 'unrecognised', reasons: {} };
}

/** Events grouped by the object they are about, built once so callers do not scan all events per pod. */
export interface EventIndex {
  byObject: Map<string, KubeEvent[]>;
}

function objectKey(
  kind: string | undefined,
  namespace: string | undefined,
  name: string | undefined,
): string {
  return `${kind ?? ''}/${namespace ?? ''}/${name ?? ''}`;
}

export function indexEventsByInvolvedObject(events: KubeEvent[]): EventIndex {
  const byObject = new Map<string, KubeEvent[]>();
  for (const ev of events) {
    const o = ev.involvedObject;
    const key = objectKey(o?.kind, o?.namespace, o?.name);
    const list = byObject.get(key);
    if (list) list.push(ev);
    else byObject.set(key, [ev]);
  }
  return { byObject };
}

/** Events about an object; when both carry a uid they must match (a recreated pod with the same name is another object). */
export function eventsFor(index: EventIndex, obj: KubeObject, kind = obj.kind ?? 'Pod'): KubeEvent[] {
  const list = index.byObject.get(objectKey(kind, obj.metadata.namespace, obj.metadata.name)) ?? [];
  const uid = obj.metadata.uid;
  return uid ? list.filter((ev) => !ev.involvedObject.uid || ev.involvedObject.uid === uid) : list;
}

/** The newest CA event about a pod. Pass an EventIndex when looking up many pods. */
export function latestCaEventForPod(
  events: KubeEvent[] | EventIndex,
  pod: KubeObject,
): CaPodEvent | undefined {
  const index = Array.isArray(events) ? indexEventsByInvolvedObject(events) : events;
  let best: CaPodEvent | undefined;
  for (const ev of eventsFor(index, pod, 'Pod')) {
    const parsed = parseCaPodEvent(ev);
    if (!parsed) continue;
    if (
      !best ||
      (parsed.time?.getTime() ?? Number.NEGATIVE_INFINITY) >
        (best.time?.getTime() ?? Number.NEGATIVE_INFINITY)
    ) {
      best = parsed;
    }
  }
  return best;
}
