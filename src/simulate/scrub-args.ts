// Secrets in command lines: CA's container args are quoted as evidence (ca-config-invalid) and written by `snapshot`, so
// the values of secret-like flags, secret-like environment assignments and URL passwords are replaced before that.
import type { Container, Deployment } from '../model/k8s.js';

export const REDACTED = '[redacted]';

// A flag or variable name that holds a secret: password, token, secret, credentials, *-key (not *-key-file: a path).
const SECRET_NAME_RE =
  /(^|-)(password|passwd|pwd|passphrase|secret|token|apikey|credentials?|auth)(-|$)|(^|-)key$/;
// Names that say the value is where a secret lives, not the secret.
const PATH_NAME_RE = /-(file|path|dir|ttl|name|names)$/;
// scheme://user:password@host
const URL_CREDENTIALS_RE = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]*):([^\s@/]+)@/gi;
const FLAG_RE = /^(-{1,2})([A-Za-z0-9][A-Za-z0-9_.-]*)(?:=([\s\S]*))?$/;
const ENV_ASSIGNMENT_RE = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]+)$/;

/** Whether a flag or variable name (any case, `_` or `-`) names a secret value. */
export function isSecretName(name: string): boolean {
  // camelCase and snake_case are dashed first: encryptionKey -> encryption-key, API_TOKEN -> api-token
  const n = name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replaceAll('_', '-')
    .replace(/^-+/, '');
  return SECRET_NAME_RE.test(n) && !PATH_NAME_RE.test(n);
}

/** URL passwords replaced: https://user:pass@host -> https://user:[redacted]@host. */
export function scrubUrlCredentials(s: string): string {
  return s.replace(URL_CREDENTIALS_RE, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`);
}

/**
 * A copy of a command line with secrets replaced: `--password=x` and `--password x` (any secret-like flag), `TOKEN=x`
 * assignments and URL passwords. A `sh -c` script (an argument with spaces) is scrubbed word by word.
 */
export function scrubArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg !== 'string') {
      out.push(arg);
      continue;
    }
    if (/\s/.test(arg.trim())) {
      const parts = arg.split(/(\s+)/);
      const words = parts.filter((_, j) => j % 2 === 0);
      const clean = scrubArgs(words);
      out.push(parts.map((p, j) => (j % 2 === 0 ? clean[j / 2] : p)).join(''));
      continue;
    }
    const flag = FLAG_RE.exec(arg);
    if (flag && isSecretName(flag[2])) {
      if (flag[3] !== undefined) out.push(flag[3] === '' ? arg : `${flag[1]}${flag[2]}=${REDACTED}`);
      else {
        out.push(arg);
        // pflag: a value flag takes the next argument; one that looks like a long flag is more likely the next flag
        if (i + 1 < args.length && !args[i + 1].startsWith('--')) {
          out.push(REDACTED);
          i++;
        }
      }
      continue;
    }
    const env = flag ? undefined : ENV_ASSIGNMENT_RE.exec(arg);
    if (env && isSecretName(env[1])) {
      out.push(`${env[1]}=${REDACTED}`);
      continue;
    }
    out.push(scrubUrlCredentials(arg));
  }
  return out;
}

function scrubContainer(c: Container | undefined): void {
  if (!c || typeof c !== 'object') return;
  if (Array.isArray(c.args)) c.args = scrubArgs(c.args);
  if (Array.isArray(c.command)) c.command = scrubArgs(c.command);
}

/** Scrubs (in place) the command and args of every container of the Deployments, CA's included. */
export function scrubCaArgsInDeployments(deployments: readonly Deployment[]): void {
  for (const d of deployments) {
    const spec = d?.spec?.template?.spec;
    if (!spec) continue;
    for (const c of spec.containers ?? []) scrubContainer(c);
    for (const c of spec.initContainers ?? []) scrubContainer(c);
  }
}
