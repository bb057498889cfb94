import https from 'node:https';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gatherKubernetes } from '../../src/gather/live-kubernetes.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { kubeFixture } from './live-fixtures.js';

let server: KubeApiServer | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

describe('gatherKubernetes connections', () => {
  it('reuses TLS connections across the pages of a list instead of a handshake per request', async () => {
    server = await startKubeApiServer(kubeFixture(), { maxPageSize: 1 });
    const connect = vi.spyOn(https.Agent.prototype, 'createConnection');
    const got = await gatherKubernetes({ kubeconfig: server.kubeconfigPath, requestTimeoutMs: 5_000 });

    const lists = server.requests.filter((r) => r.method === 'GET');
    expect(got.pods.length).toBeGreaterThan(3);
    // one page per object: far more requests than the resource types listed in parallel, and at most one connection
    // per resource type (each list is a sequence of pages on one keep-alive connection)
    const resourceTypes = new Set(lists.map((r) => r.path)).size;
    expect(lists.length).toBeGreaterThan(resourceTypes + 2);
    expect(connect.mock.calls.length).toBeGreaterThan(0);
    expect(connect.mock.calls.length).toBeLessThanOrEqual(resourceTypes);
    expect(connect.mock.calls.length).toBeLessThan(lists.length);
  });
});
