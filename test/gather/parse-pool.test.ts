// Parse workers run compiled JavaScript, so this test loads through dist/ (`npm test` builds it first): the workers
// are real threads parsing real bytes. The loader must produce exactly what it produces on the main thread alone.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type * as OfflineModule from '../../src/gather/offline.js';
import type * as PoolModule from '../../src/gather/parse-pool.js';
import type * as LiveModule from '../../src/gather/live.js';
import { gatherLive } from '../../src/gather/live.js';
import { startKubeApiServer } from '../servers/kube-apiserver.js';
import { runWhyPending } from '../../src/commands/why-pending.js';
import { capturingDeps, PIPED_JSON } from '../commands/in-process.js';
import { cli, DEMO, DEMO_NOW, ROOT } from '../commands/run.js';

const offline = (await import(join(ROOT, 'dist', 'gather', 'offline.js'))) as typeof OfflineModule;
const poolModule = (await import(join(ROOT, 'dist', 'gather', 'parse-pool.js'))) as typeof PoolModule;
const liveDist = (await import(join(ROOT, 'dist', 'gather', 'live.js'))) as typeof LiveModule;

const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-parse-pool-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The demo's pods, renamed copies until the List is about `mb` MB, with a non-ASCII annotation on some. */
function bigPodList(mb: number): { path: string; text: string } {
  const list = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8'));
  const base = list.items;
  const items: unknown[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1e6; i++) {
    const p = structuredClone(base[i % base.length]);
    p.metadata.name = `${p.metadata.name}-${i}`;
    p.metadata.uid = `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`;
    if (i % 97 === 0) p.metadata.annotations = { ...p.metadata.annotations, 'casdoctor.io/note': 'Zürich ✓ 東京' };
    items.push(p);
    size += JSON.stringify(p, null, 4).length;
  }
  list.items = items;
  const text = `${JSON.stringify(list, null, 4)}\n`;
  const path = join(tmp, `pods-${mb}.json`);
  writeFileSync(path, text);
  return { path, text };
}

/** Counts what the loader hands to workers. */
function countSubmits(): { units: number; restore(): void } {
  const proto = poolModule.ParsePool.prototype;
  const submit = proto.submit;
  const counter = {
    units: 0,
    restore: () => {
      proto.submit = submit;
    },
  };
  proto.submit = function (this: PoolModule.ParsePool, ...args: Parameters<typeof submit>) {
    counter.units++;
    return submit.apply(this, args);
  };
  return counter;
}

describe('parse workers in the real CLI', () => {
  it('answer a why-pending run on a dump large enough for them exactly as the main thread alone does, and exit', async () => {
    // the demo with 17 MB of pods (renamed copies of its running pods): past the 16 MiB from which workers parse
    const dir = join(tmp, 'big-demo');
    cpSync(DEMO, dir, { recursive: true });
    const list = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8'));
    const running = list.items.filter((p: { spec: { nodeName?: string } }) => p.spec.nodeName);
    let size = Buffer.byteLength(JSON.stringify(list, null, 4));
    for (let i = 0; size < 17e6; i++) {
      const p = structuredClone(running[i % running.length]);
      p.metadata.name = `${p.metadata.name}-copy${i}`;
      p.metadata.uid = `${String(i).padStart(8, '0')}-1111-4000-8000-000000000000`;
      list.items.push(p);
      size += JSON.stringify(p, null, 4).length + 2;
    }
    writeFileSync(join(dir, 'pods.json'), JSON.stringify(list, null, 4));
    const args = ['why-pending', '--all', '--from', dir, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never'];
    const viaCli = cli(args);
    expect(viaCli.stderr).toBe('');
    expect(viaCli.code).toBe(0);
    // in this process the sources are TypeScript, so no worker can start: the main thread parses everything
    const c = capturingDeps();
    await runWhyPending({ ...PIPED_JSON, from: [dir], all: true, allNamespaces: true }, c.deps);
    expect(viaCli.stdout).toBe(c.stdout());
  });
});

describe('parse workers', () => {
  it('never keep the process alive: a pool that is not closed still lets node exit', () => {
    const script = `
      const { ParsePool } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'gather', 'parse-pool.js')).href)});
      const pool = ParsePool.create(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'gather', 'prefit.js')).href)}, 'read', 1);
      process.stdout.write(pool ? 'started' : 'no pool');
    `;
    // a module file: under `node -e` an unreleased worker does not show (node exits anyway)
    const file = join(tmp, 'abandon-pool.mjs');
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 10_000 });
    expect(r.stdout).toBe('started');
    expect(r.signal).toBeNull(); // not killed by the timeout
    expect(r.status).toBe(0);
  });

  const big = bigPodList(6);

  it('load a large List into exactly the objects the main thread alone produces, in file order', async () => {
    const counter = countSubmits();
    try {
      const parallel = await offline.loadOffline([big.path], { streamThresholdBytes: 0, parallel: { thresholdBytes: 0, workers: 2 } });
      const alone = await offline.loadOffline([big.path], { streamThresholdBytes: 0, parallel: { workers: 0 } });
      const whole = await offline.loadOffline([big.path], { streamThresholdBytes: Number.POSITIVE_INFINITY });
      expect(counter.units).toBeGreaterThan(2);
      expect(parallel.pods.length).toBe(JSON.parse(big.text).items.length);
      expect(parallel.pods).toEqual(alone.pods);
      expect(parallel.pods).toEqual(whole.pods);
      expect(parallel.warnings).toEqual(alone.warnings);
      expect(parallel.pods.map((p) => p.metadata.name)).toEqual(
        JSON.parse(big.text).items.map((p: { metadata: { name: string } }) => p.metadata.name),
      );
    } finally {
      counter.restore();
    }
  });

  it('report a wrong-typed field a worker dropped, as the main thread does', async () => {
    const list = JSON.parse(big.text);
    list.items[list.items.length - 5].spec.tolerations = 'everything';
    const path = join(tmp, 'odd.json');
    writeFileSync(path, JSON.stringify(list, null, 4));
    const counter = countSubmits();
    const parallel = await offline
      .loadOffline([path], { streamThresholdBytes: 0, parallel: { thresholdBytes: 0, workers: 1 } })
      .finally(() => counter.restore());
    expect(counter.units).toBeGreaterThan(2);
    const alone = await offline.loadOffline([path], { streamThresholdBytes: 0, parallel: { workers: 0 } });
    expect(parallel.warnings).toEqual(alone.warnings);
    expect(parallel.warnings.join('\n')).toMatch(/spec\.tolerations: expected a list, got string/);
  });

  it('locate malformed JSON inside a worker’s share by file, line and column', async () => {
    const lines = big.text.split('\n');
    const at = lines.length - 2000; // well inside the last unit
    const line = lines.findIndex((l, i) => i > at && /^ {24}"name": /.test(l));
    lines[line] = lines[line].replace('"name": ', '"name" ');
    const path = join(tmp, 'broken.json');
    writeFileSync(path, lines.join('\n'));
    const counter = countSubmits();
    const err = await offline
      .loadOffline([path], { streamThresholdBytes: 0, parallel: { thresholdBytes: 0, workers: 1 } })
      .catch((e) => e)
      .finally(() => counter.restore());
    expect(counter.units).toBeGreaterThan(2);
    const alone = await offline.loadOffline([path], { streamThresholdBytes: 0, parallel: { workers: 0 } }).catch((e) => e);
    expect(err.name).toBe('InputError');
    expect(err.message).toBe(alone.message);
    expect(err.message).toContain(`${path}:${line + 1}:`);
  });

  it('reuse the bytes a worker hands back for the next unit instead of allocating a fresh buffer', async () => {
    const prefitUrl = pathToFileURL(join(ROOT, 'dist', 'gather', 'prefit.js')).href;
    const pool = poolModule.ParsePool.create(prefitUrl, 'read', 1);
    expect(pool).toBeDefined();
    if (!pool) return;
    try {
      const text = Buffer.from('[\n        {\n            "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": []}\n        }');
      const bytes = pool.buffer(text.length + 1);
      bytes.set(text);
      const sent = bytes.buffer;
      const slot = pool.available();
      expect(slot).toBeDefined();
      if (!slot) return;
      const r = await pool.submit(slot, bytes, '    ', 0);
      expect(r.error).toBeUndefined();
      expect(JSON.parse(r.text ?? '')[0][1].metadata.name).toBe('a');
      expect(sent.byteLength).toBe(0); // transferred to the worker
      const again = pool.buffer(text.length + 1);
      expect(again.buffer).toBe(r.bytes?.buffer);
      expect(pool.buffer(text.length + 1).buffer).not.toBe(again.buffer); // one spare, now taken
    } finally {
      await pool.close();
    }
  });
});

describe('parse workers for the pages of a live list', () => {
  it('give exactly what the main thread alone keeps, warnings included, page by page', async () => {
    const whole = await offline.loadOffline([DEMO], { fields: 'all' });
    // one pod with a wrong-typed value: the worker drops it and the warning names the pod, as the main thread does
    const pods = whole.pods.map((p, i) => (i === 4 ? ({ ...p, spec: { ...p.spec, tolerations: 'NoSchedule' } } as unknown as typeof p) : p));
    const server = await startKubeApiServer({ ...whole, pods }, { maxPageSize: 5 });
    const proto = poolModule.ParsePool.prototype;
    const submitPage = proto.submitPage;
    let pages = 0;
    proto.submitPage = function (this: PoolModule.ParsePool, ...args: Parameters<typeof submitPage>) {
      pages++;
      return submitPage.apply(this, args);
    };
    try {
      for (const fields of ['read', 'why-pending'] as const) {
        const o = { kubeconfig: server.kubeconfigPath, requestTimeoutMs: 10_000, skipAws: true, readCaRecord: false, fields };
        const before = pages;
        const withWorkers = await liveDist.gatherLive(o);
        // in this process the sources are TypeScript, so no worker can start: the main thread fits every page
        const alone = await gatherLive(o);
        expect(pages - before, fields).toBeGreaterThan(5);
        for (const kind of ['pods', 'nodes', 'events', 'pdbs', 'replicaSets', 'daemonSets', 'configMaps'] as const) {
          expect(withWorkers[kind].length, `${fields} ${kind}`).toBeGreaterThan(0);
          expect(withWorkers[kind], `${fields} ${kind}`).toEqual(alone[kind]);
        }
        expect(withWorkers.warnings).toEqual(alone.warnings);
        // (the why-pending profile keeps no tolerations of a pod already on a node, so it has nothing to warn of)
        if (fields === 'read') expect(withWorkers.warnings.join('\n')).toMatch(/spec\.tolerations: expected a list, got string/);
      }
    } finally {
      proto.submitPage = submitPage;
      await server.close();
    }
  });
});
