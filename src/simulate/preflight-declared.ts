// preflight's declared node groups: what AWS would return for groups declared in files, and their real nodes as
// modelled from the declaration. Moved out of preflight.ts as is.
import type { AutoScalingGroup, EksNodegroup, LaunchTemplateVersion } from '../model/aws.js';
import type { Node } from '../model/k8s.js';
import type { DeclaredNodeGroup } from '../model/preflight.js';
import { formatBytes } from '../model/quantity.js';
import type { InstanceTypeInfo, StaticInstanceTypeData } from './instance-types.js';
import { parseResourceList } from './resources.js';
import type { ScratchTemplate } from './node-group-provider.js';
import { RESOURCES_PREFIX } from '../providers/aws/template.js';

// ---------------------------------------------------------------------------------------------------------------
// Declared node groups -> what AWS would return for them

const MIB = 1024 * 1024;

interface DeclaredAws {
  asgs: AutoScalingGroup[];
  launchTemplateVersions: LaunchTemplateVersion[];
  eksNodegroups: EksNodegroup[];
  /** Instance types made up for groups given by capacity alone. */
  syntheticTypes: StaticInstanceTypeData['instanceTypes'];
}

/** The instance type name casdoctor invents for a group declared by capacity alone. */
export function syntheticInstanceType(groupName: string): string {
  return `custom-${groupName}`;
}

export function declaredToAws(groups: DeclaredNodeGroup[]): DeclaredAws {
  const out: DeclaredAws = { asgs: [], launchTemplateVersions: [], eksNodegroups: [], syntheticTypes: {} };
  for (const g of groups) {
    let types = g.instanceTypes;
    if (types.length === 0 && g.capacity) {
      const name = syntheticInstanceType(g.name);
      const cap = parseResourceList(g.capacity);
      out.syntheticTypes[name] = {
        vcpu: Math.max(1, Math.ceil((cap.cpu ?? 0) / 1000)),
        memoryMiB: Math.floor((cap.memory ?? 0) / MIB),
        gpu: cap['nvidia.com/gpu'] ?? 0,
        architecture: g.architecture ?? 'amd64',
        ...(cap.pods ? { maxPods: cap.pods } : {}),
      };
      types = [name];
    }
    const ltName = `casdoctor-${g.name}`;
    out.launchTemplateVersions.push({
      LaunchTemplateName: ltName,
      VersionNumber: 1,
      DefaultVersion: true,
      LaunchTemplateData: types.length > 0 ? { InstanceType: types[0] } : {},
    });
    const tags = g.asgTags.map((t) => ({
      Key: t.key,
      Value: t.value,
      ResourceId: g.name,
      ResourceType: 'auto-scaling-group',
      PropagateAtLaunch: true,
    }));
    // explicit capacity acts as node-template/resources tags: CA sets capacity and allocatable from them
    for (const [k, v] of Object.entries(g.capacity ?? {})) {
      tags.push({
        Key: `${RESOURCES_PREFIX}${k}`,
        Value: v,
        ResourceId: g.name,
        ResourceType: 'auto-scaling-group',
        PropagateAtLaunch: false,
      });
    }
    const spec = { LaunchTemplateName: ltName, Version: '$Default' };
    out.asgs.push({
      AutoScalingGroupName: g.name,
      MinSize: g.minSize,
      MaxSize: g.maxSize,
      DesiredCapacity: g.desiredCapacity,
      AvailabilityZones: [...g.zones],
      Instances: [],
      Tags: tags,
      ...(types.length > 1
        ? {
            MixedInstancesPolicy: {
              LaunchTemplate: {
                LaunchTemplateSpecification: spec,
                Overrides: types.map((t) => ({ InstanceType: t })),
              },
            },
          }
        : { LaunchTemplate: spec }),
    });
    if (g.managed && g.eks && g.clusterName) {
      out.eksNodegroups.push({
        nodegroupName: g.name,
        clusterName: g.clusterName,
        labels: { ...g.eks.labels },
        taints: g.eks.taints.map((t) => ({ ...t })),
        capacityType: g.eks.capacityType,
        instanceTypes: [...g.instanceTypes],
        scalingConfig: { minSize: g.minSize, maxSize: g.maxSize, desiredSize: g.desiredCapacity },
        tags: { ...g.eks.tags },
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Real nodes of declared groups

/**
 * Allocatable after the EKS-optimized AMI's reservations (bootstrap: kube-reserved cpu 6% of the first core, 1% of
 * the second, 0.5% of the next two, 0.25% above; memory 255Mi + 11Mi per max pod; eviction-hard 100Mi memory,
 * 10% nodefs; 1Gi ephemeral-storage kube-reserved). An estimate: real nodes also lose some memory to the kernel.
 */
export function estimateAllocatable(
  capacity: Record<string, number>,
  maxPods: number,
): Record<string, number> {
  const out = { ...capacity };
  const cores = (capacity.cpu ?? 0) / 1000;
  let reservedCpu = 0;
  if (cores > 0) reservedCpu += 60;
  if (cores > 1) reservedCpu += 10;
  if (cores > 2) reservedCpu += 5 * Math.min(2, cores - 2);
  if (cores > 4) reservedCpu += 2.5 * (cores - 4);
  if (capacity.cpu !== undefined) out.cpu = Math.max(0, capacity.cpu - Math.ceil(reservedCpu));
  if (capacity.memory !== undefined)
    out.memory = Math.max(0, capacity.memory - (255 + 11 * maxPods + 100) * MIB);
  const storage = capacity['ephemeral-storage'];
  if (storage !== undefined) out['ephemeral-storage'] = Math.max(0, Math.floor(storage * 0.9) - 1024 * MIB);
  return out;
}

function resourceMapOf(r: Record<string, number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r))
    out[k] = k === 'cpu' ? `${v}m` : k === 'memory' || k === 'ephemeral-storage' ? formatBytes(v) : String(v);
  return out;
}

/** A node of a declared group as the kubelet, the cloud provider and EKS would register it. */
export function modelRealNode(
  d: DeclaredNodeGroup,
  scratch: ScratchTemplate,
  info: InstanceTypeInfo | undefined,
): { node: Node; estimated: boolean } | undefined {
  const template = scratch.node;
  const zone = template?.metadata.labels?.['topology.kubernetes.io/zone'] ?? d.zones[0];
  if (!zone) return undefined;
  const region = zone.slice(0, -1);
  const arch = info?.architecture ?? d.architecture ?? 'amd64';
  const name = template?.metadata.name ?? `node-of-${d.name}`;
  const instanceType = d.instanceTypes[0];
  const labels: Record<string, string> = {
    'kubernetes.io/arch': arch,
    'kubernetes.io/os': 'linux',
    ...(instanceType ? { 'node.kubernetes.io/instance-type': instanceType } : {}),
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    'topology.ebs.csi.aws.com/zone': zone,
    'kubernetes.io/hostname': name,
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    ...(instanceType ? { 'beta.kubernetes.io/instance-type': instanceType } : {}),
    'failure-domain.beta.kubernetes.io/region': region,
    'failure-domain.beta.kubernetes.io/zone': zone,
    ...d.labels,
  };
  if (labels['kubernetes.io/os'] !== 'linux') labels['beta.kubernetes.io/os'] = labels['kubernetes.io/os'];
  const maxPods = info?.maxPods ?? 110;
  const capacity: Record<string, number> = {};
  if (info) {
    capacity.cpu = info.vcpu * 1000;
    capacity.memory = info.memoryMiB * MIB;
    if (info.gpu > 0) capacity['nvidia.com/gpu'] = info.gpu;
  }
  capacity.pods = maxPods;
  if (d.volumeSizeGiB) capacity['ephemeral-storage'] = d.volumeSizeGiB * 1024 * MIB;
  Object.assign(capacity, parseResourceList(d.capacity));
  let allocatable: Record<string, number>;
  let estimated = false;
  if (d.allocatable) allocatable = { ...capacity, ...parseResourceList(d.allocatable) };
  else if (info) {
    allocatable = estimateAllocatable(capacity, maxPods);
    estimated = true;
  } else allocatable = { ...capacity };
  return {
    node: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, uid: `${name}-real`, labels },
      spec: d.taints.length ? { taints: d.taints.map((t) => ({ ...t })) } : {},
      status: {
        capacity: resourceMapOf(capacity),
        allocatable: resourceMapOf(allocatable),
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    },
    estimated,
  };
}
