/**
 * --balance-similar-node-groups: which node groups CA treats as one set, and the first difference that splits two.
 * CA: pkg/processors/nodegroupset/compare_nodegroups.go IsCloudProviderNodeInfoSimilar, aws_nodegroups.go
 * CreateAwsNodeInfoComparator, label_nodegroups.go (--balancing-label), balancing_processor.go.
 */
import type { CaConfig } from '../model/ca-config.js';
import type { NodeInfo, Resources } from '../model/scheduling.js';
import { caFlagNumber, caFlagStrings } from './ca-flag-values.js';
import { parseResourceList } from './resources.js';

// CA: compare_nodegroups.go BasicIgnoredLabels
export const BASIC_IGNORED_LABELS = [
  'kubernetes.io/hostname',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'beta.kubernetes.io/fluentd-ds-ready',
  'kops.k8s.io/instancegroup',
];
// CA: aws_nodegroups.go CreateAwsNodeInfoComparator
export const AWS_IGNORED_LABELS = [
  'alpha.eksctl.io/instance-id',
  'alpha.eksctl.io/nodegroup-name',
  'eks.amazonaws.com/nodegroup',
  'k8s.amazonaws.com/eniConfig',
  'lifecycle',
  'topology.ebs.csi.aws.com/zone',
];
// added in 1.35.0 and backported to 1.32.6, 1.33.4, 1.34.3 (kubernetes/autoscaler a3fcb495dc and its cherry-picks)
export const AWS_ZONE_ID_LABEL = 'topology.k8s.aws/zone-id';

export interface BalancingConfig {
  /** --balance-similar-node-groups */
  enabled: boolean;
  /** Labels ignored when comparing: basic + AWS (version-dependent) + --balancing-ignore-label. */
  ignoredLabels: Set<string>;
  /** --balancing-label: when set, only these labels are compared and nothing else. */
  balancingLabels: string[];
  memoryDifferenceRatio: number;
  maxAllocatableDifferenceRatio: number;
  maxFreeDifferenceRatio: number;
}

/** Whether this CA version's AWS comparator ignores topology.k8s.aws/zone-id. */
export function awsIgnoresZoneId(version: { minor: number; version?: string; known: boolean }): boolean {
  if (!version.known) return true;
  const m = /^v?1\.(\d+)\.(\d+)/.exec(version.version ?? '');
  const minor = m ? Number(m[1]) : version.minor;
  const patch = m ? Number(m[2]) : 0;
  if (minor >= 35) return true;
  return (minor === 34 && patch >= 3) || (minor === 33 && patch >= 4) || (minor === 32 && patch >= 6);
}

export function balancingConfigFrom(ca: CaConfig): BalancingConfig {
  const extra = caFlagStrings(ca, 'balancing-ignore-label');
  const ignored = new Set([...BASIC_IGNORED_LABELS, ...AWS_IGNORED_LABELS, ...extra]);
  if (awsIgnoresZoneId(ca.version)) ignored.add(AWS_ZONE_ID_LABEL);
  return {
    enabled: ca.flags.balanceSimilarNodeGroups.value,
    ignoredLabels: ignored,
    balancingLabels: caFlagStrings(ca, 'balancing-label'),
    // CA: config/autoscaling_options.go DefaultMaxCapacityMemoryDifferenceRatio etc.
    memoryDifferenceRatio: caFlagNumber(ca, 'memory-difference-ratio', 0.015),
    maxAllocatableDifferenceRatio: caFlagNumber(ca, 'max-allocatable-difference-ratio', 0.05),
    maxFreeDifferenceRatio: caFlagNumber(ca, 'max-free-difference-ratio', 0.05),
  };
}

function withinTolerance(a: number, b: number, ratio: number): boolean {
  const larger = Math.max(a, b);
  const smaller = Math.min(a, b);
  return larger - smaller <= larger * ratio;
}

// scheduler units -> milli-units, as Quantity.MilliValue() (cpu is already milli)
function milli(res: string, v: number): number {
  return res === 'cpu' ? v : v * 1000;
}

function sortedKeys(...maps: Resources[]): string[] {
  return [...new Set(maps.flatMap((m) => Object.keys(m)))].sort();
}

/** CA: ResourceToResourceList(GetRequested()): cpu, memory, pods (0 requested), ephemeral-storage, then scalars. */
function freeOf(info: NodeInfo): Resources {
  const names = new Set(['cpu', 'memory', 'pods', 'ephemeral-storage', ...Object.keys(info.requested)]);
  const out: Resources = {};
  for (const n of names) out[n] = (info.allocatable[n] ?? 0) - (n === 'pods' ? 0 : (info.requested[n] ?? 0));
  return out;
}

/**
 * Why two template nodes are not similar, or undefined when CA would treat their groups as one set. The categories are
 * checked in CA's order (capacity, allocatable, free, labels); within one, CA iterates a Go map (random order), so only
 * the first difference casdoctor names is certain to be a difference, not the one CA would log first.
 */
export function templateDifference(a: NodeInfo, b: NodeInfo, cfg: BalancingConfig): string | undefined {
  const la = a.node.metadata.labels ?? {};
  const lb = b.node.metadata.labels ?? {};
  if (cfg.balancingLabels.length > 0) {
    // CA: label_nodegroups.go areLabelsSame: only these labels, each must exist on both and be equal
    for (const l of cfg.balancingLabels) {
      if (!(l in la) || !(l in lb)) return `label ${l} is missing (--balancing-label)`;
      if (la[l] !== lb[l]) return `label ${l} differs: ${la[l]} vs ${lb[l]} (--balancing-label)`;
    }
    return undefined;
  }
  const capA = parseResourceList(a.node.status?.capacity);
  const capB = parseResourceList(b.node.status?.capacity);
  for (const r of sortedKeys(capA, capB)) {
    if (!(r in capA) || !(r in capB)) return `capacity ${r} exists on one template only`;
    if (r === 'memory') {
      if (!withinTolerance(capA[r], capB[r], cfg.memoryDifferenceRatio)) {
        return `memory capacity differs by more than ${cfg.memoryDifferenceRatio * 100}% (${capA[r]} vs ${capB[r]} bytes)`;
      }
    } else if (capA[r] !== capB[r]) {
      return `capacity ${r} differs (${capA[r]} vs ${capB[r]}): only memory may differ`;
    }
  }
  for (const r of sortedKeys(a.allocatable, b.allocatable)) {
    if (!(r in a.allocatable) || !(r in b.allocatable)) return `allocatable ${r} exists on one template only`;
    if (!withinTolerance(milli(r, a.allocatable[r]), milli(r, b.allocatable[r]), cfg.maxAllocatableDifferenceRatio)) {
      return `allocatable ${r} differs by more than ${cfg.maxAllocatableDifferenceRatio * 100}% (${a.allocatable[r]} vs ${b.allocatable[r]})`;
    }
  }
  const fa = freeOf(a);
  const fb = freeOf(b);
  for (const r of sortedKeys(fa, fb)) {
    if (!(r in fa) || !(r in fb)) return `only one template's pods request ${r}`;
    if (!withinTolerance(milli(r, fa[r]), milli(r, fb[r]), cfg.maxFreeDifferenceRatio)) {
      return `free ${r} (allocatable minus DaemonSet pods) differs by more than ${cfg.maxFreeDifferenceRatio * 100}% (${fa[r]} vs ${fb[r]})`;
    }
  }
  for (const l of [...new Set([...Object.keys(la), ...Object.keys(lb)])].sort()) {
    if (cfg.ignoredLabels.has(l)) continue;
    if (!(l in la) || !(l in lb)) return `label ${l} is on one template only (${l in la ? la[l] : lb[l]}); add --balancing-ignore-label=${l} if it does not matter`;
    if (la[l] !== lb[l]) return `label ${l} differs: ${la[l]} vs ${lb[l]}`;
  }
  return undefined;
}

export interface GroupTemplate {
  group: string;
  info: NodeInfo;
}

export interface GroupPair {
  a: string;
  b: string;
  similar: boolean;
  /** The first difference found, when not similar. */
  difference?: string;
}

/** Every pair of groups (sorted by name) with CA's similarity verdict. Groups without a template are left out by the caller. */
export function similarGroups(templates: readonly GroupTemplate[], cfg: BalancingConfig): GroupPair[] {
  const sorted = [...templates].sort((x, y) => (x.group < y.group ? -1 : x.group > y.group ? 1 : 0));
  const pairs: GroupPair[] = [];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const difference = templateDifference(sorted[i].info, sorted[j].info, cfg);
      pairs.push({ a: sorted[i].group, b: sorted[j].group, similar: difference === undefined, ...(difference ? { difference } : {}) });
    }
  }
  return pairs;
}

export interface SimilarSet {
  /** Group names, sorted; the first is the set's reference. */
  groups: string[];
  /** For every set after the first: the first difference between the first set's reference and this set's. */
  difference?: string;
}

/**
 * Groups partitioned into the sets CA would balance together: by name, each group joins the first set whose reference
 * (first group) it is similar to, or starts a new set. Comparisons are groups × sets, not groups², so 1,000 groups of
 * one type that all differ cost what the pairs did but the sets stay linear in size. CA's relation is not transitive
 * (tolerances), so membership is relative to the reference, as CA's FindSimilarNodeGroups compares against one group.
 */
export function similarSets(templates: readonly GroupTemplate[], cfg: BalancingConfig): SimilarSet[] {
  const sorted = [...templates].sort((x, y) => (x.group < y.group ? -1 : x.group > y.group ? 1 : 0));
  const sets: Array<{ ref: NodeInfo; set: SimilarSet }> = [];
  for (const t of sorted) {
    const home = sets.find((s) => templateDifference(s.ref, t.info, cfg) === undefined);
    if (home) {
      home.set.groups.push(t.group);
      continue;
    }
    const set: SimilarSet = { groups: [t.group] };
    if (sets.length > 0) set.difference = templateDifference(sets[0].ref, t.info, cfg);
    sets.push({ ref: t.info, set });
  }
  return sets.map((s) => s.set);
}
