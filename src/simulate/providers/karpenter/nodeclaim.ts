// A NodeClaim's instance-type filter and joining a NodeClaim planned in the same pass (scheduling/nodeclaim.go), and the
// AMIs a launch needs (amifamily/resolver.go). Pure.
import type { Pod } from '../../../model/k8s.js';
import type { EC2NodeClass } from '../../../model/karpenter.js';
import type { Resources } from '../../../model/scheduling.js';
import { addResources } from '../../resources.js';
import { type KarpenterInstanceType, type KarpenterOffering, UNMODELLED_INSTANCE_LABELS } from './instance-types.js';
import { type KRequirements, addRequirement, compatible, copyRequirements, getRequirement, intersects, newRequirement, requirementsFrom, requirementsString } from './requirements.js';
import { podKey } from '../../predicates/status.js';
import { fitsResources, resourcesString, untoleratedTaints } from './util.js';
import type { PassState, PlannedClaim, TopologyRun } from './state.js';
import { addTopologyRequirements, recordTopology } from './topology.js';

const offeringReqCache = new WeakMap<KarpenterOffering, KRequirements>();

function offeringRequirements(o: KarpenterOffering): KRequirements {
  const cached = offeringReqCache.get(o);
  if (cached) return cached;
  const r: KRequirements = new Map();
  offeringReqCache.set(o, r);
  addRequirement(r, newRequirement('karpenter.sh/capacity-type', 'In', [o.capacityType]));
  addRequirement(r, newRequirement('topology.kubernetes.io/zone', 'In', [o.zone]));
  if (o.zoneID) addRequirement(r, newRequirement('topology.k8s.aws/zone-id', 'In', [o.zoneID]));
  addRequirement(
    r,
    o.reservationID
      ? newRequirement('karpenter.k8s.aws/capacity-reservation-id', 'In', [o.reservationID])
      : newRequirement('karpenter.k8s.aws/capacity-reservation-id', 'DoesNotExist'),
  );
  return r;
}

export interface FilterOutcome {
  remaining: KarpenterInstanceType[];
  counts: { requirements: KarpenterInstanceType[]; resources: KarpenterInstanceType[]; offerings: KarpenterInstanceType[] };
  error?: string;
  minValuesError?: string;
  minDaemon?: Resources;
  maxDaemon?: Resources;
}

/** nodeclaim.go filterInstanceTypesByRequirements, plus the per-step lists for the funnel. */
export function filterInstanceTypes(
  its: KarpenterInstanceType[],
  reqs: KRequirements,
  podReqs: Resources,
  daemonOverheadFor: (it: KarpenterInstanceType) => Resources,
  relaxMinValues = false,
  fitsNeedsOffering = true,
  minMaxText = true,
): FilterOutcome {
  let requirementsMet = false;
  let fits = false;
  let hasOffering = false;
  let reqAndFits = false;
  let reqAndOffering = false;
  let fitsAndOffering = false;
  let minDaemon: Resources | undefined;
  let maxDaemon: Resources | undefined;
  const byReq: KarpenterInstanceType[] = [];
  const byRes: KarpenterInstanceType[] = [];
  const byOff: KarpenterInstanceType[] = [];
  for (const it of its) {
    const overhead = daemonOverheadFor(it);
    if (Object.keys(overhead).length > 0) {
      minDaemon = minDaemon ? Object.fromEntries(Object.keys({ ...minDaemon, ...overhead }).map((k) => [k, Math.min(minDaemon?.[k] ?? 0, overhead[k] ?? 0)])) : overhead;
      maxDaemon = maxDaemon ? Object.fromEntries(Object.keys({ ...maxDaemon, ...overhead }).map((k) => [k, Math.max(maxDaemon?.[k] ?? 0, overhead[k] ?? 0)])) : overhead;
    }
    const total = addResources(podReqs, overhead);
    const itCompat = intersects(it.requirements, reqs).length === 0; // nodeclaim.go compatible()
    const available = it.offerings.filter((o) => o.available);
    const itHasOffering = available.some((o) => compatible(reqs, offeringRequirements(o)) === undefined);
    // nodeclaim.go fits(): from v1.14 a fit counts only with a compatible offering (nodeclaim.go:624-640@v1.14.1); before, resources alone
    const itFits = (!fitsNeedsOffering || itHasOffering) && fitsResources(total, it.allocatable);
    requirementsMet ||= itCompat;
    fits ||= itFits;
    hasOffering ||= itHasOffering;
    reqAndFits ||= itCompat && itFits && !itHasOffering;
    reqAndOffering ||= itCompat && itHasOffering && !itFits;
    fitsAndOffering ||= itFits && itHasOffering && !itCompat;
    if (itCompat) {
      byReq.push(it);
      if (fitsResources(total, it.allocatable)) {
        byRes.push(it);
        if (itHasOffering) byOff.push(it);
      }
    }
  }
  const remaining = byOff;
  const outcome: FilterOutcome = { remaining, counts: { requirements: byReq, resources: byRes, offerings: byOff }, ...(minDaemon ? { minDaemon } : {}), ...(maxDaemon ? { maxDaemon } : {}) };
  const resources = (): string => {
    if (!minDaemon || !maxDaemon) return resourcesString(podReqs);
    const a = resourcesString(addResources(minDaemon, podReqs));
    const b = resourcesString(addResources(maxDaemon, podReqs));
    // min=…, max=… is v1.14's per-type overhead (nodeclaim.go:474-485@v1.14.1); before, one overhead for all types
    return a === b || !minMaxText ? (minMaxText ? a : b) : `min=${a}, max=${b}`;
  };
  const tail = `requirements=${requirementsString(reqs)}, resources=${resources()}`;
  // types.go SatisfiesMinValues over the remaining types
  const withMin = [...reqs.values()].filter((r) => r.minValues !== undefined);
  // MIN_VALUES_POLICY=BestEffort relaxes minValues instead of failing (nodeclaim.go filterInstanceTypesByRequirements)
  if (remaining.length > 0 && withMin.length > 0 && !relaxMinValues) {
    const bad = withMin.filter((r) => new Set(remaining.flatMap((it) => [...getRequirement(it.requirements, r.key).values])).size < (r.minValues ?? 0));
    if (bad.length > 0) {
      outcome.minValuesError = `minValues requirement is not met for label(s) (label(s)=[${bad.map((r) => r.key).join(' ')}]), ${tail}`;
      outcome.remaining = [];
      outcome.error = outcome.minValuesError;
      return outcome;
    }
  }
  if (remaining.length > 0) return outcome;
  // nodeclaim.go InstanceTypeFilterError.Error
  let msg: string;
  if (!requirementsMet && !fits && !hasOffering) msg = 'no instance type met the scheduling requirements or had enough resources or had a required offering';
  else if (!requirementsMet && !fits) msg = 'no instance type met the scheduling requirements or had enough resources';
  else if (!requirementsMet && !hasOffering) msg = 'no instance type met the scheduling requirements or had a required offering';
  else if (!fits && !hasOffering) msg = 'no instance type had enough resources or had a required offering';
  else if (!requirementsMet) msg = 'no instance type met all requirements';
  else if (!fits) msg = 'no instance type has enough resources';
  else if (!hasOffering) msg = 'no instance type has the required offering';
  else if (reqAndFits) msg = 'no instance type which met the scheduling requirements and had enough resources, had a required offering';
  else if (fitsAndOffering) msg = 'no instance type which had enough resources and the required offering met the scheduling requirements';
  else if (reqAndOffering) msg = 'no instance type which met the scheduling requirements and the required offering had the required resources';
  else msg = 'no instance type met the requirements/resources/offering tuple';
  outcome.error = `${msg}, ${tail}`;
  if (msg === 'no instance type has enough resources' && (podReqs.cpu ?? 0) >= 1e9) outcome.error += ' (CPU request >= 1 Million, m vs M typo?)';
  return outcome;
}

export function tryPlanned(state: PassState, pod: Pod, reqs: KRequirements, podReqs: Resources, toleratePNS: boolean, topo?: TopologyRun): PlannedClaim | undefined {
  // scheduler.go:455: the planned NodeClaims with the fewest pods first
  const order = [...state.planned].sort((a, b) => a.pods.length - b.pods.length);
  for (const pc of order) {
    if (untoleratedTaints(pc.taints, pod.spec.tolerations, toleratePNS).length > 0) continue;
    if (compatible(pc.reqs, reqs) !== undefined) continue;
    const total = addResources(pc.requests, podReqs);
    // cheap pruning before the per-type check: no type of the claim can hold more cpu or memory than its largest
    if ((total.cpu ?? 0) > Math.max(0, ...pc.types.map((t) => t.allocatable.cpu ?? 0)) || (total.memory ?? 0) > Math.max(0, ...pc.types.map((t) => t.allocatable.memory ?? 0))) continue;
    let merged = copyRequirements(pc.reqs);
    for (const r of reqs.values()) addRequirement(merged, r);
    if (topo) {
      // nodeclaim.go CanAdd: topology after requirements, on the planned NodeClaim's requirements (its placeholder hostname)
      const a = addTopologyRequirements(topo.t, topo.pod, topo.owner, pc.taints, topo.strict, merged, false);
      if (!a.reqs || compatible(merged, a.reqs) !== undefined) continue;
      merged = a.reqs;
    }
    const types = pc.types.filter((it) => intersects(it.requirements, merged).length === 0 && fitsResources(addResources(total, pc.overheadOf(it)), it.allocatable));
    if (types.length === 0) continue;
    pc.reqs = merged;
    pc.types = types;
    pc.requests = total;
    pc.pods.push(podKey(pod));
    if (topo) recordTopology(topo.t, topo.pod, topo.owner, pc.taints, merged, false);
    return pc;
  }
  return undefined;
}

/**
 * amifamily/resolver.go Resolve: AMIs are matched to instance types at launch, not while scheduling, so a pool can
 * "fit" and its NodeClaim still fail to launch. amifamily/ami.go MapToInstanceTypes uses Compatible without undefined keys.
 */
export function amiLaunchError(nodeClass: EC2NodeClass | undefined, its: KarpenterInstanceType[]): string | undefined {
  if (!nodeClass) return undefined;
  const amis = nodeClass.status?.amis ?? [];
  if (amis.length === 0) return 'no amis exist given constraints';
  const ok = its.some((it) => amis.some((ami) => compatible(it.requirements, requirementsFrom(ami.requirements ?? []), UNMODELLED_INSTANCE_LABELS) === undefined));
  if (ok) return undefined;
  return `no instance types satisfy requirements of amis [${[...new Set(amis.map((a) => a.id))].join(' ')}]`;
}
