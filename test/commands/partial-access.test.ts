// Issue 15, partial access, through the real CLI against the loopback servers: Kubernetes readable but AWS not (no
// credentials, an unknown profile, a mistyped region) still gives the Kubernetes half of every report with AWS as a
// gap; every list forbidden leads with the Kubernetes error; a `kubectl proxy` (plain http://, no credentials) works.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadOffline } from '../../src/gather/offline.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { cliAsync } from './cli-async.js';
import { DEMO } from './run.js';

let demo: RawInputs;
let tmp: string;
const kubes: KubeApiServer[] = [];
const awss: AwsServer[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  demo = await loadOffline([DEMO], { fields: 'all' });
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-partial-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  for (const k of kubes.splice(0)) expect(mutatingKubeRequests(k.requests)).toEqual([]);
  for (const a of awss.splice(0)) expect(mutatingAwsRequests(a.requests)).toEqual([]);
  for (const c of closers.splice(0)) await c();
});

async function kube(opts: KubeServerOptions = {}): Promise<KubeApiServer> {
  const k = await startKubeApiServer(demo, opts);
  kubes.push(k);
  closers.push(() => k.close());
  return k;
}

/** No AWS credentials anywhere: no env keys, no profile, empty config files, no instance metadata. */
function noAwsCredentials(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const home = join(tmp, 'home');
  return {
    HOME: home,
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_DEFAULT_PROFILE: undefined,
    AWS_REGION: undefined,
    AWS_DEFAULT_REGION: undefined,
    AWS_ENDPOINT_URL: undefined,
    AWS_CONFIG_FILE: join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
    AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
    AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_MAX_ATTEMPTS: '1',
    ...extra,
  };
}

const NO_CREDENTIALS =
  'warning: unauthorized: AWS (region us-east-1) not read: no AWS credentials found: Could not load credentials from any providers; aws configure (or set AWS_PROFILE / pass --profile)';

describe('Kubernetes readable, no AWS credentials', () => {
  it('why-pending shows the scheduler half and CA’s events, with AWS skipped for the missing credentials (not exit 2)', async () => {
    const k = await kube();
    const r = await cliAsync(
      ['why-pending', 'orders-pg-0', '-n', 'databases', '--kubeconfig', k.kubeconfigPath, '--region', 'us-east-1'],
      noAwsCredentials(),
    );
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).not.toBe(2);
    // the scheduler's half: kube-scheduler's own aggregation over the nodes
    expect(r.stdout).toMatch(/0\/\d+ nodes are available/);
    // CA's events on the pod are read from Kubernetes
    expect(r.stdout).toContain('NotTriggerScaleUp');
    // AWS is a gap naming the credential to add, printed once
    expect(r.stderr.split('\n').filter((l) => l === NO_CREDENTIALS)).toHaveLength(1);
  });

  it('why-pending -o json skips exactly the AWS checks with the credential to add, and --strict exits 3', async () => {
    const k = await kube();
    const args = ['why-pending', '--all', '-A', '-o', 'json', '--fail-on', 'never', '--kubeconfig', k.kubeconfigPath, '--region', 'us-east-1'];
    const r = await cliAsync(args, noAwsCredentials());
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.pods.length).toBeGreaterThan(0);
    const unauthorized = report.skipped.filter((s: { reason: string }) => s.reason === 'unauthorized');
    expect(unauthorized.length).toBeGreaterThan(0);
    for (const s of unauthorized) expect(s.detail).toContain('no AWS credentials found');
    expect((await cliAsync([...args, '--strict'], noAwsCredentials())).code).toBe(3);
  });

  it('scale-down-blockers reports from Kubernetes data alone', async () => {
    const k = await kube();
    const r = await cliAsync(['scale-down-blockers', '--kubeconfig', k.kubeconfigPath, '--region', 'us-east-1'], noAwsCredentials());
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).not.toBe(2);
    expect(r.stdout).toContain('ip-10-0-27-211');
    expect(r.stderr).toContain(NO_CREDENTIALS);
  });

  it('with no AWS region anywhere and nodes without a region label, AWS is a gap naming --region', async () => {
    const k = await kube();
    k.setData({ ...demo, nodes: demo.nodes.map(withoutRegion) });
    const r = await cliAsync(['why-pending', '--all', '-A', '--kubeconfig', k.kubeconfigPath], noAwsCredentials());
    expect(r.code).not.toBe(2);
    expect(r.stderr).toContain(
      'warning: AWS not read: no AWS region: none given, none in AWS_REGION / AWS_DEFAULT_REGION or the profile, and no node carries topology.kubernetes.io/region; pass --region <region> (or aws configure set region <region>)',
    );
  });

  it('AWS_PROFILE naming no profile says the profile is not defined, and the report still comes', async () => {
    const k = await kube();
    const config = join(tmp, 'config-platform');
    writeFileSync(config, '[profile platform]\nregion = us-east-1\n');
    const env = noAwsCredentials({ AWS_PROFILE: 'platfrom', AWS_CONFIG_FILE: config });
    const r = await cliAsync(['why-pending', '--all', '-A', '--kubeconfig', k.kubeconfigPath, '--region', 'us-east-1'], env);
    expect(r.code).not.toBe(2);
    expect(r.stderr).toContain(
      `warning: unauthorized: AWS (region us-east-1) not read: AWS profile "platfrom" is not defined in ${config} or ${env.AWS_SHARED_CREDENTIALS_FILE}; aws configure list-profiles (then pass --profile <name> or fix AWS_PROFILE)`,
    );
    expect(r.stderr).not.toContain('no AWS credentials');
  });

  it('a mistyped region says it is not an AWS region, not "check network access"', async () => {
    const k = await kube();
    const env = noAwsCredentials({
      AWS_ACCESS_KEY_ID: 'AKIDCASDOCTORTEST',
      AWS_SECRET_ACCESS_KEY: 'casdoctor-test-secret',
      // the endpoint autoscaling.us-eats-1.amazonaws.com does not resolve; loopback still does
      NODE_OPTIONS: `--import=${join(import.meta.dirname, 'no-dns.mjs')}`,
    });
    const r = await cliAsync(['why-pending', '--all', '-A', '--kubeconfig', k.kubeconfigPath, '--region', 'us-eats-1'], env);
    expect(r.code).not.toBe(2);
    expect(r.stderr).toContain(
      'warning: error: AWS (region us-eats-1) not read: "us-eats-1" is not an AWS region (autoscaling:DescribeAutoScalingGroups: no host https://autoscaling.us-eats-1.amazonaws.com); pass --region <region>',
    );
    expect(r.stderr).not.toContain('check network access');
  });
});

describe('every Kubernetes list forbidden', () => {
  it('leads with the Kubernetes error: forbidden, the user and API group the server named, the kubectl auth can-i hint; AWS after it', async () => {
    const k = await kube({ faults: [{ match: '*', status: 403 }], user: 'arn:aws:sts::111122223333:assumed-role/ci/jane' });
    const kubeconfig = k.writeKubeconfig('prod', { contextName: 'prod eu' });
    const r = await cliAsync(['why-pending', '--all', '-A', '--kubeconfig', kubeconfig, '--region', 'us-east-1'], noAwsCredentials());
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0].startsWith(
      `error: cannot list pods from ${k.url}: forbidden: list pods (cluster scope): pods is forbidden: User "arn:aws:sts::111122223333:assumed-role/ci/jane" cannot list resource "pods" in API group "" at the cluster scope; forbidden too: nodes, events, poddisruptionbudgets.policy, persistentvolumeclaims, persistentvolumes, storageclasses.storage.k8s.io and `,
    )).toBe(true);
    expect(lines[0]).toMatch(/ and \d+ more$/);
    expect(lines[1]).toBe(
      "hint: kubectl auth can-i list pods --all-namespaces --context 'prod eu'; casdoctor needs list on pods (deploy/casdoctor-clusterrole.yaml)",
    );
    expect(lines[2]).toBe('also: no AWS credentials found: Could not load credentials from any providers');
    expect(lines[3]).toBe('hint: aws configure (or set AWS_PROFILE / pass --profile)');
  });

  it('without a region either, the missing region follows the Kubernetes error', async () => {
    const k = await kube({ faults: [{ match: '*', status: 403 }] });
    const r = await cliAsync(['scale-down-blockers', '--kubeconfig', k.kubeconfigPath], noAwsCredentials());
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: cannot list pods .*: forbidden: list pods \(cluster scope\): pods is forbidden: User "system:serviceaccount:casdoctor:reader"/);
    expect(lines[2]).toMatch(/^also: no AWS region: none given/);
  });
});

describe('a kubectl proxy server (http://, no credentials)', () => {
  it('is read over plain HTTP like kubectl reads it, and the report comes', async () => {
    const k = await kube({ tls: false });
    const proxy = await kubectlProxy(k.url, 'casdoctor-test-token');
    const aws = await startAwsServer(demo);
    awss.push(aws);
    closers.push(() => aws.close());
    // what `kubectl proxy` users write: the proxy's address, no TLS settings, no user credentials
    const kubeconfig = join(tmp, 'proxy-kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: proxy',
        '  cluster:',
        `    server: ${proxy.url}`,
        'users:',
        '- name: proxy',
        '  user: {}',
        'contexts:',
        '- name: proxy',
        '  context: {cluster: proxy, user: proxy}',
        'current-context: proxy',
        '',
      ].join('\n'),
    );
    const r = await cliAsync(['why-pending', '--all', '-A', '-o', 'json', '--fail-on', 'never', '--kubeconfig', kubeconfig, '--region', 'us-east-1'], {
      ...noAwsCredentials(),
      AWS_ACCESS_KEY_ID: 'AKIDCASDOCTORTEST',
      AWS_SECRET_ACCESS_KEY: 'casdoctor-test-secret',
      AWS_ENDPOINT_URL: aws.endpoint,
    });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).pods.length).toBeGreaterThan(0);
    expect(proxy.seen.length).toBeGreaterThan(0);
    // casdoctor sent no credentials of its own: the proxy adds them, as kubectl proxy does
    expect(proxy.seen.every((h) => h === undefined)).toBe(true);
  });
});

function withoutRegion<T extends { metadata: { labels?: Record<string, string> }; spec?: { providerID?: string } }>(n: T): T {
  const labels = { ...(n.metadata.labels ?? {}) };
  delete labels['topology.kubernetes.io/region'];
  delete labels['failure-domain.beta.kubernetes.io/region'];
  return { ...n, metadata: { ...n.metadata, labels }, spec: { ...(n.spec ?? {}), providerID: undefined } };
}

/** A `kubectl proxy`: plain HTTP on loopback, forwards each request to the API server with the proxy's own token. */
async function kubectlProxy(upstream: string, token: string): Promise<{ url: string; seen: Array<string | undefined> }> {
  const seen: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    const up = http.request(
      new URL(req.url ?? '/', upstream),
      { method: req.method, headers: { ...req.headers, host: new URL(upstream).host, authorization: `Bearer ${token}` } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}
