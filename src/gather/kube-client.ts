// casdoctor's Kubernetes HTTP client: the kubeconfig as kubectl loads it, one bounded GET with client-go's retry rule,
// and the errors that name the server and the fix. client-node is used only for kubeconfig and credentials (lazily).
import { existsSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { KubeConfig } from '@kubernetes/client-node';
import { shellCommand } from '../model/shell.js';
import { EnvironmentError, LimitExceededError, RequestTimeoutError, ResponseTooLargeError } from './errors.js';
import type { SharedPool } from './json-stream.js';
import { formatBytes, type LiveLimits } from './live-limits.js';

const MAX_THROTTLE_RETRIES = 3;
const MAX_RETRY_AFTER_MS = 5_000;

export interface LoadedKubeConfig {
  kc: KubeConfig;
  context: string;
  server: string;
  /** The kubeconfig files read, in order. */
  files: string[];
}

/**
 * Loads the kubeconfig the way kubectl does: --kubeconfig alone, else every file of $KUBECONFIG merged with the first
 * file winning (client-node would throw on duplicates and let the last current-context win), else ~/.kube/config,
 * else the in-cluster service account.
 */
export async function loadKubeConfig(opts: {
  kubeconfig?: string;
  context?: string;
}): Promise<LoadedKubeConfig> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  let files: string[];
  if (opts.kubeconfig) {
    if (!existsSync(opts.kubeconfig)) {
      throw new EnvironmentError(
        `kubeconfig ${opts.kubeconfig} does not exist`,
        'kubectl config view --kubeconfig <file>',
      );
    }
    files = [opts.kubeconfig];
  } else if (process.env.KUBECONFIG) {
    // kubectl skips $KUBECONFIG entries that do not exist
    files = process.env.KUBECONFIG.split(delimiter).filter((f) => f !== '' && existsSync(f));
  } else {
    const home = join(process.env.HOME || homedir(), '.kube', 'config');
    files = existsSync(home) ? [home] : [];
  }

  if (files.length === 0) {
    if (
      process.env.KUBERNETES_SERVICE_HOST &&
      existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token')
    ) {
      kc.loadFromCluster();
    } else {
      throw new EnvironmentError(
        process.env.KUBECONFIG
          ? `no kubeconfig file of KUBECONFIG=${process.env.KUBECONFIG} exists`
          : 'no kubeconfig found (~/.kube/config does not exist and KUBECONFIG is not set)',
        'kubectl config get-contexts (or pass --kubeconfig <file>)',
      );
    }
  } else {
    const clusters: unknown[] = [];
    const users: unknown[] = [];
    const contexts: unknown[] = [];
    let currentContext: string | undefined;
    const seen = { clusters: new Set<string>(), users: new Set<string>(), contexts: new Set<string>() };
    for (const file of files) {
      const part = new k8s.KubeConfig();
      try {
        part.loadFromFile(file);
      } catch (e) {
        // never e.message: js-yaml's quotes the file around the error (tokens, client-key-data)
        throw new EnvironmentError(
          `kubeconfig ${file} is not valid: ${kubeconfigProblem(e)}`,
          shellCommand(['kubectl', 'config', 'view', '--kubeconfig', file]),
        );
      }
      // kubectl: the first file that sets a value wins, for current-context and for each named entry
      currentContext ||= part.getCurrentContext() || undefined;
      const take = <T extends { name: string }>(items: T[], into: unknown[], names: Set<string>) => {
        for (const item of items) {
          if (names.has(item.name)) continue;
          names.add(item.name);
          into.push(item);
        }
      };
      take(part.getClusters(), clusters, seen.clusters);
      take(part.getUsers(), users, seen.users);
      take(part.getContexts(), contexts, seen.contexts);
    }
    kc.loadFromOptions({ clusters, users, contexts, currentContext });
  }

  const where = files.length > 0 ? `kubeconfig ${files.join(delimiter)}` : 'the in-cluster configuration';
  const context = opts.context ?? kc.getCurrentContext();
  if (!context) {
    throw new EnvironmentError(
      `${where} has no current context`,
      'kubectl config get-contexts, then pass --context <name> or run kubectl config use-context <name>',
    );
  }
  const ctx = kc.getContextObject(context);
  if (!ctx) {
    const known = kc
      .getContexts()
      .map((c) => c.name)
      .join(', ');
    throw new EnvironmentError(
      `context "${context}" is not in ${where} (contexts: ${known || 'none'})`,
      'kubectl config get-contexts',
    );
  }
  kc.setCurrentContext(context);
  const cluster = kc.getCurrentCluster();
  if (!cluster) {
    throw new EnvironmentError(
      `context "${context}" names cluster "${ctx.cluster}", which ${where} does not define`,
      'kubectl config view',
    );
  }
  return { kc, context, server: cluster.server, files };
}

/** What is wrong with a kubeconfig file, in words that never quote it. */
function kubeconfigProblem(e: unknown): string {
  const err = e as Error & { reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  if (err?.name === 'YAMLException') {
    const reason = typeof err.reason === 'string' && /^[\w ,'()-]{1,120}$/.test(err.reason) ? err.reason : 'syntax error';
    const line = typeof err.mark?.line === 'number' ? err.mark.line + 1 : undefined;
    const column = typeof err.mark?.column === 'number' ? err.mark.column + 1 : undefined;
    return `YAML ${reason}${line ? ` at line ${line}${column ? `, column ${column}` : ''}` : ''}`;
  }
  // client-node's structural checks name a path, never a value: "clusters[0].cluster.server is missing"
  const m = /^(?:clusters|users|contexts)\[\d+\](?:\.[\w-]+)* is missing$/.exec(err?.message ?? '');
  if (m) return m[0];
  const code = (err as { code?: unknown })?.code;
  if (code === 'EACCES' || code === 'EISDIR' || code === 'ENOENT')
    return `cannot read it (${String(code)})`;
  return 'not a kubeconfig casdoctor can read';
}

/**
 * client-node's legacy gcp and azure auth-providers run `cmd-path` + `cmd-args` through a shell (gcp_auth.js execSync);
 * kubectl 1.26+ removed them. Refuse before any credential code runs.
 */
export function refuseLegacyAuthProvider(kc: KubeConfig, context: string): void {
  const provider = kc.getCurrentUser()?.authProvider as { name?: unknown } | undefined;
  const name = typeof provider?.name === 'string' ? provider.name : undefined;
  if (name !== 'gcp' && name !== 'azure') return;
  throw new EnvironmentError(
    `context "${context}" authenticates with the legacy "${name}" auth-provider, which kubectl 1.26+ no longer supports and which runs its cmd-path through a shell; casdoctor refuses it`,
    name === 'gcp'
      ? 'install gke-gcloud-auth-plugin and run gcloud container clusters get-credentials <cluster> to write an exec credential plugin'
      : 'convert the kubeconfig to an exec credential plugin: kubelogin convert-kubeconfig',
  );
}

export interface Target {
  server: string;
  context: string;
  agent: http.Agent;
  headers: Record<string, string>;
  timeoutMs: number;
  authHint: string;
  limits: LiveLimits;
  /** What to keep of listed objects (KubeGatherOptions.fields); default 'all'. */
  fields?: 'read' | 'why-pending' | 'all';
  /** Warnings found while listing (wrong-typed values), copied into the snapshot. */
  warnings: string[];
  /** Parse workers for the pages of a projected gathering (fields 'read' / 'why-pending'), started on first use. */
  pool?: SharedPool;
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** With GetOptions.rawBody, a 200 answer's body as bytes (and `body` empty): a parse worker decodes it. */
  bytes?: Buffer;
  /** The body stopped at the byte cap (only with overflow 'truncate'). */
  truncated: boolean;
}

export interface GetOptions {
  /** Cap on the decoded body; default: limits.maxResponseBytes. */
  maxBytes?: number;
  /** 'error' (default) rejects with ResponseTooLargeError; 'truncate' keeps the first maxBytes and marks the result. */
  overflow?: 'error' | 'truncate';
  /** Default: the target's request timeout. */
  timeoutMs?: number;
  accept?: string;
  /** Keep a 200 answer's body as bytes (HttpResult.bytes) instead of decoding it to a string. */
  rawBody?: boolean;
}

/** A body the server sent but casdoctor could not decode (a broken gzip stream). */
class UndecodableResponseError extends Error {
  override name = 'UndecodableResponseError';
}

/** One GET; the timeout covers connect to last byte and its error names the server; the decoded body is capped. */
export function httpGet(
  target: Target,
  pathAndQuery: string,
  call: string,
  o: GetOptions = {},
  onReusedSocket = true,
): Promise<HttpResult> {
  const url = new URL(target.server + pathAndQuery);
  const mod = url.protocol === 'http:' ? http : https;
  const maxBytes = o.maxBytes ?? target.limits.maxResponseBytes;
  const timeoutMs = o.timeoutMs ?? target.timeoutMs;
  const headers = o.accept ? { ...target.headers, Accept: o.accept } : target.headers;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const fail = (e: Error) => settle(() => reject(e));
    let responded = false;
    const req = mod.request(url, { method: 'GET', agent: target.agent, headers }, (res) => {
      responded = true;
      const gunzip = res.headers['content-encoding'] === 'gzip' ? createGunzip() : undefined;
      const stream = gunzip ? res.pipe(gunzip) : res;
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () =>
        settle(() => {
          const all = Buffer.concat(chunks);
          const raw = o.rawBody === true && res.statusCode === 200;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: raw ? '' : all.toString('utf8'),
            ...(raw ? { bytes: all } : {}),
            truncated,
          });
        });
      // Stop reading (and inflating) at the cap: a 600 KB gzip bomb inflates to gigabytes.
      const stop = () => {
        gunzip?.destroy();
        req.destroy();
      };
      stream.on('data', (c: Buffer) => {
        if (settled) return;
        if (size + c.length > maxBytes) {
          if (o.overflow === 'truncate') {
            chunks.push(c.subarray(0, maxBytes - size));
            size = maxBytes;
            truncated = true;
            finish();
          } else fail(new ResponseTooLargeError(target.server, call, maxBytes));
          stop();
          return;
        }
        chunks.push(c);
        size += c.length;
      });
      stream.on('end', finish);
      gunzip?.on('error', (e) =>
        fail(new UndecodableResponseError(`the gzip-encoded response could not be decoded (${e.message})`)),
      );
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('response aborted')));
    });
    const timer = setTimeout(() => {
      fail(new RequestTimeoutError(target.server, call, timeoutMs));
      req.destroy();
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as idle just as it was reused: the GET never reached the server, so it is
      // sent once more on a fresh connection (Node's http docs: request.reusedSocket; client-go retries the same way).
      if (onReusedSocket && req.reusedSocket && !responded && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
        settle(() => resolve(httpGet(target, pathAndQuery, call, o, false)));
        return;
      }
      fail(e);
    });
    req.end();
  });
}

interface StatusBody {
  message?: string;
  reason?: string;
}

const MAX_STATUS_TEXT = 500;

/** The Status of an error response, its message and reason bounded (a hostile server may send megabytes). */
export function statusOf(res: HttpResult): StatusBody {
  const bound = (v: unknown) =>
    typeof v === 'string'
      ? v.length > MAX_STATUS_TEXT
        ? `${v.slice(0, MAX_STATUS_TEXT)}… (${v.length - MAX_STATUS_TEXT} more characters)`
        : v
      : undefined;
  try {
    const s = JSON.parse(res.body) as StatusBody;
    return typeof s === 'object' && s !== null ? { message: bound(s.message), reason: bound(s.reason) } : {};
  } catch {
    return { message: bound(res.body.trim()) || undefined };
  }
}

export function unauthorized(target: Target, res: HttpResult): EnvironmentError {
  const s = statusOf(res);
  return new EnvironmentError(
    `the Kubernetes API server ${target.server} rejected the credentials of context "${target.context}" (401 ${s.message ?? 'Unauthorized'})`,
    target.authHint,
  );
}

function unreachable(target: Target, e: Error): EnvironmentError {
  const code = (e as NodeJS.ErrnoException).code;
  return new EnvironmentError(
    `cannot reach the Kubernetes API server ${target.server} (context "${target.context}"): ${code && !e.message.includes(code) ? `${code} ` : ''}${e.message}`,
    shellCommand(['kubectl', 'cluster-info', '--context', target.context]),
    { cause: e },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET with client-go's rule: retry 429 and 5xx that carry Retry-After, a few times. Network errors are fatal. */
export async function getWithRetry(
  target: Target,
  pathAndQuery: string,
  call: string,
  o: GetOptions = {},
): Promise<HttpResult> {
  for (let attempt = 0; ; attempt++) {
    let res: HttpResult;
    try {
      res = await httpGet(target, pathAndQuery, call, o);
    } catch (e) {
      if (e instanceof RequestTimeoutError) throw e;
      if (e instanceof ResponseTooLargeError) throw tooLarge(target, e);
      if (e instanceof UndecodableResponseError) {
        throw new EnvironmentError(
          `the Kubernetes API server ${target.server} answered ${call} with a body casdoctor cannot read: ${e.message}`,
          `${shellCommand(['kubectl', 'get', '--raw', pathAndQuery, '--context', target.context])} shows what the server sends`,
        );
      }
      throw unreachable(target, e as Error);
    }
    const retryAfter = res.headers['retry-after'];
    if (
      (res.status === 429 || res.status >= 500) &&
      retryAfter !== undefined &&
      attempt < MAX_THROTTLE_RETRIES
    ) {
      await sleep(Math.min(Number(retryAfter) * 1000 || 0, MAX_RETRY_AFTER_MS));
      continue;
    }
    return res;
  }
}

function tooLarge(target: Target, e: ResponseTooLargeError): LimitExceededError {
  const limit = `${formatBytes(e.maxBytes)} per response`;
  return new LimitExceededError(
    `the Kubernetes API server ${target.server} sent more than ${formatBytes(e.maxBytes)} (decoded) for one response to ${e.call}; casdoctor reads at most ${limit}`,
    `${shellCommand(['kubectl', 'get', '--raw', e.call.replace(/^GET /, ''), '--context', target.context])} | wc -c shows the size; a proxy or server that sends this much is misbehaving`,
    limit,
  );
}

/** The fix for rejected credentials, from how the user authenticates. */
export function authHintFor(kc: KubeConfig, context: string): string {
  const version = shellCommand(['kubectl', 'get', '--raw', '/version', '--context', context]);
  const user = kc.getCurrentUser();
  const exec = user?.exec as
    | { command?: string; args?: string[]; env?: Array<{ name: string; value: string }> }
    | undefined;
  if (exec?.command && /(^|\/)aws(\.exe)?$|aws-iam-authenticator/.test(exec.command)) {
    const args = exec.args ?? [];
    const i = args.indexOf('--profile');
    const profile = i >= 0 ? args[i + 1] : exec.env?.find((e) => e.name === 'AWS_PROFILE')?.value;
    return profile
      ? `${shellCommand(['aws', 'sso', 'login', '--profile', profile])} (or refresh that profile's credentials), then ${version}`
      : `refresh your AWS credentials (aws sso login / aws configure), then ${version}`;
  }
  return `refresh the credentials of context "${context}" (${shellCommand(['kubectl', 'config', 'view', '--minify', '--context', context])}); ${version} shows the same error`;
}

/**
 * A plain-HTTP server (`kubectl proxy`: `server: http://127.0.0.1:8001`, no credentials) is used as kubectl uses it.
 * client-node refuses http: unless the cluster sets insecure-skip-tls-verify (config.js createAgent), which has no
 * meaning without TLS: the current cluster gets that flag in memory, so client-node makes a plain http.Agent.
 */
export function allowPlainHttp(kc: KubeConfig): void {
  const cluster = kc.getCurrentCluster();
  if (!cluster || !/^http:/i.test(cluster.server) || cluster.skipTLSVerify) return;
  kc.clusters = kc.clusters.map((c) => (c === cluster ? { ...c, skipTLSVerify: true } : c));
}
