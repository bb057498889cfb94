// Small deterministic builders for the bundled example dumps (examples/externalgrpc, examples/karpenter).
// Every object is shaped as `kubectl get <kind> -o json` prints it; ids and hashes derive from labels via sha256,
// never from Math.random or the clock. (scripts/gen-demo.mjs keeps its own, larger kit for the AWS demo.)
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const sha = (s) => createHash('sha256').update(s).digest('hex');
export function hexOf(label, n) {
  let out = '';
  for (let i = 0; out.length < n; i++) out += sha(`${label}#${i}`);
  return out.slice(0, n);
}
export const intOf = (label, mod) => Number.parseInt(sha(label).slice(0, 12), 16) % mod;
export function uuid(label) {
  const x = hexOf(`uuid:${label}`, 32);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-${'89ab'[Number.parseInt(x[16], 16) % 4]}${x.slice(17, 20)}-${x.slice(20)}`;
}
// k8s.io/apimachinery rand.SafeEncodeString alphabet (pod-template-hash, generateName suffixes)
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
export function safe(label, n) {
  const x = hexOf(`safe:${label}`, n * 2);
  let s = '';
  for (let i = 0; i < n; i++) s += SAFE[Number.parseInt(x.slice(i * 2, i * 2 + 2), 16) % SAFE.length];
  return s;
}
export const ms = (iso) => {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`bad time ${iso}`);
  return t;
};
/** RFC3339, second precision (metav1.Time). */
export const sec = (t) => new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
export const addS = (iso, seconds) => sec(ms(iso) + Math.round(seconds * 1000));
/** metav1.MicroTime: six fractional digits. */
export const micro = (iso, label) =>
  `${sec(ms(iso)).slice(0, -1)}.${String(intOf(`us:${label}`, 1_000_000)).padStart(6, '0')}Z`;
export const rv = (label) => String(7_000_000 + intOf(`rv:${label}`, 900_000));

export function sortKeysDeep(v) {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) o[k] = sortKeysDeep(v[k]);
    return o;
  }
  return v;
}

/** kubectl's List wrapper, as `kubectl get <kind> -o json` prints it. */
export const list = (items) => ({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });

export function writeJson(dir, file, value) {
  mkdirSync(dir, { recursive: true });
  // kubectl prints 4-space indented JSON
  writeFileSync(join(dir, file), `${JSON.stringify(sortKeysDeep(value), null, 4)}\n`);
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

/**
 * A Node as the kubelet registers it. `labels` are added to the kubelet's own; conditions are Ready unless notReady.
 */
export function node({ name, created, labels = {}, annotations = {}, taints, providerID, cpu, memoryKi, allocCpu,
  allocMemoryKi, pods = '110', ephemeralKi = '206291944Ki', allocEphemeral = '190119300396', ip, kubelet = 'v1.28.9',
  unschedulable, now, extraCapacity = {}, os = 'linux', arch = 'amd64', notReadySince }) {
  const readyAt = addS(created, 38);
  const hb = addS(now, -intOf(`hb:${name}`, 40) - 5);
  const cond = (type, status, reason, message, at = created) => ({
    lastHeartbeatTime: hb, lastTransitionTime: at, message, reason, status, type,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        ...annotations,
      },
      creationTimestamp: created,
      labels: {
        'beta.kubernetes.io/arch': arch,
        'beta.kubernetes.io/os': os,
        'kubernetes.io/arch': arch,
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': os,
        ...labels,
      },
      name,
      resourceVersion: rv(`node:${name}`),
      uid: uuid(`node:${name}`),
    },
    spec: {
      ...(providerID ? { providerID } : {}),
      ...(taints && taints.length ? { taints } : {}),
      ...(unschedulable ? { unschedulable: true } : {}),
    },
    status: {
      addresses: [
        { address: ip, type: 'InternalIP' },
        { address: name, type: 'Hostname' },
      ],
      allocatable: {
        cpu: allocCpu, 'ephemeral-storage': allocEphemeral, 'hugepages-1Gi': '0', 'hugepages-2Mi': '0',
        memory: allocMemoryKi, pods, ...extraCapacity,
      },
      capacity: {
        cpu, 'ephemeral-storage': ephemeralKi, 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: memoryKi, pods,
        ...extraCapacity,
      },
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        notReadySince
          ? cond('Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', notReadySince)
          : cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', readyAt),
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: arch,
        bootID: uuid(`boot:${name}`),
        containerRuntimeVersion: 'containerd://1.7.22',
        kernelVersion: '5.4.241-1-tlinux4-0017.7',
        kubeProxyVersion: kubelet,
        kubeletVersion: kubelet,
        machineID: hexOf(`machine:${name}`, 32),
        operatingSystem: os,
        osImage: 'TencentOS Server 3.1 (Final)',
        systemUUID: uuid(`sys:${name}`).toUpperCase(),
      },
    },
  };
}

/** An owner reference as controllers set it. */
export const owner = (kind, name, apiVersion = 'apps/v1') => ({
  apiVersion, blockOwnerDeletion: true, controller: true, kind, name, uid: uuid(`${kind}:${name}`),
});

/** A Pod; `nodeName` makes it Running there, else Pending with the scheduler's Unschedulable message. */
export function pod({ ns, name, generateName, labels = {}, annotations, ownerRef, created, containers, nodeName,
  nodeSelector, tolerations = [], affinity, volumes = [], priorityClassName, priority = 0, schedulerMessage,
  serviceAccount = 'default', hostNetwork, startedAt, ready = true }) {
  const vols = [...volumes, SA_VOLUME(`${ns}/${name}`)];
  const running = !!nodeName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(annotations ? { annotations } : {}),
      creationTimestamp: created,
      ...(generateName ? { generateName } : {}),
      labels,
      name,
      namespace: ns,
      ...(ownerRef ? { ownerReferences: [ownerRef] } : {}),
      resourceVersion: rv(`pod:${ns}/${name}`),
      uid: uuid(`pod:${ns}/${name}`),
    },
    spec: {
      ...(affinity ? { affinity } : {}),
      containers: containers.map((c) => ({
        image: c.image,
        imagePullPolicy: 'IfNotPresent',
        name: c.name,
        ...(c.ports ? { ports: c.ports } : {}),
        resources: c.resources ?? {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        volumeMounts: [
          ...(c.volumeMounts ?? []),
          { mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: vols[vols.length - 1].name, readOnly: true },
        ],
      })),
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      ...(hostNetwork ? { hostNetwork: true } : {}),
      ...(nodeName ? { nodeName } : {}),
      ...(nodeSelector ? { nodeSelector } : {}),
      preemptionPolicy: 'PreemptLowerPriority',
      priority,
      ...(priorityClassName ? { priorityClassName } : {}),
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      serviceAccount,
      serviceAccountName: serviceAccount,
      terminationGracePeriodSeconds: 30,
      tolerations: [...tolerations, ...DEFAULT_TOLERATIONS],
      volumes: vols,
    },
    status: running
      ? {
          conditions: [
            { lastProbeTime: null, lastTransitionTime: addS(created, 4), status: 'True', type: 'Initialized' },
            { lastProbeTime: null, lastTransitionTime: addS(created, 9), status: ready ? 'True' : 'False', type: 'Ready' },
            { lastProbeTime: null, lastTransitionTime: addS(created, 9), status: ready ? 'True' : 'False', type: 'ContainersReady' },
            { lastProbeTime: null, lastTransitionTime: created, status: 'True', type: 'PodScheduled' },
          ],
          containerStatuses: containers.map((c) => ({
            containerID: `containerd://${hexOf(`ctr:${ns}/${name}/${c.name}`, 64)}`,
            image: c.image,
            imageID: `${c.image.split(':')[0]}@sha256:${hexOf(`img:${c.image}`, 64)}`,
            lastState: {},
            name: c.name,
            ready,
            restartCount: 0,
            started: true,
            state: { running: { startedAt: startedAt ?? addS(created, 7) } },
          })),
          hostIP: '',
          phase: 'Running',
          podIP: '',
          qosClass: 'Burstable',
          startTime: created,
        }
      : {
          conditions: [
            {
              lastProbeTime: null,
              lastTransitionTime: created,
              message: schedulerMessage,
              reason: 'Unschedulable',
              status: 'False',
              type: 'PodScheduled',
            },
          ],
          phase: 'Pending',
          qosClass: 'Burstable',
        },
  };
}

/** A core/v1 Event in the shape `kubectl get events -A -o json` prints. */
export function event({ ns, involved, reason, message, type = 'Normal', source, first, last, count = 1, label }) {
  const id = `${involved.name}.${hexOf(`ev:${label ?? reason}:${involved.name}`, 16)}`;
  return {
    apiVersion: 'v1',
    count,
    eventTime: null,
    firstTimestamp: first,
    involvedObject: involved,
    kind: 'Event',
    lastTimestamp: last,
    message,
    metadata: {
      creationTimestamp: first,
      name: id,
      namespace: ns,
      resourceVersion: rv(`ev:${id}`),
      uid: uuid(`ev:${id}`),
    },
    reason,
    reportingComponent: source,
    reportingInstance: '',
    source: { component: source },
    type,
  };
}

export const podRef = (p) => ({
  apiVersion: 'v1', kind: 'Pod', name: p.metadata.name, namespace: p.metadata.namespace,
  resourceVersion: p.metadata.resourceVersion, uid: p.metadata.uid,
});

/** A Deployment plus its current ReplicaSet, both as the controllers write them. */
export function deployment({ ns, name, replicas, labels, podSpec, created, readyReplicas = replicas, annotations }) {
  const hash = safe(`rs:${ns}/${name}`, 10);
  const rsName = `${name}-${hash}`;
  const selector = { matchLabels: labels };
  const template = { metadata: { creationTimestamp: null, labels, ...(annotations ? { annotations } : {}) }, spec: podSpec };
  const dep = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      creationTimestamp: created,
      generation: 1,
      labels,
      name,
      namespace: ns,
      resourceVersion: rv(`dep:${ns}/${name}`),
      uid: uuid(`Deployment:${name}`),
    },
    spec: {
      progressDeadlineSeconds: 600,
      replicas,
      revisionHistoryLimit: 10,
      selector,
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
      template,
    },
    status: {
      availableReplicas: readyReplicas,
      observedGeneration: 1,
      readyReplicas,
      replicas,
      updatedReplicas: replicas,
      ...(readyReplicas < replicas ? { unavailableReplicas: replicas - readyReplicas } : {}),
    },
  };
  const rs = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(replicas),
        'deployment.kubernetes.io/max-replicas': String(replicas + Math.ceil(replicas / 4)),
        'deployment.kubernetes.io/revision': '1',
      },
      creationTimestamp: created,
      generation: 1,
      labels: { ...labels, 'pod-template-hash': hash },
      name: rsName,
      namespace: ns,
      ownerReferences: [owner('Deployment', name)],
      resourceVersion: rv(`rs:${ns}/${rsName}`),
      uid: uuid(`ReplicaSet:${rsName}`),
    },
    spec: {
      replicas,
      selector: { matchLabels: { ...labels, 'pod-template-hash': hash } },
      template: { metadata: { creationTimestamp: null, labels: { ...labels, 'pod-template-hash': hash } }, spec: podSpec },
    },
    status: { availableReplicas: readyReplicas, fullyLabeledReplicas: replicas, observedGeneration: 1, readyReplicas, replicas },
  };
  return { dep, rs, hash, rsName };
}

/** A DaemonSet as the controller reports it. */
export function daemonSet({ ns, name, labels, podSpec, created, scheduled }) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      annotations: { 'deprecated.daemonset.template.generation': '1' },
      creationTimestamp: created,
      generation: 1,
      labels,
      name,
      namespace: ns,
      resourceVersion: rv(`ds:${ns}/${name}`),
      uid: uuid(`DaemonSet:${name}`),
    },
    spec: {
      revisionHistoryLimit: 10,
      selector: { matchLabels: labels },
      template: { metadata: { creationTimestamp: null, labels }, spec: podSpec },
      updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 }, type: 'RollingUpdate' },
    },
    status: {
      currentNumberScheduled: scheduled,
      desiredNumberScheduled: scheduled,
      numberAvailable: scheduled,
      numberMisscheduled: 0,
      numberReady: scheduled,
      observedGeneration: 1,
      updatedNumberScheduled: scheduled,
    },
  };
}

/** A ConfigMap as `kubectl get cm -o json` prints it. */
export function configMap({ ns, name, data, created, annotations, labels }) {
  return {
    apiVersion: 'v1',
    data,
    kind: 'ConfigMap',
    metadata: {
      ...(annotations ? { annotations } : {}),
      creationTimestamp: created,
      ...(labels ? { labels } : {}),
      name,
      namespace: ns,
      resourceVersion: rv(`cm:${ns}/${name}`),
      uid: uuid(`cm:${ns}/${name}`),
    },
  };
}
