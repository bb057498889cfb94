// The history's sources (src/simulate/history): ASG activity causes as AWS writes them (in the CLI's documented shape,
// written here: the suite reads nothing outside the checkout), CloudTrail records and who called, events and their clocks, CA's log lines by run.
import { describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../src/model/k8s.js';
import { classifyPrincipal, parseAsgCause, stepFromCloudTrail, stepsFromScalingActivities } from '../../src/simulate/history/source-aws.js';
import { eventTime, stepsFromEvents } from '../../src/simulate/history/source-events.js';
import { createCaLogStepper } from '../../src/simulate/history/source-logs.js';


describe('ASG activity causes', () => {
  it.each([
    ['At 2026-11-20T16:12:51Z instance i-0c1d2e3f4a5b60718 was taken out of service in response to a user request, shrinking the capacity from 3 to 2.', 'terminate-api-call', 3, 2],
    ['At 2026-11-20T17:11:51Z a user request explicitly set group desired capacity changing the desired capacity from 0 to 1.  At 2026-11-20T17:12:01Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 1.', 'set-desired-capacity', 0, 1],
    ['At 2026-11-20T13:21:38Z an instance was taken out of service in response to an EC2 health check indicating it has been terminated or stopped.', 'ec2-health-check', undefined, undefined],
    ['At 2022-05-14T20:11:53Z an instance was taken out of service in response to an ELB system health check failure.', 'elb-health-check', undefined, undefined],
    ['At 2026-11-20T13:21:48Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 2 to 3.', 'desired-vs-actual', 2, 3],
    ['At 2022-05-14T20:11:53Z an instance was taken out of service in response to a user request.', 'user-request', undefined, undefined],
  ])('%s → %s', (cause, reason, from, to) => {
    const c = parseAsgCause(cause)!;
    expect(c.reason).toBe(reason);
    expect(c.from).toBe(from);
    expect(c.to).toBe(to);
    expect(new Date(c.at!).toISOString().slice(0, 10)).toMatch(/^20\d\d-/);
  });

  it('reads activities as `aws autoscaling describe-scaling-activities` prints them: a constraints update that launched, and a failed spot launch with its status reason', () => {
    // written here in the CLI's exact shape and AWS's wording (the checkout must not depend on ../shared being beside it)
    const acts = [
      {
        ActivityId: '5c1f0a3e-9d2b-4e1a-8f3c-7b6a5d4c3b2a',
        Description: 'Launching a new EC2 instance: i-0a1b2c3d4e5f60718',
        AutoScalingGroupName: 'batch-asg',
        Cause: 'At 2026-11-20T09:14:02Z a user request update of AutoScalingGroup constraints to min: 0, max: 8, desired: 4 changing the desired capacity from 0 to 4.  At 2026-11-20T09:14:18Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 4.',
        StartTime: '2026-11-20T09:14:20.511Z',
        EndTime: '2026-11-20T09:14:52Z',
        StatusCode: 'Successful',
        Progress: 100,
        Details: '{"Subnet ID":"subnet-0f1e2d3c","Availability Zone":"eu-west-1a"}',
      },
      {
        ActivityId: '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a',
        Description: 'Launching a new EC2 instance.  Status Reason: Your Spot request price of 0.002 is lower than the minimum required Spot request fulfillment price of 0.0042. Launching EC2 instance failed.',
        AutoScalingGroupName: 'batch-asg',
        Cause: 'At 2026-11-20T10:02:11Z a user request update of AutoScalingGroup constraints to min: 1, max: 6, desired: 2 changing the desired capacity from 0 to 2.  At 2026-11-20T10:02:14Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 2.',
        StartTime: '2026-11-20T10:02:16.204Z',
        EndTime: '2026-11-20T10:02:16Z',
        StatusCode: 'Failed',
        StatusMessage: 'Your Spot request price of 0.002 is lower than the minimum required Spot request fulfillment price of 0.0042. Launching EC2 instance failed.',
        Progress: 100,
        Details: '{"Subnet ID":"subnet-0f1e2d3c","Availability Zone":"eu-west-1a"}',
      },
    ];
    const { steps, unparsed } = stepsFromScalingActivities(acts as never);
    expect(unparsed).toBe(0);
    expect(steps.map((s) => [s.kind, s.instanceId, s.reason])).toEqual([
      ['instance-launched', 'i-0a1b2c3d4e5f60718', 'update-constraints'],
      ['launch-failed', undefined, 'update-constraints'],
    ]);
    expect(steps[1].summary).toContain('Your Spot request price of 0.002 is lower than the minimum required');
    // the raw text stays beside the parsed reason
    expect(steps[0].raw).toContain('a user request update of AutoScalingGroup constraints to min: 0, max: 8, desired: 4');
  });
});

const trail = (name: string, record: Record<string, unknown>, outer: Record<string, unknown> = {}) => ({
  EventId: 'e1', EventName: name, EventTime: '2026-11-20T13:20:41+00:00', EventSource: 'ec2.amazonaws.com', ReadOnly: 'false', Resources: [], CloudTrailEvent: JSON.stringify({ eventTime: '2026-11-20T13:20:41Z', eventName: name, ...record }), ...outer,
});
const role = (name: string, session = 's', agent = 'aws-sdk-go') => ({
  userIdentity: { type: 'AssumedRole', arn: `arn:aws:sts::111122223333:assumed-role/${name}/${session}`, sessionContext: { sessionIssuer: { type: 'Role', userName: name } } },
  userAgent: agent,
});

describe('CloudTrail', () => {
  it.each([
    [role('AWSReservedSSO_AdministratorAccess_5f2c1e0a9b8d7c6e', 'jane.doe@example.com', 'AWS Internal'), 'person', 'AWSReservedSSO_AdministratorAccess_5f2c1e0a9b8d7c6e/jane.doe@example.com (console)'],
    [{ userIdentity: { type: 'IAMUser', arn: 'arn:aws:iam::111122223333:user/ops-bob', userName: 'ops-bob' }, userAgent: 'aws-cli/2.22.4' }, 'person', 'ops-bob'],
    [role('KarpenterController-shop-prod', '1763641086339751402', 'aws-sdk-go-v2/1.36.3 karpenter.sh-v1.14.1'), 'karpenter', 'role KarpenterController-shop-prod'],
    [role('shop-prod-cluster-autoscaler'), 'cluster-autoscaler', 'role shop-prod-cluster-autoscaler'],
    [{ userIdentity: { type: 'AWSService', invokedBy: 'autoscaling.amazonaws.com' } }, 'asg', 'EC2 Auto Scaling'],
    [role('ci-deployer', 'gha-run-42', 'aws-sdk-go-v2/1.30'), 'other-principal', 'arn:aws:sts::111122223333:assumed-role/ci-deployer/gha-run-42'],
  ])('principal %#: %s', (ev, actor, by) => {
    expect(classifyPrincipal(ev as Record<string, unknown>)).toEqual({ actor, by });
  });

  it('reads the instances, the group and the decrement of each call, from the JSON string inside the JSON', () => {
    const t = stepFromCloudTrail(trail('TerminateInstanceInAutoScalingGroup', { ...role('shop-prod-cluster-autoscaler'), requestParameters: { instanceId: 'i-0c1d2e3f4a5b60718', shouldDecrementDesiredCapacity: true } }))!;
    expect(t).toMatchObject({ kind: 'instance-terminate-requested', actor: 'cluster-autoscaler', instanceId: 'i-0c1d2e3f4a5b60718', reason: 'terminate-and-decrement' });
    const d = stepFromCloudTrail(trail('SetDesiredCapacity', { ...role('shop-prod-cluster-autoscaler'), requestParameters: { autoScalingGroupName: 'eks-gpu-b', desiredCapacity: 1 } }))!;
    expect(d).toMatchObject({ kind: 'desired-capacity', group: 'eks-gpu-b' });
    expect(d.summary).toBe('SetDesiredCapacity eks-gpu-b desiredCapacity 1 by role shop-prod-cluster-autoscaler');
    const f = stepFromCloudTrail(
      trail('CreateFleet', {
        ...role('KarpenterController-shop-prod', 's', 'karpenter.sh-v1.14.1'),
        requestParameters: { CreateFleetRequest: { TagSpecification: { item: [{ ResourceType: 'instance', Tag: [{ Key: 'karpenter.sh/nodeclaim', Value: 'default-p9w4n' }] }] } } },
        responseElements: { CreateFleetResponse: { fleetInstanceSet: { item: { instanceIds: { item: 'i-0f1e2d3c4b5a69788' } } } } },
      }),
    )!;
    expect(f).toMatchObject({ kind: 'instance-launch-requested', actor: 'karpenter', instanceId: 'i-0f1e2d3c4b5a69788', nodeClaim: 'default-p9w4n' });
  });

  it('keeps a record whose CloudTrailEvent is cut short (what and when from the outer fields), and ignores other calls', () => {
    const s = stepFromCloudTrail({ EventId: 'e2', EventName: 'TerminateInstances', EventTime: '2026-11-20T13:20:41+00:00', Username: 'jane', Resources: [{ ResourceType: 'AWS::EC2::Instance', ResourceName: 'i-0a9b8c7d6e5f40312' }], CloudTrailEvent: '{"eventVersion":"1.10","userIdent' })!;
    expect(s).toMatchObject({ kind: 'instance-terminate-requested', actor: 'unknown', by: 'jane', instanceId: 'i-0a9b8c7d6e5f40312' });
    expect(stepFromCloudTrail(trail('DescribeInstances', {}))).toBeUndefined();
  });
});

const ev = (o: Partial<KubeEvent>): KubeEvent => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ml', creationTimestamp: '2026-11-20T17:10:01Z' }, involvedObject: { kind: 'Pod', name: 'trainer-0', namespace: 'ml' }, ...o }) as KubeEvent;

describe('events', () => {
  it('dates an event by its series, else lastTimestamp, else an eventTime-only record (counted: another clock)', () => {
    expect(eventTime(ev({ series: { count: 4, lastObservedTime: '2026-11-20T17:14:59.000000Z' }, eventTime: '2026-11-20T17:10:01.123456Z' })).clock).toBe('series');
    expect(eventTime(ev({ lastTimestamp: '2026-11-20T17:14:59Z' })).clock).toBe('lastTimestamp');
    const only = stepsFromEvents([ev({ reason: 'Nominated', message: 'Pod should schedule on: nodeclaim/default-p9w4n', eventTime: '2026-11-20T15:10:02.000001Z', source: { component: 'karpenter' } })]);
    expect(only.eventTimeOnly).toBe(1);
    expect(only.steps[0]).toMatchObject({ kind: 'pod-nominated', actor: 'karpenter', nodeClaim: 'default-p9w4n', pod: 'ml/trainer-0' });
  });

  it("starts a pod's wait at its first FailedScheduling, and reads the node of Scheduled and the group of TriggeredScaleUp", () => {
    const { steps } = stepsFromEvents([
      ev({ reason: 'FailedScheduling', message: '0/6 nodes are available', firstTimestamp: '2026-11-20T17:10:01Z', lastTimestamp: '2026-11-20T17:14:59Z', count: 9, source: { component: 'default-scheduler' } }),
      ev({ reason: 'Scheduled', message: 'Successfully assigned ml/trainer-0 to ip-10-0-52-14.eu-west-1.compute.internal', lastTimestamp: '2026-11-20T17:15:44Z', source: { component: 'default-scheduler' } }),
      ev({ reason: 'TriggeredScaleUp', message: 'pod triggered scale-up: [{eks-gpu-b 0->1 (max: 4)}]', lastTimestamp: '2026-11-20T17:11:52Z', source: { component: 'cluster-autoscaler' } }),
    ]);
    expect(new Date(steps[0].t).toISOString()).toBe('2026-11-20T17:10:01.000Z');
    expect(steps[0].summary).toMatch(/\(×9\)$/);
    expect(steps[1].node).toBe('ip-10-0-52-14.eu-west-1.compute.internal');
    expect(steps[2].group).toBe('eks-gpu-b');
  });
});

describe("CA's log", () => {
  it('makes one step per run of a line CA repeats every loop, and one per decision', () => {
    const s = createCaLogStepper({ where: 'ca.log', now: Date.parse('2026-11-20T18:00:00Z') });
    for (let i = 0; i < 61; i++) {
      const t = new Date(Date.parse('2026-11-20T16:02:13Z') + i * 10_000).toISOString();
      s.push(`I1120 ${t.slice(11, 19)}.000000       1 nodes.go:212] ip-10-0-12-201 was unneeded for ${i * 10}s`);
    }
    s.push('I1120 16:12:23.317000       1 actuator.go:269] Scale-down: removing node ip-10-0-12-201, utilization: {0.21 0.34 0 memory 0.34}, pods to reschedule: shop/a,shop/b');
    s.push('I1120 17:30:00.000000       1 nodes.go:212] ip-10-0-12-201 was unneeded for 10s');
    const out = s.finish();
    expect(out.steps.map((x) => x.kind)).toEqual(['unneeded', 'scale-down', 'unneeded']);
    expect(out.steps[1]).toMatchObject({ reason: 'underutilized', pods: ['shop/a', 'shop/b'], summary: 'scale-down: removing underutilized node (memory utilization 0.34)' });
    expect(out.yearInferred).toBe(true);
  });
});
