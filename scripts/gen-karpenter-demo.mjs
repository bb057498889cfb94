#!/usr/bin/env node
// Generates examples/karpenter/: an EKS cluster "shop-prod" in the middle of a migration from Cluster Autoscaler to
// Karpenter (seeds 001/002), captured at 2026-11-24T14:00:00Z (a Tuesday). CA v1.32.1 still manages two ASGs; Karpenter
// v1.6.2 runs three NodePools on two EC2NodeClasses. Every file is what the kubectl / aws command in
// examples/karpenter/README.md prints. Deterministic: ids derive from labels via sha256.
// With --karpenter-only it writes examples/karpenter-only/: the same cluster once the migration is done, Karpenter alone
// (no CA Deployment, pod, ReplicaSet, ServiceAccount, status ConfigMap or events, no ASG or launch-template file; the
// system nodes stay, as an EKS managed node group no autoscaler scales).
// Usage: node scripts/gen-karpenter-demo.mjs [output-dir] [--karpenter-only]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addS, configMap, daemonSet, deployment, event, hexOf, list, node, owner, pod, podRef, rv, safe, uuid, writeJson,
} from './lib/demo-kit.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const KARPENTER_ONLY = args.includes('--karpenter-only');
const outArg = args.find((a) => !a.startsWith('--'));
const outDir = resolve(outArg ?? join(root, 'examples', KARPENTER_ONLY ? 'karpenter-only' : 'karpenter'));

const NOW = '2026-11-24T14:00:00Z';
const CLUSTER = 'shop-prod';
const REGION = 'us-east-1';
const ACCOUNT = '444455556666';
const KUBELET = 'v1.32.9-eks-113cf36';
const CA_IMAGE = 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1';
const KARPENTER_IMAGE = 'public.ecr.aws/karpenter/controller:1.6.2@sha256:' + hexOf('karpenter:1.6.2', 64);
const ZONE_IDS = { 'us-east-1a': 'use1-az4', 'us-east-1b': 'use1-az6', 'us-east-1c': 'use1-az1' };
const nodeName = (ip) => `ip-${ip.replaceAll('.', '-')}.ec2.internal`;
const instanceId = (label) => `i-0${hexOf(`instance:${label}`, 16)}`;
const GIB_KI = 1024 * 1024;

// EC2 shapes (vCPU, memory) and the EKS AL2023 kubelet's allocatable for them (ENI max pods, kube-reserved)
const TYPES = {
  'm5.large': { cpu: 2, memGiB: 8, maxPods: 29, allocCpu: '1930m' },
  'm5.xlarge': { cpu: 4, memGiB: 16, maxPods: 58, allocCpu: '3920m' },
  'm6i.xlarge': { cpu: 4, memGiB: 16, maxPods: 58, allocCpu: '3920m' },
  'm6i.2xlarge': { cpu: 8, memGiB: 32, maxPods: 58, allocCpu: '7910m' },
  'c6i.2xlarge': { cpu: 8, memGiB: 16, maxPods: 58, allocCpu: '7910m' },
  'r6i.large': { cpu: 2, memGiB: 16, maxPods: 29, allocCpu: '1930m' },
  'c6g.4xlarge': { cpu: 16, memGiB: 32, maxPods: 234, allocCpu: '15890m', arch: 'arm64' },
};
const memKi = (t) => t.memGiB * GIB_KI - 330_000;
const allocMemKi = (t) => memKi(t) - (255 + 11 * t.maxPods) * 1024 - 100 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// Nodes: two ASGs CA manages, and Karpenter's nodes
const NODE_DEFS = [
  { key: 'sys-1', ip: '10.20.11.37', zone: 'us-east-1a', type: 'm5.large', created: '2026-10-02T08:14:20Z', asg: 'shop-prod-system',
    labels: { 'eks.amazonaws.com/nodegroup-image': 'ami-0b8f4e1c2d3a59e71', role: 'system' } },
  { key: 'sys-2', ip: '10.20.12.58', zone: 'us-east-1b', type: 'm5.large', created: '2026-10-02T08:14:41Z', asg: 'shop-prod-system',
    labels: { role: 'system' } },
  { key: 'legacy-1', ip: '10.20.11.90', zone: 'us-east-1a', type: 'm5.xlarge', created: '2026-11-18T06:02:10Z', asg: 'shop-prod-legacy',
    labels: { workload: 'legacy' } },
  // Karpenter's nodes
  { key: 'general-a', ip: '10.20.11.141', zone: 'us-east-1a', type: 'm6i.xlarge', created: '2026-11-24T06:41:07Z', pool: 'general', claim: 'general-4ldmz', capacityType: 'on-demand' },
  { key: 'general-b', ip: '10.20.12.77', zone: 'us-east-1b', type: 'c6i.2xlarge', created: '2026-11-23T22:10:52Z', pool: 'general', claim: 'general-9xw2f', capacityType: 'spot' },
  { key: 'general-c', ip: '10.20.11.203', zone: 'us-east-1a', type: 'r6i.large', created: '2026-11-24T09:30:15Z', pool: 'general', claim: 'general-tq8vb', capacityType: 'spot' },
  { key: 'batch-1', ip: '10.20.12.19', zone: 'us-east-1b', type: 'c6g.4xlarge', created: '2026-11-24T11:05:33Z', pool: 'batch', claim: 'batch-h6kpj', capacityType: 'spot' },
  { key: 'batch-2', ip: '10.20.11.66', zone: 'us-east-1a', type: 'c6g.4xlarge', created: '2026-11-24T11:05:40Z', pool: 'batch', claim: 'batch-rz5nc', capacityType: 'spot',
    nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
];

const nodes = NODE_DEFS.map((d) => {
  const t = TYPES[d.type];
  const arch = t.arch ?? 'amd64';
  const name = nodeName(d.ip);
  const karpenterLabels = d.pool
    ? {
        'karpenter.sh/nodepool': d.pool,
        'karpenter.sh/capacity-type': d.capacityType,
        'karpenter.sh/registered': 'true',
        'karpenter.sh/initialized': 'true',
        'karpenter.k8s.aws/ec2nodeclass': 'default',
        'karpenter.k8s.aws/instance-category': d.type[0],
        'karpenter.k8s.aws/instance-family': d.type.split('.')[0],
        'karpenter.k8s.aws/instance-generation': d.type.match(/\d+/)[0],
        'karpenter.k8s.aws/instance-size': d.type.split('.')[1],
        'karpenter.k8s.aws/instance-cpu': String(t.cpu),
        'karpenter.k8s.aws/instance-memory': String(t.memGiB * 1024),
        'karpenter.k8s.aws/instance-hypervisor': 'nitro',
        ...(d.pool === 'general' ? { 'shop.example.com/tier': 'standard' } : { 'shop.example.com/tier': 'batch' }),
      }
    : {
        'eks.amazonaws.com/capacityType': 'ON_DEMAND',
        'eks.amazonaws.com/nodegroup': d.asg,
        'alpha.eksctl.io/nodegroup-name': d.asg.replace(`${CLUSTER}-`, ''),
      };
  return node({
    name, created: d.created, now: NOW, ip: d.ip, kubelet: KUBELET, arch,
    providerID: `aws:///${d.zone}/${instanceId(d.key)}`,
    annotations: {
      'alpha.kubernetes.io/provided-node-ip': d.ip,
      ...(d.pool
        ? {
            'karpenter.k8s.aws/ec2nodeclass-hash': '15593462208040519178',
            'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4',
            'karpenter.sh/nodepool-hash': d.pool === 'general' ? '6821555240147609391' : '11520933165211423650',
            'karpenter.sh/nodepool-hash-version': 'v3',
          }
        : {}),
      ...(d.nodeAnnotations ?? {}),
    },
    labels: {
      'node.kubernetes.io/instance-type': d.type,
      'beta.kubernetes.io/instance-type': d.type,
      'topology.kubernetes.io/region': REGION,
      'topology.kubernetes.io/zone': d.zone,
      'failure-domain.beta.kubernetes.io/region': REGION,
      'failure-domain.beta.kubernetes.io/zone': d.zone,
      'topology.k8s.aws/zone-id': ZONE_IDS[d.zone],
      'k8s.io/cloud-provider-aws': hexOf(`cpa:${CLUSTER}`, 32),
      ...karpenterLabels,
      ...(d.labels ?? {}),
    },
    cpu: String(t.cpu), allocCpu: t.allocCpu, memoryKi: `${memKi(t)}Ki`, allocMemoryKi: `${allocMemKi(t)}Ki`,
    pods: String(t.maxPods), ephemeralKi: '83873772Ki', allocEphemeral: '76224326324',
  });
});
const nodeByKey = new Map(NODE_DEFS.map((d, i) => [d.key, nodes[i]]));
const nn = (key) => nodeByKey.get(key).metadata.name;

// ---------------------------------------------------------------------------------------------------------------
// Karpenter: NodePools, EC2NodeClasses, NodeClaims (karpenter.sh/v1, karpenter.k8s.aws/v1 as the API server serves them)
const cond = (type, status, reason, message, at, generation = 1) => ({
  lastTransitionTime: at, message, observedGeneration: generation, reason, status, type,
});
const req = (key, operator, values, minValues) => ({ key, operator, ...(values ? { values } : {}), ...(minValues ? { minValues } : {}) });
const nodePool = ({ name, created, weight, requirements, taints, labels, limits, disruption, nodeClass, status, expireAfter = '720h' }) => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: {
    annotations: { 'karpenter.sh/nodepool-hash': hexOf(`nph:${name}`, 19).replace(/[a-f]/g, '7'), 'karpenter.sh/nodepool-hash-version': 'v3' },
    creationTimestamp: created, generation: 1, name, resourceVersion: rv(`np:${name}`), uid: uuid(`np:${name}`),
  },
  spec: {
    disruption,
    ...(limits ? { limits } : {}),
    template: {
      metadata: labels ? { labels } : {},
      spec: {
        expireAfter,
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClass },
        requirements,
        ...(taints ? { taints } : {}),
      },
    },
    ...(weight !== undefined ? { weight } : {}),
  },
  status,
});
const POOL_CREATED = '2026-11-10T09:12:44Z';
const poolConds = (nodeClassReady, at = POOL_CREATED) => [
  cond('NodeClassReady', nodeClassReady ? 'True' : 'False', nodeClassReady ? 'NodeClassReady' : 'NodeClassNotReady', nodeClassReady ? '' : 'EC2NodeClass gpu is not ready', at),
  cond('NodeRegistrationHealthy', 'True', 'NodeRegistrationHealthy', '', at),
  cond('Ready', nodeClassReady ? 'True' : 'False', nodeClassReady ? 'Ready' : 'UnhealthyDependents', nodeClassReady ? '' : 'NodeClassReady=False', at),
  cond('ValidationSucceeded', 'True', 'ValidationSucceeded', '', at),
];
const nodePools = [
  nodePool({
    name: 'general', created: POOL_CREATED, weight: 50, nodeClass: 'default',
    labels: { 'shop.example.com/tier': 'standard' },
    requirements: [
      req('kubernetes.io/arch', 'In', ['amd64']),
      req('kubernetes.io/os', 'In', ['linux']),
      req('karpenter.sh/capacity-type', 'In', ['spot', 'on-demand']),
      req('karpenter.k8s.aws/instance-category', 'In', ['c', 'm', 'r']),
      req('karpenter.k8s.aws/instance-generation', 'Gt', ['5']),
    ],
    limits: { cpu: '100', memory: '400Gi' },
    disruption: {
      budgets: [
        { nodes: '20%' },
        // no consolidation of underutilized nodes during business hours (09:00-17:00 UTC, Monday-Friday)
        { duration: '8h', nodes: '0', reasons: ['Underutilized'], schedule: '0 9 * * mon-fri' },
      ],
      consolidateAfter: '5m',
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
    },
    // status.resources at 1.6 sums every state node of the pool, the NodeClaim general-x7k2p without a node included
    // (state/cluster.go:706-745@v1.6.2): its three nodes plus x7k2p's capacity (8 cpu, 80Gi, 32445Mi, 58 pods)
    status: { conditions: poolConds(true), nodeClassObservedGeneration: 1, nodes: 4, resources: { cpu: '22', 'ephemeral-storage': '335507396Ki', memory: `${48 * GIB_KI - 990_000 + 32445 * 1024}Ki`, nodes: '4', pods: '203' } },
  }),
  nodePool({
    name: 'gpu', created: '2026-11-19T15:30:02Z', weight: 10, nodeClass: 'gpu',
    requirements: [
      req('karpenter.k8s.aws/instance-family', 'In', ['g5']),
      req('karpenter.sh/capacity-type', 'In', ['on-demand']),
    ],
    taints: [{ effect: 'NoSchedule', key: 'nvidia.com/gpu', value: 'true' }],
    limits: { 'nvidia.com/gpu': '8' },
    disruption: { budgets: [{ nodes: '10%' }], consolidateAfter: '30m', consolidationPolicy: 'WhenEmpty' },
    status: { conditions: poolConds(false, '2026-11-19T15:30:04Z'), nodeClassObservedGeneration: 1, nodes: 0, resources: { cpu: '0', 'ephemeral-storage': '0', memory: '0', nodes: '0', pods: '0' } },
  }),
  nodePool({
    name: 'batch', created: POOL_CREATED, nodeClass: 'default',
    labels: { 'shop.example.com/tier': 'batch' },
    requirements: [
      req('kubernetes.io/arch', 'In', ['amd64', 'arm64']),
      req('karpenter.sh/capacity-type', 'In', ['spot']),
      req('karpenter.k8s.aws/instance-category', 'In', ['c']),
    ],
    limits: { cpu: '32' },
    disruption: { budgets: [{ nodes: '10%' }], consolidateAfter: '10m', consolidationPolicy: 'WhenEmpty' },
    status: { conditions: poolConds(true), nodeClassObservedGeneration: 1, nodes: 2, resources: { cpu: '32', 'ephemeral-storage': '167747544Ki', memory: `${64 * GIB_KI - 660_000}Ki`, nodes: '2', pods: '468' } },
  }),
];

const SUBNETS = [
  { id: 'subnet-0c3e5a7b9d1f24681', zone: 'us-east-1a', zoneID: 'use1-az4' },
  { id: 'subnet-0d4f6b8c0e2a35792', zone: 'us-east-1b', zoneID: 'use1-az6' },
];
const ncConds = (ok, at, amiMsg) => [
  cond('AMIsReady', ok ? 'True' : 'False', ok ? 'AMIsReady' : 'AMINotFound', ok ? '' : amiMsg, at, 1),
  cond('CapacityReservationsReady', 'True', 'CapacityReservationsReady', '', at, 1),
  cond('InstanceProfileReady', 'True', 'InstanceProfileReady', '', at, 1),
  cond('Ready', ok ? 'True' : 'False', ok ? 'Ready' : 'UnhealthyDependents', ok ? '' : 'AMIsReady=False', at, 1),
  cond('SecurityGroupsReady', 'True', 'SecurityGroupsReady', '', at, 1),
  cond('SubnetsReady', 'True', 'SubnetsReady', '', at, 1),
  cond('ValidationSucceeded', 'True', 'ValidationSucceeded', '', at, 1),
];
const nodeClass = ({ name, created, amiSelectorTerms, amis, ok, amiMsg }) => ({
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: {
    annotations: { 'karpenter.k8s.aws/ec2nodeclass-hash': '15593462208040519178', 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4' },
    creationTimestamp: created, finalizers: ['karpenter.k8s.aws/termination'], generation: 1, name,
    resourceVersion: rv(`nc:${name}`), uid: uuid(`nc:${name}`),
  },
  spec: {
    amiSelectorTerms,
    blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { deleteOnTermination: true, encrypted: true, volumeSize: '80Gi', volumeType: 'gp3' } }],
    metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    role: `KarpenterNodeRole-${CLUSTER}`,
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
  },
  status: {
    amis,
    conditions: ncConds(ok, addS(created, 3), amiMsg),
    instanceProfile: `${CLUSTER}_${hexOf(`ip:${name}`, 19).replace(/[a-f]/g, '3')}`,
    securityGroups: [{ id: 'sg-05e7a9c1b3d5f7092', name: `eks-cluster-sg-${CLUSTER}-1487263905` }],
    subnets: SUBNETS,
  },
});
const AL2023 = (arch, id) => ({
  id, name: `amazon-eks-node-al2023-${arch === 'amd64' ? 'x86_64' : 'arm64'}-standard-1.32-v20251108`,
  requirements: [req('kubernetes.io/arch', 'In', [arch])],
});
const nodeClasses = [
  nodeClass({
    name: 'default', created: POOL_CREATED, ok: true, amiSelectorTerms: [{ alias: 'al2023@v20251108' }],
    amis: [AL2023('amd64', 'ami-0a7c1f3e5b9d24680'), AL2023('arm64', 'ami-0b8d2e4f6a0c35791')],
  }),
  // the gpu class selects AMIs by a name pattern that matches nothing in this region
  nodeClass({
    name: 'gpu', created: '2026-11-19T15:29:58Z', ok: false, amiSelectorTerms: [{ name: 'shop-gpu-al2023-*', owner: ACCOUNT }],
    amis: [], amiMsg: 'AMISelector did not match any AMIs',
  }),
];

const claimFor = (d) => {
  const t = TYPES[d.type];
  const registered = !d.unregistered;
  const nameN = d.unregistered ? undefined : nodeName(d.ip);
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      annotations: {
        'compatibility.karpenter.k8s.aws/cluster-name-tagged': 'true',
        'karpenter.k8s.aws/ec2nodeclass-hash': '15593462208040519178',
        'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4',
        'karpenter.k8s.aws/tagged': 'true',
        'karpenter.sh/nodepool-hash': d.pool === 'general' ? '6821555240147609391' : '11520933165211423650',
        'karpenter.sh/nodepool-hash-version': 'v3',
      },
      creationTimestamp: addS(d.created, -52),
      finalizers: ['karpenter.sh/termination'],
      generateName: `${d.pool}-`,
      generation: 1,
      labels: {
        'karpenter.k8s.aws/ec2nodeclass': 'default',
        'karpenter.k8s.aws/instance-category': d.type[0],
        'karpenter.k8s.aws/instance-cpu': String(t.cpu),
        'karpenter.k8s.aws/instance-family': d.type.split('.')[0],
        'karpenter.k8s.aws/instance-generation': d.type.match(/\d+/)[0],
        'karpenter.k8s.aws/instance-memory': String(t.memGiB * 1024),
        'karpenter.k8s.aws/instance-size': d.type.split('.')[1],
        'karpenter.sh/capacity-type': d.capacityType,
        'karpenter.sh/nodepool': d.pool,
        'kubernetes.io/arch': t.arch ?? 'amd64',
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': d.type,
        'topology.k8s.aws/zone-id': ZONE_IDS[d.zone],
        'topology.kubernetes.io/region': REGION,
        'topology.kubernetes.io/zone': d.zone,
        'shop.example.com/tier': d.pool === 'general' ? 'standard' : 'batch',
      },
      name: d.claim,
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', blockOwnerDeletion: true, kind: 'NodePool', name: d.pool, uid: uuid(`np:${d.pool}`) }],
      resourceVersion: rv(`nc:${d.claim}`),
      uid: uuid(`nodeclaim:${d.claim}`),
    },
    spec: {
      expireAfter: '720h',
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [
        req('karpenter.sh/nodepool', 'In', [d.pool]),
        req('node.kubernetes.io/instance-type', 'In', d.candidates ?? [d.type]),
        req('karpenter.sh/capacity-type', 'In', [d.capacityType]),
        req('topology.kubernetes.io/zone', 'In', [d.zone]),
      ],
      resources: { requests: { cpu: d.requestedCpu ?? '1250m', ...(d.requestedMemory ? { memory: d.requestedMemory } : {}), pods: '6' } },
    },
    status: {
      allocatable: { cpu: t.allocCpu, 'ephemeral-storage': '71Gi', memory: `${Math.floor(allocMemKi(t) / 1024)}Mi`, pods: String(t.maxPods) },
      capacity: { cpu: String(t.cpu), 'ephemeral-storage': '80Gi', memory: `${Math.floor(memKi(t) / 1024)}Mi`, pods: String(t.maxPods) },
      conditions: [
        cond('Launched', 'True', 'Launched', '', addS(d.created, -40)),
        registered
          ? cond('Registered', 'True', 'Registered', '', d.created)
          : cond('Registered', 'Unknown', 'AwaitingReconciliation', 'object is awaiting reconciliation', addS(d.created, -52)),
        registered
          ? cond('Initialized', 'True', 'Initialized', '', addS(d.created, 31))
          : cond('Initialized', 'Unknown', 'AwaitingReconciliation', 'object is awaiting reconciliation', addS(d.created, -52)),
        ...(registered && d.pool === 'general'
          ? [cond('Consolidatable', 'True', 'Consolidatable', '', addS(d.consolidatableAt ?? d.created, 300))]
          : []),
        cond('Ready', registered ? 'True' : 'Unknown', registered ? 'Ready' : 'UnhealthyDependents', registered ? '' : 'Registered=Unknown, Initialized=Unknown', registered ? addS(d.created, 31) : addS(d.created, -52)),
      ],
      imageID: (t.arch ?? 'amd64') === 'amd64' ? 'ami-0a7c1f3e5b9d24680' : 'ami-0b8d2e4f6a0c35791',
      ...(registered ? { lastPodEventTime: d.lastPodEvent ?? addS(d.created, 95), nodeName: nameN } : {}),
      providerID: `aws:///${d.zone}/${instanceId(d.key)}`,
    },
  };
};
const NEVER_REGISTERED = {
  key: 'general-lost', pool: 'general', claim: 'general-x7k2p', type: 'm6i.2xlarge', zone: 'us-east-1b', capacityType: 'on-demand',
  // launched 13 minutes ago; the instance came up but its kubelet never joined (Karpenter deletes it at 15m)
  created: addS(NOW, -13 * 60 + 52), unregistered: true, requestedCpu: '7155m',
};
// why-this-type scene: general-a's NodeClaim (2750m, 12Gi) carries the list Karpenter 1.6.2 writes: every type of the
// general pool (c/m/r, generation > 5, amd64) that holds it, cheapest on-demand first, cut at 60 (core v1.6's
// MaxInstanceTypes); GPU and metal types are left out of this list for brevity. Its launch at 06:40:26 hit
// InsufficientInstanceCapacity for the two cheapest pools in us-east-1a (karpenter.log) and fell back to m6i.xlarge.
const OD_PRICES = JSON.parse(readFileSync(join(root, 'data', 'prices-on-demand.json'), 'utf8')).regions[REGION].prices;
const TYPE_TABLE = JSON.parse(readFileSync(join(root, 'data', 'instance-types.json'), 'utf8')).instanceTypes;
const GENERAL_A_CANDIDATES = Object.keys(TYPE_TABLE)
  .filter((n) => {
    const m = /^([a-z]+?)(\d+)[a-z-]*\.(.+)$/.exec(n);
    const t = TYPE_TABLE[n];
    return m && ['c', 'm', 'r'].includes(m[1]) && Number(m[2]) > 5 && !m[3].includes('metal') && t.architecture === 'amd64' &&
      t.gpu === 0 && t.vcpu >= 4 && t.memoryMiB >= 16384 && OD_PRICES[n] !== undefined;
  })
  .sort((a, b) => OD_PRICES[a] - OD_PRICES[b] || (a < b ? -1 : 1))
  .slice(0, 60);
const CLAIM_EXTRA = { 'general-a': { candidates: GENERAL_A_CANDIDATES, requestedCpu: '2750m', requestedMemory: '12Gi' } };
const nodeClaims = [
  ...NODE_DEFS.filter((d) => d.pool).map((d) => claimFor({
    ...d,
    ...(CLAIM_EXTRA[d.key] ?? {}),
    lastPodEvent: d.key === 'general-b' ? '2026-11-24T09:02:18Z' : d.key === 'general-c' ? '2026-11-24T13:57:40Z' : undefined,
  })),
  claimFor(NEVER_REGISTERED),
];

// ---------------------------------------------------------------------------------------------------------------
// AWS: the two ASGs CA manages (aws autoscaling describe-auto-scaling-groups --output json)
const awsTime = (iso) => `${iso.slice(0, 19)}.512000+00:00`;
const ltName = (asg) => `eks-${asg}-${hexOf(`lt:${asg}`, 8)}`;
const ltId = (asg) => `lt-0${hexOf(`ltid:${asg}`, 16)}`;
const asg = ({ name, min, max, desired, zones, subnets, instanceType, nodeKeys, tags, created }) => ({
  AutoScalingGroupName: name,
  AutoScalingGroupARN: `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:${uuid(`asg:${name}`)}:autoScalingGroupName/${name}`,
  LaunchTemplate: { LaunchTemplateId: ltId(name), LaunchTemplateName: ltName(name), Version: '1' },
  MinSize: min, MaxSize: max, DesiredCapacity: desired, DefaultCooldown: 300,
  AvailabilityZones: zones, LoadBalancerNames: [], TargetGroupARNs: [], HealthCheckType: 'EC2', HealthCheckGracePeriod: 15,
  Instances: nodeKeys.map((k) => {
    const d = NODE_DEFS.find((x) => x.key === k);
    return {
      InstanceId: instanceId(k), InstanceType: instanceType, AvailabilityZone: d.zone, LifecycleState: 'InService',
      HealthStatus: 'Healthy', LaunchTemplate: { LaunchTemplateId: ltId(name), LaunchTemplateName: ltName(name), Version: '1' },
      ProtectedFromScaleIn: false,
    };
  }),
  CreatedTime: awsTime(created), SuspendedProcesses: [], VPCZoneIdentifier: subnets.join(','), EnabledMetrics: [],
  Tags: Object.entries(tags).map(([Key, Value]) => ({ ResourceId: name, ResourceType: 'auto-scaling-group', Key, Value, PropagateAtLaunch: true })),
  TerminationPolicies: ['AllocationStrategy', 'OldestLaunchTemplate', 'OldestInstance'],
  NewInstancesProtectedFromScaleIn: false, ServiceLinkedRoleARN: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling`,
  CapacityRebalance: false,
});
const discoveryTags = { 'k8s.io/cluster-autoscaler/enabled': 'true', [`k8s.io/cluster-autoscaler/${CLUSTER}`]: 'owned', [`kubernetes.io/cluster/${CLUSTER}`]: 'owned', 'eks:cluster-name': CLUSTER };
const asgs = [
  asg({ name: 'shop-prod-system', min: 2, max: 4, desired: 2, zones: ['us-east-1a', 'us-east-1b'], subnets: SUBNETS.map((s) => s.id),
    instanceType: 'm5.large', nodeKeys: ['sys-1', 'sys-2'], created: '2026-10-02T08:12:03Z',
    tags: { ...discoveryTags, Name: 'shop-prod-system', 'k8s.io/cluster-autoscaler/node-template/label/role': 'system' } }),
  asg({ name: 'shop-prod-legacy', min: 0, max: 5, desired: 2, zones: ['us-east-1a'], subnets: [SUBNETS[0].id],
    instanceType: 'm5.xlarge', nodeKeys: ['legacy-1'], created: '2026-11-18T06:00:40Z',
    tags: { ...discoveryTags, Name: 'shop-prod-legacy', 'k8s.io/cluster-autoscaler/node-template/label/workload': 'legacy' } }),
];
// CA's scale-up for the third report-gen replica, 2m28s ago: the new instance is still booting
asgs[1].Instances.push({
  InstanceId: instanceId('legacy-2'), InstanceType: 'm5.xlarge', AvailabilityZone: 'us-east-1a', LifecycleState: 'Pending',
  HealthStatus: 'Healthy', LaunchTemplate: asgs[1].LaunchTemplate, ProtectedFromScaleIn: false,
});
const launchTemplateVersions = asgs.map((a) => ({
  LaunchTemplateId: ltId(a.AutoScalingGroupName), LaunchTemplateName: ltName(a.AutoScalingGroupName), VersionNumber: 1,
  CreateTime: a.CreatedTime.replace('.512000', ''), CreatedBy: `arn:aws:sts::${ACCOUNT}:assumed-role/platform-terraform/terraform-run-41220`,
  DefaultVersion: true,
  LaunchTemplateData: {
    ImageId: 'ami-0b8f4e1c2d3a59e71', InstanceType: a.Instances[0].InstanceType,
    MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 2, HttpEndpoint: 'enabled' },
    SecurityGroupIds: ['sg-05e7a9c1b3d5f7092'],
  },
}));

// ---------------------------------------------------------------------------------------------------------------
// Workloads
const deployments = [];
const replicaSets = [];
const daemonSets = [];
const pods = [];
const events = [];
const pdbs = [];
const res = (cpu, memory, extra = {}) => ({ requests: { cpu, memory, ...extra }, limits: { memory, ...extra } });

function addDeployment({ ns, name, replicas, labels, container, nodeSelector, tolerations, affinity, created, placed = [],
  pending = [], annotations, priorityClassName, priority }) {
  const podSpec = {
    containers: [{ image: container.image, name: container.name, resources: container.resources }],
    ...(nodeSelector ? { nodeSelector } : {}),
    ...(tolerations ? { tolerations } : {}),
    ...(affinity ? { affinity } : {}),
  };
  const { dep, rs, hash, rsName } = deployment({ ns, name, replicas, labels, podSpec, created, readyReplicas: placed.length, annotations });
  deployments.push(dep);
  replicaSets.push(rs);
  const slots = [...placed.map((k) => ({ nodeName: nn(k), key: k })), ...pending.map((p) => ({ pending: p }))];
  slots.forEach((slot, i) => {
    const podName = `${rsName}-${safe(`pod:${ns}/${name}/${i}`, 5)}`;
    const nodeCreated = slot.key ? NODE_DEFS.find((d) => d.key === slot.key).created : undefined;
    const podCreated = slot.pending ? slot.pending.created : addS(nodeCreated > created ? nodeCreated : created, 40 + i * 3);
    const p = pod({
      ns, name: podName, generateName: `${rsName}-`, labels: { ...labels, 'pod-template-hash': hash },
      ...(annotations ? { annotations } : {}),
      ownerRef: owner('ReplicaSet', rsName), created: podCreated,
      containers: [container], nodeName: slot.nodeName, nodeSelector, tolerations, affinity,
      priorityClassName, priority, schedulerMessage: slot.pending?.scheduler,
    });
    pods.push(p);
    if (slot.pending) {
      events.push(event({ ns, involved: podRef(p), reason: 'FailedScheduling', type: 'Warning', message: slot.pending.scheduler,
        source: 'default-scheduler', first: slot.pending.created, last: addS(NOW, -70), count: slot.pending.count ?? 11 }));
      if (slot.pending.karpenter) {
        events.push(event({ ns, involved: podRef(p), reason: 'FailedScheduling', type: 'Warning', message: slot.pending.karpenter,
          source: 'karpenter', first: addS(slot.pending.created, 2), last: addS(NOW, -41), count: slot.pending.karpenterCount ?? 9, label: 'karpenter' }));
      }
      if (slot.pending.ca) {
        events.push(event({ ns, involved: podRef(p), reason: slot.pending.caReason ?? 'NotTriggerScaleUp', type: 'Normal',
          message: slot.pending.ca, source: 'cluster-autoscaler', first: addS(slot.pending.created, 9), last: addS(NOW, -38), count: slot.pending.caCount ?? 6, label: 'ca' }));
      }
    }
  });
}

const SYSTEM_TOL = [{ effect: 'NoSchedule', key: 'CriticalAddonsOnly', operator: 'Exists' }];
const onSystem = { role: 'system' };
// ---- Cluster Autoscaler (kube-system) and Karpenter (namespace karpenter), both on the system ASG
{
  const caArgs = [
    './cluster-autoscaler', '--v=4', '--stderrthreshold=info', '--cloud-provider=aws', '--expander=least-waste',
    '--balance-similar-node-groups', '--skip-nodes-with-system-pods=false',
    `--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/${CLUSTER}`,
  ];
  const container = { name: 'cluster-autoscaler', image: CA_IMAGE, resources: { limits: { cpu: '100m', memory: '600Mi' }, requests: { cpu: '100m', memory: '600Mi' } } };
  addDeployment({ ns: 'kube-system', name: 'cluster-autoscaler', replicas: 1, labels: { app: 'cluster-autoscaler' }, container,
    nodeSelector: onSystem, created: '2026-10-02T08:30:11Z', placed: ['sys-1'], priorityClassName: 'system-cluster-critical', priority: 2000000000 });
  const dep = deployments.at(-1);
  dep.spec.template.spec.containers[0].command = caArgs;
  dep.spec.template.spec.serviceAccountName = 'cluster-autoscaler';
  const p = pods.at(-1);
  p.spec.containers[0].command = caArgs;
}
{
  const container = { name: 'controller', image: KARPENTER_IMAGE, resources: { limits: { memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } };
  addDeployment({ ns: 'karpenter', name: 'karpenter', replicas: 2, labels: { 'app.kubernetes.io/instance': 'karpenter', 'app.kubernetes.io/name': 'karpenter' },
    container, nodeSelector: onSystem, created: '2026-11-10T09:10:30Z', placed: ['sys-1', 'sys-2'],
    priorityClassName: 'system-cluster-critical', priority: 2000000000,
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }] } } } });
  const env = [
    { name: 'KUBERNETES_MIN_VERSION', value: '1.19.0-0' },
    { name: 'KARPENTER_SERVICE', value: 'karpenter' },
    { name: 'WEBHOOK_PORT', value: '8443' },
    { name: 'DISABLE_WEBHOOK', value: 'true' },
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'METRICS_PORT', value: '8080' },
    { name: 'HEALTH_PROBE_PORT', value: '8081' },
    { name: 'SYSTEM_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
    { name: 'MEMORY_LIMIT', valueFrom: { resourceFieldRef: { containerName: 'controller', divisor: '0', resource: 'limits.memory' } } },
    { name: 'FEATURE_GATES', value: 'ReservedCapacity=true,SpotToSpotConsolidation=false,NodeRepair=false,NodeOverlay=false,StaticCapacity=false' },
    { name: 'BATCH_MAX_DURATION', value: '10s' },
    { name: 'BATCH_IDLE_DURATION', value: '1s' },
    { name: 'CLUSTER_NAME', value: CLUSTER },
    { name: 'VM_MEMORY_OVERHEAD_PERCENT', value: '0.075' },
    { name: 'INTERRUPTION_QUEUE', value: CLUSTER },
    { name: 'RESERVED_ENIS', value: '0' },
  ];
  deployments.at(-1).spec.template.spec.containers[0].env = env;
  for (const p of pods.slice(-2)) p.spec.containers[0].env = env;
}
addDeployment({
  ns: 'kube-system', name: 'coredns', replicas: 2, labels: { 'k8s-app': 'kube-dns' }, created: '2026-10-02T08:20:00Z',
  container: { name: 'coredns', image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/coredns:v1.11.4-eksbuild.2', resources: { requests: { cpu: '100m', memory: '70Mi' }, limits: { memory: '170Mi' } } },
  tolerations: SYSTEM_TOL, placed: ['sys-1', 'sys-2'], priorityClassName: 'system-cluster-critical', priority: 2000000000,
});

// ---- DaemonSets: kube-proxy, aws-node, ebs-csi-node everywhere
for (const d of [
  { ns: 'kube-system', name: 'kube-proxy', labels: { 'k8s-app': 'kube-proxy' }, image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.32.6-eksbuild.8', r: { requests: { cpu: '100m' } } },
  { ns: 'kube-system', name: 'aws-node', labels: { 'k8s-app': 'aws-node' }, image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.20.4-eksbuild.1', r: { requests: { cpu: '25m' } } },
  { ns: 'kube-system', name: 'ebs-csi-node', labels: { app: 'ebs-csi-node' }, image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-ebs-csi-driver:v1.51.0', r: { requests: { cpu: '30m', memory: '120Mi' }, limits: { memory: '256Mi' } } },
]) {
  const tol = [{ operator: 'Exists' }];
  const podSpec = { containers: [{ image: d.image, name: d.name, resources: d.r }], tolerations: tol, priorityClassName: 'system-node-critical' };
  daemonSets.push(daemonSet({ ns: d.ns, name: d.name, labels: d.labels, podSpec, created: '2026-10-02T08:20:00Z', scheduled: NODE_DEFS.length }));
  for (const n of NODE_DEFS) {
    const p = pod({
      ns: d.ns, name: `${d.name}-${safe(`ds:${d.name}/${n.key}`, 5)}`, generateName: `${d.name}-`,
      labels: { ...d.labels, 'controller-revision-hash': safe(`rev:${d.name}`, 10), 'pod-template-generation': '1' },
      ownerRef: owner('DaemonSet', d.name), created: addS(n.created, 15), nodeName: nn(n.key),
      containers: [{ name: d.name, image: d.image, resources: d.r }], tolerations: tol,
      priorityClassName: 'system-node-critical', priority: 2000001000,
    });
    p.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nn(n.key)] }] }] } } };
    pods.push(p);
  }
}

// ---- Running workloads on Karpenter's nodes (each node's story is in the README)
// general-a: light use, but a pod that must not be interrupted while it runs a migration
addDeployment({
  ns: 'checkout', name: 'schema-migrator', replicas: 1, labels: { app: 'schema-migrator' }, created: '2026-11-24T06:40:00Z',
  annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
  container: { name: 'migrate', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/checkout/migrator:3.2.0`, resources: res('250m', '512Mi') },
  placed: ['general-a'],
});
// general-b: underutilized spot node; the business-hours budget allows no Underutilized disruption now
addDeployment({
  ns: 'web', name: 'storefront', replicas: 2, labels: { app: 'storefront' }, created: '2026-11-23T22:00:00Z',
  container: { name: 'web', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/web/storefront:9.4.1`, resources: res('500m', '1Gi') },
  placed: ['general-b', 'general-b'],
});
// general-c: one pod of a PDB that allows no disruption
addDeployment({
  ns: 'checkout', name: 'payments-api', replicas: 2, labels: { app: 'payments-api' }, created: '2026-11-24T09:29:00Z',
  container: { name: 'api', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/checkout/payments-api:12.0.3`, resources: res('500m', '1Gi') },
  placed: ['general-c', 'general-a'],
});
pdbs.push({
  apiVersion: 'policy/v1', kind: 'PodDisruptionBudget',
  metadata: { creationTimestamp: '2026-11-10T10:02:00Z', generation: 1, name: 'payments-api', namespace: 'checkout', resourceVersion: rv('pdb:payments'), uid: uuid('pdb:payments') },
  spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'payments-api' } } },
  status: { conditions: [{ lastTransitionTime: '2026-11-24T09:30:40Z', message: '', observedGeneration: 1, reason: 'InsufficientPods', status: 'False', type: 'DisruptionAllowed' }],
    currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0, expectedPods: 2, observedGeneration: 1 },
});
// batch nodes: busy spark executors (the pool consolidates only empty nodes); batch-2 is pinned by its annotation
addDeployment({
  ns: 'analytics', name: 'spark-exec', replicas: 4, labels: { app: 'spark-exec' }, created: '2026-11-24T11:04:40Z',
  nodeSelector: { 'karpenter.sh/nodepool': 'batch' },
  container: { name: 'executor', image: 'apache/spark:3.5.3', resources: res('7', '12Gi') },
  placed: ['batch-1', 'batch-1', 'batch-2', 'batch-2'],
  // the fourth executor: batch's cpu limit (32) is used up by its two nodes
  pending: [],
});
// legacy ASG workload (CA's), running
addDeployment({
  ns: 'legacy', name: 'report-gen', replicas: 2, labels: { app: 'report-gen' }, created: '2026-11-18T06:05:00Z',
  nodeSelector: { workload: 'legacy' },
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }] } } },
  container: { name: 'report', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/legacy/report-gen:1.9.0`, resources: res('1500m', '4Gi') },
  placed: ['legacy-1', 'legacy-1'],
  // a third replica (scaled this morning) waits for CA: Karpenter ignores it by design
  pending: [{
    created: '2026-11-24T13:57:12Z',
    scheduler: "0/8 nodes are available: 1 Insufficient cpu, 7 node(s) didn't match Pod's node affinity/selector. preemption: 0/8 nodes are available: 1 No preemption victims found for incoming pod, 7 Preemption is not helpful for scheduling.",
    ca: 'pod triggered scale-up: [{shop-prod-legacy 1->2 (max: 5)}]', caReason: 'TriggeredScaleUp', caCount: 1,
  }],
});

// ---- Pending pods, one Karpenter reason each. The FailedScheduling texts are Karpenter 1.6.2's (v1.5+: the per-pool
// errors joined by "; ", without the pre-v1.5 prefix `incompatible with nodepool "x", daemonset overhead={...},`);
// pools in its order (general 50, gpu 10 not Ready and dropped, batch 0). karpenter scheduling/events.go, nodeclaim.go
// Every pod is also over batch's cpu limit (32 of 32 used): limits are checked first, so batch's error is the same for all.
const BATCH_LIMITS = 'all available instance types exceed limits for nodepool (NodePool=batch)';
// the general pool's template requirements as requirements.String prints them at core 1.6.1 (sorted; template labels
// included; Gt printed as " >5" before v1.9; no karpenter.sh/registered|initialized, which v1.14 added)
const GENERAL_REQS = 'karpenter.k8s.aws/ec2nodeclass In [default], karpenter.k8s.aws/instance-category In [c m r], karpenter.k8s.aws/instance-generation Exists >5, karpenter.sh/capacity-type In [on-demand spot], karpenter.sh/nodepool In [general], kubernetes.io/arch In [amd64], kubernetes.io/os In [linux], shop.example.com/tier In [standard]';
const SCHED = (reasons, preemption = '8 Preemption is not helpful for scheduling') =>
  `0/8 nodes are available: ${reasons}. preemption: 0/8 nodes are available: ${preemption}.`;
// 1. a custom label no NodePool defines
addDeployment({
  ns: 'web', name: 'search-indexer', replicas: 1, labels: { app: 'search-indexer' }, created: '2026-11-24T12:31:00Z',
  nodeSelector: { 'shop.example.com/team': 'search' },
  container: { name: 'indexer', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/web/search-indexer:2.7.0`, resources: res('1', '2Gi') },
  pending: [{
    created: '2026-11-24T12:31:04Z',
    scheduler: SCHED("8 node(s) didn't match Pod's node affinity/selector"),
    karpenter: 'Failed to schedule pod, incompatible requirements, label "shop.example.com/team" does not have known values; ' + BATCH_LIMITS,
  }],
});
// 2. a GPU workload: the gpu NodePool's EC2NodeClass is not ready, the other pools have no GPU instance types
addDeployment({
  ns: 'ml', name: 'embedder', replicas: 1, labels: { app: 'embedder' }, created: '2026-11-24T13:20:00Z',
  tolerations: [{ effect: 'NoSchedule', key: 'nvidia.com/gpu', operator: 'Exists' }],
  container: { name: 'embedder', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/ml/embedder:0.4.1`, resources: res('4', '16Gi', { 'nvidia.com/gpu': '1' }) },
  pending: [{
    created: '2026-11-24T13:20:03Z',
    scheduler: SCHED('7 Insufficient cpu, 8 Insufficient memory, 8 Insufficient nvidia.com/gpu', '8 No preemption victims found for incoming pod'),
    karpenter: `Failed to schedule pod, no instance type has enough resources, requirements=${GENERAL_REQS}, resources={"cpu":"4155m","memory":"16504Mi","nvidia.com/gpu":"1","pods":"4"}; ${BATCH_LIMITS}`,
  }],
});
// 3. pinned to a zone the NodeClass has no subnet in
addDeployment({
  ns: 'checkout', name: 'fraud-scorer', replicas: 1, labels: { app: 'fraud-scorer' }, created: '2026-11-24T13:05:00Z',
  nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1c' },
  container: { name: 'scorer', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/checkout/fraud-scorer:5.0.0`, resources: res('1', '2Gi') },
  pending: [{
    created: '2026-11-24T13:05:02Z',
    scheduler: SCHED("8 node(s) didn't match Pod's node affinity/selector"),
    // before v1.14 "enough resources" ignores offerings (nodeclaim.go:396,447-449@v1.6.2): types fit, none is offered in us-east-1c
    karpenter: `Failed to schedule pod, no instance type met the scheduling requirements or had a required offering, requirements=${GENERAL_REQS}, topology.kubernetes.io/zone In [us-east-1c], resources={"cpu":"1155m","memory":"2168Mi","pods":"4"}; ${BATCH_LIMITS}`,
  }],
});
// 4. batch executors beyond the pool's cpu limit
addDeployment({
  ns: 'analytics', name: 'spark-exec-adhoc', replicas: 1, labels: { app: 'spark-exec-adhoc' }, created: '2026-11-24T13:40:00Z',
  nodeSelector: { 'karpenter.sh/nodepool': 'batch' },
  container: { name: 'executor', image: 'apache/spark:3.5.3', resources: res('7', '12Gi') },
  pending: [{
    created: '2026-11-24T13:40:01Z',
    scheduler: SCHED("2 Insufficient cpu, 2 Insufficient memory, 6 node(s) didn't match Pod's node affinity/selector", '2 No preemption victims found for incoming pod, 6 Preemption is not helpful for scheduling'),
    karpenter: 'Failed to schedule pod, incompatible requirements, key karpenter.sh/nodepool, karpenter.sh/nodepool In [batch] not in karpenter.sh/nodepool In [general]; ' + BATCH_LIMITS,
  }],
});
// 5. waits for the NodeClaim that never registered (Karpenter nominated it)
addDeployment({
  ns: 'web', name: 'recommendations', replicas: 1, labels: { app: 'recommendations' }, created: '2026-11-24T13:46:10Z',
  container: { name: 'api', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/web/recommendations:1.1.2`, resources: res('7', '14Gi') },
  pending: [{
    created: '2026-11-24T13:46:12Z',
    scheduler: SCHED('8 Insufficient cpu, 8 Insufficient memory', '8 No preemption victims found for incoming pod'),
  }],
});
// 6. fits a CA group's template and a NodePool alike, created seconds ago: CA and Karpenter may both provision
addDeployment({
  ns: 'web', name: 'image-resizer', replicas: 1, labels: { app: 'image-resizer' }, created: '2026-11-24T13:59:50Z',
  container: { name: 'resizer', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/web/image-resizer:4.0.2`, resources: res('1500m', '13824Mi') },
  pending: [{
    created: '2026-11-24T13:59:52Z', count: 1,
    scheduler: SCHED('4 Insufficient cpu, 6 Insufficient memory', '8 No preemption victims found for incoming pod'),
  }],
});
// 7. opted out of Karpenter (left to CA), but no ASG instance type holds it: nobody provisions
addDeployment({
  ns: 'legacy', name: 'pdf-archiver', replicas: 1, labels: { app: 'pdf-archiver' }, created: '2026-11-24T12:10:00Z',
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }] } } },
  container: { name: 'archiver', image: `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/legacy/pdf-archiver:2.3.1`, resources: res('6', '8Gi') },
  pending: [{
    created: '2026-11-24T12:10:03Z',
    scheduler: SCHED("3 Insufficient cpu, 5 node(s) didn't match Pod's node affinity/selector", '3 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling'),
    ca: 'pod didn\'t trigger scale-up: 2 Insufficient cpu, 1 Insufficient memory', caCount: 14,
  }],
});
{
  const rec = pods.find((p) => p.metadata.namespace === 'web' && p.metadata.name.startsWith('recommendations-'));
  events.push(event({ ns: 'web', involved: podRef(rec), reason: 'Nominated', type: 'Normal', source: 'karpenter',
    message: `Pod should schedule on: nodeclaim/${NEVER_REGISTERED.claim}`, first: addS(NEVER_REGISTERED.created, -50), last: addS(NOW, -30), count: 12, label: 'nominated' }));
}
// the gpu pool's class is not ready: Karpenter says so on the NodePool
events.push(event({ ns: 'default', involved: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: 'gpu', uid: uuid('np:gpu'), resourceVersion: rv('np:gpu') },
  reason: 'NodeClassNotReady', type: 'Warning', source: 'karpenter', message: 'EC2NodeClass gpu is not ready: AMISelector did not match any AMIs', first: '2026-11-19T15:30:04Z', last: addS(NOW, -300), count: 412, label: 'ncnr' }));
// disruption events on the nodes Karpenter would consolidate
const nodeRef = (key) => ({ apiVersion: 'v1', kind: 'Node', name: nn(key), uid: nodeByKey.get(key).metadata.uid });
events.push(event({ ns: 'default', involved: nodeRef('general-a'), reason: 'DisruptionBlocked', type: 'Normal', source: 'karpenter',
  // statenode.go:239-241@v1.6.2 as events.go Blocked publishes it (capitalised); the `Pod "ns/name" has …` form is v1.4's
  message: `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=checkout/${pods.find((p) => p.metadata.name.startsWith('schema-migrator-')).metadata.name})`, first: '2026-11-24T06:47:00Z', last: addS(NOW, -120), count: 87, label: 'dnd' }));
events.push(event({ ns: 'default', involved: nodeRef('batch-2'), reason: 'DisruptionBlocked', type: 'Normal', source: 'karpenter',
  message: 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation', first: '2026-11-24T11:16:00Z', last: addS(NOW, -120), count: 33, label: 'dndn' }));

// ---------------------------------------------------------------------------------------------------------------
// the Karpenter-only variant: every trace of CA removed, as `kubectl get` prints the cluster once CA is uninstalled
const isCa = (o) => o.metadata.namespace === 'kube-system' && /^cluster-autoscaler/.test(o.metadata.name);
if (KARPENTER_ONLY) {
  for (const list_ of [pods, deployments, replicaSets]) list_.splice(0, list_.length, ...list_.filter((o) => !isCa(o)));
  events.splice(0, events.length, ...events.filter((e) => e.source?.component !== 'cluster-autoscaler' && e.reportingComponent !== 'cluster-autoscaler'));
}
const key = (o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byName = (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
const typed = (apiVersion, kind, items) => ({ apiVersion, items, kind, metadata: { continue: '', resourceVersion: '9184402' } });
writeJson(outDir, 'nodes.json', list(nodes));
writeJson(outDir, 'pods.json', list(pods.sort(byName)));
writeJson(outDir, 'deployments.json', list(deployments.sort(byName)));
writeJson(outDir, 'replicasets.json', list(replicaSets.sort(byName)));
writeJson(outDir, 'daemonsets.json', list(daemonSets.sort(byName)));
writeJson(outDir, 'pdbs.json', typed('policy/v1', 'PodDisruptionBudgetList', pdbs));
writeJson(outDir, 'events.json', list(events.sort((a, b) => (a.lastTimestamp < b.lastTimestamp ? -1 : a.lastTimestamp > b.lastTimestamp ? 1 : byName(a, b)))));
// kubectl get nodepools,ec2nodeclasses,nodeclaims -o json (cluster-scoped CRDs)
writeJson(outDir, 'nodepools.json', typed('karpenter.sh/v1', 'NodePoolList', nodePools));
writeJson(outDir, 'ec2nodeclasses.json', typed('karpenter.k8s.aws/v1', 'EC2NodeClassList', nodeClasses));
writeJson(outDir, 'nodeclaims.json', typed('karpenter.sh/v1', 'NodeClaimList', nodeClaims.sort(byName)));
for (const [file, apiVersion, kind] of [
  ['pvcs.json', 'v1', 'PersistentVolumeClaimList'], ['pvs.json', 'v1', 'PersistentVolumeList'], ['jobs.json', 'batch/v1', 'JobList'],
  ['statefulsets.json', 'apps/v1', 'StatefulSetList'], ['storageclasses.json', 'storage.k8s.io/v1', 'StorageClassList'],
  ['podtemplates.json', 'v1', 'PodTemplateList'], ['provisioningrequests.json', 'autoscaling.x-k8s.io/v1', 'ProvisioningRequestList'],
  ['capacitybuffers.json', 'autoscaling.x-k8s.io/v1beta1', 'CapacityBufferList'],
]) writeJson(outDir, file, typed(apiVersion, kind, []));
writeJson(outDir, 'priorityclasses.json', list([
  { apiVersion: 'scheduling.k8s.io/v1', description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.', kind: 'PriorityClass', metadata: { creationTimestamp: '2026-10-02T08:05:01Z', generation: 1, name: 'system-cluster-critical', resourceVersion: '83', uid: uuid('pc:scc') }, preemptionPolicy: 'PreemptLowerPriority', value: 2000000000 },
  { apiVersion: 'scheduling.k8s.io/v1', description: 'Used for system critical pods that must not be moved from their current node.', kind: 'PriorityClass', metadata: { creationTimestamp: '2026-10-02T08:05:01Z', generation: 1, name: 'system-node-critical', resourceVersion: '84', uid: uuid('pc:snc') }, preemptionPolicy: 'PreemptLowerPriority', value: 2000001000 },
]));
writeJson(outDir, 'serviceaccounts.json', list([
  ...(KARPENTER_ONLY ? [] : [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { annotations: { 'eks.amazonaws.com/role-arn': `arn:aws:iam::${ACCOUNT}:role/${CLUSTER}-cluster-autoscaler` }, creationTimestamp: '2026-10-02T08:30:00Z', name: 'cluster-autoscaler', namespace: 'kube-system', resourceVersion: '2210', uid: uuid('sa:ca') } }]),
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { annotations: { 'eks.amazonaws.com/role-arn': `arn:aws:iam::${ACCOUNT}:role/KarpenterController-${CLUSTER}` }, creationTimestamp: '2026-11-10T09:10:00Z', name: 'karpenter', namespace: 'karpenter', resourceVersion: '771204', uid: uuid('sa:karpenter') } },
]));
writeJson(outDir, 'configmaps-kube-system.json', list(KARPENTER_ONLY ? [] : [
  configMap({ ns: 'kube-system', name: 'cluster-autoscaler-status', created: '2026-10-02T08:30:40Z',
    annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': '2026-11-24 13:59:53.201877310 +0000 UTC' },
    data: { status: 'time: 2026-11-24 13:59:53.201877310 +0000 UTC\nautoscalerStatus: Running\nclusterWide:\n  health:\n    status: Healthy\n    nodeCounts:\n      registered:\n        total: 8\n        ready: 8\n        notStarted: 0\n      longUnregistered: 0\n      unregistered: 0\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-20T03:11:52.4419067Z"\n  scaleUp:\n    status: InProgress\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-24T13:57:31.88412005Z"\n  scaleDown:\n    status: NoCandidates\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-20T03:11:52.4419067Z"\nnodeGroups:\n- name: shop-prod-legacy\n  health:\n    status: Healthy\n    nodeCounts:\n      registered:\n        total: 1\n        ready: 1\n        notStarted: 0\n      longUnregistered: 0\n      unregistered: 0\n    cloudProviderTarget: 2\n    minSize: 0\n    maxSize: 5\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-20T03:11:52.4419067Z"\n  scaleUp:\n    status: InProgress\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-24T13:57:31.88412005Z"\n  scaleDown:\n    status: NoCandidates\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-20T03:11:52.4419067Z"\n- name: shop-prod-system\n  health:\n    status: Healthy\n    nodeCounts:\n      registered:\n        total: 2\n        ready: 2\n        notStarted: 0\n      longUnregistered: 0\n      unregistered: 0\n    cloudProviderTarget: 2\n    minSize: 2\n    maxSize: 4\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-20T03:11:52.4419067Z"\n  scaleUp:\n    status: NoActivity\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-20T03:11:52.4419067Z"\n  scaleDown:\n    status: NoCandidates\n    lastProbeTime: "2026-11-24T13:59:53.20187731Z"\n    lastTransitionTime: "2026-11-20T03:11:52.4419067Z"\n' } }),
]));
// why-this-type scenes: Karpenter's log of general-a's launch (kubectl logs -n karpenter deploy/karpenter, at debug
// level: the offering lines are V(1)) and the spot prices in effect at the capture
// (aws ec2 describe-spot-price-history --start-time 2026-11-24T14:00:00Z --product-descriptions Linux/UNIX --output json)
const KARPENTER_COMMIT = hexOf('karpenter-commit:1.6.2', 7);
const launchA = NODE_DEFS.find((d) => d.key === 'general-a');
const zlog = (time, level, message, fields) => JSON.stringify({ level, time, logger: 'controller', message, commit: KARPENTER_COMMIT, ...fields });
const lifecycle = { controller: 'nodeclaim.lifecycle', controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: { name: launchA.claim }, namespace: '', name: launchA.claim, reconcileID: uuid('reconcile:general-a') };
const ice = (ms, type) => zlog(`${addS(launchA.created, -41).replace('Z', '')}.${ms}Z`, 'DEBUG', 'removing offering from offerings',
  { ...lifecycle, reason: 'InsufficientInstanceCapacity', 'instance-type': type, zone: launchA.zone, 'capacity-type': 'on-demand', ttl: '3m0s' });
const karpenterLog = [
  zlog(`${addS(launchA.created, -52).replace('Z', '')}.318Z`, 'INFO', 'created nodeclaim', {
    controller: 'provisioner', namespace: '', name: '', reconcileID: uuid('reconcile:provisioner-a'), NodePool: { name: 'general' }, NodeClaim: { name: launchA.claim },
    requests: { cpu: '2750m', memory: '12Gi', pods: '6' }, 'instance-types': `${GENERAL_A_CANDIDATES.slice(0, 5).join(', ')} and ${GENERAL_A_CANDIDATES.length - 5} other(s)`,
  }),
  ice('512', GENERAL_A_CANDIDATES[0]),
  ice('513', GENERAL_A_CANDIDATES[1]),
  zlog(`${addS(launchA.created, -40).replace('Z', '')}.104Z`, 'INFO', 'launched nodeclaim', {
    ...lifecycle, 'provider-id': `aws:///${launchA.zone}/${instanceId(launchA.key)}`, 'instance-type': launchA.type, zone: launchA.zone, 'capacity-type': 'on-demand',
    allocatable: { cpu: TYPES[launchA.type].allocCpu, 'ephemeral-storage': '71Gi', memory: `${Math.floor(allocMemKi(TYPES[launchA.type]) / 1024)}Mi`, pods: String(TYPES[launchA.type].maxPods) },
  }),
];
const spot = (zone, type, price, at) => ({ AvailabilityZone: zone, InstanceType: type, ProductDescription: 'Linux/UNIX', SpotPrice: price, Timestamp: `${at}+00:00` });
const spotPrices = [
  spot('us-east-1a', 'r6i.large', '0.051700', '2026-11-24T09:12:44'),
  spot('us-east-1b', 'c6i.2xlarge', '0.141900', '2026-11-24T06:03:17'),
  spot('us-east-1a', 'c6g.4xlarge', '0.214600', '2026-11-24T04:48:02'),
  spot('us-east-1b', 'c6g.4xlarge', '0.226300', '2026-11-23T23:31:55'),
  spot('us-east-1a', 'c6i.2xlarge', '0.158200', '2026-11-23T21:17:40'),
  spot('us-east-1b', 'r6i.large', '0.049800', '2026-11-23T19:05:12'),
];
mkdirSync(outDir, { recursive: true });
if (!KARPENTER_ONLY) {
  writeFileSync(join(outDir, 'asgs.json'), `${JSON.stringify({ AutoScalingGroups: asgs }, null, 4)}\n`);
  writeFileSync(join(outDir, 'launch-template-versions.json'), `${JSON.stringify({ LaunchTemplateVersions: launchTemplateVersions }, null, 4)}\n`);
}
writeFileSync(join(outDir, 'karpenter.log'), `${karpenterLog.join('\n')}\n`);
writeFileSync(join(outDir, 'spot-prices.json'), `${JSON.stringify({ SpotPriceHistory: spotPrices }, null, 4)}\n`);
process.stdout.write(`wrote ${outDir}\n`);
