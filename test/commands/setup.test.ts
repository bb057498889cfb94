// Issue 15, set-up: bin names that work on PATH, and a demo that does not recompile a current dist/.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './run.js';

const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-setup-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const env = { ...process.env, NO_COLOR: '1', PATH: `${join(ROOT, 'bin')}:${process.env.PATH}` };

describe('bin names on PATH', () => {
  it('package.json names bin/casdoctor and bin/kubectl-casdoctor, executable files without .js', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ casdoctor: 'bin/casdoctor', 'kubectl-casdoctor': 'bin/kubectl-casdoctor' });
    for (const f of Object.values(pkg.bin)) accessSync(join(ROOT, f), constants.X_OK);
  });

  it('with bin/ on PATH, `casdoctor` and `kubectl-casdoctor` (what `kubectl casdoctor` runs) work from any directory', () => {
    const v = spawnSync('casdoctor', ['version'], { cwd: tmp, env, encoding: 'utf8' });
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const plugin = spawnSync('kubectl-casdoctor', ['--help'], { cwd: tmp, env, encoding: 'utf8' });
    expect(plugin.status).toBe(0);
    expect(plugin.stdout).toContain('Usage: kubectl casdoctor [options] [command]');
  });

  it('a symbolic link to bin/casdoctor, e.g. in ~/.local/bin, works too', () => {
    const dir = join(tmp, 'local-bin');
    mkdirSync(dir);
    symlinkSync(join(ROOT, 'bin', 'casdoctor'), join(dir, 'casdoctor'));
    const r = spawnSync(join(dir, 'casdoctor'), ['version'], { cwd: tmp, env, encoding: 'utf8' });
    expect(r.status).toBe(0);
  });
});

describe('scripts/build-if-stale.mjs (npm run demo)', () => {
  /** A project in miniature: src/, tsconfig.json, dist/, and a tsc that only records that it ran. */
  function project(): { root: string; ran: () => boolean } {
    const root = mkdtempSync(join(tmp, 'project-'));
    for (const d of ['src', 'dist', 'scripts', 'node_modules/typescript/bin']) mkdirSync(join(root, d), { recursive: true });
    copyFileSync(join(ROOT, 'scripts', 'build-if-stale.mjs'), join(root, 'scripts', 'build-if-stale.mjs'));
    writeFileSync(join(root, 'tsconfig.json'), '{}');
    writeFileSync(join(root, 'src', 'cli.ts'), 'export {};');
    writeFileSync(join(root, 'dist', 'cli.js'), 'export {};');
    writeFileSync(join(root, 'node_modules/typescript/bin/tsc'), `require('node:fs').writeFileSync(${JSON.stringify(join(root, 'tsc-ran'))}, '');`);
    const old = new Date(Date.now() - 60_000);
    for (const f of ['tsconfig.json', 'src/cli.ts']) utimesSync(join(root, f), old, old);
    return {
      root,
      ran: () => {
        try {
          accessSync(join(root, 'tsc-ran'));
          return true;
        } catch {
          return false;
        }
      },
    };
  }
  const run = (root: string) => spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { encoding: 'utf8' });

  it('does not compile when dist/ is newer than src/', () => {
    const p = project();
    expect(run(p.root).status).toBe(0);
    expect(p.ran()).toBe(false);
  });

  it('compiles when a source file changed after the last build', () => {
    const p = project();
    writeFileSync(join(p.root, 'src', 'cli.ts'), 'export const changed = 1;');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(p.root, 'src', 'cli.ts'), later, later);
    const r = run(p.root);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('dist/ is older than src/');
    expect(p.ran()).toBe(true);
  });
});
