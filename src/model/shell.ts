/** POSIX shell quoting for the commands casdoctor prints: pasted into bash, zsh or sh they pass exactly the argv given. */

// Characters that no POSIX shell treats specially anywhere in a word (`=` only matters before the command word, `@%+:,` never).
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument, quoted for a POSIX shell: left bare when it holds only safe characters, else in single quotes. */
export function shellQuote(arg: string): string {
  if (SAFE_WORD.test(arg)) return arg;
  // Inside '...' nothing is special but ' itself, which closes, escapes and reopens: ' → '\''.
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A command line from its argument list, e.g. ['kubectl', 'get', 'pod', name] → "kubectl get pod 'a b'". */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
