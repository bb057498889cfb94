import { InputError, UsageError } from '../model/errors.js';
import { safeLines, safeText } from '../report/sanitize.js';
import { EXIT } from './types.js';

// Error texts quote what casdoctor was given: server messages (Kubernetes Status.message, AWS errors), file names and
// the file content V8 quotes in a JSON parse error. They are foreign: shown with visible escapes, cut when huge, and on
// one line, so a line break in a server message or a file name cannot print a line that looks like casdoctor's own
// ("hint: run curl … | sh", a CI runner's "::error::" command).
const ERROR_MAX = 4000;
const safe = (s: string) => safeText(s, { max: ERROR_MAX });

/** Prints an error the way a user needs it (no stack unless --debug) and returns the exit code. */
export function handleError(e: unknown, debug: boolean, stderr: (s: string) => void, command = 'casdoctor'): number {
  if (e instanceof UsageError) {
    // the hint names the help of the command that was run (`casdoctor why-pending --help`), where its flags are
    stderr(`error: ${safe(e.message)}\nRun '${command} --help' for usage.\n`);
    return EXIT.usage;
  }
  if (e instanceof InputError) {
    stderr(`error: ${safe(e.message)}\n`);
    return EXIT.usage;
  }
  if (e instanceof Error && e.name === 'EnvironmentError') {
    const hint = (e as Error & { hint?: string }).hint;
    stderr(`error: ${safe(e.message)}\n${hint ? `hint: ${safe(hint)}\n` : ''}`);
    // the problem that stopped the run first, then what else the same run found (AWS after Kubernetes)
    for (const more of (e as Error & { also?: unknown }).also instanceof Array ? (e as Error & { also: unknown[] }).also : []) {
      if (!(more instanceof Error)) continue;
      const h = (more as Error & { hint?: string }).hint;
      stderr(`also: ${safe(more.message)}\n${h ? `hint: ${safe(h)}\n` : ''}`);
    }
    if (debug && e.stack) stderr(`${safeLines(e.stack, Number.POSITIVE_INFINITY)}\n`);
    return EXIT.usage;
  }
  const msg = e instanceof Error ? e.message : String(e);
  stderr(`error: unexpected failure: ${safe(msg)}\n`);
  if (debug && e instanceof Error && e.stack) stderr(`${safeLines(e.stack, Number.POSITIVE_INFINITY)}\n`);
  else stderr('This is a bug in casdoctor; run again with --debug for details and report it.\n');
  return EXIT.usage;
}
