/**
 * PodDisruptionBudgets against the workloads of a manifest set: which workloads a PDB selects and how many
 * disruptions it would allow once they run healthy. Disruption controller: pkg/controller/disruption/disruption.go
 * (getExpectedPodCount, intstr.GetScaledValueFromIntOrPercent with roundUp=true). CA's PDB rule
 * (simulator/drainability/rules/pdb) blocks a node whose pod's PDB has disruptionsAllowed < 1.
 */
import type { Pod, PodDisruptionBudget } from '../../model/k8s.js';
import type { LocatedObject } from '../../model/preflight.js';
import { compileLabelSelector } from '../../simulate/predicates/labels.js';
import type { PreflightWorkload } from '../../simulate/preflight-workloads.js';

export interface PdbEvaluation {
  pdb: LocatedObject<PodDisruptionBudget>;
  /** Workloads in the inputs whose pods the PDB selects. */
  workloads: PreflightWorkload[];
  /** Running pods of the cluster (live / --from) it selects. */
  clusterPods: number;
  /** false for a null/absent selector (selects nothing in policy/v1) or an invalid one. */
  selectorSelects: boolean;
  selectorValid: boolean;
  /** Pods the matched workloads ask for (HPA minReplicas when an HPA scales them); undefined with DaemonSets. */
  expectedPods?: number;
  /** Disruptions allowed once every expected pod is healthy; undefined when it cannot be told. */
  disruptionsAllowed?: number;
  /** "minAvailable 2" / "maxUnavailable 0" / "minAvailable 100%". */
  rule: string;
}

function scaled(v: number | string, total: number): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v.trim());
  if (m) return Math.ceil((Number(m[1]) * total) / 100);
  return /^\d+$/.test(v.trim()) ? Number(v) : undefined;
}

/** Pods a workload's PDB works with: the HPA's floor when an HPA scales it, else its replicas. */
export function podsOf(w: PreflightWorkload): number | undefined {
  return w.hpaMinReplicas ?? w.replicas;
}

export function evaluatePdb(
  pdb: LocatedObject<PodDisruptionBudget>,
  workloads: PreflightWorkload[],
  clusterPods: Pod[],
): PdbEvaluation {
  const spec = pdb.object.spec ?? {};
  const ns = pdb.object.metadata.namespace ?? 'default';
  const selector = compileLabelSelector(spec.selector);
  const selectorSelects = spec.selector !== undefined && spec.selector !== null;
  const matched = workloads.filter(
    (w) => w.namespace === ns && selector.matches(w.templateMeta.labels ?? {}),
  );
  const clusterMatched = clusterPods.filter(
    (p) =>
      (p.metadata.namespace ?? 'default') === ns &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      selector.matches(p.metadata.labels ?? {}),
  ).length;
  const counts = matched.map(podsOf);
  const expectedPods = counts.some((c) => c === undefined)
    ? undefined
    : counts.reduce<number>((s, c) => s + (c ?? 0), 0);
  let rule = 'no minAvailable or maxUnavailable';
  let disruptionsAllowed: number | undefined;
  if (spec.maxUnavailable !== undefined) {
    rule = `maxUnavailable ${spec.maxUnavailable}`;
    const zero = spec.maxUnavailable === 0 || /^0+%?$/.test(String(spec.maxUnavailable).trim());
    if (zero) disruptionsAllowed = 0;
    else if (expectedPods !== undefined) disruptionsAllowed = scaled(spec.maxUnavailable, expectedPods);
  } else if (spec.minAvailable !== undefined) {
    rule = `minAvailable ${spec.minAvailable}`;
    if (String(spec.minAvailable).trim() === '100%') disruptionsAllowed = 0;
    else if (expectedPods !== undefined) {
      const desired = scaled(spec.minAvailable, expectedPods);
      if (desired !== undefined) disruptionsAllowed = Math.max(0, expectedPods - desired);
    }
  } else if (String(pdb.object.apiVersion ?? '').endsWith('/v1beta1')) {
    // policy/v1beta1 defaulted minAvailable to 1 (SetDefaults_PodDisruptionBudgetSpec); policy/v1 has no default
    rule = 'minAvailable 1 (policy/v1beta1 default)';
    if (expectedPods !== undefined) disruptionsAllowed = Math.max(0, expectedPods - 1);
  } else if (expectedPods !== undefined) {
    // getExpectedPodCount with neither field: desiredHealthy 0, every healthy pod may be disrupted
    disruptionsAllowed = expectedPods;
  }
  return {
    pdb,
    workloads: matched,
    clusterPods: clusterMatched,
    selectorSelects,
    selectorValid: selector.valid,
    ...(expectedPods !== undefined ? { expectedPods } : {}),
    ...(disruptionsAllowed !== undefined ? { disruptionsAllowed } : {}),
    rule,
  };
}
