// The history's reasoning (src/simulate/history/timeline.ts) on small step lists: the window's findings, each with a
// case that fires and one that must not, and what a node's story says when its evidence is gone.
import { describe, expect, it } from 'vitest';
import type { HistoryStep } from '../../src/model/history.js';
import { buildIdentity, enrich, type HistoryContext, nodeStory, windowReport } from '../../src/simulate/history/timeline.js';

const T0 = Date.parse('2026-11-20T12:00:00Z');
const min = (m: number) => T0 + m * 60_000;
const at = (m: number, s: Omit<HistoryStep, 't' | 'source'> & { source?: HistoryStep['source'] }): HistoryStep => ({ source: { kind: 'ca-log', where: 'ca.log:1' }, ...s, t: min(m) });

function ctx(steps: HistoryStep[], extra: Partial<HistoryContext> = {}): HistoryContext {
  return {
    now: min(360),
    since: T0,
    steps,
    sources: [{ kind: 'ca-log', name: 'CA log', state: 'read', steps: steps.length }],
    nodes: [],
    nodeClaims: [],
    pods: [],
    autoScalingGroups: [{ AutoScalingGroupName: 'g1', Instances: [] }] as never,
    unneededTimeMs: 600_000,
    utilizationThreshold: 0.5,
    clockNotes: [],
    ...extra,
  };
}
const ids = (c: HistoryContext) => {
  const id = buildIdentity(c);
  return windowReport(c, id, enrich(c.steps, id)).findings.map((f) => f.checkId);
};
const up = (m: number) => at(m, { kind: 'scale-up', actor: 'cluster-autoscaler', group: 'g1', summary: 'scale-up: group size set to 3' });
const down = (m: number, node: string, reason = 'underutilized') => at(m, { kind: 'scale-down', actor: 'cluster-autoscaler', group: 'g1', node, reason, summary: `scale-down: ${reason}` });
const fail = (m: number) => at(m, { kind: 'scale-up-failed', actor: 'cluster-autoscaler', group: 'g1', summary: 'scaling failed' });

describe('history findings', () => {
  it('flapping: a scale-up and a scale-down within --scale-down-unneeded-time, not when they are further apart', () => {
    expect(ids(ctx([up(10), down(15, 'n1')]))).toEqual(['history-flapping']);
    expect(ids(ctx([up(10), down(45, 'n1')]))).toEqual([]);
    // a longer unneeded time (the CA flag) makes the same pair a flap
    expect(ids(ctx([up(10), down(45, 'n1')], { unneededTimeMs: 40 * 60_000 }))).toEqual(['history-flapping']);
  });

  it('scale-up loop: two nodes removed empty; one is not a loop', () => {
    expect(ids(ctx([down(100, 'n1', 'empty'), down(140, 'n2', 'empty')]))).toEqual(['history-scale-up-loop']);
    expect(ids(ctx([down(100, 'n1', 'empty')]))).toEqual([]);
  });

  it('repeated failures: three incidents apart; three sources of one failure within 2m are one', () => {
    expect(ids(ctx([fail(10), fail(20), fail(30)]))).toEqual(['history-repeated-failures']);
    expect(ids(ctx([fail(10), at(10.5, { kind: 'backoff', actor: 'cluster-autoscaler', group: 'g1', summary: 'backoff' }), at(11, { kind: 'launch-failed', actor: 'asg', group: 'g1', summary: 'ICE', source: { kind: 'asg-activity', where: 'a' } })]))).toEqual([]);
  });

  it('removed by other: an instance terminated by a CI role, not after an autoscaler decision; not when CA decided first', () => {
    const term = (m: number) => at(m, { kind: 'instance-terminate-requested', actor: 'other-principal', by: 'arn:aws:sts::111122223333:assumed-role/ci-deployer/run-42', instanceId: 'i-0aaaabbbbcccc1111', summary: 'TerminateInstances i-0aaaabbbbcccc1111', source: { kind: 'cloudtrail', where: 'CloudTrail TerminateInstances e1' } });
    const c = ctx([term(50)]);
    const id = buildIdentity(c);
    const report = windowReport(c, id, enrich(c.steps, id));
    expect(report.findings.map((f) => [f.checkId, f.severity, f.subject.name])).toEqual([['history-removed-by-other', 'info', 'i-0aaaabbbbcccc1111']]);
    expect(report.removals[0].verdict.text).toContain('an IAM principal that is no autoscaler');
    // the same call right after CA's decision on the node it removes is CA's scale-down, carried out by someone's role
    const withNode = ctx([down(49.5, 'n1'), term(50)], { nodes: [{ metadata: { name: 'n1' }, spec: { providerID: 'aws:///eu-west-1a/i-0aaaabbbbcccc1111' } }] as never });
    expect(ids(withNode)).toEqual([]);
  });
});

describe('a node whose evidence is gone', () => {
  it('says what is not evaluated and what would have kept it, never a guess', () => {
    const c = ctx([at(200, { kind: 'node-deleted', actor: 'node-controller', node: 'n9', summary: 'node removed from the cluster', source: { kind: 'event', where: 'event Node/n9 RemovingNode' } })], {
      sources: [{ kind: 'event', name: 'Kubernetes events', state: 'read', steps: 1, from: min(200) }],
    });
    const id = buildIdentity(c);
    const story = nodeStory(c, id, enrich(c.steps, id), 'n9')!;
    expect(story.created.state).toBe('not-evaluated');
    expect(story.removed).toMatchObject({ state: 'not-evaluated' });
    expect(story.removed!.text).toContain('CloudTrail (TerminateInstances, 90 days)');
    expect(story.gaps.join('\n')).toMatch(/no CloudTrail: who called TerminateInstances is not evaluated/);
    expect(story.gaps.join('\n')).toMatch(/the instance of n9 is not named by any source/);
  });
});

describe('a large source', () => {
  it('assembles 150,000 steps of one log without passing them as arguments (no stack overflow)', async () => {
    const { assembleHistory } = await import('../../src/simulate/history/assemble.js');
    const { emptyInputs } = await import('../../src/model/snapshot.js');
    const raw = emptyInputs();
    const records = Array.from({ length: 150_000 }, (_, i) => ({ time: T0 + i, kind: 'deleted-node' as const, level: 'INFO', message: 'deleted node', line: i + 1, node: `n${i % 50}` }));
    raw.karpenterLogs = [{ source: { kind: 'text' }, format: 'json', lines: 150_000, otherLines: 0, unrecognisedLines: 0, samples: [], records, dropped: 0 }];
    const c = assembleHistory(raw, { now: min(360), since: T0, live: false, caLogs: [], yearFrom: '--now' });
    expect(c.steps).toHaveLength(150_000);
    expect(c.sources.find((s) => s.kind === 'karpenter-log')).toMatchObject({ state: 'read', steps: 150_000 });
  });
});

describe("whose group it is", () => {
  it("calls an ASG Cluster Autoscaler's only with CA's discovery tag or CA's own steps naming it", () => {
    const launch = at(30, { kind: 'instance-launched', actor: 'asg', group: 'g1', instanceId: 'i-0aaaabbbbcccc2222', summary: 'instance launched', source: { kind: 'asg-activity', where: 'a1' } });
    const of = (c: HistoryContext) => {
      const id = buildIdentity(c);
      return windowReport(c, id, enrich(c.steps, id)).groups.map((g) => [g.group, g.autoscaler]);
    };
    expect(of(ctx([launch]))).toEqual([['g1', 'unknown']]);
    expect(of(ctx([launch], { autoScalingGroups: [{ AutoScalingGroupName: 'g1', Tags: [{ Key: 'k8s.io/cluster-autoscaler/enabled', Value: 'true' }] }] as never }))).toEqual([['g1', 'cluster-autoscaler']]);
    expect(of(ctx([launch, up(29)]))).toEqual([['g1', 'cluster-autoscaler']]);
  });
});
