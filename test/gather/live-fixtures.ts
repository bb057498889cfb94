// A small but realistic EKS cluster and its AWS side, in the exact shapes `kubectl get -o json` and
// `aws ... --output json` print, for the live-gather tests (served by test/servers/*).
import type {
  AutoScalingGroup,
  Ec2Image,
  Ec2InstanceTypeInfo,
  EksNodegroup,
  IamEvaluationResult,
  LaunchConfiguration,
  LaunchTemplateVersion,
  ScalingActivity,
} from '../../src/model/aws.js';
import type { ConfigMap, KubeEvent, KubeObject, Node, Pod } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';

const ACCOUNT = '111122223333';
const CLUSTER = 'demo';

function node(
  name: string,
  zone: string,
  type: string,
  nodegroup: string,
  instanceId: string,
  extra: Partial<Node['spec']> = {},
): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `6f0c${instanceId.slice(-8)}-1b2c-4d3e-8f4a-5b6c7d8e9f00`,
      resourceVersion: '918273',
      creationTimestamp: '2026-11-20T08:14:05Z',
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/instance-type': type,
        'beta.kubernetes.io/os': 'linux',
        'eks.amazonaws.com/capacityType': 'ON_DEMAND',
        'eks.amazonaws.com/nodegroup': nodegroup,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': type,
        'topology.kubernetes.io/region': 'us-east-1',
        'topology.kubernetes.io/zone': zone,
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { providerID: `aws:///${zone}/${instanceId}`, ...extra },
    status: {
      capacity: {
        cpu: '2',
        'ephemeral-storage': '20959212Ki',
        'hugepages-2Mi': '0',
        memory: '7869320Ki',
        pods: '29',
      },
      allocatable: {
        cpu: '1930m',
        'ephemeral-storage': '18242267924',
        'hugepages-2Mi': '0',
        memory: '7179144Ki',
        pods: '29',
      },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: '2026-11-21T10:02:11Z',
          lastTransitionTime: '2026-11-20T08:14:36Z',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
        },
      ],
      nodeInfo: {
        architecture: 'amd64',
        kubeletVersion: 'v1.31.3-eks-59bf375',
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.6.20241121',
        containerRuntimeVersion: 'containerd://1.7.23',
      },
    },
  };
}

function pod(
  ns: string,
  name: string,
  nodeName: string | undefined,
  owner: { kind: string; name: string } | undefined,
  cpu = '250m',
  memory = '256Mi',
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      uid: `a1b2c3d4-${name.length.toString(16).padStart(4, '0')}-4e5f-8a9b-${Buffer.from(name).toString('hex').slice(0, 12).padEnd(12, '0')}`,
      resourceVersion: '918300',
      creationTimestamp: '2026-11-21T09:58:12Z',
      labels: { app: name.split('-')[0] },
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: owner.kind,
                name: owner.name,
                uid: '0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      containers: [
        {
          name: 'main',
          image: `123456789012.dkr.ecr.us-east-1.amazonaws.com/${name.split('-')[0]}:1.4.2`,
          resources: { requests: { cpu, memory }, limits: { memory } },
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      schedulerName: 'default-scheduler',
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
      ...(nodeName ? { nodeName } : {}),
    },
    status: nodeName
      ? {
          phase: 'Running',
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              lastProbeTime: null,
              lastTransitionTime: '2026-11-21T09:58:20Z',
            },
          ],
          hostIP: '10.0.1.23',
          podIP: '10.0.1.77',
          qosClass: 'Burstable',
          startTime: '2026-11-21T09:58:12Z',
        }
      : {
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              lastProbeTime: null,
              lastTransitionTime: '2026-11-21T09:58:12Z',
              reason: 'Unschedulable',
              message:
                '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
            },
          ],
          qosClass: 'Burstable',
        },
  };
}

function obj(
  apiVersion: string,
  kind: string,
  ns: string | undefined,
  name: string,
  rest: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      ...(ns ? { namespace: ns } : {}),
      uid: `5e4d3c2b-1a0f-4e9d-8c7b-${Buffer.from(`${kind}${name}`).toString('hex').slice(0, 12).padEnd(12, '0')}`,
      resourceVersion: '71234',
      creationTimestamp: '2026-10-02T12:00:00Z',
    },
    ...rest,
  };
}

export function kubeFixture(): Partial<RawInputs> {
  const nodes = [
    node('ip-10-0-1-23.ec2.internal', 'us-east-1a', 'm5.large', 'ng-general', 'i-0a1b2c3d4e5f60001'),
    node('ip-10-0-2-41.ec2.internal', 'us-east-1b', 'm5.large', 'ng-general', 'i-0a1b2c3d4e5f60002'),
    node('ip-10-0-3-17.ec2.internal', 'us-east-1c', 'm5.xlarge', 'ng-spot', 'i-0a1b2c3d4e5f60003', {
      taints: [{ key: 'spot', value: 'true', effect: 'NoSchedule' }],
    }),
  ];
  const pods = [
    pod(
      'kube-system',
      'cluster-autoscaler-6d9f7c8b5-h2x4k',
      nodes[0].metadata.name,
      { kind: 'ReplicaSet', name: 'cluster-autoscaler-6d9f7c8b5' },
      '100m',
      '600Mi',
    ),
    pod(
      'kube-system',
      'coredns-789f8477df-7wq2l',
      nodes[1].metadata.name,
      { kind: 'ReplicaSet', name: 'coredns-789f8477df' },
      '100m',
      '70Mi',
    ),
    pod(
      'kube-system',
      'aws-node-5x7kd',
      nodes[0].metadata.name,
      { kind: 'DaemonSet', name: 'aws-node' },
      '25m',
      '64Mi',
    ),
    pod(
      'kube-system',
      'aws-node-9mfzq',
      nodes[1].metadata.name,
      { kind: 'DaemonSet', name: 'aws-node' },
      '25m',
      '64Mi',
    ),
    pod(
      'payments',
      'api-7f9c8d6b5-x2x7q',
      undefined,
      { kind: 'ReplicaSet', name: 'api-7f9c8d6b5' },
      '1500m',
      '2Gi',
    ),
    pod(
      'payments',
      'api-7f9c8d6b5-q8r2m',
      nodes[0].metadata.name,
      { kind: 'ReplicaSet', name: 'api-7f9c8d6b5' },
      '1500m',
      '2Gi',
    ),
    pod(
      'payments',
      'ledger-0',
      nodes[1].metadata.name,
      { kind: 'StatefulSet', name: 'ledger' },
      '500m',
      '1Gi',
    ),
    pod('batch', 'nightly-report-29123840-7xkq2', nodes[2].metadata.name, {
      kind: 'Job',
      name: 'nightly-report-29123840',
    }),
  ];
  const events: KubeEvent[] = [
    {
      ...obj('v1', 'Event', 'payments', 'api-7f9c8d6b5-x2x7q.1809a5c7b1e2f3d4'),
      involvedObject: {
        kind: 'Pod',
        namespace: 'payments',
        name: 'api-7f9c8d6b5-x2x7q',
        uid: pods[4].metadata.uid,
        apiVersion: 'v1',
        resourceVersion: '918300',
      } as KubeEvent['involvedObject'],
      reason: 'FailedScheduling',
      message:
        '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: 'Warning',
      eventTime: '2026-11-21T09:58:12.482915Z',
      action: 'Scheduling',
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-ip-10-0-1-23',
    },
    {
      ...obj('v1', 'Event', 'payments', 'api-7f9c8d6b5-x2x7q.1809a5c9d0e1f2a3'),
      involvedObject: {
        kind: 'Pod',
        namespace: 'payments',
        name: 'api-7f9c8d6b5-x2x7q',
        uid: pods[4].metadata.uid,
        apiVersion: 'v1',
        resourceVersion: '918300',
      } as KubeEvent['involvedObject'],
      reason: 'NotTriggerScaleUp',
      message:
        "pod didn't trigger scale-up: 1 max node group size reached, 1 node(s) had untolerated taint {spot: true}",
      source: { component: 'cluster-autoscaler' },
      firstTimestamp: '2026-11-21T09:58:22Z',
      lastTimestamp: '2026-11-21T10:01:42Z',
      count: 21,
      type: 'Normal',
      eventTime: null,
      reportingComponent: 'cluster-autoscaler',
      reportingInstance: '',
    },
    {
      ...obj('v1', 'Event', 'kube-system', 'coredns-789f8477df-7wq2l.1809a1a2b3c4d5e6'),
      involvedObject: {
        kind: 'Pod',
        namespace: 'kube-system',
        name: 'coredns-789f8477df-7wq2l',
        apiVersion: 'v1',
      },
      reason: 'Pulled',
      message:
        'Container image "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/coredns:v1.11.3-eksbuild.2" already present on machine',
      source: { component: 'kubelet', host: nodes[1].metadata.name },
      firstTimestamp: '2026-11-21T09:40:00Z',
      lastTimestamp: '2026-11-21T09:40:00Z',
      count: 1,
      type: 'Normal',
      eventTime: null,
    },
  ];
  const statusCm: ConfigMap = {
    ...obj('v1', 'ConfigMap', 'kube-system', 'cluster-autoscaler-status'),
    data: {
      status:
        'time: 2026-11-21 10:02:01.123456789 +0000 UTC\nautoscalerStatus: Running\nclusterWide:\n  health:\n    status: Healthy\n    nodeCounts:\n      registered:\n        total: 3\n        ready: 3\n',
    },
  };
  statusCm.metadata.annotations = {
    'cluster-autoscaler.kubernetes.io/last-updated': '2026-11-21 10:02:01.123456789 +0000 UTC',
  };
  const secretLike: ConfigMap = {
    ...obj('v1', 'ConfigMap', 'payments', 'api-config'),
    data: { DATABASE_URL: 'postgres://api:hunter2@db.internal/api' },
  };
  const deploy = (ns: string, name: string, replicas: number, image: string) =>
    obj('apps/v1', 'Deployment', ns, name, {
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'main', image, resources: { requests: { cpu: '100m' } } }] },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      },
      status: { replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration: 3 },
    });
  const ca = deploy(
    'kube-system',
    'cluster-autoscaler',
    1,
    'registry.k8s.io/autoscaling/cluster-autoscaler:v1.31.1',
  );
  (
    ca.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }
  ).template.spec.containers[0].command = [
    './cluster-autoscaler',
    '--cloud-provider=aws',
    '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/demo',
    '--expander=least-waste',
    '--balance-similar-node-groups',
  ];
  return {
    nodes,
    pods,
    events,
    pdbs: [
      obj('policy/v1', 'PodDisruptionBudget', 'payments', 'api', {
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'api' } } },
        status: {
          currentHealthy: 1,
          desiredHealthy: 2,
          disruptionsAllowed: 0,
          expectedPods: 2,
          observedGeneration: 1,
        },
      }),
    ],
    pvcs: [
      obj('v1', 'PersistentVolumeClaim', 'payments', 'data-ledger-0', {
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '20Gi' } },
          storageClassName: 'gp3',
          volumeMode: 'Filesystem',
          volumeName: 'pvc-3f2e1d0c-9b8a-4c7d-8e6f-5a4b3c2d1e0f',
        },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '20Gi' } },
      }),
    ],
    pvs: [
      obj('v1', 'PersistentVolume', undefined, 'pvc-3f2e1d0c-9b8a-4c7d-8e6f-5a4b3c2d1e0f', {
        spec: {
          accessModes: ['ReadWriteOnce'],
          capacity: { storage: '20Gi' },
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            name: 'data-ledger-0',
            namespace: 'payments',
          },
          csi: { driver: 'ebs.csi.aws.com', fsType: 'ext4', volumeHandle: 'vol-0123456789abcdef0' },
          nodeAffinity: {
            required: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] },
                  ],
                },
              ],
            },
          },
          persistentVolumeReclaimPolicy: 'Delete',
          storageClassName: 'gp3',
          volumeMode: 'Filesystem',
        },
        status: { phase: 'Bound' },
      }),
    ],
    storageClasses: [
      {
        ...obj('storage.k8s.io/v1', 'StorageClass', undefined, 'gp3'),
        provisioner: 'ebs.csi.aws.com',
        parameters: { type: 'gp3' },
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowVolumeExpansion: true,
      },
    ],
    replicaSets: [
      obj('apps/v1', 'ReplicaSet', 'payments', 'api-7f9c8d6b5', {
        spec: { replicas: 2, selector: { matchLabels: { app: 'api', 'pod-template-hash': '7f9c8d6b5' } } },
        status: { replicas: 2, readyReplicas: 1, availableReplicas: 1 },
      }),
      obj('apps/v1', 'ReplicaSet', 'kube-system', 'cluster-autoscaler-6d9f7c8b5', {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'cluster-autoscaler', 'pod-template-hash': '6d9f7c8b5' } },
        },
        status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
      }),
    ],
    replicationControllers: [
      obj('v1', 'ReplicationController', 'payments', 'legacy-reports', {
        spec: { replicas: 1, selector: { app: 'legacy-reports' } },
        status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
      }),
    ],
    deployments: [ca, deploy('payments', 'api', 2, '123456789012.dkr.ecr.us-east-1.amazonaws.com/api:1.4.2')],
    statefulSets: [
      obj('apps/v1', 'StatefulSet', 'payments', 'ledger', {
        spec: { replicas: 1, serviceName: 'ledger', selector: { matchLabels: { app: 'ledger' } } },
        status: { replicas: 1, readyReplicas: 1 },
      }),
    ],
    daemonSets: [
      obj('apps/v1', 'DaemonSet', 'kube-system', 'aws-node', {
        spec: { selector: { matchLabels: { 'k8s-app': 'aws-node' } } },
        status: { currentNumberScheduled: 3, desiredNumberScheduled: 3, numberReady: 3 },
      }),
    ],
    jobs: [
      obj('batch/v1', 'Job', 'batch', 'nightly-report-29123840', {
        spec: { backoffLimit: 2, completions: 1, parallelism: 1 },
        status: { active: 1, startTime: '2026-11-21T00:00:04Z' },
      }),
    ],
    priorityClasses: [
      {
        ...obj('scheduling.k8s.io/v1', 'PriorityClass', undefined, 'system-cluster-critical'),
        value: 2000000000,
        description:
          'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
        preemptionPolicy: 'PreemptLowerPriority',
      },
      {
        ...obj('scheduling.k8s.io/v1', 'PriorityClass', undefined, 'batch-low'),
        value: -10,
        globalDefault: false,
        preemptionPolicy: 'Never',
      },
    ],
    configMaps: [statusCm, secretLike],
    serviceAccounts: [
      {
        ...obj('v1', 'ServiceAccount', 'kube-system', 'cluster-autoscaler'),
        metadata: {
          ...obj('v1', 'ServiceAccount', 'kube-system', 'cluster-autoscaler').metadata,
          annotations: {
            'eks.amazonaws.com/role-arn': `arn:aws:iam::${ACCOUNT}:role/demo-cluster-autoscaler`,
          },
        },
      },
      obj('v1', 'ServiceAccount', 'payments', 'default'),
    ],
  };
}

const asgArn = (name: string) =>
  `arn:aws:autoscaling:us-east-1:${ACCOUNT}:autoScalingGroup:6a1c3b5e-0d1f-4a8e-9f2b-3c4d5e6f7a8b:autoScalingGroupName/${name}`;
const caTags = (name: string) => [
  {
    ResourceId: name,
    ResourceType: 'auto-scaling-group',
    Key: 'k8s.io/cluster-autoscaler/enabled',
    Value: 'true',
    PropagateAtLaunch: false,
  },
  {
    ResourceId: name,
    ResourceType: 'auto-scaling-group',
    Key: `k8s.io/cluster-autoscaler/${CLUSTER}`,
    Value: 'owned',
    PropagateAtLaunch: false,
  },
];

const USER_DATA = Buffer.from(
  '#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args "--node-labels=team=payments"\nexport DB_PASSWORD=hunter2\n',
).toString('base64');

export function awsFixture(): Partial<RawInputs> {
  const general: AutoScalingGroup = {
    AutoScalingGroupName: 'eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
    AutoScalingGroupARN: asgArn('eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b'),
    LaunchTemplate: {
      LaunchTemplateId: 'lt-0a1b2c3d4e5f60001',
      LaunchTemplateName: 'eks-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
      Version: '1',
    },
    MinSize: 1,
    MaxSize: 2,
    DesiredCapacity: 2,
    DefaultCooldown: 300,
    AvailabilityZones: ['us-east-1a', 'us-east-1b'],
    LoadBalancerNames: [],
    TargetGroupARNs: [],
    HealthCheckType: 'EC2',
    HealthCheckGracePeriod: 15,
    Instances: [
      {
        InstanceId: 'i-0a1b2c3d4e5f60001',
        InstanceType: 'm5.large',
        AvailabilityZone: 'us-east-1a',
        LifecycleState: 'InService',
        HealthStatus: 'Healthy',
        LaunchTemplate: {
          LaunchTemplateId: 'lt-0a1b2c3d4e5f60001',
          LaunchTemplateName: 'eks-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
          Version: '1',
        },
        ProtectedFromScaleIn: false,
      },
      {
        InstanceId: 'i-0a1b2c3d4e5f60002',
        InstanceType: 'm5.large',
        AvailabilityZone: 'us-east-1b',
        LifecycleState: 'InService',
        HealthStatus: 'Healthy',
        LaunchTemplate: {
          LaunchTemplateId: 'lt-0a1b2c3d4e5f60001',
          LaunchTemplateName: 'eks-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
          Version: '1',
        },
        ProtectedFromScaleIn: false,
      },
    ],
    CreatedTime: '2026-10-02T11:58:31.412Z',
    SuspendedProcesses: [],
    VPCZoneIdentifier: 'subnet-0a1b2c3d4e5f60718,subnet-0a1b2c3d4e5f60719',
    EnabledMetrics: [],
    Tags: [
      ...caTags('eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b'),
      {
        ResourceId: 'eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
        ResourceType: 'auto-scaling-group',
        Key: 'eks:cluster-name',
        Value: CLUSTER,
        PropagateAtLaunch: true,
      },
      {
        ResourceId: 'eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
        ResourceType: 'auto-scaling-group',
        Key: 'eks:nodegroup-name',
        Value: 'ng-general',
        PropagateAtLaunch: true,
      },
    ],
    TerminationPolicies: ['AllocationStrategy', 'OldestLaunchTemplate', 'OldestInstance'],
    NewInstancesProtectedFromScaleIn: false,
    ServiceLinkedRoleARN: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling`,
    CapacityRebalance: true,
    TrafficSources: [],
  };
  const spot: AutoScalingGroup = {
    AutoScalingGroupName: 'demo-ng-spot',
    AutoScalingGroupARN: asgArn('demo-ng-spot'),
    MixedInstancesPolicy: {
      LaunchTemplate: {
        LaunchTemplateSpecification: {
          LaunchTemplateId: 'lt-0a1b2c3d4e5f60002',
          LaunchTemplateName: 'demo-ng-spot',
          Version: '$Latest',
        },
        Overrides: [{ InstanceType: 'm5.xlarge' }, { InstanceType: 'm5a.xlarge' }],
      },
      InstancesDistribution: {
        OnDemandAllocationStrategy: 'prioritized',
        OnDemandBaseCapacity: 0,
        OnDemandPercentageAboveBaseCapacity: 0,
        SpotAllocationStrategy: 'price-capacity-optimized',
      },
    },
    MinSize: 0,
    MaxSize: 1,
    DesiredCapacity: 1,
    DefaultCooldown: 300,
    AvailabilityZones: ['us-east-1c'],
    Instances: [
      {
        InstanceId: 'i-0a1b2c3d4e5f60003',
        InstanceType: 'm5.xlarge',
        AvailabilityZone: 'us-east-1c',
        LifecycleState: 'InService',
        HealthStatus: 'Healthy',
        LaunchTemplate: {
          LaunchTemplateId: 'lt-0a1b2c3d4e5f60002',
          LaunchTemplateName: 'demo-ng-spot',
          Version: '4',
        },
        ProtectedFromScaleIn: false,
      },
    ],
    CreatedTime: '2026-10-02T12:03:10.000Z',
    SuspendedProcesses: [],
    VPCZoneIdentifier: 'subnet-0a1b2c3d4e5f60720',
    Tags: [
      ...caTags('demo-ng-spot'),
      {
        ResourceId: 'demo-ng-spot',
        ResourceType: 'auto-scaling-group',
        Key: 'k8s.io/cluster-autoscaler/node-template/taint/spot',
        Value: 'true:NoSchedule',
        PropagateAtLaunch: false,
      },
    ],
    TerminationPolicies: ['Default'],
    NewInstancesProtectedFromScaleIn: false,
    CapacityRebalance: true,
  };
  const abs: AutoScalingGroup = {
    AutoScalingGroupName: 'demo-ng-flex',
    AutoScalingGroupARN: asgArn('demo-ng-flex'),
    MixedInstancesPolicy: {
      LaunchTemplate: {
        LaunchTemplateSpecification: {
          LaunchTemplateId: 'lt-0a1b2c3d4e5f60003',
          LaunchTemplateName: 'demo-ng-flex',
        },
        Overrides: [
          {
            InstanceRequirements: {
              VCpuCount: { Min: 4, Max: 8 },
              MemoryMiB: { Min: 16384 },
              CpuManufacturers: ['intel'],
            },
          },
        ],
      },
      InstancesDistribution: {
        OnDemandAllocationStrategy: 'lowest-price',
        OnDemandBaseCapacity: 0,
        OnDemandPercentageAboveBaseCapacity: 100,
      },
    },
    MinSize: 0,
    MaxSize: 5,
    DesiredCapacity: 0,
    AvailabilityZones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
    Instances: [],
    CreatedTime: '2026-10-03T08:00:00.000Z',
    Tags: caTags('demo-ng-flex'),
  };
  const legacy: AutoScalingGroup = {
    AutoScalingGroupName: 'legacy-workers',
    AutoScalingGroupARN: asgArn('legacy-workers'),
    LaunchConfigurationName: 'legacy-workers-2019',
    MinSize: 0,
    MaxSize: 3,
    DesiredCapacity: 0,
    AvailabilityZones: ['us-east-1a'],
    Instances: [],
    CreatedTime: '2019-04-11T16:20:00.000Z',
    SuspendedProcesses: [
      { ProcessName: 'AZRebalance', SuspensionReason: 'User suspended at 2019-04-12T10:00:00Z' },
    ],
    Tags: [
      {
        ResourceId: 'legacy-workers',
        ResourceType: 'auto-scaling-group',
        Key: 'Name',
        Value: 'legacy-workers',
        PropagateAtLaunch: true,
      },
    ],
  };

  const version = (
    id: string,
    name: string,
    n: number,
    isDefault: boolean,
    data: LaunchTemplateVersion['LaunchTemplateData'],
  ): LaunchTemplateVersion =>
    ({
      LaunchTemplateId: id,
      LaunchTemplateName: name,
      VersionNumber: n,
      CreateTime: `2026-10-0${n}T10:00:00.000Z`,
      CreatedBy: `arn:aws:sts::${ACCOUNT}:assumed-role/platform-admin/jane`,
      DefaultVersion: isDefault,
      LaunchTemplateData: data,
    }) as LaunchTemplateVersion;
  const tagSpec = (labels: Record<string, string>) => [
    {
      ResourceType: 'instance',
      Tags: Object.entries(labels).map(([k, v]) => ({
        Key: `k8s.io/cluster-autoscaler/node-template/label/${k}`,
        Value: v,
      })),
    },
  ];
  const launchTemplateVersions = [
    version('lt-0a1b2c3d4e5f60001', 'eks-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b', 1, true, {
      InstanceType: 'm5.large',
      ImageId: 'ami-0f1e2d3c4b5a69788',
      UserData: USER_DATA,
      MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 2 },
      BlockDeviceMappings: [
        { DeviceName: '/dev/xvda', Ebs: { VolumeSize: 20, VolumeType: 'gp3', DeleteOnTermination: true } },
      ],
    }),
    version('lt-0a1b2c3d4e5f60001', 'eks-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b', 2, false, {
      InstanceType: 'm6i.large',
      ImageId: 'ami-0f1e2d3c4b5a69799',
      UserData: USER_DATA,
    }),
    version('lt-0a1b2c3d4e5f60002', 'demo-ng-spot', 3, false, {
      ImageId: 'ami-0f1e2d3c4b5a69788',
      TagSpecifications: tagSpec({ lifecycle: 'spot' }),
    }),
    version('lt-0a1b2c3d4e5f60002', 'demo-ng-spot', 4, true, {
      ImageId: 'ami-0f1e2d3c4b5a69788',
      TagSpecifications: tagSpec({ lifecycle: 'spot' }),
      UserData: USER_DATA,
    }),
    version('lt-0a1b2c3d4e5f60002', 'demo-ng-spot', 5, false, {
      ImageId: 'ami-0f1e2d3c4b5a69799',
      TagSpecifications: tagSpec({ lifecycle: 'spot', team: 'batch' }),
    }),
    version('lt-0a1b2c3d4e5f60003', 'demo-ng-flex', 1, true, {
      ImageId: 'ami-0f1e2d3c4b5a69788',
      KeyName: 'platform',
      SecurityGroupIds: ['sg-0123456789abcdef0'],
      UserData: USER_DATA,
    }),
    // a template no ASG references: must not be fetched
    version('lt-0a1b2c3d4e5f6ffff', 'unrelated', 1, true, { InstanceType: 't3.micro' }),
  ];
  const launchConfigurations: LaunchConfiguration[] = [
    {
      LaunchConfigurationName: 'legacy-workers-2019',
      LaunchConfigurationARN: `arn:aws:autoscaling:us-east-1:${ACCOUNT}:launchConfiguration:0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e:launchConfigurationName/legacy-workers-2019`,
      ImageId: 'ami-0a9b8c7d6e5f40312',
      InstanceType: 'c5.large',
      SecurityGroups: ['sg-0123456789abcdef0'],
      UserData: USER_DATA,
      InstanceMonitoring: { Enabled: false },
      CreatedTime: '2019-04-11T16:19:00.000Z',
      EbsOptimized: true,
    },
  ];
  const itype = (name: string, vcpu: number, mib: number, manufacturer = 'Intel'): Ec2InstanceTypeInfo => ({
    InstanceType: name,
    CurrentGeneration: true,
    FreeTierEligible: false,
    SupportedUsageClasses: ['on-demand', 'spot'],
    SupportedRootDeviceTypes: ['ebs'],
    SupportedVirtualizationTypes: ['hvm'],
    BareMetal: false,
    Hypervisor: 'nitro',
    ProcessorInfo: {
      SupportedArchitectures: ['x86_64'],
      SustainedClockSpeedInGhz: 3.1,
      Manufacturer: manufacturer,
    } as Ec2InstanceTypeInfo['ProcessorInfo'],
    VCpuInfo: {
      DefaultVCpus: vcpu,
      DefaultCores: vcpu / 2,
      DefaultThreadsPerCore: 2,
      ValidCores: [1, vcpu / 2],
      ValidThreadsPerCore: [1, 2],
    } as Ec2InstanceTypeInfo['VCpuInfo'],
    MemoryInfo: { SizeInMiB: mib },
    InstanceStorageSupported: false,
    EbsInfo: { EbsOptimizedSupport: 'default', EncryptionSupport: 'supported', NvmeSupport: 'required' },
    NetworkInfo: {
      NetworkPerformance: 'Up to 10 Gigabit',
      MaximumNetworkInterfaces: vcpu <= 2 ? 3 : 4,
      Ipv4AddressesPerInterface: vcpu <= 2 ? 10 : 15,
      Ipv6AddressesPerInterface: vcpu <= 2 ? 10 : 15,
      Ipv6Supported: true,
      EnaSupport: 'required',
      EfaSupported: false,
    },
    PlacementGroupInfo: { SupportedStrategies: ['cluster', 'partition', 'spread'] },
    HibernationSupported: true,
    BurstablePerformanceSupported: false,
    DedicatedHostsSupported: true,
    AutoRecoverySupported: true,
    SupportedBootModes: ['legacy-bios', 'uefi'],
  });
  const instanceTypes = [
    itype('c5.large', 2, 4096),
    itype('m5.2xlarge', 8, 32768),
    itype('m5.large', 2, 8192),
    itype('m5.xlarge', 4, 16384),
    itype('m5a.xlarge', 4, 16384, 'AMD'),
    itype('m6i.large', 2, 8192),
    itype('m6i.xlarge', 4, 16384),
    itype('r5.24xlarge', 96, 786432), // not referenced: must not be fetched
  ];
  const images: Ec2Image[] = [
    {
      ImageId: 'ami-0f1e2d3c4b5a69788',
      Architecture: 'x86_64',
      CreationDate: '2026-11-01T04:31:09.000Z',
      ImageLocation: 'amazon/amazon-eks-node-al2023-x86_64-standard-1.31-v20261101',
      ImageType: 'machine',
      Public: true,
      OwnerId: '602401143452',
      PlatformDetails: 'Linux/UNIX',
      UsageOperation: 'RunInstances',
      State: 'available',
      BlockDeviceMappings: [
        {
          DeviceName: '/dev/xvda',
          Ebs: {
            DeleteOnTermination: true,
            SnapshotId: 'snap-0123456789abcdef0',
            VolumeSize: 20,
            VolumeType: 'gp3',
            Encrypted: false,
          },
        },
      ],
      Description:
        'EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: 1.31.2, containerd: 1.7.*)',
      EnaSupport: true,
      Hypervisor: 'xen',
      ImageOwnerAlias: 'amazon',
      Name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20261101',
      RootDeviceName: '/dev/xvda',
      RootDeviceType: 'ebs',
      SriovNetSupport: 'simple',
      VirtualizationType: 'hvm',
      BootMode: 'uefi-preferred',
      DeprecationTime: '2028-11-01T04:31:09.000Z',
      ImdsSupport: 'v2.0',
    },
  ];
  const scalingActivities: ScalingActivity[] = [
    {
      ActivityId: '5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b',
      AutoScalingGroupName: 'demo-ng-spot',
      Description:
        'Launching a new EC2 instance.  Status Reason: Could not launch Spot Instances. InsufficientInstanceCapacity - There is no Spot capacity available that matches your request. Launching EC2 instance failed.',
      Cause:
        'At 2026-11-21T09:58:30Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 1 to 2.',
      StartTime: '2026-11-21T09:58:31.250Z',
      EndTime: '2026-11-21T09:58:31.000Z',
      StatusCode: 'Failed',
      StatusMessage:
        'Could not launch Spot Instances. InsufficientInstanceCapacity - There is no Spot capacity available that matches your request. Launching EC2 instance failed.',
      Progress: 100,
    },
    {
      ActivityId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      AutoScalingGroupName: 'eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
      Description: 'Launching a new EC2 instance: i-0a1b2c3d4e5f60002',
      Cause:
        'At 2026-11-20T08:12:50Z a user request update of AutoScalingGroup constraints to min: 1, max: 2, desired: 2 changing the desired capacity from 1 to 2.',
      StartTime: '2026-11-20T08:12:52.870Z',
      EndTime: '2026-11-20T08:13:25.000Z',
      StatusCode: 'Successful',
      Progress: 100,
    },
  ];
  const eksNodegroups: EksNodegroup[] = [
    {
      nodegroupName: 'ng-general',
      nodegroupArn: `arn:aws:eks:us-east-1:${ACCOUNT}:nodegroup/${CLUSTER}/ng-general/20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b`,
      clusterName: CLUSTER,
      version: '1.31',
      releaseVersion: '1.31.2-20261101',
      createdAt: '2026-10-02T11:58:00.000Z',
      modifiedAt: '2026-11-20T08:12:49.000Z',
      status: 'ACTIVE',
      capacityType: 'ON_DEMAND',
      scalingConfig: { minSize: 1, maxSize: 2, desiredSize: 2 },
      instanceTypes: ['m5.large'],
      subnets: ['subnet-0a1b2c3d4e5f60718', 'subnet-0a1b2c3d4e5f60719'],
      amiType: 'AL2023_x86_64_STANDARD',
      nodeRole: `arn:aws:iam::${ACCOUNT}:role/demo-node`,
      labels: { team: 'platform' },
      taints: [{ key: 'dedicated', value: 'platform', effect: 'NO_SCHEDULE' }],
      resources: { autoScalingGroups: [{ name: 'eks-ng-general-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b' }] },
      diskSize: 20,
      health: { issues: [] },
      updateConfig: { maxUnavailable: 1 },
      launchTemplate: {
        name: 'eks-20c9b4e2-5c3a-7d1f-0b6e-8e2a4f1c9d3b',
        version: '1',
        id: 'lt-0a1b2c3d4e5f60001',
      },
      tags: { team: 'platform' },
    },
  ];
  const iamEvaluationResults: IamEvaluationResult[] = [
    {
      EvalActionName: 'autoscaling:SetDesiredCapacity',
      EvalResourceName: '*',
      EvalDecision: 'allowed',
      MatchedStatements: [{ SourcePolicyId: 'demo-cluster-autoscaler', SourcePolicyType: 'IAM Policy' }],
      MissingContextValues: [],
    },
    {
      EvalActionName: 'eks:DescribeNodegroup',
      EvalResourceName: '*',
      EvalDecision: 'implicitDeny',
      MatchedStatements: [],
      MissingContextValues: [],
    },
  ];
  return {
    autoScalingGroups: [general, spot, abs, legacy],
    launchTemplateVersions,
    launchConfigurations,
    instanceTypes,
    images,
    scalingActivities,
    eksNodegroups,
    iamEvaluationResults,
  };
}

/** Objects in a stable order (namespace/name), for comparing what was gathered with what the server holds. */
export function sortedByName<T extends KubeObject>(items: readonly T[] | undefined): T[] {
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return [...(items ?? [])].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The read-only proof: anything but GET on the Kubernetes API fails the test. */
export function mutatingKubeRequests(requests: ReadonlyArray<{ method: string; path: string }>): string[] {
  return requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
}

/** The read-only proof for AWS: only Describe*, List*, Get* and Simulate* actions are allowed. */
export function mutatingAwsRequests(requests: ReadonlyArray<{ service: string; action: string }>): string[] {
  return requests
    // CloudTrail's LookupEvents reads the trail (history)
    .filter((r) => !/^(Describe|List|Get|Lookup|Simulate)[A-Z]/.test(r.action))
    .map((r) => `${r.service}:${r.action}`);
}
