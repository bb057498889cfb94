// CA's scale-up size for one pod shape on one node group: how many nodes the pods need and how many the group may add.
import type { NodeGroup } from '../model/node-group.js';
import type { Resources } from '../model/scheduling.js';
import type { ScaleUpSize } from '../model/why-pending.js';
import type { Analysis } from './analysis.js';
import { parseResourceList, podRequests, sumResources } from './resources.js';

/**
 * CA's binpacking estimator reduced to one pod shape: pods per template node (its allocatable less the DaemonSet and
 * mirror pods CA puts on it), the nodes that takes, and the nodes the group may still add: max size − target size
 * (the target counts upcoming nodes), capped by --max-nodes-total and --max-nodes-per-scaleup.
 * CA: estimator/binpacking_estimator.go Estimate; core/scaleup/orchestrator (max node group size, resource manager).
 * Undefined when the group has no template node or the pod does not fit an empty one.
 */
export function estimateScaleUpSize(a: Analysis, group: NodeGroup, requests: Resources, pods: number): ScaleUpSize | undefined {
  const template = a.template(group);
  if (!template.node) return undefined;
  const free: Resources = { ...parseResourceList(template.node.status?.allocatable) };
  const used = sumResources(template.pods.map((tp) => podRequests(tp)));
  for (const [k, v] of Object.entries(used)) free[k] = (free[k] ?? 0) - v;
  free.pods = (free.pods ?? 110) - template.pods.length;
  const needs: Resources = { ...requests, pods: 1 };
  let podsPerNode = Number.POSITIVE_INFINITY;
  for (const [k, v] of Object.entries(needs)) if (v > 0) podsPerNode = Math.min(podsPerNode, Math.floor(Math.max(0, free[k] ?? 0) / v));
  if (!Number.isFinite(podsPerNode) || podsPerNode < 1) return undefined;
  let nodesAllowed = Math.max(0, group.maxSize - group.targetSize);
  let limitedBy: ScaleUpSize['limitedBy'] = 'max-size';
  const total = a.ca.flags.maxNodesTotal.value;
  if (total > 0 && total - a.raw.nodes.length < nodesAllowed) {
    nodesAllowed = Math.max(0, total - a.raw.nodes.length);
    limitedBy = 'max-nodes-total';
  }
  const perScaleUp = a.ca.flags.maxNodesPerScaleup.value;
  if (perScaleUp > 0 && perScaleUp < nodesAllowed) {
    nodesAllowed = perScaleUp;
    limitedBy = 'max-nodes-per-scaleup';
  }
  const podsPlaced = Math.min(pods, podsPerNode * nodesAllowed);
  return {
    pods,
    podsPerNode,
    nodesNeeded: Math.ceil(pods / podsPerNode),
    nodesAllowed,
    limitedBy,
    podsPlaced,
    podsLeftPending: pods - podsPlaced,
  };
}
