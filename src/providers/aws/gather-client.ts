// The AWS client kit live gathering shares: SDK client configuration bounded in time and bytes, error classes, the
// call book that turns failed calls into gaps, and the region / profile CA and the SDK would use. Cut from gather.ts.
import type { Node } from '../../model/k8s.js';
import { shellCommand } from '../../model/shell.js';
import type { DataKind, Gap, GapReason } from '../../model/snapshot.js';
import { Transform, type Readable } from 'node:stream';
import { EnvironmentError, LimitExceededError, ResponseTooLargeError } from '../../gather/errors.js';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { formatBytes, type LiveLimits, liveLimits } from '../../gather/live-limits.js';

const DENIED = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'UnauthorizedAccess',
]);
const EXPIRED = new Set(['ExpiredToken', 'ExpiredTokenException', 'RequestExpired', 'TokenRefreshRequired']);
const BAD_CREDENTIALS = new Set([
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'AuthFailure',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'InvalidToken',
]);
const THROTTLED = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'EC2ThrottledException',
]);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** The data kind each action feeds; a failed action (other than not-found) leaves its kind out of `provided`. */
export const ACTION_KIND: Record<string, DataKind> = {
  'autoscaling:DescribeAutoScalingGroups': 'autoScalingGroups',
  'ec2:DescribeLaunchTemplateVersions': 'launchTemplateVersions',
  'autoscaling:DescribeLaunchConfigurations': 'launchConfigurations',
  'ec2:DescribeInstanceTypes': 'instanceTypes',
  'autoscaling:DescribeScalingActivities': 'scalingActivities',
  'eks:DescribeNodegroup': 'eksNodegroups',
  'ec2:DescribeImages': 'images',
  'ec2:GetInstanceTypesFromInstanceRequirements': 'instanceTypesFromRequirements',
};

interface Failure {
  reason: GapReason;
  message: string;
  scope: string;
}

export class CallBook {
  readonly calls = new Map<string, number>();
  readonly failures = new Map<string, Failure[]>();

  constructor(
    readonly region: string,
    readonly endpointOf: (service: string) => string,
    readonly profile: string | undefined,
    readonly maxPages: number = liveLimits().maxAwsPages,
  ) {}

  /** A fresh guard for one pagination of `action`. */
  guard(action: string): TokenGuard {
    return new TokenGuard(action, this.endpointOf(action.split(':')[0]), this.maxPages);
  }

  /** Runs one call; denial, throttling, timeouts and not-found become recorded failures, credentials problems throw. */
  async run<T>(action: string, scope: string, fn: () => Promise<T>): Promise<T | undefined> {
    this.calls.set(action, (this.calls.get(action) ?? 0) + 1);
    try {
      return await fn();
    } catch (e) {
      const failure = this.classify(action, scope, e);
      const list = this.failures.get(action) ?? [];
      list.push(failure);
      this.failures.set(action, list);
      return undefined;
    }
  }

  classify(action: string, scope: string, e: unknown): Failure {
    if (e instanceof LimitExceededError) throw e;
    const err = e as Error & {
      code?: string;
      Code?: string;
      $metadata?: { httpStatusCode?: number };
      casdoctorEndpoint?: string;
      casdoctorTimeoutMs?: number;
    };
    if (e instanceof ResponseTooLargeError || err.name === 'ResponseTooLargeError') {
      const max = (e as ResponseTooLargeError).maxBytes;
      throw new LimitExceededError(
        `${err.casdoctorEndpoint ?? this.endpointOf(action.split(':')[0])} sent more than ${formatBytes(max)} for one ${action} response; casdoctor reads at most ${formatBytes(max)} per response`,
        'check AWS_ENDPOINT_URL and any proxy in front of AWS: AWS answers these calls in well under a megabyte per page',
        `${formatBytes(max)} per response`,
      );
    }
    const code = err.name === 'Error' || !err.name ? (err.code ?? err.Code ?? '') : err.name;
    const message = err.message || code;
    const service = action.split(':')[0];
    // the profile name comes from the user or the environment: quoted, so the printed command is safe to paste
    const who = this.profile ? shellCommand(['--profile', this.profile]) : '--profile <profile>';
    if ((err.name === 'CredentialsProviderError' || err.name === 'TokenProviderError') && this.profile && !awsProfileDefined(this.profile)) {
      // AWS_PROFILE or --profile naming no profile: the SDK only says "could not load credentials"
      throw new EnvironmentError(
        `AWS profile ${JSON.stringify(this.profile)} is not defined in ${awsConfigFiles().join(' or ')}`,
        'aws configure list-profiles (then pass --profile <name> or fix AWS_PROFILE)',
        { cause: e },
      );
    }
    if (err.name === 'CredentialsProviderError' || err.name === 'TokenProviderError') {
      const sso = /sso/i.test(message);
      throw new EnvironmentError(
        sso
          ? `the AWS SSO session has expired or is missing: ${message}`
          : `no AWS credentials found: ${message}`,
        sso
          ? `aws sso login ${who}`
          : this.profile
            ? `${shellCommand(['aws', 'configure', '--profile', this.profile])} (or ${shellCommand(['aws', 'sso', 'login', '--profile', this.profile])} for an SSO profile)`
            : 'aws configure (or set AWS_PROFILE / pass --profile)',
        { cause: e },
      );
    }
    if (EXPIRED.has(code)) {
      throw new EnvironmentError(
        `the AWS session has expired (${action}: ${code}: ${message})`,
        `aws sso login ${who} (or refresh the session credentials)`,
        {
          cause: e,
        },
      );
    }
    if (BAD_CREDENTIALS.has(code)) {
      throw new EnvironmentError(
        `AWS rejected the credentials (${action}: ${code}: ${message})`,
        `aws sts get-caller-identity ${this.profile ? who : ''}`.trim(),
        {
          cause: e,
        },
      );
    }
    // a mistyped --region reaches no host at all: say it is the region, not the network
    if ((code === 'ENOTFOUND' || err.code === 'ENOTFOUND') && !isAwsRegionName(this.region)) {
      throw new EnvironmentError(
        `${JSON.stringify(this.region)} is not an AWS region (${action}: no host ${err.casdoctorEndpoint ?? this.endpointOf(service)})`,
        'pass --region <region> (e.g. us-east-1; aws ec2 describe-regions lists them) or fix AWS_REGION / the profile\'s region',
        { cause: e },
      );
    }
    if (NETWORK.has(code) || NETWORK.has(err.code ?? '')) {
      throw new EnvironmentError(
        `cannot reach ${err.casdoctorEndpoint ?? this.endpointOf(service)} (${action}): ${message}`,
        'check network access and proxy settings to AWS',
        {
          cause: e,
        },
      );
    }
    if (code === 'TimeoutError' || err.code === 'ETIMEDOUT') {
      return {
        reason: 'timeout',
        scope,
        message: `timed out waiting for ${err.casdoctorEndpoint ?? this.endpointOf(service)}: ${err.casdoctorTimeoutMs ? `no complete answer within ${err.casdoctorTimeoutMs}ms` : message}`,
      };
    }
    if (DENIED.has(code)) return { reason: 'forbidden', scope, message: `${code}: ${message}` };
    if (THROTTLED.has(code)) return { reason: 'throttled', scope, message: `${code}: ${message}` };
    if (/NotFound|^InvalidInstanceType$|^InvalidAMIID\./.test(code))
      return { reason: 'not-found', scope, message: `${code}: ${message}` };
    return { reason: 'error', scope, message: `${code}: ${message}` };
  }

  /** One gap per action and reason; the scope is the region when every call of that action failed that way. */
  gaps(): Gap[] {
    const out: Gap[] = [];
    for (const [action, failures] of [...this.failures].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const byReason = new Map<GapReason, Failure[]>();
      for (const f of failures) byReason.set(f.reason, [...(byReason.get(f.reason) ?? []), f]);
      for (const [reason, fs] of byReason) {
        const scope =
          fs.length === this.calls.get(action)
            ? `region ${this.region}`
            : joinScopes([...new Set(fs.map((f) => f.scope))]);
        const word = reason === 'not-found' ? 'not found' : reason;
        out.push({
          resource: action,
          scope,
          reason,
          detail: `${word}: ${action} (${scope}): ${fs[0].message}`,
        });
      }
    }
    return out;
  }

  /** Kinds whose data is incomplete because a call failed for a reason other than the object not existing. */
  incompleteKinds(): Set<DataKind> {
    const out = new Set<DataKind>();
    for (const [action, failures] of this.failures) {
      if (failures.some((f) => f.reason !== 'not-found') && ACTION_KIND[action]) out.add(ACTION_KIND[action]);
    }
    return out;
  }
}

/** SDK output → `aws --output json` shape: Dates as ISO strings, no undefined members, no $metadata. */
export function toAwsJson<T>(value: unknown): T {
  const walk = (v: unknown): unknown => {
    if (v instanceof Date) return v.toISOString();
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (x !== undefined && k !== '$metadata') out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function joinScopes(scopes: string[]): string {
  return scopes.length <= 5
    ? scopes.join(', ')
    : `${scopes.slice(0, 5).join(', ')} and ${scopes.length - 5} more`;
}

/** A gap scope naming a few objects, not a whole batch of 100. */
export function listScope(what: string, names: readonly string[]): string {
  return names.length <= 5
    ? `${what} ${names.join(', ')}`
    : `${what} ${names.slice(0, 5).join(', ')} and ${names.length - 5} more`;
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The SDK's service ids for AWS_ENDPOINT_URL_<ID> (the shared-config endpoint settings). */
const ENDPOINT_ENV: Record<string, string> = {
  autoscaling: 'AUTO_SCALING',
  ec2: 'EC2',
  eks: 'EKS',
  iam: 'IAM',
};

/** Where the SDK sends a service's calls: the test hook, AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, else AWS. */
export function endpointFor(opts: { endpoint?: string; region: string }, service: string): string {
  if (opts.endpoint) return opts.endpoint;
  const env = process.env;
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS !== 'true') {
    const configured = env[`AWS_ENDPOINT_URL_${ENDPOINT_ENV[service] ?? service.toUpperCase()}`] || env.AWS_ENDPOINT_URL;
    if (configured) return configured;
  }
  return `https://${service}.${opts.region}.amazonaws.com${opts.region.startsWith('cn-') ? '.cn' : ''}`;
}

/** What casdoctor's AWS clients need to know, from the live options. */
export interface AwsClientOptions {
  region?: string;
  profile?: string;
  requestTimeoutMs: number;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  maxAttempts?: number;
  retryDelayMs?: number;
  limits?: Partial<LiveLimits>;
}

/** The configuration every AWS SDK client of casdoctor shares: region, timeouts, credentials, retries, test endpoint. */
export async function awsClientConfig(opts: AwsClientOptions) {
  let retryStrategy: unknown;
  if (opts.retryDelayMs !== undefined) {
    const { ConfiguredRetryStrategy } = await import('@smithy/util-retry');
    const delay = opts.retryDelayMs;
    retryStrategy = new ConfiguredRetryStrategy(opts.maxAttempts ?? 3, () => delay);
  }
  return {
    region: opts.region,
    requestHandler: {
      requestTimeout: opts.requestTimeoutMs,
      connectionTimeout: opts.requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
    ...(opts.profile && !opts.credentials ? { profile: opts.profile } : {}),
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}),
    ...(retryStrategy ? { retryStrategy: retryStrategy as never } : {}),
  };
}

interface HandlerRequest {
  protocol?: string;
  hostname?: string;
  port?: number;
}
interface HandlerOptions {
  abortSignal?: AbortSignal;
  [k: string]: unknown;
}
interface HandlerOutput {
  response: { body?: unknown; [k: string]: unknown };
}
interface RequestHandlerLike {
  handle(request: HandlerRequest, options?: HandlerOptions): Promise<HandlerOutput>;
}

/**
 * Bounds every HTTP exchange of an SDK client: one deadline from request to the body's last byte (the SDK's own
 * requestTimeout stops at the headers, and its socket timeout is per idle gap, so a trickled body never timed out) and
 * a cap on the body's bytes. Errors carry the endpoint the SDK really used (AWS_ENDPOINT_URL included).
 */
export function boundAwsClient(
  client: { config: { requestHandler?: unknown } },
  bounds: { timeoutMs: number; maxBytes: number },
): void {
  const handler = client.config.requestHandler as RequestHandlerLike | undefined;
  if (!handler || typeof handler.handle !== 'function') return;
  const inner = handler.handle.bind(handler);
  handler.handle = (request, options = {}) => {
    const endpoint = `${request.protocol ?? 'https:'}//${request.hostname ?? ''}${request.port ? `:${request.port}` : ''}`;
    const stamp = (e: unknown) => {
      if (e && typeof e === 'object') {
        Object.assign(e, { casdoctorEndpoint: endpoint });
        // the SDK's own header timeout says the same as ours, in our words
        if ((e as Error).name === 'TimeoutError') Object.assign(e, { casdoctorTimeoutMs: bounds.timeoutMs });
      }
      return e;
    };
    const abort = new AbortController();
    const outer = options.abortSignal;
    if (outer?.aborted) abort.abort();
    else outer?.addEventListener('abort', () => abort.abort(), { once: true });
    return new Promise<HandlerOutput>((resolve, reject) => {
      let body: Transform | undefined;
      let source: Readable | undefined;
      const timer = setTimeout(() => {
        // the SDK retries a TimeoutError like its own (a transient error), at most maxAttempts times
        const e = Object.assign(new Error(`no complete answer within ${bounds.timeoutMs}ms`), {
          name: 'TimeoutError',
          casdoctorEndpoint: endpoint,
          casdoctorTimeoutMs: bounds.timeoutMs,
        });
        abort.abort();
        if (body) {
          body.destroy(e);
          source?.destroy();
        } else reject(e);
      }, bounds.timeoutMs);
      timer.unref(); // the open socket keeps the process alive while it matters; a body never read must not
      inner(request, { ...options, abortSignal: abort.signal }).then(
        (out) => {
          const raw = out.response.body as Readable | undefined;
          if (!raw || typeof raw.pipe !== 'function') {
            clearTimeout(timer);
            resolve(out);
            return;
          }
          let size = 0;
          source = raw;
          body = new Transform({
            transform(chunk: Buffer, _enc, done) {
              size += chunk.length;
              if (size > bounds.maxBytes) {
                raw.destroy();
                done(stamp(new ResponseTooLargeError(endpoint, 'response', bounds.maxBytes)) as Error);
              } else done(null, chunk);
            },
          });
          body.on('close', () => clearTimeout(timer));
          raw.on('error', (e) => body?.destroy(stamp(e) as Error));
          raw.pipe(body);
          out.response.body = body;
          resolve(out);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(stamp(e));
        },
      );
    });
  };
}

/** Stops a pagination whose endpoint repeats a NextToken or never stops (AWS itself does neither). */
export class TokenGuard {
  private readonly seen = new Set<string>();
  private pages = 0;
  constructor(
    readonly action: string,
    readonly endpoint: string,
    readonly maxPages: number,
    readonly tokenName = 'NextToken',
  ) {}

  /** The token to ask for next, or undefined when the pagination is done; throws LimitExceededError. */
  next(token: string | undefined): string | undefined {
    this.pages++;
    if (!token) return undefined;
    const hint = `check AWS_ENDPOINT_URL and any proxy in front of AWS: AWS never repeats a ${this.tokenName}`;
    if (this.seen.has(token)) {
      throw new LimitExceededError(
        `${this.endpoint} sent a ${this.tokenName} it had sent before for ${this.action} (page ${this.pages + 1}); casdoctor stops instead of paging forever`,
        hint,
        `repeated ${this.tokenName}`,
      );
    }
    if (this.pages >= this.maxPages) {
      throw new LimitExceededError(
        `${this.endpoint} was still paging ${this.action} after ${this.pages} pages; casdoctor reads at most ${this.maxPages} pages per call`,
        hint,
        `${this.maxPages} pages per call`,
      );
    }
    this.seen.add(token);
    return token;
  }
}

/**
 * Gathers every ASG of the region (matching them to this cluster is left to pure code) and what CA reads about them.
 * Denied, throttled or missing pieces become gaps; expired or missing credentials throw an EnvironmentError.
 */
/** The nodes' region: the most common topology.kubernetes.io/region label, else the zone in spec.providerID. */
export function regionFromNodes(nodes: Node[]): string | undefined {
  const counts = new Map<string, number>();
  for (const n of nodes) {
    let r =
      n.metadata.labels?.['topology.kubernetes.io/region'] ??
      n.metadata.labels?.['failure-domain.beta.kubernetes.io/region'];
    if (!r) {
      // aws:///us-east-1a/i-0123 (local zones too: aws:///us-west-2-lax-1a/i-0123)
      r = /^aws:\/\/\/([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d+)/.exec(n.spec?.providerID ?? '')?.[1];
    }
    if (r) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

/** The region from flag, environment or profile (nodes are the caller's fallback). */
export async function regionFromEnvironment(opts: {
  region?: string;
  profile?: string;
}): Promise<string | undefined> {
  if (opts.region) return opts.region;
  if (process.env.AWS_REGION) return process.env.AWS_REGION;
  if (process.env.AWS_DEFAULT_REGION) return process.env.AWS_DEFAULT_REGION;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // The SDK's region chain reads the profile's `region` from ~/.aws/config (or AWS_CONFIG_FILE).
  const { AutoScalingClient } = await import('@aws-sdk/client-auto-scaling');
  const probe = new AutoScalingClient(opts.profile ? { profile: opts.profile } : {});
  try {
    const region = await probe.config.region();
    return region || undefined;
  } catch {
    return undefined;
  } finally {
    probe.destroy();
  }
}

/** The shape of every AWS region name (us-east-1, ap-southeast-4, us-gov-west-1, cn-north-1, eu-isoe-west-1 ...). */
export function isAwsRegionName(region: string): boolean {
  return /^(us|eu|ap|sa|ca|me|af|il|mx|cn)(-gov|-iso[a-z]?)?-(north|south|east|west|central|northeast|southeast|northwest|southwest)-\d{1,2}$/.test(region);
}

/** The shared config and credentials files, as the SDK finds them. */
function awsConfigFiles(): string[] {
  const home = process.env.HOME || homedir();
  return [
    process.env.AWS_CONFIG_FILE || join(home, '.aws', 'config'),
    process.env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials'),
  ];
}

/** Whether a profile has a section in the config (`[profile x]`, `[x]` for default) or credentials (`[x]`) file. */
export function awsProfileDefined(profile: string): boolean {
  const [config, credentials] = awsConfigFiles();
  const sections = (file: string) => {
    if (!existsSync(file)) return [];
    try {
      return [...readFileSync(file, 'utf8').matchAll(/^\s*\[\s*([^\]]+?)\s*\]/gm)].map((m) => m[1]);
    } catch {
      return [];
    }
  };
  return sections(config).some((n) => n === `profile ${profile}` || n === profile) || sections(credentials).includes(profile);
}

/**
 * An EC2 client for one gathering call, bounded like every other (timeout, response bytes, page budget): the SDK loads
 * here, lazily, and the CallBook records what was asked and what was denied.
 */
export async function ec2Session(opts: AwsClientOptions & { region: string }) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const ec2 = await import('@aws-sdk/client-ec2');
  const limits = liveLimits(opts.limits);
  const client = new ec2.EC2Client(await awsClientConfig(opts));
  boundAwsClient(client, { timeoutMs: opts.requestTimeoutMs, maxBytes: limits.maxResponseBytes });
  const book = new CallBook(opts.region, (s) => endpointFor(opts, s), opts.profile ?? process.env.AWS_PROFILE, limits.maxAwsPages);
  return { ec2, client, limits, book };
}
