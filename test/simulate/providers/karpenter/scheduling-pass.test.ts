// Karpenter's scheduling pass over the Pending pods (scheduler.go add@v1.6.2: existing capacity, then NodeClaims planned
// in the same pass, then a new NodeClaim; queue.go: CPU then memory, descending; limits charged with the largest type).
// Topology spread and pod (anti-)affinity are in topology.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DaemonSet, Node, Pod } from '../../../../src/model/k8s.js';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../../../src/model/karpenter.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../../../src/simulate/instance-types.js';
import { explainKarpenterPending, type KarpenterPlacementContext } from '../../../../src/simulate/providers/karpenter/placement.js';
import { pod } from '../../../builders/k8s.js';

function fixture<T>(name: string): T[] {
  return (JSON.parse(readFileSync(new URL(`../../../fixtures/karpenter/${name}.json`, import.meta.url), 'utf8')) as { items: T[] }).items;
}
const data = JSON.parse(readFileSync(new URL('../../../../data/instance-types.json', import.meta.url), 'utf8')) as StaticInstanceTypeData;
const TYPES = ['c5.large', 'c5.xlarge', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'r5.large', 't3.medium', 'g4dn.xlarge'];
const table = buildInstanceTypeTable(
  { staticListLastUpdateTime: data.staticListLastUpdateTime, instanceTypes: Object.fromEntries(TYPES.map((n) => [n, data.instanceTypes[n]])) },
  [],
  { flags: { awsUseStaticInstanceList: { value: true, origin: 'default', supported: true } } } as never,
);

// general-x7k2p (m5.xlarge, eu-west-1b) launched at 09:53:40 and has no node: 7m old at 10:00, 27m (past 15m) at 10:20
const EARLY = new Date('2026-11-24T10:00:00Z');
const LATE = new Date('2026-11-24T10:20:00Z');

function ctx(pods: Pod[], now: Date, over: Partial<KarpenterPlacementContext> = {}): KarpenterPlacementContext {
  return {
    nodePools: fixture<NodePool>('nodepools'),
    nodeClasses: fixture<EC2NodeClass>('ec2nodeclasses'),
    nodeClaims: fixture<NodeClaim>('nodeclaims'),
    nodes: fixture<Node>('nodes'),
    daemonSets: fixture<DaemonSet>('daemonsets'),
    pods,
    instanceTypes: table,
    now,
    ...over,
  };
}

const pendingPod = (name: string, cpu: string, memory: string, created = '2026-11-24T09:58:00Z') =>
  pod(name, 'shop').ownedBy('ReplicaSet', name.replace(/-[a-z0-9]+$/, '')).withRequests({ cpu, memory }).createdAt(created).unschedulable();

describe('capacity Karpenter already has comes before a new node', () => {
  it('a pod that fits the NodeClaim in flight gets no new node: Karpenter waits for general-x7k2p', () => {
    const p = pendingPod('api-5d8f9-abcde', '1', '2Gi').build();
    const x = explainKarpenterPending(p, ctx([p], EARLY));
    expect(x.outcome).toBe('in-flight');
    expect(x.inFlight).toMatchObject({ kind: 'nodeclaim', name: 'general-x7k2p', nodePool: 'general' });
    expect(x.inFlight?.why).toContain('if none registers within 8m, Karpenter deletes the NodeClaim');
    expect(x.chosen).toBeUndefined();
  });

  it('past the 15m registration timeout the NodeClaim is deleted, so the verdict is what Karpenter does next: a new node', () => {
    const p = pendingPod('api-5d8f9-abcde', '1', '2Gi').build();
    const x = explainKarpenterPending(p, ctx([p], LATE));
    expect(x.outcome).toBe('new-node');
    expect(x.chosen).toBe('general');
  });

  it('the in-flight NodeClaim is used up in queue order (largest CPU first): the second pod gets a new node', () => {
    const big = pendingPod('batch-a-11111', '3', '4Gi').build();
    const small = pendingPod('batch-b-22222', '2', '4Gi').build();
    const c = ctx([small, big], EARLY);
    expect(explainKarpenterPending(big, c)).toMatchObject({ outcome: 'in-flight', inFlight: { name: 'general-x7k2p' } });
    expect(explainKarpenterPending(small, c)).toMatchObject({ outcome: 'new-node', chosen: 'general' });
  });

  it('a pod selecting another zone than the NodeClaim\'s does not use it', () => {
    const p = pendingPod('api-5d8f9-abcde', '1', '2Gi').withNodeSelector({ 'topology.kubernetes.io/zone': 'eu-west-1a' }).build();
    expect(explainKarpenterPending(p, ctx([p], EARLY)).outcome).toBe('new-node');
  });
});

describe('several Pending pods in one pass', () => {
  it('packs pods into the NodeClaim planned for the first one instead of one node each', () => {
    // x7k2p is gone at 10:20; three 1-CPU pods fit one m5.2xlarge
    const pods = ['w-1-aaaaa', 'w-2-bbbbb', 'w-3-ccccc'].map((n) => pendingPod(n, '1', '1Gi').build());
    const c = ctx(pods, LATE);
    const xs = pods.map((p) => explainKarpenterPending(p, c));
    expect(xs.map((x) => x.outcome)).toEqual(['new-node', 'new-node', 'new-node']);
    expect(xs[0].notes.join(' ')).not.toContain('packs this pod');
    expect(xs[1].notes.join(' ')).toContain('Karpenter packs this pod into the NodeClaim of NodePool general it launches in the same pass for shop/w-1-aaaaa');
    expect(xs[2].notes.join(' ')).toContain('shop/w-1-aaaaa, shop/w-2-bbbbb');
  });

  it('charges each planned NodeClaim\'s largest instance type against limits: the next pod finds the pool full', () => {
    // general: limits cpu 20 less its 2 nodes and x7k2p (4 cpu each, still counted until deleted) leaves 8: one m5.2xlarge
    const nodePools = fixture<NodePool>('nodepools').map((np) =>
      np.metadata.name === 'general' ? { ...np, spec: { ...np.spec, limits: { cpu: '20' } } } : np.metadata.name === 'batch' ? { ...np, spec: { ...np.spec, template: { ...np.spec.template, spec: { ...np.spec.template.spec, taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' as const }] } } } } : np,
    );
    const a = pendingPod('big-a-aaaaa', '6', '8Gi').build();
    const b = pendingPod('big-b-bbbbb', '6', '8Gi', '2026-11-24T09:59:00Z').build();
    const c = ctx([a, b], LATE, { nodePools });
    const xa = explainKarpenterPending(a, c);
    const xb = explainKarpenterPending(b, c);
    expect(xa).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    expect(xb.outcome).toBe('no-node');
    expect(xb.pools.find((p) => p.nodePool === 'general')).toMatchObject({ stage: 'resource-limits', error: 'all available instance types exceed limits for nodepool (NodePool=general)' });
  });
});

describe('topology comes after requirements (nodeclaim.go CanAdd; topology.test.ts has the rest)', () => {
  it('a pool rejected before topology stays rejected: the pod is "no-node" when every pool fails earlier', () => {
    const p = pendingPod('web-7c9-ggggg', '1', '1Gi').withNodeSelector({ 'shop.example.com/team': 'x' }).withTopologySpread({ topologyKey: 'topology.kubernetes.io/zone' }).build();
    const x = explainKarpenterPending(p, ctx([p], LATE));
    expect(x.outcome).toBe('no-node');
    expect(x.pools.some((pl) => pl.stage === 'topology')).toBe(false);
  });
});

describe('host ports against the DaemonSets of a new node (nodeclaim.go:120-124@v1.6.2)', () => {
  // fluent-bit tolerates everything and runs on every pool: give it hostPort 2020, as its metrics server often has
  const withPort = (port: number, hostIP?: string): DaemonSet[] =>
    fixture<DaemonSet>('daemonsets').map((d) => {
      if (d.metadata.name !== 'fluent-bit') return d;
      const c = structuredClone(d);
      const container = c.spec!.template!.spec!.containers[0];
      container.ports = [{ containerPort: port, hostPort: port, protocol: 'TCP', ...(hostIP ? { hostIP } : {}) }];
      return c;
    });

  it('a pod whose hostPort a DaemonSet already takes fits no NodePool: "checking host port usage"', () => {
    const p = pendingPod('exporter-5f-hhhhh', '100m', '128Mi').withHostPort(2020).build();
    const x = explainKarpenterPending(p, ctx([p], LATE, { daemonSets: withPort(2020) }));
    expect(x.outcome).toBe('no-node');
    const general = x.pools.find((pl) => pl.nodePool === 'general');
    expect(general).toMatchObject({ verdict: 'rejected', stage: 'host-ports' });
    expect(general?.error).toBe('checking host port usage, pod hostport conflicts with existing hostport configuration (pod-hostport-ip=0.0.0.0, pod-hostport-port=2020, pod-hostport-protocol=TCP, existing-hostport-ip=0.0.0.0, existing-hostport-port=2020, existing-hostport-protocol=TCP)');
    expect(general?.detail).toContain('DaemonSet logging/fluent-bit');
  });

  it('another port, or the same port on two specific IPs, does not clash', () => {
    const p = pendingPod('exporter-5f-iiiii', '100m', '128Mi').withHostPort(2021).build();
    expect(explainKarpenterPending(p, ctx([p], LATE, { daemonSets: withPort(2020) })).outcome).toBe('new-node');
    const q = pendingPod('exporter-5f-jjjjj', '100m', '128Mi').withHostPort(2020, { hostIP: '10.0.0.1' }).build();
    expect(explainKarpenterPending(q, ctx([q], LATE, { daemonSets: withPort(2020, '10.0.0.2') })).outcome).toBe('new-node');
  });
});

describe('preferred node affinity, as the loader now keeps it (requirements.go:95-101@v1.6.2, provisioner.go:493-500)', () => {
  const preferring = (name: string, expr: { key: string; operator: string; values?: string[] }) => {
    const p = pendingPod(name, '1', '1Gi').build();
    p.spec.affinity = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [expr] } }] } };
    return p;
  };
  it('a preferred karpenter.sh/nodepool DoesNotExist opts the pod out of Karpenter without an event', () => {
    const p = preferring('optout-1-kkkkk', { key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' });
    const x = explainKarpenterPending(p, ctx([p], LATE));
    expect(x).toMatchObject({ outcome: 'ignored', eligibility: { provisionable: false, silent: true } });
    expect(x.event).toBeUndefined();
  });
  it('a preferred NodePool is required first and relaxed only when no pool fits it', () => {
    // batch resolves no instance type from this fixture's table: the preference fails, is dropped, and general takes the pod
    const p = preferring('pref-1-lllll', { key: 'karpenter.sh/nodepool', operator: 'In', values: ['batch'] });
    const x = explainKarpenterPending(p, ctx([p], LATE));
    expect(x).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    expect(x.notes).toContain('Karpenter places the pod only after relaxing: 1 preferred node-affinity term(s) dropped');
    // a preference for general needs no relaxation
    const q = preferring('pref-2-mmmmm', { key: 'karpenter.sh/nodepool', operator: 'In', values: ['general'] });
    expect(explainKarpenterPending(q, ctx([q], LATE)).notes.join(' ')).not.toContain('relaxing');
  });
});
