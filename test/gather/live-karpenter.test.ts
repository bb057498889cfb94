// Karpenter's resources read live, as a real API server serves them: NodePools and NodeClaims (karpenter.sh/v1) and
// EC2NodeClasses (karpenter.k8s.aws/v1), cluster-scoped LISTs. A cluster without Karpenter answers 404 (none exist:
// provided, no gap); a cluster still on v1beta1 is a gap saying which release converts it; a 403 is a gap naming the
// RBAC rule. With Karpenter present, EC2's instance-type offerings are read for its NodeClasses' zones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatherLive } from '../../src/gather/live.js';
import { gatherKubernetes } from '../../src/gather/live-kubernetes.js';
import type { Ec2InstanceTypeOffering } from '../../src/model/aws.js';
import type { KubeObject } from '../../src/model/k8s.js';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../src/model/karpenter.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { awsFixture, kubeFixture, mutatingAwsRequests, mutatingKubeRequests, sortedByName } from './live-fixtures.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'karpenter');
const list = <T>(file: string) => (JSON.parse(readFileSync(join(EXAMPLE, file), 'utf8')) as { items: T[] }).items;
const NODEPOOLS = list<NodePool>('nodepools.json');
const NODECLASSES = list<EC2NodeClass>('ec2nodeclasses.json');
const NODECLAIMS = list<NodeClaim>('nodeclaims.json');
const KARPENTER = { nodePools: NODEPOOLS, ec2NodeClasses: NODECLASSES, nodeClaims: NODECLAIMS };

/** us-east-1 offers these per zone; the NodeClasses' subnets are in us-east-1a and us-east-1b only. */
const OFFERINGS: Ec2InstanceTypeOffering[] = ['us-east-1a', 'us-east-1b', 'us-east-1c'].flatMap((zone) =>
  ['c6i.large', 'g5.xlarge', 'm6i.large', 'r6i.large'].map((t) => ({ InstanceType: t, LocationType: 'availability-zone', Location: zone })),
);
// EC2 answers region rows only for LocationType region: these must never be read
const REGION_ROWS: Ec2InstanceTypeOffering[] = [{ InstanceType: 'm6i.large', LocationType: 'region', Location: 'us-east-1' }];

const servers: Array<KubeApiServer | AwsServer> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('kubeconfigPath' in s) expect(mutatingKubeRequests(s.requests)).toEqual([]);
    else expect(mutatingAwsRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

async function gatherKube(data: Partial<RawInputs>, opts: KubeServerOptions = {}) {
  const s = await startKubeApiServer(data, opts);
  servers.push(s);
  const got = await gatherKubernetes({ kubeconfig: s.kubeconfigPath, requestTimeoutMs: 5_000, readCaRecord: false });
  return { s, got };
}

const karpenterPaths = (s: KubeApiServer) => s.requests.map((r) => r.path).filter((p) => p.includes('/apis/karpenter.')).sort();

describe('Karpenter’s resources, live', () => {
  it('lists NodePools, NodeClaims and EC2NodeClasses at v1, cluster-wide, and keeps them as the server holds them', async () => {
    const { s, got } = await gatherKube({ ...kubeFixture(), ...KARPENTER });
    expect(sortedByName(got.nodePools)).toEqual(sortedByName(NODEPOOLS));
    expect(sortedByName(got.ec2NodeClasses)).toEqual(sortedByName(NODECLASSES));
    expect(sortedByName(got.nodeClaims)).toEqual(sortedByName(NODECLAIMS));
    for (const k of ['nodePools', 'ec2NodeClasses', 'nodeClaims'] as const) expect(got.provided.has(k), k).toBe(true);
    expect(got.gaps).toEqual([]);
    expect(karpenterPaths(s)).toEqual([
      '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
      '/apis/karpenter.sh/v1/nodeclaims',
      '/apis/karpenter.sh/v1/nodepools',
    ]);
    // the list items the server sent carried no apiVersion/kind: casdoctor adds them as kubectl prints them
    expect(got.nodePools.every((p) => p.apiVersion === 'karpenter.sh/v1' && p.kind === 'NodePool')).toBe(true);
  });

  it('reads a cluster without Karpenter (404 at every version) as "none exist": provided, empty, no gap', async () => {
    const { s, got } = await gatherKube(kubeFixture(), { crdVersions: { nodePools: null, ec2NodeClasses: null, nodeClaims: null } });
    expect([got.nodePools, got.ec2NodeClasses, got.nodeClaims]).toEqual([[], [], []]);
    for (const k of ['nodePools', 'ec2NodeClasses', 'nodeClaims'] as const) expect(got.provided.has(k), k).toBe(true);
    expect(got.gaps).toEqual([]);
    // v1, then the v1beta1 casdoctor refuses, to tell "no Karpenter" from "Karpenter too old"
    expect(karpenterPaths(s)).toEqual([
      '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
      '/apis/karpenter.k8s.aws/v1beta1/ec2nodeclasses',
      '/apis/karpenter.sh/v1/nodeclaims',
      '/apis/karpenter.sh/v1/nodepools',
      '/apis/karpenter.sh/v1beta1/nodeclaims',
      '/apis/karpenter.sh/v1beta1/nodepools',
    ]);
  });

  it('turns NodePools served only at v1beta1 into a gap that names Karpenter v1.0 as the upgrade, and keeps none of them', async () => {
    const v1beta1: KubeObject = {
      apiVersion: 'karpenter.sh/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'default', uid: '4f0e2b7c-1d3a-4c5e-9f60-7a8b9c0d1e2f', resourceVersion: '1201' },
      spec: {
        template: {
          spec: {
            nodeClassRef: { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' },
            requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
          },
        },
        disruption: { consolidationPolicy: 'WhenUnderutilized', expireAfter: '720h' },
      },
    };
    const { got } = await gatherKube(
      { ...kubeFixture(), nodePools: [v1beta1 as NodePool] },
      { crdVersions: { nodePools: 'v1beta1', nodeClaims: 'v1beta1', ec2NodeClasses: 'v1beta1' } },
    );
    expect(got.nodePools).toEqual([]);
    expect(got.provided.has('nodePools')).toBe(false);
    expect(got.gaps).toEqual([
      {
        resource: 'nodepools.karpenter.sh',
        scope: 'cluster scope',
        reason: 'error',
        detail:
          'unsupported: list nodepools.karpenter.sh (cluster scope): 1 object(s) at karpenter.sh/v1beta1: the cluster serves only karpenter.sh/v1beta1 (Karpenter v0.32-v0.37), which casdoctor does not read; Karpenter v1.0 serves karpenter.sh/v1 and converts v1beta1 objects to it: upgrade Karpenter to v1.0 or later',
      },
    ]);
    // v1beta1 served but empty: nothing to refuse, none exist
    expect(got.provided.has('nodeClaims') && got.provided.has('ec2NodeClasses')).toBe(true);
  });

  it('turns a 403 on NodePools into a gap naming the RBAC rule to add, and reads the rest', async () => {
    const { got } = await gatherKube({ ...kubeFixture(), ...KARPENTER }, { faults: [{ match: 'nodepools', status: 403 }] });
    expect(got.gaps.map((g) => [g.resource, g.scope, g.reason])).toEqual([['nodepools.karpenter.sh', 'cluster scope', 'forbidden']]);
    expect(got.gaps[0].detail).toBe(
      'forbidden: list nodepools.karpenter.sh (cluster scope): nodepools.karpenter.sh is forbidden: User "system:serviceaccount:casdoctor:reader" cannot list resource "nodepools" in API group "karpenter.sh" at the cluster scope; grant list on nodepools in API group karpenter.sh (deploy/casdoctor-clusterrole.yaml)',
    );
    expect(got.provided.has('nodePools')).toBe(false);
    expect(got.nodeClaims).toHaveLength(NODECLAIMS.length);
  });
});

describe('EC2 instance-type offerings, live', () => {
  async function gatherAll(kubeData: Partial<RawInputs>, awsOpts: AwsServerOptions = {}) {
    const kube = await startKubeApiServer(kubeData);
    const aws = await startAwsServer({ ...awsFixture(), instanceTypeOfferings: [...OFFERINGS, ...REGION_ROWS] }, awsOpts);
    servers.push(kube, aws);
    const got = await gatherLive({
      kubeconfig: kube.kubeconfigPath,
      region: 'us-east-1',
      requestTimeoutMs: 5_000,
      readCaRecord: false,
      awsEndpoint: aws.endpoint,
      awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
      awsRetryDelayMs: 0,
    });
    return { aws, got };
  }

  it('reads the offerings of the NodeClasses’ subnet zones, per availability zone, across pages', async () => {
    const { aws, got } = await gatherAll({ ...kubeFixture(), ...KARPENTER }, { pageSize: 3 });
    const calls = aws.requests.filter((r) => r.action === 'DescribeInstanceTypeOfferings');
    expect(calls.length).toBe(3); // 8 rows at 3 a page
    expect(calls[0].params).toMatchObject({
      LocationType: 'availability-zone',
      Filters: [{ Name: 'location', Values: ['us-east-1a', 'us-east-1b'] }],
      MaxResults: 1000,
    });
    expect(got.instanceTypeOfferings).toEqual(OFFERINGS.filter((o) => o.Location !== 'us-east-1c'));
    expect(got.provided.has('instanceTypeOfferings')).toBe(true);
    expect(got.gaps).toEqual([]);
  });

  it('never calls it on a cluster without Karpenter, and then says nothing about offerings', async () => {
    const { aws, got } = await gatherAll(kubeFixture());
    expect(aws.requests.filter((r) => r.action === 'DescribeInstanceTypeOfferings')).toEqual([]);
    expect(got.provided.has('instanceTypeOfferings')).toBe(false);
    expect(got.instanceTypeOfferings).toEqual([]);
  });

  it('turns a denied DescribeInstanceTypeOfferings into a gap and keeps everything else', async () => {
    const { got } = await gatherAll({ ...kubeFixture(), ...KARPENTER }, { faults: [{ action: 'ec2:DescribeInstanceTypeOfferings', code: 'AccessDenied' }] });
    expect(got.gaps.map((g) => [g.resource, g.scope, g.reason])).toEqual([
      ['ec2:DescribeInstanceTypeOfferings', 'region us-east-1', 'forbidden'],
    ]);
    expect(got.gaps[0].detail).toMatch(/^forbidden: ec2:DescribeInstanceTypeOfferings \(region us-east-1\): UnauthorizedOperation: /);
    expect(got.provided.has('instanceTypeOfferings')).toBe(false);
    expect(got.autoScalingGroups.length).toBeGreaterThan(0);
    expect(got.nodePools).toHaveLength(NODEPOOLS.length);
  });
});
