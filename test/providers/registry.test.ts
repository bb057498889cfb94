// The registry, the provider folders, CONTRIBUTING.md's table of providers and the docs pages say the same; a check
// tagged with a provider names a registered one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { providerById, providerIds } from '../../src/providers/index.js';

const root = join(import.meta.dirname, '..', '..');

/** CONTRIBUTING.md's providers table: [id, folder, docs page] rows. */
function contributingRows(): string[][] {
  const text = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
  return text
    .split('\n')
    .filter((l) => /^\| [a-z0-9-]+ \| src\/providers\//.test(l))
    .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
}

describe('the provider registry', () => {
  it('registers exactly the folders under src/providers, each under its id', () => {
    const folders = readdirSync(join(root, 'src/providers'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect([...providerIds()].sort()).toEqual(folders);
    for (const id of providerIds()) expect(providerById(id)?.id).toBe(id);
  });

  it("lists every provider in CONTRIBUTING.md with its folder and an existing docs page", () => {
    const rows = contributingRows();
    expect(rows.map((r) => r[0]).sort()).toEqual([...providerIds()].sort());
    for (const [id, folder, docs] of rows) {
      expect(folder).toBe(`src/providers/${id}/`);
      expect(existsSync(join(root, docs)), docs).toBe(true);
    }
  });

  it("tags checks only with registered providers, each of which names what such a check is about", () => {
    const tagged = [...new Set(CHECKS.flatMap((c) => c.meta.providers ?? []))].sort();
    expect(tagged.length).toBeGreaterThan(0);
    for (const id of tagged) expect(providerById(id)?.words.checksSubject, id).toMatch(/\S/);
  });
});
