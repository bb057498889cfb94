#!/usr/bin/env node
// Generates examples/externalgrpc/: a kubeadm cluster on Tencent Cloud CVM whose Cluster Autoscaler runs with
// --cloud-provider=externalgrpc against cluster-autoscaler-grpc-cloud-provider (seed 003), captured at 2026-11-21T10:00:00Z.
// Every file is what the kubectl command in examples/externalgrpc/README.md prints. The provider's state is in the
// ConfigMap kube-system/nodegroup-status (data key NodeGroupsConfig, YAML written by the provider's Yaml()), its
// start-up file in ConfigMap cluster-autoscaler-grpc-cloud-provider-cm (key nodegroup-config), CA's --cloud-config in
// ConfigMap cluster-autoscaler-cloud-config. The story is told in examples/externalgrpc/README.md.
// Deterministic: ids derive from labels via sha256. Usage: node scripts/gen-externalgrpc-demo.mjs [output-dir]
// With --readme (after `npm run build`): also rewrites the README's output section with what the CLI prints today.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addS, configMap, daemonSet, deployment, event, hexOf, list, node, owner, pod, podRef, safe, uuid, writeJson,
} from './lib/demo-kit.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const refreshReadme = process.argv.includes('--readme');
const outDir = resolve(process.argv.slice(2).find((a) => a !== '--readme') ?? join(root, 'examples', 'externalgrpc'));

const NOW = '2026-11-21T10:00:00Z';
const KUBELET = 'v1.28.9';
const CA_IMAGE = 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.28.4';
const PROVIDER_IMAGE = 'ccr.ccs.tencentyun.com/ops/cluster-autoscaler-grpc-cloud-provider:v0.3.2';
const ACCOUNT = 'ops';
const REGION = 'ap-beijing';
const ZONE = 'ap-beijing-5';
const providerId = (ins) => `externalgrpc://tencentcloud/${ACCOUNT}/${REGION}/${ins}`;
const insId = (label) => `ins-${hexOf(`ins:${label}`, 8)}`;
const recId = (label) => hexOf(`rec:${label}`, 8);

// ---------------------------------------------------------------------------------------------------------------
// Nodes: capacity as kubeadm's kubelet reports it on the CVM types named in the groups' instance parameters
const GIB_KI = 1024 * 1024;
const SHAPES = {
  'S5.2XLARGE16': { cpu: '8', memoryKi: `${16 * GIB_KI - 114_588}Ki`, allocMemoryKi: `${16 * GIB_KI - 216_988}Ki` },
  'M5.4XLARGE128': { cpu: '16', memoryKi: `${128 * GIB_KI - 412_120}Ki`, allocMemoryKi: `${128 * GIB_KI - 514_520}Ki` },
};
const CP_TAINT = { effect: 'NoSchedule', key: 'node-role.kubernetes.io/control-plane' };
const ADDONS_TAINT = { effect: 'NoSchedule', key: 'CriticalAddonsOnly' };
const MEMORY_TAINT = { effect: 'NoSchedule', key: 'dedicated', value: 'memory' };

const NODES = [
  // the single control-plane node: no group template matches it, so the provider files it under `default` (G6)
  { name: '10.0.0.10', type: 'S5.2XLARGE16', created: '2026-06-02T03:11:40Z', role: 'control-plane', taints: [CP_TAINT],
    labels: { 'node-role.kubernetes.io/control-plane': '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' },
    group: 'default', ins: insId('cp') },
  { name: '10.0.1.11', type: 'S5.2XLARGE16', created: '2026-06-02T03:40:12Z', group: 'worker-addons', taints: [ADDONS_TAINT],
    labels: { 'node-role.kubernetes.io/worker-addons': '' }, ins: insId('addons-1') },
  { name: '10.0.1.12', type: 'S5.2XLARGE16', created: '2026-06-02T03:40:58Z', group: 'worker-addons', taints: [ADDONS_TAINT],
    labels: { 'node-role.kubernetes.io/worker-addons': '' }, ins: insId('addons-2') },
  { name: '10.0.2.21', type: 'S5.2XLARGE16', created: '2026-11-03T08:21:07Z', group: 'general',
    labels: { 'node-role.kubernetes.io/general': '' }, ins: insId('general-1') },
  { name: '10.0.2.22', type: 'S5.2XLARGE16', created: '2026-11-12T14:02:51Z', group: 'general',
    labels: { 'node-role.kubernetes.io/general': '' }, ins: insId('general-2') },
  // a general node someone relabelled (kubectl label node 10.0.2.31 node-role.kubernetes.io/general-): the provider
  // moved it to `default` on its next sync (G7), where CA may now remove it
  { name: '10.0.2.31', type: 'S5.2XLARGE16', created: '2026-11-14T09:47:33Z', group: 'default',
    labels: { 'team': 'batch' }, ins: insId('general-3') },
  { name: '10.0.4.11', type: 'M5.4XLARGE128', created: '2026-10-19T02:15:44Z', group: 'memory', taints: [MEMORY_TAINT],
    labels: { 'node-role.kubernetes.io/memory': '', dedicated: 'memory' }, ins: insId('memory-1') },
  { name: '10.0.4.12', type: 'M5.4XLARGE128', created: '2026-10-19T02:16:09Z', group: 'memory', taints: [MEMORY_TAINT],
    labels: { 'node-role.kubernetes.io/memory': '', dedicated: 'memory' }, ins: insId('memory-2') },
];

const nodes = NODES.map((n) => {
  const s = SHAPES[n.type];
  return node({
    name: n.name, created: n.created, now: NOW, ip: n.name, kubelet: KUBELET, providerID: providerId(n.ins),
    labels: n.labels, taints: n.taints, cpu: s.cpu, allocCpu: s.cpu, memoryKi: s.memoryKi, allocMemoryKi: s.allocMemoryKi,
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The provider's state: nodegroup-status (written by the provider from its in-memory groups; read in preference
// to the file at start-up) and the start-up file, which was edited afterwards (G10)
// one CVM RunInstances parameter set per instance type (passed verbatim by the provider)
const cvm = (InstanceType, ImageId) => ({
  providerIdTemplate: `externalgrpc://tencentcloud/${ACCOUNT}/${REGION}/{{InstanceID}}`,
  parameter: {
    InstanceChargeType: 'POSTPAID_BY_HOUR',
    Placement: { ProjectId: 0, Zone: ZONE },
    InstanceType,
    ImageId,
    SystemDisk: { DiskType: 'CLOUD_PREMIUM', DiskSize: 200 },
    VirtualPrivateCloud: { VpcId: 'vpc-8ek64x3d', SubnetId: 'subnet-2q4wz7lh' },
    InstanceCount: 1,
  },
});
const instanceParameters = {
  'tencentcloud_beijing5_s5_2xlarge16': cvm('S5.2XLARGE16', 'img-9qrfy1xt'),
  'tencentcloud_beijing5_m5_4xlarge128': cvm('M5.4XLARGE128', 'img-9qrfy1xt'),
  'tencentcloud_beijing5_gn7_8xlarge128': cvm('GN7.8XLARGE128', 'img-gpu22x8k'),
};

const goTime = (iso, label) => {
  // the provider writes time.Time with yaml.v3: RFC3339Nano in the server's zone (+08:00)
  const t = new Date(Date.parse(iso) + 8 * 3600_000).toISOString().slice(0, 19);
  return `${t}.${String(Number.parseInt(hexOf(`ns:${label}`, 8), 16) % 1_000_000_000).padStart(9, '0')}+08:00`;
};
const running = (n) => ({
  id: recId(n.name), name: n.name, ip: n.name, providerID: providerId(n.ins), stage: 'Running', status: 'Success',
  updateTime: goTime(addS(n.created, 95), n.name),
});
const nodesOf = (g) => NODES.filter((n) => n.group === g).map(running);

// CA scaled general 2 -> 4 at 09:12:51 for the two checkout pods: RunInstances failed at once for one record (sold
// out), the other VM came up and its join hook failed at 09:15:10
const SCALE_UP_AT = '2026-11-21T09:12:51Z';
const createdStuckAt = '2026-11-21T09:15:10Z';
const pendingFailedAt = '2026-11-21T09:12:53Z';
const groups = [
  {
    id: 'worker-addons', minSize: 2, maxSize: 2, targetSize: 2,
    nodeTemplate: {
      labels: { 'node-role.kubernetes.io/worker-addons': '' },
      capacity: { cpu: '8', memory: '16Gi', 'ephemeral-storage': '200Gi' },
      // ignored by the provider's template builder: CA sees allocatable = capacity (G3)
      allocatable: { cpu: '7600m', memory: '14Gi', 'ephemeral-storage': '180Gi' },
      taints: [{ key: 'CriticalAddonsOnly', effect: 'NoSchedule' }],
    },
    instanceParameter: 'tencentcloud_beijing5_s5_2xlarge16',
    instances: nodesOf('worker-addons'),
  },
  {
    id: 'general', minSize: 1, maxSize: 6, targetSize: 4,
    nodeTemplate: {
      labels: { 'node-role.kubernetes.io/general': '' },
      capacity: { cpu: '8', memory: '16Gi', 'ephemeral-storage': '200Gi' },
      allocatable: { cpu: '8', memory: '16Gi', 'ephemeral-storage': '200Gi' },
    },
    instanceParameter: 'tencentcloud_beijing5_s5_2xlarge16',
    instances: [
      ...nodesOf('general'),
      // created 47 minutes ago; after_created_hook.sh cannot log in, so the VM never joins (seed: 节点创建后未加入集群)
      {
        id: recId('general-created'), name: '10.0.2.40', ip: '10.0.2.40', providerID: providerId(insId('general-4')),
        stage: 'Created', status: 'Failed',
        error: `exec intance(${recId('general-created')}) execHookScript failed, cost:30.00412s, exec /etc/provider/after_created_hook.sh on 10.0.2.40 failed, ssh: handshake failed: ssh: unable to authenticate, attempted methods [none password], no supported methods remain`,
        updateTime: goTime(createdStuckAt, 'general-created'),
      },
      // the second instance of the same scale-up: RunInstances failed, so it has no providerID and CA never sees it (G5)
      {
        id: recId('general-pending'), name: '', ip: '', providerID: '', stage: 'Pending', status: 'Failed',
        error: `create instance(${recId('general-pending')}) failed, [TencentCloudSDKError] Code=ResourceInsufficient.SpecifiedInstanceType, Message=The specified type of instance is sold out in ${ZONE}., RequestId=${uuid('req:general-pending')}`,
        updateTime: goTime(pendingFailedAt, 'general-pending'),
      },
    ],
  },
  {
    id: 'gpu', minSize: 0, maxSize: 4, targetSize: 0,
    nodeTemplate: {
      labels: { 'node-role.kubernetes.io/gpu': '', 'nvidia.com/gpu.present': 'true' },
      // nvidia.com/gpu never reaches CA: the template builder reads only cpu, memory and ephemeral-storage (G3)
      capacity: { cpu: '32', memory: '128Gi', 'ephemeral-storage': '200Gi', 'nvidia.com/gpu': '1' },
      allocatable: { cpu: '32', memory: '120Gi', 'ephemeral-storage': '200Gi', 'nvidia.com/gpu': '1' },
      taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
    },
    instanceParameter: 'tencentcloud_beijing5_gn7_8xlarge128',
    instances: [],
  },
  {
    id: 'memory', minSize: 0, maxSize: 2, targetSize: 2,
    // the file set one of the four options; the provider keeps Go zero values for the others and writes them (G4)
    autoscalingOptions: { scaleDownUtilizationThreshold: 0, scaleDownGpuUtilizationThreshold: 0, scaleDownUnneededTime: '20m0s', scaleDownUnreadyTime: '0s' },
    nodeTemplate: {
      labels: { 'node-role.kubernetes.io/memory': '', dedicated: 'memory' },
      capacity: { cpu: '16', memory: '128Gi', 'ephemeral-storage': '200Gi' },
      allocatable: { cpu: '16', memory: '128Gi', 'ephemeral-storage': '200Gi' },
      taints: [{ key: 'dedicated', value: 'memory', effect: 'NoSchedule' }],
    },
    instanceParameter: 'tencentcloud_beijing5_m5_4xlarge128',
    instances: nodesOf('memory'),
  },
  {
    // added by the provider itself (node_group.go): unmatched nodes land here
    id: 'default', minSize: 0, maxSize: 1000, targetSize: 2,
    nodeTemplate: { capacity: { cpu: '8', memory: '16G', 'ephemeral-storage': '200G' } },
    instances: nodesOf('default'),
  },
];

// yaml.v3 with indent 2, as the provider's Yaml() writes it; a tiny emitter for exactly these shapes
function yamlScalar(v) {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === '') return '""';
  if (/^[A-Za-z0-9_./-][A-Za-z0-9_.:/+ -]*$/.test(v) && !/^(true|false|null|yes|no|on|off|~|[0-9.+-]+)$/i.test(v) && !/: |\s$/.test(v)) return v;
  return JSON.stringify(v);
}
function toYaml(v, indent = 0) {
  const pad = ' '.repeat(indent);
  if (Array.isArray(v)) {
    if (v.length === 0) return ' []\n';
    return `\n${v.map((item) => {
      const body = toYaml(item, indent + 2).replace(/^\n/, '');
      return `${pad}- ${body.slice(indent + 2)}`;
    }).join('')}`;
  }
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) return ' {}\n';
    return `\n${keys.map((k) => {
      const child = v[k];
      const key = yamlScalar(k);
      if (child && typeof child === 'object') return `${pad}${key}:${toYaml(child, indent + 2)}`;
      return `${pad}${key}: ${yamlScalar(child)}\n`;
    }).join('')}`;
  }
  return ` ${yamlScalar(v)}\n`;
}
const yamlDoc = (o) => toYaml(o).replace(/^\n/, '');

// the credentials are fake but shaped as Tencent Cloud API keys: they are in the dump because kubectl prints the
// ConfigMap whole; casdoctor must never print or keep them (G8)
const accounts = { tencentcloud: { [ACCOUNT]: { secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE' } } };
// the provider's encoder writes every struct field: nil options as null, empty maps as {}, taints with value and
// timeadded, capacity keys sorted (Go map order), an empty instanceParameter as ""
const sortedMap = (m) => Object.fromEntries(Object.keys(m ?? {}).sort().map((k) => [k, m[k]]));
const encoded = (g) => ({
  id: g.id, minSize: g.minSize, maxSize: g.maxSize, targetSize: g.targetSize,
  autoscalingOptions: g.autoscalingOptions ?? null,
  nodeTemplate: {
    labels: g.nodeTemplate.labels ?? {},
    annotations: g.nodeTemplate.annotations ?? {},
    capacity: sortedMap(g.nodeTemplate.capacity),
    allocatable: sortedMap(g.nodeTemplate.allocatable),
    taints: (g.nodeTemplate.taints ?? []).map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect, timeadded: null })),
  },
  instanceParameter: g.instanceParameter ?? '',
  instances: g.instances,
});
const statusYaml = yamlDoc({
  cloudProviderOption: { accounts, instanceParameter: instanceParameters },
  nodeGroups: groups.map(encoded),
});
// the start-up file as first deployed; general's maxSize was raised to 10 there later, which the provider ignores
// because nodegroup-status exists (loadNodeGroups reads the ConfigMap first; G10)
const fileGroups = groups
  .filter((g) => g.id !== 'default')
  .map(({ instances: _instances, ...g }) => (g.id === 'general' ? { ...g, maxSize: 10, targetSize: 2 } : { ...g, targetSize: g.minSize }))
  .map((g) => (g.id === 'memory' ? { ...g, autoscalingOptions: { scaleDownUnneededTime: '20m' } } : g));
const fileYaml = yamlDoc({ cloudProviderOption: { accounts, instanceParameter: instanceParameters }, nodeGroups: fileGroups });

const CM_CREATED = '2026-06-02T04:02:17Z';
const configMaps = [
  configMap({
    ns: 'kube-system', name: 'cluster-autoscaler-cloud-config', created: CM_CREATED,
    data: { 'cloud-config': 'address: "cluster-autoscaler-grpc-cloud-provider-service:8086"\nkey: ""\ncert: ""\ncacert: ""\ngrpc_timeout: 10s\n' },
  }),
  configMap({
    ns: 'kube-system', name: 'cluster-autoscaler-grpc-cloud-provider-cm', created: CM_CREATED,
    data: {
      'cloud-config': 'address: ":8086"\n',
      'nodegroup-config': fileYaml,
      'after_created_hook.sh': '#!/bin/bash\nset -euo pipefail\nsshpass -p "$KUBE_NODE_SSH_PASSWD" ssh -o StrictHostKeyChecking=no "$KUBE_NODE_SSH_USER@$NODE_IP" "kubeadm join 10.0.0.10:6443 --token \\"$JOIN_TOKEN\\" --discovery-token-ca-cert-hash \\"$CA_HASH\\""\n',
      'before_delete_hook.sh': '#!/bin/bash\nset -euo pipefail\nkubectl drain "$NODE_NAME" --ignore-daemonsets --delete-emptydir-data --timeout=300s\nkubectl delete node "$NODE_NAME"\n',
    },
  }),
  configMap({
    ns: 'kube-system', name: 'nodegroup-status', created: '2026-06-02T04:05:02Z',
    annotations: { 'cluster-autoscaler.grpc-provider/last-updated': '2026-11-21T17:59:55+08:00' },
    data: { NodeGroupsConfig: statusYaml },
  }),
];

// CA's own status ConfigMap (CA 1.28 writes the readable text format)
const caStatusTime = '2026-11-21 09:59:52.407119052 +0000 UTC';
const groupStatus = (g, ready, notStarted, registered, longUnregistered, candidates = 0) =>
  `  Name:        ${g.id}\n  Health:      Healthy (ready=${ready} unready=0 (resourceUnready=0) notStarted=${notStarted} longNotStarted=0 registered=${registered} longUnregistered=${longUnregistered} cloudProviderTarget=${g.targetSize} (minSize=${g.minSize}, maxSize=${g.maxSize}))\n               LastProbeTime:      2026-11-21 09:59:52.407119052 +0000 UTC m=+1521312.115318791\n               LastTransitionTime: 2026-11-03 08:20:31.082244121 +0000 UTC m=+12.790443860\n  ScaleUp:     NoActivity (ready=${ready} cloudProviderTarget=${g.targetSize})\n               LastProbeTime:      2026-11-21 09:59:52.407119052 +0000 UTC m=+1521312.115318791\n               LastTransitionTime: ${g.id === 'general' ? '2026-11-21 09:13:01.611302945 +0000 UTC m=+1518501.319502684' : '2026-11-03 08:20:31.082244121 +0000 UTC m=+12.790443860'}\n  ScaleDown:   ${candidates ? `CandidatesPresent (candidates=${candidates})` : 'NoCandidates (candidates=0)'}\n               LastProbeTime:      2026-11-21 09:59:52.407119052 +0000 UTC m=+1521312.115318791\n               LastTransitionTime: ${candidates ? '2026-11-21 09:41:02.118245113 +0000 UTC m=+1520181.826444852' : '2026-11-03 08:20:31.082244121 +0000 UTC m=+12.790443860'}\n\n`;
const caStatusText = `Cluster-autoscaler status at ${caStatusTime}:\nCluster-wide:\n  Health:      Healthy (ready=8 unready=0 (resourceUnready=0) notStarted=0 longNotStarted=0 registered=8 longUnregistered=1)\n               LastProbeTime:      2026-11-21 09:59:52.407119052 +0000 UTC m=+1521312.115318791\n               LastTransitionTime: 2026-11-03 08:20:31.082244121 +0000 UTC m=+12.790443860\n  ScaleUp:     NoActivity (ready=8 registered=8)\n               LastProbeTime:      2026-11-21 09:59:52.407119052 +0000 UTC m=+1521312.115318791\n               LastTransitionTime: 2026-11-21 09:13:01.611302945 +0000 UTC m=+1518501.319502684\n  ScaleDown:   CandidatesPresent (candidates=2)\n               LastProbeTime:      2026-11-21 09:59:52.407119052 +0000 UTC m=+1521312.115318791\n               LastTransitionTime: 2026-11-21 09:41:02.118245113 +0000 UTC m=+1520181.826444852\n\nNodeGroups:\n${groupStatus(groups[4], 2, 0, 2, 0, 2)}${groupStatus(groups[1], 2, 0, 2, 1)}${groupStatus(groups[2], 0, 0, 0, 0)}${groupStatus(groups[3], 2, 0, 2, 0)}${groupStatus(groups[0], 2, 0, 2, 0)}`;
configMaps.push(
  configMap({
    ns: 'kube-system', name: 'cluster-autoscaler-status', created: '2026-06-02T04:06:40Z',
    annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': caStatusTime },
    data: { status: caStatusText },
  }),
);

// ---------------------------------------------------------------------------------------------------------------
// Workloads
const deployments = [];
const replicaSets = [];
const daemonSets = [];
const statefulSets = [];
const pods = [];
const events = [];
const res = (cpu, memory, extra = {}) => ({ requests: { cpu, memory, ...extra }, limits: { memory, ...extra } });
const ADDONS_TOL = [{ effect: 'NoSchedule', key: 'CriticalAddonsOnly', operator: 'Exists' }];

function addDeployment({ ns, name, replicas, labels, container, nodeSelector, tolerations, created, placed, pending = [],
  serviceAccount, priorityClassName, priority }) {
  const podSpec = {
    containers: [{ image: container.image, name: container.name, resources: container.resources }],
    ...(nodeSelector ? { nodeSelector } : {}),
    ...(tolerations ? { tolerations } : {}),
  };
  const { dep, rs, hash, rsName } = deployment({ ns, name, replicas, labels, podSpec, created, readyReplicas: placed.length });
  deployments.push(dep);
  replicaSets.push(rs);
  const all = [...placed.map((n) => ({ nodeName: n })), ...pending.map((p) => ({ pending: p }))];
  all.forEach((slot, i) => {
    const podName = `${rsName}-${safe(`pod:${ns}/${name}/${i}`, 5)}`;
    const p = pod({
      ns, name: podName, generateName: `${rsName}-`, labels: { ...labels, 'pod-template-hash': hash },
      ownerRef: owner('ReplicaSet', rsName), created: slot.pending ? slot.pending.created : addS(created, 30 + i * 7),
      containers: [container], nodeName: slot.nodeName, nodeSelector, tolerations, serviceAccount,
      priorityClassName, priority, schedulerMessage: slot.pending?.scheduler,
    });
    pods.push(p);
    if (slot.pending) addPendingEvents(p, slot.pending);
  });
}

function addPendingEvents(p, pend) {
  events.push(event({
    ns: p.metadata.namespace, involved: podRef(p), reason: 'FailedScheduling', type: 'Warning',
    message: pend.scheduler, source: 'default-scheduler', first: pend.created, last: pend.last ?? addS(NOW, -95), count: pend.count ?? 14,
  }));
  if (pend.triggered) {
    events.push(event({
      ns: p.metadata.namespace, involved: podRef(p), reason: 'TriggeredScaleUp', type: 'Normal',
      message: pend.triggered, source: 'cluster-autoscaler', first: SCALE_UP_AT, last: SCALE_UP_AT, count: 1,
    }));
  }
  if (pend.ca) {
    events.push(event({
      ns: p.metadata.namespace, involved: podRef(p), reason: 'NotTriggerScaleUp', type: 'Normal',
      message: pend.ca, source: 'cluster-autoscaler', first: addS(pend.created, 11), last: addS(NOW, -48), count: pend.caCount ?? 9,
    }));
  }
}

// ---- system: CA, the provider, CoreDNS (on worker-addons)
const caArgs = [
  './cluster-autoscaler',
  '--v=4',
  '--cloud-provider=externalgrpc',
  '--cloud-config=/config/cloud-config',
  '--skip-nodes-with-system-pods=true',
  '--expander=random',
];
const caPodSpec = {
  containers: [{
    command: caArgs, image: CA_IMAGE, imagePullPolicy: 'IfNotPresent', name: 'cluster-autoscaler',
    resources: { limits: { cpu: '100m', memory: '600Mi' }, requests: { cpu: '100m', memory: '600Mi' } },
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
    volumeMounts: [{ mountPath: '/config', name: 'cloud-config', readOnly: true }],
  }],
  dnsPolicy: 'ClusterFirst', priorityClassName: 'system-cluster-critical', restartPolicy: 'Always',
  schedulerName: 'default-scheduler', serviceAccount: 'cluster-autoscaler', serviceAccountName: 'cluster-autoscaler',
  terminationGracePeriodSeconds: 30, tolerations: ADDONS_TOL,
  nodeSelector: { 'node-role.kubernetes.io/worker-addons': '' },
  volumes: [{ configMap: { defaultMode: 420, name: 'cluster-autoscaler-cloud-config' }, name: 'cloud-config' }],
};
{
  const { dep, rs, hash, rsName } = deployment({
    ns: 'kube-system', name: 'cluster-autoscaler', replicas: 1, labels: { app: 'cluster-autoscaler' }, podSpec: caPodSpec,
    created: '2026-06-02T04:06:01Z',
  });
  deployments.push(dep);
  replicaSets.push(rs);
  const p = pod({
    ns: 'kube-system', name: `${rsName}-${safe('ca-pod', 5)}`, generateName: `${rsName}-`,
    labels: { app: 'cluster-autoscaler', 'pod-template-hash': hash }, ownerRef: owner('ReplicaSet', rsName),
    created: '2026-11-03T08:19:58Z', nodeName: '10.0.1.11', tolerations: ADDONS_TOL, serviceAccount: 'cluster-autoscaler',
    priorityClassName: 'system-cluster-critical', priority: 2000000000,
    containers: [{ name: 'cluster-autoscaler', image: CA_IMAGE, resources: caPodSpec.containers[0].resources, volumeMounts: caPodSpec.containers[0].volumeMounts }],
    volumes: caPodSpec.volumes, nodeSelector: caPodSpec.nodeSelector,
  });
  p.spec.containers[0].command = caArgs;
  pods.push(p);
}
addDeployment({
  ns: 'kube-system', name: 'cluster-autoscaler-grpc-cloud-provider', replicas: 1,
  labels: { app: 'cluster-autoscaler-grpc-cloud-provider' }, created: '2026-06-02T04:05:00Z',
  container: { name: 'provider', image: PROVIDER_IMAGE, resources: res('200m', '256Mi') },
  nodeSelector: { 'node-role.kubernetes.io/worker-addons': '' }, tolerations: ADDONS_TOL, placed: ['10.0.1.12'],
  serviceAccount: 'cluster-autoscaler-grpc-cloud-provider', priorityClassName: 'system-cluster-critical', priority: 2000000000,
});
{
  const prov = deployments.at(-1);
  const c = prov.spec.template.spec.containers[0];
  c.args = [
    '--grpc-address=:8086', '--http-address=:8080', '--metrics-address=:8087', '--cloud-provider=externalgrpc',
    '--cloud-config=/etc/provider/cloud-config', '--namespace=kube-system', '--nodegroup-status-cm=nodegroup-status',
    '--nodegroup-config=/etc/provider/nodegroup-config', '--hooks-path=/etc/provider', '--create-parallelism=5',
    '--delete-parallelism=1', '--leader-elect=true', '--v=2',
  ];
  c.volumeMounts = [{ mountPath: '/etc/provider', name: 'provider-config', readOnly: true }];
  prov.spec.template.spec.volumes = [{ configMap: { defaultMode: 493, name: 'cluster-autoscaler-grpc-cloud-provider-cm' }, name: 'provider-config' }];
}
addDeployment({
  ns: 'kube-system', name: 'coredns', replicas: 2, labels: { 'k8s-app': 'kube-dns' }, created: '2026-06-02T03:12:30Z',
  container: { name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.10.1', resources: { requests: { cpu: '100m', memory: '70Mi' }, limits: { memory: '170Mi' } } },
  tolerations: ADDONS_TOL, nodeSelector: { 'node-role.kubernetes.io/worker-addons': '' }, placed: ['10.0.1.11', '10.0.1.12'],
  priorityClassName: 'system-cluster-critical', priority: 2000000000,
});

// ---- DaemonSets on every node: kube-proxy and calico (tolerate everything), node-exporter (only untainted + memory)
const EVERYTHING = [{ operator: 'Exists' }];
const dsDefs = [
  { ns: 'kube-system', name: 'kube-proxy', labels: { 'k8s-app': 'kube-proxy' }, image: 'registry.k8s.io/kube-proxy:v1.28.9', r: { requests: { cpu: '100m', memory: '64Mi' } }, tol: EVERYTHING, on: NODES },
  { ns: 'kube-system', name: 'calico-node', labels: { 'k8s-app': 'calico-node' }, image: 'docker.io/calico/node:v3.27.3', r: { requests: { cpu: '250m', memory: '128Mi' } }, tol: EVERYTHING, on: NODES },
  { ns: 'monitoring', name: 'node-exporter', labels: { app: 'node-exporter' }, image: 'quay.io/prometheus/node-exporter:v1.8.2', r: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } }, tol: [{ effect: 'NoSchedule', key: 'dedicated', operator: 'Equal', value: 'memory' }], on: NODES.filter((n) => !n.taints || n.group === 'memory') },
];
for (const d of dsDefs) {
  const podSpec = { containers: [{ image: d.image, name: d.name, resources: d.r }], tolerations: d.tol, priorityClassName: 'system-node-critical' };
  daemonSets.push(daemonSet({ ns: d.ns, name: d.name, labels: d.labels, podSpec, created: '2026-06-02T03:12:20Z', scheduled: d.on.length }));
  for (const n of d.on) {
    const p = pod({
      ns: d.ns, name: `${d.name}-${safe(`ds:${d.name}/${n.name}`, 5)}`, generateName: `${d.name}-`,
      labels: { ...d.labels, 'controller-revision-hash': safe(`rev:${d.name}`, 10), 'pod-template-generation': '1' },
      ownerRef: owner('DaemonSet', d.name), created: addS(n.created, 20), nodeName: n.name,
      containers: [{ name: d.name, image: d.image, resources: d.r }], tolerations: d.tol,
      priorityClassName: 'system-node-critical', priority: 2000001000,
    });
    p.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [n.name] }] }] } } };
    pods.push(p);
  }
}

// ---- kubeadm's static control-plane pods on 10.0.0.10: the kubelet's mirror pods (owned by the Node; CA never
// counts them as blocking), so CA finds the control-plane node in `default` empty and removable (G6)
{
  const cp = NODES[0];
  const statics = [
    ['etcd', 'registry.k8s.io/etcd:3.5.12-0', res('100m', '100Mi'), 'etcd'],
    ['kube-apiserver', 'registry.k8s.io/kube-apiserver:v1.28.9', { requests: { cpu: '250m' } }, 'kube-apiserver'],
    ['kube-controller-manager', 'registry.k8s.io/kube-controller-manager:v1.28.9', { requests: { cpu: '200m' } }, 'kube-controller-manager'],
    ['kube-scheduler', 'registry.k8s.io/kube-scheduler:v1.28.9', { requests: { cpu: '100m' } }, 'kube-scheduler'],
  ];
  for (const [name, image, resources, component] of statics) {
    const hash = hexOf(`static:${name}`, 32);
    const created = addS(cp.created, 15);
    const p = pod({
      ns: 'kube-system', name: `${name}-${cp.name}`, labels: { component, tier: 'control-plane' },
      annotations: {
        'kubernetes.io/config.hash': hash,
        'kubernetes.io/config.mirror': hash,
        'kubernetes.io/config.seen': `${created.replace('Z', '')}.204117613Z`,
        'kubernetes.io/config.source': 'file',
      },
      ownerRef: { apiVersion: 'v1', controller: true, kind: 'Node', name: cp.name, uid: uuid(`node:${cp.name}`) },
      created, nodeName: cp.name, hostNetwork: true, containers: [{ name, image, resources }],
      tolerations: [{ effect: 'NoExecute', operator: 'Exists' }], priorityClassName: 'system-node-critical', priority: 2000001000,
    });
    // the API server rejects mirror pods that reference a service account: no token volume either
    delete p.spec.serviceAccount;
    delete p.spec.serviceAccountName;
    delete p.spec.volumes;
    for (const c of p.spec.containers) delete c.volumeMounts;
    pods.push(p);
  }
}

// ---- Pending pods, one story each (messages as kube-scheduler 1.28 and CA 1.28 print them)
const sched = (n, reasons, preemption) =>
  `0/${n} nodes are available: ${reasons.join(', ')}. preemption: 0/${n} nodes are available: ${preemption.join(', ')}..`;
const UNTOL = (t) => `node(s) had untolerated taint {${t}}`;
const SEL = "node(s) didn't match Pod's node affinity/selector";

// 1. checkout: 5 replicas on general; 2 Pending. CA counts the two instances of its last scale-up as upcoming
//    (one stuck in Created, one failed create it never sees), so it waits instead of scaling (G5)
addDeployment({
  ns: 'shop', name: 'checkout', replicas: 5, labels: { app: 'checkout' }, created: '2026-11-12T14:30:00Z',
  container: { name: 'checkout', image: 'ccr.ccs.tencentyun.com/shop/checkout:2.14.1', resources: res('3', '4Gi') },
  nodeSelector: { 'node-role.kubernetes.io/general': '' }, placed: ['10.0.2.21', '10.0.2.21', '10.0.2.22'],
  pending: [0, 1].map((i) => ({
    created: addS(SCALE_UP_AT, -14 + i * 3),
    // CA 1.28 writes TriggeredScaleUp on every pod the scale-up was for (scale_up orchestrator, ExecuteScaleUp)
    triggered: "pod triggered scale-up: [{general 2->4 (max: 6)}]",
    scheduler: sched(8, [`1 ${UNTOL('node-role.kubernetes.io/control-plane: ')}`, `2 ${UNTOL('CriticalAddonsOnly: ')}`, `2 ${UNTOL('dedicated: memory')}`, `2 Insufficient cpu`, `1 ${SEL}`],
      ['2 No preemption victims found for incoming pod', '6 Preemption is not helpful for scheduling']),
  })),
});
// web frontend shares the general nodes; 10.0.2.22 keeps 2.55 CPU free, room for queue-runner in CA's scale-down simulation
addDeployment({
  ns: 'shop', name: 'storefront', replicas: 2, labels: { app: 'storefront' }, created: '2026-11-12T14:31:00Z',
  container: { name: 'storefront', image: 'ccr.ccs.tencentyun.com/shop/storefront:5.2.0', resources: res('1', '2Gi') },
  nodeSelector: { 'node-role.kubernetes.io/general': '' }, placed: ['10.0.2.22', '10.0.2.22'],
});

// 2. trainer: asks for a GPU; the gpu group declares nvidia.com/gpu in capacity, but the provider's template carries
//    only cpu, memory and ephemeral-storage, so CA sees no GPU on it (G3)
{
  const labels = { app: 'trainer' };
  const tolerations = [{ effect: 'NoSchedule', key: 'nvidia.com/gpu', operator: 'Exists' }];
  const nodeSelector = { 'nvidia.com/gpu.present': 'true' };
  const container = { name: 'trainer', image: 'ccr.ccs.tencentyun.com/ml/trainer:0.9.3', resources: res('8', '32Gi', { 'nvidia.com/gpu': '1' }) };
  statefulSets.push({
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: { creationTimestamp: '2026-11-21T08:58:10Z', generation: 1, labels, name: 'trainer', namespace: 'ml', resourceVersion: '7100231', uid: uuid('StatefulSet:trainer') },
    spec: {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' }, podManagementPolicy: 'OrderedReady', replicas: 1,
      revisionHistoryLimit: 10, selector: { matchLabels: labels }, serviceName: 'trainer',
      template: { metadata: { creationTimestamp: null, labels }, spec: { containers: [{ image: container.image, name: container.name, resources: container.resources }], nodeSelector, tolerations } },
      updateStrategy: { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' },
    },
    status: { availableReplicas: 0, collisionCount: 0, currentReplicas: 1, currentRevision: `trainer-${safe('sts:trainer', 10)}`, observedGeneration: 1, replicas: 1, updateRevision: `trainer-${safe('sts:trainer', 10)}`, updatedReplicas: 1 },
  });
  const created = '2026-11-21T08:58:11Z';
  const pend = {
    created,
    scheduler: sched(8, [`8 ${SEL}`], ['8 Preemption is not helpful for scheduling']),
    ca: `pod didn't trigger scale-up: 1 Insufficient nvidia.com/gpu, 1 ${SEL}, 1 ${UNTOL('node-role.kubernetes.io/control-plane: ')}, 2 max node group size reached`,
  };
  const p = pod({
    ns: 'ml', name: 'trainer-0', labels: { ...labels, 'apps.kubernetes.io/pod-index': '0', 'controller-revision-hash': `trainer-${safe('sts:trainer', 10)}`, 'statefulset.kubernetes.io/pod-name': 'trainer-0' },
    ownerRef: owner('StatefulSet', 'trainer'), created, containers: [container], nodeSelector, tolerations, schedulerMessage: pend.scheduler,
  });
  pods.push(p);
  addPendingEvents(p, pend);
}

// 3. etl-worker: a third replica needs 100Gi; memory is at its max size (2/2)
addDeployment({
  ns: 'analytics', name: 'etl-worker', replicas: 3, labels: { app: 'etl-worker' }, created: '2026-10-19T03:00:00Z',
  container: { name: 'etl', image: 'ccr.ccs.tencentyun.com/analytics/etl:7.1.0', resources: res('4', '100Gi') },
  nodeSelector: { dedicated: 'memory' }, tolerations: [{ effect: 'NoSchedule', key: 'dedicated', operator: 'Equal', value: 'memory' }],
  placed: ['10.0.4.11', '10.0.4.12'],
  pending: [{
    created: '2026-11-21T09:12:40Z',
    scheduler: sched(8, ['2 Insufficient memory', `6 ${SEL}`], ['2 No preemption victims found for incoming pod', '6 Preemption is not helpful for scheduling']),
    ca: `pod didn't trigger scale-up: 1 ${SEL}, 1 ${UNTOL('node-role.kubernetes.io/control-plane: ')}, 1 ${UNTOL('nvidia.com/gpu: present')}, 2 max node group size reached`,
  }],
});

// 4. log-shipper: selects dedicated=infra, a label no node and no group template has
addDeployment({
  ns: 'infra', name: 'log-shipper', replicas: 1, labels: { app: 'log-shipper' }, created: '2026-11-21T07:40:00Z',
  container: { name: 'vector', image: 'docker.io/timberio/vector:0.42.0-debian', resources: res('500m', '512Mi') },
  nodeSelector: { dedicated: 'infra' }, placed: [],
  pending: [{
    created: '2026-11-21T07:40:02Z',
    scheduler: sched(8, [`8 ${SEL}`], ['8 Preemption is not helpful for scheduling']),
    ca: `pod didn't trigger scale-up: 1 ${SEL}, 1 ${UNTOL('node-role.kubernetes.io/control-plane: ')}, 1 ${UNTOL('nvidia.com/gpu: present')}, 2 max node group size reached`,
  }],
});

// 5. pdf-render: 6 CPUs, no selector, created 4 s before the capture (CA's next loop has not seen it). No node has
//    6 CPUs free (10.0.2.31 has 5.55); it fits general's template, not default's (CA builds that from the tainted
//    control-plane node, the first node of the group), so CA will scale general up
addDeployment({
  ns: 'reports', name: 'pdf-render', replicas: 1, labels: { app: 'pdf-render' }, created: '2026-11-21T09:59:55Z',
  container: { name: 'render', image: 'ccr.ccs.tencentyun.com/reports/pdf-render:3.0.2', resources: res('6', '6Gi') },
  placed: [],
  pending: [{
    created: '2026-11-21T09:59:56Z',
    scheduler: sched(8, [`1 ${UNTOL('node-role.kubernetes.io/control-plane: ')}`, `2 ${UNTOL('CriticalAddonsOnly: ')}`, `2 ${UNTOL('dedicated: memory')}`, '3 Insufficient cpu'],
      ['3 No preemption victims found for incoming pod', '5 Preemption is not helpful for scheduling']),
    count: 1,
    last: '2026-11-21T09:59:56Z',
  }],
});

// a batch job runner on the relabelled node (now in `default`): 2.45 of 8 CPUs requested (31% < 50%), and it could
// move to 10.0.2.22, so CA finds 10.0.2.31 unneeded; yet 5.55 CPUs free are too few for pdf-render
addDeployment({
  ns: 'batch', name: 'queue-runner', replicas: 1, labels: { app: 'queue-runner' }, created: '2026-11-14T10:05:00Z',
  container: { name: 'runner', image: 'ccr.ccs.tencentyun.com/batch/queue-runner:1.4.7', resources: res('2', '2Gi') },
  placed: ['10.0.2.31'],
});

// CA events on the group's nodes and the scale-up that never completed
const caEvent = (involved, reason, message, first, last, count = 1, type = 'Normal') =>
  event({ ns: involved.namespace ?? 'default', involved, reason, message, type, source: 'cluster-autoscaler', first, last, count });
const statusCm = { kind: 'ConfigMap', name: 'cluster-autoscaler-status', namespace: 'kube-system', apiVersion: 'v1', uid: uuid('cm:kube-system/cluster-autoscaler-status') };
events.push(caEvent(statusCm, 'ScaledUpGroup', 'Scale-up: setting group general size to 4 instead of 2 (max: 6)', SCALE_UP_AT, SCALE_UP_AT));
// CA 1.28 gets MaxNodeProvisionTime 0 from this provider (G2): the request expires at the next loop, ~10 s later, and
// the message carries the time since the scale-up (clusterstate.go updateScaleRequests)
events.push(caEvent(statusCm, 'ScaleUpTimedOut', 'Nodes added to group general failed to register within 10.204117613s', '2026-11-21T09:13:01Z', '2026-11-21T09:13:01Z', 1, 'Warning'));

// ---------------------------------------------------------------------------------------------------------------
const ns = (o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byName = (a, b) => (ns(a) < ns(b) ? -1 : ns(a) > ns(b) ? 1 : 0);
writeJson(outDir, 'nodes.json', list(nodes));
writeJson(outDir, 'pods.json', list(pods.sort(byName)));
writeJson(outDir, 'deployments.json', list(deployments.sort(byName)));
writeJson(outDir, 'replicasets.json', list(replicaSets.sort(byName)));
writeJson(outDir, 'statefulsets.json', list(statefulSets));
writeJson(outDir, 'daemonsets.json', list(daemonSets.sort(byName)));
writeJson(outDir, 'configmaps-kube-system.json', list(configMaps.sort(byName)));
writeJson(outDir, 'events.json', list(events.sort((a, b) => (a.lastTimestamp < b.lastTimestamp ? -1 : a.lastTimestamp > b.lastTimestamp ? 1 : byName(a, b)))));
// empty lists as the API server returns them (`kubectl get --raw /apis/policy/v1/poddisruptionbudgets`): a typed
// empty list says "there are none", where kubectl's empty `List` would say nothing about the kind
const typedEmpty = (apiVersion, kind) => ({ apiVersion, items: [], kind, metadata: { resourceVersion: '7104412' } });
writeJson(outDir, 'pdbs.json', typedEmpty('policy/v1', 'PodDisruptionBudgetList'));
writeJson(outDir, 'pvcs.json', typedEmpty('v1', 'PersistentVolumeClaimList'));
writeJson(outDir, 'pvs.json', typedEmpty('v1', 'PersistentVolumeList'));
writeJson(outDir, 'jobs.json', typedEmpty('batch/v1', 'JobList'));
writeJson(outDir, 'storageclasses.json', typedEmpty('storage.k8s.io/v1', 'StorageClassList'));
writeJson(outDir, 'podtemplates.json', typedEmpty('v1', 'PodTemplateList'));
writeJson(outDir, 'provisioningrequests.json', typedEmpty('autoscaling.x-k8s.io/v1', 'ProvisioningRequestList'));
writeJson(outDir, 'capacitybuffers.json', typedEmpty('autoscaling.x-k8s.io/v1beta1', 'CapacityBufferList'));
const priorityClass = (name, value, description) => ({
  apiVersion: 'scheduling.k8s.io/v1', description, kind: 'PriorityClass',
  metadata: { creationTimestamp: '2026-06-02T03:11:52Z', generation: 1, name, resourceVersion: String(80 + value % 7), uid: uuid(`pc:${name}`) },
  preemptionPolicy: 'PreemptLowerPriority', value,
});
writeJson(outDir, 'priorityclasses.json', list([
  priorityClass('system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'),
  priorityClass('system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'),
]));
const serviceAccount = (nsName, name) => ({
  apiVersion: 'v1', kind: 'ServiceAccount',
  metadata: { creationTimestamp: '2026-06-02T04:05:00Z', name, namespace: nsName, resourceVersion: String(1200 + name.length), uid: uuid(`sa:${nsName}/${name}`) },
});
writeJson(outDir, 'serviceaccounts.json', list([
  serviceAccount('kube-system', 'cluster-autoscaler'),
  serviceAccount('kube-system', 'cluster-autoscaler-grpc-cloud-provider'),
]));
// the provider's start-up file as kept in the ops repo (the same text the ConfigMap mounts at --nodegroup-config)
writeFileSync(join(outDir, 'nodegroup-config.yaml'), fileYaml);
if (refreshReadme) {
  // the README's commands run on the committed dump, as a user runs them from the repository root
  const run = (...args) => {
    try {
      return execFileSync(process.execPath, [join(root, 'dist', 'cli.js'), ...args, '--from', 'examples/externalgrpc', '--now', NOW], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    } catch (e) {
      return `${e.stdout ?? ''}${e.stderr ?? ''}`;
    }
  };
  const block = (title, text, note = '') => `### ${title}\n\n\`\`\`\n${text.trimEnd()}\n\`\`\`\n${note ? `\n${note}\n` : ''}`;
  const sd = run('scale-down-blockers').split('\n').slice(0, 24).join('\n');
  const audit = run('node-group-audit').split('\n');
  const auditShort = [...audit.slice(0, 9), ...audit.slice(9).filter((l) => /^(✖|▲|ℹ) |^findings:|^skipped|^not applicable/.test(l))].join('\n');
  // the same cluster at T+5, T+20 and T+60 minutes after general's scale-up, on this CA and others (the dump with CA's
  // image changed in a scratch copy, and once memory's autoscalingOptions removed): what CA's loop does with the
  // failed records, or CA not running at all, decides the checkout pods' verdict
  const later = [];
  const scratch = mkdtempSync(join(tmpdir(), 'casdoctor-externalgrpc-later-'));
  // memory's options as the provider wrote them (ConfigMap) and as its file sets them; without them CA 1.29-1.34 run
  const withoutOptions = (text) =>
    text
      .replace(/autoscalingOptions:\n {6}scaleDownUtilizationThreshold: 0\n {6}scaleDownGpuUtilizationThreshold: 0\n {6}scaleDownUnneededTime: 20m0s\n {6}scaleDownUnreadyTime: 0s\n/, 'autoscalingOptions: null\n')
      .replace(/ {4}autoscalingOptions:\n {6}scaleDownUnneededTime: 20m\n/, '');
  try {
    for (const [tag, label, noOptions] of [
      ['v1.28.4', 'CA v1.28.4 (this dump)', false],
      ['v1.32.7', "CA v1.32.7 without memory's autoscalingOptions", true],
      ['v1.32.7', 'CA v1.32.7', false],
      ['v1.35.2', 'CA v1.35.2', false],
    ]) {
      const dir = join(scratch, `${tag}${noOptions ? '-noopts' : ''}`);
      cpSync(join(root, 'examples', 'externalgrpc'), dir, { recursive: true });
      const deps = join(dir, 'deployments.json');
      writeFileSync(deps, readFileSync(deps, 'utf8').replace('cluster-autoscaler:v1.28.4', `cluster-autoscaler:${tag}`));
      if (noOptions) {
        const cms = join(dir, 'configmaps-kube-system.json');
        const doc = JSON.parse(readFileSync(cms, 'utf8'));
        for (const cm of doc.items) for (const k of Object.keys(cm.data ?? {})) cm.data[k] = withoutOptions(cm.data[k]);
        writeFileSync(cms, JSON.stringify(doc, null, 2));
        const file = join(dir, 'nodegroup-config.yaml');
        writeFileSync(file, withoutOptions(readFileSync(file, 'utf8')));
        if (/autoscalingOptions:\n {6}\w/.test(readFileSync(cms, 'utf8').replace(/\\n/g, '\n') + readFileSync(file, 'utf8')))
          throw new Error("memory's autoscalingOptions changed shape: update withoutOptions");
      }
      for (const minutes of [5, 20, 60]) {
        const at = new Date(Date.parse(SCALE_UP_AT) + minutes * 60_000).toISOString().replace('.000Z', 'Z');
        let text;
        try {
          text = execFileSync(process.execPath, [join(root, 'dist', 'cli.js'), 'why-pending', '--all', '-n', 'shop', '--from', dir, '--now', at, '--fail-on', 'never'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
        } catch (e) {
          text = `${e.stdout ?? ''}${e.stderr ?? ''}`;
        }
        const headline = text.split('\n').find((l) => /^(✖|✔|↑|⧗|\?) shop\/checkout/.test(l)) ?? '(no checkout line)';
        later.push(`${label}, T+${minutes} min (--now ${at}):\n${headline.replace(/ and 1 more Pending replica\(s\) of ReplicaSet checkout-jf4m744qwv/, '')}\n`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const out = [
    block('why-pending', run('why-pending', '--all', '-A')),
    block(
      'the checkout pods later, by CA version (`--now`)',
      later.join('\n'),
      "T is general's scale-up at 09:12:51. CA 1.28 reads the provision time as 0 from this provider: the scale-up timed out at the next loop (the ScaleUpTimedOut event at 09:13:01), and every new instance is deleted about one loop after CA lists it, so no node comes while CA is 1.27/1.28, and general cycles through backoffs of 5, 10, 20 and 30 minutes with a new scale-up between them. CA 1.32 without autoscalingOptions (like 1.26 and older) waits --max-node-provision-time (15m) from the scale-up, then backs general off and scales up again, where the same failures may repeat. CA 1.32 with memory's autoscalingOptions panics on them and CA 1.35 on gpu's nil template: neither runs. Later cycles assume each retry fails the same way. The dump's CA events were written before 10:00, so the earlier runs show them as they are.",
    ),
    block('scale-down-blockers (first lines)', sd, "Both nodes of `default` are removable: the control-plane node is empty as CA sees it (static pods are mirror pods),\nand 10.0.2.31's only pod fits on 10.0.2.22."),
    block('node-group-audit (table and finding headlines)', auditShort),
    block('overview', run()),
  ].join('\n');
  const readmePath = join(root, 'examples', 'externalgrpc', 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const at = readme.indexOf('## Output\n');
  writeFileSync(readmePath, `${readme.slice(0, at)}## Output\n\nWhat the commands above print today (\`node scripts/gen-externalgrpc-demo.mjs --readme\` refreshes this section).\n\n${out}`);
}
process.stdout.write(`wrote ${outDir}\n`);
