#!/usr/bin/env node
// Rewrites the catalogue of checks (docs/checks.md) from the registry (run `npm run build` first; `npm run docs:checks` does).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { CHECKS } = await import(join(root, 'dist/checks/index.js'));
const { renderChecksTable } = await import(join(root, 'dist/checks/lib/table.js'));
const path = join(root, 'docs', 'checks.md');
const readme = readFileSync(path, 'utf8');
const start = '<!-- checks:start -->\n';
const end = '<!-- checks:end -->';
const i = readme.indexOf(start);
const j = readme.indexOf(end);
if (i < 0 || j < i) {
  console.error('docs/checks.md lacks the <!-- checks:start --> / <!-- checks:end --> markers');
  process.exit(2);
}
writeFileSync(path, readme.slice(0, i + start.length) + renderChecksTable(CHECKS) + readme.slice(j));
console.error(`docs/checks.md: ${CHECKS.length} checks`);
