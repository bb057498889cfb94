/**
 * Cluster Autoscaler's scale-down decision for every node, in CA's order (reference §1.1):
 * pre-filter (NotAutoscaled, NodeGroupMinSizeReached), eligibility (CurrentlyBeingDeleted, ScaleDownDisabledAnnotation,
 * ScaleDownUnreadyDisabled, NotUnderutilized), removal simulation (BlockedByPod by the drainability rules,
 * NoPlaceToMovePods by the scheduler predicates, PDB budget consumed across nodes), then the unneeded stage
 * (timers, NodeGroupMinSizeReached, MinimalResourceLimitExceeded) and the cooldowns.
 * Pure: derived from one Analysis, cached per Analysis.
 */
import { nodeVerdictWhenCaCannotRun, summaryWhenCaCannotRun } from './ca-running.js';
import { bufferOfFakePod, capacityBufferCaSettings, capacityBufferStates } from './capacity-buffer.js';
import type { Node, Pod, PodDisruptionBudget } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import { gatheredList } from '../model/snapshot.js';
import type { GroupScaleDownOptions, UnremovableReason } from '../model/scale-down.js';
import type { Analysis } from './analysis.js';
import type { Cooldown, NodeScaleDown, ScaleDownAnalysis, Working } from './scale-down/types.js';
import { eligibility } from './scale-down/eligibility.js';
import { simulateRemovals } from './scale-down/removal.js';
import { unneededNodes } from './scale-down/unneeded.js';
import { cooldowns } from './scale-down/cooldowns.js';
import { minutes, ref } from './scale-down/format.js';
import { buildRoomIndex, type SimState, tryPlace, withInfos } from './scale-down/placement.js';
import { beingDeleted, caPodStart, caSnapshotPods, drainOptions, isReady, listers } from './scale-down/node-facts.js';
import { classifyPodForCa, podPriority } from './ca-pod-filter.js';
import { RemainingPdbTracker } from './drainability/pdb-tracker.js';
import type { DrainContext } from './drainability/types.js';
import { maxNodeStartupTimeMs, nodeReadinessState } from './node-groups.js';
import { buildClusterView } from './scheduler.js';

export type { BlockerDetail, Cooldown, NodeScaleDown, ScaleDownAnalysis } from './scale-down/types.js';

const cache = new WeakMap<Analysis, ScaleDownAnalysis>();

export function analyzeScaleDown(a: Analysis): ScaleDownAnalysis {
  let r = cache.get(a);
  if (!r) {
    r = compute(a);
    cache.set(a, r);
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// the planner: CA's stages in order (core/scaledown/planner/planner.go), each in scale-down/

/**
 * CA's snapshot as scale-down sees it: its pods (expendable ones apart), with the Pending pods and CapacityBuffer fake
 * pods that fit existing nodes placed on them, and the pods of each node by kind.
 */
function simulationSnapshot(a: Analysis): {
  state: SimState;
  podsOn: Map<string, Pod[]>;
  terminalOn: Map<string, Pod[]>;
  expendableOn: Map<string, Pod[]>;
  pendingNotes: Map<string, string[]>;
} {
  const ca = a.ca;
  const now = a.now;
  const { pods: snapshotPods, expendable } = caSnapshotPods(a);
  const view = buildClusterView({
    nodes: a.raw.nodes,
    pods: snapshotPods,
    pvcs: a.raw.pvcs,
    pvs: a.raw.pvs,
    storageClasses: a.raw.storageClasses,
    has: a.view.has,
  });
  const simInfos = [...view.nodeInfos];
  const simulated = {
    infos: simInfos,
    view: withInfos(view, simInfos),
    index: new Map(view.nodeInfos.map((ni, i) => [ni.node.metadata.name ?? '', i])),
    destinations: new Set(
      a.raw.nodes.filter((n) => !beingDeleted(n, now)).map((n) => n.metadata.name ?? ''),
    ),
    lastIndex: 0,
  };
  const state: SimState = { ...simulated, room: buildRoomIndex(simulated) };
  // CA: core/podlistprocessor/filter_out_schedulable.go places Pending pods that fit existing nodes in the snapshot
  // before scale-down looks at it, so they count on those nodes (utilization, drainability, room)
  const pendingNotes = new Map<string, string[]>();
  const pending = a.raw.pods
    .filter(
      (pod) =>
        !pod.spec?.nodeName &&
        !pod.status?.nominatedNodeName &&
        (pod.status?.phase ?? 'Pending') === 'Pending' &&
        classifyPodForCa(pod, ca, a.priorityClasses, now).kind === 'candidate',
    )
    // filterOutSchedulableByPacking: higher priority first
    .sort((x, y) => (podPriority(y, a.priorityClasses) ?? 0) - (podPriority(x, a.priorityClasses) ?? 0));
  for (const pod of pending) {
    const placed = tryPlace(a, state, '', [pod], { explain: false }); // why it fits nowhere is not reported
    if (!placed.ok) continue;
    const dest = placed.moves[0].destination;
    pendingNotes.set(dest, [
      ...(pendingNotes.get(dest) ?? []),
      `Pending pod ${ref(pod)} fits here: CA counts it on this node (filter_out_schedulable places it in its snapshot)`,
    ]);
  }
  // CapacityBuffer fake pods are injected into the same pending list (CA ≥ 1.34, --capacity-buffer-pod-injection-enabled;
  // processors/capacitybuffer/pod_list_processor.go) and packed onto existing nodes the same way: where they fit they
  // hold room, and count on the node as used capacity
  const buffers = gatheredList(a.raw, 'capacityBuffers') ?? [];
  if (buffers.length > 0) {
    const states = capacityBufferStates(buffers, {
      settings: capacityBufferCaSettings(ca),
      podTemplates: gatheredList(a.raw, 'podTemplates'),
      workloads: { deployments: a.raw.deployments, replicaSets: a.raw.replicaSets, statefulSets: a.raw.statefulSets, jobs: a.raw.jobs },
      events: a.raw.events,
    });
    for (const pod of states.flatMap((b) => b.fakePods)) {
      const placed = tryPlace(a, state, '', [pod], { explain: false }); // why it fits nowhere is not reported
      if (!placed.ok) continue;
      const dest = placed.moves[0].destination;
      pendingNotes.set(dest, [
        ...(pendingNotes.get(dest) ?? []),
        `CapacityBuffer ${bufferOfFakePod(pod) ?? '?'} holds room here with a fake pod (${ref(pod)}): CA counts it on this node`,
      ]);
    }
  }
  const podsOn = new Map<string, Pod[]>();
  for (const ni of state.infos) podsOn.set(ni.node.metadata.name ?? '', ni.pods);
  const terminalOn = new Map<string, Pod[]>();
  for (const p of a.raw.pods) {
    const n = p.spec?.nodeName;
    if (!n || !(p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed')) continue;
    terminalOn.set(n, [...(terminalOn.get(n) ?? []), p]);
  }
  const expendableOn = new Map<string, Pod[]>();
  for (const p of expendable) {
    const n = p.spec.nodeName ?? '';
    expendableOn.set(n, [...(expendableOn.get(n) ?? []), p]);
  }
  return { state, podsOn, terminalOn, expendableOn, pendingNotes };
}

function compute(a: Analysis): ScaleDownAnalysis {
  const ca = a.ca;
  const now = a.now;
  const notes: string[] = [];
  const pdbTracker = new RemainingPdbTracker(a.raw.pdbs as PodDisruptionBudget[]);
  const ctx: DrainContext = { now, options: drainOptions(ca), listers: listers(a), pdbs: pdbTracker };
  const initialPdbs = new RemainingPdbTracker(a.raw.pdbs as PodDisruptionBudget[]);
  const staticCtx: DrainContext = { ...ctx, pdbs: initialPdbs };

  // node -> group (discovered groups only; undiscovered ASGs leave their nodes NotAutoscaled)
  const groupOf = new Map<Node, NodeGroup>();
  for (const g of a.nodeGroupsResult.nodeGroups) for (const n of g.nodes) groupOf.set(n, g);
  const notAutoscaled = new Map(a.nodeGroupsResult.notAutoscaled.map((x) => [x.node, x]));
  const groupOptions = new Map<string, GroupScaleDownOptions>();
  for (const g of a.nodeGroupsResult.nodeGroups) groupOptions.set(g.name, a.provider.scaleDownOptions(g, ca));
  const defaults = a.provider.scaleDownOptions(undefined, ca);

  const { state, podsOn, terminalOn, expendableOn, pendingNotes } = simulationSnapshot(a);

  const caStart = caPodStart(a);
  const scaleDownEnabled = ca.flags.scaleDownEnabled.value;
  const statusUnhealthy =
    a.caStatus !== undefined && !a.caStatus.stale && !a.caStatus.unreadable && a.caStatus.clusterHealth === 'Unhealthy';
  // Without a readable status ConfigMap, count as CA does (clusterstate.go IsClusterHealthy over updateReadinessStats).
  const computedHealth = (a.caStatus === undefined || a.caStatus.unreadable) && ca.found ? clusterHealthFromNodes(a) : undefined;
  const clusterUnhealthy = statusUnhealthy || computedHealth?.unhealthy === true;
  const unhealthyDetail = statusUnhealthy
    ? "CA's status ConfigMap reports the cluster Unhealthy: CA skips scale-down"
    : (computedHealth?.detail ?? '');

  const work: Working[] = a.raw.nodes.map((node) => {
    const name = node.metadata.name ?? '';
    const group = groupOf.get(node);
    const entry: NodeScaleDown = {
      node,
      name,
      ...(group ? { group } : {}),
      blockers: [],
      simulated: false,
      report: {
        name,
        nodeGroup: group?.name ?? null,
        removable: false,
        caReason: null,
        verdict: 'blocked',
        summary: '',
        utilization: null,
        blockingPods: [],
        notBlocking: [],
        waits: [],
        notes: [],
      },
    };
    return { entry, waits: [], podsToReschedule: [], onCompletion: [], ready: isReady(node) };
  });

  // --- stage 1-3: pre-filter and eligibility, in CA's order; utilization for every autoscaled node
  eligibility(work, { ca, now, notAutoscaled, groupOptions, defaults, podsOn, pendingNotes });
  // --- stage 4: removal simulation for the candidates, in order, persisting successful ones
  simulateRemovals(a, work, { state, podsOn, terminalOn, expendableOn, ctx, staticCtx, pdbTracker });
  // --- stage 5: unneeded nodes (unneeded/nodes.go RemovableAt): empty nodes first, then those that need a drain
  unneededNodes(a, work, { groupOptions, defaults, caStart });
  // --- stage 6: loop gates and cooldowns delay every deletion
  const cds = cooldowns(a, caStart);
  loopGates(work, cds, { scaleDownEnabled, clusterUnhealthy, unhealthyDetail });
  verdicts(a, work, { groupOptions, defaults });

  const entries = work.map((w) => w.entry);
  const inScope = entries.filter((e) => a.nodeScope(e.node, e.group, a));
  const status = a.caStatus;
  if (status && !status.stale) {
    if (status.clusterScaleUp === 'InProgress')
      notes.push(
        "CA's status ConfigMap reports a scale-up in progress: no node is deleted until --scale-down-delay-after-add after it",
      );
    // the status ConfigMap is CA's own count of unneeded nodes per group: say where casdoctor disagrees
    for (const g of status.nodeGroups) {
      const found = entries.filter((e) => e.group?.name === g.name && e.report.removable).length;
      const theirs = g.scaleDownStatus === 'CandidatesPresent' ? (g.candidates ?? 0) : 0;
      if (g.scaleDownStatus === undefined || found === theirs || !inScope.some((e) => e.group?.name === g.name)) continue;
      notes.push(
        `node group ${g.name}: CA's status ConfigMap counts ${theirs} scale-down candidate(s), casdoctor finds ${found} removable; CA re-checks an unremovable node only every --unremovable-node-recheck-timeout (5m) and starts its timers from zero after a restart`,
      );
    }
  }
  return {
    nodes: entries,
    inScope,
    summary: summaryWhenCaCannotRun(a, summarize(inScope)),
    cooldowns: cds,
    ...(caStart ? { caStartedAt: caStart } : {}),
    scaleDownEnabled,
    clusterUnhealthy,
    pdbs: pdbTracker.pdbs,
    groupOptions,
    notes,
  };
}

/** Stage 6: the loop's gates (--scale-down-enabled, the cluster's health) and the cooldowns delay every deletion. */
function loopGates(
  work: Working[],
  cds: Cooldown[],
  { scaleDownEnabled, clusterUnhealthy, unhealthyDetail }: { scaleDownEnabled: boolean; clusterUnhealthy: boolean; unhealthyDetail: string },
): void {
  for (const w of work) {
    if (w.reason !== undefined) continue;
    if (!scaleDownEnabled)
      w.waits.push({ kind: 'loop-gate', detail: '--scale-down-enabled=false: CA never scales down' });
    if (clusterUnhealthy) w.waits.push({ kind: 'loop-gate', detail: unhealthyDetail });
    for (const c of cds) {
      if (c.group && c.group !== w.entry.group?.name) continue;
      w.waits.push({
        kind: 'cooldown',
        detail: `scale-down cooldown: ${c.flag}=${minutes(c.delayMs)} after the ${c.cause.replaceAll('-', ' ')} at ${c.at.toISOString()}`,
        leftSeconds: Math.ceil(c.leftMs / 1000),
      });
    }
  }
}

/** Each node's verdict and summary from the stage that kept it, or removable (now, or after its waits). */
function verdicts(
  a: Analysis,
  work: Working[],
  { groupOptions, defaults }: { groupOptions: Map<string, GroupScaleDownOptions>; defaults: GroupScaleDownOptions },
): void {
  for (const w of work) {
    const r = w.entry.report;
    r.waits = w.waits;
    if (w.reason !== undefined) {
      r.caReason = w.reason;
      r.removable = false;
      r.verdict = w.reason === 'NotUnneededLongEnough' || w.reason === 'NotUnreadyLongEnough' || w.reason === 'BlockedByOnCompletionPod' ? 'waiting' : 'blocked';
      r.summary = w.summary ?? w.reason;
      nodeVerdictWhenCaCannotRun(a, r);
      continue;
    }
    r.caReason = null;
    r.removable = true;
    const definite = w.waits.filter((x) => x.leftSeconds !== undefined || x.kind === 'loop-gate');
    r.verdict = definite.length ? 'waiting' : 'removable';
    const moved = w.podsToReschedule.length;
    r.summary =
      moved === 0
        ? 'empty as CA sees it (only DaemonSet, mirror or finished pods): CA can delete it'
        : `its ${moved} pod(s) fit on other nodes: CA can drain and delete it`;
    if (definite.length) r.summary += `, after ${definite.map((x) => x.detail).join('; ')}`;
    const opts = groupOptions.get(w.entry.group?.name ?? '') ?? defaults;
    if (!w.waits.some((x) => x.kind === 'unneeded-time' || x.kind === 'unready-time'))
      r.notes.push(
        `CA deletes it once it has been unneeded for ${minutes(w.ready ? opts.unneededTimeMs : opts.unreadyTimeMs)} (--scale-down-${w.ready ? 'unneeded' : 'unready'}-time); the snapshot does not show since when`,
      );
    // a CA that cannot run decides every verdict (src/simulate/ca-running.ts)
    nodeVerdictWhenCaCannotRun(a, r);
  }
}

/**
 * CA's cluster-wide health from the nodes: Unready nodes (not Ready for longer than the max node startup time; younger
 * ones are NotStarted and do not count) above both --ok-total-unready-count and --max-total-unready-percentage of all
 * nodes. CA: clusterstate/clusterstate.go IsClusterHealthy, updateReadinessStats.
 */
export function clusterHealthFromNodes(a: Analysis): { unhealthy: boolean; unready: number; total: number; detail: string } {
  const startupMs = maxNodeStartupTimeMs(a.ca);
  const total = a.raw.nodes.length;
  const unready = a.raw.nodes.filter((n) => nodeReadinessState(n, a.now, startupMs) === 'unready').length;
  const okCount = a.ca.flags.okTotalUnreadyCount.value;
  const pct = a.ca.flags.maxTotalUnreadyPercentage.value;
  const unhealthy = unready > okCount && unready > (pct / 100) * total;
  const startup = `${minutes(startupMs)}${a.ca.flags.maxNodeStartupTime.supported ? ' (--max-node-startup-time)' : ''}`;
  return {
    unhealthy,
    unready,
    total,
    detail: `${unready} of ${total} nodes are Unready (not Ready for over ${startup}), above --ok-total-unready-count=${okCount} and --max-total-unready-percentage=${pct}: CA finds the cluster unhealthy and skips scale-down (no status ConfigMap to confirm)`,
  };
}

const REASON_PHRASE: Array<[UnremovableReason, string]> = [
  ['NotAutoscaled', 'not autoscaled'],
  ['NodeGroupMinSizeReached', 'at min size'],
  ['CurrentlyBeingDeleted', 'being deleted'],
  ['ScaleDownDisabledAnnotation', 'scale-down disabled by annotation'],
  ['ScaleDownUnreadyDisabled', 'unready (unready scale-down disabled)'],
  ['UnexpectedError', 'not evaluable'],
  ['NotUnderutilized', 'not underutilized'],
  ['BlockedByPod', 'blocked by pods'],
  ['NoPlaceToMovePods', 'no place to move pods'],
  ['NotUnneededLongEnough', 'waiting for the unneeded timer'],
  ['NotUnreadyLongEnough', 'waiting for the unready timer'],
  ['MinimalResourceLimitExceeded', 'held by cluster minimums'],
  ['BlockedByOnCompletionPod', 'waiting for on-completion pods'],
];

/** "7 of 12 nodes could be removed now; 3 blocked by pods: 2 LocalStorageRequested, 1 NotEnoughPdb; 2 at min size". */
export function summarize(nodes: readonly NodeScaleDown[]): string {
  const now = nodes.filter((n) => n.report.verdict === 'removable').length;
  const parts = [`${now} of ${nodes.length} node${nodes.length === 1 ? '' : 's'} could be removed now`];
  const later = nodes.filter((n) => n.report.removable && n.report.verdict === 'waiting').length;
  if (later) parts.push(`${later} removable after a cooldown or gate`);
  for (const [reason, phrase] of REASON_PHRASE) {
    const hit = nodes.filter((n) => n.report.caReason === reason);
    if (hit.length === 0) continue;
    if (reason === 'BlockedByPod') {
      const counts = new Map<string, number>();
      for (const n of hit) {
        const r = n.blockers[0]?.reason ?? 'UnexpectedError';
        counts.set(r, (counts.get(r) ?? 0) + 1);
      }
      const detail = [...counts]
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .map(([r, c]) => `${c} ${r}`)
        .join(', ');
      parts.push(`${hit.length} ${phrase}: ${detail}`);
    } else parts.push(`${hit.length} ${phrase}`);
  }
  return parts.join('; ');
}
