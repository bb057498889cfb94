// history live end to end: the real command, client-node and the AWS SDK (CloudTrail's JSON protocol included) against
// loopback Kubernetes and AWS servers holding examples/history; then CloudTrail denied, as a "not evaluated" source.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HistoryOptions, runHistory } from '../../src/commands/history.js';
import { loadOffline } from '../../src/gather/offline.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, type AwsServerOptions, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { capturingDeps } from './in-process.js';
import { ROOT } from './run.js';

const NOW = '2026-11-20T18:00:00Z';
let bundle: RawInputs;
let kube: KubeApiServer;

// Karpenter's Deployment and its one pod, as the chart installs them, whose log is the bundle's karpenter.log
const labels = { 'app.kubernetes.io/instance': 'karpenter', 'app.kubernetes.io/name': 'karpenter' };
const KARPENTER = {
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name: 'karpenter', namespace: 'kube-system', uid: 'd-karpenter', creationTimestamp: '2026-09-02T10:11:12Z' },
  spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.14.1@sha256:4e3f0c7d' }] } } },
};
const KARPENTER_POD = {
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'karpenter-7c9d8b6f5-k2xq4', namespace: 'kube-system', uid: 'p-karpenter', labels, creationTimestamp: '2026-11-20T06:00:00Z', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'karpenter-7c9d8b6f5', uid: 'rs-karpenter', controller: true }] },
  spec: { containers: [{ name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.14.1' }], nodeName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
};

beforeAll(async () => {
  bundle = await loadOffline([`${ROOT}/examples/history`]);
  const withKarpenter = { ...bundle, deployments: [...bundle.deployments, KARPENTER], pods: [...bundle.pods, KARPENTER_POD] } as RawInputs;
  kube = await startKubeApiServer(withKarpenter, {
    maxPageSize: 50,
    podLogs: { 'kube-system/karpenter-7c9d8b6f5-k2xq4/controller': readFileSync(`${ROOT}/examples/history/karpenter.log`, 'utf8') },
  });
});

afterAll(async () => {
  await kube?.close();
});

async function live(opts: AwsServerOptions = {}): Promise<{ report: any; code: number; aws: AwsServer; stderr: string }> {
  const aws = await startAwsServer({ autoScalingGroups: bundle.autoScalingGroups, scalingActivities: bundle.scalingActivities, cloudTrailEvents: bundle.cloudTrailEvents }, { pageSize: 4, ...opts });
  const c = capturingDeps({
    realNow: () => new Date(NOW),
    liveOverrides: { awsEndpoint: aws.endpoint, awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' }, awsRetryDelayMs: 0, awsMaxAttempts: 1 },
  });
  const o: HistoryOptions = { from: [], kubeconfig: kube.kubeconfigPath, region: 'eu-west-1', requestTimeout: '10s', now: NOW, output: 'json', failOn: 'never', color: false, debug: false };
  try {
    const r = await runHistory(o, c.deps);
    return { report: JSON.parse(c.stdout()), code: r.exitCode, aws, stderr: c.stderr() };
  } finally {
    await aws.close();
  }
}

describe('history live', () => {
  it("reads CloudTrail's LookupEvents page by page for each call of the window, read-only, and names the person", async () => {
    const before = kube.requests.length;
    const { report, aws } = await live();
    const lookups = aws.requests.filter((r) => r.service === 'cloudtrail');
    expect(new Set(lookups.map((r) => (r.params.LookupAttributes as any[])[0].AttributeValue))).toEqual(
      new Set(['TerminateInstances', 'TerminateInstanceInAutoScalingGroup', 'SetDesiredCapacity', 'UpdateAutoScalingGroup', 'CreateFleet', 'RunInstances', 'BidEvictedEvent']),
    );
    expect(lookups.every((r) => r.params.StartTime === Date.parse('2026-11-20T12:00:00Z') / 1000)).toBe(true);
    expect(mutatingAwsRequests(aws.requests)).toEqual([]);
    expect(mutatingKubeRequests(kube.requests.slice(before))).toEqual([]);
    expect(report.sources.find((s: any) => s.kind === 'cloudtrail')).toMatchObject({ state: 'read', steps: 13 });
    // Karpenter's log, read over the window from its pod: the consolidation is told live as offline
    const logRead = kube.requests.slice(before).find((r) => r.path.endsWith('/karpenter-7c9d8b6f5-k2xq4/log'));
    expect(logRead?.query).toMatchObject({ container: 'controller', sinceSeconds: String(6 * 3600) });
    expect(report.sources.find((s: any) => s.kind === 'karpenter-log')).toMatchObject({ state: 'read', name: 'Karpenter log pod kube-system/karpenter-7c9d8b6f5-k2xq4' });
    expect(report.removals.find((r: any) => r.node === 'ip-10-0-40-11.eu-west-1.compute.internal').verdict).toMatchObject({ actor: 'karpenter', reason: 'underutilized' });
    const person = report.removals.find((r: any) => r.verdict.actor === 'person');
    // the nodes of both dumps are served: the node's name comes from its spec.providerID
    expect(person.node).toBe('ip-10-0-13-77.eu-west-1.compute.internal');
    expect(person.verdict.by).toContain('jane.doe@example.com');
  });

  it('pages through more records than one page holds, and stops at its page bound', async () => {
    const many = Array.from({ length: 9 }, (_, i) => ({ ...bundle.cloudTrailEvents![0], EventId: `e${i}`, EventName: 'TerminateInstances' }));
    const aws = await startAwsServer({ cloudTrailEvents: many }, { pageSize: 4 });
    const { gatherHistoryLive } = await import('../../src/gather/live-history.js');
    const raw = { gaps: [], warnings: [], sources: ['live: aws eu-west-1'] } as unknown as RawInputs;
    try {
      await gatherHistoryLive(raw, { since: Date.parse('2026-11-20T12:00:00Z'), now: Date.parse(NOW), awsEndpoint: aws.endpoint, awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'x' }, awsMaxAttempts: 1, cloudTrailPages: 2 });
    } finally {
      await aws.close();
    }
    expect(raw.cloudTrailEvents).toHaveLength(8);
    expect(raw.warnings.join('\n')).toContain('more than 100 TerminateInstances records');
  });

  it('makes a denied LookupEvents a "not evaluated" source naming the permission, and tells the removals without it', async () => {
    const { report, code, stderr } = await live({ faults: [{ action: 'cloudtrail:LookupEvents', code: 'AccessDenied' }] });
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/unexpected failure/);
    const ct = report.sources.find((s: any) => s.kind === 'cloudtrail');
    expect(ct.state).toBe('not-evaluated');
    expect(ct.detail).toMatch(/^forbidden: cloudtrail:LookupEvents \(region eu-west-1\): AccessDeniedException: .*not authorized to perform: cloudtrail:LookupEvents/);
    // the ASG's own record still says the instance went outside it, and nobody is named
    const gone = report.removals.find((r: any) => r.node === 'ip-10-0-13-77.eu-west-1.compute.internal');
    expect(gone.verdict).toMatchObject({ actor: 'asg', reason: 'ec2-health-check' });
    expect(report.findings).toEqual([]);
  });
});
