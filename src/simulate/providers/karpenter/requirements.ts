// Karpenter's requirement algebra (kubernetes-sigs/karpenter pkg/scheduling/requirement.go, requirements.go), used by
// the placement funnel to reproduce its checks and its error texts. Pure.
import type { NodeSelectorRequirement, Pod } from '../../../model/k8s.js';
import type { NodeSelectorRequirementWithMinValues } from '../../../model/karpenter.js';
import { karpenterHas, type KarpenterRule } from './versions.js';

export interface KRequirement {
  key: string;
  /** true: NotIn/Exists (values are excluded); false: In/DoesNotExist (values are the allowed set). */
  complement: boolean;
  values: Set<string>;
  gte?: number;
  lte?: number;
  minValues?: number;
}

export type KRequirements = Map<string, KRequirement>;

// karpenter pkg/apis/v1/labels.go WellKnownLabels + the AWS provider's additions (karpenter-provider-aws pkg/apis/v1/labels.go init)
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  'karpenter.sh/nodepool',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'karpenter.sh/capacity-type',
  'node.kubernetes.io/windows-build',
  'karpenter.k8s.aws/capacity-reservation-id',
  'karpenter.k8s.aws/capacity-reservation-type',
  'karpenter.k8s.aws/capacity-reservation-interruptible',
  'karpenter.k8s.aws/instance-hypervisor',
  'karpenter.k8s.aws/instance-encryption-in-transit-supported',
  'karpenter.k8s.aws/nitro-sandbox',
  'karpenter.k8s.aws/instance-category',
  'karpenter.k8s.aws/instance-capability-flex',
  'karpenter.k8s.aws/instance-family',
  'karpenter.k8s.aws/instance-generation',
  'karpenter.k8s.aws/instance-size',
  'karpenter.k8s.aws/instance-local-nvme',
  'karpenter.k8s.aws/instance-cpu',
  'karpenter.k8s.aws/instance-cpu-manufacturer',
  'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz',
  'karpenter.k8s.aws/instance-memory',
  'karpenter.k8s.aws/instance-ebs-bandwidth',
  'karpenter.k8s.aws/instance-network-bandwidth',
  'karpenter.k8s.aws/instance-gpu-name',
  'karpenter.k8s.aws/instance-gpu-manufacturer',
  'karpenter.k8s.aws/instance-gpu-count',
  'karpenter.k8s.aws/instance-gpu-memory',
  'karpenter.k8s.aws/instance-accelerator-name',
  'karpenter.k8s.aws/instance-accelerator-manufacturer',
  'karpenter.k8s.aws/instance-accelerator-count',
  'topology.k8s.aws/zone-id',
  'karpenter.k8s.aws/instance-tenancy',
  'karpenter.k8s.aws/placement-group-id',
  'karpenter.k8s.aws/placement-group-partition',
]);

// the AWS labels that became well-known after v1.6 (versions.ts); before, they are restricted like the rest of their domain
const LATER_WELL_KNOWN: ReadonlyArray<[KarpenterRule, string[]]> = [
  ['wellknown-instance-capability-flex', ['karpenter.k8s.aws/instance-capability-flex']],
  ['wellknown-instance-tenancy', ['karpenter.k8s.aws/instance-tenancy']],
  ['wellknown-capacity-reservation-interruptible', ['karpenter.k8s.aws/capacity-reservation-interruptible']],
  ['wellknown-placement-group', ['karpenter.k8s.aws/placement-group-id', 'karpenter.k8s.aws/placement-group-partition']],
  ['wellknown-nitro-sandbox', ['karpenter.k8s.aws/nitro-sandbox']],
];

const wellKnownByVersion = new Map<string, ReadonlySet<string>>();

/** WellKnownLabels of the input's Karpenter (AWS provider version); the newest set when the version is unknown. */
export function wellKnownLabelsFor(version: string | undefined): ReadonlySet<string> {
  const key = version ?? '';
  const hit = wellKnownByVersion.get(key);
  if (hit) return hit;
  const drop = new Set<string>();
  for (const [rule, keys] of LATER_WELL_KNOWN) if (!karpenterHas(version, rule)) for (const k of keys) drop.add(k);
  const out = drop.size === 0 ? WELL_KNOWN_LABELS : new Set([...WELL_KNOWN_LABELS].filter((k) => !drop.has(k)));
  wellKnownByVersion.set(key, out);
  return out;
}

/** Hidden from Requirements.String() (labels.go RestrictedLabels). */
const RESTRICTED_LABELS = new Set(['kubernetes.io/hostname']);

// labels.go NormalizedLabels: pod requirements on the beta aliases are rewritten to the stable keys
export const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
  // the AWS provider adds the EBS CSI zone label (karpenter-provider-aws pkg/operator/operator.go init())
  'topology.ebs.csi.aws.com/zone': 'topology.kubernetes.io/zone',
};

function atoi(v: string | undefined): number | undefined {
  if (v === undefined || !/^[+-]?\d+$/.test(v.trim())) return undefined;
  return Number.parseInt(v, 10);
}

/** requirement.go NewRequirementWithFlexibility. */
export function newRequirement(key: string, operator: string, values: readonly string[] = [], minValues?: number): KRequirement {
  const k = NORMALIZED_LABELS[key] ?? key;
  const base = minValues !== undefined ? { minValues } : {};
  if (operator === 'In') return { key: k, complement: false, values: new Set(values), ...base };
  const r: KRequirement = { key: k, complement: operator !== 'DoesNotExist', values: new Set(), ...base };
  if (operator === 'NotIn') for (const v of values) r.values.add(v);
  const n = atoi(values[0]);
  if (operator === 'Gt' && n !== undefined) {
    if (n === Number.MAX_SAFE_INTEGER) return { key: k, complement: false, values: new Set(), ...base };
    r.gte = n + 1; // Gt N canonicalised to Gte N+1
  }
  if (operator === 'Lt' && n !== undefined) r.lte = n - 1;
  if (operator === 'Gte' && n !== undefined) r.gte = n;
  if (operator === 'Lte' && n !== undefined) r.lte = n;
  return r;
}

function withinBounds(v: string, gte?: number, lte?: number): boolean {
  if (gte === undefined && lte === undefined) return true;
  const n = atoi(v);
  if (n === undefined) return false;
  return !(gte !== undefined && n < gte) && !(lte !== undefined && n > lte);
}

function maxOpt(a?: number, b?: number): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
function minOpt(a?: number, b?: number): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** requirement.go Intersection. */
export function intersection(a: KRequirement, b: KRequirement): KRequirement {
  const complement = a.complement && b.complement;
  let gte = maxOpt(a.gte, b.gte);
  let lte = minOpt(a.lte, b.lte);
  const minValues = maxOpt(a.minValues, b.minValues);
  const mv = minValues !== undefined ? { minValues } : {};
  if (gte !== undefined && lte !== undefined && gte > lte) return { key: a.key, complement: false, values: new Set(), ...mv };
  let values: Set<string>;
  if (a.complement && b.complement) values = new Set([...a.values, ...b.values]);
  else if (a.complement) values = new Set([...b.values].filter((v) => !a.values.has(v)));
  else if (b.complement) values = new Set([...a.values].filter((v) => !b.values.has(v)));
  else values = new Set([...a.values].filter((v) => b.values.has(v)));
  for (const v of [...values]) if (!withinBounds(v, gte, lte)) values.delete(v);
  if (!complement) {
    gte = undefined;
    lte = undefined;
  }
  return {
    key: a.key,
    complement,
    values,
    ...(gte !== undefined ? { gte } : {}),
    ...(lte !== undefined ? { lte } : {}),
    ...mv,
  };
}

/** requirement.go HasIntersection. */
export function hasIntersection(a: KRequirement, b: KRequirement): boolean {
  const gte = maxOpt(a.gte, b.gte);
  const lte = minOpt(a.lte, b.lte);
  if (gte !== undefined && lte !== undefined && gte > lte) return false;
  if (a.complement && b.complement) return true;
  if (a.complement) return [...b.values].some((v) => !a.values.has(v) && withinBounds(v, gte, lte));
  if (b.complement) return [...a.values].some((v) => !b.values.has(v) && withinBounds(v, gte, lte));
  return [...a.values].some((v) => b.values.has(v) && withinBounds(v, gte, lte));
}

/** requirement.go Operator: Gt/Lt/Gte/Lte read as Exists with bounds. */
export function operatorOf(r: KRequirement): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
  if (r.complement) return r.values.size > 0 ? 'NotIn' : 'Exists';
  return r.values.size > 0 ? 'In' : 'DoesNotExist';
}

/** requirement.go Has. */
export function requirementHas(r: KRequirement, value: string): boolean {
  const inSet = r.values.has(value);
  return (r.complement ? !inSet : inSet) && withinBounds(value, r.gte, r.lte);
}

// Karpenter before v1.9.0 kept Gt/Lt and printed " >5" / " <9"; v1.9.0 canonicalised them to Gte/Lte (" >=6").
let legacyBounds = false;
// the well-known labels of the Karpenter being explained (compatible()'s default)
let activeWellKnown: ReadonlySet<string> = WELL_KNOWN_LABELS;

/** Runs fn with requirement texts and well-known labels as the given Karpenter version has them (undefined: the newest). */
export function withKarpenterTextVersion<T>(version: string | undefined, fn: () => T): T {
  const before = legacyBounds;
  const beforeWk = activeWellKnown;
  legacyBounds = !karpenterHas(version, 'requirement-bounds-gte');
  activeWellKnown = wellKnownLabelsFor(version);
  try {
    return fn();
  } finally {
    legacyBounds = before;
    activeWellKnown = beforeWk;
  }
}

/** The well-known labels in force (those of the version withKarpenterTextVersion runs under). */
export function activeWellKnownLabels(): ReadonlySet<string> {
  return activeWellKnown;
}

/** requirement.go String: "key In [a b]" (Go's %s of a sorted []string), at most five values then "and N others". */
export function requirementString(r: KRequirement): string {
  const op = operatorOf(r);
  let s: string;
  if (op === 'Exists' || op === 'DoesNotExist') s = `${r.key} ${op}`;
  else {
    let values = [...r.values].sort();
    if (values.length > 5) values = [...values.slice(0, 5), `and ${values.length - 5} others`];
    s = `${r.key} ${op} [${values.join(' ')}]`;
  }
  if (r.gte !== undefined) s += legacyBounds ? ` >${r.gte - 1}` : ` >=${r.gte}`;
  if (r.lte !== undefined) s += legacyBounds ? ` <${r.lte + 1}` : ` <=${r.lte}`;
  if (r.minValues !== undefined) s += ` minValues ${r.minValues}`;
  return s;
}

/** requirements.go String: sorted, hostname hidden, joined by ", ". */
export function requirementsString(reqs: KRequirements): string {
  return [...reqs.values()]
    .filter((r) => !RESTRICTED_LABELS.has(r.key))
    .map(requirementString)
    .sort()
    .join(', ');
}

/** requirements.go Add: intersects with an existing requirement on the same key. */
export function addRequirement(reqs: KRequirements, r: KRequirement): void {
  const existing = reqs.get(r.key);
  reqs.set(r.key, existing ? intersection(r, existing) : r);
}

export function copyRequirements(reqs: KRequirements): KRequirements {
  return new Map(reqs);
}

export function requirementsFrom(list: ReadonlyArray<NodeSelectorRequirementWithMinValues | NodeSelectorRequirement>): KRequirements {
  const out: KRequirements = new Map();
  for (const r of list) addRequirement(out, newRequirement(r.key, r.operator, r.values ?? [], (r as NodeSelectorRequirementWithMinValues).minValues));
  return out;
}

export function labelRequirements(labels: Record<string, string> | undefined): KRequirements {
  const out: KRequirements = new Map();
  for (const [k, v] of Object.entries(labels ?? {})) addRequirement(out, newRequirement(k, 'In', [v]));
  return out;
}

/** requirements.go Get: an undefined key reads as Exists. */
export function getRequirement(reqs: KRequirements, key: string): KRequirement {
  return reqs.get(key) ?? newRequirement(key, 'Exists');
}

/**
 * requirements.go newPodRequirements with only required terms (NewStrictPodRequirements), using required node-affinity
 * term `termIndex`: Karpenter starts with the first term and relaxes to the next one after a failure (preferences.go
 * removeRequiredNodeAffinityTerm), so the error it finally reports belongs to the last term.
 */
export function podRequirements(pod: Pod, termIndex = 0): KRequirements {
  const reqs = labelRequirements(pod.spec.nodeSelector);
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const term = terms[termIndex];
  if (term) for (const r of requirementsFrom(term.matchExpressions ?? []).values()) addRequirement(reqs, r);
  return reqs;
}

export function requiredTermCount(pod: Pod): number {
  return Math.max(1, pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.length ?? 0);
}

function suffixOf(key: string): string {
  const i = key.indexOf('/');
  return i >= 0 ? key.slice(i + 1) : key;
}

// requirements.go labelHint; Go iterates sets in random order, we take sorted order for a stable text
function labelHint(reqs: KRequirements, key: string, allowUndefined: ReadonlySet<string>): string {
  for (const wk of [...allowUndefined].sort()) {
    if (wk.includes(key) || wk.endsWith(suffixOf(key))) return ` (typo of "${wk}"?)`;
  }
  for (const existing of [...reqs.keys()].sort()) {
    if (existing.includes(key) || existing.endsWith(suffixOf(key))) return ` (typo of "${existing}"?)`;
  }
  return '';
}

/** requirements.go Intersects: one "key K, <incoming> not in <existing>" per conflicting key (sorted by key here). */
export function intersects(existing: KRequirements, incoming: KRequirements): string[] {
  const errs: string[] = [];
  const keys = [...existing.keys()].filter((k) => incoming.has(k)).sort();
  for (const key of keys) {
    const e = existing.get(key) as KRequirement;
    const i = incoming.get(key) as KRequirement;
    if (hasIntersection(e, i)) continue;
    const io = operatorOf(i);
    const eo = operatorOf(e);
    if ((io === 'NotIn' || io === 'DoesNotExist') && (eo === 'NotIn' || eo === 'DoesNotExist')) continue;
    errs.push(`key ${key}, ${requirementString(i)} not in ${requirementString(e)}`);
  }
  return errs;
}

/**
 * requirements.go Compatible with AllowUndefinedWellKnownLabels: a custom key the pod requires (In/Exists/Gt/Lt) must be
 * defined by the NodePool (requirements or template labels) — the first such key fails with `label "K" does not have
 * known values`; then well-known keys must intersect. Returns the error text ("; "-joined like multierr) or undefined.
 */
export function compatible(
  existing: KRequirements,
  incoming: KRequirements,
  allowUndefined: ReadonlySet<string> = activeWellKnown,
): string | undefined {
  for (const key of incoming.keys()) {
    if (allowUndefined.has(key)) continue;
    const op = operatorOf(getRequirement(incoming, key));
    if (existing.has(key) || op === 'NotIn' || op === 'DoesNotExist') continue;
    return `label "${key}" does not have known values${labelHint(existing, key, allowUndefined)}`;
  }
  const errs = intersects(existing, incoming);
  return errs.length > 0 ? errs.join('; ') : undefined;
}

/** Values a requirement admits, for display ("any" when unbounded). */
export function describeAllowed(r: KRequirement | undefined): string {
  if (!r) return 'any';
  const op = operatorOf(r);
  if (op === 'In') return [...r.values].sort().join(', ');
  if (op === 'DoesNotExist') return 'none';
  if (op === 'NotIn') return `any but ${[...r.values].sort().join(', ')}`;
  return 'any';
}

/** pod/scheduling.go IsOwnedBy: an owner reference of exactly this apiVersion and kind (no group matching). */
export function ownedBy(pod: Pod, apiVersion: string, kind: string): boolean {
  return (pod.metadata.ownerReferences ?? []).some((o) => o.apiVersion === apiVersion && o.kind === kind);
}
