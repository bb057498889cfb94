// The real CLI as a child process, without blocking the test process: loopback servers running in this process keep
// answering while the CLI talks to them (spawnSync would deadlock them).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { CliResult } from './run.js';
import { ROOT } from './run.js';

export function cliAsync(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 30_000,
): Promise<CliResult & { ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), ...args], {
      env: { ...process.env, NO_COLOR: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}
