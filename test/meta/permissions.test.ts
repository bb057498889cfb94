// The least-privilege manifests in deploy/ are proven against what casdoctor really sends: every request of a full
// live gather is allowed by them, and they allow nothing casdoctor never asks for.
import { afterEach, describe, expect, it } from 'vitest';
import { gatherLive } from '../../src/gather/live.js';
import { awsFixture, kubeFixture } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { accessOf, allowed, awsActionsInSource, policy, policyActions, role } from './permissions.js';

const running: Array<KubeApiServer | AwsServer> = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});

async function gatherAll(kubeOpts: KubeServerOptions = {}) {
  const kube = await startKubeApiServer(kubeFixture(), kubeOpts);
  const aws = await startAwsServer(awsFixture());
  running.push(kube, aws);
  const got = await gatherLive({
    kubeconfig: kube.kubeconfigPath,
    region: 'us-east-1',
    requestTimeoutMs: 5_000,
    awsEndpoint: aws.endpoint,
    awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
    awsRetryDelayMs: 0,
  });
  return { kube, aws, got };
}

describe('deploy/casdoctor-clusterrole.yaml', () => {
  it('allows every request of a full live gather, and grants only get and list on resources casdoctor lists', async () => {
    const { kube, got } = await gatherAll();
    expect(got.gaps).toEqual([]);
    const accesses = kube.requests.map(accessOf);
    expect(accesses.filter((a) => !allowed(a))).toEqual([]);

    expect(role.kind).toBe('ClusterRole');
    const granted = role.rules.flatMap((r) => r.resources.map((res) => `${r.apiGroups[0]}/${res}`)).sort();
    const used = [...new Set(accesses.map((a) => `${a.group}/${a.resource}`))].sort();
    expect(granted).toEqual(used);
    for (const r of role.rules) {
      expect(r.apiGroups).toHaveLength(1);
      expect([...r.verbs].sort()).toEqual(['get', 'list']);
    }
    expect(granted).not.toContain('/secrets');
  });

  it('lets casdoctor read the CA status ConfigMap, by name only, cluster-wide or by its fallback GET', async () => {
    const cm = role.rules.find((r) => r.resources.includes('configmaps'))!;
    expect(cm.resourceNames).toEqual(['cluster-autoscaler-status']);
    expect(allowed({ group: '', resource: 'configmaps', verb: 'list' })).toBe(false);
    expect(allowed({ group: '', resource: 'configmaps', verb: 'get', name: 'aws-auth' })).toBe(false);

    // a cluster that forbids the cluster-wide list: casdoctor falls back to GET kube-system/cluster-autoscaler-status
    const { kube, got } = await gatherAll({
      faults: [{ match: '/api/v1/configmaps', status: 403 }],
    });
    const fallback = kube.requests.filter((r) => r.path === '/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status');
    expect(fallback).toHaveLength(1);
    expect(allowed(accessOf(fallback[0]))).toBe(true);
    expect(got.configMaps.map((c) => c.metadata.name)).toEqual(['cluster-autoscaler-status']);
  });
});

describe('deploy/casdoctor-iam-policy.json', () => {
  it('allows exactly the AWS actions casdoctor can call, all of them read-only', async () => {
    const inSource = await awsActionsInSource();
    expect(inSource).toContain('autoscaling:DescribeAutoScalingGroups');
    expect(policyActions()).toEqual(inSource);
    for (const a of inSource) expect(a).toMatch(/^[a-z0-9-]+:(Describe|Get|List|Simulate)[A-Z]/);
    expect(policy.Version).toBe('2012-10-17');
    for (const st of policy.Statement) {
      expect(st.Effect).toBe('Allow');
      expect(st.Resource).toBe('*');
    }
  });

  it('allows every AWS call of a full live gather (the actions every command needs)', async () => {
    const { aws, got } = await gatherAll();
    expect(got.gaps).toEqual([]);
    const called = [...new Set(aws.requests.map((r) => `${r.service}:${r.action}`))].sort();
    expect(called.length).toBe(8);
    expect(called.filter((a) => !policyActions().includes(a))).toEqual([]);
    expect(policy.Statement[0].Action).toEqual(called);
  });
});
