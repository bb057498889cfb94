// CA's scale-down pipeline per node: order of the reasons, the rescheduling simulation, PDB budget shared across nodes,
// the unneeded stage (min size, cluster minimums, timers) and cooldowns.
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/simulate/scale-down.js';
import { node, pod } from '../builders/k8s.js';
import { analyzeSd, NOW, nodeName, sdWorld } from '../builders/scale-down-world.js';
import { pdb } from '../builders/workloads.js';

const N1 = nodeName(1);
const N2 = nodeName(2);
const N3 = nodeName(3);

/** Fill a node to `cpu` with one pod of a big app, so it is not a candidate (and has that much left). */
function fill(w: ReturnType<typeof sdWorld>, nodeName: string, cpu: string, app = `fill-${nodeName.slice(9, 11)}`) {
  return w.app('web', app, nodeName, { cpu, memory: '1Gi' });
}

describe("the pipeline, in CA's order", () => {
  it('reports NotAutoscaled for a node in no node group (no providerID)', () => {
    const w = sdWorld({ nodes: 2 });
    w.add('nodes', node('hybrid-01').withProviderId('').build());
    w.raw.nodes.at(-1)!.spec!.providerID = undefined;
    const n = analyzeSd(w.raw).node('hybrid-01');
    expect(n.report).toMatchObject({ caReason: 'NotAutoscaled', nodeGroup: null, utilization: null, verdict: 'blocked' });
  });

  it('reports NodeGroupMinSizeReached when desired <= min, before anything else', () => {
    const w = sdWorld({ nodes: 2, min: 2 });
    w.raw.nodes[0].metadata.annotations!['cluster-autoscaler.kubernetes.io/scale-down-disabled'] = 'true';
    expect(analyzeSd(w.raw).node(N1).report).toMatchObject({
      caReason: 'NodeGroupMinSizeReached',
      summary: 'node group prod-general is at its min size (desired 2, min 2)',
    });
  });

  it('checks the scale-down-disabled annotation before utilization (exact "true" only)', () => {
    const w = sdWorld({ nodes: 3 });
    fill(w, N1, '3900m');
    w.raw.nodes[0].metadata.annotations!['cluster-autoscaler.kubernetes.io/scale-down-disabled'] = 'true';
    w.raw.nodes[1].metadata.annotations!['cluster-autoscaler.kubernetes.io/scale-down-disabled'] = 'True';
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report).toMatchObject({ caReason: 'ScaleDownDisabledAnnotation', utilization: null });
    expect(r.node(N2).report.caReason).toBeNull();
  });

  it('reports CurrentlyBeingDeleted for a fresh ToBeDeletedByClusterAutoscaler taint, and keeps it out of destinations', () => {
    const ts = String(Math.floor(NOW.getTime() / 1000) - 60);
    const w = sdWorld({ nodes: 3, nodeBuilder: (i, b) => (i === 2 ? b.withTaint('ToBeDeletedByClusterAutoscaler', ts) : b) });
    fill(w, N3, '3800m');
    w.app('web', 'small', N1, { cpu: '300m', memory: '256Mi' });
    const r = analyzeSd(w.raw);
    expect(r.node(N2).report.caReason).toBe('CurrentlyBeingDeleted');
    expect(r.node(N1).report.caReason).toBe('NoPlaceToMovePods');
  });

  it('keeps an unready node only with --scale-down-unready-enabled=false', () => {
    const unready = (caArgs: string[]) => {
      const w = sdWorld({ nodes: 2, caArgs, nodeBuilder: (i, b) => (i === 1 ? b.notReady() : b) });
      return analyzeSd(w.raw).node(N1).report;
    };
    expect(unready(['--scale-down-unready-enabled=false']).caReason).toBe('ScaleDownUnreadyDisabled');
    expect(unready([]).removable).toBe(true);
  });

  it('still lists every blocking pod on a node CA keeps for an earlier reason', () => {
    const w = sdWorld({ nodes: 2 });
    fill(w, N1, '3000m');
    w.add('pods', pod('debug', 'web').onNode(N1).build());
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.caReason).toBe('NotUnderutilized');
    expect(n.report.blockingPods).toEqual([
      { namespace: 'web', name: 'debug', caReason: 'NotReplicated', message: 'web/debug is not replicated', rule: 'Replicated', first: true },
    ]);
  });

  it('reports BlockedByPod with the first blocking pod as CA does, and lists all of them', () => {
    const w = sdWorld({ nodes: 2 });
    w.add(
      'pods',
      pod('debug', 'web').onNode(N1).build(),
      pod('cache-0', 'web').ownedBy('ReplicaSet', 'gone-1').onNode(N1).build(),
    );
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.caReason).toBe('BlockedByPod');
    expect(n.report.blockingPods.map((b) => [b.name, b.caReason, b.first])).toEqual([
      ['debug', 'NotReplicated', true],
      ['cache-0', 'ControllerNotFound', false],
    ]);
    expect(n.report.summary).toBe('NotReplicated: web/debug is not replicated');
  });
});

describe('the rescheduling simulation (NoPlaceToMovePods)', () => {
  it('moves every pod to other nodes, consuming capacity as they land', () => {
    const w = sdWorld({ nodes: 3 });
    fill(w, N2, '2400m'); // 1520m left
    fill(w, N3, '2400m');
    w.app('web', 'a', N1, { cpu: '900m', memory: '1Gi' });
    w.app('web', 'b', N1, { cpu: '900m', memory: '1Gi' });
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.removable).toBe(true);
    const dest = n.report.podsToMove!.map((m) => m.destination);
    // the first lands on one node; the second no longer fits there and must take the other
    expect(new Set(dest)).toEqual(new Set([N2, N3]));
  });

  it('fails when the pods fit only together with the node being removed', () => {
    const w = sdWorld({ nodes: 3 });
    fill(w, N2, '2400m');
    fill(w, N3, '2400m');
    w.app('web', 'a', N1, { cpu: '1600m', memory: '1Gi' });
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.caReason).toBe('NoPlaceToMovePods');
    expect(n.report.unplaceable).toMatchObject({
      namespace: 'web',
      message: '0/2 nodes are available: 2 Insufficient cpu.',
    });
  });

  it("persists a successful node's moves: a later node finds the space taken", () => {
    const w = sdWorld({ nodes: 3 });
    fill(w, N3, '2000m'); // 1920m left: room for one 1200m pod; N3 itself is above the 50% threshold
    w.app('web', 'a', N1, { cpu: '1200m', memory: '1Gi' });
    w.app('web', 'b', N2, { cpu: '1200m', memory: '1Gi' });
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report.podsToMove).toEqual([{ namespace: 'web', name: expect.stringMatching(/^a-/), destination: expect.any(String) }]);
    expect(r.node(N1).report.removable).toBe(true);
    // N1's pod landed on N2, so N2 now has to move both pods; N1 is no destination any more, N3 takes only one
    expect(r.node(N1).report.podsToMove![0].destination).toBe(N2);
    expect(r.node(N2).report.caReason).toBe('NoPlaceToMovePods');
  });

  it("applies the scheduler's predicates: node selector, taints, unschedulable nodes", () => {
    const w = sdWorld({
      nodes: 3,
      nodeBuilder: (i, b) => (i === 2 ? b.withTaint('dedicated', 'db') : i === 3 ? b.unschedulable() : b),
    });
    w.app('web', 'a', N1, { cpu: '100m', memory: '128Mi' });
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.caReason).toBe('NoPlaceToMovePods');
    expect(n.report.unplaceable?.message).toBe(
      '0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) were unschedulable.',
    );
  });

  it('keeps required pod anti-affinity between pods it moves one after the other', () => {
    const w = sdWorld({ nodes: 3 });
    const anti = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'zk' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    };
    for (const p of [w.app('web', 'zk', N1), w.app('web', 'zk', N1)]) p.spec.affinity = anti;
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.removable).toBe(true);
    expect(n.report.podsToMove!.map((m) => m.destination).sort()).toEqual([N2, N3]);
  });

  it("honours the anti-affinity of a pod it moved earlier against the pods that follow", () => {
    const w = sdWorld({ nodes: 3 });
    fill(w, N3, '3000m'); // 920m left
    const guard = w.app('web', 'guard', N1, { cpu: '100m', memory: '128Mi' });
    guard.spec.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    };
    w.app('web', 'web', N1, { cpu: '1000m', memory: '1Gi' });
    // guard lands on N2; web does not fit N3 and may not join guard on N2
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.caReason).toBe('NoPlaceToMovePods');
    expect(n.report.unplaceable?.message).toBe(
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy existing pods anti-affinity rules.",
    );
  });

  it('catches a hostPort that is taken everywhere else', () => {
    const w = sdWorld({ nodes: 2 });
    const a = w.app('web', 'proxy', N1, { cpu: '100m', memory: '128Mi' });
    a.spec.containers[0].ports = [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }];
    const b = w.app('web', 'proxy', N2, { cpu: '100m', memory: '128Mi' });
    b.spec.containers[0].ports = [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }];
    expect(analyzeSd(w.raw).node(N1).report.unplaceable?.message).toBe(
      "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.",
    );
  });

  it('does not move DaemonSet pods, and calls a node with only DaemonSet pods empty', () => {
    const w = sdWorld({ nodes: 2 }).daemonSetEverywhere();
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report).toMatchObject({ removable: true, verdict: 'removable', podsToMove: [] });
    expect(n.report.summary).toContain('empty as CA sees it');
  });
});

describe('Pending pods that fit an existing node', () => {
  it('count on that node, as CA places them in its snapshot before scale-down (filter_out_schedulable)', () => {
    const w = sdWorld({ nodes: 2 });
    w.app('web', 'big', N2, { cpu: '3', memory: '1Gi' });
    w.add('pods', pod('api-7f9c8d6b5-new01', 'web').withRequests({ cpu: '1500m', memory: '1Gi' }).ownedBy('ReplicaSet', 'api-7f9c8d6b5').unschedulable().build());
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.utilization?.cpu).toBeCloseTo(1500 / 3920, 4);
    expect(n.report.notes).toContain(
      'Pending pod web/api-7f9c8d6b5-new01 fits here: CA counts it on this node (filter_out_schedulable places it in its snapshot)',
    );
  });

  it('are left out when CA ignores them (expendable)', () => {
    const w = sdWorld({ nodes: 2 });
    w.add('pods', pod('pause-1', 'web').withRequests({ cpu: '1500m' }).withPriority(-20).ownedBy('ReplicaSet', 'pause').unschedulable().build());
    expect(analyzeSd(w.raw).node(N1).report.utilization?.cpu).toBe(0);
  });
});

describe('PDB budget shared across nodes in one loop', () => {
  it('gives the budget to the first node and NotEnoughPdb to the next, although the PDB allows 1', () => {
    const w = sdWorld({ nodes: 3 });
    w.app('web', 'api', N1, { cpu: '500m', memory: '512Mi' });
    w.app('web', 'api', N2, { cpu: '500m', memory: '512Mi' });
    w.add('pdbs', pdb('web', 'api').selecting({ app: 'api' }).healthy(2, 1).build());
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report.removable).toBe(true);
    expect(r.node(N2).report.caReason).toBe('BlockedByPod');
    // N2 now also holds the api pod the simulation moved there from N1: both wait for budget
    expect(r.node(N2).report.blockingPods.map((b) => b.caReason)).toEqual(['NotEnoughPdb', 'NotEnoughPdb']);
    expect(r.node(N1).report.podsToMove![0].destination).toBe(N2);
    const tracked = r.sd.pdbs[0];
    expect([tracked.initial, tracked.remaining]).toEqual([1, 0]);
    expect(tracked.consumedBy).toEqual([{ node: N1, pods: [expect.stringMatching(/^web\/api-/)] }]);
    const f = r.findings.find((x) => x.checkId === 'pdb-blocks-scale-down');
    expect(f?.message).toBe(
      `PodDisruptionBudget web/api (maxUnavailable: 1) allows 1 disruption(s), used up in CA's loop by node ${N1}: it keeps 1 node(s): ${N2} (NotEnoughPdb).`,
    );
  });

  it('does not charge the budget for nodes CA keeps for other reasons', () => {
    const w = sdWorld({ nodes: 3 });
    w.app('web', 'api', N1, { cpu: '500m', memory: '512Mi' });
    w.add('pods', pod('debug', 'web').onNode(N1).build());
    w.app('web', 'api', N2, { cpu: '500m', memory: '512Mi' });
    w.add('pdbs', pdb('web', 'api').selecting({ app: 'api' }).healthy(2, 1).build());
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report.caReason).toBe('BlockedByPod');
    expect(r.node(N2).report.removable).toBe(true);
  });
});

describe('the unneeded stage', () => {
  it('stops at the min size once earlier removable nodes of the group are counted', () => {
    const w = sdWorld({ nodes: 3, min: 2 });
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report.removable).toBe(true);
    expect(r.node(N2).report).toMatchObject({ caReason: 'NodeGroupMinSizeReached', verdict: 'blocked' });
    expect(r.node(N3).report.caReason).toBe('NodeGroupMinSizeReached');
  });

  it('keeps nodes whose removal would break --cores-total minimums (MinimalResourceLimitExceeded)', () => {
    const w = sdWorld({ nodes: 3, caArgs: ['--cores-total=8:100'] });
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report.removable).toBe(true);
    expect(r.node(N2).report.caReason).toBe('MinimalResourceLimitExceeded');
    expect(r.node(N2).report.summary).toContain('--cores-total minimum');
  });

  it('keeps a node whose unneeded timer cannot have run out: CA restarted 3 minutes ago', () => {
    const w = sdWorld({ nodes: 2 });
    w.add(
      'pods',
      pod('cluster-autoscaler-6d4b8c9f7-abcde', 'kube-system')
        .withLabels({ app: 'cluster-autoscaler' })
        .createdAt('2026-01-05T11:57:00Z')
        .ownedBy('ReplicaSet', 'cluster-autoscaler-6d4b8c9f7')
        .onNode(N2)
        .build(),
    );
    w.raw.pods.at(-1)!.status!.startTime = '2026-01-05T11:57:00Z';
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report).toMatchObject({ caReason: 'NotUnneededLongEnough', verdict: 'waiting', removable: false });
    expect(n.report.waits[0]).toMatchObject({ kind: 'unneeded-time', leftSeconds: 420 });
  });

  it('reads the time left from the DeletionCandidateOfClusterAutoscaler soft taint', () => {
    const marked = String(Math.floor(NOW.getTime() / 1000) - 4 * 60);
    const w = sdWorld({
      nodes: 2,
      nodeBuilder: (i, b) => (i === 1 ? b.withTaint('DeletionCandidateOfClusterAutoscaler', marked, 'PreferNoSchedule') : b),
    });
    const n = analyzeSd(w.raw).node(N1);
    expect(n.report.caReason).toBe('NotUnneededLongEnough');
    expect(n.report.summary).toContain('6m left');
  });

  it('lets a node go once the soft taint is older than --scale-down-unneeded-time', () => {
    const marked = String(Math.floor(NOW.getTime() / 1000) - 15 * 60);
    const w = sdWorld({
      nodes: 2,
      nodeBuilder: (i, b) => (i === 1 ? b.withTaint('DeletionCandidateOfClusterAutoscaler', marked, 'PreferNoSchedule') : b),
    });
    expect(analyzeSd(w.raw).node(N1).report).toMatchObject({ removable: true, verdict: 'removable' });
  });

  it('uses the per-ASG scaledownunneededtime tag', () => {
    const marked = String(Math.floor(NOW.getTime() / 1000) - 15 * 60);
    const w = sdWorld({
      nodes: 2,
      groupTags: { 'k8s.io/cluster-autoscaler/node-template/autoscaling-options/scaledownunneededtime': '30m' },
      nodeBuilder: (i, b) => (i === 1 ? b.withTaint('DeletionCandidateOfClusterAutoscaler', marked, 'PreferNoSchedule') : b),
    });
    expect(analyzeSd(w.raw).node(N1).report.caReason).toBe('NotUnneededLongEnough');
  });
});

describe('cooldowns and loop gates', () => {
  const triggered = (at: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'api-x.18f2a', namespace: 'web' },
    involvedObject: { kind: 'Pod', namespace: 'web', name: 'api-x' },
    reason: 'TriggeredScaleUp',
    message: 'pod triggered scale-up: [{prod-general 3->4 (max: 10)}]',
    type: 'Normal',
    count: 1,
    firstTimestamp: at,
    lastTimestamp: at,
    source: { component: 'cluster-autoscaler' },
  });

  it('delays deletion for --scale-down-delay-after-add after a scale-up', () => {
    const w = sdWorld({ nodes: 2 });
    w.add('events', triggered('2026-01-05T11:56:00Z'));
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report).toMatchObject({ removable: true, caReason: null, verdict: 'waiting' });
    expect(r.node(N1).report.waits).toEqual([
      {
        kind: 'cooldown',
        detail: 'scale-down cooldown: --scale-down-delay-after-add=10m after the scale up at 2026-01-05T11:56:00.000Z',
        leftSeconds: 360,
      },
    ]);
    expect(r.findings.map((f) => f.checkId)).toContain('scale-down-in-cooldown');
  });

  it('has no cooldown once the delay passed', () => {
    const w = sdWorld({ nodes: 2 });
    w.add('events', triggered('2026-01-05T11:40:00Z'));
    expect(analyzeSd(w.raw).node(N1).report.verdict).toBe('removable');
  });

  it('counts a scale-up from the ASG scaling activities when no event is left', () => {
    const w = sdWorld({ nodes: 2 });
    w.add('scalingActivities', {
      ActivityId: 'a1',
      AutoScalingGroupName: 'prod-general',
      Description: 'Launching a new EC2 instance: i-0abc',
      Cause:
        'At 2026-01-05T11:55:00Z a user request explicitly set group desired capacity changing the desired capacity from 1 to 2.  At 2026-01-05T11:55:01Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 1 to 2.',
      StartTime: '2026-01-05T11:55:02.000000+00:00',
      StatusCode: 'Successful',
    });
    expect(analyzeSd(w.raw).sd.cooldowns).toEqual([
      expect.objectContaining({ cause: 'scale-up', leftMs: 5 * 60_000, flag: '--scale-down-delay-after-add' }),
    ]);
  });

  it('reports --scale-down-enabled=false as a loop gate on every removable node', () => {
    const w = sdWorld({ nodes: 2, caArgs: ['--scale-down-enabled=false'] });
    const r = analyzeSd(w.raw);
    expect(r.node(N1).report.waits.map((x) => x.kind)).toEqual(['loop-gate']);
    expect(r.findings.map((f) => f.checkId)).toContain('ca-scale-down-disabled');
  });
});

describe("CA's status ConfigMap", () => {
  const status = (candidates: number, scaleUp = 'NoActivity') => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cluster-autoscaler-status',
      namespace: 'kube-system',
      annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': '2026-01-05 11:59:52.118246319 +0000 UTC' },
    },
    data: {
      status: [
        'time: 2026-01-05 11:59:52.118246319 +0000 UTC',
        'autoscalerStatus: Running',
        'clusterWide:',
        '  health:',
        '    status: Healthy',
        '  scaleUp:',
        `    status: ${scaleUp}`,
        '  scaleDown:',
        `    status: ${candidates ? 'CandidatesPresent' : 'NoCandidates'}`,
        'nodeGroups:',
        '- name: prod-general',
        '  scaleDown:',
        `    status: ${candidates ? 'CandidatesPresent' : 'NoCandidates'}`,
        `    candidates: ${candidates}`,
        '',
      ].join('\n'),
    },
  });

  it('is compared with what casdoctor finds, per group', () => {
    const w = sdWorld({ nodes: 3 });
    w.app('web', 'big', N3, { cpu: '3', memory: '1Gi' });
    w.add('configMaps', status(0));
    expect(analyzeSd(w.raw).sd.notes).toEqual([
      "node group prod-general: CA's status ConfigMap counts 0 scale-down candidate(s), casdoctor finds 2 removable; CA re-checks an unremovable node only every --unremovable-node-recheck-timeout (5m) and starts its timers from zero after a restart",
    ]);
    const agree = sdWorld({ nodes: 3 });
    agree.app('web', 'big', N3, { cpu: '3', memory: '1Gi' });
    agree.add('configMaps', status(2));
    expect(analyzeSd(agree.raw).sd.notes).toEqual([]);
  });

  it('says when a scale-up is in progress', () => {
    const w = sdWorld({ nodes: 2 });
    w.add('configMaps', status(2, 'InProgress'));
    expect(analyzeSd(w.raw).sd.notes[0]).toContain('reports a scale-up in progress');
  });
});

describe('the summary line', () => {
  it('counts removable nodes first, then each reason in CA order, blocked-by-pod grouped by the first blocking reason', () => {
    const w = sdWorld({ nodes: 3 });
    fill(w, N3, '3000m');
    w.add('pods', pod('debug', 'web').onNode(N2).build());
    const r = analyzeSd(w.raw);
    expect(summarize(r.sd.nodes)).toBe(
      '1 of 3 nodes could be removed now; 1 not underutilized; 1 blocked by pods: 1 NotReplicated',
    );
  });

  it('covers only the nodes in scope', () => {
    const w = sdWorld({ nodes: 3 });
    const r = analyzeSd(w.raw, { scope: (n) => n.metadata.name === N2 });
    expect(r.sd.summary).toBe('1 of 1 node could be removed now');
  });
});
