// Karpenter's behaviour by version, like CA's flags by version: one table that every Karpenter rule reads. The version
// in the input is the AWS provider's (its controller image, e.g. public.ecr.aws/karpenter/controller:1.6.2); the
// scheduling and disruption rules live in the core it vendors (kubernetes-sigs/karpenter), so the image is mapped to
// its core first (go.mod of each aws/karpenter-provider-aws tag: AWS 1.6.2 ships core 1.6.1). Each row says from which
// core (or AWS) version a behaviour holds, where it is in the source, and what it changes. An unknown or unreadable
// version gets the newest behaviour modelled (v1.14), and says so. Pure.

/** A behaviour that changed between Karpenter versions (the row names what holds FROM `since` on). */
export type KarpenterRule =
  | 'event-without-nodepool'
  | 'validate-event'
  | 'pvc-validation-texts'
  | 'launch-timeout'
  | 'dra-refusal'
  | 'pdb-list'
  | 'static-nodepools'
  | 'restricted-labels-karpenter-only'
  | 'requirement-bounds-gte'
  | 'volume-requirements-separate'
  | 'dynamic-nodepools-text'
  | 'zero-templates-event'
  | 'consolidation-events'
  | 'node-limit-scheduling'
  | 'topology-domains-by-nodepool'
  | 'do-not-disrupt-duration'
  | 'volume-alternatives'
  | 'registered-initialized-requirements'
  | 'fits-needs-offering'
  | 'daemon-overhead-per-type'
  | 'when-empty-text'
  | 'emptiness-by-cost'
  | 'balanced-policy'
  | 'empty-drifted-by-drift'
  | 'wellknown-instance-capability-flex'
  | 'wellknown-instance-tenancy'
  | 'wellknown-capacity-reservation-interruptible'
  | 'wellknown-placement-group'
  | 'wellknown-nitro-sandbox';

export interface KarpenterRuleRow {
  /** First version with the behaviour. */
  since: string;
  /** Last version with it (a behaviour that was reverted), when it ended. */
  until?: string;
  /** Whose version: the core library's (most rules) or the AWS provider's (its labels). */
  of: 'core' | 'aws';
  what: string;
  /** file:line@tag (core paths are kubernetes-sigs/karpenter's; aws paths aws/karpenter-provider-aws'). */
  source: string;
}

export const KARPENTER_RULES: Readonly<Record<KarpenterRule, KarpenterRuleRow>> = {
  'event-without-nodepool': { since: '1.5.0', of: 'core', what: 'FailedScheduling no longer names the NodePool nor its DaemonSet overhead (PR #2126)', source: 'pkg/controllers/provisioning/scheduling/scheduler.go:570-573@v1.6.2 vs :449-454@v1.4.0' },
  'validate-event': { since: '1.7.0', of: 'core', what: 'a pod failing Validate (restricted label, bad operator, bad PVC) gets a FailedScheduling event; before, a V(1) log line only', source: 'pkg/controllers/provisioning/provisioner.go:176-178@v1.7.0 vs :168-176@v1.6.2' },
  'pvc-validation-texts': { since: '1.7.0', of: 'core', what: 'PVC validation says "persistentvolumeclaim is being deleted" / "pvc is considered unbound …" and names (PersistentVolumeClaim=ns/name, StorageClass=)', source: 'pkg/controllers/provisioning/scheduling/volumetopology.go@v1.7.0 vs :171-175@v1.6.2' },
  'launch-timeout': { since: '1.7.0', of: 'core', what: 'a NodeClaim not Launched after 5m is deleted (launch_timeout), besides the 15m registration timeout (PR #2349)', source: 'pkg/controllers/nodeclaim/lifecycle/liveness.go:44,60-130@v1.7.0 vs :44,56@v1.6.2' },
  'dra-refusal': { since: '1.7.0', of: 'core', what: 'with IGNORE_DRA_REQUESTS (default true) a pod with ResourceClaims fails before any NodePool is tried', source: 'pkg/controllers/provisioning/scheduling/scheduler.go:491@v1.7.0' },
  'pdb-list': { since: '1.7.0', of: 'core', what: 'a pod under several PDBs blocks eviction, and the PDB blocker names a list (PodDisruptionBudget=[ns/a ns/b]); before, one PDB without brackets', source: 'pkg/utils/pdb/pdb.go:97@v1.7.0; pkg/controllers/state/statenode.go:250@v1.7.0 vs :247@v1.6.2' },
  'static-nodepools': { since: '1.8.0', of: 'core', what: 'NodePool spec.replicas (static capacity, gate StaticCapacity)', source: 'pkg/apis/v1/nodepool.go@v1.8.0 (PR #2521)' },
  'restricted-labels-karpenter-only': { since: '1.9.0', of: 'core', what: 'only karpenter.sh (and the provider\'s) label domains and kubernetes.io/hostname are restricted, text "using label … is not allowed …"; before, kubernetes.io and k8s.io were restricted too (except node.kubernetes.io, node-restriction.kubernetes.io, kops.k8s.io), text "label is restricted; …"', source: 'pkg/apis/v1/labels.go:126-141@v1.9.0 vs :66-78,122-163@v1.6.2' },
  'requirement-bounds-gte': { since: '1.9.0', of: 'core', what: 'Gt/Lt canonicalised to Gte/Lte: requirements print " >=6" instead of " >5"; Gte/Lte operators accepted (PR #2674)', source: 'pkg/scheduling/requirement.go@v1.9.0' },
  'volume-requirements-separate': { since: '1.9.0', of: 'core', what: 'volume topology is checked apart from the pod\'s affinity ("incompatible volume requirements, …"); before, merged into the node affinity', source: 'pkg/controllers/provisioning/scheduling/nodeclaim.go:468@v1.9.0 vs volumetopology.go:68-73@v1.6.2' },
  'dynamic-nodepools-text': { since: '1.9.0', of: 'core', what: 'the no-pool log line says "no dynamic nodepools found"; before, "no nodepools found"', source: 'pkg/controllers/provisioning/provisioner.go@v1.9.0 vs :217,334-336@v1.6.2' },
  'zero-templates-event': { since: '1.9.0', of: 'core', what: 'when every NodePool was dropped the pod gets "nodepool requirements filtered out all available instance types"; before, no event and no NodeClaim', source: 'pkg/controllers/provisioning/scheduling/scheduler.go:510-511@v1.9.0 vs :550,628@v1.6.2' },
  'consolidation-events': { since: '1.9.0', of: 'core', what: 'ConsolidationCandidate / ConsolidationRejected / ConsolidationApproved events (PR #2786)', source: 'pkg/controllers/disruption/events/events.go@v1.9.0' },
  'node-limit-scheduling': { since: '1.11.0', of: 'core', what: 'limits.nodes is enforced while scheduling ("node limits have been exhausted for nodepool"); before, only Create refuses a node when usage is already strictly above the limit, in a log line (PR #2526)', source: 'pkg/controllers/provisioning/scheduling/scheduler.go:709-714@v1.14.1 vs provisioner.go:392@v1.6.2' },
  'topology-domains-by-nodepool': { since: '1.11.0', until: '1.11.99', of: 'core', what: 'topology domains filtered by NodePool compatibility (PR #2671), reverted in v1.12.0 (PR #2957)', source: 'pkg/controllers/provisioning/scheduling/topology.go@v1.11.0' },
  'do-not-disrupt-duration': { since: '1.12.0', of: 'core', what: 'karpenter.sh/do-not-disrupt takes a duration (grace period); before, only "true" protects (PR #2874)', source: 'pkg/utils/pod/scheduling.go@v1.12.0' },
  'volume-alternatives': { since: '1.13.0', of: 'core', what: 'every PV node-affinity term and StorageClass topology term is an alternative (PR #2743); before, only the first term of each', source: 'pkg/controllers/provisioning/scheduling/volumetopology.go@v1.13.0 vs :116-121,137-139@v1.6.2' },
  'registered-initialized-requirements': { since: '1.14.0', of: 'core', what: 'NodeClaim templates carry karpenter.sh/registered In [true] and karpenter.sh/initialized In [true] (printed in requirements=…)', source: 'pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go:86-89@v1.14.1 vs :55-74@v1.6.2' },
  'fits-needs-offering': { since: '1.14.0', of: 'core', what: 'an instance type "has enough resources" only with a compatible offering; before, resources alone', source: 'pkg/controllers/provisioning/scheduling/nodeclaim.go:624-640@v1.14.1 vs :396,447-449@v1.6.2' },
  'daemon-overhead-per-type': { since: '1.14.0', of: 'core', what: 'DaemonSet overhead per instance type (resources=min=…, max=… when they differ); before, one overhead per NodePool template (PR #2975)', source: 'pkg/controllers/provisioning/scheduling/scheduler.go:972-1040@v1.14.1 vs :698-738@v1.6.2' },
  'when-empty-text': { since: '1.14.0', of: 'core', what: 'WhenEmpty pools say "has consolidation policy WhenEmpty, but node is not empty" (non-empty nodes only); before, "has non-empty consolidation disabled" for every node of the pool', source: 'pkg/controllers/disruption/consolidation.go:131-133@v1.14.1 vs :114-116@v1.6.2' },
  'emptiness-by-cost': { since: '1.14.0', of: 'core', what: 'a candidate is empty when its reschedulable pods cost nothing to evict; before, when it has no reschedulable pod', source: 'pkg/controllers/disruption/types.go:156-158@v1.14.1 vs emptiness.go:48@v1.6.2' },
  'balanced-policy': { since: '1.14.0', of: 'core', what: 'consolidationPolicy Balanced (score threshold, PR #2962)', source: 'pkg/apis/v1/nodepool.go:163-178@v1.14.0' },
  'empty-drifted-by-drift': { since: '1.6.2', of: 'core', what: 'drift also replaces empty drifted nodes; core 1.6.0–1.6.1 left them to emptiness (never removed with consolidateAfter: Never)', source: 'pkg/controllers/disruption/drift.go@v1.6.2 (a29df2ab6)' },
  'wellknown-instance-capability-flex': { since: '1.7.0', of: 'aws', what: 'karpenter.k8s.aws/instance-capability-flex is a well-known label', source: 'pkg/apis/v1/labels.go@v1.7.0' },
  'wellknown-instance-tenancy': { since: '1.9.0', of: 'aws', what: 'karpenter.k8s.aws/instance-tenancy is a well-known label', source: 'pkg/apis/v1/labels.go@v1.9.0' },
  'wellknown-capacity-reservation-interruptible': { since: '1.10.0', of: 'aws', what: 'karpenter.k8s.aws/capacity-reservation-interruptible is a well-known label', source: 'pkg/apis/v1/labels.go@v1.10.0' },
  'wellknown-placement-group': { since: '1.11.0', of: 'aws', what: 'karpenter.k8s.aws/placement-group-id and -partition are well-known labels', source: 'pkg/apis/v1/labels.go@v1.11.0' },
  // unreleased: in the provider's main branch after v1.14.1; "since" is the first version after the table
  'wellknown-nitro-sandbox': { since: '1.14.2', of: 'aws', what: 'karpenter.k8s.aws/nitro-sandbox is a well-known label', source: 'pkg/apis/v1/labels.go:39@1d927085dd81 (absent at v1.14.1)' },
};

/** AWS provider tag → the core version its go.mod requires (aws/karpenter-provider-aws go.mod at each tag). */
export const AWS_TO_CORE: Readonly<Record<string, string>> = {
  '1.4.0': '1.4.0', '1.4.1': '1.4.1', '1.4.2': '1.4.1', '1.4.3': '1.4.1', '1.4.4': '1.4.2',
  // 1.5.0 pins a pseudo-version after v1.4.1 (349487633193, in core v1.5.0 and holding PR #2126)
  '1.5.0': '1.5.0', '1.5.1': '1.5.1', '1.5.2': '1.5.2', '1.5.3': '1.5.3', '1.5.4': '1.5.4', '1.5.5': '1.5.4', '1.5.6': '1.5.4', '1.5.7': '1.5.4', '1.5.8': '1.5.5',
  '1.6.0': '1.6.0', '1.6.1': '1.6.1', '1.6.2': '1.6.1', '1.6.3': '1.6.2', '1.6.4': '1.6.3', '1.6.5': '1.6.3', '1.6.6': '1.6.3', '1.6.7': '1.6.3', '1.6.8': '1.6.4',
  '1.7.0': '1.7.0', '1.7.1': '1.7.1', '1.7.2': '1.7.1', '1.7.3': '1.7.1', '1.7.4': '1.7.1', '1.7.5': '1.7.1', '1.7.6': '1.7.2',
  '1.8.0': '1.8.0', '1.8.1': '1.8.0', '1.8.2': '1.8.0', '1.8.3': '1.8.0', '1.8.4': '1.8.1', '1.8.5': '1.8.2', '1.8.6': '1.8.2', '1.8.7': '1.8.2', '1.8.8': '1.8.3',
  '1.9.0': '1.9.0', '1.9.1': '1.9.0', '1.9.2': '1.9.1',
  '1.10.0': '1.10.0', '1.10.1': '1.10.0', '1.10.2': '1.10.1',
  '1.11.0': '1.11.0', '1.11.1': '1.11.1', '1.11.2': '1.11.0', '1.11.3': '1.11.2',
  '1.12.0': '1.12.0', '1.12.1': '1.12.0', '1.12.2': '1.12.1',
  '1.13.0': '1.13.0', '1.13.1': '1.13.0',
  // 1.14.1 pins a pseudo-version on core's v1.14.1 cherry-picks (6e7eab7a0f48, tagged v1.14.1)
  '1.14.0': '1.14.0', '1.14.1': '1.14.1',
};

/** The oldest and newest versions whose behaviour the table describes. */
export const KARPENTER_MODELLED = { oldest: '1.4.0', newest: '1.14.1' } as const;

export interface KarpenterVersion {
  /** The version as the input gives it (the AWS controller image tag), if any. */
  image?: string;
  /** The core version the rules follow (mapped from the image; the image itself when not in the map). */
  core?: string;
  /** True when the rules follow the input's own version; false: newest behaviour assumed (see note). */
  known: boolean;
  /** Why the version is unknown or only approximated, for the report. */
  note?: string;
}

type Triple = [number, number, number];

function parse(v: string | undefined): Triple | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function cmp(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

const cache = new Map<string, KarpenterVersion>();

/** The Karpenter version a snapshot's controller runs, as the rules read it. */
export function karpenterVersion(image: string | undefined): KarpenterVersion {
  const key = image ?? '';
  const hit = cache.get(key);
  if (hit) return hit;
  let out: KarpenterVersion;
  const p = parse(image);
  if (!image || !p) {
    out = { known: false, note: `Karpenter's version is unknown${image ? ` ("${image}" is not a version)` : ' (its controller image has no version tag and no chart label says it)'}: casdoctor applies v${KARPENTER_MODELLED.newest} behaviour` };
  } else {
    const plain = p.join('.');
    const core = AWS_TO_CORE[plain];
    if (core) out = { image, core, known: true };
    else if (cmp(p, parse(KARPENTER_MODELLED.oldest)!) < 0) {
      out = { image, core: plain, known: false, note: `Karpenter ${image} is older than the oldest version casdoctor models (v${KARPENTER_MODELLED.oldest}): its texts and rules are those of v${KARPENTER_MODELLED.oldest} at best` };
    } else if (cmp(p, parse(KARPENTER_MODELLED.newest)!) > 0) {
      out = { image, core: plain, known: false, note: `Karpenter ${image} is newer than the newest version casdoctor models (v${KARPENTER_MODELLED.newest}): casdoctor applies v${KARPENTER_MODELLED.newest} behaviour` };
    } else {
      // a patch release the map does not list: its minor line's rules
      out = { image, core: plain, known: true, note: `Karpenter ${image} is not in casdoctor's AWS-to-core map: its rules are read as core ${plain}` };
    }
  }
  cache.set(key, out);
  return out;
}

/** Whether the Karpenter of the input has the behaviour; an unknown version has the newest behaviour. */
export function karpenterHas(image: string | undefined, rule: KarpenterRule): boolean {
  const v = karpenterVersion(image);
  const row = KARPENTER_RULES[rule];
  const at = parse(row.of === 'aws' ? v.image : v.core);
  // unknown, or newer than the table: the newest behaviour (a reverted one no longer holds)
  if (!at || cmp(at, parse(KARPENTER_MODELLED.newest)!) > 0) return row.until === undefined;
  if (cmp(at, parse(row.since)!) < 0) return false;
  return row.until === undefined || cmp(at, parse(row.until)!) <= 0;
}
