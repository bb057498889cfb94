import { InputError, UsageError } from '../model/errors.js';
import { EXIT } from './types.js';

/** Prints an error the way a user needs it (no stack unless --debug) and returns the exit code. */
export function handleError(e: unknown, debug: boolean, stderr: (s: string) => void): number {
  if (e instanceof UsageError) {
    stderr(`error: ${e.message}\nRun 'casdoctor --help' for usage.\n`);
    return EXIT.usage;
  }
  if (e instanceof InputError) {
    stderr(`error: ${e.message}\n`);
    return EXIT.usage;
  }
  if (e instanceof Error && e.name === 'EnvironmentError') {
    const hint = (e as Error & { hint?: string }).hint;
    stderr(`error: ${e.message}\n${hint ? `hint: ${hint}\n` : ''}`);
    if (debug && e.stack) stderr(`${e.stack}\n`);
    return EXIT.usage;
  }
  const msg = e instanceof Error ? e.message : String(e);
  stderr(`error: unexpected failure: ${msg}\n`);
  if (debug && e instanceof Error && e.stack) stderr(`${e.stack}\n`);
  else stderr('This is a bug in casdoctor; run again with --debug for details and report it.\n');
  return EXIT.usage;
}
