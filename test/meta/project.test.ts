import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { renderChecksTable } from '../../src/checks/lib/table.js';

const root = join(import.meta.dirname, '..', '..');
const NOT_CHECKS = new Set(['index', 'define-check']);
const DOC_HEADINGS = [
  '## What it means',
  '## Why CA cares',
  '## How to fix',
  '## Example',
  '## When to ignore',
  '## Upstream',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('the check registry', () => {
  it('registers exactly the check files in src/checks, each id equal to its file name, sorted by id', () => {
    const files = readdirSync(join(root, 'src/checks'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .filter((f) => !NOT_CHECKS.has(f))
      .sort();
    const ids = CHECKS.map((c) => c.meta.id);
    expect(ids).toEqual(files);
    expect([...ids].sort()).toEqual(ids);
  });

  it('uses kebab-case ids and placeholders that every message can fill', () => {
    for (const c of CHECKS) {
      expect(c.meta.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(Object.keys(c.meta.messages).length).toBeGreaterThan(0);
      expect(c.meta.summary.length).toBeGreaterThan(20);
    }
  });

  it('has a doc page per check with the fixed headings in order', () => {
    for (const c of CHECKS) {
      const path = join(root, 'docs/checks', `${c.meta.id}.md`);
      const doc = readFileSync(path, 'utf8');
      expect(doc.startsWith(`# ${c.meta.id}\n`), `${path} title`).toBe(true);
      let at = 0;
      for (const h of DOC_HEADINGS) {
        const i = doc.indexOf(`\n${h}\n`, at);
        expect(i, `${c.meta.id}.md: "${h}" missing or out of order`).toBeGreaterThan(at - 1);
        at = i + 1;
      }
    }
    const pages = readdirSync(join(root, 'docs/checks'))
      .map((f) => f.replace(/\.md$/, ''))
      .sort();
    expect(pages).toEqual(CHECKS.map((c) => c.meta.id));
  });

  it('keeps the catalogue of checks in docs/checks.md current (npm run docs:checks rewrites it)', () => {
    const catalogue = readFileSync(join(root, 'docs/checks.md'), 'utf8');
    const m = /<!-- checks:start -->\n([\s\S]*?)<!-- checks:end -->/.exec(catalogue);
    expect(m, 'docs/checks.md needs <!-- checks:start --> ... <!-- checks:end -->').not.toBeNull();
    expect(m![1]).toBe(renderChecksTable(CHECKS));
  });
});

describe('the architecture', () => {
  it('keeps model, simulate, checks and the providers pure: no fs, SDKs, terminal libraries', () => {
    const forbidden =
      /(from |import\()['"](node:fs|node:fs\/promises|fs|@kubernetes\/client-node|@aws-sdk\/[^'"]+|chalk|ora|cli-table3)['"]/;
    // a provider's live and file reading lives in its gather*.ts files (SDKs loaded lazily there, see live.test.ts)
    const providerFiles = sourceFiles('src/providers').filter((f) => !/^gather[^/]*\.ts$/.test(basename(f)));
    expect(providerFiles.length).toBeGreaterThan(20);
    const pure = ['src/model', 'src/simulate', 'src/checks'].flatMap(sourceFiles);
    for (const f of [...pure, ...providerFiles]) {
      expect(readFileSync(f, 'utf8'), f).not.toMatch(forbidden);
    }
    // the rule sees what the exempt files do: AWS's live gathering loads its SDK with import()
    expect(readFileSync(join(root, 'src/providers/aws/gather.ts'), 'utf8')).toMatch(forbidden);
  });

  it('starts light: `casdoctor --help` loads neither the Kubernetes client nor the AWS SDK', () => {
    const record = join(mkdtempSync(join(tmpdir(), 'casdoctor-imports-')), 'imports.txt');
    const out = execFileSync(
      process.execPath,
      ['--import', join(root, 'test/fixtures/record-imports.mjs'), join(root, 'bin/casdoctor.js'), '--help'],
      { env: { ...process.env, RECORD_IMPORTS_FILE: record }, encoding: 'utf8' },
    );
    expect(out).toContain('why-pending');
    const loaded = readFileSync(record, 'utf8');
    expect(loaded).toContain('/dist/cli.js');
    expect(loaded).not.toMatch(/@kubernetes\/client-node|@aws-sdk|\/ora\/|cli-table3/);
  });
});
