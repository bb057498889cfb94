// Node classes must not change what the scheduler says: explainAgainstNodes (static plugins once per class) and the
// per-node reference give the same verdict, reasons and notEvaluated plugins for every node, and the same message.
import { describe, expect, it } from 'vitest';
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from '../../src/model/k8s.js';
import {
  buildClusterView,
  type Explanation,
  explainAgainstNodes,
  explainAgainstNodesPerNode,
} from '../../src/simulate/scheduler.js';

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

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const POOLS = ['general', 'gpu', 'batch'];
const TAINTS = [
  { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
  { key: 'spot', value: 'true', effect: 'PreferNoSchedule' },
  { key: 'batch', effect: 'NoExecute' },
];
const APPS = ['web', 'api', 'worker'];

function randomNode(r: Rng, i: number): Node {
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': `ip-10-0-${i}-1.ec2.internal`,
    'topology.kubernetes.io/zone': r.pick(ZONES),
  };
  if (r.chance(0.8)) labels.pool = r.pick(POOLS);
  if (r.chance(0.3)) labels['node.kubernetes.io/instance-type'] = r.pick(['m5.large', 'm5.xlarge']);
  if (r.chance(0.2)) labels.generation = String(r.int(4));
  const taints = TAINTS.filter(() => r.chance(0.25));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `ip-10-0-${i}-1.ec2.internal`, labels },
    spec: {
      providerID: `aws:///us-east-1a/i-0${i}`,
      ...(taints.length ? { taints } : {}),
      ...(r.chance(0.1) ? { unschedulable: true } : {}),
    },
    status: {
      allocatable: { cpu: r.pick(['1930m', '3920m', '7910m']), memory: r.pick(['7Gi', '15Gi', '30Gi']), pods: r.pick(['3', '29', '58']) },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  } as Node;
}

function randomPod(r: Rng, name: string, nodeName?: string): Pod {
  const app = r.pick(APPS);
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx',
          resources: { requests: { cpu: r.pick(['100m', '500m', '1500m', '3']), memory: r.pick(['128Mi', '1Gi', '8Gi']) } },
          ...(r.chance(0.15) ? { ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }] } : {}),
        },
      ],
      ...(nodeName ? { nodeName } : {}),
    },
    status: { phase: nodeName ? 'Running' : 'Pending' },
  } as Pod;
  return pod;
}

function pendingPod(r: Rng, nodes: Node[]): Pod {
  const pod = randomPod(r, 'pending-0');
  const spec = pod.spec;
  if (r.chance(0.4)) spec.nodeSelector = { pool: r.pick(POOLS), ...(r.chance(0.3) ? { 'topology.kubernetes.io/zone': r.pick(ZONES) } : {}) };
  if (r.chance(0.3)) {
    const op = r.pick(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const);
    const key = op === 'Gt' || op === 'Lt' ? 'generation' : r.pick(['pool', 'topology.kubernetes.io/zone', 'node.kubernetes.io/instance-type']);
    const values = op === 'Exists' || op === 'DoesNotExist' ? undefined : op === 'Gt' || op === 'Lt' ? [String(r.int(4))] : [r.pick([...POOLS, ...ZONES])];
    spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key, operator: op, ...(values ? { values } : {}) }] },
            ...(r.chance(0.2) ? [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [r.pick(nodes).metadata.name!] }] }] : []),
          ],
        },
      },
    };
  }
  if (r.chance(0.4)) spec.tolerations = TAINTS.filter(() => r.chance(0.5)).map((t) => ({ key: t.key, operator: 'Exists', effect: t.effect }));
  if (r.chance(0.1)) spec.tolerations = [...(spec.tolerations ?? []), { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }];
  if (r.chance(0.2)) {
    spec.topologySpreadConstraints = [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: pod.metadata.labels!.app } } },
    ];
  }
  if (r.chance(0.2)) {
    spec.affinity = {
      ...spec.affinity,
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: r.pick(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']), labelSelector: { matchLabels: { app: r.pick(APPS) } } },
        ],
      },
    };
  }
  if (r.chance(0.15)) spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }];
  if (r.chance(0.05)) spec.nodeName = undefined;
  return pod;
}

function zonalVolume(r: Rng): { pvcs: PersistentVolumeClaim[]; pvs: PersistentVolume[] } {
  const zone = r.pick(ZONES);
  return {
    pvcs: [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data', namespace: 'default' },
        spec: { volumeName: 'pv-data', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
        status: { phase: 'Bound' },
      } as PersistentVolumeClaim,
    ],
    pvs: [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv-data', labels: { 'topology.kubernetes.io/zone': zone } },
        spec: {
          capacity: { storage: '10Gi' },
          claimRef: { namespace: 'default', name: 'data' },
          nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] }] } },
        },
        status: { phase: 'Bound' },
      } as PersistentVolume,
    ],
  };
}

function comparable(e: Explanation) {
  return {
    message: e.message,
    fittingNodes: e.fittingNodes,
    nodes: e.nodes.map((n) => ({ name: n.name, fits: n.fits, reasons: n.reasons, notEvaluated: n.result.notEvaluated.map((s) => s.plugin) })),
  };
}

describe('explainAgainstNodes by node class', () => {
  it('agrees with the per-node path on 3,000 random small clusters', () => {
    const r = rng(20261124);
    let noneFit = 0;
    for (let round = 0; round < 3000; round++) {
      const nodes = Array.from({ length: 1 + r.int(12) }, (_, i) => randomNode(r, i));
      const running = Array.from({ length: r.int(25) }, (_, i) => randomPod(r, `running-${i}`, r.pick(nodes).metadata.name));
      const pod = pendingPod(r, nodes);
      const volumes = r.chance(0.8) ? zonalVolume(r) : undefined;
      const view = buildClusterView({ nodes, pods: running, ...(volumes ?? {}) });
      const options = { taintReason: r.chance(0.5) ? ('redacted' as const) : ('with-taint' as const) };
      const classed = comparable(explainAgainstNodes(pod, view, options));
      expect(classed, `round ${round}`).toEqual(comparable(explainAgainstNodesPerNode(pod, view, options)));
      if (classed.message) noneFit++;
    }
    // the generator reaches both outcomes often, so the comparison covers messages as well as fitting nodes
    expect(noneFit).toBeGreaterThan(300);
    expect(noneFit).toBeLessThan(2700);
  });

  it('evaluates a taint once per class, however many nodes carry it', () => {
    const r = rng(7);
    const nodes = Array.from({ length: 50 }, (_, i) => {
      const n = randomNode(r, i);
      n.spec = { ...n.spec, taints: [TAINTS[0]] };
      delete n.spec.unschedulable;
      return n;
    });
    const view = buildClusterView({ nodes, pods: [] });
    const e = explainAgainstNodes(randomPod(r, 'p'), view);
    expect(e.message).toBe('0/50 nodes are available: 50 node(s) had untolerated taint {dedicated: gpu}.');
    // one shared result object: the class was decided by TaintToleration once
    expect(new Set(e.nodes.map((n) => n.result)).size).toBe(1);
  });
});
