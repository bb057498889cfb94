// Spot prices for "why this instance type": live from ec2:DescribeSpotPriceHistory (asked as Karpenter asks it, only
// when Karpenter is present, over real HTTP to the loopback AWS server), offline from its `--output json` recognised by
// content. A denial is a gap, never a failure.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatherLive } from '../../src/gather/live.js';
import { loadOffline } from '../../src/gather/offline.js';
import type { Ec2SpotPrice } from '../../src/model/aws.js';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../src/model/karpenter.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { awsFixture, kubeFixture, mutatingAwsRequests } from './live-fixtures.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'karpenter');
const list = <T>(file: string) => (JSON.parse(readFileSync(join(EXAMPLE, file), 'utf8')) as { items: T[] }).items;
const KARPENTER = {
  nodePools: list<NodePool>('nodepools.json'),
  ec2NodeClasses: list<EC2NodeClass>('ec2nodeclasses.json'),
  nodeClaims: list<NodeClaim>('nodeclaims.json'),
};

// what `aws ec2 describe-spot-price-history` prints (CLI v2: Timestamp with an offset)
const HISTORY: Ec2SpotPrice[] = [
  { AvailabilityZone: 'us-east-1a', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.071200', Timestamp: '2026-11-24T13:42:09+00:00' },
  { AvailabilityZone: 'us-east-1a', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.069800', Timestamp: '2026-11-24T07:10:51+00:00' },
  { AvailabilityZone: 'us-east-1b', InstanceType: 'c6i.2xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.141900', Timestamp: '2026-11-23T22:03:17+00:00' },
  { AvailabilityZone: 'us-east-1b', InstanceType: 'c6i.2xlarge', ProductDescription: 'Windows', SpotPrice: '0.420000', Timestamp: '2026-11-24T01:00:00+00:00' },
  { AvailabilityZone: 'us-east-1a', InstanceType: 'r6i.large', ProductDescription: 'Linux/UNIX', SpotPrice: '0.051700', Timestamp: '2026-11-24T09:12:44+00:00' },
];

const servers: Array<KubeApiServer | AwsServer> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    if (!('kubeconfigPath' in s)) expect(mutatingAwsRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

async function gatherAll(kubeData: Partial<RawInputs>, awsOpts: AwsServerOptions = {}) {
  const kube = await startKubeApiServer(kubeData);
  const aws = await startAwsServer({ ...awsFixture(), spotPriceHistory: HISTORY }, awsOpts);
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

describe('spot prices, live', () => {
  it("asks for the Linux prices in effect now, as Karpenter does, across pages, and keeps EC2's rows", async () => {
    const before = Date.now();
    const { aws, got } = await gatherAll({ ...kubeFixture(), ...KARPENTER }, { pageSize: 2 });
    const calls = aws.requests.filter((r) => r.action === 'DescribeSpotPriceHistory');
    // in effect now: the 07:10 m6i.xlarge price was replaced at 13:42; Windows is not asked for
    expect(calls.length).toBe(2);
    expect(calls[0].params).toMatchObject({ ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'], MaxResults: 1000 });
    expect(new Date(calls[0].params.StartTime as string).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(got.spotPriceHistory?.map((r) => [r.InstanceType, r.AvailabilityZone, r.SpotPrice, r.Timestamp])).toEqual([
      ['m6i.xlarge', 'us-east-1a', '0.071200', '2026-11-24T13:42:09.000Z'],
      ['r6i.large', 'us-east-1a', '0.051700', '2026-11-24T09:12:44.000Z'],
      ['c6i.2xlarge', 'us-east-1b', '0.141900', '2026-11-23T22:03:17.000Z'],
    ]);
    expect(got.spotPriceSources?.[0]).toMatch(/^live ec2:DescribeSpotPriceHistory \(us-east-1, read \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    expect(got.gaps).toEqual([]);
  });

  it('never asks on a cluster without Karpenter', async () => {
    const { aws, got } = await gatherAll(kubeFixture());
    expect(aws.requests.filter((r) => r.action === 'DescribeSpotPriceHistory')).toEqual([]);
    expect(got.spotPriceHistory).toBeUndefined();
  });

  it('turns a denied DescribeSpotPriceHistory into a gap and keeps everything else', async () => {
    const { got } = await gatherAll({ ...kubeFixture(), ...KARPENTER }, { faults: [{ action: 'ec2:DescribeSpotPriceHistory', code: 'AccessDenied' }] });
    expect(got.gaps.map((g) => [g.resource, g.scope, g.reason])).toEqual([['ec2:DescribeSpotPriceHistory', 'region us-east-1', 'forbidden']]);
    expect(got.spotPriceHistory).toBeUndefined();
    expect(got.nodeClaims.length).toBe(KARPENTER.nodeClaims.length);
    expect(got.instanceTypeOfferings.length).toBeGreaterThanOrEqual(0);
  });
});

describe('spot prices, offline', () => {
  it('recognises `aws ec2 describe-spot-price-history --output json` by content, whatever the file is called', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-spot-'));
    try {
      writeFileSync(join(dir, 'prices-today.json'), `${JSON.stringify({ SpotPriceHistory: HISTORY, NextToken: '' }, null, 4)}\n`);
      // a row the CLI never prints (no zone) is dropped with a warning
      writeFileSync(join(dir, 'more.json'), JSON.stringify({ SpotPriceHistory: [{ InstanceType: 'm5.large', SpotPrice: '0.04', Timestamp: '2026-11-24T10:00:00Z' }] }));
      const got = await loadOffline([dir]);
      expect(got.spotPriceHistory).toHaveLength(HISTORY.length);
      expect(got.spotPriceHistory?.[0]).toEqual(HISTORY[0]);
      expect(got.spotPriceSources?.map((s) => s.slice(dir.length + 1)).sort()).toEqual(['more.json', 'prices-today.json']);
      expect(got.warnings.some((w) => /more\.json: 1 SpotPriceHistory record\(s\) without InstanceType, AvailabilityZone/.test(w))).toBe(true);
      expect(got.warnings.filter((w) => /prices-today/.test(w))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
