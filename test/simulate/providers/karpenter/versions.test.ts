// Karpenter's behaviour by version (src/simulate/providers/karpenter/versions.ts) and the rules that read it: each
// expectation is what the named tag of kubernetes-sigs/karpenter or aws/karpenter-provider-aws does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DaemonSet, Node } from '../../../../src/model/k8s.js';
import { DEFAULT_KARPENTER_FEATURE_GATES, type EC2NodeClass, type KarpenterDeploymentSettings, type NodeClaim, type NodePool } from '../../../../src/model/karpenter.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../../../src/simulate/instance-types.js';
import { karpenterDisruptionBlockers } from '../../../../src/simulate/providers/karpenter/disruption.js';
import {
  explainKarpenterPending,
  karpenterPodEligibility,
  stuckNodeClaims,
  templateRequirements,
  type KarpenterPlacementContext,
} from '../../../../src/simulate/providers/karpenter/placement.js';
import { wellKnownLabelsFor, withKarpenterTextVersion } from '../../../../src/simulate/providers/karpenter/requirements.js';
import { AWS_TO_CORE, KARPENTER_RULES, karpenterHas, karpenterVersion } from '../../../../src/simulate/providers/karpenter/versions.js';
import { pod } from '../../../builders/k8s.js';
import { loadKarpenterFixture, NOW as DISRUPTION_NOW } from '../../../fixtures/karpenter-disruption/load.js';

function fixture<T>(name: string): T[] {
  return (JSON.parse(readFileSync(new URL(`../../../fixtures/karpenter/${name}.json`, import.meta.url), 'utf8')) as { items: T[] }).items;
}
const data = JSON.parse(readFileSync(new URL('../../../../data/instance-types.json', import.meta.url), 'utf8')) as StaticInstanceTypeData;
const TYPES = ['c5.large', 'c5.xlarge', 'm5.large', 'm5.xlarge', 'm5.2xlarge', 'r5.large', 't3.medium', 'g4dn.xlarge', 'm6g.large'];
const table = buildInstanceTypeTable(
  { staticListLastUpdateTime: data.staticListLastUpdateTime, instanceTypes: Object.fromEntries(TYPES.map((n) => [n, data.instanceTypes[n]])) },
  [],
  { flags: { awsUseStaticInstanceList: { value: true, origin: 'default', supported: true } } } as never,
);

function settings(version: string | undefined): KarpenterDeploymentSettings {
  return { env: {}, vmMemoryOverheadPercent: 0.075, reservedENIs: 0, featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES }, ...(version ? { version } : {}) };
}

function ctx(version: string | undefined, over: Partial<KarpenterPlacementContext> = {}): KarpenterPlacementContext {
  return {
    nodePools: fixture<NodePool>('nodepools'),
    nodeClasses: fixture<EC2NodeClass>('ec2nodeclasses'),
    nodeClaims: fixture<NodeClaim>('nodeclaims'),
    nodes: fixture<Node>('nodes'),
    daemonSets: fixture<DaemonSet>('daemonsets'),
    instanceTypes: table,
    settings: settings(version),
    now: new Date('2026-11-24T10:20:00Z'),
    ...over,
  };
}

const pending = () => pod('checkout-7d9f8c6b5-x2k4q', 'shop').ownedBy('ReplicaSet', 'checkout-7d9f8c6b5').withRequests({ cpu: '500m', memory: '512Mi' }).unschedulable();

describe('the version table', () => {
  it('maps the AWS image to the core it vendors: AWS 1.6.2 runs core 1.6.1 (go.mod@aws v1.6.2)', () => {
    expect(karpenterVersion('1.6.2')).toEqual({ image: '1.6.2', core: '1.6.1', known: true });
    expect(AWS_TO_CORE['1.11.2']).toBe('1.11.0');
    // the core fix a29df2ab6 (drift of empty drifted nodes) is in core 1.6.2, so AWS 1.6.3 has it and AWS 1.6.2 does not
    expect(karpenterHas('1.6.2', 'empty-drifted-by-drift')).toBe(false);
    expect(karpenterHas('1.6.3', 'empty-drifted-by-drift')).toBe(true);
  });

  it('says an unknown version is unknown, and applies the newest behaviour', () => {
    const v = karpenterVersion(undefined);
    expect(v.known).toBe(false);
    expect(v.note).toContain("Karpenter's version is unknown");
    expect(karpenterHas(undefined, 'node-limit-scheduling')).toBe(true);
    expect(karpenterVersion('1.20.0')).toMatchObject({ known: false, note: expect.stringContaining('newer than the newest version casdoctor models (v1.14.1)') });
  });

  it('a reverted behaviour holds only in its own versions (topology domains by NodePool: v1.11.x)', () => {
    expect(['1.10.2', '1.11.0', '1.11.3', '1.12.0', undefined].map((v) => karpenterHas(v, 'topology-domains-by-nodepool'))).toEqual([false, true, true, false, false]);
  });

  it('every row cites a source with a tag or a commit', () => {
    for (const [rule, row] of Object.entries(KARPENTER_RULES)) expect(row.source, rule).toMatch(/@(v\d+\.\d+\.\d+|[0-9a-f]{12})/);
  });

  it('AWS well-known labels follow the AWS version: instance-tenancy from 1.9.0, placement groups from 1.11.0', () => {
    expect(wellKnownLabelsFor('1.6.2').has('karpenter.k8s.aws/instance-tenancy')).toBe(false);
    expect(wellKnownLabelsFor('1.6.2').has('karpenter.k8s.aws/instance-family')).toBe(true);
    expect(wellKnownLabelsFor('1.9.0').has('karpenter.k8s.aws/instance-tenancy')).toBe(true);
    expect(wellKnownLabelsFor('1.10.2').has('karpenter.k8s.aws/placement-group-id')).toBe(false);
    expect(wellKnownLabelsFor('1.14.1').has('karpenter.k8s.aws/nitro-sandbox')).toBe(false);
  });
});

describe('placement as the input\'s version does it', () => {
  it('limits.nodes does not stop scheduling before v1.11 (scheduler.go:551-568@v1.6.2); v1.11 says node limits are exhausted', () => {
    const old = explainKarpenterPending(pending().build(), ctx('1.6.2')).pools.find((p) => p.nodePool === 'gpu');
    expect(old?.stage).not.toBe('node-limit');
    expect(old?.error ?? '').not.toContain('node limits have been exhausted');
    const v11 = explainKarpenterPending(pending().build(), ctx('1.11.0')).pools.find((p) => p.nodePool === 'gpu');
    expect(v11).toMatchObject({ stage: 'node-limit', error: 'node limits have been exhausted for nodepool (NodePool=gpu)' });
    // no pre-v1.5 text for a check that did not exist then
    expect(v11?.legacyError).toBeUndefined();
  });

  it('before v1.11 limits.nodes blocks only once usage is above it, as "all available instance types exceed limits" (scheduler.go:764-780@v1.6.2)', () => {
    // general has two nodes and one in-flight NodeClaim: limits.nodes 3 leaves 0 (fits at 1.6.2), 2 leaves -1 (blocked)
    const withNodes = (n: string) => fixture<NodePool>('nodepools').map((np) => (np.metadata.name === 'general' ? { ...np, spec: { ...np.spec, limits: { nodes: n } } } : np));
    const at = (n: string, v: string) => explainKarpenterPending(pending().build(), ctx(v, { nodePools: withNodes(n) })).pools.find((p) => p.nodePool === 'general');
    expect(at('3', '1.6.2')?.verdict).toBe('fits');
    expect(at('2', '1.6.2')).toMatchObject({ verdict: 'rejected', stage: 'resource-limits', error: 'all available instance types exceed limits for nodepool (NodePool=general)' });
    expect(at('3', '1.11.0')).toMatchObject({ verdict: 'rejected', stage: 'node-limit' });
  });

  it('NodeClaim templates carry karpenter.sh/registered and initialized only from v1.14 (nodeclaimtemplate.go:86-89@v1.14.1)', () => {
    const np = fixture<NodePool>('nodepools')[0];
    expect([...templateRequirements(np, '1.6.2').keys()]).not.toContain('karpenter.sh/initialized');
    expect([...templateRequirements(np, '1.14.0').keys()]).toContain('karpenter.sh/initialized');
    const x = explainKarpenterPending(pending().withNodeSelector({ 'topology.kubernetes.io/zone': 'us-west-2z' }).build(), ctx('1.6.2'));
    expect(x.event).toBeDefined();
    expect(x.event).not.toContain('karpenter.sh/registered');
  });

  it('a label in kubernetes.io is restricted before v1.9, logged only (no event before v1.7); from v1.9 it is just an unknown label', () => {
    const p = pending().withNodeSelector({ 'node-role.kubernetes.io/worker': 'true' }).build();
    const old = withKarpenterTextVersion('1.6.2', () => karpenterPodEligibility(p, { settings: settings('1.6.2') }));
    expect(old).toMatchObject({ provisionable: false, silent: true });
    expect(old.event).toBeUndefined();
    expect(old.reason).toMatch(/^ignoring pod, label is restricted; specify a well known label or a custom label that does not use a restricted domain \(label=node-role\.kubernetes\.io\/worker, well-known-labels=\[/);
    expect(old.reason).toContain('restricted-labels=[k8s.io karpenter.k8s.aws karpenter.sh kubernetes.io])');
    // v1.7/v1.8: same rule, but an event
    const v18 = withKarpenterTextVersion('1.8.0', () => karpenterPodEligibility(p, { settings: settings('1.8.0') }));
    expect(v18.event).toMatch(/^Failed to schedule pod, label is restricted/);
    // v1.9: kubernetes.io is no longer restricted
    expect(withKarpenterTextVersion('1.9.0', () => karpenterPodEligibility(p, { settings: settings('1.9.0') })).provisionable).toBe(true);
    // node.kubernetes.io is an exception at every version
    const ok = pending().withNodeSelector({ 'node.kubernetes.io/lifecycle': 'normal' }).build();
    expect(withKarpenterTextVersion('1.6.2', () => karpenterPodEligibility(ok, { settings: settings('1.6.2') })).provisionable).toBe(true);
  });

  it('Gt/Lt print as " >5" before v1.9 and " >=6" from v1.9', () => {
    const p = pending().withRequiredNodeAffinity({ matchExpressions: [{ key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] }, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2z'] }] }).build();
    expect(explainKarpenterPending(p, ctx('1.6.2')).event).toContain('karpenter.k8s.aws/instance-generation Exists >5');
    expect(explainKarpenterPending(p, ctx('1.9.0')).event).toContain('karpenter.k8s.aws/instance-generation Exists >=6');
  });

  it('the 5m launch timeout is v1.7+ (liveness.go@v1.7.0): before, a NodeClaim that never launches has no bound', () => {
    const claim: NodeClaim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'general-l4nch', labels: { 'karpenter.sh/nodepool': 'general' }, creationTimestamp: '2026-11-24T10:00:00Z' },
      spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
      status: { conditions: [{ type: 'Launched', status: 'Unknown', reason: 'Launching', lastTransitionTime: '2026-11-24T10:00:00Z' }] },
    } as NodeClaim;
    const now = new Date('2026-11-24T10:20:00Z');
    expect(stuckNodeClaims([claim], undefined, now, '1.6.2')[0]).toMatchObject({ stage: 'launch', overdue: false });
    expect(stuckNodeClaims([claim], undefined, now, '1.6.2')[0].boundMs).toBeUndefined();
    expect(stuckNodeClaims([claim], undefined, now, '1.7.0')[0]).toMatchObject({ stage: 'launch', boundMs: 300_000, overdue: true });
  });

  it('a placement without the controller Deployment says the version is unknown', () => {
    const x = explainKarpenterPending(pending().build(), { ...ctx(undefined), settings: undefined } as unknown as KarpenterPlacementContext);
    expect(x.notes.join(' ')).toContain('its version is unknown');
  });
});

describe('disruption texts of the input\'s version', () => {
  const N3 = 'ip-10-0-103-9.ec2.internal'; // payments-api-0 under a PDB allowing 0
  function blockers(version: string) {
    const f = loadKarpenterFixture();
    const node = f.nodes.find((n) => n.metadata.name === N3)!;
    return karpenterDisruptionBlockers(node, {
      now: DISRUPTION_NOW,
      nodes: f.nodes,
      nodeClaims: f.nodeClaims,
      nodePools: f.nodePools,
      pods: f.pods,
      pdbs: f.pdbs,
      events: f.events,
      settings: { featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES }, batchMaxDuration: '10s', version },
    }).blockers;
  }
  it('the PDB blocker names one PDB without brackets before v1.7 (statenode.go:247@v1.6.2) and a list from v1.7 (:250@v1.7.0)', () => {
    expect(blockers('1.6.2').find((b) => b.id === 'pdb-blocks-eviction')?.karpenterText).toMatch(/^pdb prevents pod evictions \(PodDisruptionBudget=[a-z-]+\/[a-z-]+\)$/);
    expect(blockers('1.7.0').find((b) => b.id === 'pdb-blocks-eviction')?.karpenterText).toMatch(/^pdb prevents pod evictions \(PodDisruptionBudget=\[[a-z-]+\/[a-z-]+\]\)$/);
  });
});
