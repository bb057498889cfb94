// The provider's instance records as CA's loop changes them over time (item 6 of issue 24 for CA): "nodes that will
// never arrive" must not read "CA scales up". Pure over the records, CA's version and --now.
//
// - An instance CA sees as creating that has not registered within MaxNodeProvisionTime is long-unregistered: CA calls
//   DeleteNodes on it (static_autoscaler.go removeOldUnregisteredNodes, 1.32.7:753-800); the provider marks the record
//   PendingDeletion, lowers the target and runs before_delete_hook.sh over SSH (node_group.go:915-961, 2031-2056
//   @f792442). A hook that fails leaves the record PendingDeletion/Failed and the VM running: never retried (l.1642).
// - A target above registered + unregistered for MaxNodeProvisionTime is decreased (fixNodeGroupSize,
//   static_autoscaler.go:723-749@cluster-autoscaler-1.32.7): the provider drops Pending records, failed creates
//   included (instance.go:109-133), never below min size (ca-running.ts says what that does).
// - The scale-up times out at the same bound: ScaleUpTimedOut, the group backed off (5 min, doubling to 30 min).
// CA 1.27-1.28 read MaxNodeProvisionTime as 0 from this provider (externalgrpc_node_group.go:276-281@1.28.4), so all of
// this happens about one loop after the records appear.
import type { CaConfig } from '../../model/ca-config.js';
import type { GrpcInstance } from '../../model/externalgrpc.js';
import type { NodeGroup } from '../../model/node-group.js';
import { caDefaults, caInstanceView, countedInTargetSize } from './groups.js';
import { grpcOptionsAsCaSees } from './options.js';

export interface UpcomingFate {
  /** Records the target counts that will never become a node: failed creates, failed joins. */
  dead: GrpcInstance[];
  /** When CA gives up on them (the newest record's time + MaxNodeProvisionTime as CA reads it for the group). */
  giveUpAt?: Date;
  provisionTimeMs: number;
  given: boolean;
  summary: string;
}

function minutes(ms: number): string {
  return `${Math.round(ms / 60_000)}m`;
}

/**
 * For an externalgrpc group CA counts upcoming nodes in: undefined when some of them may still come (a create or join
 * in flight), else what CA's loop has done or will do with the records by `now`.
 */
export function grpcUpcomingFate(group: NodeGroup, ca: CaConfig, now: Date): UpcomingFate | undefined {
  if (group.provider !== 'externalgrpc') return undefined;
  const spec = group.grpc;
  const nodeIds = new Set(group.nodes.map((n) => n.spec?.providerID).filter((p): p is string => !!p));
  const nodeNames = new Set(group.nodes.map((n) => n.metadata.name ?? ''));
  const waiting = spec.instances.filter(
    (i) => countedInTargetSize(i) && i.stage !== 'Running' && !(i.providerID && nodeIds.has(i.providerID)) && !(i.name && nodeNames.has(i.name)),
  );
  if (waiting.length === 0) return undefined;
  // a record the provider still works on (Init, InProcess, Success on its way) may become a node
  const dead = waiting.filter((i) => i.status === 'Failed');
  if (dead.length < waiting.length) return undefined;
  const seen = grpcOptionsAsCaSees(spec, ca.version.minor, caDefaults(ca), spec.servedBy?.schemaEra ?? 'pre-1.35');
  if (seen.panics) return undefined; // CA is not running at all (ca-running.ts)
  const mpt = seen.values.maxNodeProvisionTimeMs;
  const times = dead.map((i) => (i.updateTime ? Date.parse(i.updateTime) : NaN)).filter((t) => Number.isFinite(t));
  const newest = times.length ? Math.max(...times) : undefined;
  const giveUpAt = newest !== undefined ? new Date(newest + mpt) : undefined;
  const given = mpt === 0 || (giveUpAt !== undefined && giveUpAt.getTime() <= now.getTime());
  const hidden = dead.filter((i) => caInstanceView(i) === 'hidden');
  const joins = dead.filter((i) => caInstanceView(i) !== 'hidden');
  const what = [
    hidden.length ? `${hidden.length} create${hidden.length === 1 ? '' : 's'} that failed` : '',
    joins.length ? `${joins.length} VM${joins.length === 1 ? '' : 's'} stuck in ${[...new Set(joins.map((i) => i.stage))].join('/')} (Failed)` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const version = ca.version.version ?? `1.${ca.version.minor}`;
  const bound = `--max-node-provision-time ${minutes(mpt)} as CA ${version} reads it for ${group.name}`;
  const actions = [
    joins.length ? `deletes the unregistered VM${joins.length === 1 ? '' : 's'} (the provider's delete hook runs over SSH; if it fails too, the VM keeps running outside the target size)` : '',
    hidden.length ? `drops the failed create${hidden.length === 1 ? '' : 's'} with its size fix-up` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  // read after why-pending's "CA scales up: "
  const summary = given
    ? `again, after backing ${group.name} off (5m, doubling up to 30m), and the same failure may repeat: the ${dead.length} node(s) ${group.name} was adding will never arrive (${what}), and CA has given up on them (${bound}${giveUpAt && mpt > 0 ? `, since ${giveUpAt.toISOString()}` : ''}): it ${actions}`
    : `only after ${giveUpAt ? giveUpAt.toISOString() : `${bound}`}: until then it waits for ${dead.length} node(s) ${group.name} is adding that will never arrive (${what}); then (${bound}) it ${actions}, backs ${group.name} off and scales up again`;
  return { dead, ...(giveUpAt ? { giveUpAt } : {}), provisionTimeMs: mpt, given, summary };
}
