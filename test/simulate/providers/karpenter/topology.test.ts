// Karpenter's topology in its scheduler (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/topology.go,
// topologygroup.go, topologydomaingroup.go @v1.6.2, v1.11.0, v1.14.1): topology spread, pod (anti-)affinity and the
// anti-affinity of running pods decide the verdict, with Karpenter's "unsatisfiable topology constraint" text; what
// casdoctor cannot reproduce (a namespaceSelector without Namespace objects) stays "not evaluated".
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DaemonSet, Node, Pod } from '../../../../src/model/k8s.js';
import { DEFAULT_KARPENTER_FEATURE_GATES, type EC2NodeClass, type KarpenterDeploymentSettings, type NodeClaim, type NodePool } from '../../../../src/model/karpenter.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../../../src/simulate/instance-types.js';
import { explainKarpenterPending, relaxationAttempts, type KarpenterPlacementContext } from '../../../../src/simulate/providers/karpenter/placement.js';
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
// past general-x7k2p's registration timeout: no capacity in flight, every pod needs a new NodeClaim
const LATE = new Date('2026-11-24T10:20:00Z');
const NODE_A = 'ip-10-42-17-201.eu-west-1.compute.internal'; // general, eu-west-1a
const NODE_B = 'ip-10-42-33-58.eu-west-1.compute.internal'; // general, eu-west-1b

function settings(version: string): KarpenterDeploymentSettings {
  return { env: {}, vmMemoryOverheadPercent: 0.075, reservedENIs: 0, featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES }, version };
}

function ctx(pods: Pod[], over: Partial<KarpenterPlacementContext> = {}): KarpenterPlacementContext {
  return {
    nodePools: fixture<NodePool>('nodepools'),
    nodeClasses: fixture<EC2NodeClass>('ec2nodeclasses'),
    nodeClaims: fixture<NodeClaim>('nodeclaims'),
    nodes: fixture<Node>('nodes'),
    daemonSets: fixture<DaemonSet>('daemonsets'),
    pods,
    instanceTypes: table,
    now: LATE,
    ...over,
  };
}

const pendingPod = (name: string, created = '2026-11-24T09:58:00Z') =>
  pod(name, 'shop').ownedBy('ReplicaSet', name.replace(/-[a-z0-9]+$/, '')).withRequests({ cpu: '250m', memory: '256Mi' }).createdAt(created).unschedulable();
const running = (name: string, node: string) => pod(name, 'shop').withLabels({ app: 'web' }).withRequests({ cpu: '100m', memory: '128Mi' }).onNode(node).build();
const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const generalOf = (x: ReturnType<typeof explainKarpenterPending>) => x.pools.find((p) => p.nodePool === 'general');

describe('topology spread (topologygroup.go nextDomainTopologySpread)', () => {
  it('zones with equal counts: a new node in one of them, picked at random, and casdoctor says so', () => {
    const p = pendingPod('web-7c9-ddddd').withLabels({ app: 'web' }).withTopologySpread({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } }).build();
    const x = explainKarpenterPending(p, ctx([p]));
    expect(x).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    expect(x.notEvaluated).toBeUndefined();
    expect(generalOf(x)?.notes.join(' ')).toContain('Karpenter picks one of eu-west-1a, eu-west-1b (topology.kubernetes.io/zone) at random');
  });

  it('a pool limited to a zone already over maxSkew gets Karpenter\'s "unsatisfiable topology constraint"', () => {
    const pods = [running('web-1', NODE_A), running('web-2', NODE_A)];
    const spread = (name: string) => pendingPod(name).withLabels({ app: 'web' }).withTopologySpread({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } }).build();
    // general allows only eu-west-1a; the other pools still bring eu-west-1b into the domains (buildDomainGroups)
    const pools = fixture<NodePool>('nodepools').map((np) =>
      np.metadata.name === 'general' ? { ...np, spec: { ...np.spec, template: { ...np.spec.template, spec: { ...np.spec.template.spec, requirements: [...(np.spec.template.spec.requirements ?? []), { key: ZONE, operator: 'In', values: ['eu-west-1a'] }] } } } } : np,
    );
    const p = spread('web-7c9-ddddd');
    const x = explainKarpenterPending(p, ctx([...pods, p], { nodePools: pools }));
    expect(x.outcome).toBe('no-node');
    expect(generalOf(x)).toMatchObject({
      verdict: 'rejected',
      stage: 'topology',
      error: 'unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = eu-west-1a: 2, eu-west-1b: 0, podDomains = topology.kubernetes.io/zone Exists, nodeDomains = topology.kubernetes.io/zone In [eu-west-1a]',
    });
    expect(x.event).toContain('unsatisfiable topology constraint for topology spread');
    // a pod that itself selects eu-west-1a only weighs that zone (domainMinCount over its own domains): it fits
    const pinned = pendingPod('web-7c9-fffff').withLabels({ app: 'web' }).withNodeSelector({ [ZONE]: 'eu-west-1a' }).withTopologySpread({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } }).build();
    expect(explainKarpenterPending(pinned, ctx([...pods, pinned], { nodePools: pools })).outcome).toBe('new-node');
    // with every pool in both zones the only zone within maxSkew is eu-west-1b: no random pick
    const free = spread('web-7c9-eeeee');
    const y = explainKarpenterPending(free, ctx([...pods, free]));
    expect(y).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    expect(generalOf(y)?.notes.join(' ')).not.toContain('at random');
  });

  it('minDomains above the domains the pools offer makes the global minimum 0 (domainMinCount)', () => {
    const pods = [running('web-1', NODE_A), running('web-2', NODE_B)];
    const spread = (minDomains?: number) =>
      pendingPod('web-7c9-ddddd').withLabels({ app: 'web' }).withTopologySpread({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } }, ...(minDomains ? { minDomains } : {}) }).build();
    const without = spread();
    expect(explainKarpenterPending(without, ctx([...pods, without])).outcome).toBe('new-node');
    const p = spread(3);
    const x = explainKarpenterPending(p, ctx([...pods, p]));
    expect(x.outcome).toBe('no-node');
    expect(generalOf(x)?.error).toMatch(/^unsatisfiable topology constraint for topology spread, key=topology\.kubernetes\.io\/zone \(counts = eu-west-1a: 1, eu-west-1b: 1,/);
  });

  it('a hostname spread gives each pod its own NodeClaim, where without it they share one', () => {
    const make = (i: number, tsc: boolean) => {
      const b = pendingPod(`web-7c9-h${i}aaa`, `2026-11-24T09:58:0${i}Z`).withLabels({ app: 'web' });
      return (tsc ? b.withTopologySpread({ topologyKey: HOST, labelSelector: { matchLabels: { app: 'web' } } }) : b).build();
    };
    const packed = [0, 1, 2].map((i) => make(i, false));
    const c1 = ctx(packed);
    expect(explainKarpenterPending(packed[1], c1).notes.join(' ')).toContain('Karpenter packs this pod into the NodeClaim of NodePool general');
    const spread = [0, 1, 2].map((i) => make(i, true));
    const c2 = ctx(spread);
    for (const p of spread) {
      const x = explainKarpenterPending(p, c2);
      expect(x).toMatchObject({ outcome: 'new-node', chosen: 'general' });
      expect(x.notes.join(' ')).not.toContain('packs this pod');
    }
  });

  it('v1.11 counts only the domains of NodePools the pod can use; v1.6 and v1.12 (the revert) count every pool\'s', () => {
    const pools = fixture<NodePool>('nodepools');
    const edge: NodePool = JSON.parse(JSON.stringify(pools.find((np) => np.metadata.name === 'general')));
    edge.metadata.name = 'edge';
    edge.spec.weight = 100;
    edge.spec.limits = {};
    edge.spec.template.metadata = { labels: { 'shop.example.com/tier': 'edge' } };
    edge.spec.template.spec.requirements = [...(edge.spec.template.spec.requirements ?? []), { key: ZONE, operator: 'In', values: ['eu-west-1a'] }];
    const nodes = fixture<Node>('nodes').map((n) => (n.metadata.name === NODE_A ? { ...n, metadata: { ...n.metadata, labels: { ...n.metadata.labels, 'shop.example.com/tier': 'edge' } } } : n));
    const p = pendingPod('web-7c9-ddddd').withLabels({ app: 'web' }).withNodeSelector({ 'shop.example.com/tier': 'edge' }).withTopologySpread({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } }).build();
    const at = (version: string) => explainKarpenterPending(p, ctx([running('web-1', NODE_A), p], { nodePools: [...pools, edge], nodes, settings: settings(version) }));
    const v16 = at('1.6.2');
    expect(v16.outcome).toBe('no-node');
    expect(v16.pools.find((pl) => pl.nodePool === 'edge')?.error).toBe(
      'unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = eu-west-1a: 1, eu-west-1b: 0, podDomains = topology.kubernetes.io/zone Exists, nodeDomains = topology.kubernetes.io/zone In [eu-west-1a]',
    );
    expect(at('1.11.0')).toMatchObject({ outcome: 'new-node', chosen: 'edge' });
    expect(at('1.12.0').outcome).toBe('no-node');
  });
});

describe('volume zones and topology (volumetopology.go)', () => {
  it('before v1.9 a volume\'s zone is the pod\'s own for spread counting; from v1.9 it only narrows the NodeClaim', () => {
    const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-web-0', namespace: 'shop', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }, spec: { volumeName: 'pvc-5b1e7c2a-93d4-4f60-8a2b-1c9e7d3f4a05', storageClassName: 'gp3' }, status: { phase: 'Bound' } };
    const pv = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-5b1e7c2a-93d4-4f60-8a2b-1c9e7d3f4a05' },
      spec: { storageClassName: 'gp3', nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', operator: 'In', values: ['eu-west-1a'] }, { key: ZONE, operator: 'In', values: ['eu-west-1a'] }] }] } } },
    };
    const p = pendingPod('web-7c9-ddddd').withLabels({ app: 'web' }).withTopologySpread({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } }).build();
    p.spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } }];
    const at = (version: string) => explainKarpenterPending(p, ctx([running('web-1', NODE_A), p], { pvcs: [pvc] as never, pvs: [pv] as never, settings: settings(version) }));
    // v1.6: podDomains = eu-west-1a (injected), so the minimum is eu-west-1a's own count and the pod fits there
    expect(at('1.6.2')).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    // v1.9+: podDomains = Exists, the minimum is eu-west-1b's 0, and eu-west-1a (the volume's) is over maxSkew
    const v19 = at('1.9.0');
    expect(v19.outcome).toBe('no-node');
    expect(generalOf(v19)?.error).toMatch(/^unsatisfiable topology constraint for topology spread, key=topology\.kubernetes\.io\/zone \(counts = eu-west-1a: 1, eu-west-1b: 0, podDomains = topology\.kubernetes\.io\/zone Exists, nodeDomains = topology\.kubernetes\.io\/zone In \[eu-west-1a\]$/);
  });
});

describe('pod affinity and anti-affinity (nextDomainAffinity, nextDomainAntiAffinity, inverse groups)', () => {
  it('a running pod\'s required anti-affinity keeps this pod out of its zone (an inverse group)', () => {
    const holder = pod('cache-0', 'shop').withLabels({ app: 'cache' }).onNode(NODE_A).withPodAntiAffinity({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'batchjob' } } }).build();
    const p = pendingPod('batchjob-1-eeeee').withLabels({ app: 'batchjob' }).build();
    expect(explainKarpenterPending(p, ctx([holder, p]))).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    const pinned = pendingPod('batchjob-1-fffff').withLabels({ app: 'batchjob' }).withNodeSelector({ [ZONE]: 'eu-west-1a' }).build();
    const x = explainKarpenterPending(pinned, ctx([holder, pinned]));
    expect(x.outcome).toBe('no-node');
    expect(generalOf(x)?.error).toBe(
      'unsatisfiable topology constraint for pod anti-affinity, key=topology.kubernetes.io/zone (counts = eu-west-1a: 1, eu-west-1b: 0, podDomains = topology.kubernetes.io/zone In [eu-west-1a], nodeDomains = topology.kubernetes.io/zone In [eu-west-1a]',
    );
    // another namespace is not selected by a term without namespaces
    const other = pendingPod('batchjob-2-fffff').withLabels({ app: 'batchjob' }).withNodeSelector({ [ZONE]: 'eu-west-1a' }).build();
    other.metadata.namespace = 'jobs';
    expect(explainKarpenterPending(other, ctx([holder, other])).outcome).toBe('new-node');
  });

  it('required pod affinity to a pod on a full node: a new NodeClaim in that pod\'s zone, never on its hostname', () => {
    const web = running('web-1', NODE_B);
    const zone = pendingPod('api-1-aaaaa').withPodAffinity({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } }).withNodeSelector({ [ZONE]: 'eu-west-1a' }).build();
    expect(generalOf(explainKarpenterPending(zone, ctx([web, zone])))?.error).toMatch(/^unsatisfiable topology constraint for pod affinity, key=topology\.kubernetes\.io\/zone \(counts = eu-west-1a: 0, eu-west-1b: 1,/);
    const host = pendingPod('api-1-bbbbb').withPodAffinity({ topologyKey: HOST, labelSelector: { matchLabels: { app: 'web' } } }).build();
    const x = explainKarpenterPending(host, ctx([web, host]));
    expect(x.outcome).toBe('no-node');
    expect(generalOf(x)?.error).toBe(
      'unsatisfiable topology constraint for pod affinity, key=kubernetes.io/hostname (counts = ip-10-42-17-201.eu-west-1.compute.internal: 0, ip-10-42-33-58.eu-west-1.compute.internal: 1, ip-10-42-9-77.eu-west-1.compute.internal: 0, podDomains = kubernetes.io/hostname Exists, nodeDomains = kubernetes.io/hostname In [hostname-placeholder-0001]',
    );
  });

  it('self anti-affinity on hostname: one NodeClaim per pod in the pass', () => {
    const pods = [0, 1].map((i) => pendingPod(`db-0-${i}zzzz`, `2026-11-24T09:58:0${i}Z`).withLabels({ app: 'db' }).withPodAntiAffinity({ topologyKey: HOST, labelSelector: { matchLabels: { app: 'db' } } }).build());
    const c = ctx(pods);
    for (const p of pods) expect(explainKarpenterPending(p, c).notes.join(' ')).not.toContain('packs this pod');
  });

  it('a term with a namespaceSelector is not evaluated: the snapshot has no Namespace objects', () => {
    const p = pendingPod('api-1-ccccc').withPodAntiAffinity({ topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchLabels: { team: 'shop' } } }).build();
    const x = explainKarpenterPending(p, ctx([p]));
    expect(x.outcome).toBe('not-evaluated');
    expect(x.notEvaluated).toContain('namespaceSelector');
    expect(generalOf(x)).toMatchObject({ verdict: 'not-evaluated', stage: 'topology', chosen: false });
  });
});

describe('preferences relaxed in Karpenter\'s order (preferences.go Relax)', () => {
  it('required terms, then preferred pod affinity, pod anti-affinity, node affinity, ScheduleAnyway spreads, PreferNoSchedule', () => {
    const p = pendingPod('api-1-ddddd').build();
    p.spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['eu-west-1a'] }] }, { matchExpressions: [{ key: ZONE, operator: 'In', values: ['eu-west-1b'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] } }],
      },
      podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: { topologyKey: ZONE, labelSelector: { matchLabels: { app: 'web' } } } }] },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: { topologyKey: HOST, labelSelector: { matchLabels: { app: 'api' } } } }] },
    };
    p.spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'api' } } }];
    const steps = relaxationAttempts(p, false, true).map((a) => a.relaxed);
    expect(steps).toEqual([
      '',
      'required node-affinity term 2 of 2',
      '1 preferred pod-affinity term(s) dropped',
      '1 preferred pod-anti-affinity term(s) dropped',
      '1 preferred node-affinity term(s) dropped',
      '1 ScheduleAnyway topology spread constraint(s) dropped',
      'PreferNoSchedule taints tolerated',
    ]);
    // PREFERENCE_POLICY=Ignore: preferences never bind, nothing of them to relax
    expect(relaxationAttempts(p, true, false).map((a) => a.relaxed)).toEqual(['', 'required node-affinity term 2 of 2']);
  });

  it('a preferred anti-affinity is required until relaxed: it decides the NodePool before any relaxation', () => {
    // the heavier gpu pool is tainted; batch (arm64) and general both fit a plain pod. A preferred anti-affinity against
    // a pod in eu-west-1a keeps the pod out of eu-west-1a on the first attempt, and a pod pinned there must relax it
    const holder = pod('cache-0', 'shop').withLabels({ app: 'cache' }).onNode(NODE_A).build();
    const p = pendingPod('api-1-eeeee').withNodeSelector({ [ZONE]: 'eu-west-1a' }).build();
    p.spec.affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { topologyKey: ZONE, labelSelector: { matchLabels: { app: 'cache' } } } }] } };
    const x = explainKarpenterPending(p, ctx([holder, p]));
    expect(x).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    expect(x.notes).toContain('Karpenter places the pod only after relaxing: 1 preferred pod-anti-affinity term(s) dropped');
  });
});
