// Live gathering: the Kubernetes API and AWS, read-only, in parallel when the AWS region is known up front.
import { shellCommand } from '../model/shell.js';
import { DATA_KINDS, emptyInputs, type RawInputs } from '../model/snapshot.js';
import { EnvironmentError } from './errors.js';
import { gatherAws, regionFromEnvironment, regionFromNodes } from './live-aws.js';
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
  /** Progress lines ("kubernetes: listing pods…"); the CLI shows them on stderr. */
  onProgress?: (msg: string) => void;
  // Test hooks, never set by the CLI outside tests:
  awsEndpoint?: string;
  awsCredentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  awsMaxAttempts?: number;
  awsRetryDelayMs?: number;
  /** Smaller bounds for tests; the defaults and their reasons are in live-limits.ts. */
  limits?: Partial<LiveLimits>;
}

/**
 * Gathers everything casdoctor reads from the live cluster and AWS, read-only. AWS covers every ASG of the region
 * (which belong to this cluster is decided later by pure code). Forbidden, missing or slow pieces become `gaps`;
 * environment problems (kube context, credentials, unreachable servers, no region) throw EnvironmentError.
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
    limits: opts.limits,
  });
  // Both are awaited below; these only keep an early failure of one from being reported as unhandled meanwhile.
  kubeP.catch(() => {});
  const region = opts.skipAws ? undefined : await regionFromEnvironment(opts);
  let awsP = region ? awsFor(region) : undefined;
  awsP?.catch(() => {});
  const kube = await kubeP;

  const warnings: string[] = [];
  if (!opts.skipAws && !awsP) {
    const fromNodes = regionFromNodes(kube.nodes);
    if (!fromNodes) {
      throw new EnvironmentError(
        'no AWS region: none given, none in AWS_REGION / AWS_DEFAULT_REGION or the profile, and no node carries topology.kubernetes.io/region',
        `pass --region <region> (or aws configure set region <region>${opts.profile ? ` ${shellCommand(['--profile', opts.profile])}` : ''})`,
      );
    }
    warnings.push(`AWS region ${fromNodes} taken from the nodes (no --region, AWS_REGION or profile region)`);
    awsP = awsFor(fromNodes);
  }
  const aws = awsP ? await awsP : emptyInputs();
  const out = mergeInputs(kube, aws);
  out.warnings.push(...warnings);
  return out;
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
  return out;
}
