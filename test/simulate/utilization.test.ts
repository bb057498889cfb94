// CA's scale-down utilization (simulator/utilization/info.go) and the threshold test (eligibility.go).
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/model/k8s.js';
import { calculateUtilization, nodeGpuResource } from '../../src/simulate/utilization.js';
import { node, pod } from '../builders/k8s.js';
import { analyzeSd, nodeName, sdWorld } from '../builders/scale-down-world.js';

const NOW = new Date('2026-01-05T12:00:00Z');
const OFF = { ignoreDaemonSets: false, ignoreMirrorPods: false, now: NOW };

/** A node with round numbers: 4000m cpu, 16Gi memory allocatable (capacity larger, as on a real node). */
const n4 = (): Node =>
  node('ip-10-0-1-50.ec2.internal')
    .withCapacity({ cpu: '4', memory: '17179869184' })
    .withAllocatable({ cpu: '4000m', memory: '16Gi' })
    .build();
const p = (name: string, cpu: string, memory: string) =>
  pod(name, 'web').withRequests({ cpu, memory }).ownedBy('ReplicaSet', 'app-1').onNode('ip-10-0-1-50.ec2.internal');
const ds = (cpu: string, memory: string) =>
  pod('aws-node-abcde', 'kube-system').withRequests({ cpu, memory }).ownedBy('DaemonSet', 'aws-node').onNode('ip-10-0-1-50.ec2.internal').build();
const mirror = (cpu: string) =>
  pod('kube-proxy-ip-10-0-1-50', 'kube-system')
    .withAnnotation('kubernetes.io/config.mirror', 'abc')
    .withRequests({ cpu, memory: '0' })
    .onNode('ip-10-0-1-50.ec2.internal')
    .build();

describe('utilization: requests over allocatable, max of cpu and memory', () => {
  it.each<[string, Pod[], { cpu: number; memory: number; value: number; resource: string }]>([
    ['cpu wins', [p('a', '3', '4Gi').build()], { cpu: 0.75, memory: 0.25, value: 0.75, resource: 'cpu' }],
    ['memory wins', [p('a', '1', '12Gi').build()], { cpu: 0.25, memory: 0.75, value: 0.75, resource: 'memory' }],
    ['memory wins a tie', [p('a', '2', '8Gi').build()], { cpu: 0.5, memory: 0.5, value: 0.5, resource: 'memory' }],
    ['sums every pod', [p('a', '1', '2Gi').build(), p('b', '1', '2Gi').build()], { cpu: 0.5, memory: 0.25, value: 0.5, resource: 'cpu' }],
    ['an empty node is 0', [], { cpu: 0, memory: 0, value: 0, resource: 'memory' }],
  ])('%s', (_name, pods, want) => {
    expect(calculateUtilization(n4(), pods, OFF)).toEqual(want);
  });

  it('uses allocatable, not capacity, and requests, not limits or usage', () => {
    const heavy = p('a', '1', '1Gi').withLimits({ cpu: '4', memory: '16Gi' }).build();
    expect(calculateUtilization(n4(), [heavy], OFF).cpu).toBe(0.25);
  });

  it('counts init containers and sidecars the way the scheduler does', () => {
    const withInit = p('a', '500m', '1Gi').withInitContainer({ name: 'migrate', requests: { cpu: '2', memory: '1Gi' } }).build();
    expect(calculateUtilization(n4(), [withInit], OFF).cpu).toBe(0.5);
  });
});

describe('DaemonSet and mirror pods', () => {
  it('counts DaemonSet pods by default', () => {
    expect(calculateUtilization(n4(), [ds('1', '0'), p('a', '1', '0').build()], OFF).cpu).toBe(0.5);
  });

  it('with --ignore-daemonsets-utilization leaves them out of numerator and denominator', () => {
    const u = calculateUtilization(n4(), [ds('1', '0'), p('a', '1', '0').build()], { ...OFF, ignoreDaemonSets: true });
    expect(u.cpu).toBeCloseTo(1 / 3, 10); // 1000m / (4000m - 1000m)
  });

  it('with --ignore-mirror-pods-utilization does the same for mirror pods', () => {
    const pods = [mirror('1'), p('a', '1', '0').build()];
    expect(calculateUtilization(n4(), pods, OFF).cpu).toBe(0.5);
    expect(calculateUtilization(n4(), pods, { ...OFF, ignoreMirrorPods: true }).cpu).toBeCloseTo(1 / 3, 10);
  });

  it('leaves long-terminating pods out of the numerator only', () => {
    const gone = p('a', '2', '0').terminating('2026-01-05T11:00:00Z').build();
    expect(calculateUtilization(n4(), [gone, p('b', '1', '0').build()], OFF).cpu).toBe(0.25);
  });
});

describe('GPU nodes', () => {
  const gpuNode = (gpus: string | undefined, label = false) => {
    const b = node('ip-10-0-1-60.ec2.internal').withCapacity({ cpu: '4', memory: '16Gi' }).withAllocatable({ cpu: '4000m', memory: '16Gi' });
    if (gpus !== undefined) b.withResources({ 'nvidia.com/gpu': gpus });
    if (label) b.withLabel('k8s.amazonaws.com/accelerator', 'nvidia-tesla-t4');
    return b.build();
  };
  const busyCpu = () => pod('trainer', 'ml').withRequests({ cpu: '3900m', memory: '15Gi' }).ownedBy('Job', 't').onNode('ip-10-0-1-60.ec2.internal').build();

  it('count only the GPU: a node with 97% cpu requested and an idle GPU is 0% utilized', () => {
    const u = calculateUtilization(gpuNode('1'), [busyCpu()], OFF);
    expect(u).toMatchObject({ gpu: 0, value: 0, resource: 'nvidia.com/gpu' });
    expect(u.cpu).toBeCloseTo(0.975, 5);
  });

  it('use the GPU requests when there are some', () => {
    const g = pod('infer', 'ml').withRequests({ cpu: '1', 'nvidia.com/gpu': '1' }).ownedBy('ReplicaSet', 'i-1').onNode('ip-10-0-1-60.ec2.internal').build();
    expect(calculateUtilization(gpuNode('2'), [g], OFF)).toMatchObject({ gpu: 0.5, value: 0.5 });
  });

  it('are recognised by the AWS accelerator label even before the device plugin reports GPUs; then they count as 0%', () => {
    const n = gpuNode(undefined, true);
    expect(nodeGpuResource(n)).toBe('nvidia.com/gpu');
    expect(calculateUtilization(n, [busyCpu()], OFF)).toMatchObject({ value: 0, unreadyGpu: true });
  });

  it('include other vendors (amd.com/gpu)', () => {
    const n = node('ip-10-0-1-61.ec2.internal').withResources({ 'amd.com/gpu': '1' }).build();
    expect(nodeGpuResource(n)).toBe('amd.com/gpu');
  });

  it('are compared with --scale-down-gpu-utilization-threshold, not the cpu/memory one', () => {
    const w = sdWorld({
      nodes: 2,
      caArgs: ['--scale-down-utilization-threshold=0.9', '--scale-down-gpu-utilization-threshold=0.4'],
      nodeBuilder: (i, b) => (i === 1 ? b.withResources({ 'nvidia.com/gpu': '2' }) : b),
    });
    w.app('ml', 'infer', nodeName(1), { cpu: '100m', memory: '128Mi', 'nvidia.com/gpu': '1' });
    const n = analyzeSd(w.raw).node(nodeName(1));
    expect(n.report.utilization).toMatchObject({ gpu: 0.5, value: 0.5, resource: 'nvidia.com/gpu', threshold: 0.4 });
    expect(n.report.caReason).toBe('NotUnderutilized');
  });
});

describe('missing allocatable', () => {
  it('is an error CA reports for the node (UnexpectedError)', () => {
    const n = node('ip-10-0-1-70.ec2.internal').withoutResources('memory').build();
    expect(calculateUtilization(n, [], OFF).error).toBe('failed to get memory from ip-10-0-1-70.ec2.internal');
  });
});

describe('the threshold test in the pipeline', () => {
  const half = (opts: Parameters<typeof sdWorld>[0] = {}) => {
    const w = sdWorld({ nodes: 2, ...opts });
    // 1960m of 3920m allocatable: exactly 50%
    w.app('web', 'api', nodeName(1), { cpu: '1960m', memory: '1Gi' });
    return w;
  };

  it('keeps a node above the threshold as NotUnderutilized, with the numbers', () => {
    const w = sdWorld({ nodes: 2 });
    w.app('web', 'api', nodeName(1), { cpu: '2500m', memory: '1Gi' });
    const n = analyzeSd(w.raw).node(nodeName(1));
    expect(n.report.caReason).toBe('NotUnderutilized');
    expect(n.report.summary).toBe('cpu requested is 63.8% of allocatable, above the 50% threshold');
  });

  it('treats utilization equal to the threshold as underutilized (CA > comparison, 1.32+ patches and 1.36+)', () => {
    const n = analyzeSd(half().raw).node(nodeName(1));
    expect(n.report.utilization?.value).toBe(0.5);
    expect(n.report.caReason).not.toBe('NotUnderutilized');
  });

  it('treats equality as not underutilized on CA 1.31 and older (>= comparison)', () => {
    const w = half({ image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.31.2' });
    expect(analyzeSd(w.raw).node(nodeName(1)).report.caReason).toBe('NotUnderutilized');
  });

  it('takes the threshold from the ASG autoscaling-options tag over the flag', () => {
    const w = sdWorld({
      nodes: 2,
      groupTags: { 'k8s.io/cluster-autoscaler/node-template/autoscaling-options/scaledownutilizationthreshold': '0.7' },
    });
    w.app('web', 'api', nodeName(1), { cpu: '2500m', memory: '1Gi' });
    const n = analyzeSd(w.raw).node(nodeName(1));
    expect(n.report.utilization).toMatchObject({ threshold: 0.7, thresholdSource: 'asg-tag' });
    expect(n.report.caReason).not.toBe('NotUnderutilized');
  });

  it('keeps the flag and says so when the tag value is not a number', () => {
    const w = sdWorld({
      nodes: 2,
      groupTags: { 'k8s.io/cluster-autoscaler/node-template/autoscaling-options/scaledownutilizationthreshold': 'high' },
    });
    const n = analyzeSd(w.raw).node(nodeName(1));
    expect(n.report.utilization).toMatchObject({ threshold: 0.5, thresholdSource: 'flag' });
    expect(n.report.notes.join(' ')).toContain('is not a valid value; CA keeps the default');
  });

  it('applies --ignore-daemonsets-utilization, and the ASG tag ignoredaemonsetsutilization', () => {
    const build = (opts: Parameters<typeof sdWorld>[0]) => {
      const w = sdWorld({ nodes: 2, ...opts }).daemonSetEverywhere('fluent-bit', '920m');
      w.app('web', 'api', nodeName(1), { cpu: '1200m', memory: '1Gi' });
      return analyzeSd(w.raw).node(nodeName(1)).report;
    };
    // counted: (920 + 1200) / 3920 = 54%; ignored: 1200 / (3920 - 920) = 40%
    expect(build({}).caReason).toBe('NotUnderutilized');
    expect(build({ caArgs: ['--ignore-daemonsets-utilization=true'] }).utilization).toMatchObject({ value: 0.4, ignoredDaemonSets: true });
    const tagged = build({ groupTags: { 'k8s.io/cluster-autoscaler/node-template/autoscaling-options/ignoredaemonsetsutilization': 'true' } });
    expect(tagged.utilization?.value).toBe(0.4);
    expect(tagged.caReason).not.toBe('NotUnderutilized');
  });

  it('leaves expendable pods out entirely (never in CA snapshot)', () => {
    const w = sdWorld({ nodes: 2 });
    w.add(
      'pods',
      pod('pause-1', 'overprovisioning').withRequests({ cpu: '3', memory: '1Gi' }).withPriority(-20, 'overprovisioning').ownedBy('ReplicaSet', 'pause-1').onNode(nodeName(1)).build(),
    );
    const n = analyzeSd(w.raw).node(nodeName(1));
    expect(n.report.utilization?.value).toBe(0);
    expect(n.report.notBlocking.map((x) => x.kind)).toEqual(['Expendable']);
  });

  it('with threshold 0 keeps a node running only a DaemonSet pod, unless DaemonSets are ignored', () => {
    const w = sdWorld({ nodes: 2, caArgs: ['--scale-down-utilization-threshold=0'] }).daemonSetEverywhere();
    expect(analyzeSd(w.raw).node(nodeName(1)).report.caReason).toBe('NotUnderutilized');
    const w2 = sdWorld({ nodes: 2, caArgs: ['--scale-down-utilization-threshold=0', '--ignore-daemonsets-utilization=true'] }).daemonSetEverywhere();
    expect(analyzeSd(w2.raw).node(nodeName(1)).report.removable).toBe(true);
  });
});
