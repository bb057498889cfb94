// One NodePool's verdict for a pod on a new NodeClaim (scheduler.go addToNewNodeClaim, nodeclaim.go CanAdd), and the
// limits it charges. Pure.
import type { Pod, ResourceMap } from '../../../model/k8s.js';
import { formatResource } from '../../../model/quantity.js';
import type { Resources } from '../../../model/scheduling.js';
import { parseResourceList } from '../../resources.js';
import type { KarpenterInstanceType } from './instance-types.js';
import { type KRequirements, addRequirement, compatible, copyRequirements, describeAllowed, newRequirement } from './requirements.js';
import { karpenterHas } from './versions.js';
import type { PlacementStage, PoolPlacement } from './placement-types.js';
import { examples, karpenterRequests, prettyTaint, resourcesString, sortTypes, taintError, toResourceMap, untoleratedTaints } from './util.js';
import { daemonCompatible } from './daemonsets.js';
import { hostPortClash } from './host-ports.js';
import type { PoolModel, TopologyRun } from './state.js';
import { addTopologyRequirements } from './topology.js';
import { amiLaunchError, filterInstanceTypes } from './nodeclaim.js';

/**
 * The smallest spec.limits values that let a new node in: the fitting type that needs the least extra room (fewest
 * vCPUs, then memory), and for each limited resource it exceeds, limit - remaining + its capacity (nodes: one more).
 */
export function limitsToRaise(model: PoolModel, remaining: Resources, types: KarpenterInstanceType[]): ResourceMap {
  const limits = parseResourceList(model.np.spec.limits);
  const smallest = sortTypes(types)[0];
  const out: ResourceMap = {};
  for (const [k, rem] of Object.entries(remaining)) {
    const need = k === 'nodes' ? 1 : (smallest?.capacity[k] ?? 0);
    if (need <= rem) continue;
    out[k] = formatResource(k, (limits[k] ?? 0) - rem + need);
  }
  return out;
}

/** scheduler.go subtractMax: limits are charged with the largest instance type the planned NodeClaim may become. */
export function subtractMax(remaining: Resources, types: KarpenterInstanceType[]): Resources {
  const out = { ...remaining };
  for (const k of Object.keys(out)) {
    if (k === 'nodes') out[k] -= 1;
    else out[k] -= Math.max(0, ...types.map((t) => t.capacity[k] ?? 0));
  }
  return out;
}

export interface PoolEvaluation {
  fits: boolean;
  error?: string;
  overhead: Resources;
  /** When it fits: the instance types left, the NodeClaim's combined requirements and the per-type DaemonSet overhead. */
  types?: KarpenterInstanceType[];
  reqs?: KRequirements;
  overheadOf?: (it: KarpenterInstanceType) => Resources;
}

export function evaluatePool(
  model: PoolModel,
  placement: PoolPlacement,
  pod: Pod,
  podReq: KRequirements,
  podReqs: Resources,
  volumeAlts: KRequirements[],
  ds: Array<{ name: string; pod: Pod }>,
  toleratePNS: boolean,
  remainingOverride?: Resources,
  topo?: TopologyRun,
): PoolEvaluation {
  const name = model.name;
  placement.funnel = placement.funnel.slice(0, 1);
  delete placement.error;
  delete placement.legacyError;
  delete placement.stage;
  placement.verdict = 'rejected';

  // daemon overhead per instance type (scheduler.go buildDaemonOverheadGroups): pod-independent, computed once per pool
  if (!model.daemons) {
    const byType = new Map<KarpenterInstanceType, Resources>();
    const names = new Set<string>();
    let max: Resources = {};
    const perType = karpenterHas(model.version, 'daemon-overhead-per-type');
    const perTemplate = perType ? undefined : ds.filter((d) => daemonCompatible(model.templateReqs, model.taints, undefined, d.pod));
    for (const it of model.instanceTypes) {
      const list = perTemplate ?? ds.filter((d) => daemonCompatible(model.templateReqs, model.taints, it, d.pod));
      for (const d of list) names.add(d.name);
      const o = list.length > 0 ? karpenterRequests(list.map((d) => d.pod)) : {};
      byType.set(it, o);
      if ((o.cpu ?? 0) + (o.memory ?? 0) >= (max.cpu ?? 0) + (max.memory ?? 0)) max = o;
    }
    model.daemons = { byType, names: [...names].sort(), max };
  }
  const daemons = model.daemons;
  const overheadOf = (it: KarpenterInstanceType): Resources => daemons.byType.get(it) ?? {};
  const maxOverhead = daemons.max;
  placement.daemonSets = daemons.names;
  placement.daemonSetOverhead = toResourceMap(maxOverhead);
  const legacy = (err: string): string => `incompatible with nodepool "${name}", daemonset overhead=${resourcesString(maxOverhead)}, ${err}`;
  // legacyErr null: the check did not exist before v1.5, so no legacy text (undefined would take the default)
  const reject = (stage: PlacementStage, error: string, detail: string, legacyErr: string | null = legacy(error)): PoolEvaluation => {
    placement.stage = stage;
    placement.error = error;
    if (legacyErr !== null) placement.legacyError = legacyErr;
    placement.detail = detail;
    return { fits: false, error, overhead: maxOverhead };
  };

  // scheduler.go:706-724 limits (as left by the NodeClaims planned earlier in the same pass, when there are some)
  let its = model.instanceTypes;
  const remainingNow = remainingOverride ?? model.remaining;
  if (remainingNow) {
    placement.remainingLimits = toResourceMap(remainingNow);
    // before v1.11 only filterByRemainingResources sees limits.nodes: no type has a "nodes" capacity, so it blocks only once
    // usage is already above the limit (remaining < 0: scheduler.go:764-780@v1.6.2), as "all available instance types exceed limits"
    if ('nodes' in remainingNow && remainingNow.nodes === 0 && karpenterHas(model.version, 'node-limit-scheduling')) {
      const e = `node limits have been exhausted for nodepool (NodePool=${name})`;
      // scheduler.go:709-714@v1.14.1, v1.11+ (PR #2526); never printed before, so no legacy text
      return reject('node-limit', e, `limits.nodes ${String(model.np.spec.limits?.nodes)} reached by the pool's nodes and in-flight NodeClaims`, null);
    }

    const rem = remainingNow;
    its = its.filter((it) => Object.entries(rem).every(([k, v]) => (k === 'nodes' ? 0 : (it.capacity[k] ?? 0)) <= v));
    placement.funnel.push({ step: 'limits', remaining: its.length, examples: examples(its) });
    if (its.length === 0) {
      const e = `all available instance types exceed limits for nodepool (NodePool=${name})`;
      const left = Object.entries(rem).map(([k, v]) => `${k} ${formatResource(k, v)}`).join(', ');
      // v1.4 scheduler.go: `all available instance types exceed limits for nodepool %q`
      return reject('resource-limits', e, `remaining limits (${left}) are below the capacity of every instance type${'nodes' in rem && rem.nodes < 0 ? ' (the pool is already over limits.nodes)' : ''}`, `all available instance types exceed limits for nodepool "${name}"`);
    }
  }
  // nodeclaim.go CanAdd: taints, then requirements
  const untolerated = untoleratedTaints(model.taints, pod.spec.tolerations, toleratePNS);
  if (untolerated.length > 0) {
    return reject('taints', taintError(untolerated), `the pod does not tolerate ${untolerated.map(prettyTaint).join(', ')}`);
  }
  // nodeclaim.go:120-124@v1.6.2: the host ports of the DaemonSets that run on the template (scheduler.go getDaemonHostPortUsage)
  const clash = hostPortClash(pod, ds.filter((d) => daemonCompatible(model.templateReqs, model.taints, undefined, d.pod)));
  if (clash) {
    return reject('host-ports', `checking host port usage, ${clash.error}`, `the pod's hostPort ${clash.port.port}/${clash.port.protocol} is already taken on every new node of this pool by DaemonSet ${clash.daemonSet}`);
  }
  const reqErr = compatible(model.templateReqs, podReq);
  if (reqErr) {
    const e = `incompatible requirements, ${reqErr}`;
    const undefinedLabel = /^label "([^"]+)" does not have known values/.exec(reqErr);
    const detail = undefinedLabel
      ? `the pod selects custom label ${undefinedLabel[1]}, which the NodePool neither lists in spec.template.spec.requirements nor sets in spec.template.metadata.labels`
      : `the pod's node selector/affinity and the NodePool's requirements do not overlap`;
    return reject('requirements', e, detail);
  }
  const base = copyRequirements(model.templateReqs);
  for (const r of podReq.values()) addRequirement(base, r);
  // volume topology alternatives (nodeclaim.go CanAdd / tryVolumeAlternative); the last alternative's error is reported
  const alts = volumeAlts.length > 0 ? volumeAlts : [undefined];
  let last: PoolEvaluation = { fits: false, overhead: maxOverhead };
  for (const alt of alts) {
    const reqs = copyRequirements(base);
    if (alt) {
      const vErr = compatible(reqs, alt);
      if (vErr) {
        const zones = describeAllowed(alt.get('topology.kubernetes.io/zone'));
        // before v1.9 the volume's requirements are merged into the pod's node affinity: an ordinary requirements error (volumetopology.go:68-73@v1.6.2)
        const vText = karpenterHas(model.version, 'volume-requirements-separate') ? `incompatible volume requirements, ${vErr}` : `incompatible requirements, ${vErr}`;
        last = reject('volume-topology', vText, `the pod's volume is bound to ${zones}, outside what the NodePool allows (NodeClass zones: ${placement.zones.join(', ') || 'none'})`);
        continue;
      }
      for (const r of alt.values()) addRequirement(reqs, r);
    }
    let variants: Array<{ reqs: KRequirements; pick?: string }> = [{ reqs }];
    if (topo) {
      // nodeclaim.go CanAdd: topology last (topology.AddRequirements, :133-141@v1.6.2, :196-208@v1.14.1), on the
      // NodeClaim's requirements with its placeholder hostname
      const nodeReqs = copyRequirements(reqs);
      addRequirement(nodeReqs, newRequirement('kubernetes.io/hostname', 'In', [topo.hostname]));
      const a = addTopologyRequirements(topo.t, topo.pod, topo.owner, model.taints, topo.strict, nodeReqs, false);
      const cErr = a.reqs ? compatible(nodeReqs, a.reqs) : undefined;
      if (a.error || cErr || !a.reqs) {
        last = reject('topology', a.error ?? cErr ?? '', `Karpenter's topology leaves no domain for the pod on this pool's NodeClaim: ${a.error ?? cErr}`);
        continue;
      }
      variants = topologyVariants(a.reqs, a.choices);
    }
    if (variants.length > 1) {
      const results = variants.map((v) => ({ v, r: instanceTypeStage(model, placement, its, v.reqs, podReqs, overheadOf, maxOverhead, reject) }));
      const fails = results.filter((x) => !x.r.fits);
      const key = [...(variants[0].reqs.keys())].find((k) => variants.some((v) => v.reqs.get(k) !== variants[0].reqs.get(k))) ?? 'the topology key';
      const note = `Karpenter picks one of ${variants.map((v) => v.pick).join(', ')} (${key}) at random, the domains with the fewest matching pods (Go map order, topologygroup.go nextDomainTopologySpread)${fails.length === 0 ? '; the pool fits with each' : fails.length === results.length ? '' : `; with ${fails.map((x) => x.v.pick).join(', ')} this pool fails (${fails[0].r.error ?? ''}) and Karpenter tries again after relaxing or in its next pass`}`;
      if (!placement.notes.includes(note)) placement.notes.push(note);
      variants = [(results.find((x) => x.r.fits) ?? results[0]).v];
    }
    last = instanceTypeStage(model, placement, its, variants[0].reqs, podReqs, overheadOf, maxOverhead, reject);
    if (last.fits) return last;
  }
  return last;
}

/** The NodeClaim requirements for each random domain Karpenter may pick (the first key with a choice; at most 8). */
function topologyVariants(reqs: KRequirements, choices: Map<string, string[]> | undefined): Array<{ reqs: KRequirements; pick?: string }> {
  const first = choices ? [...choices.entries()][0] : undefined;
  if (!first) return [{ reqs }];
  const [key, domains] = first;
  return domains.slice(0, 8).map((d) => {
    const r = copyRequirements(reqs);
    r.set(key, newRequirement(key, 'In', [d]));
    return { reqs: r, pick: d };
  });
}

/** nodeclaim.go filterInstanceTypesByRequirements on the NodeClaim's final requirements, with the funnel and the verdict. */
function instanceTypeStage(
  model: PoolModel,
  placement: PoolPlacement,
  its: KarpenterInstanceType[],
  reqs: KRequirements,
  podReqs: Resources,
  overheadOf: (it: KarpenterInstanceType) => Resources,
  maxOverhead: Resources,
  reject: (stage: PlacementStage, error: string, detail: string) => PoolEvaluation,
): PoolEvaluation {
  placement.funnel = placement.funnel.filter((f) => f.step === 'nodepool' || f.step === 'limits');
  const f = filterInstanceTypes(its, reqs, podReqs, overheadOf, model.relaxMinValues, karpenterHas(model.version, 'fits-needs-offering'), karpenterHas(model.version, 'daemon-overhead-per-type'));
  placement.funnel.push(
    { step: 'requirements', remaining: f.counts.requirements.length, examples: examples(f.counts.requirements) },
    { step: 'resources', remaining: f.counts.resources.length, examples: examples(f.counts.resources) },
    { step: 'offerings', remaining: f.counts.offerings.length, examples: examples(f.counts.offerings) },
  );
  if (f.minValuesError) {
    placement.funnel.push({ step: 'minValues', remaining: 0, examples: [] });
    return reject('min-values', f.minValuesError, `after filtering, the instance types left do not reach the NodePool's minValues`);
  }
  if (f.error) {
    const offering = f.counts.resources.length > 0 && f.counts.offerings.length === 0;
    const detail = f.counts.requirements.length === 0
      ? `no instance type matches the combined requirements (zones ${describeAllowed(reqs.get('topology.kubernetes.io/zone'))}, capacity types ${describeAllowed(reqs.get('karpenter.sh/capacity-type'))})`
      : f.counts.resources.length === 0
        ? `no instance type matching the requirements has room for the pod (${resourcesString(podReqs)}) plus the DaemonSet overhead (${resourcesString(maxOverhead)})`
        : offering
          ? `instance types fit, but none is offered in an allowed zone × capacity type (NodeClass zones ${placement.zones.join(', ')}; capacity types ${placement.capacityTypes.join(', ') || 'none'})`
          : 'no single instance type meets requirements, resources and offering together';
    return reject('instance-types', f.error, detail);
  }
  placement.verdict = 'fits';
  placement.detail = `${f.remaining.length} instance type(s) fit, e.g. ${examples(f.remaining, 3).join(', ')}`;
  const launch = amiLaunchError(model.nodeClass, f.remaining);
  if (launch) placement.launchError = launch;
  else delete placement.launchError;
  return { fits: true, overhead: maxOverhead, types: f.remaining, reqs, overheadOf };
}
