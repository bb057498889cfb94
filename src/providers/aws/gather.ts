// Live AWS gathering: the read-only calls Cluster Autoscaler itself makes (CA: cloudprovider/aws/aws_wrapper.go), batched,
// converted to the `aws ... --output json` shape (Dates as ISO strings), launch-template UserData stripped.
import type {
  AutoScalingGroup,
  Ec2Image,
  Ec2InstanceTypeInfo,
  Ec2InstanceTypeOffering,
  EksNodegroup,
  InstanceRequirements,
  LaunchConfiguration,
  LaunchTemplateSpecification,
  LaunchTemplateVersion,
  ScalingActivity,
} from '../../model/aws.js';
import type { Node } from '../../model/k8s.js';
import { shellCommand } from '../../model/shell.js';
import { type DataKind, emptyInputs, type Gap, type GapReason, type RawInputs } from '../../model/snapshot.js';
import { Transform, type Readable } from 'node:stream';
import { EnvironmentError, LimitExceededError, ResponseTooLargeError } from '../../gather/errors.js';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { formatBytes, type LiveLimits, liveLimits } from '../../gather/live-limits.js';

export interface AwsGatherOptions {
  region: string;
  profile?: string;
  requestTimeoutMs: number;
  onProgress?: (msg: string) => void;
  /** Test hooks: a loopback endpoint for every service, static credentials, fast retries. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  maxAttempts?: number;
  retryDelayMs?: number;
  /** Smaller bounds for tests (see live-limits.ts). */
  limits?: Partial<LiveLimits>;
}

const ASG_PAGE_SIZE = 100; // DescribeAutoScalingGroups MaxRecords maximum
const LC_BATCH = 50; // DescribeLaunchConfigurations LaunchConfigurationNames maximum (CA batches the same way)
const INSTANCE_TYPE_BATCH = 100; // DescribeInstanceTypes InstanceTypes maximum
const IMAGE_BATCH = 100;
const ACTIVITIES_PER_GROUP = 20;
const CONCURRENCY = 8; // parallel calls per action, to stay under API rate limits

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
const ACTION_KIND: Record<string, DataKind> = {
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

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
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

function joinScopes(scopes: string[]): string {
  return scopes.length <= 5
    ? scopes.join(', ')
    : `${scopes.slice(0, 5).join(', ')} and ${scopes.length - 5} more`;
}

/** A gap scope naming a few objects, not a whole batch of 100. */
function listScope(what: string, names: readonly string[]): string {
  return names.length <= 5
    ? `${what} ${names.join(', ')}`
    : `${what} ${names.slice(0, 5).join(', ')} and ${names.length - 5} more`;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface TemplateRef {
  id?: string;
  name?: string;
  versions: Set<string>;
}

const templateKey = (s: LaunchTemplateSpecification) =>
  s.LaunchTemplateId ? `id:${s.LaunchTemplateId}` : `name:${s.LaunchTemplateName}`;

/** Every launch template an ASG points at (group, mixed-instances policy, per-override, running instances). */
function referencedTemplates(asgs: AutoScalingGroup[]): TemplateRef[] {
  const refs = new Map<string, TemplateRef>();
  const add = (s: LaunchTemplateSpecification | undefined) => {
    if (!s || (!s.LaunchTemplateId && !s.LaunchTemplateName)) return;
    const key = templateKey(s);
    const ref = refs.get(key) ?? {
      id: s.LaunchTemplateId,
      name: s.LaunchTemplateId ? undefined : s.LaunchTemplateName,
      versions: new Set(),
    };
    // CA: an unset version means $Default (aws_wrapper.go buildLaunchTemplateFromSpec); $Latest/$Default for drift checks
    ref.versions.add(s.Version || '$Default');
    ref.versions.add('$Latest');
    ref.versions.add('$Default');
    refs.set(key, ref);
  };
  for (const asg of asgs) {
    add(asg.LaunchTemplate);
    add(asg.MixedInstancesPolicy?.LaunchTemplate?.LaunchTemplateSpecification);
    for (const o of asg.MixedInstancesPolicy?.LaunchTemplate?.Overrides ?? [])
      add(o.LaunchTemplateSpecification);
    for (const i of asg.Instances ?? []) add(i.LaunchTemplate);
  }
  return [...refs.values()];
}

/** The version an ASG's spec resolves to, among the fetched ones. */
export function resolveTemplateVersion(
  versions: LaunchTemplateVersion[],
  spec: LaunchTemplateSpecification,
): LaunchTemplateVersion | undefined {
  const mine = versions.filter((v) =>
    spec.LaunchTemplateId
      ? v.LaunchTemplateId === spec.LaunchTemplateId
      : v.LaunchTemplateName === spec.LaunchTemplateName,
  );
  const want = spec.Version || '$Default';
  if (want === '$Default') return mine.find((v) => v.DefaultVersion);
  if (want === '$Latest')
    return mine.reduce<LaunchTemplateVersion | undefined>(
      (a, v) => ((v.VersionNumber ?? 0) > (a?.VersionNumber ?? -1) ? v : a),
      undefined,
    );
  return mine.find((v) => String(v.VersionNumber) === want);
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
export async function gatherAws(opts: AwsGatherOptions): Promise<RawInputs> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const progress = (m: string) => opts.onProgress?.(`aws: ${m}`);
  const [as, ec2, eks] = await Promise.all([
    import('@aws-sdk/client-auto-scaling'),
    import('@aws-sdk/client-ec2'),
    import('@aws-sdk/client-eks'),
  ]);
  const common = await awsClientConfig(opts);
  const limits = liveLimits(opts.limits);
  const autoscaling = new as.AutoScalingClient(common);
  const ec2c = new ec2.EC2Client(common);
  const eksc = new eks.EKSClient(common);
  for (const c of [autoscaling, ec2c, eksc])
    boundAwsClient(c, { timeoutMs: opts.requestTimeoutMs, maxBytes: limits.maxResponseBytes });
  const book = new CallBook(
    opts.region,
    (s) => endpointFor(opts, s),
    opts.profile ?? process.env.AWS_PROFILE,
    limits.maxAwsPages,
  );
  const inputs = emptyInputs();
  inputs.sources.push(`live: aws ${opts.region}`);
  const regionScope = `region ${opts.region}`;

  try {
    // 1. Every ASG of the region, 100 per page.
    progress(`describing auto scaling groups in ${opts.region}…`);
    const asgs: AutoScalingGroup[] = [];
    const listed = await book.run('autoscaling:DescribeAutoScalingGroups', regionScope, async () => {
      const guard = book.guard('autoscaling:DescribeAutoScalingGroups');
      for await (const page of as.paginateDescribeAutoScalingGroups(
        { client: autoscaling, pageSize: ASG_PAGE_SIZE },
        {},
      )) {
        asgs.push(...toAwsJson<AutoScalingGroup[]>(page.AutoScalingGroups ?? []));
        guard.next(page.NextToken); // throws on a repeated token or past the page budget, which ends the paginator
      }
      return true;
    });
    if (!listed) {
      const f = book.failures.get('autoscaling:DescribeAutoScalingGroups')?.[0];
      if (f?.reason === 'timeout') {
        throw new EnvironmentError(
          `autoscaling:DescribeAutoScalingGroups ${f.message}`,
          'check network access to AWS, or allow more time with --request-timeout',
        );
      }
      inputs.gaps.push(...book.gaps());
      return inputs;
    }
    inputs.autoScalingGroups = asgs;
    progress(`${asgs.length} auto scaling groups`);

    const templates = referencedTemplates(asgs);
    const lcNames = [
      ...new Set(
        asgs.flatMap((a) => [
          a.LaunchConfigurationName,
          ...(a.Instances ?? []).map((i) => i.LaunchConfigurationName),
        ]),
      ),
    ]
      .filter((n): n is string => !!n)
      .sort();
    const nodegroups = new Map<string, { clusterName: string; nodegroupName: string }>();
    for (const asg of asgs) {
      const tag = (k: string) => asg.Tags?.find((t) => t.Key === k)?.Value;
      const clusterName = tag('eks:cluster-name');
      const nodegroupName = tag('eks:nodegroup-name');
      if (clusterName && nodegroupName)
        nodegroups.set(`${clusterName}/${nodegroupName}`, { clusterName, nodegroupName });
    }
    progress(
      `describing ${templates.length} launch templates, ${lcNames.length} launch configurations, ${nodegroups.size} EKS node groups and the scaling activities of ${asgs.length} groups…`,
    );

    // 2. Scaling activities run alongside everything else.
    const activities = mapLimit(asgs, CONCURRENCY, (asg) =>
      book.run(
        'autoscaling:DescribeScalingActivities',
        `autoScalingGroup ${asg.AutoScalingGroupName}`,
        async () => {
          const out = await autoscaling.send(
            new as.DescribeScalingActivitiesCommand({
              AutoScalingGroupName: asg.AutoScalingGroupName,
              MaxRecords: ACTIVITIES_PER_GROUP,
            }),
          );
          return toAwsJson<ScalingActivity[]>(out.Activities ?? []);
        },
      ),
    );

    const rest = (async () => {
      const [ltVersions, lcs, ngs] = await Promise.all([
        describeTemplates(book, ec2, ec2c, templates),
        describeLaunchConfigurations(book, as, autoscaling, lcNames),
        mapLimit([...nodegroups.values()], CONCURRENCY, (ng) =>
          book.run('eks:DescribeNodegroup', `nodegroup ${ng.clusterName}/${ng.nodegroupName}`, async () => {
            const out = await eksc.send(new eks.DescribeNodegroupCommand(ng));
            return out.nodegroup ? toAwsJson<EksNodegroup>(out.nodegroup) : undefined;
          }),
        ),
      ]);
      inputs.launchTemplateVersions = ltVersions;
      inputs.launchConfigurations = lcs;
      inputs.eksNodegroups = ngs.filter((n): n is EksNodegroup => !!n);

      // 3. Attribute-based instance selection: image architecture, then the matching types (CA: getInstanceTypeFromInstanceRequirements).
      const abs = await describeAttributeBasedGroups(book, ec2, ec2c, asgs, ltVersions, progress);
      inputs.images = abs.images;
      inputs.instanceTypesFromRequirements = abs.types.map((t) => ({ InstanceType: t }));

      // 4. Instance types referenced anywhere, never the whole region.
      const types = new Set<string>();
      for (const asg of asgs) {
        for (const i of asg.Instances ?? []) if (i.InstanceType) types.add(i.InstanceType);
        for (const o of asg.MixedInstancesPolicy?.LaunchTemplate?.Overrides ?? [])
          if (o.InstanceType) types.add(o.InstanceType);
      }
      for (const lc of lcs) if (lc.InstanceType) types.add(lc.InstanceType);
      for (const v of ltVersions)
        if (v.LaunchTemplateData?.InstanceType) types.add(v.LaunchTemplateData.InstanceType);
      for (const ng of inputs.eksNodegroups) for (const t of ng.instanceTypes ?? []) types.add(t);
      for (const t of abs.types) types.add(t);
      progress(`describing ${types.size} instance types…`);
      inputs.instanceTypes = await describeInstanceTypes(book, ec2, ec2c, [...types].sort());
    })();

    const [acts] = await Promise.all([activities, rest]);
    inputs.scalingActivities = acts.flatMap((a) => a ?? []);
  } finally {
    autoscaling.destroy();
    ec2c.destroy();
    eksc.destroy();
  }

  inputs.gaps.push(...book.gaps());
  const incomplete = book.incompleteKinds();
  for (const kind of Object.values(ACTION_KIND)) if (!incomplete.has(kind)) inputs.provided.add(kind);
  progress('done');
  return inputs;
}

/** DescribeInstanceTypeOfferings MaxResults maximum. */
const OFFERINGS_PAGE_SIZE = 1000;

/**
 * EC2's instance-type offerings per zone, read only when the cluster runs Karpenter: `zones` are its EC2NodeClasses'
 * subnet zones (empty: every zone of the region, as Karpenter itself asks; karpenter-provider-aws
 * pkg/providers/instancetype/offering). Bounded like every other call: pages of 1,000, the page budget, a gap on denial.
 */
export async function gatherInstanceTypeOfferings(opts: AwsGatherOptions & { zones: readonly string[] }): Promise<RawInputs> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const ec2 = await import('@aws-sdk/client-ec2');
  const limits = liveLimits(opts.limits);
  const client = new ec2.EC2Client(await awsClientConfig(opts));
  boundAwsClient(client, { timeoutMs: opts.requestTimeoutMs, maxBytes: limits.maxResponseBytes });
  const book = new CallBook(opts.region, (s) => endpointFor(opts, s), opts.profile ?? process.env.AWS_PROFILE, limits.maxAwsPages);
  const inputs = emptyInputs();
  const action = 'ec2:DescribeInstanceTypeOfferings';
  const zones = [...new Set(opts.zones)].sort();
  opts.onProgress?.(`aws: describing instance type offerings in ${zones.length ? zones.join(', ') : opts.region}…`);
  let rows: Ec2InstanceTypeOffering[] | undefined;
  try {
    rows = await book.run(action, zones.length ? listScope('zones', zones) : `region ${opts.region}`, async () => {
      const out: Ec2InstanceTypeOffering[] = [];
      const guard = book.guard(action);
      let NextToken: string | undefined;
      do {
        const page = await client.send(
          new ec2.DescribeInstanceTypeOfferingsCommand({
            LocationType: 'availability-zone',
            ...(zones.length ? { Filters: [{ Name: 'location', Values: zones }] } : {}),
            MaxResults: OFFERINGS_PAGE_SIZE,
            NextToken,
          }),
        );
        out.push(...toAwsJson<Ec2InstanceTypeOffering[]>(page.InstanceTypeOfferings ?? []));
        NextToken = guard.next(page.NextToken);
      } while (NextToken);
      return out;
    });
  } finally {
    client.destroy();
  }
  if (rows) {
    inputs.instanceTypeOfferings = rows.sort((a, b) =>
      a.Location === b.Location ? (a.InstanceType < b.InstanceType ? -1 : 1) : a.Location < b.Location ? -1 : 1,
    );
    inputs.provided.add('instanceTypeOfferings');
  }
  inputs.gaps.push(...book.gaps());
  return inputs;
}

type Ec2Module = typeof import('@aws-sdk/client-ec2');
type AsModule = typeof import('@aws-sdk/client-auto-scaling');
type Ec2Client = InstanceType<Ec2Module['EC2Client']>;
type AsClient = InstanceType<AsModule['AutoScalingClient']>;

/** One DescribeLaunchTemplateVersions per template with every version of interest; UserData is dropped. */
async function describeTemplates(
  book: CallBook,
  ec2: Ec2Module,
  client: Ec2Client,
  templates: TemplateRef[],
): Promise<LaunchTemplateVersion[]> {
  const action = 'ec2:DescribeLaunchTemplateVersions';
  const fetch = async (t: TemplateRef, versions: string[]) => {
    const out: LaunchTemplateVersion[] = [];
    const guard = book.guard(action);
    let NextToken: string | undefined;
    do {
      const page = await client.send(
        new ec2.DescribeLaunchTemplateVersionsCommand({
          ...(t.id ? { LaunchTemplateId: t.id } : { LaunchTemplateName: t.name }),
          Versions: versions,
          NextToken,
        }),
      );
      out.push(...toAwsJson<LaunchTemplateVersion[]>(page.LaunchTemplateVersions ?? []));
      NextToken = guard.next(page.NextToken);
    } while (NextToken);
    return out;
  };
  const perTemplate = await mapLimit(templates, CONCURRENCY, async (t) => {
    const scope = `launchTemplate ${t.id ?? t.name}`;
    const versions = [...t.versions];
    try {
      book.calls.set(action, (book.calls.get(action) ?? 0) + 1);
      return await fetch(t, versions);
    } catch (e) {
      const f = book.classify(action, scope, e);
      // One missing version fails the whole call: ask for each version on its own to keep the others.
      if (f.reason === 'not-found' && /VersionNotFound/.test(f.message) && versions.length > 1) {
        const each = await mapLimit(versions, CONCURRENCY, (v) =>
          book.run(action, `${scope} version ${v}`, () => fetch(t, [v])),
        );
        return each.flatMap((x) => x ?? []);
      }
      book.failures.set(action, [...(book.failures.get(action) ?? []), f]);
      return [];
    }
  });
  const seen = new Set<string>();
  const out: LaunchTemplateVersion[] = [];
  for (const v of perTemplate.flat()) {
    const key = `${v.LaunchTemplateId}:${v.VersionNumber}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (v.LaunchTemplateData) delete v.LaunchTemplateData.UserData; // never keep bootstrap scripts (they may hold secrets)
    out.push(v);
  }
  return out.sort((a, b) =>
    (a.LaunchTemplateId ?? '') === (b.LaunchTemplateId ?? '')
      ? (a.VersionNumber ?? 0) - (b.VersionNumber ?? 0)
      : (a.LaunchTemplateId ?? '') < (b.LaunchTemplateId ?? '')
        ? -1
        : 1,
  );
}

async function describeLaunchConfigurations(
  book: CallBook,
  as: AsModule,
  client: AsClient,
  names: string[],
): Promise<LaunchConfiguration[]> {
  const pages = await mapLimit(chunks(names, LC_BATCH), CONCURRENCY, (batch) =>
    book.run(
      'autoscaling:DescribeLaunchConfigurations',
      listScope('launchConfigurations', batch),
      async () => {
        const out: LaunchConfiguration[] = [];
        const guard = book.guard('autoscaling:DescribeLaunchConfigurations');
        let NextToken: string | undefined;
        do {
          const page = await client.send(
            new as.DescribeLaunchConfigurationsCommand({
              LaunchConfigurationNames: batch,
              MaxRecords: LC_BATCH,
              NextToken,
            }),
          );
          out.push(...toAwsJson<LaunchConfiguration[]>(page.LaunchConfigurations ?? []));
          NextToken = guard.next(page.NextToken);
        } while (NextToken);
        return out;
      },
    ),
  );
  return pages
    .flatMap((p) => p ?? [])
    .map((lc) => {
      delete lc.UserData; // same reason as launch templates
      return lc;
    });
}

/** Batches of 100 names; a name EC2 does not know fails the batch, so it is retried once without the unknown names. */
async function describeInstanceTypes(
  book: CallBook,
  ec2: Ec2Module,
  client: Ec2Client,
  names: string[],
): Promise<Ec2InstanceTypeInfo[]> {
  const action = 'ec2:DescribeInstanceTypes';
  const fetch = async (batch: string[]) => {
    const out: Ec2InstanceTypeInfo[] = [];
    const guard = book.guard(action);
    let NextToken: string | undefined;
    do {
      const page = await client.send(
        new ec2.DescribeInstanceTypesCommand({ InstanceTypes: batch as never[], NextToken }),
      );
      out.push(...toAwsJson<Ec2InstanceTypeInfo[]>(page.InstanceTypes ?? []));
      NextToken = guard.next(page.NextToken);
    } while (NextToken);
    return out;
  };
  const pages = await mapLimit(chunks(names, INSTANCE_TYPE_BATCH), CONCURRENCY, async (batch) => {
    const scope = listScope('instanceTypes', batch);
    try {
      book.calls.set(action, (book.calls.get(action) ?? 0) + 1);
      return await fetch(batch);
    } catch (e) {
      const f = book.classify(action, scope, e);
      const unknown = /InvalidInstanceType/.test(f.message)
        ? (/\[([^\]]*)\]/.exec(f.message)?.[1] ?? '').split(/[,\s]+/).filter(Boolean)
        : [];
      const remaining = batch.filter((n) => !unknown.includes(n));
      book.failures.set(action, [
        ...(book.failures.get(action) ?? []),
        { ...f, scope: unknown.length ? listScope('instanceTypes', unknown) : scope },
      ]);
      if (unknown.length === 0 || remaining.length === 0 || remaining.length === batch.length) return [];
      return (await book.run(action, listScope('instanceTypes', remaining), () => fetch(remaining))) ?? [];
    }
  });
  return pages.flat().sort((a, b) => (a.InstanceType < b.InstanceType ? -1 : 1));
}

interface AbsGroup {
  asg: string;
  imageId: string;
  requirements: InstanceRequirements;
}

async function describeAttributeBasedGroups(
  book: CallBook,
  ec2: Ec2Module,
  client: Ec2Client,
  asgs: AutoScalingGroup[],
  versions: LaunchTemplateVersion[],
  progress: (m: string) => void,
): Promise<{ images: Ec2Image[]; types: string[] }> {
  const groups: AbsGroup[] = [];
  for (const asg of asgs) {
    const mip = asg.MixedInstancesPolicy?.LaunchTemplate;
    // CA: explicit instance-type overrides win over requirements (aws_wrapper.go getInstanceTypesForAsgs)
    if (mip?.Overrides?.some((o) => o.InstanceType)) continue;
    const spec = mip?.LaunchTemplateSpecification ?? asg.LaunchTemplate;
    if (!spec) continue;
    const data = resolveTemplateVersion(versions, spec)?.LaunchTemplateData;
    const requirements =
      mip?.Overrides?.find((o) => o.InstanceRequirements)?.InstanceRequirements ??
      (data && !data.InstanceType ? data.InstanceRequirements : undefined);
    if (requirements && data?.ImageId)
      groups.push({ asg: asg.AutoScalingGroupName, imageId: data.ImageId, requirements });
  }
  if (groups.length === 0) return { images: [], types: [] };
  progress(`resolving attribute-based instance types of ${groups.length} groups…`);

  const imageIds = [...new Set(groups.map((g) => g.imageId))].sort();
  const imagePages = await mapLimit(chunks(imageIds, IMAGE_BATCH), CONCURRENCY, (batch) =>
    book.run('ec2:DescribeImages', listScope('images', batch), async () => {
      const out = await client.send(new ec2.DescribeImagesCommand({ ImageIds: batch }));
      return toAwsJson<Ec2Image[]>(out.Images ?? []);
    }),
  );
  const images = imagePages.flatMap((p) => p ?? []);

  const queries = new Map<
    string,
    { archs: string[]; virts: string[]; requirements: InstanceRequirements; asgs: string[] }
  >();
  for (const g of groups) {
    const image = images.find((i) => i.ImageId === g.imageId);
    if (!image) continue;
    const archs = image.Architecture ? [image.Architecture] : [];
    const virts = typeof image.VirtualizationType === 'string' ? [image.VirtualizationType] : [];
    const key = JSON.stringify([archs, virts, g.requirements]);
    const q = queries.get(key) ?? { archs, virts, requirements: g.requirements, asgs: [] };
    q.asgs.push(g.asg);
    queries.set(key, q);
  }
  const results = await mapLimit([...queries.values()], CONCURRENCY, (q) =>
    book.run(
      'ec2:GetInstanceTypesFromInstanceRequirements',
      listScope('autoScalingGroups', q.asgs),
      async () => {
        const out: string[] = [];
        const guard = book.guard('ec2:GetInstanceTypesFromInstanceRequirements');
        let NextToken: string | undefined;
        do {
          // Autoscaling's InstanceRequirements and EC2's InstanceRequirementsRequest share member names (CA copies them field by field).
          const page = await client.send(
            new ec2.GetInstanceTypesFromInstanceRequirementsCommand({
              ArchitectureTypes: q.archs as never[],
              VirtualizationTypes: q.virts as never[],
              InstanceRequirements: q.requirements as never,
              NextToken,
            }),
          );
          for (const t of page.InstanceTypes ?? []) if (t.InstanceType) out.push(t.InstanceType);
          NextToken = guard.next(page.NextToken);
        } while (NextToken);
        return out;
      },
    ),
  );
  const types: string[] = [];
  for (const t of results.flatMap((r) => r ?? [])) if (!types.includes(t)) types.push(t);
  return { images, types };
}

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
