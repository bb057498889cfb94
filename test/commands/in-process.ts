// Runs a command's run function in this process, as the CLI would with stdout and stderr piped: the deps capture both,
// the clock is the demo's, and the global options are the CLI defaults for a JSON report that never fails the run.
import type { Deps, GlobalOptions } from '../../src/commands/types.js';
import { DEMO_NOW } from './run.js';

export const PIPED_JSON: GlobalOptions = {
  from: [],
  requestTimeout: '10s',
  now: DEMO_NOW,
  output: 'json',
  failOn: 'never',
  color: false,
  debug: false,
};

export function capturingDeps(extra: Partial<Deps> = {}): { deps: Deps; stdout(): string; stderr(): string } {
  let out = '';
  let err = '';
  return {
    deps: {
      stdout: (s) => void (out += s),
      stderr: (s) => void (err += s),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      realNow: () => new Date(DEMO_NOW),
      ...extra,
    },
    stdout: () => out,
    stderr: () => err,
  };
}
