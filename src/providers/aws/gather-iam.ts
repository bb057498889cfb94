// Live IAM: find the principal CA really runs as (IRSA, EKS Pod Identity, or the node's instance role) and ask IAM,
// with iam:SimulatePrincipalPolicy, whether it may make the calls CA needs: on the real ASG ARNs, with each ASG's
// tags as condition context. Read-only. Anything that fails becomes a gap, so the IAM checks are skipped, not passed.
import { LimitExceededError, ResponseTooLargeError } from '../../gather/errors.js';
import { awsClientConfig, boundAwsClient, endpointFor, TokenGuard } from './gather-client.js';
import { formatBytes, type LiveLimits, liveLimits } from '../../gather/live-limits.js';
import type { IamEvaluationResult } from '../../model/aws.js';
import type { Gap, GapReason } from '../../model/snapshot.js';
import type { IamPlan, IamRequest } from './iam.js';
import { toAwsJson } from './gather-client.js';

export interface LiveIamOptions {
  region: string;
  profile?: string;
  requestTimeoutMs: number;
  onProgress?: (msg: string) => void;
  // Test hooks: a loopback endpoint, static credentials, fast retries.
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  maxAttempts?: number;
  retryDelayMs?: number;
  limits?: Partial<LiveLimits>;
}

export interface LiveIamResult {
  results?: IamEvaluationResult[];
  principal?: string;
  /** How the principal was found: "IRSA (kube-system/cluster-autoscaler)", "EKS Pod Identity", "node instance profile". */
  via?: string;
  gaps: Gap[];
  warnings: string[];
  sources: string[];
}

const DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation']);
const THROTTLED = new Set(['Throttling', 'ThrottlingException', 'TooManyRequestsException']);
const NOT_FOUND = /NotFound|NoSuchEntity/;

function reasonOf(e: unknown): { reason: GapReason; message: string } {
  // a broken limit is never a gap: it ends the run naming the API and the limit
  if (e instanceof LimitExceededError) throw e;
  if (e instanceof ResponseTooLargeError) {
    const where = (e as ResponseTooLargeError & { casdoctorEndpoint?: string }).casdoctorEndpoint ?? e.server;
    throw new LimitExceededError(
      `${where} sent more than ${formatBytes(e.maxBytes)} for one IAM or EKS response; casdoctor reads at most ${formatBytes(e.maxBytes)} per response`,
      'check AWS_ENDPOINT_URL and any proxy in front of AWS',
      `${formatBytes(e.maxBytes)} per response`,
    );
  }
  const err = e as Error & { code?: string; casdoctorEndpoint?: string; casdoctorTimeoutMs?: number };
  if (err.casdoctorTimeoutMs)
    return {
      reason: 'timeout',
      message: `TimeoutError: timed out waiting for ${err.casdoctorEndpoint}: no complete answer within ${err.casdoctorTimeoutMs}ms`,
    };
  const code = err.name && err.name !== 'Error' ? err.name : (err.code ?? '');
  const message = `${code}: ${err.message}`;
  if (DENIED.has(code)) return { reason: 'forbidden', message };
  if (THROTTLED.has(code)) return { reason: 'throttled', message };
  if (NOT_FOUND.test(code)) return { reason: 'not-found', message };
  if (code === 'TimeoutError' || err.code === 'ETIMEDOUT') return { reason: 'timeout', message };
  return { reason: 'error', message };
}

const SIMULATE = 'iam:SimulatePrincipalPolicy';

function gap(reason: GapReason, detail: string): Gap {
  return { resource: SIMULATE, reason, detail };
}

/** SimulatePrincipalPolicy takes at most this many context entries per call. */
const BATCH_ACTIONS = 100;

export async function gatherLiveIam(plan: IamPlan, opts: LiveIamOptions): Promise<LiveIamResult> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const progress = (m: string) => opts.onProgress?.(`iam: ${m}`);
  const [iamSdk, eksSdk] = await Promise.all([import('@aws-sdk/client-iam'), import('@aws-sdk/client-eks')]);
  const common = await awsClientConfig(opts);
  const limits = liveLimits(opts.limits);
  const iam = new iamSdk.IAMClient(common);
  const eks = new eksSdk.EKSClient(common);
  for (const c of [iam, eks])
    boundAwsClient(c, { timeoutMs: opts.requestTimeoutMs, maxBytes: limits.maxResponseBytes });
  const out: LiveIamResult = { gaps: [], warnings: [], sources: [] };
  try {
    // 1. The principal, the way CA gets its credentials.
    progress('resolving the IAM principal cluster-autoscaler runs as…');
    const hints = plan.hints;
    const sa = hints.serviceAccount
      ? `${hints.serviceAccount.namespace}/${hints.serviceAccount.name}`
      : undefined;
    if (hints.irsaRoleArn) {
      out.principal = hints.irsaRoleArn;
      out.via = `IRSA (eks.amazonaws.com/role-arn on ServiceAccount ${sa})`;
    }
    if (!out.principal && hints.serviceAccount && hints.clusterName) {
      try {
        const list = await eks.send(
          new eksSdk.ListPodIdentityAssociationsCommand({
            clusterName: hints.clusterName,
            namespace: hints.serviceAccount.namespace,
            serviceAccount: hints.serviceAccount.name,
          }),
        );
        const id = list.associations?.[0]?.associationId;
        if (id) {
          const d = await eks.send(
            new eksSdk.DescribePodIdentityAssociationCommand({
              clusterName: hints.clusterName,
              associationId: id,
            }),
          );
          if (d.association?.roleArn) {
            out.principal = d.association.roleArn;
            out.via = `EKS Pod Identity association ${id} (ServiceAccount ${sa})`;
          }
        }
      } catch (e) {
        // optional: many clusters use IRSA or the node role; note it and fall through
        out.warnings.push(
          `EKS Pod Identity lookup for ${sa} in cluster ${hints.clusterName} failed: ${reasonOf(e).message}`,
        );
      }
    }
    if (!out.principal && hints.instanceProfile) {
      try {
        const p = await iam.send(
          new iamSdk.GetInstanceProfileCommand({ InstanceProfileName: hints.instanceProfile }),
        );
        const role = p.InstanceProfile?.Roles?.[0]?.Arn;
        if (role) {
          out.principal = role;
          out.via = `node instance profile ${hints.instanceProfile} (CA runs on ${hints.caNode})`;
        }
      } catch (e) {
        const r = reasonOf(e);
        out.gaps.push(
          gap(
            r.reason,
            `cannot resolve the instance role of ${hints.caNode} (iam:GetInstanceProfile ${hints.instanceProfile}): ${r.message}`,
          ),
        );
        return out;
      }
    }
    if (!out.principal) {
      out.gaps.push(
        gap(
          'not-found',
          `cannot tell which IAM principal cluster-autoscaler runs as: ${
            sa
              ? `ServiceAccount ${sa} has no eks.amazonaws.com/role-arn, no EKS Pod Identity association was found`
              : 'no CA Deployment found'
          }${hints.caNode ? `, and the instance profile of ${hints.caNode} is unknown` : ''}`,
        ),
      );
      return out;
    }
    out.sources.push(`live: iam simulate-principal-policy for ${out.principal}`);

    // 2. One call per resource and context: "*" for Describe calls, each ASG (its tags), each managed node group.
    const calls = new Map<string, IamRequest[]>();
    for (const r of plan.requests) {
      const key = `${r.resourceArn}\n${JSON.stringify(r.context)}`;
      calls.set(key, [...(calls.get(key) ?? []), r]);
    }
    progress(`simulating ${plan.requests.length} calls for ${out.principal}…`);
    const results: IamEvaluationResult[] = [];
    for (const reqs of calls.values()) {
      const { resourceArn, context } = reqs[0];
      for (let i = 0; i < reqs.length; i += BATCH_ACTIONS) {
        const actions = reqs.slice(i, i + BATCH_ACTIONS).map((r) => r.action);
        const simulate = (Marker: string | undefined) =>
          iam.send(
            new iamSdk.SimulatePrincipalPolicyCommand({
              PolicySourceArn: out.principal,
              ActionNames: actions,
              ...(resourceArn !== '*' ? { ResourceArns: [resourceArn] } : {}),
              ...(Object.keys(context).length > 0
                ? {
                    ContextEntries: Object.entries(context).map(([k, v]) => ({
                      ContextKeyName: k,
                      ContextKeyType: 'string' as const,
                      ContextKeyValues: [v],
                    })),
                  }
                : {}),
              Marker,
            }),
          );
        const guard = new TokenGuard(SIMULATE, endpointFor(opts, 'iam'), limits.maxAwsPages, 'Marker');
        let Marker: string | undefined;
        do {
          let page: Awaited<ReturnType<typeof simulate>>;
          try {
            page = await simulate(Marker);
          } catch (e) {
            const r = reasonOf(e);
            out.gaps.push(
              gap(r.reason, `${r.reason}: ${SIMULATE} for ${out.principal} (${out.via}): ${r.message}`),
            );
            return out;
          }
          for (const res of toAwsJson<IamEvaluationResult[]>(page.EvaluationResults ?? [])) {
            // AWS answers only for the resources asked; keep the stray ones out either way
            if (res.EvalResourceName && res.EvalResourceName !== '*' && res.EvalResourceName !== resourceArn)
              continue;
            results.push({ ...res, CasdoctorPrincipal: out.principal });
          }
          Marker = guard.next(page.IsTruncated ? page.Marker : undefined);
        } while (Marker);
      }
    }
    out.results = results;
    progress('done');
    return out;
  } finally {
    iam.destroy();
    eks.destroy();
  }
}
