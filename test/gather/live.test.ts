import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnvironmentError } from '../../src/gather/errors.js';
import { gatherLive, type LiveOptions } from '../../src/gather/live.js';
import type { KubeObject } from '../../src/model/k8s.js';
import { DATA_KINDS, type RawInputs } from '../../src/model/snapshot.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import {
  awsFixture,
  kubeFixture,
  mutatingAwsRequests,
  mutatingKubeRequests,
  sortedByName,
} from './live-fixtures.js';

const K8S_KINDS = DATA_KINDS.slice(0, DATA_KINDS.indexOf('autoScalingGroups'));
const running: Array<KubeApiServer | AwsServer> = [];
const kubes: KubeApiServer[] = [];
const awss: AwsServer[] = [];

async function start(
  k: { data?: Partial<RawInputs>; opts?: KubeServerOptions } = {},
  a: { data?: Partial<RawInputs>; opts?: AwsServerOptions } = {},
) {
  const kube = await startKubeApiServer(k.data ?? kubeFixture(), k.opts);
  const aws = await startAwsServer(a.data ?? awsFixture(), a.opts);
  kubes.push(kube);
  awss.push(aws);
  running.push(kube, aws);
  const options = (extra: Partial<LiveOptions> = {}): LiveOptions => ({
    kubeconfig: kube.kubeconfigPath,
    region: 'us-east-1',
    requestTimeoutMs: 5_000,
    awsEndpoint: aws.endpoint,
    awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
    awsRetryDelayMs: 0,
    ...extra,
  });
  return { kube, aws, options };
}

afterEach(async () => {
  vi.unstubAllEnvs();
  // Read-only proof over every request of every test: GET only on Kubernetes, Describe/List/Get/Simulate only on AWS.
  for (const k of kubes.splice(0)) expect(mutatingKubeRequests(k.requests)).toEqual([]);
  for (const a of awss.splice(0)) expect(mutatingAwsRequests(a.requests)).toEqual([]);
  for (const s of running.splice(0)) await s.close();
});

/** No AWS region from the environment or a profile file, so only the nodes can tell. */
function withoutAwsRegionSettings() {
  vi.stubEnv('AWS_REGION', undefined);
  vi.stubEnv('AWS_DEFAULT_REGION', undefined);
  vi.stubEnv('AWS_PROFILE', undefined);
  vi.stubEnv('AWS_CONFIG_FILE', join('/nonexistent', 'casdoctor', 'config'));
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join('/nonexistent', 'casdoctor', 'credentials'));
}

describe('gatherLive', () => {
  it('gathers the cluster and AWS into one snapshot with every kind, both sources and no gaps', async () => {
    const kf = kubeFixture();
    const af = awsFixture();
    const { kube, aws, options } = await start(
      { data: kf, opts: { maxPageSize: 2 } },
      { data: af, opts: { pageSize: 2 } },
    );
    const got = await gatherLive(options());

    for (const kind of K8S_KINDS.filter((k) => k !== 'configMaps')) {
      expect(sortedByName(got[kind] as KubeObject[]), kind).toEqual(sortedByName(kf[kind] as KubeObject[]));
    }
    expect(got.configMaps.map((c) => c.metadata.name)).toEqual(['cluster-autoscaler-status']);
    expect(got.autoScalingGroups).toEqual(af.autoScalingGroups);
    expect(got.eksNodegroups).toEqual(af.eksNodegroups);
    expect(got.launchTemplateVersions.map((v) => `${v.LaunchTemplateId}:${v.VersionNumber}`)).toEqual([
      'lt-0a1b2c3d4e5f60001:1',
      'lt-0a1b2c3d4e5f60001:2',
      'lt-0a1b2c3d4e5f60002:4',
      'lt-0a1b2c3d4e5f60002:5',
      'lt-0a1b2c3d4e5f60003:1',
    ]);
    expect(
      got.launchTemplateVersions.some((v) => v.LaunchTemplateData && 'UserData' in v.LaunchTemplateData),
    ).toBe(false);
    // offerings are read only for Karpenter's zones, and this cluster runs no Karpenter
    expect([...got.provided].sort()).toEqual(
      DATA_KINDS.filter((k) => k !== 'iamEvaluationResults' && k !== 'instanceTypeOfferings').sort(),
    );
    expect(got.gaps).toEqual([]);
    expect(got.warnings).toEqual([]);
    expect(got.sources).toEqual(['live: casdoctor-test', 'live: aws us-east-1']);
    expect(kube.requests.length).toBeGreaterThan(15);
    expect(aws.requests.length).toBeGreaterThan(10);
  });

  it("takes the AWS region from the nodes' topology.kubernetes.io/region label when none is given, and says so", async () => {
    withoutAwsRegionSettings();
    const { aws, options } = await start();
    const got = await gatherLive(options({ region: undefined }));
    expect(got.warnings).toEqual([
      'AWS region us-east-1 taken from the nodes (no --region, AWS_REGION or profile region)',
    ]);
    expect(got.sources).toContain('live: aws us-east-1');
    expect(new Set(aws.requests.map((r) => r.region))).toEqual(new Set(['us-east-1']));
  });

  it('reports AWS as a gap naming --region when no region is given, configured or visible on the nodes', async () => {
    withoutAwsRegionSettings();
    const kf = kubeFixture();
    kf.nodes = kf.nodes!.map((n) => ({
      ...n,
      metadata: { ...n.metadata, labels: { 'kubernetes.io/hostname': n.metadata.name ?? '' } },
      spec: {},
    }));
    const { aws, options } = await start({ data: kf });
    // Kubernetes is readable: a partial report, not an environment error (issue 15)
    const got = await gatherLive(options({ region: undefined }));
    expect(got.gaps.map((g) => g.detail)).toEqual([
      'AWS not read: no AWS region: none given, none in AWS_REGION / AWS_DEFAULT_REGION or the profile, and no node carries topology.kubernetes.io/region; pass --region <region> (or aws configure set region <region>)',
    ]);
    expect(got.pods).toHaveLength(8);
    expect(aws.requests).toEqual([]);
  });

  it('leaves AWS alone when asked to skip it', async () => {
    const { aws, options } = await start();
    const got = await gatherLive(options({ skipAws: true }));
    expect(aws.requests).toEqual([]);
    expect([...got.provided].sort()).toEqual([...K8S_KINDS].sort());
    expect(got.autoScalingGroups).toEqual([]);
  });

  it('keeps going with gaps from both sides: a 403 on PDBs and AccessDenied on DescribeScalingActivities', async () => {
    const { options } = await start(
      { opts: { faults: [{ match: 'poddisruptionbudgets', status: 403 }] } },
      { opts: { faults: [{ action: 'DescribeScalingActivities', code: 'AccessDenied' }] } },
    );
    const got = await gatherLive(options());
    expect(got.gaps.map((g) => g.detail.replace(/\): .*/, ')'))).toEqual([
      'forbidden: list poddisruptionbudgets.policy (cluster scope)',
      'forbidden: autoscaling:DescribeScalingActivities (region us-east-1)',
    ]);
    expect(got.provided.has('pdbs')).toBe(false);
    expect(got.provided.has('scalingActivities')).toBe(false);
    expect(got.pods).toHaveLength(8);
    expect(got.autoScalingGroups).toHaveLength(4);
  });

  it('fails with the Kubernetes EnvironmentError while AWS is still being gathered', async () => {
    const { kube, options } = await start({}, { opts: { delays: { '*': 100 } } });
    const err = await gatherLive(
      options({ kubeconfig: kube.writeKubeconfig('stale', { token: 'revoked' }) }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toContain('401');
  });

  it('keeps the Kubernetes half and reports AWS as an unauthorized gap with the fix when the AWS session has expired', async () => {
    const { options } = await start({}, { opts: { faults: [{ action: '*', code: 'ExpiredToken' }] } });
    const got = await gatherLive(options({ profile: 'platform' }));
    expect(got.gaps).toEqual([
      {
        resource: 'autoscaling:DescribeAutoScalingGroups',
        scope: 'region us-east-1',
        reason: 'unauthorized',
        detail:
          'unauthorized: AWS (region us-east-1) not read: the AWS session has expired (autoscaling:DescribeAutoScalingGroups: ExpiredToken: The security token included in the request is expired); aws sso login --profile platform (or refresh the session credentials)',
      },
    ]);
    expect(got.pods).toHaveLength(8);
    expect(got.provided.has('autoScalingGroups')).toBe(false);
  });

  it('reports progress for both sides', async () => {
    const { options } = await start();
    const lines: string[] = [];
    await gatherLive(options({ onProgress: (m) => lines.push(m) }));
    expect(lines).toContain('kubernetes: listing pods…');
    expect(lines).toContain('kubernetes: listed 8 pods');
    expect(lines).toContain('aws: describing auto scaling groups in us-east-1…');
    expect(lines).toContain('aws: 4 auto scaling groups');
  });

  it('loads @kubernetes/client-node and the AWS SDK only inside functions, so --help stays light', () => {
    for (const file of ['gather/live.ts', 'gather/live-kubernetes.ts', 'providers/aws/gather.ts', 'providers/aws/gather-client.ts', 'gather/errors.ts']) {
      const src = readFileSync(join(import.meta.dirname, '../../src', file), 'utf8');
      expect(src, file).not.toMatch(/^import (?!type )[^;]*from '(@kubernetes\/|@aws-sdk\/|@smithy\/)/m);
    }
  });
});

describe('gatherLive and CA’s record', () => {
  it('reads CA’s log over the --ca-log-since window and keeps the texts after merging with AWS', async () => {
    const { kube, options } = await start();
    const got = await gatherLive(options({ caLogSince: '45m' }));
    const logs = kube.requests.filter((r) => r.path.endsWith('/log'));
    expect(logs.map((r) => r.query.sinceSeconds)).toEqual(['2700', '2700']);
    expect(got.caLogTexts?.map((l) => [l.pod, l.previous, l.sinceSeconds])).toEqual([
      ['cluster-autoscaler-6d9f7c8b5-h2x4k', false, 2700],
    ]);
    expect(got.caProxyTexts?.map((p) => p.path)).toEqual(['/metrics']);
  });

  it('refuses a --ca-log-since that is not a duration before sending anything', async () => {
    const { kube, aws, options } = await start();
    await expect(gatherLive(options({ caLogSince: 'an hour' }))).rejects.toThrow(
      '--ca-log-since "an hour": use a duration of at least 1s, such as 30m, 1h or 6h',
    );
    expect(kube.requests).toEqual([]);
    expect(aws.requests).toEqual([]);
  });
});
