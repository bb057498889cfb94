// deploy/'s ClusterRole grants CA's own record exactly: get (never list) on pods/log and pods/proxy, which a live
// gather uses for the CA pod's log and its /metrics (and /snapshotz), and nothing on other subresources.
import { afterEach, describe, expect, it } from 'vitest';
import { gatherKubernetes } from '../../src/gather/live-kubernetes.js';
import { kubeFixture } from '../gather/live-fixtures.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { accessOf, allowed, role } from './permissions.js';

let kube: KubeApiServer | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

describe('deploy/casdoctor-clusterrole.yaml and CA’s record', () => {
  it('allows the pods/log and pods/proxy GETs of a live gather, by get only', async () => {
    kube = await startKubeApiServer(kubeFixture());
    const got = await gatherKubernetes({ kubeconfig: kube.kubeconfigPath, requestTimeoutMs: 5_000 });
    expect(got.gaps).toEqual([]);
    const sub = kube.requests.map(accessOf).filter((a) => a.resource.startsWith('pods/'));
    expect(sub.map((a) => `${a.verb} ${a.resource}`).sort()).toEqual(['get pods/log', 'get pods/log', 'get pods/proxy']);
    expect(sub.filter((a) => !allowed(a))).toEqual([]);

    const rule = role.rules.find((r) => r.resources.includes('pods/log'))!;
    expect(rule).toEqual({ apiGroups: [''], resources: ['pods/log', 'pods/proxy'], verbs: ['get'] });
    expect(allowed({ group: '', resource: 'pods/log', verb: 'list' })).toBe(false);
    for (const other of ['pods/exec', 'pods/attach', 'pods/portforward', 'pods/eviction', 'nodes/proxy'])
      expect(allowed({ group: '', resource: other, verb: 'get', name: 'x' }), other).toBe(false);
  });
});
