/**
 * kube-scheduler NodeResourcesFit Filter (pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest):
 * "Too many pods" first, then cpu, memory, ephemeral-storage, then scalar resources; all shortfalls are reported.
 * Zero requests are ignored; a scalar resource the node lacks counts as 0 allocatable. The code is
 * UnschedulableAndUnresolvable when a request exceeds the node's whole allocatable (preemption cannot help).
 * Scalar resources are checked in name order (upstream iterates a Go map, so its order is random).
 */

import type { Pod } from '../../model/k8s.js';
import { formatResource } from '../../model/quantity.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { isScalarResourceName, podRequests } from '../resources.js';
import { failure, success } from './status.js';

export const NODE_RESOURCES_FIT = 'NodeResourcesFit';
export const REASON_TOO_MANY_PODS = 'Too many pods';

export function insufficientReason(resource: string): string {
  return `Insufficient ${resource}`;
}

export interface InsufficientResource {
  resource: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
  unresolvable: boolean;
}

interface PodRequestSummary {
  req: Record<string, number>;
  scalars: string[];
  cpu: number;
  memory: number;
  storage: number;
}
const requestSummaries = new WeakMap<Pod, PodRequestSummary>();

/** The pod's requests once per pod (the PreFilter's computePodResourceRequest), not once per node. */
function requestsOf(pod: Pod): PodRequestSummary {
  let s = requestSummaries.get(pod);
  if (!s) {
    const req = podRequests(pod);
    s = {
      req,
      scalars: Object.keys(req).filter(isScalarResourceName).sort(),
      cpu: req.cpu ?? 0,
      memory: req.memory ?? 0,
      storage: req['ephemeral-storage'] ?? 0,
    };
    requestSummaries.set(pod, s);
  }
  return s;
}

/** All shortfalls of `pod` on `nodeInfo`, in upstream order. */
export function insufficientResources(pod: Pod, nodeInfo: NodeInfo): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  const allowedPods = nodeInfo.allocatable.pods ?? 0;
  if (nodeInfo.pods.length + 1 > allowedPods) {
    out.push({
      resource: 'pods',
      reason: REASON_TOO_MANY_PODS,
      requested: 1,
      used: nodeInfo.pods.length,
      capacity: allowedPods,
      unresolvable: false,
    });
  }
  const { req, scalars, cpu, memory, storage } = requestsOf(pod);
  if (cpu === 0 && memory === 0 && storage === 0 && scalars.length === 0) return out;

  const check = (name: string, wanted: number) => {
    if (wanted <= 0) return;
    const capacity = nodeInfo.allocatable[name] ?? 0;
    const used = nodeInfo.requested[name] ?? 0;
    if (wanted > capacity - used) {
      out.push({
        resource: name,
        reason: insufficientReason(name),
        requested: wanted,
        used,
        capacity,
        unresolvable: wanted > capacity,
      });
    }
  };
  check('cpu', cpu);
  check('memory', memory);
  check('ephemeral-storage', storage);
  for (const name of scalars) check(name, req[name]);
  return out;
}

function detail(r: InsufficientResource, nodeName: string | undefined): string {
  if (r.resource === 'pods') {
    return `node ${nodeName} already runs ${r.used} pods, allocatable pods ${r.capacity}`;
  }
  const f = (v: number) => formatResource(r.resource, v);
  const free = r.capacity - r.used;
  return `requests ${r.resource} ${f(r.requested)}, node allocatable ${f(r.capacity)}, already requested ${f(r.used)}, free ${free < 0 ? `-${f(-free)}` : f(free)}`;
}

export function nodeResourcesFit(pod: Pod, nodeInfo: NodeInfo, _view?: ClusterView): FilterStatus {
  return fitStatus(pod, nodeInfo, true);
}

/**
 * nodeResourcesFit without the per-resource details: the same code and reasons. For the pod's explanation against
 * every node, of which only the reasons are read; the details' strings were a tenth of why-pending's allocations.
 */
export function nodeResourcesFitReasons(pod: Pod, nodeInfo: NodeInfo, _view?: ClusterView): FilterStatus {
  return fitStatus(pod, nodeInfo, false);
}

function fitStatus(pod: Pod, nodeInfo: NodeInfo, withDetails: boolean): FilterStatus {
  const short = insufficientResources(pod, nodeInfo);
  if (short.length === 0) return success(NODE_RESOURCES_FIT);
  const code = short.some((s) => s.unresolvable) ? 'UnschedulableAndUnresolvable' : 'Unschedulable';
  const reasons = short.map((s) => s.reason);
  return withDetails
    ? failure(NODE_RESOURCES_FIT, code, reasons, short.map((s) => detail(s, nodeInfo.node.metadata.name)))
    : failure(NODE_RESOURCES_FIT, code, reasons);
}
