// Types shared by `casdoctor preflight`'s gatherers (manifests, eksctl, node-groups file), its simulation and its
// renderers. Kubernetes objects keep their manifest shape; every object remembers where it was written.
import type { Finding, Skipped } from './findings.js';
import type { ExternalGrpcConfigInput } from './externalgrpc.js';
import type { KubeObject, Taint } from './k8s.js';

/** Where an object was written: a file path as the user gave it (or "<stdin>") and a 1-based line. */
export interface SourceLocation {
  file: string;
  line: number;
}

/** One object of a manifest stream with its location. */
export interface LocatedObject<T extends KubeObject = KubeObject> {
  object: T;
  location: SourceLocation;
}

/** What `-f` gave: the objects preflight uses, in input order, plus what it ignored. */
export interface ManifestSet {
  objects: LocatedObject[];
  /** Files read, in order ("<stdin>" for -f -). */
  sources: string[];
  /** Non-fatal notes (duplicates, objects without a kind, ...). */
  warnings: string[];
  /** Kinds present but not used by preflight (Service, ConfigMap, CRDs ...) with their counts. */
  ignoredKinds: Record<string, number>;
}

/** An EKS taint as eksctl and `aws eks describe-nodegroup` spell it. */
export interface EksTaint {
  key: string;
  value?: string;
  effect: 'NO_SCHEDULE' | 'NO_EXECUTE' | 'PREFER_NO_SCHEDULE' | string;
}

/**
 * A node group described in a file (eksctl ClusterConfig, casdoctor's node-groups file) rather than read from AWS.
 * preflight turns it into the ASG (and EKS nodegroup) CA would see, so CA's own template builder is used.
 */
export interface DeclaredNodeGroup {
  name: string;
  origin: 'eksctl' | 'node-groups-file';
  location: SourceLocation;
  /** An EKS managed node group: CA reads its labels and taints with eks:DescribeNodegroup. */
  managed: boolean;
  clusterName?: string;
  /** Instance types in order; CA simulates the first (MixedInstancesPolicy overrides[0]). */
  instanceTypes: string[];
  /** Explicit capacity: becomes node-template/resources tags (CA sets capacity and allocatable from them). */
  capacity?: Record<string, string>;
  /** What real nodes report as allocatable, when the file says so (else casdoctor estimates it). */
  allocatable?: Record<string, string>;
  /** CPU architecture when no instance type says it. */
  architecture?: 'amd64' | 'arm64';
  /** Labels real nodes of the group carry (kubelet --node-labels, EKS, eksctl defaults). */
  labels: Record<string, string>;
  /** Taints real nodes of the group carry. */
  taints: Taint[];
  /** Tags on the Auto Scaling group, in the order written (node-template tags, discovery tags ...). */
  asgTags: Array<{ key: string; value: string }>;
  /** For a managed node group: what eks:DescribeNodegroup returns to CA. */
  eks?: {
    labels: Record<string, string>;
    taints: EksTaint[];
    capacityType: 'ON_DEMAND' | 'SPOT';
    tags: Record<string, string>;
  };
  /** Availability zones in order; CA's scratch template uses the first. */
  zones: string[];
  minSize: number;
  maxSize: number;
  desiredCapacity: number;
  /** Root volume size in GiB when known (real nodes' ephemeral-storage). */
  volumeSizeGiB?: number;
  /** Notes about defaults casdoctor assumed while reading the file. */
  notes: string[];
  /** eksctl `instanceSelector` criteria (a non-empty one): preflight resolves them against the instance-type table. */
  instanceSelector?: EksctlInstanceSelector;
  /** eksctl's propagateASGTags: eksctl writes label tags and value-only taint tags on the ASG. */
  propagateASGTags?: boolean;
  /** What casdoctor cannot know offline about the group (its CA template is then not evaluated), and how to supply it. */
  unresolved?: NotEvaluatedReason;
}

/** eksctl's InstanceSelector (pkg/apis/eksctl.io/v1alpha5 types.go): exact vCPU/memory/GPU matches. */
export interface EksctlInstanceSelector {
  vCPUs?: number;
  /** As written; a bare number is GiB (eksctl's bytequantity). */
  memory?: string;
  gpus?: number;
  cpuArchitecture?: string;
  allow?: string;
  deny?: string;
}

/** Why an outcome is "not evaluated": what casdoctor lacks, and how the user can supply it. */
export interface NotEvaluatedReason {
  missing: string;
  supply: string;
}

/** Node groups read from a file, with the cluster and region the file names. */
export interface DeclaredNodeGroups {
  origin: 'eksctl' | 'node-groups-file';
  file: string;
  clusterName?: string;
  region?: string;
  groups: DeclaredNodeGroup[];
  warnings: string[];
  /** Set when the file declares no node groups on purpose (EKS Auto Mode, hybrid nodes): nothing for CA to scale. */
  noGroupsReason?: string;
}

/** The externalgrpc provider's nodegroup-config.yaml given to --node-groups: its groups are built by the provider's
 * own code (membership, BuildNodeFromTemplate), so preflight hands the scrubbed text to the analysis, not ASGs. */
export interface ExternalGrpcDeclaredNodeGroups extends DeclaredNodeGroups {
  externalGrpc: ExternalGrpcConfigInput;
}

export function isExternalGrpcDeclared(d: DeclaredNodeGroups): d is ExternalGrpcDeclaredNodeGroups {
  return 'externalGrpc' in d;
}

/** A check as the preflight reports describe it (SARIF rules, JUnit testcases). */
export interface PreflightCheckInfo {
  id: string;
  title: string;
  summary: string;
  /** Default severity after .casdoctor.yaml overrides. */
  severity: 'error' | 'warning' | 'info';
  docsUrl: string;
  /** Kinds of object the check judges (one JUnit testcase per object of these kinds). */
  kinds: string[];
}

/** A manifest object the run judged, for per-object reports. */
export interface PreflightObject {
  kind: string;
  namespace?: string;
  name: string;
  location: SourceLocation;
}

/** One node group as preflight saw it. */
export interface PreflightGroupReport {
  name: string;
  source: 'eksctl' | 'node-groups-file' | 'live' | 'from';
  location?: SourceLocation;
  instanceType?: string;
  zones: string[];
  /** The zone CA's template represents (the first AZ). */
  templateZone?: string;
  minSize: number;
  maxSize: number;
  /** Why CA cannot scale it at all. */
  gate?: string;
  /** The labels and taints of CA's template. */
  templateLabels?: Record<string, string>;
  templateTaints?: string[];
  templateAllocatable?: Record<string, string>;
  realNode?: string;
}

/** Per workload, per node group: does it fit CA's template / a real node, and if not, why. */
export interface PreflightWorkloadReport {
  kind: string;
  namespace: string;
  name: string;
  location: SourceLocation;
  nodeGroups: Array<{
    name: string;
    fits: boolean;
    gate?: string;
    reasons: string[];
    values?: string;
    realNode?: { fits: boolean; reasons: string[]; values?: string };
    /** Set when casdoctor could not evaluate the group (neither fits nor fails): what is missing, how to supply it. */
    notEvaluated?: NotEvaluatedReason;
  }>;
  notes?: string[];
}

/** Everything the preflight renderers (table, JSON, SARIF, JUnit, markdown) need; pure data. */
export interface PreflightReport {
  toolVersion: string;
  now: string;
  failOn: 'error' | 'warning' | 'info' | 'never';
  /** Every finding, suppressed ones included (marked), sorted. */
  findings: Finding[];
  skipped: Skipped[];
  /** Checks whose input was never given (e.g. node-group checks without --eksctl/--node-groups/--from/--live). */
  notApplicable: Array<{ checkId: string; reason: string }>;
  /** The preflight checks that ran or could have run. */
  checks: PreflightCheckInfo[];
  /** The manifest objects judged, in input order. */
  objects: PreflightObject[];
  inputs: {
    manifests: string[];
    /** e.g. "eksctl cluster.yaml", "--from ./dump". */
    nodeGroups: string[];
    /** e.g. "CA v1.32.1 from manifests/ca.yaml", "defaults of CA 1.37". */
    ca: string;
  };
  groups: PreflightGroupReport[];
  workloads: PreflightWorkloadReport[];
  notes: string[];
}
