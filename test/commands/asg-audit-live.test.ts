// asg-audit live end to end: the real command, client-node and the AWS SDK against loopback Kubernetes and AWS servers
// filled with the demo, plus CA's IRSA service account; IAM is simulated on the demo's real ASG ARNs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsgAuditOptions } from '../../src/commands/asg-audit.js';
import { runAsgAudit } from '../../src/commands/audit.js';
import type { Deps } from '../../src/commands/types.js';
import { loadOffline } from '../../src/gather/offline.js';
import type { IamEvaluationResult } from '../../src/model/aws.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { DEMO, DEMO_NOW } from './run.js';

const ROLE = 'arn:aws:iam::111122223333:role/demo-cluster-autoscaler';
let demo: RawInputs;
let kube: KubeApiServer;
let gpuArn: string;

beforeAll(async () => {
  demo = await loadOffline([DEMO]);
  demo.serviceAccounts = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name: 'cluster-autoscaler',
        namespace: 'kube-system',
        annotations: { 'eks.amazonaws.com/role-arn': ROLE },
      },
    },
  ];
  gpuArn = demo.autoScalingGroups.find((g) => g.AutoScalingGroupName === 'demo-gpu')!.AutoScalingGroupARN!;
  kube = await startKubeApiServer(demo, { maxPageSize: 50 });
});

afterAll(async () => {
  await kube?.close();
});

function allowedStar(action: string): IamEvaluationResult {
  return {
    EvalActionName: action,
    EvalResourceName: '*',
    EvalDecision: 'allowed',
    MatchedStatements: [],
    MissingContextValues: [],
  };
}

async function run(aws: AwsServer | undefined, extra: Partial<AsgAuditOptions> = {}) {
  let stdout = '';
  let stderr = '';
  const deps: Deps = {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    realNow: () => new Date(DEMO_NOW),
    ...(aws
      ? {
          liveOverrides: {
            awsEndpoint: aws.endpoint,
            awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
            awsRetryDelayMs: 0,
          },
        }
      : {}),
  };
  const o: AsgAuditOptions = {
    from: aws ? [] : [DEMO],
    ...(aws ? { kubeconfig: kube.kubeconfigPath, region: 'us-east-1' } : {}),
    requestTimeout: '10s',
    now: DEMO_NOW,
    output: 'json',
    failOn: 'never',
    color: false,
    debug: false,
    ...extra,
  };
  const result = await runAsgAudit(o, deps);
  return { result, report: JSON.parse(stdout), stderr };
}

describe('asg-audit live', () => {
  it('simulates CA’s IRSA role on the real ASG ARNs with their tags, and reports what IAM denies', async () => {
    const aws = await startAwsServer({
      ...demo,
      iamEvaluationResults: [
        ...[
          'autoscaling:DescribeAutoScalingGroups',
          'autoscaling:DescribeScalingActivities',
          'ec2:DescribeLaunchTemplateVersions',
          'ec2:DescribeInstanceTypes',
          'autoscaling:SetDesiredCapacity',
          'autoscaling:TerminateInstanceInAutoScalingGroup',
        ].map(allowedStar),
        {
          EvalActionName: 'autoscaling:SetDesiredCapacity',
          EvalResourceName: gpuArn,
          EvalDecision: 'implicitDeny',
          MatchedStatements: [],
          MissingContextValues: [],
        },
      ],
    });
    try {
      const live = await run(aws);
      const sims = aws.requests.filter((r) => r.action === 'SimulatePrincipalPolicy');
      expect(new Set(sims.map((r) => r.params.PolicySourceArn))).toEqual(new Set([ROLE]));
      const gpuCall = sims.find((r) => (r.params.ResourceArns as string[] | undefined)?.includes(gpuArn))!;
      expect(gpuCall.params.ContextEntries).toContainEqual({
        ContextKeyName: 'aws:ResourceTag/k8s.io/cluster-autoscaler/node-template/label/accelerator',
        ContextKeyType: 'string',
        ContextKeyValues: ['nvidia-l4'],
      });
      // the six discovered ASGs each get their own call; the undiscovered one is not CA's business
      const asgCalls = sims
        .filter((r) => r.params.ResourceArns)
        .map((r) => (r.params.ResourceArns as string[])[0].split('/').pop());
      expect(asgCalls).not.toContain('demo-monitoring');
      expect(asgCalls).toContain('demo-gpu');
      const denied = live.report.findings.filter(
        (f: { checkId: string }) => f.checkId === 'iam-permission-denied',
      );
      expect(denied).toMatchObject([
        {
          nodeGroup: 'demo-gpu',
          message: expect.stringMatching(
            /^autoscaling:SetDesiredCapacity on ASG demo-gpu is implicitly denied for role demo-cluster-autoscaler/,
          ),
        },
      ]);
      // apart from IAM, live and offline see the same
      const offline = await run(undefined);
      const noIam = (fs: Array<{ checkId: string }>) => fs.filter((f) => !f.checkId.startsWith('iam-'));
      expect(noIam(live.report.findings)).toEqual(noIam(offline.report.findings));
      expect(live.report.nodeGroups).toEqual(offline.report.nodeGroups);
      expect(mutatingAwsRequests(aws.requests)).toEqual([]);
      expect(mutatingKubeRequests(kube.requests)).toEqual([]);
    } finally {
      await aws.close();
    }
  });

  it('skips the IAM check, never passes it, when the caller may not simulate', async () => {
    const aws = await startAwsServer(demo, {
      faults: [{ action: 'iam:SimulatePrincipalPolicy', code: 'AccessDenied' }],
    });
    try {
      const { report, result } = await run(aws, { failOn: 'error' });
      expect(report.findings.some((f: { checkId: string }) => f.checkId === 'iam-permission-denied')).toBe(
        false,
      );
      expect(
        report.skipped.find((s: { checkId: string }) => s.checkId === 'iam-permission-denied'),
      ).toMatchObject({
        reason: 'forbidden',
        detail: expect.stringContaining('AccessDenied'),
      });
      expect(result.exitCode).toBe(1); // the demo's other findings
    } finally {
      await aws.close();
    }
  });
});
