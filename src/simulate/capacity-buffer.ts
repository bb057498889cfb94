/**
 * CapacityBuffer (autoscaling.x-k8s.io/v1beta1, CA 1.34+): buffers, their replicas, the fake pods CA injects for them,
 * where those pods sit (they keep nodes) and the events CA writes on the buffer.
 * CA: pkg/capacitybuffer/*, pkg/processors/capacitybuffer/{pod_list_processor,scale_up_status_processor}.go
 */
import type { CaConfig } from '../model/ca-config.js';
import { type CapacityBuffer, findCondition, type PodTemplate } from '../model/ca-crds.js';
import type { MetaCondition } from '../model/k8s.js';
import type { KubeEvent, Pod, Workload } from '../model/k8s.js';
import type { ClusterView, NodeInfo } from '../model/scheduling.js';
import { eventTime, parseNotTriggerReasons, parseTriggeredScaleUp, type ScaleUpGroupChange } from './ca-events.js';
import { caFlagBool } from './ca-flag-values.js';
import { copiesThatFit } from './provisioning-request/simulation.js';
import { nodeInfoFor, parseResourceList, podRequests } from './resources.js';

// CA: pkg/capacitybuffer/constants.go
export const ACTIVE_CAPACITY_STRATEGY = 'buffer.x-k8s.io/active-capacity';
export const READY_FOR_PROVISIONING = 'ReadyForProvisioning';
export const PROVISIONING = 'Provisioning';
export const LIMITED_BY_QUOTAS = 'LimitedByQuotas';
// CA: pkg/processors/capacitybuffer/pod_list_processor.go
export const FAKE_POD_ANNOTATION_KEY = 'podType';
export const FAKE_POD_ANNOTATION_VALUE = 'capacityBufferFakePod';

export interface CapacityBufferSettings {
  /** --capacity-buffer-controller-enabled: CA's controller fills status (replicas, pod template) from spec. */
  controllerEnabled: boolean;
  /** --capacity-buffer-pod-injection-enabled: CA injects the fake pods. */
  podInjectionEnabled: boolean;
  /** The CA version has the flags (1.34+). undefined when no CA deployment was found. */
  supported: boolean | undefined;
}

export function capacityBufferCaSettings(ca: CaConfig): CapacityBufferSettings {
  const supported = ca.found ? ca.version.minor >= 34 : undefined;
  return {
    controllerEnabled: supported !== false && caFlagBool(ca, 'capacity-buffer-controller-enabled', false),
    podInjectionEnabled: supported !== false && caFlagBool(ca, 'capacity-buffer-pod-injection-enabled', false),
    supported,
  };
}

export interface BufferReplicas {
  replicas?: number;
  /** Why replicas could not be computed, as CA's controller words it. */
  error?: string;
  /** The scalable object's replicas the percentage applied to. */
  scalableReplicas?: number;
  fromPercentage?: number;
  fromLimits?: number;
}

/** CA: pkg/capacitybuffer/translators/replicas.go replicasFromPercentage: rounded up, 0 for 0 replicas. */
export function replicasFromPercentage(percentage: number, scalableReplicas: number): number {
  if (percentage <= 0 || scalableReplicas <= 0) return 0;
  return Math.floor((percentage * scalableReplicas + 99) / 100);
}

/**
 * CA: translators/replicas.go getBufferNumberOfPods: the max of `replicas` and the percentage of the scalable object's
 * replicas, capped by how many chunks fit in `limits`; `limits` alone = as many chunks as fit.
 */
export function desiredBufferReplicas(
  buffer: CapacityBuffer,
  chunk: Pod | undefined,
  scalableReplicas: number | undefined,
): BufferReplicas {
  const spec = buffer.spec ?? {};
  let replicas = -1;
  const out: BufferReplicas = {};
  if (typeof spec.replicas === 'number') replicas = Math.max(0, spec.replicas);
  if (typeof spec.percentage === 'number' && scalableReplicas !== undefined) {
    out.scalableReplicas = scalableReplicas;
    out.fromPercentage = replicasFromPercentage(spec.percentage, scalableReplicas);
    replicas = Math.max(replicas, out.fromPercentage);
  }
  if (spec.limits) {
    if (!chunk) return { ...out, error: 'the pod template is not known' };
    const req = podRequests(chunk);
    const limits = parseResourceList(spec.limits);
    let max = Number.MAX_SAFE_INTEGER;
    let found = false;
    for (const [res, amount] of Object.entries(req)) {
      if (amount <= 0 || !(res in limits)) continue;
      found = true;
      max = Math.min(max, Math.floor(limits[res] / amount));
    }
    if (!found) {
      return { ...out, error: "couldn't get number of replicas for buffer: resources in configured limits not found in the pod template" };
    }
    out.fromLimits = max;
    return { ...out, replicas: replicas >= 0 ? Math.min(replicas, max) : max };
  }
  if (replicas >= 0) return { ...out, replicas };
  return { ...out, error: "couldn't get number of replicas for buffer: replicas, percentage and limits are not defined" };
}

export interface BufferWorkloads {
  deployments?: readonly Workload[];
  replicaSets?: readonly Workload[];
  statefulSets?: readonly Workload[];
  jobs?: readonly Workload[];
  replicationControllers?: readonly Workload[];
}

/** The scalable object a buffer refers to (CA: translators/scalable_objects/scalable_object_resolvers.go kinds). */
export function scalableObjectOf(buffer: CapacityBuffer, w: BufferWorkloads): Workload | undefined {
  const ref = buffer.spec?.scalableRef;
  if (!ref) return undefined;
  const group = ref.apiGroup ?? '';
  const list =
    ref.kind === 'Deployment' && group === 'apps'
      ? w.deployments
      : ref.kind === 'ReplicaSet' && group === 'apps'
        ? w.replicaSets
        : ref.kind === 'StatefulSet' && group === 'apps'
          ? w.statefulSets
          : ref.kind === 'Job' && group === 'batch'
            ? w.jobs
            : ref.kind === 'ReplicationController' && (group === '' || group === 'core')
              ? w.replicationControllers
              : undefined;
  const ns = buffer.metadata.namespace ?? 'default';
  return list?.find((o) => (o.metadata.namespace ?? 'default') === ns && o.metadata.name === ref.name);
}

/** The scale subresource's replicas (status.replicas), else spec.replicas; Jobs use parallelism. */
export function scalableReplicas(obj: Workload, kind: string): number | undefined {
  const status = obj.status?.replicas;
  if (typeof status === 'number') return status;
  if (kind === 'Job') return typeof obj.spec?.parallelism === 'number' ? obj.spec.parallelism : 1;
  return typeof obj.spec?.replicas === 'number' ? obj.spec.replicas : 1;
}

/** The fake pods CA injects for a buffer (CA: pod_list_processor.go makeFakePods; the builder forces safe-to-evict). */
export function bufferFakePods(buffer: CapacityBuffer, template: PodTemplate, count: number): Pod[] {
  const meta = template.template?.metadata ?? {};
  const ns = buffer.metadata.namespace ?? 'default';
  const name = buffer.metadata.name ?? '';
  const pods: Pod[] = [];
  for (let i = 1; i <= count; i++) {
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `capacity-buffer-${name}-${i}`,
        namespace: ns,
        uid: `${buffer.metadata.uid ?? name}-${i}`,
        ...(meta.labels ? { labels: { ...meta.labels } } : {}),
        annotations: {
          ...(meta.annotations ?? {}),
          [FAKE_POD_ANNOTATION_KEY]: FAKE_POD_ANNOTATION_VALUE,
          'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true',
        },
        ownerReferences: [
          {
            apiVersion: 'autoscaling.x-k8s.io/v1beta1',
            kind: 'CapacityBuffer',
            name,
            ...(buffer.metadata.uid ? { uid: buffer.metadata.uid } : {}),
            controller: true,
          },
        ],
      },
      spec: { ...template.template.spec, nodeName: undefined },
      status: { phase: 'Pending' },
    });
  }
  return pods;
}

export function isCapacityBufferFakePod(pod: Pod): boolean {
  return pod.metadata.annotations?.[FAKE_POD_ANNOTATION_KEY] === FAKE_POD_ANNOTATION_VALUE;
}

/** The buffer a fake pod belongs to, "namespace/name". */
export function bufferOfFakePod(pod: Pod): string | undefined {
  if (!isCapacityBufferFakePod(pod)) return undefined;
  const owner = pod.metadata.ownerReferences?.find((o) => o.kind === 'CapacityBuffer');
  return owner ? `${pod.metadata.namespace ?? 'default'}/${owner.name}` : undefined;
}

export interface BufferEvent {
  reason: 'NotTriggerScaleUp' | 'TriggeredScaleUp';
  podCount: number;
  /** NotTriggerScaleUp: the reasons CA gave (reason -> number of node groups, the highest over the fake pods). */
  reasons?: Record<string, number>;
  /** TriggeredScaleUp: the groups resized. */
  groups?: ScaleUpGroupChange[];
  message: string;
  time?: Date;
  count: number;
}

const NOT_TRIGGERED = /^capacity buffer (\d+) fake pods didn't trigger scale-up: ([\s\S]*)$/;
const TRIGGERED = /^capacity buffer (\d+) fake pods triggered scale-up: ([\s\S]*)$/;

/** CA: scale_up_status_processor.go createBuffersNoScaleUpEvents / createBuffersScaleUpEvents. */
export function parseCapacityBufferEvent(ev: KubeEvent): BufferEvent | undefined {
  if (ev.involvedObject?.kind !== 'CapacityBuffer') return undefined;
  const message = (ev.message ?? '').trim();
  const time = eventTime(ev);
  const base = { message, ...(time ? { time } : {}), count: ev.series?.count ?? ev.count ?? 1 };
  if (ev.reason === 'NotTriggerScaleUp') {
    const m = NOT_TRIGGERED.exec(message);
    if (!m) return undefined;
    // one reason list per fake pod, joined with "," (no space)
    const reasons: Record<string, number> = {};
    for (const part of m[2].split(/,(?=\d+ )/)) {
      for (const [r, n] of Object.entries(parseNotTriggerReasons(part))) reasons[r] = Math.max(reasons[r] ?? 0, n);
    }
    return { ...base, reason: 'NotTriggerScaleUp', podCount: Number(m[1]), reasons };
  }
  if (ev.reason === 'TriggeredScaleUp') {
    const m = TRIGGERED.exec(message);
    if (!m) return undefined;
    return { ...base, reason: 'TriggeredScaleUp', podCount: Number(m[1]), groups: parseTriggeredScaleUp(m[2]) };
  }
  return undefined;
}

export type BufferPhase =
  | 'ca-not-configured'
  | 'wrong-strategy'
  | 'not-ready'
  | 'empty'
  | 'template-missing'
  | 'template-changed'
  | 'injected';

export interface BufferState {
  namespace: string;
  name: string;
  strategy: string;
  phase: BufferPhase;
  /** CA's reason word when one exists (NotReadyForProvisioning, BufferIsEmpty, FailedToGetPodTemplate, error ...). */
  reason?: string;
  /** One sentence: what CA does with the buffer. */
  summary: string;
  conditions: { readyForProvisioning?: MetaCondition; provisioning?: MetaCondition; limitedByQuotas?: MetaCondition };
  /** status.replicas, as CA's controller wrote it: the number of fake pods. */
  statusReplicas?: number;
  /** casdoctor's recomputation from spec (for buffers the controller has not reconciled, or to cross-check). */
  desired: BufferReplicas;
  podTemplateName?: string;
  /** The fake pods CA injects each loop (empty when it injects none). */
  fakePods: Pod[];
  events: BufferEvent[];
}

export interface BufferContext {
  settings: CapacityBufferSettings;
  /** undefined = PodTemplates not gathered. */
  podTemplates?: readonly PodTemplate[];
  workloads: BufferWorkloads;
  events?: readonly KubeEvent[];
}

function templateNamed(list: readonly PodTemplate[] | undefined, ns: string, name: string | undefined): PodTemplate | undefined {
  if (!name) return undefined;
  return list?.find((t) => (t.metadata.namespace ?? 'default') === ns && t.metadata.name === name);
}

/**
 * What CA does with one buffer this loop, in pod_list_processor.go order: strategy filter, status filter (Ready or
 * Provisioning True), PodTemplate generation filter, then provision() (not ready / empty / template / fake pods).
 */
export function explainCapacityBuffer(buffer: CapacityBuffer, ctx: BufferContext): BufferState {
  const ns = buffer.metadata.namespace ?? 'default';
  const name = buffer.metadata.name ?? '';
  const conds = buffer.status?.conditions ?? [];
  const c = {
    readyForProvisioning: findCondition(conds, READY_FOR_PROVISIONING),
    provisioning: findCondition(conds, PROVISIONING),
    limitedByQuotas: findCondition(conds, LIMITED_BY_QUOTAS),
  };
  const conditions = Object.fromEntries(Object.entries(c).filter(([, v]) => v)) as BufferState['conditions'];
  const statusStrategy = buffer.status?.provisioningStrategy;
  const strategy = statusStrategy ?? buffer.spec?.provisioningStrategy ?? ACTIVE_CAPACITY_STRATEGY;
  const templateName = buffer.status?.podTemplateRef?.name ?? buffer.spec?.podTemplateRef?.name;
  const template = templateNamed(ctx.podTemplates, ns, templateName);
  const chunk = template ? bufferFakePods(buffer, template, 1)[0] : undefined;
  const scalable = scalableObjectOf(buffer, ctx.workloads);
  const desired = desiredBufferReplicas(
    buffer,
    chunk,
    scalable && buffer.spec?.scalableRef ? scalableReplicas(scalable, buffer.spec.scalableRef.kind) : undefined,
  );
  const events = (ctx.events ?? [])
    .filter((e) => e.involvedObject?.kind === 'CapacityBuffer' && e.involvedObject.name === name && (e.involvedObject.namespace ?? 'default') === ns)
    .map(parseCapacityBufferEvent)
    .filter((e): e is BufferEvent => e !== undefined)
    .sort((a, b) => (b.time?.getTime() ?? 0) - (a.time?.getTime() ?? 0));
  const statusReplicas = buffer.status?.replicas;
  const base = {
    namespace: ns,
    name,
    strategy,
    conditions,
    ...(statusReplicas !== undefined ? { statusReplicas } : {}),
    desired,
    ...(templateName ? { podTemplateName: templateName } : {}),
    events,
  };
  const none = (phase: BufferPhase, summary: string, reason?: string): BufferState => ({
    ...base,
    phase,
    summary,
    ...(reason ? { reason } : {}),
    fakePods: [],
  });
  const s = ctx.settings;
  if (s.supported === false || !s.podInjectionEnabled) {
    const why = s.supported === false
      ? 'this CA version (before 1.34) has no CapacityBuffer support'
      : 'CA runs without --capacity-buffer-pod-injection-enabled=true';
    return none('ca-not-configured', `${why}: no fake pods, no scale-up for the buffer`);
  }
  if (statusStrategy === undefined && !s.controllerEnabled) {
    return none('ca-not-configured', 'status is empty and CA runs without --capacity-buffer-controller-enabled=true: nothing fills the buffer status, so CA injects no fake pods');
  }
  if (statusStrategy !== ACTIVE_CAPACITY_STRATEGY) {
    return none(
      'wrong-strategy',
      statusStrategy === undefined
        ? "the controller has not reconciled the buffer yet (status.provisioningStrategy unset): CA injects no fake pods"
        : `strategy "${statusStrategy}" is not ${ACTIVE_CAPACITY_STRATEGY}: CA injects no fake pods`,
    );
  }
  // CA: filters/status_filter.go keeps buffers with ReadyForProvisioning=True or Provisioning=True
  if (c.readyForProvisioning?.status !== 'True' && c.provisioning?.status !== 'True') {
    const msg = c.readyForProvisioning?.message ?? desired.error ?? 'not ready for provisioning';
    return none('not-ready', `not ready for provisioning: ${msg}`, c.readyForProvisioning?.reason ?? 'NotReadyForProvisioning');
  }
  // CA: filters/podtemplate_generation_filter.go skips buffers whose PodTemplate changed since the controller's last pass
  const gen = buffer.status?.podTemplateGeneration;
  const tplGen = template?.metadata.generation;
  if (template && typeof gen === 'number' && typeof tplGen === 'number' && gen !== tplGen) {
    return none('template-changed', `PodTemplate ${templateName} changed (generation ${tplGen}, buffer saw ${gen}): CA skips the buffer until the controller catches up`);
  }
  if (!buffer.status?.podTemplateRef || statusReplicas === undefined || c.readyForProvisioning?.status === 'False') {
    return none('not-ready', 'CapacityBuffer is not ready for provisioning', 'NotReadyForProvisioning');
  }
  if (statusReplicas === 0) return none('empty', 'CapacityBuffer has zero replicas', 'BufferIsEmpty');
  if (!template) {
    if (ctx.podTemplates === undefined) {
      return none('template-missing', `PodTemplate ${templateName} is not in the snapshot: casdoctor cannot build the fake pods`);
    }
    return none('template-missing', `failed to get pod template ${ns}/${templateName}`, 'FailedToGetPodTemplate');
  }
  const quota = c.limitedByQuotas?.status === 'True' ? ` (${c.limitedByQuotas.message ?? 'limited by quotas'})` : '';
  return {
    ...base,
    phase: 'injected',
    reason: 'FakePodsInjected',
    summary: `CA injects ${statusReplicas} fake pod(s) from PodTemplate ${templateName} every loop${quota}`,
    fakePods: bufferFakePods(buffer, template, statusReplicas),
  };
}

export interface BufferPlacement {
  /** node name -> the buffers' fake pods CA packs there (they count as used, so the node is not underutilized). */
  byNode: Map<string, Pod[]>;
  /** Fake pods that fit no existing node: they make CA scale up ("this scale-up was for buffer X"). */
  unplaced: Pod[];
}

/**
 * Where fake pods land on existing nodes (CA: core/podlistprocessor/filter_out_schedulable.go packs them into the live
 * snapshot). Greedy in snapshot order: CA's own order differs, so the node a pod lands on is one CA may pick, not the one.
 */
export function placeBufferPods(fakePods: readonly Pod[], view: ClusterView, taintReason?: 'with-taint' | 'redacted'): BufferPlacement {
  const infos: NodeInfo[] = [...view.nodeInfos];
  const v: ClusterView = { ...view, nodeInfos: infos };
  const byNode = new Map<string, Pod[]>();
  const unplaced: Pod[] = [];
  for (const pod of fakePods) {
    let placed = false;
    for (let k = 0; k < infos.length; k++) {
      if (copiesThatFit(pod, infos[k], v, 1, taintReason).count === 0) continue;
      infos[k] = nodeInfoFor(infos[k].node, [...infos[k].pods, pod]);
      const name = infos[k].node.metadata.name ?? '';
      byNode.set(name, [...(byNode.get(name) ?? []), pod]);
      placed = true;
      break;
    }
    if (!placed) unplaced.push(pod);
  }
  return { byNode, unplaced };
}

/** Every buffer's state, for the why-pending and scale-down views ("this node is kept by buffer X's fake pods"). */
export function capacityBufferStates(
  buffers: readonly CapacityBuffer[],
  ctx: BufferContext,
): BufferState[] {
  return buffers
    .map((b) => explainCapacityBuffer(b, ctx))
    .sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1));
}

/** The fake pods of all injecting buffers, placed: node -> "namespace/buffer" names, and the pods left to scale up for. */
export function bufferPodsByNode(
  states: readonly BufferState[],
  view: ClusterView,
  taintReason?: 'with-taint' | 'redacted',
): { byNode: Map<string, string[]>; scaleUpFor: Map<string, number> } {
  const placement = placeBufferPods(states.flatMap((s) => s.fakePods), view, taintReason);
  const byNode = new Map<string, string[]>();
  for (const [nodeName, pods] of placement.byNode) {
    byNode.set(nodeName, [...new Set(pods.map((p) => bufferOfFakePod(p) ?? ''))].sort());
  }
  const scaleUpFor = new Map<string, number>();
  for (const p of placement.unplaced) {
    const b = bufferOfFakePod(p) ?? '';
    scaleUpFor.set(b, (scaleUpFor.get(b) ?? 0) + 1);
  }
  return { byNode, scaleUpFor };
}
