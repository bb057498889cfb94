// Upstream behaviours casdoctor reproduces, one table per behaviour, each citing the upstream file it follows.
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement } from '../../src/model/k8s.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import { replicaCount } from '../../src/simulate/drainability/replica-count.js';
import type { ReplicationControllerLike } from '../../src/simulate/drainability/types.js';
import { buildInstanceTypeTable } from '../../src/simulate/instance-types.js';
import { groupReadiness, maxNodeStartupTimeMs, nodeReadinessState } from '../../src/simulate/node-groups.js';
import { buildNodeGroups } from '../../src/providers/aws/node-groups.js';
import { nodeAffinity } from '../../src/simulate/predicates/node-affinity.js';
import { taintToleration } from '../../src/simulate/predicates/taint-toleration.js';
import { volumeBinding } from '../../src/simulate/predicates/volume-binding.js';
import { volumeZone } from '../../src/simulate/predicates/volume-zone.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import type { TemplateContext } from '../../src/simulate/node-group-provider.js';
import { awsProvider } from '../../src/providers/aws/index.js';
import { buildTemplateNode } from '../../src/simulate/template-node.js';
import { analyze, STATIC_TYPES } from '../checks/harness.js';
import { asg, eksNodegroup, launchTemplateVersion } from '../builders/aws.js';
import { drainCtx, keyed } from '../builders/drain.js';
import { node, pod, pv, pvc, storageClass } from '../builders/k8s.js';
import { analyzeSd, nodeName, sdWorld } from '../builders/scale-down-world.js';
import { caDeployment, DEFAULT_CA_ARGS, filler, instanceIdOf, NOW, pendingPod, world } from '../builders/world.js';
import { pdb } from '../builders/workloads.js';

const outcome = (s: { outcome: string; reason?: string }) => (s.reason ? `${s.outcome}:${s.reason}` : s.outcome);
const ca = (version: string, ...args: string[]) =>
  buildCaConfig({
    deployment: caDeployment([...DEFAULT_CA_ARGS, ...args], `registry.k8s.io/autoscaling/cluster-autoscaler:v${version}`),
  });

// CA: simulator/drainability/rules/replicacount/rule.go — the RC branch comes first and mirrors the ReplicaSet one.
describe('ReplicationController owners get the ReplicaSet rules', () => {
  const rc = (name: string, replicas: number): ReplicationControllerLike => ({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name, namespace: 'web', uid: `rc-${name}` },
    spec: { replicas },
  });
  const owned = (name: string) => pod(`${name}-x7k2p`, 'web').ownedBy('ReplicationController', name).build();
  it.each([
    ['passes a pod whose RC exists', 'legacy-api', 0, 'Undefined'],
    ['blocks a pod whose RC is gone (ControllerNotFound)', 'deleted-rc', 0, 'BlockDrain:ControllerNotFound'],
    ['blocks an RC below --min-replica-count (MinReplicasReached)', 'legacy-api', 3, 'BlockDrain:MinReplicasReached'],
    ['passes an RC exactly at --min-replica-count', 'legacy-api', 2, 'Undefined'],
  ])('%s', (_name, owner, minReplicaCount, want) => {
    const ctx = drainCtx({ minReplicaCount, listers: { replicationControllers: keyed(rc('legacy-api', 2)) } });
    expect(outcome(replicaCount(ctx, owned(owner)))).toBe(want);
  });
  it('uses CA\'s error text for a missing RC', () => {
    const ctx = drainCtx({ listers: { replicationControllers: keyed(rc('legacy-api', 2)) } });
    expect(replicaCount(ctx, owned('deleted-rc')).message).toBe(
      'replication controller for web/deleted-rc-x7k2p is not available, err: replicationcontrollers "deleted-rc" not found',
    );
  });
  it('cannot judge without RCs in the snapshot, and says so instead of passing silently', () => {
    expect(outcome(replicaCount(drainCtx(), owned('legacy-api')))).toBe('Undefined');
  });
});

// component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go newNodeSelectorTerm + apimachinery labels/selector.go
// NewRequirement: a value that is not a valid label value fails to parse, and that whole term matches no node.
describe('node selector terms with values that are not label values', () => {
  const zoned = node('ip-10-0-1-23.ec2.internal').inZone('us-east-1a').build();
  const withTerms = (...terms: NodeSelectorRequirement[][]) =>
    pod('api-0', 'web')
      .withSpec({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })),
            },
          },
        },
      })
      .build();
  const zoneIn = (...values: string[]): NodeSelectorRequirement => ({
    key: 'topology.kubernetes.io/zone',
    operator: 'In',
    values,
  });
  it.each([
    ['a term whose In list holds a valid matching value', [[zoneIn('us-east-1a')]], 'Success'],
    ['a term whose In list also holds "us east 1b" (a space)', [[zoneIn('us-east-1a', 'us east 1b')]], 'UnschedulableAndUnresolvable'],
    [
      'a NotIn value longer than 63 characters',
      [[{ key: 'team', operator: 'NotIn', values: ['x'.repeat(64)] }]],
      'UnschedulableAndUnresolvable',
    ],
    ['a Gt value of "-1" (not a label value although an integer)', [[{ key: 'rank', operator: 'Gt', values: ['-1'] }]], 'UnschedulableAndUnresolvable'],
    [
      'an invalid term next to a valid one (terms are ORed; only the invalid one is void)',
      [[zoneIn('us-east-1a/')], [zoneIn('us-east-1a')]],
      'Success',
    ],
  ])('%s', (_name, terms, code) => {
    const s = nodeAffinity(withTerms(...(terms as NodeSelectorRequirement[][])), nodeInfoFor(zoned, []));
    expect(s.code).toBe(code);
  });
  it('explains which value made the term void', () => {
    const s = nodeAffinity(withTerms([zoneIn('us-east-1a', 'us east 1b')]), nodeInfoFor(zoned, []));
    expect(s.details?.[0]).toContain('value "us east 1b" is not a valid label value, so the term matches no node');
  });
});

// kube-scheduler pkg/scheduler/framework/plugins/volumebinding/volume_binding.go PreFilter (podHasPVCs) and
// volumezone/volume_zone.go getPVbyPod: a missing claim is the lister's NotFound error, verbatim.
describe('a pod whose claim does not exist', () => {
  it('fails VolumeBinding and VolumeZone with persistentvolumeclaim "<name>" not found', () => {
    const p = pod('db-0', 'web').withPvc('data-db-0').build();
    const view = buildClusterView({ nodes: [], pods: [], pvcs: [], pvs: [], storageClasses: [] });
    const info = nodeInfoFor(node().build(), []);
    expect(volumeBinding(p, info, view).reasons).toEqual(['persistentvolumeclaim "data-db-0" not found']);
    expect(volumeZone(p, info, view).reasons).toEqual(['persistentvolumeclaim "data-db-0" not found']);
  });
});

// kube-scheduler volumezone/volume_zone.go getPVbyPod: "Skip unbound volumes" only for WaitForFirstConsumer classes.
describe('VolumeZone and unbound claims', () => {
  it.each([
    ['WaitForFirstConsumer', storageClass('gp3'), 'Success'],
    ['Immediate', storageClass('gp3').immediate(), 'UnschedulableAndUnresolvable'],
  ])('an unbound claim of a %s class: %s', (_mode, sc, code) => {
    const p = pod('db-0', 'web').withPvc('data-db-0').build();
    const view = buildClusterView({
      nodes: [],
      pods: [],
      pvcs: [pvc('data-db-0', 'web').build()],
      pvs: [],
      storageClasses: [sc.build()],
    });
    expect(volumeZone(p, nodeInfoFor(node().inZone('us-east-1b').build(), []), view).code).toBe(code);
  });
});

function templateCtx(config = ca('1.30.4')): TemplateContext {
  return {
    now: NOW,
    config,
    instanceTypes: buildInstanceTypeTable(STATIC_TYPES, [], config),
    launchTemplateVersions: [launchTemplateVersion('lt-0gpu00000000000001', 1).asDefault().withInstanceType('g4dn.xlarge').build()],
    launchConfigurations: [],
    images: [],
    instanceTypesFromRequirements: [],
    eksNodegroups: [],
    daemonSets: [],
    podsByNode: new Map(),
    provider: awsProvider,
  };
}

// CA: cloudprovider/aws/aws_manager.go getAsgTemplate — "unable to get first AvailabilityZone for ASG %q".
describe('an ASG without AvailabilityZones', () => {
  it('has no template, in CA\'s words', () => {
    const g = asg('gpu-zoneless').withZones().withLaunchTemplate({ id: 'lt-0gpu00000000000001' }).build();
    const config = ca('1.32.1');
    const { nodeGroups } = buildNodeGroups({ asgs: [g], nodes: [], config });
    const t = buildTemplateNode(nodeGroups[0], templateCtx(config));
    expect(t).toMatchObject({ source: 'none', reason: 'unable to get first AvailabilityZone for ASG "gpu-zoneless"' });
  });
});

// CA: cloudprovider/aws/aws_wrapper.go getManagedNodegroupInfo — the EKS effect is translated only from 1.31.0
// (74a5500ab0, kubernetes/autoscaler#6481); before, "NO_SCHEDULE" is copied and the scheduler ignores that effect.
describe('EKS managed node group taint effects by CA version', () => {
  const mng = () =>
    asg('eks-gpu-2ac6b0d4')
      .withZones('us-east-1a')
      .withLaunchTemplate({ id: 'lt-0gpu00000000000001' })
      .withTags({ 'eks:cluster-name': 'prod', 'eks:nodegroup-name': 'gpu' })
      .build();
  const ng = () => eksNodegroup('prod', 'gpu').withTaint('nvidia.com/gpu', 'true', 'NO_SCHEDULE').build();
  it.each([
    ['1.30.4', 'NO_SCHEDULE', 'Success'],
    ['1.31.0', 'NoSchedule', 'UnschedulableAndUnresolvable'],
  ])('CA %s puts effect %s on the template, so a pod without the toleration gets %s', (version, effect, code) => {
    const config = ca(version);
    const { nodeGroups } = buildNodeGroups({ asgs: [mng()], nodes: [], config });
    const t = buildTemplateNode(nodeGroups[0], { ...templateCtx(config), eksNodegroups: [ng()] });
    expect(t.node?.spec?.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect }]);
    const s = taintToleration(pod('train-0', 'ml').build(), nodeInfoFor(t.node!, []));
    expect(s.code).toBe(code);
  });
});

// CA: clusterstate/clusterstate.go updateReadinessStats — a registered, not-Ready node is NotStarted (upcoming) while
// younger than the max node startup time and Unready after; the time is --max-node-startup-time from 1.35 (15m before).
describe('--max-node-startup-time and the readiness CA counts', () => {
  const notReadyFor = (minutes: number) =>
    node(`ip-10-0-3-${minutes}.ec2.internal`)
      .notReady()
      .createdAt(new Date(NOW.getTime() - minutes * 60_000).toISOString())
      .build();
  it.each([
    ['1.34.5', [], 14, 'notStarted'],
    ['1.34.5', [], 16, 'unready'],
    ['1.35.0', ['--max-node-startup-time=30m'], 20, 'notStarted'],
    ['1.35.0', ['--max-node-startup-time=30m'], 31, 'unready'],
    ['1.36.0', ['--max-node-startup-time=5m'], 6, 'unready'],
  ])('CA %s %j: a node not Ready %i min after registering is %s', (version, args, minutes, want) => {
    const config = ca(version, ...args);
    expect(nodeReadinessState(notReadyFor(minutes), NOW, maxNodeStartupTimeMs(config))).toBe(want);
  });
  it('counts a Ready node as Ready whatever its age, and buckets a group', () => {
    const ready = node('ip-10-0-3-1.ec2.internal').build();
    const g = asg('prod-general')
      .withZones('us-east-1a')
      .withInstance(instanceIdOf(ready))
      .withInstance(instanceIdOf(notReadyFor(20)))
      .withInstance(instanceIdOf(notReadyFor(40)))
      .build();
    const config = ca('1.35.0', '--max-node-startup-time=30m');
    const { nodeGroups } = buildNodeGroups({ asgs: [g], nodes: [ready, notReadyFor(20), notReadyFor(40)], config });
    expect(groupReadiness(nodeGroups[0], NOW, config)).toMatchObject({
      ready: 1,
      notStarted: 1,
      unready: 1,
      maxNodeStartupMs: 30 * 60_000,
      fromFlag: true,
      unreadyNodes: ['ip-10-0-3-40.ec2.internal'],
    });
  });
});

// CA: processors/nodeinfosprovider/mixed_nodeinfos_processor.go takes the first good node in its node list, whose order
// follows the informer cache and varies between runs: a group whose nodes differ by zone can flip a VolumeZone verdict.
describe('CA may decide either: the template node of a multi-zone group', () => {
  function twoZoneWorld(zones: [string, string]) {
    const a = node('ip-10-0-1-10.ec2.internal').inZone(zones[0]).build();
    const b = node('ip-10-0-2-10.ec2.internal').inZone(zones[1]).build();
    const claim = pvc('data-db-0', 'web').boundTo('pvc-legacy').build();
    const w = world();
    w.raw.nodes = [a, b];
    w.raw.pods = [filler(a), filler(b)];
    w.raw.autoScalingGroups = [
      asg('prod-general')
        .withDiscoveryTags('prod')
        .withZones('us-east-1a', 'us-east-1b')
        .withLaunchTemplate({ id: 'lt-0general000000001', version: '$Latest' })
        .withSizes(1, 5, 2)
        .withInstance(instanceIdOf(a), { InstanceType: 'm5.xlarge', AvailabilityZone: zones[0] })
        .withInstance(instanceIdOf(b), { InstanceType: 'm5.xlarge', AvailabilityZone: zones[1] })
        .build(),
    ];
    w.add('pods', pendingPod('db-0', 'web').withPvc('data-db-0').build());
    w.add('pvcs', claim);
    w.add('pvs', pv('pvc-legacy').inTreeInZone('us-east-1b').boundTo(claim).build());
    w.add('storageClasses', storageClass('gp3').build());
    return w;
  }
  it('says so when the pod fits the us-east-1b node\'s shape but not the us-east-1a one casdoctor took', () => {
    const { pods } = analyze(twoZoneWorld(['us-east-1a', 'us-east-1b']).raw);
    const p = pods.find((x) => x.report.name === 'db-0')!;
    const g = p.report.nodeGroups.find((x) => x.name === 'prod-general')!;
    expect(g.template.fromNode).toBe('ip-10-0-1-10.ec2.internal');
    expect(g.fits).toBe(false);
    expect(g.caMayDecideEither).toContain('topology.kubernetes.io/zone us-east-1a vs us-east-1b');
    expect(g.caMayDecideEither).toContain("on ip-10-0-2-10.ec2.internal's it fits; CA may decide either");
    expect(p.report.summary).toContain('CA may decide either for prod-general');
  });
  it('stays silent when the group\'s nodes share one zone', () => {
    const { pods } = analyze(twoZoneWorld(['us-east-1b', 'us-east-1b']).raw);
    const p = pods.find((x) => x.report.name === 'db-0')!;
    expect(p.report.nodeGroups.every((g) => g.caMayDecideEither === undefined)).toBe(true);
    expect(p.report.summary).not.toContain('CA may decide either');
  });
});

// CA: core/scaledown/pdb/basic.go RemainingPdbTracker + planner order, simulator/drain.go GetPodsToMove.
describe('CA may decide either: scale-down verdicts that depend on CA\'s order', () => {
  it('names the PDB budget spent by the node simulated first, and the pod moved onto this node', () => {
    const w = sdWorld({ nodes: 3 });
    w.app('web', 'api', nodeName(1), { cpu: '500m', memory: '512Mi' });
    w.app('web', 'api', nodeName(2), { cpu: '500m', memory: '512Mi' });
    w.add('pdbs', pdb('web', 'api').selecting({ app: 'api' }).healthy(2, 1).build());
    const r = analyzeSd(w.raw);
    const either = r.node(nodeName(2)).report.caMayDecideEither ?? [];
    expect(either.some((e) => e.startsWith('2 pods block the node; CA names whichever comes first'))).toBe(true);
    expect(either).toContain(
      `PDB web/api allows 1 disruption(s); nodes simulated earlier in this loop used it (${nodeName(1)}). CA's order varies, so in a loop that simulates this node first it can be removable and ${nodeName(1)} get NotEnoughPdb instead`,
    );
    // both sides of the race carry it: node 1 is removable only because CA happened to simulate it first
    expect(r.node(nodeName(1)).report.caMayDecideEither).toEqual([
      `PDB web/api allows 1 disruption(s), which this node's pods used first in this loop; CA's order varies, so in a loop that simulates ${nodeName(2)} first, that node can be removable and this one get NotEnoughPdb instead`,
    ]);
  });
  it('stays silent for a node blocked by one pod for a reason order cannot change', () => {
    const w = sdWorld({ nodes: 2 });
    w.add('pods', pod('debug', 'web').onNode(nodeName(1)).build());
    expect(analyzeSd(w.raw).node(nodeName(1)).report.caMayDecideEither).toBeUndefined();
  });
});

// CA: clusterstate/clusterstate.go GetUpcomingNodes — NotStarted nodes are upcoming capacity, Unready ones are not.
describe('why-pending and a node that registered but is not Ready yet', () => {
  function withStartingNode(minutesAgo: number, args: string[] = []) {
    const ready = node('ip-10-0-1-10.ec2.internal').withLabel('node-pool', 'general').build();
    const starting = node('ip-10-0-1-77.ec2.internal')
      .withLabel('node-pool', 'general')
      .notReady()
      .createdAt(new Date(NOW.getTime() - minutesAgo * 60_000).toISOString())
      .build();
    const w = world();
    w.raw.deployments = [caDeployment([...DEFAULT_CA_ARGS, ...args], 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0')];
    w.raw.nodes = [ready, starting];
    w.raw.pods = [filler(ready), filler(starting)];
    w.raw.autoScalingGroups = [
      asg('prod-general')
        .withDiscoveryTags('prod')
        .withLaunchTemplate({ id: 'lt-0general000000001', version: '$Latest' })
        .withSizes(1, 5, 2)
        .withInstance(instanceIdOf(ready), { InstanceType: 'm5.xlarge' })
        .withInstance(instanceIdOf(starting), { InstanceType: 'm5.xlarge' })
        .build(),
    ];
    w.add('pods', pendingPod().build());
    return analyze(w.raw).pods.find((p) => p.report.name === 'api-7f9c8d6b5-x2x7q')!.report;
  }
  it.each([
    [5, [], 'fits a node prod-general is already adding'],
    [20, [], 'CA can scale up prod-general'],
    [20, ['--max-node-startup-time=30m'], 'fits a node prod-general is already adding'],
  ])('not Ready for %i min with %j: "%s"', (minutes, args, summary) => {
    const r = withStartingNode(minutes, args);
    expect(r.verdict).toBe('scale-up');
    expect(r.summary).toContain(summary);
  });
});

// CA: clusterstate/clusterstate.go IsClusterHealthy — only Unready nodes count, NotStarted ones (younger than the max
// node startup time) do not; casdoctor computes it when there is no status ConfigMap to read it from.
describe('cluster health from the nodes when CA wrote no status ConfigMap', () => {
  function cluster(minutesNotReady: number, args: string[] = []) {
    const w = sdWorld({
      nodes: 8,
      image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0',
      caArgs: args,
      nodeBuilder: (i, b) =>
        i <= 4 ? b.notReady().createdAt(new Date(NOW.getTime() - minutesNotReady * 60_000).toISOString()) : b,
    });
    return analyzeSd(w.raw).sd;
  }
  it.each([
    [30, [], true],
    [10, [], false],
    [30, ['--max-node-startup-time=45m'], false],
    [30, ['--ok-total-unready-count=4'], false],
  ])('4 of 8 nodes not Ready for %i min with %j: unhealthy %s', (minutes, args, unhealthy) => {
    expect(cluster(minutes, args).clusterUnhealthy).toBe(unhealthy);
  });
});

// CA: processors/provreq/pods_filter.go — with --enable-provisioning-requests the pod-list processor drops every
// unschedulable pod carrying the consume annotation (or its deprecated key), whether or not the request exists.
describe('a pod consuming a ProvisioningRequest', () => {
  const consumer = (key: string) =>
    pendingPod('batch-0', 'web').withAnnotation(key, 'batch-pr').build();
  it.each([
    ['autoscaling.x-k8s.io/consume-provisioning-request'],
    ['cluster-autoscaler.kubernetes.io/consume-provisioning-request'],
  ])('is dropped from normal scale-up with the flag (%s), the request absent, with CA\'s message', (key) => {
    const w = world({ caArgs: [...DEFAULT_CA_ARGS, '--enable-provisioning-requests=true'] });
    w.add('pods', consumer(key));
    const p = analyze(w.raw).pods.find((x) => x.report.name === 'batch-0')!;
    expect(p.report.verdict).toBe('ignored');
    expect(p.report.summary).toContain(
      "Unschedulable pod didn't trigger scale-up, because it's consuming ProvisioningRequest web/batch-pr",
    );
  });
  it('is an ordinary pod without the flag: CA ignores the annotation', () => {
    const w = world();
    w.add('pods', consumer('autoscaling.x-k8s.io/consume-provisioning-request'));
    const p = analyze(w.raw).pods.find((x) => x.report.name === 'batch-0')!;
    expect(p.report.verdict).toBe('scale-up');
  });
});

// CA: core/scaleup/orchestrator/orchestrator.go filterValidScaleUpNodeGroups and the resource manager: the stage that
// removes a group the pod would otherwise fit, and the smallest change that flips it.
describe('counterfactuals of CA\'s group filter', () => {
  const flipOf = (caArgs: string[], max = 5) => {
    const w = world({ caArgs: [...DEFAULT_CA_ARGS, ...caArgs] });
    w.raw.autoScalingGroups[0].MaxSize = max;
    w.add('pods', pendingPod().build());
    const p = analyze(w.raw).pods.find((x) => x.report.name === 'api-7f9c8d6b5-x2x7q')!;
    return p.report.nodeGroups.find((g) => g.name === 'prod-general')!.counterfactual;
  };
  it.each([
    ['max size reached', [], 1, { stage: 'max-size', change: 'raise the max size of prod-general from 1 to 2' }],
    ['--max-nodes-total reached', ['--max-nodes-total=1'], 5, { stage: 'max-nodes-total', change: 'raise --max-nodes-total from 1 to at least 2' }],
    ['--cores-total reached', ['--cores-total=0:6'], 5, { stage: 'resource-limit', change: 'raise the --cores-total max from 6 to at least 8' }],
  ])('%s', (_name, caArgs, max, want) => {
    expect(flipOf(caArgs as string[], max as number)).toEqual(want);
  });
  it('has none when the group is free to scale', () => {
    expect(flipOf([])).toBeUndefined();
  });
});

// The RC rules run on a snapshot that carries ReplicationControllers (live: listed; offline: a replicationcontrollers
// list in the dump): a missing RC is ControllerNotFound, one below --min-replica-count MinReplicasReached.
describe('ReplicationControllers in the snapshot reach the drain rules', () => {
  const rcObj = (name: string, replicas: number) => ({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name, namespace: 'web', uid: `rc-${name}` },
    spec: { replicas },
  });
  const withRcPod = (owner: string, caArgs: string[] = []) => {
    const w = sdWorld({ nodes: 2 });
    w.add('pods', pod(`${owner}-x7k2p`, 'web').withRequests({ cpu: '100m', memory: '128Mi' }).ownedBy('ReplicationController', owner).onNode(nodeName(1)).build());
    w.add('replicationControllers', rcObj('legacy-api', 2));
    return analyzeSd(w.raw, { caArgs }).node(nodeName(1)).blockers[0];
  };
  it('a pod whose RC is gone blocks its node with ControllerNotFound', () => {
    expect(withRcPod('deleted-rc')?.reason).toBe('ControllerNotFound');
  });
  it('an RC below --min-replica-count blocks with MinReplicasReached', () => {
    expect(withRcPod('legacy-api', ['--min-replica-count=3'])?.reason).toBe('MinReplicasReached');
  });
  it('an RC at --min-replica-count does not block', () => {
    expect(withRcPod('legacy-api')).toBeUndefined();
  });
});
