import type { Ec2InstanceTypeInfo } from '../model/aws.js';
import type { FlagValue } from '../model/ca-config.js';

export interface InstanceTypeInfo {
  name: string;
  vcpu: number;
  memoryMiB: number;
  /** Summed EC2 GpuInfo counts (any manufacturer); CA exposes them as nvidia.com/gpu. */
  gpu: number;
  architecture: 'amd64' | 'arm64';
  /** ENI-based max pods (EKS AMI table), when known. CA's scratch template ignores it and uses 110. */
  maxPods?: number;
  source: 'live' | 'static';
}

/** data/instance-types.json as the caller loads it. */
export interface StaticInstanceTypeData {
  instanceTypes: Record<
    string,
    { vcpu: number; memoryMiB: number; gpu: number; architecture: string; maxPods?: number }
  >;
  staticListLastUpdateTime: string;
}

export interface InstanceTypeTable {
  /** What CA would have loaded: 'static' with --aws-use-static-instance-list=true or without DescribeInstanceTypes data. */
  source: 'live+static' | 'static';
  staticListLastUpdateTime: string;
  /** Number of types from DescribeInstanceTypes / filled in from the static list. */
  liveCount: number;
  staticFillCount: number;
  notes: string[];
  lookup(name: string): InstanceTypeInfo | undefined;
  names(): string[];
}

/** CA: cloudprovider/aws/aws_util.go interpretEc2SupportedArchitecure: arm64, everything else amd64. */
function archOf(a: string | undefined): 'amd64' | 'arm64' {
  return a === 'arm64' ? 'arm64' : 'amd64';
}

/** CA: cloudprovider/aws/aws_util.go transformInstanceType. */
export function transformInstanceType(info: Ec2InstanceTypeInfo): Omit<InstanceTypeInfo, 'source'> {
  const gpus = info.GpuInfo?.Gpus ?? [];
  return {
    name: info.InstanceType,
    vcpu: info.VCpuInfo?.DefaultVCpus ?? 0,
    memoryMiB: info.MemoryInfo?.SizeInMiB ?? 0,
    gpu: gpus.reduce((sum, g) => sum + (g.Count ?? 0), 0),
    architecture: archOf(info.ProcessorInfo?.SupportedArchitectures?.[0]),
  };
}

/**
 * The instance-type map CA loads at startup (CA: cloudprovider/aws/aws_cloud_provider.go BuildAWS): DescribeInstanceTypes,
 * with types it did not return filled in from the static list, or the static list alone with
 * --aws-use-static-instance-list=true. Live entries override static ones.
 */
export function buildInstanceTypeTable(
  staticTable: StaticInstanceTypeData,
  live: Ec2InstanceTypeInfo[],
  config: { flags: { awsUseStaticInstanceList: FlagValue<boolean> } },
): InstanceTypeTable {
  const map = new Map<string, InstanceTypeInfo>();
  const notes: string[] = [];
  const useStatic = config.flags.awsUseStaticInstanceList.value;
  for (const [name, t] of Object.entries(staticTable.instanceTypes)) {
    map.set(name, {
      name,
      vcpu: t.vcpu,
      memoryMiB: t.memoryMiB,
      gpu: t.gpu,
      architecture: archOf(t.architecture),
      ...(t.maxPods !== undefined ? { maxPods: t.maxPods } : {}),
      source: 'static',
    });
  }
  const staticCount = map.size;
  let liveCount = 0;
  if (useStatic) {
    notes.push(
      `Using static EC2 Instance Types, this list could be outdated. Last update time: ${staticTable.staticListLastUpdateTime}`,
    );
  } else if (live.length === 0) {
    notes.push(
      `no DescribeInstanceTypes data: using the static list (last update ${staticTable.staticListLastUpdateTime}) as CA does when the call fails`,
    );
  } else {
    for (const info of live) {
      if (!info.InstanceType) continue;
      const t = transformInstanceType(info);
      const maxPods = map.get(t.name)?.maxPods;
      if (!map.has(t.name) || map.get(t.name)?.source === 'static') liveCount++;
      map.set(t.name, { ...t, ...(maxPods !== undefined ? { maxPods } : {}), source: 'live' });
    }
  }
  const staticFillCount = [...map.values()].filter((t) => t.source === 'static').length;
  return {
    source: useStatic || live.length === 0 ? 'static' : 'live+static',
    staticListLastUpdateTime: staticTable.staticListLastUpdateTime,
    liveCount,
    staticFillCount: useStatic || live.length === 0 ? staticCount : staticFillCount,
    notes,
    lookup: (name) => map.get(name),
    names: () => [...map.keys()].sort(),
  };
}
