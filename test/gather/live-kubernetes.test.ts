import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnvironmentError } from '../../src/gather/errors.js';
import { gatherKubernetes } from '../../src/gather/live-kubernetes.js';
import type { KubeObject } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { testTls } from '../servers/tls.js';
import { kubeFixture, mutatingKubeRequests, sortedByName } from './live-fixtures.js';

const K8S_KINDS = [
  'pods',
  'nodes',
  'events',
  'pdbs',
  'pvcs',
  'pvs',
  'storageClasses',
  'replicaSets',
  'replicationControllers',
  'deployments',
  'statefulSets',
  'daemonSets',
  'jobs',
  'priorityClasses',
  'serviceAccounts',
  'configMaps',
  'provisioningRequests',
  'podTemplates',
  'capacityBuffers',
  'nodePools',
  'ec2NodeClasses',
  'nodeClaims',
] as const;

const servers: KubeApiServer[] = [];

async function serve(
  data: Partial<RawInputs> = kubeFixture(),
  opts: KubeServerOptions = {},
): Promise<KubeApiServer> {
  const s = await startKubeApiServer(data, opts);
  servers.push(s);
  return s;
}

afterEach(async () => {
  vi.unstubAllEnvs();
  for (const s of servers.splice(0)) {
    // Read-only proof: every test fails if casdoctor sent anything but GET.
    expect(mutatingKubeRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

const gather = (s: KubeApiServer, extra: Partial<Parameters<typeof gatherKubernetes>[0]> = {}) =>
  gatherKubernetes({ kubeconfig: s.kubeconfigPath, requestTimeoutMs: 5_000, ...extra });

const pathsOf = (s: KubeApiServer, path: string) => s.requests.filter((r) => r.path === path);

describe('gatherKubernetes against a loopback API server', () => {
  it('lists every resource type page by page and keeps each object exactly as the server holds it', async () => {
    const fixture = kubeFixture();
    const s = await serve(fixture, { maxPageSize: 2 });
    const got = await gather(s);

    for (const kind of K8S_KINDS.filter((k) => k !== 'configMaps')) {
      expect(sortedByName(got[kind] as KubeObject[]), kind).toEqual(
        sortedByName(fixture[kind] as KubeObject[]),
      );
    }
    expect([...got.provided].sort()).toEqual([...K8S_KINDS].sort());
    expect(got.gaps).toEqual([]);
    expect(got.sources).toEqual(['live: casdoctor-test']);
    // 8 pods at 2 per page: 4 GETs that follow `continue`, each asking for kubectl's chunk size.
    const podLists = pathsOf(s, '/api/v1/pods');
    expect(podLists).toHaveLength(4);
    expect(podLists.map((r) => r.query.limit)).toEqual(['500', '500', '500', '500']);
    expect(podLists.filter((r) => r.query.continue)).toHaveLength(3);
  });

  it('never makes one call per object: every request is a list of a whole resource type, but for CA’s own record', async () => {
    const s = await serve();
    await gather(s);
    const listPath = /^\/(api\/v1|apis\/[a-z0-9.-]+\/v1(?:(?:alpha|beta)\d+)?)\/[a-z0-9]+$/;
    const ca = '/api/v1/namespaces/kube-system/pods/cluster-autoscaler-6d9f7c8b5-h2x4k';
    expect(s.requests.filter((r) => !listPath.test(r.path)).map((r) => r.path)).toEqual([
      // CA's priority-expander ConfigMap, fetched by name in CA's --namespace
      '/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-priority-expander',
      `${ca}/log`,
      `${ca}:8085/proxy/metrics`,
      `${ca}/log`,
    ]);
    s.requests.splice(0, s.requests.length, ...s.requests.filter((r) => !r.path.startsWith(ca)));
    expect(new Set(s.requests.map((r) => r.path)).size).toBe(s.requests.length);
  });

  it('reads only the cluster-autoscaler-status ConfigMap, never the data of other ConfigMaps', async () => {
    const s = await serve();
    const got = await gather(s);
    expect(got.configMaps.map((c) => `${c.metadata.namespace}/${c.metadata.name}`)).toEqual([
      'kube-system/cluster-autoscaler-status',
    ]);
    expect(JSON.stringify(got)).not.toContain('hunter2');
    const cmRequests = s.requests.filter((r) => r.path.endsWith('/configmaps'));
    expect(cmRequests.map((r) => r.query.fieldSelector)).toEqual(['metadata.name=cluster-autoscaler-status']);
  });

  it('turns a 403 on poddisruptionbudgets into a gap and gathers everything else', async () => {
    const s = await serve(kubeFixture(), { faults: [{ match: 'poddisruptionbudgets.policy', status: 403 }] });
    const got = await gather(s);
    expect(got.gaps).toEqual([
      {
        resource: 'poddisruptionbudgets.policy',
        scope: 'cluster scope',
        reason: 'forbidden',
        detail:
          'forbidden: list poddisruptionbudgets.policy (cluster scope): poddisruptionbudgets.policy is forbidden: User "system:serviceaccount:casdoctor:reader" cannot list resource "poddisruptionbudgets" in API group "policy" at the cluster scope',
      },
    ]);
    expect(got.provided.has('pdbs')).toBe(false);
    expect(got.pdbs).toEqual([]);
    for (const kind of K8S_KINDS.filter((k) => k !== 'pdbs')) expect(got.provided.has(kind), kind).toBe(true);
    expect(got.pods).toHaveLength(8);
  });

  it('starts a list over once when its continue token has expired (410 Expired)', async () => {
    const fixture = kubeFixture();
    const s = await serve(fixture, {
      maxPageSize: 3,
      faults: [{ match: 'pods', status: 410, onContinue: true, times: 1 }],
    });
    const got = await gather(s);
    expect(sortedByName(got.pods)).toEqual(sortedByName(fixture.pods));
    expect(got.gaps).toEqual([]);
    // first page, expired second page, then a fresh first page and its two continuations
    expect(pathsOf(s, '/api/v1/pods').map((r) => (r.query.continue ? 'next' : 'first'))).toEqual([
      'first',
      'next',
      'first',
      'next',
      'next',
    ]);
  });

  it('reports an error gap when the continue token expires again after the restart', async () => {
    const s = await serve(kubeFixture(), {
      maxPageSize: 2,
      faults: [{ match: 'events', status: 410, onContinue: true }],
    });
    const got = await gather(s);
    expect(got.gaps).toEqual([
      expect.objectContaining({
        resource: 'events',
        reason: 'error',
        detail: expect.stringMatching(
          /^error: list events \(cluster scope\): HTTP 410 Expired: The provided continue parameter is too old/,
        ),
      }),
    ]);
    expect(got.provided.has('events')).toBe(false);
    expect(pathsOf(s, '/api/v1/events')).toHaveLength(4);
  });

  it('retries a 429 Too Many Requests that carries Retry-After', async () => {
    const s = await serve(kubeFixture(), {
      faults: [{ match: 'nodes', status: 429, times: 2, retryAfterSeconds: 0 }],
    });
    const got = await gather(s);
    expect(got.nodes).toHaveLength(3);
    expect(pathsOf(s, '/api/v1/nodes')).toHaveLength(3);
  });

  it('turns a 500 on one resource type into an error gap with the server message', async () => {
    const s = await serve(kubeFixture(), { faults: [{ match: 'jobs', status: 500 }] });
    const got = await gather(s);
    expect(got.gaps).toEqual([
      {
        resource: 'jobs.batch',
        scope: 'cluster scope',
        reason: 'error',
        detail:
          'error: list jobs.batch (cluster scope): HTTP 500 InternalError: Internal error occurred: etcdserver: request timed out',
      },
    ]);
    expect(got.provided.has('jobs')).toBe(false);
  });

  it('raises an EnvironmentError with a fix hint when the server rejects the token (401)', async () => {
    const s = await serve();
    const kubeconfig = s.writeKubeconfig('stale', { token: 'expired-token' });
    const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toContain(
      `the Kubernetes API server ${s.url} rejected the credentials of context "casdoctor-test" (401 Unauthorized)`,
    );
    expect(err.hint).toContain('kubectl get --raw /version --context casdoctor-test');
  });

  it('suggests aws sso login for the profile an aws eks get-token user runs with', async () => {
    const s = await serve();
    const bin = join(s.dir, 'bin');
    mkdirSync(bin);
    const aws = join(bin, 'aws');
    // a stand-in for `aws eks get-token` that hands out a token the server rejects
    writeFileSync(
      aws,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"k8s-aws-v1.expired"}}'\n`,
    );
    chmodSync(aws, 0o755);
    const kubeconfig = s.writeKubeconfig('eks', {
      user: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: aws,
          args: [
            '--region',
            'us-east-1',
            'eks',
            'get-token',
            '--cluster-name',
            'demo',
            '--output',
            'json',
            '--profile',
            'platform',
          ],
          interactiveMode: 'Never',
        },
      },
    });
    const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.hint).toMatch(/^aws sso login --profile platform/);
  });

  it('raises an EnvironmentError naming the server URL when pods do not arrive in time', async () => {
    const s = await serve(kubeFixture(), { delays: { pods: 2_000 } });
    const t0 = Date.now();
    const err = await gather(s, { requestTimeoutMs: 150 }).catch((e) => e);
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toBe(`listing pods: timed out after 150ms waiting for ${s.url} (GET /api/v1/pods)`);
    expect(err.hint).toContain('kubectl cluster-info --context casdoctor-test');
  });

  it('turns a slow events list into a timeout gap naming the server and gathers the rest', async () => {
    const s = await serve(kubeFixture(), { delays: { events: 2_000 } });
    const got = await gather(s, { requestTimeoutMs: 300 });
    expect(got.gaps).toEqual([
      {
        resource: 'events',
        scope: 'cluster scope',
        reason: 'timeout',
        detail: `timeout: list events (cluster scope): timed out after 300ms waiting for ${s.url} (GET /api/v1/events)`,
      },
    ]);
    expect(got.pods).toHaveLength(8);
  });

  it('raises an EnvironmentError with a kubectl cluster-info hint when the server is unreachable', async () => {
    const s = await serve();
    const kubeconfig = s.writeKubeconfig('gone', { server: 'https://127.0.0.1:1' });
    const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toMatch(
      /^cannot reach the Kubernetes API server https:\/\/127\.0\.0\.1:1 \(context "casdoctor-test"\): .*ECONNREFUSED/,
    );
    expect(err.hint).toBe('kubectl cluster-info --context casdoctor-test');
  });

  it('refuses a server certificate the kubeconfig does not trust', async () => {
    const s = await serve();
    const kubeconfig = s.writeKubeconfig('no-ca', { withoutCa: true });
    const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toMatch(/certificate/);
    expect(s.requests).toEqual([]);
  });

  it('raises an EnvironmentError pointing at kubectl config get-contexts when there is no current context', async () => {
    const s = await serve();
    const kubeconfig = s.writeKubeconfig('no-current', { currentContext: null });
    const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toBe(`kubeconfig ${kubeconfig} has no current context`);
    expect(err.hint).toContain('kubectl config get-contexts');
  });

  it('names the contexts that exist when --context names another', async () => {
    const s = await serve();
    const err = await gather(s, { context: 'prod' }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toBe(
      `context "prod" is not in kubeconfig ${s.kubeconfigPath} (contexts: casdoctor-test)`,
    );
    expect(err.hint).toBe('kubectl config get-contexts');
  });

  it('names a malformed kubeconfig file', async () => {
    const s = await serve();
    const bad = join(s.dir, 'broken');
    writeFileSync(bad, 'clusters:\n- name: x\n  cluster: {}\n');
    const err = await gatherKubernetes({ kubeconfig: bad, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toBe(`kubeconfig ${bad} is not valid: clusters[0].cluster.server is missing`);
  });

  it('merges a KUBECONFIG list like kubectl: the first current-context and the first entry of a name win', async () => {
    const s = await serve();
    const first = s.writeKubeconfig('first', { contextName: 'first' });
    // same cluster and user names (client-node alone would throw "Duplicate user"), a token the server rejects
    const second = s.writeKubeconfig('second', { contextName: 'second', token: 'wrong' });
    vi.stubEnv('KUBECONFIG', `${join(s.dir, 'missing')}:${first}:${second}`);
    const got = await gatherKubernetes({ requestTimeoutMs: 5_000 });
    expect(got.sources).toEqual(['live: first']);
    expect(got.pods).toHaveLength(8);
    // --context picks the second file's context, which still uses the first file's user
    const viaSecond = await gatherKubernetes({ context: 'second', requestTimeoutMs: 5_000 });
    expect(viaSecond.sources).toEqual(['live: second']);
  });

  it('lists events and PVCs in the given namespace only, and pods cluster-wide', async () => {
    const s = await serve();
    const got = await gather(s, { namespace: 'payments' });
    expect(pathsOf(s, '/api/v1/namespaces/payments/events')).toHaveLength(1);
    expect(pathsOf(s, '/api/v1/namespaces/payments/persistentvolumeclaims')).toHaveLength(1);
    expect(pathsOf(s, '/api/v1/pods')).toHaveLength(1);
    expect(new Set(got.events.map((e) => e.metadata.namespace))).toEqual(new Set(['payments']));
    expect(new Set(got.pods.map((p) => p.metadata.namespace))).toEqual(
      new Set(['batch', 'kube-system', 'payments']),
    );
  });

  it('falls back to the namespace pods under namespace-only RBAC and keeps the cluster-scope gap', async () => {
    const s = await serve(kubeFixture(), { faults: [{ match: '/api/v1/pods', status: 403 }] });
    const got = await gather(s, { namespace: 'payments' });
    expect(got.pods.map((p) => p.metadata.name).sort()).toEqual([
      'api-7f9c8d6b5-q8r2m',
      'api-7f9c8d6b5-x2x7q',
      'ledger-0',
    ]);
    expect(got.gaps).toEqual([
      {
        resource: 'pods',
        scope: 'cluster scope',
        reason: 'forbidden',
        detail:
          'forbidden: list pods (cluster scope): pods is forbidden: User "system:serviceaccount:casdoctor:reader" cannot list resource "pods" in API group "" at the cluster scope',
      },
      // CA runs in kube-system, outside what this user may list: its record is missing, and says so
      {
        resource: 'pods/log',
        scope: 'namespace kube-system',
        reason: 'not-found',
        detail:
          "not found: no pod of Deployment kube-system/cluster-autoscaler among the listed pods, so CA's log was not read",
      },
    ]);
  });

  it('gets kube-system/cluster-autoscaler-status by name when ConfigMaps cannot be listed cluster-wide', async () => {
    const s = await serve(kubeFixture(), { faults: [{ match: '/api/v1/configmaps', status: 403 }] });
    const got = await gather(s);
    expect(got.configMaps.map((c) => c.metadata.name)).toEqual(['cluster-autoscaler-status']);
    expect(got.configMaps[0].kind).toBe('ConfigMap');
    expect(got.provided.has('configMaps')).toBe(true);
    expect(pathsOf(s, '/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status')).toHaveLength(1);
    // the one ConfigMap casdoctor reads was read: nothing is missing, so no check is skipped for it
    expect(got.gaps).toEqual([]);
  });

  it('works over plain HTTP when the kubeconfig says insecure-skip-tls-verify', async () => {
    const s = await serve(kubeFixture(), { tls: false });
    const got = await gather(s);
    expect(s.url).toMatch(/^http:\/\//);
    expect(got.nodes).toHaveLength(3);
  });

  it('decodes gzip-encoded list responses', async () => {
    const fixture = kubeFixture();
    const s = await serve(fixture, { gzipThreshold: 1 });
    const got = await gather(s);
    expect(sortedByName(got.pods)).toEqual(sortedByName(fixture.pods));
  });
});

describe('the loopback API server', () => {
  const get = (s: KubeApiServer, path: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      https
        .get(
          `${s.url}${path}`,
          { ca: testTls().caCert, headers: { Authorization: 'Bearer casdoctor-test-token' } },
          (res) => {
            let body = '';
            res.on('data', (c) => {
              body += c;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
          },
        )
        .on('error', reject);
    });

  it('filters lists by label selector and by event field selectors', async () => {
    const s = await serve();
    const api = await get(
      s,
      `/api/v1/namespaces/payments/pods?labelSelector=${encodeURIComponent('app in (api,web),app!=ledger')}`,
    );
    expect(api.body.kind).toBe('PodList');
    expect(api.body.items.map((p: KubeObject) => p.metadata.name)).toEqual([
      'api-7f9c8d6b5-q8r2m',
      'api-7f9c8d6b5-x2x7q',
    ]);
    expect(api.body.items[0].kind).toBeUndefined(); // like the real server: items carry no kind
    const ev = await get(
      s,
      `/api/v1/events?fieldSelector=${encodeURIComponent('involvedObject.name=api-7f9c8d6b5-x2x7q,reason=NotTriggerScaleUp')}`,
    );
    expect(ev.body.items).toHaveLength(1);
    const bad = await get(s, '/api/v1/pods?fieldSelector=spec.containers=x');
    expect(bad).toEqual({
      status: 400,
      body: expect.objectContaining({
        kind: 'Status',
        reason: 'BadRequest',
        message: 'field label not supported: spec.containers',
      }),
    });
  });

  it('serves new data after setData, under a new resourceVersion', async () => {
    const s = await serve();
    const before = await get(s, '/api/v1/nodes');
    s.setData({ nodes: kubeFixture().nodes!.slice(0, 1) });
    const after = await get(s, '/api/v1/nodes');
    expect([before.body.items.length, after.body.items.length]).toEqual([3, 1]);
    expect(Number(after.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(before.body.metadata.resourceVersion),
    );
  });

  it('answers 403 with the real Forbidden message and details', async () => {
    const s = await serve(kubeFixture(), { faults: [{ match: 'poddisruptionbudgets', status: 403 }] });
    const res = await get(s, '/apis/policy/v1/namespaces/payments/poddisruptionbudgets');
    expect(res).toEqual({
      status: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'poddisruptionbudgets.policy is forbidden: User "system:serviceaccount:casdoctor:reader" cannot list resource "poddisruptionbudgets" in API group "policy" in the namespace "payments"',
        reason: 'Forbidden',
        details: { group: 'policy', kind: 'poddisruptionbudgets' },
        code: 403,
      },
    });
  });

  const hasKubectl = existsSync('/usr/bin/kubectl');
  const kubectlTest =
    'serves kubectl: `kubectl get pods,nodes -A -o json` returns exactly the objects it holds';
  it.skipIf(!hasKubectl)(
    hasKubectl ? kubectlTest : `${kubectlTest} (skipped: /usr/bin/kubectl is not installed)`,
    async () => {
      const fixture = kubeFixture();
      const s = await serve(fixture, { maxPageSize: 3 });
      const { stdout } = await promisify(execFile)(
        '/usr/bin/kubectl',
        [
          '--kubeconfig',
          s.kubeconfigPath,
          '--cache-dir',
          join(s.dir, 'cache'),
          'get',
          'pods,nodes',
          '-A',
          '-o',
          'json',
        ],
        { timeout: 20_000 },
      );
      const list = JSON.parse(stdout) as { kind: string; items: KubeObject[] };
      expect(list.kind).toBe('List');
      expect(sortedByName(list.items.filter((i) => i.kind === 'Pod'))).toEqual(sortedByName(fixture.pods));
      expect(sortedByName(list.items.filter((i) => i.kind === 'Node'))).toEqual(sortedByName(fixture.nodes));
      expect(pathsOf(s, '/api/v1/pods').length).toBe(3); // kubectl followed `continue` too
    },
  );
});
