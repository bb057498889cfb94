/** Typed errors: the CLI maps each to an exit code and prints it without a stack trace (unless --debug). */

/** Wrong flags or arguments: exit 2, print usage hint. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A file or value the user handed over is malformed: exit 2, name the file and position. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    message: string,
    readonly file?: string,
    readonly position?: { line: number; column: number },
  ) {
    super(message);
  }
}
