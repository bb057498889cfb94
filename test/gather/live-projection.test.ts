// Issue 18, live: the same projection for live lists as for --from. Each listed page is fitted to the shape casdoctor
// reads (src/gather/shape.ts) before the next is read, so a live gathering holds what the offline loader holds.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatherLive } from '../../src/gather/live.js';
import { loadOffline } from '../../src/gather/offline.js';
import type { KubeObject } from '../../src/model/k8s.js';
import { DATA_KINDS, type RawInputs } from '../../src/model/snapshot.js';
import { DEMO } from '../commands/run.js';
import { type KubeApiServer, type KubeServerOptions, startKubeApiServer } from '../servers/kube-apiserver.js';
import { mutatingKubeRequests, sortedByName } from './live-fixtures.js';

const K8S_KINDS = DATA_KINDS.slice(0, DATA_KINDS.indexOf('autoScalingGroups'));
let whole: RawInputs;
const servers: KubeApiServer[] = [];

beforeAll(async () => {
  whole = await loadOffline([DEMO], { fields: 'all' });
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    expect(mutatingKubeRequests(s.requests)).toEqual([]);
    await s.close();
  }
});

async function serve(data: Partial<RawInputs>, opts: KubeServerOptions = {}): Promise<KubeApiServer> {
  const s = await startKubeApiServer(data, opts);
  servers.push(s);
  return s;
}

const live = (s: KubeApiServer, fields?: 'read' | 'why-pending' | 'all') =>
  gatherLive({ kubeconfig: s.kubeconfigPath, requestTimeoutMs: 5_000, skipAws: true, readCaRecord: false, ...(fields ? { fields } : {}) });

describe('live lists projected as --from', () => {
  it.each(['read', 'why-pending'] as const)(
    'with fields %s, every Kubernetes kind holds exactly what the offline loader keeps of the same objects, across pages',
    async (fields) => {
      const s = await serve(whole, { maxPageSize: 3 });
      const got = await live(s, fields);
      const offline = await loadOffline([DEMO], { fields });
      // several pages per list: the projection is applied page by page
      expect(s.requests.filter((r) => r.path === '/api/v1/pods' && r.query.continue).length).toBeGreaterThan(1);
      // configMaps: live asks for CA's status ConfigMap only
      for (const kind of K8S_KINDS.filter((k) => k !== 'configMaps')) {
        expect(sortedByName(got[kind] as KubeObject[]), kind).toEqual(sortedByName(offline[kind] as KubeObject[]));
      }
      // the cut is real: a running pod's env, image and managed fields are gone
      const running = got.pods.find((p) => p.spec?.nodeName) as unknown as { spec: { containers: Array<Record<string, unknown>> } };
      expect(running.spec.containers[0].image).toBeUndefined();
      expect(got.warnings).toEqual([]);
    },
  );

  it('keeps whole objects when asked for all fields (casdoctor snapshot writes them back out)', async () => {
    const s = await serve(whole);
    const got = await live(s, 'all');
    expect(sortedByName(got.pods)).toEqual(sortedByName(whole.pods));
  });

  it('drops a value of the wrong type from the server and says which object held it, once per list', async () => {
    const pods = whole.pods.map((p, i) =>
      i === 0 ? ({ ...p, spec: { ...p.spec, tolerations: 'NoSchedule' } } as unknown as typeof p) : p,
    );
    const s = await serve({ ...whole, pods });
    const got = await live(s, 'read');
    const first = got.pods.find((p) => p.metadata.name === pods[0].metadata.name);
    expect(first?.spec?.tolerations).toBeUndefined();
    expect(got.warnings).toEqual([
      `the Kubernetes API server ${s.url} sent 1 value(s) of the wrong type in pods; ignored (Pod ${pods[0].metadata.namespace}/${pods[0].metadata.name}: spec.tolerations: expected a list, got string)`,
    ]);
  });
});
