import { describe, expect, it } from 'vitest';
import { parseManifestText } from '../../src/gather/manifests.js';
import { parseNodeGroupsFile } from '../../src/gather/node-groups-file.js';
import { parseResourceList } from '../../src/simulate/resources.js';
import { declaredToAws, estimateAllocatable, preflightOf } from '../../src/simulate/preflight.js';
import { buildWorkloads } from '../../src/simulate/preflight-workloads.js';
import { preflightRun, yamlStream } from '../checks/preflight-harness.js';

describe('preflight workloads: one pod per workload, as its controller and admission make it', () => {
  const text = yamlStream(
    { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'batch' }, value: 100 },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'pg', namespace: 'data' },
      spec: {
        selector: { matchLabels: { app: 'pg' } },
        template: {
          metadata: { labels: { app: 'pg' } },
          spec: { priorityClassName: 'batch', containers: [{ name: 'pg', image: 'pg' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: {
              storageClassName: 'gp3',
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '10Gi' } },
            },
          },
        ],
      },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'report' },
      spec: {
        schedule: '@daily',
        jobTemplate: {
          spec: {
            template: {
              spec: { priorityClassName: 'system-node-critical', containers: [{ name: 'r', image: 'r' }] },
            },
          },
        },
      },
    },
  );
  const objects = parseManifestText(text, 'w.yaml').objects;
  for (const o of objects) o.object.metadata.namespace ??= 'default';
  const priorityClasses = new Map(
    objects
      .filter((o) => o.object.kind === 'PriorityClass')
      .map((o) => [o.object.metadata.name ?? '', o.object as never]),
  );
  const { workloads } = buildWorkloads({ objects, priorityClasses });

  it('gives a StatefulSet pod its ordinal-0 claims from volumeClaimTemplates, labelled with the selector', () => {
    const pg = workloads.find((w) => w.name === 'pg')!;
    expect(pg.pod.metadata.name).toBe('pg-0');
    expect(pg.pod.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'StatefulSet',
      name: 'pg',
      controller: true,
    });
    expect(pg.pod.spec.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-pg-0' } },
    ]);
    expect(pg.generatedClaims[0]).toMatchObject({
      metadata: { name: 'data-pg-0', namespace: 'data', labels: { app: 'pg' } },
      spec: { storageClassName: 'gp3' },
    });
    expect(pg.pod.spec.priority).toBe(100);
  });

  it('makes CronJob pods owned by a Job, resolves built-in priority classes and adds the default NoExecute tolerations', () => {
    const cj = workloads.find((w) => w.name === 'report')!;
    expect(cj.pod.metadata.ownerReferences?.[0].kind).toBe('Job');
    expect(cj.priority).toEqual({ value: 2_000_001_000, className: 'system-node-critical', source: 'class' });
    expect(cj.pod.spec.tolerations?.map((t) => t.key)).toEqual([
      'node.kubernetes.io/not-ready',
      'node.kubernetes.io/unreachable',
    ]);
  });
});

describe("a real node's allocatable, estimated with the EKS AMI reservations", () => {
  it('keeps back kube-reserved cpu and memory and the eviction threshold for an m5.large (29 pods)', () => {
    const alloc = estimateAllocatable(parseResourceList({ cpu: '2', memory: '8Gi', pods: '29' }), 29);
    expect(alloc.cpu).toBe(1930);
    expect(alloc.memory / 1024 / 1024).toBe(8192 - 255 - 11 * 29 - 100);
    expect(alloc.pods).toBe(29);
  });

  it('charges 0.25% per core above four (an m5.4xlarge keeps back 110m)', () => {
    expect(estimateAllocatable(parseResourceList({ cpu: '16' }), 234).cpu).toBe(16_000 - 110);
  });
});

describe('declared node groups become what AWS would return to CA', () => {
  const file = `apiVersion: casdoctor.io/v1alpha1
kind: NodeGroups
nodeGroups:
  - name: mixed
    instanceTypes: [m5.xlarge, m5a.xlarge]
    labels: {pool: mixed}
    zones: [us-west-2b, us-west-2a]
    maxSize: 4
  - name: custom
    capacity: {cpu: "6", memory: 24Gi, nvidia.com/gpu: "2"}
    architecture: arm64
    zones: [us-west-2c]
    maxSize: 2
`;
  it('uses a MixedInstancesPolicy for several types, and node-template tags for labels and capacity', () => {
    const aws = declaredToAws(parseNodeGroupsFile(file, 'ng.yaml').groups);
    const mixed = aws.asgs.find((a) => a.AutoScalingGroupName === 'mixed')!;
    expect(mixed.MixedInstancesPolicy?.LaunchTemplate?.Overrides).toEqual([
      { InstanceType: 'm5.xlarge' },
      { InstanceType: 'm5a.xlarge' },
    ]);
    expect(mixed.Tags?.map((t) => t.Key)).toEqual(['k8s.io/cluster-autoscaler/node-template/label/pool']);
    const custom = aws.asgs.find((a) => a.AutoScalingGroupName === 'custom')!;
    expect(custom.Tags?.map((t) => `${t.Key}=${t.Value}`)).toEqual([
      'k8s.io/cluster-autoscaler/node-template/resources/cpu=6',
      'k8s.io/cluster-autoscaler/node-template/resources/memory=24Gi',
      'k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu=2',
    ]);
    expect(aws.syntheticTypes['custom-custom']).toEqual({
      vcpu: 6,
      memoryMiB: 24_576,
      gpu: 2,
      architecture: 'arm64',
    });
  });

  it("builds CA's template with CA's own rules: first override, first zone, tagged labels, capacity as allocatable", () => {
    const r = preflightRun('', { eksctl: null, nodeGroups: file });
    const groups = preflightOf(r.analysis)!.groups;
    const mixed = groups.find((g) => g.group.name === 'mixed')!;
    expect(mixed.scratch.instanceType).toBe('m5.xlarge');
    expect(mixed.templateZone).toBe('us-west-2b');
    expect(mixed.scratch.node?.metadata.labels).toMatchObject({
      pool: 'mixed',
      'kubernetes.io/arch': 'amd64',
    });
    const custom = groups.find((g) => g.group.name === 'custom')!;
    expect(custom.scratch.node?.status?.allocatable).toMatchObject({
      cpu: '6',
      memory: '24Gi',
      'nvidia.com/gpu': '2',
      pods: '110',
    });
    expect(custom.scratch.node?.metadata.labels?.['kubernetes.io/arch']).toBe('arm64');
    expect(preflightOf(r.analysis)?.assumedDiscovery).toBe(true);
  });
});
