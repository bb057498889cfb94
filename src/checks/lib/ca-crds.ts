// Shared by the ProvisioningRequest / CapacityBuffer checks: the CRD lists of a snapshot and casdoctor's simulation wired
// to why-pending's per-group evaluation.
import {
  CA_CRD_HOW_TO_PROVIDE,
  type CaCrdKind,
  type ProvisioningRequest,
} from '../../model/ca-crds.js';
import { gatheredList } from '../../model/snapshot.js';
import type { Analysis } from '../../simulate/analysis.js';
import { explainProvisioningRequest, type ProvReqState, provReqCaSettings } from '../../simulate/provisioning-request.js';
import { type ProvReqSimulation, simulateProvisioningRequest } from '../../simulate/provisioning-request/simulation.js';
import { analyzePod } from '../../simulate/why-pending.js';

export function notGathered(kind: CaCrdKind): string {
  return `not in the snapshot (${CA_CRD_HOW_TO_PROVIDE[kind]})`;
}

const stateCache = new WeakMap<Analysis, Map<ProvisioningRequest, ProvReqState>>();

/** A ProvisioningRequest's state, computed once per analysis. */
export function provReqState(a: Analysis, pr: ProvisioningRequest): ProvReqState {
  let m = stateCache.get(a);
  if (!m) stateCache.set(a, (m = new Map()));
  let s = m.get(pr);
  if (!s) {
    const podTemplates = gatheredList(a.raw, 'podTemplates');
    s = explainProvisioningRequest(pr, {
      now: a.now,
      settings: provReqCaSettings(a.ca),
      ...(podTemplates ? { podTemplates } : {}),
    });
    m.set(pr, s);
  }
  return s;
}

/** The simulation of a ProvisioningRequest's PodSets with why-pending's evaluation of each node group. */
export function provReqSimulation(a: Analysis, pr: ProvisioningRequest): ProvReqSimulation {
  return simulateProvisioningRequest(
    pr,
    gatheredList(a.raw, 'podTemplates') ?? [],
    {
      evaluateGroups: (pod) => analyzePod(a, pod).groups,
      view: a.view,
      maxNodesPerScaleUp: a.ca.flags.maxNodesPerScaleup.value,
      taintReason: a.caTaintReason,
    },
    provReqCaSettings(a.ca).processorInstance,
  );
}

export function provReqRef(pr: ProvisioningRequest): string {
  return `${pr.metadata.namespace ?? 'default'}/${pr.metadata.name ?? ''}`;
}
