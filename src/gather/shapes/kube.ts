// The Kubernetes objects casdoctor reads, as shapes: only the fields src/model/k8s.ts describes (gather/shape.ts fits them).
import type { DataKind } from '../../model/snapshot.js';
import { arr, B, isObject, N, obj, Q, quantities, S, type Shape, stringMap, strings, time } from './builders.js';

const metaFields: Record<string, Shape> = {
  name: S,
  namespace: S,
  uid: S,
  generateName: S,
  labels: stringMap,
  annotations: stringMap,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: N,
  resourceVersion: S,
  ownerReferences: arr(
    obj({ apiVersion: S, kind: S, name: S, uid: S, controller: B, blockOwnerDeletion: B }, ['kind', 'name']),
  ),
};
const objectMeta = obj(metaFields);
// The pod annotations casdoctor reads (CA's drain rules, pod filter and templates). Meshes and agents annotate every
// pod with kilobytes (sidecar status, checksums, scrape configs) that nothing here reads.
const podMeta = obj({
  ...metaFields,
  annotations: {
    record: S,
    projectKeys: new Set([
      'cluster-autoscaler.kubernetes.io/safe-to-evict',
      'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes',
      'cluster-autoscaler.kubernetes.io/daemonset-pod',
      'cluster-autoscaler.kubernetes.io/pod-scale-up-delay',
      'kubernetes.io/config.mirror',
      // Karpenter's disruption rules (kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go IsDisruptable)
      'karpenter.sh/do-not-disrupt',
    ]),
  },
});
const requirement = obj({ key: S, operator: S, values: strings }, ['key']);
const labelSelector: Shape = { nullable: obj({ matchLabels: stringMap, matchExpressions: arr(requirement) }) };
const nodeSelector = obj({ nodeSelectorTerms: arr(obj({ matchExpressions: arr(requirement), matchFields: arr(requirement) })) });
const affinityTerm = obj(
  {
    labelSelector,
    namespaceSelector: labelSelector,
    namespaces: strings,
    topologyKey: S,
    matchLabelKeys: strings,
    mismatchLabelKeys: strings,
  },
  ['topologyKey'],
);
// preferred terms are kept for Karpenter, which treats them as required until it relaxes them (preferences.go)
const podAffinity = obj({
  requiredDuringSchedulingIgnoredDuringExecution: arr(affinityTerm),
  preferredDuringSchedulingIgnoredDuringExecution: arr(obj({ weight: N, podAffinityTerm: affinityTerm }, ['podAffinityTerm'])),
});
const resources = obj({ requests: quantities, limits: quantities });
const container = obj(
  {
    name: S,
    image: S,
    resources,
    ports: arr(obj({ containerPort: N, hostPort: N, hostIP: S, protocol: S, name: S })),
    restartPolicy: S,
    args: strings,
    command: strings,
    env: arr(obj({ name: S, value: S })),
    volumeMounts: arr(obj({ name: S, mountPath: S, subPath: S, readOnly: B })),
  },
  ['name'],
);
// A running pod's containers: what scheduling and draining read. The CA's image, command, args and env are read from
// its Deployment (a workload), never from its pods.
const podContainer = obj(
  {
    name: S,
    resources,
    ports: arr(obj({ containerPort: N, hostPort: N, hostIP: S, protocol: S, name: S })),
    restartPolicy: S,
  },
  ['name'],
);
// A workload's volumes also keep their ConfigMaps and its containers their volumeMounts: where CA's --cloud-config and
// the externalgrpc provider's --nodegroup-config come from (providers/externalgrpc/deployment.ts mountedConfigMapRef)
const podSpecWith = (container: Shape, configMapVolumes = false) => obj({
  nodeName: S,
  nodeSelector: stringMap,
  affinity: obj({
    // preferred terms are kept for Karpenter, which requires the heaviest one first and relaxes it on failure (preferences.go)
    nodeAffinity: obj({
      requiredDuringSchedulingIgnoredDuringExecution: nodeSelector,
      preferredDuringSchedulingIgnoredDuringExecution: arr(obj({ weight: N, preference: obj({ matchExpressions: arr(requirement), matchFields: arr(requirement) }) })),
    }),
    podAffinity,
    podAntiAffinity: podAffinity,
  }),
  tolerations: arr(obj({ key: S, operator: S, value: S, effect: S, tolerationSeconds: N })),
  containers: arr(container),
  initContainers: arr(container),
  ephemeralContainers: arr(container),
  overhead: quantities,
  volumes: {
    array: obj(
      {
        name: S,
        persistentVolumeClaim: obj({ claimName: S, readOnly: B }, ['claimName']),
        emptyDir: obj({ medium: S, sizeLimit: Q }),
        hostPath: obj({ path: S, type: S }),
        ephemeral: obj({}),
        ...(configMapVolumes ? { configMap: obj({ name: S, items: arr(obj({ key: S, path: S })) }) } : {}),
      },
      ['name'],
    ),
    // only these kinds of volume are read (claims, local storage; a workload's ConfigMaps); a projected token is not
    projectOnly: (v) =>
      isObject(v) &&
      (v.persistentVolumeClaim !== undefined ||
        v.emptyDir !== undefined ||
        v.hostPath !== undefined ||
        v.ephemeral !== undefined ||
        (configMapVolumes && v.configMap !== undefined)),
  },
  priority: N,
  priorityClassName: S,
  schedulerName: S,
  topologySpreadConstraints: arr(
    obj(
      {
        maxSkew: N,
        topologyKey: S,
        whenUnsatisfiable: S,
        labelSelector,
        minDomains: N,
        nodeAffinityPolicy: S,
        nodeTaintsPolicy: S,
        matchLabelKeys: strings,
      },
      ['topologyKey'],
    ),
  ),
  restartPolicy: S,
  terminationGracePeriodSeconds: N,
  hostNetwork: B,
  serviceAccountName: S,
  serviceAccount: S, // deprecated alias, read when serviceAccountName is absent
  preemptionPolicy: S, // CA adds preempting system-node-critical DaemonSet pods to templates
  schedulingGates: arr(obj({ name: S })),
  resources,
});
const condition = obj(
  { type: S, status: S, reason: S, message: S, lastTransitionTime: time, lastProbeTime: time, lastHeartbeatTime: time },
  ['type'],
);
const objectReference = obj({ kind: S, namespace: S, name: S, uid: S, apiVersion: S, fieldPath: S });
const workload = obj({
  metadata: objectMeta,
  spec: obj({ replicas: N, selector: labelSelector, template: obj({ metadata: objectMeta, spec: podSpecWith(container, true) }) }),
});

const terminated = obj({ reason: S, exitCode: N, finishedAt: time, message: S });
/**
 * Container statuses are read of CA's own container only (found by its image): its start (scale-down timers restart
 * with CA) and its readiness, restarts and last termination (CA's pod health, src/simulate/ca-health.ts).
 */
const containerStatuses: Shape = {
  array: obj({
    name: S,
    ready: B,
    restartCount: N,
    state: obj({ running: obj({ startedAt: time }), waiting: obj({ reason: S, message: S }), terminated }),
    lastState: obj({ terminated }),
  }),
};
const caContainerStatuses: Shape = {
  ...containerStatuses,
  projectOnly: (c) => isObject(c) && typeof c.image === 'string' && c.image.includes('cluster-autoscaler'),
} as Shape;

/**
 * A pod already on a node, as `why-pending` reads it: only as the scheduler sees pods that are placed (requests, host
 * ports, labels and required pod (anti-)affinity for the incoming pod's inter-pod affinity and topology spread) and as
 * CA copies them into a real node's template. Its tolerations, node affinity, volumes and conditions decided where it
 * went, not where a Pending pod can go: at 100k pods they were a third of the load time (DaemonSet pods carry eight
 * tolerations and a node affinity each).
 */
export const assignedPodForWhyPending = obj(
  {
    metadata: podMeta,
    spec: obj({
      nodeName: S,
      affinity: obj({ podAffinity, podAntiAffinity: podAffinity }),
      containers: arr(podContainer),
      initContainers: arr(podContainer),
      ephemeralContainers: arr(podContainer),
      overhead: quantities,
      priority: N,
      priorityClassName: S,
      preemptionPolicy: S,
      schedulerName: S,
      restartPolicy: S,
      terminationGracePeriodSeconds: N,
      hostNetwork: B,
      serviceAccountName: S,
      serviceAccount: S,
      resources,
    }),
    status: obj({ phase: S, nominatedNodeName: S, startTime: time, containerStatuses: caContainerStatuses }),
  },
  ['spec'],
);


export const KUBE_SHAPES: Partial<Record<DataKind, Shape>> = {
  pods: obj(
    {
      metadata: podMeta,
      spec: podSpecWith(podContainer),
      status: obj({
        phase: S,
        // of a pod's conditions casdoctor reads only PodScheduled (CA's pod filter) and Ready (CA's own pods' health):
        // the others, with their timestamps, were a sixth of a projected pod
        conditions: {
          array: condition,
          projectOnly: (c) => isObject(c) && (c.type === 'PodScheduled' || c.type === 'Ready'),
        },
        nominatedNodeName: S,
        startTime: time,
        containerStatuses: caContainerStatuses,
      }),
    },
    ['spec'],
  ),
  nodes: obj({
    metadata: objectMeta,
    spec: obj({
      providerID: S,
      unschedulable: B,
      taints: arr(obj({ key: S, value: S, effect: S, timeAdded: time }, ['key'])),
    }),
    status: obj({
      capacity: quantities,
      allocatable: quantities,
      conditions: arr(condition),
      nodeInfo: obj({ kubeletVersion: S, architecture: S, operatingSystem: S }),
      addresses: arr(obj({ type: S, address: S })),
    }),
  }),
  events: obj({
    metadata: objectMeta,
    involvedObject: objectReference,
    reason: S,
    message: S,
    type: S,
    count: N,
    firstTimestamp: time,
    lastTimestamp: time,
    eventTime: time,
    source: obj({ component: S, host: S }),
    reportingComponent: S,
    series: obj({ count: N, lastObservedTime: time }),
  }),
  pdbs: obj({
    metadata: objectMeta,
    spec: obj({
      selector: labelSelector,
      minAvailable: 'int-or-string',
      maxUnavailable: 'int-or-string',
      unhealthyPodEvictionPolicy: S,
    }),
    status: obj({ disruptionsAllowed: N, currentHealthy: N, desiredHealthy: N, expectedPods: N }),
  }),
  pvcs: obj({
    metadata: objectMeta,
    spec: obj({
      storageClassName: { nullable: S },
      volumeName: S,
      accessModes: strings,
      volumeMode: S,
      selector: labelSelector,
      resources,
    }),
    status: obj({ phase: S }),
  }),
  pvs: obj({
    metadata: objectMeta,
    spec: obj({
      capacity: quantities,
      accessModes: strings,
      volumeMode: S,
      claimRef: objectReference,
      storageClassName: S,
      nodeAffinity: obj({ required: nodeSelector }),
      csi: obj({ driver: S, volumeHandle: S }),
      awsElasticBlockStore: obj({ volumeID: S }),
    }),
    status: obj({ phase: S }),
  }),
  storageClasses: obj({
    metadata: objectMeta,
    provisioner: S,
    volumeBindingMode: S,
    allowedTopologies: arr(obj({ matchLabelExpressions: arr(obj({ key: S, values: strings }, ['key'])) })),
    parameters: stringMap,
  }),
  replicaSets: workload,
  replicationControllers: workload,
  deployments: workload,
  statefulSets: workload,
  daemonSets: workload,
  jobs: workload,
  priorityClasses: obj({ metadata: objectMeta, value: N, globalDefault: B, preemptionPolicy: S }),
  configMaps: obj({ metadata: objectMeta, data: stringMap }),
  serviceAccounts: obj({ metadata: objectMeta }),
};
