// A kept-alive connection the API server closes as idle just as casdoctor reuses it: the GET is sent once more on a
// fresh connection instead of ending the run with "read ECONNRESET" (seen live against a busy server in the bench).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpGet, type Target } from '../../src/gather/kube-client.js';
import { liveLimits } from '../../src/gather/live-limits.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** Answers the first request of each connection; the next request on the same connection has its socket destroyed. */
async function closesReusedConnections(): Promise<{ url: string; answered: string[]; reset: number }> {
  const state = { url: '', answered: [] as string[], reset: 0 };
  const perSocket = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (n > 1) {
      state.reset++;
      req.socket.destroy();
      return;
    }
    state.answered.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return state;
}

function target(server: string, agent: http.Agent): Target {
  return { server, context: 'test', agent, headers: {}, timeoutMs: 5_000, authHint: '', limits: liveLimits(), warnings: [] };
}

describe('httpGet on a reused keep-alive socket', () => {
  it('sends the GET again on a fresh connection when the server reset the reused one', async () => {
    const s = await closesReusedConnections();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    closers.push(async () => agent.destroy());
    const t = target(s.url, agent);
    expect((await httpGet(t, '/api/v1/pods?limit=500', 'GET /api/v1/pods')).status).toBe(200);
    // the second GET goes out on the kept-alive socket, which the server resets
    const second = await httpGet(t, '/api/v1/nodes?limit=500', 'GET /api/v1/nodes');
    expect(second.status).toBe(200);
    expect(s.reset).toBe(1);
    expect(s.answered).toEqual(['/api/v1/pods?limit=500', '/api/v1/nodes?limit=500']);
  });

  it('does not retry a reset on a fresh connection: the server is really refusing', async () => {
    const server = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    let connections = 0;
    server.on('connection', () => connections++);
    const agent = new http.Agent({ keepAlive: true });
    closers.push(async () => agent.destroy());
    const t = target(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, agent);
    const err = await httpGet(t, '/api/v1/pods', 'GET /api/v1/pods').catch((e) => e);
    expect(err.code).toBe('ECONNRESET');
    expect(connections).toBe(1);
  });
});
