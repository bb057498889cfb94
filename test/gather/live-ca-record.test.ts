// CA's own record read live (issue 12, items 1 and 4): the CA pod's log, current and previous container, and CA's
// /metrics and /snapshotz through the API server's pod proxy. Read-only GETs, bounded in bytes and time; forbidden or
// unreachable pieces are gaps, never fatal.
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/model/errors.js';
import { caAddressPort, parseCaLogSince } from '../../src/gather/live-ca-record.js';
import { gatherKubernetes, type KubeGatherOptions } from '../../src/gather/live-kubernetes.js';
import type { Deployment, Pod } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { DEFAULT_CA_METRICS, type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { kubeFixture, mutatingKubeRequests } from './live-fixtures.js';

const NS = 'kube-system';
const servers: KubeApiServer[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    expect(mutatingKubeRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

/** CA as the Helm chart deploys it: container aws-cluster-autoscaler, chart labels, flags in `command`. */
function caDeployment(flags: string[] = []): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'cluster-autoscaler-aws-cluster-autoscaler', namespace: NS, uid: 'b6f1c2d3-1111-4a2b-9c3d-4e5f6a7b8c9d' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { 'app.kubernetes.io/instance': 'cluster-autoscaler', 'app.kubernetes.io/name': 'aws-cluster-autoscaler' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/instance': 'cluster-autoscaler', 'app.kubernetes.io/name': 'aws-cluster-autoscaler' } },
        spec: {
          containers: [
            {
              name: 'aws-cluster-autoscaler',
              image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
              command: ['./cluster-autoscaler', '--cloud-provider=aws', '--namespace=kube-system', '--v=4', ...flags],
            },
          ],
        },
      },
    },
  };
}

function caPod(name: string, phase: 'Running' | 'Pending', ready: boolean, extraContainers: string[] = []): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      uid: `c0ffee00-${name.slice(-5)}-4a2b-9c3d-4e5f6a7b8c9d`,
      labels: {
        'app.kubernetes.io/instance': 'cluster-autoscaler',
        'app.kubernetes.io/name': 'aws-cluster-autoscaler',
        'pod-template-hash': '7d9f8c6b5',
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cluster-autoscaler-aws-cluster-autoscaler-7d9f8c6b5', controller: true }],
    },
    spec: {
      containers: [
        ...extraContainers.map((c) => ({ name: c, image: `public.ecr.aws/${c}:1.0` })),
        {
          name: 'aws-cluster-autoscaler',
          image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
          command: ['./cluster-autoscaler', '--cloud-provider=aws'],
        },
      ],
      nodeName: 'ip-10-0-1-23.ec2.internal',
    },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      podIP: '10.0.1.57',
    },
  };
}

function cluster(deployment = caDeployment(), pods: Pod[] = [caPod('cluster-autoscaler-aws-cluster-autoscaler-7d9f8c6b5-x7k2p', 'Running', true)]) {
  const base = kubeFixture();
  return {
    ...base,
    deployments: [...(base.deployments ?? []).filter((d) => !d.metadata.name?.startsWith('cluster-autoscaler')), deployment],
    pods: [...(base.pods ?? []).filter((p) => !p.metadata.name?.startsWith('cluster-autoscaler')), ...pods],
  } satisfies Partial<RawInputs>;
}

async function serve(data: Partial<RawInputs>, opts: KubeServerOptions = {}) {
  const s = await startKubeApiServer(data, opts);
  servers.push(s);
  return s;
}

const gather = (s: KubeApiServer, extra: Partial<KubeGatherOptions> = {}) =>
  gatherKubernetes({ kubeconfig: s.kubeconfigPath, requestTimeoutMs: 5_000, ...extra });

const POD = 'cluster-autoscaler-aws-cluster-autoscaler-7d9f8c6b5-x7k2p';
const POD_PATH = `/api/v1/namespaces/${NS}/pods/${POD}`;
const LOG_LINES = [
  'I1121 09:58:01.102934       1 static_autoscaler.go:290] Starting main loop',
  'I1121 09:58:01.203411       1 filter_out_schedulable.go:66] Filtering out schedulables',
  'I1121 09:58:01.311027       1 orchestrator.go:561] Pod payments/api-7f9c8d6b5-q8r2m can\'t be scheduled on eks-ng-spot-2ac5, predicate checking error: node(s) had untolerated taint {spot: true}; predicateName=TaintToleration; reasons: node(s) had untolerated taint {spot: true}; debugInfo=taints on node: []v1.Taint{v1.Taint{Key:"spot", Value:"true", Effect:"NoSchedule", TimeAdded:<nil>}}',
  '',
].join('\n');
const PREVIOUS_LINES = [
  'I1121 09:41:12.000117       1 main.go:633] Cluster Autoscaler 1.32.1',
  'F1121 09:41:15.502311       1 aws_cloud_provider.go:432] Failed to create AWS Manager: cannot autodiscover ASGs: AccessDenied: User: arn:aws:sts::111122223333:assumed-role/ca/x is not authorized to perform: autoscaling:DescribeAutoScalingGroups',
  '',
].join('\n');

describe('CA’s log (GET pods/log)', () => {
  it('reads the current and the previous container of the Running CA pod, within --ca-log-since and the byte cap', async () => {
    const s = await serve(cluster(), {
      podLogs: {
        [`${NS}/${POD}/aws-cluster-autoscaler`]: LOG_LINES,
        [`${NS}/${POD}/aws-cluster-autoscaler/previous`]: PREVIOUS_LINES,
      },
    });
    const got = await gather(s, { caLogSinceSeconds: 1800 });
    expect(got.caLogTexts).toEqual([
      { namespace: NS, pod: POD, container: 'aws-cluster-autoscaler', previous: true, sinceSeconds: 1800, text: PREVIOUS_LINES, truncated: false },
      { namespace: NS, pod: POD, container: 'aws-cluster-autoscaler', previous: false, sinceSeconds: 1800, text: LOG_LINES, truncated: false },
    ]);
    const logs = s.requests.filter((r) => r.path === `${POD_PATH}/log`);
    expect(logs.map((r) => r.query)).toEqual([
      { container: 'aws-cluster-autoscaler', sinceSeconds: '1800', limitBytes: String(32 * 1024 * 1024) },
      { container: 'aws-cluster-autoscaler', sinceSeconds: '1800', limitBytes: String(32 * 1024 * 1024), previous: 'true' },
    ]);
    expect(got.gaps).toEqual([]);
  });

  it('takes a 400 for `previous` as a container that never restarted: no previous text and no gap', async () => {
    const s = await serve(cluster(), { podLogs: { [`${NS}/${POD}/aws-cluster-autoscaler`]: LOG_LINES } });
    const got = await gather(s);
    expect(got.caLogTexts?.map((l) => [l.previous, l.sinceSeconds])).toEqual([[false, 3600]]);
    expect(got.gaps).toEqual([]);
  });

  it('cuts a log larger than the cap at the last whole line and marks it truncated', async () => {
    const line = 'I1121 09:58:01.311027       1 klogx.go:87] Pod default/web-0 is unschedulable\n';
    const s = await serve(cluster(), { podLogs: { [`${NS}/${POD}/aws-cluster-autoscaler`]: line.repeat(1000) } });
    const got = await gather(s, { limits: { caLogBytes: 4096 } });
    const [current] = got.caLogTexts ?? [];
    expect(current.truncated).toBe(true);
    expect(current.text.length).toBeLessThanOrEqual(4096);
    expect(current.text.endsWith('\n')).toBe(true);
    expect(current.text).toBe(line.repeat(Math.floor(4096 / line.length)));
    expect(s.requests.find((r) => r.path === `${POD_PATH}/log`)?.query.limitBytes).toBe('4096');
  });

  it('caps the log itself when the server ignores limitBytes (a stream that never ends)', async () => {
    const s = await serve(cluster(), { hostile: [{ match: 'pods/log', mode: 'endless-body' }] });
    const t0 = Date.now();
    const got = await gather(s, { limits: { caLogBytes: 256 * 1024 } });
    expect(Date.now() - t0).toBeLessThan(3_000);
    const [current] = got.caLogTexts ?? [];
    expect(current.truncated).toBe(true);
    expect(Buffer.byteLength(current.text)).toBeLessThanOrEqual(256 * 1024);
  }, 10_000);

  it('turns a 403 on pods/log into one gap with the server’s reason and does not ask for the previous log', async () => {
    const s = await serve(cluster(), { faults: [{ match: 'pods/log', status: 403 }] });
    const got = await gather(s);
    expect(got.caLogTexts).toEqual([]);
    expect(got.gaps).toEqual([
      {
        resource: 'pods/log',
        scope: 'namespace kube-system',
        reason: 'forbidden',
        detail: `forbidden: get pods/log ${NS}/${POD} container aws-cluster-autoscaler: HTTP 403 Forbidden: pods "${POD}" is forbidden: User "system:serviceaccount:casdoctor:reader" cannot get resource "pods/log" in API group "" in the namespace "kube-system"`,
      },
    ]);
    expect(s.requests.filter((r) => r.path === `${POD_PATH}/log`)).toHaveLength(1);
  });

  it('prefers the Running, Ready pod and picks the CA container among sidecars', async () => {
    const pending = caPod('cluster-autoscaler-aws-cluster-autoscaler-7d9f8c6b5-a1b2c', 'Pending', false, ['istio-proxy']);
    const running = caPod(POD, 'Running', true, ['istio-proxy']);
    const s = await serve(cluster(caDeployment(), [pending, running]));
    const got = await gather(s);
    expect(got.caLogTexts?.map((l) => `${l.pod}/${l.container}`)).toEqual([`${POD}/aws-cluster-autoscaler`]);
  });

  it('says when no pod of the CA Deployment was listed, and reads nothing', async () => {
    const s = await serve(cluster(caDeployment(), []));
    const got = await gather(s);
    expect(got.caLogTexts).toEqual([]);
    expect(got.gaps).toEqual([
      {
        resource: 'pods/log',
        scope: 'namespace kube-system',
        reason: 'not-found',
        detail: "not found: no pod of Deployment kube-system/cluster-autoscaler-aws-cluster-autoscaler among the listed pods, so CA's log was not read",
      },
    ]);
    expect(s.requests.filter((r) => r.path.includes('/pods/'))).toEqual([]);
  });

  it('reads nothing of the kind when asked not to', async () => {
    const s = await serve(cluster());
    const got = await gather(s, { readCaRecord: false });
    expect(got.caLogTexts).toBeUndefined();
    expect(s.requests.filter((r) => r.path.includes('/pods/'))).toEqual([]);
  });
});

describe('CA’s /metrics and /snapshotz (GET pods/proxy)', () => {
  it('reads /metrics on the --address port, and /snapshotz only with --debugging-snapshot-enabled', async () => {
    const snapshot = JSON.stringify({ NodeList: [], UnscheduledPodsCanBeScheduled: [], TemplateNodes: {}, Error: '', StartTimestamp: '2026-11-21T09:58:01Z', EndTimestamp: '2026-11-21T09:58:02Z' });
    const s = await serve(cluster(caDeployment(['--address=:9090', '--debugging-snapshot-enabled=true'])), {
      podProxy: {
        [`${NS}/${POD}:9090/metrics`]: DEFAULT_CA_METRICS,
        [`${NS}/${POD}:9090/snapshotz`]: snapshot,
      },
    });
    const got = await gather(s);
    expect(got.caProxyTexts).toEqual([
      { namespace: NS, pod: POD, port: 9090, path: '/metrics', text: DEFAULT_CA_METRICS, truncated: false },
      { namespace: NS, pod: POD, port: 9090, path: '/snapshotz', text: snapshot, truncated: false },
    ]);
    expect(got.gaps).toEqual([]);

    const plain = await serve(cluster());
    const without = await gather(plain);
    expect(without.caProxyTexts?.map((p) => `${p.port}${p.path}`)).toEqual(['8085/metrics']);
    expect(plain.requests.filter((r) => r.path.includes('/proxy/')).map((r) => r.path)).toEqual([`${POD_PATH}:8085/proxy/metrics`]);
  });

  it('bounds a /snapshotz that waits for CA’s next loop by the request timeout: a timeout gap, the rest gathered', async () => {
    const s = await serve(cluster(caDeployment(['--debugging-snapshot-enabled'])), {
      podProxy: { [`${NS}/${POD}:8085/snapshotz`]: { status: 200, body: '{}', delayMs: 5_000 } },
    });
    const t0 = Date.now();
    const got = await gather(s, { requestTimeoutMs: 400 });
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(got.caProxyTexts?.map((p) => p.path)).toEqual(['/metrics']);
    expect(got.gaps).toEqual([
      {
        resource: 'pods/proxy',
        scope: 'namespace kube-system',
        reason: 'timeout',
        detail: `timeout: get pods/proxy ${NS}/${POD}:8085/snapshotz: timed out after 400ms waiting for ${s.url} (GET ${POD_PATH}:8085/proxy/snapshotz)`,
      },
    ]);
  }, 10_000);

  it('turns an unreachable CA port (503 from the proxy) and a forbidden pods/proxy into gaps, never fatal', async () => {
    const unreachable = await serve(cluster(), {
      podProxy: { [`${NS}/${POD}:8085/metrics`]: { status: 503, body: 'error trying to reach service: dial tcp 10.0.1.57:8085: connect: connection refused' } },
    });
    const a = await gather(unreachable);
    expect(a.gaps.map((g) => [g.resource, g.reason, g.detail])).toEqual([
      [
        'pods/proxy',
        'error',
        `error: get pods/proxy ${NS}/${POD}:8085/metrics: HTTP 503: error trying to reach service: dial tcp 10.0.1.57:8085: connect: connection refused`,
      ],
    ]);
    expect(a.caLogTexts).toHaveLength(1);

    const forbidden = await serve(cluster(caDeployment(['--debugging-snapshot-enabled'])), { faults: [{ match: 'pods/proxy', status: 403 }] });
    const b = await gather(forbidden);
    expect(b.gaps.map((g) => [g.resource, g.reason])).toEqual([['pods/proxy', 'forbidden']]);
    // forbidden once is forbidden for /snapshotz too: one request, one gap
    expect(forbidden.requests.filter((r) => r.path.includes('/proxy/'))).toHaveLength(1);
  });

  it('truncates a /snapshotz larger than its cap and marks it', async () => {
    const big = JSON.stringify({ NodeList: Array.from({ length: 2000 }, (_, i) => ({ Node: { metadata: { name: `ip-10-0-${i}.ec2.internal` } } })) });
    const s = await serve(cluster(caDeployment(['--debugging-snapshot-enabled=true'])), {
      podProxy: { [`${NS}/${POD}:8085/snapshotz`]: big },
    });
    const got = await gather(s, { limits: { caSnapshotBytes: 10_000 } });
    const snap = got.caProxyTexts?.find((p) => p.path === '/snapshotz');
    expect(snap?.truncated).toBe(true);
    expect(snap?.text).toBe(big.slice(0, 10_000));
  });
});

describe('--ca-log-since and --address', () => {
  it('parses Go durations like kubectl --since, bare digits as seconds, and refuses the rest', () => {
    expect(parseCaLogSince('1h')).toBe(3600);
    expect(parseCaLogSince('30m')).toBe(1800);
    expect(parseCaLogSince('1h30m')).toBe(5400);
    expect(parseCaLogSince('90')).toBe(90);
    expect(parseCaLogSince('1.5s')).toBe(2);
    for (const bad of ['', 'yesterday', '-1h', '0s', '500ms'])
      expect(() => parseCaLogSince(bad), bad).toThrow(UsageError);
    expect(() => parseCaLogSince('soon')).toThrow('--ca-log-since "soon": use a duration of at least 1s, such as 30m, 1h or 6h');
  });

  it('takes the port of CA’s --address, 8085 by default', () => {
    expect(caAddressPort(':8085')).toBe(8085);
    expect(caAddressPort('0.0.0.0:9090')).toBe(9090);
    expect(caAddressPort('[::]:8086')).toBe(8086);
    expect(caAddressPort(undefined)).toBe(8085);
    expect(caAddressPort('localhost')).toBe(8085);
  });
});
