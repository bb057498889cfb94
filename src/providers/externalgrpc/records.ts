// The provider's instance records as CA's loop changes them over time (item 6 of issue 24 for CA): "nodes that will
// never arrive" must not read "CA scales up". Pure over the records, CA's version, its events and --now.
//
// - An instance CA sees as creating that has not registered within MaxNodeProvisionTime is long-unregistered: CA calls
//   DeleteNodes on it (static_autoscaler.go removeOldUnregisteredNodes, 1.32.7:753-800); the provider marks the record
//   PendingDeletion, lowers the target and runs before_delete_hook.sh over SSH (node_group.go:915-961, 2031-2056
//   @f792442). A hook that fails leaves the record PendingDeletion/Failed and the VM running: never retried (l.1642).
// - A target above registered + unregistered for MaxNodeProvisionTime is decreased (fixNodeGroupSize,
//   static_autoscaler.go:723-749@cluster-autoscaler-1.32.7): the provider drops Pending records, failed creates
//   included (instance.go:109-133), never below min size (ca-running.ts says what that does).
// - The scale-up times out at ExpectedAddTime = scale-up + MaxNodeProvisionTime (clusterstate.go:207-243,277-300
//   @1.32.7): ScaleUpTimedOut and the group backed off. The backoff is per group id: --initial-node-group-backoff-duration
//   (5m), doubled when the group fails again after its backoff ended, up to --max-node-group-backoff-duration (30m);
//   forgotten --node-group-backoff-reset-timeout (3h) after the last failure (utils/backoff/exponential_backoff.go:70-122
//   @1.32.7). CA 1.28 also forgets it when a scale-up of the group completes (clusterstate.go:255-262@1.28.4).
// CA 1.27-1.28 read MaxNodeProvisionTime as 0 from this provider (externalgrpc_node_group.go:276-281@1.28.4): every
// scale-up times out at the next loop and every new instance is deleted about one loop after CA lists it, so no node
// ever comes; CA cycles through backoff and new scale-ups.
import type { CaConfig } from '../../model/ca-config.js';
import type { GrpcInstance } from '../../model/externalgrpc.js';
import type { KubeEvent } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import { eventTime, parseTriggeredScaleUp } from '../../simulate/ca-events.js';
import { caDefaults, caInstanceView, countedInTargetSize } from './groups.js';
import { grpcOptionsAsCaSees } from './options.js';

/** Where the group's scale-up stands at --now. */
export type UpcomingPhase =
  /** CA still waits for the nodes (until giveUpAt). */
  | 'waiting'
  /** CA gave up, backed the group off, and skips it until backoffUntil. */
  | 'backing-off'
  /** The backoff ended: CA scales the group up again (retryAt) and waits for the new nodes. */
  | 'retrying';

export interface UpcomingFate {
  /** Records the target counts that will never become a node: failed creates, failed joins. */
  dead: GrpcInstance[];
  /** When CA gives up on them first (the scale-up's timeout). */
  giveUpAt?: Date;
  provisionTimeMs: number;
  /** CA has given up on them by --now. */
  given: boolean;
  phase: UpcomingPhase;
  /** The group's failed scale-ups by --now (1 = the first timeout); later ones assume the same failure repeats. */
  failures: number;
  backoffUntil?: Date;
  backoffMs?: number;
  retryAt?: Date;
  /** CA of this version deletes every new instance before it can join: no node will ever come (1.27/1.28). */
  nothingWillCome: boolean;
  /** The first timeout is CA's own ScaleUpTimedOut event (not computed from the scale-up time). */
  observed: boolean;
  summary: string;
}

function minutes(ms: number): string {
  const m = ms / 60_000;
  return Number.isInteger(m) ? `${m}m` : `${Math.round(ms / 1000)}s`;
}
const iso = (d: Date): string => d.toISOString();

/** CA's scale-ups and timeouts of one group, from its events (ScaledUpGroup on the status ConfigMap, TriggeredScaleUp). */
export interface GroupScaleEvents {
  scaleUps: Date[];
  timeouts: Date[];
}

const SCALED_UP = /^Scale-up: setting group (\S+) size to \d+/;
const TIMED_OUT = /^Nodes added to group (\S+) failed to register within /;
const eventCache = new WeakMap<KubeEvent[], Map<string, GroupScaleEvents>>();

export function groupScaleEvents(events: KubeEvent[], group: string): GroupScaleEvents {
  let byGroup = eventCache.get(events);
  if (!byGroup) {
    byGroup = new Map();
    const at = (g: string) => {
      let e = byGroup!.get(g);
      if (!e) byGroup!.set(g, (e = { scaleUps: [], timeouts: [] }));
      return e;
    };
    for (const ev of events) {
      const t = eventTime(ev);
      if (!t) continue;
      const msg = ev.message ?? '';
      if (ev.reason === 'ScaledUpGroup') {
        const m = SCALED_UP.exec(msg);
        if (m) at(m[1]).scaleUps.push(t);
      } else if (ev.reason === 'TriggeredScaleUp') {
        for (const c of parseTriggeredScaleUp(msg)) at(c.group).scaleUps.push(t);
      } else if (ev.reason === 'ScaleUpTimedOut') {
        const m = TIMED_OUT.exec(msg);
        if (m) at(m[1]).timeouts.push(t);
      }
    }
    eventCache.set(events, byGroup);
  }
  return byGroup.get(group) ?? { scaleUps: [], timeouts: [] };
}

export interface BackoffFlags {
  initialMs: number;
  maxMs: number;
  resetMs: number;
  loopMs: number;
}

export function backoffFlags(ca: CaConfig): BackoffFlags {
  return {
    initialMs: ca.flags.initialNodeGroupBackoffDuration.value,
    maxMs: ca.flags.maxNodeGroupBackoffDuration.value,
    resetMs: ca.flags.nodeGroupBackoffResetTimeout.value,
    loopMs: ca.flags.scanInterval.value,
  };
}

export interface BackoffStep {
  phase: 'waiting' | 'backing-off' | 'retrying';
  failures: number;
  backoffUntil?: Date;
  backoffMs?: number;
  retryAt?: Date;
  /** When the scale-up in flight at --now times out ('waiting', 'retrying'). */
  nextTimeout?: Date;
}

/**
 * CA's cycle for a group whose scale-ups keep failing: the first timeout at `firstFailure`, a backoff, a new scale-up at
 * its next loop after the backoff ends, a timeout MaxNodeProvisionTime (and one loop) later, a doubled backoff, ...
 * (exponential_backoff.go Backoff: the duration doubles only when the group was not in backoff at the new failure).
 */
export function backoffCycle(firstFailure: Date, provisionMs: number, f: BackoffFlags, now: Date): BackoffStep {
  const t = now.getTime();
  let fail = firstFailure.getTime();
  if (t < fail) return { phase: 'waiting', failures: 0, nextTimeout: firstFailure };
  let duration = f.initialMs;
  for (let k = 1; k < 10_000; k++) {
    const until = fail + duration;
    if (t < until) return { phase: 'backing-off', failures: k, backoffUntil: new Date(until), backoffMs: duration };
    const retry = until + f.loopMs;
    const next = retry + provisionMs + f.loopMs;
    if (t < next) return { phase: 'retrying', failures: k, retryAt: new Date(retry), nextTimeout: new Date(next) };
    // RemoveStaleBackoffData runs before the next failure: a gap over the reset timeout starts again at the initial value
    duration = next - fail > f.resetMs ? f.initialMs : Math.min(2 * duration, f.maxMs);
    fail = next;
  }
  return { phase: 'backing-off', failures: 10_000 };
}

/** Records of the group the target counts beyond its registered nodes. */
function upcomingRecords(group: NodeGroup & { provider: 'externalgrpc' }): GrpcInstance[] {
  const nodeIds = new Set(group.nodes.map((n) => n.spec?.providerID).filter((p): p is string => !!p));
  const nodeNames = new Set(group.nodes.map((n) => n.metadata.name ?? ''));
  return group.grpc.instances.filter(
    (i) => countedInTargetSize(i) && i.stage !== 'Running' && !(i.providerID && nodeIds.has(i.providerID)) && !(i.name && nodeNames.has(i.name)),
  );
}

/**
 * For an externalgrpc group CA counts upcoming nodes in: undefined when some of them may still come (a create or join
 * in flight, on a CA that waits for them), else where CA's loop leaves the group at `now`: still waiting, backing off
 * until a time, or scaling up again; and on CA 1.27/1.28 that no node will come at all.
 */
export function grpcUpcomingFate(
  group: NodeGroup,
  ca: CaConfig,
  now: Date,
  events: KubeEvent[] = [],
  opts: { caStopped?: boolean } = {},
): UpcomingFate | undefined {
  if (group.provider !== 'externalgrpc') return undefined;
  const spec = group.grpc;
  const waiting = upcomingRecords(group);
  if (waiting.length === 0) return undefined;
  const seen = grpcOptionsAsCaSees(spec, ca.version.minor, caDefaults(ca), spec.servedBy?.schemaEra ?? 'pre-1.35');
  if (seen.panics) return undefined; // CA is not running at all (ca-running.ts)
  const mpt = seen.values.maxNodeProvisionTimeMs;
  const nothingWillCome = mpt === 0;
  // a record the provider still works on (Init, InProcess, Success on its way) may become a node, unless CA deletes it
  // first (a provision time of 0)
  const dead = waiting.filter((i) => i.status === 'Failed');
  if (dead.length < waiting.length && !nothingWillCome) return undefined;
  const flags = backoffFlags(ca);
  // the first timeout: CA's own event after the group's last scale-up, when it fits this CA's provision time; else the
  // scale-up's time + the provision time (+ one loop); else the newest record's time + the provision time
  const ev = groupScaleEvents(events, group.name);
  const lastScaleUp = ev.scaleUps.filter((d) => d <= now).sort((x, y) => y.getTime() - x.getTime())[0];
  const timeout = lastScaleUp
    ? ev.timeouts.filter((d) => d <= now && d.getTime() >= lastScaleUp.getTime() + mpt).sort((x, y) => x.getTime() - y.getTime())[0]
    : undefined;
  const times = waiting.map((i) => (i.updateTime ? Date.parse(i.updateTime) : NaN)).filter((t) => Number.isFinite(t));
  const newest = times.length ? Math.max(...times) : undefined;
  const giveUpAt = timeout ?? (lastScaleUp ? new Date(lastScaleUp.getTime() + mpt + flags.loopMs) : newest !== undefined ? new Date(newest + mpt) : undefined);
  const step: BackoffStep = giveUpAt ? backoffCycle(giveUpAt, mpt, flags, now) : { phase: mpt === 0 ? 'backing-off' : 'waiting', failures: mpt === 0 ? 1 : 0 };
  const given = step.phase !== 'waiting';
  const hidden = dead.filter((i) => caInstanceView(i) === 'hidden');
  const joins = dead.filter((i) => caInstanceView(i) !== 'hidden');
  const inFlight = waiting.length - dead.length;
  const what = [
    hidden.length ? `${hidden.length} create${hidden.length === 1 ? '' : 's'} that failed` : '',
    joins.length ? `${joins.length} VM${joins.length === 1 ? '' : 's'} stuck in ${[...new Set(joins.map((i) => i.stage))].join('/')} (Failed)` : '',
    inFlight ? `${inFlight} still being created` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const version = ca.version.version ?? `1.${ca.version.minor}`;
  const bound = `--max-node-provision-time ${minutes(mpt)} as CA ${version} reads it for ${group.name}`;
  const unregistered = waiting.filter((i) => caInstanceView(i) !== 'hidden').length;
  const actions = [
    unregistered ? `deletes the unregistered VM${unregistered === 1 ? '' : 's'} (the provider's delete hook runs over SSH; if it fails too, the VM keeps running outside the target size)` : '',
    hidden.length ? `drops the failed create${hidden.length === 1 ? '' : 's'} with its size fix-up` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  if (opts.caStopped && !nothingWillCome) {
    // a CA that crashes keeps no scale-up request, timeout or backoff across restarts: once it runs again it counts the
    // records from its start (unregistered since, incorrect size since) and gives up on them MaxNodeProvisionTime later
    return {
      dead,
      provisionTimeMs: mpt,
      given: false,
      phase: 'waiting',
      failures: 0,
      nothingWillCome,
      observed: false,
      summary: `only ${minutes(mpt)} after it starts (${bound}; a restarted CA remembers no scale-up, timeout or backoff): until then it waits for ${dead.length} node(s) ${group.name} is adding that will never arrive (${what}); then it ${actions} and scales up again`,
    };
  }
  const nth = step.failures > 1 ? `, backoff ${step.failures} if each retry fails the same way` : '';
  const where =
    step.phase === 'backing-off'
      ? `${group.name} is backed off until ${iso(step.backoffUntil!)}${step.backoffMs ? ` (${minutes(step.backoffMs)}${nth})` : ''}; then CA scales it up again`
      : step.phase === 'retrying'
        ? `CA scaled ${group.name} up again at ${iso(step.retryAt!)} after backoff ${step.failures}${step.failures > 1 ? ' (if each retry failed the same way)' : ''} and waits for the new nodes until ${iso(step.nextTimeout!)}`
        : '';
  const summary = nothingWillCome
    ? // read after why-pending's "no scale-up: "
      `no node will come to ${group.name} while CA is ${version}: it reads --max-node-provision-time as 0 from this provider, so each scale-up times out at the next loop and each new instance is deleted about one loop after CA lists it (the provider's delete hook runs over SSH; if it fails, the VM keeps running outside the target size). The ${waiting.length} node(s) ${group.name} was adding (${what}) are given up${giveUpAt ? ` since ${iso(giveUpAt)}` : ''}${where ? `; ${where}` : ''}, and the cycle repeats with the backoff doubling up to ${minutes(flags.maxMs)}`
    : // read after why-pending's "CA scales up: "
      given
      ? `again, after backing ${group.name} off: the ${dead.length} node(s) ${group.name} was adding will never arrive (${what}), and CA has given up on them since ${giveUpAt ? iso(giveUpAt) : 'its provision time'} (${bound}): it ${actions}; ${where}, and the same failure may repeat`
      : `only after ${giveUpAt ? iso(giveUpAt) : bound}: until then it waits for ${dead.length} node(s) ${group.name} is adding that will never arrive (${what}); then (${bound}) it ${actions}, backs ${group.name} off for ${minutes(flags.initialMs)} and scales up again`;
  return {
    dead,
    ...(giveUpAt ? { giveUpAt } : {}),
    provisionTimeMs: mpt,
    given,
    phase: step.phase,
    failures: step.failures,
    ...(step.backoffUntil ? { backoffUntil: step.backoffUntil } : {}),
    ...(step.backoffMs ? { backoffMs: step.backoffMs } : {}),
    ...(step.retryAt ? { retryAt: step.retryAt } : {}),
    nothingWillCome,
    observed: timeout !== undefined,
    summary,
  };
}

/**
 * CA 1.27/1.28 (or a group whose provision time CA reads as 0): a scale-up of this externalgrpc group never brings a
 * node. The sentence, read after "no scale-up: ", or undefined when nodes can come.
 */
export function grpcScaleUpNeverLands(group: NodeGroup, ca: CaConfig): string | undefined {
  if (group.provider !== 'externalgrpc') return undefined;
  const spec = group.grpc;
  const seen = grpcOptionsAsCaSees(spec, ca.version.minor, caDefaults(ca), spec.servedBy?.schemaEra ?? 'pre-1.35');
  if (seen.panics || seen.values.maxNodeProvisionTimeMs !== 0) return undefined;
  const version = ca.version.version ?? `1.${ca.version.minor}`;
  return `CA ${version} would scale up ${group.name}, but no node will come: it reads --max-node-provision-time as 0 from this provider, so the scale-up times out at the next loop and each new instance is deleted about one loop after CA lists it, before it can join (the provider's delete hook runs over SSH; if it fails, the VM keeps running outside the target size); CA then backs ${group.name} off and the cycle repeats`;
}
