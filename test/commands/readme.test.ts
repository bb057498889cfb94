// Issue 15: the README a newcomer reads runs as written, its numbers are the tool's, and its links lead somewhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ROOT } from './run.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PAGES = ['README.md', 'docs/why-pending.md', 'docs/asg-audit.md', 'docs/scale-down-blockers.md', 'docs/offline.md', 'docs/ca-record.md', 'docs/trust.md'];

/** The casdoctor command lines of the README's ```sh blocks, comments cut. */
function readmeCommands(): string[][] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l.startsWith('casdoctor ') || l === 'casdoctor')
    .map((l) => l.split(/\s+/).slice(1));
}

describe('the README', () => {
  it('reads in ten minutes: a short page, the detail in docs/ pages it links', () => {
    expect(readme.split('\n').length).toBeLessThan(320);
    for (const page of PAGES.slice(1)) expect(readme).toContain(`](${page})`);
  });

  it('its commands on the bundled demo run as written (no usage error), and need no network', () => {
    const offline = readmeCommands().filter((a) => a.includes('--from') || a[0] === 'explain');
    expect(offline.length).toBeGreaterThanOrEqual(5);
    for (const args of offline) {
      const r = cli(args);
      expect([0, 1], `casdoctor ${args.join(' ')}\n${r.stderr}`).toContain(r.code);
    }
  });

  it('its live examples are valid command lines (each parses: --help after them exits 0)', () => {
    for (const args of readmeCommands().filter((a) => !a.includes('--from'))) {
      const r = cli([...args, '--help']);
      expect(r.code, `casdoctor ${args.join(' ')} --help\n${r.stderr}`).toBe(0);
    }
  });

  it('says what npm run demo runs', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const demo = pkg.scripts.demo.replace(/^.*node bin\/casdoctor /, 'casdoctor ');
    expect(readme).toContain(`\`${demo}\``);
  });

  it('links only to files that exist, from the README and the docs pages it links', () => {
    for (const page of PAGES) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^https?:/.test(target)) continue;
        expect(existsSync(join(ROOT, dirname(page), target)), `${page} links to ${target}`).toBe(true);
      }
    }
  });
});

describe('docs/why-pending.md', () => {
  it("shows the demo's output as the tool prints it today (e.g. demo-databases 1/1/5)", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'why-pending.md'), 'utf8');
    const m = /From the demo \(`casdoctor ([^`]+)`[^\n]*\n\n```text\n([\s\S]*?)```/.exec(doc)!;
    const out = cli(m[1].split(' ')).stdout.split('\n');
    let at = 0;
    for (const line of m[2].trimEnd().split('\n')) {
      const found = out.indexOf(line, at);
      expect(found, `not in the output (in order): ${line}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
    expect(m[2]).toContain('demo-databases   1/1/5');
  });
});

describe('every output shown in the README and docs/ pages is what the current code prints (issue 28)', () => {
  /** ```text blocks after a paragraph that names the command producing them: (`casdoctor …`). */
  function shownOutputs(): Array<{ page: string; args: string[]; block: string }> {
    const out: Array<{ page: string; args: string[]; block: string }> = [];
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const m of text.matchAll(/\(`casdoctor ([^`]+)`[^\n]*\n(?:[^\n]*\n)*?\n?```text\n([\s\S]*?)```/g))
        out.push({ page, args: m[1].split(' '), block: m[2] });
    }
    return out;
  }

  it('finds the pages\' examples', () => {
    expect(shownOutputs().map((o) => o.page).sort()).toEqual(['docs/asg-audit.md', 'docs/why-pending.md', 'docs/why-this-type.md', 'docs/why-this-type.md']);
  });

  it.each(shownOutputs().map((o) => [o.page, o] as const))('%s: each shown line, in order (a line cut with … by its start)', (_page, o) => {
    const out = cli(o.args).stdout.split('\n');
    let at = 0;
    for (const line of o.block.trimEnd().split('\n')) {
      const cut = line.endsWith('…');
      const found = cut ? out.findIndex((l, i) => i >= at && l.startsWith(line.slice(0, -1))) : out.indexOf(line, at);
      expect(found, `${o.page}: not in \`casdoctor ${o.args.join(' ')}\` (in order): ${line}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });
});
