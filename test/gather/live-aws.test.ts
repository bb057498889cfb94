import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { IAMClient, SimulatePrincipalPolicyCommand } from '@aws-sdk/client-iam';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnvironmentError } from '../../src/gather/errors.js';
import { type AwsGatherOptions, gatherAws } from '../../src/providers/aws/gather.js';
import { regionFromEnvironment, regionFromNodes, toAwsJson } from '../../src/providers/aws/gather-client.js';
import type { LaunchTemplateVersion } from '../../src/model/aws.js';
import type { Node } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { awsFixture, kubeFixture, mutatingAwsRequests } from './live-fixtures.js';

const AWS_KINDS = [
  'autoScalingGroups',
  'launchTemplateVersions',
  'launchConfigurations',
  'instanceTypes',
  'scalingActivities',
  'eksNodegroups',
  'images',
  'instanceTypesFromRequirements',
];
const CREDENTIALS = { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' };

const servers: AwsServer[] = [];

async function serve(
  data: Partial<RawInputs> = awsFixture(),
  opts: AwsServerOptions = {},
): Promise<AwsServer> {
  const s = await startAwsServer(data, opts);
  servers.push(s);
  return s;
}

afterEach(async () => {
  vi.unstubAllEnvs();
  for (const s of servers.splice(0)) {
    // Read-only proof: only Describe*/List*/Get*/Simulate* may reach AWS.
    expect(mutatingAwsRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

const gather = (s: AwsServer, extra: Partial<AwsGatherOptions> = {}) =>
  gatherAws({
    region: 'us-east-1',
    requestTimeoutMs: 5_000,
    endpoint: s.endpoint,
    credentials: CREDENTIALS,
    retryDelayMs: 0,
    ...extra,
  });

const calls = (s: AwsServer, action: string) => s.requests.filter((r) => r.action === action);
const withoutUserData = (v: LaunchTemplateVersion) => {
  const { UserData: _u, ...data } = v.LaunchTemplateData ?? {};
  return { ...v, LaunchTemplateData: data };
};

describe('gatherAws against a loopback AWS endpoint', () => {
  it('gathers every ASG of the region page by page and what CA reads about them, in the aws --output json shape', async () => {
    const fixture = awsFixture();
    const s = await serve(fixture, { pageSize: 1 });
    const got = await gather(s);

    expect(got.gaps).toEqual([]);
    expect(got.autoScalingGroups).toEqual(fixture.autoScalingGroups);
    expect(calls(s, 'DescribeAutoScalingGroups').map((r) => r.params)).toEqual([
      { MaxRecords: 100 },
      { MaxRecords: 100, NextToken: expect.any(String) },
      { MaxRecords: 100, NextToken: expect.any(String) },
      { MaxRecords: 100, NextToken: expect.any(String) },
    ]);
    expect(got.launchConfigurations).toEqual(
      fixture.launchConfigurations?.map(({ UserData: _u, ...lc }) => lc),
    );
    const byId = (a: { ActivityId?: string }, b: { ActivityId?: string }) =>
      (a.ActivityId ?? '') < (b.ActivityId ?? '') ? -1 : 1;
    expect([...got.scalingActivities].sort(byId)).toEqual([...(fixture.scalingActivities ?? [])].sort(byId));
    expect(got.eksNodegroups).toEqual(fixture.eksNodegroups);
    expect(got.images).toEqual(fixture.images);
    expect(got.instanceTypes).toEqual(fixture.instanceTypes?.filter((t) => t.InstanceType !== 'r5.24xlarge'));
    // demo-ng-flex asks for 4-8 vCPUs and 16 GiB or more on an x86_64 image
    expect(got.instanceTypesFromRequirements).toEqual([
      { InstanceType: 'm5.2xlarge' },
      { InstanceType: 'm5.xlarge' },
      { InstanceType: 'm5a.xlarge' },
      { InstanceType: 'm6i.xlarge' },
    ]);
    expect([...got.provided].sort()).toEqual([...AWS_KINDS].sort());
    expect(got.sources).toEqual(['live: aws us-east-1']);
    expect(s.requests.every((r) => r.region === 'us-east-1')).toBe(true);
  });

  it('fetches each referenced launch template once, with the configured version plus $Latest and $Default, and drops UserData', async () => {
    const fixture = awsFixture();
    const s = await serve(fixture);
    const got = await gather(s);
    expect(calls(s, 'DescribeLaunchTemplateVersions').map((r) => r.params)).toEqual(
      expect.arrayContaining([
        { LaunchTemplateId: 'lt-0a1b2c3d4e5f60001', Versions: ['1', '$Latest', '$Default'] },
        { LaunchTemplateId: 'lt-0a1b2c3d4e5f60002', Versions: ['$Latest', '$Default', '4'] },
        // no Version on the spec means $Default (CA: aws_wrapper.go buildLaunchTemplateFromSpec)
        { LaunchTemplateId: 'lt-0a1b2c3d4e5f60003', Versions: ['$Default', '$Latest'] },
      ]),
    );
    expect(calls(s, 'DescribeLaunchTemplateVersions')).toHaveLength(3);
    const want = (id: string, n: number) =>
      withoutUserData(
        fixture.launchTemplateVersions!.find((v) => v.LaunchTemplateId === id && v.VersionNumber === n)!,
      );
    expect(got.launchTemplateVersions).toEqual([
      want('lt-0a1b2c3d4e5f60001', 1),
      want('lt-0a1b2c3d4e5f60001', 2),
      want('lt-0a1b2c3d4e5f60002', 4),
      want('lt-0a1b2c3d4e5f60002', 5),
      want('lt-0a1b2c3d4e5f60003', 1),
    ]);
    expect(JSON.stringify(got)).not.toContain('UserData');
  });

  it('describes only the instance types something references, in one batch, never the whole region', async () => {
    const s = await serve();
    await gather(s);
    expect(calls(s, 'DescribeInstanceTypes').map((r) => r.params)).toEqual([
      {
        InstanceTypes: [
          'c5.large',
          'm5.2xlarge',
          'm5.large',
          'm5.xlarge',
          'm5a.xlarge',
          'm6i.large',
          'm6i.xlarge',
        ],
      },
    ]);
  });

  it('asks for the last 20 scaling activities of each group and resolves attribute-based types like CA', async () => {
    const s = await serve();
    await gather(s);
    expect(calls(s, 'DescribeScalingActivities').map((r) => r.params)).toEqual(
      awsFixture().autoScalingGroups!.map((a) => ({
        AutoScalingGroupName: a.AutoScalingGroupName,
        MaxRecords: 20,
      })),
    );
    expect(calls(s, 'DescribeImages').map((r) => r.params)).toEqual([
      { ImageIds: ['ami-0f1e2d3c4b5a69788'] },
    ]);
    expect(calls(s, 'GetInstanceTypesFromInstanceRequirements').map((r) => r.params)).toEqual([
      {
        ArchitectureTypes: ['x86_64'],
        VirtualizationTypes: ['hvm'],
        InstanceRequirements: {
          VCpuCount: { Min: 4, Max: 8 },
          MemoryMiB: { Min: 16384 },
          CpuManufacturers: ['intel'],
        },
      },
    ]);
    expect(calls(s, 'DescribeNodegroup').map((r) => r.params)).toEqual([
      { clusterName: 'demo', nodegroupName: 'ng-general' },
    ]);
  });

  it('turns AccessDenied on DescribeScalingActivities into a gap naming the action and gathers the rest', async () => {
    const s = await serve(awsFixture(), {
      faults: [{ action: 'DescribeScalingActivities', code: 'AccessDenied' }],
    });
    const got = await gather(s);
    expect(got.gaps).toEqual([
      {
        resource: 'autoscaling:DescribeScalingActivities',
        scope: 'region us-east-1',
        reason: 'forbidden',
        detail:
          'forbidden: autoscaling:DescribeScalingActivities (region us-east-1): AccessDenied: User: arn:aws:sts::111122223333:assumed-role/casdoctor-readonly/casdoctor is not authorized to perform: autoscaling:DescribeScalingActivities because no identity-based policy allows the autoscaling:DescribeScalingActivities action',
      },
    ]);
    expect(got.provided.has('scalingActivities')).toBe(false);
    expect(got.autoScalingGroups).toHaveLength(4);
    expect(got.instanceTypes).toHaveLength(7);
  });

  it('turns UnauthorizedOperation (the EC2 error shape) on DescribeInstanceTypes into a gap', async () => {
    const s = await serve(awsFixture(), {
      faults: [{ action: 'ec2:DescribeInstanceTypes', code: 'AccessDenied' }],
    });
    const got = await gather(s);
    expect(got.gaps).toEqual([
      expect.objectContaining({
        resource: 'ec2:DescribeInstanceTypes',
        reason: 'forbidden',
        detail: expect.stringMatching(
          /^forbidden: ec2:DescribeInstanceTypes \(region us-east-1\): UnauthorizedOperation: You are not authorized/,
        ),
      }),
    ]);
    expect(got.provided.has('instanceTypes')).toBe(false);
    expect(got.provided.has('launchTemplateVersions')).toBe(true);
  });

  it('stops after one gap when DescribeAutoScalingGroups itself is denied', async () => {
    const s = await serve(awsFixture(), {
      faults: [{ action: 'DescribeAutoScalingGroups', code: 'AccessDenied' }],
    });
    const got = await gather(s);
    expect(got.gaps.map((g) => [g.resource, g.reason])).toEqual([
      ['autoscaling:DescribeAutoScalingGroups', 'forbidden'],
    ]);
    expect(got.provided.size).toBe(0);
    expect(s.requests.map((r) => r.action)).toEqual(['DescribeAutoScalingGroups']);
  });

  it("retries Throttling with the SDK's standard strategy: twice throttled, then success", async () => {
    const s = await serve(awsFixture(), {
      faults: [{ action: 'DescribeAutoScalingGroups', code: 'Throttling', times: 2 }],
    });
    const got = await gather(s);
    expect(got.gaps).toEqual([]);
    expect(got.autoScalingGroups).toHaveLength(4);
    expect(calls(s, 'DescribeAutoScalingGroups')).toHaveLength(3);
  });

  it('retries EC2 RequestLimitExceeded (503, EC2 error shape)', async () => {
    const s = await serve(awsFixture(), {
      faults: [{ action: 'DescribeLaunchTemplateVersions', code: 'RequestLimitExceeded', times: 2 }],
    });
    const got = await gather(s);
    expect(got.gaps).toEqual([]);
    expect(got.launchTemplateVersions).toHaveLength(5);
    expect(calls(s, 'DescribeLaunchTemplateVersions')).toHaveLength(5);
  });

  it('reports throttling that outlasts the retries as a throttled gap', async () => {
    const s = await serve(awsFixture(), {
      faults: [{ action: 'DescribeScalingActivities', code: 'Throttling' }],
    });
    const got = await gather(s, { maxAttempts: 2 });
    expect(got.gaps).toEqual([
      expect.objectContaining({
        resource: 'autoscaling:DescribeScalingActivities',
        reason: 'throttled',
        scope: 'region us-east-1',
      }),
    ]);
    expect(calls(s, 'DescribeScalingActivities')).toHaveLength(8); // 4 groups x 2 attempts
  });

  it('raises an EnvironmentError with an aws sso login hint when the session token has expired', async () => {
    const s = await serve(awsFixture(), { faults: [{ action: '*', code: 'ExpiredToken' }] });
    const err = await gather(s, { profile: 'platform' }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toBe(
      'the AWS session has expired (autoscaling:DescribeAutoScalingGroups: ExpiredToken: The security token included in the request is expired)',
    );
    expect(err.hint).toBe('aws sso login --profile platform (or refresh the session credentials)');
  });

  it('raises an EnvironmentError with an aws configure hint when no credentials can be found', async () => {
    const s = await serve();
    // what the SDK's default chain throws when every provider comes up empty
    const noCredentials = async () => {
      throw Object.assign(new Error('Could not load credentials from any providers'), {
        name: 'CredentialsProviderError',
      });
    };
    const err = await gather(s, { credentials: noCredentials as never }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toBe('no AWS credentials found: Could not load credentials from any providers');
    expect(err.hint).toBe('aws configure (or set AWS_PROFILE / pass --profile)');
    expect(s.requests).toEqual([]);
  });

  it('raises an EnvironmentError naming the endpoint when DescribeAutoScalingGroups does not answer in time', async () => {
    const s = await serve(awsFixture(), { delays: { DescribeAutoScalingGroups: 2_000 } });
    const t0 = Date.now();
    const err = await gather(s, { requestTimeoutMs: 200, maxAttempts: 1 }).catch((e) => e);
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toMatch(
      new RegExp(`^autoscaling:DescribeAutoScalingGroups timed out waiting for ${s.endpoint}: `),
    );
  });

  it('turns a slow DescribeScalingActivities into a timeout gap naming the endpoint', async () => {
    const s = await serve(awsFixture(), { delays: { DescribeScalingActivities: 2_000 } });
    const got = await gather(s, { requestTimeoutMs: 300, maxAttempts: 1 });
    expect(got.gaps).toEqual([
      expect.objectContaining({
        resource: 'autoscaling:DescribeScalingActivities',
        reason: 'timeout',
        detail: expect.stringContaining(`timed out waiting for ${s.endpoint}`),
      }),
    ]);
    expect(got.autoScalingGroups).toHaveLength(4);
  });

  it('reports a deleted launch template as not found and still counts launch templates as gathered', async () => {
    const fixture = awsFixture();
    fixture.launchTemplateVersions = fixture.launchTemplateVersions!.filter(
      (v) => v.LaunchTemplateId !== 'lt-0a1b2c3d4e5f60003',
    );
    const s = await serve(fixture);
    const got = await gather(s);
    expect(got.gaps).toEqual([
      {
        resource: 'ec2:DescribeLaunchTemplateVersions',
        scope: 'launchTemplate lt-0a1b2c3d4e5f60003',
        reason: 'not-found',
        detail:
          'not found: ec2:DescribeLaunchTemplateVersions (launchTemplate lt-0a1b2c3d4e5f60003): InvalidLaunchTemplateId.NotFound: The specified launch template, with template ID lt-0a1b2c3d4e5f60003, does not exist.',
      },
    ]);
    expect(got.provided.has('launchTemplateVersions')).toBe(true);
    expect(calls(s, 'GetInstanceTypesFromInstanceRequirements')).toHaveLength(0);
  });

  it('asks for versions one by one when one of them no longer exists, keeping the others', async () => {
    const fixture = awsFixture();
    // the running instance was launched from version 4, which has since been deleted
    fixture.launchTemplateVersions = fixture
      .launchTemplateVersions!.filter(
        (v) => !(v.LaunchTemplateId === 'lt-0a1b2c3d4e5f60002' && v.VersionNumber === 4),
      )
      .map((v) =>
        v.LaunchTemplateId === 'lt-0a1b2c3d4e5f60002' && v.VersionNumber === 3
          ? { ...v, DefaultVersion: true }
          : v,
      );
    const s = await serve(fixture);
    const got = await gather(s);
    expect(
      got.launchTemplateVersions
        .filter((v) => v.LaunchTemplateId === 'lt-0a1b2c3d4e5f60002')
        .map((v) => v.VersionNumber),
    ).toEqual([3, 5]);
    expect(got.gaps).toEqual([
      expect.objectContaining({
        resource: 'ec2:DescribeLaunchTemplateVersions',
        reason: 'not-found',
        scope: 'launchTemplate lt-0a1b2c3d4e5f60002 version 4',
      }),
    ]);
  });

  it('drops an instance type EC2 does not know from its batch and reports it', async () => {
    const fixture = awsFixture();
    fixture.instanceTypes = fixture.instanceTypes!.filter((t) => t.InstanceType !== 'm5a.xlarge');
    const s = await serve(fixture);
    const got = await gather(s);
    expect(got.instanceTypes.map((t) => t.InstanceType)).toEqual([
      'c5.large',
      'm5.2xlarge',
      'm5.large',
      'm5.xlarge',
      'm6i.large',
      'm6i.xlarge',
    ]);
    expect(got.gaps).toEqual([
      {
        resource: 'ec2:DescribeInstanceTypes',
        scope: 'instanceTypes m5a.xlarge',
        reason: 'not-found',
        detail:
          'not found: ec2:DescribeInstanceTypes (instanceTypes m5a.xlarge): InvalidInstanceType: The following supplied instance types do not exist: [m5a.xlarge]',
      },
    ]);
    expect(got.provided.has('instanceTypes')).toBe(true);
  });
});

describe('the AWS region', () => {
  const nodes = () => kubeFixture().nodes as Node[];

  it("comes from the nodes' topology.kubernetes.io/region label", () => {
    const ns = nodes();
    ns[0].metadata.labels!['topology.kubernetes.io/region'] = 'eu-west-1';
    expect(regionFromNodes(ns)).toBe('us-east-1');
  });

  it('falls back to the zone in spec.providerID', () => {
    const ns = nodes().map((n) => {
      const labels = { ...n.metadata.labels };
      delete labels['topology.kubernetes.io/region'];
      return {
        ...n,
        metadata: { ...n.metadata, labels },
        spec: { ...n.spec, providerID: 'aws:///ap-southeast-2b/i-0123456789abcdef0' },
      };
    });
    expect(regionFromNodes(ns)).toBe('ap-southeast-2');
    expect(regionFromNodes([{ ...ns[0], spec: { providerID: 'aws:///us-west-2-lax-1a/i-0123' } }])).toBe(
      'us-west-2',
    );
    expect(
      regionFromNodes([
        {
          metadata: { name: 'kind-control-plane' },
          spec: { providerID: 'kind://docker/kind/kind-control-plane' },
        },
      ]),
    ).toBeUndefined();
  });

  it('comes from the flag first, then AWS_REGION, then AWS_DEFAULT_REGION, then the profile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-aws-'));
    try {
      writeFileSync(
        join(dir, 'config'),
        '[default]\nregion = us-east-2\n\n[profile platform]\nregion = eu-central-1\n',
      );
      vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'config'));
      vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(dir, 'credentials'));
      vi.stubEnv('AWS_PROFILE', undefined);
      vi.stubEnv('AWS_REGION', 'us-west-1');
      vi.stubEnv('AWS_DEFAULT_REGION', 'us-west-2');
      expect(await regionFromEnvironment({ region: 'sa-east-1' })).toBe('sa-east-1');
      expect(await regionFromEnvironment({})).toBe('us-west-1');
      vi.stubEnv('AWS_REGION', undefined);
      expect(await regionFromEnvironment({})).toBe('us-west-2');
      vi.stubEnv('AWS_DEFAULT_REGION', undefined);
      expect(await regionFromEnvironment({ profile: 'platform' })).toBe('eu-central-1');
      writeFileSync(join(dir, 'config'), '[profile other]\noutput = json\n');
      expect(await regionFromEnvironment({ profile: 'other' })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toAwsJson', () => {
  it('prints Dates as ISO strings and drops undefined members and $metadata, like aws --output json', () => {
    expect(
      toAwsJson({
        $metadata: { httpStatusCode: 200 },
        A: [{ CreatedTime: new Date('2026-10-02T11:58:31.412Z'), Status: undefined, Min: 0, On: false }],
      }),
    ).toEqual({ A: [{ CreatedTime: '2026-10-02T11:58:31.412Z', Min: 0, On: false }] });
  });
});

describe('the loopback AWS server', () => {
  const clientConfig = (s: AwsServer) => ({
    region: 'us-east-1',
    endpoint: s.endpoint,
    credentials: CREDENTIALS,
    maxAttempts: 1,
  });

  it('filters ASGs by tag the way CA auto-discovery asks (tag-key and tag:<key>)', async () => {
    const s = await serve();
    const out = await new AutoScalingClient(clientConfig(s)).send(
      new DescribeAutoScalingGroupsCommand({
        Filters: [
          { Name: 'tag-key', Values: ['k8s.io/cluster-autoscaler/enabled'] },
          { Name: 'tag:k8s.io/cluster-autoscaler/demo', Values: ['owned'] },
        ],
        MaxRecords: 100,
      }),
    );
    expect(out.AutoScalingGroups?.map((a) => a.AutoScalingGroupName)).toEqual([
      'eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
      'demo-ng-spot',
      'demo-ng-flex',
    ]);
    expect(s.requests[0].params).toEqual({
      Filters: [
        { Name: 'tag-key', Values: ['k8s.io/cluster-autoscaler/enabled'] },
        { Name: 'tag:k8s.io/cluster-autoscaler/demo', Values: ['owned'] },
      ],
      MaxRecords: 100,
    });
  });

  it('answers a ValidationError in the query-protocol error shape', async () => {
    const s = await serve();
    const err = await new AutoScalingClient(clientConfig(s))
      .send(new DescribeAutoScalingGroupsCommand({ MaxRecords: 101 }))
      .catch((e) => e);
    expect(err.name).toBe('ValidationError');
    expect(err.message).toBe('MaxRecords must be less than or equal to 100');
    expect(err.$metadata.httpStatusCode).toBe(400);
  });

  it('returns the IAM evaluation results it holds for SimulatePrincipalPolicy', async () => {
    const fixture = awsFixture();
    const s = await serve(fixture);
    const out = await new IAMClient(clientConfig(s)).send(
      new SimulatePrincipalPolicyCommand({
        PolicySourceArn: 'arn:aws:iam::111122223333:role/demo-cluster-autoscaler',
        ActionNames: ['autoscaling:SetDesiredCapacity'],
        ResourceArns: ['*'],
      }),
    );
    expect(toAwsJson(out.EvaluationResults)).toEqual([fixture.iamEvaluationResults![0]]);
    expect(out.IsTruncated).toBe(false);
    expect(s.requests[0]).toMatchObject({ service: 'iam', action: 'SimulatePrincipalPolicy' });
  });
});
