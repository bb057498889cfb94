// Hostile or broken input files are input errors that name the file, never crashes or hangs: nesting deeper than the
// parser's stack, YAML alias bombs, FIFOs and other non-regular files, impossible timestamps; symlinked dumps are read
// (or skipped with a warning, never silently); a million identical problems are one warning with a count.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRegularFile, WarningCounter } from '../../src/gather/input-files.js';
import { readManifests, requireWorkloads } from '../../src/gather/manifests.js';
import { loadOffline } from '../../src/gather/offline.js';
import { InputError } from '../../src/model/errors.js';
import { DEMO } from '../commands/run.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-hostile-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
  '',
].join('\n');

function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

async function inputError(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

describe('--from (offline loader)', () => {
  it('refuses lists nested 100,000 deep as "too deep", naming the file', async () => {
    const deep = file('deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const e = await inputError(loadOffline([deep]));
    expect(e.message).toBe(`${deep}: too deep: values nested deeper than casdoctor reads; not a kubectl or aws dump`);
  });

  it('refuses YAML nested deeper than the parser can go as "too deep"', async () => {
    const deep = file('deep.yaml', `items: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
    expect((await inputError(loadOffline([deep]))).message).toContain(`${deep}: too deep`);
  });

  it('refuses a YAML alias bomb ("billion laughs") before expanding it', async () => {
    const bomb = file('bomb.yaml', BOMB);
    expect((await inputError(loadOffline([bomb]))).message).toBe(
      `${bomb}: YAML aliases expand beyond 100 references (an alias bomb?); refused`,
    );
  });

  it('reads a symlinked dump in a --from directory, and says why it skips a dangling link or a link to a directory', async () => {
    const dir = join(tmp, 'linked');
    mkdirSync(dir);
    symlinkSync(join(DEMO, 'pods.json'), join(dir, 'pods.json'));
    symlinkSync(join(tmp, 'missing.json'), join(dir, 'gone.json'));
    symlinkSync(DEMO, join(dir, 'demo'));
    const raw = await loadOffline([dir]);
    expect(raw.pods.length).toBeGreaterThan(10);
    expect(raw.warnings).toContain(
      `${join(dir, 'gone.json')}: symbolic link not followed (no such file or directory); skipped`,
    );
    expect(raw.warnings).toContain(
      `${join(dir, 'demo')}: symbolic link to a directory not followed; pass its target to --from to read it`,
    );
  });

  it('skips a FIFO inside a --from directory with a warning instead of blocking on it', async () => {
    const dir = join(tmp, 'with-fifo');
    mkdirSync(dir);
    cpSync(join(DEMO, 'nodes.json'), join(dir, 'nodes.json'));
    execFileSync('mkfifo', [join(dir, 'pods.json')]);
    const raw = await loadOffline([dir]);
    expect(raw.nodes.length).toBeGreaterThan(0);
    expect(raw.warnings).toContain(`${join(dir, 'pods.json')}: not a regular file; skipped`);
  });

  it('gives 200,000 null list items one warning with a count, not 200,000 warnings', async () => {
    const list = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8'));
    list.items = list.items.concat(new Array(200_000).fill(null));
    const nulls = file('null-pods.json', JSON.stringify(list));
    const raw = await loadOffline([nulls]);
    expect(raw.warnings.filter((w) => w.includes('not an object'))).toEqual([
      `${nulls}: a list item is not an object; ignored (and 199,999 more like this)`,
    ]);
    expect(raw.pods.length).toBeGreaterThan(10);
  });

  it('names at most 50 unknown kinds and counts the objects of the rest in one warning', async () => {
    const items = Array.from({ length: 1_000 }, (_, i) => ({ apiVersion: 'example.com/v1', kind: `Widget${i}`, metadata: { name: 'w' } }));
    const kinds = file('kinds.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const raw = await loadOffline([kinds]);
    expect(raw.warnings.filter((w) => w.includes(': kind Widget'))).toHaveLength(50);
    expect(raw.warnings).toContain(`${kinds}: an object of yet another kind not used by casdoctor; ignored (and 949 more like this)`);
    expect(raw.warnings).toHaveLength(52); // and: nothing casdoctor recognises in the file
  });

  it('drops a timestamp no API server can write (a 6-digit year) with a warning, so no report meets an Invalid Date', async () => {
    const list = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8'));
    list.items[0].metadata.creationTimestamp = '+275760-09-13T00:00:00.000Z';
    list.items[1].metadata.creationTimestamp = '9999-12-31T23:59:59Z';
    const far = file('far-future.json', JSON.stringify(list));
    const raw = await loadOffline([far]);
    expect(raw.pods[0].metadata.creationTimestamp).toBeUndefined();
    expect(raw.pods[1].metadata.creationTimestamp).toBe('9999-12-31T23:59:59Z');
    expect(raw.warnings.join('\n')).toContain(
      'metadata.creationTimestamp: expected an RFC 3339 time with a 4-digit year, got "+275760-09-13T00:00:00.000Z"',
    );
  });

  it('scrubs secret flags out of the CA Deployment it loads, so no finding can quote them', async () => {
    const list = JSON.parse(readFileSync(join(DEMO, 'deployments.json'), 'utf8'));
    const ca = list.items.find((d: any) => d.metadata.name === 'cluster-autoscaler');
    ca.spec.template.spec.containers[0].args.push('--password', 'hunter2', '--proxy-url=https://u:pw@proxy.corp');
    const raw = await loadOffline([file('deployments.json', JSON.stringify(list))]);
    const args = raw.deployments.find((d) => d.metadata.name === 'cluster-autoscaler')!.spec!.template!.spec!.containers[0].args!;
    expect(args.slice(-3)).toEqual(['--password', '[redacted]', '--proxy-url=https://u:[redacted]@proxy.corp']);
    expect(JSON.stringify(raw)).not.toContain('hunter2');
  });
});

describe('files that flags name', () => {
  it('refuses a FIFO as "not a regular file" at once instead of blocking on open', async () => {
    const fifo = join(tmp, 'eksctl.fifo');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    expect((await inputError(readRegularFile('--eksctl', fifo))).message).toBe(`--eksctl ${fifo}: not a regular file`);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses a directory and names a missing file', async () => {
    expect((await inputError(readRegularFile('--config', tmp))).message).toBe(`--config ${tmp}: not a regular file`);
    const missing = join(tmp, 'nope.yaml');
    expect((await inputError(readRegularFile('--node-groups', missing))).message).toBe(
      `--node-groups ${missing}: no such file or directory`,
    );
  });
});

describe('preflight -f (manifests)', () => {
  it('refuses a YAML alias bomb among the manifests', async () => {
    const bomb = file('bomb-manifest.yaml', BOMB);
    expect((await inputError(readManifests([bomb]))).message).toContain('YAML aliases expand beyond 100 references');
  });

  it('fails when nothing read is a workload: empty stdin, an empty directory, only Services and ConfigMaps', async () => {
    const empty = await readManifests(['-'], { readStdin: async () => '' });
    expect(() => requireWorkloads(empty, ['-'])).toThrow(
      'no workloads in the input: did `helm template` fail? (-f stdin: no Kubernetes objects)',
    );
    const dir = join(tmp, 'empty-dir');
    mkdirSync(dir);
    const emptyDirManifests = await readManifests([dir]);
    expect(() => requireWorkloads(emptyDirManifests, [dir])).toThrow(`(-f ${dir}: no file to read)`);
    const services = await readManifests(['-'], {
      readStdin: async () =>
        'apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n',
    });
    expect(() => requireWorkloads(services, ['-'])).toThrow('(-f stdin: only 1 ConfigMap, 1 Service)');
    const deployment = await readManifests(['-'], {
      readStdin: async () =>
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: web, image: nginx}\n',
    });
    expect(() => requireWorkloads(deployment, ['-'])).not.toThrow();
    // a workload without a container gives preflight nothing to check
    const hollow = await readManifests(['-'], {
      readStdin: async () => 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {}\n',
    });
    expect(() => requireWorkloads(hollow, ['-'])).toThrow('1 workload(s) without a container to check');
  });
});

describe('WarningCounter', () => {
  it('keeps first-seen order and counts repeats', () => {
    const w = new WarningCounter();
    for (const t of ['a', 'b', 'a', 'a']) w.add(t);
    expect(w.flush()).toEqual(['a (and 2 more like this)', 'b']);
    expect(w.flush()).toEqual([]);
  });
});
