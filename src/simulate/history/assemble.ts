// Every source of a run on one axis: steps from events, objects, both autoscalers' logs, the ASGs' activities and
// CloudTrail; what each source covered (or why it was not read, and how to supply it); and what the clocks say.
import type { HistorySourceStatus, HistoryStep } from '../../model/history.js';
import type { RawInputs } from '../../model/snapshot.js';
import { buildCaConfig, findCaDeployment } from '../ca-config.js';
import type { CaLogSteps } from './source-logs.js';
import { stepsFromKarpenterLog } from './source-logs.js';
import { stepsFromCloudTrail, stepsFromScalingActivities } from './source-aws.js';
import { stepsFromEvents } from './source-events.js';
import { stepsFromNodeClaims, stepsFromNodes, stepsFromPods } from './source-objects.js';
import { type HistoryContext } from './timeline.js';

export interface AssembleOptions {
  now: number;
  since: number;
  live: boolean;
  caLogs: Array<CaLogSteps & { where: string }>;
  /** How klog's year was chosen offline ("--now", "each file's modification time"). */
  yearFrom: string;
}

/** A log that starts within a minute of the window's start covers it (CA's loop is 10s). */
const COVERAGE_SLACK_MS = 60_000;

/** a.push(...b) passes b as arguments: a source of 200,000 steps overflows the stack. */
function append<T>(a: T[], b: readonly T[]): void {
  for (const x of b) a.push(x);
}

const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');

function span(steps: readonly HistoryStep[]): { from?: number; to?: number } {
  if (steps.length === 0) return {};
  let from = steps[0].t;
  let to = steps[0].t;
  for (const s of steps) {
    if (s.t < from) from = s.t;
    if (s.t > to) to = s.t;
  }
  return { from, to };
}

export function assembleHistory(raw: RawInputs, o: AssembleOptions): HistoryContext {
  const steps: HistoryStep[] = [];
  const sources: HistorySourceStatus[] = [];
  const clockNotes: string[] = [];
  const gapOf = (resource: string) => raw.gaps.find((g) => g.resource === resource);
  const notProvided = (kind: HistorySourceStatus['kind'], name: string, offline: string, resource?: string) => {
    const gap = resource ? gapOf(resource) : undefined;
    sources.push({ kind, name, state: gap ? 'not-evaluated' : 'not-provided', steps: 0, detail: gap ? `${gap.reason}: ${gap.detail}` : o.live ? `not read live; ${offline}` : offline });
  };

  // Kubernetes events
  if (raw.provided.has('events')) {
    const ev = stepsFromEvents(raw.events);
    append(steps, ev.steps);
    sources.push({ kind: 'event', name: 'Kubernetes events', state: 'read', steps: ev.steps.length, ...span(ev.steps) });
    if (ev.eventTimeOnly) clockNotes.push(`${ev.eventTimeOnly} event(s) carry only eventTime: the reporting component's clock, not the API server's`);
    if (ev.untimed) clockNotes.push(`${ev.untimed} event(s) without any time were left out`);
  } else notProvided('event', 'Kubernetes events', 'add `kubectl get events -A -o json` to --from', 'events');

  // nodes, NodeClaims, pods: their timestamps outlive the events
  const objects: HistoryStep[] = [];
  if (raw.provided.has('nodes')) append(objects, stepsFromNodes(raw.nodes));
  if (raw.provided.has('nodeClaims')) append(objects, stepsFromNodeClaims(raw.nodeClaims));
  if (raw.provided.has('pods')) append(objects, stepsFromPods(raw.pods));
  append(steps, objects);
  const kinds = [raw.provided.has('nodes') && 'nodes', raw.provided.has('nodeClaims') && 'NodeClaims', raw.provided.has('pods') && 'pods'].filter(Boolean).join(', ');
  if (kinds) sources.push({ kind: 'object', name: kinds, state: 'read', steps: objects.length, ...span(objects) });
  else notProvided('object', 'nodes, NodeClaims, pods', 'add `kubectl get nodes,pods -A -o json` and `kubectl get nodeclaims -o json` to --from');

  // Cluster Autoscaler's log
  if (o.caLogs.length) {
    for (const l of o.caLogs) {
      append(steps, l.steps);
      sources.push({ kind: 'ca-log', name: `CA log ${l.where}`, state: 'read', steps: l.steps.length, ...(l.firstTime !== undefined ? { from: l.firstTime } : {}), ...(l.lastTime !== undefined ? { to: l.lastTime } : {}) });
      if (l.firstTime !== undefined && l.firstTime > o.since + COVERAGE_SLACK_MS) clockNotes.push(`CA log ${l.where} starts at ${iso(l.firstTime)}, after the window's start: CA's decisions before it are not evaluated (\`kubectl logs --previous\`, or a log shipper, keeps them)`);
      if (l.yearInferred) clockNotes.push(`CA log ${l.where}: klog lines carry no year; dated by ${o.yearFrom}`);
      if (l.dropped) clockNotes.push(`CA log ${l.where}: ${l.dropped} step(s) past the cap were dropped`);
    }
  } else notProvided('ca-log', "Cluster Autoscaler's log", 'add `kubectl logs -n kube-system deploy/cluster-autoscaler --since=6h > ca.log` to --from');

  // Karpenter's log
  if (raw.karpenterLogs?.length) {
    for (const k of raw.karpenterLogs) {
      const where = k.source.kind === 'file' ? k.source.path : k.source.kind === 'pod' ? `pod ${k.source.namespace}/${k.source.pod}` : 'text';
      const ks = stepsFromKarpenterLog(k.records, where);
      append(steps, ks);
      sources.push({ kind: 'karpenter-log', name: `Karpenter log ${where}`, state: 'read', steps: ks.length, ...(k.firstTime !== undefined ? { from: k.firstTime } : {}), ...(k.lastTime !== undefined ? { to: k.lastTime } : {}) });
      if (k.unrecognisedLines > 0) clockNotes.push(`Karpenter log ${where}: ${k.unrecognisedLines} line(s) are no Karpenter JSON record (first at line ${k.samples[0]?.line ?? '?'}); the rest was read`);
      if (k.firstTime !== undefined && k.firstTime > o.since + COVERAGE_SLACK_MS) clockNotes.push(`Karpenter log ${where} starts at ${iso(k.firstTime)}, after the window's start: Karpenter's decisions before it are not evaluated`);
      if (k.dropped) clockNotes.push(`Karpenter log ${where}: the oldest ${k.dropped} record(s) past the cap were dropped`);
    }
  } else notProvided('karpenter-log', "Karpenter's log", 'add `kubectl logs -n kube-system deploy/karpenter --since=6h > karpenter.log` to --from (when Karpenter runs)');

  // the ASGs' scaling activities
  if (raw.provided.has('scalingActivities')) {
    const { steps: as, unparsed } = stepsFromScalingActivities(raw.scalingActivities);
    append(steps, as);
    sources.push({ kind: 'asg-activity', name: 'ASG scaling activities', state: 'read', steps: as.length, ...span(as) });
    if (unparsed) clockNotes.push(`${unparsed} scaling activit(ies) with a Cause casdoctor does not parse: shown with their raw text`);
  } else notProvided('asg-activity', 'ASG scaling activities', 'add `aws autoscaling describe-scaling-activities --auto-scaling-group-name NAME --output json` to --from', 'scalingActivities');

  // CloudTrail
  if (raw.cloudTrailEvents) {
    const ct = stepsFromCloudTrail(raw.cloudTrailEvents);
    append(steps, ct);
    sources.push({ kind: 'cloudtrail', name: 'CloudTrail LookupEvents', state: 'read', steps: ct.length, ...span(ct) });
  } else
    notProvided(
      'cloudtrail',
      'CloudTrail LookupEvents',
      'add `aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventName,AttributeValue=TerminateInstances --start-time … --output json` to --from (and the same for TerminateInstanceInAutoScalingGroup, SetDesiredCapacity, CreateFleet)',
      'cloudtrail',
    );

  clockNotes.push(...skewNotes(steps));
  const ca = buildCaConfig({ deployment: findCaDeployment(raw.deployments)?.deployment });
  return {
    now: o.now,
    since: o.since,
    steps,
    sources,
    nodes: raw.nodes,
    nodeClaims: raw.nodeClaims,
    pods: raw.pods,
    autoScalingGroups: raw.autoScalingGroups,
    unneededTimeMs: ca.flags.scaleDownUnneededTime.value,
    utilizationThreshold: ca.flags.scaleDownUtilizationThreshold.value,
    clockNotes,
  };
}

/**
 * The same fact seen by two clocks: CA's set-size line and CloudTrail's SetDesiredCapacity for the group; Karpenter's
 * launch line and CloudTrail's CreateFleet for the instance. CloudTrail's eventTime has whole seconds: under 2s is agreement.
 */
export function skewNotes(steps: readonly HistoryStep[]): string[] {
  const notes: string[] = [];
  const trail = steps.filter((s) => s.source.kind === 'cloudtrail');
  if (trail.length === 0) return notes;
  const pairs = (name: string, mine: readonly HistoryStep[], match: (a: HistoryStep, b: HistoryStep) => boolean) => {
    const d: number[] = [];
    for (const a of mine) {
      const b = trail.filter((x) => match(a, x) && Math.abs(x.t - a.t) < 120_000).sort((x, y) => Math.abs(x.t - a.t) - Math.abs(y.t - a.t))[0];
      if (b) d.push(a.t - b.t);
    }
    if (d.length === 0) return;
    d.sort((x, y) => x - y);
    const median = d[Math.floor(d.length / 2)];
    if (Math.abs(median) < 2000) notes.push(`${name} and CloudTrail agree within 2s (${d.length} matching call(s))`);
    else notes.push(`${name} is ${(Math.abs(median) / 1000).toFixed(1)}s ${median > 0 ? 'behind' : 'ahead of'} CloudTrail (median of ${d.length} matching call(s)); its times are shown as written`);
  };
  pairs("CA's log", steps.filter((s) => s.source.kind === 'ca-log' && s.kind === 'scale-up' && s.reason !== 'expander'), (a, b) => b.kind === 'desired-capacity' && b.group === a.group);
  pairs("Karpenter's log", steps.filter((s) => s.source.kind === 'karpenter-log' && s.kind === 'instance-launched' && s.instanceId), (a, b) => b.kind === 'instance-launch-requested' && b.instanceId === a.instanceId);
  return notes;
}
