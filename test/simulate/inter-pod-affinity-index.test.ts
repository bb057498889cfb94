// InterPodAffinity's PreFilter state looks matching pods up in a per-view label index instead of scanning every pod:
// on random clusters it must give the scan's status (code, reasons, counts and the example pod in details) on every
// node, on a template node outside the view, and after the view's nodes are replaced in place as scale-down does.
import { describe, expect, it } from 'vitest';
import type { LabelSelector, Node, Pod, PodAffinityTerm } from '../../src/model/k8s.js';
import {
  interPodAffinity,
  interPodAffinityByScan,
  REASON_POD_ANTI_AFFINITY,
} from '../../src/simulate/predicates/inter-pod-affinity.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';

/** mulberry32: seeded, so a failing cluster reproduces from its round number. */
function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(a: readonly T[]): T => a[Math.floor(next() * a.length)],
  };
}
type Rng = ReturnType<typeof rng>;

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const NAMESPACES = ['shop', 'payments', 'default'];
const APPS = ['web', 'api', 'cache', 'db'];

function randomNode(r: Rng, i: number): Node {
  const name = `ip-10-0-${i}-17.ec2.internal`;
  const labels: Record<string, string> = { [HOST]: name };
  if (r.chance(0.85)) labels[ZONE] = r.pick(ZONES);
  if (r.chance(0.5)) labels['node.kubernetes.io/instance-type'] = r.pick(['m5.large', 'c5.xlarge']);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: { providerID: `aws:///us-east-1a/i-0${i}abc` },
    status: { allocatable: { cpu: '3920m', memory: '15Gi', pods: '58' }, conditions: [{ type: 'Ready', status: 'True' }] },
  } as Node;
}

function randomLabels(r: Rng): Record<string, string> | undefined {
  if (r.chance(0.1)) return undefined;
  const labels: Record<string, string> = { app: r.pick(APPS) };
  if (r.chance(0.6)) labels.tier = r.pick(['front', 'back']);
  if (r.chance(0.3)) labels['pod-template-hash'] = r.pick(['7d9f8c6b5', '5c4b9d7f8']);
  return labels;
}

function randomSelector(r: Rng): LabelSelector | undefined {
  const roll = r.int(10);
  if (roll === 0) return undefined; // no selector: matches nothing
  if (roll === 1) return {}; // matches everything
  const sel: LabelSelector = {};
  if (r.chance(0.6)) sel.matchLabels = { app: r.pick(APPS), ...(r.chance(0.3) ? { tier: r.pick(['front', 'back']) } : {}) };
  if (r.chance(0.5)) {
    const op = r.pick(['In', 'NotIn', 'Exists', 'DoesNotExist', 'In'] as const);
    const key = r.pick(['app', 'tier', 'pod-template-hash']);
    const values =
      op === 'Exists' || op === 'DoesNotExist'
        ? undefined
        : r.chance(0.05)
          ? [] // invalid: In/NotIn without values
          : [r.pick(APPS), ...(r.chance(0.5) ? [r.pick(['front', 'back', ...APPS])] : [])];
    sel.matchExpressions = [{ key, operator: op, ...(values ? { values } : {}) }];
  }
  return sel;
}

function randomTerm(r: Rng): PodAffinityTerm {
  const sel = randomSelector(r);
  return {
    ...(sel ? { labelSelector: sel } : {}),
    topologyKey: r.pick([ZONE, HOST, ZONE]),
    ...(r.chance(0.2) ? { namespaces: [r.pick(NAMESPACES), r.pick(NAMESPACES)] } : {}),
    ...(r.chance(0.15) ? { namespaceSelector: r.chance(0.5) ? {} : { matchLabels: { team: 'retail' } } } : {}),
    ...(r.chance(0.1) ? { matchLabelKeys: ['pod-template-hash'] } : {}),
    ...(r.chance(0.05) ? { mismatchLabelKeys: ['tier'] } : {}),
  };
}

function randomPod(r: Rng, name: string, nodeName: string | undefined, termChance: number): Pod {
  const labels = randomLabels(r);
  const affinity: NonNullable<Pod['spec']['affinity']> = {};
  if (r.chance(termChance))
    affinity.podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: Array.from({ length: 1 + r.int(2) }, () => randomTerm(r)) };
  if (r.chance(termChance))
    affinity.podAntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: Array.from({ length: 1 + r.int(2) }, () => randomTerm(r)) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: r.pick(NAMESPACES), ...(labels ? { labels } : {}) },
    spec: {
      containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
      ...(nodeName ? { nodeName } : {}),
      ...(Object.keys(affinity).length ? { affinity } : {}),
    },
    status: { phase: nodeName ? 'Running' : 'Pending' },
  } as Pod;
}

const NAMESPACE_LABELS = new Map<string, Record<string, string>>([
  ['shop', { 'kubernetes.io/metadata.name': 'shop', team: 'retail' }],
  ['payments', { 'kubernetes.io/metadata.name': 'payments' }],
  ['default', { 'kubernetes.io/metadata.name': 'default' }],
]);

describe('InterPodAffinity with indexed pods', () => {
  it('gives the scan’s status on every node of 2,000 random clusters, and on a template node outside the view', () => {
    const r = rng(20261124);
    let rejections = 0;
    for (let round = 0; round < 2000; round++) {
      const nodes = Array.from({ length: 1 + r.int(10) }, (_, i) => randomNode(r, i));
      const running = Array.from({ length: r.int(30) }, (_, i) =>
        randomPod(r, `running-${i}`, r.pick(nodes).metadata.name, 0.1),
      );
      const view = buildClusterView({ nodes, pods: running, ...(r.chance(0.6) ? { namespaceLabels: NAMESPACE_LABELS } : {}) });
      const incoming = randomPod(r, 'pending-0', undefined, 0.6);
      const template = nodeInfoFor(randomNode(r, 99), r.chance(0.5) ? [randomPod(r, 'ds-0', undefined, 0.3)] : []);
      for (const ni of [...view.nodeInfos, template]) {
        const indexed = interPodAffinity(incoming, ni, view);
        expect(indexed, `round ${round}, node ${ni.node.metadata.name}`).toEqual(interPodAffinityByScan(incoming, ni, view));
        if (indexed.code !== 'Success') rejections++;
      }
    }
    // the generator reaches rejections often enough for the comparison to cover details, not just successes
    expect(rejections).toBeGreaterThan(2000);
  });

  it('follows nodes replaced in the view in place, as scale-down’s simulation does', () => {
    const r = rng(7);
    for (let round = 0; round < 300; round++) {
      const nodes = Array.from({ length: 2 + r.int(8) }, (_, i) => randomNode(r, i));
      const running = Array.from({ length: r.int(20) }, (_, i) => randomPod(r, `running-${i}`, r.pick(nodes).metadata.name, 0.1));
      const view = buildClusterView({ nodes, pods: running });
      // the index is built for this view by a first pod with terms
      const first = randomPod(r, 'pending-0', undefined, 1);
      for (const ni of view.nodeInfos) interPodAffinity(first, ni, view);
      for (let k = 0; k < 3; k++) {
        const i = r.int(view.nodeInfos.length);
        const old = view.nodeInfos[i];
        const kept = old.pods.filter(() => r.chance(0.5));
        const moved = Array.from({ length: r.int(3) }, (_, j) => randomPod(r, `moved-${round}-${k}-${j}`, old.node.metadata.name, 0));
        view.nodeInfos[i] = nodeInfoFor(old.node, [...kept, ...moved]);
      }
      const incoming = randomPod(r, 'pending-1', undefined, 1);
      for (const ni of view.nodeInfos) {
        expect(interPodAffinity(incoming, ni, view), `round ${round}`).toEqual(interPodAffinityByScan(incoming, ni, view));
      }
    }
  });

  it('sees a pod that landed on a replaced node after the index was built', () => {
    const nodes = [randomNode(rng(1), 1), randomNode(rng(2), 2)];
    const view = buildClusterView({ nodes, pods: [] });
    const term: PodAffinityTerm = { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: HOST };
    const incoming = (name: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'shop', labels: { app: 'cache' } },
        spec: {
          containers: [{ name: 'redis', image: 'redis:7' }],
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } },
        },
        status: { phase: 'Pending' },
      }) as Pod;
    expect(interPodAffinity(incoming('cache-0'), view.nodeInfos[0], view).code).toBe('Success');
    // scale-down puts a new NodeInfo at the node's position; the view object stays the same
    const landed = { ...incoming('cache-1'), spec: { containers: [{ name: 'redis', image: 'redis:7' }], nodeName: nodes[0].metadata.name } } as Pod;
    view.nodeInfos[0] = nodeInfoFor(nodes[0], [landed]);
    const s = interPodAffinity(incoming('cache-2'), view.nodeInfos[0], view);
    expect(s.reasons).toEqual([REASON_POD_ANTI_AFFINITY]);
    expect(s.details?.[0]).toMatch(/^1 pod\(s\) in kubernetes.io\/hostname=ip-10-0-1-17.ec2.internal .* e\.g\. shop\/cache-1$/);
    expect(interPodAffinity(incoming('cache-2'), view.nodeInfos[1], view).code).toBe('Success');
  });
});
