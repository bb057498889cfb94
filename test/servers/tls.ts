// A throwaway certificate authority and a server certificate for 127.0.0.1, made with openssl at test time
// (node:crypto can parse X.509 but not issue it). Generated once per test process.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestTls {
  /** PEM of the CA that signed the server certificate. */
  caCert: string;
  /** PEM server certificate, SANs IP:127.0.0.1 and DNS:localhost. */
  cert: string;
  key: string;
}

let cached: TestTls | undefined;

export function testTls(): TestTls {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-tls-'));
  const f = (name: string) => join(dir, name);
  // fixed flags as one string (no spaces inside any of them), paths as separate arguments
  const openssl = (flags: string, ...paths: string[]) =>
    execFileSync('openssl', [...flags.split(' '), ...paths], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';
  try {
    openssl(
      `req -x509 ${ec} -days 2 -subj /CN=casdoctor-test-ca -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign`,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.crt'),
    );
    openssl(`req ${ec} -subj /CN=127.0.0.1`, '-keyout', f('server.key'), '-out', f('server.csr'));
    writeFileSync(
      f('server.ext'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
    );
    openssl(
      'x509 -req -CAcreateserial -days 2',
      '-in',
      f('server.csr'),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-out',
      f('server.crt'),
      '-extfile',
      f('server.ext'),
    );
    cached = {
      caCert: readFileSync(f('ca.crt'), 'utf8'),
      cert: readFileSync(f('server.crt'), 'utf8'),
      key: readFileSync(f('server.key'), 'utf8'),
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
