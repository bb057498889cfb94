// asg-audit's derived data: the scratch template from every tag form, kubelet flags in launch templates, which ASGs
// are audited, the real-node comparison, the JSON view.
import { describe, expect, it } from 'vitest';
import type { LaunchTemplateVersion } from '../../src/model/aws.js';
import { Analysis } from '../../src/simulate/analysis.js';
import {
  auditedGroups,
  bootstrapFromLaunchTemplate,
  eksAllocatableEstimate,
  labelDrifts,
  nodeGroupReport,
  pvZones,
  realShape,
  scratchOf,
  scratchRelevance,
  setAuditedAsgs,
  taintDrifts,
  unknownAsgNames,
  workloadName,
} from '../../src/providers/aws/asg-audit.js';
import { resourcesFromTags, taintsFromAsgTags } from '../../src/providers/aws/template.js';
import { asg, launchTemplateVersion, REGION } from '../builders/aws.js';
import { node, pv } from '../builders/k8s.js';
import { instanceIdOf, NOW, pendingPod, world } from '../builders/world.js';
import { STATIC_TYPES } from '../checks/harness.js';

const LABEL = 'k8s.io/cluster-autoscaler/node-template/label/';
const TAINT = 'k8s.io/cluster-autoscaler/node-template/taint/';
const RES = 'k8s.io/cluster-autoscaler/node-template/resources/';

function analysis(raw: ReturnType<typeof world>['raw'], caArgs?: string[]) {
  return new Analysis(raw, { now: NOW, caArgs, staticInstanceTypes: STATIC_TYPES });
}

/** A group of cluster prod at zero whose scratch template is built from these tags. */
function zeroWith(tags: Record<string, string>, type = 'm5.large') {
  const w = world()
    .add(
      'autoScalingGroups',
      asg('prod-zero')
        .withDiscoveryTags('prod')
        .withTags(tags)
        .withLaunchTemplate({ id: 'lt-0zero000000000001' })
        .build(),
    )
    .add(
      'launchTemplateVersions',
      launchTemplateVersion('lt-0zero000000000001', 1).asDefault().withInstanceType(type).build(),
    );
  const a = analysis(w.raw);
  const g = a.nodeGroups.find((x) => x.name === 'prod-zero')!;
  return { a, g, node: scratchOf(a, g).node! };
}

describe('the scratch template from ASG tags', () => {
  it.each([
    ['cpu overrides the instance type', { [`${RES}cpu`]: '1930m' }, { cpu: '1930m' }],
    ['memory overrides the instance type', { [`${RES}memory`]: '7218100Ki' }, { memory: '7218100Ki' }],
    [
      'nvidia.com/gpu overrides the table count',
      { [`${RES}nvidia.com/gpu`]: '4' },
      { 'nvidia.com/gpu': '4' },
    ],
    [
      'amd.com/gpu is added next to nvidia.com/gpu',
      { [`${RES}amd.com/gpu`]: '1' },
      { 'amd.com/gpu': '1', 'nvidia.com/gpu': '0' },
    ],
    ['pods replaces 110', { [`${RES}pods`]: '29' }, { pods: '29' }],
    ['a malformed quantity is ignored (110 stays)', { [`${RES}pods`]: 'twenty' }, { pods: '110' }],
    ['an empty resource name is ignored', { [RES]: '5' }, { cpu: '2' }],
  ])('resources: %s', (_name, tags, expected) => {
    const { node } = zeroWith(tags);
    expect(node.status?.capacity).toMatchObject(expected);
    expect(node.status?.allocatable).toMatchObject(expected);
  });

  it.each([
    ['a label tag', { [`${LABEL}node-pool`]: 'batch' }, { 'node-pool': 'batch' }],
    ['a label tag with an empty value', { [`${LABEL}spot`]: '' }, { spot: '' }],
    [
      'a label tag overriding a generic label',
      { [`${LABEL}kubernetes.io/arch`]: 'arm64' },
      { 'kubernetes.io/arch': 'arm64' },
    ],
    [
      'eks:nodegroup-name becomes nodegroup-name',
      { 'eks:nodegroup-name': 'ng-1' },
      { 'nodegroup-name': 'ng-1' },
    ],
  ])('labels: %s', (_name, tags, expected) => {
    expect(zeroWith(tags).node.metadata.labels).toMatchObject(expected);
  });

  it.each([
    [
      'NoExecute with an empty value',
      { [`${TAINT}spot`]: ':NoExecute' },
      [{ key: 'spot', value: '', effect: 'NoExecute' }],
    ],
    ['an effect in the wrong case (ignored)', { [`${TAINT}spot`]: 'true:noschedule' }, []],
    ['a bare effect without colon (ignored)', { [`${TAINT}spot`]: 'NoSchedule' }, []],
  ])('taints: %s', (_name, tags, expected) => {
    expect(zeroWith(tags).node.spec?.taints ?? []).toEqual(expected);
  });

  it('parses resource tags the way CA does, by key position not prefix', () => {
    expect(resourcesFromTags([[`team/${RES}example.com/fpga`, '2']]).resources).toEqual({
      'example.com/fpga': '2',
    });
    expect(taintsFromAsgTags([{ Key: `${TAINT}a`, Value: 'x:y:NoSchedule' }]).taints).toEqual([
      { key: 'a', value: 'x', effect: 'y:NoSchedule' },
    ]);
  });
});

describe('kubelet flags in a launch template', () => {
  const version = (data: Partial<LaunchTemplateVersion['LaunchTemplateData']>, description?: string) =>
    ({
      ...launchTemplateVersion('lt-0abc', 3).build(),
      LaunchTemplateData: data,
      ...(description ? { VersionDescription: description } : {}),
    }) as LaunchTemplateVersion;
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it.each([
    [
      'AL2 bootstrap.sh --kubelet-extra-args',
      `#!/bin/bash\n/etc/eks/bootstrap.sh prod --kubelet-extra-args '--node-labels=node-pool=batch,team=data --register-with-taints=dedicated=batch:NoSchedule'\n`,
      { 'node-pool': 'batch', team: 'data' },
      [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
    ],
    [
      'AL2023 nodeadm NodeConfig in a MIME part',
      'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --node-labels=node-pool=batch\n      - --register-with-taints=spot:NoExecute\n--B--\n',
      { 'node-pool': 'batch' },
      [{ key: 'spot', value: '', effect: 'NoExecute' }],
    ],
    ['a taint with an unknown effect (ignored)', '--register-with-taints=a=b:NoRun', {}, []],
  ])('reads %s', (_name, script, labels, taints) => {
    const b = bootstrapFromLaunchTemplate(version({ UserData: b64(script) }));
    expect(b?.labels ?? {}).toEqual(labels);
    expect(b?.taints ?? []).toEqual(taints);
  });

  it('reads the version description and says where it found the flags', () => {
    const b = bootstrapFromLaunchTemplate(version({}, 'kubelet --node-labels=node-pool=batch'));
    expect(b).toEqual({
      labels: { 'node-pool': 'batch' },
      taints: [],
      source: 'launch template lt-0abc v3 VersionDescription',
    });
  });

  it('finds nothing in binary (gzip) user data or without kubelet flags', () => {
    expect(
      bootstrapFromLaunchTemplate(
        version({ UserData: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2]).toString('base64') }),
      ),
    ).toBeUndefined();
    expect(bootstrapFromLaunchTemplate(version({ UserData: b64('#!/bin/bash\necho hi\n') }))).toBeUndefined();
  });
});

describe('which ASGs are audited', () => {
  const w = () =>
    world()
      .add('autoScalingGroups', asg('prod-tagged').withTag('kubernetes.io/cluster/prod', 'owned').build())
      .add('autoScalingGroups', asg('prod-eks').withTag('eks:cluster-name', 'prod').build())
      .add('autoScalingGroups', asg('staging-general').withDiscoveryTags('staging').build());

  it('takes discovered ASGs, ASGs owning nodes and ASGs tagged for the cluster, sorted', () => {
    const a = analysis(w().raw);
    expect(auditedGroups(a).map((g) => g.name)).toEqual(['prod-eks', 'prod-general', 'prod-tagged']);
  });

  it('restricts to --asg, which may name any ASG of the region', () => {
    const a = analysis(w().raw);
    setAuditedAsgs(a, ['staging-general', 'prod-general']);
    expect(auditedGroups(a).map((g) => g.name)).toEqual(['prod-general', 'staging-general']);
    expect(unknownAsgNames(a, ['prod-general', 'nope'])).toEqual(['nope']);
  });
});

describe('the scratch template next to the real nodes', () => {
  it('says when the scratch template matters', () => {
    const z = zeroWith({});
    expect(scratchRelevance(z.a, z.g)).toBe('now');
    const a = analysis(world().raw);
    expect(scratchRelevance(a, a.nodeGroups[0])).toBe('unlikely');
  });

  it('compares labels every node carries, not per-node ones, and only those workloads select', () => {
    const n1 = node('ip-10-0-1-11.ec2.internal')
      .withLabels({ 'node-pool': 'etl', team: 'a' })
      .inZone('us-east-1a')
      .build();
    const n2 = node('ip-10-0-1-12.ec2.internal')
      .withLabels({ 'node-pool': 'etl', team: 'b' })
      .inZone('us-east-1b')
      .build();
    const g = asg('prod-etl')
      .withDiscoveryTags('prod')
      .withZones('us-east-1a', 'us-east-1b')
      .withLaunchTemplate({ id: 'lt-0etl0000000000001' })
      .withSizes(0, 5, 2)
      .withInstance(instanceIdOf(n1), { InstanceType: 'm5.xlarge' })
      .withInstance(instanceIdOf(n2), { InstanceType: 'm5.xlarge' })
      .build();
    const w = world()
      .add('autoScalingGroups', g)
      .add('nodes', n1, n2)
      .add(
        'launchTemplateVersions',
        launchTemplateVersion('lt-0etl0000000000001', 1).asDefault().withInstanceType('m5.xlarge').build(),
      )
      .add('replicaSets', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: 'etl-5f6d7c8b9',
          namespace: 'data',
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'Deployment', name: 'etl', uid: 'u1', controller: true },
          ],
        },
      })
      .add(
        'pods',
        pendingPod('etl-5f6d7c8b9-xxxxx', 'data')
          .withNodeSelector({ 'node-pool': 'etl', 'topology.kubernetes.io/zone': 'us-east-1b' })
          .build(),
      );
    // this pod also needs zone 1b, which the scratch (first AZ, 1a) lacks: the label alone does not help it
    const selectsPoolOnly = pendingPod('etl-5f6d7c8b9-yyyyy', 'data')
      .withNodeSelector({ 'node-pool': 'etl' })
      .build();
    w.add('pods', selectsPoolOnly);
    const a = analysis(w.raw);
    // team differs between the nodes and the zone is per node: only node-pool is the group's label
    expect(
      labelDrifts(
        a,
        a.nodeGroups.find((x) => x.name === 'prod-etl')!,
      ),
    ).toEqual([
      {
        key: 'node-pool',
        expected: 'etl',
        source: 'nodes ip-10-0-1-11.ec2.internal, ip-10-0-1-12.ec2.internal',
        workloads: ['Deployment data/etl'],
        pendingPods: ['data/etl-5f6d7c8b9-yyyyy'],
      },
    ]);
    expect(workloadName(a, selectsPoolOnly)).toBe('Deployment data/etl');
  });

  it('finds taints real nodes carry and CA keeps, ignoring those CA sanitises away', () => {
    const n = node('ip-10-0-1-13.ec2.internal')
      .withTaint('dedicated', 'db')
      .withTaint('node.cilium.io/agent-not-ready', 'true')
      .build();
    const g = asg('prod-db')
      .withDiscoveryTags('prod')
      .withLaunchTemplate({ id: 'lt-0db00000000000001' })
      .withSizes(0, 5, 1)
      .withInstance(instanceIdOf(n), { InstanceType: 'm5.xlarge' })
      .build();
    const w = world()
      .add('autoScalingGroups', g)
      .add('nodes', n)
      .add(
        'launchTemplateVersions',
        launchTemplateVersion('lt-0db00000000000001', 1).asDefault().withInstanceType('m5.xlarge').build(),
      );
    const a = analysis(w.raw, ['--startup-taint=node.cilium.io/agent-not-ready']);
    const drifts = taintDrifts(
      a,
      a.nodeGroups.find((x) => x.name === 'prod-db')!,
    );
    expect(drifts.map((d) => [d.kind, d.taint.key])).toEqual([['missing', 'dedicated']]);
  });

  it('compares like with like and estimates an EKS node when there is none', () => {
    const a = analysis(world().raw);
    const shape = realShape(a, a.nodeGroups[0])!;
    expect(shape).toMatchObject({
      sameType: true,
      instanceType: 'm5.xlarge',
      allocatable: { cpu: 3920, pods: 58 },
    });
    const info = a.instanceTypes.lookup('m5.xlarge')!;
    // 255Mi + 11Mi * 58 + 100Mi reserved; 6% + 1% + 0.5% + 0.5% of a core
    expect(eksAllocatableEstimate(info)).toMatchObject({
      allocatable: { cpu: 3920, memory: (16384 - 993) * 1024 * 1024, pods: 58 },
      estimated: true,
    });
  });

  it('reads the zones of EBS CSI node affinity and of in-tree zone labels', () => {
    expect(pvZones(pv('pvc-a').inZone('us-east-1c').build())).toEqual(['us-east-1c']);
    expect(pvZones(pv('pvc-b').inTreeInZone('us-east-1b').build())).toEqual(['us-east-1b']);
    expect(pvZones(pv('pvc-c').build())).toEqual([]);
  });
});

describe('the JSON view of a node group', () => {
  it('holds both templates with quantity strings as a Node status would', () => {
    const z = zeroWith({ [`${LABEL}node-pool`]: 'batch', [`${TAINT}dedicated`]: 'batch:NoSchedule' });
    const r = nodeGroupReport(z.a, z.g);
    expect(r).toMatchObject({
      name: 'prod-zero',
      discovered: true,
      minSize: 0,
      maxSize: 10,
      desiredCapacity: 0,
      zones: [`${REGION}a`],
      instanceTypes: ['m5.large'],
      template: {
        source: 'asg',
        instanceType: 'm5.large',
        labels: { 'node-pool': 'batch', 'topology.kubernetes.io/zone': `${REGION}a` },
        taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
        capacity: { cpu: '2', memory: '8Gi', pods: '110', 'nvidia.com/gpu': '0' },
        allocatable: { cpu: '2', memory: '8Gi', pods: '110', 'nvidia.com/gpu': '0' },
      },
    });
    expect(r.scratchTemplate).toEqual(r.template);
  });

  it('shows the real node as the template and the scratch template beside it', () => {
    const a = analysis(world().raw);
    const r = nodeGroupReport(a, a.nodeGroups[0]);
    expect(r.template).toMatchObject({
      source: 'node',
      fromNode: 'ip-10-0-1-10.ec2.internal',
      capacity: { cpu: '4' },
    });
    expect(r.scratchTemplate).toMatchObject({ source: 'asg', allocatable: { cpu: '4', memory: '16Gi' } });
    expect(r.template.labels['node-pool']).toBe('general');
    expect(r.scratchTemplate.labels['node-pool']).toBeUndefined();
  });
});
