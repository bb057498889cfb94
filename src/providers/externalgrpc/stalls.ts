// Provider states that stop everything, whatever CA does. Pure over the provider's records, its Deployment and pods,
// and the Nodes. Provider: sunkaimr/cluster-autoscaler-grpc-cloud-provider @ f792442.
//
// - One handler per stage moves records on: Pending, Creating, Created and Joined share --create-parallelism (5),
//   PendingDeletion and Deleting --delete-parallelism (1) (node_group.go:1580-1585). Each counts the records of its
//   stage with status InProcess, in every group, and starts nothing while that count reaches the limit (l.1625-1629); it
//   picks only records with status "" or Init (l.1642). A record left InProcess by a provider that restarted mid-step
//   (its goroutine died with the process) or by waitJoined's "node not found" (l.2001-2006) is never handled again and
//   holds its slot for good: enough of them and no instance of any group gets past that stage.
// - A node that joined without --provider-id has an empty spec.providerID; the provider copies it into the record
//   (UpdateNodeInNodeGroup, l.827-835), NodeGroupNodes hides the record (wrapper.go:258-260), and a delete can never
//   terminate the VM: callDeleteInstance -> NewCloudprovider("") fails (l.2136-2140, provider/provier.go:40-42).
import type { GrpcInstance, GrpcNodeGroupSpec } from '../../model/externalgrpc.js';
import type { Node, Pod } from '../../model/k8s.js';
import type { ProviderDeployment } from './deployment.js';

export const CREATE_STAGES = ['Pending', 'Creating', 'Created', 'Joined'] as const;
export const DELETE_STAGES = ['PendingDeletion', 'Deleting'] as const;

/** An InProcess record whose step will never finish. */
export interface StaleRecord {
  group: string;
  instance: GrpcInstance;
  /** 'restart': updated before the provider's process started (certain); 'joined-wait': waitJoined's InProcess with an
   * error (certain); 'age': InProcess longer than the bound (likely). */
  why: 'restart' | 'joined-wait' | 'age';
}

export interface StageStall {
  stage: string;
  flag: 'create-parallelism' | 'delete-parallelism';
  limit: number;
  stale: StaleRecord[];
  /** The stale records fill the stage: nothing more gets past it, in any group. */
  full: boolean;
  /** Every stale record is certainly stale (not only old). */
  certain: boolean;
}

/** A step that takes longer than this is not in flight any more (the provider's SSH hooks and cloud waits take minutes). */
export const IN_PROCESS_BOUND_MS = 30 * 60_000;

/** When the provider's current process started: the newest running start of a container with the provider's image. */
export function providerStartedAt(dep: ProviderDeployment | undefined, pods: Pod[]): Date | undefined {
  if (!dep?.image) return undefined;
  const ns = dep.deployment.metadata.namespace ?? 'default';
  let best: number | undefined;
  for (const p of pods) {
    if ((p.metadata.namespace ?? 'default') !== ns) continue;
    const mine = new Set((p.spec?.containers ?? []).filter((c) => c.image === dep.image).map((c) => c.name));
    if (mine.size === 0) continue;
    const statuses = (p.status?.containerStatuses ?? []) as Array<{ name?: string; state?: { running?: { startedAt?: string } } }>;
    for (const cs of statuses) {
      if (!mine.has(cs.name ?? '')) continue;
      const t = Date.parse(cs.state?.running?.startedAt ?? '');
      if (Number.isFinite(t) && (best === undefined || t > best)) best = t;
    }
  }
  return best === undefined ? undefined : new Date(best);
}

export function stageStalls(groups: GrpcNodeGroupSpec[], dep: ProviderDeployment | undefined, startedAt: Date | undefined, now: Date): StageStall[] {
  const out: StageStall[] = [];
  const limits: Array<[readonly string[], StageStall['flag'], number]> = [
    [CREATE_STAGES, 'create-parallelism', dep?.createParallelism ?? 5],
    [DELETE_STAGES, 'delete-parallelism', dep?.deleteParallelism ?? 1],
  ];
  for (const [stages, flag, limit] of limits) {
    for (const stage of stages) {
      const stale: StaleRecord[] = [];
      for (const g of groups) {
        for (const ins of g.instances) {
          if (ins.stage !== stage || ins.status !== 'InProcess') continue;
          const t = ins.updateTime ? Date.parse(ins.updateTime) : NaN;
          const why: StaleRecord['why'] | undefined =
            startedAt && Number.isFinite(t) && t < startedAt.getTime()
              ? 'restart'
              : stage === 'Joined' && ins.error !== ''
                ? 'joined-wait'
                : Number.isFinite(t) && now.getTime() - t > IN_PROCESS_BOUND_MS
                  ? 'age'
                  : undefined;
          if (why) stale.push({ group: g.id, instance: ins, why });
        }
      }
      if (stale.length === 0) continue;
      out.push({ stage, flag, limit, stale, full: stale.length >= limit, certain: stale.every((s) => s.why !== 'age') });
    }
  }
  return out;
}

export interface NodeWithoutProviderId {
  node: string;
  group: string;
  instance: GrpcInstance;
  /** The group's providerIdTemplate (its instanceParameter), to say what the providerID should look like. */
  template?: string;
}

/** Nodes with no spec.providerID whose record (by node name) has none either: hidden from CA, and never terminated. */
export function nodesWithoutProviderId(groups: GrpcNodeGroupSpec[], nodes: Node[], templates: Map<string, string>): NodeWithoutProviderId[] {
  const out: NodeWithoutProviderId[] = [];
  const byName = new Map<string, { group: GrpcNodeGroupSpec; instance: GrpcInstance }>();
  for (const g of groups) for (const i of g.instances) if (i.name && !byName.has(i.name)) byName.set(i.name, { group: g, instance: i });
  for (const n of nodes) {
    if (n.spec?.providerID) continue;
    const hit = byName.get(n.metadata.name ?? '');
    if (!hit || hit.instance.providerID !== '' || hit.instance.stage === 'Deleted') continue;
    const template = templates.get(hit.group.instanceParameter ?? '');
    out.push({ node: n.metadata.name ?? '', group: hit.group.id, instance: hit.instance, ...(template ? { template } : {}) });
  }
  return out;
}
