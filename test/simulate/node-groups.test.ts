import { describe, expect, it } from 'vitest';
import type { Node } from '../../src/model/k8s.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import { buildNodeGroups, discoverNodeGroups, providerIdToInstance } from '../../src/providers/aws/node-groups.js';
import { asg } from '../builders/aws.js';
import { node } from '../builders/k8s.js';

/** An EKS worker Node; `undefined` removes spec.providerID (hybrid nodes, some bare-metal setups). */
function ec2Node(name: string, providerID: string | undefined): Node {
  const n = node(name).build();
  if (providerID) n.spec = { ...n.spec, providerID };
  else delete n.spec?.providerID;
  return n;
}

const withArgs = (...args: string[]) => buildCaConfig({ overrideArgs: args });

describe('providerIdToInstance', () => {
  it.each([
    ['aws:///us-east-1a/i-0abc123def4567890', { zone: 'us-east-1a', instanceId: 'i-0abc123def4567890' }],
    [
      'aws:///us-east-1a/i-0abc123def4567890/extra.segment',
      { zone: 'us-east-1a', instanceId: 'i-0abc123def4567890' },
    ],
    [
      'aws:///us-west-2b/i-placeholder-My_ASG-3',
      { zone: 'us-west-2b', instanceId: 'i-placeholder-My_ASG-3' },
    ],
    ['aws:////i-0abc', { zone: '', instanceId: 'i-0abc' }],
    ['aws://us-east-1a/i-0abc', undefined],
    ['aws:///us-east-1a/I-UPPER', undefined],
    ['fargate-ip-10-0-1-5', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('parses %s', (id, expected) => {
    expect(providerIdToInstance(id)).toEqual(expected);
  });
});

describe('discoverNodeGroups', () => {
  const tagged = asg('ng-tagged')
    .withSizes(1, 5, 2)
    .withTags({
      'k8s.io/cluster-autoscaler/enabled': 'true',
      'k8s.io/cluster-autoscaler/prod': 'owned',
      team: 'payments',
    })
    .build();
  const untagged = asg('ng-untagged').withSizes(0, 3).withTags({ team: 'payments' }).build();

  it.each([
    [
      'a key-only tag matches any value',
      [
        '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod',
      ],
      { discovered: true, via: 'auto-discovery', min: 1, max: 5 },
    ],
    [
      'key=value matches the exact value',
      ['--node-group-auto-discovery=asg:tag=team=payments'],
      { discovered: true, via: 'auto-discovery' },
    ],
    [
      'a wrong value is not discovered and named',
      ['--node-group-auto-discovery=asg:tag=team=search'],
      {
        discovered: false,
        via: 'none',
        mismatch: 'tag "team" is "payments", expected "search" (--node-group-auto-discovery)',
      },
    ],
    [
      'several flags are ANDed: one missing tag is enough to miss the ASG',
      [
        '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled',
        '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/staging',
      ],
      {
        discovered: false,
        mismatch: 'missing tag "k8s.io/cluster-autoscaler/staging" (--node-group-auto-discovery)',
      },
    ],
    [
      'values are case-sensitive',
      ['--node-group-auto-discovery=asg:tag=team=Payments'],
      { discovered: false },
    ],
    [
      '--nodes overrides the ASG min/max',
      ['--nodes=2:20:ng-tagged'],
      { discovered: true, via: 'nodes-flag', min: 2, max: 20 },
    ],
    [
      '--nodes wins over auto-discovery for the same ASG',
      ['--nodes=0:7:ng-tagged', '--node-group-auto-discovery=asg:tag=team'],
      { discovered: true, via: 'nodes-flag', min: 0, max: 7 },
    ],
    [
      'nothing configured',
      [],
      {
        discovered: false,
        mismatch: 'not listed in --nodes and no --node-group-auto-discovery is configured',
      },
    ],
  ])('%s', (_name, args, expected) => {
    const [d] = discoverNodeGroups([tagged], withArgs(...args));
    expect(d).toMatchObject(expected);
  });

  it('names every missing tag key', () => {
    const [, d] = discoverNodeGroups(
      [tagged, untagged],
      withArgs(
        '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod',
      ),
    );
    expect(d.mismatch).toBe(
      'missing tag "k8s.io/cluster-autoscaler/enabled"; missing tag "k8s.io/cluster-autoscaler/prod" (--node-group-auto-discovery)',
    );
  });

  it('explains that an invalid auto-discovery spec discovers nothing', () => {
    const [d] = discoverNodeGroups([tagged], withArgs('--node-group-auto-discovery=mig:namePrefix=x'));
    expect(d.mismatch).toBe('not listed in --nodes, and --node-group-auto-discovery has no valid spec');
  });
});

describe('buildNodeGroups', () => {
  const config = withArgs(
    '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled',
    '--nodes=1:4:ng-missing',
  );
  const general = asg('ng-general')
    .withZones('us-east-1a', 'us-east-1b')
    .withSizes(1, 10, 4)
    .withTags({ 'k8s.io/cluster-autoscaler/enabled': 'true' })
    .withLaunchTemplate({ id: 'lt-0a1b2c3d4e5f60718', version: '$Latest' })
    .withInstance('i-0000000000000000a')
    .withInstance('i-0000000000000000b', { AvailabilityZone: 'us-east-1b' })
    .withInstance('i-0000000000000000c', { LifecycleState: 'Pending' })
    .withSuspendedProcesses('AZRebalance')
    .build();
  const unmanaged = asg('ng-unmanaged').withSizes(0, 2, 1).withInstance('i-0000000000000000d').build();
  const spot = asg('ng-spot')
    .withTags({ 'k8s.io/cluster-autoscaler/enabled': 'true' })
    .withMixedInstances({
      launchTemplate: { name: 'spot-lt', version: '3' },
      overrides: ['m5.xlarge', 'm5a.xlarge', 'm6i.xlarge'],
      onDemandPercentage: 0,
    })
    .build();
  const nodes = [
    ec2Node('ip-10-0-1-10.ec2.internal', 'aws:///us-east-1a/i-0000000000000000a'),
    ec2Node('ip-10-0-9-99.ec2.internal', 'aws:///us-east-1a/i-0000000000000000d'),
    ec2Node('fargate-ip-10-0-3-3.ec2.internal', 'fargate:///us-east-1a/fargate-ip-10-0-3-3'),
    ec2Node('hybrid-1', undefined),
    ec2Node('ip-10-0-7-7.ec2.internal', 'aws:///us-east-1c/i-0000000000000000e'),
  ];
  const result = buildNodeGroups({ asgs: [general, unmanaged, spot], nodes, config });
  const byName = Object.fromEntries(result.nodeGroups.map((g) => [g.name, g]));

  it('maps nodes to their ASG by the providerID instance id', () => {
    expect(byName['ng-general'].nodes.map((n) => n.metadata.name)).toEqual(['ip-10-0-1-10.ec2.internal']);
    expect(byName['ng-unmanaged'].nodes.map((n) => n.metadata.name)).toEqual(['ip-10-0-9-99.ec2.internal']);
  });

  it('describes the group as CA sees it', () => {
    expect(byName['ng-general']).toMatchObject({
      discovered: true,
      via: 'auto-discovery',
      minSize: 1,
      maxSize: 10,
      targetSize: 4,
      zones: ['us-east-1a', 'us-east-1b'],
      instanceIds: ['i-0000000000000000a', 'i-0000000000000000b', 'i-0000000000000000c'],
      placeholderCount: 1,
      suspendedProcesses: ['AZRebalance'],
      launchTemplate: { LaunchTemplateId: 'lt-0a1b2c3d4e5f60718', Version: '$Latest' },
    });
    expect(byName['ng-spot'].mixedInstances).toEqual({
      launchTemplate: { LaunchTemplateName: 'spot-lt', Version: '3' },
      instanceTypes: ['m5.xlarge', 'm5a.xlarge', 'm6i.xlarge'],
      hasInstanceRequirements: false,
    });
  });

  it('lists InService instances without a Node as unregistered, but not Pending ones', () => {
    expect(byName['ng-general'].unregisteredInstances.map((i) => i.InstanceId)).toEqual([
      'i-0000000000000000b',
    ]);
  });

  it('reports the nodes CA does not autoscale, with the reason', () => {
    expect(result.notAutoscaled.map((n) => [n.node.metadata.name, n.reason])).toEqual([
      [
        'ip-10-0-9-99.ec2.internal',
        'ASG ng-unmanaged is not managed by cluster-autoscaler: missing tag "k8s.io/cluster-autoscaler/enabled" (--node-group-auto-discovery)',
      ],
      [
        'fargate-ip-10-0-3-3.ec2.internal',
        'providerID "fargate:///us-east-1a/fargate-ip-10-0-3-3" is not of the form aws:///<zone>/<instance-id>',
      ],
      ['hybrid-1', 'node has no spec.providerID'],
      [
        'ip-10-0-7-7.ec2.internal',
        'instance i-0000000000000000e belongs to no Auto Scaling group in the snapshot',
      ],
    ]);
    expect(result.notAutoscaled[0].asgName).toBe('ng-unmanaged');
  });

  it('names --nodes groups missing from the snapshot', () => {
    expect(result.missingExplicitGroups).toEqual(['ng-missing']);
    expect(result.errors).toEqual([]);
  });
});
