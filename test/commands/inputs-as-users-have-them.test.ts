// Inputs as users have them (issue 28): gzip'd dumps and manifests, a byte-order mark from a PowerShell redirect, YAML
// files concatenated without `---`. Each is read as the plain file would be, or refused with what to do instead.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOffline } from '../../src/gather/offline.js';
import { decompressed, loadableName, readRegularFile, zstdSupported } from '../../src/gather/input-files.js';
import { InputError } from '../../src/model/errors.js';
import { dumpTime } from '../../src/simulate/dump-time.js';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const NOW = ['--now', DEMO_NOW];
const MANIFESTS = join(ROOT, 'examples', 'preflight', 'manifests');
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-inputs-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The demo with some files gzip'd in place (pods.json → pods.json.gz), or renamed to a name that says nothing. */
function gzipCopy(name: string, files: string[], rename?: (f: string) => string): string {
  const dir = join(tmp, name);
  cpSync(DEMO, dir, { recursive: true });
  for (const f of files) {
    const bytes = readFileSync(join(dir, f));
    rmSync(join(dir, f));
    writeFileSync(join(dir, rename ? rename(f) : `${f}.gz`), gzipSync(bytes));
  }
  return dir;
}

describe('gzip for every input, recognised by its magic bytes', () => {
  it("a dump with gzip'd pods, nodes and events gives the report of the plain dump (real CLI)", () => {
    const dir = gzipCopy('gz', ['pods.json', 'nodes.json', 'events.json']);
    const plain = cli(['why-pending', '-A', '--from', DEMO, ...NOW, '-o', 'json']);
    const gz = cli(['why-pending', '-A', '--from', dir, ...NOW, '-o', 'json']);
    expect(gz.stderr).not.toContain('ignored');
    expect(gz.code).toBe(plain.code);
    const strip = (s: string) => JSON.parse(s.replaceAll(dir, '<dump>').replaceAll(DEMO, '<dump>').replaceAll('.json.gz', '.json'));
    expect(strip(gz.stdout)).toEqual(strip(plain.stdout));
  });

  it('a gzip file named anything (no .gz) is read by content, with the objects of the plain file', async () => {
    const dir = gzipCopy('gz-named', ['pods.json', 'nodes.json'], (f) => f.replace('.json', '.dat'));
    // .dat is not a name the walk reads: given as files, they are read by content
    const raw = await loadOffline([join(dir, 'pods.dat'), join(dir, 'nodes.dat')]);
    const plain = await loadOffline([join(DEMO, 'pods.json'), join(DEMO, 'nodes.json')]);
    expect(raw.pods.length).toBe(plain.pods.length);
    expect(raw.nodes.map((n) => n.metadata.name)).toEqual(plain.nodes.map((n) => n.metadata.name));
    expect(raw.warnings).toEqual([]);
  });

  it("a gzip'd YAML dump and a gzip'd manifest for preflight -f", async () => {
    const yamlDump = join(tmp, 'nodes.yaml.gz');
    const { stringify } = await import('yaml');
    writeFileSync(yamlDump, gzipSync(stringify(JSON.parse(readFileSync(join(DEMO, 'nodes.json'), 'utf8')))));
    const raw = await loadOffline([yamlDump]);
    expect(raw.nodes.length).toBeGreaterThan(0);

    const dir = join(tmp, 'manifests-gz');
    cpSync(MANIFESTS, dir, { recursive: true });
    const plain = cli(['preflight', '-f', MANIFESTS, '--node-groups', join(ROOT, 'examples', 'preflight', 'node-groups.yaml'), ...NOW, '-o', 'json']);
    for (const f of readdirSync(dir)) {
      writeFileSync(join(dir, `${f}.gz`), gzipSync(readFileSync(join(dir, f))));
      rmSync(join(dir, f));
    }
    const gz = cli(['preflight', '-f', dir, '--node-groups', join(ROOT, 'examples', 'preflight', 'node-groups.yaml'), ...NOW, '-o', 'json']);
    expect(gz.code).toBe(plain.code);
    const findings = (s: string, root: string) =>
      (JSON.parse(s.replaceAll(root, '<m>').replaceAll('.yaml.gz', '.yaml')) as { findings: Array<{ id: string }> }).findings.map((f) => f.id).sort();
    expect(findings(gz.stdout, dir)).toEqual(findings(plain.stdout, MANIFESTS));
    expect(findings(gz.stdout, dir).length).toBeGreaterThan(0);
  });

  it('a flag file (--node-groups) may be gzip', async () => {
    const f = join(tmp, 'node-groups.yaml.gz');
    const text = readFileSync(join(ROOT, 'examples', 'preflight', 'node-groups.yaml'), 'utf8');
    writeFileSync(f, gzipSync(text));
    expect(await readRegularFile('--node-groups', f)).toBe(text);
  });

  it('a decompression bomb stops at the bound and is refused, naming the file', async () => {
    const bomb = gzipSync(Buffer.alloc(8 << 20, ' '));
    expect(bomb.length).toBeLessThan(64 << 10);
    const err = await decompressed('--from', 'bomb.json.gz', bomb, 1 << 20).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(
      '--from bomb.json.gz: decompresses to more than 1 MiB (a decompression bomb?); refused: decompress it yourself and pass the result if it is a real dump',
    );
  });

  it('a truncated gzip file is an input error naming the file, not a crash (real CLI)', () => {
    const f = join(tmp, 'cut.json.gz');
    const whole = gzipSync(readFileSync(join(DEMO, 'pods.json')));
    writeFileSync(f, whole.subarray(0, whole.length >> 1));
    const r = cli(['why-pending', '-A', '--from', f, ...NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: --from ${f}: gzip data that cannot be decompressed (unexpected end of file)`);
    expect(r.stderr).not.toContain('This is a bug');
  });

  it.runIf(!zstdSupported())('zstd on a Node.js without it: the file is named with the command that decompresses it', () => {
    const f = join(tmp, 'pods.json.zst');
    // a zstd frame's magic number, then bytes this runtime cannot read anyway
    writeFileSync(f, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x00, 0x00, 0x00]));
    const r = cli(['why-pending', '-A', '--from', f, ...NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: --from ${f}: zstd-compressed, and this Node.js (${process.version}) cannot decompress zstd: decompress it first (\`zstd -d -k ${f}\`) or use gzip`);
  });

  it('a walk reads compressed and rotated names; content decides what they are', () => {
    const dump = new Set(['.json', '.yaml', '.yml', '.log', '.txt', '.gz', '.prom', '']);
    for (const n of ['pods.json.gz', 'cluster-autoscaler.log.1', 'cluster-autoscaler.log.1.gz', 'pods.json.zst', 'ca.log.12'])
      expect(loadableName(n, dump), n).toBe(true);
    const manifests = new Set(['.json', '.yaml', '.yml']);
    expect(loadableName('web.yaml.gz', manifests)).toBe(true);
    expect(loadableName('README.md', manifests)).toBe(false);
    expect(loadableName('notes.md.gz', manifests)).toBe(false);
  });
});

describe('rotated and several logs of one CA are one log, merged by time', () => {
  /** The demo's CA log cut into entries (a line with a klog header and the continuation lines after it). */
  function entries(): string[] {
    const out: string[] = [];
    for (const line of readFileSync(join(DEMO, 'cluster-autoscaler.log'), 'utf8').split('\n')) {
      if (line === '') continue;
      if (/^[IWEF]\d{4} /.test(line) || out.length === 0) out.push(line);
      else out[out.length - 1] += `\n${line}`;
    }
    return out;
  }
  const text = (es: string[]) => `${es.join('\n')}\n`;
  const strip = ({ source: _source, ...rest }: Record<string, unknown>) => rest;

  it('logrotate\'s .log.2.gz, .log.1 and .log give the summary of the whole log, and the overview names them (real CLI)', async () => {
    const es = entries();
    expect(es.length).toBeGreaterThan(30);
    const dir = gzipCopy('rotated', []);
    const third = Math.floor(es.length / 3);
    rmSync(join(dir, 'cluster-autoscaler.log'));
    writeFileSync(join(dir, 'cluster-autoscaler.log.2.gz'), gzipSync(text(es.slice(0, third))));
    writeFileSync(join(dir, 'cluster-autoscaler.log.1'), text(es.slice(third, 2 * third)));
    writeFileSync(join(dir, 'cluster-autoscaler.log'), text(es.slice(2 * third)));
    const now = new Date(DEMO_NOW);
    const whole = await loadOffline([DEMO], { now });
    const rotated = await loadOffline([dir], { now });
    expect(rotated.caLogs).toHaveLength(1);
    const log = rotated.caLogs?.[0];
    expect(log?.source).toEqual({
      kind: 'file',
      path: ['cluster-autoscaler.log', 'cluster-autoscaler.log.1', 'cluster-autoscaler.log.2.gz'].map((f) => join(dir, f)).join(', '),
      paths: ['cluster-autoscaler.log', 'cluster-autoscaler.log.1', 'cluster-autoscaler.log.2.gz'].map((f) => join(dir, f)),
    });
    expect(strip(log as never)).toEqual(strip(whole.caLogs?.[0] as never));

    const r = cli(['--from', dir, ...NOW, '-y']);
    expect(r.stdout).toContain(
      `CA log: 3 files merged by time (${join(dir, 'cluster-autoscaler.log')}, ${join(dir, 'cluster-autoscaler.log.1')}, ${join(dir, 'cluster-autoscaler.log.2.gz')}), ${whole.caLogs?.[0].firstTime} to ${whole.caLogs?.[0].lastTime}`,
    );
    const plain = cli(['--from', DEMO, ...NOW, '-y']);
    const caHealth = (s: string) => s.slice(s.indexOf('CA health'), s.indexOf('Pending pods'));
    expect(caHealth(r.stdout)).toBe(caHealth(plain.stdout));
  });

  it('two files of one CA whose entries interleave (two exports of one window) are merged entry by entry', async () => {
    const es = entries();
    const dir = join(tmp, 'interleaved');
    cpSync(DEMO, dir, { recursive: true });
    rmSync(join(dir, 'cluster-autoscaler.log'));
    writeFileSync(join(dir, 'ca-a.log'), text(es.filter((_, i) => i % 2 === 0)));
    writeFileSync(join(dir, 'ca-b.log'), text(es.filter((_, i) => i % 2 === 1)));
    const now = new Date(DEMO_NOW);
    const merged = await loadOffline([dir], { now });
    const whole = await loadOffline([DEMO], { now });
    expect(strip(merged.caLogs?.[0] as never)).toEqual(strip(whole.caLogs?.[0] as never));
  });
});

describe('without --now, a dump is read as at its own time', () => {
  it("why-pending and the overview measure ages from the dump's newest record and say so; --now still overrides (real CLI)", () => {
    const r = cli(['why-pending', '-A', '--from', DEMO]);
    // the demo's newest record is CA's last log line (its status ConfigMap is 4 s older, its newest event older still)
    expect(r.stdout.split('\n')[0]).toContain(`now 2026-11-21T09:59:56.124Z (the dump's time; --now overrides) · from ${DEMO}`);
    expect(r.stdout).not.toContain('ca-status-stale');
    const json = JSON.parse(cli(['why-pending', '-A', '--from', DEMO, '-o', 'json']).stdout) as { now: string };
    expect(json.now).toBe('2026-11-21T09:59:56.124Z');
    const overview = cli(['--from', DEMO, '-y']);
    expect(overview.stdout).toContain('status ConfigMap: Healthy, updated 4s ago');

    const given = cli(['why-pending', '-A', '--from', DEMO, ...NOW]);
    expect(given.stdout.split('\n')[0]).toContain(`now 2026-11-21T10:00:00.000Z · from ${DEMO}`);
  });

  it("a snapshot's own record of when it was taken is the newest; a dump with no time says the clock is the wall's", async () => {
    const dir = join(tmp, 'snapshot-record');
    cpSync(DEMO, dir, { recursive: true });
    writeFileSync(join(dir, 'README.md'), '# casdoctor snapshot\n\nTaken 2026-11-21T10:00:07.000Z by casdoctor 1.0.0 from live: prod.\n');
    const raw = await loadOffline([dir]);
    expect(raw.takenAt).toBe('2026-11-21T10:00:07.000Z');
    expect(dumpTime(raw)).toEqual({ at: new Date('2026-11-21T10:00:07.000Z'), from: "the snapshot's record" });
    // the demo's own README is no snapshot's
    expect((await loadOffline([join(DEMO, 'nodes.json')])).takenAt).toBeUndefined();

    const bare = join(tmp, 'no-time');
    cpSync(DEMO, bare, { recursive: true, filter: (f) => !/(events\.json|configmaps-kube-system\.json|cluster-autoscaler\.log|README\.md)$/.test(f) });
    const r = cli(['why-pending', '-A', '--from', bare]);
    expect(r.stdout.split('\n')[0]).toMatch(/now \d{4}-\d\d-\d\dT[\d:.]+Z \(the wall clock: the dump holds no time; pass --now\)/);
  });

  it('the newest of the status ConfigMap, the events and the log wins, whichever it is', async () => {
    const raw = await loadOffline([DEMO]);
    expect(dumpTime(raw)?.from).toBe("CA's log");
    const noLog = { ...raw, caLogs: [] };
    // CA's status and its last event were written in the same loop
    expect(dumpTime(noLog)?.at.toISOString()).toBe('2026-11-21T09:59:55.392Z');
    expect(dumpTime({ ...noLog, events: [] })?.from).toBe("CA's status ConfigMap");
    const noStatus = { ...noLog, configMaps: [] };
    expect(dumpTime(noStatus)?.from).toBe('the newest event');
    expect(dumpTime({ ...noStatus, events: [] })).toBeUndefined();
  });
});

describe('partial and wrong-kind inputs are recognised, never diagnosed as a cluster', () => {
  /** The demo with pods.json cut down to what `keep` keeps; `one` writes the single pod as kubectl get pod NAME does. */
  function partialCopy(name: string, keep: (p: { metadata: { namespace: string; name: string } }) => boolean, one = false): string {
    const dir = join(tmp, name);
    cpSync(DEMO, dir, { recursive: true });
    const pods = JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8')) as { items: Array<{ metadata: { namespace: string; name: string } }> };
    pods.items = pods.items.filter(keep);
    writeFileSync(join(dir, 'pods.json'), JSON.stringify(one ? pods.items[0] : pods, null, 4));
    return dir;
  }

  it('pods of one namespace: no "CA is not scaling", no "fits an existing node"; not evaluated with what to add (real CLI)', () => {
    const dir = partialCopy('web-only', (p) => p.metadata.namespace === 'web');
    const whole = JSON.parse(cli(['why-pending', '-A', '--from', DEMO, ...NOW, '-o', 'json']).stdout) as Report;
    type Report = { pods: Array<{ namespace: string; name: string; verdict: string; summary: string }>; skipped: Array<{ checkId: string; detail: string }> };
    // on the whole demo the web pod fits no node (the nodes are full of other namespaces' pods)
    const api = (r: Report) => r.pods.find((p) => p.name.startsWith('api-'));
    expect(api(whole)?.verdict).not.toBe('fits-existing-node');
    const r = cli(['why-pending', '-A', '--from', dir, ...NOW, '-o', 'json']);
    const part = JSON.parse(r.stdout) as Report;
    expect(api(part)?.verdict).toBe('not-evaluated');
    expect(api(part)?.summary).toMatch(
      /^whether it fits existing node \S+ is not known: the input holds no pods of namespace\(s\) analytics, batch, databases, kube-system, ml and 3 more, whose workloads run pods \(pods of namespace web only, as `kubectl get pods -n NAMESPACE` prints\): add `kubectl get pods -A -o json`$/,
    );
    expect(part.pods.every((p) => p.verdict !== 'fits-existing-node')).toBe(true);
    expect(part.skipped.find((s) => s.checkId === 'ca-pod-unhealthy')?.detail).toContain('the input holds no pods of namespace(s)');
    expect(part.skipped.find((s) => s.checkId === 'pod-fits-existing-node')).toBeDefined();
    const text = cli(['--from', dir, ...NOW, '-y']).stdout;
    expect(text).not.toContain('CA IS NOT SCALING NOW');
    expect(text).not.toContain('ca-pod-unhealthy');
    // nodes whose pods were left out look empty: no "removable" from part of the pods
    expect(text).toContain('Scale-down\n  not evaluated: the input holds no pods of namespace(s) analytics,');
    const sd = cli(['scale-down-blockers', '--from', dir, ...NOW]);
    expect(sd.code).toBe(2);
    expect(sd.stderr).toContain("error: scale-down cannot be evaluated on part of the cluster's pods: the input holds no pods of namespace(s) analytics,");
    expect(sd.stdout).not.toContain('removable');
  });

  it('one pod (kubectl get pod NAME -o json) is recognised as one pod, not a cluster', () => {
    const dir = partialCopy('one-pod', (p) => p.metadata.name === 'api-5jnmtxgjl-prp7m', true);
    const r = JSON.parse(cli(['why-pending', '-A', '--from', dir, ...NOW, '-o', 'json']).stdout) as {
      pods: Array<{ verdict: string; summary: string }>;
      skipped: Array<{ checkId: string; detail: string }>;
    };
    expect(r.pods).toHaveLength(1);
    expect(r.pods[0].verdict).toBe('not-evaluated');
    expect(r.pods[0].summary).toContain("the input's pods came one by one (1 Pod object(s), as `kubectl get pod NAME -o json` prints), not as the cluster's list: add `kubectl get pods -A -o json`");
    expect(r.skipped.find((s) => s.checkId === 'ca-pod-unhealthy')?.detail).toContain('one by one');
  });

  it("no CA pod in the input while CA's status ConfigMap is seconds old: not evaluated, not \"CA has no pod\"", () => {
    // only CA's own pod left out: every namespace still has pods, so only the fresh status says the input is partial
    const dir = partialCopy('no-ca-pod', (p) => !p.metadata.name.startsWith('cluster-autoscaler-'));
    const r = JSON.parse(cli(['why-pending', '-A', '--from', dir, ...NOW, '-o', 'json']).stdout) as {
      findings: Array<{ checkId: string }>;
      skipped: Array<{ checkId: string; detail: string }>;
    };
    expect(r.findings.map((f) => f.checkId)).not.toContain('ca-pod-unhealthy');
    expect(r.skipped.find((s) => s.checkId === 'ca-pod-unhealthy')?.detail).toBe(
      "no pod of kube-system/cluster-autoscaler is in the input, yet CA's status ConfigMap was updated 8s before the report's time: the input's pods are partial; add `kubectl -n kube-system get pods -o json`",
    );
    // a stale status says nothing of the sort: CA may really be gone
    const stale = JSON.parse(cli(['why-pending', '-A', '--from', dir, '--now', '2026-11-21T11:00:00Z', '-o', 'json']).stdout) as { findings: Array<{ checkId: string }> };
    expect(stale.findings.map((f) => f.checkId)).toContain('ca-pod-unhealthy');
  });

  it('a dump without nodes says so once, and the overview does not count nodes it was not given', () => {
    const dir = join(tmp, 'no-nodes');
    cpSync(DEMO, dir, { recursive: true, filter: (f) => !f.endsWith('nodes.json') });
    const w = cli(['why-pending', '-A', '--from', dir, ...NOW]);
    expect(w.stderr).toContain(
      'warning: no Nodes in the input: whether a Pending pod fits an existing node, and scale-down, are not evaluated (add `kubectl get nodes -o json`)',
    );
    const r = cli(['--from', dir, ...NOW, '-y']);
    expect(r.stdout).toContain('Scale-down\n  not evaluated: no Nodes in the input (add `kubectl get nodes -o json`)');
  });

  it('workload manifests given to --from: "did you mean preflight -f?" (real CLI)', () => {
    const r = cli(['--from', MANIFESTS, ...NOW, '-y']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: ${MANIFESTS}: these look like manifests (no Node, and no object has the uid, resourceVersion or status the API server adds): did you mean casdoctor preflight -f ${MANIFESTS}?`,
    );
    expect(r.stdout).not.toContain('CA IS NOT SCALING NOW');
    // preflight itself may read a cluster's objects from --from beside its -f
    const pf = cli(['preflight', '-f', MANIFESTS, '--from', join(ROOT, 'test', 'fixtures', 'preflight-corpus', 'pods-only-dump'), ...NOW, '-o', 'json']);
    expect(pf.stderr).not.toContain('look like manifests');
  });
});

describe("a UTF-8 byte-order mark (PowerShell's redirect) is not part of the document", () => {
  it('a JSON dump with a BOM is read, and an error in it is at its real line (real CLI)', () => {
    const dir = join(tmp, 'bom');
    cpSync(DEMO, dir, { recursive: true });
    for (const f of ['pods.json', 'nodes.json'])
      writeFileSync(join(dir, f), `\ufeff${readFileSync(join(dir, f), 'utf8')}`);
    const plain = cli(['why-pending', '-A', '--from', DEMO, ...NOW, '-o', 'json']);
    const bom = cli(['why-pending', '-A', '--from', dir, ...NOW, '-o', 'json']);
    expect(bom.stderr).toBe(plain.stderr);
    expect(JSON.parse(bom.stdout.replaceAll(dir, '<d>'))).toEqual(JSON.parse(plain.stdout.replaceAll(DEMO, '<d>')));

    const bad = join(tmp, 'bom-bad.json');
    writeFileSync(bad, '\ufeff{\n  "kind": "List",\n  "items": [\n    {"a" 1}\n  ]\n}\n');
    const r = cli(['why-pending', '-A', '--from', bad, ...NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${bad}:4:10: malformed JSON: Expected ':' after property name`);
  });

  it('a manifest and a flag file with a BOM', async () => {
    const f = join(tmp, 'bom-node-groups.yaml');
    const text = readFileSync(join(ROOT, 'examples', 'preflight', 'node-groups.yaml'), 'utf8');
    writeFileSync(f, `\ufeff${text}`);
    expect(await readRegularFile('--node-groups', f)).toBe(text);
    const dir = join(tmp, 'bom-manifests');
    cpSync(MANIFESTS, dir, { recursive: true });
    writeFileSync(join(dir, 'web.yaml'), `\ufeff${readFileSync(join(dir, 'web.yaml'), 'utf8')}`);
    const r = cli(['preflight', '-f', dir, '--node-groups', f, ...NOW, '-o', 'json']);
    expect([0, 1]).toContain(r.code);
    expect(r.stderr).not.toContain('malformed');
  });
});

describe('YAML files concatenated without `---`', () => {
  it('`cat *.yaml | casdoctor preflight -f -` says what went wrong, at the line of the second object (real CLI)', () => {
    const a = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n';
    const b = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: b\n';
    const f = join(tmp, 'joined.yaml');
    writeFileSync(f, a + b);
    const r = cli(['preflight', '-f', f, ...NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${f}:5:1: malformed YAML: duplicate key "apiVersion" in one mapping (kubectl and kustomize reject it: keep one); did you concatenate files without \`---\` between them?`,
    );
  });

  it('a duplicate key inside an object gets no such hint', () => {
    const f = join(tmp, 'dup.yaml');
    writeFileSync(f, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  name: b\n');
    const r = cli(['preflight', '-f', f, ...NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('duplicate key "name" in one mapping (kubectl and kustomize reject it: keep one)');
    expect(r.stderr).not.toContain('concatenate');
  });
});
