import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../../src/model/k8s.js';
import { DEFAULT_KARPENTER_FEATURE_GATES, type NodeClaim } from '../../../../src/model/karpenter.js';
import {
  karpenterDisruptionBlockers,
  karpenterDisruptionReport,
  podDoNotDisrupt,
  type KarpenterDisruptionContext,
  type KarpenterNodeDisruption,
} from '../../../../src/simulate/providers/karpenter/disruption.js';
import { loadKarpenterFixture, NOW, type KarpenterFixture } from '../../../fixtures/karpenter-disruption/load.js';

const N1 = 'ip-10-0-101-17.ec2.internal'; // general, on-demand, two web pods, nominated at 07:29:52
const N2 = 'ip-10-0-102-44.ec2.internal'; // general, spot, only DaemonSet pods and a finished Job pod
const N3 = 'ip-10-0-103-9.ec2.internal'; // general, spot, Drifted, payments-api-0 under a PDB allowing 0
const N4 = 'ip-10-0-101-200.ec2.internal'; // batch (WhenEmpty, TGP 2h), a Job pod with do-not-disrupt "2h"
const CA_NODE = 'ip-10-0-50-12.ec2.internal';

function ctxOf(f: KarpenterFixture, now = NOW, extra: Partial<KarpenterDisruptionContext> = {}): KarpenterDisruptionContext {
  return {
    now,
    nodes: f.nodes,
    nodeClaims: f.nodeClaims,
    nodePools: f.nodePools,
    pods: f.pods,
    pdbs: f.pdbs,
    events: f.events,
    settings: { featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES }, batchMaxDuration: '10s' },
    ...extra,
  };
}

function nodeOf(f: KarpenterFixture, name: string): Node {
  return f.nodes.find((n) => n.metadata.name === name)!;
}
function claimOf(f: KarpenterFixture, node: string): NodeClaim {
  return f.nodeClaims.find((c) => c.status?.nodeName === node)!;
}
function podOf(f: KarpenterFixture, name: string): Pod {
  return f.pods.find((p) => p.metadata.name === name)!;
}
function run(f: KarpenterFixture, node: string, now = NOW, extra: Partial<KarpenterDisruptionContext> = {}): KarpenterNodeDisruption {
  return karpenterDisruptionBlockers(nodeOf(f, node), ctxOf(f, now, extra));
}
const ids = (r: KarpenterNodeDisruption) => r.blockers.map((b) => b.id);
const method = (r: KarpenterNodeDisruption, m: string) => r.methods.find((v) => v.method === m)!;

describe('the fixture cluster at Tuesday 07:30 UTC', () => {
  it('lists every Karpenter node and the NodeClaim without a node, and leaves the CA node out', () => {
    const f = loadKarpenterFixture();
    const report = karpenterDisruptionReport(ctxOf(f));
    expect(report.map((r) => r.node ?? `nodeclaim/${r.nodeClaim}`)).toEqual(['nodeclaim/general-zz9kq', N1, N4, N2, N3]);
    expect(report.some((r) => r.node === CA_NODE)).toBe(false);
  });

  it('lets Karpenter delete the empty spot node: DaemonSet pods and a finished pod do not count', () => {
    const r = run(loadKarpenterFixture(), N2);
    expect(r.blockers).toEqual([]);
    expect(r).toMatchObject({ candidate: true, empty: true, reschedulablePods: [] });
    expect(method(r, 'emptiness')).toMatchObject({ applicable: true, possible: true });
    expect(method(r, 'consolidation')).toMatchObject({ applicable: false, possible: false });
  });

  it('counts three initialized general nodes, so 20% rounds up to one disruption per reason', () => {
    const r = run(loadKarpenterFixture(), N2);
    expect(r.budgets).toMatchObject({ numNodes: 3, disrupting: 0 });
    expect(r.budgets!.byReason.Empty).toMatchObject({ allowed: 1, remaining: 1 });
  });
});

describe('candidate checks in ValidateNodeDisruptable order (karpenter pkg/controllers/state/statenode.go:212-237)', () => {
  it("says \"node isn't managed by karpenter\" for a node with the nodepool label but no NodeClaim (statenode.go:213)", () => {
    const f = loadKarpenterFixture();
    f.nodeClaims = f.nodeClaims.filter((c) => c.status?.nodeName !== N1);
    const r = run(f, N1);
    expect(r.blockers).toHaveLength(1);
    expect(r.blockers[0]).toMatchObject({ id: 'not-managed', karpenterText: "node isn't managed by karpenter" });
    // NewCandidate publishes events only for nodes with a NodeClaim (types.go:171-174)
    expect(r.blockers[0].event).toBeUndefined();
    expect(r.methods).toEqual([]);
  });

  it('says "nodeclaim does not have an associated node" for a launched NodeClaim whose node never joined (statenode.go:216)', () => {
    const f = loadKarpenterFixture();
    const claim = f.nodeClaims.find((c) => c.metadata.name === 'general-zz9kq')!;
    const r = karpenterDisruptionBlockers(claim, ctxOf(f));
    expect(r.blockers.map((b) => [b.id, b.karpenterText])).toEqual([
      ['nodeclaim-without-node', 'nodeclaim does not have an associated node'],
    ]);
    expect(method(r, 'expiration').at).toBe('2026-12-24T07:21:00Z');
  });

  it('says "node isn\'t initialized" without the karpenter.sh/initialized label and leaves it out of the budget count (statenode.go:219)', () => {
    const f = loadKarpenterFixture();
    delete nodeOf(f, N1).metadata.labels!['karpenter.sh/initialized'];
    const r = run(f, N1);
    expect(r.blockers[0]).toMatchObject({
      id: 'not-initialized',
      karpenterText: "node isn't initialized",
      event: { reason: 'DisruptionBlocked', message: "Node isn't initialized" },
    });
    expect(r.budgets?.numNodes).toBe(2);
  });

  it('says "node is deleting or marked for deletion" for a deleting NodeClaim, and the node consumes the budget (statenode.go:222)', () => {
    const f = loadKarpenterFixture();
    claimOf(f, N1).metadata.deletionTimestamp = '2026-11-24T07:29:00Z';
    const r = run(f, N1);
    expect(r.blockers[0]).toMatchObject({ id: 'marked-for-deletion', certainty: 'exact', karpenterText: 'node is deleting or marked for deletion' });
    const r2 = run(f, N2);
    expect(r2.budgets).toMatchObject({ numNodes: 3, disrupting: 1 });
    // 20% of 3 is 1 and the deleting node uses it: the empty node must wait (helpers.go:301)
    expect(r2.blockers.map((b) => [b.id, b.karpenterText])).toEqual([['budget', undefined]]);
    expect(method(r2, 'emptiness').possible).toBe(false);
  });

  it('infers the in-memory deletion mark from the karpenter.sh/disrupted:NoSchedule taint', () => {
    const f = loadKarpenterFixture();
    nodeOf(f, N1).spec!.taints = [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }];
    expect(run(f, N1).blockers[0]).toMatchObject({ id: 'marked-for-deletion', certainty: 'inferred' });
  });

  it('says "node is nominated for a pending pod" within max(2 x BATCH_MAX_DURATION, 10s) of the Nominated event (statenode.go:226, 504)', () => {
    const f = loadKarpenterFixture();
    const r = run(f, N1);
    expect(r.blockers.map((b) => b.id)).toEqual(['nominated']);
    expect(r.blockers[0]).toMatchObject({
      karpenterText: 'node is nominated for a pending pod',
      certainty: 'inferred',
      values: { pods: 'shop/checkout-7c9d8b6f5-p2x4r', nominatedUntil: '2026-11-24T07:30:12Z' },
    });
    expect(ids(run(f, N1, new Date('2026-11-24T07:30:12Z')))).not.toContain('nominated');
    expect(ids(run(f, N1, new Date('2026-11-24T07:30:30Z'), { settings: { featureGates: DEFAULT_KARPENTER_FEATURE_GATES, batchMaxDuration: '30s' } }))).toContain('nominated');
  });

  it('does not treat a pod preempting onto the node (status.nominatedNodeName) as a nomination: Karpenter ignores preempting pods (pod/scheduling.go:105)', () => {
    const f = loadKarpenterFixture();
    f.events = [];
    f.pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'checkout-7c9d8b6f5-zz9q1', namespace: 'shop' },
      spec: { containers: [{ name: 'main' }] },
      status: { phase: 'Pending', nominatedNodeName: N1 },
    });
    const r = run(f, N1);
    expect(ids(r)).not.toContain('nominated');
    expect(r.notes.join(' ')).toMatch(/shop\/checkout-7c9d8b6f5-zz9q1 carry status.nominatedNodeName=ip-10-0-101-17.ec2.internal/);
  });

  it('honours karpenter.sh/do-not-disrupt "true" on the node and only "true" (statenode.go:229)', () => {
    const f = loadKarpenterFixture();
    f.events = [];
    nodeOf(f, N2).metadata.annotations!['karpenter.sh/do-not-disrupt'] = 'true';
    const r = run(f, N2);
    expect(r.blockers[0]).toMatchObject({
      id: 'node-do-not-disrupt',
      karpenterText: 'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
      event: { message: 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation' },
    });
    expect(method(r, 'expiration').possible).toBe(true);
    nodeOf(f, N2).metadata.annotations!['karpenter.sh/do-not-disrupt'] = '1h';
    const r2 = run(f, N2);
    expect(r2.blockers).toEqual([]);
    expect(r2.notes.join(' ')).toMatch(/only "true" counts/);
  });

  it('reads the annotation from the NodeClaim while the node is not registered (statenode.go:281-294)', () => {
    const f = loadKarpenterFixture();
    delete nodeOf(f, N2).metadata.labels!['karpenter.sh/registered'];
    claimOf(f, N2).metadata.annotations!['karpenter.sh/do-not-disrupt'] = 'true';
    expect(ids(run(f, N2))).toContain('node-do-not-disrupt');
  });

  it('says "node doesn\'t have required label (label=karpenter.sh/nodepool)" for a managed node without the label (statenode.go:233)', () => {
    const f = loadKarpenterFixture();
    delete nodeOf(f, N2).metadata.labels!['karpenter.sh/nodepool'];
    const r = run(f, N2);
    expect(r.blockers.map((b) => b.karpenterText)).toEqual(["node doesn't have required label (label=karpenter.sh/nodepool)"]);
    expect(r.blockers[0].event?.message).toBe("Node doesn't have required label (label=karpenter.sh/nodepool)");
  });

  it('says "NodePool not found (NodePool=general)" when the pool is gone (disruption/types.go:183-186)', () => {
    const f = loadKarpenterFixture();
    f.nodePools = f.nodePools.filter((np) => np.metadata.name !== 'general');
    const r = run(f, N2);
    expect(r.blockers[0]).toMatchObject({ id: 'nodepool-not-found', event: { message: 'NodePool not found (NodePool=general)' } });
  });
});

describe('pod checks (statenode.go:244-264 ValidatePodsDisruptable)', () => {
  it('blocks on a do-not-disrupt duration counted from the pod start, until it elapses (pod/scheduling.go:210-252)', () => {
    const f = loadKarpenterFixture();
    const r = run(f, N4);
    const b = r.blockers.find((x) => x.id === 'pod-do-not-disrupt')!;
    expect(b).toMatchObject({
      karpenterText: 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=batch/nightly-etl-29391840-k7q2x)',
      event: { message: 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=batch/nightly-etl-29391840-k7q2x)' },
      values: { value: '2h', until: '2026-11-24T09:00:12Z' },
    });
    // the batch NodeClaim has terminationGracePeriod 2h: drift is "eventual" and ignores pod blockers (types.go:189-198)
    expect(b.blocks).toEqual(['emptiness', 'consolidation']);
    expect(r.candidate).toBe(false);
    expect(ids(run(f, N4, new Date('2026-11-24T09:00:12Z')))).not.toContain('pod-do-not-disrupt');
  });

  it('ignores a do-not-disrupt duration on Karpenter before v1.12.0, which honoured only "true"', () => {
    const f = loadKarpenterFixture();
    const r = run(f, N4, NOW, { settings: { version: '1.11.2' } });
    expect(ids(r)).not.toContain('pod-do-not-disrupt');
    expect(r.notes.join(' ')).toMatch(/Karpenter 1.11.2 honours only "true"/);
    expect(ids(run(f, N4, NOW, { settings: { version: 'v1.12.0' } }))).toContain('pod-do-not-disrupt');
  });

  const dnd: Array<[string, string, string | undefined, boolean, string]> = [
    ['"true"', 'true', '2026-11-24T07:00:00Z', true, ''],
    ['"5m" on a pod started 4 minutes ago', '5m', '2026-11-24T07:26:00Z', true, ''],
    ['"5m" on a pod started 5 minutes ago', '5m', '2026-11-24T07:25:00Z', false, 'elapsed'],
    ['"5m" without a startTime (fail safe)', '5m', undefined, true, ''],
    ['"false" (not a duration: ignored, with an event)', 'false', '2026-11-24T07:00:00Z', false, 'invalid'],
    ['"-5m" (must be positive)', '-5m', '2026-11-24T07:00:00Z', false, 'invalid'],
  ];
  it.each(dnd)('evaluates do-not-disrupt %s', (_name, value, start, active, reason) => {
    const p: Pod = {
      metadata: { name: 'p', namespace: 'default', annotations: { 'karpenter.sh/do-not-disrupt': value } },
      spec: { containers: [{ name: 'c' }] },
      status: { phase: 'Running', startTime: start },
    };
    const s = podDoNotDisrupt(p, NOW);
    expect(s.active).toBe(active);
    if (!s.active) expect(s.reason).toBe(reason);
  });

  it('says "pdb prevents pod evictions (PodDisruptionBudget=[payments/payments-api])" (statenode.go:260, suite_test.go:1157)', () => {
    const r = run(loadKarpenterFixture(), N3);
    expect(r.blockers.map((b) => b.karpenterText)).toContain('pdb prevents pod evictions (PodDisruptionBudget=[payments/payments-api])');
    const b = r.blockers.find((x) => x.id === 'pdb-blocks-eviction')!;
    expect(b.event?.message).toBe('Pdb prevents pod evictions (PodDisruptionBudget=[payments/payments-api])');
    expect(b.blocks).toEqual(['emptiness', 'drift', 'consolidation']);
    expect(method(r, 'drift')).toMatchObject({ applicable: true, possible: false, blockedBy: ['pdb-blocks-eviction'] });
    expect(method(r, 'expiration').detail).toMatch(/no terminationGracePeriod to bound it/);
  });

  it('lets a PDB with disruptions left pass, and ignores it for a NotReady pod under AlwaysAllow (pdb.go:110-127)', () => {
    const f = loadKarpenterFixture();
    f.pdbs.find((b) => b.metadata.name === 'payments-api')!.status!.disruptionsAllowed = 1;
    expect(ids(run(f, N3))).not.toContain('pdb-blocks-eviction');
    const g = loadKarpenterFixture();
    g.pdbs.find((b) => b.metadata.name === 'payments-api')!.spec!.unhealthyPodEvictionPolicy = 'AlwaysAllow';
    podOf(g, 'payments-api-0').status!.conditions![0].status = 'False';
    expect(ids(run(g, N3))).not.toContain('pdb-blocks-eviction');
  });

  it('says "eviction does not support multiple PDBs" for a pod under two PDBs, whatever they allow (pdb.go:99-105)', () => {
    const f = loadKarpenterFixture();
    f.events = [];
    f.pdbs.push({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'shop-all', namespace: 'shop' },
      spec: { maxUnavailable: '50%', selector: {} },
      status: { disruptionsAllowed: 3 },
    });
    const r = run(f, N1);
    const b = r.blockers.filter((x) => x.id === 'multiple-pdbs');
    expect(b).toHaveLength(2);
    expect(b[0].karpenterText).toBe('eviction does not support multiple PDBs (PodDisruptionBudget(s)=[shop/web shop/shop-all])');
    expect(b[0].event?.message.startsWith('Eviction does not support multiple PDBs')).toBe(true);
  });

  it('ignores PDBs for DaemonSet pods, which tolerate the karpenter.sh/disrupted taint (pdb.go:91, scheduling.go:58-63)', () => {
    const f = loadKarpenterFixture();
    f.pdbs.push({
      metadata: { name: 'aws-node', namespace: 'kube-system' },
      spec: { maxUnavailable: 0, selector: { matchLabels: { 'k8s-app': 'aws-node' } } },
      status: { disruptionsAllowed: 0 },
    });
    expect(run(f, N2).blockers).toEqual([]);
  });
});

describe('method filters (disruption/emptiness.go, consolidation.go, drift.go)', () => {
  it('says "NodePool \\"gpu\\" has consolidation disabled" when consolidateAfter is Never (consolidation.go:122)', () => {
    const f = loadKarpenterFixture();
    f.events = [];
    const n = nodeOf(f, N2);
    n.metadata.labels!['karpenter.sh/nodepool'] = 'gpu';
    claimOf(f, N2).metadata.labels!['karpenter.sh/nodepool'] = 'gpu';
    const r = run(f, N2);
    expect(r.blockers[0]).toMatchObject({
      id: 'consolidation-disabled',
      karpenterText: 'NodePool "gpu" has consolidation disabled',
      event: { reason: 'Unconsolidatable' },
      blocks: ['emptiness', 'consolidation'],
    });
    // gpu's expireAfter is Never and the claim copies it only at launch: the claim's own 720h still applies
    expect(method(r, 'expiration').at).toBe('2026-12-22T18:45:00Z');
  });

  it('says "NodePool \\"batch\\" has consolidation policy WhenEmpty, but node is not empty" (consolidation.go:131)', () => {
    const r = run(loadKarpenterFixture(), N4);
    expect(r.blockers.map((b) => b.karpenterText)).toContain('NodePool "batch" has consolidation policy WhenEmpty, but node is not empty');
  });

  it('waits for consolidateAfter from the last pod event before the NodeClaim becomes Consolidatable (nodeclaim/disruption/consolidation.go:62-77)', () => {
    const r = run(loadKarpenterFixture(), N4);
    const b = r.blockers.find((x) => x.id === 'consolidate-after')!;
    expect(b.values).toMatchObject({ consolidateAfter: '5m', lastPodEventTime: '2026-11-24T07:27:30Z', consolidatableAt: '2026-11-24T07:32:30Z' });
    expect(b.explanation).toMatch(/in 2m30s/);
    const later = run(loadKarpenterFixture(), N4, new Date('2026-11-24T07:40:00Z'));
    expect(ids(later)).toContain('not-consolidatable');
    expect(ids(later)).not.toContain('consolidate-after');
  });

  it('blocks replacing a spot node while SpotToSpotConsolidation is off, but not deleting it (consolidation.go:212-214, 263-268)', () => {
    const f = loadKarpenterFixture();
    f.pdbs = [];
    const r = run(f, N3);
    expect(r.blockers.map((b) => [b.id, b.partial])).toEqual([['spot-to-spot-disabled', true]]);
    expect(r.blockers[0].karpenterText).toBe("SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node");
    expect(method(r, 'consolidation')).toMatchObject({ possible: true, limitedBy: ['spot-to-spot-disabled'] });
    const on = run(f, N3, NOW, { settings: { featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES, SpotToSpotConsolidation: true } } });
    expect(on.blockers).toEqual([]);
  });

  it('reports drift as possible for a Drifted node once nothing blocks it (drift.go:58-60)', () => {
    const f = loadKarpenterFixture();
    f.pdbs = [];
    expect(method(run(f, N3), 'drift')).toMatchObject({ applicable: true, possible: true, reason: 'Drifted' });
    expect(method(run(f, N2), 'drift')).toMatchObject({ applicable: false, detail: 'NodeClaim is not Drifted' });
  });

  it('treats a node whose pods have strongly negative priority as empty (types.go:156-158, utils/disruption/disruption.go:48-69)', () => {
    const f = loadKarpenterFixture();
    f.events = [];
    for (const p of f.pods.filter((x) => x.spec.nodeName === N1 && x.metadata.namespace === 'shop')) p.spec.priority = -1_000_000_000;
    expect(run(f, N1)).toMatchObject({ empty: true, blockers: [] });
  });

  it('stops consolidation and emptiness for a static NodePool (consolidation.go:101, emptiness.go:43)', () => {
    const f = loadKarpenterFixture();
    f.nodePools.find((np) => np.metadata.name === 'general')!.spec.replicas = 3;
    const r = run(f, N2);
    expect(r.blockers.map((b) => b.id)).toEqual(['static-nodepool']);
    expect(method(r, 'emptiness').possible).toBe(false);
  });

  it('says "Instance Type \\"m6i.xlarge\\" not found" when the pool no longer offers the type (consolidation.go:110)', () => {
    const f = loadKarpenterFixture();
    f.events = [];
    const r = run(f, N1, NOW, { instanceTypesByNodePool: { general: ['m7i.xlarge', 'c7i.xlarge'] } });
    expect(r.blockers.map((b) => b.karpenterText)).toEqual(['Instance Type "m6i.xlarge" not found']);
  });
});

describe('budgets per reason at several instants (disruption/helpers.go:262-313)', () => {
  it('blocks the empty node inside the weekday 09:00-17:00 freeze with the NodePool event text', () => {
    const r = run(loadKarpenterFixture(), N2, new Date('2026-11-24T10:00:00Z'));
    expect(r.blockers).toHaveLength(1);
    expect(r.blockers[0]).toMatchObject({
      id: 'budget',
      blocks: ['emptiness'],
      karpenterText: 'No allowed disruptions for disruption reason Empty due to blocking budget',
      event: { reason: 'DisruptionBlocked', on: 'NodePool' },
      values: { reason: 'Empty', allowed: 0, limitingBudgets: '1' },
    });
    expect(r.blockers[0].explanation).toMatch(/active since 2026-11-24T09:00:00Z until 2026-11-24T17:00:00Z/);
  });

  it('lets drift through the freeze, which names only Underutilized and Empty', () => {
    const f = loadKarpenterFixture();
    f.pdbs = [];
    const r = run(f, N3, new Date('2026-11-24T10:00:00Z'));
    expect(method(r, 'drift').possible).toBe(true);
    expect(method(r, 'consolidation').blockedBy).toEqual(['budget']);
  });

  it('frees the empty node again after 17:00 and on Saturday', () => {
    expect(run(loadKarpenterFixture(), N2, new Date('2026-11-24T17:00:00Z')).blockers).toEqual([]);
    expect(run(loadKarpenterFixture(), N2, new Date('2026-11-28T10:00:00Z')).blockers).toEqual([]);
  });

  it('fails closed on a CRON_TZ schedule, for every reason', () => {
    const f = loadKarpenterFixture();
    f.nodePools.find((np) => np.metadata.name === 'general')!.spec.disruption!.budgets = [
      { nodes: '20%' },
      { nodes: '5', schedule: 'CRON_TZ=Europe/Berlin 0 2 * * *', duration: '2h', reasons: ['Drifted'] },
    ];
    const r = run(f, N2);
    expect(r.blockers[0]).toMatchObject({ id: 'budget', karpenterText: 'No allowed disruptions for disruption reason Empty due to blocking budget' });
    expect(r.blockers[0].explanation).toMatch(/is invalid.*expected exactly 5 fields, found 6/);
  });

  it('counts NotReady nodes against the budget', () => {
    const f = loadKarpenterFixture();
    nodeOf(f, N1).status!.conditions![0].status = 'Unknown';
    const r = run(f, N2);
    expect(r.budgets).toMatchObject({ numNodes: 3, disrupting: 1 });
    expect(r.blockers[0].explanation).toMatch(/allow 1 Empty disruption\(s\) of 3 node\(s\), and 1 node\(s\) already NotReady/);
  });
});

describe('expiration (nodeclaim/expiration/controller.go:58-107)', () => {
  it('gives the instant from the NodeClaim creation plus its expireAfter, regardless of blockers', () => {
    const r = run(loadKarpenterFixture(), N4);
    expect(method(r, 'expiration')).toMatchObject({ possible: true, at: '2026-12-01T06:50:00Z', limitedBy: ['pod-do-not-disrupt'] });
    expect(method(r, 'expiration').detail).toMatch(/at most terminationGracePeriod 2h/);
  });

  it('says a NodeClaim with expireAfter Never does not expire', () => {
    const f = loadKarpenterFixture();
    claimOf(f, N2).spec.expireAfter = 'Never';
    expect(method(run(f, N2), 'expiration')).toMatchObject({ applicable: false, detail: 'expireAfter is Never' });
  });
});
