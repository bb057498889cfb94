import { EXIT } from './types.js';

/**
 * `--strict`: a run that could not do everything it was asked (a check skipped for missing or forbidden data, a
 * snapshot with gaps) exits 3 instead of passing. A definite failure (exit 1) stays 1: it says more.
 */
export function strictExitCode(exitCode: number, strict: boolean | undefined, incomplete: boolean): number {
  if (!strict || !incomplete || exitCode !== EXIT.ok) return exitCode;
  return EXIT.incomplete;
}
