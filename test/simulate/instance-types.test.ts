import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Ec2InstanceTypeInfo } from '../../src/model/aws.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import {
  buildInstanceTypeTable,
  type StaticInstanceTypeData,
  transformInstanceType,
} from '../../src/simulate/instance-types.js';

const data = JSON.parse(
  readFileSync(new URL('../../data/instance-types.json', import.meta.url), 'utf8'),
) as StaticInstanceTypeData;

/** `aws ec2 describe-instance-types` entries (trimmed to the fields CA reads plus a few neighbours). */
function ec2Type(
  name: string,
  vcpu: number,
  mib: number,
  arch: string[] = ['x86_64'],
  gpus: Array<{ Count: number; Manufacturer: string; Name: string }> = [],
): Ec2InstanceTypeInfo {
  return {
    InstanceType: name,
    CurrentGeneration: true,
    SupportedUsageClasses: ['on-demand', 'spot'],
    ProcessorInfo: { SupportedArchitectures: arch, SustainedClockSpeedInGhz: 3.1 },
    VCpuInfo: { DefaultVCpus: vcpu, DefaultCores: vcpu / 2, DefaultThreadsPerCore: 2 },
    MemoryInfo: { SizeInMiB: mib },
    ...(gpus.length
      ? {
          GpuInfo: {
            Gpus: gpus.map((g) => ({ ...g, MemoryInfo: { SizeInMiB: 16384 } })),
            TotalGpuMemoryInMiB: 16384,
          },
        }
      : {}),
    NetworkInfo: { MaximumNetworkInterfaces: 3, Ipv4AddressesPerInterface: 10 },
  } as Ec2InstanceTypeInfo;
}

const config = (args: string[] = []) => buildCaConfig({ overrideArgs: args });

describe('transformInstanceType', () => {
  it.each([
    [
      'DefaultVCpus and SizeInMiB, x86_64 as amd64',
      ec2Type('m5.large', 2, 8192),
      { vcpu: 2, memoryMiB: 8192, gpu: 0, architecture: 'amd64' },
    ],
    ['arm64', ec2Type('m7g.large', 2, 8192, ['arm64']), { architecture: 'arm64' }],
    ['x86_64_mac as amd64', ec2Type('mac2.metal', 12, 16384, ['x86_64_mac']), { architecture: 'amd64' }],
    [
      'the first architecture only',
      ec2Type('t2.micro', 1, 1024, ['i386', 'x86_64']),
      { architecture: 'amd64' },
    ],
    [
      'GPU counts summed over all manufacturers',
      ec2Type(
        'g6.12xlarge',
        48,
        196608,
        ['x86_64'],
        [
          { Count: 4, Manufacturer: 'NVIDIA', Name: 'L4' },
          { Count: 1, Manufacturer: 'AMD', Name: 'Radeon Pro V520' },
        ],
      ),
      { gpu: 5 },
    ],
  ])('uses %s', (_name, info, expected) => {
    expect(transformInstanceType(info)).toMatchObject(expected);
  });
});

describe('buildInstanceTypeTable', () => {
  it('reads the static data file', () => {
    const table = buildInstanceTypeTable(data, [], config());
    expect(table.lookup('m5.large')).toMatchObject({
      vcpu: 2,
      memoryMiB: 8192,
      gpu: 0,
      architecture: 'amd64',
      source: 'static',
    });
    expect(table.lookup('m5.large')?.maxPods).toBeGreaterThan(0);
    expect(table.lookup('a1.2xlarge')?.architecture).toBe('arm64');
    expect(table.lookup('no-such.type')).toBeUndefined();
    expect(table.source).toBe('static');
    expect(table.notes[0]).toMatch(/no DescribeInstanceTypes data/);
  });

  it('lets live DescribeInstanceTypes entries override static ones and fills the rest from the static list', () => {
    const live = [ec2Type('m5.large', 4, 16384), ec2Type('z9.brandnew', 8, 32768, ['arm64'])];
    const table = buildInstanceTypeTable(data, live, config());
    expect(table.source).toBe('live+static');
    expect(table.lookup('m5.large')).toMatchObject({ vcpu: 4, memoryMiB: 16384, source: 'live' });
    expect(table.lookup('m5.large')?.maxPods).toBe(data.instanceTypes['m5.large'].maxPods);
    expect(table.lookup('z9.brandnew')).toMatchObject({ vcpu: 8, architecture: 'arm64', source: 'live' });
    expect(table.lookup('c5.xlarge')?.source).toBe('static');
    expect(table.liveCount).toBe(2);
    expect(table.staticFillCount).toBe(Object.keys(data.instanceTypes).length - 1);
  });

  it('uses only the static list with --aws-use-static-instance-list=true', () => {
    const table = buildInstanceTypeTable(
      data,
      [ec2Type('z9.brandnew', 8, 32768)],
      config(['--aws-use-static-instance-list=true']),
    );
    expect(table.source).toBe('static');
    expect(table.lookup('z9.brandnew')).toBeUndefined();
    expect(table.notes).toEqual([
      `Using static EC2 Instance Types, this list could be outdated. Last update time: ${data.staticListLastUpdateTime}`,
    ]);
  });

  it('lists names sorted', () => {
    const names = buildInstanceTypeTable(data, [], config()).names();
    expect(names).toEqual([...names].sort());
    expect(names.length).toBe(Object.keys(data.instanceTypes).length);
  });
});
