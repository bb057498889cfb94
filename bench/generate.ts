// Seeded generator of realistic offline dumps for `npm run bench`: an EKS cluster "demo" with self-managed ASGs and
// Cluster Autoscaler, at a chosen size. Objects are cloned from examples/demo/*.json (the exact shapes kubectl and
// aws-cli print) and renamed consistently: node names, providerIDs and ASG instance ids agree, DaemonSet pods run on
// every node, pods fit the nodes they are bound to, PVs pin pods to their node's zone. Deterministic: a seeded PRNG,
// never Math.random or the clock.
// Usage: node bench/out/build/bench/generate.js <small|medium|large> [out-dir]
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// biome-ignore lint/suspicious/noExplicitAny: JSON objects in kubectl/aws shapes, mutated by path
type Obj = any;

export interface BenchSize {
  /** small / medium / large, or a custom shape's name (see parseSize) */
  name: string;
  nodes: number;
  pods: number;
  asgs: number;
  /**
   * Where the Pending pods come from: ten controllers (default), one ReplicaSet each ("distinct", a multi-team
   * cluster), or 3,000 replicas of one workload ("replicas").
   */
  pending?: 'stories' | 'distinct' | 'replicas';
}

export const SIZES: readonly BenchSize[] = [
  { name: 'small', nodes: 500, pods: 10_000, asgs: 30 },
  { name: 'medium', nodes: 2_000, pods: 40_000, asgs: 100 },
  { name: 'large', nodes: 5_000, pods: 100_000, asgs: 300 },
];

/** Bumped whenever the generator's output changes, so cached dumps are rebuilt. */
export const GENERATOR_VERSION = 2;
/** The dump's clock: pass it as --now. */
export const DUMP_TIME = '2026-11-21T10:00:00Z';

/** The repository root: the first directory up from this file with a package.json (works from bench/out/build too). */
export const ROOT = (() => {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json')) || d.endsWith(join('bench', 'out', 'build'))) d = dirname(d);
  return d;
})();
const DEMO = join(ROOT, 'examples', 'demo');

// ---------------------------------------------------------------------------------------------------------------
// deterministic randomness

/** mulberry32: small, fast, good enough for shuffling names. */
class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(n: number): string {
    let s = '';
    while (s.length < n) s += (this.int(0x10000) | 0x10000).toString(16).slice(1);
    return s.slice(0, n);
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[this.int(4)]}${h.slice(17, 20)}-${h.slice(20)}`;
  }
  /** k8s.io/apimachinery rand.String alphabet (generateName suffixes, pod-template-hash). */
  safe(n: number): string {
    const A = 'bcdfghjklmnpqrstvwxz2456789';
    let s = '';
    for (let i = 0; i < n; i++) s += A[this.int(A.length)];
    return s;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// time

const DUMP_MS = Date.parse(DUMP_TIME);
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const isoMicro = (ms: number, rng: Rng) =>
  `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}.${String(rng.int(1_000_000)).padStart(6, '0')}Z`;
const awsTime = (ms: number) => `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}+00:00`;
const HOUR = 3_600_000;

// ---------------------------------------------------------------------------------------------------------------
// templates from the demo dump

function demoList(file: string): Obj[] {
  return JSON.parse(readFileSync(join(DEMO, file), 'utf8')).items;
}
function demoDoc(file: string): Obj {
  return JSON.parse(readFileSync(join(DEMO, file), 'utf8'));
}

/** A JSON template: every call returns a fresh deep copy. */
class Template {
  private readonly json: string;
  constructor(obj: Obj) {
    this.json = JSON.stringify(obj);
  }
  fresh(): Obj {
    return JSON.parse(this.json);
  }
}

function findOne(items: Obj[], ns: string | undefined, namePrefix: string): Obj {
  const o = items.find(
    (x) => x.metadata.namespace === ns && (x.metadata.name === namePrefix || x.metadata.name.startsWith(`${namePrefix}-`)),
  );
  if (!o) throw new Error(`examples/demo has no ${ns ?? ''}/${namePrefix}`);
  return o;
}

// ---------------------------------------------------------------------------------------------------------------
// cluster layout

const CLUSTER = 'demo';
const REGION = 'us-east-1';
const ACCOUNT = '111122223333';
const ECR = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com`;
const ZONES: Record<string, { subnet: string; zoneId: string; second: number }> = {
  'us-east-1a': { subnet: 'subnet-0a1f3c5e7b9d2a401', zoneId: 'use1-az4', second: 0 },
  'us-east-1b': { subnet: 'subnet-0b2e4d6f8a0c3b502', zoneId: 'use1-az6', second: 64 },
  'us-east-1c': { subnet: 'subnet-0c3d5e7f9b1d4c603', zoneId: 'use1-az1', second: 128 },
};

interface TypeInfo {
  cpuAllocM: number;
  memKi: number;
  maxPods: number;
  cpu: number;
  gpu?: number;
}
// capacity as the kubelet reports it on the EKS AL2023 AMI; allocatable = capacity - kube-reserved - 100Mi eviction
const TYPES: Record<string, TypeInfo> = {
  'm5.xlarge': { cpu: 4, cpuAllocM: 3920, memKi: 16163312, maxPods: 58 },
  'm5.large': { cpu: 2, cpuAllocM: 1930, memKi: 7908276, maxPods: 29 },
  'm5a.large': { cpu: 2, cpuAllocM: 1930, memKi: 7902744, maxPods: 29 },
  'm6i.large': { cpu: 2, cpuAllocM: 1930, memKi: 7910064, maxPods: 29 },
  'r5.2xlarge': { cpu: 8, cpuAllocM: 7910, memKi: 65023876, maxPods: 58 },
  'c5.2xlarge': { cpu: 8, cpuAllocM: 7910, memKi: 15918044, maxPods: 58 },
  'g5.xlarge': { cpu: 4, cpuAllocM: 3920, memKi: 16107756, maxPods: 58, gpu: 1 },
};
const allocMemKi = (t: TypeInfo) => t.memKi - (255 + 11 * t.maxPods) * 1024 - 100 * 1024;
const DS_CPU_M = 205; // aws-node 25m + kube-proxy 100m + ebs-csi-node 30m + node-exporter 50m
const DS_MEM_MI = 184;

type Kind = 'general' | 'compute' | 'spot' | 'memory' | 'stateful' | 'batch' | 'gpu';
interface PoolDef {
  kind: Kind;
  /** One ASG per zone; spot pools are one multi-AZ ASG. */
  zones: string[];
  multiAz?: boolean;
}
// One cycle of 20 ASGs; clusters repeat it (a partial last cycle takes its first pools).
const CYCLE: PoolDef[] = [
  { kind: 'general', zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'] },
  { kind: 'general', zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'] },
  { kind: 'compute', zones: ['us-east-1a', 'us-east-1b'] },
  { kind: 'compute', zones: ['us-east-1b', 'us-east-1c'] },
  { kind: 'spot', zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'], multiAz: true },
  { kind: 'spot', zones: ['us-east-1a', 'us-east-1b'], multiAz: true },
  { kind: 'memory', zones: ['us-east-1b'] },
  { kind: 'memory', zones: ['us-east-1c'] },
  { kind: 'stateful', zones: ['us-east-1a', 'us-east-1b'] },
  { kind: 'stateful', zones: ['us-east-1a', 'us-east-1b'] },
  { kind: 'batch', zones: ['us-east-1a'] },
  { kind: 'gpu', zones: ['us-east-1a'] },
];
const KIND_TYPE: Record<Kind, string> = {
  general: 'm5.xlarge',
  compute: 'c5.2xlarge',
  spot: 'm5.large',
  memory: 'r5.2xlarge',
  stateful: 'm5.large',
  batch: 'c5.2xlarge',
  gpu: 'g5.xlarge',
};
const SPOT_TYPES = ['m5.large', 'm5a.large', 'm6i.large'];
const KIND_WEIGHT: Record<Kind, number> = {
  general: 1,
  compute: 0.5,
  spot: 1.5,
  memory: 0.4,
  stateful: 0.6,
  batch: 0,
  gpu: 0,
};

interface Group {
  name: string;
  pool: string;
  kind: Kind;
  zones: string[];
  index: number;
  discovered: boolean;
  atMax: boolean;
  taint?: { key: string; value: string; effect: string };
  labelTag: boolean;
  ltId: string;
  ltVersion: string;
  nodes: NodeRec[];
  min: number;
  max: number;
  created: number;
  arn: string;
}

interface NodeRec {
  name: string;
  ip: string;
  zone: string;
  type: string;
  instanceId: string;
  group: Group;
  created: number;
  freeCpuM: number;
  freeMemMi: number;
  freePods: number;
  lowUtil: boolean;
  obj?: Obj;
}

// ---------------------------------------------------------------------------------------------------------------
// the dump

export interface Dump {
  size: BenchSize;
  kube: Record<string, Obj[]>;
  caStatus: Obj;
  asgs: Obj[];
  launchTemplateVersions: Obj[];
  scalingActivities: Obj[];
  instanceTypes: Obj[];
  summary: Record<string, number>;
}

const KUBE_FILES: Record<string, string> = {
  pods: 'pods.json',
  nodes: 'nodes.json',
  events: 'events.json',
  daemonSets: 'daemonsets.json',
  deployments: 'deployments.json',
  replicaSets: 'replicasets.json',
  statefulSets: 'statefulsets.json',
  jobs: 'jobs.json',
  pdbs: 'pdbs.json',
  pvcs: 'pvcs.json',
  pvs: 'pvs.json',
  storageClasses: 'storageclasses.json',
  priorityClasses: 'priorityclasses.json',
};

export function buildDump(size: BenchSize): Dump {
  const rng = new Rng(0xca5d0c ^ size.nodes);
  const demoPods = demoList('pods.json');
  const demoNodes = demoList('nodes.json');
  const demoEvents = demoList('events.json');
  const demoDeploys = demoList('deployments.json');
  const demoRs = demoList('replicasets.json');

  const out: Record<string, Obj[]> = Object.fromEntries(Object.keys(KUBE_FILES).map((k) => [k, []]));
  let rv = 6_000_000;
  const nextRv = () => String(rv++ + rng.int(7));

  // ---- node groups -------------------------------------------------------------------------------------------
  const groups: Group[] = [];
  const poolCounter: Partial<Record<Kind, number>> = {};
  for (let cycle = 0; groups.length < size.asgs; cycle++) {
    for (const def of CYCLE) {
      if (groups.length >= size.asgs) break;
      const n = (poolCounter[def.kind] = (poolCounter[def.kind] ?? 0) + 1);
      const pool = `${def.kind}-${String(n).padStart(2, '0')}`;
      const perZone = def.multiAz ? [def.zones] : def.zones.map((z) => [z]);
      for (const zones of perZone) {
        if (groups.length >= size.asgs) break;
        const index = groups.length;
        const name = def.multiAz ? `${CLUSTER}-${pool}` : `${CLUSTER}-${pool}-${zones[0].slice(-1)}`;
        const created = DUMP_MS - 4 * 24 * HOUR + rng.int(48) * HOUR;
        groups.push({
          name,
          pool,
          kind: def.kind,
          zones,
          index,
          // a few ASGs lack the cluster's discovery tag (like demo-monitoring): CA does not see them
          discovered: index % 17 !== 16,
          atMax: def.kind === 'spot' ? n % 2 === 1 : index % 11 === 5,
          taint:
            def.kind === 'memory'
              ? { key: 'dedicated', value: pool, effect: 'NoSchedule' }
              : def.kind === 'gpu'
                ? { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }
                : undefined,
          // batch groups were labelled by kubelet --node-labels only: CA's scratch template lacks node-pool
          labelTag: def.kind !== 'batch',
          ltId: `lt-0${rng.hex(16)}`,
          ltVersion: rng.pick(['$Latest', '$Default', '2']),
          nodes: [],
          min: 0,
          max: 0,
          created,
          arn: `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:${rng.uuid()}:autoScalingGroupName/${name}`,
        });
      }
    }
  }

  // nodes per group: proportional to the kind's weight (largest remainder)
  const weights = groups.map((g) => KIND_WEIGHT[g.kind]);
  const total = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (w / total) * size.nodes);
  const counts = exact.map(Math.floor);
  let left = size.nodes - counts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) counts[order[k][1]]++;

  const usedIps = new Set<string>();
  const zoneSeq: Record<string, number> = {};
  const allNodes: NodeRec[] = [];
  for (const g of groups) {
    const n = counts[g.index];
    g.min = n > 0 ? 1 : 0;
    g.max = g.atMax && n > 0 ? n : Math.max(10, Math.ceil(n * 1.5) + 2);
    for (let i = 0; i < n; i++) {
      const zone = g.zones[i % g.zones.length];
      let ip: string;
      do {
        const seq = (zoneSeq[zone] = (zoneSeq[zone] ?? 0) + 1 + rng.int(3));
        ip = `10.0.${ZONES[zone].second + Math.floor(seq / 250)}.${(seq % 250) + 2}`;
        if (ZONES[zone].second + Math.floor(seq / 250) > 255) throw new Error('out of node IPs');
      } while (usedIps.has(ip));
      usedIps.add(ip);
      const type = g.kind === 'spot' ? SPOT_TYPES[(i * 7 + g.index) % 3] : KIND_TYPE[g.kind];
      const t = TYPES[type];
      const rec: NodeRec = {
        name: `ip-${ip.replaceAll('.', '-')}.ec2.internal`,
        ip,
        zone,
        type,
        instanceId: `i-0${rng.hex(16)}`,
        group: g,
        created: Math.min(DUMP_MS - HOUR, g.created + rng.int(72) * HOUR),
        freeCpuM: t.cpuAllocM - DS_CPU_M,
        freeMemMi: Math.floor(allocMemKi(t) / 1024) - DS_MEM_MI,
        freePods: t.maxPods - 4,
        // underused nodes are scale-down candidates; none in the pools the Pending stories target
        lowUtil: (g.kind === 'general' || g.kind === 'compute') && !g.pool.endsWith('-01') && rng.chance(0.05),
      };
      g.nodes.push(rec);
      allNodes.push(rec);
    }
  }
  const nodesOf = (pool: string) => allNodes.filter((n) => n.group.pool === pool);

  // ---- Node objects ------------------------------------------------------------------------------------------
  const nodeTpl = new Template(demoNodes.find((n: Obj) => n.metadata.name === 'ip-10-0-11-142.ec2.internal'));
  for (const n of allNodes) {
    const o = nodeTpl.fresh();
    const t = TYPES[n.type];
    const m = o.metadata;
    m.annotations['alpha.kubernetes.io/provided-node-ip'] = n.ip;
    m.annotations['csi.volume.kubernetes.io/nodeid'] = JSON.stringify({ 'ebs.csi.aws.com': n.instanceId });
    m.creationTimestamp = iso(n.created);
    const L = m.labels;
    L['beta.kubernetes.io/instance-type'] = n.type;
    L['node.kubernetes.io/instance-type'] = n.type;
    for (const k of [
      'failure-domain.beta.kubernetes.io/zone',
      'topology.ebs.csi.aws.com/zone',
      'topology.kubernetes.io/zone',
    ])
      L[k] = n.zone;
    L['topology.k8s.aws/zone-id'] = ZONES[n.zone].zoneId;
    L['kubernetes.io/hostname'] = n.name;
    L['node-pool'] = n.group.pool;
    if (n.group.kind === 'spot') L['node.kubernetes.io/lifecycle'] = 'spot';
    m.name = n.name;
    m.resourceVersion = nextRv();
    m.uid = rng.uuid();
    o.spec = { providerID: `aws:///${n.zone}/${n.instanceId}` };
    if (n.group.taint) o.spec.taints = [n.group.taint];
    o.status.addresses = [
      { address: n.ip, type: 'InternalIP' },
      { address: n.name, type: 'InternalDNS' },
      { address: n.name, type: 'Hostname' },
    ];
    for (const key of ['allocatable', 'capacity'] as const) {
      o.status[key].cpu = key === 'capacity' ? String(t.cpu) : `${t.cpuAllocM}m`;
      o.status[key].memory = `${key === 'capacity' ? t.memKi : allocMemKi(t)}Ki`;
      o.status[key].pods = String(t.maxPods);
    }
    for (const c of o.status.conditions) {
      c.lastTransitionTime = iso(n.created + (c.type === 'Ready' ? 38_000 : 0));
      c.lastHeartbeatTime = iso(DUMP_MS - rng.range(5, 55) * 1000);
    }
    o.status.nodeInfo.bootID = rng.uuid();
    o.status.nodeInfo.machineID = rng.hex(32);
    o.status.nodeInfo.systemUUID = `ec2${rng.hex(5)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`;
    n.obj = o;
    out.nodes.push(o);
  }

  // ---- DaemonSets and their pods ------------------------------------------------------------------------------
  const demoDs = demoList('daemonsets.json');
  out.daemonSets.push(...demoDs);
  const dsPodTpls = ['aws-node', 'kube-proxy', 'ebs-csi-node', 'node-exporter'].map((ds) => {
    const p = demoPods.find(
      (x: Obj) => x.metadata.ownerReferences?.[0]?.name === ds && x.spec.nodeName === 'ip-10-0-11-142.ec2.internal',
    );
    return { ds, tpl: new Template(p), hostNetwork: !!p.spec.hostNetwork };
  });
  for (const n of allNodes) {
    for (const { ds, tpl, hostNetwork } of dsPodTpls) {
      const p = tpl.fresh();
      const suffix = rng.safe(5);
      p.metadata.name = `${ds}-${suffix}`;
      p.metadata.uid = rng.uuid();
      p.metadata.resourceVersion = nextRv();
      p.metadata.creationTimestamp = iso(n.created + 5000);
      p.spec.nodeName = n.name;
      p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values =
        [n.name];
      setRunningStatus(p, n, hostNetwork ? n.ip : podIp(rng, n.zone), n.created + 9000, rng);
      out.pods.push(p);
    }
  }
  for (const ds of out.daemonSets) {
    const gpu = ds.metadata.name === 'nvidia-device-plugin-daemonset';
    const k = gpu ? 0 : allNodes.length;
    Object.assign(ds.status, {
      currentNumberScheduled: k,
      desiredNumberScheduled: k,
      numberAvailable: k || undefined,
      numberReady: k,
      updatedNumberScheduled: k || undefined,
    });
  }

  // ---- kube-system and the Cluster Autoscaler (from the demo, placed on general nodes) --------------------------
  const general = allNodes.filter((n) => n.group.kind === 'general' && n.group.discovered);
  const systemDeploys = ['cluster-autoscaler', 'coredns', 'ebs-csi-controller', 'metrics-server'];
  for (const name of systemDeploys) {
    const d = findOne(demoDeploys, 'kube-system', name);
    const rs = findOne(demoRs, 'kube-system', name);
    const replicas = name === 'coredns' ? 2 + Math.floor(allNodes.length / 100) : d.spec.replicas;
    d.spec.replicas = replicas;
    rs.spec.replicas = replicas;
    Object.assign(d.status, { replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: replicas });
    delete d.status.unavailableReplicas;
    Object.assign(rs.status, { replicas, readyReplicas: replicas, availableReplicas: replicas, fullyLabeledReplicas: replicas });
    out.deployments.push(d);
    out.replicaSets.push(rs);
    const tpl = new Template(demoPods.find((p: Obj) => p.metadata.ownerReferences?.[0]?.name === rs.metadata.name));
    for (let i = 0; i < replicas; i++) {
      const n = general[(i * 37 + name.length) % general.length];
      const p = tpl.fresh();
      p.metadata.name = `${rs.metadata.name}-${rng.safe(5)}`;
      p.metadata.uid = rng.uuid();
      bindPod(p, n, rng);
      out.pods.push(p);
    }
  }
  out.pdbs.push(findOne(demoList('pdbs.json'), 'kube-system', 'coredns'));
  out.pdbs.push(findOne(demoList('pdbs.json'), 'kube-system', 'ebs-csi-controller'));
  out.priorityClasses.push(...demoList('priorityclasses.json'));
  out.storageClasses.push(...demoList('storageclasses.json'));

  // ---- Pending pods: ten stories, a few hundred pods ------------------------------------------------------------
  const pendingStart = out.pods.length;
  const pending = buildPending({ rng, out, groups, allNodes, nodesOf, demoPods, demoDeploys, demoRs, nextRv });

  // ---- application workloads ---------------------------------------------------------------------------------
  const jobBudget = Math.round(size.pods * 0.005);
  const stsBudget = Math.round(size.pods * 0.02);
  const appBudget = size.pods - out.pods.length - jobBudget - stsBudget;
  buildApps({ rng, out, allNodes, demoPods, demoDeploys, demoRs, nextRv, budget: appBudget });
  buildStatefulSets({ rng, out, allNodes, demoPods, nextRv, budget: stsBudget });
  buildJobs({ rng, out, allNodes, demoPods, nextRv, budget: size.pods - out.pods.length });

  // ---- events -----------------------------------------------------------------------------------------------
  buildEvents({ rng, out, allNodes, demoPods, demoEvents, pending: out.pods.slice(pendingStart, pendingStart + pending.count), stories: pending.stories, nextRv });
  // a separate PRNG: the rest of the cluster stays the same bytes whatever the Pending shape
  reshapePending(new Rng(0x5a9e ^ size.nodes), out, out.pods.slice(pendingStart, pendingStart + pending.count), size.pending ?? 'stories', nextRv);

  // ---- AWS ----------------------------------------------------------------------------------------------------
  const demoAsg = demoDoc('asgs.json').AutoScalingGroups[0];
  const demoSpot = demoDoc('asgs.json').AutoScalingGroups.find((a: Obj) => a.MixedInstancesPolicy);
  const asgs: Obj[] = [];
  const ltvs: Obj[] = [];
  const activities: Obj[] = [];
  const demoLtv = demoDoc('launch-template-versions.json').LaunchTemplateVersions[0];
  const demoAct = demoDoc('scaling-activities.json').Activities[0];
  for (const g of groups) {
    const type = KIND_TYPE[g.kind];
    const ltSpec = { LaunchTemplateId: g.ltId, LaunchTemplateName: g.name, Version: g.ltVersion };
    const a = structuredClone(g.kind === 'spot' ? demoSpot : demoAsg);
    a.AutoScalingGroupName = g.name;
    a.AutoScalingGroupARN = g.arn;
    if (g.kind === 'spot') {
      a.MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification = ltSpec;
      a.MixedInstancesPolicy.LaunchTemplate.Overrides = SPOT_TYPES.map((t) => ({ InstanceType: t }));
    } else a.LaunchTemplate = ltSpec;
    a.MinSize = g.min;
    a.MaxSize = g.max;
    a.DesiredCapacity = g.nodes.length;
    a.AvailabilityZones = g.zones;
    a.VPCZoneIdentifier = g.zones.map((z) => ZONES[z].subnet).join(',');
    a.CreatedTime = `${new Date(g.created).toISOString().slice(0, 23)}000+00:00`;
    a.Instances = g.nodes.map((n) => ({
      InstanceId: n.instanceId,
      InstanceType: n.type,
      AvailabilityZone: n.zone,
      LifecycleState: 'InService',
      HealthStatus: 'Healthy',
      LaunchTemplate: { LaunchTemplateId: g.ltId, LaunchTemplateName: g.name, Version: '2' },
      ProtectedFromScaleIn: false,
    }));
    const tag = (Key: string, Value: string, PropagateAtLaunch = false) => ({
      ResourceId: g.name,
      ResourceType: 'auto-scaling-group',
      Key,
      Value,
      PropagateAtLaunch,
    });
    const tags = [tag('Name', g.name, true), tag('k8s.io/cluster-autoscaler/enabled', 'true')];
    if (g.discovered) tags.push(tag(`k8s.io/cluster-autoscaler/${CLUSTER}`, 'owned'));
    if (g.labelTag) tags.push(tag('k8s.io/cluster-autoscaler/node-template/label/node-pool', g.pool));
    if (g.kind === 'gpu') {
      tags.push(tag('k8s.io/cluster-autoscaler/node-template/label/accelerator', 'nvidia-a10g'));
      tags.push(tag('k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu', '1'));
    }
    if (g.taint)
      tags.push(tag(`k8s.io/cluster-autoscaler/node-template/taint/${g.taint.key}`, `${g.taint.value}:${g.taint.effect}`));
    tags.push(tag(`kubernetes.io/cluster/${CLUSTER}`, 'owned', true));
    a.Tags = tags.sort((x, y) => (x.Key < y.Key ? -1 : 1));
    asgs.push(a);

    for (const version of [1, 2]) {
      const v = structuredClone(demoLtv);
      v.LaunchTemplateId = g.ltId;
      v.LaunchTemplateName = g.name;
      v.VersionNumber = version;
      v.VersionDescription = version === 1 ? 'k8s 1.30 node group' : 'k8s 1.31 node group';
      v.CreateTime = awsTime(g.created - (3 - version) * 24 * HOUR);
      v.DefaultVersion = version === 2;
      if (g.kind === 'spot') delete v.LaunchTemplateData.InstanceType;
      else v.LaunchTemplateData.InstanceType = type;
      v.LaunchTemplateData.TagSpecifications[0].Tags[0].Value = g.name;
      v.LaunchTemplateData.TagSpecifications[1].Tags[0].Value = g.name;
      ltvs.push(v);
    }

    const recent = g.nodes.slice(-3);
    for (const n of recent) {
      const act = structuredClone(demoAct);
      act.ActivityId = rng.uuid();
      act.AutoScalingGroupName = g.name;
      act.AutoScalingGroupARN = g.arn;
      act.Description = `Launching a new EC2 instance: ${n.instanceId}`;
      act.Cause = `At ${iso(n.created - 40_000)} an instance was started in response to a difference between desired and actual capacity, increasing the capacity from ${g.nodes.length - 1} to ${g.nodes.length}.`;
      act.StartTime = `${new Date(n.created - 38_000).toISOString().slice(0, 23)}000+00:00`;
      act.EndTime = awsTime(n.created);
      act.Details = JSON.stringify({ 'Subnet ID': ZONES[n.zone].subnet, 'Availability Zone': n.zone });
      activities.push(act);
    }
  }

  // ---- the CA status ConfigMap --------------------------------------------------------------------------------
  const cm = demoDoc('configmaps-kube-system.json');
  cm.data.status = caStatusYaml(groups.filter((g) => g.discovered), allNodes.length);

  const summary: Record<string, number> = {
    nodes: out.nodes.length,
    pods: out.pods.length,
    pendingPods: pending.count,
    asgs: asgs.length,
    events: out.events.length,
    deployments: out.deployments.length,
    replicaSets: out.replicaSets.length,
    statefulSets: out.statefulSets.length,
    daemonSets: out.daemonSets.length,
    pdbs: out.pdbs.length,
    pvs: out.pvs.length,
    namespaces: new Set(out.pods.map((p) => p.metadata.namespace)).size,
  };
  return {
    size,
    kube: out,
    caStatus: cm,
    asgs,
    launchTemplateVersions: ltvs,
    scalingActivities: activities,
    instanceTypes: instanceTypes([...new Set([...Object.values(KIND_TYPE), ...SPOT_TYPES])].sort()),
    summary,
  };
}

/** `aws ec2 describe-instance-types --instance-types ...`, trimmed to the members casdoctor reads, from CA's table. */
function instanceTypes(names: string[]): Obj[] {
  const table = JSON.parse(readFileSync(join(ROOT, 'data', 'instance-types.json'), 'utf8')).instanceTypes;
  return names.map((name) => {
    const t = table[name];
    return {
      InstanceType: name,
      CurrentGeneration: true,
      ProcessorInfo: { SupportedArchitectures: [t.architecture === 'arm64' ? 'arm64' : 'x86_64'] },
      VCpuInfo: { DefaultVCpus: t.vcpu },
      MemoryInfo: { SizeInMiB: t.memoryMiB },
      ...(t.gpu ? { GpuInfo: { Gpus: [{ Name: 'A10G', Manufacturer: 'NVIDIA', Count: t.gpu }] } } : {}),
    };
  });
}

function podIp(rng: Rng, zone: string): string {
  return `10.0.${ZONES[zone].second + rng.range(0, 63)}.${rng.range(2, 253)}`;
}

/** Running status of a pod bound to a node: IPs, times and container ids of its own. */
function setRunningStatus(p: Obj, n: NodeRec, ip: string, startedMs: number, rng: Rng): void {
  const s = p.status;
  s.hostIP = n.ip;
  s.hostIPs = [{ ip: n.ip }];
  s.podIP = ip;
  s.podIPs = [{ ip }];
  s.startTime = iso(startedMs);
  for (const c of s.conditions ?? []) c.lastTransitionTime = iso(startedMs + rng.int(6) * 1000);
  for (const cs of [...(s.containerStatuses ?? []), ...(s.initContainerStatuses ?? [])]) {
    cs.containerID = `containerd://${rng.hex(64)}`;
    if (cs.state?.running) cs.state.running.startedAt = iso(startedMs + 2000);
    if (cs.state?.terminated) {
      cs.state.terminated.containerID = cs.containerID;
      cs.state.terminated.startedAt = iso(startedMs + 1000);
      cs.state.terminated.finishedAt = iso(startedMs + 2000);
    }
  }
}

function bindPod(p: Obj, n: NodeRec, rng: Rng, created = Math.max(n.created + 60_000, DUMP_MS - rng.range(2, 70) * HOUR)): void {
  p.metadata.creationTimestamp = iso(created);
  p.metadata.resourceVersion = String(5_000_000 + rng.int(900_000));
  p.spec.nodeName = n.name;
  setRunningStatus(p, n, podIp(rng, n.zone), created + 1000, rng);
}

const cpuStr = (m: number) => (m % 1000 === 0 ? String(m / 1000) : `${m}m`);
const memStr = (mi: number) => (mi % 1024 === 0 ? `${mi / 1024}Gi` : `${mi}Mi`);

interface BuildCtx {
  rng: Rng;
  out: Record<string, Obj[]>;
  allNodes: NodeRec[];
  demoPods: Obj[];
  nextRv: () => string;
}

/** Renames a cloned Deployment + ReplicaSet + pod template to a new workload. */
function workload(
  ctx: BuildCtx & { demoDeploys: Obj[]; demoRs: Obj[] },
  from: { ns: string; name: string },
  to: {
    ns: string;
    name: string;
    replicas: number;
    cpuM: number;
    memMi: number;
    nodeSelector?: Record<string, string>;
    tolerations?: Obj[];
    annotations?: Record<string, string>;
    image: string;
    created: number;
  },
): { deploy: Obj; rs: Obj; podTpl: Template; hash: string } {
  const { rng } = ctx;
  const d = structuredClone(findOne(ctx.demoDeploys, from.ns, from.name));
  const rs = structuredClone(ctx.demoRs.find((r: Obj) => r.metadata.ownerReferences?.[0]?.uid === d.metadata.uid));
  const demoPod = ctx.demoPods.find(
    (p: Obj) => p.metadata.ownerReferences?.[0]?.uid === rs.metadata.uid && p.status.phase === 'Running',
  );
  const hash = rng.safe(9 + rng.int(2));
  const duid = rng.uuid();
  const rsuid = rng.uuid();
  const labels = { app: to.name };
  for (const o of [d, rs]) {
    o.metadata.name = o === d ? to.name : `${to.name}-${hash}`;
    o.metadata.namespace = to.ns;
    o.metadata.uid = o === d ? duid : rsuid;
    o.metadata.resourceVersion = ctx.nextRv();
    o.metadata.creationTimestamp = iso(to.created);
    o.metadata.labels = o === d ? { ...labels } : { ...labels, 'pod-template-hash': hash };
    o.spec.replicas = to.replicas;
    o.spec.selector = { matchLabels: o === d ? { ...labels } : { ...labels, 'pod-template-hash': hash } };
    const t = o.spec.template;
    t.metadata.labels = o === d ? { ...labels } : { ...labels, 'pod-template-hash': hash };
    if (to.annotations) t.metadata.annotations = { ...to.annotations };
    else delete t.metadata.annotations;
    const c = t.spec.containers[0];
    c.name = to.name.split('-')[0];
    c.image = to.image;
    c.resources = {
      limits: { memory: memStr(to.memMi) },
      requests: { cpu: cpuStr(to.cpuM), memory: memStr(to.memMi) },
    };
    if (to.nodeSelector) t.spec.nodeSelector = { ...to.nodeSelector };
    else delete t.spec.nodeSelector;
    if (to.tolerations) t.spec.tolerations = structuredClone(to.tolerations);
    t.spec.serviceAccount = t.spec.serviceAccountName = 'default';
  }
  rs.metadata.ownerReferences[0].name = to.name;
  rs.metadata.ownerReferences[0].uid = duid;
  rs.metadata.annotations['deployment.kubernetes.io/desired-replicas'] = String(to.replicas);
  rs.metadata.annotations['deployment.kubernetes.io/max-replicas'] = String(to.replicas + Math.ceil(to.replicas / 4));
  d.status.conditions[1].message = `ReplicaSet "${rs.metadata.name}" has successfully progressed.`;

  const p = structuredClone(demoPod);
  p.metadata.namespace = to.ns;
  p.metadata.generateName = `${rs.metadata.name}-`;
  p.metadata.labels = { ...labels, 'pod-template-hash': hash };
  if (to.annotations) p.metadata.annotations = { ...to.annotations };
  else delete p.metadata.annotations;
  p.metadata.ownerReferences[0].name = rs.metadata.name;
  p.metadata.ownerReferences[0].uid = rsuid;
  const pc = p.spec.containers[0];
  pc.name = rs.spec.template.spec.containers[0].name;
  pc.image = to.image;
  pc.resources = structuredClone(rs.spec.template.spec.containers[0].resources);
  if (to.nodeSelector) p.spec.nodeSelector = { ...to.nodeSelector };
  else delete p.spec.nodeSelector;
  if (to.tolerations)
    p.spec.tolerations = [
      ...structuredClone(to.tolerations),
      ...p.spec.tolerations.filter((t: Obj) => t.effect === 'NoExecute'),
    ];
  p.spec.serviceAccount = p.spec.serviceAccountName = 'default';
  for (const cs of p.status.containerStatuses ?? []) {
    cs.name = pc.name;
    cs.image = to.image;
    cs.imageID = `${to.image.split(':')[0]}@sha256:${rng.hex(64)}`;
  }
  return { deploy: d, rs, podTpl: new Template(p), hash };
}

// ---------------------------------------------------------------------------------------------------------------
// application workloads

const NAMESPACE_WORDS = [
  'payments', 'checkout', 'search', 'catalog', 'orders', 'users', 'billing', 'ledger', 'inventory', 'shipping',
  'web', 'mobile-api', 'analytics', 'ml', 'recommendations', 'notifications', 'auth', 'gateway', 'reporting', 'media',
];
const APP_WORDS = [
  'api', 'worker', 'consumer', 'frontend', 'gateway', 'indexer', 'scheduler', 'sync', 'cache', 'exporter',
  'processor', 'renderer', 'webhook', 'grpc', 'batcher', 'router',
];
const APP_TEMPLATES = [
  { ns: 'web', name: 'api' },
  { ns: 'web', name: 'frontend' },
  { ns: 'payments', name: 'payments-api' },
  { ns: 'ml', name: 'model-registry' },
  { ns: 'monitoring', name: 'grafana' },
  { ns: 'payments', name: 'payments-worker' },
  { ns: 'analytics', name: 'dashboards' },
];

function buildApps(ctx: BuildCtx & { demoDeploys: Obj[]; demoRs: Obj[]; budget: number }): void {
  const { rng, out, allNodes } = ctx;
  const nsCount = Math.max(20, Math.round(allNodes.length / 25));
  const namespaces = Array.from({ length: nsCount }, (_, i) => `${NAMESPACE_WORDS[i % NAMESPACE_WORDS.length]}${i < NAMESPACE_WORDS.length ? '' : `-${Math.floor(i / NAMESPACE_WORDS.length) + 1}`}`);
  // pools that take application pods, weighted by how many pods they can still hold
  const pools = new Map<string, NodeRec[]>();
  for (const n of allNodes) {
    if (n.group.kind === 'memory' || n.group.kind === 'batch' || n.group.kind === 'gpu') continue;
    const list = pools.get(n.group.pool) ?? [];
    list.push(n);
    pools.set(n.group.pool, list);
  }
  const poolNames = [...pools.keys()].sort();
  const cursor = new Map<string, number>();
  const perNodeTarget = ctx.budget / allNodes.length;
  // memory pools get a few tolerating workloads of their own
  const memoryNodes = allNodes.filter((n) => n.group.kind === 'memory');
  let placed = 0;
  let k = 0;
  while (placed < ctx.budget) {
    k++;
    const onMemory = memoryNodes.length > 0 && k % 25 === 0;
    const pool = onMemory ? memoryNodes[0].group.pool : poolNames[(k * 7) % poolNames.length];
    const nodes = onMemory ? memoryNodes.filter((n) => n.group.pool === pool) : pools.get(pool)!;
    const t = TYPES[nodes[0].type];
    const targetCpu = ((t.cpuAllocM - DS_CPU_M) / Math.max(perNodeTarget, 1)) * 0.8;
    const targetMem = ((allocMemKi(t) / 1024 - DS_MEM_MI) / Math.max(perNodeTarget, 1)) * 0.6;
    const cpuM = Math.max(10, Math.round((targetCpu * rng.pick([0.25, 0.5, 1, 1, 1.5, 2])) / 10) * 10);
    const memMi = Math.max(32, Math.round((targetMem * rng.pick([0.25, 0.5, 1, 1, 1.5])) / 16) * 16);
    let replicas = Math.min(ctx.budget - placed, rng.pick([1, 2, 2, 3, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 30, 40, 60]));
    const tplRef = APP_TEMPLATES[k % APP_TEMPLATES.length];
    const ns = namespaces[k % namespaces.length];
    const name = `${rng.pick(APP_WORDS)}-${rng.pick(APP_WORDS)}-${k}`;
    const annotations: Record<string, string> | undefined =
      tplRef.name === 'payments-worker'
        ? { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' }
        : tplRef.name === 'dashboards'
          ? { 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes': 'cache' }
          : undefined;
    const created = DUMP_MS - rng.range(30, 90) * 24 * HOUR;
    // place first, then build the workload with the replicas that fit
    const chosen: NodeRec[] = [];
    let at = cursor.get(pool) ?? rng.int(nodes.length);
    for (let tries = 0; chosen.length < replicas && tries < nodes.length * 2; tries++) {
      const n = nodes[at % nodes.length];
      at++;
      const cap = n.lowUtil ? Math.max(0, TYPES[n.type].maxPods - 4 - 2) : 0;
      if (n.freePods <= cap || n.freeCpuM < cpuM || n.freeMemMi < memMi) continue;
      n.freePods--;
      n.freeCpuM -= cpuM;
      n.freeMemMi -= memMi;
      chosen.push(n);
    }
    cursor.set(pool, at);
    replicas = chosen.length;
    if (replicas === 0) {
      if (k > 50 * (ctx.budget + 1)) throw new Error('cannot place application pods: the cluster is full');
      continue;
    }
    const w = workload(ctx, tplRef, {
      ns,
      name,
      replicas,
      cpuM,
      memMi,
      nodeSelector: { 'node-pool': pool },
      tolerations: onMemory ? [{ effect: 'NoSchedule', key: 'dedicated', operator: 'Equal', value: pool }] : undefined,
      annotations,
      image: `${ECR}/${ns}/${name.replace(/-\d+$/, '')}:2026.${rng.range(1, 11)}.${rng.range(0, 9)}`,
      created,
    });
    Object.assign(w.deploy.status, {
      replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      updatedReplicas: replicas,
    });
    delete w.deploy.status.unavailableReplicas;
    Object.assign(w.rs.status, { replicas, readyReplicas: replicas, availableReplicas: replicas, fullyLabeledReplicas: replicas });
    out.deployments.push(w.deploy);
    out.replicaSets.push(w.rs);
    // the previous revision, scaled to zero (revisionHistoryLimit keeps it)
    const old = structuredClone(w.rs);
    old.metadata.name = `${name}-${rng.safe(9)}`;
    old.metadata.uid = rng.uuid();
    old.metadata.labels['pod-template-hash'] = old.metadata.name.slice(name.length + 1);
    old.spec.selector.matchLabels['pod-template-hash'] = old.metadata.labels['pod-template-hash'];
    old.spec.template.metadata.labels['pod-template-hash'] = old.metadata.labels['pod-template-hash'];
    old.spec.replicas = 0;
    old.status = { observedGeneration: 2, replicas: 0 };
    out.replicaSets.push(old);
    for (const n of chosen) {
      const p = w.podTpl.fresh();
      p.metadata.name = `${w.rs.metadata.name}-${rng.safe(5)}`;
      p.metadata.uid = rng.uuid();
      bindPod(p, n, rng);
      out.pods.push(p);
    }
    placed += replicas;
    if (rng.chance(0.4)) {
      const pdb = structuredClone(findOne(demoList('pdbs.json'), 'kube-system', 'coredns'));
      pdb.metadata.name = name;
      pdb.metadata.namespace = ns;
      pdb.metadata.uid = rng.uuid();
      pdb.metadata.creationTimestamp = iso(created);
      pdb.metadata.resourceVersion = ctx.nextRv();
      delete pdb.metadata.labels;
      const blocking = rng.chance(0.05);
      pdb.spec = blocking
        ? { maxUnavailable: 0, selector: { matchLabels: { app: name } } }
        : rng.chance(0.5)
          ? { minAvailable: Math.max(1, Math.floor(replicas / 2)), selector: { matchLabels: { app: name } } }
          : { maxUnavailable: 1, selector: { matchLabels: { app: name } } };
      const desired = blocking ? replicas : pdb.spec.minAvailable ?? replicas - 1;
      Object.assign(pdb.status, {
        currentHealthy: replicas,
        desiredHealthy: desired,
        disruptionsAllowed: Math.max(0, replicas - desired),
        expectedPods: replicas,
      });
      for (const c of pdb.status.conditions) {
        c.status = replicas - desired > 0 ? 'True' : 'False';
        c.reason = replicas - desired > 0 ? 'SufficientPods' : 'InsufficientPods';
      }
      out.pdbs.push(pdb);
    }
  }
  // a few bare pods (no controller): CA never evicts them
  const bare = Math.max(3, Math.round(allNodes.length / 200));
  for (let i = 0; i < bare; i++) {
    const n = allNodes[(i * 131) % allNodes.length];
    const p = out.pods[out.pods.length - 1 - i * 3];
    const q = structuredClone(p);
    delete q.metadata.ownerReferences;
    delete q.metadata.generateName;
    q.metadata.name = `debug-${rng.safe(5)}`;
    q.metadata.uid = rng.uuid();
    q.spec.containers[0].resources = { requests: { cpu: '10m', memory: '16Mi' } };
    bindPod(q, n, rng);
    out.pods.push(q);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// StatefulSets with EBS volumes pinned to their node's zone

function buildStatefulSets(ctx: BuildCtx & { budget: number }): void {
  const { rng, out, allNodes } = ctx;
  const demoSts = findOne(demoList('statefulsets.json'), 'databases', 'customers-pg');
  const demoPod = findOne(ctx.demoPods, 'databases', 'customers-pg');
  const demoPvc = findOne(demoList('pvcs.json'), 'databases', 'data-customers-pg');
  const demoPv = demoList('pvs.json').find((v: Obj) => v.spec.claimRef.name === demoPvc.metadata.name);
  const podTpl = new Template(demoPod);
  const stateful = allNodes.filter((n) => n.group.kind === 'stateful');
  if (stateful.length === 0) return;
  let placed = 0;
  let at = 0;
  for (let k = 0; placed < ctx.budget; k++) {
    const replicas = Math.min(3, ctx.budget - placed);
    const name = `${rng.pick(['pg', 'redis', 'kafka', 'zookeeper', 'etcd', 'mongo'])}-${k}`;
    const ns = `data-${k % 10}`;
    const cpuM = 100;
    const memMi = 512;
    const s = structuredClone(demoSts);
    s.metadata.name = name;
    s.metadata.namespace = ns;
    s.metadata.uid = rng.uuid();
    s.metadata.labels = { app: name };
    s.spec.replicas = replicas;
    s.spec.selector.matchLabels = { app: name };
    s.spec.serviceName = name;
    s.spec.template.metadata.labels = { app: name };
    s.spec.template.spec.nodeSelector = { 'node-pool': stateful[at % stateful.length].group.pool };
    delete s.spec.template.spec.tolerations;
    s.spec.template.spec.containers[0].resources = {
      limits: { memory: memStr(memMi) },
      requests: { cpu: cpuStr(cpuM), memory: memStr(memMi) },
    };
    const rev = `${name}-${rng.safe(10)}`;
    Object.assign(s.status, {
      availableReplicas: replicas,
      currentReplicas: replicas,
      readyReplicas: replicas,
      replicas,
      updatedReplicas: replicas,
      currentRevision: rev,
      updateRevision: rev,
    });
    out.statefulSets.push(s);
    const pool = s.spec.template.spec.nodeSelector['node-pool'];
    const poolNodes = stateful.filter((n) => n.group.pool === pool);
    for (let i = 0; i < replicas; i++) {
      let n = poolNodes[(at + i) % poolNodes.length];
      for (let tries = 0; (n.freeCpuM < cpuM || n.freeMemMi < memMi || n.freePods < 1) && tries < poolNodes.length; tries++)
        n = poolNodes[(at + i + tries) % poolNodes.length];
      n.freeCpuM -= cpuM;
      n.freeMemMi -= memMi;
      n.freePods--;
      const p = podTpl.fresh();
      const podName = `${name}-${i}`;
      p.metadata.name = podName;
      p.metadata.namespace = ns;
      p.metadata.uid = rng.uuid();
      p.metadata.generateName = `${name}-`;
      p.metadata.labels = {
        app: name,
        'apps.kubernetes.io/pod-index': String(i),
        'controller-revision-hash': rev,
        'statefulset.kubernetes.io/pod-name': podName,
      };
      p.metadata.ownerReferences[0].name = name;
      p.metadata.ownerReferences[0].uid = s.metadata.uid;
      p.spec.hostname = podName;
      p.spec.subdomain = name;
      p.spec.nodeSelector = { 'node-pool': pool };
      p.spec.tolerations = p.spec.tolerations.filter((t: Obj) => t.effect === 'NoExecute');
      p.spec.containers[0].resources = structuredClone(s.spec.template.spec.containers[0].resources);
      const claim = `data-${podName}`;
      p.spec.volumes.find((v: Obj) => v.persistentVolumeClaim).persistentVolumeClaim.claimName = claim;
      bindPod(p, n, rng);
      out.pods.push(p);
      out.pvcs.push(...volumeFor(rng, demoPvc, demoPv, ns, claim, name, n, out));
    }
    at += replicas;
    placed += replicas;
  }
}

/** A Bound PVC and its EBS PV with the zone of the node the pod runs on. Pushes the PV into out.pvs; returns the PVC. */
function volumeFor(rng: Rng, demoPvc: Obj, demoPv: Obj, ns: string, claim: string, app: string, n: NodeRec | { name: string; zone: string }, out: Record<string, Obj[]>): Obj[] {
  const pvc = structuredClone(demoPvc);
  const uid = rng.uuid();
  pvc.metadata.name = claim;
  pvc.metadata.namespace = ns;
  pvc.metadata.uid = uid;
  pvc.metadata.labels = { app };
  pvc.metadata.annotations['volume.kubernetes.io/selected-node'] = n.name;
  pvc.spec.volumeName = `pvc-${uid}`;
  const pv = structuredClone(demoPv);
  pv.metadata.name = `pvc-${uid}`;
  pv.metadata.uid = rng.uuid();
  pv.metadata.labels = { 'topology.kubernetes.io/zone': n.zone };
  pv.spec.claimRef = { ...pv.spec.claimRef, name: claim, namespace: ns, uid };
  pv.spec.csi.volumeHandle = `vol-0${rng.hex(16)}`;
  pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values = [n.zone];
  out.pvs.push(pv);
  return [pvc];
}

// ---------------------------------------------------------------------------------------------------------------
// completed Job pods

function buildJobs(ctx: BuildCtx & { budget: number }): void {
  const { rng, out, allNodes } = ctx;
  const demoJob = demoList('jobs.json')[0];
  const demoPod = ctx.demoPods.find((p: Obj) => p.metadata.ownerReferences?.[0]?.name === demoJob.metadata.name);
  const tpl = new Template(demoPod);
  for (let i = 0; i < ctx.budget; i++) {
    const j = structuredClone(demoJob);
    const name = `nightly-${rng.pick(['etl', 'rollup', 'export', 'compaction', 'backup'])}-${29920000 + i * 60}`;
    j.metadata.name = name;
    j.metadata.uid = rng.uuid();
    j.metadata.labels = { ...j.metadata.labels, 'batch.kubernetes.io/job-name': name, 'job-name': name };
    out.jobs.push(j);
    const p = tpl.fresh();
    const n = allNodes[(i * 53) % allNodes.length];
    p.metadata.name = `${name}-${rng.safe(5)}`;
    p.metadata.uid = rng.uuid();
    p.metadata.generateName = `${name}-`;
    p.metadata.ownerReferences[0].name = name;
    p.metadata.ownerReferences[0].uid = j.metadata.uid;
    p.spec.nodeName = n.name;
    setRunningStatus(p, n, podIp(rng, n.zone), DUMP_MS - rng.range(2, 8) * HOUR, rng);
    out.pods.push(p);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Pending pods: why they wait, as the scheduler and CA would say it

interface Story {
  key: string;
  ns: string;
  name: string;
  pods: number;
  scheduler: string;
  ca?: { reason: 'NotTriggerScaleUp' | 'TriggeredScaleUp'; message: string };
}

const TAINT_REASON = (t: { key: string; value: string }) => `node(s) had untolerated taint {${t.key}: ${t.value}}`;
const SELECTOR = "node(s) didn't match Pod's node affinity/selector";

function schedulerMessage(total: number, reasons: Map<string, number>, victims: number): string {
  const parts = [...reasons].map(([r, c]) => `${c} ${r}`).sort();
  const pre: string[] = [];
  if (victims > 0) pre.push(`${victims} No preemption victims found for incoming pod`);
  if (total - victims > 0) pre.push(`${total - victims} Preemption is not helpful for scheduling`);
  return `0/${total} nodes are available: ${parts.join(', ')}. preemption: 0/${total} nodes are available: ${pre.sort().join(', ')}..`;
}

/** Regroups the Pending pods: each its own ReplicaSet, or one ReplicaSet's pod cloned to 3,000 replicas. */
function reshapePending(rng: Rng, out: Dump['kube'], pending: Obj[], shape: NonNullable<BenchSize['pending']>, nextRv: () => string): void {
  if (shape === 'stories') return;
  const rsOf = (p: Obj) => p.metadata.ownerReferences?.find((o: Obj) => o.controller && o.kind === 'ReplicaSet');
  const owned = pending.filter(rsOf);
  if (shape === 'distinct') {
    owned.forEach((p, i) => {
      const ref = rsOf(p);
      const rs = out.replicaSets.find((r: Obj) => r.metadata.uid === ref.uid);
      if (!rs) return;
      const copy = structuredClone(rs);
      copy.metadata.name = `${rs.metadata.name.replace(/-[^-]+$/, '')}-t${i}-${rng.safe(10)}`;
      copy.metadata.uid = rng.uuid();
      copy.metadata.resourceVersion = nextRv();
      Object.assign(copy.spec, { replicas: 1 });
      Object.assign(copy.status, { replicas: 1, readyReplicas: 0, availableReplicas: 0, fullyLabeledReplicas: 1 });
      out.replicaSets.push(copy);
      Object.assign(ref, { name: copy.metadata.name, uid: copy.metadata.uid });
    });
    return;
  }
  // replicas: the scale-up story's first pod, 3,000 times (CA's equivalence group of one workload)
  const seed = owned.find((p) => p.spec.nodeSelector?.['node-pool']?.includes('general')) ?? owned[0];
  if (!seed) return;
  const tpl = new Template(seed);
  const rsName = rsOf(seed).name;
  for (let i = 0; i < 3000; i++) {
    const p = tpl.fresh();
    p.metadata.name = `${rsName}-${rng.safe(5)}`;
    p.metadata.uid = rng.uuid();
    p.metadata.resourceVersion = nextRv();
    out.pods.push(p);
  }
}

function buildPending(
  ctx: BuildCtx & {
    groups: Group[];
    nodesOf: (pool: string) => NodeRec[];
    demoDeploys: Obj[];
    demoRs: Obj[];
  },
): { count: number; stories: Story[] } {
  const { rng, out, allNodes, groups } = ctx;
  const N = allNodes.length;
  const discovered = groups.filter((g) => g.discovered);
  // per-node first failing reason, TaintToleration before NodeAffinity (kube-scheduler filter order)
  const reasonsFor = (fits: (n: NodeRec) => string | undefined, tolerates: (t: Group['taint']) => boolean) => {
    const m = new Map<string, number>();
    let victims = 0;
    for (const n of allNodes) {
      const t = n.group.taint;
      const r = t && !tolerates(t) ? TAINT_REASON(t) : fits(n);
      if (!r) continue;
      m.set(r, (m.get(r) ?? 0) + 1);
      if (r.startsWith('Insufficient')) victims++;
    }
    return schedulerMessage(N, m, victims);
  };
  const caReasons = (perGroup: (g: Group) => string | undefined) => {
    const m = new Map<string, number>();
    for (const g of discovered) {
      const r = g.atMax ? 'max node group size reached' : perGroup(g);
      if (r) m.set(r, (m.get(r) ?? 0) + 1);
    }
    return `pod didn't trigger scale-up: ${[...m].map(([r, c]) => `${c} ${r}`).join(', ')}`;
  };
  const poolOf = (kind: Kind, n = 1) => groups.find((g) => g.kind === kind && g.pool.endsWith(`-0${n}`));
  const general = poolOf('general')!;
  const compute = poolOf('compute')!;
  const spot = poolOf('spot') ?? general;
  const memory = poolOf('memory');
  const batch = poolOf('batch');
  const gpu = poolOf('gpu');
  const stateful = poolOf('stateful');
  const taintOf = (g: Group) => (g.taint ? TAINT_REASON(g.taint) : undefined);
  const sel = (pool: string) => (n: NodeRec) => (n.group.pool === pool ? undefined : SELECTOR);
  const selG = (pool: string) => (g: Group) => taintOf(g) ?? (g.pool === pool ? undefined : SELECTOR);
  const noTol = () => false;

  const stories: Story[] = [];
  const add = (s: Story) => stories.push(s);
  if (batch)
    add({
      key: 'selector', ns: 'batch', name: 'report-builder', pods: 30,
      scheduler: reasonsFor(sel(batch.pool), noTol),
      ca: { reason: 'NotTriggerScaleUp', message: caReasons((g) => taintOf(g) ?? SELECTOR) },
    });
  if (memory)
    add({
      key: 'taint', ns: 'databases', name: 'orders-pg-replica', pods: 30,
      scheduler: reasonsFor(sel(memory.pool), noTol),
      ca: { reason: 'NotTriggerScaleUp', message: caReasons(selG(memory.pool)) },
    });
  add({
    key: 'too-large', ns: 'analytics', name: 'spark-driver', pods: 10,
    scheduler: reasonsFor(() => 'Insufficient cpu', noTol).replace(/(\d+) Insufficient cpu/, '$1 Insufficient cpu, $1 Insufficient memory'),
    ca: { reason: 'NotTriggerScaleUp', message: caReasons((g) => taintOf(g) ?? 'Insufficient cpu') },
  });
  add({
    key: 'scale-up', ns: 'web', name: 'api', pods: 40,
    scheduler: reasonsFor((n) => (n.group.pool === general.pool ? 'Insufficient cpu' : SELECTOR), noTol),
    ca: { reason: 'TriggeredScaleUp', message: `pod triggered scale-up: [{${general.name} ${general.nodes.length}->${general.nodes.length + 10} (max: ${general.max})}]` },
  });
  add({
    key: 'max-size', ns: 'web', name: 'frontend', pods: 30,
    scheduler: reasonsFor((n) => (n.group.pool === spot.pool ? 'Insufficient cpu' : SELECTOR), noTol),
    ca: { reason: 'NotTriggerScaleUp', message: caReasons(selG(spot.pool)) },
  });
  add({
    key: 'expendable', ns: 'overprovisioning', name: 'pause', pods: 40,
    scheduler: reasonsFor((n) => (n.group.pool === general.pool ? 'Insufficient cpu' : SELECTOR), noTol),
  });
  if (gpu)
    add({
      key: 'gpu', ns: 'ml', name: 'inference', pods: 20,
      scheduler: reasonsFor(() => SELECTOR, (t) => t?.key === 'nvidia.com/gpu'),
      ca: { reason: 'TriggeredScaleUp', message: `pod triggered scale-up: [{${gpu.name} 0->10 (max: ${gpu.max})}]` },
    });
  if (stateful)
    add({
      key: 'volume-zone', ns: 'payments', name: 'ledger-db', pods: 20,
      scheduler: reasonsFor((n) => (n.group.pool === stateful.pool ? 'node(s) had volume node affinity conflict' : SELECTOR), noTol),
      ca: { reason: 'NotTriggerScaleUp', message: caReasons((g) => taintOf(g) ?? (g.pool === stateful.pool ? 'node(s) had volume node affinity conflict' : SELECTOR)) },
    });
  add({
    key: 'anti-affinity', ns: 'search', name: 'indexer', pods: 40,
    scheduler: reasonsFor((n) => (n.group.pool === compute.pool ? "node(s) didn't match pod anti-affinity rules" : SELECTOR), noTol),
    ca: { reason: 'NotTriggerScaleUp', message: caReasons((g) => taintOf(g) ?? (g.pool === compute.pool ? "node(s) didn't match pod anti-affinity rules" : SELECTOR)) },
  });
  add({
    key: 'spread', ns: 'checkout', name: 'checkout-api', pods: 40,
    scheduler: reasonsFor((n) => (n.group.pool === compute.pool ? "node(s) didn't match pod topology spread constraints" : SELECTOR), noTol),
    ca: { reason: 'NotTriggerScaleUp', message: caReasons((g) => taintOf(g) ?? (g.pool === compute.pool ? "node(s) didn't match pod topology spread constraints" : SELECTOR)) },
  });

  const pendingTpl = ctx.demoPods.find(
    (p: Obj) => p.metadata.name.startsWith('api-') && p.status.phase === 'Pending',
  );
  const demoPvc = findOne(demoList('pvcs.json'), 'payments', 'data-ledger-db');
  const demoPv = demoList('pvs.json').find((v: Obj) => v.spec.claimRef.name === demoPvc.metadata.name);
  let count = 0;
  for (const s of stories) {
    const created = DUMP_MS - rng.range(10, 50) * 60_000;
    const spec: Parameters<typeof workload>[2] = {
      ns: s.ns,
      name: s.name,
      replicas: s.pods,
      cpuM: 1500,
      memMi: 3072,
      image: `${ECR}/${s.ns}/${s.name}:2026.11.${rng.range(0, 9)}`,
      created,
    };
    switch (s.key) {
      case 'selector':
        Object.assign(spec, { cpuM: 1000, memMi: 2048, nodeSelector: { 'node-pool': batch!.pool } });
        break;
      case 'taint':
        Object.assign(spec, { cpuM: 2000, memMi: 8192, nodeSelector: { 'node-pool': memory!.pool } });
        break;
      case 'too-large':
        Object.assign(spec, { cpuM: 16000, memMi: 200 * 1024 });
        break;
      case 'scale-up':
        Object.assign(spec, { cpuM: 3000, memMi: 3072, nodeSelector: { 'node-pool': general.pool } });
        break;
      case 'max-size':
        Object.assign(spec, { cpuM: 1500, memMi: 1024, nodeSelector: { 'node-pool': spot.pool } });
        break;
      case 'expendable':
        Object.assign(spec, { cpuM: 3000, memMi: 512, nodeSelector: { 'node-pool': general.pool } });
        break;
      case 'gpu':
        Object.assign(spec, {
          cpuM: 2000,
          memMi: 8192,
          nodeSelector: { accelerator: 'nvidia-a10g' },
          tolerations: [{ effect: 'NoSchedule', key: 'nvidia.com/gpu', operator: 'Exists' }],
        });
        break;
      case 'volume-zone':
        Object.assign(spec, { cpuM: 500, memMi: 1024, nodeSelector: { 'node-pool': stateful!.pool } });
        break;
      case 'anti-affinity':
        Object.assign(spec, { cpuM: 1500, memMi: 2048, nodeSelector: { 'node-pool': compute.pool } });
        break;
      case 'spread':
        Object.assign(spec, { cpuM: 1000, memMi: 1024, nodeSelector: { 'node-pool': compute.pool } });
        break;
    }
    const w = workload(ctx, { ns: 'web', name: 'api' }, spec);
    const base = new Template(pendingTpl).fresh();
    const running = w.podTpl.fresh();
    // a Pending pod: the workload's spec, the demo Pending pod's status
    running.status = base.status;
    const ps = running.spec;
    delete ps.nodeName;
    if (s.key === 'gpu') {
      ps.containers[0].resources.requests['nvidia.com/gpu'] = '1';
      ps.containers[0].resources.limits['nvidia.com/gpu'] = '1';
    }
    if (s.key === 'expendable') {
      ps.priorityClassName = 'overprovisioning';
      ps.priority = -20;
    }
    if (s.key === 'anti-affinity')
      ps.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: s.name } }, topologyKey: 'kubernetes.io/hostname' },
          ],
        },
      };
    if (s.key === 'spread')
      ps.topologySpreadConstraints = [
        {
          labelSelector: { matchLabels: { app: s.name } },
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
        },
      ];
    w.deploy.spec.template.spec = structuredClone(ps);
    delete w.deploy.spec.template.spec.tolerations;
    if (spec.tolerations) w.deploy.spec.template.spec.tolerations = spec.tolerations;
    w.rs.spec.template.spec = structuredClone(w.deploy.spec.template.spec);
    Object.assign(w.deploy.status, { replicas: s.pods, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: s.pods });
    Object.assign(w.rs.status, { replicas: s.pods, readyReplicas: 0, availableReplicas: 0, fullyLabeledReplicas: s.pods });
    if (s.key !== 'volume-zone') {
      out.deployments.push(w.deploy);
      out.replicaSets.push(w.rs);
    }
    const tpl = new Template(running);
    for (let i = 0; i < s.pods; i++) {
      const p = tpl.fresh();
      const podCreated = created + rng.int(120) * 1000;
      p.metadata.name = s.key === 'volume-zone' ? `${s.name}-${i}` : `${w.rs.metadata.name}-${rng.safe(5)}`;
      p.metadata.uid = rng.uuid();
      p.metadata.creationTimestamp = iso(podCreated);
      p.metadata.resourceVersion = ctx.nextRv();
      p.status.conditions[0].lastTransitionTime = iso(podCreated);
      p.status.conditions[0].message = s.scheduler;
      if (s.key === 'volume-zone') {
        // a StatefulSet pod whose EBS volume is in a zone the pool has no ASG in
        p.metadata.generateName = `${s.name}-`;
        p.metadata.ownerReferences = [
          { apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'StatefulSet', name: s.name, uid: w.deploy.metadata.uid },
        ];
        p.metadata.labels = { app: s.name, 'apps.kubernetes.io/pod-index': String(i), 'statefulset.kubernetes.io/pod-name': p.metadata.name };
        const claim = `data-${p.metadata.name}`;
        p.spec.volumes.unshift({ name: 'data', persistentVolumeClaim: { claimName: claim } });
        out.pvcs.push(...volumeFor(rng, demoPvc, demoPv, s.ns, claim, s.name, { name: 'ip-10-0-130-17.ec2.internal', zone: 'us-east-1c' }, out));
      }
      out.pods.push(p);
      count++;
    }
    if (s.key === 'volume-zone') {
      const sts = structuredClone(findOne(demoList('statefulsets.json'), 'payments', 'ledger-db'));
      sts.metadata.uid = w.deploy.metadata.uid;
      sts.spec.replicas = s.pods;
      sts.spec.template.spec.nodeSelector = { 'node-pool': stateful!.pool };
      sts.status.replicas = s.pods;
      out.statefulSets.push(sts);
    }
  }
  return { count, stories };
}

// ---------------------------------------------------------------------------------------------------------------
// events

function buildEvents(ctx: BuildCtx & { demoEvents: Obj[]; pending: Obj[]; stories: Story[] }): void {
  const { rng, out, allNodes, demoEvents } = ctx;
  const byReason = (reason: string) => new Template(demoEvents.find((e: Obj) => e.reason === reason));
  const failed = byReason('FailedScheduling');
  const ntsu = byReason('NotTriggerScaleUp');
  const tsu = byReason('TriggeredScaleUp');
  const kubelet = ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started'].map((r) => ({ r, t: byReason(r) }));
  const nodeEv = ['Starting', 'RegisteredNode', 'NodeReady'].map((r) => ({ r, t: byReason(r) }));
  const ref = (p: Obj) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    name: p.metadata.name,
    namespace: p.metadata.namespace,
    resourceVersion: p.metadata.resourceVersion,
    uid: p.metadata.uid,
  });
  const named = (e: Obj, objName: string, ns: string | undefined, atMs: number) => {
    e.metadata.name = `${objName}.${(BigInt(atMs) * 1_000_000n + BigInt(rng.int(1_000_000))).toString(16)}`;
    e.metadata.namespace = ns ?? 'default';
    e.metadata.uid = rng.uuid();
    e.metadata.resourceVersion = ctx.nextRv();
    e.metadata.creationTimestamp = iso(atMs);
    return e;
  };
  const storyOf = new Map<string, Story>();
  for (const s of ctx.stories) storyOf.set(`${s.ns}/${s.name}`, s);
  for (const p of ctx.pending) {
    const owner = p.metadata.ownerReferences?.[0];
    const app = p.metadata.labels.app;
    const s = storyOf.get(`${p.metadata.namespace}/${app}`) ?? storyOf.get(`${p.metadata.namespace}/${owner?.name}`);
    const created = Date.parse(p.metadata.creationTimestamp);
    const e = named(failed.fresh(), p.metadata.name, p.metadata.namespace, created);
    e.involvedObject = ref(p);
    e.eventTime = isoMicro(created, rng);
    e.message = p.status.conditions[0].message;
    e.series = { count: Math.max(1, Math.floor((DUMP_MS - created) / 300_000)), lastObservedTime: isoMicro(DUMP_MS - rng.int(280) * 1000, rng) };
    out.events.push(e);
    if (s?.ca) {
      const c = named((s.ca.reason === 'TriggeredScaleUp' ? tsu : ntsu).fresh(), p.metadata.name, p.metadata.namespace, created + 2000);
      c.involvedObject = ref(p);
      c.message = s.ca.message;
      c.firstTimestamp = iso(created + 2000);
      c.lastTimestamp = iso(created + 2000 + Math.max(0, Math.floor((DUMP_MS - created - 2000) / 300_000) - 1) * 300_000);
      c.count = s.ca.reason === 'TriggeredScaleUp' ? 1 : Math.max(1, Math.floor((DUMP_MS - created) / 300_000));
      out.events.push(c);
    }
  }
  // pods started in the last hour: the scheduler's and the kubelet's events
  const running = out.pods.filter((p: Obj) => p.status.phase === 'Running');
  const recent = Math.round(running.length * 0.03);
  for (let i = 0; i < recent; i++) {
    const p = running[(i * 9973) % running.length];
    const start = DUMP_MS - rng.range(60, 3500) * 1000;
    for (const [k, { r, t }] of kubelet.entries()) {
      const e = named(t.fresh(), p.metadata.name, p.metadata.namespace, start + k * 1500);
      e.involvedObject = { ...ref(p), ...(r === 'Scheduled' ? {} : { fieldPath: `spec.containers{${p.spec.containers[0].name}}` }) };
      if (r === 'Scheduled') {
        e.eventTime = isoMicro(start, rng);
        e.message = `Successfully assigned ${p.metadata.namespace}/${p.metadata.name} to ${p.spec.nodeName}`;
      } else {
        e.firstTimestamp = e.lastTimestamp = iso(start + k * 1500);
        e.source = { component: 'kubelet', host: p.spec.nodeName };
        e.reportingInstance = p.spec.nodeName;
        const image = p.spec.containers[0].image;
        e.message =
          r === 'Pulling'
            ? `Pulling image "${image}"`
            : r === 'Pulled'
              ? `Successfully pulled image "${image}" in 1.2s (1.2s including waiting). Image size: ${50_000_000 + rng.int(90_000_000)} bytes.`
              : r === 'Created'
                ? `Created container ${p.spec.containers[0].name}`
                : `Started container ${p.spec.containers[0].name}`;
      }
      out.events.push(e);
    }
  }
  // nodes that joined in the last hour
  for (const n of allNodes.filter((x, i) => i % 97 === 3)) {
    for (const [k, { t }] of nodeEv.entries()) {
      const e = named(t.fresh(), n.name, 'default', DUMP_MS - 1800_000 + k * 20_000);
      e.involvedObject = { apiVersion: 'v1', kind: 'Node', name: n.name, uid: n.obj.metadata.uid };
      if (e.source?.host) e.source.host = n.name;
      if (e.reportingInstance) e.reportingInstance = n.name;
      if (e.message) e.message = e.message.replace(/ip-[\d-]+\.ec2\.internal/g, n.name);
      out.events.push(e);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the CA status ConfigMap (1.30-1.34 YAML format, as in the demo)

function caStatusYaml(groups: Group[], totalNodes: number): string {
  const loop = '2026-11-21 09:59:52.118246319 +0000 UTC';
  const probe = '"2026-11-21T09:59:52.118246319Z"';
  const since = '"2026-11-20T16:42:33.716382541Z"';
  const lines = [
    `time: ${loop}`,
    'autoscalerStatus: Running',
    'clusterWide:',
    '  health:',
    '    status: Healthy',
    '    nodeCounts:',
    '      registered:',
    `        total: ${totalNodes}`,
    `        ready: ${totalNodes}`,
    '        notStarted: 0',
    '      longUnregistered: 0',
    '      unregistered: 0',
    `    lastProbeTime: ${probe}`,
    `    lastTransitionTime: ${since}`,
    '  scaleUp:',
    '    status: InProgress',
    `    lastProbeTime: ${probe}`,
    '    lastTransitionTime: "2026-11-21T09:48:12.508112734Z"',
    '  scaleDown:',
    '    status: CandidatesPresent',
    `    lastProbeTime: ${probe}`,
    `    lastTransitionTime: ${since}`,
    'nodeGroups:',
  ];
  for (const g of [...groups].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const n = g.nodes.length;
    lines.push(`- name: ${g.name}`, '  health:', '    status: Healthy', '    nodeCounts:');
    if (n > 0) lines.push('      registered:', `        total: ${n}`, `        ready: ${n}`, '        notStarted: 0');
    lines.push(
      '      longUnregistered: 0',
      '      unregistered: 0',
      `    cloudProviderTarget: ${n}`,
      `    minSize: ${g.min}`,
      `    maxSize: ${g.max}`,
      `    lastProbeTime: ${probe}`,
      `    lastTransitionTime: ${since}`,
      '  scaleUp:',
      '    status: NoActivity',
      `    lastProbeTime: ${probe}`,
      `    lastTransitionTime: ${since}`,
      '  scaleDown:',
      '    status: NoCandidates',
      `    lastProbeTime: ${probe}`,
      `    lastTransitionTime: ${since}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// writing: kubectl's and aws-cli's exact formatting, streamed (a 100k-pod List is larger than a JS string may be)

/** kubectl -o json: Go's MarshalIndent of unstructured maps: sorted keys, 4 spaces. */
function sortedReplacer(_k: string, v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = o[k];
    return out;
  }
  return v;
}

function writeKubectlList(path: string, items: Obj[]): number {
  const fd = openSync(path, 'w');
  let bytes = 0;
  let buf: string[] = [];
  let size = 0;
  const flush = () => {
    const s = buf.join('');
    bytes += writeSync(fd, s);
    buf = [];
    size = 0;
  };
  const put = (s: string) => {
    buf.push(s);
    size += s.length;
    if (size > 8 << 20) flush();
  };
  put('{\n    "apiVersion": "v1",\n    "items": [');
  items.forEach((item, i) => {
    put(`${i ? ',' : ''}\n        ${JSON.stringify(item, sortedReplacer, 4).replaceAll('\n', '\n        ')}`);
  });
  put(`${items.length ? '\n    ' : ''}],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n`);
  flush();
  closeSync(fd);
  return bytes;
}

export function writeDump(dump: Dump, dir: string): Record<string, number> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const bytes: Record<string, number> = {};
  for (const [key, file] of Object.entries(KUBE_FILES)) bytes[file] = writeKubectlList(join(dir, file), dump.kube[key]);
  const write = (file: string, text: string) => {
    writeFileSync(join(dir, file), text);
    bytes[file] = Buffer.byteLength(text);
  };
  write('configmaps-kube-system.json', `${JSON.stringify(dump.caStatus, sortedReplacer, 4)}\n`);
  // aws --output json: json.dumps(indent=4) in the API's member order
  write('asgs.json', `${JSON.stringify({ AutoScalingGroups: dump.asgs }, null, 4)}\n`);
  write('launch-template-versions.json', `${JSON.stringify({ LaunchTemplateVersions: dump.launchTemplateVersions }, null, 4)}\n`);
  write('instance-types.json', `${JSON.stringify({ InstanceTypes: dump.instanceTypes }, null, 4)}\n`);
  write('scaling-activities.json', `${JSON.stringify({ Activities: dump.scalingActivities }, null, 4)}\n`);
  writeFileSync(
    manifestsPath(dir),
    `${JSON.stringify({ apiVersion: 'v1', items: manifests(dump), kind: 'List', metadata: { resourceVersion: '' } }, sortedReplacer, 4)}\n`,
  );
  writeFileSync(
    join(dir, 'SUMMARY.txt'),
    `casdoctor bench dump, generator v${GENERATOR_VERSION}, size ${dump.size.name}: ${JSON.stringify(dump.summary)}\n`,
  );
  return bytes;
}

/** Where writeDump puts the preflight manifests of a dump directory (outside it: --from reads the whole directory). */
export const manifestsPath = (dir: string) => `${dir}-manifests.json`;

/**
 * What a CI job would hand to `casdoctor preflight -f`: 40 application Deployments and their PDBs plus 5 StatefulSets
 * of the dump, as `helm template` renders them (no status, uid, resourceVersion or timestamps). The same count at every
 * size, so preflight's growth shows the cluster's share.
 */
function manifests(dump: Dump): Obj[] {
  const strip = (o: Obj) => {
    const c = structuredClone(o);
    delete c.status;
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'annotations', 'ownerReferences'])
      delete c.metadata[k];
    if (c.spec?.template?.metadata) delete c.spec.template.metadata.creationTimestamp;
    return c;
  };
  const apps = dump.kube.deployments.filter((d) => !['kube-system'].includes(d.metadata.namespace)).slice(10, 50);
  const names = new Set(apps.map((d) => `${d.metadata.namespace}/${d.metadata.name}`));
  const pdbs = dump.kube.pdbs.filter((p) => names.has(`${p.metadata.namespace}/${p.metadata.name}`));
  return [...apps, ...pdbs, ...dump.kube.statefulSets.slice(0, 5)].map(strip);
}

/** The same objects as the loader would produce, for the loopback servers (no files involved). */
export function dumpAsInputs(dump: Dump): Record<string, unknown> {
  return {
    ...dump.kube,
    configMaps: [dump.caStatus],
    autoScalingGroups: dump.asgs,
    launchTemplateVersions: dump.launchTemplateVersions,
    scalingActivities: dump.scalingActivities,
    instanceTypes: dump.instanceTypes,
  };
}

/** A named size, or a custom shape "nodes=15000,pods=300000,asgs=1000[,pending=distinct][,name=x]" (named after its figures). */
export function parseSize(arg: string): BenchSize {
  const named = SIZES.find((s) => s.name === arg);
  if (named) return named;
  const kv = new Map(arg.split(',').map((x) => x.split('=') as [string, string]));
  const num = (k: string): number => {
    const v = Number(kv.get(k));
    if (!Number.isInteger(v) || v <= 0) throw new Error(`size ${arg}: ${k}=<positive integer> needed, or one of ${SIZES.map((s) => s.name).join(', ')}`);
    return v;
  };
  const nodes = num('nodes');
  const pods = num('pods');
  const asgs = num('asgs');
  const pending = kv.get('pending') ?? 'stories';
  if (pending !== 'stories' && pending !== 'distinct' && pending !== 'replicas') throw new Error(`size ${arg}: pending=stories|distinct|replicas`);
  return { name: kv.get('name') ?? `n${nodes}-p${pods}-g${asgs}-${pending}`, nodes, pods, asgs, pending };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const size = parseSize(process.argv[2] ?? 'small');
  const name = size.name;
  const dir = resolve(process.argv[3] ?? join(ROOT, 'bench', 'out', 'dumps', name));
  const t0 = performance.now();
  const dump = buildDump(size);
  const bytes = writeDump(dump, dir);
  const mb = Object.values(bytes).reduce((a, b) => a + b, 0) / 1e6;
  console.log(`${name}: ${JSON.stringify(dump.summary)} → ${dir} (${mb.toFixed(0)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
