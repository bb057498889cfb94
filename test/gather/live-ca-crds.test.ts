// CA's own resources read live: ProvisioningRequests and CapacityBuffers at the version the server serves (falling back
// to the older one on 404), PodTemplates, and the priority-expander ConfigMap by name in CA's --namespace. A CRD that is
// not installed means "none exist" (provided, no gap); a 403 is a gap with its reason.
import { afterEach, describe, expect, it } from 'vitest';
import { gatherKubernetes } from '../../src/gather/live-kubernetes.js';
import type { ConfigMap, Deployment } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { capacityBuffer, podTemplate, provisioningRequest } from '../builders/ca-crds.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { kubeFixture, mutatingKubeRequests } from './live-fixtures.js';

const servers: KubeApiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    expect(mutatingKubeRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

async function gather(data: Partial<RawInputs>, opts: KubeServerOptions = {}) {
  const s = await startKubeApiServer(data, opts);
  servers.push(s);
  const got = await gatherKubernetes({ kubeconfig: s.kubeconfigPath, requestTimeoutMs: 5_000, readCaRecord: false });
  return { s, got };
}

const priorityCm = (namespace: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cluster-autoscaler-priority-expander', namespace, uid: '0d6c1f8e-5c2b-4f6e-9a51-2f0e7d1c3b4a' },
  data: { priorities: '50:\n  - .*spot.*\n10:\n  - .*\n' },
});

/** The fixture with CA run with --namespace=<ns> and --expander=priority. */
function withCaNamespace(ns: string): Partial<RawInputs> {
  const f = kubeFixture();
  const deployments = structuredClone(f.deployments!) as Deployment[];
  const c = deployments.find((d) => d.metadata.name === 'cluster-autoscaler')!.spec!.template!.spec!.containers[0];
  c.command = [...(c.command ?? []).filter((a) => !a.startsWith('--expander')), '--expander=priority', `--namespace=${ns}`];
  return { ...f, deployments };
}

describe('CA’s custom resources, live', () => {
  it('lists ProvisioningRequests, PodTemplates and CapacityBuffers and keeps them as the server holds them', async () => {
    const pr = provisioningRequest('train-llm');
    const tpl = podTemplate('train-llm-tpl');
    const buffer = capacityBuffer('web-headroom');
    const { s, got } = await gather({ ...kubeFixture(), provisioningRequests: [pr], podTemplates: [tpl], capacityBuffers: [buffer] });
    expect(got.provisioningRequests).toEqual([pr]);
    expect(got.podTemplates).toEqual([tpl]);
    expect(got.capacityBuffers).toEqual([buffer]);
    for (const k of ['provisioningRequests', 'podTemplates', 'capacityBuffers'] as const) expect(got.provided.has(k), k).toBe(true);
    expect(got.gaps).toEqual([]);
    expect(s.requests.map((r) => r.path).filter((p) => p.includes('autoscaling.x-k8s.io'))).toEqual([
      '/apis/autoscaling.x-k8s.io/v1/provisioningrequests',
      '/apis/autoscaling.x-k8s.io/v1beta1/capacitybuffers',
    ]);
  });

  it('falls back to v1beta1 ProvisioningRequests and v1alpha1 CapacityBuffers when the newer version answers 404', async () => {
    const pr = provisioningRequest('train-llm', { apiVersion: 'autoscaling.x-k8s.io/v1beta1' });
    const buffer = capacityBuffer('web-headroom', { apiVersion: 'autoscaling.x-k8s.io/v1alpha1' });
    const { s, got } = await gather(
      { ...kubeFixture(), provisioningRequests: [pr], capacityBuffers: [buffer] },
      { crdVersions: { provisioningRequests: 'v1beta1', capacityBuffers: 'v1alpha1' } },
    );
    expect(got.provisioningRequests.map((p) => p.apiVersion)).toEqual(['autoscaling.x-k8s.io/v1beta1']);
    expect(got.capacityBuffers.map((b) => b.apiVersion)).toEqual(['autoscaling.x-k8s.io/v1alpha1']);
    expect(got.gaps).toEqual([]);
    const crdCalls = s.requests.filter((r) => r.path.includes('autoscaling.x-k8s.io')).map((r) => r.path);
    expect(crdCalls).toEqual(
      expect.arrayContaining([
        '/apis/autoscaling.x-k8s.io/v1/provisioningrequests',
        '/apis/autoscaling.x-k8s.io/v1beta1/provisioningrequests',
        '/apis/autoscaling.x-k8s.io/v1beta1/capacitybuffers',
        '/apis/autoscaling.x-k8s.io/v1alpha1/capacitybuffers',
      ]),
    );
    expect(crdCalls).toHaveLength(4);
  });

  it('reads a CRD that is not installed (404 at every version) as "none exist": provided, empty, no gap', async () => {
    const { got } = await gather(kubeFixture(), { crdVersions: { provisioningRequests: null, capacityBuffers: null } });
    expect(got.provisioningRequests).toEqual([]);
    expect(got.capacityBuffers).toEqual([]);
    expect(got.provided.has('provisioningRequests')).toBe(true);
    expect(got.provided.has('capacityBuffers')).toBe(true);
    expect(got.gaps).toEqual([]);
  });

  it('turns a 403 on ProvisioningRequests or PodTemplates into a gap naming the resource, and reads the rest', async () => {
    const { got } = await gather(kubeFixture(), {
      faults: [
        { match: 'provisioningrequests', status: 403 },
        { match: 'podtemplates', status: 403 },
      ],
    });
    expect(got.gaps.map((g) => [g.resource, g.reason])).toEqual([
      ['provisioningrequests.autoscaling.x-k8s.io', 'forbidden'],
      ['podtemplates', 'forbidden'],
    ]);
    expect(got.gaps[0].detail).toMatch(/^forbidden: list provisioningrequests\.autoscaling\.x-k8s\.io \(cluster scope\): /);
    expect(got.provided.has('provisioningRequests')).toBe(false);
    expect(got.provided.has('podTemplates')).toBe(false);
    expect(got.provided.has('capacityBuffers')).toBe(true);
  });
});

describe('CA’s priority-expander ConfigMap, live', () => {
  it('GETs it by name in CA’s --namespace and keeps it beside the status ConfigMap', async () => {
    const { s, got } = await gather({ ...withCaNamespace('autoscaling'), configMaps: [...kubeFixture().configMaps!, priorityCm('autoscaling')] });
    expect(got.configMaps.map((c) => `${c.metadata.namespace}/${c.metadata.name}`)).toEqual([
      'kube-system/cluster-autoscaler-status',
      'autoscaling/cluster-autoscaler-priority-expander',
    ]);
    expect(got.configMaps[1].data).toEqual(priorityCm('autoscaling').data);
    expect(s.requests.filter((r) => r.path.includes('priority-expander')).map((r) => r.path)).toEqual([
      '/api/v1/namespaces/autoscaling/configmaps/cluster-autoscaler-priority-expander',
    ]);
    expect(got.gaps).toEqual([]);
  });

  it('adds nothing and no gap when it does not exist (404), and a gap when the GET is forbidden', async () => {
    const missing = await gather(kubeFixture());
    expect(missing.got.configMaps.map((c) => c.metadata.name)).toEqual(['cluster-autoscaler-status']);
    expect(missing.got.gaps).toEqual([]);

    const forbidden = await gather(
      { ...kubeFixture(), configMaps: [...kubeFixture().configMaps!, priorityCm('kube-system')] },
      { faults: [{ match: '/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-priority-expander', status: 403 }] },
    );
    expect(forbidden.got.configMaps.map((c) => c.metadata.name)).toEqual(['cluster-autoscaler-status']);
    expect(forbidden.got.gaps).toMatchObject([
      { resource: 'configmaps/cluster-autoscaler-priority-expander', scope: 'namespace kube-system', reason: 'forbidden' },
    ]);
    expect(forbidden.got.gaps[0].detail).toMatch(/^forbidden: get configmaps\/cluster-autoscaler-priority-expander \(namespace kube-system\)/);
  });
});
