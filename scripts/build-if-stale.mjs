#!/usr/bin/env node
// `npm run demo` and friends: run tsc only when dist/ is older than src/ (or tsconfig.json), so a current build costs
// a directory walk instead of a 20 s compile. `npm run build` always compiles.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** The newest modification time under a directory, of files whose name ends with one of `ends`. */
function newest(dir, ends) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p, ends));
    else if (ends.some((x) => e.name.endsWith(x))) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

const dist = join(root, 'dist');
const built = existsSync(join(dist, 'cli.js')) ? newest(dist, ['.js']) : 0;
const source = Math.max(newest(join(root, 'src'), ['.ts', '.json']), statSync(join(root, 'tsconfig.json')).mtimeMs);
if (built >= source) process.exit(0);
console.error('dist/ is older than src/: building (npm run build)');
const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
process.exit(tsc.status ?? 1);
