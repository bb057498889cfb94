// Degraded access, end to end: a forbidden resource or a denied AWS action skips exactly the checks that need it (named
// in the report), everything else still runs, --strict turns an incomplete report into exit 3; slow servers, dead
// servers and missing contexts end in exit 2 with the fix, an expired AWS session in a report with AWS as a gap.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { loadOffline } from '../../src/gather/offline.js';
import type { DataKind, RawInputs } from '../../src/model/snapshot.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { cliAsync } from './cli-async.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { DEMO, DEMO_NOW } from './run.js';

let demo: RawInputs;
let tmp: string;
const started: Array<KubeApiServer | AwsServer> = [];
const kubes: KubeApiServer[] = [];
const awss: AwsServer[] = [];

beforeAll(async () => {
  demo = await loadOffline([DEMO]);
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-degraded-'));
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

afterEach(async () => {
  for (const k of kubes.splice(0)) expect(mutatingKubeRequests(k.requests)).toEqual([]);
  for (const a of awss.splice(0)) expect(mutatingAwsRequests(a.requests)).toEqual([]);
  for (const s of started.splice(0)) await s.close();
});

async function servers(kubeOpts: KubeServerOptions = {}, awsOpts: AwsServerOptions = {}) {
  const kube = await startKubeApiServer(demo, kubeOpts);
  const aws = await startAwsServer(demo, awsOpts);
  started.push(kube, aws);
  kubes.push(kube);
  awss.push(aws);
  return { kube, aws };
}

async function whyPending(
  s: { kube: KubeApiServer; aws: AwsServer },
  extra: Partial<WhyPendingOptions> = {},
) {
  const c = capturingDeps({
    liveOverrides: {
      awsEndpoint: s.aws.endpoint,
      awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
      awsRetryDelayMs: 0,
    },
  });
  const o: WhyPendingOptions = {
    ...PIPED_JSON,
    kubeconfig: s.kube.kubeconfigPath,
    region: 'us-east-1',
    all: true,
    allNamespaces: true,
    ...extra,
  };
  const r = await runWhyPending(o, c.deps);
  return { exitCode: r.exitCode, report: JSON.parse(c.stdout()), stderr: c.stderr() };
}

/** The why-pending checks that declare they cannot run without this kind of data. */
const needing = (kind: DataKind) =>
  CHECKS.filter((c) => c.meta.commands.includes('why-pending') && c.meta.requires.includes(kind))
    .map((c) => c.meta.id)
    .sort();

const verdicts = (report: any) => report.pods.map((p: any) => `${p.namespace}/${p.name}: ${p.verdict}`);

describe('why-pending with a forbidden Kubernetes resource', () => {
  it('skips exactly the checks that need events, naming the denial, runs the rest, and exits 3 only with --strict', async () => {
    const full = await whyPending(await servers());
    const s = await servers({ faults: [{ match: 'events', status: 403 }] });
    const run = await whyPending(s);
    expect(run.exitCode).toBe(0);
    const detail =
      'forbidden: list events (cluster scope): events is forbidden: User "system:serviceaccount:casdoctor:reader" cannot list resource "events" in API group "" at the cluster scope';
    expect(needing('events')).toContain('ca-event-disagrees');
    expect(run.report.skipped.filter((k: any) => k.reason === 'forbidden')).toEqual(
      needing('events').map((checkId) => ({ checkId, reason: 'forbidden', detail })),
    );
    expect(run.stderr).toContain(`warning: ${detail}\n`);
    expect(verdicts(run.report)).toEqual(verdicts(full.report));
    expect(run.report.findings.some((f: any) => f.checkId === 'ca-event-disagrees')).toBe(false);
    expect((await whyPending(s, { strict: true })).exitCode).toBe(3);
    // findings still fail the run first: exit 1 says more than "incomplete"
    expect((await whyPending(s, { strict: true, failOn: 'error' })).exitCode).toBe(1);
  });

  it('reports in full when PDBs are forbidden, because no why-pending check needs them, and says what was not read', async () => {
    const full = await whyPending(await servers(), { strict: true });
    const run = await whyPending(await servers({ faults: [{ match: 'poddisruptionbudgets', status: 403 }] }), {
      strict: true,
    });
    expect(needing('pdbs')).toEqual([]);
    expect(run.stderr).toContain(
      'warning: forbidden: list poddisruptionbudgets.policy (cluster scope): poddisruptionbudgets.policy is forbidden: User "system:serviceaccount:casdoctor:reader" cannot list resource "poddisruptionbudgets" in API group "policy" at the cluster scope\n',
    );
    expect(run.report).toEqual(full.report);
    // the same exit as with PDBs readable: a gap no check needs never makes the report incomplete
    expect(run.exitCode).toBe(full.exitCode);
  });
});

describe('why-pending with a denied AWS action', () => {
  it('skips exactly the checks that need the ASGs, naming autoscaling:DescribeAutoScalingGroups, and still reports every pod', async () => {
    const s = await servers({}, { faults: [{ action: 'DescribeAutoScalingGroups', code: 'AccessDenied' }] });
    const run = await whyPending(s);
    expect(run.exitCode).toBe(0);
    const denied = run.report.skipped.filter((k: any) => k.reason === 'forbidden');
    expect(denied.map((k: any) => k.checkId).sort()).toEqual(needing('autoScalingGroups'));
    const detail =
      'forbidden: autoscaling:DescribeAutoScalingGroups (region us-east-1): AccessDenied: User: arn:aws:sts::111122223333:assumed-role/casdoctor-readonly/casdoctor is not authorized to perform: autoscaling:DescribeAutoScalingGroups';
    for (const k of denied) {
      expect(k.reason).toBe('forbidden');
      expect(k.detail.startsWith(detail)).toBe(true);
    }
    expect(run.stderr).toContain(`warning: ${detail}`);
    expect(run.report.pods).toHaveLength(8);
    expect((await whyPending(s, { strict: true })).exitCode).toBe(3);
    // nothing else is asked of AWS once the ASGs are denied
    expect(new Set(s.aws.requests.map((r) => r.action))).toEqual(new Set(['DescribeAutoScalingGroups']));
  });

  it('names ec2:DescribeLaunchTemplateVersions when only that is denied, and the report still comes', async () => {
    const run = await whyPending(
      await servers({}, { faults: [{ action: 'ec2:DescribeLaunchTemplateVersions', code: 'AccessDenied' }] }),
    );
    expect(run.stderr).toMatch(
      /warning: forbidden: ec2:DescribeLaunchTemplateVersions \(region us-east-1\): UnauthorizedOperation: You are not authorized to perform this operation\./,
    );
    expect(run.report.pods).toHaveLength(8);
  });

  it("rides out throttling with the SDK's retries: the report and warnings equal an unthrottled run's", async () => {
    const full = await whyPending(await servers());
    const s = await servers({}, { faults: [{ action: '*', code: 'Throttling', times: 2 }] });
    const run = await whyPending(s);
    expect(run.report).toEqual(full.report);
    // the demo holds no describe-instance-types answers, so both runs note that; throttling adds nothing
    expect(run.stderr).toBe(full.stderr);
    expect(run.stderr).not.toMatch(/throttl/i);
    expect(s.aws.requests.filter((r) => r.action === 'DescribeAutoScalingGroups').length).toBeGreaterThanOrEqual(3);
  });

  it('bounds each AWS call by --request-timeout and names the endpoint that did not answer', async () => {
    const s = await servers({}, { delays: { DescribeAutoScalingGroups: 5_000 } });
    const t0 = Date.now();
    const run = await whyPending(s, { requestTimeout: '300ms' });
    expect(Date.now() - t0).toBeLessThan(4_000);
    // Kubernetes answered: the report comes with AWS as a timeout gap (issue 15, partial access)
    expect(run.report.pods).toHaveLength(8);
    expect(run.stderr).toMatch(
      new RegExp(`^warning: timeout: AWS \\(region us-east-1\\) not read: autoscaling:DescribeAutoScalingGroups timed out waiting for ${s.aws.endpoint}: .*--request-timeout$`, 'm'),
    );
  });
});

describe('--strict through the real CLI', () => {
  it('exits 3 on a dump without the CA status ConfigMap, naming the skipped checks, and 0 without --strict', async () => {
    const dump = join(tmp, 'no-status');
    cpSync(DEMO, dump, { recursive: true });
    rmSync(join(dump, 'configmaps-kube-system.json'));
    const args = ['why-pending', '--all', '-A', '--from', dump, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never'];
    const lenient = await cliAsync(args);
    expect(lenient.code).toBe(0);
    const strict = await cliAsync([...args, '--strict']);
    expect(strict.code).toBe(3);
    const skipped = JSON.parse(strict.stdout).skipped.filter((k: any) => /configmaps/.test(k.detail));
    expect(skipped.map((k: any) => k.checkId)).toEqual(needing('configMaps'));
    expect(skipped[0]).toEqual({
      checkId: 'ca-status-stale',
      reason: 'not-provided',
      detail: 'no configmaps in the input (add the dump)',
    });
  });
});

describe('environment errors through the real CLI (exit 2 with the fix)', () => {
  it('honours --request-timeout end to end: a silent API server ends the run, naming the server', async () => {
    const { kube } = await servers({ delays: { pods: 10_000 } });
    const r = await cliAsync([
      'why-pending',
      '--all',
      '-A',
      '--kubeconfig',
      kube.kubeconfigPath,
      '--region',
      'us-east-1',
      '--request-timeout',
      '300ms',
    ], awsEnv());
    expect(r.code).toBe(2);
    expect(r.ms).toBeLessThan(8_000);
    expect(r.stderr).toContain(
      `error: listing pods: timed out after 300ms waiting for ${kube.url} (GET /api/v1/pods)\n` +
        'hint: kubectl cluster-info --context casdoctor-test; or allow more time with --request-timeout\n',
    );
    expect(r.stdout).toBe('');
  });

  it('names an unreachable API server and suggests kubectl cluster-info', async () => {
    const { kube } = await servers();
    const kubeconfig = kube.writeKubeconfig('dead', { server: 'https://127.0.0.1:1' });
    const r = await cliAsync(['why-pending', '--all', '-A', '--kubeconfig', kubeconfig, '--region', 'us-east-1'], awsEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: cannot reach the Kubernetes API server https:\/\/127\.0\.0\.1:1 \(context "casdoctor-test"\): .*ECONNREFUSED/m,
    );
    expect(r.stderr).toContain('hint: kubectl cluster-info --context casdoctor-test\n');
    expect(r.stderr).not.toMatch(/\s{4}at /);
  });

  it('names a missing context and the ones that exist, and suggests kubectl config get-contexts', async () => {
    const { kube } = await servers();
    const r = await cliAsync(
      ['why-pending', '--all', '--kubeconfig', kube.kubeconfigPath, '--context', 'prod-eu', '--region', 'us-east-1'],
      awsEnv(),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: context "prod-eu" is not in kubeconfig ${kube.kubeconfigPath} (contexts: casdoctor-test)\nhint: kubectl config get-contexts\n`,
    );
    const none = await cliAsync(
      ['why-pending', '--all', '--kubeconfig', kube.writeKubeconfig('nocontext', { currentContext: null })],
      awsEnv(),
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('hint: kubectl config get-contexts, then pass --context <name>');
  });

  it('tells an expired AWS session apart and suggests aws sso login for the profile', async () => {
    const { kube, aws } = await servers({}, { faults: [{ action: '*', code: 'ExpiredToken' }] });
    const home = join(tmp, 'home-expired');
    const config = join(tmp, 'aws-config');
    writeFileSync(config, '[profile platform]\nregion = us-east-1\n');
    const credentials = join(tmp, 'aws-credentials');
    writeFileSync(credentials, '[platform]\naws_access_key_id = ASIACASDOCTORTEST\naws_secret_access_key = casdoctor-test-secret\naws_session_token = expired\n');
    const r = await cliAsync(['why-pending', '--all', '-A', '--kubeconfig', kube.kubeconfigPath, '--profile', 'platform'], {
      HOME: home,
      AWS_CONFIG_FILE: config,
      AWS_SHARED_CREDENTIALS_FILE: credentials,
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
      AWS_REGION: undefined,
      AWS_DEFAULT_REGION: undefined,
    });
    // Kubernetes is readable: the report comes, AWS a gap naming the fix (issue 15, partial access)
    expect(r.code).not.toBe(2);
    expect(r.stderr).toContain(
      'warning: unauthorized: AWS (region us-east-1) not read: the AWS session has expired (autoscaling:DescribeAutoScalingGroups: ExpiredToken: The security token included in the request is expired); aws sso login --profile platform (or refresh the session credentials)\n',
    );
    expect(aws.requests.length).toBeGreaterThan(0);
  });
});

/** AWS settings for CLI runs that never reach AWS: static credentials, no metadata service, no profile files. */
function awsEnv(): Record<string, string | undefined> {
  return {
    AWS_ACCESS_KEY_ID: 'AKIDCASDOCTORTEST',
    AWS_SECRET_ACCESS_KEY: 'casdoctor-test-secret',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
    AWS_CONFIG_FILE: '/nonexistent/casdoctor/config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/casdoctor/credentials',
    AWS_PROFILE: undefined,
    AWS_MAX_ATTEMPTS: '1',
  };
}
