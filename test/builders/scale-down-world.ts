/**
 * A small cluster for scale-down tests: CA (v1.32.1 unless told) with auto-discovery for cluster "prod", one ASG
 * "prod-general" holding N m5.xlarge nodes (allocatable cpu 3920m, memory 14880140Ki), desired = N, min 1.
 * Nothing runs on the nodes until a test adds pods; every kind CA's scale-down reads is "provided" (empty lists).
 */
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import type { Node, Pod, Workload } from '../../src/model/k8s.js';
import type { DataKind, RawInputs } from '../../src/model/snapshot.js';
import { Analysis, type NodeScope } from '../../src/simulate/analysis.js';
import { analyzeScaleDown } from '../../src/simulate/scale-down.js';
import { STATIC_TYPES } from '../checks/harness.js';
import { asg, launchTemplateVersion } from './aws.js';
import { inputs } from './inputs.js';
import { node, pod } from './k8s.js';
import { caDeployment, DEFAULT_CA_ARGS, instanceIdOf, NOW } from './world.js';
import { daemonSet, replicaSet } from './workloads.js';

export { NOW };

export interface SdWorld {
  raw: RawInputs;
  nodes: Node[];
  add(kind: DataKind, ...objs: unknown[]): SdWorld;
  /** A Running pod of a Deployment-owned ReplicaSet "<app>-7f9c8d6b5" (created on first use), on a node. */
  app(namespace: string, app: string, nodeName: string, requests?: Record<string, string>): Pod;
  /** A DaemonSet pod (aws-node style, 25m) on every node. */
  daemonSetEverywhere(name?: string, cpu?: string): SdWorld;
}

export function nodeName(i: number): string {
  return `ip-10-0-1-${10 + i}.ec2.internal`;
}

export function sdWorld(
  opts: {
    nodes?: number;
    min?: number;
    desired?: number;
    caArgs?: string[];
    image?: string;
    groupTags?: Record<string, string>;
    nodeBuilder?: (i: number, b: ReturnType<typeof node>) => ReturnType<typeof node>;
  } = {},
): SdWorld {
  const count = opts.nodes ?? 3;
  const nodes = Array.from({ length: count }, (_, i) => {
    const b = node(nodeName(i + 1)).withLabel('node-pool', 'general');
    return (opts.nodeBuilder ? opts.nodeBuilder(i + 1, b) : b).build();
  });
  let g = asg('prod-general')
    .withDiscoveryTags('prod')
    .withTag('kubernetes.io/cluster/prod', 'owned')
    .withLaunchTemplate({ id: 'lt-0general000000001', version: '$Latest' })
    .withSizes(opts.min ?? 1, 10, opts.desired ?? count);
  for (const [k, v] of Object.entries(opts.groupTags ?? {})) g = g.withTag(k, v, false);
  for (const n of nodes) g = g.withInstance(instanceIdOf(n), { InstanceType: 'm5.xlarge' });
  const raw = inputs({
    pods: [],
    nodes,
    deployments: [caDeployment([...DEFAULT_CA_ARGS, ...(opts.caArgs ?? [])], opts.image)],
    replicaSets: [],
    statefulSets: [],
    daemonSets: [],
    jobs: [],
    pdbs: [],
    autoScalingGroups: [g.build()],
    launchTemplateVersions: [
      launchTemplateVersion('lt-0general000000001', 1).asDefault().withInstanceType('m5.xlarge').build(),
    ],
    configMaps: [],
    events: [],
    pvcs: [],
    pvs: [],
    storageClasses: [],
    priorityClasses: [],
    scalingActivities: [],
  });
  const w: SdWorld = {
    raw,
    nodes,
    add(kind, ...objs) {
      (raw[kind] as unknown[]).push(...objs);
      raw.provided.add(kind);
      return w;
    },
    app(namespace, app, nodeName, requests = { cpu: '500m', memory: '512Mi' }) {
      const rsName = `${app}-7f9c8d6b5`;
      let rs = raw.replicaSets.find((r) => r.metadata.namespace === namespace && r.metadata.name === rsName) as
        | Workload
        | undefined;
      if (!rs) {
        rs = replicaSet(namespace, rsName, 0, { app });
        raw.replicaSets.push(rs);
      }
      rs.spec!.replicas = (rs.spec!.replicas ?? 0) + 1;
      const index = raw.pods.filter((p) => p.metadata.labels?.app === app).length;
      const p = pod(`${rsName}-${'bcdfg'[index % 5]}x${index}q7`, namespace)
        .withLabels({ app, 'pod-template-hash': '7f9c8d6b5' })
        .withRequests(requests)
        .ownedBy('ReplicaSet', rsName)
        .onNode(nodeName)
        .build();
      raw.pods.push(p);
      return p;
    },
    daemonSetEverywhere(name = 'aws-node', cpu = '25m') {
      raw.daemonSets.push(daemonSet('kube-system', name));
      for (const n of nodes) {
        raw.pods.push(
          pod(`${name}-${n.metadata.name!.slice(10, 13).replace(/\W/g, 'x')}`, 'kube-system')
            .withLabels({ app: name })
            .withRequests({ cpu })
            .ownedBy('DaemonSet', name)
            .onNode(n.metadata.name!)
            .build(),
        );
      }
      return w;
    },
  };
  return w;
}

export function analyzeSd(raw: RawInputs, opts: { now?: Date; caArgs?: string[]; scope?: NodeScope } = {}) {
  const analysis = new Analysis(raw, {
    now: opts.now ?? NOW,
    caArgs: opts.caArgs,
    staticInstanceTypes: STATIC_TYPES,
    ...(opts.scope ? { nodeScope: opts.scope } : {}),
  });
  const sd = analyzeScaleDown(analysis);
  const { findings, skipped } = runChecks(CHECKS, analysis, 'scale-down-blockers');
  const byName = (name: string) => {
    const n = sd.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no node ${name}`);
    return n;
  };
  return { analysis, sd, findings, skipped, node: byName };
}
