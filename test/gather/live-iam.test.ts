// Live IAM through a loopback AWS endpoint: the principal CA runs as, then iam:SimulatePrincipalPolicy on the real ASG
// ARNs with each ASG's tags as context. Denied simulation is a gap, never a pass.
import { afterEach, describe, expect, it } from 'vitest';
import { gatherLiveIam, type LiveIamOptions } from '../../src/providers/aws/gather-iam.js';
import type { IamEvaluationResult } from '../../src/model/aws.js';
import type { ServiceAccount } from '../../src/model/k8s.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { buildIamPlan } from '../../src/providers/aws/iam.js';
import { ACCOUNT, asg, REGION } from '../builders/aws.js';
import { NOW, world } from '../builders/world.js';
import { STATIC_TYPES } from '../checks/harness.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { mutatingAwsRequests } from './live-fixtures.js';

const ROLE = `arn:aws:iam::${ACCOUNT}:role/prod-cluster-autoscaler`;
const arn = (name: string) =>
  `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:6a1c3b5e-0d1f-4a8e-9f2b-3c4d5e6f7a8b:autoScalingGroupName/${name}`;

let server: AwsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function serviceAccount(annotations: Record<string, string> = {}): ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'cluster-autoscaler', namespace: 'kube-system', annotations },
  };
}

/** world() (prod-general, CA with SA cluster-autoscaler) plus a second discovered group without the owner tag. */
function cluster(sa: ServiceAccount) {
  const w = world()
    .add('serviceAccounts', sa)
    .add(
      'autoScalingGroups',
      asg('prod-batch')
        .withDiscoveryTags('prod')
        .withTag('team', 'data')
        .withLaunchTemplate({ id: 'lt-0general000000001' })
        .build(),
    );
  return buildIamPlan(new Analysis(w.raw, { now: NOW, staticInstanceTypes: STATIC_TYPES }));
}

async function serve(results: IamEvaluationResult[], opts: AwsServerOptions = {}) {
  server = await startAwsServer({ iamEvaluationResults: results }, opts);
  return server;
}

function options(s: AwsServer): LiveIamOptions {
  return {
    region: REGION,
    requestTimeoutMs: 5000,
    endpoint: s.endpoint,
    credentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
    retryDelayMs: 0,
    maxAttempts: 1,
  };
}

const denyBatch: IamEvaluationResult = {
  EvalActionName: 'autoscaling:SetDesiredCapacity',
  EvalResourceName: arn('prod-batch'),
  EvalDecision: 'implicitDeny',
  MatchedStatements: [],
  MissingContextValues: ['aws:ResourceTag/k8s.io/cluster-autoscaler/prod-owner'],
};
const allowGeneral: IamEvaluationResult = {
  EvalActionName: 'autoscaling:SetDesiredCapacity',
  EvalResourceName: arn('prod-general'),
  EvalDecision: 'allowed',
  MatchedStatements: [{ SourcePolicyId: 'cluster-autoscaler', SourcePolicyType: 'IAM Policy' }],
  MissingContextValues: [],
};

describe('gatherLiveIam', () => {
  it('simulates the IRSA role on each ASG ARN with the ASG’s tags as context, read-only', async () => {
    const s = await serve([denyBatch, allowGeneral]);
    const r = await gatherLiveIam(
      cluster(serviceAccount({ 'eks.amazonaws.com/role-arn': ROLE })),
      options(s),
    );
    expect(r.principal).toBe(ROLE);
    expect(r.via).toBe('IRSA (eks.amazonaws.com/role-arn on ServiceAccount kube-system/cluster-autoscaler)');
    expect(r.gaps).toEqual([]);
    const sims = s.requests.filter((q) => q.action === 'SimulatePrincipalPolicy');
    expect(sims.map((q) => q.params.ResourceArns ?? ['*'])).toEqual([
      ['*'],
      [arn('prod-batch')],
      [arn('prod-general')],
    ]);
    const batch = sims.find(
      (q) => (q.params.ResourceArns as string[] | undefined)?.[0] === arn('prod-batch'),
    )!;
    expect(batch.params).toMatchObject({
      PolicySourceArn: ROLE,
      ActionNames: ['autoscaling:SetDesiredCapacity', 'autoscaling:TerminateInstanceInAutoScalingGroup'],
    });
    expect(batch.params.ContextEntries).toContainEqual({
      ContextKeyName: 'aws:ResourceTag/team',
      ContextKeyType: 'string',
      ContextKeyValues: ['data'],
    });
    expect(batch.params.ContextEntries).toContainEqual({
      ContextKeyName: 'autoscaling:ResourceTag/k8s.io/cluster-autoscaler/prod',
      ContextKeyType: 'string',
      ContextKeyValues: ['owned'],
    });
    // each call gets only the answers for its own ASG
    expect(r.results).toEqual([
      { ...denyBatch, CasdoctorPrincipal: ROLE },
      { ...allowGeneral, CasdoctorPrincipal: ROLE },
    ]);
    expect(mutatingAwsRequests(s.requests)).toEqual([]);
  });

  it('turns AccessDenied on SimulatePrincipalPolicy into a gap', async () => {
    const s = await serve([], { faults: [{ action: 'iam:SimulatePrincipalPolicy', code: 'AccessDenied' }] });
    const r = await gatherLiveIam(
      cluster(serviceAccount({ 'eks.amazonaws.com/role-arn': ROLE })),
      options(s),
    );
    expect(r.results).toBeUndefined();
    expect(r.gaps).toEqual([
      {
        resource: 'iam:SimulatePrincipalPolicy',
        reason: 'forbidden',
        detail: expect.stringMatching(
          /^forbidden: iam:SimulatePrincipalPolicy for arn:aws:iam::111122223333:role\/prod-cluster-autoscaler .*AccessDenied: User: .* is not authorized to perform: iam:SimulatePrincipalPolicy/,
        ),
      },
    ]);
  });

  it('finds the role of an EKS Pod Identity association when the service account has no IRSA annotation', async () => {
    const s = await serve([allowGeneral], {
      podIdentityAssociations: [
        {
          clusterName: 'prod',
          namespace: 'kube-system',
          serviceAccount: 'cluster-autoscaler',
          associationId: 'a-0pi1',
          roleArn: ROLE,
        },
      ],
    });
    const r = await gatherLiveIam(cluster(serviceAccount()), options(s));
    expect(r).toMatchObject({
      principal: ROLE,
      via: 'EKS Pod Identity association a-0pi1 (ServiceAccount kube-system/cluster-autoscaler)',
    });
    expect(s.requests.map((q) => q.action).slice(0, 2)).toEqual([
      'ListPodIdentityAssociations',
      'DescribePodIdentityAssociation',
    ]);
  });

  it('falls back to the instance role of the node CA runs on', async () => {
    const s = await serve([allowGeneral], {
      instanceProfiles: [
        {
          InstanceProfileName: 'prod-nodes',
          Roles: [{ RoleName: 'prod-node-role', Arn: `arn:aws:iam::${ACCOUNT}:role/prod-node-role` }],
        },
      ],
    });
    const plan = cluster(serviceAccount());
    plan.hints.instanceProfile = 'prod-nodes';
    plan.hints.caNode = 'ip-10-0-1-10.ec2.internal';
    const r = await gatherLiveIam(plan, options(s));
    expect(r.principal).toBe(`arn:aws:iam::${ACCOUNT}:role/prod-node-role`);
    expect(r.via).toBe('node instance profile prod-nodes (CA runs on ip-10-0-1-10.ec2.internal)');
    expect(s.requests.map((q) => q.action).slice(0, 2)).toEqual([
      'ListPodIdentityAssociations',
      'GetInstanceProfile',
    ]);
  });

  it('reports a gap when it cannot tell who CA runs as', async () => {
    const s = await serve([]);
    const r = await gatherLiveIam(cluster(serviceAccount()), options(s));
    expect(r.gaps).toMatchObject([{ resource: 'iam:SimulatePrincipalPolicy', reason: 'not-found' }]);
    expect(r.gaps[0].detail).toContain(
      'ServiceAccount kube-system/cluster-autoscaler has no eks.amazonaws.com/role-arn',
    );
  });
});
