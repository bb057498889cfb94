// AWS's own record as history steps: the ASG's scaling activities (Description and Cause as AWS writes them, kept raw
// beside the parsed reason) and CloudTrail's LookupEvents (who called TerminateInstances, SetDesiredCapacity, CreateFleet
// …, from `userIdentity`; the record itself is a JSON string inside the JSON).
import type { ScalingActivity } from '../../model/aws.js';
import type { HistoryActor, HistoryStep, HistoryStepKind } from '../../model/history.js';
import { INSTANCE_IDS, instanceIdOf, line, ms } from './text.js';

/** Why the ASG acted, from the Cause text (phrases AWS writes; see the EC2 Auto Scaling troubleshooting guide). */
export interface AsgCause {
  reason: string;
  summary: string;
  /** The "At <time>" the cause starts with: when the triggering request or check happened. */
  at?: number;
  from?: number;
  to?: number;
}

const CAUSES: ReadonlyArray<{ re: RegExp; reason: string; summary: (m: RegExpExecArray) => string }> = [
  // TerminateInstanceInAutoScalingGroup with ShouldDecrementDesiredCapacity: Cluster Autoscaler's scale-down call
  { re: /taken out of service in response to a user request, shrinking the capacity from (\d+) to (\d+)/, reason: 'terminate-api-call', summary: (m) => `terminated by an API call that lowered the capacity ${m[1]} → ${m[2]}` },
  { re: /user request explicitly set group desired capacity changing the desired capacity from (\d+) to (\d+)/, reason: 'set-desired-capacity', summary: (m) => `desired capacity set by an API call ${m[1]} → ${m[2]}` },
  { re: /user request update of AutoScalingGroup constraints to min: (\d+), max: (\d+), desired: (\d+) changing the desired capacity from (\d+) to (\d+)/, reason: 'update-constraints', summary: (m) => `group limits changed by an API call (min ${m[1]}, max ${m[2]}, desired ${m[4]} → ${m[5]})` },
  { re: /EC2 health check indicating it has been terminated or stopped/, reason: 'ec2-health-check', summary: () => 'EC2 health check: the instance was terminated or stopped outside the ASG (a spot interruption, a person, another tool)' },
  { re: /EC2 instance status checks? failure/, reason: 'ec2-status-check', summary: () => 'EC2 status check failed' },
  { re: /ELB system health check failure/, reason: 'elb-health-check', summary: () => 'ELB health check failed' },
  { re: /unhealthy instance needing to be replaced/, reason: 'health-replacement', summary: () => 'launched to replace an unhealthy instance' },
  { re: /rebalance recommendation|[Cc]apacity [Rr]ebalanc/, reason: 'capacity-rebalance', summary: () => 'Capacity Rebalancing (spot rebalance recommendation)' },
  { re: /balanc\w* (?:the group's )?(?:instances in )?zones|availability zones? (?:re)?balanc/i, reason: 'az-rebalance', summary: () => 'AZ rebalancing' },
  { re: /instance refresh/i, reason: 'instance-refresh', summary: () => 'instance refresh' },
  { re: /maximum instance lifetime/i, reason: 'max-instance-lifetime', summary: () => 'maximum instance lifetime reached' },
  { re: /warm pool/i, reason: 'warm-pool', summary: () => 'warm pool' },
  { re: /scheduled action/i, reason: 'scheduled-action', summary: () => 'scheduled action' },
  { re: /policy \S+ changing the desired capacity from (\d+) to (\d+)|alarm .* triggered policy/, reason: 'scaling-policy', summary: () => 'a scaling policy' },
  { re: /taken out of service in response to a user request/, reason: 'user-request', summary: () => 'taken out of service by an API call (or a custom health check), replaced' },
  { re: /difference between desired and actual capacity, (increasing|shrinking) the capacity from (\d+) to (\d+)/, reason: 'desired-vs-actual', summary: (m) => `${m[1] === 'increasing' ? 'launched' : 'terminated'} to match the desired capacity (${m[2]} → ${m[3]})` },
];

export function parseAsgCause(cause: string): AsgCause | undefined {
  const at = ms(/^At (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/.exec(cause)?.[1]);
  for (const c of CAUSES) {
    const m = c.re.exec(cause);
    if (!m) continue;
    const nums = /from (\d+) to (\d+)/.exec(cause);
    return { reason: c.reason, summary: c.summary(m), ...(at !== undefined ? { at } : {}), ...(nums ? { from: Number(nums[1]), to: Number(nums[2]) } : {}) };
  }
  return undefined;
}

export function stepsFromScalingActivities(acts: readonly ScalingActivity[]): { steps: HistoryStep[]; unparsed: number } {
  const steps: HistoryStep[] = [];
  let unparsed = 0;
  for (const a of acts) {
    const t = ms(a.StartTime);
    if (t === undefined) continue;
    const desc = a.Description ?? '';
    const group = line(a.AutoScalingGroupName, 255);
    const cause = parseAsgCause(a.Cause ?? '');
    if (!cause) unparsed++;
    const status = a.StatusCode ?? '';
    const failed = status === 'Failed' || status === 'Cancelled';
    const instanceId = instanceIdOf(desc);
    let kind: HistoryStepKind;
    let summary: string;
    if (/^Launching a new EC2 instance/.test(desc)) {
      kind = failed ? 'launch-failed' : 'instance-launched';
      const why = failed ? line(a.StatusMessage ?? /Status Reason: (.*)$/.exec(desc)?.[1] ?? status, 300) : '';
      summary = failed ? `launch failed: ${why}` : `instance launched${cause ? ` (${cause.summary})` : ''}`;
    } else if (/^Terminating EC2 instance/.test(desc)) {
      kind = 'instance-terminated';
      summary = `instance terminated${cause ? `: ${cause.summary}` : ''}`;
    } else {
      kind = 'desired-capacity';
      summary = line(desc, 200);
    }
    const step: HistoryStep = {
      t,
      kind,
      actor: 'asg',
      group,
      summary,
      raw: line(`${desc} | Cause: ${a.Cause ?? ''}${a.StatusMessage && !failed ? ` | ${a.StatusMessage}` : ''}`),
      source: { kind: 'asg-activity', where: `ASG ${group} activity ${line(a.ActivityId ?? '', 40)}` },
    };
    if (instanceId) step.instanceId = instanceId;
    if (cause) step.reason = cause.reason;
    else if (failed) step.reason = /InsufficientInstanceCapacity|insufficient capacity/i.test(`${a.StatusMessage} ${desc}`) ? 'InsufficientInstanceCapacity' : 'launch-failed';
    if (failed && /InsufficientInstanceCapacity|We currently do not have sufficient/i.test(`${a.StatusMessage} ${desc}`)) step.reason = 'InsufficientInstanceCapacity';
    steps.push(step);
  }
  return { steps, unparsed };
}

/** The CloudTrail calls that start or end an instance, or change a group's size. */
export const CLOUDTRAIL_EVENT_NAMES = [
  'TerminateInstances',
  'TerminateInstanceInAutoScalingGroup',
  'SetDesiredCapacity',
  'UpdateAutoScalingGroup',
  'CreateFleet',
  'RunInstances',
  'BidEvictedEvent',
] as const;

/** Who called, from `userIdentity` (and the user agent): a person only when the identity says so. */
export function classifyPrincipal(ev: Record<string, unknown>): { actor: HistoryActor; by: string } {
  const id = (ev.userIdentity ?? {}) as Record<string, unknown>;
  const type = typeof id.type === 'string' ? id.type : '';
  const arn = typeof id.arn === 'string' ? id.arn : '';
  const invokedBy = typeof id.invokedBy === 'string' ? id.invokedBy : '';
  const issuer = ((id.sessionContext as Record<string, unknown> | undefined)?.sessionIssuer ?? {}) as Record<string, unknown>;
  const role = typeof issuer.userName === 'string' ? issuer.userName : /assumed-role\/([^/]+)/.exec(arn)?.[1] ?? '';
  const session = /assumed-role\/[^/]+\/(.+)$/.exec(arn)?.[1] ?? '';
  const agent = typeof ev.userAgent === 'string' ? ev.userAgent : '';
  const who = line(arn || (typeof id.userName === 'string' ? id.userName : '') || invokedBy || type || 'unknown principal', 200);
  if (invokedBy === 'autoscaling.amazonaws.com' || /AWSServiceRoleForAutoScaling/.test(arn)) return { actor: 'asg', by: 'EC2 Auto Scaling' };
  if (type === 'AWSService' || invokedBy === 'ec2.amazonaws.com') return { actor: 'ec2', by: line(invokedBy || 'AWS service', 80) };
  if (/AWSServiceRoleForAmazonEKSNodegroup|eks-nodegroup\.amazonaws\.com/.test(`${arn} ${invokedBy}`)) return { actor: 'eks', by: 'EKS managed node group' };
  if (/karpenter/i.test(`${role} ${agent}`)) return { actor: 'karpenter', by: `role ${line(role || who, 120)}` };
  if (/cluster-?autoscaler/i.test(`${role} ${agent}`)) return { actor: 'cluster-autoscaler', by: `role ${line(role || who, 120)}` };
  const console = /console\.amazonaws\.com|signin\.amazonaws\.com|AWS Internal/.test(agent) || ev.sessionCredentialFromConsole === 'true';
  if (type === 'IAMUser' || type === 'Root' || /^AWSReservedSSO_/.test(role) || (type === 'AssumedRole' && console))
    return { actor: 'person', by: `${type === 'Root' ? 'root' : line(type === 'IAMUser' ? String(id.userName ?? arn) : session ? `${role}/${session}` : who, 200)}${console ? ' (console)' : ''}` };
  return { actor: 'other-principal', by: who };
}

const MAX_RECORD_CHARS = 256 << 10;

/** One CloudTrail LookupEvents item (the CLI's PascalCase shape) → a step; undefined for other calls or broken records. */
export function stepFromCloudTrail(item: Record<string, unknown>): HistoryStep | undefined {
  const name = typeof item.EventName === 'string' ? item.EventName : undefined;
  if (!name || !(CLOUDTRAIL_EVENT_NAMES as readonly string[]).includes(name)) return undefined;
  const text = typeof item.CloudTrailEvent === 'string' && item.CloudTrailEvent.length <= MAX_RECORD_CHARS ? item.CloudTrailEvent : undefined;
  let ev: Record<string, unknown> = {};
  if (text) {
    try {
      const v: unknown = JSON.parse(text);
      if (v && typeof v === 'object' && !Array.isArray(v)) ev = v as Record<string, unknown>;
    } catch {
      // a record cut short: the outer fields still say what and when
    }
  }
  const t = ms(ev.eventTime) ?? (typeof item.EventTime === 'number' ? item.EventTime * 1000 : ms(item.EventTime));
  if (t === undefined) return undefined;
  const { actor, by } = ev.userIdentity ? classifyPrincipal(ev) : { actor: 'unknown' as const, by: line(item.Username ?? 'unknown principal', 200) };
  const req = (ev.requestParameters ?? {}) as Record<string, unknown>;
  const resources = Array.isArray(item.Resources) ? (item.Resources as Array<Record<string, unknown>>) : [];
  const ids = new Set<string>();
  for (const r of resources) for (const m of String(r.ResourceName ?? '').matchAll(INSTANCE_IDS)) ids.add(m[0]);
  for (const m of JSON.stringify(req.instancesSet ?? req.instanceId ?? ev.serviceEventDetails ?? '').matchAll(INSTANCE_IDS)) ids.add(m[0]);
  const responseText = ev.responseElements ? JSON.stringify(ev.responseElements).slice(0, MAX_RECORD_CHARS) : '';
  if (name === 'CreateFleet' || name === 'RunInstances') for (const m of responseText.matchAll(INSTANCE_IDS)) ids.add(m[0]);
  const group = typeof req.autoScalingGroupName === 'string' ? line(req.autoScalingGroupName, 255) : undefined;
  const errorCode = typeof ev.errorCode === 'string' ? line(ev.errorCode, 80) : /"errorCode"\s*:\s*"([^"]+)"/.exec(responseText)?.[1];
  const nodeClaim = /"key"\s*:\s*"karpenter\.sh\/nodeclaim"\s*,\s*"value"\s*:\s*"([^"]+)"/i.exec(JSON.stringify(req).slice(0, MAX_RECORD_CHARS))?.[1];
  const list = [...ids].slice(0, 20);
  let kind: HistoryStepKind;
  let summary: string;
  let reason: string | undefined;
  switch (name) {
    case 'TerminateInstances':
      kind = 'instance-terminate-requested';
      summary = `TerminateInstances ${list.join(', ')} by ${by}`;
      break;
    case 'TerminateInstanceInAutoScalingGroup': {
      kind = 'instance-terminate-requested';
      const dec = req.shouldDecrementDesiredCapacity === true;
      reason = dec ? 'terminate-and-decrement' : 'terminate-and-replace';
      summary = `TerminateInstanceInAutoScalingGroup ${list.join(', ')} (${dec ? 'desired capacity lowered' : 'replaced'}) by ${by}`;
      break;
    }
    case 'SetDesiredCapacity':
    case 'UpdateAutoScalingGroup': {
      kind = 'desired-capacity';
      const parts = ['desiredCapacity', 'minSize', 'maxSize'].filter((k) => typeof req[k] === 'number').map((k) => `${k} ${req[k] as number}`);
      summary = `${name} ${group ?? ''} ${parts.join(', ')} by ${by}`.replace(/\s+/g, ' ');
      break;
    }
    case 'CreateFleet':
    case 'RunInstances':
      kind = errorCode && list.length === 0 ? 'launch-failed' : 'instance-launch-requested';
      reason = errorCode;
      summary = `${name}${list.length ? ` → ${list.join(', ')}` : ''}${errorCode ? ` (${errorCode})` : ''} by ${by}`;
      break;
    default:
      kind = 'interruption';
      reason = 'spot_interrupted';
      summary = `EC2 reclaimed the spot instance ${list.join(', ')} (BidEvictedEvent)`;
  }
  const step: HistoryStep = {
    t,
    kind,
    actor: name === 'BidEvictedEvent' ? 'ec2' : actor,
    by,
    summary: line(summary),
    source: { kind: 'cloudtrail', where: `CloudTrail ${name} ${line(item.EventId ?? '', 40)}` },
  };
  if (list.length) step.instanceId = list[0];
  if (group) step.group = group;
  if (reason) step.reason = reason;
  if (nodeClaim) step.nodeClaim = line(nodeClaim, 253);
  if (list.length > 1) step.raw = `instances: ${list.join(', ')}`;
  return step;
}

/** Several instances in one call are one step per instance, so each node's story sees its own. */
export function stepsFromCloudTrail(items: readonly unknown[]): HistoryStep[] {
  const out: HistoryStep[] = [];
  for (const item of items) {
    if (!item || typeof item !== 'object') continue;
    const s = stepFromCloudTrail(item as Record<string, unknown>);
    if (!s) continue;
    const ids = s.raw?.startsWith('instances: ') ? s.raw.slice(11).split(', ') : undefined;
    if (!ids) out.push(s);
    else for (const id of ids) out.push({ ...s, instanceId: id });
  }
  return out;
}
