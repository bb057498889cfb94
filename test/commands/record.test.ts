// casdoctor record against the loopback kube-apiserver's watches: list then watch, a 410 → relist, a dropped watch
// resumed from the last version, a restart resumed from the journal, read-only; the journal's size and age bounds;
// and `history --from DIR` telling a node's end from the journal after its Node object is gone.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runHistory } from '../../src/commands/history.js';
import { type RecordOptions, runRecord } from '../../src/commands/record.js';
import { Journal, type JournalRecord } from '../../src/commands/record-journal.js';
import { mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { capturingDeps } from './in-process.js';
import { ROOT } from './run.js';

const NODE = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'ip-10-0-12-201.eu-west-1.compute.internal', uid: 'n-1', creationTimestamp: '2026-11-20T11:02:44Z', labels: { 'kubernetes.io/os': 'linux' }, managedFields: [{ manager: 'kubelet' }] },
  spec: { providerID: 'aws:///eu-west-1a/i-0c1d2e3f4a5b60718' },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-20T11:03:20Z' }], images: [{ names: ['big'], sizeBytes: 1 }] },
};
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'trainer-0', namespace: 'ml', uid: 'p-1', creationTimestamp: '2026-11-20T17:10:00Z' },
  spec: { containers: [{ name: 'main', image: 'trainer:1' }] },
  status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/6 nodes are available: 6 Insufficient nvidia.com/gpu.', lastTransitionTime: '2026-11-20T17:10:01Z' }] },
};
const EVENT = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'trainer-0.1', namespace: 'ml', uid: 'e-1', creationTimestamp: '2026-11-20T17:10:01Z' },
  involvedObject: { kind: 'Pod', namespace: 'ml', name: 'trainer-0', uid: 'p-1' },
  reason: 'FailedScheduling',
  message: '0/6 nodes are available: 6 Insufficient nvidia.com/gpu.',
  type: 'Warning',
  source: { component: 'default-scheduler' },
  firstTimestamp: '2026-11-20T17:10:01Z',
  lastTimestamp: '2026-11-20T17:10:01Z',
  count: 1,
};
const STATUS = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-autoscaler-status', namespace: 'kube-system', uid: 'cm-1' }, data: { status: 'Cluster-autoscaler status at 2026-11-20 17:10:05: Health: Healthy' } };

let kube: KubeApiServer;
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'casdoctor-record-'));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  kube = await startKubeApiServer({ nodes: [NODE], pods: [POD], events: [EVENT], configMaps: [STATUS] } as never, { maxPageSize: 2 });
});
afterAll(async () => {
  await kube?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts record in-process; `seen` resolves when a record matching the predicate was appended. */
function startRecord(dir: string) {
  const stop = new AbortController();
  const records: JournalRecord[] = [];
  const waiters: Array<{ pred: (r: JournalRecord) => boolean; resolve: () => void }> = [];
  const c = capturingDeps({
    liveOverrides: {
      record: {
        signal: stop.signal,
        backoff: async () => {},
        onRecord: (r: JournalRecord) => {
          records.push(r);
          for (const w of waiters.filter((x) => x.pred(r))) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
        },
      },
    },
  });
  const o: RecordOptions = { from: [], dir, kubeconfig: kube.kubeconfigPath, requestTimeout: '10s', output: 'table', failOn: 'never', color: false, debug: false };
  const done = runRecord(o, c.deps);
  return {
    stop: () => stop.abort(),
    done,
    records,
    stderr: c.stderr,
    seen: (pred: (r: JournalRecord) => boolean) => (records.some(pred) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pred, resolve }))),
  };
}

const named = (r: JournalRecord, type: JournalRecord['type'], name: string) => r.type === type && (r.object.metadata as { name?: string }).name === name;
const lists = (resource: string) => kube.requests.filter((r) => r.path.endsWith(`/${resource}`) && r.query.watch === undefined).length;

describe('casdoctor record', () => {
  it('lists, watches, relists after 410 Gone, resumes a dropped watch and a restart from the journal, and history reads it back', async () => {
    const dir = tmp();
    const rec = startRecord(dir);
    const nodesWatch = await kube.watch.opened('nodes');
    await kube.watch.opened('events');
    await kube.watch.opened('pods');
    await kube.watch.opened('configmaps');
    // Karpenter's CRD is served by the loopback server: NodeClaims are listed (none) and watched
    await kube.watch.opened('nodeclaims');
    expect(rec.records.filter((r) => r.type === 'LISTED').map((r) => `${r.resource} ${(r.object.metadata as { name: string }).name}`).sort()).toEqual([
      'configmaps cluster-autoscaler-status',
      'events trainer-0.1',
      'nodes ip-10-0-12-201.eu-west-1.compute.internal',
      'pods trainer-0',
    ]);
    // trimmed: no managedFields, no node images, a pod's scheduling state only
    const listedNode = rec.records.find((r) => r.resource === 'nodes')!.object as { metadata: Record<string, unknown>; status: Record<string, unknown> };
    expect(listedNode.metadata.managedFields).toBeUndefined();
    expect(listedNode.status.images).toBeUndefined();
    expect((rec.records.find((r) => r.resource === 'pods')!.object as { spec: Record<string, unknown> }).spec).toEqual({});

    // the node is drained and deleted; the watch carries it
    expect(kube.watch.emit('nodes', 'DELETED', { ...NODE, metadata: { ...NODE.metadata } })).toBe(1);
    await rec.seen((r) => named(r, 'DELETED', NODE.metadata.name));
    // a MODIFIED that changes nothing history reads is not written again
    kube.watch.emit('pods', 'MODIFIED', { ...POD, spec: { ...POD.spec, containers: [{ name: 'main', image: 'trainer:2' }] } });
    kube.watch.emit('pods', 'MODIFIED', { ...POD, status: { ...POD.status, conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-20T17:17:20Z' }] }, spec: { ...POD.spec, nodeName: 'ip-10-0-33-9.eu-west-1.compute.internal' } });
    await rec.seen((r) => r.resource === 'pods' && r.type === 'MODIFIED');
    expect(rec.records.filter((r) => r.resource === 'pods' && r.type === 'MODIFIED')).toHaveLength(1);

    // the events' version left the watch cache: an ERROR 410, then a fresh list and a new watch from its version
    const eventLists = lists('events');
    kube.watch.expire('events');
    await kube.watch.opened('events', 2);
    expect(lists('events')).toBe(eventLists + 1);

    // a dropped node watch resumes from the last version it saw (the deletion's), without listing again
    const nodeLists = lists('nodes');
    kube.watch.end('nodes');
    const resumed = await kube.watch.opened('nodes', 2);
    expect(Number(resumed.resourceVersion)).toBeGreaterThan(Number(nodesWatch.resourceVersion));
    expect(lists('nodes')).toBe(nodeLists);

    rec.stop();
    expect((await rec.done).exitCode).toBe(0);

    // a restart resumes every watch from the journal's state: no list, nothing lost in between
    const before = lists('nodes') + lists('events') + lists('pods');
    const again = startRecord(dir);
    const r3 = await kube.watch.opened('nodes', 3);
    expect(Number(r3.resourceVersion)).toBeGreaterThanOrEqual(Number(resumed.resourceVersion));
    await kube.watch.opened('events', 3);
    await kube.watch.opened('pods', 2);
    expect(lists('nodes') + lists('events') + lists('pods')).toBe(before);
    again.stop();
    await again.done;
    expect(mutatingKubeRequests(kube.requests)).toEqual([]);

    // history --from DIR: the Node is gone from the cluster, the journal still joins it to its instance and tells its end
    const c = capturingDeps({ realNow: () => new Date('2026-11-20T18:00:00Z') });
    await runHistory({ from: [dir], node: NODE.metadata.name, now: '2026-11-20T18:00:00Z', requestTimeout: '10s', output: 'json', failOn: 'never', color: false, debug: false }, c.deps);
    const report = JSON.parse(c.stdout());
    expect(report.node.instanceId).toBe('i-0c1d2e3f4a5b60718');
    expect(report.node.steps.map((s: { kind: string }) => s.kind)).toEqual(expect.arrayContaining(['node-registered', 'node-ready', 'node-deleted']));
    expect(report.sources.find((s: { kind: string }) => s.kind === 'event').state).toBe('read');

    // with a dump of the same objects beside it, each is counted once (the journal's last version)
    const dump = tmp();
    writeFileSync(join(dump, 'nodes.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [NODE] }));
    writeFileSync(join(dump, 'events.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [EVENT] }));
    const both = capturingDeps({ realNow: () => new Date('2026-11-20T18:00:00Z') });
    await runHistory({ from: [dir, dump], node: NODE.metadata.name, now: '2026-11-20T18:00:00Z', requestTimeout: '10s', output: 'json', failOn: 'never', color: false, debug: false }, both.deps);
    const twice = JSON.parse(both.stdout());
    expect(twice.node.steps.filter((s: { kind: string }) => s.kind === 'node-registered')).toHaveLength(1);
    expect(twice.node.steps.filter((s: { kind: string }) => s.kind === 'node-deleted')).toHaveLength(1);
  });

  it('a version compacted away while it was stopped is listed again on restart (410 Gone on the watch)', async () => {
    const dir = tmp();
    const rec = startRecord(dir);
    await kube.watch.opened('pods', kube.watch.count('pods') + 1);
    rec.stop();
    await rec.done;
    const podLists = lists('pods');
    kube.watch.goneBelow(1_000_000);
    const again = startRecord(dir);
    await again.seen((r) => r.resource === 'pods' && r.type === 'LISTED');
    expect(lists('pods')).toBe(podLists + 1);
    kube.watch.goneBelow(0);
    again.stop();
    await again.done;
  });

  it('refuses a directory that holds other files, and --from', async () => {
    const c = capturingDeps();
    const base = { kubeconfig: kube.kubeconfigPath, requestTimeout: '10s', output: 'table', failOn: 'never', color: false, debug: false } as const;
    await expect(runRecord({ ...base, from: ['x'], dir: tmp() }, c.deps)).rejects.toThrow(/--from does not apply/);
    const other = tmp();
    writeFileSync(join(other, 'notes.txt'), 'not a journal\n');
    await expect(runRecord({ ...base, from: [], dir: other }, c.deps)).rejects.toThrow(/not empty and holds no casdoctor journal/);
    expect(readdirSync(other)).toEqual(['notes.txt']);
  });
});

describe('the journal', () => {
  const rec = (i: number): JournalRecord => ({ at: new Date(Date.UTC(2026, 10, 20, 12, 0, i)).toISOString(), type: 'ADDED', resource: 'events', object: { metadata: { name: `e-${i}`, uid: `u-${i}` }, message: 'x'.repeat(150) } });
  const onDisk = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.jsonl')).reduce((a, n) => a + statSync(join(dir, n)).size, 0);

  it('never holds more than its size limit on disk: it rotates and removes the oldest files', () => {
    const dir = tmp();
    const j = new Journal(dir, { maxBytes: 64 * 1024, maxAgeMs: 86_400_000, maxFileBytes: 8 * 1024 });
    for (let i = 0; i < 2000; i++) {
      j.append(rec(i));
      expect(onDisk(dir)).toBeLessThanOrEqual(64 * 1024);
    }
    const files = readdirSync(dir).filter((n) => n.startsWith('journal-')).sort();
    expect(files.length).toBeGreaterThan(3);
    // the oldest went first: the first kept rotated file does not start at record 0
    expect(readFileSync(join(dir, files[0]), 'utf8')).not.toContain('"e-0"');
    expect(readFileSync(join(dir, 'current.jsonl'), 'utf8')).toContain('"e-1999"');
    expect(j.bytes).toBe(onDisk(dir));
  });

  it('removes files past the age limit when opened, and keeps the resourceVersions across restarts', () => {
    const dir = tmp();
    const now = Date.UTC(2026, 10, 28);
    const j = new Journal(dir, { maxBytes: 1 << 20, maxAgeMs: 7 * 86_400_000, maxFileBytes: 4096 }, () => now);
    for (let i = 0; i < 100; i++) j.append(rec(i));
    j.setVersion('nodes', '4711');
    const first = readdirSync(dir).filter((n) => n.startsWith('journal-')).sort()[0];
    const old = (now - 8 * 86_400_000) / 1000;
    utimesSync(join(dir, first), old, old);
    const k = new Journal(dir, { maxBytes: 1 << 20, maxAgeMs: 7 * 86_400_000, maxFileBytes: 4096 }, () => now);
    expect(readdirSync(dir)).not.toContain(first);
    expect(k.version('nodes')).toBe('4711');
  });
});

describe('deploy/record/rbac.yaml', () => {
  it("allows every request record sent above, with get, list and watch only, and nothing it does not read", () => {
    const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy', 'record', 'rbac.yaml'), 'utf8')).map((d) => d.toJS()) as Array<{ kind: string; metadata: { namespace?: string }; rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }> }>;
    const roles = docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role');
    for (const r of roles.flatMap((x) => x.rules ?? [])) for (const v of r.verbs) expect(['get', 'list', 'watch']).toContain(v);
    const sent = kube.requests.filter((r) => r.userAgent.startsWith('casdoctor-record'));
    expect(sent.length).toBeGreaterThan(10);
    const denied = sent.filter((r) => {
      const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)$/.exec(r.path);
      if (!m) return true;
      const [, group = '', ns, resource] = m;
      const verb = r.query.watch ? 'watch' : 'list';
      const name = /^metadata\.name=(.+)$/.exec(r.query.fieldSelector ?? '')?.[1];
      return !roles.some(
        (role) =>
          (role.kind === 'ClusterRole' || role.metadata.namespace === ns) &&
          (role.rules ?? []).some((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource) && rule.verbs.includes(verb) && (!rule.resourceNames || (name !== undefined && rule.resourceNames.includes(name)))),
      );
    });
    expect(denied.map((r) => `${r.path}?${new URLSearchParams(r.query).toString()}`)).toEqual([]);
    // and nothing granted that record never asks for
    const granted = roles.flatMap((x) => (x.rules ?? []).flatMap((r) => r.resources.map((res) => `${r.apiGroups[0]}/${res}`))).sort();
    expect(granted).toEqual(['/configmaps', '/events', '/nodes', '/pods', 'karpenter.sh/nodeclaims']);
  });
});
