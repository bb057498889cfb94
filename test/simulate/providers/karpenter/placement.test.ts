// Karpenter's per-NodePool provisioning decision for a pending pod: kubernetes-sigs/karpenter
// pkg/utils/pod/scheduling.go (IsProvisionable), pkg/controllers/provisioning/provisioner.go (Validate, NewScheduler),
// scheduling/scheduler.go (addToNewNodeClaim), scheduling/nodeclaim.go (CanAdd, InstanceTypeFilterError),
// pkg/scheduling/{taints.go,requirements.go}, nodeclaim/lifecycle/liveness.go.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DaemonSet, Node, PersistentVolume, PersistentVolumeClaim } from '../../../../src/model/k8s.js';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../../../src/model/karpenter.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../../../src/simulate/instance-types.js';
import {
  explainKarpenterPending,
  karpenterPodEligibility,
  orderNodePools,
  stuckNodeClaims,
  type KarpenterPlacementContext,
} from '../../../../src/simulate/providers/karpenter/placement.js';
import { pod } from '../../../builders/k8s.js';

function fixture<T>(name: string): T[] {
  return (JSON.parse(readFileSync(new URL(`../../../fixtures/karpenter/${name}.json`, import.meta.url), 'utf8')) as { items: T[] }).items;
}
const data = JSON.parse(readFileSync(new URL('../../../../data/instance-types.json', import.meta.url), 'utf8')) as StaticInstanceTypeData;

const TYPES = ['c5.large', 'c5.xlarge', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'r5.large', 'm4.large', 't3.medium', 'g4dn.xlarge', 'm6g.large', 'c6g.xlarge', 'r6g.large'];
const table = buildInstanceTypeTable(
  { staticListLastUpdateTime: data.staticListLastUpdateTime, instanceTypes: Object.fromEntries(TYPES.map((n) => [n, data.instanceTypes[n]])) },
  [],
  { flags: { awsUseStaticInstanceList: { value: true, origin: 'default', supported: true } } } as never,
);

const NOW = new Date('2026-11-24T10:20:00Z');

function ctx(over: Partial<KarpenterPlacementContext> = {}): KarpenterPlacementContext {
  return {
    nodePools: fixture<NodePool>('nodepools'),
    nodeClasses: fixture<EC2NodeClass>('ec2nodeclasses'),
    nodeClaims: fixture<NodeClaim>('nodeclaims'),
    nodes: fixture<Node>('nodes'),
    daemonSets: fixture<DaemonSet>('daemonsets'),
    instanceTypes: table,
    now: NOW,
    ...over,
  };
}

function pools(mutate: (np: NodePool) => NodePool): NodePool[] {
  return fixture<NodePool>('nodepools').map((np) => mutate(structuredClone(np)));
}

const pending = () => pod('checkout-7d9f8c6b5-x2k4q', 'shop').ownedBy('ReplicaSet', 'checkout-7d9f8c6b5').withRequests({ cpu: '500m', memory: '512Mi' }).unschedulable();

describe('pod eligibility (pod/scheduling.go IsProvisionable, provisioner.go Validate)', () => {
  it('a pod kube-scheduler has not marked Unschedulable is not Karpenter\'s to provision', () => {
    const e = karpenterPodEligibility(pod('web-0', 'shop').withRequests({ cpu: '100m' }).build());
    expect(e.provisionable).toBe(false);
    expect(e.reason).toContain('PodScheduled=False reason Unschedulable');
  });

  it('a DaemonSet pod never triggers provisioning', () => {
    const e = karpenterPodEligibility(pod('fluent-bit-8x2kq', 'logging').ownedBy('DaemonSet', 'fluent-bit').unschedulable().build());
    expect(e).toMatchObject({ provisionable: false, reason: 'DaemonSet pods never trigger Karpenter provisioning' });
  });

  it('a preempting pod (nominatedNodeName) is left alone', () => {
    const e = karpenterPodEligibility(pending().withNominatedNode('ip-10-42-17-201.eu-west-1.compute.internal').build());
    expect(e.provisionable).toBe(false);
    expect(e.reason).toContain('preempting');
  });

  it('a pod requiring karpenter.sh/nodepool DoesNotExist is ignored silently, without an event', () => {
    const p = pending()
      .withRequiredNodeAffinity({ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] })
      .build();
    const e = karpenterPodEligibility(p);
    expect(e).toMatchObject({ provisionable: false, silent: true });
    expect(e.event).toBeUndefined();
    const x = explainKarpenterPending(p, ctx());
    expect(x.event).toBeUndefined();
    expect(x.notes.join(' ')).toContain('another autoscaler');
  });

  it('a node selector on kubernetes.io/hostname is rejected as a restricted label with a FailedScheduling event', () => {
    const e = karpenterPodEligibility(pending().withNodeSelector({ 'kubernetes.io/hostname': 'ip-10-42-17-201' }).build());
    expect(e.provisionable).toBe(false);
    expect(e.event).toMatch(/^Failed to schedule pod, using label kubernetes\.io\/hostname is not allowed as it might interfere with the internal provisioning logic; specify a well known label: \[karpenter\.k8s\.aws\/capacity-reservation-id /);
    expect(e.event).toContain('or a custom label that does not use a restricted domain: [karpenter.k8s.aws karpenter.sh]');
  });

  it('a claim that does not exist makes Karpenter ignore the pod (volumetopology.go ValidatePersistentVolumeClaims)', () => {
    const e = karpenterPodEligibility(pending().withPvc('data-checkout-0').build(), { pvcs: [] });
    expect(e.event).toBe('Failed to schedule pod, getting persistent volume claim, persistentvolumeclaims "data-checkout-0" not found (PersistentVolumeClaim=data-checkout-0)');
  });
});

describe('NodePool order and readiness (nodepool.go OrderByWeight, provisioner.go NewScheduler)', () => {
  it('sorts by weight descending and equal weights by name descending', () => {
    expect(orderNodePools(fixture<NodePool>('nodepools')).map((n) => n.metadata.name)).toEqual(['gpu', 'general', 'batch', 'legacy']);
  });

  it('a NodePool that is not Ready is not evaluated and says which condition holds it back', () => {
    const x = explainKarpenterPending(pending().build(), ctx());
    const legacy = x.pools.find((p) => p.nodePool === 'legacy');
    expect(legacy).toMatchObject({ verdict: 'not-evaluated', stage: 'nodepool-not-ready' });
    expect(legacy?.detail).toContain('NodeClassReady=False (NodeClassNotFound: EC2NodeClass "legacy" not found)');
  });

  it('a static NodePool (spec.replicas) never provisions for pending pods', () => {
    const x = explainKarpenterPending(pending().build(), ctx({ nodePools: pools((np) => (np.metadata.name === 'batch' ? { ...np, spec: { ...np.spec, replicas: 3 } } : np)) }));
    expect(x.pools.find((p) => p.nodePool === 'batch')).toMatchObject({ verdict: 'not-evaluated', stage: 'static-nodepool' });
  });
});

describe('per-NodePool checks in Karpenter\'s order (scheduler.go addToNewNodeClaim, nodeclaim.go CanAdd)', () => {
  it('the first NodePool that fits in weight order wins', () => {
    const x = explainKarpenterPending(pending().build(), ctx());
    expect(x.chosen).toBe('general');
    expect(x.pools.map((p) => [p.nodePool, p.verdict, p.chosen])).toEqual([
      ['gpu', 'rejected', false],
      ['general', 'fits', true],
      ['batch', 'fits', false],
      ['legacy', 'not-evaluated', false],
    ]);
    expect(x.event).toBeUndefined();
  });

  it('limits.nodes reached by the pool\'s nodes reads "node limits have been exhausted for nodepool"', () => {
    const gpu = explainKarpenterPending(pending().build(), ctx()).pools[0];
    expect(gpu).toMatchObject({ stage: 'node-limit', error: 'node limits have been exhausted for nodepool (NodePool=gpu)', remainingLimits: { nodes: '0' } });
  });

  it('remaining CPU below every instance type reads "all available instance types exceed limits for nodepool"', () => {
    const np = pools((n) => (n.metadata.name === 'general' ? { ...n, spec: { ...n.spec, limits: { cpu: '10' } } } : n));
    const general = explainKarpenterPending(pending().build(), ctx({ nodePools: np })).pools.find((p) => p.nodePool === 'general');
    // 10 CPUs minus two m5.xlarge nodes and one in-flight m5.xlarge NodeClaim (4 each): -2 remain
    expect(general).toMatchObject({
      stage: 'resource-limits',
      error: 'all available instance types exceed limits for nodepool (NodePool=general)',
      legacyError: 'all available instance types exceed limits for nodepool "general"',
      remainingLimits: { cpu: '-2' },
    });
  });

  it('an untolerated NodePool taint reads "did not tolerate taint (taint=k=v:Effect)"', () => {
    const np = pools((n) => (n.metadata.name === 'gpu' ? { ...n, spec: { ...n.spec, limits: { nodes: '5' } } } : n));
    const gpu = explainKarpenterPending(pending().build(), ctx({ nodePools: np })).pools[0];
    expect(gpu).toMatchObject({ stage: 'taints', error: 'did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)' });
    expect(gpu.legacyError).toBe(
      'incompatible with nodepool "gpu", daemonset overhead={"cpu":"375m","memory":"320Mi","pods":"4"}, did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)',
    );
  });

  it('a custom label neither required nor set by the NodePool reads `label "K" does not have known values`; a conflicting one names both sides', () => {
    const x = explainKarpenterPending(pending().withNodeSelector({ team: 'ml' }).build(), ctx());
    expect(x.pools.find((p) => p.nodePool === 'general')).toMatchObject({
      stage: 'requirements',
      error: 'incompatible requirements, label "team" does not have known values',
    });
    expect(x.pools.find((p) => p.nodePool === 'batch')).toMatchObject({
      stage: 'requirements',
      error: 'incompatible requirements, key team, team In [ml] not in team In [batch]',
    });
    expect(x.event).toBe(
      'Failed to schedule pod, node limits have been exhausted for nodepool (NodePool=gpu); incompatible requirements, label "team" does not have known values; incompatible requirements, key team, team In [ml] not in team In [batch]',
    );
    expect(x.legacyEvent).toContain('incompatible with nodepool "general", daemonset overhead={"cpu":"325m","memory":"256Mi","pods":"3"}, incompatible requirements, label "team"');
  });

  it('a well-known label the NodePool restricts to other values names both sides, and the pod goes to the pool that allows it', () => {
    const x = explainKarpenterPending(pending().withNodeSelector({ 'kubernetes.io/arch': 'arm64' }).build(), ctx());
    const general = x.pools.find((p) => p.nodePool === 'general');
    expect(general?.error).toBe(
      'incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]',
    );
    expect(x.chosen).toBe('batch');
  });

  it('a claim bound in a zone the NodePool excludes reads "incompatible volume requirements"', () => {
    const pv: PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-5b1e9d3a-2c4f-4e8b-a7d6-0f9e8d7c6b5a' },
      spec: {
        capacity: { storage: '20Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'gp3',
        csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0d3f5b7a9c1e2f468' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1c'] }] }] } },
      },
      status: { phase: 'Bound' },
    };
    const pvc: PersistentVolumeClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-checkout-0', namespace: 'shop', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } },
      spec: { storageClassName: 'gp3', volumeName: pv.metadata.name, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } },
      status: { phase: 'Bound' },
    };
    const np = pools((n) =>
      n.metadata.name === 'batch'
        ? { ...n, spec: { ...n.spec, template: { ...n.spec.template, spec: { ...n.spec.template.spec, requirements: [...n.spec.template.spec.requirements, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a'] }] } } } }
        : n,
    );
    const x = explainKarpenterPending(pending().withPvc('data-checkout-0').build(), ctx({ nodePools: np, pvs: [pv], pvcs: [pvc] }));
    expect(x.pools.find((p) => p.nodePool === 'batch')).toMatchObject({
      stage: 'volume-topology',
      error: 'incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [eu-west-1c] not in topology.kubernetes.io/zone In [eu-west-1a]',
    });
    // general has no zone requirement: the zone only fails against the instance types' subnet zones
    const general = x.pools.find((p) => p.nodePool === 'general');
    expect(general?.stage).toBe('instance-types');
    expect(general?.error).toMatch(/^no instance type met the scheduling requirements or had enough resources or had a required offering, requirements=/);
    expect(general?.funnel.find((f) => f.step === 'requirements')?.remaining).toBe(0);
  });

  it('a pod larger than any instance type reads "no instance type has enough resources" with the DaemonSet overhead in resources=', () => {
    const x = explainKarpenterPending(pending().withRequests({ cpu: '12', memory: '8Gi' }).build(), ctx());
    const general = x.pools.find((p) => p.nodePool === 'general');
    expect(general?.stage).toBe('instance-types');
    expect(general?.error).toMatch(/^no instance type has enough resources, requirements=.*karpenter\.sh\/nodepool In \[general\]/);
    expect(general?.error).toContain('karpenter.k8s.aws/instance-generation Exists >=5');
    expect(general?.error).toMatch(/, resources=\{"cpu":"12325m","memory":"8448Mi","pods":"4"\}$/);
    expect(general?.daemonSets).toEqual(['kube-system/aws-node', 'kube-system/kube-proxy', 'logging/fluent-bit']);
    expect(general?.funnel.map((f) => [f.step, f.remaining])).toEqual([
      ['nodepool', 6], // category c/m/r, generation > 4, amd64: not m4, t3, g4dn or the Graviton types
      ['limits', 6],
      ['requirements', 6],
      ['resources', 0],
      ['offerings', 0],
    ]);
    expect(general?.funnel[0].examples).toEqual(['c5.large', 'm5.large', 'r5.large', 'c5.xlarge', 'm5.xlarge']);
  });

  it('minValues the remaining instance types cannot reach reads "minValues requirement is not met for label(s)"', () => {
    const x = explainKarpenterPending(pending().withNodeSelector({ 'karpenter.k8s.aws/instance-family': 'm6g' }).build(), ctx());
    const batch = x.pools.find((p) => p.nodePool === 'batch');
    expect(batch?.stage).toBe('min-values');
    expect(batch?.error).toMatch(/^minValues requirement is not met for label\(s\) \(label\(s\)=\[karpenter\.k8s\.aws\/instance-family\]\), requirements=/);

    // MIN_VALUES_POLICY=BestEffort relaxes minValues and launches anyway
    const settings = { env: {}, vmMemoryOverheadPercent: 0.075, reservedENIs: 0, minValuesPolicy: 'BestEffort', featureGates: { NodeRepair: false, ReservedCapacity: true, SpotToSpotConsolidation: false, NodeOverlay: false, StaticCapacity: false, CapacityBuffer: false } };
    const relaxed = explainKarpenterPending(pending().withNodeSelector({ 'karpenter.k8s.aws/instance-family': 'm6g' }).build(), ctx({ settings }));
    expect(relaxed.pools.find((p) => p.nodePool === 'batch')?.verdict).toBe('fits');
  });

  it('daemonsets count only where they would run: the GPU device plugin adds overhead on GPU instance types alone', () => {
    const np = pools((n) => (n.metadata.name === 'gpu' ? { ...n, spec: { ...n.spec, limits: { nodes: '5' } } } : n));
    const p = pending().withToleration({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }).withRequests({ 'nvidia.com/gpu': '1' }).build();
    const x = explainKarpenterPending(p, ctx({ nodePools: np }));
    expect(x.chosen).toBe('gpu');
    expect(x.pools[0].daemonSets).toContain('kube-system/nvidia-device-plugin');
    expect(x.pools[0].daemonSetOverhead).toEqual({ cpu: '375m', memory: '320Mi', pods: '4' });
  });
});

describe('pod-wide outcomes (provisioner.go Schedule, scheduler.go add)', () => {
  it('with no Ready dynamic NodePool Karpenter only logs "no dynamic nodepools found" and the pod gets no event', () => {
    const x = explainKarpenterPending(pending().build(), ctx({ nodePools: fixture<NodePool>('nodepools').filter((n) => n.metadata.name === 'legacy') }));
    expect(x.event).toBeUndefined();
    expect(x.notes).toContain('no dynamic nodepools found (Karpenter logs this; the pod gets no event)');
  });

  it('a NodePool whose own requirements match no instance type is dropped with the NoCompatibleInstanceTypes NodePool event', () => {
    const np = pools((n) => (n.metadata.name === 'batch' ? { ...n, spec: { ...n.spec, template: { ...n.spec.template, spec: { ...n.spec.template.spec, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }, { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7g'] }] } } } } : n));
    const x = explainKarpenterPending(pending().withNodeSelector({ team: 'batch' }).build(), ctx({ nodePools: np }));
    const batch = x.pools.find((p) => p.nodePool === 'batch');
    expect(batch).toMatchObject({ verdict: 'not-evaluated', stage: 'nodepool-requirements', funnel: [{ step: 'nodepool', remaining: 0, examples: [] }] });
    expect(batch?.detail).toContain('NodePool requirements filtered out all compatible available instance types');
    // the dropped pool contributes nothing to the pod's event
    expect(x.event).toBe('Failed to schedule pod, node limits have been exhausted for nodepool (NodePool=gpu); incompatible requirements, label "team" does not have known values');
  });

  it('a pod with resourceClaims fails before any NodePool while IGNORE_DRA_REQUESTS is on', () => {
    const x = explainKarpenterPending(pending().withSpec({ resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'single-gpu' }] }).build(), ctx());
    expect(x.event).toBe('Failed to schedule pod, pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter');
    expect(x.chosen).toBeUndefined();
  });

  it('a DoNotSchedule topology spread is evaluated as Karpenter\'s topology does it, not guessed and not left open', () => {
    const x = explainKarpenterPending(pending().withTopologySpread({ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app: 'checkout' } } }).build(), ctx());
    expect(x).toMatchObject({ outcome: 'new-node', chosen: 'general' });
    expect(x.notEvaluated).toBeUndefined();
    expect(x.pools.find((p) => p.nodePool === 'general')).toMatchObject({ verdict: 'fits', chosen: true });
  });
});

describe('launch after scheduling (karpenter-provider-aws amifamily/resolver.go Resolve)', () => {
  it('a pool that fits but whose NodeClass resolved only arm64 AMIs gets the launch error Karpenter will hit', () => {
    const classes = fixture<EC2NodeClass>('ec2nodeclasses').map((c) => ({
      ...c,
      status: { ...c.status, amis: (c.status?.amis ?? []).filter((a) => a.id === 'ami-03a5c7e9b2d4f6180') },
    }));
    const general = explainKarpenterPending(pending().build(), ctx({ nodeClasses: classes })).pools.find((p) => p.nodePool === 'general');
    expect(general).toMatchObject({ verdict: 'fits', chosen: true, launchError: 'no instance types satisfy requirements of amis [ami-03a5c7e9b2d4f6180]' });
  });

  it('the fixture NodeClass with amd64, amd64-GPU and arm64 AMIs launches every fitting type', () => {
    const x = explainKarpenterPending(pending().build(), ctx());
    expect(x.pools.filter((p) => p.launchError)).toEqual([]);
  });
});

describe('relaxation (scheduling/preferences.go Relax)', () => {
  it('a preferred node affinity steers the pod to a lower pool before Karpenter relaxes it', () => {
    const p = pending()
      .withSpec({
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 80, preference: { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] } },
            ],
          },
        },
      })
      .build();
    expect(explainKarpenterPending(p, ctx()).chosen).toBe('batch');
    // PREFERENCE_POLICY=Ignore drops preferences from the start
    const ignoring = explainKarpenterPending(p, ctx({ settings: { env: {}, vmMemoryOverheadPercent: 0.075, reservedENIs: 0, preferencePolicy: 'Ignore', featureGates: { NodeRepair: false, ReservedCapacity: true, SpotToSpotConsolidation: false, NodeOverlay: false, StaticCapacity: false, CapacityBuffer: false } } }));
    expect(ignoring.chosen).toBe('general');
  });

  it('a PreferNoSchedule pool is used only after every other pool failed and the taint is tolerated as the last relaxation', () => {
    const np = pools((n) => {
      if (n.metadata.name === 'gpu') return { ...n, spec: { ...n.spec, limits: { nodes: '5' }, template: { ...n.spec.template, spec: { ...n.spec.template.spec, taints: [{ key: 'spot-only', value: 'true', effect: 'PreferNoSchedule' }], requirements: [] } } } };
      return n;
    });
    const x = explainKarpenterPending(pending().build(), ctx({ nodePools: np }));
    expect(x.chosen).toBe('general');
    expect(x.pools[0]).toMatchObject({ nodePool: 'gpu', verdict: 'rejected', stage: 'taints', error: 'did not tolerate taint (taint=spot-only=true:PreferNoSchedule)' });
    const big = explainKarpenterPending(pending().withNodeSelector({ 'workload-type': 'gpu' }).build(), ctx({ nodePools: np }));
    expect(big.chosen).toBe('gpu');
    expect(big.notes).toContain('Karpenter places the pod only after relaxing: PreferNoSchedule taints tolerated');
  });
});

describe('NodeClaims that launched but never joined (nodeclaim/lifecycle/liveness.go)', () => {
  it('a NodeClaim launched 26 minutes ago without a Node is past the 15m registration timeout', () => {
    const stuck = stuckNodeClaims(fixture<NodeClaim>('nodeclaims'), new Set(['general']), NOW);
    expect(stuck).toHaveLength(1);
    expect(stuck[0]).toMatchObject({ name: 'general-x7k2p', stage: 'registration', overdue: true, providerID: 'aws:///eu-west-1b/i-09a1b3c5d7e9f2468' });
    expect(stuck[0].ageMs).toBe(26 * 60_000 + 48_000);
    expect(stuck[0].message).toContain('registration_timeout');
  });

  it('a registered NodeClaim that never initialized is reported with the reason from its condition', () => {
    const [gpu] = stuckNodeClaims(fixture<NodeClaim>('nodeclaims'), new Set(['gpu']), NOW);
    expect(gpu).toMatchObject({ name: 'gpu-q9w3e', stage: 'initialization', overdue: false, nodeName: 'ip-10-42-9-77.eu-west-1.compute.internal' });
    expect(gpu.message).toContain('resource "nvidia.com/gpu" was not registered');
  });

  it('the explanation lists stuck NodeClaims of the NodePool the pod would use', () => {
    const x = explainKarpenterPending(pending().build(), ctx());
    expect(x.stuckNodeClaims.map((s) => s.name)).toEqual(['general-x7k2p']);
  });
});
