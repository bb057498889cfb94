import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AutoScalingGroup, EksNodegroup, LaunchTemplateVersion } from '../../src/model/aws.js';
import type { CaConfig } from '../../src/model/ca-config.js';
import type { DaemonSet, Deployment, Node, Taint, Toleration } from '../../src/model/k8s.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../src/simulate/instance-types.js';
import { buildNodeGroups } from '../../src/providers/aws/node-groups.js';
import type { TemplateContext } from '../../src/simulate/node-group-provider.js';
import { awsProvider } from '../../src/providers/aws/index.js';
import {
  labelsFromAsgTags,
  resolveLaunchTemplateVersion,
  resourcesFromTags,
  taintsFromAsgTags,
} from '../../src/providers/aws/template.js';
import { buildTemplateNode, templateNodeName, templateSuffix } from '../../src/simulate/template-node.js';
import { asg, eksNodegroup, launchConfiguration, launchTemplateVersion } from '../builders/aws.js';
import { node, type PodBuilder, pod } from '../builders/k8s.js';

const data = JSON.parse(
  readFileSync(new URL('../../data/instance-types.json', import.meta.url), 'utf8'),
) as StaticInstanceTypeData;
const NOW = new Date('2026-03-01T12:00:00Z');
const LT = 'lt-0a1b2c3d4e5f60718';
const NAME = 'eks-general-20260105-7ac6d3f2';

function configFor(tag = 'v1.36.1', ...args: string[]): CaConfig {
  const deployment: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'cluster-autoscaler', namespace: 'kube-system' },
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'cluster-autoscaler',
              image: `registry.k8s.io/autoscaling/cluster-autoscaler:${tag}`,
              command: ['./cluster-autoscaler', '--cloud-provider=aws', '--nodes=0:10:' + NAME, ...args],
            },
          ],
        },
      },
    },
  };
  return buildCaConfig({ deployment });
}

/** An EKS worker of the group (m5.xlarge builder node), with readiness, cordon and taint variations. */
function workerNode(
  name: string,
  instanceId: string,
  opts: { readySince?: string; ready?: boolean; unschedulable?: boolean; taints?: Taint[] } = {},
): Node {
  let b = node(name)
    .withProviderId(`aws:///us-east-1a/${instanceId}`)
    .withLabels({ 'eks.amazonaws.com/nodegroup': 'general', team: 'payments' });
  if (opts.ready === false) b = b.notReady();
  if (opts.unschedulable) b = b.unschedulable();
  if (opts.taints) b = b.withTaints(...opts.taints);
  const n = b.build();
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready && opts.readySince) ready.lastTransitionTime = opts.readySince;
  return n;
}

function daemonSet(
  name: string,
  opts: {
    namespace?: string;
    tolerations?: Toleration[];
    nodeSelector?: Record<string, string>;
    priorityClassName?: string;
    cpu?: string;
  } = {},
): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: opts.namespace ?? 'kube-system', uid: `ds-uid-${name}` },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/name': name } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': name } },
        spec: {
          ...(opts.nodeSelector ? { nodeSelector: opts.nodeSelector } : {}),
          ...(opts.tolerations ? { tolerations: opts.tolerations } : {}),
          ...(opts.priorityClassName ? { priorityClassName: opts.priorityClassName } : {}),
          containers: [
            {
              name,
              image: `example/${name}:1.0`,
              resources: { requests: { cpu: opts.cpu ?? '50m', memory: '64Mi' } },
            },
          ],
        },
      },
    },
  };
}

function runningPod(name: string, nodeName: string): PodBuilder {
  return pod(name, 'kube-system').onNode(nodeName).withRequests({ cpu: '25m' });
}

const defaultLt = (): LaunchTemplateVersion[] => [
  launchTemplateVersion(LT, 1).named('general').asDefault().withInstanceType('m5.large').build(),
  launchTemplateVersion(LT, 2).named('general').withInstanceType('m5.xlarge').build(),
  launchTemplateVersion(LT, 3).named('general').withInstanceType('m5.2xlarge').build(),
];

interface Scenario {
  asg?: AutoScalingGroup;
  nodes?: Node[];
  config?: CaConfig;
  ctx?: Partial<TemplateContext>;
}

function template(s: Scenario = {}) {
  const config = s.config ?? configFor();
  const group =
    s.asg ?? asg(NAME).withZones('us-east-1a', 'us-east-1b').withLaunchTemplate({ id: LT }).build();
  const { nodeGroups } = buildNodeGroups({ asgs: [group], nodes: s.nodes ?? [], config });
  const ctx: TemplateContext = {
    now: NOW,
    config,
    instanceTypes: buildInstanceTypeTable(data, [], config),
    launchTemplateVersions: defaultLt(),
    launchConfigurations: [],
    images: [],
    instanceTypesFromRequirements: [],
    eksNodegroups: [],
    daemonSets: [],
    podsByNode: new Map(),
    provider: awsProvider,
    ...s.ctx,
  };
  return buildTemplateNode(nodeGroups[0], ctx);
}

const lt = (version?: string) => asg(NAME).withLaunchTemplate({ id: LT, ...(version ? { version } : {}) });

describe('instance type resolution for the scratch template', () => {
  it.each([
    ['$Default when the ASG sets no version', lt(), 'm5.large'],
    ['$Default explicitly', lt('$Default'), 'm5.large'],
    ['$Latest as the highest version number', lt('$Latest'), 'm5.2xlarge'],
    ['a pinned version', lt('2'), 'm5.xlarge'],
    [
      'the launch template by name',
      asg(NAME).withLaunchTemplate({ name: 'general', version: '2' }),
      'm5.xlarge',
    ],
  ])('uses %s', (_name, builder, instanceType) => {
    const t = template({ asg: builder.build() });
    expect(t.source).toBe('asg');
    expect(t.instanceType).toBe(instanceType);
  });

  it('explains a launch template version missing from the snapshot', () => {
    const t = template({ asg: lt('7').build() });
    expect(t).toMatchObject({
      source: 'none',
      caReason: 'not ready for scale-up',
      reason: `launch template ${LT} version 7 not in the snapshot (needs ec2:DescribeLaunchTemplateVersions)`,
      missing: ['ec2:DescribeLaunchTemplateVersions'],
    });
  });

  it('reports CA’s error for a launch template with neither instance type nor requirements', () => {
    const versions = [launchTemplateVersion(LT, 1).asDefault().withInstanceType(undefined).build()];
    const t = template({ ctx: { launchTemplateVersions: versions } });
    expect(t.reason).toBe('unable to find instance type using launch template');
  });

  it('reads the launch configuration', () => {
    const t = template({
      asg: asg(NAME).withLaunchConfiguration('general-lc-v3').build(),
      ctx: { launchConfigurations: [launchConfiguration('general-lc-v3', 'c5.xlarge')] },
    });
    expect(t).toMatchObject({ source: 'asg', instanceType: 'c5.xlarge' });
  });

  it('explains a launch configuration missing from the snapshot', () => {
    const t = template({ asg: asg(NAME).withLaunchConfiguration('gone').build() });
    expect(t.reason).toBe(
      'launch configuration gone not in the snapshot (needs autoscaling:DescribeLaunchConfigurations)',
    );
  });

  it('simulates only the first MixedInstancesPolicy override', () => {
    const t = template({
      asg: asg(NAME)
        .withMixedInstances({ launchTemplate: { id: LT }, overrides: ['c5.2xlarge', 'm5.large', 'r5.large'] })
        .build(),
    });
    expect(t.instanceType).toBe('c5.2xlarge');
    expect(t.notes).toContain(
      'MixedInstancesPolicy: CA simulates the first override c5.2xlarge of 3 (c5.2xlarge, m5.large, r5.large)',
    );
  });

  it('uses the policy launch template when the MixedInstancesPolicy has no overrides', () => {
    const t = template({
      asg: asg(NAME)
        .withMixedInstances({ launchTemplate: { id: LT, version: '$Latest' } })
        .build(),
    });
    expect(t.instanceType).toBe('m5.2xlarge');
  });

  it('rejects instance-type and instance-requirements overrides together', () => {
    const t = template({
      asg: asg(NAME)
        .withMixedInstances({
          launchTemplate: { id: LT },
          overrides: [
            'm5.large',
            { InstanceRequirements: { VCpuCount: { Min: 2 }, MemoryMiB: { Min: 4096 } } },
          ],
        })
        .build(),
    });
    expect(t.reason).toBe(
      'invalid setup of both instance type and instance requirements overrides configured',
    );
  });

  it('takes the first ABS type and replaces CPU, memory and nvidia GPU by the requirement minimums', () => {
    const t = template({
      asg: asg(NAME)
        .withInstanceRequirements(
          { id: LT },
          {
            VCpuCount: { Min: 4, Max: 16 },
            MemoryMiB: { Min: 16384 },
            AcceleratorCount: { Min: 1, Max: 4 },
            AcceleratorManufacturers: ['nvidia'],
            AcceleratorTypes: ['gpu'],
          },
        )
        .build(),
      ctx: {
        instanceTypesFromRequirements: [{ InstanceType: 'g4dn.2xlarge' }, { InstanceType: 'g5.xlarge' }],
      },
    });
    expect(t.instanceType).toBe('g4dn.2xlarge');
    expect(t.node?.status?.capacity).toMatchObject({ cpu: '4', memory: '16Gi', 'nvidia.com/gpu': '1' });
  });

  it('does not override capacity for requirements in a plain launch template (no MixedInstancesPolicy)', () => {
    const versions = [
      launchTemplateVersion(LT, 1)
        .asDefault()
        .withInstanceType(undefined)
        .withInstanceRequirements({ VCpuCount: { Min: 1 }, MemoryMiB: { Min: 1024 } })
        .build(),
    ];
    const t = template({
      ctx: {
        launchTemplateVersions: versions,
        instanceTypesFromRequirements: [{ InstanceType: 'm5.xlarge' }],
      },
    });
    expect(t.instanceType).toBe('m5.xlarge');
    expect(t.node?.status?.capacity).toMatchObject({ cpu: '4', memory: '16Gi' });
  });

  it('explains missing GetInstanceTypesFromInstanceRequirements data', () => {
    const t = template({
      asg: asg(NAME)
        .withInstanceRequirements({ id: LT }, { VCpuCount: { Min: 2 }, MemoryMiB: { Min: 4096 } })
        .build(),
    });
    expect(t.source).toBe('none');
    expect(t.missing).toContain('ec2:GetInstanceTypesFromInstanceRequirements');
  });

  it('uses CA’s words for an unknown instance type', () => {
    const versions = [launchTemplateVersion(LT, 1).asDefault().withInstanceType('m99.mega').build()];
    const t = template({ ctx: { launchTemplateVersions: versions } });
    expect(t).toMatchObject({
      source: 'none',
      instanceType: 'm99.mega',
      reason: `ASG "${NAME}" uses the unknown EC2 instance type "m99.mega"`,
      caReason: 'not ready for scale-up',
    });
  });

  it('fails without availability zones', () => {
    const t = template({ asg: lt().withZones().build() });
    expect(t.reason).toBe(`unable to get first AvailabilityZone for ASG "${NAME}"`);
  });

  it('resolves $Latest against version numbers, not list order', () => {
    const versions = [
      launchTemplateVersion(LT, 10).build(),
      launchTemplateVersion(LT, 9).asDefault().build(),
      launchTemplateVersion('lt-other', 99).build(),
    ];
    expect(
      resolveLaunchTemplateVersion({ LaunchTemplateId: LT, Version: '$Latest' }, versions)?.VersionNumber,
    ).toBe(10);
    expect(resolveLaunchTemplateVersion({ LaunchTemplateId: LT }, versions)?.VersionNumber).toBe(9);
  });
});

describe('scratch template contents', () => {
  it('builds capacity and allocatable CA’s way, as quantity strings', () => {
    const t = template();
    expect(t.node?.status?.capacity).toEqual({ pods: '110', cpu: '2', 'nvidia.com/gpu': '0', memory: '8Gi' });
    expect(t.node?.status?.allocatable).toEqual(t.node?.status?.capacity);
    expect(t.node?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      lastTransitionTime: '2026-03-01T11:59:00Z',
    });
  });

  it('counts GPUs as nvidia.com/gpu', () => {
    const versions = [launchTemplateVersion(LT, 1).asDefault().withInstanceType('g4dn.xlarge').build()];
    expect(
      template({ ctx: { launchTemplateVersions: versions } }).node?.status?.capacity?.['nvidia.com/gpu'],
    ).toBe('1');
  });

  it('labels the node with the first zone and sanitised names', () => {
    const t = template();
    const name = templateNodeName(NAME);
    expect(t.node?.metadata.name).toBe(name);
    expect(name).toMatch(new RegExp(`^template-node-for-${NAME}-\\d+$`));
    expect(t.node?.metadata.labels).toEqual({
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': 'm5.large',
      'topology.kubernetes.io/region': 'us-east-1',
      'topology.kubernetes.io/zone': 'us-east-1a',
      'topology.ebs.csi.aws.com/zone': 'us-east-1a',
      'kubernetes.io/hostname': name,
      'cluster-autoscaler.kubernetes.io/template-node': 'true',
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/instance-type': 'm5.large',
      'failure-domain.beta.kubernetes.io/region': 'us-east-1',
      'failure-domain.beta.kubernetes.io/zone': 'us-east-1a',
    });
    expect(t.notes).toContain("ASG spans 2 zones; CA's template uses the first, us-east-1a");
  });

  it('omits the EBS CSI zone label before 1.29 and the template-node label before 1.36', () => {
    const labels = template({ config: configFor('v1.28.4') }).node?.metadata.labels ?? {};
    expect(labels['topology.ebs.csi.aws.com/zone']).toBeUndefined();
    expect(labels['cluster-autoscaler.kubernetes.io/template-node']).toBeUndefined();
  });

  it('applies label tags, then eks: tags, over the generic labels', () => {
    const t = template({
      asg: lt()
        .withTags({
          'k8s.io/cluster-autoscaler/node-template/label/kubernetes.io/os': 'windows',
          'k8s.io/cluster-autoscaler/node-template/label/workload': 'batch',
          'eks:cluster-name': 'prod',
          'eks:nodegroup-name': 'general',
        })
        .build(),
      ctx: { eksNodegroups: [eksNodegroup('prod', 'general').build()] },
    });
    expect(t.node?.metadata.labels).toMatchObject({
      'kubernetes.io/os': 'windows',
      'beta.kubernetes.io/os': 'windows',
      workload: 'batch',
      'cluster-name': 'prod',
      'nodegroup-name': 'general',
    });
  });

  it.each([
    ['a plain label tag', [['k8s.io/cluster-autoscaler/node-template/label/team', 'a']], { team: 'a' }],
    ['an empty label name (ignored)', [['k8s.io/cluster-autoscaler/node-template/label/', 'x']], {}],
    [
      'a key that contains the prefix mid-way',
      [['x/k8s.io/cluster-autoscaler/node-template/label/zone-class', 'fast']],
      { 'zone-class': 'fast' },
    ],
    ['any key containing eks:', [['aws:eks:cluster-name', 'prod']], { 'cluster-name': 'prod' }],
    [
      'the later of two tags for one label',
      [
        ['k8s.io/cluster-autoscaler/node-template/label/t', '1'],
        ['k8s.io/cluster-autoscaler/node-template/label/t', '2'],
      ],
      { t: '2' },
    ],
    [
      'unrelated tags (ignored)',
      [
        ['Name', 'worker'],
        ['k8s.io/cluster-autoscaler/enabled', 'true'],
      ],
      {},
    ],
  ])('labelsFromAsgTags: %s', (_name, tags, expected) => {
    expect(labelsFromAsgTags(tags.map(([Key, Value]) => ({ Key, Value })))).toEqual(expected);
  });

  it.each([
    [
      'a valid taint',
      'dedicated',
      'gpu:NoSchedule',
      [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    ],
    ['an empty value', 'spot', ':NoExecute', [{ key: 'spot', value: '', effect: 'NoExecute' }]],
    [
      'PreferNoSchedule',
      'soft',
      'yes:PreferNoSchedule',
      [{ key: 'soft', value: 'yes', effect: 'PreferNoSchedule' }],
    ],
    [
      'a value with ":" (split at the first colon)',
      'url',
      'a:b:NoSchedule',
      [{ key: 'url', value: 'a', effect: 'b:NoSchedule' }],
    ],
    [
      'trailing text (the regex is unanchored)',
      'x',
      'v:NoScheduleLater',
      [{ key: 'x', value: 'v', effect: 'NoScheduleLater' }],
    ],
    ['a value without effect (silently ignored)', 'dedicated', 'gpu', []],
    ['an unknown effect (silently ignored)', 'dedicated', 'gpu:NoRun', []],
  ])('taintsFromAsgTags: %s', (_name, key, value, taints) => {
    const r = taintsFromAsgTags([
      { Key: `k8s.io/cluster-autoscaler/node-template/taint/${key}`, Value: value },
    ]);
    expect(r.taints).toEqual(taints);
    expect(r.ignored.length).toBe(taints.length ? 0 : 1);
  });

  it.each([
    ['ephemeral-storage', '100Gi', { 'ephemeral-storage': '100Gi' }],
    ['pods (overrides 110)', '58', { pods: '58' }],
    ['a custom extended resource', '2', { 'example.com/fpga': '2' }],
    ['an unparsable quantity (silently ignored)', 'lots', {}],
    ['a value with spaces (not a quantity)', ' 1', {}],
  ])('resource tag for %s', (name, value, expected) => {
    const resource = name.startsWith('pods')
      ? 'pods'
      : name.startsWith('a custom')
        ? 'example.com/fpga'
        : 'ephemeral-storage';
    expect(
      resourcesFromTags([[`k8s.io/cluster-autoscaler/node-template/resources/${resource}`, value]]).resources,
    ).toEqual(expected);
  });

  it('puts tag resources into capacity and allocatable and notes ignored ones', () => {
    const t = template({
      asg: lt()
        .withTags({
          'k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage': '100Gi',
          'k8s.io/cluster-autoscaler/node-template/resources/pods': '29',
          'k8s.io/cluster-autoscaler/node-template/resources/hugepages-2Mi': 'many',
        })
        .build(),
    });
    expect(t.node?.status?.allocatable).toEqual({
      pods: '29',
      cpu: '2',
      'nvidia.com/gpu': '0',
      memory: '8Gi',
      'ephemeral-storage': '100Gi',
    });
    expect(t.notes).toContain(
      'resource tag ignored by CA (not a quantity): k8s.io/cluster-autoscaler/node-template/resources/hugepages-2Mi=many',
    );
  });

  it('puts taint tags on the node and drops those CA sanitises away', () => {
    const t = template({
      config: configFor('v1.36.1', '--startup-taint=node.cilium.io/agent-not-ready'),
      asg: lt()
        .withTags({
          'k8s.io/cluster-autoscaler/node-template/taint/dedicated': 'gpu:NoSchedule',
          'k8s.io/cluster-autoscaler/node-template/taint/node.cilium.io/agent-not-ready': 'true:NoExecute',
          'k8s.io/cluster-autoscaler/node-template/taint/startup-taint.cluster-autoscaler.kubernetes.io/init':
            'x:NoSchedule',
          'k8s.io/cluster-autoscaler/node-template/taint/broken': 'NoSchedule',
        })
        .build(),
    });
    expect(t.node?.spec?.taints).toEqual([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
    expect(t.notes).toContain(
      'taint tag ignored by CA (value is not <value>:<effect>): k8s.io/cluster-autoscaler/node-template/taint/broken=NoSchedule',
    );
  });
});

describe('EKS managed node group data', () => {
  const mngAsg = () =>
    lt().withTags({
      'eks:cluster-name': 'prod',
      'eks:nodegroup-name': 'gpu',
      'k8s.io/cluster-autoscaler/node-template/label/eks.amazonaws.com/capacityType': 'SPOT',
      'k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage': '50Gi',
    });

  it('adds EKS labels (overriding ASG-tag labels), translated taints and resource tags', () => {
    const ng: EksNodegroup = eksNodegroup('prod', 'gpu')
      .withCapacityType('ON_DEMAND')
      .withLabels({ workload: 'ml' })
      .withTaint('nvidia.com/gpu', 'true', 'NO_SCHEDULE')
      .withTaint('valueless', undefined, 'NO_EXECUTE')
      .withTaint('soft', 'x', 'PREFER_NO_SCHEDULE')
      .withTags({ 'k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage': '200Gi' })
      .build();
    const t = template({ asg: mngAsg().build(), ctx: { eksNodegroups: [ng] } });
    expect(t.node?.metadata.labels).toMatchObject({
      'eks.amazonaws.com/capacityType': 'ON_DEMAND',
      'eks.amazonaws.com/nodegroup': 'gpu',
      amiType: 'AL2023_x86_64_STANDARD',
      diskSize: '20',
      k8sVersion: '1.33',
      workload: 'ml',
    });
    expect(t.node?.spec?.taints).toEqual([
      { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
      { key: 'soft', value: 'x', effect: 'PreferNoSchedule' },
    ]);
    expect(t.node?.status?.capacity?.['ephemeral-storage']).toBe('200Gi');
    expect(t.node?.status?.allocatable?.['ephemeral-storage']).toBe('200Gi');
  });

  it('drops all EKS data when a taint has an effect CA cannot translate', () => {
    const ng = eksNodegroup('prod', 'gpu')
      .withLabels({ workload: 'ml' })
      .withTaint('k', 'v', 'SOMETIMES')
      .build();
    const t = template({ asg: mngAsg().build(), ctx: { eksNodegroups: [ng] } });
    expect(t.node?.metadata.labels?.workload).toBeUndefined();
    expect(t.node?.metadata.labels?.['eks.amazonaws.com/capacityType']).toBe('SPOT');
    expect(t.notes.some((n) => n.startsWith('CA fails the DescribeNodegroup lookup for gpu'))).toBe(true);
  });

  it('notes a managed node group missing from the snapshot', () => {
    const t = template({ asg: mngAsg().build() });
    expect(t.source).toBe('asg');
    expect(t.missing).toEqual(['eks:DescribeNodegroup']);
    expect(t.node?.metadata.labels?.['eks.amazonaws.com/capacityType']).toBe('SPOT');
  });

  it('does not look up EKS data without both eks: tags', () => {
    const t = template({ asg: lt().withTags({ 'eks:nodegroup-name': 'gpu' }).build() });
    expect(t.missing).toBeUndefined();
  });
});

describe('pods on the scratch template', () => {
  const arm = daemonSet('arm-only', { nodeSelector: { 'kubernetes.io/arch': 'arm64' } });
  const plain = daemonSet('aws-node', { cpu: '25m' });
  const tolerant = daemonSet('gpu-plugin', {
    tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
  });
  const intolerant = daemonSet('log-agent');
  const beta = daemonSet('beta-os', { nodeSelector: { 'beta.kubernetes.io/os': 'linux' } });

  it('adds the fake kube-proxy static pod and every DaemonSet that fits (tolerations, selector)', () => {
    const t = template({
      asg: lt()
        .withTags({ 'k8s.io/cluster-autoscaler/node-template/taint/dedicated': 'gpu:NoSchedule' })
        .build(),
      ctx: { daemonSets: [arm, plain, tolerant, intolerant] },
    });
    const names = t.pods.map((p) => p.metadata.name);
    const nodeName = templateNodeName(NAME);
    expect(names).toHaveLength(2);
    const proxy = t.pods[0];
    expect(proxy.metadata).toMatchObject({
      name: `kube-proxy-${NAME}-${templateSuffix(NAME)}`,
      namespace: 'kube-system',
    });
    expect(proxy.metadata.annotations?.['kubernetes.io/config.mirror']).toBeTruthy();
    expect(proxy.spec.containers[0].resources?.requests).toEqual({ cpu: '100m' });
    const ds = t.pods[1];
    expect(ds.metadata.name).toMatch(/^gpu-plugin-pod-\d+$/);
    expect(ds.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        name: 'gpu-plugin',
        uid: 'ds-uid-gpu-plugin',
        controller: true,
      },
    ]);
    expect(ds.spec.nodeName).toBe(nodeName);
  });

  it('includes untainted-node DaemonSets and excludes arch mismatches', () => {
    const names = template({ ctx: { daemonSets: [arm, plain] } }).pods.map((p) => p.metadata.name);
    expect(names.some((n) => n?.startsWith('aws-node-pod-'))).toBe(true);
    expect(names.some((n) => n?.startsWith('arm-only-pod-'))).toBe(false);
  });

  it('matches DaemonSets before the deprecated beta labels are added, as CA does', () => {
    const t = template({ ctx: { daemonSets: [beta] } });
    expect(t.node?.metadata.labels?.['beta.kubernetes.io/os']).toBe('linux');
    expect(t.pods.map((p) => p.metadata.name)).toEqual([`kube-proxy-${NAME}-${templateSuffix(NAME)}`]);
  });
});

describe('real nodes as templates', () => {
  const asgWithInstances = () =>
    lt().withDesired(2).withInstances('i-0000000000000000a', 'i-0000000000000000b').build();
  const good = () => workerNode('ip-10-0-1-10.ec2.internal', 'i-0000000000000000a');

  it('prefers a Ready, schedulable node and returns the scratch template alongside', () => {
    const t = template({ asg: asgWithInstances(), nodes: [good()] });
    expect(t).toMatchObject({
      source: 'node',
      fromNode: 'ip-10-0-1-10.ec2.internal',
      instanceType: 'm5.xlarge',
    });
    expect(t.node?.metadata.name).toBe(templateNodeName(NAME));
    expect(t.node?.metadata.labels?.['kubernetes.io/hostname']).toBe(templateNodeName(NAME));
    expect(t.node?.metadata.labels?.['cluster-autoscaler.kubernetes.io/template-node']).toBe('true');
    expect(t.node?.metadata.labels?.team).toBe('payments');
    expect(t.node?.status?.allocatable?.cpu).toBe('3920m');
    expect(t.scratch?.source).toBe('asg');
    expect(t.scratch?.node?.status?.allocatable?.cpu).toBe('2');
  });

  it('does not add deprecated labels to a real-node template that lacks them', () => {
    const n = good();
    delete n.metadata.labels?.['beta.kubernetes.io/os'];
    const t = template({ asg: asgWithInstances(), nodes: [n] });
    expect(t.node?.metadata.labels?.['beta.kubernetes.io/os']).toBeUndefined();
  });

  it.each([
    ['Ready for less than a minute', { readySince: '2026-03-01T11:59:30Z' }],
    ['NotReady', { ready: false }],
    ['cordoned', { unschedulable: true }],
    [
      'being deleted by CA',
      { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', value: '1772366400', effect: 'NoSchedule' }] },
    ],
  ])('skips a node that is %s and uses the ASG template', (_name, opts) => {
    const t = template({
      asg: asgWithInstances(),
      nodes: [workerNode('ip-10-0-1-11.ec2.internal', 'i-0000000000000000a', opts)],
    });
    expect(t.source).toBe('asg');
    expect(t.notes[0]).toMatch(/^no Ready \(for 1 min\) schedulable node: CA uses a template cached/);
  });

  it('takes the first good node in node-list order', () => {
    const t = template({
      asg: asgWithInstances(),
      nodes: [
        workerNode('ip-10-0-1-11.ec2.internal', 'i-0000000000000000a', { ready: false }),
        workerNode('ip-10-0-1-12.ec2.internal', 'i-0000000000000000b'),
      ],
    });
    expect(t.fromNode).toBe('ip-10-0-1-12.ec2.internal');
  });

  it('falls back to an unready node only when the ASG template cannot be built', () => {
    const t = template({
      asg: lt('42').withDesired(1).withInstances('i-0000000000000000a').build(),
      nodes: [workerNode('ip-10-0-1-11.ec2.internal', 'i-0000000000000000a', { unschedulable: true })],
      config: configFor('v1.35.0', '--scale-from-unschedulable=true'),
    });
    expect(t).toMatchObject({ source: 'node', fromNode: 'ip-10-0-1-11.ec2.internal', fromUnreadyNode: true });
    expect(t.node?.spec?.unschedulable).toBe(false);
    expect(t.scratch?.source).toBe('none');
    expect(t.notes[0]).toBe(
      `Built template for ${NAME} based on unready/unschedulable node ip-10-0-1-11.ec2.internal`,
    );
  });

  it('has no template and CA’s skip reason when neither a node nor the ASG template works', () => {
    const t = template({ asg: lt('42').build() });
    expect(t).toMatchObject({ source: 'none', caReason: 'not ready for scale-up' });
  });

  it('sanitises taints the way CA does', () => {
    const taints: Taint[] = [
      { key: 'dedicated', value: 'payments', effect: 'NoSchedule' },
      { key: 'DeletionCandidateOfClusterAutoscaler', value: '1772366400', effect: 'PreferNoSchedule' },
      { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' },
      { key: 'NodeWithImpairedVolumes', value: 'true', effect: 'NoSchedule' },
      { key: 'ignore-taint.cluster-autoscaler.kubernetes.io/warmup', value: 'x', effect: 'NoSchedule' },
      { key: 'startup-taint.cluster-autoscaler.kubernetes.io/cni', value: 'x', effect: 'NoSchedule' },
      { key: 'status-taint.cluster-autoscaler.kubernetes.io/degraded', value: 'x', effect: 'NoSchedule' },
      { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' },
      { key: 'example.com/health', value: 'bad', effect: 'NoSchedule' },
      { key: 'example.com/legacy', value: 'x', effect: 'NoSchedule' },
      { key: 'vendor.example/booting', value: 'x', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/out-of-service', value: 'x', effect: 'NoExecute' },
    ];
    const t = template({
      asg: asgWithInstances(),
      nodes: [workerNode('ip-10-0-1-10.ec2.internal', 'i-0000000000000000a', { taints })],
      config: configFor(
        'v1.36.1',
        '--startup-taint=node.cilium.io/agent-not-ready',
        '--status-taint=example.com/health',
        '--ignore-taint=example.com/legacy',
        '--startup-taint-prefix=vendor.example/',
      ),
    });
    expect(t.source).toBe('node');
    expect(t.node?.spec?.taints).toEqual([
      { key: 'dedicated', value: 'payments', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/out-of-service', value: 'x', effect: 'NoExecute' },
    ]);
  });

  it('adds resources of the ASG template that the node lacks, never replacing the node’s own', () => {
    const t = template({
      asg: lt()
        .withDesired(1)
        .withInstances('i-0000000000000000a')
        .withTags({
          'k8s.io/cluster-autoscaler/node-template/resources/example.com/fpga': '2',
          'k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage': '500Gi',
        })
        .build(),
      nodes: [good()],
    });
    expect(t.node?.status?.capacity).toMatchObject({
      cpu: '4',
      'ephemeral-storage': '83873772Ki',
      'example.com/fpga': '2',
      'nvidia.com/gpu': '0',
      pods: '58',
    });
    expect(t.node?.status?.allocatable).toMatchObject({
      cpu: '3920m',
      'example.com/fpga': '2',
      'nvidia.com/gpu': '0',
    });
    expect(t.notes).toContain(
      'resources from the ASG template added to the real-node template: nvidia.com/gpu=0, example.com/fpga=2',
    );
  });

  it('keeps the node’s DaemonSet and mirror pods, drops other pods, and adds pending DaemonSets only when forced', () => {
    const nodeName = 'ip-10-0-1-10.ec2.internal';
    const awsNode = daemonSet('aws-node');
    const newAgent = daemonSet('new-agent');
    const critical = { ...daemonSet('csi-node', { priorityClassName: 'system-node-critical' }) };
    const pods = [
      runningPod('aws-node-7xk2p', nodeName)
        .ownedBy('DaemonSet', 'aws-node', { uid: 'ds-uid-aws-node' })
        .build(),
      runningPod(`etcd-backup-${nodeName}`, nodeName)
        .withAnnotation('kubernetes.io/config.mirror', 'abc')
        .build(),
      runningPod('coredns-5d78c9869d-abcde', nodeName).ownedBy('ReplicaSet', 'coredns-5d78c9869d').build(),
      runningPod('old-agent-1', nodeName)
        .ownedBy('DaemonSet', 'old', { uid: 'ds-old' })
        .withPhase('Succeeded')
        .build(),
    ];
    const build = (config: CaConfig) =>
      template({
        asg: asgWithInstances(),
        nodes: [good()],
        config,
        ctx: { daemonSets: [awsNode, newAgent, critical], podsByNode: new Map([[nodeName, pods]]) },
      });
    const names = (t: ReturnType<typeof build>) => t.pods.map((p) => p.metadata.name?.replace(/-\d+$/, ''));
    expect(names(build(configFor()))).toEqual(['aws-node-7xk2p', `etcd-backup-${nodeName}`, 'csi-node-pod']);
    expect(names(build(configFor('v1.36.1', '--force-ds=true')))).toEqual([
      'aws-node-7xk2p',
      `etcd-backup-${nodeName}`,
      'new-agent-pod',
      'csi-node-pod',
    ]);
    expect(build(configFor()).pods[0].spec.nodeName).toBe(templateNodeName(NAME));
  });
});
