// Karpenter's node model per instance type: aws/karpenter-provider-aws pkg/providers/instancetype/types.go
// (computeCapacity, memory, pods, kubeReservedResources, evictionThreshold) and offering/base_resolver.go.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EC2NodeClass } from '../../../../src/model/karpenter.js';
import { buildInstanceTypeTable, type InstanceTypeInfo, type StaticInstanceTypeData } from '../../../../src/simulate/instance-types.js';
import {
  amiFamilyOf,
  buildKarpenterInstanceTypes,
  karpenterKubeReservedCpu,
  karpenterMemoryCapacity,
  karpenterNodeModel,
} from '../../../../src/simulate/providers/karpenter/instance-types.js';

const MI = 1024 * 1024;
const GI = 1024 * MI;

const data = JSON.parse(readFileSync(new URL('../../../../data/instance-types.json', import.meta.url), 'utf8')) as StaticInstanceTypeData;
const nodeClasses = JSON.parse(readFileSync(new URL('../../../fixtures/karpenter/ec2nodeclasses.json', import.meta.url), 'utf8')) as { items: EC2NodeClass[] };
const defaultClass = nodeClasses.items[0];

function table(names: string[]) {
  const subset: StaticInstanceTypeData = {
    staticListLastUpdateTime: data.staticListLastUpdateTime,
    instanceTypes: Object.fromEntries(names.map((n) => [n, data.instanceTypes[n]])),
  };
  return buildInstanceTypeTable(subset, [], { flags: { awsUseStaticInstanceList: { value: true, origin: 'default', supported: true } } } as never);
}

function info(name: string): InstanceTypeInfo {
  const t = data.instanceTypes[name];
  return { name, vcpu: t.vcpu, memoryMiB: t.memoryMiB, gpu: t.gpu, architecture: t.architecture as 'amd64' | 'arm64', maxPods: t.maxPods, source: 'static' };
}

/** An EC2NodeClass like the fixture's with another AMI alias and kubelet block. */
function withClass(alias: string, kubelet?: EC2NodeClass['spec']['kubelet']): EC2NodeClass {
  return { ...defaultClass, spec: { ...defaultClass.spec, amiSelectorTerms: [{ alias }], blockDeviceMappings: [], ...(kubelet ? { kubelet } : {}) } };
}

describe('Karpenter memory capacity (types.go memory)', () => {
  it.each([
    // name, overhead, expected MiB
    ['m5.xlarge', 0.075, 15155], // 16384 - ceil(1228.8)
    ['m5.large', 0.075, 7577], // 8192 - ceil(614.4)
    ['m6g.large', 0.075, 7518], // Graviton: (8192 - 64) - ceil(609.6)
    ['m5.xlarge', 0, 16384],
    ['r5.large', 0.1, 14745], // 16384 - ceil(1638.4)
  ])('%s with VM_MEMORY_OVERHEAD_PERCENT=%s has %d MiB of memory capacity', (name, pct, mib) => {
    expect(karpenterMemoryCapacity(info(name), pct)).toBe(mib * MI);
  });
});

describe('Karpenter kube-reserved CPU (types.go kubeReservedResources)', () => {
  it.each([
    [1, 60],
    [2, 70],
    [4, 80],
    [8, 90],
    [96, 310], // 60 + 10 + 10 + int(92000 * 0.0025)
  ])('%d vCPUs reserve %d millicores for the kubelet', (vcpu, millis) => {
    expect(karpenterKubeReservedCpu(vcpu * 1000)).toBe(millis);
  });
});

describe('Karpenter allocatable (types.go NewInstanceType, cloudprovider/types.go computeAllocatable)', () => {
  it('an m5.xlarge on AL2023 defaults matches the 3920m / 14162Mi / 58 pods Karpenter reports', () => {
    const m = karpenterNodeModel(info('m5.xlarge'), { nodeClass: withClass('al2023@latest') });
    expect(m.capacity).toEqual({ cpu: 4000, memory: 15155 * MI, 'ephemeral-storage': 20 * GI, pods: 58 });
    expect(m.overhead.kubeReserved).toEqual({ cpu: 80, memory: (11 * 58 + 255) * MI, 'ephemeral-storage': GI });
    expect(m.overhead.evictionThreshold).toEqual({ memory: 100 * MI, 'ephemeral-storage': 2 * GI });
    expect(m.allocatable).toEqual({ cpu: 3920, memory: (15155 - 893 - 100) * MI, 'ephemeral-storage': 17 * GI, pods: 58 });
  });

  it('the root volume size in blockDeviceMappings becomes ephemeral-storage and drives the 10% nodefs threshold', () => {
    const m = karpenterNodeModel(info('m5.xlarge'), { nodeClass: defaultClass }); // /dev/xvda 80Gi on AL2023
    expect(m.capacity['ephemeral-storage']).toBe(80 * GI);
    expect(m.overhead.evictionThreshold['ephemeral-storage']).toBe(8 * GI);
    expect(m.allocatable['ephemeral-storage']).toBe(71 * GI);
  });

  it.each([
    // alias, kubelet, pods capacity, pods used for kube-reserved memory
    ['al2023@latest', { maxPods: 110 }, 110, 29], // ENI-limited memory overhead even with maxPods (UsesENILimitedMemoryOverhead)
    ['bottlerocket@latest', { maxPods: 110 }, 110, 110],
    ['al2023@latest', { podsPerCore: 4 }, 8, 29], // min(4 * 2 vCPU, 29)
    ['bottlerocket@latest', { podsPerCore: 4 }, 29, 29], // Bottlerocket ignores podsPerCore
    ['windows2022@latest', {}, 110, 110], // no ENI-limited pod density on Windows
  ])('an m5.large with %s and kubelet %j runs %d pods and reserves memory for %d', (alias, kubelet, pods, reservedFor) => {
    const m = karpenterNodeModel(info('m5.large'), { nodeClass: withClass(alias, kubelet) });
    expect(m.capacity.pods).toBe(pods);
    expect(m.overhead.kubeReserved.memory).toBe((11 * reservedFor + 255) * MI);
  });

  it('kubeReserved and systemReserved from the NodeClass replace and add to the computed reservation', () => {
    const m = karpenterNodeModel(info('m5.xlarge'), {
      nodeClass: withClass('al2023@latest', { kubeReserved: { cpu: '200m' }, systemReserved: { memory: '300Mi' } }),
    });
    expect(m.overhead.kubeReserved.cpu).toBe(200);
    expect(m.allocatable.cpu).toBe(3800);
    expect(m.allocatable.memory).toBe((15155 - 893 - 300 - 100) * MI);
  });

  it('evictionHard memory.available as a percentage is taken of the memory capacity; a larger evictionSoft wins', () => {
    const hardOnly = karpenterNodeModel(info('m5.xlarge'), { nodeClass: withClass('al2023@latest', { evictionHard: { 'memory.available': '5%' } }) });
    expect(hardOnly.overhead.evictionThreshold.memory).toBe(Math.ceil(15155 * MI * 0.05));
    const m = karpenterNodeModel(info('m5.xlarge'), {
      nodeClass: withClass('al2023@latest', { evictionHard: { 'memory.available': '5%' }, evictionSoft: { 'memory.available': '2Gi' } }),
    });
    // resources.MaxResources over the signals (instancetype/types.go:538-543@aws v1.6.2)
    expect(m.overhead.evictionThreshold.memory).toBe(2 * 1024 * MI);
  });

  it('evictionHard nodefs.available of 100% disables the storage threshold', () => {
    const m = karpenterNodeModel(info('m5.xlarge'), { nodeClass: withClass('al2023@latest', { evictionHard: { 'nodefs.available': '100%' } }) });
    expect(m.overhead.evictionThreshold['ephemeral-storage']).toBe(0);
  });

  it('a CEL expression in kubeReserved is reported as not evaluated rather than misread', () => {
    const m = karpenterNodeModel(info('m5.xlarge'), { nodeClass: withClass('al2023@latest', { kubeReserved: { memory: 'max_pods * 11 + 255' } }) });
    expect(m.overhead.kubeReserved.memory).toBe(893 * MI);
    expect(m.notes.join(' ')).toContain('not evaluated offline');
  });

  it('a GPU instance exposes its GPUs as nvidia.com/gpu in capacity and allocatable', () => {
    const m = karpenterNodeModel(info('g4dn.xlarge'), { nodeClass: defaultClass });
    expect(m.capacity['nvidia.com/gpu']).toBe(1);
    expect(m.allocatable['nvidia.com/gpu']).toBe(1);
  });
});

describe('AMI family of an EC2NodeClass', () => {
  it.each([
    ['al2023@latest', 'AL2023'],
    ['bottlerocket@v1.26.1', 'Bottlerocket'],
    ['al2@latest', 'AL2'],
    ['windows2022@latest', 'Windows2022'],
  ])('alias %s means family %s', (alias, family) => {
    expect(amiFamilyOf(withClass(alias))).toBe(family);
  });

  it('selector terms without an alias and without amiFamily mean Custom', () => {
    expect(amiFamilyOf({ ...defaultClass, spec: { ...defaultClass.spec, amiSelectorTerms: [{ id: 'ami-0e4b7c2d9a1f3e586' }] } })).toBe('Custom');
  });
});

describe('Karpenter offerings (offering/base_resolver.go, types.go computeRequirements)', () => {
  it('offers on-demand and spot in every subnet zone of the NodeClass', () => {
    const [m5] = buildKarpenterInstanceTypes(table(['m5.xlarge']), { nodeClass: defaultClass });
    expect(m5.zones).toEqual(['eu-west-1a', 'eu-west-1b']);
    expect(m5.offerings.map((o) => `${o.capacityType}/${o.zone}/${o.zoneID}/${o.available}`)).toEqual([
      'on-demand/eu-west-1a/euw1-az3/true',
      'spot/eu-west-1a/euw1-az3/true',
      'on-demand/eu-west-1b/euw1-az1/true',
      'spot/eu-west-1b/euw1-az1/true',
    ]);
  });

  it('a live DescribeInstanceTypeOfferings list leaves a zone without the type as unavailable offerings', () => {
    const its = buildKarpenterInstanceTypes(table(['m5.xlarge', 'g4dn.xlarge', 'p3.2xlarge']), {
      nodeClass: defaultClass,
      liveOfferings: [
        { InstanceType: 'm5.xlarge', LocationType: 'availability-zone', Location: 'eu-west-1a' },
        { InstanceType: 'm5.xlarge', LocationType: 'availability-zone', Location: 'eu-west-1b' },
        { InstanceType: 'm5.xlarge', LocationType: 'availability-zone', Location: 'eu-west-1c' },
        { InstanceType: 'g4dn.xlarge', LocationType: 'availability-zone', Location: 'eu-west-1a' },
      ],
    });
    const g4 = its.find((t) => t.name === 'g4dn.xlarge');
    expect(its.map((t) => t.name)).toEqual(['g4dn.xlarge', 'm5.xlarge']); // p3 has no offering in the region
    expect(g4?.zones).toEqual(['eu-west-1a']);
    expect(g4?.offerings.filter((o) => o.available).map((o) => o.zone)).toEqual(['eu-west-1a', 'eu-west-1a']);
    expect(g4?.offerings.filter((o) => !o.available).map((o) => o.zone)).toEqual(['eu-west-1b', 'eu-west-1b']);
  });

  it('a capacity reservation in the NodeClass status adds a reserved offering for its instance type', () => {
    const nc: EC2NodeClass = {
      ...defaultClass,
      status: {
        ...defaultClass.status,
        capacityReservations: [
          { id: 'cr-0a1b2c3d4e5f60718', instanceType: 'm5.xlarge', availabilityZone: 'eu-west-1b', instanceMatchCriteria: 'targeted', ownerID: '431926585127', reservationType: 'default', state: 'active' },
        ],
      },
    };
    const [m5] = buildKarpenterInstanceTypes(table(['m5.xlarge']), { nodeClass: nc });
    expect(m5.offerings.filter((o) => o.capacityType === 'reserved')).toEqual([
      { capacityType: 'reserved', zone: 'eu-west-1b', reservationID: 'cr-0a1b2c3d4e5f60718', available: true },
    ]);
  });
});

describe('eviction threshold with kubelet.evictionSoft (instancetype/types.go:524-545@aws v1.6.2)', () => {
  const soft = (alias: string): EC2NodeClass => {
    const c = withClass(alias);
    return { ...c, spec: { ...c.spec, kubelet: { evictionSoft: { 'memory.available': '2Gi' } } } } as EC2NodeClass;
  };
  it('takes the larger of evictionHard and evictionSoft on AL2023: 2Gi instead of 100Mi, about 1.9Gi less allocatable', () => {
    const base = karpenterNodeModel(info('m5.xlarge'), { nodeClass: withClass('al2023@latest') });
    const m = karpenterNodeModel(info('m5.xlarge'), { nodeClass: soft('al2023@latest') });
    expect(m.overhead.evictionThreshold.memory).toBe(2 * 1024 ** 3);
    expect((base.allocatable.memory ?? 0) - (m.allocatable.memory ?? 0)).toBe(2 * 1024 ** 3 - 100 * 1024 ** 2);
  });
  it('ignores evictionSoft on Bottlerocket (EvictionSoftEnabled false, bottlerocket.go:120@aws v1.6.2)', () => {
    expect(karpenterNodeModel(info('m5.xlarge'), { nodeClass: soft('bottlerocket@latest') }).overhead.evictionThreshold.memory).toBe(100 * 1024 ** 2);
  });
});
