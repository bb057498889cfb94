// The shape of what casdoctor reads from a dump, checked once at the edge (the offline loader). A hand-edited or
// truncated-and-repaired file can carry a number where a list belongs or a null inside a list; such a value is dropped
// (as if the field were absent) and reported as a warning, so the analysis only ever sees the types the API defines.
// Only the fields casdoctor reads are described (src/model/k8s.ts, aws.ts). By default every other field is left
// untouched; with `project`, a Kubernetes object is copied with only the described fields: a pod as kubectl prints it
// is ~10 KB, of which casdoctor reads a fifth, and at 100k pods the rest was half the heap and most of the GC time.
import type { DataKind } from '../model/snapshot.js';

type Shape =
  | 'string'
  | 'number'
  | 'boolean'
  | 'quantity'
  | 'int-or-string'
  | 'time'
  | { nullable: Shape }
  | { array: Shape; projectOnly?: (entry: unknown) => boolean }
  | { record: Shape; projectKeys?: ReadonlySet<string> }
  | { object: Record<string, Shape>; required?: readonly string[] };

const S = 'string';
const N = 'number';
const B = 'boolean';
const Q = 'quantity';
const time: Shape = { nullable: 'time' };
const strings: Shape = { array: S };
const stringMap: Shape = { record: S };
const quantities: Shape = { record: Q };
const obj = (fields: Record<string, Shape>, required?: readonly string[]): Shape => ({ object: fields, required });
const arr = (of: Shape): Shape => ({ array: of });

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
const assignedPodForWhyPending = obj(
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

/** What a command reads: 'read' is every command's fields; 'why-pending' cuts pods already on a node further. */
export type FieldProfile = 'read' | 'why-pending';

const KUBE_SHAPES: Partial<Record<DataKind, Shape>> = {
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

const minMax = obj({ Min: N, Max: N });
const instanceRequirements = obj({
  VCpuCount: minMax,
  MemoryMiB: minMax,
  AcceleratorCount: minMax,
  AcceleratorManufacturers: strings,
  AcceleratorTypes: strings,
});
const templateSpec = obj({ LaunchTemplateId: S, LaunchTemplateName: S, Version: S });

const AWS_SHAPES: Partial<Record<DataKind, Shape>> = {
  autoScalingGroups: obj(
    {
      AutoScalingGroupName: S,
      AutoScalingGroupARN: S,
      LaunchConfigurationName: S,
      LaunchTemplate: templateSpec,
      MixedInstancesPolicy: obj({
        LaunchTemplate: obj({
          LaunchTemplateSpecification: templateSpec,
          Overrides: arr(
            obj({
              InstanceType: S,
              WeightedCapacity: S,
              InstanceRequirements: instanceRequirements,
              LaunchTemplateSpecification: templateSpec,
            }),
          ),
        }),
        InstancesDistribution: obj({}),
      }),
      MinSize: N,
      MaxSize: N,
      DesiredCapacity: N,
      AvailabilityZones: strings,
      Instances: arr(
        obj(
          {
            InstanceId: S,
            InstanceType: S,
            AvailabilityZone: S,
            LifecycleState: S,
            HealthStatus: S,
            LaunchTemplate: templateSpec,
            LaunchConfigurationName: S,
            ProtectedFromScaleIn: B,
          },
          ['InstanceId'],
        ),
      ),
      Tags: arr(obj({ Key: S, Value: S, ResourceId: S, ResourceType: S, PropagateAtLaunch: B }, ['Key'])),
      SuspendedProcesses: arr(obj({ ProcessName: S, SuspensionReason: S }, ['ProcessName'])),
      CreatedTime: 'time',
      Status: S,
      VPCZoneIdentifier: S,
    },
    ['AutoScalingGroupName'],
  ),
  launchTemplateVersions: obj({
    LaunchTemplateId: S,
    LaunchTemplateName: S,
    VersionNumber: N,
    DefaultVersion: B,
    CreateTime: 'time',
    LaunchTemplateData: obj({
      InstanceType: S,
      ImageId: S,
      InstanceRequirements: instanceRequirements,
      TagSpecifications: arr(obj({ ResourceType: S, Tags: arr(obj({ Key: S, Value: S }, ['Key'])) })),
      UserData: S,
    }),
  }),
  launchConfigurations: obj({ LaunchConfigurationName: S, InstanceType: S, ImageId: S }, ['LaunchConfigurationName']),
  instanceTypes: obj(
    {
      InstanceType: S,
      VCpuInfo: obj({ DefaultVCpus: N }),
      MemoryInfo: obj({ SizeInMiB: N }),
      GpuInfo: obj({ Gpus: arr(obj({ Count: N, Manufacturer: S, Name: S })) }),
      ProcessorInfo: obj({ SupportedArchitectures: strings }),
    },
    ['InstanceType'],
  ),
  instanceTypesFromRequirements: obj({ InstanceType: S }, ['InstanceType']),
  images: obj({ ImageId: S, Architecture: S, Name: S, VirtualizationType: S }, ['ImageId']),
  scalingActivities: obj({
    ActivityId: S,
    AutoScalingGroupName: S,
    Description: S,
    Cause: S,
    StartTime: 'time',
    EndTime: 'time',
    StatusCode: S,
    StatusMessage: S,
    Progress: N,
  }),
  iamEvaluationResults: obj(
    {
      EvalActionName: S,
      EvalResourceName: S,
      EvalDecision: S,
      MatchedStatements: arr(obj({ SourcePolicyId: S, SourcePolicyType: S })),
      MissingContextValues: strings,
    },
    ['EvalActionName'],
  ),
  eksNodegroups: obj(
    {
      nodegroupName: S,
      clusterName: S,
      nodegroupArn: S,
      labels: stringMap,
      taints: arr(obj({ key: S, value: S, effect: S })),
      capacityType: S,
      amiType: S,
      diskSize: N,
      version: S,
      instanceTypes: strings,
      scalingConfig: obj({ minSize: N, maxSize: N, desiredSize: N }),
      resources: obj({ autoScalingGroups: arr(obj({ name: S }, ['name'])) }),
      tags: stringMap,
    },
    ['nodegroupName'],
  ),
};

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const DROP = Symbol('drop');
/** A projected record none of whose kept keys is present: left out, without a warning. */
const OMIT = Symbol('omit');

function describe(shape: Shape): string {
  if (shape === 'time') return 'an RFC 3339 time with a 4-digit year';
  if (typeof shape === 'string') return shape === 'int-or-string' ? 'an integer or a string' : `a ${shape}`;
  if ('nullable' in shape) return describe(shape.nullable);
  if ('array' in shape) return 'a list';
  return 'an object';
}

// Where fit() is, kept as a stack and turned into "spec.containers[0].ports" only when a problem is reported: building
// that string for every field of every object was most of the loader's time at 100k pods.
const KEYS: Array<string | number> = [];
const STEPS: number[] = []; // 0: an object member, 1: a record entry, 2: a list index

function here(base: string): string {
  let out = base;
  for (let i = 0; i < KEYS.length; i++) {
    const k = KEYS[i];
    out = STEPS[i] === 2 ? `${out}[${k}]` : STEPS[i] === 1 ? `${out}.${k}` : out ? `${out}.${k}` : String(k);
  }
  return out;
}

// Go's time.Time marshals only years 0000-9999 (RFC 3339), so an API server or aws-cli never prints another; a year
// near JavaScript's limit (+275760) turned into an Invalid Date later and crashed a report.
const TIME_RE = /^\d{4}-\d\d-\d\d(?:[Tt ]|$)/;
// A pattern, not Date.parse: ten timestamps a pod at 100k pods made Date.parse a visible share of the load time.
function isTime(v: string): boolean {
  return v === '' || TIME_RE.test(v);
}

function bad(v: unknown, shape: Shape, base: string, problems: string[]): typeof DROP {
  const got =
    v === null
      ? 'null'
      : Array.isArray(v)
        ? 'a list'
        : shape === 'time' && typeof v === 'string'
          ? JSON.stringify(v.slice(0, 40))
          : typeof v;
  problems.push(`${here(base)}: expected ${describe(shape)}, got ${got}`);
  return DROP;
}

// Set by fitToShape for the one call: copy only the described fields instead of fitting in place.
let PROJECT = false;

const members = new WeakMap<Record<string, Shape>, Array<[string, Shape]>>();
const fieldMaps = new WeakMap<Record<string, Shape>, Map<string, Shape>>();
function fieldMapOf(fields: Record<string, Shape>): Map<string, Shape> {
  let m = fieldMaps.get(fields);
  if (!m) fieldMaps.set(fields, (m = new Map(Object.entries(fields))));
  return m;
}

function membersOf(fields: Record<string, Shape>): Array<[string, Shape]> {
  let m = members.get(fields);
  if (!m) members.set(fields, (m = Object.entries(fields)));
  return m;
}

/**
 * The value fitted to the shape, or DROP; `problems` gets "path: expected ..., got ..." for what was dropped. Fits in
 * place: a list is copied only when an entry is dropped.
 */
function fit(v: unknown, shape: Shape, base: string, problems: string[]): unknown {
  if (typeof shape === 'string') {
    switch (shape) {
      case 'string':
        return typeof v === 'string' ? v : bad(v, shape, base, problems);
      case 'boolean':
        return typeof v === 'boolean' ? v : bad(v, shape, base, problems);
      case 'number':
        return typeof v === 'number' && Number.isFinite(v) ? v : bad(v, shape, base, problems);
      case 'time':
        return typeof v === 'string' && isTime(v) ? v : bad(v, shape, base, problems);
      case 'quantity':
      case 'int-or-string':
        return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
          ? v
          : bad(v, shape, base, problems);
    }
  }
  if ('nullable' in shape) return v === null ? null : fit(v, shape.nullable, base, problems);
  if ('array' in shape) {
    if (!Array.isArray(v)) return bad(v, shape, base, problems);
    if (PROJECT) {
      const out: unknown[] = [];
      const only = shape.projectOnly;
      for (let i = 0; i < v.length; i++) {
        if (only && !only(v[i])) continue;
        KEYS.push(i);
        STEPS.push(2);
        const y = fit(v[i], shape.array, base, problems);
        KEYS.pop();
        STEPS.pop();
        if (y !== DROP) out.push(y);
      }
      return out;
    }
    let kept: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      KEYS.push(i);
      STEPS.push(2);
      const y = fit(v[i], shape.array, base, problems);
      KEYS.pop();
      STEPS.pop();
      if (y === DROP) kept ??= v.slice(0, i);
      else if (kept) kept.push(y);
      else if (y !== v[i]) v[i] = y;
    }
    return kept ?? v;
  }
  if ('record' in shape) {
    if (!isObject(v)) return bad(v, shape, base, problems);
    const keys = shape.projectKeys;
    if (PROJECT && keys) {
      let out: Record<string, unknown> | undefined;
      for (const k in v) {
        if (!keys.has(k)) continue;
        KEYS.push(k);
        STEPS.push(1);
        const y = fit(v[k], shape.record, base, problems);
        KEYS.pop();
        STEPS.pop();
        if (y !== DROP) (out ??= {})[k] = y;
      }
      return out ?? OMIT;
    }
    for (const k of Object.keys(v)) {
      KEYS.push(k);
      STEPS.push(1);
      const y = fit(v[k], shape.record, base, problems);
      KEYS.pop();
      STEPS.pop();
      if (y === DROP) delete v[k];
      else if (y !== v[k]) v[k] = y;
    }
    return v;
  }
  if (!isObject(v)) return bad(v, shape, base, problems);
  const fields = membersOf(shape.object);
  // An object whose content is not described (a generic ephemeral volume) is kept whole: only its presence is read.
  if (PROJECT && fields.length > 0) {
    const described = fieldMapOf(shape.object);
    const out: Record<string, unknown> = {};
    // in the object's own key order, so what is printed from it (a pod's tolerations as evidence) reads the same
    for (const k in v) {
      const s = described.get(k);
      const x = v[k];
      if (s === undefined || x === undefined) continue;
      KEYS.push(k);
      STEPS.push(0);
      const y = fit(x, s, base, problems);
      KEYS.pop();
      STEPS.pop();
      if (y !== DROP && y !== OMIT) out[k] = y;
    }
    return missingRequired(out, shape.required, base, problems) ? DROP : out;
  }
  for (const [k, s] of fields) {
    if (!Object.hasOwn(v, k) || v[k] === undefined) continue;
    KEYS.push(k);
    STEPS.push(0);
    const y = fit(v[k], s, base, problems);
    KEYS.pop();
    STEPS.pop();
    if (y === DROP) delete v[k];
    else if (y !== v[k]) v[k] = y;
  }
  return missingRequired(v, shape.required, base, problems) ? DROP : v;
}

function missingRequired(
  v: Record<string, unknown>,
  required: readonly string[] | undefined,
  base: string,
  problems: string[],
): boolean {
  for (const k of required ?? []) {
    if (!Object.hasOwn(v, k)) {
      const path = here(base);
      problems.push(`${path ? `${path}: ` : ''}no valid ${k}; ignored`);
      return true;
    }
  }
  return false;
}

/**
 * Fits one object of a dump to the shape casdoctor reads: wrong-typed fields are removed, list entries of the wrong type
 * dropped. Returns the object (the same one, fitted in place; with `project`, a copy of a Kubernetes object holding only
 * the fields casdoctor reads, plus apiVersion and kind), or undefined when it is unusable (an ASG without a name, a Pod
 * without a spec). `problems` collects what was removed, for a warning. AWS outputs are never projected: they are small.
 */
export function fitToShape<T extends Record<string, unknown>>(
  kind: DataKind,
  value: T,
  problems: string[],
  at = '',
  project = false,
  profile: FieldProfile = 'read',
): T | undefined {
  const assigned =
    project &&
    profile === 'why-pending' &&
    kind === 'pods' &&
    isObject(value.spec) &&
    typeof value.spec.nodeName === 'string' &&
    value.spec.nodeName !== '';
  const kube = assigned ? assignedPodForWhyPending : KUBE_SHAPES[kind];
  const shape = kube ?? AWS_SHAPES[kind];
  if (!shape) return value;
  KEYS.length = 0;
  STEPS.length = 0;
  PROJECT = project && kube !== undefined;
  let fitted: unknown;
  try {
    fitted = fit(value, shape, at, problems);
  } finally {
    PROJECT = false;
  }
  if (fitted === DROP) return undefined;
  let out = fitted as Record<string, unknown>;
  if (out !== value) {
    const head: Record<string, unknown> = {};
    if (value.apiVersion !== undefined) head.apiVersion = value.apiVersion;
    if (value.kind !== undefined) head.kind = value.kind;
    out = Object.assign(head, out);
  }
  // A Pod's containers are required by the API; an absent list is read as empty rather than crash on it.
  if (kind === 'pods' && isObject(out.spec) && !Array.isArray(out.spec.containers)) out.spec.containers = [];
  return out as T;
}
