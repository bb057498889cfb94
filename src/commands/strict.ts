import { type Finding, SEVERITY_ORDER } from '../model/findings.js';
import { EXIT, type FailOn } from './types.js';

/**
 * `--strict`: a run that could not do everything it was asked (a check skipped for missing or forbidden data, a
 * snapshot with gaps) exits 3 instead of passing. A definite failure (exit 1) stays 1: it says more.
 */
export function strictExitCode(exitCode: number, strict: boolean | undefined, incomplete: boolean): number {
  if (!strict || !incomplete || exitCode !== EXIT.ok) return exitCode;
  return EXIT.incomplete;
}

/**
 * --fail-on's gate: exit 1 when a finding is at least as severe as the threshold, or when the command's own verdicts
 * fail (`failing`: why-pending's pods no autoscaler can serve); never with --fail-on never.
 */
export function exitCodeFor(failOn: FailOn, findings: readonly Finding[], failing = false): number {
  if (failOn === 'never') return EXIT.ok;
  const threshold = SEVERITY_ORDER[failOn];
  return failing || findings.some((f) => SEVERITY_ORDER[f.severity] <= threshold) ? EXIT.findings : EXIT.ok;
}
