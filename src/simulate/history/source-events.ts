// Kubernetes events (all namespaces) as history steps: the scheduler's, the kubelet's, the node controllers', Cluster
// Autoscaler's and Karpenter's reasons, each mapped by its reason word and, where the word is shared, its message.
import type { KubeEvent } from '../../model/k8s.js';
import type { HistoryActor, HistoryStep, HistoryStepKind } from '../../model/history.js';
import { line, ms } from './text.js';

/** When an event happened: the newest of its own times (events.k8s.io's eventTime/series, core's lastTimestamp). */
export function eventTime(e: KubeEvent): { t?: number; first?: number; clock: 'lastTimestamp' | 'eventTime' | 'series' | 'creationTimestamp' | 'none' } {
  const first = ms(e.firstTimestamp) ?? ms(e.eventTime);
  const series = ms(e.series?.lastObservedTime);
  if (series !== undefined) return { t: series, first, clock: 'series' };
  const last = ms(e.lastTimestamp);
  if (last !== undefined) return { t: last, first, clock: 'lastTimestamp' };
  const et = ms(e.eventTime);
  if (et !== undefined) return { t: et, first: et, clock: 'eventTime' };
  const created = ms(e.metadata?.creationTimestamp);
  return created !== undefined ? { t: created, first: created, clock: 'creationTimestamp' } : { clock: 'none' };
}

function componentActor(e: KubeEvent): HistoryActor {
  const c = `${e.source?.component ?? ''} ${e.reportingComponent ?? ''}`;
  if (/cluster-autoscaler/.test(c)) return 'cluster-autoscaler';
  if (/karpenter/.test(c)) return 'karpenter';
  if (/scheduler/.test(c)) return 'scheduler';
  if (/kubelet/.test(c)) return 'kubelet';
  if (/node-controller|node-lifecycle|cloud-node/.test(c)) return 'node-controller';
  return 'unknown';
}

interface Mapped {
  kind: HistoryStepKind;
  actor?: HistoryActor;
  reason?: string;
  summary: string;
  /** use the first time (a repeated FailedScheduling starts the wait) */
  atFirst?: boolean;
}

/** reason (+message) → step; undefined: an event that tells nothing of a node's life or a pod's wait. */
function mapEvent(e: KubeEvent, msg: string): Mapped | undefined {
  const kind = e.involvedObject?.kind;
  switch (e.reason) {
    // kube-scheduler
    case 'FailedScheduling':
      return { kind: 'pod-unschedulable', actor: componentActor(e) === 'karpenter' ? 'karpenter' : 'scheduler', summary: `unschedulable: ${msg}`, atFirst: true };
    case 'Scheduled':
      return { kind: 'pod-scheduled', actor: 'scheduler', summary: msg };
    // kubelet
    case 'Pulling':
      return { kind: 'pod-pulling', actor: 'kubelet', summary: msg, atFirst: true };
    case 'Started':
      return kind === 'Pod' ? { kind: 'pod-started', actor: 'kubelet', summary: msg } : undefined;
    case 'NodeReady':
      return { kind: 'node-ready', actor: 'kubelet', summary: 'node Ready' };
    case 'NodeNotReady':
      return { kind: 'node-not-ready', actor: componentActor(e), summary: 'node NotReady' };
    // node controllers
    case 'RegisteredNode':
      return { kind: 'node-registered', actor: 'node-controller', summary: 'node registered' };
    case 'RemovingNode':
      return { kind: 'node-deleted', actor: 'node-controller', summary: 'node removed from the cluster' };
    case 'DeletingNode':
      return { kind: 'node-deleted', actor: 'node-controller', reason: 'instance-gone', summary: `node deleted: ${msg}` };
    // Cluster Autoscaler (core/scaledown/actuation, core/scaleup; ca-semantics §1.6, §2.5)
    case 'TriggeredScaleUp':
      return { kind: 'pod-triggered-scale-up', actor: 'cluster-autoscaler', summary: msg };
    case 'NotTriggerScaleUp':
      return { kind: 'pod-not-triggered', actor: 'cluster-autoscaler', summary: msg, atFirst: true };
    case 'ScaledUpGroup':
      return { kind: 'scale-up', actor: 'cluster-autoscaler', summary: msg };
    case 'FailedToScaleUpGroup':
      return { kind: 'scale-up-failed', actor: 'cluster-autoscaler', summary: msg };
    case 'ScaleDownEmpty':
      return { kind: 'scale-down', actor: 'cluster-autoscaler', reason: 'empty', summary: msg };
    case 'ScaleDown':
      if (kind === 'Pod') return { kind: 'evicted', actor: 'cluster-autoscaler', reason: 'scale-down', summary: 'evicted for scale-down' };
      if (/marked the node as toBeDeleted/.test(msg)) return { kind: 'tainted', actor: 'cluster-autoscaler', reason: 'ToBeDeletedByClusterAutoscaler', summary: 'tainted ToBeDeletedByClusterAutoscaler, cordoned' };
      if (/removed by cluster autoscaler/.test(msg)) return { kind: 'scale-down', actor: 'cluster-autoscaler', summary: 'removed by Cluster Autoscaler' };
      return { kind: 'scale-down', actor: 'cluster-autoscaler', summary: msg };
    case 'ScaleDownFailed':
      return { kind: 'error', actor: 'cluster-autoscaler', reason: 'ScaleDownFailed', summary: msg };
    // Karpenter (pkg/events/reason.go, disruption/events, terminator/events; aws interruption/events @v1.14.1)
    case 'Nominated':
      return { kind: 'pod-nominated', actor: 'karpenter', summary: msg };
    case 'DisruptionTerminating': {
      const reason = /Disrupting Node(?:Claim)?: (\S+)/.exec(msg)?.[1]?.toLowerCase();
      return { kind: 'disrupting', actor: 'karpenter', reason, summary: msg };
    }
    case 'DisruptionLaunching':
      return { kind: 'nodeclaim-created', actor: 'karpenter', reason: /: (\S+)$/.exec(msg)?.[1]?.toLowerCase(), summary: msg };
    case 'ConsolidationCandidate':
      return { kind: 'disruption-candidate', actor: 'karpenter', summary: msg };
    case 'Evicted':
      return kind === 'Pod' && componentActor(e) === 'karpenter'
        ? { kind: 'evicted', actor: 'karpenter', reason: /^Evicted pod: (.+)$/.exec(msg)?.[1]?.toLowerCase(), summary: msg }
        : kind === 'Pod'
          ? { kind: 'evicted', actor: componentActor(e), summary: msg }
          : undefined;
    case 'SpotInterrupted':
      return { kind: 'interruption', actor: 'ec2', reason: 'spot_interrupted', summary: 'spot interruption warning' };
    case 'CapacityReservationInstanceInterrupted':
      return { kind: 'interruption', actor: 'ec2', reason: 'capacity_reservation_interrupted', summary: msg };
    case 'SpotRebalanceRecommendation':
      return { kind: 'rebalance-recommendation', actor: 'ec2', reason: 'rebalance_recommendation', summary: 'spot rebalance recommendation' };
    case 'InstanceStopping':
    case 'InstanceTerminating':
      return { kind: 'interruption', actor: 'ec2', reason: e.reason === 'InstanceStopping' ? 'instance_stopped' : 'instance_terminated', summary: msg };
    case 'InstanceUnhealthy':
      return { kind: 'unhealthy', actor: 'ec2', reason: 'instance_unhealthy', summary: msg };
    case 'TerminatingOnInterruption':
      return { kind: 'disrupting', actor: 'karpenter', reason: 'interruption', summary: msg };
    case 'InsufficientCapacityError':
      return { kind: 'launch-failed', actor: 'karpenter', reason: 'insufficient_capacity', summary: msg };
    default:
      return undefined;
  }
}

/** The node a pod was assigned to by the scheduler's `Scheduled` event ("Successfully assigned ns/p to node"). */
export function scheduledNodeOf(e: KubeEvent): string | undefined {
  if (e.reason !== 'Scheduled') return undefined;
  return /Successfully assigned \S+ to (\S+)/.exec(e.message ?? '')?.[1];
}

/** One step per event that tells a node's life or a pod's wait; events without a usable time are counted, not guessed. */
export function stepsFromEvents(events: readonly KubeEvent[]): { steps: HistoryStep[]; untimed: number; eventTimeOnly: number } {
  const steps: HistoryStep[] = [];
  let untimed = 0;
  let eventTimeOnly = 0;
  for (const e of events) {
    const msg = line(e.message);
    const m = mapEvent(e, msg);
    if (!m) continue;
    const { t, first, clock } = eventTime(e);
    if (t === undefined) {
      untimed++;
      continue;
    }
    if (clock === 'eventTime') eventTimeOnly++;
    const at = m.atFirst && first !== undefined ? first : t;
    const o = e.involvedObject ?? {};
    const count = e.series?.count ?? e.count;
    const step: HistoryStep = {
      t: at,
      kind: m.kind,
      actor: m.actor ?? componentActor(e),
      summary: count && count > 1 ? `${m.summary} (×${count})` : m.summary,
      raw: msg,
      source: { kind: 'event', where: `event ${line(o.kind ?? '', 40)}/${line(o.name ?? '', 120)} ${line(e.reason, 60)}` },
    };
    const by = e.source?.component ?? e.reportingComponent;
    if (by) step.by = line(by, 80);
    if (m.reason) step.reason = m.reason;
    if (o.kind === 'Node' && o.name) step.node = line(o.name, 253);
    if (o.kind === 'NodeClaim' && o.name) step.nodeClaim = line(o.name, 253);
    if (o.kind === 'Pod' && o.name) step.pod = `${line(o.namespace ?? 'default', 63)}/${line(o.name, 253)}`;
    const assigned = scheduledNodeOf(e);
    if (assigned) step.node = line(assigned, 253);
    // Karpenter's Nominated: "Pod should schedule on: nodeclaim/default-x, node/ip-…" (scheduling/events.go:47 @v1.14.1)
    if (m.kind === 'pod-nominated') {
      const nc = /nodeclaim\/([^\s,]+)/.exec(msg)?.[1];
      const node = /\bnode\/([^\s,]+)/.exec(msg)?.[1];
      if (nc) step.nodeClaim = nc;
      if (node) step.node = node;
    }
    // CA's TriggeredScaleUp: "pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]"
    if (m.kind === 'pod-triggered-scale-up' || m.kind === 'scale-up') {
      const g = /\{(\S+) \d+->\d+/.exec(msg)?.[1] ?? /group (\S+) size/.exec(msg)?.[1];
      if (g) step.group = g;
    }
    if (m.kind === 'scale-up-failed') {
      const g = /Scale-up failed for group (\S+?):/.exec(msg)?.[1];
      if (g) step.group = g;
    }
    steps.push(step);
  }
  return { steps, untimed, eventTimeOnly };
}
