import { isKarpenterOnly } from '../checks/lib/route.js';
import { InputError } from '../model/errors.js';
import { isIncompleteSkip } from '../model/findings.js';
import type { RawInputs } from '../model/snapshot.js';
import { renderAsgAuditText } from '../report/asg-audit-text.js';
import { terminalStyle, wantsColor } from '../report/style.js';
import type { Analysis } from '../simulate/analysis.js';
import { auditedGroups, nodeGroupReport, setAuditedAsgs, unknownAsgNames } from '../providers/aws/asg-audit.js';
import { buildIamPlan } from '../providers/aws/iam.js';
import {
  parseRequestTimeout,
  reportHeader,
  stdoutSink,
  writeMachineReport,
} from './common.js';
import { checksOf, warnInputs } from './pipeline.js';
import { exitCodeFor } from './strict.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface AsgAuditOptions extends GlobalOptions {
  /** --asg, repeatable */
  asg?: string[];
  /** --iam-policy, repeatable */
  iamPolicy?: string[];
}

const IAM_KIND = 'iamEvaluationResults';

function dropIamGaps(raw: RawInputs): void {
  raw.gaps = raw.gaps.filter((g) => g.resource !== IAM_KIND && g.resource !== 'iam:SimulatePrincipalPolicy');
}

/** Fills raw.iamEvaluationResults: --iam-policy locally, else live simulation; a gap when neither can run. */
export async function gatherIam(raw: RawInputs, analysis: Analysis, o: AsgAuditOptions, deps: Deps): Promise<void> {
  if (o.iamPolicy && o.iamPolicy.length > 0) {
    const { evaluateIamPolicies } = await import('../providers/aws/gather-iam-policy.js');
    const r = await evaluateIamPolicies(o.iamPolicy, buildIamPlan(analysis));
    raw.sources.push(...r.sources);
    raw.warnings.push(...r.warnings);
    dropIamGaps(raw);
    if (r.results) {
      raw.iamEvaluationResults = r.results;
      raw.provided.add(IAM_KIND);
    } else if (r.gap) {
      raw.iamEvaluationResults = [];
      raw.provided.delete(IAM_KIND);
      raw.gaps.push(r.gap);
    }
    return;
  }
  if (o.from.length > 0) {
    if (!raw.provided.has(IAM_KIND)) {
      raw.gaps.push({
        resource: IAM_KIND,
        reason: 'not-provided',
        detail:
          'no IAM evaluation in the input: pass --iam-policy <CA policy.json> (evaluated locally) or add `aws iam simulate-principal-policy` output',
      });
    }
    return;
  }
  const region = o.region ?? raw.sources.map((s) => /^live: aws (\S+)$/.exec(s)?.[1]).find(Boolean);
  if (!region) return;
  const { gatherLiveIam } = await import('../providers/aws/gather-iam.js');
  const overrides = (deps.liveOverrides ?? {}) as {
    awsEndpoint?: string;
    awsCredentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
    awsMaxAttempts?: number;
    awsRetryDelayMs?: number;
  };
  const r = await gatherLiveIam(buildIamPlan(analysis), {
    region,
    profile: o.profile,
    requestTimeoutMs: parseRequestTimeout(o.requestTimeout),
    endpoint: overrides.awsEndpoint,
    credentials: overrides.awsCredentials,
    maxAttempts: overrides.awsMaxAttempts,
    retryDelayMs: overrides.awsRetryDelayMs,
  });
  raw.sources.push(...r.sources);
  raw.warnings.push(...r.warnings);
  raw.gaps.push(...r.gaps);
  if (r.results) {
    raw.iamEvaluationResults = r.results;
    raw.provided.add(IAM_KIND);
  }
}

/** asg-audit (and node-group-audit) on gathered input whose CA runs the AWS provider (commands/audit.ts dispatches). */
export async function auditAsgs(o: AsgAuditOptions, deps: Deps, raw: RawInputs, analysis: Analysis): Promise<RunResult> {
  const now = analysis.now;
  if (!raw.provided.has('autoScalingGroups')) {
    const gap = raw.gaps.find((g) => g.resource === 'autoscaling:DescribeAutoScalingGroups');
    // a Karpenter-only cluster has no ASG to add: say what the cluster is and where its answers are
    if (!gap && isKarpenterOnly(analysis))
      throw new InputError(
        `${o.from.length ? o.from.join(', ') : 'the cluster'} is a Karpenter-only cluster (NodePools, no Cluster Autoscaler Deployment, no Auto Scaling group): the audit covers CA's node groups, and there are none; casdoctor why-pending and scale-down-blockers explain Karpenter's decisions`,
      );
    throw new InputError(
      gap
        ? `cannot list Auto Scaling groups: ${gap.detail}`
        : o.from.length
          ? `no Auto Scaling groups in ${o.from.join(', ')}: add \`aws autoscaling describe-auto-scaling-groups --output json\` output`
          : 'no Auto Scaling groups could be listed',
    );
  }
  // ASGs beside Karpenter and no CA: they are no CA node groups, and CA's checks would audit a CA that is not there
  if (isKarpenterOnly(analysis)) {
    const names = raw.autoScalingGroups.map((g) => g.AutoScalingGroupName).sort();
    throw new InputError(
      `${o.from.length ? o.from.join(', ') : 'the cluster'} runs Karpenter and no Cluster Autoscaler (no CA Deployment, no --ca-args, no fresh cluster-autoscaler-status ConfigMap): its ${names.length} Auto Scaling group(s) (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}) are resized by no autoscaler, and asg-audit audits CA's groups. If CA runs outside the cluster, pass its flags with --ca-args "<flags>"; casdoctor why-pending and scale-down-blockers explain Karpenter's decisions`,
    );
  }
  if (o.asg && o.asg.length > 0) {
    const unknown = unknownAsgNames(analysis, o.asg);
    if (unknown.length > 0) {
      const known = raw.autoScalingGroups.map((g) => g.AutoScalingGroupName).sort();
      throw new InputError(
        `--asg ${unknown.join(', ')}: no such Auto Scaling group${known.length ? `; groups: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', ...' : ''}` : ''}`,
      );
    }
    setAuditedAsgs(analysis, o.asg);
  }
  await gatherIam(raw, analysis, o, deps);

  const { findings, skipped } = checksOf(analysis, 'asg-audit');
  const nodeGroups = auditedGroups(analysis).map((g) => nodeGroupReport(analysis, g));

  warnInputs(raw, deps, (g) => g.resource !== IAM_KIND);

  if (o.output === 'json' || o.output === 'yaml') {
    // streamed: no string holds the document (schemaVersion 1: the shape is unchanged, docs/json.md)
    await writeMachineReport(
      o.output,
      { schemaVersion: 1, command: 'asg-audit', now: now.toISOString(), findings, skipped, nodeGroups },
      stdoutSink(deps),
    );
  } else {
    const ca = analysis.ca;
    const discovery =
      ca.flags.nodeGroupAutoDiscovery.value.length > 0
        ? `discovery ${ca.flags.nodeGroupAutoDiscovery.value.join(' AND ')}`
        : ca.nodeGroupSpecs.length > 0
          ? `--nodes ${ca.nodeGroupSpecs.map((s) => s.raw).join(', ')}`
          : 'no node group discovery';
    deps.stdout(
      renderAsgAuditText(
        {
          nodeGroups,
          findings,
          skipped,
          header: { ...reportHeader(ca, now, o), discovery },
          notes: [],
          width: deps.stdoutIsTTY ? deps.terminalWidth : undefined,
        },
        await terminalStyle(wantsColor(o, deps)),
      ),
    );
  }
  const exitCode = exitCodeFor(o.failOn, findings);
  if (exitCode !== EXIT.ok || o.failOn === 'never') return { exitCode };
  if (o.iamPolicy?.length && skipped.some((k) => k.checkId.startsWith('iam-') && isIncompleteSkip(k)))
    return { exitCode: EXIT.incomplete };
  return { exitCode: EXIT.ok };
}
