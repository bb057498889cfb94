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
import type { Node, Pod, PodDisruptionBudget, ReplicaSet } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import { gatheredList } from '../model/snapshot.js';
import { formatResource } from '../model/quantity.js';
import type { BlockingPodReport, GroupScaleDownOptions, NodeUtilization, NodeWait, NotBlockingPod, UnremovableReason } from '../model/scale-down.js';
import type { Analysis } from './analysis.js';
import type { BlockerDetail, NodeScaleDown, ScaleDownAnalysis } from './scale-down/types.js';
import { cooldowns } from './scale-down/cooldowns.js';
import { minutes, pct, ref, round4 } from './scale-down/format.js';
import { buildRoomIndex, removeDestination, type SimState, simulatedMoveOf, tryPlace, withInfos } from './scale-down/placement.js';
import { beingDeleted, caPodStart, caSnapshotPods, drainOptions, isReady, listers, taintTime } from './scale-down/node-facts.js';
import { classifyPodForCa, podPriority } from './ca-pod-filter.js';
import { RemainingPdbTracker } from './drainability/pdb-tracker.js';
import { blockingLocalVolumes, controllerRef, isDaemonSetPod, safeToEvictLocalVolumes } from './drainability/pod-util.js';
import { replicaCountUnknown } from './drainability/replica-count.js';
import { defaultRules, drainable, type RuleVerdict } from './drainability/rules.js';
import { systemPodBlocksUntil } from './drainability/system.js';
import type { DrainContext } from './drainability/types.js';
import { maxNodeStartupTimeMs, nodeReadinessState } from './node-groups.js';
import { parseResourceList } from './resources.js';
import { buildClusterView } from './scheduler.js';
import { DELETION_CANDIDATE_TAINT, TO_BE_DELETED_TAINT } from './template-node.js';
import { calculateUtilization, nodeGpuResource } from './utilization.js';

export const SCALE_DOWN_DISABLED_ANNOTATION = 'cluster-autoscaler.kubernetes.io/scale-down-disabled';

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
// what CA may decide either way

/**
 * The parts of a blocked verdict that the real CA decides differently from run to run: which blocking pod it names
 * (GetPodsToMove stops at the first in its snapshot's pod order, which follows informer order), whether a PDB's budget
 * is already spent (RemainingPdbTracker: nodes simulated earlier in the loop consume it, in an order that varies), and
 * whether a pod moved here by an earlier simulation lands here at all (the scheduler simulation's destination choice).
 * CA: simulator/drain.go GetPodsToMove, core/scaledown/pdb/basic.go, core/scaledown/planner/planner.go.
 */
function orderDependence(blockers: BlockerDetail[]): string[] {
  const out: string[] = [];
  const first = blockers[0];
  if (!first) return out;
  if (blockers.length > 1) {
    const names = blockers.map((b) => `${ref(b.pod)} (${b.reason})`);
    out.push(
      `${blockers.length} pods block the node; CA names whichever comes first in its snapshot, which varies between runs: ${names.join(', ')}`,
    );
  }
  if (first.reason === 'NotEnoughPdb') {
    for (const p of first.pdbs ?? []) {
      if (p.initial < 1 || p.consumedBy.length === 0) continue;
      const by = p.consumedBy.map((c) => c.node).join(', ');
      out.push(
        `PDB ${p.pdb.metadata.namespace ?? 'default'}/${p.pdb.metadata.name ?? ''} allows ${p.initial} disruption(s); nodes simulated earlier in this loop used it (${by}). CA's order varies, so in a loop that simulates this node first it can be removable and ${by} get NotEnoughPdb instead`,
      );
    }
  }
  const from = simulatedMoveOf(first.pod);
  if (from) {
    out.push(
      `${ref(first.pod)} is here only because the simulation of ${from} moved it here; CA may place it on another node, leaving this one removable`,
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// the pipeline

interface Working {
  entry: NodeScaleDown;
  reason?: UnremovableReason;
  summary?: string;
  waits: NodeWait[];
  podsToReschedule: Pod[];
  onCompletion: Pod[];
  ready: boolean;
}

/** Rule verdict for every pod on the node, plus the pods that do not block and why. */
function judgePods(
  ctx: DrainContext,
  pods: readonly Pod[],
): { verdicts: Array<{ pod: Pod; v: RuleVerdict }>; blockers: BlockerDetail[]; notBlocking: NotBlockingPod[]; notes: string[] } {
  const rules = defaultRules(ctx.options);
  const verdicts = pods.map((pod) => ({ pod, v: drainable(rules, ctx, pod) }));
  const blockers: BlockerDetail[] = [];
  const notBlocking: NotBlockingPod[] = [];
  const notes: string[] = [];
  for (const { pod, v } of verdicts) {
    const ns = pod.metadata.namespace ?? 'default';
    const name = pod.metadata.name ?? '';
    if (v.outcome === 'BlockDrain' && v.reason) {
      const d: BlockerDetail = {
        pod,
        reason: v.reason,
        message: v.message ?? '',
        rule: v.rule ?? '',
        first: blockers.length === 0,
      };
      if (v.reason === 'LocalStorageRequested') d.localVolumes = blockingLocalVolumes(pod).map((x) => x.name);
      if (v.reason === 'NotEnoughPdb') d.pdbs = ctx.pdbs.matching(pod).filter((p) => p.remaining < 1);
      if (['ControllerNotFound', 'MinReplicasReached', 'NotReplicated'].includes(v.reason)) {
        const c = controllerRef(pod);
        if (c) d.controller = c;
      }
      if (v.reason === 'MinReplicasReached') {
        const c = controllerRef(pod);
        const lister = c?.kind === 'ReplicationController' ? ctx.listers?.replicationControllers : ctx.listers?.replicaSets;
        const rs = c ? (lister?.get(`${ns}/${c.name}`) as ReplicaSet | undefined) : undefined;
        if (rs?.spec?.replicas !== undefined) d.replicas = rs.spec.replicas;
      }
      if (v.reason === 'UnmovableKubeSystemPod') {
        const until = systemPodBlocksUntil(ctx, pod);
        if (until) d.blocksUntil = until;
        else if (ctx.options.minor < 33) {
          const created = Date.parse(pod.metadata.creationTimestamp ?? '');
          if (Number.isFinite(created)) d.wouldStopBlockingOn133 = new Date(created + 3_600_000);
        }
      }
      blockers.push(d);
      continue;
    }
    const unknown = replicaCountUnknown(ctx, pod);
    if (unknown) notes.push(`${ns}/${name}: ${unknown}`);
    if (v.rule === 'Mirror') notBlocking.push({ namespace: ns, name, kind: 'Mirror', detail: v.message ?? '' });
    else if (v.rule === 'LongTerminating')
      notBlocking.push({ namespace: ns, name, kind: 'LongTerminating', detail: v.message ?? '' });
    else if (v.rule === 'DaemonSet')
      notBlocking.push({ namespace: ns, name, kind: 'DaemonSet', detail: v.message ?? '' });
    else if (v.rule === 'SafeToEvict')
      notBlocking.push({ namespace: ns, name, kind: 'SafeToEvict', detail: v.message ?? '' });
    else if (v.rule === 'System')
      notBlocking.push({ namespace: ns, name, kind: 'KubeSystemPastTimeout', detail: v.message ?? '' });
    else if (v.rule === 'Terminal')
      notBlocking.push({ namespace: ns, name, kind: 'Completed', detail: v.message ?? '' });
    if (v.outcome === 'Undefined' || v.rule === 'SafeToEvict' || v.rule === 'System') {
      const vols = pod.spec.volumes ?? [];
      const memory = vols.filter((x) => x.emptyDir && x.emptyDir.medium === 'Memory').map((x) => x.name);
      if (memory.length)
        notBlocking.push({
          namespace: ns,
          name,
          kind: 'MemoryEmptyDir',
          detail: `emptyDir with medium Memory (${memory.join(', ')}) is not local storage to CA`,
          volumes: memory,
        });
      const named = safeToEvictLocalVolumes(pod);
      const covered = vols.filter((x) => (x.hostPath || (x.emptyDir && x.emptyDir.medium !== 'Memory')) && named.has(x.name));
      if (covered.length)
        notBlocking.push({
          namespace: ns,
          name,
          kind: 'LocalVolumesAnnotated',
          detail: `local volume(s) ${covered.map((x) => x.name).join(', ')} named in safe-to-evict-local-volumes`,
          volumes: covered.map((x) => x.name),
        });
    }
  }
  return { verdicts, blockers, notBlocking, notes };
}

function toBlockingReport(b: BlockerDetail): BlockingPodReport {
  const from = simulatedMoveOf(b.pod);
  return {
    namespace: b.pod.metadata.namespace ?? 'default',
    name: b.pod.metadata.name ?? '',
    caReason: b.reason,
    message: b.message,
    rule: b.rule,
    first: b.first,
    ...(from ? { movedFrom: from } : {}),
  };
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
  for (const w of work) {
    const { node, name } = w.entry;
    const na = notAutoscaled.get(node);
    const group = na ? undefined : w.entry.group;
    const report = w.entry.report;
    const pods = podsOn.get(name) ?? [];
    const opts = group ? (groupOptions.get(group.name) ?? defaults) : defaults;
    if (na || !group) {
      w.reason = 'NotAutoscaled';
      w.summary = na ? na.reason : 'the node belongs to no node group';
      if (na?.asgName) report.nodeGroup = na.asgName;
      continue;
    }
    for (const p of opts.problems) report.notes.push(p);
    report.notes.push(...(pendingNotes.get(name) ?? []));
    if (group.targetSize <= group.minSize) {
      w.reason = 'NodeGroupMinSizeReached';
      w.summary = `node group ${group.name} is at its min size (desired ${group.targetSize}, min ${group.minSize}${group.via === 'nodes-flag' ? ' from --nodes' : ''})`;
      continue;
    }
    if (beingDeleted(node, now)) {
      w.reason = 'CurrentlyBeingDeleted';
      w.summary = `CA is deleting the node (${TO_BE_DELETED_TAINT} taint)`;
      continue;
    }
    if (node.metadata.annotations?.[SCALE_DOWN_DISABLED_ANNOTATION] === 'true') {
      w.reason = 'ScaleDownDisabledAnnotation';
      w.summary = `annotation ${SCALE_DOWN_DISABLED_ANNOTATION}: "true"`;
      continue;
    }
    const u = calculateUtilization(node, pods, {
      ignoreDaemonSets: opts.ignoreDaemonSetsUtilization,
      ignoreMirrorPods: ca.flags.ignoreMirrorPodsUtilization.value,
      now,
    });
    const gpu = nodeGpuResource(node) !== undefined;
    const threshold = gpu ? opts.gpuThreshold : opts.threshold;
    const util: NodeUtilization = {
      cpu: round4(u.cpu),
      memory: round4(u.memory),
      ...(u.gpu !== undefined ? { gpu: round4(u.gpu) } : {}),
      value: round4(u.value),
      resource: u.resource,
      threshold,
      thresholdSource: gpu ? opts.gpuThresholdSource : opts.thresholdSource,
      ignoredDaemonSets: opts.ignoreDaemonSetsUtilization,
      ignoredMirrorPods: ca.flags.ignoreMirrorPodsUtilization.value,
    };
    report.utilization = util;
    if (u.unreadyGpu) report.notes.push(`${u.resource} is missing or 0 in allocatable: CA counts the GPU node as 0% utilized`);
    if (u.error) {
      w.reason = 'UnexpectedError';
      w.summary = `CA cannot compute utilization: ${u.error}`;
      continue;
    }
    if (!ca.flags.scaleDownUnreadyEnabled.value && !w.ready) {
      w.reason = 'ScaleDownUnreadyDisabled';
      w.summary = 'the node is not Ready and --scale-down-unready-enabled=false';
      continue;
    }
    // CA compares utilization > threshold since kubernetes/autoscaler#8975 (cherry-picked to 1.32+ patches);
    // older releases used >=, so equality was "not underutilized" there.
    const over = ca.version.minor <= 31 ? u.value >= threshold : u.value > threshold;
    if (over) {
      w.reason = 'NotUnderutilized';
      w.summary = `${u.resource} requested is ${pct(u.value)} of allocatable, above the ${pct(threshold)} threshold${util.thresholdSource === 'asg-tag' ? ' (ASG tag)' : util.thresholdSource === 'provider' ? " (the provider's autoscalingOptions)" : ''}`;
    }
  }

  // --- stage 4: removal simulation for the candidates, in order, persisting successful ones
  for (const w of work) {
    const { name } = w.entry;
    const candidate = w.reason === undefined;
    // a candidate is judged on the snapshot as earlier simulations left it (pods moved here included)
    const at = state.index.get(name);
    const pods = candidate && at !== undefined ? state.infos[at].pods : (podsOn.get(name) ?? []);
    const judged = judgePods(candidate ? ctx : staticCtx, pods);
    w.entry.blockers = judged.blockers;
    const report = w.entry.report;
    report.blockingPods = judged.blockers.map(toBlockingReport);
    report.notBlocking = [
      ...judged.notBlocking,
      ...(terminalOn.get(name) ?? []).map(
        (p): NotBlockingPod => ({
          namespace: p.metadata.namespace ?? 'default',
          name: p.metadata.name ?? '',
          kind: 'Completed',
          detail: `phase ${p.status?.phase}: not in CA's snapshot (it lists only pods that are not Succeeded/Failed)`,
        }),
      ),
      ...(expendableOn.get(name) ?? []).map(
        (p): NotBlockingPod => ({
          namespace: p.metadata.namespace ?? 'default',
          name: p.metadata.name ?? '',
          kind: 'Expendable',
          detail: `priority ${podPriority(p, a.priorityClasses)} < --expendable-pods-priority-cutoff=${ca.flags.expendablePodsPriorityCutoff.value}: CA ignores it`,
        }),
      ),
    ];
    report.notes.push(...judged.notes);
    if (!candidate) continue;
    w.entry.simulated = true;
    const either = orderDependence(judged.blockers);
    if (either.length) report.caMayDecideEither = either;
    const first = judged.blockers[0];
    if (first) {
      w.reason = 'BlockedByPod';
      w.summary = `${first.reason}: ${first.message}`;
      continue;
    }
    const toMove: Pod[] = [];
    for (const { pod, v } of judged.verdicts) {
      if (v.outcome === 'SkipDrain' || isDaemonSetPod(pod)) continue;
      if (v.outcome === 'WaitForCompletion') {
        w.onCompletion.push(pod);
        continue;
      }
      toMove.push(pod);
    }
    const placed = tryPlace(a, state, name, toMove, { explain: true });
    if (!placed.ok) {
      w.reason = 'NoPlaceToMovePods';
      w.summary = `pod ${ref(placed.pod)} fits no other node: ${placed.message}`;
      w.entry.unplaceablePod = placed.pod;
      const from = simulatedMoveOf(placed.pod);
      report.unplaceable = {
        namespace: placed.pod.metadata.namespace ?? 'default',
        name: placed.pod.metadata.name ?? '',
        ...(from ? { movedFrom: from } : {}),
        message: placed.message,
      };
      continue;
    }
    removeDestination(state, name);
    if (!pdbTracker.canRemoveInParallel(toMove))
      report.notes.push('PDBs do not allow evicting all its pods at once: CA marks it risky and deletes it last');
    pdbTracker.removePods(name, toMove);
    w.podsToReschedule = toMove;
    report.podsToMove = placed.moves;
  }

  // the other side of each PDB race (core/scaledown/pdb/basic.go RemainingPdbTracker, planner order): the node whose
  // simulation spent the budget first is removable only in this order, so it carries the statement too
  const byName = new Map(work.map((w) => [w.entry.name, w]));
  for (const w of work) {
    const first = w.entry.blockers[0];
    if (!w.entry.simulated || first?.reason !== 'NotEnoughPdb') continue;
    for (const p of first.pdbs ?? []) {
      if (p.initial < 1) continue;
      for (const c of p.consumedBy) {
        const other = byName.get(c.node)?.entry.report;
        if (!other) continue;
        const line = `PDB ${p.pdb.metadata.namespace ?? 'default'}/${p.pdb.metadata.name ?? ''} allows ${p.initial} disruption(s), which this node's pods used first in this loop; CA's order varies, so in a loop that simulates ${w.entry.name} first, that node can be removable and this one get NotEnoughPdb instead`;
        if (!(other.caMayDecideEither ?? []).includes(line)) other.caMayDecideEither = [...(other.caMayDecideEither ?? []), line];
      }
    }
  }

  // --- stage 5: unneeded nodes (unneeded/nodes.go RemovableAt): empty nodes first, then those that need a drain
  const sizeLeft = new Map<string, number>();
  for (const g of a.nodeGroupsResult.nodeGroups) {
    const deleting = g.nodes.filter((n) => beingDeleted(n, now)).length;
    sizeLeft.set(g.name, g.targetSize - deleting);
  }
  const limits = limitsLeft(a, now);
  const removable = work.filter((w) => w.reason === undefined);
  const ordered = [...removable.filter((w) => w.podsToReschedule.length === 0), ...removable.filter((w) => w.podsToReschedule.length > 0)];
  for (const w of ordered) {
    const group = w.entry.group!;
    const opts = groupOptions.get(group.name) ?? defaults;
    const timer = unneededTimer(w, opts, caStart, now);
    if (timer?.certain) {
      w.reason = w.ready ? 'NotUnneededLongEnough' : 'NotUnreadyLongEnough';
      w.summary = timer.wait.detail;
      w.waits.push(timer.wait);
      continue;
    }
    if (timer) w.waits.push(timer.wait);
    const size = sizeLeft.get(group.name) ?? group.targetSize;
    if (size <= group.minSize) {
      w.reason = 'NodeGroupMinSizeReached';
      w.summary = `removing it would take ${group.name} below its min size ${group.minSize} (other nodes of the group go first)`;
      continue;
    }
    const delta = nodeCoresAndMemory(w.entry.node);
    const exceeded: string[] = [];
    if (limits.cores !== undefined && delta.cores > limits.cores) exceeded.push('cpu');
    if (limits.memory !== undefined && delta.memory > limits.memory) exceeded.push('memory');
    if (exceeded.length) {
      w.reason = 'MinimalResourceLimitExceeded';
      w.summary = `removing it would take the cluster below --${exceeded.map((r) => (r === 'cpu' ? 'cores' : 'memory')).join('/--')}-total minimum (${describeLimits(a, limits)})`;
      continue;
    }
    if (limits.cores !== undefined) limits.cores -= delta.cores;
    if (limits.memory !== undefined) limits.memory -= delta.memory;
    sizeLeft.set(group.name, size - 1);
    if (w.onCompletion.length) {
      w.reason = 'BlockedByOnCompletionPod';
      w.summary = `waits for ${w.onCompletion.map(ref).join(', ')} to finish (safe-to-evict: "on-completion")`;
      w.waits.push({ kind: 'on-completion', detail: w.summary });
    }
  }

  // --- stage 6: loop gates and cooldowns delay every deletion
  const cds = cooldowns(a, caStart);
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

  // --- verdicts
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

/** The unneeded timer where the data bounds it: CA's in-memory timers restart with the CA pod; the soft taint dates marking. */
function unneededTimer(
  w: Working,
  opts: GroupScaleDownOptions,
  caStart: Date | undefined,
  now: Date,
): { certain: boolean; wait: NodeWait } | undefined {
  const needMs = w.ready ? opts.unneededTimeMs : opts.unreadyTimeMs;
  const flag = w.ready ? 'scale-down-unneeded-time' : 'scale-down-unready-time';
  const kind = w.ready ? 'unneeded-time' : 'unready-time';
  const marked = taintTime(w.entry.node, DELETION_CANDIDATE_TAINT);
  const candidates = [caStart, marked ?? undefined].filter((d): d is Date => d instanceof Date);
  if (candidates.length === 0) return undefined;
  const since = new Date(Math.max(...candidates.map((d) => d.getTime())));
  const left = since.getTime() + needMs - now.getTime();
  const src =
    marked instanceof Date && marked.getTime() === since.getTime()
      ? `marked ${DELETION_CANDIDATE_TAINT} at ${since.toISOString()}`
      : `CA (re)started at ${since.toISOString()} and keeps its timers in memory`;
  // CA deletes only when since + unneededTime is strictly before now (unneeded/nodes.go)
  if (left >= 0) {
    return {
      certain: true,
      wait: {
        kind,
        detail: `unneeded for less than --${flag}=${minutes(needMs)} (${src}): ${minutes(Math.max(left, 1))} left`,
        leftSeconds: Math.ceil(left / 1000),
      },
    };
  }
  return undefined;
}

/** core_utils.GetNodeCoresAndMemory: capacity, cores rounded up, memory in bytes. */
function nodeCoresAndMemory(node: Node): { cores: number; memory: number } {
  const cap = parseResourceList(node.status?.capacity);
  return { cores: Math.ceil((cap.cpu ?? 0) / 1000), memory: cap.memory ?? 0 };
}

/** resource/limits.go LimitsLeft: how much may still be removed above --cores-total / --memory-total minimums. */
function limitsLeft(a: Analysis, now: Date): { cores?: number; memory?: number; totalCores: number; totalMemory: number } {
  let totalCores = 0;
  let totalMemory = 0;
  for (const n of a.raw.nodes) {
    if (beingDeleted(n, now)) continue;
    const r = nodeCoresAndMemory(n);
    totalCores += r.cores;
    totalMemory += r.memory;
  }
  const minCores = a.ca.flags.coresTotal.value.min;
  const minMemory = a.ca.flags.memoryTotal.value.min * 1024 ** 3;
  return {
    ...(minCores > 0 ? { cores: Math.max(0, totalCores - minCores) } : {}),
    ...(minMemory > 0 ? { memory: Math.max(0, totalMemory - minMemory) } : {}),
    totalCores,
    totalMemory,
  };
}

function describeLimits(a: Analysis, l: { totalCores: number; totalMemory: number }): string {
  const c = a.ca.flags.coresTotal.value.min;
  const m = a.ca.flags.memoryTotal.value.min;
  return `cluster has ${l.totalCores} cores / ${formatResource('memory', l.totalMemory)}; minimums ${c} cores / ${m}Gi`;
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
