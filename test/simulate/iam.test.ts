// The IAM actions CA needs for a setup, the requests that simulate them, and how answers are matched to requests.
import { describe, expect, it } from 'vitest';
import type { ServiceAccount } from '../../src/model/k8s.js';
import { Analysis } from '../../src/simulate/analysis.js';
import {
  buildIamPlan,
  describeCondition,
  iamVerdicts,
  impossibleConditionKeys,
  principalHints,
  requiredActions,
} from '../../src/providers/aws/iam.js';
import {
  ACCOUNT,
  asg,
  eksNodegroup,
  launchConfiguration,
  launchTemplateVersion,
  REGION,
} from '../builders/aws.js';
import { caDeployment, DEFAULT_CA_ARGS, NOW, world } from '../builders/world.js';
import { STATIC_TYPES } from '../checks/harness.js';

function analysis(raw: ReturnType<typeof world>['raw'], caArgs?: string[]) {
  return new Analysis(raw, { now: NOW, caArgs, staticInstanceTypes: STATIC_TYPES });
}

const GENERAL_ARN = `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:6a1c3b5e-0d1f-4a8e-9f2b-3c4d5e6f7a8b:autoScalingGroupName/prod-general`;

function serviceAccount(annotations: Record<string, string>): ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'cluster-autoscaler', namespace: 'kube-system', annotations },
  };
}

describe('the actions CA needs', () => {
  it.each([
    [
      'a launch-template group on CA 1.32',
      () => world(),
      undefined,
      [
        'autoscaling:DescribeAutoScalingGroups',
        'autoscaling:DescribeScalingActivities',
        'ec2:DescribeLaunchTemplateVersions',
        'ec2:DescribeInstanceTypes',
        'autoscaling:SetDesiredCapacity',
        'autoscaling:TerminateInstanceInAutoScalingGroup',
      ],
    ],
    [
      'CA 1.23 with the static instance list and a launch configuration',
      () => {
        const w = world();
        w.raw.deployments = [
          caDeployment(
            [...DEFAULT_CA_ARGS, '--aws-use-static-instance-list=true'],
            'registry.k8s.io/autoscaling/cluster-autoscaler:v1.23.1',
          ),
        ];
        w.raw.autoScalingGroups[0] = {
          ...w.raw.autoScalingGroups[0],
          LaunchTemplate: undefined,
          LaunchConfigurationName: 'prod-general-lc',
        };
        return w.add('launchConfigurations', launchConfiguration('prod-general-lc', 'm5.xlarge'));
      },
      undefined,
      [
        'autoscaling:DescribeAutoScalingGroups',
        'autoscaling:DescribeLaunchConfigurations',
        'autoscaling:SetDesiredCapacity',
        'autoscaling:TerminateInstanceInAutoScalingGroup',
      ],
    ],
    [
      'a managed node group with attribute-based selection',
      () =>
        world().add(
          'autoScalingGroups',
          asg('eks-ng-abs')
            .withDiscoveryTags('prod')
            .withTags({ 'eks:cluster-name': 'prod', 'eks:nodegroup-name': 'abs' })
            .withInstanceRequirements(
              { id: 'lt-0abs0000000000001' },
              { VCpuCount: { Min: 2 }, MemoryMiB: { Min: 4096 } },
            )
            .build(),
        ),
      undefined,
      [
        'autoscaling:DescribeAutoScalingGroups',
        'autoscaling:DescribeScalingActivities',
        'ec2:DescribeLaunchTemplateVersions',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeImages',
        'ec2:GetInstanceTypesFromInstanceRequirements',
        'eks:DescribeNodegroup',
        'autoscaling:SetDesiredCapacity',
        'autoscaling:TerminateInstanceInAutoScalingGroup',
      ],
    ],
  ])('for %s', (_name, build, caArgs, expected) => {
    expect(requiredActions(analysis(build().raw, caArgs)).map((a) => a.action)).toEqual(expected);
  });
});

describe('the simulation requests', () => {
  it('asks about write actions on each managed ASG with its tags under both condition-key prefixes', () => {
    const plan = buildIamPlan(analysis(world().raw));
    const set = plan.requests.find((r) => r.action === 'autoscaling:SetDesiredCapacity');
    expect(set).toEqual({
      action: 'autoscaling:SetDesiredCapacity',
      resourceArn: GENERAL_ARN,
      group: 'prod-general',
      context: {
        'aws:ResourceTag/k8s.io/cluster-autoscaler/enabled': 'true',
        'autoscaling:ResourceTag/k8s.io/cluster-autoscaler/enabled': 'true',
        'aws:ResourceTag/k8s.io/cluster-autoscaler/prod': 'owned',
        'autoscaling:ResourceTag/k8s.io/cluster-autoscaler/prod': 'owned',
        'aws:ResourceTag/kubernetes.io/cluster/prod': 'owned',
        'autoscaling:ResourceTag/kubernetes.io/cluster/prod': 'owned',
      },
    });
    expect(plan.requests.find((r) => r.action === 'autoscaling:DescribeAutoScalingGroups')).toEqual({
      action: 'autoscaling:DescribeAutoScalingGroups',
      resourceArn: '*',
      context: {},
    });
    expect(plan.accountId).toBe(ACCOUNT);
  });

  it('asks about eks:DescribeNodegroup on the node group ARN with the node group’s own tags', () => {
    const w = world()
      .add(
        'autoScalingGroups',
        asg('eks-ng-general')
          .withDiscoveryTags('prod')
          .withTags({ 'eks:cluster-name': 'prod', 'eks:nodegroup-name': 'general' })
          .withLaunchTemplate({ id: 'lt-0mng' })
          .build(),
      )
      .add('eksNodegroups', eksNodegroup('prod', 'general').withTags({ team: 'platform' }).build())
      .add('launchTemplateVersions', launchTemplateVersion('lt-0mng', 1).asDefault().build());
    const req = buildIamPlan(analysis(w.raw)).requests.find((r) => r.action === 'eks:DescribeNodegroup');
    expect(req).toMatchObject({
      resourceArn: `arn:aws:eks:${REGION}:${ACCOUNT}:nodegroup/prod/general/0ec6d3f2-aaaa-bbbb-cccc-1234567890ab`,
      nodegroup: 'prod/general',
      context: { 'aws:ResourceTag/team': 'platform' },
    });
  });

  it('finds the principal: the IRSA role of CA’s service account, else the node’s instance profile', () => {
    const irsa = world().add(
      'serviceAccounts',
      serviceAccount({ 'eks.amazonaws.com/role-arn': `arn:aws:iam::${ACCOUNT}:role/prod-ca` }),
    );
    expect(principalHints(analysis(irsa.raw))).toMatchObject({
      serviceAccount: { namespace: 'kube-system', name: 'cluster-autoscaler' },
      irsaRoleArn: `arn:aws:iam::${ACCOUNT}:role/prod-ca`,
      clusterName: 'prod',
      accountId: ACCOUNT,
    });
    const nodeRole = world();
    nodeRole.raw.launchTemplateVersions[0].LaunchTemplateData!.IamInstanceProfile = {
      Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/prod-nodes`,
    };
    nodeRole.raw.autoScalingGroups[0].Instances![0].LaunchTemplate = {
      LaunchTemplateId: 'lt-0general000000001',
      Version: '1',
    };
    nodeRole.add('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'cluster-autoscaler-5d9c7b-abcde',
        namespace: 'kube-system',
        labels: { app: 'cluster-autoscaler' },
      },
      spec: { nodeName: 'ip-10-0-1-10.ec2.internal', containers: [{ name: 'cluster-autoscaler' }] },
      status: { phase: 'Running' },
    });
    expect(principalHints(analysis(nodeRole.raw))).toMatchObject({
      caNode: 'ip-10-0-1-10.ec2.internal',
      instanceProfile: 'prod-nodes',
    });
  });
});

describe('reading evaluation results', () => {
  it('prefers the answer for the exact ARN, falls back to "*", and lists what nothing answered', () => {
    const w = world().add(
      'iamEvaluationResults',
      { EvalActionName: 'autoscaling:SetDesiredCapacity', EvalResourceName: '*', EvalDecision: 'allowed' },
      {
        EvalActionName: 'autoscaling:SetDesiredCapacity',
        EvalResourceName: GENERAL_ARN,
        EvalDecision: 'implicitDeny',
      },
      {
        EvalActionName: 'autoscaling:TerminateInstanceInAutoScalingGroup',
        EvalResourceName: '*',
        EvalDecision: 'allowed',
      },
    );
    const v = iamVerdicts(analysis(w.raw));
    expect(v.decisions.map((d) => [d.action, d.group, d.decision])).toEqual([
      ['autoscaling:SetDesiredCapacity', 'prod-general', 'implicitDeny'],
      ['autoscaling:TerminateInstanceInAutoScalingGroup', 'prod-general', 'allowed'],
    ]);
    expect(v.notEvaluated.map((r) => r.action)).toContain('autoscaling:DescribeAutoScalingGroups');
  });

  it('expands ResourceSpecificResults, as AWS returns them for several resources', () => {
    const w = world().add('iamEvaluationResults', {
      EvalActionName: 'autoscaling:SetDesiredCapacity',
      EvalResourceName: '*',
      EvalDecision: 'allowed',
      ResourceSpecificResults: [{ EvalResourceName: GENERAL_ARN, EvalResourceDecision: 'explicitDeny' }],
    });
    expect(iamVerdicts(analysis(w.raw)).decisions[0]).toMatchObject({
      group: 'prod-general',
      decision: 'explicitDeny',
    });
  });

  it.each([
    [
      'autoscaling: keys on an eks action',
      'eks:DescribeNodegroup',
      'arn:x',
      ['autoscaling:ResourceTag/a'],
      ['autoscaling:ResourceTag/a'],
    ],
    [
      'ec2: keys on an autoscaling action',
      'autoscaling:SetDesiredCapacity',
      'arn:x',
      ['ec2:ResourceTag/a'],
      ['ec2:ResourceTag/a'],
    ],
    [
      'resource tags on a "*" Describe call',
      'autoscaling:DescribeAutoScalingGroups',
      '*',
      ['aws:ResourceTag/a'],
      ['aws:ResourceTag/a'],
    ],
    [
      'aws: and own-service keys (possible)',
      'autoscaling:SetDesiredCapacity',
      'arn:x',
      ['aws:ResourceTag/a', 'autoscaling:ResourceTag/a'],
      [],
    ],
  ])('knows condition keys that can never be present: %s', (_name, action, arn, keys, expected) => {
    expect(impossibleConditionKeys(action, arn, keys)).toEqual(expected);
  });

  it('describes a failed condition in policy syntax', () => {
    expect(
      describeCondition({
        operator: 'StringEquals',
        key: 'aws:ResourceTag/team',
        values: ['a'],
        actual: 'b',
      }),
    ).toBe('StringEquals {"aws:ResourceTag/team": "a"} (the request has "b")');
  });
});
