// Live I/O under hostile servers (issue 13): continue tokens and NextTokens that loop, gzip bombs, endless and trickled
// bodies, for Kubernetes and AWS, each through the real gatherer. Every limit ends in an EnvironmentError naming the
// API and the limit, quickly; small limits are passed as options so each case runs in well under a second.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EnvironmentError, LimitExceededError } from '../../src/gather/errors.js';
import { type AwsGatherOptions, gatherAws } from '../../src/providers/aws/gather.js';
import { gatherLiveIam } from '../../src/providers/aws/gather-iam.js';
import { gatherKubernetes, type KubeGatherOptions } from '../../src/gather/live-kubernetes.js';
import { DEFAULT_LIVE_LIMITS } from '../../src/gather/live-limits.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { awsFixture, kubeFixture, mutatingAwsRequests, mutatingKubeRequests } from './live-fixtures.js';

const MiB = 1024 * 1024;
const CREDENTIALS = { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' };
const kubes: KubeApiServer[] = [];
const awss: AwsServer[] = [];
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-limits-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

afterEach(async () => {
  vi.unstubAllEnvs();
  for (const s of kubes.splice(0)) {
    expect(mutatingKubeRequests(s.requests)).toEqual([]);
    await s.close();
  }
  for (const s of awss.splice(0)) {
    expect(mutatingAwsRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

async function kube(opts: KubeServerOptions, data: Partial<RawInputs> = kubeFixture()) {
  const s = await startKubeApiServer(data, opts);
  kubes.push(s);
  return s;
}

async function aws(opts: AwsServerOptions, data: Partial<RawInputs> = awsFixture()) {
  const s = await startAwsServer(data, opts);
  awss.push(s);
  return s;
}

const gatherK = (s: KubeApiServer, extra: Partial<KubeGatherOptions> = {}) =>
  gatherKubernetes({ kubeconfig: s.kubeconfigPath, requestTimeoutMs: 5_000, readCaRecord: false, ...extra });

const gatherA = (s: AwsServer, extra: Partial<AwsGatherOptions> = {}) =>
  gatherAws({
    region: 'us-east-1',
    requestTimeoutMs: 5_000,
    endpoint: s.endpoint,
    credentials: CREDENTIALS,
    retryDelayMs: 0,
    ...extra,
  });

/** The rejection of a gathering that must end on its own, and how long it took. */
async function failure(p: Promise<unknown>): Promise<{ e: Error & { hint?: string; limit?: string }; ms: number }> {
  const t0 = Date.now();
  const e = await p.then(
    () => new Error('resolved, but a limit should have ended it'),
    (err: Error) => err,
  );
  return { e, ms: Date.now() - t0 };
}

const lists = (s: KubeApiServer, path: string) => s.requests.filter((r) => r.path === path);

describe('Kubernetes lists under a hostile API server', () => {
  it('stops when the server sends the same continue token again, after two pages, naming the list', async () => {
    const s = await kube({ hostile: [{ match: 'pods', mode: 'repeat-continue' }] });
    const { e, ms } = await failure(gatherK(s));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.name).toBe('EnvironmentError');
    expect(e.message).toBe(
      `the Kubernetes API server ${s.url} sent a continue token it had sent before while listing pods (GET /api/v1/pods, page 3); casdoctor stops instead of paging forever`,
    );
    expect(e.limit).toBe('repeated continue token');
    expect(lists(s, '/api/v1/pods')).toHaveLength(2);
    expect(ms).toBeLessThan(3_000);
  }, 10_000);

  it('stops a list that pages on with new tokens at the page budget, naming the budget', async () => {
    const s = await kube({ hostile: [{ match: 'events', mode: 'endless-continue' }] });
    const { e } = await failure(gatherK(s, { limits: { maxListPages: 5 } }));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toBe(
      `the Kubernetes API server ${s.url} was still paging after 5 pages of events (GET /api/v1/events); casdoctor reads at most 5 pages per list`,
    );
    expect(lists(s, '/api/v1/events')).toHaveLength(5);
    expect(new Set(lists(s, '/api/v1/events').map((r) => r.query.continue)).size).toBe(5);
  }, 10_000);

  it('stops inflating a gzip bomb at the cap on decoded bytes and names the call and the cap', async () => {
    const s = await kube({ hostile: [{ match: 'nodes', mode: 'gzip-bomb', bytes: 1024 * MiB }] });
    const { e, ms } = await failure(gatherK(s, { limits: { maxResponseBytes: MiB } }));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toBe(
      `the Kubernetes API server ${s.url} sent more than 1 MiB (decoded) for one response to GET /api/v1/nodes; casdoctor reads at most 1 MiB per response`,
    );
    expect(e.limit).toBe('1 MiB per response');
    expect(ms).toBeLessThan(3_000);
  }, 10_000);

  it('stops reading a body that never ends at the cap', async () => {
    const s = await kube({ hostile: [{ match: '/api/v1/pods', mode: 'endless-body' }] });
    const { e, ms } = await failure(gatherK(s, { limits: { maxResponseBytes: 2 * MiB } }));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toMatch(/sent more than 2 MiB \(decoded\) for one response to GET \/api\/v1\/pods;/);
    expect(ms).toBeLessThan(3_000);
  }, 10_000);

  it('bounds a trickled body by the request timeout, headers to last byte', async () => {
    const s = await kube({ hostile: [{ match: 'nodes', mode: 'trickle', intervalMs: 50 }] });
    const { e, ms } = await failure(gatherK(s, { requestTimeoutMs: 400 }));
    expect(e.name).toBe('EnvironmentError');
    expect(e.message).toBe(`listing nodes: timed out after 400ms waiting for ${s.url} (GET /api/v1/nodes)`);
    expect(ms).toBeLessThan(2_000);
  }, 10_000);

  it('keeps a megabyte Forbidden message out of the gap: 500 characters and a count', async () => {
    const s = await kube({ faults: [{ match: 'poddisruptionbudgets', status: 403, message: `denied ${'x'.repeat(MiB)}` }] });
    const got = await gatherK(s);
    expect(got.gaps).toHaveLength(1);
    expect(got.gaps[0].detail.length).toBeLessThan(700);
    expect(got.gaps[0].detail).toMatch(/^forbidden: list poddisruptionbudgets\.policy \(cluster scope\): denied x+… \(\d+ more characters\)$/);
  });

  it("ends the run with the server's reason when pods cannot be listed, instead of a bare \"no Pods\"", async () => {
    const s = await kube({ faults: [{ match: '/api/v1/pods', status: 403 }] });
    const { e } = await failure(gatherK(s));
    expect(e).toBeInstanceOf(EnvironmentError);
    expect(e.message).toBe(
      `cannot list pods from ${s.url}: forbidden: list pods (cluster scope): pods is forbidden: User "system:serviceaccount:casdoctor:reader" cannot list resource "pods" in API group "" at the cluster scope`,
    );
    expect(e.hint).toContain('kubectl auth can-i list pods --all-namespaces --context casdoctor-test');
  });

  it('names an internal error on pods with its status and message', async () => {
    const s = await kube({ faults: [{ match: '/api/v1/pods', status: 500 }] });
    const { e } = await failure(gatherK(s));
    expect(e.message).toBe(
      `cannot list pods from ${s.url}: error: list pods (cluster scope): HTTP 500 InternalError: Internal error occurred: etcdserver: request timed out`,
    );
  });
});

describe('kubeconfig safety', () => {
  const token = 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImNhc2RvY3Rvci1zZWNyZXQtdG9rZW4ifQ';
  const keyData = 'LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUNhc2RvY3Rvcktl';

  it('never quotes the file when it is not valid YAML: no token, no client-key-data, only the position', async () => {
    const file = join(tmp, 'broken-kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'users:',
        '- name: admin',
        '  user:',
        `    token: ${token}`,
        `    client-key-data: ${keyData}`,
        '   bad: indentation: here',
        'contexts: []',
        '',
      ].join('\n'),
    );
    const { e } = await failure(gatherKubernetes({ kubeconfig: file, requestTimeoutMs: 1_000 }));
    expect(e).toBeInstanceOf(EnvironmentError);
    expect(e.message).toMatch(new RegExp(`^kubeconfig ${file} is not valid: YAML [a-z ,'()-]+ at line \\d+, column \\d+$`));
    const text = `${e.message}\n${e.hint}\n${String(e.cause ?? '')}`;
    expect(text).not.toContain(token.slice(0, 12));
    expect(text).not.toContain(keyData.slice(0, 12));
    expect(text).not.toContain('indentation: here');
  });

  for (const provider of ['gcp', 'azure'] as const) {
    it(`refuses the legacy ${provider} auth-provider before running its cmd-path or sending a request`, async () => {
      const s = await kube({});
      const marker = join(tmp, `${provider}-ran`);
      const kubeconfig = s.writeKubeconfig(`${provider}-kubeconfig`, {
        user: {
          'auth-provider': {
            name: provider,
            config: {
              'cmd-path': '/bin/sh',
              'cmd-args': `-c "touch ${marker}; echo {}"`,
              'token-key': '{.access_token}',
              'expiry-key': '{.token_expiry}',
            },
          },
        },
      });
      const { e } = await failure(gatherKubernetes({ kubeconfig, requestTimeoutMs: 1_000 }));
      expect(e).toBeInstanceOf(EnvironmentError);
      expect(e.message).toBe(
        `context "casdoctor-test" authenticates with the legacy "${provider}" auth-provider, which kubectl 1.26+ no longer supports and which runs its cmd-path through a shell; casdoctor refuses it`,
      );
      expect(e.hint).toMatch(provider === 'gcp' ? /gke-gcloud-auth-plugin/ : /kubelogin convert-kubeconfig/);
      expect(existsSync(marker)).toBe(false);
      expect(s.requests).toEqual([]);
    });
  }
});

describe('AWS calls under a hostile endpoint', () => {
  it('stops DescribeAutoScalingGroups when the endpoint repeats a NextToken', async () => {
    const s = await aws({ hostile: [{ action: 'DescribeAutoScalingGroups', mode: 'repeat-token' }] });
    const { e, ms } = await failure(gatherA(s));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toBe(
      `${s.endpoint} sent a NextToken it had sent before for autoscaling:DescribeAutoScalingGroups (page 3); casdoctor stops instead of paging forever`,
    );
    expect(s.requests.filter((r) => r.action === 'DescribeAutoScalingGroups')).toHaveLength(2);
    expect(ms).toBeLessThan(3_000);
  }, 10_000);

  it('stops a pagination with ever-new NextTokens at the page budget', async () => {
    const s = await aws({ hostile: [{ action: 'DescribeAutoScalingGroups', mode: 'endless-token' }] });
    const { e } = await failure(gatherA(s, { limits: { maxAwsPages: 4 } }));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toBe(
      `${s.endpoint} was still paging autoscaling:DescribeAutoScalingGroups after 4 pages; casdoctor reads at most 4 pages per call`,
    );
    expect(s.requests.filter((r) => r.action === 'DescribeAutoScalingGroups')).toHaveLength(4);
  }, 10_000);

  it('stops EC2 paginations too: a looping DescribeInstanceTypes ends the run', async () => {
    const s = await aws({ hostile: [{ action: 'ec2:DescribeInstanceTypes', mode: 'repeat-token' }] });
    const { e } = await failure(gatherA(s));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toContain('sent a NextToken it had sent before for ec2:DescribeInstanceTypes (page 3)');
  }, 10_000);

  it('bounds a trickled body by --request-timeout: headers and body, on every attempt', async () => {
    const s = await aws({ hostile: [{ action: 'DescribeAutoScalingGroups', mode: 'trickle', intervalMs: 50 }] });
    const { e, ms } = await failure(gatherA(s, { requestTimeoutMs: 300, maxAttempts: 2 }));
    expect(e).toBeInstanceOf(EnvironmentError);
    expect(e.message).toBe(
      `autoscaling:DescribeAutoScalingGroups timed out waiting for ${s.endpoint}: no complete answer within 300ms`,
    );
    expect(s.requests.filter((r) => r.action === 'DescribeAutoScalingGroups')).toHaveLength(2);
    expect(ms).toBeLessThan(2_000);
  }, 10_000);

  it('turns a trickled DescribeScalingActivities into a timeout gap and gathers the rest', async () => {
    const s = await aws({ hostile: [{ action: 'DescribeScalingActivities', mode: 'trickle', intervalMs: 50 }] });
    const got = await gatherA(s, { requestTimeoutMs: 300, maxAttempts: 1 });
    const gap = got.gaps.find((g) => g.resource === 'autoscaling:DescribeScalingActivities');
    expect(gap?.reason).toBe('timeout');
    expect(gap?.detail).toContain(`timed out waiting for ${s.endpoint}: no complete answer within 300ms`);
    expect(got.autoScalingGroups.length).toBeGreaterThan(0);
  }, 10_000);

  it('stops reading an endless body at the cap and names the action and the cap', async () => {
    const s = await aws({ hostile: [{ action: 'DescribeAutoScalingGroups', mode: 'endless-body' }] });
    const { e, ms } = await failure(gatherA(s, { limits: { maxResponseBytes: 2 * MiB } }));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toBe(
      `${s.endpoint} sent more than 2 MiB for one autoscaling:DescribeAutoScalingGroups response; casdoctor reads at most 2 MiB per response`,
    );
    expect(ms).toBeLessThan(3_000);
  }, 10_000);

  it('caps a gzip-encoded body by its bytes too (the SDK never inflates it)', async () => {
    const s = await aws({ hostile: [{ action: 'DescribeAutoScalingGroups', mode: 'gzip-bomb', bytes: 1024 * MiB }] });
    const { e } = await failure(gatherA(s, { limits: { maxResponseBytes: 256 * 1024 } }));
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toContain('sent more than 256 KiB for one autoscaling:DescribeAutoScalingGroups response');
  }, 10_000);

  it('names the endpoint AWS_ENDPOINT_URL points at when a call times out, not the default one', async () => {
    const s = await aws({ delays: { DescribeAutoScalingGroups: 3_000 } });
    vi.stubEnv('AWS_ENDPOINT_URL', s.endpoint);
    const { e } = await failure(gatherA(s, { endpoint: undefined, requestTimeoutMs: 200, maxAttempts: 1 }));
    expect(e.message).toBe(
      `autoscaling:DescribeAutoScalingGroups timed out waiting for ${s.endpoint}: no complete answer within 200ms`,
    );
    expect(e.message).not.toContain('amazonaws.com');
  }, 10_000);

  it('stops an IAM simulation whose Marker repeats', async () => {
    const s = await aws({ hostile: [{ action: 'SimulatePrincipalPolicy', mode: 'repeat-token' }] }, { iamEvaluationResults: [] });
    const plan = {
      hints: { irsaRoleArn: 'arn:aws:iam::111122223333:role/ca', serviceAccount: { namespace: 'kube-system', name: 'cluster-autoscaler' } },
      requests: [{ action: 'autoscaling:DescribeAutoScalingGroups', resourceArn: '*', context: {} }],
    };
    const { e } = await failure(
      gatherLiveIam(plan as never, {
        region: 'us-east-1',
        requestTimeoutMs: 5_000,
        endpoint: s.endpoint,
        credentials: CREDENTIALS,
        retryDelayMs: 0,
      }),
    );
    expect(e).toBeInstanceOf(LimitExceededError);
    expect(e.message).toBe(
      `${s.endpoint} sent a Marker it had sent before for iam:SimulatePrincipalPolicy (page 3); casdoctor stops instead of paging forever`,
    );
  }, 10_000);
});

describe('the default limits', () => {
  it('are the documented numbers', () => {
    expect(DEFAULT_LIVE_LIMITS).toEqual({
      maxResponseBytes: 64 * MiB,
      maxListPages: 1_000,
      maxAwsPages: 1_000,
      caLogBytes: 32 * MiB,
      caMetricsBytes: 16 * MiB,
      caSnapshotBytes: 64 * MiB,
    });
  });
});
