// The history's reasoning, pure: every source's steps on one axis, identities joined (node ↔ instance ↔ NodeClaim ↔
// group), then a node's life, a pod's wait and a group's window told from them — with what is missing said, never guessed.
import type { AutoScalingGroup } from '../../model/aws.js';
import type { Finding } from '../../model/findings.js';
import type { HistoryActor, HistorySourceStatus, HistoryStep, HistoryStepKind, PodWaitPhase } from '../../model/history.js';
import type { Node, Pod } from '../../model/k8s.js';
import type { NodeClaim } from '../../model/karpenter.js';
import { formatDurationShort } from '../../model/duration.js';
import { evictionsOf, indexSteps, lastBetween, lowerBound, mergePositions, upperBound } from './step-index.js';
import { instanceIdOf, line } from './text.js';

export const HISTORY_DOCS = 'https://github.com/casdoctor/casdoctor/blob/main/docs/history.md';

export interface HistoryContext {
  now: number;
  since: number;
  steps: HistoryStep[];
  sources: HistorySourceStatus[];
  nodes: readonly Node[];
  nodeClaims: readonly NodeClaim[];
  pods: readonly Pod[];
  autoScalingGroups: readonly AutoScalingGroup[];
  /** CA's --scale-down-unneeded-time and --scale-down-utilization-threshold (defaults 10m, 0.5). */
  unneededTimeMs: number;
  utilizationThreshold: number;
  /** Notes on the clocks of the sources (skew, inferred years), already worded. */
  clockNotes: string[];
}

/** Who's who: node names, instance ids, NodeClaims and groups joined from every source that names two of them. */
export class Identity {
  readonly instanceOf = new Map<string, string>();
  readonly nodeOf = new Map<string, string>();
  readonly claimOfNode = new Map<string, string>();
  readonly nodeOfClaim = new Map<string, string>();
  readonly groupOfInstance = new Map<string, string>();
  readonly groupOfNode = new Map<string, string>();
  readonly karpenterGroups = new Set<string>();
  readonly asgGroups = new Set<string>();
  /** ASGs CA serves: its discovery tag, or its own steps naming them. */
  readonly caGroups = new Set<string>();
  /** node → where its instance id came from when only a time match joined them */
  readonly timeLinked = new Map<string, string>();
  /** pod → the node the scheduler assigned it to */
  readonly nodeOfPod = new Map<string, string>();

  link(node: string | undefined, instanceId: string | undefined, claim?: string, group?: string, karpenter = false): void {
    if (node && instanceId) {
      if (!this.instanceOf.has(node)) this.instanceOf.set(node, instanceId);
      if (!this.nodeOf.has(instanceId)) this.nodeOf.set(instanceId, node);
    }
    if (node && claim) {
      this.claimOfNode.set(node, claim);
      this.nodeOfClaim.set(claim, node);
    }
    if (group) {
      if (instanceId) this.groupOfInstance.set(instanceId, group);
      if (node) this.groupOfNode.set(node, group);
      (karpenter ? this.karpenterGroups : this.asgGroups).add(group);
    }
  }
  groupOf(node?: string, instanceId?: string): string | undefined {
    return (node && this.groupOfNode.get(node)) || (instanceId && this.groupOfInstance.get(instanceId)) || undefined;
  }
}

const CA_TERMINATION_WINDOW_MS = 2 * 60_000;

export function buildIdentity(ctx: HistoryContext): Identity {
  const id = new Identity();
  for (const a of ctx.autoScalingGroups) {
    id.asgGroups.add(a.AutoScalingGroupName);
    if ((a.Tags ?? []).some((t) => t.Key === 'k8s.io/cluster-autoscaler/enabled')) id.caGroups.add(a.AutoScalingGroupName);
    for (const i of a.Instances ?? []) if (i.InstanceId) id.groupOfInstance.set(i.InstanceId, a.AutoScalingGroupName);
  }
  for (const n of ctx.nodes) {
    const name = n.metadata?.name;
    const pool = n.metadata?.labels?.['karpenter.sh/nodepool'];
    id.link(name, instanceIdOf(n.spec?.providerID), undefined, pool, Boolean(pool));
  }
  for (const c of ctx.nodeClaims) {
    const pool = c.metadata?.labels?.['karpenter.sh/nodepool'];
    id.link(c.status?.nodeName, instanceIdOf(c.status?.providerID), c.metadata?.name, pool, true);
    if (c.metadata?.name && pool) id.karpenterGroups.add(pool);
  }
  for (const s of ctx.steps) {
    if (s.actor === 'cluster-autoscaler' && s.group) id.caGroups.add(s.group);
    const karpenter = s.actor === 'karpenter' && (s.source.kind === 'karpenter-log' || s.source.kind === 'object');
    if (s.kind === 'pod-scheduled' && s.pod && s.node) id.nodeOfPod.set(s.pod, s.node);
    if (s.kind === 'pod-scheduled' || s.kind === 'evicted') continue;
    id.link(s.node, s.instanceId, s.nodeClaim, s.source.kind === 'asg-activity' || karpenter ? s.group : undefined, karpenter);
    if (s.nodeClaim && s.instanceId && !s.node) {
      const node = id.nodeOfClaim.get(s.nodeClaim);
      if (node) id.link(node, s.instanceId);
    }
  }
  // CA removes a node by TerminateInstanceInAutoScalingGroup: join a removed node without a known instance to the one
  // termination that followed CA's decision within 2 minutes (and in its group, when known), and say it was by time
  const used = new Set(id.instanceOf.values());
  const terminations = ctx.steps.filter(
    (s) => s.instanceId && ((s.kind === 'instance-terminated' && s.reason === 'terminate-api-call') || (s.kind === 'instance-terminate-requested' && s.source.kind === 'cloudtrail' && s.actor === 'cluster-autoscaler')),
  );
  for (const s of ctx.steps) {
    if (s.actor !== 'cluster-autoscaler' || s.kind !== 'scale-down' || !s.node || id.instanceOf.has(s.node)) continue;
    const group = id.groupOfNode.get(s.node);
    const near = [...new Set(terminations.filter((x) => x.t >= s.t - 5_000 && x.t <= s.t + CA_TERMINATION_WINDOW_MS && (!group || id.groupOfInstance.get(x.instanceId!) === group) && !used.has(x.instanceId!)).map((x) => x.instanceId!))];
    if (near.length !== 1) continue;
    id.link(s.node, near[0]);
    used.add(near[0]);
    id.timeLinked.set(s.node, near[0]);
    const g = id.groupOfInstance.get(near[0]);
    if (g) id.groupOfNode.set(s.node, g);
  }
  return id;
}

/** Steps with node, instance, NodeClaim and group filled in from the identity; sorted by time (stable). */
export function enrich(steps: HistoryStep[], id: Identity): HistoryStep[] {
  // only defined values are assigned (a `delete` would turn 400,000 steps into slow dictionary objects)
  for (const s of steps) {
    if (s.kind === 'pod-scheduled' || s.kind === 'pod-started') continue;
    if (!s.node) {
      const node = (s.instanceId ? id.nodeOf.get(s.instanceId) : undefined) ?? (s.nodeClaim ? id.nodeOfClaim.get(s.nodeClaim) : undefined);
      if (node) s.node = node;
    }
    if (s.node && !s.instanceId) {
      const instanceId = id.instanceOf.get(s.node);
      if (instanceId) s.instanceId = instanceId;
    }
    if (s.node && !s.nodeClaim) {
      const claim = id.claimOfNode.get(s.node);
      if (claim) s.nodeClaim = claim;
    }
    if (!s.group) {
      const group = id.groupOf(s.node, s.instanceId);
      if (group) s.group = group;
    }
  }
  // Array.prototype.sort is stable: steps of one time keep their sources' order
  return steps.slice().sort((a, b) => a.t - b.t);
}

// ------------------------------------------------------------------------------------------------ a node's life

export interface Verdict {
  /** 'known': the sources say it; 'not-evaluated': the evidence is missing (detail says what would supply it). */
  state: 'known' | 'not-evaluated';
  actor?: HistoryActor;
  by?: string;
  reason?: string;
  text: string;
  at?: number;
}

export interface NodeStory {
  node?: string;
  instanceId?: string;
  nodeClaim?: string;
  group?: string;
  servedBy?: 'cluster-autoscaler' | 'karpenter';
  steps: HistoryStep[];
  created: Verdict;
  removed?: Verdict;
  /** Pods evicted from it (by their events), bounded. */
  evicted: string[];
  gaps: string[];
}

const END_KINDS = new Set<HistoryStepKind>(['unneeded', 'disrupting', 'tainted', 'evicted', 'node-deleted', 'nodeclaim-deleted', 'instance-terminate-requested', 'instance-terminated', 'interruption', 'rebalance-recommendation', 'unhealthy', 'timeout', 'scale-down']);

export function nodeStory(ctx: HistoryContext, id: Identity, steps: readonly HistoryStep[], query: string): NodeStory | undefined {
  const core = nodeCore(id, steps, query);
  if (!core) return undefined;
  const { node, instanceId, claim, group, servedBy, mine, evictedPods } = core;
  const story: NodeStory = {
    ...(node ? { node } : {}),
    ...(instanceId ? { instanceId } : {}),
    ...(claim ? { nodeClaim: claim } : {}),
    ...(group ? { group } : {}),
    ...(servedBy ? { servedBy } : {}),
    steps: mine,
    created: createdVerdict(ctx, steps, mine, group, claim),
    evicted: [...new Set([...evictedPods, ...mine.filter((s) => s.kind === 'scale-down' && s.pods).flatMap((s) => s.pods!)])].slice(0, 100),
    gaps: [],
  };
  const removed = removedVerdict(ctx, mine, id, node);
  if (removed) story.removed = removed;
  story.gaps = nodeGaps(ctx, story, id);
  return story;
}

/** A node's removal only, as the window lists it (its creation and gaps are told only when the node is asked for). */
function nodeRemoval(ctx: HistoryContext, id: Identity, steps: readonly HistoryStep[], query: string): { node?: string; instanceId?: string; group?: string; removed?: Verdict } | undefined {
  const core = nodeCore(id, steps, query);
  if (!core) return undefined;
  const removed = removedVerdict(ctx, core.mine, id, core.node);
  return { ...(core.node ? { node: core.node } : {}), ...(core.instanceId ? { instanceId: core.instanceId } : {}), ...(core.group ? { group: core.group } : {}), ...(removed ? { removed } : {}) };
}

function nodeCore(id: Identity, steps: readonly HistoryStep[], query: string) {
  const isInstance = /^i-[0-9a-f]{8,17}$/.test(query);
  const node = isInstance ? id.nodeOf.get(query) : query;
  const instanceId = isInstance ? query : id.instanceOf.get(query);
  const claim = node ? id.claimOfNode.get(node) : undefined;
  const evictedPods = new Set<string>();
  const ix = indexSteps(steps);
  // the steps naming the node, its instance or its NodeClaim, and the evictions of the pods that ran on it, in time order
  const evictions = node ? evictionsOf(ix, id.nodeOfPod, node) : undefined;
  for (const p of evictions?.pods ?? []) evictedPods.add(p);
  const mine = mergePositions(node !== undefined ? ix.byNode.get(node) : undefined, instanceId !== undefined ? ix.byInstance.get(instanceId) : undefined, claim !== undefined ? ix.byClaim.get(claim) : undefined, evictions?.at).map((i) => steps[i]);
  if (mine.length === 0) return undefined;
  const group = id.groupOf(node, instanceId) ?? mine.find((s) => s.group)?.group;
  const servedBy: NodeStory['servedBy'] = (group && id.karpenterGroups.has(group)) || claim ? 'karpenter' : group && id.caGroups.has(group) ? 'cluster-autoscaler' : undefined;
  return { node, instanceId, claim, group, servedBy, mine, evictedPods };
}

const first = (steps: readonly HistoryStep[], pred: (s: HistoryStep) => boolean) => steps.find(pred);
const lastOf = (steps: readonly HistoryStep[], pred: (s: HistoryStep) => boolean) => {
  for (let i = steps.length - 1; i >= 0; i--) if (pred(steps[i])) return steps[i];
  return undefined;
};
const at = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');

function createdVerdict(ctx: HistoryContext, all: readonly HistoryStep[], mine: readonly HistoryStep[], group: string | undefined, claim: string | undefined): Verdict {
  // Karpenter: the NodeClaim, for the pods it was nominated for, or as a disruption's replacement
  const created = first(mine, (s) => s.kind === 'nodeclaim-created' && s.reason === 'replacement') ?? first(mine, (s) => s.kind === 'nodeclaim-created');
  if (claim || created) {
    const t = created?.t ?? first(mine, (s) => s.kind === 'instance-launched')?.t;
    const ix = indexSteps(all);
    let pods = claim ? [...new Set((ix.nominatedByClaim.get(claim) ?? []).map((s) => s.pod!))] : [];
    let batch = false;
    if (pods.length === 0 && t !== undefined) {
      // no Nominated event left: the pods of the provisioning batch Karpenter logged just before (one batch may make several NodeClaims)
      const found = lastBetween(ix.karpenterBatches, t - 30_000, t);
      if (found?.pods?.length) {
        pods = found.pods;
        batch = true;
      }
    }
    if (created?.reason === 'replacement' || created?.kind === 'nodeclaim-created' && /Launching NodeClaim/.test(created.summary)) {
      const disruption = t !== undefined ? lastBetween(ix.disruptions, t - 5 * 60_000, t) : undefined;
      return { state: 'known', actor: 'karpenter', reason: 'replacement', ...(t !== undefined ? { at: t } : {}), text: `Karpenter replacement NodeClaim ${claim ?? '?'}${disruption ? ` for the ${disruption.reason ?? ''} disruption of ${disruption.node}` : ''}${group ? ` (NodePool ${group})` : ''}` };
    }
    return {
      state: 'known',
      actor: 'karpenter',
      reason: 'provisioning',
      ...(t !== undefined ? { at: t } : {}),
      text: `Karpenter NodeClaim ${claim ?? '?'}${group ? ` (NodePool ${group})` : ''}${pods.length ? ` for ${batch ? "the provisioning batch's " : ''}pod(s) ${pods.slice(0, 5).join(', ')}${pods.length > 5 ? ` and ${pods.length - 5} more` : ''}` : ' (the pods it was for: no Nominated event or provisioning log line left)'}`,
    };
  }
  const launch = first(mine, (s) => s.kind === 'instance-launched' && s.source.kind === 'asg-activity');
  if (launch) {
    const ix = indexSteps(all);
    const r = launch.reason;
    if (r === 'desired-vs-actual' || r === 'set-desired-capacity') {
      // who raised the desired capacity: CA's log or event, or a CloudTrail call, just before the launch
      const raise = lastBetween(ix.raisesByGroup.get(group), launch.t - 5 * 60_000, launch.t + 5_000);
      const pods = raise ? [...new Set((ix.triggeredByGroup.get(group) ?? []).filter((s) => Math.abs(s.t - raise.t) < 2 * 60_000).map((s) => s.pod!))] : [];
      if (raise && raise.actor === 'cluster-autoscaler')
        return { state: 'known', actor: 'cluster-autoscaler', reason: 'scale-up', at: raise.t, text: `Cluster Autoscaler scale-up of ${group} at ${at(raise.t)}${pods.length ? ` for pod(s) ${pods.slice(0, 5).join(', ')}${pods.length > 5 ? ` and ${pods.length - 5} more` : ''}` : ''}` };
      if (raise && raise.source.kind === 'cloudtrail')
        return { state: 'known', actor: raise.actor, by: raise.by, reason: 'desired-capacity', at: raise.t, text: `desired capacity of ${group} raised by ${raise.by ?? 'an API call'} (${actorWord(raise.actor)})` };
      const replaced = lastBetween(ix.asgTerminationsByGroup.get(group), launch.t - 10 * 60_000, launch.t);
      if (replaced)
        return { state: 'known', actor: 'asg', reason: 'replacement', at: launch.t, text: `${group} replaced ${replaced.instanceId ?? 'an instance'}${replaced.node ? ` (${replaced.node})` : ''}, taken out of service at ${at(replaced.t)}: ${replaced.summary.replace(/^instance terminated: /, '')}` };
      return { state: 'known', actor: 'asg', reason: r, at: launch.t, text: `${group ?? 'the ASG'} launched it to match a higher desired capacity; who raised it is not in the sources (CA's log, its events or CloudTrail would say)` };
    }
    const words: Record<string, string> = { 'health-replacement': 'an ASG replacement after a health check', 'az-rebalance': 'AZ rebalancing', 'capacity-rebalance': 'Capacity Rebalancing (a rebalance recommendation)', 'instance-refresh': 'an instance refresh', 'update-constraints': 'a change of the group limits' };
    return { state: 'known', actor: 'asg', reason: r ?? 'launch', at: launch.t, text: `launched by ${group ?? 'the ASG'}: ${r ? (words[r] ?? launch.summary) : launch.summary}` };
  }
  const reg = first(mine, (s) => s.kind === 'node-registered');
  return {
    state: 'not-evaluated',
    ...(reg ? { at: reg.t } : {}),
    text: `why it was created is not in the sources${reg ? ` (registered ${at(reg.t)})` : ''}: the ASG's scaling activities, CA's log or Karpenter's log from that time would say`,
  };
}

function actorWord(a: HistoryActor | undefined): string {
  switch (a) {
    case 'cluster-autoscaler':
      return 'Cluster Autoscaler';
    case 'karpenter':
      return 'Karpenter';
    case 'asg':
      return 'EC2 Auto Scaling';
    case 'ec2':
      return 'EC2';
    case 'eks':
      return 'EKS';
    case 'person':
      return 'a person';
    case 'other-principal':
      return 'another IAM principal, not an autoscaler';
    default:
      return 'unknown';
  }
}

function removedVerdict(ctx: HistoryContext, mine: readonly HistoryStep[], id: Identity, node: string | undefined): Verdict | undefined {
  const ends = mine.filter((s) => END_KINDS.has(s.kind) && s.kind !== 'unneeded' && s.kind !== 'evicted');
  if (ends.length === 0) return undefined;
  // the call that asked for it; the ASG's own TerminateInstances that carries it out comes after and says less
  const term =
    lastOf(mine, (s) => s.source.kind === 'cloudtrail' && s.kind === 'instance-terminate-requested' && s.actor !== 'asg') ??
    lastOf(mine, (s) => s.source.kind === 'cloudtrail' && s.kind === 'instance-terminate-requested');
  const interruption = first(mine, (s) => s.kind === 'interruption');
  const kDisrupt = first(mine, (s) => s.kind === 'disrupting' && s.actor === 'karpenter' && s.reason !== 'interruption');
  const caDown = first(mine, (s) => s.kind === 'scale-down' && s.actor === 'cluster-autoscaler' && s.source.kind === 'ca-log') ?? first(mine, (s) => s.kind === 'scale-down' && s.actor === 'cluster-autoscaler');
  const health = first(mine, (s) => s.source.kind === 'asg-activity' && s.kind === 'instance-terminated');
  const timeout = first(mine, (s) => s.kind === 'timeout');
  const termBy = term ? ` TerminateInstance call by ${term.by ?? 'an unnamed principal'} at ${at(term.t)}.` : '';
  const linked = node && id.timeLinked.has(node) ? ` (its instance ${id.timeLinked.get(node)} matched by time: the only termination in its group within 2m of CA's decision)` : '';
  if (interruption && (interruption.reason === 'spot_interrupted' || interruption.reason === 'capacity_reservation_interrupted'))
    return { state: 'known', actor: 'ec2', reason: interruption.reason, at: interruption.t, text: `EC2 reclaimed it: ${interruption.reason === 'spot_interrupted' ? 'spot interruption' : 'capacity reservation interruption'} (${interruption.source.where})${kDisrupt || first(mine, (s) => s.reason === 'interruption') ? '; Karpenter drained it on the warning' : ''}.${termBy}` };
  if (term && (term.actor === 'person' || term.actor === 'other-principal') && !kDisrupt && !caDown)
    return { state: 'known', actor: term.actor, by: term.by, reason: 'api-call', at: term.t, text: `removed by ${term.actor === 'person' ? 'a person' : 'an IAM principal that is no autoscaler'}: ${term.by ?? '?'} called ${term.summary.split(' ')[0]} at ${at(term.t)} — not the autoscaler` };
  if (kDisrupt) {
    const repl = /with (\d+) replacement/.exec(kDisrupt.summary)?.[0];
    return { state: 'known', actor: 'karpenter', reason: kDisrupt.reason, at: kDisrupt.t, text: `Karpenter disruption: ${kDisrupt.reason ?? 'reason not logged'}${repl ? `, ${repl}` : ''}.${termBy}` };
  }
  if (caDown) {
    const util = /\(([^)]*utilization[^)]*)\)/.exec(caDown.summary)?.[1];
    const why = caDown.reason === 'empty' ? 'empty node' : caDown.reason === 'underutilized' ? `underutilized (${util ?? 'utilization not logged'} < threshold ${ctx.utilizationThreshold})` : 'scale-down';
    const unneeded = first(mine, (s) => s.kind === 'unneeded');
    return { state: 'known', actor: 'cluster-autoscaler', reason: caDown.reason ?? 'scale-down', at: caDown.t, text: `Cluster Autoscaler scale-down: ${why}${unneeded ? `, unneeded since ${at(unneeded.t)}` : ''}${linked}.${termBy}` };
  }
  if (timeout) return { state: 'known', actor: 'karpenter', reason: timeout.reason, at: timeout.t, text: `Karpenter deleted it: ${timeout.summary}` };
  if (health && health.reason && health.reason !== 'terminate-api-call')
    return { state: 'known', actor: 'asg', reason: health.reason, at: health.t, text: `EC2 Auto Scaling: ${health.summary.replace(/^instance terminated: /, '')}${termBy}` };
  if (term) return { state: 'known', actor: term.actor, by: term.by, reason: 'api-call', at: term.t, text: `${actorWord(term.actor)} terminated the instance (${term.by ?? '?'}) at ${at(term.t)}` };
  const end = ends[ends.length - 1];
  return { state: 'not-evaluated', at: end.t, text: `removed (${end.summary}, ${end.source.where}), but by whom and why is not in the sources: CloudTrail (TerminateInstances, 90 days) or the autoscalers' logs from ${at(end.t)} would say` };
}

function nodeGaps(ctx: HistoryContext, story: NodeStory, id: Identity): string[] {
  const gaps: string[] = [];
  const has = (k: HistorySourceStatus['kind']) => ctx.sources.some((s) => s.kind === k && s.state === 'read');
  const events = ctx.sources.find((s) => s.kind === 'event' && s.state === 'read');
  const firstStep = story.steps[0];
  if (events?.from !== undefined && firstStep && firstStep.t < events.from)
    gaps.push(`Kubernetes events reach back only to ${at(events.from)} (their TTL is 1h by default): earlier steps come from logs, objects and AWS; \`casdoctor record\` keeps them`);
  if (story.servedBy === 'karpenter' && !has('karpenter-log')) gaps.push("no Karpenter log: its disruption decisions (reason, replacement) are missing — add `kubectl logs -n kube-system deploy/karpenter --since=…` to --from");
  if (story.servedBy === 'cluster-autoscaler' && !has('ca-log')) gaps.push("no Cluster Autoscaler log: its scale-up/scale-down decisions are only in its events (1h) — add `kubectl logs -n kube-system deploy/cluster-autoscaler` to --from");
  if (story.removed && !has('cloudtrail')) gaps.push('no CloudTrail: who called TerminateInstances is not evaluated — add `aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventName,AttributeValue=TerminateInstances --output json`');
  if (story.instanceId === undefined && story.node) gaps.push(`the instance of ${story.node} is not named by any source (the Node object is gone): a snapshot or \`casdoctor record\` keeps spec.providerID`);
  if (story.servedBy === 'karpenter' && story.removed && !ctx.nodeClaims.some((c) => c.metadata?.name === story.nodeClaim)) gaps.push(`NodeClaim ${story.nodeClaim ?? ''} is deleted with its conditions; only logs and events tell its end`.replace('  ', ' '));
  void id;
  return gaps;
}

// ------------------------------------------------------------------------------------------------ a pod's wait

export interface PodStory {
  pod: string;
  node?: string;
  steps: HistoryStep[];
  phases: PodWaitPhase[];
  dominant?: PodWaitPhase;
  totalMs?: number;
  attempts: HistoryStep[];
  gaps: string[];
}

export function podStory(ctx: HistoryContext, id: Identity, steps: readonly HistoryStep[], pod: string): PodStory | undefined {
  const own = steps.filter((s) => s.pod === pod || s.pods?.includes(pod));
  if (own.length === 0) return undefined;
  const scheduled = first(own, (s) => s.kind === 'pod-scheduled');
  const node = scheduled?.node ?? id.nodeOfPod.get(pod);
  const claim = first(own, (s) => s.kind === 'pod-nominated' && s.nodeClaim !== undefined)?.nodeClaim;
  const nodeSteps = steps.filter((s) => (node && s.node === node) || (claim && s.nodeClaim === claim));
  const t0 = first(own, (s) => s.kind === 'pod-created')?.t ?? first(own, (s) => s.kind === 'pod-unschedulable')?.t;
  const unsched = first(own, (s) => s.kind === 'pod-unschedulable');
  const decision = first(own, (s) => s.kind === 'pod-triggered-scale-up' || s.kind === 'pod-nominated') ?? first(nodeSteps, (s) => s.kind === 'nodeclaim-created');
  const launched = first(nodeSteps, (s) => s.kind === 'instance-launched');
  const registered = first(nodeSteps, (s) => s.kind === 'node-registered');
  const ready = first(nodeSteps, (s) => s.kind === 'node-ready' || s.kind === 'node-initialized');
  const started = first(own, (s) => s.kind === 'pod-started' && (!scheduled || s.t >= scheduled.t));
  const marks: Array<[string, number | undefined, string]> = [
    ['created', t0, ''],
    ['unschedulable', unsched?.t, 'the scheduler found no node'],
    ['autoscaler decided', decision?.t, "the autoscaler's scan interval and batching"],
    ['instance launched', launched?.t, "the cloud's launch"],
    ['node registered', registered?.t, 'the instance boot and the kubelet joining'],
    ['node Ready', ready?.t, "the kubelet's bootstrap (CNI, daemonsets)"],
    ['pod scheduled', scheduled?.t, 'the scheduler binding it'],
    ['pod running', started?.t, 'image pull and container start'],
  ];
  const phases: PodWaitPhase[] = [];
  let prev: [string, number] | undefined;
  for (const [name, t, what] of marks) {
    if (t === undefined) continue;
    if (prev && t >= prev[1]) phases.push({ name: `${prev[0]} → ${name}`, from: prev[1], to: t, ms: t - prev[1], what });
    if (!prev || t >= prev[1]) prev = [name, t];
  }
  for (const p of phases) {
    const failed = steps.filter((s) => s.t >= p.from && s.t < p.to && (s.kind === 'scale-up-failed' || s.kind === 'launch-failed' || s.kind === 'scale-up-timeout'));
    if (failed.length) p.what += `, including a failed attempt (${[...new Set(failed.map((f) => f.group ?? f.reason ?? f.kind))].join(', ')})`;
  }
  const dominant = phases.reduce<PodWaitPhase | undefined>((a, p) => (!a || p.ms > a.ms ? p : a), undefined);
  const end = started?.t ?? scheduled?.t;
  const attempts = t0 !== undefined && end !== undefined
    ? steps.filter((s) => s.t >= t0 && s.t <= end && (s.kind === 'scale-up-failed' || s.kind === 'launch-failed' || s.kind === 'backoff' || s.kind === 'scale-up-timeout' || s.kind === 'offering-unavailable'))
    : [];
  const gaps: string[] = [];
  if (!decision) gaps.push('no autoscaler decision for this pod in the sources (TriggeredScaleUp / Nominated events expire after 1h; the autoscalers\' logs keep them)');
  if (node && !launched) gaps.push(`when ${node}'s instance launched is not in the sources (ASG activities, Karpenter's log or CloudTrail would say)`);
  if (!scheduled) gaps.push('the pod was not scheduled in the window, or its Scheduled event and object are gone');
  const timeline = [...own, ...nodeSteps.filter((s) => s.kind === 'instance-launched' || s.kind === 'node-registered' || s.kind === 'node-ready' || s.kind === 'node-initialized' || s.kind === 'nodeclaim-created'), ...attempts];
  const uniq = [...new Set(timeline)].sort((a, b) => a.t - b.t);
  return {
    pod,
    ...(node ? { node } : {}),
    steps: uniq,
    phases,
    ...(dominant ? { dominant } : {}),
    ...(t0 !== undefined && end !== undefined ? { totalMs: end - t0 } : {}),
    attempts,
    gaps,
  };
}

// ------------------------------------------------------------------------------------------------ a group's window

export interface GroupSummary {
  group: string;
  autoscaler: 'cluster-autoscaler' | 'karpenter' | 'unknown';
  scaleUps: number;
  scaleDowns: number;
  failures: number;
  backoffs: number;
  interruptions: number;
  removedByOthers: number;
}

export interface WindowReport {
  groups: GroupSummary[];
  removals: Array<{ node: string; group?: string; verdict: Verdict }>;
  findings: Finding[];
}

export function windowReport(ctx: HistoryContext, id: Identity, steps: readonly HistoryStep[], only?: string): WindowReport {
  const inWindow = steps.filter((s) => s.t >= ctx.since && s.t <= ctx.now);
  const groupsSeen = new Set<string>();
  for (const s of inWindow) if (s.group) groupsSeen.add(s.group);
  const groups = [...groupsSeen].filter((g) => !only || g === only).sort();
  // every node that ended in the window, with its verdict
  const ended = new Set<string>();
  for (const s of inWindow) if (s.node && (s.kind === 'node-deleted' || s.kind === 'instance-terminated' || s.kind === 'scale-down' || s.kind === 'disrupting' || s.kind === 'nodeclaim-deleted' || s.kind === 'interruption')) ended.add(s.node);
  for (const s of inWindow) if (!s.node && s.instanceId && (s.kind === 'instance-terminated' || s.kind === 'instance-terminate-requested')) ended.add(s.instanceId);
  const removals: WindowReport['removals'] = [];
  for (const n of [...ended].sort()) {
    const story = nodeRemoval(ctx, id, steps, n);
    if (!story?.removed) continue;
    if (only && story.group !== only) continue;
    removals.push({ node: story.node ?? story.instanceId ?? n, ...(story.group ? { group: story.group } : {}), verdict: story.removed });
  }
  removals.sort((a, b) => (a.verdict.at ?? 0) - (b.verdict.at ?? 0) || (a.node < b.node ? -1 : 1));
  // by group once: a window holds hundreds of groups and 400,000 steps
  const stepsOf = byGroup(inWindow, (s) => s.group);
  const removalsOf = byGroup(removals, (r) => r.group);
  const summaries: GroupSummary[] = groups.map((g) => {
    const of = stepsOf.get(g) ?? [];
    const gone = removalsOf.get(g) ?? [];
    const karp = id.karpenterGroups.has(g);
    // Karpenter: NodeClaims made for pending pods, each once whatever the number of sources naming it (not the replacements)
    const replacements = new Set(of.filter((s) => s.kind === 'nodeclaim-created' && s.reason === 'replacement' && s.nodeClaim).map((s) => s.nodeClaim));
    const launches = karp ? new Set(of.filter((s) => s.kind === 'nodeclaim-created' && s.nodeClaim && !replacements.has(s.nodeClaim)).map((s) => s.nodeClaim)).size : countScaleUps(of);
    return {
      group: g,
      // an ASG is CA's when CA's own steps name it or it carries CA's discovery tag; any other ASG is nobody's known
      autoscaler: karp ? 'karpenter' : id.caGroups.has(g) ? 'cluster-autoscaler' : 'unknown',
      scaleUps: launches,
      scaleDowns: gone.filter((r) => (r.verdict.actor === 'cluster-autoscaler' || r.verdict.actor === 'karpenter')).length,
      failures: incidentsOf(of.filter((s) => s.kind === 'scale-up-failed' || s.kind === 'launch-failed' || s.kind === 'scale-up-timeout')),
      backoffs: of.filter((s) => s.kind === 'backoff').length,
      interruptions: gone.filter((r) => r.verdict.actor === 'ec2').length,
      removedByOthers: gone.filter((r) => (r.verdict.actor === 'person' || r.verdict.actor === 'other-principal')).length,
    };
  });
  return { groups: summaries, removals, findings: findingsOf(ctx, stepsOf, removalsOf, summaries, removals) };
}

/** Failures seen by several sources within 2m of each other are one. */
function incidentsOf(steps: readonly HistoryStep[]): number {
  return steps.filter((f, i) => i === 0 || f.t - steps[i - 1].t > 2 * 60_000).length;
}

/** CA scale-ups: its log's set-size lines, else its ScaledUpGroup events (one decision, not one per source). */
function countScaleUps(of: readonly HistoryStep[]): number {
  const log = of.filter((s) => s.kind === 'scale-up' && s.source.kind === 'ca-log' && s.reason !== 'expander').length;
  return log || of.filter((s) => s.kind === 'scale-up' && s.source.kind === 'event').length;
}

function finding(id: string, severity: 'warning' | 'info', group: string | undefined, subject: { kind: string; name: string }, message: string, evidence: Array<{ source: string; observed: string }>, remediation?: string): Finding {
  return {
    checkId: id,
    severity,
    subject,
    ...(group ? { nodeGroup: group } : {}),
    message,
    evidence,
    ...(remediation ? { remediation } : {}),
    docsUrl: `${HISTORY_DOCS}#${id}`,
  };
}

function byGroup<T>(list: readonly T[], groupOf: (x: T) => string | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of list) {
    const g = groupOf(x);
    if (g === undefined) continue;
    const a = m.get(g);
    if (a) a.push(x);
    else m.set(g, [x]);
  }
  return m;
}

function findingsOf(ctx: HistoryContext, stepsOf: ReadonlyMap<string, HistoryStep[]>, removalsOf: ReadonlyMap<string, WindowReport['removals']>, groups: readonly GroupSummary[], removals: WindowReport['removals']): Finding[] {
  const out: Finding[] = [];
  for (const g of groups) {
    const of = stepsOf.get(g.group) ?? [];
    const gone = removalsOf.get(g.group) ?? [];
    const kind = g.autoscaler === 'karpenter' ? 'NodePool' : 'NodeGroup';
    // flapping: a node added and another removed by the autoscaler within scale-down-unneeded-time of each other
    const ups = of.filter((s) => (s.kind === 'scale-up' && s.source.kind === 'ca-log' && s.reason !== 'expander') || (s.kind === 'nodeclaim-created' && s.source.kind === 'karpenter-log' && s.reason !== 'replacement'));
    const downs = gone.filter((r) => (r.verdict.actor === 'cluster-autoscaler' || (r.verdict.actor === 'karpenter' && r.verdict.reason !== 'drifted' && r.verdict.reason !== 'expired')) && r.verdict.at !== undefined);
    // ups is in time order: the ups near each removal are one range of it
    let pairCount = 0;
    let firstPair: readonly [HistoryStep, (typeof downs)[number]] | undefined;
    for (const d of downs) {
      const lo = lowerBound(ups, d.verdict.at! - ctx.unneededTimeMs);
      const hi = upperBound(ups, d.verdict.at! + ctx.unneededTimeMs);
      if (hi <= lo) continue;
      pairCount += hi - lo;
      firstPair ??= [ups[lo], d];
    }
    if (firstPair) {
      const pairs = { length: pairCount };
      const [u, d] = firstPair;
      out.push(
        finding('history-flapping', 'warning', g.group, { kind, name: g.group }, `${g.group} flapped: ${pairs.length} scale-up/scale-down pair(s) within ${formatDurationShort(ctx.unneededTimeMs)} of each other`, [
          { source: u.source.where, observed: `${at(u.t)} ${u.summary}` },
          { source: 'history', observed: `${at(d.verdict.at!)} ${d.node}: ${d.verdict.text}` },
        ], g.autoscaler === 'karpenter' ? 'raise the NodePool\'s disruption.consolidateAfter, or check pods that come and go in bursts' : 'raise --scale-down-unneeded-time or --scale-down-delay-after-add, or check pods that come and go in bursts'),
      );
    }
    // scale-up loop: nodes launched then removed as empty, never taking a pod
    const empties = gone.filter((r) => r.verdict.reason === 'empty');
    if (empties.length >= 2)
      out.push(
        finding('history-scale-up-loop', 'warning', g.group, { kind, name: g.group }, `${g.group} launched ${empties.length} nodes that were removed empty in the window`, empties.slice(0, 5).map((e) => ({ source: 'history', observed: `${e.node}: ${e.verdict.text}` })), 'find the pod that keeps triggering the scale-up and does not land: `casdoctor why-pending --all`'),
      );
    // one failure is seen by several sources (the ASG's activity, CA's log line, its backoff): steps within 2m are one incident
    const failures = of.filter((s) => s.kind === 'scale-up-failed' || s.kind === 'launch-failed' || s.kind === 'scale-up-timeout' || s.kind === 'backoff');
    const incidents = failures.filter((f, i) => i === 0 || f.t - failures[i - 1].t > 2 * 60_000);
    if (incidents.length >= 3)
      out.push(
        finding('history-repeated-failures', 'warning', g.group, { kind, name: g.group }, `${g.group} failed to scale up ${incidents.length} times in the window`, incidents.slice(0, 5).map((f) => ({ source: f.source.where, observed: `${at(f.t)} ${f.summary}` }))),
      );
  }
  for (const r of removals) {
    if (r.verdict.actor !== 'person' && r.verdict.actor !== 'other-principal') continue;
    out.push(finding('history-removed-by-other', 'info', r.group, { kind: 'Node', name: r.node }, `${r.node} was removed by ${r.verdict.by ?? 'an IAM principal'}, not by an autoscaler`, [{ source: 'CloudTrail', observed: r.verdict.text }]));
  }
  return out;
}

export { line };
