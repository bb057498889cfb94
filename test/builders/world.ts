// A small, realistic cluster for check and verdict tests: CA v1.32.1 with auto-discovery for cluster "prod",
// one m5.xlarge ASG "prod-general" with one (full) node. Tests add to it.
import type { Deployment, Node, Pod } from '../../src/model/k8s.js';
import type { DataKind, RawInputs } from '../../src/model/snapshot.js';
import { asg, launchTemplateVersion } from './aws.js';
import { inputs } from './inputs.js';
import { node, pod } from './k8s.js';

export const NOW = new Date('2026-01-05T12:00:00Z');

export function caDeployment(
  args: string[],
  image = 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'cluster-autoscaler',
      namespace: 'kube-system',
      uid: 'b3f1c6a2-1d2e-4f5a-8b9c-0d1e2f3a4b5c',
      labels: { app: 'cluster-autoscaler' },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'cluster-autoscaler' } },
      template: {
        metadata: { labels: { app: 'cluster-autoscaler' } },
        spec: {
          serviceAccountName: 'cluster-autoscaler',
          containers: [{ name: 'cluster-autoscaler', image, command: ['./cluster-autoscaler', ...args] }],
        },
      },
    },
  };
}

export const DEFAULT_CA_ARGS = [
  '--v=4',
  '--cloud-provider=aws',
  '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod',
];

export function instanceIdOf(n: Node): string {
  return n.spec!.providerID!.split('/').pop()!;
}

/** A running pod that fills most of a node's CPU. */
export function filler(n: Node, cpu = '3500m'): Pod {
  return pod(`filler-${n.metadata.name}`, 'web')
    .withRequests({ cpu, memory: '2Gi' })
    .ownedBy('ReplicaSet', 'filler-6d4b8c9f7')
    .onNode(n.metadata.name!)
    .build();
}

export interface World {
  raw: RawInputs;
  add(kind: DataKind, ...objs: unknown[]): World;
}

export function world(opts: { caArgs?: string[]; withCa?: boolean } = {}): World {
  const general = node('ip-10-0-1-10.ec2.internal').withLabel('node-pool', 'general').build();
  const group = asg('prod-general')
    .withDiscoveryTags('prod')
    .withTag('kubernetes.io/cluster/prod', 'owned')
    .withLaunchTemplate({ id: 'lt-0general000000001', version: '$Latest' })
    .withSizes(1, 5, 1)
    .withInstance(instanceIdOf(general), { InstanceType: 'm5.xlarge' })
    .build();
  const raw = inputs({
    pods: [filler(general)],
    nodes: [general],
    deployments: opts.withCa === false ? [] : [caDeployment(opts.caArgs ?? DEFAULT_CA_ARGS)],
    autoScalingGroups: [group],
    launchTemplateVersions: [
      launchTemplateVersion('lt-0general000000001', 1).asDefault().withInstanceType('m5.xlarge').build(),
    ],
    configMaps: [],
    events: [],
    daemonSets: [],
    pvcs: [],
    pvs: [],
    storageClasses: [],
    priorityClasses: [],
    scalingActivities: [],
  });
  const w: World = {
    raw,
    add(kind, ...objs) {
      (raw[kind] as unknown[]).push(...objs);
      raw.provided.add(kind);
      return w;
    },
  };
  return w;
}

export function pendingPod(name = 'api-7f9c8d6b5-x2x7q', ns = 'web'): ReturnType<typeof pod> {
  return pod(name, ns)
    .withRequests({ cpu: '1', memory: '1Gi' })
    .ownedBy('ReplicaSet', `${name.split('-').slice(0, 2).join('-')}`)
    .unschedulable();
}
