// Runs the real CLI as a child process, as a user or a pipeline would.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DEMO = join(ROOT, 'examples', 'demo');
export const DEMO_NOW = '2026-11-21T10:00:00Z';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], env: Record<string, string | undefined> = {}): CliResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
