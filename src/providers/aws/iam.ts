// The IAM permissions Cluster Autoscaler needs for this setup, the requests to simulate them with (real ASG ARNs,
// their tags as condition context), and how to read the answers. Pure: the simulation itself happens in src/gather.
import type { IamEvaluationResult } from '../../model/aws.js';
import type { AsgNodeGroup } from '../../model/node-group.js';
import type { Analysis } from '../../simulate/analysis.js';
import { auditedGroups } from './asg-audit.js';
import { providerIdToInstance } from './node-groups.js';

export interface CaIamAction {
  action: string;
  /** What the action is called on: each ASG, each EKS managed node group, or "*" (Describe calls take no resource). */
  resource: 'asg' | 'nodegroup' | '*';
  /** Why this setup needs it. */
  why: string;
  /** What breaks in CA without it (ca-semantics §3.7). */
  breaks: string;
}

/** The actions CA's AWS provider calls (CA: cloudprovider/aws/aws_wrapper.go) and what breaks without each. */
const ACTIONS: Record<string, Omit<CaIamAction, 'why'>> = {
  'autoscaling:DescribeAutoScalingGroups': {
    action: 'autoscaling:DescribeAutoScalingGroups',
    resource: '*',
    breaks:
      'CA exits at start-up ("Failed to create AWS Manager"); a running CA fails every loop with "Failed to regenerate ASG cache"',
  },
  'autoscaling:DescribeScalingActivities': {
    action: 'autoscaling:DescribeScalingActivities',
    resource: '*',
    breaks:
      'CA cannot see failed launches (capacity, vCPU limits, bad launch template): it waits --max-node-provision-time (15m) for ScaleUpTimedOut before backing off',
  },
  'autoscaling:DescribeLaunchConfigurations': {
    action: 'autoscaling:DescribeLaunchConfigurations',
    resource: '*',
    breaks:
      'launch-configuration groups without a usable node get no template ("Failed to query launch configurations"): "not ready for scale-up"',
  },
  'ec2:DescribeLaunchTemplateVersions': {
    action: 'ec2:DescribeLaunchTemplateVersions',
    resource: '*',
    breaks:
      'launch-template groups without a usable node get no template ("Failed to query launch template"): "not ready for scale-up"; MixedInstancesPolicy groups without type overrides fail the whole ASG refresh',
  },
  'ec2:DescribeInstanceTypes': {
    action: 'ec2:DescribeInstanceTypes',
    resource: '*',
    breaks:
      "CA falls back to its static instance-type list at start-up: types newer than the list are unknown and their groups can't scale from zero",
  },
  'ec2:DescribeImages': {
    action: 'ec2:DescribeImages',
    resource: '*',
    breaks:
      'attribute-based instance selection groups cannot build a template (no architecture for the image)',
  },
  'ec2:GetInstanceTypesFromInstanceRequirements': {
    action: 'ec2:GetInstanceTypesFromInstanceRequirements',
    resource: '*',
    breaks: 'attribute-based instance selection groups cannot build a template ("no instance types found")',
  },
  'eks:DescribeNodegroup': {
    action: 'eks:DescribeNodegroup',
    resource: 'nodegroup',
    breaks:
      "the template of a managed node group lacks the node group's labels and taints: wrong predicate results when it is at zero",
  },
  'autoscaling:SetDesiredCapacity': {
    action: 'autoscaling:SetDesiredCapacity',
    resource: 'asg',
    breaks: 'scale-up fails: FailedToScaleUpGroup event, then backoff (cloudProviderError)',
  },
  'autoscaling:TerminateInstanceInAutoScalingGroup': {
    action: 'autoscaling:TerminateInstanceInAutoScalingGroup',
    resource: 'asg',
    breaks:
      'scale-down fails: ScaleDownFailed "failed to delete empty node" / "failed to drain and delete node", then a 3m scale-down cooldown',
  },
};

export function caIamAction(action: string): Omit<CaIamAction, 'why'> | undefined {
  return ACTIONS[action];
}

/** The groups CA calls AWS for: discovered ASGs among the audited ones. */
export function iamGroups(a: Analysis): AsgNodeGroup[] {
  return auditedGroups(a).filter((g): g is AsgNodeGroup => g.provider === 'aws' && g.discovered);
}

function usesRequirements(a: Analysis, g: AsgNodeGroup): boolean {
  if (g.mixedInstances?.hasInstanceRequirements) return true;
  const spec = g.launchTemplate;
  if (!spec) return false;
  return a.raw.launchTemplateVersions.some(
    (v) =>
      (v.LaunchTemplateId === spec.LaunchTemplateId || v.LaunchTemplateName === spec.LaunchTemplateName) &&
      !v.LaunchTemplateData?.InstanceType &&
      !!v.LaunchTemplateData?.InstanceRequirements,
  );
}

function isManagedNodegroup(g: AsgNodeGroup): boolean {
  const tags = new Map((g.asg.Tags ?? []).map((t) => [t.Key, t.Value]));
  return !!tags.get('eks:nodegroup-name') && !!tags.get('eks:cluster-name');
}

/** The actions this CA version and this setup need, with the reason. */
export function requiredActions(a: Analysis): CaIamAction[] {
  const groups = iamGroups(a);
  const out: CaIamAction[] = [];
  const add = (action: string, why: string) => out.push({ ...ACTIONS[action], why });
  const minor = a.ca.version.minor;
  add('autoscaling:DescribeAutoScalingGroups', 'CA lists and refreshes its node groups');
  // CA 1.24+ reads scaling activities to spot failed launches (kubernetes/autoscaler#4489)
  if (minor >= 24) add('autoscaling:DescribeScalingActivities', 'CA 1.24+ checks failed launches');
  if (groups.some((g) => g.launchConfigurationName))
    add('autoscaling:DescribeLaunchConfigurations', 'a group uses a launch configuration');
  if (groups.some((g) => g.launchTemplate || g.mixedInstances))
    add('ec2:DescribeLaunchTemplateVersions', 'a group uses a launch template');
  if (!a.ca.flags.awsUseStaticInstanceList.value)
    add(
      'ec2:DescribeInstanceTypes',
      '--aws-use-static-instance-list=false (the default) loads types at start-up',
    );
  if (groups.some((g) => usesRequirements(a, g))) {
    add('ec2:DescribeImages', 'a group uses attribute-based instance selection');
    add('ec2:GetInstanceTypesFromInstanceRequirements', 'a group uses attribute-based instance selection');
  }
  if (groups.some(isManagedNodegroup))
    add('eks:DescribeNodegroup', 'a group is an EKS managed node group (eks:nodegroup-name tag)');
  add('autoscaling:SetDesiredCapacity', 'CA scales groups up');
  add('autoscaling:TerminateInstanceInAutoScalingGroup', 'CA scales groups down');
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The principal CA runs as

export interface PrincipalHints {
  serviceAccount?: { namespace: string; name: string };
  /** false when the snapshot has no ServiceAccounts of CA's namespace. */
  serviceAccountKnown: boolean;
  /** eks.amazonaws.com/role-arn of the service account (IRSA). */
  irsaRoleArn?: string;
  /** The node CA runs on, and the instance profile its launch template gives it (the node-role fallback). */
  caNode?: string;
  instanceProfile?: string;
  /** For EKS Pod Identity lookups. */
  clusterName?: string;
  accountId?: string;
  region?: string;
}

const ARN_ACCOUNT = /^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(\d{12}):/;

export function accountOf(a: Analysis, hints?: { irsaRoleArn?: string }): string | undefined {
  const arns = [
    hints?.irsaRoleArn,
    ...a.raw.autoScalingGroups.map((g) => g.AutoScalingGroupARN),
    ...a.raw.eksNodegroups.map((n) => n.nodegroupArn),
  ];
  for (const arn of arns) {
    const m = arn ? ARN_ACCOUNT.exec(arn) : null;
    if (m) return m[1];
  }
  return undefined;
}

export function regionOf(a: Analysis): string | undefined {
  for (const g of a.raw.autoScalingGroups) {
    const m = /^arn:aws[a-z-]*:autoscaling:([a-z0-9-]+):/.exec(g.AutoScalingGroupARN ?? '');
    if (m) return m[1];
    const z = g.AvailabilityZones?.[0];
    if (z) return z.slice(0, -1);
  }
  return undefined;
}

export function principalHints(a: Analysis): PrincipalHints {
  const ca = a.ca;
  const hints: PrincipalHints = { serviceAccountKnown: false };
  const region = regionOf(a);
  if (region) hints.region = region;
  const dep = a.raw.deployments.find(
    (d) => d.metadata.name === ca.deployment?.name && d.metadata.namespace === ca.deployment?.namespace,
  );
  if (dep) {
    const ns = dep.metadata.namespace ?? 'default';
    const spec = dep.spec?.template?.spec;
    const name = spec?.serviceAccountName || spec?.serviceAccount || 'default';
    hints.serviceAccount = { namespace: ns, name };
    hints.serviceAccountKnown = a.raw.serviceAccounts.some((s) => s.metadata.namespace === ns);
    const sa = a.raw.serviceAccounts.find((s) => s.metadata.namespace === ns && s.metadata.name === name);
    const role = sa?.metadata.annotations?.['eks.amazonaws.com/role-arn'];
    if (role) hints.irsaRoleArn = role;
    // the node CA runs on, for the instance-role fallback
    const selector = dep.spec?.selector?.matchLabels ?? {};
    const caPod = a.raw.pods.find(
      (p) =>
        p.metadata.namespace === ns &&
        p.spec?.nodeName &&
        Object.keys(selector).length > 0 &&
        Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v),
    );
    const nodeName = caPod?.spec?.nodeName;
    if (nodeName) {
      hints.caNode = nodeName;
      const profile = instanceProfileOfNode(a, nodeName);
      if (profile) hints.instanceProfile = profile;
    }
  }
  const clusterName = clusterNameOf(a);
  if (clusterName) hints.clusterName = clusterName;
  const account = accountOf(a, hints);
  if (account) hints.accountId = account;
  return hints;
}

function clusterNameOf(a: Analysis): string | undefined {
  for (const g of a.nodeGroupsResult.nodeGroups) {
    if (g.provider !== 'aws' || g.nodes.length === 0) continue;
    const v = g.asg.Tags?.find((t) => t.Key === 'eks:cluster-name')?.Value;
    if (v) return v;
  }
  return [...a.clusterNames()].sort()[0];
}

/** The instance profile the node's launch template (or configuration) gave its instance. */
function instanceProfileOfNode(a: Analysis, nodeName: string): string | undefined {
  const node = a.raw.nodes.find((n) => n.metadata.name === nodeName);
  const ref = providerIdToInstance(node?.spec?.providerID);
  if (!ref) return undefined;
  for (const g of a.nodeGroupsResult.nodeGroups) {
    if (g.provider !== 'aws') continue;
    const inst = g.asg.Instances?.find((i) => i.InstanceId === ref.instanceId);
    if (!inst) continue;
    const spec = inst.LaunchTemplate;
    if (spec) {
      const v = a.raw.launchTemplateVersions.find(
        (x) =>
          (x.LaunchTemplateId === spec.LaunchTemplateId ||
            x.LaunchTemplateName === spec.LaunchTemplateName) &&
          String(x.VersionNumber) === spec.Version,
      );
      const p = v?.LaunchTemplateData?.IamInstanceProfile as { Arn?: string; Name?: string } | undefined;
      if (p?.Name) return p.Name;
      if (p?.Arn) return p.Arn.split('/').pop();
    }
    const lcName = inst.LaunchConfigurationName ?? g.launchConfigurationName;
    const lc = lcName
      ? a.raw.launchConfigurations.find((l) => l.LaunchConfigurationName === lcName)
      : undefined;
    const lcProfile = lc?.IamInstanceProfile;
    if (typeof lcProfile === 'string') return lcProfile.split('/').pop();
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

export interface IamRequest {
  action: string;
  /** The resource ARN the call is simulated on ("*" for Describe calls). */
  resourceArn: string;
  group?: string;
  nodegroup?: string;
  /** Condition context: the resource's tags as aws:ResourceTag/<k> (and autoscaling:ResourceTag/<k> for ASGs). */
  context: Record<string, string>;
}

export interface IamPlan {
  actions: CaIamAction[];
  requests: IamRequest[];
  accountId: string;
  region: string;
  hints: PrincipalHints;
}

const PLACEHOLDER_UUID = '00000000-0000-0000-0000-000000000000';

export function asgArn(g: AsgNodeGroup, region: string, account: string): string {
  return (
    g.asg.AutoScalingGroupARN ??
    `arn:aws:autoscaling:${region}:${account}:autoScalingGroup:${PLACEHOLDER_UUID}:autoScalingGroupName/${g.name}`
  );
}

/** aws:ResourceTag/<k> and autoscaling:ResourceTag/<k> for every tag: what IAM sees when CA calls the ASG. */
export function asgTagContext(g: AsgNodeGroup): Record<string, string> {
  const ctx: Record<string, string> = {};
  for (const t of g.asg.Tags ?? []) {
    ctx[`aws:ResourceTag/${t.Key}`] = t.Value ?? '';
    ctx[`autoscaling:ResourceTag/${t.Key}`] = t.Value ?? '';
  }
  return ctx;
}

/** One request per read action on "*", one per write action and ASG, one per managed node group. */
export function buildIamPlan(a: Analysis): IamPlan {
  const hints = principalHints(a);
  const account = hints.accountId ?? '000000000000';
  const region = hints.region ?? 'us-east-1';
  const actions = requiredActions(a);
  const requests: IamRequest[] = [];
  const groups = iamGroups(a);
  for (const act of actions) {
    if (act.resource === '*') requests.push({ action: act.action, resourceArn: '*', context: {} });
    else if (act.resource === 'asg') {
      for (const g of groups)
        requests.push({
          action: act.action,
          resourceArn: asgArn(g, region, account),
          group: g.name,
          context: asgTagContext(g),
        });
    } else {
      const seen = new Set<string>();
      for (const g of groups.filter(isManagedNodegroup)) {
        const tag = (k: string) => g.asg.Tags?.find((t) => t.Key === k)?.Value ?? '';
        const cluster = tag('eks:cluster-name');
        const name = tag('eks:nodegroup-name');
        if (seen.has(`${cluster}/${name}`)) continue;
        seen.add(`${cluster}/${name}`);
        const ng = a.raw.eksNodegroups.find((n) => n.clusterName === cluster && n.nodegroupName === name);
        const context: Record<string, string> = {};
        for (const [k, v] of Object.entries(ng?.tags ?? {})) context[`aws:ResourceTag/${k}`] = v;
        requests.push({
          action: act.action,
          resourceArn:
            ng?.nodegroupArn ??
            `arn:aws:eks:${region}:${account}:nodegroup/${cluster}/${name}/${PLACEHOLDER_UUID}`,
          group: g.name,
          nodegroup: `${cluster}/${name}`,
          context,
        });
      }
    }
  }
  return { actions, requests, accountId: account, region, hints };
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the results

/** A condition that failed: `StringEquals aws:ResourceTag/team = [payments]`, and what the request had. */
export interface FailedCondition {
  operator: string;
  key: string;
  values: string[];
  /** The request's value; absent when the request has no such key. */
  actual?: string | string[];
}

/**
 * Extra detail casdoctor's local evaluator adds to an EvaluationResult as `CasdoctorNearMisses` (AWS's API has none):
 * statements whose action and resource matched but whose conditions did not.
 */
export interface StatementNearMiss {
  /** "ca-policy.json statement ScaleOwned" */
  statement: string;
  effect: string;
  conditions: FailedCondition[];
}

export function describeCondition(c: FailedCondition): string {
  const want = c.values.length === 1 ? JSON.stringify(c.values[0]) : JSON.stringify(c.values);
  const have =
    c.actual === undefined ? 'the request has no such key' : `the request has ${JSON.stringify(c.actual)}`;
  return `${c.operator} {${JSON.stringify(c.key)}: ${want}} (${have})`;
}

export interface IamDecision {
  action: string;
  resourceArn: string;
  group?: string;
  decision: string;
  matchedStatements: string[];
  missingContext: string[];
  nearMisses: StatementNearMiss[];
  /** Condition keys that can never be present for this action (wrong service prefix, or tags on a Describe call). */
  impossibleKeys: string[];
  principal?: string;
}

function asArray<T>(v: T[] | undefined): T[] {
  return Array.isArray(v) ? v : [];
}

/** Condition keys that no request for `action` carries: another service's prefix, or resource tags on "*". */
export function impossibleConditionKeys(action: string, resourceArn: string, keys: string[]): string[] {
  const service = action.split(':')[0];
  return keys.filter((k) => {
    const prefix = k.split(':')[0];
    if (prefix !== 'aws' && prefix !== service) return true;
    return resourceArn === '*' && /ResourceTag\//.test(k);
  });
}

/** Expands one EvaluationResult into per-resource decisions (ResourceSpecificResults when AWS returns several). */
function expand(r: IamEvaluationResult): Array<Omit<IamDecision, 'group' | 'impossibleKeys'>> {
  const statements = (list: unknown) =>
    asArray(list as Array<{ SourcePolicyId?: string; SourcePolicyType?: string }>).map(
      (s) => s.SourcePolicyId ?? s.SourcePolicyType ?? 'a statement',
    );
  const near = asArray(r.CasdoctorNearMisses as StatementNearMiss[] | undefined);
  const principal = typeof r.CasdoctorPrincipal === 'string' ? r.CasdoctorPrincipal : undefined;
  const specific = asArray(
    r.ResourceSpecificResults as
      | Array<{
          EvalResourceName?: string;
          EvalResourceDecision?: string;
          MatchedStatements?: unknown;
          MissingContextValues?: string[];
        }>
      | undefined,
  );
  if (specific.length > 0) {
    return specific.map((s) => ({
      action: r.EvalActionName,
      resourceArn: s.EvalResourceName ?? r.EvalResourceName ?? '*',
      decision: s.EvalResourceDecision ?? r.EvalDecision,
      matchedStatements: statements(s.MatchedStatements),
      missingContext: asArray(s.MissingContextValues),
      nearMisses: near,
      ...(principal ? { principal } : {}),
    }));
  }
  return [
    {
      action: r.EvalActionName,
      resourceArn: r.EvalResourceName ?? '*',
      decision: r.EvalDecision,
      matchedStatements: statements(r.MatchedStatements),
      missingContext: asArray(r.MissingContextValues),
      nearMisses: near,
      ...(principal ? { principal } : {}),
    },
  ];
}

export interface IamVerdicts {
  plan: IamPlan;
  /** One decision per planned request that the results answer. */
  decisions: IamDecision[];
  /** Planned requests no result answers (the evaluation did not cover them). */
  notEvaluated: IamRequest[];
}

const verdictCache = new WeakMap<Analysis, IamVerdicts>();

/**
 * Matches the evaluation results to the requests CA's setup needs: a result for the exact resource ARN wins, a
 * result for "*" answers every resource of that action (what `simulate-principal-policy` prints without --resource-arns).
 */
export function iamVerdicts(a: Analysis): IamVerdicts {
  const cached = verdictCache.get(a);
  if (cached) return cached;
  const plan = buildIamPlan(a);
  const all = a.raw.iamEvaluationResults.flatMap(expand);
  const decisions: IamDecision[] = [];
  const notEvaluated: IamRequest[] = [];
  for (const req of plan.requests) {
    const exact = all.find((d) => d.action === req.action && d.resourceArn === req.resourceArn);
    const anyResource = all.find((d) => d.action === req.action && d.resourceArn === '*');
    const d = exact ?? anyResource;
    if (!d) {
      notEvaluated.push(req);
      continue;
    }
    decisions.push({
      ...d,
      resourceArn: req.resourceArn,
      ...(req.group ? { group: req.group } : {}),
      impossibleKeys: impossibleConditionKeys(req.action, req.resourceArn, [
        ...d.missingContext,
        ...d.nearMisses.flatMap((n) => n.conditions.map((c) => c.key)),
      ]).filter((k, i, arr) => k !== '' && arr.indexOf(k) === i),
    });
  }
  const v = { plan, decisions, notEvaluated };
  verdictCache.set(a, v);
  return v;
}
