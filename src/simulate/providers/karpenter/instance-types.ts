// Karpenter's (AWS provider) model of a node per instance type, built offline from casdoctor's instance-type table:
// capacity, overhead (kube-reserved, system-reserved, eviction threshold), allocatable, requirements and offerings.
// Source: aws/karpenter-provider-aws pkg/providers/instancetype/types.go (NewInstanceType, computeCapacity,
// kubeReservedResources, evictionThreshold, pods, ENILimitedPods) and offering/base_resolver.go. Pure.
import type { EC2KubeletConfiguration, EC2NodeClass, KarpenterDeploymentSettings } from '../../../model/karpenter.js';
import { DEFAULT_VM_MEMORY_OVERHEAD_PERCENT } from '../../../model/karpenter.js';
import type { Resources } from '../../../model/scheduling.js';
import { isValidQuantity } from '../../../model/quantity.js';
import type { InstanceTypeInfo, InstanceTypeTable } from '../../instance-types.js';
import { resourceValue, subtractResources } from '../../resources.js';
import { addRequirement, newRequirement, type KRequirements } from './requirements.js';

const MI = 1024 * 1024;
const GI = 1024 * MI;

export type AmiFamilyName = 'AL2' | 'AL2023' | 'Bottlerocket' | 'Windows2019' | 'Windows2022' | 'Windows2025' | 'Custom';

interface FamilyFlags {
  /** kube-reserved memory from ENI-limited pods even when maxPods is set (amifamily FeatureFlags). */
  usesENILimitedMemoryOverhead: boolean;
  podsPerCoreEnabled: boolean;
  supportsENILimitedPodDensity: boolean;
  /** Device whose EBS size is the node's ephemeral storage. */
  ephemeralDevice: string;
}

// amifamily/resolver.go DefaultFamily, bottlerocket.go, windows.go FeatureFlags
function familyFlags(f: AmiFamilyName): FamilyFlags {
  if (f === 'Bottlerocket') {
    return { usesENILimitedMemoryOverhead: false, podsPerCoreEnabled: false, supportsENILimitedPodDensity: true, ephemeralDevice: '/dev/xvdb' };
  }
  if (f.startsWith('Windows')) {
    return { usesENILimitedMemoryOverhead: false, podsPerCoreEnabled: true, supportsENILimitedPodDensity: false, ephemeralDevice: '/dev/sda1' };
  }
  return { usesENILimitedMemoryOverhead: true, podsPerCoreEnabled: true, supportsENILimitedPodDensity: true, ephemeralDevice: '/dev/xvda' };
}

/** The AMI family of an EC2NodeClass: the alias prefix ("al2023@latest"), else spec.amiFamily, else Custom. */
export function amiFamilyOf(nodeClass: EC2NodeClass | undefined): AmiFamilyName {
  const alias = nodeClass?.spec?.amiSelectorTerms?.find((t) => t.alias)?.alias;
  const raw = (alias ? alias.split('@')[0] : nodeClass?.spec?.amiFamily) ?? '';
  const byLower: Record<string, AmiFamilyName> = {
    al2: 'AL2',
    al2023: 'AL2023',
    bottlerocket: 'Bottlerocket',
    windows2019: 'Windows2019',
    windows2022: 'Windows2022',
    windows2025: 'Windows2025',
  };
  return byLower[raw.toLowerCase()] ?? 'Custom';
}

export interface KarpenterOffering {
  capacityType: 'on-demand' | 'spot' | 'reserved';
  zone: string;
  zoneID?: string;
  reservationID?: string;
  /** Offline we cannot see ICE or prices: an offering is available when the type is offered in the zone. */
  available: boolean;
}

export interface KarpenterOverhead {
  kubeReserved: Resources;
  systemReserved: Resources;
  evictionThreshold: Resources;
}

export interface KarpenterInstanceType {
  name: string;
  info: InstanceTypeInfo;
  requirements: KRequirements;
  /** Scheduler units: cpu millicores, memory/ephemeral-storage bytes, counts otherwise. */
  capacity: Resources;
  overhead: KarpenterOverhead;
  allocatable: Resources;
  offerings: KarpenterOffering[];
  /** Zones the type is offered in within the NodeClass' subnets. */
  zones: string[];
  /** Where the offline model departs from what Karpenter would compute. */
  notes: string[];
}

/** One row of ec2:DescribeInstanceTypeOfferings (LocationType availability-zone). */
export interface InstanceTypeOfferingRow {
  InstanceType: string;
  LocationType?: 'availability-zone' | 'availability-zone-id' | 'region' | string;
  Location: string;
}

export interface KarpenterInstanceTypeOptions {
  settings?: Pick<KarpenterDeploymentSettings, 'vmMemoryOverheadPercent' | 'reservedENIs'> &
    Partial<Pick<KarpenterDeploymentSettings, 'featureGates'>>;
  nodeClass?: EC2NodeClass;
  /** Region label value; when absent the region requirement is left out. */
  region?: string;
  /** DescribeInstanceTypeOfferings rows: restrict each type's zones to where EC2 offers it. */
  liveOfferings?: InstanceTypeOfferingRow[];
}

function q(name: string, v: string | number): number | undefined {
  if (!isValidQuantity(v)) return undefined;
  return resourceValue(name, v);
}

function parseMap(m: Record<string, string> | undefined, notes: string[], field: string): Resources {
  const out: Resources = {};
  for (const [k, v] of Object.entries(m ?? {})) {
    const n = q(k, v);
    // HEAD: non-quantity values are CEL expressions (NodeClassCEL gate, aws#9326); ignored with the gate off
    if (n === undefined) notes.push(`${field}.${k}="${v}" is not a quantity (a CEL expression?): not evaluated offline`);
    else out[k] = n;
  }
  return out;
}

/** Graviton loses 64Mi to CMA, then VM_MEMORY_OVERHEAD_PERCENT comes off (types.go memory). */
export function karpenterMemoryCapacity(info: Pick<InstanceTypeInfo, 'memoryMiB' | 'architecture'>, overheadPercent: number): number {
  let mib = info.memoryMiB;
  if (info.architecture === 'arm64') mib -= 64;
  const bytes = mib * MI;
  // types.go memory: mem - ceil(mem * pct / MiB) Mi
  return bytes - Math.ceil((bytes * overheadPercent) / MI) * MI;
}

/** kubeReservedResources CPU: 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above (millicores). */
export function karpenterKubeReservedCpu(cpuMillis: number): number {
  let total = 0;
  for (const [start, end, pct] of [
    [0, 1000, 0.06],
    [1000, 2000, 0.01],
    [2000, 4000, 0.005],
    [4000, 2 ** 31, 0.0025],
  ] as const) {
    if (cpuMillis >= start) total += Math.trunc((Math.min(cpuMillis, end) - start) * pct); // int64() per range
  }
  return total;
}

/** kubeReservedResources memory: 11Mi per pod + 255Mi. */
export function karpenterKubeReservedMemory(pods: number): number {
  return (11 * pods + 255) * MI;
}

function evictionSignal(capacity: number, value: string): number | undefined {
  if (value.endsWith('%')) {
    let p = Number.parseFloat(value.slice(0, -1));
    if (!Number.isFinite(p)) return undefined;
    if (p === 100) p = 0; // types.go mustParsePercentage: 100% disables the threshold
    return Math.ceil((capacity / 100) * p);
  }
  return isValidQuantity(value) ? resourceValue('memory', value) : undefined;
}

function ephemeralStorageBytes(nodeClass: EC2NodeClass | undefined, family: AmiFamilyName): number {
  const bdms = nodeClass?.spec?.blockDeviceMappings ?? [];
  const size = (v: unknown): number | undefined => (typeof v === 'string' || typeof v === 'number') && isValidQuantity(v) ? resourceValue('ephemeral-storage', v) : undefined;
  if (bdms.length > 0) {
    const root = bdms.find((b) => b.rootVolume);
    const rootSize = size(root?.ebs?.volumeSize);
    if (rootSize !== undefined) return rootSize;
    // types.go ephemeralStorage: a Custom family takes the last mapping's size
    if (family === 'Custom') return size(bdms[bdms.length - 1]?.ebs?.volumeSize) ?? 20 * GI;
    const dev = bdms.find((b) => b.deviceName === familyFlags(family).ephemeralDevice);
    const devSize = size(dev?.ebs?.volumeSize);
    if (devSize !== undefined) return devSize;
  }
  return 20 * GI; // amifamily DefaultEBS and the families' default ephemeral device: 20Gi
}

/** Capacity, overhead and allocatable of one instance type under a NodeClass (types.go NewInstanceType). */
export function karpenterNodeModel(
  info: InstanceTypeInfo,
  opts: Pick<KarpenterInstanceTypeOptions, 'settings' | 'nodeClass'> = {},
): Pick<KarpenterInstanceType, 'capacity' | 'overhead' | 'allocatable' | 'notes'> {
  const notes: string[] = [];
  const family = amiFamilyOf(opts.nodeClass);
  const flags = familyFlags(family);
  const kubelet: EC2KubeletConfiguration = opts.nodeClass?.spec?.kubelet ?? {};
  const overheadPct = opts.settings?.vmMemoryOverheadPercent ?? DEFAULT_VM_MEMORY_OVERHEAD_PERCENT;
  const reservedENIs = opts.settings?.reservedENIs ?? 0;

  const cpu = info.vcpu * 1000;
  const memory = karpenterMemoryCapacity(info, overheadPct);
  const storage = ephemeralStorageBytes(opts.nodeClass, family);

  // types.go ENILimitedPods = ENIs * (IPs per ENI - 1) + 2, i.e. the EKS AMI eni-max-pods table casdoctor carries
  let eniPods = info.maxPods;
  if (eniPods === undefined) {
    notes.push(`no ENI data for ${info.name}: max pods taken as 110`);
    eniPods = 110;
  }
  if (reservedENIs > 0) notes.push(`RESERVED_ENIS=${reservedENIs} lowers max pods; the table has no per-ENI IP counts, so it is not applied`);
  let maxPods: number | undefined;
  if (typeof kubelet.maxPods === 'number') maxPods = kubelet.maxPods;
  else if (kubelet.maxPods !== undefined) notes.push(`kubelet.maxPods "${String(kubelet.maxPods)}" is an expression: not evaluated offline`);
  let pods = maxPods ?? (flags.supportsENILimitedPodDensity ? eniPods : 110);
  const ppc = typeof kubelet.podsPerCore === 'number' ? kubelet.podsPerCore : 0;
  if (ppc > 0 && flags.podsPerCoreEnabled) pods = Math.min(ppc * info.vcpu, pods);

  const capacity: Resources = { cpu, memory, 'ephemeral-storage': storage, pods };
  if (info.gpu > 0) capacity['nvidia.com/gpu'] = info.gpu; // the table sums GPUs of every manufacturer

  // types.go NewInstanceType: kube-reserved memory uses the ENI-limited pod count (RESERVED_ENIS=0) on AL2/AL2023/Custom,
  // even when kubelet.maxPods is set
  const podsForReserved = flags.usesENILimitedMemoryOverhead ? eniPods : pods;
  const kubeReserved: Resources = {
    cpu: karpenterKubeReservedCpu(cpu),
    memory: karpenterKubeReservedMemory(podsForReserved),
    'ephemeral-storage': GI,
    ...parseMap(kubelet.kubeReserved, notes, 'kubelet.kubeReserved'),
  };
  const systemReserved = parseMap(kubelet.systemReserved, notes, 'kubelet.systemReserved');
  // types.go evictionThreshold (:524-545@aws v1.6.2): memory.available 100Mi, nodefs.available 10%, replaced by the larger of
  // evictionHard and evictionSoft for each signal; evictionSoft counts on every AMI family but Bottlerocket (EvictionSoftEnabled)
  const evictionThreshold: Resources = { memory: 100 * MI, 'ephemeral-storage': Math.ceil((storage / 100) * 10) };
  const signals = [kubelet.evictionHard, family === 'Bottlerocket' ? undefined : kubelet.evictionSoft].filter((m): m is Record<string, string> => !!m);
  const override: Resources = {};
  for (const m of signals) {
    const mem = m['memory.available'] !== undefined ? evictionSignal(memory, m['memory.available']) : undefined;
    if (mem !== undefined) override.memory = Math.max(override.memory ?? 0, mem);
    const fs = m['nodefs.available'] !== undefined ? evictionSignal(storage, m['nodefs.available']) : undefined;
    if (fs !== undefined) override['ephemeral-storage'] = Math.max(override['ephemeral-storage'] ?? 0, fs);
  }
  Object.assign(evictionThreshold, override);
  // cloudprovider/types.go computeAllocatable: capacity - (kubeReserved + systemReserved + evictionThreshold), keys of capacity only
  const total: Resources = {};
  for (const part of [kubeReserved, systemReserved, evictionThreshold]) for (const [k, v] of Object.entries(part)) total[k] = (total[k] ?? 0) + v;
  const allocatable: Resources = {};
  const diff = subtractResources(capacity, total);
  for (const k of Object.keys(capacity)) allocatable[k] = diff[k];
  return { capacity, overhead: { kubeReserved, systemReserved, evictionThreshold }, allocatable, notes };
}

const INSTANCE_TYPE_SCHEME = /(^[a-z]+)(-[0-9]+tb)?([0-9]+).*\./; // types.go instanceTypeScheme

/** The requirements an instance type brings (types.go computeRequirements), for the labels the table can supply. */
export function karpenterInstanceTypeRequirements(
  info: InstanceTypeInfo,
  zones: readonly string[],
  zoneIDs: readonly string[],
  capacityTypes: readonly string[],
  family: AmiFamilyName,
  region?: string,
): KRequirements {
  const reqs: KRequirements = new Map();
  const add = (key: string, op: string, values: string[] = []): void => addRequirement(reqs, newRequirement(key, op, values));
  add('node.kubernetes.io/instance-type', 'In', [info.name]);
  add('kubernetes.io/arch', 'In', [info.architecture]);
  add('kubernetes.io/os', 'In', family.startsWith('Windows') ? (info.architecture === 'amd64' ? ['windows'] : []) : ['linux']);
  add('topology.kubernetes.io/zone', 'In', [...zones]);
  if (region) add('topology.kubernetes.io/region', 'In', [region]);
  if (zoneIDs.length > 0) add('topology.k8s.aws/zone-id', 'In', [...zoneIDs]);
  add('karpenter.sh/capacity-type', 'In', [...capacityTypes]);
  add('karpenter.k8s.aws/instance-cpu', 'In', [String(info.vcpu)]);
  add('karpenter.k8s.aws/instance-memory', 'In', [String(info.memoryMiB)]);
  const m = INSTANCE_TYPE_SCHEME.exec(info.name);
  add('karpenter.k8s.aws/instance-category', m ? 'In' : 'DoesNotExist', m ? [m[1]] : []);
  add('karpenter.k8s.aws/instance-generation', m ? 'In' : 'DoesNotExist', m ? [m[3]] : []);
  const parts = info.name.split('.');
  add('karpenter.k8s.aws/instance-family', parts.length === 2 ? 'In' : 'DoesNotExist', parts.length === 2 ? [parts[0]] : []);
  add('karpenter.k8s.aws/instance-size', parts.length === 2 ? 'In' : 'DoesNotExist', parts.length === 2 ? [parts[1]] : []);
  add('karpenter.k8s.aws/instance-capability-flex', 'In', [parts[0].includes('-flex') ? 'true' : 'false']);
  add('karpenter.k8s.aws/instance-gpu-count', info.gpu > 0 ? 'In' : 'DoesNotExist', info.gpu > 0 ? [String(info.gpu)] : []);
  add('karpenter.k8s.aws/instance-tenancy', 'In', ['default', 'dedicated']);
  add('node.kubernetes.io/windows-build', 'DoesNotExist');
  return reqs;
}

/** Label keys computeRequirements sets that the offline table cannot fill: a NodePool/pod requirement on them is not evaluated. */
export const UNMODELLED_INSTANCE_LABELS: ReadonlySet<string> = new Set([
  'karpenter.k8s.aws/instance-hypervisor',
  'karpenter.k8s.aws/instance-encryption-in-transit-supported',
  'karpenter.k8s.aws/nitro-sandbox',
  'karpenter.k8s.aws/instance-local-nvme',
  'karpenter.k8s.aws/instance-cpu-manufacturer',
  'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz',
  'karpenter.k8s.aws/instance-ebs-bandwidth',
  'karpenter.k8s.aws/instance-network-bandwidth',
  'karpenter.k8s.aws/instance-gpu-name',
  'karpenter.k8s.aws/instance-gpu-manufacturer',
  'karpenter.k8s.aws/instance-gpu-memory',
  'karpenter.k8s.aws/instance-accelerator-name',
  'karpenter.k8s.aws/instance-accelerator-manufacturer',
  'karpenter.k8s.aws/instance-accelerator-count',
  'karpenter.k8s.aws/placement-group-id',
  'karpenter.k8s.aws/placement-group-partition',
]);

/** Zones of the NodeClass' resolved subnets (status.subnets), sorted and unique. */
export function nodeClassZones(nodeClass: EC2NodeClass | undefined): Array<{ zone: string; zoneID?: string }> {
  const byZone = new Map<string, string | undefined>();
  for (const s of nodeClass?.status?.subnets ?? []) if (s.zone && !byZone.has(s.zone)) byZone.set(s.zone, s.zoneID);
  return [...byZone.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([zone, zoneID]) => ({ zone, ...(zoneID ? { zoneID } : {}) }));
}

/**
 * Karpenter's instance types for a NodeClass from casdoctor's table. Offerings: every subnet zone × {on-demand, spot}
 * (the table lacks SupportedUsageClasses; EC2 offers both for current types) plus a reserved offering per capacity
 * reservation in status.capacityReservations; an offering is available when the type is offered in the zone
 * (offering/base_resolver.go: Available = ... && itZones.Has(zone)).
 */
export function buildKarpenterInstanceTypes(table: InstanceTypeTable, opts: KarpenterInstanceTypeOptions = {}): KarpenterInstanceType[] {
  const subnetZones = nodeClassZones(opts.nodeClass);
  const family = amiFamilyOf(opts.nodeClass);
  let offered: Map<string, Set<string>> | undefined;
  if (opts.liveOfferings && opts.liveOfferings.length > 0) {
    offered = new Map();
    for (const row of opts.liveOfferings) {
      if (row.LocationType && row.LocationType !== 'availability-zone') continue;
      let s = offered.get(row.InstanceType);
      if (!s) offered.set(row.InstanceType, (s = new Set()));
      s.add(row.Location);
    }
  }
  const reservations = (opts.nodeClass?.status?.capacityReservations ?? []).filter(
    (cr) => (opts.settings?.featureGates?.ReservedCapacity ?? true) && cr.state !== 'expired',
  );
  const out: KarpenterInstanceType[] = [];
  for (const name of table.names()) {
    const info = table.lookup(name);
    if (!info) continue;
    // types.go computeRequirements: zones = where EC2 offers the type ∩ the NodeClass' subnet zones
    const zones = subnetZones.filter((z) => !offered || offered.get(name)?.has(z.zone));
    // offline approximation: a type with no offering row in the region is one Karpenter would not list at all
    if (offered && !offered.has(name)) continue;
    const crs = reservations.filter((cr) => cr.instanceType === name);
    const capacityTypes = ['on-demand', 'spot', ...(crs.length > 0 ? ['reserved'] : [])];
    const model = karpenterNodeModel(info, opts);
    const offerings: KarpenterOffering[] = [];
    const zoneSet = new Set(zones.map((z) => z.zone));
    for (const z of subnetZones) {
      for (const ct of ['on-demand', 'spot'] as const) {
        offerings.push({ capacityType: ct, zone: z.zone, ...(z.zoneID ? { zoneID: z.zoneID } : {}), available: zoneSet.has(z.zone) });
      }
    }
    for (const cr of crs) {
      // remaining reservation capacity is not in the NodeClass status: taken as available
      offerings.push({ capacityType: 'reserved', zone: cr.availabilityZone, reservationID: cr.id, available: true });
    }
    out.push({
      name,
      info,
      requirements: karpenterInstanceTypeRequirements(
        info,
        zones.map((z) => z.zone),
        zones.flatMap((z) => (z.zoneID ? [z.zoneID] : [])),
        capacityTypes,
        family,
        opts.region,
      ),
      ...model,
      offerings,
      zones: zones.map((z) => z.zone),
    });
  }
  return out;
}
