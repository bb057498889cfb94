// The one entry body of every bin/ file: load dist/cli.js, or say how to build it. A fresh clone has no dist/ (it is
// gitignored), and Node's own answer is an ERR_MODULE_NOT_FOUND stack that names no fix.
import { existsSync } from 'node:fs';

export async function start() {
  const cli = new URL('../dist/cli.js', import.meta.url);
  if (!existsSync(cli)) {
    process.stderr.write('error: casdoctor is not built: run npm run build (or npm ci && npm run demo)\n');
    process.exitCode = 2;
    return;
  }
  try {
    await import(cli.href);
  } catch (e) {
    // a package dist/ imports is missing: node_modules was never installed, or is from another checkout
    if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    process.stderr.write(`error: casdoctor cannot load a module: ${String(e.message).split('\n')[0]}\nrun npm ci, then npm run build\n`);
    process.exitCode = 2;
  }
}
