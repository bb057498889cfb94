#!/usr/bin/env node
// Generates the bundled offline demo dump (examples/demo/*.json): an EKS cluster "demo" with self-managed ASGs and
// Cluster Autoscaler v1.32.1, captured at 2026-11-21T10:00:00Z. Every file is shaped exactly like the output of the
// kubectl / aws command named in its header comment below; the story is told in examples/demo/README.md.
// Deterministic: ids, hashes and timestamps derive from fixed labels via sha256, never from Math.random or the clock.
// Usage: node scripts/gen-demo.mjs [output-dir]   (default: examples/demo)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(process.argv[2] ?? join(root, 'examples', 'demo'));

// ---------------------------------------------------------------------------------------------------------------
// deterministic helpers

const sha = (s) => createHash('sha256').update(s).digest('hex');
function hexOf(label, n) {
  let out = '';
  for (let i = 0; out.length < n; i++) out += sha(`${label}#${i}`);
  return out.slice(0, n);
}
const intOf = (label, mod) => Number.parseInt(sha(label).slice(0, 12), 16) % mod;
function uuid(label) {
  const x = hexOf(`uuid:${label}`, 32);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-${'89ab'[Number.parseInt(x[16], 16) % 4]}${x.slice(17, 20)}-${x.slice(20)}`;
}
// k8s.io/apimachinery rand.SafeEncodeString alphabet (pod-template-hash, generateName suffixes)
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
function safe(label, n) {
  const x = hexOf(`safe:${label}`, n * 2);
  let s = '';
  for (let i = 0; i < n; i++) s += SAFE[Number.parseInt(x.slice(i * 2, i * 2 + 2), 16) % SAFE.length];
  return s;
}

const ms = (iso) => {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`bad time ${iso}`);
  return t;
};
const addS = (iso, seconds) => sec(ms(iso) + Math.round(seconds * 1000));
/** RFC3339, second precision (metav1.Time). */
const sec = (t) => new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
/** metav1.MicroTime: always six fractional digits. */
const micro = (iso, label) =>
  `${sec(ms(iso)).slice(0, -1)}.${String(intOf(`us:${label}`, 1_000_000)).padStart(6, '0')}Z`;
/** aws-cli v2 timestamp (datetime.isoformat()): microseconds only when non-zero. */
function awsTime(iso, millis = 0) {
  const base = sec(ms(iso)).slice(0, -1);
  return millis ? `${base}.${String(millis).padStart(3, '0')}000+00:00` : `${base}+00:00`;
}
const T0 = ms('2026-11-16T00:00:00Z');
const rv = (label, iso) =>
  String(4_000_000 + Math.floor((ms(iso) - T0) / 1000) * 4 + intOf(`rv:${label}`, 4));

function sortKeysDeep(v) {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) o[k] = sortKeysDeep(v[k]);
    return o;
  }
  return v;
}
// kubectl -o json: Go json.MarshalIndent of unstructured maps (sorted keys, 4 spaces, HTML-escaped), plus a newline
const kubectlJson = (obj) =>
  `${JSON.stringify(sortKeysDeep(obj), null, 4).replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e')}\n`;
const kubectlList = (items) =>
  kubectlJson({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });
// aws --output json: Python json.dumps(indent=4) in the API shape's member order, plus a newline
const awsJson = (obj) => `${JSON.stringify(dropUndefined(obj), null, 4)}\n`;
function dropUndefined(v) {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = dropUndefined(x);
    return o;
  }
  return v;
}
const byNsName = (a, b) =>
  cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || cmp(a.metadata.name, b.metadata.name);
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------------------------------------------------------
// the cluster

const CLUSTER = 'demo';
const REGION = 'us-east-1';
const ACCOUNT = '111122223333';
const ECR = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com`;
const EKS_ECR = `602401143452.dkr.ecr.${REGION}.amazonaws.com`;
// CA's IRSA role: on its ServiceAccount (eks.amazonaws.com/role-arn) and, injected by the webhook, in its pod's env
const CA_ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/${CLUSTER}-cluster-autoscaler`;
const DUMP = '2026-11-21T10:00:00Z';
const CA_LOOP = '2026-11-21 09:59:52.118246319 +0000 UTC';
const CA_LOOP_RFC = '2026-11-21T09:59:52.118246319Z';
const CA_STARTED = '2026-11-20T16:42:07Z';
const CA_FIRST_LOOP_RFC = '2026-11-20T16:42:33.716382541Z';
const SCHEDULER_INSTANCE = 'default-scheduler-ip-172-16-102-29.ec2.internal';
const SERIES_REFRESH = '2026-11-21T09:57:14Z'; // client-go events library flushes series every 30 min

const ZONES = {
  'us-east-1a': { subnet: 'subnet-0a1f3c5e7b9d2a401', zoneId: 'use1-az4', octets: [0, 31] },
  'us-east-1b': { subnet: 'subnet-0b2e4d6f8a0c3b502', zoneId: 'use1-az6', octets: [32, 63] },
  'us-east-1c': { subnet: 'subnet-0c3d5e7f9b1d4c603', zoneId: 'use1-az1', octets: [64, 95] },
};

// capacity as the kubelet reports it on the EKS AL2023 AMI; allocatable = capacity - kube-reserved - 100Mi eviction
// (kube-reserved memory = 255Mi + 11Mi * maxPods, cpu = 6%/1%/0.5%/0.25% of cores)
const TYPES = {
  'm5.xlarge': { cpu: 4, cpuAlloc: '3920m', memKi: 16163312, maxPods: 58 },
  'm5.large': { cpu: 2, cpuAlloc: '1930m', memKi: 7908276, maxPods: 29 },
  'm5a.large': { cpu: 2, cpuAlloc: '1930m', memKi: 7902744, maxPods: 29 },
  'm6i.large': { cpu: 2, cpuAlloc: '1930m', memKi: 7910064, maxPods: 29 },
  'r5.2xlarge': { cpu: 8, cpuAlloc: '7910m', memKi: 65023876, maxPods: 58 },
};
const allocMemKi = (t) => t.memKi - (255 + 11 * t.maxPods) * 1024 - 100 * 1024;

const ASG_NAMES = [
  'demo-general',
  'demo-databases',
  'demo-batch',
  'demo-gpu',
  'demo-stateful',
  'demo-spot',
  'demo-monitoring',
];

const NODE_DEFS = [
  {
    key: 'G1',
    ip: '10.0.11.142',
    zone: 'us-east-1a',
    type: 'm5.xlarge',
    asg: 'demo-general',
    launched: '2026-11-20T07:52:13Z',
    created: '2026-11-20T07:54:02Z',
    labels: { 'node-pool': 'general' },
  },
  {
    key: 'G2',
    ip: '10.0.14.37',
    zone: 'us-east-1a',
    type: 'm5.xlarge',
    asg: 'demo-general',
    launched: '2026-11-20T07:52:13Z',
    created: '2026-11-20T07:54:09Z',
    labels: { 'node-pool': 'general' },
  },
  {
    key: 'G3',
    ip: '10.0.22.96',
    zone: 'us-east-1a',
    type: 'm5.xlarge',
    asg: 'demo-general',
    launched: '2026-11-20T07:52:14Z',
    created: '2026-11-20T07:54:31Z',
    labels: { 'node-pool': 'general' },
  },
  {
    key: 'G4',
    ip: '10.0.27.211',
    zone: 'us-east-1a',
    type: 'm5.xlarge',
    asg: 'demo-general',
    launched: '2026-11-21T09:11:54Z',
    created: '2026-11-21T09:13:41Z',
    ready: '2026-11-21T09:14:37Z',
    labels: { 'node-pool': 'general' },
  },
  {
    key: 'D1',
    ip: '10.0.41.17',
    zone: 'us-east-1b',
    type: 'r5.2xlarge',
    asg: 'demo-databases',
    launched: '2026-11-20T07:52:43Z',
    created: '2026-11-20T07:54:40Z',
    labels: { workload: 'databases' },
    taints: [{ effect: 'NoSchedule', key: 'dedicated', value: 'databases' }],
  },
  {
    key: 'S1',
    ip: '10.0.9.58',
    zone: 'us-east-1a',
    type: 'm5.large',
    asg: 'demo-stateful',
    launched: '2026-11-20T07:53:08Z',
    created: '2026-11-20T07:55:05Z',
    labels: { 'node-pool': 'stateful' },
    // pinned by an operator during the ledger-db incident (scale-down-blockers: ScaleDownDisabledAnnotation)
    annotations: { 'cluster-autoscaler.kubernetes.io/scale-down-disabled': 'true' },
  },
  {
    key: 'S2',
    ip: '10.0.18.203',
    zone: 'us-east-1a',
    type: 'm5.large',
    asg: 'demo-stateful',
    launched: '2026-11-20T07:55:51Z',
    created: '2026-11-20T07:57:48Z',
    labels: { 'node-pool': 'stateful' },
  },
  {
    key: 'SP1',
    ip: '10.0.6.88',
    zone: 'us-east-1a',
    type: 'm5.large',
    asg: 'demo-spot',
    launched: '2026-11-20T07:53:34Z',
    created: '2026-11-20T07:55:34Z',
    labels: { capacity: 'spot' },
  },
  {
    key: 'SP2',
    ip: '10.0.45.120',
    zone: 'us-east-1b',
    type: 'm5a.large',
    asg: 'demo-spot',
    launched: '2026-11-20T07:53:34Z',
    created: '2026-11-20T07:55:36Z',
    labels: { capacity: 'spot' },
  },
  {
    key: 'SP3',
    ip: '10.0.29.12',
    zone: 'us-east-1a',
    type: 'm6i.large',
    asg: 'demo-spot',
    launched: '2026-11-20T07:53:35Z',
    created: '2026-11-20T07:55:51Z',
    labels: { capacity: 'spot' },
  },
  {
    key: 'MON',
    ip: '10.0.3.245',
    zone: 'us-east-1a',
    type: 'm5.large',
    asg: 'demo-monitoring',
    launched: '2026-11-20T07:54:03Z',
    created: '2026-11-20T07:56:02Z',
    labels: { 'node-pool': 'monitoring' },
  },
];
const nodeName = (ip) => `ip-${ip.replaceAll('.', '-')}.ec2.internal`;
const instanceId = (key) => `i-0${hexOf(`instance:${key}`, 16)}`;
const NODES = new Map(
  NODE_DEFS.map((d) => [d.key, { ...d, name: nodeName(d.ip), instanceId: instanceId(d.key) }]),
);
// instances that no longer exist: the us-east-1c stateful node an operator terminated, the batch nodes CA removed
const GONE = {
  S3: {
    ip: '10.0.77.164',
    zone: 'us-east-1c',
    launched: '2026-11-20T07:53:09Z',
    created: '2026-11-20T07:55:10Z',
    terminated: '2026-11-21T09:19:02Z',
    deleted: '2026-11-21T09:20:05Z',
  },
  B1: { ip: '10.0.19.77', zone: 'us-east-1a' },
  B2: { ip: '10.0.25.140', zone: 'us-east-1a' },
};
for (const [k, g] of Object.entries(GONE))
  Object.assign(g, { name: nodeName(g.ip), instanceId: instanceId(k) });

// ---------------------------------------------------------------------------------------------------------------
// Kubernetes object builders

const CLOUD_PROVIDER_HASH = hexOf('cloud-provider-aws:demo', 32);

function podIp(label, zone) {
  const [lo, hi] = ZONES[zone].octets;
  return `10.0.${lo + intOf(`ip3:${label}`, hi - lo + 1)}.${10 + intOf(`ip4:${label}`, 240)}`;
}

const SA_VOLUME = (label) => ({
  name: `kube-api-access-${safe(`sa:${label}`, 5)}`,
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
      {
        downwardAPI: {
          items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }],
        },
      },
    ],
  },
});
const DEFAULT_TOLERATIONS = [
  { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
  { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
];
// pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations
const daemonTolerations = (hostNetwork) => [
  { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists' },
  { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists' },
  { effect: 'NoSchedule', key: 'node.kubernetes.io/disk-pressure', operator: 'Exists' },
  { effect: 'NoSchedule', key: 'node.kubernetes.io/memory-pressure', operator: 'Exists' },
  { effect: 'NoSchedule', key: 'node.kubernetes.io/pid-pressure', operator: 'Exists' },
  { effect: 'NoSchedule', key: 'node.kubernetes.io/unschedulable', operator: 'Exists' },
  ...(hostNetwork
    ? [{ effect: 'NoSchedule', key: 'node.kubernetes.io/network-unavailable', operator: 'Exists' }]
    : []),
];
const PRIORITY = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
  overprovisioning: -20,
};

/** A container spec as the API server stores it (defaults filled in). */
function container(c, saVolumeName) {
  return {
    args: c.args,
    command: c.command,
    env: c.env,
    image: c.image,
    imagePullPolicy: c.imagePullPolicy ?? 'IfNotPresent',
    name: c.name,
    ports: c.ports,
    resources: c.resources ?? {},
    securityContext: c.securityContext,
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    volumeMounts: nonEmpty([
      ...(c.volumeMounts ?? []),
      ...(saVolumeName
        ? [{ mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: saVolumeName, readOnly: true }]
        : []),
    ]),
  };
}
const nonEmpty = (a) => (a.length ? a : undefined);

function qosClass(containers) {
  const all = containers.map((c) => c.resources ?? {});
  if (all.every((r) => !r.requests && !r.limits)) return 'BestEffort';
  const guaranteed = all.every((r) =>
    ['cpu', 'memory'].every(
      (k) => r.limits?.[k] !== undefined && (r.requests?.[k] ?? r.limits[k]) === r.limits[k],
    ),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function imageDigest(image) {
  return `${image.split(':')[0]}@sha256:${hexOf(`digest:${image}`, 64)}`;
}

/**
 * A Pod as `kubectl get pods -o json` prints it. `t` is the pod's template (containers, nodeSelector, ...);
 * `p` is the placement: node (or pending), creation and start times.
 */
function makePod(t, p) {
  const label = `${t.namespace}/${p.name}`;
  const sa = t.serviceAccountName ?? 'default';
  const saVol = t.automountServiceAccountToken === false ? undefined : SA_VOLUME(label);
  const containers = t.containers.map((c) => container(c, saVol?.name));
  const initContainers = t.initContainers?.map((c) => container(c, saVol?.name));
  const node = p.node ? NODES.get(p.node) : undefined;
  const tolerations = t.daemonSet
    ? [...(t.tolerations ?? []), ...daemonTolerations(t.hostNetwork)]
    : [
        ...(t.tolerations ?? []),
        ...((t.tolerations ?? []).some((x) => x.operator === 'Exists' && !x.key && x.effect === 'NoExecute')
          ? []
          : DEFAULT_TOLERATIONS),
      ];
  const affinity = t.daemonSet
    ? {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node.name] }] },
            ],
          },
        },
      }
    : t.affinity;
  const priority = t.priorityClassName ? PRIORITY[t.priorityClassName] : 0;
  const modified = p.modified ?? p.pending?.lastAttempt ?? p.finished ?? p.ready ?? p.created;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      annotations: p.annotations ?? t.annotations,
      creationTimestamp: p.created,
      generateName: p.generateName,
      labels: p.labels,
      name: p.name,
      namespace: t.namespace,
      ownerReferences: p.owner
        ? [
            {
              apiVersion: p.owner.apiVersion,
              blockOwnerDeletion: p.owner.kind === 'Node' ? undefined : true,
              controller: true,
              kind: p.owner.kind,
              name: p.owner.name,
              uid: p.owner.uid,
            },
          ]
        : undefined,
      resourceVersion: rv(`pod:${label}`, modified),
      uid: uuid(`pod:${label}`),
    },
    spec: {
      affinity,
      automountServiceAccountToken: t.automountServiceAccountToken,
      containers,
      dnsPolicy: t.dnsPolicy ?? 'ClusterFirst',
      enableServiceLinks: true,
      hostNetwork: t.hostNetwork || undefined,
      hostPID: t.hostPID || undefined,
      hostname: p.hostname,
      initContainers,
      nodeName: node?.name,
      nodeSelector: t.nodeSelector,
      preemptionPolicy: 'PreemptLowerPriority',
      priority,
      priorityClassName: t.priorityClassName,
      restartPolicy: t.restartPolicy ?? 'Always',
      schedulerName: 'default-scheduler',
      securityContext: t.securityContext ?? {},
      serviceAccount: sa,
      serviceAccountName: sa,
      subdomain: p.subdomain,
      terminationGracePeriodSeconds: t.terminationGracePeriodSeconds ?? 30,
      tolerations,
      volumes: nonEmpty([...(t.volumes ?? []), ...(saVol ? [saVol] : [])]),
    },
    status: {},
  };
  const qos = qosClass([...t.containers, ...(t.initContainers ?? [])]);
  if (p.pending) {
    pod.status = {
      conditions: [
        {
          lastProbeTime: null,
          lastTransitionTime: p.pending.since,
          message: p.pending.message,
          reason: 'Unschedulable',
          status: 'False',
          type: 'PodScheduled',
        },
      ],
      phase: 'Pending',
      qosClass: qos,
    };
    return pod;
  }
  const scheduled = p.scheduled ?? p.created;
  const start = addS(scheduled, 1);
  const ip = t.hostNetwork ? node.ip : podIp(label, node.zone);
  const mountsStatus = (c) =>
    c.volumeMounts?.map((m) => ({
      mountPath: m.mountPath,
      name: m.name,
      readOnly: m.readOnly || undefined,
      recursiveReadOnly: m.readOnly ? 'Disabled' : undefined,
    }));
  const initDone = initContainers ? addS(start, 4) : start;
  if (p.finished) {
    // a completed Job pod
    pod.status = {
      conditions: [
        {
          lastProbeTime: null,
          lastTransitionTime: p.finished,
          status: 'False',
          type: 'PodReadyToStartContainers',
        },
        {
          lastProbeTime: null,
          lastTransitionTime: start,
          reason: 'PodCompleted',
          status: 'True',
          type: 'Initialized',
        },
        {
          lastProbeTime: null,
          lastTransitionTime: p.finished,
          reason: 'PodCompleted',
          status: 'False',
          type: 'Ready',
        },
        {
          lastProbeTime: null,
          lastTransitionTime: p.finished,
          reason: 'PodCompleted',
          status: 'False',
          type: 'ContainersReady',
        },
        { lastProbeTime: null, lastTransitionTime: scheduled, status: 'True', type: 'PodScheduled' },
      ],
      containerStatuses: containers.map((c) => ({
        containerID: `containerd://${hexOf(`cid:${label}/${c.name}`, 64)}`,
        image: c.image,
        imageID: imageDigest(c.image),
        lastState: {},
        name: c.name,
        ready: false,
        restartCount: 0,
        started: false,
        state: {
          terminated: {
            containerID: `containerd://${hexOf(`cid:${label}/${c.name}`, 64)}`,
            exitCode: 0,
            finishedAt: p.finished,
            reason: 'Completed',
            startedAt: addS(start, 2),
          },
        },
        volumeMounts: mountsStatus(c),
      })),
      hostIP: node.ip,
      hostIPs: [{ ip: node.ip }],
      phase: 'Succeeded',
      podIP: ip,
      podIPs: [{ ip }],
      qosClass: qos,
      startTime: start,
    };
    return pod;
  }
  const ready = p.ready ?? addS(initDone, 6);
  pod.status = {
    conditions: [
      {
        lastProbeTime: null,
        lastTransitionTime: addS(start, 2),
        status: 'True',
        type: 'PodReadyToStartContainers',
      },
      { lastProbeTime: null, lastTransitionTime: initDone, status: 'True', type: 'Initialized' },
      { lastProbeTime: null, lastTransitionTime: ready, status: 'True', type: 'Ready' },
      { lastProbeTime: null, lastTransitionTime: ready, status: 'True', type: 'ContainersReady' },
      { lastProbeTime: null, lastTransitionTime: scheduled, status: 'True', type: 'PodScheduled' },
    ],
    containerStatuses: [...containers]
      .sort((a, b) => cmp(a.name, b.name))
      .map((c) => ({
        containerID: `containerd://${hexOf(`cid:${label}/${c.name}`, 64)}`,
        image: c.image,
        imageID: imageDigest(c.image),
        lastState: {},
        name: c.name,
        ready: true,
        restartCount: 0,
        started: true,
        state: { running: { startedAt: addS(initDone, 1) } },
        volumeMounts: mountsStatus(c),
      })),
    hostIP: node.ip,
    hostIPs: [{ ip: node.ip }],
    initContainerStatuses: initContainers?.map((c) => ({
      containerID: `containerd://${hexOf(`cid:${label}/${c.name}`, 64)}`,
      image: c.image,
      imageID: imageDigest(c.image),
      lastState: {},
      name: c.name,
      ready: true,
      restartCount: 0,
      started: false,
      state: {
        terminated: {
          containerID: `containerd://${hexOf(`cid:${label}/${c.name}`, 64)}`,
          exitCode: 0,
          finishedAt: addS(start, 3),
          reason: 'Completed',
          startedAt: addS(start, 1),
        },
      },
      volumeMounts: mountsStatus(c),
    })),
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    qosClass: qos,
    startTime: start,
  };
  return pod;
}

// ---------------------------------------------------------------------------------------------------------------
// workloads

const res = (cpu, memory, limits) => ({ requests: { cpu, memory }, limits });
const cpuOnly = (cpu) => ({ requests: { cpu } });

const LINUX_AFFINITY = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        {
          matchExpressions: [
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
            {
              key: 'eks.amazonaws.com/compute-type',
              operator: 'NotIn',
              values: ['fargate', 'hybrid', 'auto'],
            },
          ],
        },
      ],
    },
  },
};

const ALL_NODE_KEYS = NODE_DEFS.map((d) => d.key);

const DAEMONSETS = [
  {
    namespace: 'kube-system',
    name: 'aws-node',
    created: '2026-11-16T10:31:22Z',
    labels: {
      'app.kubernetes.io/instance': 'aws-vpc-cni',
      'app.kubernetes.io/name': 'aws-node',
      'k8s-app': 'aws-node',
    },
    selector: { 'k8s-app': 'aws-node' },
    template: {
      affinity: LINUX_AFFINITY,
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      serviceAccountName: 'aws-node',
      securityContext: {},
      terminationGracePeriodSeconds: 10,
      tolerations: [{ operator: 'Exists' }],
      initContainers: [
        {
          name: 'aws-vpc-cni-init',
          image: `${EKS_ECR}/amazon-k8s-cni-init:v1.19.2-eksbuild.1`,
          env: [
            { name: 'DISABLE_TCP_EARLY_DEMUX', value: 'false' },
            { name: 'ENABLE_IPv6', value: 'false' },
          ],
          securityContext: { privileged: true },
          volumeMounts: [{ mountPath: '/host/opt/cni/bin', name: 'cni-bin-dir' }],
        },
      ],
      containers: [
        {
          name: 'aws-node',
          image: `${EKS_ECR}/amazon-k8s-cni:v1.19.2-eksbuild.1`,
          ports: [{ containerPort: 61678, hostPort: 61678, name: 'metrics', protocol: 'TCP' }],
          resources: cpuOnly('25m'),
          env: [
            { name: 'AWS_VPC_K8S_CNI_LOGLEVEL', value: 'DEBUG' },
            { name: 'ENABLE_PREFIX_DELEGATION', value: 'false' },
            { name: 'WARM_ENI_TARGET', value: '1' },
            { name: 'CLUSTER_NAME', value: CLUSTER },
            { name: 'VPC_ID', value: 'vpc-0d4c2a9e8f1b3c5a7' },
          ],
          securityContext: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
          volumeMounts: [
            { mountPath: '/host/opt/cni/bin', name: 'cni-bin-dir' },
            { mountPath: '/host/etc/cni/net.d', name: 'cni-net-dir' },
            { mountPath: '/host/var/log/aws-routed-eni', name: 'log-dir' },
            { mountPath: '/var/run/aws-node', name: 'run-dir' },
            { mountPath: '/run/xtables.lock', name: 'xtables-lock' },
          ],
        },
        {
          name: 'aws-eks-nodeagent',
          image: `${EKS_ECR}/amazon/aws-network-policy-agent:v1.1.6-eksbuild.1`,
          args: [
            '--enable-ipv6=false',
            '--enable-network-policy=false',
            '--enable-cloudwatch-logs=false',
            '--metrics-bind-addr=:8162',
            '--health-probe-bind-addr=:8163',
          ],
          securityContext: { capabilities: { add: ['NET_ADMIN'] }, privileged: true },
          volumeMounts: [
            { mountPath: '/host/opt/cni/bin', name: 'cni-bin-dir' },
            { mountPath: '/sys/fs/bpf', name: 'bpf-pin-path' },
            { mountPath: '/var/log/aws-routed-eni', name: 'log-dir' },
            { mountPath: '/var/run/aws-node', name: 'run-dir' },
          ],
        },
      ],
      volumes: [
        { hostPath: { path: '/sys/fs/bpf', type: '' }, name: 'bpf-pin-path' },
        { hostPath: { path: '/opt/cni/bin', type: '' }, name: 'cni-bin-dir' },
        { hostPath: { path: '/etc/cni/net.d', type: '' }, name: 'cni-net-dir' },
        { hostPath: { path: '/var/log/aws-routed-eni', type: 'DirectoryOrCreate' }, name: 'log-dir' },
        { hostPath: { path: '/var/run/aws-node', type: 'DirectoryOrCreate' }, name: 'run-dir' },
        { hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' }, name: 'xtables-lock' },
      ],
    },
    nodes: ALL_NODE_KEYS,
  },
  {
    namespace: 'kube-system',
    name: 'kube-proxy',
    created: '2026-11-16T10:31:24Z',
    labels: { 'eks.amazonaws.com/component': 'kube-proxy', 'k8s-app': 'kube-proxy' },
    selector: { 'k8s-app': 'kube-proxy' },
    template: {
      affinity: LINUX_AFFINITY,
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      serviceAccountName: 'kube-proxy',
      tolerations: [{ operator: 'Exists' }],
      containers: [
        {
          name: 'kube-proxy',
          image: `${EKS_ECR}/eks/kube-proxy:v1.31.3-minimal-eksbuild.2`,
          command: [
            'kube-proxy',
            '--v=2',
            '--config=/var/lib/kube-proxy-config/config',
            '--hostname-override=$(NODE_NAME)',
          ],
          env: [
            { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
          ],
          resources: cpuOnly('100m'),
          securityContext: { privileged: true },
          volumeMounts: [
            { mountPath: '/var/log', name: 'varlog' },
            { mountPath: '/run/xtables.lock', name: 'xtables-lock' },
            { mountPath: '/lib/modules', name: 'lib-modules', readOnly: true },
            { mountPath: '/var/lib/kube-proxy/', name: 'kubeconfig' },
            { mountPath: '/var/lib/kube-proxy-config/', name: 'config' },
          ],
        },
      ],
      volumes: [
        { hostPath: { path: '/var/log', type: '' }, name: 'varlog' },
        { hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' }, name: 'xtables-lock' },
        { hostPath: { path: '/lib/modules', type: '' }, name: 'lib-modules' },
        { configMap: { defaultMode: 420, name: 'kube-proxy' }, name: 'kubeconfig' },
        { configMap: { defaultMode: 420, name: 'kube-proxy-config' }, name: 'config' },
      ],
    },
    nodes: ALL_NODE_KEYS,
  },
  {
    namespace: 'kube-system',
    name: 'ebs-csi-node',
    created: '2026-11-16T10:44:05Z',
    labels: {
      'app.kubernetes.io/component': 'csi-driver',
      'app.kubernetes.io/managed-by': 'EKS',
      'app.kubernetes.io/name': 'aws-ebs-csi-driver',
      'app.kubernetes.io/version': '1.37.0',
    },
    selector: { app: 'ebs-csi-node', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' },
    podLabels: {
      app: 'ebs-csi-node',
      'app.kubernetes.io/component': 'csi-driver',
      'app.kubernetes.io/managed-by': 'EKS',
      'app.kubernetes.io/name': 'aws-ebs-csi-driver',
      'app.kubernetes.io/version': '1.37.0',
    },
    template: {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  {
                    key: 'eks.amazonaws.com/compute-type',
                    operator: 'NotIn',
                    values: ['fargate', 'auto', 'hybrid'],
                  },
                ],
              },
            ],
          },
        },
      },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      priorityClassName: 'system-node-critical',
      serviceAccountName: 'ebs-csi-node-sa',
      securityContext: { fsGroup: 0, runAsGroup: 0, runAsNonRoot: false, runAsUser: 0 },
      terminationGracePeriodSeconds: 30,
      tolerations: [{ operator: 'Exists' }],
      containers: [
        {
          name: 'ebs-plugin',
          image: `${EKS_ECR}/eks/aws-ebs-csi-driver:v1.37.0`,
          args: [
            'node',
            '--endpoint=$(CSI_ENDPOINT)',
            '--csi-mount-point-prefix=/var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/',
            '--logging-format=text',
            '--v=2',
          ],
          env: [
            { name: 'CSI_ENDPOINT', value: 'unix:/csi/csi.sock' },
            {
              name: 'CSI_NODE_NAME',
              valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } },
            },
          ],
          ports: [{ containerPort: 9808, name: 'healthz', protocol: 'TCP' }],
          resources: res('10m', '40Mi', { memory: '256Mi' }),
          securityContext: { privileged: true, readOnlyRootFilesystem: true },
          volumeMounts: [
            { mountPath: '/var/lib/kubelet', mountPropagation: 'Bidirectional', name: 'kubelet-dir' },
            { mountPath: '/csi', name: 'plugin-dir' },
            { mountPath: '/dev', name: 'device-dir' },
          ],
        },
        {
          name: 'node-driver-registrar',
          image: `${EKS_ECR}/eks/csi-node-driver-registrar:v2.12.0-eks-1-31-7`,
          args: ['--csi-address=$(ADDRESS)', '--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)', '--v=2'],
          env: [
            { name: 'ADDRESS', value: '/csi/csi.sock' },
            { name: 'DRIVER_REG_SOCK_PATH', value: '/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock' },
          ],
          resources: res('10m', '40Mi', { memory: '256Mi' }),
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
          volumeMounts: [
            { mountPath: '/csi', name: 'plugin-dir' },
            { mountPath: '/registration', name: 'registration-dir' },
            { mountPath: '/var/lib/kubelet/plugins/ebs.csi.aws.com/', name: 'probe-dir' },
          ],
        },
        {
          name: 'liveness-probe',
          image: `${EKS_ECR}/eks/livenessprobe:v2.14.0-eks-1-31-7`,
          args: ['--csi-address=/csi/csi.sock'],
          resources: res('10m', '40Mi', { memory: '256Mi' }),
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
          volumeMounts: [{ mountPath: '/csi', name: 'plugin-dir' }],
        },
      ],
      volumes: [
        { hostPath: { path: '/var/lib/kubelet', type: 'Directory' }, name: 'kubelet-dir' },
        {
          hostPath: { path: '/var/lib/kubelet/plugins/ebs.csi.aws.com/', type: 'DirectoryOrCreate' },
          name: 'plugin-dir',
        },
        {
          hostPath: { path: '/var/lib/kubelet/plugins_registry/', type: 'Directory' },
          name: 'registration-dir',
        },
        { hostPath: { path: '/dev', type: 'Directory' }, name: 'device-dir' },
        { emptyDir: {}, name: 'probe-dir' },
      ],
    },
    nodes: ALL_NODE_KEYS,
  },
  {
    namespace: 'kube-system',
    name: 'nvidia-device-plugin-daemonset',
    created: '2026-11-17T14:12:50Z',
    labels: { 'app.kubernetes.io/name': 'nvidia-device-plugin' },
    selector: { name: 'nvidia-device-plugin-ds' },
    template: {
      nodeSelector: { accelerator: 'nvidia-l4' },
      priorityClassName: 'system-node-critical',
      tolerations: [{ effect: 'NoSchedule', key: 'nvidia.com/gpu', operator: 'Exists' }],
      containers: [
        {
          name: 'nvidia-device-plugin-ctr',
          image: 'nvcr.io/nvidia/k8s-device-plugin:v0.17.0',
          env: [{ name: 'FAIL_ON_INIT_ERROR', value: 'false' }],
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          volumeMounts: [{ mountPath: '/var/lib/kubelet/device-plugins', name: 'device-plugin' }],
        },
      ],
      volumes: [{ hostPath: { path: '/var/lib/kubelet/device-plugins', type: '' }, name: 'device-plugin' }],
    },
    nodes: [],
  },
  {
    namespace: 'monitoring',
    name: 'node-exporter',
    created: '2026-11-16T11:05:40Z',
    labels: {
      'app.kubernetes.io/component': 'exporter',
      'app.kubernetes.io/name': 'node-exporter',
      'app.kubernetes.io/version': '1.8.2',
    },
    selector: { 'app.kubernetes.io/name': 'node-exporter' },
    template: {
      hostNetwork: true,
      hostPID: true,
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      serviceAccountName: 'node-exporter',
      automountServiceAccountToken: false,
      securityContext: { fsGroup: 65534, runAsGroup: 65534, runAsNonRoot: true, runAsUser: 65534 },
      tolerations: [{ operator: 'Exists' }],
      containers: [
        {
          name: 'node-exporter',
          image: 'quay.io/prometheus/node-exporter:v1.8.2',
          args: [
            '--path.procfs=/host/proc',
            '--path.sysfs=/host/sys',
            '--path.rootfs=/host/root',
            '--web.listen-address=[$(HOST_IP)]:9100',
          ],
          env: [{ name: 'HOST_IP', value: '0.0.0.0' }],
          ports: [{ containerPort: 9100, hostPort: 9100, name: 'metrics', protocol: 'TCP' }],
          resources: res('50m', '64Mi', { memory: '128Mi' }),
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
          volumeMounts: [
            { mountPath: '/host/proc', name: 'proc', readOnly: true },
            { mountPath: '/host/sys', name: 'sys', readOnly: true },
            { mountPath: '/host/root', mountPropagation: 'HostToContainer', name: 'root', readOnly: true },
          ],
        },
      ],
      volumes: [
        { hostPath: { path: '/proc', type: '' }, name: 'proc' },
        { hostPath: { path: '/sys', type: '' }, name: 'sys' },
        { hostPath: { path: '/', type: '' }, name: 'root' },
      ],
    },
    nodes: ALL_NODE_KEYS,
  },
];

// Pending pods: the scheduler's FailedScheduling text (sorted histogram, then the preemption PostFilter message, with the
// double period kube-scheduler 1.31 really prints) and, for CA, the NotTriggerScaleUp text (map order: not sorted).
const TAINT_DB = 'node(s) had untolerated taint {dedicated: databases}';
const TAINT_GPU = 'node(s) had untolerated taint {nvidia.com/gpu: true}';
const SELECTOR = "node(s) didn't match Pod's node affinity/selector";
const MAX = 'max node group size reached';
const sched = (n, reasons, preemption) =>
  `0/${n} nodes are available: ${reasons.join(', ')}. preemption: 0/${n} nodes are available: ${preemption.join(', ')}..`;
const ntsu = (reasons) => `pod didn't trigger scale-up: ${reasons.join(', ')}`;

const SCHEDULER_MSG = {
  ordersPg: sched(11, [`1 ${TAINT_DB}`, `10 ${SELECTOR}`], ['11 Preemption is not helpful for scheduling']),
  reportBuilder: sched(
    11,
    [`1 ${TAINT_DB}`, `10 ${SELECTOR}`],
    ['11 Preemption is not helpful for scheduling'],
  ),
  sparkDriver: sched(
    11,
    [`1 ${TAINT_DB}`, '10 Insufficient cpu', '10 Insufficient memory'],
    ['1 Preemption is not helpful for scheduling', '10 No preemption victims found for incoming pod'],
  ),
  ledgerDb: sched(
    11,
    [`1 ${TAINT_DB}`, '2 Insufficient memory', `8 ${SELECTOR}`],
    ['2 No preemption victims found for incoming pod', '9 Preemption is not helpful for scheduling'],
  ),
  inference: sched(11, [`1 ${TAINT_DB}`, `10 ${SELECTOR}`], ['11 Preemption is not helpful for scheduling']),
  frontend: sched(
    11,
    [`1 ${TAINT_DB}`, '3 Insufficient cpu', `7 ${SELECTOR}`],
    ['3 No preemption victims found for incoming pod', '8 Preemption is not helpful for scheduling'],
  ),
  api: sched(
    11,
    [`1 ${TAINT_DB}`, '4 Insufficient cpu', `6 ${SELECTOR}`],
    ['4 No preemption victims found for incoming pod', '7 Preemption is not helpful for scheduling'],
  ),
  pause: sched(
    11,
    [`1 ${TAINT_DB}`, '10 Insufficient cpu'],
    ['1 Preemption is not helpful for scheduling', '10 No preemption victims found for incoming pod'],
  ),
  // history of the api replica that made CA add the 4th general node (3 general nodes then; the stateful us-east-1c node still there)
  apiBefore: sched(
    11,
    [`1 ${TAINT_DB}`, '3 Insufficient cpu', `7 ${SELECTOR}`],
    ['3 No preemption victims found for incoming pod', '8 Preemption is not helpful for scheduling'],
  ),
  apiNotReady: sched(
    12,
    [
      `1 ${TAINT_DB}`,
      '1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }',
      '3 Insufficient cpu',
      `7 ${SELECTOR}`,
    ],
    ['3 No preemption victims found for incoming pod', '9 Preemption is not helpful for scheduling'],
  ),
};
const CA_MSG = {
  ordersPg: ntsu([`3 ${SELECTOR}`, `1 ${TAINT_DB}`, `1 ${MAX}`, `1 ${TAINT_GPU}`]),
  reportBuilder: ntsu([`1 ${TAINT_GPU}`, `3 ${SELECTOR}`, `1 ${MAX}`, `1 ${TAINT_DB}`]),
  sparkDriver: ntsu([
    '3 Insufficient cpu',
    `1 ${TAINT_DB}`,
    '3 Insufficient memory',
    `1 ${MAX}`,
    `1 ${TAINT_GPU}`,
  ]),
  ledgerDb: ntsu([
    `1 ${TAINT_DB}`,
    '1 node(s) had volume node affinity conflict',
    `2 ${SELECTOR}`,
    `1 ${TAINT_GPU}`,
    `1 ${MAX}`,
  ]),
  inference: ntsu([`1 ${MAX}`, '1 Insufficient nvidia.com/gpu', `3 ${SELECTOR}`, `1 ${TAINT_DB}`]),
  frontend: ntsu([`1 ${MAX}`, `1 ${TAINT_DB}`, `3 ${SELECTOR}`, `1 ${TAINT_GPU}`]),
};

const ir = (image) => `${ECR}/${image}`;

/**
 * Deployments. `pods` lists each replica: a node key (running) or a pending spec. Resources are what the scheduler
 * counts; examples/demo/README.md has the per-node arithmetic.
 */
const DEPLOYMENTS = [
  {
    namespace: 'kube-system',
    name: 'coredns',
    created: '2026-11-16T10:31:20Z',
    labels: {
      'eks.amazonaws.com/component': 'coredns',
      'k8s-app': 'kube-dns',
      'kubernetes.io/name': 'CoreDNS',
    },
    selector: { 'eks.amazonaws.com/component': 'coredns', 'k8s-app': 'kube-dns' },
    rsCreated: '2026-11-20T08:02:41Z',
    revision: '3',
    template: {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
                  { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
                ],
              },
            ],
          },
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              podAffinityTerm: {
                labelSelector: {
                  matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }],
                },
                topologyKey: 'kubernetes.io/hostname',
              },
              weight: 100,
            },
          ],
        },
      },
      priorityClassName: 'system-cluster-critical',
      serviceAccountName: 'coredns',
      dnsPolicy: 'Default',
      tolerations: [
        { key: 'CriticalAddonsOnly', operator: 'Exists' },
        { effect: 'NoSchedule', key: 'node-role.kubernetes.io/control-plane' },
      ],
      containers: [
        {
          name: 'coredns',
          image: `${EKS_ECR}/eks/coredns:v1.11.3-eksbuild.2`,
          args: ['-conf', '/etc/coredns/Corefile'],
          ports: [
            { containerPort: 53, name: 'dns', protocol: 'UDP' },
            { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
            { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
          ],
          resources: res('100m', '70Mi', { memory: '170Mi' }),
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
            readOnlyRootFilesystem: true,
          },
          volumeMounts: [{ mountPath: '/etc/coredns', name: 'config-volume', readOnly: true }],
        },
      ],
      volumes: [
        {
          configMap: { defaultMode: 420, items: [{ key: 'Corefile', path: 'Corefile' }], name: 'coredns' },
          name: 'config-volume',
        },
      ],
    },
    pods: [
      { node: 'G1', created: '2026-11-20T08:02:41Z' },
      { node: 'G2', created: '2026-11-20T08:02:41Z' },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'metrics-server',
    created: '2026-11-16T10:46:12Z',
    labels: {
      'app.kubernetes.io/instance': 'metrics-server',
      'app.kubernetes.io/name': 'metrics-server',
      'app.kubernetes.io/version': '0.7.2',
    },
    selector: { 'app.kubernetes.io/instance': 'metrics-server', 'app.kubernetes.io/name': 'metrics-server' },
    rsCreated: '2026-11-16T10:46:12Z',
    template: {
      priorityClassName: 'system-cluster-critical',
      serviceAccountName: 'metrics-server',
      containers: [
        {
          name: 'metrics-server',
          image: `${EKS_ECR}/eks/metrics-server:v0.7.2-eksbuild.1`,
          args: [
            '--secure-port=10251',
            '--cert-dir=/tmp',
            '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
            '--kubelet-use-node-status-port',
            '--metric-resolution=15s',
          ],
          ports: [{ containerPort: 10251, name: 'https', protocol: 'TCP' }],
          resources: res('100m', '200Mi'),
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            runAsUser: 1000,
          },
          volumeMounts: [{ mountPath: '/tmp', name: 'tmp' }],
        },
      ],
      volumes: [{ emptyDir: {}, name: 'tmp' }],
    },
    pods: [{ node: 'G2', created: '2026-11-20T08:02:55Z' }],
  },
  {
    namespace: 'kube-system',
    name: 'cluster-autoscaler',
    created: '2026-11-16T11:20:03Z',
    labels: { app: 'cluster-autoscaler' },
    selector: { app: 'cluster-autoscaler' },
    rsCreated: CA_STARTED,
    revision: '2',
    templateAnnotations: { 'prometheus.io/port': '8085', 'prometheus.io/scrape': 'true' },
    template: {
      priorityClassName: 'system-cluster-critical',
      serviceAccountName: 'cluster-autoscaler',
      securityContext: {
        fsGroup: 65534,
        runAsNonRoot: true,
        runAsUser: 65534,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: 'cluster-autoscaler',
          image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
          imagePullPolicy: 'Always',
          command: ['./cluster-autoscaler'],
          args: [
            '--v=4',
            '--stderrthreshold=info',
            '--cloud-provider=aws',
            '--expander=least-waste',
            '--balance-similar-node-groups',
            `--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/${CLUSTER}`,
          ],
          resources: res('100m', '600Mi', { cpu: '100m', memory: '600Mi' }),
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            readOnlyRootFilesystem: true,
          },
          volumeMounts: [
            { mountPath: '/etc/ssl/certs/ca-certificates.crt', name: 'ssl-certs', readOnly: true },
          ],
        },
      ],
      volumes: [{ hostPath: { path: '/etc/ssl/certs/ca-bundle.crt', type: '' }, name: 'ssl-certs' }],
    },
    // the EKS pod identity webhook (IRSA) injects these into the pod, not the Deployment
    podMutation: (pod) => {
      const c = pod.spec.containers[0];
      c.env = [
        { name: 'AWS_STS_REGIONAL_ENDPOINTS', value: 'regional' },
        { name: 'AWS_DEFAULT_REGION', value: REGION },
        { name: 'AWS_REGION', value: REGION },
        { name: 'AWS_ROLE_ARN', value: CA_ROLE_ARN },
        {
          name: 'AWS_WEB_IDENTITY_TOKEN_FILE',
          value: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token',
        },
      ];
      c.volumeMounts.push({
        mountPath: '/var/run/secrets/eks.amazonaws.com/serviceaccount',
        name: 'aws-iam-token',
        readOnly: true,
      });
      pod.spec.volumes.unshift({
        name: 'aws-iam-token',
        projected: {
          defaultMode: 420,
          sources: [
            {
              serviceAccountToken: { audience: 'sts.amazonaws.com', expirationSeconds: 86400, path: 'token' },
            },
          ],
        },
      });
      pod.status.containerStatuses[0].volumeMounts.push({
        mountPath: '/var/run/secrets/eks.amazonaws.com/serviceaccount',
        name: 'aws-iam-token',
        readOnly: true,
        recursiveReadOnly: 'Disabled',
      });
    },
    pods: [{ node: 'G1', created: CA_STARTED }],
  },
  {
    // rolled out 25 minutes before the dump; the chart's PDB is off by default (scale-down-blockers: a young
    // UnmovableKubeSystemPod, next to the old cluster-autoscaler and metrics-server pods)
    namespace: 'kube-system',
    name: 'aws-load-balancer-controller',
    created: '2026-11-21T09:35:20Z',
    labels: {
      'app.kubernetes.io/instance': 'aws-load-balancer-controller',
      'app.kubernetes.io/name': 'aws-load-balancer-controller',
      'app.kubernetes.io/version': 'v2.11.0',
    },
    selector: {
      'app.kubernetes.io/instance': 'aws-load-balancer-controller',
      'app.kubernetes.io/name': 'aws-load-balancer-controller',
    },
    rsCreated: '2026-11-21T09:35:20Z',
    template: {
      priorityClassName: 'system-cluster-critical',
      serviceAccountName: 'aws-load-balancer-controller',
      securityContext: { fsGroup: 65534 },
      containers: [
        {
          name: 'aws-load-balancer-controller',
          image: 'public.ecr.aws/eks/aws-load-balancer-controller:v2.11.0',
          args: ['--cluster-name=demo', '--ingress-class=alb'],
          ports: [
            { containerPort: 9443, name: 'webhook-server', protocol: 'TCP' },
            { containerPort: 8080, name: 'metrics-server', protocol: 'TCP' },
          ],
          resources: res('100m', '128Mi', { memory: '256Mi' }),
        },
      ],
    },
    pods: [{ node: 'G4', created: '2026-11-21T09:35:20Z', newRollout: true }],
  },
  {
    namespace: 'kube-system',
    name: 'ebs-csi-controller',
    created: '2026-11-16T10:44:05Z',
    labels: {
      'app.kubernetes.io/component': 'csi-driver',
      'app.kubernetes.io/managed-by': 'EKS',
      'app.kubernetes.io/name': 'aws-ebs-csi-driver',
      'app.kubernetes.io/version': '1.37.0',
    },
    selector: { app: 'ebs-csi-controller', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' },
    podLabels: {
      app: 'ebs-csi-controller',
      'app.kubernetes.io/component': 'csi-driver',
      'app.kubernetes.io/managed-by': 'EKS',
      'app.kubernetes.io/name': 'aws-ebs-csi-driver',
      'app.kubernetes.io/version': '1.37.0',
    },
    rsCreated: '2026-11-16T10:44:05Z',
    template: {
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      priorityClassName: 'system-cluster-critical',
      serviceAccountName: 'ebs-csi-controller-sa',
      securityContext: { fsGroup: 1000, runAsGroup: 1000, runAsNonRoot: true, runAsUser: 1000 },
      tolerations: [
        { key: 'CriticalAddonsOnly', operator: 'Exists' },
        { effect: 'NoExecute', operator: 'Exists', tolerationSeconds: 300 },
      ],
      containers: [
        'ebs-plugin',
        'csi-provisioner',
        'csi-attacher',
        'csi-snapshotter',
        'csi-resizer',
        'liveness-probe',
      ].map((n) => ({
        name: n,
        image:
          n === 'ebs-plugin'
            ? `${EKS_ECR}/eks/aws-ebs-csi-driver:v1.37.0`
            : `${EKS_ECR}/eks/${n === 'liveness-probe' ? 'livenessprobe:v2.14.0' : `${n}:v${{ 'csi-provisioner': '5.1.0', 'csi-attacher': '4.7.0', 'csi-snapshotter': '8.1.0', 'csi-resizer': '1.12.0' }[n]}`}-eks-1-31-7`,
        args:
          n === 'ebs-plugin'
            ? [
                'controller',
                '--endpoint=$(CSI_ENDPOINT)',
                '--batching=true',
                '--logging-format=text',
                '--v=2',
              ]
            : ['--csi-address=$(ADDRESS)', '--v=2'],
        env:
          n === 'ebs-plugin'
            ? [{ name: 'CSI_ENDPOINT', value: 'unix:///var/lib/csi/sockets/pluginproxy/csi.sock' }]
            : [{ name: 'ADDRESS', value: '/var/lib/csi/sockets/pluginproxy/csi.sock' }],
        resources: res('10m', '40Mi', { memory: '256Mi' }),
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
        volumeMounts: [{ mountPath: '/var/lib/csi/sockets/pluginproxy/', name: 'socket-dir' }],
      })),
      volumes: [{ emptyDir: {}, name: 'socket-dir' }],
    },
    pods: [
      { node: 'G1', created: '2026-11-20T08:03:12Z' },
      { node: 'G2', created: '2026-11-20T08:03:12Z' },
    ],
  },
  {
    namespace: 'web',
    name: 'api',
    created: '2026-11-17T09:40:00Z',
    labels: { app: 'api', 'app.kubernetes.io/part-of': 'storefront' },
    selector: { app: 'api' },
    rsCreated: '2026-11-20T08:31:08Z',
    revision: '4',
    generation: 9,
    template: {
      nodeSelector: { 'node-pool': 'general' },
      serviceAccountName: 'api',
      containers: [
        {
          name: 'api',
          image: ir('web/api:2026.11.4'),
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          resources: res('1500m', '3Gi', { memory: '3Gi' }),
        },
      ],
    },
    pods: [
      { node: 'G1', created: '2026-11-20T08:31:10Z' },
      { node: 'G2', created: '2026-11-20T08:31:10Z' },
      { node: 'G3', created: '2026-11-20T08:31:11Z' },
      {
        node: 'G4',
        created: '2026-11-21T09:11:31Z',
        scheduled: '2026-11-21T09:14:38Z',
        ready: '2026-11-21T09:14:52Z',
        history: 'apiScaleUp',
      },
      { pending: 'api', created: '2026-11-21T09:59:55Z' },
    ],
    scaleEvents: [
      { at: '2026-11-21T09:11:31Z', from: 3, to: 4 },
      { at: '2026-11-21T09:59:55Z', from: 4, to: 5 },
    ],
  },
  {
    namespace: 'web',
    name: 'frontend',
    created: '2026-11-17T09:41:00Z',
    labels: { app: 'frontend', 'app.kubernetes.io/part-of': 'storefront' },
    selector: { app: 'frontend' },
    rsCreated: '2026-11-20T08:31:40Z',
    revision: '2',
    generation: 4,
    template: {
      nodeSelector: { capacity: 'spot' },
      containers: [
        {
          name: 'frontend',
          image: ir('web/frontend:2026.11.2'),
          ports: [{ containerPort: 3000, name: 'http', protocol: 'TCP' }],
          resources: res('1', '1Gi', { memory: '1Gi' }),
        },
      ],
    },
    pods: [
      { node: 'SP1', created: '2026-11-20T08:31:41Z' },
      { node: 'SP2', created: '2026-11-20T08:31:41Z' },
      { node: 'SP3', created: '2026-11-20T08:31:42Z' },
      { pending: 'frontend', created: '2026-11-21T09:44:10Z' },
    ],
    scaleEvents: [{ at: '2026-11-21T09:44:10Z', from: 3, to: 4 }],
  },
  {
    namespace: 'payments',
    name: 'payments-api',
    created: '2026-11-17T10:02:00Z',
    labels: { app: 'payments-api' },
    selector: { app: 'payments-api' },
    rsCreated: '2026-11-20T08:33:02Z',
    revision: '3',
    template: {
      nodeSelector: { 'node-pool': 'general' },
      containers: [
        {
          name: 'payments-api',
          image: ir('payments/payments-api:4.18.0'),
          ports: [{ containerPort: 8443, name: 'https', protocol: 'TCP' }],
          resources: res('1', '2Gi', { memory: '2Gi' }),
        },
      ],
    },
    pods: [
      { node: 'G1', created: '2026-11-20T08:33:04Z' },
      { node: 'G2', created: '2026-11-20T08:33:04Z' },
      { node: 'G3', created: '2026-11-20T08:33:05Z' },
    ],
  },
  {
    namespace: 'payments',
    name: 'payments-worker',
    created: '2026-11-21T09:35:02Z',
    labels: { app: 'payments-worker' },
    selector: { app: 'payments-worker' },
    rsCreated: '2026-11-21T09:35:02Z',
    // long-running settlement batches must not be interrupted by a scale-down drain
    templateAnnotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' },
    template: {
      nodeSelector: { 'node-pool': 'general' },
      containers: [
        {
          name: 'worker',
          image: ir('payments/payments-worker:4.18.0'),
          resources: res('1', '1536Mi', { memory: '1536Mi' }),
        },
      ],
    },
    pods: [{ node: 'G4', created: '2026-11-21T09:35:02Z', newRollout: true }],
  },
  {
    namespace: 'payments',
    name: 'settlement-worker',
    created: '2026-11-17T10:05:00Z',
    labels: { app: 'settlement-worker' },
    selector: { app: 'settlement-worker' },
    rsCreated: '2026-11-20T08:34:10Z',
    revision: '2',
    template: {
      nodeSelector: { 'node-pool': 'stateful' },
      containers: [
        {
          name: 'settlement-worker',
          image: ir('payments/settlement-worker:2.9.1'),
          env: [{ name: 'JAVA_TOOL_OPTIONS', value: '-XX:MaxRAMPercentage=75' }],
          resources: res('1', '6Gi', { memory: '6Gi' }),
        },
      ],
    },
    pods: [
      { node: 'S1', created: '2026-11-20T08:34:11Z' },
      { node: 'S2', created: '2026-11-20T08:34:11Z' },
    ],
  },
  {
    namespace: 'batch',
    name: 'report-builder',
    created: '2026-11-21T09:31:05Z',
    labels: { app: 'report-builder' },
    selector: { app: 'report-builder' },
    rsCreated: '2026-11-21T09:31:05Z',
    template: {
      nodeSelector: { 'node-pool': 'batch' },
      containers: [
        {
          name: 'report-builder',
          image: ir('batch/report-builder:1.7.0'),
          resources: res('1', '2Gi', { memory: '2Gi' }),
        },
      ],
    },
    pods: [{ pending: 'reportBuilder', created: '2026-11-21T09:31:05Z', newRollout: true }],
  },
  {
    namespace: 'analytics',
    name: 'spark-driver',
    created: '2026-11-21T09:36:40Z',
    labels: { app: 'spark-driver' },
    selector: { app: 'spark-driver' },
    rsCreated: '2026-11-21T09:36:40Z',
    template: {
      serviceAccountName: 'spark',
      containers: [
        {
          name: 'spark-driver',
          image: 'apache/spark:3.5.3',
          args: ['driver', '--properties-file', '/opt/spark/conf/spark.properties'],
          resources: res('8', '200Gi', { memory: '200Gi' }),
        },
      ],
    },
    pods: [{ pending: 'sparkDriver', created: '2026-11-21T09:36:40Z', newRollout: true }],
  },
  {
    namespace: 'analytics',
    name: 'dashboards',
    created: '2026-11-17T12:10:00Z',
    labels: { app: 'dashboards' },
    selector: { app: 'dashboards' },
    rsCreated: '2026-11-20T08:40:20Z',
    revision: '2',
    // the render cache is disposable: let CA drain the node despite the emptyDir
    templateAnnotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes': 'cache' },
    template: {
      containers: [
        {
          name: 'dashboards',
          image: ir('analytics/dashboards:3.2.0'),
          ports: [{ containerPort: 8088, name: 'http', protocol: 'TCP' }],
          resources: res('500m', '1Gi', { memory: '1Gi' }),
          volumeMounts: [{ mountPath: '/var/cache/dashboards', name: 'cache' }],
        },
      ],
      volumes: [{ emptyDir: { sizeLimit: '2Gi' }, name: 'cache' }],
    },
    pods: [{ node: 'G3', created: '2026-11-20T08:40:21Z' }],
  },
  {
    namespace: 'ml',
    name: 'inference',
    created: '2026-11-21T09:40:12Z',
    labels: { app: 'inference' },
    selector: { app: 'inference' },
    rsCreated: '2026-11-21T09:40:12Z',
    template: {
      nodeSelector: { accelerator: 'nvidia-l4' },
      tolerations: [{ effect: 'NoSchedule', key: 'nvidia.com/gpu', operator: 'Exists' }],
      containers: [
        {
          name: 'inference',
          image: ir('ml/inference:2026.11.1'),
          ports: [{ containerPort: 8000, name: 'http', protocol: 'TCP' }],
          resources: {
            limits: { memory: '8Gi', 'nvidia.com/gpu': '1' },
            requests: { cpu: '2', memory: '8Gi', 'nvidia.com/gpu': '1' },
          },
        },
      ],
    },
    pods: [{ pending: 'inference', created: '2026-11-21T09:40:12Z', newRollout: true }],
  },
  {
    namespace: 'ml',
    name: 'model-registry',
    created: '2026-11-21T09:38:40Z',
    labels: { app: 'model-registry' },
    selector: { app: 'model-registry' },
    rsCreated: '2026-11-21T09:38:40Z',
    template: {
      containers: [
        {
          name: 'model-registry',
          image: ir('ml/model-registry:0.9.3'),
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          resources: res('250m', '512Mi', { memory: '512Mi' }),
          volumeMounts: [{ mountPath: '/tmp', name: 'tmp' }],
        },
      ],
      volumes: [{ emptyDir: { medium: 'Memory', sizeLimit: '256Mi' }, name: 'tmp' }],
    },
    pods: [{ node: 'G4', created: '2026-11-21T09:38:40Z', newRollout: true }],
  },
  {
    namespace: 'monitoring',
    name: 'prometheus-server',
    created: '2026-11-16T11:05:40Z',
    labels: { 'app.kubernetes.io/component': 'server', 'app.kubernetes.io/name': 'prometheus' },
    selector: { 'app.kubernetes.io/component': 'server', 'app.kubernetes.io/name': 'prometheus' },
    rsCreated: '2026-11-16T11:05:40Z',
    strategy: { type: 'Recreate' },
    template: {
      nodeSelector: { 'node-pool': 'monitoring' },
      serviceAccountName: 'prometheus-server',
      securityContext: { fsGroup: 65534, runAsGroup: 65534, runAsNonRoot: true, runAsUser: 65534 },
      containers: [
        {
          name: 'prometheus-server',
          image: 'quay.io/prometheus/prometheus:v2.55.1',
          args: [
            '--storage.tsdb.retention.time=15d',
            '--config.file=/etc/config/prometheus.yml',
            '--storage.tsdb.path=/data',
            '--web.enable-lifecycle',
          ],
          ports: [{ containerPort: 9090, protocol: 'TCP' }],
          resources: res('950m', '4000Mi', { memory: '4000Mi' }),
          volumeMounts: [
            { mountPath: '/etc/config', name: 'config-volume' },
            { mountPath: '/data', name: 'storage-volume' },
          ],
        },
        {
          name: 'prometheus-server-configmap-reload',
          image: 'quay.io/prometheus-operator/prometheus-config-reloader:v0.77.2',
          args: [
            '--watched-dir=/etc/config',
            '--listen-address=0.0.0.0:8080',
            '--reload-url=http://127.0.0.1:9090/-/reload',
          ],
          resources: res('50m', '96Mi', { memory: '96Mi' }),
          volumeMounts: [{ mountPath: '/etc/config', name: 'config-volume', readOnly: true }],
        },
      ],
      volumes: [
        { configMap: { defaultMode: 420, name: 'prometheus-server' }, name: 'config-volume' },
        { name: 'storage-volume', persistentVolumeClaim: { claimName: 'prometheus-server' } },
      ],
    },
    pods: [{ node: 'MON', created: '2026-11-20T08:05:12Z' }],
  },
  {
    namespace: 'monitoring',
    name: 'kube-state-metrics',
    created: '2026-11-16T11:05:40Z',
    labels: { 'app.kubernetes.io/name': 'kube-state-metrics', 'app.kubernetes.io/version': '2.14.0' },
    selector: { 'app.kubernetes.io/name': 'kube-state-metrics' },
    rsCreated: '2026-11-16T11:05:40Z',
    template: {
      nodeSelector: { 'node-pool': 'monitoring' },
      serviceAccountName: 'kube-state-metrics',
      containers: [
        {
          name: 'kube-state-metrics',
          image: 'registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0',
          args: ['--port=8080'],
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          resources: res('100m', '128Mi', { memory: '256Mi' }),
        },
      ],
    },
    pods: [{ node: 'MON', created: '2026-11-20T08:05:13Z' }],
  },
  {
    namespace: 'monitoring',
    name: 'grafana',
    created: '2026-11-16T11:06:02Z',
    labels: { 'app.kubernetes.io/name': 'grafana', 'app.kubernetes.io/version': '11.3.0' },
    selector: { 'app.kubernetes.io/name': 'grafana' },
    rsCreated: '2026-11-16T11:06:02Z',
    template: {
      nodeSelector: { 'node-pool': 'monitoring' },
      serviceAccountName: 'grafana',
      containers: [
        {
          name: 'grafana',
          image: 'docker.io/grafana/grafana:11.3.0',
          ports: [{ containerPort: 3000, name: 'grafana', protocol: 'TCP' }],
          resources: res('250m', '512Mi', { memory: '512Mi' }),
        },
      ],
    },
    pods: [{ node: 'MON', created: '2026-11-20T08:05:15Z' }],
  },
  {
    namespace: 'overprovisioning',
    name: 'pause',
    created: '2026-11-21T09:27:30Z',
    labels: { app: 'overprovisioning' },
    selector: { app: 'overprovisioning' },
    rsCreated: '2026-11-21T09:27:30Z',
    template: {
      priorityClassName: 'overprovisioning',
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 0,
      containers: [
        { name: 'reserve-resources', image: 'registry.k8s.io/pause:3.10', resources: res('1', '512Mi') },
      ],
    },
    pods: [{ pending: 'pause', created: '2026-11-21T09:27:30Z', newRollout: true }],
  },
];

const STATEFULSETS = [
  {
    namespace: 'databases',
    name: 'customers-pg',
    created: '2026-11-17T11:00:41Z',
    labels: { app: 'customers-pg' },
    selector: { app: 'customers-pg' },
    serviceName: 'customers-pg',
    revisionCreated: '2026-11-17T11:00:41Z',
    template: {
      nodeSelector: { workload: 'databases' },
      tolerations: [{ effect: 'NoSchedule', key: 'dedicated', operator: 'Equal', value: 'databases' }],
      securityContext: { fsGroup: 999 },
      containers: [
        {
          name: 'postgres',
          image: 'docker.io/library/postgres:16.4',
          env: [{ name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' }],
          ports: [{ containerPort: 5432, name: 'postgres', protocol: 'TCP' }],
          resources: res('4', '32Gi', { memory: '32Gi' }),
          volumeMounts: [{ mountPath: '/var/lib/postgresql/data', name: 'data' }],
        },
      ],
    },
    volumeClaim: { name: 'data', storage: '500Gi' },
    pods: [{ node: 'D1', created: '2026-11-20T08:21:40Z' }],
  },
  {
    namespace: 'databases',
    name: 'orders-pg',
    created: '2026-11-21T09:24:18Z',
    labels: { app: 'orders-pg' },
    selector: { app: 'orders-pg' },
    serviceName: 'orders-pg',
    revisionCreated: '2026-11-21T09:24:18Z',
    // copied from customers-pg, but without the toleration for the dedicated=databases taint
    template: {
      nodeSelector: { workload: 'databases' },
      containers: [
        {
          name: 'postgres',
          image: 'docker.io/library/postgres:16.4',
          ports: [{ containerPort: 5432, name: 'postgres', protocol: 'TCP' }],
          resources: res('2', '8Gi', { memory: '8Gi' }),
        },
      ],
    },
    pods: [{ pending: 'ordersPg', created: '2026-11-21T09:24:18Z' }],
  },
  {
    namespace: 'payments',
    name: 'ledger-db',
    created: '2026-11-17T11:02:30Z',
    labels: { app: 'ledger-db' },
    selector: { app: 'ledger-db' },
    serviceName: 'ledger-db',
    revisionCreated: '2026-11-17T11:02:30Z',
    template: {
      nodeSelector: { 'node-pool': 'stateful' },
      securityContext: { fsGroup: 999 },
      containers: [
        {
          name: 'postgres',
          image: 'docker.io/library/postgres:16.4',
          env: [{ name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' }],
          ports: [{ containerPort: 5432, name: 'postgres', protocol: 'TCP' }],
          resources: res('500m', '1Gi', { memory: '1Gi' }),
          volumeMounts: [{ mountPath: '/var/lib/postgresql/data', name: 'data' }],
        },
      ],
    },
    volumeClaim: { name: 'data', storage: '100Gi' },
    pods: [{ pending: 'ledgerDb', created: '2026-11-21T09:20:14Z' }],
  },
];

// Completed Job pods (CronJobs); neither kube-scheduler nor CA counts Succeeded pods against a node.
const JOBS = [
  {
    namespace: 'batch',
    cronJob: 'nightly-etl',
    scheduled: '2026-11-21T02:00:00Z',
    node: 'G3',
    finished: '2026-11-21T02:17:39Z',
    container: {
      name: 'etl',
      image: ir('batch/nightly-etl:2.3.1'),
      resources: res('500m', '1Gi', { memory: '1Gi' }),
    },
  },
  {
    namespace: 'analytics',
    cronJob: 'daily-rollup',
    scheduled: '2026-11-21T06:00:00Z',
    node: 'G2',
    finished: '2026-11-21T06:04:51Z',
    container: {
      name: 'rollup',
      image: ir('analytics/daily-rollup:1.4.0'),
      resources: res('250m', '512Mi', { memory: '512Mi' }),
    },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// build pods, controllers and the scheduler timeline

function podRef(pod) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod.metadata.name,
    namespace: pod.metadata.namespace,
    resourceVersion: pod.metadata.resourceVersion,
    uid: pod.metadata.uid,
  };
}
const rsRef = (o) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name: o.metadata.name,
  namespace: o.metadata.namespace,
  resourceVersion: o.metadata.resourceVersion,
  uid: o.metadata.uid,
});
const depRef = (o) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name: o.metadata.name,
  namespace: o.metadata.namespace,
  resourceVersion: o.metadata.resourceVersion,
  uid: o.metadata.uid,
});
const stsRef = (o) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  name: o.metadata.name,
  namespace: o.metadata.namespace,
  resourceVersion: o.metadata.resourceVersion,
  uid: o.metadata.uid,
});

const pods = [];
const daemonSets = [];
const deployments = [];
const replicaSets = [];
const statefulSets = [];
const jobs = [];
const events = [];
const pendingByKey = new Map(); // story key -> pod

const rsHash = (label) => safe(`pod-template-hash:${label}`, 9 + intOf(`len:${label}`, 2));

/** Scheduler retries of an unschedulable pod: every 5m-5m30s (unschedulable queue flush), flushed to the API at SERIES_REFRESH. */
function schedulerAttempts(created) {
  const first = addS(created, 0);
  const attempts = [first];
  let t = first;
  for (let i = 1; ; i++) {
    t = addS(t, 300 + intOf(`retry:${created}:${i}`, 30));
    if (ms(t) > ms(SERIES_REFRESH)) break;
    attempts.push(t);
  }
  return attempts;
}

/** CA loops run every 10s on the :x2 second grid; NotTriggerScaleUp passes the spam filter once per 5 minutes. */
function caNotTriggerTimes(created) {
  let t = Math.ceil((ms(created) - 2000) / 10000) * 10000 + 2000;
  if (t <= ms(created)) t += 10000;
  const times = [];
  for (; t <= ms('2026-11-21T09:59:52Z'); t += 300000) times.push(sec(t));
  return times;
}

function ownerRef(obj) {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid };
}

function podTemplateSpec(t, labels, annotations) {
  // the template as stored in the controller (no node binding, no injected defaults beyond the API server's)
  const saName = t.serviceAccountName;
  return {
    metadata: { annotations, creationTimestamp: null, labels },
    spec: {
      affinity: t.affinity,
      automountServiceAccountToken: t.automountServiceAccountToken,
      containers: t.containers.map((c) => container(c, undefined)),
      dnsPolicy: t.dnsPolicy ?? 'ClusterFirst',
      hostNetwork: t.hostNetwork || undefined,
      hostPID: t.hostPID || undefined,
      initContainers: t.initContainers?.map((c) => container(c, undefined)),
      nodeSelector: t.nodeSelector,
      priorityClassName: t.priorityClassName,
      restartPolicy: t.restartPolicy ?? 'Always',
      schedulerName: 'default-scheduler',
      securityContext: t.securityContext ?? {},
      serviceAccount: saName,
      serviceAccountName: saName,
      terminationGracePeriodSeconds: t.terminationGracePeriodSeconds ?? 30,
      tolerations: t.tolerations,
      volumes: t.volumes,
    },
  };
}

function addPending(pod, key, created) {
  const attempts = schedulerAttempts(created);
  pod.status.conditions[0].lastTransitionTime = attempts[0];
  pod.metadata.resourceVersion = rv(`pod:${pod.metadata.namespace}/${pod.metadata.name}`, attempts.at(-1));
  pendingByKey.set(key, pod);
  events.push(
    schedulerEvent(
      pod,
      'FailedScheduling',
      'Warning',
      SCHEDULER_MSG[key],
      attempts[0],
      attempts.length > 1 ? attempts : undefined,
    ),
  );
  if (CA_MSG[key]) {
    const times = caNotTriggerTimes(created);
    events.push(
      coreEvent(
        podRef(pod),
        'NotTriggerScaleUp',
        'Normal',
        CA_MSG[key],
        times[0],
        times.at(-1),
        times.length,
        { component: 'cluster-autoscaler' },
      ),
    );
  }
}

// ---- DaemonSets
for (const ds of DAEMONSETS) {
  const uid = uuid(`ds:${ds.namespace}/${ds.name}`);
  const podLabels = ds.podLabels ?? { ...ds.selector };
  const revisionHash = safe(`ds-rev:${ds.name}`, 10);
  const obj = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      annotations: { 'deprecated.daemonset.template.generation': '1' },
      creationTimestamp: ds.created,
      generation: 1,
      labels: ds.labels,
      name: ds.name,
      namespace: ds.namespace,
      resourceVersion: rv(`ds:${ds.name}`, '2026-11-21T09:14:40Z'),
      uid,
    },
    spec: {
      revisionHistoryLimit: 10,
      selector: { matchLabels: ds.selector },
      template: podTemplateSpec({ ...ds.template }, podLabels),
      updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '10%' }, type: 'RollingUpdate' },
    },
    status: {
      currentNumberScheduled: ds.nodes.length,
      desiredNumberScheduled: ds.nodes.length,
      numberAvailable: ds.nodes.length || undefined,
      numberMisscheduled: 0,
      numberReady: ds.nodes.length,
      observedGeneration: 1,
      updatedNumberScheduled: ds.nodes.length || undefined,
    },
  };
  daemonSets.push(obj);
  for (const key of ds.nodes) {
    const node = NODES.get(key);
    const name = `${ds.name}-${safe(`dspod:${ds.name}:${key}`, 5)}`;
    const created = addS(node.created, 2 + intOf(`dsdelay:${ds.name}${key}`, 6));
    const pod = makePod(
      { ...ds.template, namespace: ds.namespace, daemonSet: true },
      {
        name,
        generateName: `${ds.name}-`,
        node: key,
        created,
        scheduled: created,
        ready: key === 'G4' ? addS(node.ready, 1 + intOf(`dsready:${ds.name}`, 3)) : undefined,
        labels: { ...podLabels, 'controller-revision-hash': revisionHash, 'pod-template-generation': '1' },
        owner: ownerRef(obj),
      },
    );
    pods.push(pod);
    if (key === 'G4') events.push(...podStartEvents(pod, created, ds.template));
  }
}

// ---- Deployments and ReplicaSets
for (const d of DEPLOYMENTS) {
  const depUid = uuid(`deploy:${d.namespace}/${d.name}`);
  const hash = rsHash(`${d.namespace}/${d.name}`);
  const rsName = `${d.name}-${hash}`;
  const podLabels = { ...(d.podLabels ?? d.selector), 'pod-template-hash': hash };
  const replicas = d.pods.length;
  const ready = d.pods.filter((p) => p.node).length;
  const revision = d.revision ?? '1';
  const lastChange =
    d.scaleEvents?.at(-1)?.at ??
    d.pods.reduce((a, p) => (ms(p.created) > ms(a) ? p.created : a), d.rsCreated);
  const dep = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      annotations: { 'deployment.kubernetes.io/revision': revision },
      creationTimestamp: d.created,
      generation: d.generation ?? (revision === '1' ? 1 : Number(revision) + 1),
      labels: d.labels,
      name: d.name,
      namespace: d.namespace,
      resourceVersion: rv(`deploy:${d.namespace}/${d.name}`, lastChange),
      uid: depUid,
    },
    spec: {
      progressDeadlineSeconds: 600,
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: d.selector },
      strategy: d.strategy ?? {
        rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
        type: 'RollingUpdate',
      },
      template: podTemplateSpec(d.template, { ...(d.podLabels ?? d.selector) }, d.templateAnnotations),
    },
    status: {},
  };
  const maxUnavailable = d.strategy ? 0 : Math.floor(replicas * 0.25);
  const available = ready >= replicas - maxUnavailable;
  const pendingSince = d.pods.find((p) => p.pending)?.created;
  const timedOut = !available && pendingSince && ms(DUMP) - ms(pendingSince) > 600_000;
  dep.status = {
    availableReplicas: ready || undefined,
    conditions: [
      available
        ? {
            lastTransitionTime: d.pods[0].ready ?? addS(d.pods[0].created, 12),
            lastUpdateTime: d.pods[0].ready ?? addS(d.pods[0].created, 12),
            message: 'Deployment has minimum availability.',
            reason: 'MinimumReplicasAvailable',
            status: 'True',
            type: 'Available',
          }
        : {
            lastTransitionTime: d.rsCreated,
            lastUpdateTime: d.rsCreated,
            message: 'Deployment does not have minimum availability.',
            reason: 'MinimumReplicasUnavailable',
            status: 'False',
            type: 'Available',
          },
      timedOut
        ? {
            lastTransitionTime: addS(pendingSince, 600),
            lastUpdateTime: addS(pendingSince, 600),
            message: `ReplicaSet "${rsName}" has timed out progressing.`,
            reason: 'ProgressDeadlineExceeded',
            status: 'False',
            type: 'Progressing',
          }
        : available
          ? {
              lastTransitionTime: d.created,
              lastUpdateTime: addS(d.rsCreated, 14),
              message: `ReplicaSet "${rsName}" has successfully progressed.`,
              reason: 'NewReplicaSetAvailable',
              status: 'True',
              type: 'Progressing',
            }
          : {
              lastTransitionTime: d.rsCreated,
              lastUpdateTime: d.rsCreated,
              message: `ReplicaSet "${rsName}" is progressing.`,
              reason: 'ReplicaSetUpdated',
              status: 'True',
              type: 'Progressing',
            },
    ],
    observedGeneration: dep.metadata.generation,
    readyReplicas: ready || undefined,
    replicas,
    unavailableReplicas: replicas - ready || undefined,
    updatedReplicas: replicas,
  };
  deployments.push(dep);
  const rs = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(replicas),
        'deployment.kubernetes.io/max-replicas': String(
          replicas + (d.strategy ? 0 : Math.ceil(replicas * 0.25)),
        ),
        'deployment.kubernetes.io/revision': revision,
      },
      creationTimestamp: d.rsCreated,
      generation: (d.scaleEvents?.length ?? 0) + 1,
      labels: podLabels,
      name: rsName,
      namespace: d.namespace,
      ownerReferences: [{ ...ownerRef(dep), blockOwnerDeletion: true, controller: true }],
      resourceVersion: rv(`rs:${d.namespace}/${rsName}`, lastChange),
      uid: uuid(`rs:${d.namespace}/${rsName}`),
    },
    spec: {
      replicas,
      selector: { matchLabels: { ...d.selector, 'pod-template-hash': hash } },
      template: podTemplateSpec(d.template, podLabels, d.templateAnnotations),
    },
    status: {
      availableReplicas: ready || undefined,
      fullyLabeledReplicas: replicas,
      observedGeneration: (d.scaleEvents?.length ?? 0) + 1,
      readyReplicas: ready || undefined,
      replicas,
    },
  };
  replicaSets.push(rs);
  for (const [i, p] of d.pods.entries()) {
    const name = `${rsName}-${safe(`pod:${d.namespace}/${d.name}/${i}`, 5)}`;
    const pod = makePod(
      { ...d.template, namespace: d.namespace },
      {
        name,
        generateName: `${rsName}-`,
        node: p.node,
        created: p.created,
        scheduled: p.scheduled,
        ready: p.ready,
        labels: podLabels,
        annotations: d.templateAnnotations,
        owner: ownerRef(rs),
        pending: p.pending ? { message: SCHEDULER_MSG[p.pending], since: p.created } : undefined,
      },
    );
    d.podMutation?.(pod);
    pods.push(pod);
    if (p.pending) addPending(pod, p.pending, p.created);
    if (p.history === 'apiScaleUp') events.push(...apiScaleUpHistory(pod, p, d.template));
    if (p.node === 'G4' && !p.history) events.push(...podStartEvents(pod, p.created, d.template));
    // controller events younger than the 1h event TTL
    if (ms(p.created) > ms('2026-11-21T09:00:00Z')) {
      events.push(
        coreEvent(rsRef(rs), 'SuccessfulCreate', 'Normal', `Created pod: ${name}`, p.created, p.created, 1, {
          component: 'replicaset-controller',
        }),
      );
      if (p.newRollout) {
        events.push(
          coreEvent(
            depRef(dep),
            'ScalingReplicaSet',
            'Normal',
            `Scaled up replica set ${rsName} to 1`,
            p.created,
            p.created,
            1,
            { component: 'deployment-controller' },
          ),
        );
      }
    }
  }
  for (const s of d.scaleEvents ?? []) {
    events.push(
      coreEvent(
        depRef(dep),
        'ScalingReplicaSet',
        'Normal',
        `Scaled up replica set ${rsName} to ${s.to} from ${s.from}`,
        s.at,
        s.at,
        1,
        { component: 'deployment-controller' },
      ),
    );
  }
}

// ---- StatefulSets (and their PVCs)
const pvcs = [];
const pvs = [];
for (const s of STATEFULSETS) {
  const uid = uuid(`sts:${s.namespace}/${s.name}`);
  const revision = `${s.name}-${safe(`sts-rev:${s.name}`, 10)}`;
  const replicas = s.pods.length;
  const ready = s.pods.filter((p) => p.node).length;
  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      creationTimestamp: s.created,
      generation: 1,
      labels: s.labels,
      name: s.name,
      namespace: s.namespace,
      resourceVersion: rv(`sts:${s.namespace}/${s.name}`, s.pods.at(-1).created),
      uid,
    },
    spec: {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      podManagementPolicy: 'OrderedReady',
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: s.selector },
      serviceName: s.serviceName,
      template: podTemplateSpec(s.template, { ...s.selector }),
      updateStrategy: { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' },
      volumeClaimTemplates: s.volumeClaim
        ? [
            {
              apiVersion: 'v1',
              kind: 'PersistentVolumeClaim',
              metadata: { creationTimestamp: null, name: s.volumeClaim.name },
              spec: {
                accessModes: ['ReadWriteOnce'],
                resources: { requests: { storage: s.volumeClaim.storage } },
                storageClassName: 'gp3',
                volumeMode: 'Filesystem',
              },
              status: { phase: 'Pending' },
            },
          ]
        : undefined,
    },
    status: {
      availableReplicas: ready,
      collisionCount: 0,
      currentReplicas: replicas,
      currentRevision: revision,
      observedGeneration: 1,
      readyReplicas: ready || undefined,
      replicas,
      updateRevision: revision,
      updatedReplicas: replicas,
    },
  };
  statefulSets.push(sts);
  for (const [i, p] of s.pods.entries()) {
    const name = `${s.name}-${i}`;
    const volumes = s.volumeClaim
      ? [{ name: s.volumeClaim.name, persistentVolumeClaim: { claimName: `${s.volumeClaim.name}-${name}` } }]
      : undefined;
    const pod = makePod(
      { ...s.template, namespace: s.namespace, volumes: [...(volumes ?? []), ...(s.template.volumes ?? [])] },
      {
        name,
        generateName: `${s.name}-`,
        hostname: name,
        subdomain: s.serviceName,
        node: p.node,
        created: p.created,
        labels: {
          ...s.selector,
          'apps.kubernetes.io/pod-index': String(i),
          'controller-revision-hash': revision,
          'statefulset.kubernetes.io/pod-name': name,
        },
        owner: ownerRef(sts),
        pending: p.pending ? { message: SCHEDULER_MSG[p.pending], since: p.created } : undefined,
      },
    );
    pods.push(pod);
    if (p.pending) {
      addPending(pod, p.pending, p.created);
      events.push(
        coreEvent(
          stsRef(sts),
          'SuccessfulCreate',
          'Normal',
          `create Pod ${name} in StatefulSet ${s.name} successful`,
          p.created,
          p.created,
          1,
          { component: 'statefulset-controller' },
        ),
      );
    }
  }
}

// ---- Jobs (completed CronJob runs)
for (const j of JOBS) {
  const scheduledMinutes = Math.floor(ms(j.scheduled) / 60000);
  const name = `${j.cronJob}-${scheduledMinutes}`;
  const uid = uuid(`job:${j.namespace}/${name}`);
  const podLabels = {
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': name,
    'controller-uid': uid,
    'job-name': name,
  };
  const template = { containers: [j.container], restartPolicy: 'Never', namespace: j.namespace };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': j.scheduled },
      creationTimestamp: j.scheduled,
      generation: 1,
      labels: podLabels,
      name,
      namespace: j.namespace,
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          blockOwnerDeletion: true,
          controller: true,
          kind: 'CronJob',
          name: j.cronJob,
          uid: uuid(`cronjob:${j.namespace}/${j.cronJob}`),
        },
      ],
      resourceVersion: rv(`job:${name}`, addS(j.finished, 1)),
      uid,
    },
    spec: {
      backoffLimit: 2,
      completionMode: 'NonIndexed',
      completions: 1,
      parallelism: 1,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      suspend: false,
      template: podTemplateSpec(template, podLabels),
    },
    status: {
      completionTime: addS(j.finished, 1),
      conditions: [
        {
          lastProbeTime: addS(j.finished, 1),
          lastTransitionTime: addS(j.finished, 1),
          message: 'Reached expected number of succeeded pods',
          reason: 'CompletionsReached',
          status: 'True',
          type: 'SuccessCriteriaMet',
        },
        {
          lastProbeTime: addS(j.finished, 1),
          lastTransitionTime: addS(j.finished, 1),
          message: 'Reached expected number of succeeded pods',
          reason: 'CompletionsReached',
          status: 'True',
          type: 'Complete',
        },
      ],
      ready: 0,
      startTime: j.scheduled,
      succeeded: 1,
      terminating: 0,
      uncountedTerminatedPods: {},
    },
  };
  jobs.push(job);
  pods.push(
    makePod(template, {
      name: `${name}-${safe(`jobpod:${name}`, 5)}`,
      generateName: `${name}-`,
      node: j.node,
      created: addS(j.scheduled, 0),
      labels: podLabels,
      owner: ownerRef(job),
      finished: j.finished,
    }),
  );
}

// ---- Pods without a live controller, for scale-down-blockers
// `kubectl run psql-client --image=postgres:16.6 -n payments -- sleep infinity`: no owner at all (NotReplicated)
{
  const t = {
    namespace: 'payments',
    containers: [{ name: 'psql-client', image: 'docker.io/library/postgres:16.6', args: ['sleep', 'infinity'] }],
  };
  const created = '2026-11-21T09:48:31Z';
  const pod = makePod(t, { name: 'psql-client', node: 'G4', created, labels: { run: 'psql-client' } });
  pods.push(pod);
  events.push(...podStartEvents(pod, created, t));
}
// a backfill Job deleted with --cascade=orphan to stop its retries; its last pod still runs (ControllerNotFound)
{
  const jobName = 'backfill-2026-11-20';
  const uid = uuid(`job:analytics/${jobName}`);
  const t = {
    namespace: 'analytics',
    restartPolicy: 'Never',
    containers: [
      {
        name: 'backfill',
        image: ir('analytics/backfill:1.4.0'),
        args: ['--from=2026-11-01', '--to=2026-11-20'],
        resources: res('100m', '256Mi', { memory: '256Mi' }),
      },
    ],
  };
  pods.push(
    makePod(t, {
      name: `${jobName}-${safe(`jobpod:${jobName}`, 5)}`,
      generateName: `${jobName}-`,
      node: 'G3',
      created: '2026-11-20T23:10:04Z',
      labels: {
        'batch.kubernetes.io/controller-uid': uid,
        'batch.kubernetes.io/job-name': jobName,
        'controller-uid': uid,
        'job-name': jobName,
      },
      owner: { apiVersion: 'batch/v1', kind: 'Job', name: jobName, uid },
    }),
  );
}
// a static pod from /etc/kubernetes/manifests on the database node: the kubelet's mirror pod (Mirror: never blocks)
{
  const d1 = NODES.get('D1');
  const hash = hexOf(`static:${d1.name}`, 32);
  const t = {
    namespace: 'kube-system',
    priorityClassName: 'system-node-critical',
    hostNetwork: true,
    tolerations: [{ effect: 'NoExecute', operator: 'Exists' }],
    automountServiceAccountToken: false,
    containers: [
      {
        name: 'backup-agent',
        image: ir('platform/pg-backup-agent:0.8.2'),
        resources: res('50m', '64Mi', { memory: '128Mi' }),
        volumeMounts: [{ mountPath: '/backup', name: 'backup' }],
      },
    ],
    volumes: [{ hostPath: { path: '/var/lib/pg-backup', type: 'DirectoryOrCreate' }, name: 'backup' }],
  };
  const created = addS(d1.created, 21);
  pods.push(
    makePod(t, {
      name: `pg-backup-agent-${d1.name}`,
      node: 'D1',
      created,
      labels: { component: 'pg-backup-agent', tier: 'node' },
      annotations: {
        'kubernetes.io/config.hash': hash,
        'kubernetes.io/config.mirror': hash,
        'kubernetes.io/config.seen': `${created.replace('Z', '')}.118423911Z`,
        'kubernetes.io/config.source': 'file',
      },
      owner: { apiVersion: 'v1', kind: 'Node', name: d1.name, uid: uuid(`node:${d1.name}`) },
    }),
  );
  // the API server rejects mirror pods that reference a service account
  const mirror = pods.at(-1);
  delete mirror.spec.serviceAccount;
  delete mirror.spec.serviceAccountName;
}

// ---------------------------------------------------------------------------------------------------------------
// events

function eventName(objName, firstIso, label) {
  const nanos = BigInt(ms(firstIso)) * 1_000_000n + BigInt(intOf(`ns:${label}`, 1_000_000));
  return `${objName}.${nanos.toString(16)}`;
}

/** A core/v1 Event written by client-go tools/record (CA, kubelet, controllers): count + first/lastTimestamp. */
function coreEvent(ref, reason, type, message, first, last, count, source) {
  const label = `${ref.namespace}/${ref.name}/${reason}/${message}`;
  return {
    apiVersion: 'v1',
    count,
    eventTime: null,
    firstTimestamp: first,
    involvedObject: ref,
    kind: 'Event',
    lastTimestamp: last,
    message,
    metadata: {
      creationTimestamp: first,
      name: eventName(ref.name, first, label),
      namespace: ref.namespace ?? 'default',
      resourceVersion: rv(`event:${label}`, last),
      uid: uuid(`event:${label}`),
    },
    reason,
    reportingComponent: source.component,
    reportingInstance: source.host ?? '',
    source,
    type,
  };
}

/** An events.k8s.io/v1 Event (kube-scheduler) as core/v1 shows it: eventTime + series, no timestamps/count. */
function schedulerEvent(pod, reason, type, message, first, attempts, action = 'Scheduling') {
  const label = `${pod.metadata.namespace}/${pod.metadata.name}/${reason}/${message}`;
  const eventTime = micro(first, `et:${label}`);
  const last = attempts?.at(-1);
  return {
    action,
    apiVersion: 'v1',
    eventTime,
    firstTimestamp: null,
    involvedObject: podRef(pod),
    kind: 'Event',
    lastTimestamp: null,
    message,
    metadata: {
      creationTimestamp: first,
      name: eventName(pod.metadata.name, first, label),
      namespace: pod.metadata.namespace,
      resourceVersion: rv(`event:${label}`, attempts ? SERIES_REFRESH : first),
      uid: uuid(`event:${label}`),
    },
    reason,
    reportingComponent: 'default-scheduler',
    reportingInstance: SCHEDULER_INSTANCE,
    series: attempts ? { count: attempts.length, lastObservedTime: micro(last, `lo:${label}`) } : undefined,
    source: {},
    type,
  };
}

/** Scheduled + image pull/create/start events of a pod that started on the new node G4 (younger than the 1h TTL). */
function podStartEvents(pod, scheduledAt, template) {
  const node = NODES.get('G4');
  const out = [
    schedulerEvent(
      pod,
      'Scheduled',
      'Normal',
      `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node.name}`,
      scheduledAt,
      undefined,
      'Binding',
    ),
  ];
  const kubelet = { component: 'kubelet', host: node.name };
  let t = ms(scheduledAt) + 2000;
  const all = [
    ...(template.initContainers ?? []).map((c) => ({ c, init: true })),
    ...template.containers.map((c) => ({ c, init: false })),
  ];
  for (const [i, { c }] of all.entries()) {
    const fieldPath = `spec.${i < (template.initContainers?.length ?? 0) ? `initContainers{${c.name}}` : `containers{${c.name}}`}`;
    const ref = { ...podRef(pod), fieldPath };
    const pullMs = 800 + intOf(`pull:${c.image}`, 9000);
    const size = 20_000_000 + intOf(`size:${c.image}`, 180_000_000);
    const at = (dt) => sec(t + dt);
    out.push(coreEvent(ref, 'Pulling', 'Normal', `Pulling image "${c.image}"`, at(0), at(0), 1, kubelet));
    const secs = (pullMs / 1000).toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
    out.push(
      coreEvent(
        ref,
        'Pulled',
        'Normal',
        `Successfully pulled image "${c.image}" in ${secs}s (${secs}s including waiting). Image size: ${size} bytes.`,
        at(pullMs),
        at(pullMs),
        1,
        kubelet,
      ),
    );
    out.push(
      coreEvent(
        ref,
        'Created',
        'Normal',
        `Created container ${c.name}`,
        at(pullMs + 200),
        at(pullMs + 200),
        1,
        kubelet,
      ),
    );
    out.push(
      coreEvent(
        ref,
        'Started',
        'Normal',
        `Started container ${c.name}`,
        at(pullMs + 400),
        at(pullMs + 400),
        1,
        kubelet,
      ),
    );
    t += pullMs + 600;
  }
  return out;
}

/** The api replica that made CA add the fourth general node at 09:11:52 (all within the last hour). */
function apiScaleUpHistory(pod, p, template) {
  return [
    schedulerEvent(pod, 'FailedScheduling', 'Warning', SCHEDULER_MSG.apiBefore, p.created),
    coreEvent(
      podRef(pod),
      'TriggeredScaleUp',
      'Normal',
      'pod triggered scale-up: [{demo-general 3->4 (max: 10)}]',
      '2026-11-21T09:11:52Z',
      '2026-11-21T09:11:52Z',
      1,
      { component: 'cluster-autoscaler' },
    ),
    schedulerEvent(pod, 'FailedScheduling', 'Warning', SCHEDULER_MSG.apiNotReady, NODES.get('G4').created),
    ...podStartEvents(pod, p.scheduled, template),
  ];
}

// CA's own events on its status ConfigMap for that scale-up
const CM_REF = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: 'cluster-autoscaler-status',
  namespace: 'kube-system',
  resourceVersion: rv('cm:status', '2026-11-21T09:11:52Z'),
  uid: uuid('cm:kube-system/cluster-autoscaler-status'),
};
events.push(
  coreEvent(
    CM_REF,
    'ScaledUpGroup',
    'Normal',
    'Scale-up: setting group demo-general size to 4 instead of 3 (max: 10)',
    '2026-11-21T09:11:52Z',
    '2026-11-21T09:11:52Z',
    1,
    { component: 'cluster-autoscaler' },
  ),
  coreEvent(
    CM_REF,
    'ScaledUpGroup',
    'Normal',
    'Scale-up: group demo-general size set to 4 instead of 3 (max: 10)',
    '2026-11-21T09:11:53Z',
    '2026-11-21T09:11:53Z',
    1,
    { component: 'cluster-autoscaler' },
  ),
);

// node lifecycle: the fourth general node joined; the us-east-1c stateful node was terminated by an operator
{
  const g4 = NODES.get('G4');
  const nodeRef = { apiVersion: 'v1', kind: 'Node', name: g4.name, uid: g4.name };
  const kubelet = { component: 'kubelet', host: g4.name };
  events.push(
    coreEvent(
      nodeRef,
      'Starting',
      'Normal',
      'Starting kubelet.',
      addS(g4.created, -2),
      addS(g4.created, -2),
      1,
      kubelet,
    ),
    coreEvent(
      nodeRef,
      'NodeAllocatableEnforced',
      'Normal',
      'Updated Node Allocatable limit across pods',
      addS(g4.created, -2),
      addS(g4.created, -2),
      1,
      kubelet,
    ),
    coreEvent(
      { apiVersion: 'v1', kind: 'Node', name: g4.name, uid: uuid(`node:${g4.name}`) },
      'RegisteredNode',
      'Normal',
      `Node ${g4.name} event: Registered Node ${g4.name} in Controller`,
      addS(g4.created, 3),
      addS(g4.created, 3),
      1,
      { component: 'node-controller' },
    ),
    coreEvent(
      nodeRef,
      'NodeReady',
      'Normal',
      `Node ${g4.name} status is now: NodeReady`,
      g4.ready,
      g4.ready,
      1,
      kubelet,
    ),
  );
  const s3 = GONE.S3;
  const s3Ref = { apiVersion: 'v1', kind: 'Node', name: s3.name, uid: uuid(`node:${s3.name}`) };
  events.push(
    coreEvent(
      s3Ref,
      'NodeNotReady',
      'Normal',
      `Node ${s3.name} status is now: NodeNotReady`,
      '2026-11-21T09:19:48Z',
      '2026-11-21T09:19:48Z',
      1,
      { component: 'node-controller' },
    ),
    coreEvent(
      s3Ref,
      'DeletingNode',
      'Normal',
      `Deleting node ${s3.name} because it does not exist in the cloud provider`,
      s3.deleted,
      s3.deleted,
      1,
      { component: 'cloud-node-lifecycle-controller' },
    ),
    coreEvent(
      s3Ref,
      'RemovingNode',
      'Normal',
      `Node ${s3.name} event: Removing Node ${s3.name} from Controller`,
      addS(s3.deleted, 4),
      addS(s3.deleted, 4),
      1,
      { component: 'node-controller' },
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// nodes

function makeNode(n) {
  const t = TYPES[n.type];
  const region = REGION;
  const imagesOnNode = new Map();
  for (const pod of pods) {
    if (pod.spec.nodeName !== n.name) continue;
    for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers])
      imagesOnNode.set(c.image, true);
  }
  imagesOnNode.set(`${EKS_ECR}/eks/pause:3.10`, true);
  const images = [...imagesOnNode.keys()]
    .map((image) => ({
      names: [imageDigest(image), image],
      sizeBytes: 300_000 + intOf(`size:${image}`, 180_000_000),
    }))
    .sort((a, b) => b.sizeBytes - a.sizeBytes);
  const ready = n.ready ?? addS(n.created, 38);
  const heartbeat = addS('2026-11-21T09:58:00Z', intOf(`hb:${n.key}`, 110));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': n.ip,
        'csi.volume.kubernetes.io/nodeid': `{"ebs.csi.aws.com":"${n.instanceId}"}`,
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        ...n.annotations,
      },
      creationTimestamp: n.created,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/instance-type': n.type,
        'beta.kubernetes.io/os': 'linux',
        'failure-domain.beta.kubernetes.io/region': region,
        'failure-domain.beta.kubernetes.io/zone': n.zone,
        'k8s.io/cloud-provider-aws': CLOUD_PROVIDER_HASH,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': n.name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': n.type,
        'topology.ebs.csi.aws.com/zone': n.zone,
        'topology.k8s.aws/zone-id': ZONES[n.zone].zoneId,
        'topology.kubernetes.io/region': region,
        'topology.kubernetes.io/zone': n.zone,
        ...n.labels,
      },
      name: n.name,
      resourceVersion: rv(`node:${n.key}`, heartbeat),
      uid: uuid(`node:${n.name}`),
    },
    spec: {
      providerID: `aws:///${n.zone}/${n.instanceId}`,
      taints: n.taints,
    },
    status: {
      addresses: [
        { address: n.ip, type: 'InternalIP' },
        { address: n.name, type: 'InternalDNS' },
        { address: n.name, type: 'Hostname' },
      ],
      allocatable: {
        cpu: t.cpuAlloc,
        'ephemeral-storage': '95551679124',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: `${allocMemKi(t)}Ki`,
        pods: String(t.maxPods),
      },
      capacity: {
        cpu: String(t.cpu),
        'ephemeral-storage': '104845292Ki',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: `${t.memKi}Ki`,
        pods: String(t.maxPods),
      },
      conditions: [
        {
          lastHeartbeatTime: heartbeat,
          lastTransitionTime: n.created,
          message: 'kubelet has sufficient memory available',
          reason: 'KubeletHasSufficientMemory',
          status: 'False',
          type: 'MemoryPressure',
        },
        {
          lastHeartbeatTime: heartbeat,
          lastTransitionTime: n.created,
          message: 'kubelet has no disk pressure',
          reason: 'KubeletHasNoDiskPressure',
          status: 'False',
          type: 'DiskPressure',
        },
        {
          lastHeartbeatTime: heartbeat,
          lastTransitionTime: n.created,
          message: 'kubelet has sufficient PID available',
          reason: 'KubeletHasSufficientPID',
          status: 'False',
          type: 'PIDPressure',
        },
        {
          lastHeartbeatTime: heartbeat,
          lastTransitionTime: ready,
          message: 'kubelet is posting ready status',
          reason: 'KubeletReady',
          status: 'True',
          type: 'Ready',
        },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      images,
      nodeInfo: {
        architecture: 'amd64',
        bootID: uuid(`boot:${n.key}`),
        containerRuntimeVersion: 'containerd://1.7.23',
        kernelVersion: '6.1.158-180.294.amzn2023.x86_64',
        kubeProxyVersion: '',
        kubeletVersion: 'v1.31.13-eks-113cf36',
        machineID: hexOf(`machine:${n.key}`, 32),
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.9.20261103',
        systemUUID: `ec2${hexOf(`sysuuid:${n.key}`, 5)}-${hexOf(`sysuuid2:${n.key}`, 4)}-${hexOf(`sysuuid3:${n.key}`, 4)}-${hexOf(`sysuuid4:${n.key}`, 4)}-${hexOf(`sysuuid5:${n.key}`, 12)}`,
      },
    },
  };
}
const nodes = [...NODES.values()].map(makeNode);

// ---------------------------------------------------------------------------------------------------------------
// storage, PDBs, priority classes

const storageClasses = [
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      creationTimestamp: '2026-11-16T10:25:51Z',
      name: 'gp2',
      resourceVersion: rv('sc:gp2', '2026-11-16T10:25:51Z'),
      uid: uuid('sc:gp2'),
    },
    parameters: { fsType: 'ext4', type: 'gp2' },
    provisioner: 'kubernetes.io/aws-ebs',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  },
  {
    allowVolumeExpansion: true,
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      creationTimestamp: '2026-11-16T10:44:30Z',
      name: 'gp3',
      resourceVersion: rv('sc:gp3', '2026-11-16T10:44:30Z'),
      uid: uuid('sc:gp3'),
    },
    parameters: { encrypted: 'true', fsType: 'ext4', type: 'gp3' },
    provisioner: 'ebs.csi.aws.com',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  },
];

// EBS volumes are zonal: the PV pins its pod to the zone where the volume was created
const CLAIMS = [
  {
    namespace: 'databases',
    name: 'data-customers-pg-0',
    app: { app: 'customers-pg' },
    storage: '500Gi',
    zone: 'us-east-1b',
    created: '2026-11-17T11:00:42Z',
    selectedNode: 'ip-10-0-44-201.ec2.internal',
    attached: true,
  },
  {
    namespace: 'monitoring',
    name: 'prometheus-server',
    app: { 'app.kubernetes.io/component': 'server', 'app.kubernetes.io/name': 'prometheus' },
    storage: '50Gi',
    zone: 'us-east-1a',
    created: '2026-11-16T11:05:40Z',
    selectedNode: 'ip-10-0-2-19.ec2.internal',
    attached: true,
  },
  {
    namespace: 'payments',
    name: 'data-ledger-db-0',
    app: { app: 'ledger-db' },
    storage: '100Gi',
    zone: 'us-east-1c',
    created: '2026-11-17T11:02:31Z',
    selectedNode: 'ip-10-0-66-18.ec2.internal',
    attached: false,
  },
];
for (const c of CLAIMS) {
  const pvcUid = uuid(`pvc:${c.namespace}/${c.name}`);
  const pvName = `pvc-${pvcUid}`;
  const bound = addS(c.created, 4);
  pvcs.push({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      annotations: {
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
        'volume.beta.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com',
        'volume.kubernetes.io/selected-node': c.selectedNode,
        'volume.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com',
      },
      creationTimestamp: c.created,
      finalizers: ['kubernetes.io/pvc-protection'],
      labels: c.app,
      name: c.name,
      namespace: c.namespace,
      resourceVersion: rv(`pvc:${c.name}`, bound),
      uid: pvcUid,
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: c.storage } },
      storageClassName: 'gp3',
      volumeMode: 'Filesystem',
      volumeName: pvName,
    },
    status: { accessModes: ['ReadWriteOnce'], capacity: { storage: c.storage }, phase: 'Bound' },
  });
  pvs.push({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      annotations: {
        'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com',
        'volume.kubernetes.io/provisioner-deletion-secret-name': '',
        'volume.kubernetes.io/provisioner-deletion-secret-namespace': '',
      },
      creationTimestamp: addS(c.created, 3),
      finalizers: [
        'external-provisioner.volume.kubernetes.io/finalizer',
        'kubernetes.io/pv-protection',
        ...(c.attached ? ['external-attacher/ebs-csi-aws-com'] : []),
      ],
      labels: { 'topology.kubernetes.io/zone': c.zone },
      name: pvName,
      resourceVersion: rv(`pv:${c.name}`, c.attached ? '2026-11-20T08:21:50Z' : '2026-11-21T09:19:40Z'),
      uid: uuid(`pv:${pvName}`),
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: c.storage },
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        name: c.name,
        namespace: c.namespace,
        resourceVersion: rv(`pvc-claimref:${c.name}`, c.created),
        uid: pvcUid,
      },
      csi: {
        driver: 'ebs.csi.aws.com',
        fsType: 'ext4',
        volumeAttributes: {
          'storage.kubernetes.io/csiProvisionerIdentity': '1763290121447-6123-ebs.csi.aws.com',
        },
        volumeHandle: `vol-0${hexOf(`vol:${c.name}`, 16)}`,
      },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', operator: 'In', values: [c.zone] }],
            },
          ],
        },
      },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'gp3',
      volumeMode: 'Filesystem',
    },
    status: { lastPhaseTransitionTime: bound, phase: 'Bound' },
  });
}

const podsMatching = (ns, sel) =>
  pods.filter(
    (p) => p.metadata.namespace === ns && Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v),
  );
function pdb(ns, name, created, spec, selector) {
  const matched = podsMatching(ns, selector);
  const healthy = matched.filter((p) => p.status.phase === 'Running').length;
  const expected = matched.length;
  const desired = spec.minAvailable ?? expected - spec.maxUnavailable;
  const allowed = Math.max(0, healthy - desired);
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      creationTimestamp: created,
      generation: 1,
      labels: undefined,
      name,
      namespace: ns,
      resourceVersion: rv(`pdb:${ns}/${name}`, '2026-11-21T09:20:15Z'),
      uid: uuid(`pdb:${ns}/${name}`),
    },
    spec: { ...spec, selector: { matchLabels: selector } },
    status: {
      conditions: [
        allowed > 0
          ? {
              lastTransitionTime: '2026-11-20T08:03:20Z',
              message: '',
              observedGeneration: 1,
              reason: 'SufficientPods',
              status: 'True',
              type: 'DisruptionAllowed',
            }
          : {
              lastTransitionTime: '2026-11-21T09:19:48Z',
              message: '',
              observedGeneration: 1,
              reason: 'InsufficientPods',
              status: 'False',
              type: 'DisruptionAllowed',
            },
      ],
      currentHealthy: healthy,
      desiredHealthy: desired,
      disruptionsAllowed: allowed,
      expectedPods: expected,
      observedGeneration: 1,
    },
  };
}
const pdbs = [
  pdb(
    'kube-system',
    'coredns',
    '2026-11-16T10:31:20Z',
    { minAvailable: 1 },
    { 'eks.amazonaws.com/component': 'coredns', 'k8s-app': 'kube-dns' },
  ),
  pdb(
    'kube-system',
    'ebs-csi-controller',
    '2026-11-16T10:44:05Z',
    { maxUnavailable: 1 },
    { app: 'ebs-csi-controller', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' },
  ),
  pdb('payments', 'ledger-db', '2026-11-17T11:02:30Z', { maxUnavailable: 0 }, { app: 'ledger-db' }),
  // "never take the payments API down": it also means no node running a replica can ever be drained
  pdb('payments', 'payments-api', '2026-11-17T10:02:00Z', { maxUnavailable: 0 }, { app: 'payments-api' }),
];

const priorityClasses = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    description: 'Placeholder pods that keep spare capacity warm; any real workload preempts them.',
    kind: 'PriorityClass',
    metadata: {
      creationTimestamp: '2026-11-21T09:27:12Z',
      generation: 1,
      name: 'overprovisioning',
      resourceVersion: rv('pc:overprovisioning', '2026-11-21T09:27:12Z'),
      uid: uuid('pc:overprovisioning'),
    },
    preemptionPolicy: 'PreemptLowerPriority',
    value: PRIORITY.overprovisioning,
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
    kind: 'PriorityClass',
    metadata: {
      creationTimestamp: '2026-11-16T10:22:14Z',
      generation: 1,
      name: 'system-cluster-critical',
      resourceVersion: '82',
      uid: uuid('pc:system-cluster-critical'),
    },
    preemptionPolicy: 'PreemptLowerPriority',
    value: PRIORITY['system-cluster-critical'],
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    description: 'Used for system critical pods that must not be moved from their current node.',
    kind: 'PriorityClass',
    metadata: {
      creationTimestamp: '2026-11-16T10:22:14Z',
      generation: 1,
      name: 'system-node-critical',
      resourceVersion: '81',
      uid: uuid('pc:system-node-critical'),
    },
    preemptionPolicy: 'PreemptLowerPriority',
    value: PRIORITY['system-node-critical'],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// service accounts: `kubectl get serviceaccounts -n kube-system -o json`, trimmed to `default` and those the dump's
// kube-system workloads run as (the controller-manager's own accounts are left out). Only CA's has an IRSA role; the
// others use the node role. Each was created with its workload, except the upstream example's labels on CA's.

const CA_SA_LABELS = { 'k8s-addon': 'cluster-autoscaler.addons.k8s.io', 'k8s-app': 'cluster-autoscaler' };
const serviceAccounts = [
  { name: 'default', created: '2026-11-16T10:22:31Z' },
  ...[...DAEMONSETS, ...DEPLOYMENTS]
    .filter((w) => w.namespace === 'kube-system' && w.template.serviceAccountName)
    .map((w) => ({
      name: w.template.serviceAccountName,
      created: w.created,
      labels: w.name === 'cluster-autoscaler' ? CA_SA_LABELS : w.labels,
      annotations:
        w.name === 'cluster-autoscaler' ? { 'eks.amazonaws.com/role-arn': CA_ROLE_ARN } : undefined,
    })),
].map((sa) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: {
    annotations: sa.annotations,
    creationTimestamp: sa.created,
    labels: sa.labels,
    name: sa.name,
    namespace: 'kube-system',
    resourceVersion: rv(`sa:kube-system/${sa.name}`, sa.created),
    uid: uuid(`sa:kube-system/${sa.name}`),
  },
}));
if (new Set(serviceAccounts.map((sa) => sa.metadata.name)).size !== serviceAccounts.length)
  throw new Error('duplicate ServiceAccount');

// ---------------------------------------------------------------------------------------------------------------
// AWS: Auto Scaling groups, launch templates, scaling activities

const LT = {
  'demo-general': { id: 'lt-0a1b2c3d4e5f60001', spec: '$Latest' },
  'demo-databases': { id: 'lt-0a1b2c3d4e5f60002', spec: undefined },
  'demo-batch': { id: 'lt-0a1b2c3d4e5f60003', spec: '3' },
  'demo-gpu': { id: 'lt-0a1b2c3d4e5f60004', spec: '$Default' },
  'demo-stateful': { id: 'lt-0a1b2c3d4e5f60005', spec: '$Latest' },
  'demo-spot': { id: 'lt-0a1b2c3d4e5f60006', spec: '$Default' },
  'demo-monitoring': { id: 'lt-0a1b2c3d4e5f60007', spec: '$Latest' },
};
const AMI = 'ami-0c4f1e8a2b7d9e351'; // EKS-optimized AL2023 x86_64, Kubernetes 1.31
const AMI_NVIDIA = 'ami-06b7d2c9e4f1a8053'; // EKS-optimized AL2023 x86_64 NVIDIA, Kubernetes 1.31
const AMI_NEXT = 'ami-0f29d6b3e8a4c1750'; // the next EKS AL2023 1.31 release (asg-audit: launch-template-drift)
const TEMPLATE_VERSIONS = [
  {
    asg: 'demo-general',
    version: 1,
    created: '2026-11-20T07:51:40Z',
    type: 'm5.xlarge',
    def: false,
    desc: 'k8s 1.31 node group',
  },
  {
    // terraform rolled the AMI 14 minutes before the dump: $Latest (what CA and new launches read) is v2, while all four
    // instances, the last launched at 09:11:54, run v1 (asg-audit: launch-template-drift)
    asg: 'demo-general',
    version: 2,
    created: '2026-11-21T09:46:03Z',
    type: 'm5.xlarge',
    def: true,
    ami: AMI_NEXT,
    desc: 'k8s 1.31 node group; AMI amazon-eks-node-al2023-x86_64-standard-1.31-v20261118',
  },
  {
    asg: 'demo-databases',
    version: 1,
    created: '2026-11-20T07:51:41Z',
    type: 'r5.2xlarge',
    def: true,
    desc: 'k8s 1.31 node group; kubelet --register-with-taints=dedicated=databases:NoSchedule',
  },
  {
    asg: 'demo-batch',
    version: 2,
    created: '2026-11-17T10:04:58Z',
    type: 'c5.2xlarge',
    def: false,
    ami: 'ami-0b83e61a5f2c4d917',
    desc: 'k8s 1.30; kubelet --node-labels=node-pool=batch',
  },
  {
    asg: 'demo-batch',
    version: 3,
    created: '2026-11-18T16:22:09Z',
    type: 'c5.2xlarge',
    def: true,
    desc: 'kubelet --node-labels=node-pool=batch',
  },
  {
    asg: 'demo-gpu',
    version: 1,
    created: '2026-11-17T14:10:33Z',
    type: 'g6f.xlarge',
    def: true,
    ami: AMI_NVIDIA,
    desc: 'L4 (fractional) inference nodes',
  },
  {
    asg: 'demo-stateful',
    version: 1,
    created: '2026-11-20T07:51:42Z',
    type: 'm5.large',
    def: true,
    desc: 'k8s 1.31 node group',
  },
  {
    asg: 'demo-spot',
    version: 1,
    created: '2026-11-20T07:51:43Z',
    type: undefined,
    def: true,
    desc: 'spot; instance types come from the ASG overrides',
  },
  {
    asg: 'demo-monitoring',
    version: 1,
    created: '2026-11-20T07:51:44Z',
    type: 'm5.large',
    def: true,
    desc: 'k8s 1.31 node group',
  },
];
const launchTemplateVersions = TEMPLATE_VERSIONS.map((v) => ({
  LaunchTemplateId: LT[v.asg].id,
  LaunchTemplateName: v.asg,
  VersionNumber: v.version,
  VersionDescription: v.desc,
  CreateTime: awsTime(v.created),
  CreatedBy: `arn:aws:sts::${ACCOUNT}:assumed-role/platform-terraform/terraform-run-${intOf(`run:${v.created}`, 90000) + 10000}`,
  DefaultVersion: v.def,
  LaunchTemplateData: {
    IamInstanceProfile: { Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/${CLUSTER}-node` },
    BlockDeviceMappings: [
      {
        DeviceName: '/dev/xvda',
        Ebs: {
          Encrypted: true,
          DeleteOnTermination: true,
          VolumeSize: 100,
          VolumeType: 'gp3',
          Iops: 3000,
          Throughput: 125,
        },
      },
    ],
    ImageId: v.ami ?? (v.asg === 'demo-gpu' ? AMI_NVIDIA : AMI),
    InstanceType: v.type,
    TagSpecifications: [
      {
        ResourceType: 'instance',
        Tags: [
          { Key: 'Name', Value: v.asg },
          { Key: `kubernetes.io/cluster/${CLUSTER}`, Value: 'owned' },
        ],
      },
      { ResourceType: 'volume', Tags: [{ Key: 'Name', Value: v.asg }] },
    ],
    SecurityGroupIds: ['sg-0e2d4c6b8a1f3e5d7'],
    MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 2, HttpEndpoint: 'enabled' },
  },
}));

const ASG_DEFS = {
  'demo-general': {
    min: 2,
    max: 10,
    desired: 4,
    azs: ['us-east-1a'],
    created: ['2026-11-20T07:52:10Z', 512],
    tags: {
      'k8s.io/cluster-autoscaler/node-template/label/node-pool': 'general',
      // pack general nodes tighter than the 0.5 default (scale-down-blockers: threshold from the ASG tag)
      'k8s.io/cluster-autoscaler/node-template/autoscaling-options/scaledownutilizationthreshold': '0.85',
    },
    nodes: ['G1', 'G2', 'G3', 'G4'],
  },
  'demo-databases': {
    // one database node is the floor (scale-down-blockers: NodeGroupMinSizeReached)
    min: 1,
    max: 5,
    desired: 1,
    azs: ['us-east-1b'],
    created: ['2026-11-20T07:52:40Z', 87],
    tags: {
      'k8s.io/cluster-autoscaler/node-template/label/workload': 'databases',
      'k8s.io/cluster-autoscaler/node-template/taint/dedicated': 'databases:NoSchedule',
    },
    nodes: ['D1'],
  },
  'demo-batch': {
    min: 0,
    max: 10,
    desired: 0,
    azs: ['us-east-1a'],
    created: ['2026-11-17T10:05:33Z', 240],
    tags: {},
    nodes: [],
  },
  'demo-gpu': {
    min: 0,
    max: 4,
    desired: 0,
    azs: ['us-east-1a'],
    created: ['2026-11-17T14:11:02Z', 731],
    // the ML team tagged its group "shared": CA's discovery only asks for the key, but examples/iam/ca-policy.json lets
    // CA scale only groups tagged "owned" (asg-audit --iam-policy: iam-permission-denied on demo-gpu)
    clusterTagValue: 'shared',
    tags: {
      'k8s.io/cluster-autoscaler/node-template/label/accelerator': 'nvidia-l4',
      'k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu': 'true:NoSchedule',
    },
    nodes: [],
  },
  'demo-stateful': {
    min: 1,
    max: 6,
    desired: 2,
    azs: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
    created: ['2026-11-20T07:53:05Z', 366],
    // terraform suspended_processes, applied right after CreateAutoScalingGroup: why both instances stay in us-east-1a
    // (asg-audit: asg-process-suspended; why-pending only cares about Launch)
    suspended: [['AZRebalance', '2026-11-20T07:53:06Z']],
    tags: { 'k8s.io/cluster-autoscaler/node-template/label/node-pool': 'stateful' },
    nodes: ['S1', 'S2'],
  },
  'demo-spot': {
    min: 1,
    max: 3,
    desired: 3,
    azs: ['us-east-1a', 'us-east-1b'],
    created: ['2026-11-20T07:53:30Z', 905],
    tags: {
      'k8s.io/cluster-autoscaler/node-template/label/capacity': 'spot',
      'k8s.io/cluster-autoscaler/node-template/autoscaling-options/ignoredaemonsetsutilization': 'true',
      'k8s.io/cluster-autoscaler/node-template/autoscaling-options/scaledownutilizationthreshold': '0.7',
    },
    nodes: ['SP1', 'SP2', 'SP3'],
    // m5.xlarge added for spot capacity; CA simulates only the first override, m5.large, so it sizes every new node
    // as 2 vCPU / 8 GiB (asg-audit: mixed-instances-shape-differs). At max size, no pod's verdict depends on it.
    mixed: ['m5.large', 'm5a.large', 'm6i.large', 'm5.xlarge'],
  },
  'demo-monitoring': {
    min: 1,
    max: 3,
    desired: 1,
    azs: ['us-east-1a'],
    created: ['2026-11-20T07:54:00Z', 33],
    tags: {},
    nodes: ['MON'],
    notDiscoveredForCluster: true,
  },
};
const asgArn = (name) =>
  `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:${uuid(`asg:${name}`)}:autoScalingGroupName/${name}`;
const ltSpec = (name) => ({
  LaunchTemplateId: LT[name].id,
  LaunchTemplateName: name,
  Version: LT[name].spec,
});

const autoScalingGroups = ASG_NAMES.map((name) => {
  const a = ASG_DEFS[name];
  const tags = {
    Name: [name, true],
    [`kubernetes.io/cluster/${CLUSTER}`]: ['owned', true],
    'k8s.io/cluster-autoscaler/enabled': ['true', false],
    ...(a.notDiscoveredForCluster
      ? {}
      : { [`k8s.io/cluster-autoscaler/${CLUSTER}`]: [a.clusterTagValue ?? 'owned', false] }),
    ...Object.fromEntries(Object.entries(a.tags).map(([k, v]) => [k, [v, false]])),
  };
  return {
    AutoScalingGroupName: name,
    AutoScalingGroupARN: asgArn(name),
    LaunchTemplate: a.mixed ? undefined : ltSpec(name),
    MixedInstancesPolicy: a.mixed
      ? {
          LaunchTemplate: {
            LaunchTemplateSpecification: ltSpec(name),
            Overrides: a.mixed.map((t) => ({ InstanceType: t })),
          },
          InstancesDistribution: {
            OnDemandAllocationStrategy: 'prioritized',
            OnDemandBaseCapacity: 0,
            OnDemandPercentageAboveBaseCapacity: 0,
            SpotAllocationStrategy: 'price-capacity-optimized',
          },
        }
      : undefined,
    MinSize: a.min,
    MaxSize: a.max,
    DesiredCapacity: a.desired,
    DefaultCooldown: 300,
    AvailabilityZones: a.azs,
    LoadBalancerNames: [],
    TargetGroupARNs: [],
    HealthCheckType: 'EC2',
    HealthCheckGracePeriod: 300,
    Instances: a.nodes
      .map((k) => NODES.get(k))
      .sort((x, y) => cmp(x.instanceId, y.instanceId))
      .map((n) => ({
        InstanceId: n.instanceId,
        InstanceType: n.type,
        AvailabilityZone: n.zone,
        LifecycleState: 'InService',
        HealthStatus: 'Healthy',
        LaunchTemplate: { LaunchTemplateId: LT[name].id, LaunchTemplateName: name, Version: '1' },
        ProtectedFromScaleIn: false,
      })),
    CreatedTime: awsTime(a.created[0], a.created[1]),
    SuspendedProcesses: (a.suspended ?? []).map(([ProcessName, at]) => ({
      ProcessName,
      SuspensionReason: `User suspended at ${at}`,
    })),
    VPCZoneIdentifier: a.azs.map((z) => ZONES[z].subnet).join(','),
    EnabledMetrics: [],
    Tags: Object.entries(tags)
      .sort(([x], [y]) => cmp(x, y))
      .map(([Key, [Value, PropagateAtLaunch]]) => ({
        ResourceId: name,
        ResourceType: 'auto-scaling-group',
        Key,
        Value,
        PropagateAtLaunch,
      })),
    TerminationPolicies: ['Default'],
    NewInstancesProtectedFromScaleIn: false,
    ServiceLinkedRoleARN: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling`,
    CapacityRebalance: Boolean(a.mixed),
    TrafficSources: [],
    AvailabilityZoneDistribution: { CapacityDistributionStrategy: 'balanced-best-effort' },
  };
});

// scaling activities (describe-scaling-activities returns newest first)
const activities = [];
function activity(
  asg,
  { start, startMs = 0, end, description, cause, status = 'Successful', statusMessage, zone, id },
) {
  activities.push({
    ActivityId: uuid(`activity:${asg}:${id ?? description}:${start}`),
    AutoScalingGroupName: asg,
    Description: description,
    Cause: cause,
    StartTime: awsTime(start, startMs),
    EndTime: end ? awsTime(end) : undefined,
    StatusCode: status,
    StatusMessage: statusMessage,
    Progress: 100,
    Details: JSON.stringify({ 'Subnet ID': ZONES[zone].subnet, 'Availability Zone': zone }),
    AutoScalingGroupARN: asgArn(asg),
  });
}
const createdCause = (asgCreated, startedAt, n) =>
  `At ${asgCreated} a user request created an AutoScalingGroup changing the desired capacity from 0 to ${n}.  At ${startedAt} an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to ${n}.`;
for (const name of ['demo-general', 'demo-databases', 'demo-spot', 'demo-monitoring']) {
  const a = ASG_DEFS[name];
  const initial = a.nodes.filter((k) => k !== 'G4');
  for (const k of initial) {
    const n = NODES.get(k);
    activity(name, {
      start: n.launched,
      startMs: 100 + intOf(`act:${k}`, 800),
      end: addS(n.launched, 33 + intOf(`actend:${k}`, 20)),
      description: `Launching a new EC2 instance: ${n.instanceId}`,
      cause: createdCause(sec(ms(a.created[0])), addS(n.launched, -1), initial.length),
      zone: n.zone,
    });
  }
}
// CA's scale-up of demo-general this morning
{
  const g4 = NODES.get('G4');
  activity('demo-general', {
    start: g4.launched,
    startMs: 648,
    end: '2026-11-21T09:12:27Z',
    description: `Launching a new EC2 instance: ${g4.instanceId}`,
    cause: `At 2026-11-21T09:11:52Z a user request explicitly set group desired capacity changing the desired capacity from 3 to 4.  At 2026-11-21T09:11:53Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 3 to 4.`,
    zone: g4.zone,
  });
}
// demo-stateful: created with 3 instances; us-east-1b had no m5.large capacity, so the third landed in us-east-1a
{
  const st = ASG_DEFS['demo-stateful'];
  const cause = createdCause(sec(ms(st.created[0])), '2026-11-20T07:53:07Z', 3);
  const s1 = NODES.get('S1');
  const s2 = NODES.get('S2');
  const s3 = GONE.S3;
  activity('demo-stateful', {
    start: s1.launched,
    startMs: 214,
    end: '2026-11-20T07:53:41Z',
    description: `Launching a new EC2 instance: ${s1.instanceId}`,
    cause,
    zone: s1.zone,
  });
  activity('demo-stateful', {
    start: s3.launched,
    startMs: 502,
    end: '2026-11-20T07:53:44Z',
    description: `Launching a new EC2 instance: ${s3.instanceId}`,
    cause,
    zone: s3.zone,
  });
  const ice =
    'We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1b). Our system will be working on provisioning additional capacity. You can currently get m5.large capacity by not specifying an Availability Zone in your request or choosing us-east-1a, us-east-1c, us-east-1d, us-east-1f.';
  activity('demo-stateful', {
    start: '2026-11-20T07:53:09Z',
    startMs: 871,
    end: '2026-11-20T07:53:10Z',
    description: `Launching a new EC2 instance.  Status Reason: ${ice} Launching EC2 instance failed.`,
    cause,
    status: 'Failed',
    statusMessage: ice,
    zone: 'us-east-1b',
    id: 'ice',
  });
  activity('demo-stateful', {
    start: s2.launched,
    startMs: 33,
    end: '2026-11-20T07:56:24Z',
    description: `Launching a new EC2 instance: ${s2.instanceId}`,
    cause: `At 2026-11-20T07:55:50Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 2 to 3.`,
    zone: s2.zone,
  });
  activity('demo-stateful', {
    start: s3.terminated,
    startMs: 420,
    end: '2026-11-21T09:19:58Z',
    description: `Terminating EC2 instance: ${s3.instanceId}`,
    cause: `At 2026-11-21T09:19:02Z instance ${s3.instanceId} was taken out of service in response to a user request, shrinking the capacity from 3 to 2.`,
    zone: s3.zone,
  });
}
// demo-batch: CA scaled it up for the nightly reports, then removed both nodes two days ago
{
  const b1 = GONE.B1;
  const b2 = GONE.B2;
  const up = `At 2026-11-18T21:58:12Z a user request explicitly set group desired capacity changing the desired capacity from 0 to 2.  At 2026-11-18T21:58:14Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 2.`;
  activity('demo-batch', {
    start: '2026-11-18T21:58:15Z',
    startMs: 92,
    end: '2026-11-18T21:58:48Z',
    description: `Launching a new EC2 instance: ${b1.instanceId}`,
    cause: up,
    zone: b1.zone,
  });
  activity('demo-batch', {
    start: '2026-11-18T21:58:15Z',
    startMs: 377,
    end: '2026-11-18T21:58:49Z',
    description: `Launching a new EC2 instance: ${b2.instanceId}`,
    cause: up,
    zone: b2.zone,
  });
  activity('demo-batch', {
    start: '2026-11-19T08:47:31Z',
    startMs: 615,
    end: '2026-11-19T08:48:24Z',
    description: `Terminating EC2 instance: ${b2.instanceId}`,
    cause: `At 2026-11-19T08:47:31Z instance ${b2.instanceId} was taken out of service in response to a user request, shrinking the capacity from 2 to 1.`,
    zone: b2.zone,
  });
  activity('demo-batch', {
    start: '2026-11-19T08:47:32Z',
    startMs: 180,
    end: '2026-11-19T08:48:25Z',
    description: `Terminating EC2 instance: ${b1.instanceId}`,
    cause: `At 2026-11-19T08:47:32Z instance ${b1.instanceId} was taken out of service in response to a user request, shrinking the capacity from 1 to 0.`,
    zone: b1.zone,
  });
}
activities.sort((x, y) => cmp(y.StartTime, x.StartTime) || cmp(x.ActivityId, y.ActivityId));

// ---------------------------------------------------------------------------------------------------------------
// the cluster-autoscaler-status ConfigMap (CA 1.30-1.34: gopkg.in/yaml.v2, struct field order, zero values omitted)

function statusYaml() {
  const probe = `"${CA_LOOP_RFC}"`;
  const started = `"${CA_FIRST_LOOP_RFC}"`;
  const generalScaleUpDone = '"2026-11-21T09:14:22.508112734Z"';
  const counts = (indent, ready) => {
    const p = ' '.repeat(indent);
    const registered = ready
      ? [`${p}registered:`, `${p}  total: ${ready}`, `${p}  ready: ${ready}`, `${p}  notStarted: 0`]
      : [];
    return [`${p.slice(2)}nodeCounts:`, ...registered, `${p}longUnregistered: 0`, `${p}unregistered: 0`];
  };
  const lines = [
    `time: ${CA_LOOP}`,
    'autoscalerStatus: Running',
    'clusterWide:',
    '  health:',
    '    status: Healthy',
    ...counts(6, nodes.length),
    `    lastProbeTime: ${probe}`,
    `    lastTransitionTime: ${started}`,
    '  scaleUp:',
    '    status: NoActivity',
    `    lastProbeTime: ${probe}`,
    `    lastTransitionTime: ${generalScaleUpDone}`,
    '  scaleDown:',
    '    status: NoCandidates',
    `    lastProbeTime: ${probe}`,
    `    lastTransitionTime: ${started}`,
    'nodeGroups:',
  ];
  const discovered = autoScalingGroups
    .filter((g) => g.Tags.some((t) => t.Key === `k8s.io/cluster-autoscaler/${CLUSTER}`))
    .sort((x, y) => cmp(x.AutoScalingGroupName, y.AutoScalingGroupName));
  for (const g of discovered) {
    lines.push(
      `- name: ${g.AutoScalingGroupName}`,
      '  health:',
      '    status: Healthy',
      ...counts(6, g.Instances.length),
      `    cloudProviderTarget: ${g.DesiredCapacity}`,
      `    minSize: ${g.MinSize}`,
      `    maxSize: ${g.MaxSize}`,
      `    lastProbeTime: ${probe}`,
      `    lastTransitionTime: ${started}`,
      '  scaleUp:',
      '    status: NoActivity',
      `    lastProbeTime: ${probe}`,
      `    lastTransitionTime: ${g.AutoScalingGroupName === 'demo-general' ? generalScaleUpDone : started}`,
      '  scaleDown:',
      '    status: NoCandidates',
      `    lastProbeTime: ${probe}`,
      `    lastTransitionTime: ${started}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
const statusConfigMap = {
  apiVersion: 'v1',
  data: { status: statusYaml() },
  kind: 'ConfigMap',
  metadata: {
    annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': CA_LOOP },
    creationTimestamp: '2026-11-20T16:42:21Z',
    name: 'cluster-autoscaler-status',
    namespace: 'kube-system',
    resourceVersion: rv('cm:status', '2026-11-21T09:59:52Z'),
    uid: CM_REF.uid,
  },
};

// ---------------------------------------------------------------------------------------------------------------
// self-check: the scheduler messages must follow from the resources in this dump (README documents the arithmetic)

const toMilli = (q) => {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$/.exec(String(q));
  if (!m) throw new Error(`quantity ${q}`);
  const v = Number(m[1]);
  return { m: v, Ki: v * 1024 * 1000, Mi: v * 1024 ** 2 * 1000, Gi: v * 1024 ** 3 * 1000 }[m[2]] ?? v * 1000;
};
function podRequests(pod) {
  const sum = {};
  for (const c of pod.spec.containers)
    for (const [k, v] of Object.entries(c.resources.requests ?? {})) sum[k] = (sum[k] ?? 0) + toMilli(v);
  for (const c of pod.spec.initContainers ?? [])
    for (const [k, v] of Object.entries(c.resources.requests ?? {}))
      sum[k] = Math.max(sum[k] ?? 0, toMilli(v));
  return sum;
}
/** kube-scheduler's Filter chain as far as this dump needs it; returns the first failing plugin's reasons. */
function runFilters(pod, node, nodePods) {
  const tolerated = (t) =>
    (pod.spec.tolerations ?? []).some(
      (x) =>
        (x.operator === 'Exists' ? !x.key || x.key === t.key : x.key === t.key && x.value === t.value) &&
        (!x.effect || x.effect === t.effect),
    );
  const taint = (node.spec.taints ?? []).find((t) => t.effect !== 'PreferNoSchedule' && !tolerated(t));
  if (taint)
    return {
      reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`],
      resolvable: false,
    };
  if (Object.entries(pod.spec.nodeSelector ?? {}).some(([k, v]) => node.metadata.labels[k] !== v))
    return { reasons: [SELECTOR], resolvable: false };
  const want = podRequests(pod);
  const used = {};
  for (const p of nodePods) for (const [k, v] of Object.entries(podRequests(p))) used[k] = (used[k] ?? 0) + v;
  const insufficient = [];
  for (const k of ['cpu', 'memory', ...Object.keys(want).filter((k) => k.includes('/'))]) {
    if (!want[k]) continue;
    const alloc = node.status.allocatable[k] ? toMilli(node.status.allocatable[k]) : 0;
    if (want[k] > alloc - (used[k] ?? 0)) insufficient.push(`Insufficient ${k}`);
  }
  if (insufficient.length) return { reasons: insufficient, resolvable: true };
  for (const v of pod.spec.volumes ?? []) {
    if (!v.persistentVolumeClaim) continue;
    const claim = pvcs.find(
      (c) =>
        c.metadata.namespace === pod.metadata.namespace &&
        c.metadata.name === v.persistentVolumeClaim.claimName,
    );
    const pv = pvs.find((x) => x.metadata.name === claim.spec.volumeName);
    const zone = pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0];
    if (!zone.values.includes(node.metadata.labels[zone.key]))
      return { reasons: ['node(s) had volume node affinity conflict'], resolvable: false };
  }
  return { reasons: [], resolvable: false };
}
const runningOn = (name) => pods.filter((p) => p.spec.nodeName === name && p.status.phase === 'Running');
function checkSchedulerMessage(pod) {
  const hist = new Map();
  const preempt = new Map();
  const bump = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const node of nodes) {
    const { reasons, resolvable } = runFilters(pod, node, runningOn(node.metadata.name));
    if (reasons.length === 0) throw new Error(`${pod.metadata.name} would fit ${node.metadata.name}`);
    for (const r of reasons) bump(hist, r);
    if (resolvable) {
      const victims = runningOn(node.metadata.name).some((p) => p.spec.priority < pod.spec.priority);
      if (victims) throw new Error(`${pod.metadata.name}: preemption could help on ${node.metadata.name}`);
      bump(preempt, 'No preemption victims found for incoming pod');
    } else bump(preempt, 'Preemption is not helpful for scheduling');
  }
  const fmt = (m) => [...m].map(([r, n]) => `${n} ${r}`).sort();
  const expected = sched(nodes.length, fmt(hist), fmt(preempt));
  if (expected !== pod.status.conditions[0].message) {
    throw new Error(
      `scheduler message mismatch for ${pod.metadata.name}:\n  computed ${expected}\n  written  ${pod.status.conditions[0].message}`,
    );
  }
}

// CA's template node per discovered group: a copy of a real node with only its DaemonSet pods, or for an empty group the
// AWS scratch template (CA: cloudprovider/aws/aws_manager.go buildNodeFromTemplate): allocatable = capacity from the
// static instance-type table, pods 110, nvidia.com/gpu always set, labels/taints from ASG tags, plus matching DaemonSet
// pods and a fake static kube-proxy requesting 100m.
const instanceTypes = JSON.parse(
  readFileSync(join(root, 'data', 'instance-types.json'), 'utf8'),
).instanceTypes;
function templateFor(asg) {
  const real = nodes.filter((n) => asg.Instances.some((i) => n.spec.providerID.endsWith(`/${i.InstanceId}`)));
  if (real.length) {
    const node = real[0];
    return {
      node,
      pods: runningOn(node.metadata.name).filter((p) => p.metadata.ownerReferences?.[0].kind === 'DaemonSet'),
    };
  }
  const lt =
    launchTemplateVersions.find(
      (v) =>
        v.LaunchTemplateId === asg.LaunchTemplate.LaunchTemplateId &&
        String(v.VersionNumber) === asg.LaunchTemplate.Version,
    ) ??
    launchTemplateVersions.find(
      (v) => v.LaunchTemplateId === asg.LaunchTemplate.LaunchTemplateId && v.DefaultVersion,
    );
  const type = lt.LaunchTemplateData.InstanceType;
  const it = instanceTypes[type];
  const zone = asg.AvailabilityZones[0];
  const tag = (prefix) =>
    asg.Tags.filter((t) => t.Key.startsWith(prefix)).map((t) => [t.Key.slice(prefix.length), t.Value]);
  const node = {
    metadata: {
      labels: {
        'kubernetes.io/arch': it.architecture,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': type,
        'topology.kubernetes.io/region': REGION,
        'topology.kubernetes.io/zone': zone,
        'topology.ebs.csi.aws.com/zone': zone,
        ...Object.fromEntries(tag('k8s.io/cluster-autoscaler/node-template/label/')),
      },
    },
    spec: {
      taints: tag('k8s.io/cluster-autoscaler/node-template/taint/').map(([key, v]) => ({
        key,
        value: v.split(':')[0],
        effect: v.split(':')[1],
      })),
    },
    status: {
      allocatable: {
        cpu: String(it.vcpu),
        memory: `${it.memoryMiB}Mi`,
        pods: '110',
        'nvidia.com/gpu': String(it.gpu),
      },
    },
  };
  const dsPods = daemonSets
    .map((ds) => ({
      metadata: { namespace: ds.metadata.namespace },
      spec: { ...ds.spec.template.spec, tolerations: ds.spec.template.spec.tolerations },
    }))
    .filter((p) => runFilters(p, node, []).reasons.length === 0);
  const kubeProxy = { spec: { containers: [{ resources: { requests: { cpu: '100m' } } }] } };
  return { node, pods: [...dsPods, kubeProxy] };
}
const discovered = autoScalingGroups.filter((g) =>
  g.Tags.some((t) => t.Key === `k8s.io/cluster-autoscaler/${CLUSTER}`),
);
/** Per discovered group: 'max node group size reached', [] (fits) or the first failing plugin's reasons. */
function caReasons(pod) {
  return discovered.map((g) => {
    if (g.DesiredCapacity >= g.MaxSize) return { group: g.AutoScalingGroupName, reasons: [MAX] };
    const t = templateFor(g);
    return { group: g.AutoScalingGroupName, reasons: runFilters(pod, t.node, t.pods).reasons };
  });
}
function checkCaMessage(pod, key) {
  const perGroup = caReasons(pod);
  const fits = perGroup.filter((r) => r.reasons.length === 0).map((r) => r.group);
  if (key === 'api') {
    if (fits.join() !== 'demo-general')
      throw new Error(`api should fit only demo-general, fits ${fits.join()}`);
    return;
  }
  if (fits.length) throw new Error(`${pod.metadata.name} fits ${fits.join()}, so CA would scale up`);
  const count = new Map();
  for (const r of perGroup) for (const reason of r.reasons) count.set(reason, (count.get(reason) ?? 0) + 1);
  const computed = [...count]
    .map(([r, n]) => `${n} ${r}`)
    .sort()
    .join(', ');
  const written = CA_MSG[key].replace("pod didn't trigger scale-up: ", '').split(', ').sort().join(', ');
  if (computed !== written)
    throw new Error(
      `CA message mismatch for ${pod.metadata.name}:\n  computed ${computed}\n  written  ${written}`,
    );
}
for (const [key, pod] of pendingByKey) {
  checkSchedulerMessage(pod);
  // CA filters out expendable pods (priority < --expendable-pods-priority-cutoff, default -10) before simulating
  if (pod.spec.priority >= -10) checkCaMessage(pod, key);
  if (process.env.DEMO_EXPLAIN) {
    const rows = caReasons(pod).map((r) => `    ${r.group}: ${r.reasons.join(' + ') || 'fits'}`);
    console.error(`${pod.metadata.namespace}/${pod.metadata.name}\n${rows.join('\n')}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// write

const files = {
  'pods.json': kubectlList(pods.sort(byNsName)),
  'nodes.json': kubectlList(nodes.sort(byNsName)),
  'events.json': kubectlList(events.sort(byNsName)),
  'daemonsets.json': kubectlList(daemonSets.sort(byNsName)),
  'deployments.json': kubectlList(deployments.sort(byNsName)),
  'replicasets.json': kubectlList(replicaSets.sort(byNsName)),
  'statefulsets.json': kubectlList(statefulSets.sort(byNsName)),
  'jobs.json': kubectlList(jobs.sort(byNsName)),
  'pdbs.json': kubectlList(pdbs.sort(byNsName)),
  'pvcs.json': kubectlList(pvcs.sort(byNsName)),
  'pvs.json': kubectlList(pvs.sort(byNsName)),
  'storageclasses.json': kubectlList(storageClasses.sort(byNsName)),
  'priorityclasses.json': kubectlList(priorityClasses.sort(byNsName)),
  'serviceaccounts.json': kubectlList(serviceAccounts.sort(byNsName)),
  'configmaps-kube-system.json': kubectlJson(statusConfigMap),
  'asgs.json': awsJson({ AutoScalingGroups: autoScalingGroups }),
  'launch-template-versions.json': awsJson({ LaunchTemplateVersions: launchTemplateVersions }),
  'scaling-activities.json': awsJson({ Activities: activities }),
  // CA's CRDs are installed (the chart's ProvisioningRequest and CapacityBuffer CRDs) but hold no objects: what
  // `kubectl get --raw` returns for an empty collection (kubectl get -o json would say "List" and lose the kind)
  'provisioningrequests.json': kubectlJson({ apiVersion: 'autoscaling.x-k8s.io/v1', items: [], kind: 'ProvisioningRequestList', metadata: { resourceVersion: '48213207' } }),
  'capacitybuffers.json': kubectlJson({ apiVersion: 'autoscaling.x-k8s.io/v1beta1', items: [], kind: 'CapacityBufferList', metadata: { resourceVersion: '48213207' } }),
  'podtemplates.json': kubectlJson({ apiVersion: 'v1', items: [], kind: 'PodTemplateList', metadata: { resourceVersion: '48213207' } }),
};
mkdirSync(outDir, { recursive: true });
for (const [name, body] of Object.entries(files)) writeFileSync(join(outDir, name), body);
console.error(
  `wrote ${Object.keys(files).length} files to ${outDir}: ${pods.length} pods, ${nodes.length} nodes, ${events.length} events`,
);
