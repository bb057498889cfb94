// `casdoctor preflight` against Karpenter NodePools, offline: each workload's pod template × every NodePool in
// Karpenter's order (placement.ts explainKarpenterPending), with three outcomes per pool — fits (pool, instance types),
// rejected (Karpenter's words and values), not evaluated (what to supply). A NodePool's EC2NodeClass may be missing
// or lack its status (manifests have none): casdoctor then stands in a NodeClass and says which stages it could not
// judge (zones from status.subnets, AMI requirements from status.amis). Pure.
import type { DaemonSet, Node, PersistentVolume, PersistentVolumeClaim, Pod, ResourceMap, StorageClass, Taint } from '../../../model/k8s.js';
import type { EC2AMI, EC2NodeClass, KarpenterCondition, KarpenterDeploymentSettings, NodeClaim, NodePool } from '../../../model/karpenter.js';
import type { NotEvaluatedReason, PreflightCheckInfo, SourceLocation } from '../../../model/preflight.js';
import { formatResource } from '../../../model/quantity.js';
import type { InstanceTypeTable } from '../../instance-types.js';
import { parseResourceList } from '../../resources.js';
import { amiFamilyOf } from './instance-types.js';
import {
  explainKarpenterPending,
  type KarpenterPendingExplanation,
  type KarpenterPlacementContext,
  type PlacementStage,
  type PoolPlacement,
  prettyTaint,
} from './placement.js';
import { podRequirements, requiredTermCount } from './requirements.js';

export type KarpenterPoolSource = 'manifests' | 'nodepools-file' | 'from' | 'live';

export interface KarpenterPreflightPool {
  nodePool: NodePool;
  source: KarpenterPoolSource;
  location?: SourceLocation;
}

export interface KarpenterPreflightNodeClass {
  nodeClass: EC2NodeClass;
  source: KarpenterPoolSource;
  location?: SourceLocation;
}

export interface KarpenterPreflightInput {
  pools: KarpenterPreflightPool[];
  nodeClasses: KarpenterPreflightNodeClass[];
  daemonSets: DaemonSet[];
  /** The cluster's pods (running DaemonSet pods are preferred over the template, as Karpenter does). */
  pods: Pod[];
  nodes: Node[];
  nodeClaims: NodeClaim[];
  pvcs: PersistentVolumeClaim[];
  pvs: PersistentVolume[];
  storageClasses: StorageClass[];
  instanceTypes: InstanceTypeTable;
  settings?: KarpenterDeploymentSettings;
  now: Date;
  /** Zones named elsewhere in the inputs (CA groups, volumes): the stand-in NodeClass offers them. */
  knownZones?: string[];
}

/** How casdoctor could judge one NodePool's NodeClass. */
export interface KarpenterPoolSummary {
  name: string;
  source: KarpenterPoolSource;
  location?: SourceLocation;
  weight: number;
  nodeClass: {
    name: string;
    /** The EC2NodeClass is among the inputs. */
    given: boolean;
    /** It carries status.subnets (zones) / status.amis (AMI requirements). */
    zonesKnown: boolean;
    amisKnown: boolean;
    location?: SourceLocation;
  };
  /** Zones of the NodeClass' subnets; undefined when not known. */
  zones?: string[];
  limits?: ResourceMap;
  taints: string[];
  startupTaints: string[];
  requirements: string[];
  /** What casdoctor could not judge for this pool and how to supply it. */
  notEvaluated: NotEvaluatedReason[];
}

export type KarpenterPoolOutcome = 'fits' | 'rejected' | 'not-evaluated';

export interface KarpenterPoolVerdict {
  nodePool: string;
  weight: number;
  outcome: KarpenterPoolOutcome;
  /** The pool Karpenter would launch into for this workload. */
  chosen: boolean;
  stage?: PlacementStage;
  /** Karpenter's error for this pool (HEAD wording), as its FailedScheduling event joins them. */
  error?: string;
  /** The same as Karpenter <= v1.4 printed it (pool name and DaemonSet overhead). */
  legacyError?: string;
  /** Plain explanation with the values behind the outcome. */
  detail: string;
  /** Instance types that fit the pod (a few, smallest first) and how many. */
  instanceTypes: string[];
  instanceTypeCount: number;
  daemonSets: string[];
  daemonSetOverhead: ResourceMap;
  remainingLimits?: ResourceMap;
  /** The pool fits but the NodeClaim would fail to launch on the NodeClass' AMIs. */
  launchError?: string;
  /** Set with outcome not-evaluated, and on a fit for the stages that could not be judged. */
  notEvaluated?: NotEvaluatedReason[];
  funnel: PoolPlacement['funnel'];
  notes: string[];
}

export type KarpenterWorkloadOutcome = 'fits' | 'rejected' | 'not-evaluated' | 'ignored' | 'launch-fails';

export interface KarpenterWorkloadVerdict {
  outcome: KarpenterWorkloadOutcome;
  /** The NodePool Karpenter would launch into. */
  nodePool?: string;
  instanceTypes?: string[];
  instanceTypeCount?: number;
  /** The FailedScheduling event Karpenter would publish (no pool fits, or the pod is refused). */
  event?: string;
  legacyEvent?: string;
  /** Why Karpenter leaves the pod alone (outcome ignored). */
  ignored?: { reason: string; silent: boolean };
  nodePools: KarpenterPoolVerdict[];
  notes: string[];
}

export interface KarpenterPreflightContext {
  placement: KarpenterPlacementContext;
  pools: KarpenterPoolSummary[];
  /** Per NodeClass name: whether zones / AMIs / its spec are real or stood in. */
  classes: Map<string, { given: boolean; zonesKnown: boolean; amisKnown: boolean }>;
  /** The same context without limits, to say which type the limits could not hold. */
  unlimited?: KarpenterPlacementContext;
}

const ZONE_KEYS = new Set(['topology.kubernetes.io/zone', 'topology.k8s.aws/zone-id', 'failure-domain.beta.kubernetes.io/zone']);
/** The zone the stand-in NodeClass offers besides the zones the inputs name: "any other zone". */
export const UNKNOWN_ZONE = 'zone-not-evaluated';

const HOW_NODECLASS = 'kubectl get ec2nodeclasses.karpenter.k8s.aws -o yaml > ec2nodeclasses.yaml';

function reqText(r: { key: string; operator: string; values?: string[]; minValues?: number }): string {
  const values = r.values && r.values.length > 0 ? ` [${r.values.join(' ')}]` : '';
  return `${r.key} ${r.operator}${values}${r.minValues !== undefined ? ` (minValues ${r.minValues})` : ''}`;
}

function taintTexts(ts: Taint[] | undefined): string[] {
  return (ts ?? []).map(prettyTaint);
}

/** AMI aliases resolve to an AMI per architecture (amifamily/*.go DescribeImageQuery): Windows is amd64 only. */
function aliasAmis(nc: EC2NodeClass): EC2AMI[] | undefined {
  const alias = nc.spec?.amiSelectorTerms?.find((t) => t.alias)?.alias;
  if (!alias) return undefined;
  const family = amiFamilyOf(nc);
  const archs = family.startsWith('Windows') ? ['amd64'] : ['amd64', 'arm64'];
  return archs.map((arch) => ({ id: `${alias} (${arch})`, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch] }] }));
}

/** A stand-in keeps the given NodeClass' Ready condition (a dump's NodeClass may be not Ready), else Ready. */
function readyOf(given: EC2NodeClass | undefined): KarpenterCondition {
  const ready = given?.status?.conditions?.find((c) => c.type === 'Ready');
  return ready ? { ...ready } : ({ type: 'Ready', status: 'True' } as KarpenterCondition);
}

/**
 * The placement context for preflight: NodePools as given, their EC2NodeClasses as given when they carry status, else
 * a stand-in with the spec given (AMI family, kubelet, disks) and subnets in every zone the inputs name (zones are then
 * not evaluated). NodePools from manifests have no status: they count as Ready, with no nodes against their limits
 * unless the cluster's nodes and NodeClaims are in the input.
 */
export function karpenterPreflightContext(input: KarpenterPreflightInput): KarpenterPreflightContext {
  const byName = new Map(input.nodeClasses.map((c) => [c.nodeClass.metadata.name ?? '', c]));
  const zones = new Set<string>(input.knownZones ?? []);
  for (const { nodePool } of input.pools)
    for (const r of nodePool.spec.template.spec.requirements ?? []) if (ZONE_KEYS.has(r.key) && r.operator === 'In') for (const v of r.values ?? []) zones.add(v);
  const standInZones = [...zones, UNKNOWN_ZONE].sort();
  const classes = new Map<string, { given: boolean; zonesKnown: boolean; amisKnown: boolean }>();
  const nodeClasses: EC2NodeClass[] = [];
  const refs = new Set(input.pools.map((p) => p.nodePool.spec.template.spec.nodeClassRef?.name ?? ''));
  for (const name of [...new Set([...refs, ...byName.keys()])].sort()) {
    const given = byName.get(name)?.nodeClass;
    const zonesKnown = (given?.status?.subnets ?? []).some((s) => typeof s?.zone === 'string' && s.zone !== '');
    const statusAmis = given?.status?.amis;
    const amisKnown = Array.isArray(statusAmis) && (zonesKnown || statusAmis.length > 0);
    if (given && zonesKnown) {
      nodeClasses.push(given);
      classes.set(name, { given: true, zonesKnown, amisKnown: amisKnown || aliasAmis(given) !== undefined });
      continue;
    }
    const spec = given?.spec ?? { amiSelectorTerms: [], subnetSelectorTerms: [], securityGroupSelectorTerms: [] };
    const amis = statusAmis ?? (given ? aliasAmis(given) : undefined);
    nodeClasses.push({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name },
      spec,
      status: {
        subnets: standInZones.map((zone, i) => ({ id: `subnet-standin-${i}`, zone })),
        ...(amis ? { amis } : {}),
        conditions: [readyOf(given)],
      },
    } as EC2NodeClass);
    classes.set(name, { given: !!given, zonesKnown: false, amisKnown: amis !== undefined });
  }
  const placement: KarpenterPlacementContext = {
    nodePools: input.pools.map((p) => p.nodePool),
    nodeClasses,
    nodeClaims: input.nodeClaims,
    nodes: input.nodes,
    pods: input.pods,
    daemonSets: input.daemonSets,
    pvcs: input.pvcs,
    pvs: input.pvs,
    storageClasses: input.storageClasses,
    instanceTypes: input.instanceTypes,
    ...(input.settings ? { settings: input.settings } : {}),
    now: input.now,
  };
  const limited = input.pools.some((p) => Object.keys(p.nodePool.spec.limits ?? {}).length > 0);
  const unlimited: KarpenterPlacementContext | undefined = limited
    ? { ...placement, nodePools: placement.nodePools.map((np) => ({ ...np, spec: { ...np.spec, limits: {} } })) }
    : undefined;
  const pools = input.pools.map((p): KarpenterPoolSummary => {
    const np = p.nodePool;
    const ref = np.spec.template.spec.nodeClassRef?.name ?? '';
    const c = classes.get(ref) ?? { given: false, zonesKnown: false, amisKnown: false };
    const given = byName.get(ref);
    const notEvaluated: NotEvaluatedReason[] = [];
    if (!c.given) {
      notEvaluated.push({
        missing: `EC2NodeClass ${ref} (AMI family, kubelet settings, disks, subnets, AMIs): casdoctor assumed a default node (20Gi disk, default kubelet reservations)`,
        supply: `pass it with --nodepools or -f (\`${HOW_NODECLASS}\`, with its status)`,
      });
    } else {
      if (!c.zonesKnown) notEvaluated.push({ missing: `zones: EC2NodeClass ${ref} has no status.subnets, so the zones Karpenter launches into are not evaluated`, supply: `pass the EC2NodeClass as the cluster has it, with status (\`${HOW_NODECLASS}\`)` });
      if (!c.amisKnown) notEvaluated.push({ missing: `AMI requirements: EC2NodeClass ${ref} selects AMIs without an alias and has no status.amis`, supply: `pass the EC2NodeClass with status (\`${HOW_NODECLASS}\`)` });
    }
    const zonesOf = nodeClasses.find((n) => n.metadata.name === ref)?.status?.subnets?.map((s) => s.zone) ?? [];
    return {
      name: np.metadata.name ?? '',
      source: p.source,
      ...(p.location ? { location: p.location } : {}),
      weight: np.spec.weight ?? 0,
      nodeClass: { name: ref, given: c.given, zonesKnown: c.zonesKnown, amisKnown: c.amisKnown, ...(given?.location ? { location: given.location } : {}) },
      ...(c.zonesKnown ? { zones: [...new Set(zonesOf)].sort() } : {}),
      ...(np.spec.limits && Object.keys(np.spec.limits).length > 0 ? { limits: { ...np.spec.limits } } : {}),
      taints: taintTexts(np.spec.template.spec.taints),
      startupTaints: taintTexts(np.spec.template.spec.startupTaints),
      requirements: (np.spec.template.spec.requirements ?? []).map(reqText),
      notEvaluated,
    };
  });
  return { placement, pools, classes, ...(unlimited ? { unlimited } : {}) };
}

/** The workload's sample pod as Karpenter sees it once the scheduler gives up on it: Pending, Unschedulable. */
export function asPendingPod(pod: Pod): Pod {
  const spec = { ...pod.spec };
  delete spec.nodeName;
  return {
    ...pod,
    spec,
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
  };
}

/** Whether the pod's own node affinity/selector narrows the zone: then unknown subnets may decide. */
function podConstrainsZone(pod: Pod): boolean {
  for (let i = 0; i < requiredTermCount(pod); i++) for (const k of podRequirements(pod, i).keys()) if (ZONE_KEYS.has(k)) return true;
  return false;
}

function fitCount(p: PoolPlacement): { names: string[]; count: number } {
  const last = [...p.funnel].reverse().find((f) => f.step === 'offerings' || f.step === 'minValues');
  return { names: last?.examples ?? [], count: last?.remaining ?? 0 };
}

/** Stages that drop the pool for every pod: Karpenter never provisions from it. */
const POOL_STAGES = new Set<PlacementStage>(['unmanaged-nodeclass', 'static-nodepool', 'deleting', 'nodepool-not-ready', 'no-instance-types', 'nodepool-requirements']);

/** Karpenter's answer for one workload's sample pod (its pod template as the controller creates it). */
export function karpenterPreflightWorkload(ctx: KarpenterPreflightContext, sample: Pod, volumeZoned = false): KarpenterWorkloadVerdict {
  const pod = asPendingPod(sample);
  const ex: KarpenterPendingExplanation = explainKarpenterPending(pod, ctx.placement);
  const notes = [...ex.notes];
  if (!ex.eligibility.provisionable) {
    return {
      outcome: 'ignored',
      ignored: { reason: ex.eligibility.reason ?? 'Karpenter does not consider the pod', silent: !!ex.eligibility.silent },
      ...(ex.event ? { event: ex.event } : {}),
      nodePools: [],
      notes,
    };
  }
  const zoneMatters = volumeZoned || podConstrainsZone(pod);
  let unlimited: KarpenterPendingExplanation | undefined;
  const verdicts = ex.pools.map((p): KarpenterPoolVerdict => {
    const np = ctx.placement.nodePools.find((n) => n.metadata.name === p.nodePool);
    const ref = np?.spec.template.spec.nodeClassRef?.name ?? '';
    const cls = ctx.classes.get(ref) ?? { given: false, zonesKnown: false, amisKnown: false };
    const fit = fitCount(p);
    const v: KarpenterPoolVerdict = {
      nodePool: p.nodePool,
      weight: p.weight,
      outcome: p.verdict === 'fits' ? 'fits' : 'rejected',
      chosen: false,
      ...(p.stage ? { stage: p.stage } : {}),
      ...(p.error ? { error: p.error } : {}),
      ...(p.legacyError ? { legacyError: p.legacyError } : {}),
      detail: p.detail,
      instanceTypes: p.verdict === 'fits' ? fit.names : [],
      instanceTypeCount: p.verdict === 'fits' ? fit.count : 0,
      daemonSets: p.daemonSets,
      daemonSetOverhead: p.daemonSetOverhead,
      ...(p.remainingLimits ? { remainingLimits: p.remainingLimits } : {}),
      funnel: p.funnel,
      notes: [...p.notes],
    };
    // launch on the NodeClass' AMIs is judged only with AMIs Karpenter resolved (status.amis) or an alias
    if (p.launchError && cls.amisKnown) v.launchError = p.launchError;
    if (np && (np.spec.template.spec.startupTaints ?? []).length > 0) {
      // nodeclaim.go CanAdd checks spec.taints only: startup taints are expected to go once the node is initialized
      v.notes.push(`startupTaints ${taintTexts(np.spec.template.spec.startupTaints).join(', ')} are not checked against the pod: Karpenter expects them removed once the node initializes`);
    }
    if (p.stage && POOL_STAGES.has(p.stage)) v.detail = `${p.detail} (for every pod)`;
    if (p.stage === 'resource-limits' || p.stage === 'node-limit') {
      unlimited ??= ctx.unlimited ? explainKarpenterPending(pod, ctx.unlimited) : undefined;
      const without = unlimited?.pools.find((u) => u.nodePool === p.nodePool);
      if (without?.verdict === 'fits') {
        const smallest = fitCount(without).names[0];
        const it = smallest ? ctx.placement.instanceTypes.lookup(smallest) : undefined;
        const limits = parseResourceList(np?.spec.limits);
        const remaining = parseResourceList(p.remainingLimits);
        const cap: Record<string, number> = it ? { cpu: it.vcpu * 1000, memory: it.memoryMiB * 1024 * 1024, 'nvidia.com/gpu': it.gpu, nodes: 1 } : {};
        const text = (keys: string[]) => keys.map((k) => `${k} ${formatResource(k, cap[k])}`).join(', ');
        const overLimit = Object.keys(limits).filter((k) => cap[k] !== undefined && cap[k] > (limits[k] ?? 0));
        const overLeft = Object.keys(remaining).filter((k) => cap[k] !== undefined && cap[k] > (remaining[k] ?? 0));
        const limitText = Object.entries(np?.spec.limits ?? {}).map(([k, q]) => `${k} ${String(q)}`).join(', ');
        v.detail =
          overLimit.length > 0
            ? `${p.detail}; the smallest instance type the pod fits, ${smallest ?? '?'}, needs ${text(overLimit)} against limits ${limitText}: the pool cannot hold even one such node`
            : `${p.detail}; the smallest instance type the pod fits, ${smallest ?? '?'}, needs ${text(overLeft) || 'more'}, more than the limits (${limitText}) leave after the pool's nodes and in-flight NodeClaims`;
      } else if (without) {
        v.detail = `${p.detail}; without limits the pool would still reject the pod (${without.error ?? without.detail})`;
      }
    }
    // subnets unknown and the pod narrows the zone: a funnel that ran dry may only have lacked the zone
    if (v.outcome === 'rejected' && !cls.zonesKnown && zoneMatters && (p.stage === 'instance-types' || p.stage === 'volume-topology')) {
      v.outcome = 'not-evaluated';
      v.notEvaluated = [{ missing: `zones: the pod requires a zone and the subnets of EC2NodeClass ${ref} are unknown`, supply: `pass the EC2NodeClass with its status (\`${HOW_NODECLASS}\`)` }];
      v.detail = `${p.detail}; the zones of EC2NodeClass ${ref}'s subnets are unknown, so this is not evaluated`;
    }
    if (v.outcome === 'fits') {
      const ne: NotEvaluatedReason[] = [];
      if (!cls.zonesKnown) {
        ne.push({
          missing: `zones: ${cls.given ? `EC2NodeClass ${ref} has no status.subnets` : `EC2NodeClass ${ref} is not among the inputs`}`,
          supply: `pass the EC2NodeClass with its status (\`${HOW_NODECLASS}\`)`,
        });
      }
      if (!cls.amisKnown) {
        ne.push({
          missing: `AMI requirements of EC2NodeClass ${ref}${cls.given ? ' (no alias, no status.amis)' : ' (not among the inputs)'}`,
          supply: `pass the EC2NodeClass with its status (\`${HOW_NODECLASS}\`)`,
        });
      }
      if (ne.length > 0) v.notEvaluated = ne;
      // the pod or its volumes narrow the zone and the subnets are unknown: the fit may not hold
      if (!cls.zonesKnown && zoneMatters) {
        v.outcome = 'not-evaluated';
        v.detail = `${p.detail}, but ${volumeZoned ? "the pod's volumes require" : 'the pod requires'} a zone and the zones of EC2NodeClass ${ref}'s subnets are unknown`;
      }
    }
    return v;
  });
  // Karpenter launches into the first pool that fits (weight order); a higher pool casdoctor could not judge may win
  const first = verdicts.find((v) => v.outcome === 'fits');
  const before = first ? verdicts.slice(0, verdicts.indexOf(first)).filter((v) => v.outcome === 'not-evaluated') : [];
  if (first) {
    first.chosen = true;
    if (before.length > 0) notes.push(`NodePool(s) ${before.map((v) => v.nodePool).join(', ')} come(s) first by weight but could not be judged: Karpenter may launch there instead`);
    return {
      outcome: first.launchError ? 'launch-fails' : 'fits',
      nodePool: first.nodePool,
      instanceTypes: first.instanceTypes,
      instanceTypeCount: first.instanceTypeCount,
      nodePools: verdicts,
      notes,
    };
  }
  const undecided = verdicts.some((v) => v.outcome === 'not-evaluated');
  return {
    outcome: undecided ? 'not-evaluated' : 'rejected',
    ...(ex.event ? { event: ex.event } : {}),
    ...(ex.legacyEvent ? { legacyEvent: ex.legacyEvent } : {}),
    nodePools: verdicts,
    notes,
  };
}

/** One line per pool for a message: "gpu: did not tolerate taint (taint=...)". */
export function poolReasonText(v: KarpenterPoolVerdict): string {
  if (v.outcome === 'fits') return `${v.nodePool}: fits (${v.instanceTypes.slice(0, 3).join(', ')})${v.launchError ? `, but launching fails: ${v.launchError}` : ''}`;
  if (v.outcome === 'not-evaluated') return `${v.nodePool}: not evaluated (${v.detail})`;
  // the funnel errors end in the full requirement set and requests: the message keeps the reason, evidence keeps all
  const error = v.error?.split(', requirements=')[0];
  return `${v.nodePool}: ${error ?? v.detail}`;
}

// ------------------------------------------------------------------------------------------------ report pieces

export const KARPENTER_PREFLIGHT_DOCS = 'https://github.com/casdoctor/casdoctor/blob/main/docs/karpenter.md#preflight-against-nodepools';

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'Job', 'CronJob', 'Pod'];

/** Preflight's Karpenter verdicts as checks (SARIF rules, JUnit testcases, .casdoctor.yaml ids). */
export const KARPENTER_PREFLIGHT_CHECKS: PreflightCheckInfo[] = [
  {
    id: 'karpenter-workload-unplaceable',
    title: 'No Karpenter NodePool would provision for the workload',
    summary: "A workload no NodePool takes: each pool's first rejecting stage in Karpenter's order and words, with values.",
    severity: 'error',
    docsUrl: KARPENTER_PREFLIGHT_DOCS,
    kinds: WORKLOAD_KINDS,
  },
  {
    id: 'karpenter-workload-launch-fails',
    title: "The NodePool fits, but its EC2NodeClass's AMIs match none of the instance types",
    summary: 'Karpenter would create a NodeClaim that never launches: no AMI of the NodeClass matches the fitting instance types (e.g. arm64 types, amd64 AMIs).',
    severity: 'error',
    docsUrl: KARPENTER_PREFLIGHT_DOCS,
    kinds: WORKLOAD_KINDS,
  },
  {
    id: 'karpenter-workload-served-by-both',
    title: 'Both Cluster Autoscaler and Karpenter would add a node for the workload',
    summary: 'A CA node group and a NodePool both fit the pod: both autoscalers react to it while Pending and one node is wasted.',
    severity: 'warning',
    docsUrl: KARPENTER_PREFLIGHT_DOCS,
    kinds: WORKLOAD_KINDS,
  },
];

export type ServedBy = 'ca' | 'karpenter' | 'both' | 'neither' | 'not-evaluated';

export interface KarpenterWorkloadReport {
  karpenter: KarpenterWorkloadVerdict;
  /** Which autoscaler would add a node for the workload. */
  servedBy: ServedBy;
  servedByText: string;
}

/** What preflight's report adds when NodePools are among the inputs. */
export interface PreflightKarpenterReport {
  nodePools?: KarpenterPoolSummary[];
}

/** Which autoscaler would serve the workload, CA's side given as the fitting groups (and whether any was undecided). */
export function servedBy(
  k: KarpenterWorkloadVerdict,
  ca: { given: boolean; fits: string[]; undecided: boolean },
): { servedBy: ServedBy; text: string } {
  const karp = k.outcome === 'fits' ? k.nodePool : undefined;
  const caFits = ca.fits.length > 0;
  if (karp && caFits) {
    return { servedBy: 'both', text: `both: CA node group(s) ${ca.fits.join(', ')} and NodePool ${karp} each take it; both autoscalers react while it is Pending` };
  }
  if (karp) return { servedBy: 'karpenter', text: `Karpenter, NodePool ${karp} (${(k.instanceTypes ?? []).slice(0, 3).join(', ')}${(k.instanceTypeCount ?? 0) > 3 ? ', ...' : ''})${ca.given ? '; no CA node group fits' : ''}` };
  const kWhy = k.outcome === 'ignored' ? `Karpenter ignores it: ${k.ignored?.reason ?? ''}` : k.outcome === 'launch-fails' ? `NodePool ${k.nodePool} fits but its NodeClaim would not launch` : k.outcome === 'not-evaluated' ? 'Karpenter not evaluated' : 'no NodePool fits';
  if (caFits) return { servedBy: 'ca', text: `Cluster Autoscaler, node group(s) ${ca.fits.join(', ')} (${kWhy})` };
  if (k.outcome === 'not-evaluated' || ca.undecided) return { servedBy: 'not-evaluated', text: `not evaluated: ${kWhy}${ca.given ? `; CA: ${ca.undecided ? 'a node group could not be evaluated' : 'no node group fits'}` : ''}` };
  return { servedBy: 'neither', text: `neither: ${kWhy}${ca.given ? '; no CA node group fits' : ''}` };
}

/** What to change for a rejected pool, by stage. */
export function karpenterAdvice(v: KarpenterPoolVerdict): string {
  switch (v.stage) {
    case 'requirements': {
      const m = /label "([^"]+)" does not have known values/.exec(v.error ?? '');
      if (m) return `NodePool ${v.nodePool}: add ${m[1]} to spec.template.metadata.labels (or a requirement \`${m[1]} In [...]\`), or drop it from the pod's nodeSelector/affinity.`;
      return `NodePool ${v.nodePool}: the pod's nodeSelector/affinity and the pool's requirements do not overlap (e.g. kubernetes.io/arch): widen the pool's requirements or point the pod at a pool that allows them.`;
    }
    case 'taints':
      return `NodePool ${v.nodePool}: tolerate its taint in the pod template, or use a pool without it (startupTaints need no toleration).`;
    case 'resource-limits':
    case 'node-limit':
      return `NodePool ${v.nodePool}: raise spec.limits so at least one node of a fitting instance type fits under them.`;
    case 'instance-types': {
      const left = (step: string) => v.funnel.find((f) => f.step === step)?.remaining;
      if (left('requirements') === 0)
        return `NodePool ${v.nodePool}: no instance type meets the pool's and the pod's requirements together (zone, architecture, family): widen the pool's requirements or the pod's selector.`;
      if (left('resources') !== 0 && left('offerings') === 0)
        return `NodePool ${v.nodePool}: instance types fit but none is offered in the allowed zones × capacity types: add subnets in the zone to the EC2NodeClass, or allow more capacity types.`;
      return `NodePool ${v.nodePool}: allow instance types with room for the pod plus the DaemonSet overhead (a GPU pod needs a GPU family, e.g. karpenter.k8s.aws/instance-family In [g5]), or lower the pod's requests.`;
    }
    case 'min-values':
      return `NodePool ${v.nodePool}: widen the requirements so the types left meet minValues, or lower minValues.`;
    case 'volume-topology':
      return `NodePool ${v.nodePool}: the pod's volumes are in a zone the pool does not launch into: add that zone's subnets to the EC2NodeClass or allow the zone.`;
    default:
      return `NodePool ${v.nodePool}: ${v.detail}`;
  }
}
