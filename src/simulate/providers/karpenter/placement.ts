// Why a pending pod gets no Karpenter node: Karpenter's provisioning decision per NodePool, in its order and words
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go, scheduling/scheduler.go, scheduling/nodeclaim.go),
// plus what its event no longer says since v1.5 (which pool, the DaemonSet overhead, the remaining limits) and the
// instance types left at each filter step. Also NodeClaims of the pod's pools that launched but never joined. Pure.
// The model lives in files named after Karpenter's own (scheduler.ts, nodeclaim.ts, existing-node.ts, topology.ts,
// preferences.ts, volume-topology.ts, …); this file is what the rest of casdoctor imports.
export * from './placement-types.js';
export { prettyTaint, resourcesString } from './util.js';
export { hasDRARequirements, karpenterPodEligibility } from './eligibility.js';
export { orderNodePools, remainingLimits, templateRequirements } from './nodepools.js';
export { amiLaunchError } from './nodeclaim.js';
export { relaxationAttempts } from './preferences.js';
export { stuckNodeClaims } from './liveness.js';
export { explainKarpenterPending } from './scheduler.js';
