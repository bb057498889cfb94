/**
 * Resource lists in scheduler units and the scheduler's effective pod requests
 * (k8s.io/component-helpers/resource/helpers.go PodRequests; pkg/scheduler/framework/types.go Resource).
 *
 * Units: `cpu` in millicores (Quantity.MilliValue, rounded up); everything else in whole base units
 * (Quantity.Value, rounded up): bytes for memory/ephemeral-storage/hugepages-*, counts for pods and extended resources.
 *
 * Invalid quantities never throw here: the entry is skipped and, when the caller passes a `problems` array,
 * described there. Use parseResourceListStrict to throw a QuantityError instead.
 */
import type { Container, Node, Pod, ResourceMap } from '../model/k8s.js';
import { formatResource, QuantityError, toInt, toMilli } from '../model/quantity.js';
import type { NodeInfo, Resources } from '../model/scheduling.js';

export interface ResourceProblem {
  /** Where the value sits, e.g. "containers[app].resources.requests" or "status.allocatable". */
  path: string;
  resource: string;
  value: unknown;
  message: string;
}

/** Pod-level resources the scheduler honours (component-helpers IsSupportedPodLevelResource). */
const POD_LEVEL_RESOURCES = ['cpu', 'memory'];

/** One quantity in scheduler units: millicores for cpu, whole base units otherwise. Throws QuantityError. */
export function resourceValue(name: string, q: string | number): number {
  return name === 'cpu' ? toMilli(q) : toInt(q);
}

/** Parses a ResourceMap (requests, limits, allocatable ...) into scheduler units, skipping invalid entries. */
export function parseResourceList(
  m: ResourceMap | undefined,
  problems?: ResourceProblem[],
  path = 'resources',
): Resources {
  const out: Resources = {};
  if (!m) return out;
  for (const [name, q] of Object.entries(m)) {
    try {
      out[name] = resourceValue(name, q);
    } catch (e) {
      problems?.push({ path, resource: name, value: q, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}

/** Like parseResourceList but throws QuantityError on the first invalid entry. */
export function parseResourceListStrict(m: ResourceMap | undefined): Resources {
  const out: Resources = {};
  if (!m) return out;
  for (const [name, q] of Object.entries(m)) {
    if (q === null || q === undefined) throw new QuantityError(q);
    out[name] = resourceValue(name, q);
  }
  return out;
}

export function addResources(a: Resources, b: Resources): Resources {
  const out: Resources = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** a - b per resource (may go negative); resources only in b appear negated. */
export function subtractResources(a: Resources, b: Resources): Resources {
  const out: Resources = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) - v;
  return out;
}

/** Per-resource maximum (component-helpers maxResourceList). */
export function maxResources(a: Resources, b: Resources): Resources {
  const out: Resources = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = Math.max(out[k] ?? 0, v);
  return out;
}

export function sumResources(list: Iterable<Resources>): Resources {
  const out: Resources = {};
  for (const r of list) for (const [k, v] of Object.entries(r)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * Resources NodeResourcesFit checks besides cpu/memory/ephemeral-storage (scheduler util IsScalarResourceName):
 * extended ("nvidia.com/gpu"), prefixed native ("kubernetes.io/..."), hugepages-*, attachable-volumes-*.
 */
export function isScalarResourceName(name: string): boolean {
  if (name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')) return true;
  return name.includes('/') && !name.startsWith('requests.');
}

/**
 * Requests of one container as the API server stores them: a limit without a request defaults the request
 * (pkg/apis/core/v1/defaults.go SetDefaults_Container applies to manifests that never went through the API server).
 */
export function containerRequestMap(c: Container): ResourceMap {
  const requests = c.resources?.requests ?? {};
  const limits = c.resources?.limits;
  if (!limits) return requests;
  const out: ResourceMap = { ...requests };
  for (const [k, v] of Object.entries(limits)) if (!(k in out)) out[k] = v;
  return out;
}

function podLevelRequestMap(pod: Pod): ResourceMap | undefined {
  const res = pod.spec?.resources;
  if (!res) return undefined;
  const out: ResourceMap = { ...(res.requests ?? {}) };
  for (const name of POD_LEVEL_RESOURCES) {
    if (!(name in out) && res.limits && name in res.limits) out[name] = res.limits[name];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const requestsCache = new WeakMap<Pod, Resources>();

function addQuantity(
  into: Resources,
  name: string,
  q: string | number,
  problems: ResourceProblem[] | undefined,
  path: string,
): void {
  try {
    into[name] = (Object.hasOwn(into, name) ? into[name] : 0) + resourceValue(name, q);
  } catch (e) {
    problems?.push({ path, resource: name, value: q, message: e instanceof Error ? e.message : String(e) });
  }
}

/**
 * The scheduler's effective pod requests (component-helpers resource.PodRequests):
 * regular containers summed; sidecars (init containers with restartPolicy Always) add to that sum;
 * each regular init container needs sidecarsStartedBeforeIt + itself; the result is the per-resource max of the two;
 * pod-level spec.resources.requests override cpu/memory; spec.overhead is added last.
 * Results are cached per pod object: treat pods as immutable.
 */
export function podRequests(pod: Pod, problems?: ResourceProblem[]): Resources {
  if (!problems) {
    const cached = requestsCache.get(pod);
    if (cached) return cached;
  }
  const spec = pod.spec ?? { containers: [] };
  let reqs: Resources = {};
  // summed in place: this runs for every pod of the cluster
  for (const c of spec.containers ?? []) {
    const requests = c.resources?.requests;
    const limits = c.resources?.limits;
    const path = problems ? `containers[${c.name}].resources.requests` : '';
    if (requests) for (const name in requests) addQuantity(reqs, name, requests[name], problems, path);
    // a limit without a request defaults the request (containerRequestMap)
    if (limits) for (const name in limits) if (!requests || !(name in requests)) addQuantity(reqs, name, limits[name], problems, path);
  }
  let sidecars: Resources = {};
  let initMax: Resources = {};
  for (const c of spec.initContainers ?? []) {
    const own = parseResourceList(
      containerRequestMap(c),
      problems,
      `initContainers[${c.name}].resources.requests`,
    );
    if (c.restartPolicy === 'Always') {
      reqs = addResources(reqs, own);
      sidecars = addResources(sidecars, own);
      initMax = maxResources(initMax, sidecars);
    } else {
      initMax = maxResources(initMax, addResources(own, sidecars));
    }
  }
  reqs = maxResources(reqs, initMax);

  const podLevel = podLevelRequestMap(pod);
  if (podLevel) {
    const parsed = parseResourceList(podLevel, problems, 'spec.resources.requests');
    for (const name of POD_LEVEL_RESOURCES) if (name in parsed) reqs[name] = parsed[name];
  }
  if (spec.overhead) reqs = addResources(reqs, parseResourceList(spec.overhead, problems, 'spec.overhead'));

  if (!problems) requestsCache.set(pod, reqs);
  return reqs;
}

/** node.status.allocatable in scheduler units (invalid entries skipped). */
export function nodeAllocatable(node: Node, problems?: ResourceProblem[]): Resources {
  return parseResourceList(node.status?.allocatable, problems, 'status.allocatable');
}

/** A NodeInfo for a node and the pods placed on it (scheduler framework.NodeInfo: requested = sum of podRequests). */
export function nodeInfoFor(node: Node, pods: Pod[]): NodeInfo {
  const requested: Resources = {};
  for (const p of pods) {
    const r = podRequests(p);
    for (const k in r) requested[k] = (requested[k] ?? 0) + r[k];
  }
  return { node, pods, requested, allocatable: nodeAllocatable(node) };
}

/** allocatable - requested, for display. */
export function freeResources(nodeInfo: NodeInfo): Resources {
  return subtractResources(nodeInfo.allocatable, nodeInfo.requested);
}

/** "cpu 500m, memory 1Gi, nvidia.com/gpu 1" with cpu, memory, ephemeral-storage first, then sorted names. */
export function describeResources(r: Resources): string {
  const order = ['cpu', 'memory', 'ephemeral-storage'];
  const names = Object.keys(r).sort((a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return names.map((n) => `${n} ${formatResource(n, r[n])}`).join(', ');
}
