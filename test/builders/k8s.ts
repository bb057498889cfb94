/**
 * Fluent builders for Kubernetes objects in the exact shape `kubectl get -o json` prints them (EKS flavoured):
 * defaulted fields the API server adds are present (tolerations for not-ready/unreachable, schedulerName,
 * qosClass, finalizers, bind annotations ...), so tests exercise the same shapes a real dump has.
 *
 *   pod('web-0').withLabels({ app: 'web' }).withRequests({ cpu: '500m', memory: '1Gi' }).pending().build()
 *   node('ip-10-0-1-23.ec2.internal').withInstanceType('m5.xlarge').inZone('us-east-1a').withTaint('dedicated', 'gpu').build()
 *   pvc('data-web-0').withStorageClass('gp3').boundTo('pvc-0f1e...').build()
 *   pv('pvc-0f1e...').inZone('us-east-1a').boundTo(claim).build()
 *   storageClass('gp3').waitForFirstConsumer().asDefault().build()
 *
 * Builders are mutable (each with* mutates and returns `this`); build() returns a fresh deep copy, so one builder
 * can produce several objects. UIDs are derived from the object's name, so fixtures are deterministic.
 */
import type {
  Container,
  ContainerPort,
  LabelSelector,
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  OwnerReference,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodAffinityTerm,
  ResourceMap,
  StorageClass,
  Taint,
  Toleration,
  TopologySpreadConstraint,
  Volume,
} from '../../src/model/k8s.js';

/** The timestamp every builder uses unless told otherwise. */
export const CREATED = '2026-01-05T09:20:11Z';
export const ZONE = 'us-east-1a';

/** A deterministic UUID-shaped uid from any string (FNV-1a based). */
export function uidFor(seed: string): string {
  let hex = '';
  for (let round = 0; hex.length < 32; round++) {
    let h = 0x811c9dc5 ^ round;
    for (let i = 0; i < seed.length; i++) {
      h ^= seed.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    hex += h.toString(16).padStart(8, '0');
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function regionOf(zone: string): string {
  return zone.replace(/[a-z]$/, '');
}

/** A node selector term from one requirement: term('topology.kubernetes.io/zone', 'In', ['us-east-1a']). */
export function term(
  key: string,
  operator: NodeSelectorRequirement['operator'],
  values?: string[],
): NodeSelectorTerm {
  return { matchExpressions: [values === undefined ? { key, operator } : { key, operator, values }] };
}

/** A pod affinity term selecting pods by labels within a topology domain. */
export function affinityTerm(
  matchLabels: Record<string, string>,
  topologyKey = 'kubernetes.io/hostname',
  extra: Partial<PodAffinityTerm> = {},
): PodAffinityTerm {
  return { labelSelector: { matchLabels }, topologyKey, ...extra };
}

const DEFAULT_TOLERATIONS: Toleration[] = [
  { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
  { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
];

const OWNER_API_VERSIONS: Record<string, string> = {
  ReplicaSet: 'apps/v1',
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  ReplicationController: 'v1',
  Node: 'v1',
  Pod: 'v1',
};

function container(name: string, requests?: ResourceMap, limits?: ResourceMap): Container {
  const resources: Container['resources'] = {};
  if (limits) resources.limits = { ...limits };
  if (requests) resources.requests = { ...requests };
  return {
    name,
    image: 'public.ecr.aws/docker/library/nginx:1.27',
    imagePullPolicy: 'IfNotPresent',
    resources,
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

export interface ContainerSpec {
  name?: string;
  image?: string;
  requests?: ResourceMap;
  limits?: ResourceMap;
  ports?: ContainerPort[];
}

export class PodBuilder {
  private p: Pod;
  private statusKind: 'pending' | 'unschedulable' | 'running' | 'explicit' = 'pending';
  private unschedulableMessage = '0/1 nodes are available: 1 Insufficient cpu.';

  constructor(name: string, namespace: string) {
    this.p = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        uid: uidFor(`pod/${namespace}/${name}`),
        resourceVersion: '1048576',
        creationTimestamp: CREATED,
      },
      spec: {
        containers: [container('app')],
        dnsPolicy: 'ClusterFirst',
        enableServiceLinks: true,
        preemptionPolicy: 'PreemptLowerPriority',
        priority: 0,
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        serviceAccount: 'default',
        serviceAccountName: 'default',
        terminationGracePeriodSeconds: 30,
        tolerations: clone(DEFAULT_TOLERATIONS),
      },
      status: { phase: 'Pending' },
    };
  }

  withLabels(labels: Record<string, string>): this {
    this.p.metadata.labels = { ...(this.p.metadata.labels ?? {}), ...labels };
    return this;
  }

  withLabel(key: string, value: string): this {
    return this.withLabels({ [key]: value });
  }

  withAnnotations(annotations: Record<string, string>): this {
    this.p.metadata.annotations = { ...(this.p.metadata.annotations ?? {}), ...annotations };
    return this;
  }

  withAnnotation(key: string, value: string): this {
    return this.withAnnotations({ [key]: value });
  }

  withUid(uid: string): this {
    this.p.metadata.uid = uid;
    return this;
  }

  createdAt(timestamp: string): this {
    this.p.metadata.creationTimestamp = timestamp;
    return this;
  }

  /** Sets deletionTimestamp (and the grace period), as for a pod being deleted. */
  terminating(at = '2026-01-05T12:00:00Z'): this {
    this.p.metadata.deletionTimestamp = at;
    this.p.metadata.deletionGracePeriodSeconds = this.p.spec.terminationGracePeriodSeconds ?? 30;
    return this;
  }

  /** Requests of the first container (kept as given: strings or numbers). */
  withRequests(requests: ResourceMap, containerIndex = 0): this {
    const c = this.p.spec.containers[containerIndex];
    c.resources = { ...(c.resources ?? {}), requests: { ...(c.resources?.requests ?? {}), ...requests } };
    return this;
  }

  withLimits(limits: ResourceMap, containerIndex = 0): this {
    const c = this.p.spec.containers[containerIndex];
    c.resources = { ...(c.resources ?? {}), limits: { ...(c.resources?.limits ?? {}), ...limits } };
    return this;
  }

  /** Adds another regular container. */
  withContainer(spec: ContainerSpec = {}): this {
    const c = container(spec.name ?? `app-${this.p.spec.containers.length}`, spec.requests, spec.limits);
    if (spec.image) c.image = spec.image;
    if (spec.ports) c.ports = clone(spec.ports);
    this.p.spec.containers.push(c);
    return this;
  }

  /** Adds a regular (run-to-completion) init container. */
  withInitContainer(spec: ContainerSpec = {}): this {
    const list = (this.p.spec.initContainers ??= []);
    const c = container(spec.name ?? `init-${list.length}`, spec.requests, spec.limits);
    if (spec.image) c.image = spec.image;
    list.push(c);
    return this;
  }

  /** Adds a sidecar: an init container with restartPolicy Always. */
  withSidecar(spec: ContainerSpec = {}): this {
    const list = (this.p.spec.initContainers ??= []);
    const c = container(spec.name ?? `sidecar-${list.length}`, spec.requests, spec.limits);
    if (spec.image) c.image = spec.image;
    if (spec.ports) c.ports = clone(spec.ports);
    c.restartPolicy = 'Always';
    list.push(c);
    return this;
  }

  /** spec.overhead as the RuntimeClass admission plugin sets it (with a runtimeClassName). */
  withOverhead(overhead: ResourceMap, runtimeClassName = 'kata'): this {
    this.p.spec.overhead = { ...overhead };
    this.p.spec.runtimeClassName = runtimeClassName;
    return this;
  }

  /** Pod-level spec.resources (PodLevelResources). */
  withPodResources(resources: { requests?: ResourceMap; limits?: ResourceMap }): this {
    this.p.spec.resources = clone(resources);
    return this;
  }

  /** Assigned to a node and Running, with the conditions and container statuses kubelet reports. */
  onNode(nodeName: string): this {
    this.p.spec.nodeName = nodeName;
    this.statusKind = 'running';
    return this;
  }

  /** Pending with PodScheduled=False/Unschedulable, as the scheduler leaves it. */
  unschedulable(message?: string): this {
    if (message) this.unschedulableMessage = message;
    this.statusKind = 'unschedulable';
    return this;
  }

  /** Pending, not yet looked at by the scheduler (no conditions). */
  pending(): this {
    this.statusKind = 'pending';
    return this;
  }

  /** Sets status.phase only (e.g. Succeeded / Failed for a completed pod still bound to its node). */
  withPhase(phase: string): this {
    this.statusKind = 'explicit';
    this.p.status = { ...(this.p.status ?? {}), phase };
    return this;
  }

  withNominatedNode(nodeName: string): this {
    this.p.status = { ...(this.p.status ?? {}), nominatedNodeName: nodeName };
    return this;
  }

  withNodeName(nodeName: string): this {
    this.p.spec.nodeName = nodeName;
    return this;
  }

  withNodeSelector(selector: Record<string, string>): this {
    this.p.spec.nodeSelector = { ...(this.p.spec.nodeSelector ?? {}), ...selector };
    return this;
  }

  /** Required node affinity; the terms are ORed (appends to existing terms). */
  withRequiredNodeAffinity(...terms: NodeSelectorTerm[]): this {
    const affinity = (this.p.spec.affinity ??= {});
    const na = (affinity.nodeAffinity ??= {});
    const required = (na.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] });
    required.nodeSelectorTerms.push(...clone(terms));
    return this;
  }

  /** Appends tolerations after the defaulted not-ready/unreachable ones. */
  withToleration(...tolerations: Toleration[]): this {
    this.p.spec.tolerations = [...(this.p.spec.tolerations ?? []), ...clone(tolerations)];
    return this;
  }

  /** Drops every toleration, including the defaulted ones. */
  withoutTolerations(): this {
    delete this.p.spec.tolerations;
    return this;
  }

  /** A hostPort on the first container (protocol as the API server defaults it: TCP). */
  withHostPort(
    hostPort: number,
    opts: { containerPort?: number; protocol?: string; hostIP?: string } = {},
  ): this {
    const c = this.p.spec.containers[0];
    const port: ContainerPort = {
      containerPort: opts.containerPort ?? hostPort,
      hostPort,
      protocol: opts.protocol ?? 'TCP',
    };
    if (opts.hostIP) port.hostIP = opts.hostIP;
    c.ports = [...(c.ports ?? []), port];
    return this;
  }

  withHostNetwork(): this {
    this.p.spec.hostNetwork = true;
    this.p.spec.dnsPolicy = 'ClusterFirstWithHostNet';
    return this;
  }

  withVolume(volume: Volume): this {
    this.p.spec.volumes = [...(this.p.spec.volumes ?? []), clone(volume)];
    return this;
  }

  /** A persistentVolumeClaim volume (volume name defaults to the claim name). */
  withPvc(claimName: string, volumeName = claimName): this {
    return this.withVolume({ name: volumeName, persistentVolumeClaim: { claimName } });
  }

  /** A generic ephemeral volume; its claim is named <pod>-<volume>. */
  withEphemeralVolume(volumeName: string, storage = '10Gi', storageClassName = 'gp3'): this {
    return this.withVolume({
      name: volumeName,
      ephemeral: {
        volumeClaimTemplate: {
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName },
        },
      },
    });
  }

  withEmptyDir(volumeName: string, medium?: string): this {
    return this.withVolume({ name: volumeName, emptyDir: medium ? { medium } : {} });
  }

  withTopologySpread(
    c: Partial<TopologySpreadConstraint> & { topologyKey: string; labelSelector?: LabelSelector },
  ): this {
    const constraint: TopologySpreadConstraint = {
      maxSkew: 1,
      whenUnsatisfiable: 'DoNotSchedule',
      ...clone(c),
    };
    this.p.spec.topologySpreadConstraints = [...(this.p.spec.topologySpreadConstraints ?? []), constraint];
    return this;
  }

  withPodAffinity(...terms: PodAffinityTerm[]): this {
    const a = (this.p.spec.affinity ??= {});
    const pa = (a.podAffinity ??= {});
    pa.requiredDuringSchedulingIgnoredDuringExecution = [
      ...(pa.requiredDuringSchedulingIgnoredDuringExecution ?? []),
      ...clone(terms),
    ];
    return this;
  }

  withPodAntiAffinity(...terms: PodAffinityTerm[]): this {
    const a = (this.p.spec.affinity ??= {});
    const pa = (a.podAntiAffinity ??= {});
    pa.requiredDuringSchedulingIgnoredDuringExecution = [
      ...(pa.requiredDuringSchedulingIgnoredDuringExecution ?? []),
      ...clone(terms),
    ];
    return this;
  }

  /** A controller ownerReference (apiVersion inferred for built-in kinds). */
  ownedBy(
    kind: string,
    name: string,
    opts: { apiVersion?: string; uid?: string; controller?: boolean } = {},
  ): this {
    const ref: OwnerReference = {
      apiVersion: opts.apiVersion ?? OWNER_API_VERSIONS[kind] ?? 'example.com/v1',
      kind,
      name,
      uid: opts.uid ?? uidFor(`${kind}/${this.p.metadata.namespace}/${name}`),
      controller: opts.controller ?? true,
      blockOwnerDeletion: true,
    };
    this.p.metadata.ownerReferences = [...(this.p.metadata.ownerReferences ?? []), ref];
    return this;
  }

  withPriority(priority: number, priorityClassName?: string): this {
    this.p.spec.priority = priority;
    if (priorityClassName) this.p.spec.priorityClassName = priorityClassName;
    return this;
  }

  withSchedulerName(name: string): this {
    this.p.spec.schedulerName = name;
    return this;
  }

  withServiceAccount(name: string): this {
    this.p.spec.serviceAccount = name;
    this.p.spec.serviceAccountName = name;
    return this;
  }

  /** Any other spec field, merged shallowly. */
  withSpec(spec: Partial<Pod['spec']>): this {
    this.p.spec = { ...this.p.spec, ...clone(spec) };
    return this;
  }

  private qosClass(): string {
    const all = [...this.p.spec.containers, ...(this.p.spec.initContainers ?? [])];
    const hasAny = all.some(
      (c) =>
        Object.keys(c.resources?.requests ?? {}).length > 0 ||
        Object.keys(c.resources?.limits ?? {}).length > 0,
    );
    if (!hasAny) return 'BestEffort';
    const guaranteed = all.every((c) =>
      ['cpu', 'memory'].every((r) => {
        const limit = c.resources?.limits?.[r];
        const request = c.resources?.requests?.[r] ?? limit;
        return limit !== undefined && String(limit) === String(request);
      }),
    );
    return guaranteed ? 'Guaranteed' : 'Burstable';
  }

  build(): Pod {
    const p = clone(this.p);
    const qosClass = this.qosClass();
    const t = p.metadata.creationTimestamp ?? CREATED;
    const started = t.replace(/:11Z$/, ':14Z');
    switch (this.statusKind) {
      case 'pending':
        p.status = { ...p.status, phase: 'Pending', qosClass };
        break;
      case 'unschedulable':
        p.status = {
          ...p.status,
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: this.unschedulableMessage,
              lastProbeTime: null,
              lastTransitionTime: t,
            },
          ],
          qosClass,
        };
        break;
      case 'running':
        p.status = {
          ...p.status,
          phase: 'Running',
          conditions: [
            'PodReadyToStartContainers',
            'Initialized',
            'Ready',
            'ContainersReady',
            'PodScheduled',
          ].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: started })),
          hostIP: '10.0.1.23',
          hostIPs: [{ ip: '10.0.1.23' }],
          podIP: '10.0.1.57',
          podIPs: [{ ip: '10.0.1.57' }],
          startTime: started,
          containerStatuses: p.spec.containers.map((c) => ({
            name: c.name,
            image: c.image,
            imageID: `${c.image}@sha256:${'0'.repeat(64)}`,
            containerID: `containerd://${uidFor(`${p.metadata.uid}/${c.name}`).replace(/-/g, '')}`,
            ready: true,
            restartCount: 0,
            started: true,
            state: { running: { startedAt: started } },
          })),
          qosClass,
        };
        break;
      case 'explicit':
        p.status = { ...p.status, qosClass };
        break;
    }
    return p;
  }
}

/** A Pod; defaults to namespace "default", one container "app" without resources, Pending. */
export function pod(name = 'web-0', namespace = 'default'): PodBuilder {
  return new PodBuilder(name, namespace);
}

export class NodeBuilder {
  private n: Node;

  constructor(name: string) {
    const instanceId = `i-0${uidFor(`node/${name}`).replace(/-/g, '').slice(0, 16)}`;
    this.n = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        uid: uidFor(`node/${name}`),
        resourceVersion: '2097152',
        creationTimestamp: CREATED,
        labels: {
          'beta.kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/instance-type': 'm5.xlarge',
          'beta.kubernetes.io/os': 'linux',
          'failure-domain.beta.kubernetes.io/region': regionOf(ZONE),
          'failure-domain.beta.kubernetes.io/zone': ZONE,
          'k8s.io/cloud-provider-aws': '5c1f8e2a9d3b4f6e8a7c0d1e2f3a4b5c',
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'node.kubernetes.io/instance-type': 'm5.xlarge',
          'topology.k8s.aws/zone-id': 'use1-az1',
          'topology.kubernetes.io/region': regionOf(ZONE),
          'topology.kubernetes.io/zone': ZONE,
        },
        annotations: {
          'alpha.kubernetes.io/provided-node-ip': '10.0.1.23',
          'node.alpha.kubernetes.io/ttl': '0',
          'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        },
      },
      spec: { providerID: `aws:///${ZONE}/${instanceId}` },
      status: {
        capacity: {
          cpu: '4',
          'ephemeral-storage': '83873772Ki',
          'hugepages-1Gi': '0',
          'hugepages-2Mi': '0',
          memory: '15896972Ki',
          pods: '58',
        },
        allocatable: {
          cpu: '3920m',
          'ephemeral-storage': '76224326324',
          'hugepages-1Gi': '0',
          'hugepages-2Mi': '0',
          memory: '14880140Ki',
          pods: '58',
        },
        conditions: [
          [
            'MemoryPressure',
            'False',
            'KubeletHasSufficientMemory',
            'kubelet has sufficient memory available',
          ],
          ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
          ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
          ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
        ].map(([type, status, reason, message]) => ({
          type,
          status,
          reason,
          message,
          lastHeartbeatTime: '2026-01-05T11:58:02Z',
          lastTransitionTime: CREATED,
        })),
        addresses: [
          { type: 'InternalIP', address: '10.0.1.23' },
          { type: 'InternalDNS', address: name },
          { type: 'Hostname', address: name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          architecture: 'amd64',
          bootID: uidFor(`boot/${name}`),
          containerRuntimeVersion: 'containerd://1.7.25',
          kernelVersion: '6.1.119-129.201.amzn2023.x86_64',
          kubeProxyVersion: 'v1.31.4-eks-aeac579',
          kubeletVersion: 'v1.31.4-eks-aeac579',
          machineID: uidFor(`machine/${name}`).replace(/-/g, ''),
          operatingSystem: 'linux',
          osImage: 'Amazon Linux 2023.6.20250107',
          systemUUID: uidFor(`system/${name}`),
        },
      },
    };
  }

  private get labels(): Record<string, string> {
    this.n.metadata.labels ??= {};
    return this.n.metadata.labels;
  }

  withLabels(labels: Record<string, string>): this {
    Object.assign(this.labels, labels);
    return this;
  }

  withLabel(key: string, value: string): this {
    return this.withLabels({ [key]: value });
  }

  withoutLabel(...keys: string[]): this {
    for (const k of keys) delete this.labels[k];
    return this;
  }

  withAnnotation(key: string, value: string): this {
    this.n.metadata.annotations = { ...(this.n.metadata.annotations ?? {}), [key]: value };
    return this;
  }

  /** Sets both instance-type labels. */
  withInstanceType(type: string): this {
    return this.withLabels({
      'beta.kubernetes.io/instance-type': type,
      'node.kubernetes.io/instance-type': type,
    });
  }

  /** Sets zone and region labels (GA and beta) and the providerID's zone. */
  inZone(zone: string): this {
    const region = regionOf(zone);
    this.withLabels({
      'topology.kubernetes.io/zone': zone,
      'failure-domain.beta.kubernetes.io/zone': zone,
      'topology.kubernetes.io/region': region,
      'failure-domain.beta.kubernetes.io/region': region,
    });
    const spec = (this.n.spec ??= {});
    if (spec.providerID) spec.providerID = spec.providerID.replace(/^aws:\/\/\/[^/]+\//, `aws:///${zone}/`);
    return this;
  }

  withArch(arch: 'amd64' | 'arm64'): this {
    this.withLabels({ 'kubernetes.io/arch': arch, 'beta.kubernetes.io/arch': arch });
    this.n.status!.nodeInfo!.architecture = arch;
    return this;
  }

  withProviderId(providerID: string): this {
    (this.n.spec ??= {}).providerID = providerID;
    return this;
  }

  withTaint(key: string, value?: string, effect: Taint['effect'] = 'NoSchedule'): this {
    const taint: Taint = value === undefined ? { key, effect } : { key, value, effect };
    const spec = (this.n.spec ??= {});
    spec.taints = [...(spec.taints ?? []), taint];
    return this;
  }

  withTaints(...taints: Taint[]): this {
    const spec = (this.n.spec ??= {});
    spec.taints = [...(spec.taints ?? []), ...clone(taints)];
    return this;
  }

  /** Cordoned: spec.unschedulable plus the taint the node controller adds for it. */
  unschedulable(): this {
    (this.n.spec ??= {}).unschedulable = true;
    return this.withTaints({
      key: 'node.kubernetes.io/unschedulable',
      effect: 'NoSchedule',
      timeAdded: CREATED,
    });
  }

  /** spec.unschedulable only, without the matching taint (a template node as CA builds it, or a fresh cordon). */
  withUnschedulableFlag(): this {
    (this.n.spec ??= {}).unschedulable = true;
    return this;
  }

  notReady(reason = 'KubeletNotReady', message = 'container runtime network not ready'): this {
    const ready = this.n.status!.conditions!.find((c) => c.type === 'Ready')!;
    Object.assign(ready, { status: 'False', reason, message });
    return this;
  }

  /** Merges into status.capacity. */
  withCapacity(resources: ResourceMap): this {
    this.n.status!.capacity = { ...(this.n.status!.capacity ?? {}), ...resources };
    return this;
  }

  /** Merges into status.allocatable. */
  withAllocatable(resources: ResourceMap): this {
    this.n.status!.allocatable = { ...(this.n.status!.allocatable ?? {}), ...resources };
    return this;
  }

  /** Merges the same values into capacity and allocatable (a node without reservations, like CA's AWS template). */
  withResources(resources: ResourceMap): this {
    return this.withCapacity(resources).withAllocatable(resources);
  }

  /** Removes resources from capacity and allocatable. */
  withoutResources(...names: string[]): this {
    for (const n of names) {
      delete this.n.status!.capacity?.[n];
      delete this.n.status!.allocatable?.[n];
    }
    return this;
  }

  createdAt(timestamp: string): this {
    this.n.metadata.creationTimestamp = timestamp;
    return this;
  }

  build(): Node {
    return clone(this.n);
  }
}

/** An EKS worker node: m5.xlarge in us-east-1a, Ready, allocatable cpu 3920m / memory 14880140Ki / pods 58. */
export function node(name = 'ip-10-0-1-23.ec2.internal'): NodeBuilder {
  return new NodeBuilder(name);
}

export class PvcBuilder {
  private c: PersistentVolumeClaim;

  constructor(name: string, namespace: string) {
    this.c = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name,
        namespace,
        uid: uidFor(`pvc/${namespace}/${name}`),
        resourceVersion: '3145728',
        creationTimestamp: CREATED,
        finalizers: ['kubernetes.io/pvc-protection'],
      },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '10Gi' } },
        storageClassName: 'gp3',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    };
  }

  /** null leaves the class unset (a claim created before any default class existed). */
  withStorageClass(name: string | null): this {
    if (name === null) delete this.c.spec!.storageClassName;
    else this.c.spec!.storageClassName = name;
    return this;
  }

  requesting(storage: string): this {
    this.c.spec!.resources = { requests: { storage } };
    return this;
  }

  withAccessModes(...modes: string[]): this {
    this.c.spec!.accessModes = modes;
    return this;
  }

  withAnnotation(key: string, value: string): this {
    this.c.metadata.annotations = { ...(this.c.metadata.annotations ?? {}), [key]: value };
    return this;
  }

  /** Bound as the PV controller leaves it: volumeName, bind annotations, phase Bound, capacity. */
  boundTo(pvName: string): this {
    this.c.spec!.volumeName = pvName;
    this.withAnnotation('pv.kubernetes.io/bind-completed', 'yes');
    this.withAnnotation('pv.kubernetes.io/bound-by-controller', 'yes');
    this.c.status = {
      phase: 'Bound',
      accessModes: [...(this.c.spec!.accessModes ?? [])],
      capacity: { storage: this.c.spec!.resources?.requests?.storage ?? '10Gi' },
    };
    return this;
  }

  /** spec.volumeName set by the user, binding not completed yet (a pre-bound claim). */
  preBoundTo(pvName: string): this {
    this.c.spec!.volumeName = pvName;
    return this;
  }

  /** Bound, but its PV is gone. */
  lost(): this {
    this.c.status = { ...(this.c.status ?? {}), phase: 'Lost' };
    return this;
  }

  terminating(at = '2026-01-05T12:00:00Z'): this {
    this.c.metadata.deletionTimestamp = at;
    this.c.metadata.deletionGracePeriodSeconds = 0;
    return this;
  }

  /** Created by the ephemeral volume controller for `owner` (name <pod>-<volume>). */
  ownedByPod(owner: Pod): this {
    this.c.metadata.ownerReferences = [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        name: owner.metadata.name ?? '',
        uid: owner.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    return this;
  }

  build(): PersistentVolumeClaim {
    return clone(this.c);
  }
}

/** A PersistentVolumeClaim: 10Gi ReadWriteOnce of class gp3, Pending. */
export function pvc(name = 'data-web-0', namespace = 'default'): PvcBuilder {
  return new PvcBuilder(name, namespace);
}

export class PvBuilder {
  private v: PersistentVolume;

  constructor(name: string) {
    this.v = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name,
        uid: uidFor(`pv/${name}`),
        resourceVersion: '4194304',
        creationTimestamp: CREATED,
        annotations: {
          'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com',
          'volume.kubernetes.io/provisioner-deletion-secret-name': '',
          'volume.kubernetes.io/provisioner-deletion-secret-namespace': '',
        },
        finalizers: ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection'],
      },
      spec: {
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: '10Gi' },
        csi: {
          driver: 'ebs.csi.aws.com',
          fsType: 'ext4',
          volumeAttributes: {
            'storage.kubernetes.io/csiProvisionerIdentity': '1736068811000-9012-ebs.csi.aws.com',
          },
          volumeHandle: `vol-0${uidFor(`vol/${name}`).replace(/-/g, '').slice(0, 16)}`,
        },
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: 'gp3',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Available' },
    };
  }

  withCapacity(storage: string): this {
    this.v.spec!.capacity = { storage };
    return this;
  }

  withStorageClass(name: string): this {
    this.v.spec!.storageClassName = name;
    return this;
  }

  withAccessModes(...modes: string[]): this {
    this.v.spec!.accessModes = modes;
    return this;
  }

  withLabels(labels: Record<string, string>): this {
    this.v.metadata.labels = { ...(this.v.metadata.labels ?? {}), ...labels };
    return this;
  }

  /** Required node affinity terms (ORed), replacing any existing ones. */
  withNodeAffinity(...terms: NodeSelectorTerm[]): this {
    this.v.spec!.nodeAffinity = { required: { nodeSelectorTerms: clone(terms) } };
    return this;
  }

  /** The node affinity the EBS CSI driver sets: topology.kubernetes.io/zone In [zone]. */
  inZone(zone: string): this {
    return this.withNodeAffinity(term('topology.kubernetes.io/zone', 'In', [zone]));
  }

  /** An in-tree EBS volume with the legacy zone/region labels (no node affinity), as pre-CSI clusters have. */
  inTreeInZone(zone: string): this {
    delete this.v.spec!.csi;
    delete this.v.spec!.nodeAffinity;
    this.v.spec!.awsElasticBlockStore = { volumeID: `aws://${zone}/vol-0a1b2c3d4e5f60718`, fsType: 'ext4' };
    this.v.metadata.annotations = { 'kubernetes.io/createdby': 'aws-ebs-dynamic-provisioner' };
    return this.withLabels({
      'failure-domain.beta.kubernetes.io/zone': zone,
      'failure-domain.beta.kubernetes.io/region': regionOf(zone),
    });
  }

  /** Bound to a claim (a PVC object or "namespace/name"). */
  boundTo(claim: PersistentVolumeClaim | string): this {
    const [namespace, name, uid] =
      typeof claim === 'string'
        ? [...(claim.split('/') as [string, string]), uidFor(`pvc/${claim}`)]
        : [claim.metadata.namespace ?? 'default', claim.metadata.name ?? '', claim.metadata.uid];
    this.v.spec!.claimRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name, namespace, uid };
    this.v.status = { phase: 'Bound' };
    return this;
  }

  available(): this {
    delete this.v.spec!.claimRef;
    this.v.status = { phase: 'Available' };
    return this;
  }

  build(): PersistentVolume {
    return clone(this.v);
  }
}

/** A PersistentVolume: 10Gi EBS CSI volume of class gp3, Available, no node affinity until inZone(). */
export function pv(name = 'pvc-3f9c2b1a-7d4e-4c2b-9a1f-0e8d7c6b5a49'): PvBuilder {
  return new PvBuilder(name);
}

export class StorageClassBuilder {
  private s: StorageClass;

  constructor(name: string) {
    this.s = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name, uid: uidFor(`sc/${name}`), resourceVersion: '5242880', creationTimestamp: CREATED },
      provisioner: 'ebs.csi.aws.com',
      parameters: { type: 'gp3', encrypted: 'true' },
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowVolumeExpansion: true,
    };
  }

  withProvisioner(provisioner: string): this {
    this.s.provisioner = provisioner;
    return this;
  }

  immediate(): this {
    this.s.volumeBindingMode = 'Immediate';
    return this;
  }

  waitForFirstConsumer(): this {
    this.s.volumeBindingMode = 'WaitForFirstConsumer';
    return this;
  }

  /** Adds one allowedTopologies term with a single expression (terms are ORed). */
  withAllowedTopologies(key: string, values: string[]): this {
    this.s.allowedTopologies = [
      ...(this.s.allowedTopologies ?? []),
      { matchLabelExpressions: [{ key, values: [...values] }] },
    ];
    return this;
  }

  asDefault(): this {
    this.s.metadata.annotations = {
      ...(this.s.metadata.annotations ?? {}),
      'storageclass.kubernetes.io/is-default-class': 'true',
    };
    return this;
  }

  createdAt(timestamp: string): this {
    this.s.metadata.creationTimestamp = timestamp;
    return this;
  }

  build(): StorageClass {
    return clone(this.s);
  }
}

/** A StorageClass: EBS CSI gp3, WaitForFirstConsumer, not default. */
export function storageClass(name = 'gp3'): StorageClassBuilder {
  return new StorageClassBuilder(name);
}
