// Live gathering: the Kubernetes API and AWS, read-only, in parallel when the AWS region is known up front.
import { shellCommand } from '../model/shell.js';
import { DATA_KINDS, emptyInputs, type Gap, type GapReason, type RawInputs } from '../model/snapshot.js';
import { EnvironmentError, LimitExceededError } from './errors.js';
import { gatherAws, gatherInstanceTypeOfferings } from '../providers/aws/gather.js';
import { regionFromEnvironment, regionFromNodes } from '../providers/aws/gather-client.js';
import { karpenterInputs } from '../simulate/providers/karpenter/inputs.js';
import { parseCaLogSince } from './live-ca-record.js';
import { gatherKubernetes } from './live-kubernetes.js';
import type { LiveLimits } from './live-limits.js';

export interface LiveOptions {
  /** kubeconfig as kubectl reads it: --kubeconfig, else the $KUBECONFIG list (first file's current-context wins). */
  kubeconfig?: string;
  context?: string;
  profile?: string;
  /** Flag, else AWS_REGION / AWS_DEFAULT_REGION / the profile, else the nodes' topology.kubernetes.io/region label. */
  region?: string;
  /** Bounds each call; a timeout message names the server. */
  requestTimeoutMs: number;
  /**
   * Restricts events and PVCs to this namespace. Pods are always listed cluster-wide, because node usage needs every
   * pod; with namespace-only RBAC the pods of this namespace are listed and the cluster-scope gap is kept.
   */
  namespace?: string;
  skipAws?: boolean;
  /** --ca-log-since as typed (a Go duration, default 1h): the window of CA's log to read. */
  caLogSince?: string;
  /** Read CA's log and its /metrics and /snapshotz through the pod proxy (default true). */
  readCaRecord?: boolean;
  /** `history`: also read Karpenter's log over this many seconds (default: not read). */
  karpenterLogSinceSeconds?: number;
  /** Progress lines ("kubernetes: listing pods…"); the CLI shows them on stderr. */
  onProgress?: (msg: string) => void;
  // Test hooks, never set by the CLI outside tests:
  awsEndpoint?: string;
  awsCredentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  awsMaxAttempts?: number;
  awsRetryDelayMs?: number;
  /** Smaller bounds for tests; the defaults and their reasons are in live-limits.ts. */
  limits?: Partial<LiveLimits>;
  /**
   * As the offline loader's `fields`: 'read' and 'why-pending' keep only the fields casdoctor reads of each Kubernetes
   * object as each page arrives (src/gather/shape.ts); 'all' (the default) keeps whole objects, for `snapshot`.
   */
  fields?: 'read' | 'why-pending' | 'all';
}

/**
 * Gathers everything casdoctor reads from the live cluster and AWS, read-only. AWS covers every ASG of the region
 * (which belong to this cluster is decided later by pure code). Forbidden, missing or slow pieces become `gaps`, and so
 * does AWS as a whole when it cannot be read at all (no credentials, an unknown profile, an expired session, no region):
 * the Kubernetes half is still a report. Only when Kubernetes cannot be read does it throw EnvironmentError, with the
 * Kubernetes problem first and any AWS problem after it (`also`).
 */
export async function gatherLive(opts: LiveOptions): Promise<RawInputs> {
  const awsFor = (region: string) =>
    gatherAws({
      region,
      profile: opts.profile,
      requestTimeoutMs: opts.requestTimeoutMs,
      onProgress: opts.onProgress,
      endpoint: opts.awsEndpoint,
      credentials: opts.awsCredentials,
      maxAttempts: opts.awsMaxAttempts,
      retryDelayMs: opts.awsRetryDelayMs,
      limits: opts.limits,
    });

  const caLogSinceSeconds = opts.caLogSince === undefined ? undefined : parseCaLogSince(opts.caLogSince);
  const kubeP = gatherKubernetes({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    requestTimeoutMs: opts.requestTimeoutMs,
    namespace: opts.namespace,
    onProgress: opts.onProgress,
    caLogSinceSeconds,
    readCaRecord: opts.readCaRecord,
    ...(opts.karpenterLogSinceSeconds ? { karpenterLogSinceSeconds: opts.karpenterLogSinceSeconds } : {}),
    limits: opts.limits,
    fields: opts.fields,
  });
  // Both are awaited below; these only keep an early failure of one from being reported as unhandled meanwhile.
  kubeP.catch(() => {});
  const region = opts.skipAws ? undefined : await regionFromEnvironment(opts);
  let awsP = region ? awsFor(region) : undefined;
  awsP?.catch(() => {});
  let kube: RawInputs;
  try {
    kube = await kubeP;
  } catch (e) {
    throw await withAwsProblems(e, opts, region, awsP);
  }

  const warnings: string[] = [];
  const gaps: Gap[] = [];
  if (!opts.skipAws && !awsP) {
    const fromNodes = regionFromNodes(kube.nodes);
    if (fromNodes) {
      warnings.push(`AWS region ${fromNodes} taken from the nodes (no --region, AWS_REGION or profile region)`);
      awsP = awsFor(fromNodes);
    } else gaps.push(...awsGaps(noRegion(opts), 'not-provided', undefined));
  }
  let aws = emptyInputs();
  if (awsP) {
    try {
      aws = await awsP;
    } catch (e) {
      // a server breaking casdoctor's limits is not a gap to report around: it stops the run (exit 2)
      if (!(e instanceof EnvironmentError) || e instanceof LimitExceededError) throw e;
      gaps.push(...awsGaps(e, awsReason(e), region ?? regionFromNodes(kube.nodes)));
    }
  }
  // Karpenter's zones are in its EC2NodeClasses: its instance-type offerings are read once Kubernetes is in
  const karpenter = karpenterInputs(kube);
  const offeringsRegion = region ?? regionFromNodes(kube.nodes);
  if (karpenter.present && aws.sources.length > 0 && offeringsRegion) {
    try {
      aws = mergeInputs(
        aws,
        await gatherInstanceTypeOfferings({
          region: offeringsRegion,
          zones: karpenter.zones,
          profile: opts.profile,
          requestTimeoutMs: opts.requestTimeoutMs,
          onProgress: opts.onProgress,
          endpoint: opts.awsEndpoint,
          credentials: opts.awsCredentials,
          maxAttempts: opts.awsMaxAttempts,
          retryDelayMs: opts.awsRetryDelayMs,
          limits: opts.limits,
        }),
      );
    } catch (e) {
      if (!(e instanceof EnvironmentError) || e instanceof LimitExceededError) throw e;
      const scope = `region ${offeringsRegion}`;
      gaps.push({ resource: 'ec2:DescribeInstanceTypeOfferings', scope, reason: awsReason(e), detail: `${awsReason(e)}: ec2:DescribeInstanceTypeOfferings (${scope}): ${e.message}` });
    }
  }
  // spot prices, for "why this instance type" (Karpenter orders its offerings by them)
  if (karpenter.present && aws.sources.length > 0 && offeringsRegion) {
    const { gatherSpotPricesOrGap } = await import('../providers/aws/gather-spot-prices.js');
    aws = mergeInputs(aws, await gatherSpotPricesOrGap({
      region: offeringsRegion, profile: opts.profile, requestTimeoutMs: opts.requestTimeoutMs, onProgress: opts.onProgress,
      endpoint: opts.awsEndpoint, credentials: opts.awsCredentials, maxAttempts: opts.awsMaxAttempts,
      retryDelayMs: opts.awsRetryDelayMs, limits: opts.limits, now: new Date(),
    }));
  }
  const out = mergeInputs(kube, aws);
  out.warnings.push(...warnings);
  out.gaps.push(...gaps);
  return out;
}

const ASG_ACTION = 'autoscaling:DescribeAutoScalingGroups';

function noRegion(opts: LiveOptions): EnvironmentError {
  return new EnvironmentError(
    'no AWS region: none given, none in AWS_REGION / AWS_DEFAULT_REGION or the profile, and no node carries topology.kubernetes.io/region',
    `pass --region <region> (or aws configure set region <region>${opts.profile ? ` ${shellCommand(['--profile', opts.profile])}` : ''})`,
  );
}

/** The gap reason of an AWS problem that stopped every AWS call. */
function awsReason(e: EnvironmentError): GapReason {
  if (/^(no AWS credentials|the AWS SSO session|the AWS session has expired|AWS rejected the credentials|AWS profile )/.test(e.message))
    return 'unauthorized';
  if (/timed out|no complete answer/.test(e.message)) return 'timeout';
  return 'error';
}

/**
 * AWS read as a whole failed: one gap on DescribeAutoScalingGroups, the call every AWS check needs first and the one
 * that gates every other AWS call (as when it alone is denied), naming the problem and its fix, so each check that needs
 * AWS data is skipped with the credential or setting to add.
 */
function awsGaps(e: EnvironmentError, reason: GapReason, region: string | undefined): Gap[] {
  const scope = region ? `region ${region}` : undefined;
  const detail = `${reason === 'not-provided' ? '' : `${reason}: `}AWS${scope ? ` (${scope})` : ''} not read: ${e.message}; ${e.hint}`;
  return [{ resource: ASG_ACTION, ...(scope ? { scope } : {}), reason, detail }];
}

/**
 * Kubernetes could not be read: its error comes first. An AWS problem found meanwhile (no region, no credentials) is
 * added after it, so one run names everything to fix; AWS still in flight is not waited for beyond its own bounds.
 */
async function withAwsProblems(
  e: unknown,
  opts: LiveOptions,
  region: string | undefined,
  awsP: Promise<RawInputs> | undefined,
): Promise<unknown> {
  if (!(e instanceof EnvironmentError) || e instanceof LimitExceededError || opts.skipAws) return e;
  let problem: EnvironmentError | undefined;
  if (!region) problem = noRegion(opts);
  else if (awsP) {
    try {
      await awsP;
    } catch (a) {
      if (a instanceof EnvironmentError) problem = a;
    }
  }
  if (problem) e.also.push(problem);
  return e;
}

/** Concatenates two partial gatherings (disjoint kinds) into one. */
export function mergeInputs(a: RawInputs, b: RawInputs): RawInputs {
  const out = emptyInputs();
  for (const k of DATA_KINDS) (out[k] as unknown[]) = [...(a[k] as unknown[]), ...(b[k] as unknown[])];
  out.gaps = [...a.gaps, ...b.gaps];
  out.warnings = [...a.warnings, ...b.warnings];
  out.sources = [...a.sources, ...b.sources];
  out.provided = new Set([...a.provided, ...b.provided]);
  if (a.caLogTexts || b.caLogTexts) out.caLogTexts = [...(a.caLogTexts ?? []), ...(b.caLogTexts ?? [])];
  if (a.caProxyTexts || b.caProxyTexts)
    out.caProxyTexts = [...(a.caProxyTexts ?? []), ...(b.caProxyTexts ?? [])];
  if (a.karpenterLogs || b.karpenterLogs) out.karpenterLogs = [...(a.karpenterLogs ?? []), ...(b.karpenterLogs ?? [])];
  if (a.spotPriceHistory || b.spotPriceHistory) out.spotPriceHistory = [...(a.spotPriceHistory ?? []), ...(b.spotPriceHistory ?? [])];
  if (a.spotPriceSources || b.spotPriceSources) out.spotPriceSources = [...(a.spotPriceSources ?? []), ...(b.spotPriceSources ?? [])];
  return out;
}
