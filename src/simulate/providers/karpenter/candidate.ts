/**
 * Is the node a disruption candidate at all? Karpenter's NewCandidate (pkg/controllers/disruption/types.go) runs
 * StateNode.ValidateNodeDisruptable and ValidatePodsDisruptable (pkg/controllers/state/statenode.go): structural
 * checks, do-not-disrupt pods, PDBs. It publishes one DisruptionBlocked event, for the first check that fails.
 */
import { shellCommand } from '../../../model/shell.js';
import type { Node, Pod } from '../../../model/k8s.js';
import { DO_NOT_DISRUPT_ANNOTATION, NODE_INITIALIZED_LABEL, NODEPOOL_LABEL, type NodeClaim, type NodePool } from '../../../model/karpenter.js';
import { compileLabelSelector } from '../../predicates/labels.js';
import { podKey } from '../../predicates/status.js';
import { buildIndex, claimFor, type Index } from './cluster-state.js';
import { GRACEFUL, type KarpenterDisruptionBlocker, type KarpenterDisruptionContext, type KarpenterDisruptionMethod } from './disruption-types.js';
import { ownedBy } from './requirements.js';
import { cond, deletionState, evictionCost, iso, isActive, isNodeReady, isReschedulable, podDoNotDisrupt, stateNode, toleratesDisruptedTaint } from './statenode.js';
import { karpenterHas } from './versions.js';

export type BlockerInput = Omit<KarpenterDisruptionBlocker, 'certainty'> & { certainty?: 'exact' | 'inferred' };

/** One node's evaluation in progress: what every rule file reads, and the blockers and notes they append to. */
export interface NodeEvaluation {
  ctx: KarpenterDisruptionContext;
  idx: Index;
  claim?: NodeClaim;
  node?: Node;
  nodeName?: string;
  sn: ReturnType<typeof stateNode>;
  poolName?: string;
  np?: NodePool;
  blockers: KarpenterDisruptionBlocker[];
  notes: string[];
  now: number;
  blocked: (b: BlockerInput) => void;
}

/** A node that passed ValidateNodeDisruptable's structural checks (it may still be blocked by pods). */
export interface Candidate {
  claim: NodeClaim;
  node: Node;
  nodeName: string | undefined;
  poolName: string;
  np: NodePool;
  version: string | undefined;
  /** NewCandidate fails (some candidate check blocked). */
  candidateBlocked: boolean;
  /** How many blockers the candidate checks produced (the method filters' come after). */
  candidateCount: number;
  reschedulable: Pod[];
  empty: boolean;
}

export function startEvaluation(target: Node | NodeClaim, ctx: KarpenterDisruptionContext): NodeEvaluation {
  const idx = buildIndex(ctx);
  const isClaim = target.kind === 'NodeClaim' || (target as NodeClaim).spec?.nodeClassRef !== undefined;
  const claim = isClaim ? (target as NodeClaim) : claimFor(target as Node, idx.claimByProviderId, idx.claimByNodeName);
  const node = isClaim ? idx.nodeForClaim.get(target as NodeClaim) : (target as Node);
  const sn = stateNode(node, claim);
  const poolName = sn.labels[NODEPOOL_LABEL];
  const np = poolName !== undefined ? idx.nodePools.get(poolName) : undefined;
  const blockers: KarpenterDisruptionBlocker[] = [];
  const blocked = (b: BlockerInput) => {
    blockers.push({ certainty: 'exact', ...b });
  };
  return { ctx, idx, claim, node, nodeName: node?.metadata.name, sn, poolName, np, blockers, notes: [], now: ctx.now.getTime(), blocked };
}

const candidateEvent = (text: string) => ({
  reason: 'DisruptionBlocked' as const,
  on: 'Node and NodeClaim' as const,
  message: text.charAt(0).toUpperCase() + text.slice(1), // pretty.Sentence (pkg/utils/pretty/pretty.go:100)
});

/**
 * NewCandidate: 'stop' when the node is not Karpenter's, 'expiration-only' when a structural check ends the
 * evaluation (only forceful expiration remains to tell), else the candidate with its pods.
 */
export function newCandidate(ev: NodeEvaluation): Candidate | 'stop' | 'expiration-only' {
  const nodeChecks = validateNodeDisruptable(ev);
  if (typeof nodeChecks === 'string') return nodeChecks;
  const { claim, node, poolName, np } = nodeChecks;
  const { blockers, nodeName } = ev;
  const version = ev.ctx.settings?.version;
  const pods = validatePodsDisruptable(ev, claim, version);
  const candidateBlocked = blockers.length > 0;
  // types.go:81-107@v1.6.2 NewCandidate stops at the first failing check and publishes one DisruptionBlocked event for it
  // (statenode.go:202-250): the later blockers hold too, but Karpenter says nothing of them
  for (const b of blockers.slice(1)) {
    if (!b.event) continue;
    delete b.event;
    b.explanation += ` Karpenter publishes no event for this: it reports only the first blocker it finds ("${blockers[0].karpenterText ?? blockers[0].id}").`;
  }
  const candidateCount = blockers.length;
  const reschedulable = pods.filter(isReschedulable);
  const rescheduleCost = 1 + reschedulable.reduce((s, p) => s + Math.max(0, evictionCost(p)), 0);
  // types.go:156-158@v1.14.1 IsEmpty by eviction cost; before v1.14 no reschedulable pod at all (emptiness.go:48@v1.6.2)
  const empty = karpenterHas(version, 'emptiness-by-cost') ? rescheduleCost <= 1 : reschedulable.length === 0;
  return { claim, node, nodeName, poolName, np, version, candidateBlocked, candidateCount, reschedulable, empty };
}

// ValidateNodeDisruptable (statenode.go:212-237): structural checks end the evaluation
function validateNodeDisruptable(ev: NodeEvaluation): { claim: NodeClaim; node: Node; poolName: string; np: NodePool } | 'stop' | 'expiration-only' {
  const { ctx, idx, claim, node, nodeName, sn, poolName, np, notes, blocked } = ev;
  // ---- ValidateNodeDisruptable (statenode.go:212-237): structural checks end the evaluation
  if (!claim) {
    blocked({
      id: 'not-managed',
      blocks: ['emptiness', 'drift', 'consolidation', 'expiration'],
      karpenterText: "node isn't managed by karpenter",
      explanation:
        poolName !== undefined
          ? `Node carries ${NODEPOOL_LABEL}=${poolName} but no NodeClaim in the input has its providerID (${node?.spec?.providerID ?? 'none'}); Karpenter only disrupts nodes it tracks through a NodeClaim and publishes no event for this one.`
          : 'No NodeClaim owns this node; Karpenter does not disrupt nodes it did not launch (no event is published).',
      values: { providerID: node?.spec?.providerID ?? null, nodePoolLabel: poolName ?? null },
      fix:
        poolName !== undefined
          ? 'Check that the NodeClaims were gathered (kubectl get nodeclaims -o json); a node whose NodeClaim was deleted must be drained and deleted by hand.'
          : 'Nothing to fix if another autoscaler (CA, a managed node group) owns this node.',
      source: 'pkg/controllers/state/statenode.go:213-215',
    });
    return 'stop';
  }
  if (!node) {
    blocked({
      id: 'nodeclaim-without-node',
      blocks: ['emptiness', 'drift', 'consolidation'],
      karpenterText: 'nodeclaim does not have an associated node',
      // events.go:95-115 Blocked: no Node, so only the NodeClaim gets the event
      event: { reason: 'DisruptionBlocked', on: 'NodeClaim', message: 'Nodeclaim does not have an associated node' },
      explanation: `NodeClaim ${claim.metadata.name} has no Node yet (providerID ${claim.status?.providerID ?? 'not set'}); Karpenter does not disrupt it until the node registers, and the registration TTL replaces it if it never does.`,
      values: { providerID: claim.status?.providerID ?? null, launched: cond(claim.status?.conditions, 'Launched')?.status ?? null },
      fix: 'Look at the NodeClaim conditions Launched/Registered and the instance console output for why the kubelet did not join.',
      source: 'pkg/controllers/state/statenode.go:216-218',
    });
    return 'expiration-only';
  }
  if (!sn.initialized) {
    blocked({
      id: 'not-initialized',
      blocks: GRACEFUL,
      karpenterText: "node isn't initialized",
      event: candidateEvent("node isn't initialized"),
      explanation: `Node lacks ${NODE_INITIALIZED_LABEL}=true: Karpenter waits until it is Ready, its startup taints are gone and its extended resources are registered.`,
      values: {
        [NODE_INITIALIZED_LABEL]: node.metadata.labels?.[NODE_INITIALIZED_LABEL] ?? null,
        registered: sn.registered,
        ready: isNodeReady(node),
        startupTaints: (claim.spec.startupTaints ?? []).map((t) => `${t.key}:${t.effect}`).join(',') || null,
      },
      fix: 'Check the NodeClaim Initialized condition message: a startup taint nobody removes or a device plugin that never registers keeps it here.',
      source: 'pkg/controllers/state/statenode.go:219-221',
    });
  }
  const del = deletionState(node, claim);
  if (del.marked) {
    blocked({
      id: 'marked-for-deletion',
      blocks: GRACEFUL,
      certainty: del.certainty,
      karpenterText: 'node is deleting or marked for deletion',
      event: candidateEvent('node is deleting or marked for deletion'),
      explanation: `The node is already on its way out (${del.why}); it counts against the NodePool's budget until it is gone.`,
      values: { evidence: del.why ?? null },
      fix: 'Nothing to do unless it stays: a node stuck deleting usually waits on a PDB or a do-not-disrupt pod during drain.',
      source: 'pkg/controllers/state/statenode.go:222-224,438-449',
    });
  }
  const nominations = [...(idx.nominatedBy.get(`node/${nodeName}`) ?? []), ...(idx.nominatedBy.get(`nodeclaim/${claim.metadata.name}`) ?? [])];
  const preemptors = idx.preemptorsByNode.get(nodeName ?? '') ?? [];
  if (preemptors.length > 0) {
    // IsProvisionable skips preempting pods (pkg/utils/pod/scheduling.go:105,138-140): they never nominate a node
    notes.push(
      `Pending pod(s) ${preemptors.join(', ')} carry status.nominatedNodeName=${nodeName} (kube-scheduler preemption). Karpenter ignores preempting pods, so this does not block disruption; consolidating the node would take their target away.`,
    );
  }
  if (nominations.length > 0) {
    const until = Math.max(...nominations.map((n) => n.until));
    blocked({
      id: 'nominated',
      blocks: GRACEFUL,
      certainty: 'inferred',
      karpenterText: 'node is nominated for a pending pod',
      event: candidateEvent('node is nominated for a pending pod'),
      explanation: `Karpenter's last scheduling pass placed pending pod(s) ${[...new Set(nominations.map((n) => n.pod))].join(', ')} on this node (event Nominated); the nomination lasts max(2 x BATCH_MAX_DURATION, 10s) and is renewed while the pods stay pending.`,
      values: { pods: [...new Set(nominations.map((n) => n.pod))].join(', '), nominatedUntil: iso(until) },
      fix: 'Usually transient. If it persists, the pending pods keep landing here in simulation but never bind: look at why they stay Pending.',
      source: 'pkg/controllers/state/statenode.go:226-228,455-457; provisioning/scheduling/scheduler.go:312-320',
    });
  }
  if (sn.annotations[DO_NOT_DISRUPT_ANNOTATION] === 'true') {
    const text = `disruption is blocked through the "${DO_NOT_DISRUPT_ANNOTATION}" annotation`;
    blocked({
      id: 'node-do-not-disrupt',
      blocks: GRACEFUL,
      karpenterText: text,
      event: candidateEvent(text),
      explanation: `The ${sn.registered ? 'Node' : 'NodeClaim'} has ${DO_NOT_DISRUPT_ANNOTATION}: "true"; no voluntary method touches it (expiration still does).`,
      values: { annotation: DO_NOT_DISRUPT_ANNOTATION, value: 'true', on: sn.registered ? 'Node' : 'NodeClaim' },
      fix: shellCommand(['kubectl', 'annotate', 'node', nodeName ?? '<node>', `${DO_NOT_DISRUPT_ANNOTATION}-`]),
      source: 'pkg/controllers/state/statenode.go:229-231',
    });
  } else if (sn.annotations[DO_NOT_DISRUPT_ANNOTATION] !== undefined) {
    notes.push(
      `Node annotation ${DO_NOT_DISRUPT_ANNOTATION}="${sn.annotations[DO_NOT_DISRUPT_ANNOTATION]}" is ignored: on a node only "true" counts (statenode.go:229).`,
    );
  }
  if (poolName === undefined) {
    const text = `node doesn't have required label (label=${NODEPOOL_LABEL})`;
    blocked({
      id: 'missing-nodepool-label',
      blocks: GRACEFUL,
      karpenterText: text,
      event: candidateEvent(text),
      explanation: `The node has a NodeClaim but no ${NODEPOOL_LABEL} label, so Karpenter cannot find its NodePool.`,
      values: { label: NODEPOOL_LABEL },
      fix: `Restore the label from the NodeClaim: ${shellCommand(['kubectl', 'label', 'node', nodeName ?? '<node>', `${NODEPOOL_LABEL}=${claim.metadata.labels?.[NODEPOOL_LABEL] ?? '<nodepool>'}`])}`,
      source: 'pkg/controllers/state/statenode.go:233-235',
    });
    return 'expiration-only';
  }
  if (!np) {
    const text = `NodePool not found (NodePool=${poolName})`;
    blocked({
      id: 'nodepool-not-found',
      blocks: GRACEFUL,
      karpenterText: 'nodepool not found (NodePool=' + poolName + ')',
      event: { reason: 'DisruptionBlocked', on: 'Node and NodeClaim', message: text },
      explanation: `NodePool ${poolName} is not in the input (deleted, or it resolves no instance types, which Karpenter reports the same way).`,
      values: { nodePool: poolName },
      fix: `${shellCommand(['kubectl', 'get', 'nodepool', poolName])}; a NodePool whose NodeClass is not Ready resolves no instance types.`,
      source: 'pkg/controllers/disruption/types.go:183-186',
    });
    return 'expiration-only';
  }
  if (ctx.instanceTypesByNodePool?.[poolName] && ctx.instanceTypesByNodePool[poolName].length === 0) {
    notes.push(`NodePool ${poolName} resolves no instance types: Karpenter treats it as "NodePool not found" (types.go:183).`);
  }

  return { claim, node, poolName, np };
}

function validatePodsDisruptable(ev: NodeEvaluation, claim: NodeClaim, version: string | undefined): Pod[] {
  const { ctx, idx, nodeName, notes, blockers, blocked } = ev;
  const pods = idx.podsByNode.get(nodeName ?? '') ?? [];
  const tgp = claim.spec.terminationGracePeriod;
  // types.go:189-198: drift is "eventual"; with terminationGracePeriod set, pod blockers do not stop it
  const podBlocks: KarpenterDisruptionMethod[] = tgp ? ['emptiness', 'consolidation'] : GRACEFUL;
  const podTgpNote = tgp ? ` Drift still proceeds: the NodeClaim has terminationGracePeriod ${tgp}, after which pods are deleted anyway.` : '';
  const durations = karpenterHas(version, 'do-not-disrupt-duration');
  for (const p of pods) {
    if (!isActive(p)) continue; // IsDisruptable: non-active pods never block
    const dnd = podDoNotDisrupt(p, ctx.now, durations);
    if (dnd.active) {
      const text = `pod has "${DO_NOT_DISRUPT_ANNOTATION}" annotation (Pod=${podKey(p)})`;
      blocked({
        id: 'pod-do-not-disrupt',
        blocks: podBlocks,
        karpenterText: text,
        event: candidateEvent(text),
        explanation:
          (dnd.value === 'true'
            ? `Pod ${podKey(p)} has ${DO_NOT_DISRUPT_ANNOTATION}: "true".`
            : dnd.until
              ? `Pod ${podKey(p)} has ${DO_NOT_DISRUPT_ANNOTATION}: "${dnd.value}", counted from its start (${p.status?.startTime}); protection ends at ${dnd.until}.`
              : `Pod ${podKey(p)} has ${DO_NOT_DISRUPT_ANNOTATION}: "${dnd.value}" but no status.startTime, so Karpenter keeps it protected.`) + podTgpNote,
        values: { pod: podKey(p), value: dnd.value, until: dnd.until ?? null },
        fix:
          dnd.value === 'true'
            ? `Remove the annotation when the work is done (${shellCommand(['kubectl', 'annotate', 'pod', '-n', p.metadata.namespace ?? 'default', p.metadata.name ?? '', `${DO_NOT_DISRUPT_ANNOTATION}-`])}), or use a duration such as "1h".`
            : `Wait until ${dnd.until ?? 'the pod reports a startTime'}, or shorten the duration.`,
        source: 'pkg/controllers/state/statenode.go:249-254; pkg/utils/pod/scheduling.go:210-252',
      });
    } else if (dnd.reason === 'invalid') {
      notes.push(`Pod ${podKey(p)}: Invalid ${DO_NOT_DISRUPT_ANNOTATION} annotation: ${dnd.invalidMessage}, ignoring annotation (pkg/utils/pod/events.go:33).`);
    } else if (dnd.reason === 'unsupported') {
      notes.push(
        `Pod ${podKey(p)}: ${DO_NOT_DISRUPT_ANNOTATION}="${p.metadata.annotations?.[DO_NOT_DISRUPT_ANNOTATION]}" does not protect it: Karpenter ${ctx.settings?.version} honours only "true" (durations arrived in v1.12.0).`,
      );
    } else if (dnd.reason === 'elapsed') {
      notes.push(`Pod ${podKey(p)}: the ${DO_NOT_DISRUPT_ANNOTATION} grace period elapsed at ${dnd.until}; it no longer blocks.`);
    }
  }
  for (const p of pods) {
    // pdb.go:88-130 isEvictable: pods Karpenter will not evict are not subject to PDBs
    if (!isActive(p) || toleratesDisruptedTaint(p) || ownedBy(p, 'v1', 'Node') || podDoNotDisrupt(p, ctx.now, durations).active) continue;
    const matching = ctx.pdbs.filter(
      (b) => (b.metadata.namespace ?? 'default') === (p.metadata.namespace ?? 'default') && compileLabelSelector(b.spec?.selector).matches(p.metadata.labels),
    );
    const keys = matching.map((b) => `${b.metadata.namespace ?? 'default'}/${b.metadata.name}`);
    if (!karpenterHas(version, 'pdb-list')) {
      // pdb.go:85-118@v1.6.2 isEvictable: the PDBs in list order, the first matching one decides; the text names one PDB
      // without brackets (statenode.go:247@v1.6.2); several PDBs are not refused before v1.7
      for (const [i, pb] of matching.entries()) {
        if (pb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' && (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'False')) break;
        if ((pb.status?.disruptionsAllowed ?? 0) !== 0) continue;
        const text = `pdb prevents pod evictions (PodDisruptionBudget=${keys[i]})`;
        blocked({
          id: 'pdb-blocks-eviction',
          blocks: podBlocks,
          karpenterText: text,
          event: candidateEvent(text),
          explanation: `PodDisruptionBudget ${keys[i]} allows 0 disruptions now (currentHealthy ${pb.status?.currentHealthy ?? '?'}, desiredHealthy ${pb.status?.desiredHealthy ?? '?'}, expectedPods ${pb.status?.expectedPods ?? '?'}) and covers pod ${podKey(p)}.${matching.length > 1 ? ` The pod is under ${matching.length} PDBs (${keys.join(', ')}); this Karpenter does not refuse that, but the eviction API will, so a drain of the node would stall.` : ''}${podTgpNote}`,
          values: { pod: podKey(p), pdb: keys[i], disruptionsAllowed: 0, minAvailable: pb.spec?.minAvailable ?? null, maxUnavailable: pb.spec?.maxUnavailable ?? null },
          fix: 'Add replicas or relax minAvailable/maxUnavailable so the PDB allows at least one disruption; set terminationGracePeriod on the NodePool to bound how long drift/expiry wait.',
          source: 'pkg/controllers/state/statenode.go:247@v1.6.2; pkg/utils/pdb/pdb.go:85-118@v1.6.2',
        });
        break;
      }
      if (matching.length > 1 && !blockers.some((x) => x.id === 'pdb-blocks-eviction' && x.values.pod === podKey(p))) {
        notes.push(`Pod ${podKey(p)} is under ${matching.length} PodDisruptionBudgets (${keys.join(', ')}): Karpenter ${version} does not check that (the check arrived in v1.7.0), so the node can be chosen and its drain then stalls, because the eviction API refuses pods under several PDBs.`);
      }
      continue;
    }
    if (matching.length > 1) {
      // the eviction API refuses pods under several PDBs whatever they allow (pdb.go:99-105)
      const text = `eviction does not support multiple PDBs (PodDisruptionBudget(s)=[${keys.join(' ')}])`;
      blocked({
        id: 'multiple-pdbs',
        blocks: podBlocks,
        karpenterText: text,
        event: candidateEvent(text),
        explanation: `Pod ${podKey(p)} is selected by ${matching.length} PodDisruptionBudgets (${keys.join(', ')}); the Kubernetes eviction API rejects such pods, so Karpenter (v1.7+) never tries.${podTgpNote}`,
        values: { pod: podKey(p), pdbs: keys.join(', ') },
        fix: 'Make the PDB selectors disjoint so each pod is covered by at most one PodDisruptionBudget.',
        source: 'pkg/controllers/state/statenode.go:257-258; pkg/utils/pdb/pdb.go:99-105',
      });
      continue;
    }
    const b = matching[0];
    if (!b) continue;
    if (b.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' && (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'False')) {
      continue; // pdb.go:110-116
    }
    const allowed = b.status?.disruptionsAllowed ?? 0;
    if (allowed === 0) {
      const text = `pdb prevents pod evictions (PodDisruptionBudget=[${keys[0]}])`;
      blocked({
        id: 'pdb-blocks-eviction',
        blocks: podBlocks,
        karpenterText: text,
        event: candidateEvent(text),
        explanation: `PodDisruptionBudget ${keys[0]} allows 0 disruptions now (currentHealthy ${b.status?.currentHealthy ?? '?'}, desiredHealthy ${b.status?.desiredHealthy ?? '?'}, expectedPods ${b.status?.expectedPods ?? '?'}) and covers pod ${podKey(p)}.${podTgpNote}`,
        values: {
          pod: podKey(p),
          pdb: keys[0],
          disruptionsAllowed: allowed,
          minAvailable: b.spec?.minAvailable ?? null,
          maxUnavailable: b.spec?.maxUnavailable ?? null,
        },
        fix: 'Add replicas or relax minAvailable/maxUnavailable so the PDB allows at least one disruption; set terminationGracePeriod on the NodePool to bound how long drift/expiry wait.',
        source: 'pkg/controllers/state/statenode.go:256-261; pkg/utils/pdb/pdb.go:118-122',
      });
    }
  }
  return pods;
}
