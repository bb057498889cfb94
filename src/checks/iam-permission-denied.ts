import type { Severity, Subject } from '../model/findings.js';
import { type IamDecision, caIamAction, describeCondition, iamVerdicts } from '../providers/aws/iam.js';
import { defineCheck } from './define-check.js';
import { listNames, tagCommand } from '../providers/aws/asg-audit-checks.js';

const WARNING_ONLY = new Set([
  'autoscaling:DescribeScalingActivities',
  'ec2:DescribeInstanceTypes',
  'eks:DescribeNodegroup',
]);

const DECISION_TEXT: Record<string, string> = {
  implicitDeny: 'implicitly denied',
  explicitDeny: 'explicitly denied',
};

function roleName(arn: string): string {
  return /:(role|user|assumed-role)\/(.+)$/.exec(arn)?.[2] ?? arn;
}

/** The reason a decision is a denial, from the detail the evaluation gives. */
function why(d: IamDecision): string {
  if (d.decision === 'explicitDeny')
    return d.matchedStatements.length > 0
      ? `: denied by ${listNames(d.matchedStatements, 3)}`
      : ': an explicit Deny matches';
  const parts: string[] = [];
  for (const n of d.nearMisses.slice(0, 2))
    parts.push(`${n.statement} allows it only if ${n.conditions.map(describeCondition).join(' and ')}`);
  if (parts.length === 0 && d.missingContext.length > 0)
    parts.push(
      `a statement conditions on ${listNames(d.missingContext, 3)}, which the request does not carry`,
    );
  if (d.impossibleKeys.length > 0)
    parts.push(
      `${listNames(d.impossibleKeys, 3)} can never be present on ${d.action}${d.resourceArn === '*' ? ' (a call on "*")' : ''}`,
    );
  return parts.length > 0 ? `: ${parts.join('; ')}` : ': no statement allows it';
}

function fixFor(d: IamDecision, group: string | undefined): string {
  if (d.impossibleKeys.length > 0) {
    const right = d.impossibleKeys.map((k) =>
      /ResourceTag\//.test(k) && d.resourceArn !== '*'
        ? `aws:ResourceTag/${k.split('ResourceTag/')[1]}`
        : undefined,
    );
    return d.resourceArn === '*'
      ? `Describe and other "*" actions carry no resource tags: allow ${d.action} on "*" without a ResourceTag condition.`
      : `Use a condition key that exists for ${d.action}: ${d.impossibleKeys
          .map((k, i) => (right[i] ? `${right[i]} instead of ${k}` : `drop ${k}`))
          .join(', ')}.`;
  }
  // a tag condition the ASG does not meet: tagging the ASG is usually the intended fix
  const tagFix = d.nearMisses
    .flatMap((n) => n.conditions)
    .find(
      (c) =>
        /^(aws|autoscaling):ResourceTag\//.test(c.key) && c.values.length === 1 && !/[*?]/.test(c.values[0]),
    );
  if (group && tagFix) {
    const key = tagFix.key.split('ResourceTag/')[1];
    return `Tag the ASG the way the policy expects (or widen the condition):\n  ${tagCommand(group, key, tagFix.values[0])}`;
  }
  if (d.decision === 'explicitDeny')
    return `Remove or narrow the Deny statement (${listNames(d.matchedStatements, 3)}).`;
  const resource =
    d.resourceArn === '*' ? '*' : d.resourceArn.replace(/autoScalingGroup:[^:]+:/, 'autoScalingGroup:*:');
  return `Allow it in CA's role policy:\n  { "Effect": "Allow", "Action": ${JSON.stringify(d.action)}, "Resource": ${JSON.stringify(resource)} }`;
}

/** The request's context entries for the keys the policy looked at. */
function contextEvidence(
  d: IamDecision,
  context: Record<string, string>,
): Array<{ source: string; observed: string }> {
  const keys = new Set([...d.missingContext, ...d.nearMisses.flatMap((n) => n.conditions.map((c) => c.key))]);
  if (keys.size === 0) return [];
  const tags = [...keys].map((k) => (k in context ? `${k}=${context[k]}` : `${k} absent`));
  return [{ source: 'request context (the resource tags)', observed: tags.join(', ') }];
}

export default defineCheck({
  meta: {
    id: 'iam-permission-denied',
    title: "CA's IAM role may not call an action CA needs",
    summary:
      "IAM simulation of CA's role (IRSA, Pod Identity or node role) on the real ASG ARNs with their tags denies an action this CA version and setup need.",
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['iamEvaluationResults', 'autoScalingGroups'],
    providers: ['aws'],
    messages: {
      denied: '{action} on {resource} is {decision} for {principal}{why}; in CA: {breaks}.',
      notEvaluated:
        'The IAM evaluation does not cover {actions}; casdoctor cannot tell whether {principal} may call them.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/README.md (IAM Policy); aws_wrapper.go; kops#14317; terraform-aws-eks-blueprints#1990',
  },
  run(ctx) {
    const v = iamVerdicts(ctx.analysis);
    const principalArn = v.decisions.find((d) => d.principal)?.principal ?? v.plan.hints.irsaRoleArn;
    const principal = principalArn ? `role ${roleName(principalArn)}` : 'the simulated principal';
    const principalSubject: Subject = {
      kind: 'IAMRole',
      name: principalArn ? roleName(principalArn) : 'cluster-autoscaler',
    };
    for (const d of v.decisions) {
      if (d.decision === 'allowed') continue;
      const meta = caIamAction(d.action);
      const severity: Severity = WARNING_ONLY.has(d.action) ? 'warning' : 'error';
      const request = v.plan.requests.find((r) => r.action === d.action && r.resourceArn === d.resourceArn);
      const resource = d.group
        ? request?.nodegroup
          ? `EKS node group ${request.nodegroup}`
          : `ASG ${d.group}`
        : '"*"';
      ctx.report({
        messageId: 'denied',
        severity,
        data: {
          action: d.action,
          resource,
          decision: DECISION_TEXT[d.decision] ?? d.decision,
          principal,
          why: why(d),
          breaks: meta?.breaks ?? 'CA cannot call it',
        },
        subject: d.group ? { kind: 'AutoScalingGroup', name: d.group } : principalSubject,
        ...(d.group ? { nodeGroup: d.group } : {}),
        evidence: [
          {
            source: 'IAM simulation',
            observed: `${d.action} on ${d.resourceArn}: ${d.decision}`,
            expected: 'allowed',
          },
          ...contextEvidence(d, request?.context ?? {}),
          ...(d.missingContext.length > 0
            ? [{ source: 'MissingContextValues', observed: d.missingContext.join(', ') }]
            : []),
          ...d.nearMisses.slice(0, 3).map((n) => ({
            source: n.statement,
            observed: n.conditions.map(describeCondition).join('; '),
          })),
        ],
        remediation: fixFor(d, d.group && !request?.nodegroup ? d.group : undefined),
      });
    }
    if (v.notEvaluated.length > 0) {
      const actions = [...new Set(v.notEvaluated.map((r) => r.action))];
      ctx.report({
        messageId: 'notEvaluated',
        severity: 'info',
        data: { actions: listNames(actions, 6), principal },
        subject: principalSubject,
        evidence: [
          { source: 'needed by this setup', observed: v.plan.actions.map((x) => x.action).join(', ') },
        ],
        remediation:
          'Simulate them too: aws iam simulate-principal-policy --policy-source-arn <role-arn> --action-names <actions> --resource-arns <asg-arn>, or pass the policy with --iam-policy.',
      });
    }
  },
});
