// Hostile input through the real CLI: each case exits 2 with an input error that names the file and the problem (never
// "This is a bug", never a hang), a CI gate with nothing to check fails, secrets on CA's command line are not
// printed, and `snapshot --force` replaces a planted symlink instead of writing through it.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const NOW = ['--now', DEMO_NOW];
const EX = join(ROOT, 'examples', 'preflight');
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-hostile-cli-'));
  chmodSync(tmp, 0o755);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The CLI with a short timeout: a run that blocks (on a FIFO) comes back with code null. */
function quick(args: string[], input = ''): CliResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), ...args], {
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 15_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectInputError(r: CliResult, message: string | RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).not.toContain('This is a bug');
  expect(r.stderr).not.toContain('unexpected failure');
  if (typeof message === 'string') expect(r.stderr).toContain(message);
  else expect(r.stderr).toMatch(message);
}

function demoCopy(name: string): string {
  const dir = join(tmp, name);
  cpSync(DEMO, dir, { recursive: true });
  return dir;
}

describe('input errors are input errors, not bugs (exit 2, the file named)', () => {
  it('JSON nested 100,000 levels deep', () => {
    const f = join(tmp, 'deep.json');
    writeFileSync(f, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expectInputError(cli(['why-pending', '--all', '--from', f, ...NOW]), `error: ${f}: too deep`);
    expectInputError(cli(['asg-audit', '--from', DEMO, '--iam-policy', f, ...NOW]), `error: --iam-policy ${f}: too deep`);
  });

  it('a pod with a field nested 50,000 levels deep, re-exported by snapshot', () => {
    const pods = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8'));
    const f = join(tmp, 'deep-pod.json');
    // JSON.parse takes any depth: the nesting is written as text
    const text = JSON.stringify(pods).replace('"spec":{', `"spec":{"x-deep":${'{"x":'.repeat(50_000)}1${'}'.repeat(50_000)},`);
    writeFileSync(f, text);
    expectInputError(
      cli(['snapshot', '--from', f, '-o', join(tmp, 'deep-snapshot'), ...NOW]),
      'error: an input object is too deep',
    );
  });

  it('a YAML alias bomb, in --from and in -f', () => {
    const f = join(tmp, 'bomb.yaml');
    writeFileSync(
      f,
      ['a: &a [x,x,x,x,x,x,x,x,x]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]', 'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]', ''].join('\n'),
    );
    const message = `error: ${f}: YAML aliases expand beyond 100 references (an alias bomb?); refused`;
    expectInputError(cli(['why-pending', '--all', '--from', f, ...NOW]), message);
    expectInputError(cli(['preflight', '-f', f, ...NOW]), message);
  });

  // root reads any file: as root, drop the two capabilities that let it (it stays root, so it still reaches
  // bin/casdoctor.js wherever the checkout lives, even under a 0700 home); as anyone else chmod is enough
  const isRoot = process.getuid?.() === 0;
  const setpriv = spawnSync('setpriv', ['--version']).status === 0;
  const DROP_READ_ANY = ['--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search'];
  it.runIf(process.platform === 'linux' && (!isRoot || setpriv))('a dump file it may not read (EACCES)', () => {
    if (isRoot) {
      // the test's own premise: without these capabilities root cannot read a mode-000 file (a kernel without them
      // fails here, not in the CLI's assertion)
      const probe = join(tmp, 'probe');
      writeFileSync(probe, 'x', { mode: 0o000 });
      expect(spawnSync('setpriv', [...DROP_READ_ANY, 'cat', probe]).status).not.toBe(0);
    }
    const dir = join(tmp, 'unreadable');
    mkdirSync(dir, { mode: 0o755 });
    cpSync(join(DEMO, 'pods.json'), join(dir, 'pods.json'));
    chmodSync(join(dir, 'pods.json'), 0o000);
    const args = [join(ROOT, 'bin', 'casdoctor.js'), 'why-pending', '--all', '--from', dir, ...NOW];
    const r = isRoot
      ? spawnSync('setpriv', [...DROP_READ_ANY, process.execPath, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
      : spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expectInputError({ code: r.status, stdout: r.stdout, stderr: r.stderr }, `error: --from ${join(dir, 'pods.json')}: permission denied`);
  });

  it('a far-future timestamp (the last day JavaScript can hold) is dropped with a warning, not a crash', () => {
    const dir = demoCopy('far-future');
    const pods = JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8'));
    for (const p of pods.items) p.metadata.creationTimestamp = '+275760-09-13T00:00:00.000Z';
    writeFileSync(join(dir, 'pods.json'), JSON.stringify(pods));
    const r = cli(['scale-down-blockers', '--from', dir, ...NOW]);
    expect([0, 1]).toContain(r.code);
    expect(r.stderr).not.toContain('unexpected failure');
    expect(r.stderr).toContain('metadata.creationTimestamp: expected an RFC 3339 time with a 4-digit year');
  });
});

describe('files that flags name must be regular files (a FIFO blocked forever)', () => {
  let fifo: string;
  beforeAll(() => {
    fifo = join(tmp, 'flag.fifo');
    spawnSync('mkfifo', [fifo]);
  });
  const manifests = ['-f', join(EX, 'clean')];
  it.each([
    ['--eksctl', ['preflight', ...manifests, '--eksctl']],
    ['--node-groups', ['preflight', ...manifests, '--node-groups']],
    ['--config', ['preflight', ...manifests, '--config']],
    ['--iam-policy', ['asg-audit', '--from', DEMO, '--iam-policy']],
  ])('%s <fifo> exits 2 "not a regular file" at once', (flag, args) => {
    const r = quick([...(args as string[]), fifo, ...NOW]);
    expectInputError(r, `error: ${flag} ${fifo}: not a regular file`);
  });
});

describe('a CI gate with nothing checked fails', () => {
  it('preflight -f - with empty stdin (a failed `helm template |`) exits 2', () => {
    expectInputError(
      quick(['preflight', '-f', '-', ...NOW], ''),
      'error: no workloads in the input: did `helm template` fail? (-f stdin: no Kubernetes objects)',
    );
  });

  it('an empty directory, or only Services and ConfigMaps, exits 2', () => {
    const empty = join(tmp, 'empty-manifests');
    mkdirSync(empty);
    expectInputError(quick(['preflight', '-f', empty, ...NOW]), `(-f ${empty}: no file to read)`);
    const services = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n';
    expectInputError(quick(['preflight', '-f', '-', ...NOW], services), '(-f stdin: only 1 ConfigMap, 1 Service)');
  });

  it('a Pod or Deployment without a container to check exits 2 too (found in review: it passed with a warning)', () => {
    expectInputError(
      quick(['preflight', '-f', '-', ...NOW], 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n'),
      '(-f stdin: only 1 Pod; 1 workload(s) without a container to check)',
    );
    expectInputError(
      quick(['preflight', '-f', '-', ...NOW], 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      containers: []\n'),
      '(-f stdin: only 1 Deployment; 1 workload(s) without a container to check)',
    );
  });

  it('still passes manifests that hold a workload', () => {
    const r = quick(['preflight', '-f', join(EX, 'clean'), '--eksctl', join(EX, 'cluster.yaml'), ...NOW]);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('secrets on the Cluster Autoscaler command line', () => {
  it('why-pending quotes CA args as evidence without the values of secret flags or URL passwords', () => {
    const dir = demoCopy('ca-secrets');
    const list = JSON.parse(readFileSync(join(dir, 'deployments.json'), 'utf8'));
    const ca = list.items.find((d: { metadata: { name: string } }) => d.metadata.name === 'cluster-autoscaler');
    ca.spec.template.spec.containers[0].args.push(
      '--password',
      'hunter2split',
      '--api-token=tok3nvalue',
      '--proxy=https://bob:s3cretpw@proxy.corp.internal',
      '--max-nodes-total=abc', // an invalid value: ca-config-invalid quotes the whole command line
    );
    writeFileSync(join(dir, 'deployments.json'), JSON.stringify(list));
    for (const format of ['table', 'json']) {
      const r = cli(['why-pending', '--all', '--from', dir, ...NOW, '-o', format, '--fail-on', 'never']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('--password [redacted]');
      for (const secret of ['hunter2split', 'tok3nvalue', 's3cretpw']) {
        expect(r.stdout, `${format}: ${secret}`).not.toContain(secret);
        expect(r.stderr).not.toContain(secret);
      }
    }
  });
});

describe('snapshot --force', () => {
  it('replaces a symlink planted at a snapshot file name instead of overwriting its target', () => {
    const dir = join(tmp, 'snap');
    const victim = join(tmp, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    expect(cli(['snapshot', '--from', DEMO, '-o', dir, ...NOW]).code).toBe(0);
    for (const f of ['pods.json', 'README.md']) {
      rmSync(join(dir, f));
      symlinkSync(victim, join(dir, f));
    }
    const r = cli(['snapshot', '--from', DEMO, '-o', dir, ...NOW, '--force']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    for (const f of ['pods.json', 'README.md']) expect(lstatSync(join(dir, f)).isFile(), f).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8')).items.length).toBeGreaterThan(10);
  });

  it('does not write the redaction map through a symlink either', () => {
    const dir = join(tmp, 'snap-map');
    const map = join(tmp, 'map.json');
    const victim = join(tmp, 'victim-map.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, map);
    const r = cli(['snapshot', '--from', DEMO, '-o', dir, ...NOW, '--redact', '--redact-salt', 's', '--redact-map', map]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(map).isFile()).toBe(true);
    expect(lstatSync(map).mode & 0o777).toBe(0o600);
  });
});
