// The least-privilege manifests in deploy/ are proven against what casdoctor really sends: every request of a full
// live gather is allowed by them, and they allow nothing casdoctor never asks for.
import { afterEach, describe, expect, it } from 'vitest';
import { gatherLive } from '../../src/gather/live.js';
import { awsFixture, kubeFixture } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { accessOf, allowed, awsActionsInSource, policy, policyActions, role } from './permissions.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EC2NodeClass } from '../../src/model/karpenter.js';
import type { RawInputs } from '../../src/model/snapshot.js';

/** The bundled Karpenter example's EC2NodeClasses (with resolved subnets in two zones). */
function karpenterNodeClasses(): EC2NodeClass[] {
  const file = join(import.meta.dirname, '..', '..', 'examples', 'karpenter', 'ec2nodeclasses.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { items: EC2NodeClass[] }).items;
}

const running: Array<KubeApiServer | AwsServer> = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});

async function gatherAll(kubeOpts: KubeServerOptions = {}, kubeData: Partial<RawInputs> = kubeFixture()) {
  const kube = await startKubeApiServer(kubeData, kubeOpts);
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
  it('allows every request of a full live gather, and grants list on resources casdoctor lists, get on none of them', async () => {
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
      for (const v of r.verbs) expect(['get', 'list']).toContain(v);
      // get only where an object is fetched by name: the CA status ConfigMap (by resourceNames) and subresources
      if (r.verbs.includes('get'))
        expect(r.resources.every((res) => res.includes('/') || (res === 'configmaps' && r.resourceNames))).toBe(true);
    }
    // casdoctor lists these and never GETs one by name: a get grant would only widen what the role can read
    for (const [group, resource] of [['', 'pods'], ['', 'nodes'], ['', 'serviceaccounts'], ['apps', 'deployments'], ['', 'configmaps']]) {
      expect(allowed({ group, resource, verb: 'get', name: 'anything' }), `${group}/${resource}`).toBe(false);
    }
    // the one object GET by name in a plain gather: CA's priority-expander ConfigMap, in CA's --namespace
    expect(accesses.filter((a) => a.verb === 'get' && !a.resource.includes('/'))).toEqual([
      { group: '', resource: 'configmaps', verb: 'get', name: 'cluster-autoscaler-priority-expander' },
    ]);
    expect(granted).not.toContain('/secrets');
  });

  it('lets casdoctor read the CA status ConfigMap, by name only, cluster-wide or by its fallback GET', async () => {
    const cm = role.rules.find((r) => r.resources.includes('configmaps'))!;
    // plus, for CA with --cloud-provider=externalgrpc, the provider's and CA's cloud-config ConfigMaps (GET by name)
    expect(cm.resourceNames).toEqual([
      'cluster-autoscaler-status',
      'cluster-autoscaler-priority-expander',
      'nodegroup-status',
      'cluster-autoscaler-grpc-cloud-provider-cm',
      'cluster-autoscaler-cloud-config',
    ]);
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

  it('lists CA’s custom resources and PodTemplates, and GETs the priority-expander ConfigMap by name only', async () => {
    const { kube, got } = await gatherAll();
    const accesses = kube.requests.map(accessOf);
    const crd = accesses.filter((a) => a.group === 'autoscaling.x-k8s.io' || a.resource === 'podtemplates');
    expect(crd.map((a) => `${a.verb} ${a.group}/${a.resource}`).sort()).toEqual([
      'list /podtemplates',
      'list autoscaling.x-k8s.io/capacitybuffers',
      'list autoscaling.x-k8s.io/provisioningrequests',
    ]);
    expect(crd.filter((a) => !allowed(a))).toEqual([]);
    for (const resource of ['provisioningrequests', 'capacitybuffers'])
      expect(allowed({ group: 'autoscaling.x-k8s.io', resource, verb: 'get', name: 'x' }), resource).toBe(false);
    const priority = kube.requests.filter((r) => r.path.endsWith('/configmaps/cluster-autoscaler-priority-expander'));
    expect(priority.map((r) => r.path)).toEqual(['/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-priority-expander']);
    expect(allowed({ group: '', resource: 'configmaps', verb: 'get', name: 'cluster-autoscaler-priority-expander' })).toBe(true);
    expect(got.provided.has('provisioningRequests') && got.provided.has('capacityBuffers') && got.provided.has('podTemplates')).toBe(true);
  });
});

describe('deploy/casdoctor-iam-policy.json', () => {
  it('allows exactly the AWS actions casdoctor can call, all of them read-only', async () => {
    const inSource = await awsActionsInSource();
    expect(inSource).toContain('autoscaling:DescribeAutoScalingGroups');
    expect(policyActions()).toEqual(inSource);
    for (const a of inSource) expect(a).toMatch(/^[a-z0-9-]+:(Describe|Get|List|Lookup|Simulate)[A-Z]/);
    expect(policy.Version).toBe('2012-10-17');
    for (const st of policy.Statement) expect(st.Effect).toBe('Allow');
  });

  it('scopes the actions that support resource-level permissions to ARNs with placeholders, not to *', () => {
    const resourcesOf = (action: string) => {
      const st = policy.Statement.filter((s) => s.Action.includes(action));
      expect(st, action).toHaveLength(1);
      return ([] as string[]).concat(st[0].Resource);
    };
    // the Describe actions every command needs support no resource-level permissions: only they keep "*"
    expect(policy.Statement[0].Resource).toBe('*');
    expect(resourcesOf('iam:SimulatePrincipalPolicy')).toEqual(['arn:aws:iam::ACCOUNT_ID:role/CLUSTER_AUTOSCALER_ROLE_NAME']);
    expect(resourcesOf('iam:GetInstanceProfile')).toEqual([
      'arn:aws:iam::ACCOUNT_ID:instance-profile/NODE_INSTANCE_PROFILE_NAME',
    ]);
    expect(resourcesOf('eks:ListPodIdentityAssociations')).toContain('arn:aws:eks:REGION:ACCOUNT_ID:cluster/CLUSTER_NAME');
    expect(resourcesOf('eks:DescribePodIdentityAssociation')).toContain(
      'arn:aws:eks:REGION:ACCOUNT_ID:podidentityassociation/CLUSTER_NAME/*',
    );
    // cloudtrail:LookupEvents (history) supports no resource-level permission either: its own statement keeps "*"
    expect(resourcesOf('cloudtrail:LookupEvents')).toEqual(['*']);
    for (const st of policy.Statement.slice(1).filter((s) => !s.Action.includes('cloudtrail:LookupEvents'))) {
      for (const arn of ([] as string[]).concat(st.Resource)) expect(arn, st.Sid).toMatch(/^arn:aws:(iam|eks):[A-Z_]*:ACCOUNT_ID:/);
    }
  });

  it('allows every AWS call of a full live gather (the actions every command needs)', async () => {
    // a cluster that runs Karpenter too: its EC2NodeClasses' zones make casdoctor read EC2's instance-type offerings,
    // and the spot prices why-this-type orders them by
    const { aws, got } = await gatherAll({}, { ...kubeFixture(), ec2NodeClasses: karpenterNodeClasses() });
    expect(got.gaps).toEqual([]);
    const called = [...new Set(aws.requests.map((r) => `${r.service}:${r.action}`))].sort();
    expect(called.length).toBe(10);
    expect(called.filter((a) => !policyActions().includes(a))).toEqual([]);
    expect(policy.Statement[0].Action).toEqual(called);
  });
});
