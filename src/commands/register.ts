import type { Command } from 'commander';
import type { Deps, GlobalOptions, RunResult } from './types.js';

/** What a command's registrar needs from the CLI: the parsed global options, the real dependencies, the result sink. */
export interface CliContext {
  globalOptions(cmd: Command): GlobalOptions;
  deps(): Deps;
  setResult(r: RunResult): void;
}

/** Adds one command (its flags, help and a lazy action) to the program. Keep it light: no heavy imports. */
export type Registrar = (program: Command, ctx: CliContext) => void;
