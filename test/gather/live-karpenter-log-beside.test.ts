// Karpenter's log read live for every command (not only history): the Karpenter Deployment's pods' log over
// --ca-log-since's window (1h by default), and not at all when CA's record is not read either.
import { afterEach, describe, expect, it } from 'vitest';
import { gatherKubernetes } from '../../src/gather/live-kubernetes.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { kubeFixture, mutatingKubeRequests } from './live-fixtures.js';

const labels = { 'app.kubernetes.io/instance': 'karpenter', 'app.kubernetes.io/name': 'karpenter' };
const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'karpenter', namespace: 'kube-system', uid: 'd-karpenter' },
  spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.14.1' }] } } },
};
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'karpenter-7c9d8b6f5-k2xq4', namespace: 'kube-system', uid: 'p-karpenter', labels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'karpenter-7c9d8b6f5', uid: 'rs-karpenter', controller: true }] },
  spec: { containers: [{ name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.14.1' }], nodeName: 'ip-10-0-12-34.ec2.internal' },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
};
const LOG = [
  { level: 'INFO', time: '2026-11-24T13:00:04Z', logger: 'controller', message: 'successfully acquired lease kube-system/karpenter-leader-election', commit: '4d1b7e9' },
  { level: 'ERROR', time: '2026-11-24T13:58:00Z', logger: 'controller', message: 'could not schedule pod', commit: '4d1b7e9', controller: 'provisioner', Pod: { name: 'api-1', namespace: 'web' }, error: 'all available instance types exceed limits for nodepool: "general"' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

const servers: KubeApiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    expect(mutatingKubeRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

async function gather(opts: { caLogSinceSeconds?: number; readCaRecord?: boolean }) {
  const base = kubeFixture();
  const data = { ...base, deployments: [...(base.deployments ?? []), DEPLOYMENT], pods: [...(base.pods ?? []), POD] } as Partial<RawInputs>;
  const s = await startKubeApiServer(data, { podLogs: { 'kube-system/karpenter-7c9d8b6f5-k2xq4/controller': `${LOG}\n` } });
  servers.push(s);
  const got = await gatherKubernetes({ kubeconfig: s.kubeconfigPath, requestTimeoutMs: 5_000, ...opts });
  const logReads = s.requests.filter((r) => r.path.endsWith('/pods/karpenter-7c9d8b6f5-k2xq4/log'));
  return { got, logReads };
}

describe("Karpenter's log, live, beside every command's verdicts", () => {
  it("reads the Karpenter pod's log over the default hour and parses it", async () => {
    const { got, logReads } = await gather({});
    expect(logReads).toHaveLength(1);
    expect(logReads[0].query).toMatchObject({ sinceSeconds: '3600', container: 'controller' });
    expect(got.karpenterLogs?.[0].source).toEqual({ kind: 'pod', namespace: 'kube-system', pod: 'karpenter-7c9d8b6f5-k2xq4' });
    expect(got.karpenterLogs?.[0].records.map((r) => [r.kind, r.leaderEvent ?? r.pods?.[0]])).toEqual([
      ['leader-election', 'acquired'],
      ['error', 'web/api-1'],
    ]);
  });

  it('follows --ca-log-since, and reads nothing when the autoscalers\' record is not read', async () => {
    expect((await gather({ caLogSinceSeconds: 600 })).logReads[0].query.sinceSeconds).toBe('600');
    const off = await gather({ readCaRecord: false });
    expect(off.logReads).toEqual([]);
    expect(off.got.karpenterLogs).toBeUndefined();
  });
});
