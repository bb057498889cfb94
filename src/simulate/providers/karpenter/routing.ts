/**
 * Mixed clusters: which autoscaler serves each Pending pod when Cluster Autoscaler and Karpenter run side by side.
 * Karpenter side: pod eligibility (karpenter pkg/utils/pod/scheduling.go:102-108 IsProvisionable) and the silent
 * opt-out `karpenter.sh/nodepool DoesNotExist` (pkg/controllers/provisioning/provisioner.go:491-500@v1.6.2, :578-589 at
 * main; logged at V(1), no event: provisioner.go:169-172@v1.6.2). CA side: CA considers every unschedulable pod its pod filter keeps; its node groups are ASGs,
 * and Karpenter launches plain EC2 instances, so Karpenter nodes belong to no group CA manages.
 * Verdicts per group/pool are inputs (names + fits) so real funnels can be wired in later.
 */
import type { Node, NodeSelectorRequirement, Pod } from '../../../model/k8s.js';
import type { AutoscalerKey, AutoscalerVerdict, PodRoute as Route, PodVerdict } from '../../../model/why-pending.js';
import { NODEPOOL_LABEL } from '../../../model/karpenter.js';
import type { PodStage } from '../../ca-pod-filter.js';
import { podKey } from '../../predicates/status.js';
import { ownedBy } from './requirements.js';

export interface AutoscalerGroupVerdict {
  /** CA node group (ASG) name or NodePool name. */
  name: string;
  fits: boolean;
  /** Why it does not fit, in the autoscaler's words when known. */
  reason?: string;
}

export interface PodRoutingInput {
  pod: Pod;
  /** CA's verdict per node group; [] when CA runs without groups (or is absent: set caPresent false). */
  caGroups: AutoscalerGroupVerdict[];
  /** Karpenter's verdict per NodePool, in the order Karpenter tries them (weight). */
  nodePools: AutoscalerGroupVerdict[];
  /** CA's own pod filter (classifyPodForCa): absent = CA considers the pod. */
  caConsiders?: { considered: boolean; reason?: string };
  /** Whether each autoscaler runs in the cluster (default true for both). */
  caPresent?: boolean;
  karpenterPresent?: boolean;
}

export type PodRoute = 'ca' | 'karpenter' | 'both' | 'neither' | 'not-pending';

export interface PodRouting {
  /** namespace/name */
  pod: string;
  route: PodRoute;
  /** Karpenter considers the pod at all (IsProvisionable and not opted out). */
  karpenterConsiders: boolean;
  /** Why Karpenter leaves the pod alone, when it does. */
  karpenterIgnores?: { id: KarpenterIgnoreReason; text: string; emitsEvent: boolean };
  caConsiders: boolean;
  caIgnores?: string;
  /** Cluster Autoscaler runs in the cluster (false: a Karpenter-only cluster, or CA's Deployment is gone). */
  caPresent: boolean;
  /** Names of the CA groups / NodePools that could take the pod (only those of an autoscaler that considers it). */
  caGroupsFitting: string[];
  nodePoolsFitting: string[];
  /** One sentence for the report. */
  message: string;
}

export type KarpenterIgnoreReason =
  | 'not-unschedulable'
  | 'bound'
  | 'preempting'
  | 'daemonset'
  | 'mirror-pod'
  | 'nodepool-does-not-exist'
  | 'karpenter-absent';

/** The requirement expressions Karpenter builds a pod's requirements from (pkg/scheduling/requirements.go:90-109). */
function karpenterPodRequirementSources(pod: Pod): NodeSelectorRequirement[] {
  const out: NodeSelectorRequirement[] = [];
  const na = pod.spec.affinity?.nodeAffinity;
  // the heaviest preferred term counts as a requirement too (requirements.go:98-101): a preference opts out as well
  const preferred = (na?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Array<{
    weight?: number;
    preference?: { matchExpressions?: NodeSelectorRequirement[] };
  }>;
  if (preferred.length > 0) {
    const heaviest = preferred.reduce((a, b) => ((b.weight ?? 0) > (a.weight ?? 0) ? b : a));
    out.push(...(heaviest.preference?.matchExpressions ?? []));
  }
  // only the first required term: Karpenter relaxes OR terms one by one later (requirements.go:104-108)
  out.push(...(na?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchExpressions ?? []));
  return out;
}

/** Why Karpenter's provisioner leaves a pod alone, or undefined when it tries to provision for it. */
export function karpenterIgnoresPod(pod: Pod): PodRouting['karpenterIgnores'] {
  // FailedToSchedule: PodScheduled with reason Unschedulable (scheduling.go:125-132)
  const unschedulable = (pod.status?.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');
  if (!unschedulable) {
    return {
      id: 'not-unschedulable',
      text: 'the scheduler has not marked it PodScheduled=False/Unschedulable',
      emitsEvent: false,
    };
  }
  if (pod.spec.nodeName) return { id: 'bound', text: `it is bound to node ${pod.spec.nodeName}`, emitsEvent: false };
  if (pod.status?.nominatedNodeName) {
    return {
      id: 'preempting',
      text: `it is preempting pods on node ${pod.status.nominatedNodeName} (status.nominatedNodeName)`,
      emitsEvent: false,
    };
  }
  if (ownedBy(pod, 'apps/v1', 'DaemonSet')) return { id: 'daemonset', text: 'it is owned by a DaemonSet', emitsEvent: false };
  if (ownedBy(pod, 'v1', 'Node')) return { id: 'mirror-pod', text: 'it is a mirror (static) pod owned by a Node', emitsEvent: false };
  const optOut = karpenterPodRequirementSources(pod).find((r) => r.key === NODEPOOL_LABEL && r.operator === 'DoesNotExist');
  if (optOut) {
    return {
      id: 'nodepool-does-not-exist',
      // provisioner.go:493 validateKarpenterManagedLabelCanExist@v1.6.2, logged at V(1) only (:172)
      text: 'ignoring pod, configured to not run on a Karpenter provisioned node (requirement=karpenter.sh/nodepool DoesNotExist)',
      emitsEvent: false,
    };
  }
  return undefined;
}

/** PodRoutingInput.caConsiders from CA's own pod filter (classifyPodForCa): DaemonSet, expendable, young pods… */
export function caConsidersFromStage(stage: PodStage): NonNullable<PodRoutingInput['caConsiders']> {
  if (stage.kind === 'candidate') return { considered: true };
  if (stage.kind === 'ignored') return { considered: false, reason: stage.reason };
  if (stage.kind === 'scheduled') return { considered: false, reason: `it is bound to node ${stage.node}` };
  return { considered: false, reason: `it has finished (${stage.phase})` };
}

/** Routes one Pending pod. */
export function routePendingPod(input: PodRoutingInput): PodRouting {
  const { pod } = input;
  const caPresent = input.caPresent ?? true;
  const karpenterPresent = input.karpenterPresent ?? true;
  const pending = !pod.spec.nodeName && (pod.status?.phase ?? 'Pending') === 'Pending';

  const kIgnore: PodRouting['karpenterIgnores'] = karpenterPresent
    ? karpenterIgnoresPod(pod)
    : { id: 'karpenter-absent', text: 'Karpenter does not run in this cluster', emitsEvent: false };
  const karpenterConsiders = kIgnore === undefined;
  const caConsiders = caPresent && (input.caConsiders?.considered ?? true);
  const caIgnores = !caPresent ? 'Cluster Autoscaler does not run in this cluster' : input.caConsiders?.considered === false ? input.caConsiders.reason : undefined;

  const caGroupsFitting = caConsiders ? input.caGroups.filter((g) => g.fits).map((g) => g.name) : [];
  const nodePoolsFitting = karpenterConsiders ? input.nodePools.filter((g) => g.fits).map((g) => g.name) : [];
  const base = { pod: podKey(pod), karpenterConsiders, karpenterIgnores: kIgnore, caConsiders, caIgnores, caPresent, caGroupsFitting, nodePoolsFitting };

  if (!pending) {
    return { ...base, route: 'not-pending', message: `Pod ${podKey(pod)} is not Pending; neither autoscaler provisions for it.` };
  }
  const ca = caGroupsFitting.length > 0;
  const karp = nodePoolsFitting.length > 0;
  if (ca && karp) {
    return {
      ...base,
      route: 'both',
      message:
        `CA and Karpenter may both provision for pod ${podKey(pod)}: CA node group(s) ${caGroupsFitting.join(', ')} and ` +
        `NodePool(s) ${nodePoolsFitting.join(', ')} can each take it, so both may add a node and one of them is wasted.`,
    };
  }
  if (ca) {
    const why = kIgnore ? ` (Karpenter ignores it: ${kIgnore.text})` : karpenterPresent ? ' (no NodePool fits it)' : '';
    return { ...base, route: 'ca', message: `Cluster Autoscaler serves pod ${podKey(pod)} via ${caGroupsFitting.join(', ')}${why}.` };
  }
  if (karp) {
    const why = !caConsiders ? (caIgnores ? ` (CA ignores it: ${caIgnores})` : '') : caPresent ? ' (no CA node group fits it)' : '';
    return { ...base, route: 'karpenter', message: `Karpenter serves pod ${podKey(pod)} via NodePool ${nodePoolsFitting[0]}${why}.` };
  }
  const reasons: string[] = [];
  if (kIgnore) reasons.push(`Karpenter ignores it: ${kIgnore.text}`);
  else if (input.nodePools.length === 0) reasons.push('Karpenter has no NodePool');
  else reasons.push(`no NodePool fits (${input.nodePools.map((p) => `${p.name}${p.reason ? `: ${p.reason}` : ''}`).join('; ')})`);
  if (!caConsiders) reasons.push(`CA ignores it${caIgnores ? `: ${caIgnores}` : ''}`);
  else if (input.caGroups.length === 0) reasons.push('CA has no node group');
  else reasons.push(`no CA node group fits (${input.caGroups.map((g) => `${g.name}${g.reason ? `: ${g.reason}` : ''}`).join('; ')})`);
  return { ...base, route: 'neither', message: `No autoscaler serves pod ${podKey(pod)}: ${reasons.join('; ')}.` };
}

/** Routes every input pod, in input order. */
export function routePendingPods(inputs: readonly PodRoutingInput[]): PodRouting[] {
  return inputs.map(routePendingPod);
}

/** Nodes labelled karpenter.sh/nodepool that a CA node group claims: a misconfiguration (both would scale them down). */
export function karpenterNodesInCaGroups(groups: ReadonlyArray<{ name: string; nodes: readonly Node[] }>): Array<{
  group: string;
  node: string;
  nodePool: string;
}> {
  const out: Array<{ group: string; node: string; nodePool: string }> = [];
  for (const g of groups) {
    for (const n of g.nodes) {
      const pool = n.metadata.labels?.[NODEPOOL_LABEL];
      if (pool !== undefined) out.push({ group: g.name, node: n.metadata.name ?? '', nodePool: pool });
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ the pod's route

/** Each autoscaler in the cluster with its own verdict on a pod that waits for a node; an absent one does not run. */
export interface RouteSides {
  ca?: AutoscalerVerdict;
  karpenter?: AutoscalerVerdict;
  /**
   * The autoscaler the pod itself asks for: it requires a label only that autoscaler's nodes carry (karpenter.sh/nodepool).
   * When no autoscaler provisions, only that one's findings are about it (another's fix would serve a pod not meant for it).
   */
  meantFor?: AutoscalerKey;
}

export interface RouteDecision {
  route: Route;
  /** The verdict of the autoscaler(s) the route names, in the shared vocabulary; the headline and exit code follow it. */
  verdict: PodVerdict;
  summary: string;
  /** The autoscalers whose findings and fixes are about this pod. */
  audience: AutoscalerKey[];
}

const AUTOSCALER_NAME: Record<AutoscalerKey, string> = { ca: 'CA', karpenter: 'Karpenter' };

/** A side's summary among both sides': named by its autoscaler unless it already says who it is. */
function labelled(k: AutoscalerKey, summary: string): string {
  return new RegExp(`^(whether )?${AUTOSCALER_NAME[k]}\\b`).test(summary) ? summary : `${AUTOSCALER_NAME[k]}: ${summary}`;
}

/**
 * The one route of a pod that waits for a node, and the verdict that follows it. The only place that decides who serves
 * a pod: a new fact that decides headlines (e.g. "CA cannot run") enters as a side's verdict.
 * - one autoscaler provisions: it serves the pod, its verdict and summary are the pod's;
 * - both provision: "either may provision", each one's plan said, whichever acts first adds the node;
 * - none provisions: the autoscalers that consider the pod say why (no-scale-up), or it is not known when one of them
 *   could not be evaluated; when every one ignores the pod, it is ignored.
 * With one autoscaler in the input, its verdict and summary pass through unchanged.
 */
export function decidePodRoute(sides: RouteSides): RouteDecision {
  const present = (['ca', 'karpenter'] as const).filter((k) => sides[k] !== undefined);
  const side = (k: AutoscalerKey) => sides[k] as AutoscalerVerdict;
  const one = present.length === 1;
  const text = (ks: readonly AutoscalerKey[]) => (ks.length === 1 && one ? side(ks[0]).summary : ks.map((k) => labelled(k, side(k).summary)).join('; '));
  if (present.length === 0) return { route: 'unknown', verdict: 'not-evaluated', summary: 'no autoscaler in the input', audience: [] };
  const provisioning = present.filter((k) => side(k).verdict === 'scale-up');
  if (provisioning.length === 2) {
    return {
      route: 'both',
      verdict: 'scale-up',
      summary: `${text(provisioning)}; either may act first, and the other's node may then be wasted`,
      audience: provisioning,
    };
  }
  if (provisioning.length === 1) return { route: provisioning[0], verdict: 'scale-up', summary: side(provisioning[0]).summary, audience: provisioning };
  const considering = present.filter((k) => side(k).verdict !== 'ignored');
  if (considering.length === 0) return { route: 'neither', verdict: 'ignored', summary: text(present), audience: present };
  const unknown = considering.some((k) => side(k).verdict === 'not-evaluated');
  // a CA that cannot run (simulate/ca-running.ts) serves its pods no node: the pod waits for it, which its verdict says
  const stopped = !unknown && considering.some((k) => side(k).verdict === 'ca-not-running');
  return {
    route: unknown ? 'unknown' : stopped && considering.length === 1 ? considering[0] : 'neither',
    verdict: unknown ? 'not-evaluated' : stopped ? 'ca-not-running' : 'no-scale-up',
    // a side that ignores the pod is said too: it is why that autoscaler does not help
    summary: text(one ? considering : present),
    audience: sides.meantFor && considering.includes(sides.meantFor) ? [sides.meantFor] : considering,
  };
}

/** Whether the pod requires a node of a Karpenter NodePool (nodeSelector or required affinity on karpenter.sh/nodepool). */
export function requiresKarpenterNode(pod: Pod): boolean {
  if (pod.spec.nodeSelector?.[NODEPOOL_LABEL] !== undefined) return true;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  // every OR term must ask for it, or the pod can land elsewhere
  return (
    terms.length > 0 &&
    terms.every((t) => (t.matchExpressions ?? []).some((r) => r.key === NODEPOOL_LABEL && (r.operator === 'In' || r.operator === 'Exists')))
  );
}
