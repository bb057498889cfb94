// --iam-policy: CA's policy documents evaluated with @cloud-copilot/iam-simulate against the requests CA's setup needs
// (real ASG ARNs, their tags as context), and the way its answers reach the check.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import { evaluateIamPolicies, IAM_SIMULATE_INSTALL, policyDocumentsIn } from '../../src/providers/aws/gather-iam-policy.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { buildIamPlan } from '../../src/providers/aws/iam.js';
import { asg, eksNodegroup, launchTemplateVersion } from '../builders/aws.js';
import { NOW, world } from '../builders/world.js';
import { STATIC_TYPES } from '../checks/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'casdoctor-iam-'));

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

const DESCRIBE = {
  Sid: 'Describe',
  Effect: 'Allow',
  Action: [
    'autoscaling:DescribeAutoScalingGroups',
    'autoscaling:DescribeScalingActivities',
    'ec2:DescribeLaunchTemplateVersions',
    'ec2:DescribeInstanceTypes',
  ],
  Resource: '*',
};

const policy = (...statements: unknown[]) => ({ Version: '2012-10-17', Statement: statements });

/** world() plus a managed node group, so eks:DescribeNodegroup is needed too. */
function setup() {
  const w = world()
    .add(
      'autoScalingGroups',
      asg('eks-ng-general')
        .withDiscoveryTags('prod')
        .withTags({ 'eks:cluster-name': 'prod', 'eks:nodegroup-name': 'general', team: 'web' })
        .withLaunchTemplate({ id: 'lt-0mng000000000001' })
        .build(),
    )
    .add(
      'eksNodegroups',
      eksNodegroup('prod', 'general').withTags({ 'k8s.io/cluster-autoscaler/prod': 'owned' }).build(),
    )
    .add('launchTemplateVersions', launchTemplateVersion('lt-0mng000000000001', 1).asDefault().build());
  const analysis = new Analysis(w.raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
  return { w, analysis, plan: buildIamPlan(analysis) };
}

async function decisions(doc: unknown) {
  const { w, analysis, plan } = setup();
  const r = await evaluateIamPolicies([file('policy.json', doc)], plan);
  w.raw.iamEvaluationResults = r.results!;
  w.raw.provided.add('iamEvaluationResults');
  const byKey = Object.fromEntries(
    r.results!.map((x) => [`${x.EvalActionName} ${x.EvalResourceName?.split('/').pop()}`, x.EvalDecision]),
  );
  const found = runChecks(CHECKS, analysis, 'asg-audit').findings.filter(
    (f) => f.checkId === 'iam-permission-denied',
  );
  return { r, byKey, found };
}

describe('IAM decisions evaluated locally', () => {
  it('allows what a policy allows, for every request of the setup', async () => {
    const { byKey, found } = await decisions(
      policy(DESCRIBE, {
        Effect: 'Allow',
        Action: [
          'autoscaling:SetDesiredCapacity',
          'autoscaling:TerminateInstanceInAutoScalingGroup',
          'eks:DescribeNodegroup',
        ],
        Resource: '*',
      }),
    );
    expect(Object.values(byKey).every((d) => d === 'allowed')).toBe(true);
    expect(byKey['autoscaling:SetDesiredCapacity eks-ng-general']).toBe('allowed');
    expect(found).toEqual([]);
  });

  it('denies an action no statement names', async () => {
    const { byKey, found } = await decisions(
      policy(
        DESCRIBE,
        { Effect: 'Allow', Action: 'autoscaling:SetDesiredCapacity', Resource: '*' },
        { Effect: 'Allow', Action: 'eks:DescribeNodegroup', Resource: '*' },
      ),
    );
    expect(byKey['autoscaling:TerminateInstanceInAutoScalingGroup prod-general']).toBe('implicitDeny');
    expect(found.map((f) => f.message)).toContain(
      'autoscaling:TerminateInstanceInAutoScalingGroup on ASG prod-general is implicitly denied for role cluster-autoscaler: no statement allows it; in CA: scale-down fails: ScaleDownFailed "failed to delete empty node" / "failed to drain and delete node", then a 3m scale-down cooldown.',
    );
  });

  it('denies a write action whose tag condition the ASG does not meet, and names the statement and tag', async () => {
    const { byKey, found } = await decisions(
      policy(
        DESCRIBE,
        { Effect: 'Allow', Action: 'eks:DescribeNodegroup', Resource: '*' },
        {
          Sid: 'ScaleWebOnly',
          Effect: 'Allow',
          Action: ['autoscaling:SetDesiredCapacity', 'autoscaling:TerminateInstanceInAutoScalingGroup'],
          Resource: '*',
          Condition: { StringEquals: { 'aws:ResourceTag/team': 'web' } },
        },
      ),
    );
    expect(byKey['autoscaling:SetDesiredCapacity eks-ng-general']).toBe('allowed');
    expect(byKey['autoscaling:SetDesiredCapacity prod-general']).toBe('implicitDeny');
    const f = found.find(
      (x) => x.nodeGroup === 'prod-general' && x.message.startsWith('autoscaling:SetDesiredCapacity'),
    )!;
    expect(f.message).toContain(
      'policy.json statement ScaleWebOnly allows it only if StringEquals {"aws:ResourceTag/team": "web"} (the request has no such key)',
    );
    expect(f.remediation).toContain('Key=team,Value=web');
  });

  it('denies eks:DescribeNodegroup conditioned on an autoscaling: key, and says to use aws:ResourceTag', async () => {
    const { byKey, found } = await decisions(
      policy(DESCRIBE, {
        Effect: 'Allow',
        Action: [
          'autoscaling:SetDesiredCapacity',
          'autoscaling:TerminateInstanceInAutoScalingGroup',
          'eks:DescribeNodegroup',
        ],
        Resource: '*',
        Condition: { StringEquals: { 'autoscaling:ResourceTag/k8s.io/cluster-autoscaler/prod': 'owned' } },
      }),
    );
    expect(byKey['autoscaling:SetDesiredCapacity prod-general']).toBe('allowed');
    expect(byKey['eks:DescribeNodegroup 0ec6d3f2-aaaa-bbbb-cccc-1234567890ab']).toBe('implicitDeny');
    const f = found.find((x) => x.message.startsWith('eks:DescribeNodegroup'))!;
    expect(f.severity).toBe('warning');
    expect(f.message).toContain(
      'autoscaling:ResourceTag/k8s.io/cluster-autoscaler/prod can never be present on eks:DescribeNodegroup',
    );
    expect(f.remediation).toContain(
      'aws:ResourceTag/k8s.io/cluster-autoscaler/prod instead of autoscaling:ResourceTag/k8s.io/cluster-autoscaler/prod',
    );
  });

  it('reports an explicit Deny with its statement', async () => {
    const { byKey, found } = await decisions(
      policy(
        DESCRIBE,
        { Effect: 'Allow', Action: 'autoscaling:*', Resource: '*' },
        { Effect: 'Allow', Action: 'eks:DescribeNodegroup', Resource: '*' },
        {
          Sid: 'NoScaleIn',
          Effect: 'Deny',
          Action: 'autoscaling:TerminateInstanceInAutoScalingGroup',
          Resource: '*',
        },
      ),
    );
    expect(byKey['autoscaling:TerminateInstanceInAutoScalingGroup prod-general']).toBe('explicitDeny');
    expect(found.map((f) => f.message).join('\n')).toContain(
      'explicitly denied for role cluster-autoscaler: denied by policy.json statement NoScaleIn',
    );
  });
});

describe('policy files', () => {
  const doc = policy(DESCRIBE);

  it.each([
    ['a policy document', doc, ['x.json']],
    [
      '`aws iam get-policy-version` output',
      {
        PolicyVersion: {
          Document: doc,
          VersionId: 'v3',
          IsDefaultVersion: true,
          CreateDate: '2026-01-01T00:00:00+00:00',
        },
      },
      ['x.json (version v3)'],
    ],
    [
      '`aws iam get-role-policy` output with a URL-encoded document, as the API returns it',
      {
        RoleName: 'prod-ca',
        PolicyName: 'autoscaling',
        PolicyDocument: encodeURIComponent(JSON.stringify(doc)),
      },
      ['x.json (autoscaling)'],
    ],
    ['an array of documents', [doc, doc], ['x.json[0]', 'x.json[1]']],
    ['something else', { Foo: 1 }, []],
  ])('reads %s', (_name, value, names) => {
    expect(policyDocumentsIn(value, '/tmp/x.json').map((d) => d.name)).toEqual(names);
  });

  it('rejects a file without a policy document, naming it', async () => {
    const { plan } = setup();
    const path = file('nothing.json', { Roles: [] });
    await expect(evaluateIamPolicies([path], plan)).rejects.toThrow(
      `--iam-policy ${path}: no IAM policy document`,
    );
    await expect(evaluateIamPolicies([file('broken.json', '{"Statement": [')], plan)).rejects.toThrow(
      'malformed JSON',
    );
  });

  it('rejects a policy iam-simulate finds invalid, with its message', async () => {
    const { plan } = setup();
    const path = file(
      'invalid.json',
      policy({ Effect: 'Allow', Action: 'SetDesiredCapacity', Resource: '*' }),
    );
    await expect(evaluateIamPolicies([path], plan)).rejects.toThrow(
      'Action must be a wildcard (*) or have 2 segments',
    );
  });
});

describe('without the optional package', () => {
  it('skips the IAM checks with the command that installs it', async () => {
    const { w, analysis, plan } = setup();
    const missing = Object.assign(new Error("Cannot find package '@cloud-copilot/iam-simulate'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const r = await evaluateIamPolicies([file('policy.json', policy(DESCRIBE))], plan, {
      loader: () => Promise.reject(missing),
    });
    expect(r.results).toBeUndefined();
    expect(r.gap?.detail).toContain(IAM_SIMULATE_INSTALL);
    w.raw.gaps.push(r.gap!);
    const { skipped } = runChecks(CHECKS, analysis, 'asg-audit');
    expect(skipped.find((s) => s.checkId === 'iam-permission-denied')).toEqual({
      checkId: 'iam-permission-denied',
      reason: 'not-provided',
      detail: `--iam-policy needs the optional package @cloud-copilot/iam-simulate (AGPL-3.0, not bundled): ${IAM_SIMULATE_INSTALL}`,
    });
  });
});
