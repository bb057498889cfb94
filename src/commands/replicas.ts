// Many Pending replicas of one controller: one block with a count, and how many of them CA's scale-up can place.
import type { PodReport } from '../model/why-pending.js';
import type { Analysis } from '../simulate/analysis.js';
import { estimateScaleUpSize } from '../simulate/scale-up-size.js';
import type { PodAnalysis } from '../simulate/why-pending.js';
import { groupEquivalent } from './why-pending-json.js';

export interface ReplicaSummary {
  /** How many pods the block stands for (itself included). */
  count: number;
  /** The controller, e.g. "ReplicaSet frontend-ndxrt2l4f". */
  owner: string;
  /** CA's estimate for a scale-up: how many the chosen group can take before its max size, and what becomes of the rest. */
  capacity?: string;
}

/**
 * Groups the reports of equivalent Pending replicas (CA's own equivalence groups: one controller, one spec) into the
 * first report of each group; the others are left out of `shown`. A group of one is shown as it is.
 */
export function groupReplicas(a: Analysis, pods: PodAnalysis[], reports: PodReport[]): { shown: PodReport[]; replicas: Map<PodReport, ReplicaSummary> } {
  const { carrier, count, owner } = groupEquivalent(pods, reports);
  const shown: PodReport[] = [];
  const replicas = new Map<PodReport, ReplicaSummary>();
  reports.forEach((r, i) => {
    if (carrier[i] !== i) return;
    shown.push(r);
    const n = count.get(i) ?? 1;
    if (n >= 2) replicas.set(r, { count: n, owner: owner.get(i) ?? '', capacity: scaleUpCapacity(a, pods[i], r, n) });
  });
  return { shown, replicas };
}

/**
 * CA's estimate for the block's scale-up, in words: from estimateScaleUpSize (the same numbers -o json writes), for
 * the group the expander picks.
 */
function scaleUpCapacity(a: Analysis, p: PodAnalysis | undefined, r: PodReport, count: number): string | undefined {
  if (!p || r.verdict !== 'scale-up') return undefined;
  const chosen = r.nodeGroups.find((g) => g.expanderChoice) ?? r.nodeGroups.find((g) => g.fits);
  const group = chosen && a.nodeGroups.find((g) => g.name === chosen.name);
  if (!chosen || !group) return undefined;
  const size = estimateScaleUpSize(a, group, p.requests, count);
  if (!size) return undefined;
  const template = a.template(group);
  const node = template.instanceType ? `new ${template.instanceType} node` : 'new node';
  const total = a.ca.flags.maxNodesTotal.value;
  const perScaleUp = a.ca.flags.maxNodesPerScaleup.value;
  const limit =
    size.limitedBy === 'max-nodes-total'
      ? `--max-nodes-total=${total} with ${a.raw.nodes.length} nodes`
      : size.limitedBy === 'max-nodes-per-scaleup'
        ? `--max-nodes-per-scaleup=${perScaleUp}; max ${group.maxSize}, target ${group.targetSize}`
        : `max ${group.maxSize}, target ${group.targetSize}`;
  const room = size.limitedBy === 'max-nodes-per-scaleup' ? `adds at most ${size.nodesAllowed} node(s) in one scale-up` : `has room for ${size.nodesAllowed} more node(s)`;
  const head = `CA's estimator packs ${size.podsPerNode} of them per ${node} of ${chosen.name}, which ${room} (${limit})`;
  if (size.podsLeftPending === 0) return `${head}: this scale-up can place all ${count}`;
  const others = r.nodeGroups.filter((g) => g.fits && g !== chosen).map((g) => g.name);
  const rest =
    size.limitedBy === 'max-nodes-total'
      ? `they stay Pending until --max-nodes-total (${total}) is raised`
      : size.limitedBy === 'max-nodes-per-scaleup'
        ? // the flag bounds one scale-up, not the group: the next loop scales up again for the pods still Pending
          `CA's next loops scale up again, at most ${perScaleUp} node(s) each (estimator/binpacking_estimator.go, the estimation limiter)`
        : others.length
          ? `CA's next loops can scale up ${others.join(', ')} for them`
          : `they stay Pending ("max node group size reached") until ${chosen.name}'s max size is raised or another node group fits them`;
  return `${head}: this scale-up places ${size.podsPlaced} of the ${count}; for the other ${size.podsLeftPending}, ${rest}`;
}
