// Scale-down stage 4: the removal simulation, node after node in CA's order, persisting the successful ones: the drain
// rules judge every pod (simulator/drain.go GetPodsToMove, drainability/rules), the pods to move must each find a node
// (placement.ts), and PDB budgets are spent across nodes (core/scaledown/pdb/basic.go RemainingPdbTracker).
import type { Pod, ReplicaSet } from '../../model/k8s.js';
import type { BlockingPodReport, NotBlockingPod } from '../../model/scale-down.js';
import type { Analysis } from '../analysis.js';
import { podPriority } from '../ca-pod-filter.js';
import type { RemainingPdbTracker } from '../drainability/pdb-tracker.js';
import { blockingLocalVolumes, controllerRef, isDaemonSetPod, safeToEvictLocalVolumes } from '../drainability/pod-util.js';
import { replicaCountUnknown } from '../drainability/replica-count.js';
import { defaultRules, drainable, type RuleVerdict } from '../drainability/rules.js';
import { systemPodBlocksUntil } from '../drainability/system.js';
import type { DrainContext } from '../drainability/types.js';
import { ref } from './format.js';
import { buildRoomIndex, removeDestination, type SimState, simulatedMoveOf, tryPlace, withInfos } from './placement.js';
import { type EarlierRemoval, noPlaceRace } from '../scale-down-race.js';
import type { BlockerDetail, Working } from './types.js';

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

/** Stage 4: removal simulation for the candidates, in order, persisting successful ones. */
export function simulateRemovals(
  a: Analysis,
  work: Working[],
  { state, podsOn, terminalOn, expendableOn, ctx, staticCtx, pdbTracker }: {
    state: SimState;
    podsOn: Map<string, Pod[]>;
    terminalOn: Map<string, Pod[]>;
    expendableOn: Map<string, Pod[]>;
    ctx: DrainContext;
    staticCtx: DrainContext;
    pdbTracker: RemainingPdbTracker;
  },
): void {
  const ca = a.ca;
  const before = { infos: [...state.infos], destinations: new Set(state.destinations) }; // for the races (scale-down-race.ts)
  const earlier: EarlierRemoval[] = [];
  const races: Array<[node: string, line: string]> = [];
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
      const race = noPlaceRace(name, earlier, (gone) => {
        const infos = [...before.infos];
        const s = { ...state, infos, view: withInfos(state.view, infos), destinations: new Set([...before.destinations].filter((d) => !gone.has(d))), lastIndex: 0 };
        const own = new Set(at === undefined ? [] : before.infos[at].pods); // not pods earlier simulations moved here
        const p = tryPlace(a, { ...s, room: buildRoomIndex(s) }, name, toMove.filter((x) => own.has(x)), { explain: false });
        return p.ok ? p.moves.map((m) => m.destination) : undefined;
      });
      if (race) races.push([name, race.here], ...race.others);
      continue;
    }
    earlier.push({ name, movedTo: placed.moves.map((m) => m.destination), empty: toMove.length === 0 });
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
  for (const [node, line] of races) {
    const r = byName.get(node)?.entry.report;
    if (r && !(r.caMayDecideEither ?? []).includes(line)) r.caMayDecideEither = [...(r.caMayDecideEither ?? []), line];
  }
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
}
