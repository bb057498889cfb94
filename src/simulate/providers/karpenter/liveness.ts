// NodeClaims that launched but never joined (nodeclaim/lifecycle/liveness.go). Pure.
import { type KarpenterCondition, NODEPOOL_LABEL, type NodeClaim } from '../../../model/karpenter.js';
import { karpenterHas } from './versions.js';
import { LAUNCH_TTL_MS, REGISTRATION_TTL_MS, type StuckNodeClaim } from './placement-types.js';
import { cond } from './util.js';

/**
 * NodeClaims of the given pools that launched but never registered, or registered but never initialized — the
 * "node created but never joined" case. Karpenter deletes a NodeClaim not Registered 15m after the condition last
 * changed (liveness.go registrationTimeout) and one not Launched after 5m; initialization has no bound.
 */
export function stuckNodeClaims(nodeClaims: NodeClaim[], pools: ReadonlySet<string> | undefined, now: Date, version?: string): StuckNodeClaim[] {
  const out: StuckNodeClaim[] = [];
  // the 5m launch timeout is v1.7+ (liveness.go:60-130@v1.7.0); before, a NodeClaim that never launches is retried without bound
  const launchBound = karpenterHas(version, 'launch-timeout') ? LAUNCH_TTL_MS : undefined;
  for (const nc of nodeClaims) {
    const pool = nc.metadata.labels?.[NODEPOOL_LABEL] ?? '';
    if (pools && !pools.has(pool)) continue;
    if (nc.metadata.deletionTimestamp) continue;
    const conds = nc.status?.conditions;
    const launched = cond(conds, 'Launched');
    const registered = cond(conds, 'Registered');
    const initialized = cond(conds, 'Initialized');
    const since = (c: KarpenterCondition | undefined): number => {
      const t = Date.parse(c?.lastTransitionTime ?? nc.metadata.creationTimestamp ?? '');
      return Number.isFinite(t) ? now.getTime() - t : 0;
    };
    const base = {
      name: nc.metadata.name ?? '',
      nodePool: pool,
      ...(nc.status?.providerID ? { providerID: nc.status.providerID } : {}),
      ...(nc.status?.nodeName ? { nodeName: nc.status.nodeName } : {}),
    };
    if (launched?.status !== 'True') {
      const age = since(launched);
      out.push({
        ...base,
        stage: 'launch',
        ageMs: age,
        ...(launchBound !== undefined ? { boundMs: launchBound } : {}),
        overdue: launchBound !== undefined && age > launchBound,
        message: `not launched${launched?.message ? `: ${launched.message}` : launched?.reason ? ` (${launched.reason})` : ''}`,
      });
      continue;
    }
    if (registered?.status !== 'True') {
      const age = since(registered);
      out.push({
        ...base,
        stage: 'registration',
        ageMs: age,
        boundMs: REGISTRATION_TTL_MS,
        overdue: age > REGISTRATION_TTL_MS,
        message: `instance ${nc.status?.providerID ?? '(no providerID)'} launched but no Node registered${age > REGISTRATION_TTL_MS ? '; past the 15m registration timeout Karpenter deletes the NodeClaim (registration_timeout) and marks the NodePool NodeRegistrationHealthy=False' : ''}`,
      });
      continue;
    }
    if (initialized?.status !== 'True') {
      const age = since(initialized);
      out.push({
        ...base,
        stage: 'initialization',
        ageMs: age,
        overdue: false,
        message: `Node ${nc.status?.nodeName ?? ''} registered but not initialized${initialized?.message ? `: ${initialized.message}` : ''} (not Ready, startup taints still present, or extended resources not yet reported)`,
      });
    }
  }
  return out.sort((a, b) => b.ageMs - a.ageMs || a.name.localeCompare(b.name));
}
