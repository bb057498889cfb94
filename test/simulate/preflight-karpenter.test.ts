// preflight's Karpenter layer (src/simulate/providers/karpenter/preflight.ts): NodeClasses stood in when missing or
// without status, the three outcomes, startup taints, opt-out pods and which autoscaler serves a workload.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EC2NodeClass, NodePool } from '../../src/model/karpenter.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../src/simulate/instance-types.js';
import {
  karpenterPreflightContext,
  type KarpenterPreflightInput,
  karpenterPreflightWorkload,
  servedBy,
  UNKNOWN_ZONE,
} from '../../src/simulate/providers/karpenter/preflight.js';
import { pod } from '../builders/k8s.js';

const data = JSON.parse(readFileSync(new URL('../../data/instance-types.json', import.meta.url), 'utf8')) as StaticInstanceTypeData;
const TYPES = ['c6i.large', 'm6i.large', 'm6i.xlarge', 'r6i.large', 'm7g.large', 'c7g.xlarge', 'g5.xlarge'];
const table = buildInstanceTypeTable(
  { staticListLastUpdateTime: data.staticListLastUpdateTime, instanceTypes: Object.fromEntries(TYPES.map((n) => [n, data.instanceTypes[n]])) },
  [],
  { flags: { awsUseStaticInstanceList: { value: true, origin: 'default', supported: true } } } as never,
);

function nodePool(name: string, spec: Partial<NodePool['spec']['template']['spec']> = {}, over: Partial<NodePool['spec']> = {}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
          ...spec,
        },
      },
      ...over,
    },
  };
}

const specOnly: EC2NodeClass = {
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'default' },
  spec: {
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
    role: 'KarpenterNodeRole-prod',
  },
};

function input(over: Partial<KarpenterPreflightInput> = {}): KarpenterPreflightInput {
  return {
    pools: [{ nodePool: nodePool('default'), source: 'manifests' }],
    nodeClasses: [],
    daemonSets: [],
    pods: [],
    nodes: [],
    nodeClaims: [],
    pvcs: [],
    pvs: [],
    storageClasses: [],
    instanceTypes: table,
    now: new Date('2026-11-21T10:00:00Z'),
    ...over,
  };
}

const web = () => pod('web-0', 'shop').withRequests({ cpu: '500m', memory: '1Gi' }).build();

describe('karpenterPreflightContext', () => {
  it('stands in a NodeClass that is not given, offering the zones the inputs name plus one for any other', () => {
    const ctx = karpenterPreflightContext(input({ knownZones: ['eu-west-1a'] }));
    expect(ctx.placement.nodeClasses[0].status?.subnets?.map((s) => s.zone)).toEqual(['eu-west-1a', UNKNOWN_ZONE]);
    expect(ctx.pools[0].nodeClass).toEqual({ name: 'default', given: false, zonesKnown: false, amisKnown: false });
    expect(ctx.pools[0].zones).toBeUndefined();
    expect(ctx.pools[0].notEvaluated[0].missing).toMatch(/^EC2NodeClass default \(AMI family/);
  });

  it('takes AMI requirements from an alias when the NodeClass has no status, but not its zones', () => {
    const ctx = karpenterPreflightContext(input({ nodeClasses: [{ nodeClass: specOnly, source: 'manifests' }] }));
    expect(ctx.pools[0].nodeClass).toMatchObject({ given: true, zonesKnown: false, amisKnown: true });
    expect(ctx.pools[0].notEvaluated.map((n) => n.missing)).toEqual([
      'zones: EC2NodeClass default has no status.subnets, so the zones Karpenter launches into are not evaluated',
    ]);
  });
});

describe('karpenterPreflightWorkload', () => {
  it('fits with zones and AMIs named as not evaluated when the NodeClass is missing', () => {
    const v = karpenterPreflightWorkload(karpenterPreflightContext(input()), web());
    expect(v).toMatchObject({ outcome: 'fits', nodePool: 'default' });
    // every amd64 type of the table, smallest first: the pool restricts only the architecture
    expect(v.instanceTypes).toEqual(['c6i.large', 'm6i.large', 'r6i.large', 'g5.xlarge', 'm6i.xlarge']);
    expect(v.nodePools[0].notEvaluated?.map((n) => n.missing.split(':')[0])).toEqual([
      'zones',
      'AMI requirements of EC2NodeClass default (not among the inputs)',
    ]);
  });

  it('is not evaluated when the pod needs a zone and the subnets are unknown', () => {
    const zonal = pod('db-0', 'shop').withRequests({ cpu: '500m' }).withNodeSelector({ 'topology.kubernetes.io/zone': 'eu-west-1c' }).build();
    const v = karpenterPreflightWorkload(karpenterPreflightContext(input({ knownZones: ['eu-west-1c'] })), zonal);
    expect(v.outcome).toBe('not-evaluated');
    expect(v.nodePools[0].detail).toContain("the pod requires a zone and the zones of EC2NodeClass default's subnets are unknown");
  });

  it('does not hold startup taints against the pod, but does hold taints', () => {
    const startup = nodePool('cilium', { startupTaints: [{ key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' }] });
    const tainted = nodePool('dedicated', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }, { weight: 10 });
    const ctx = karpenterPreflightContext(input({ pools: [{ nodePool: startup, source: 'manifests' }, { nodePool: tainted, source: 'manifests' }] }));
    const v = karpenterPreflightWorkload(ctx, web());
    expect(v.nodePools.map((p) => [p.nodePool, p.outcome, p.error])).toEqual([
      ['dedicated', 'rejected', 'did not tolerate taint (taint=dedicated=db:NoSchedule)'],
      ['cilium', 'fits', undefined],
    ]);
    expect(v.nodePool).toBe('cilium');
  });

  it('leaves a pod that opts out of Karpenter alone, silently', () => {
    const optOut = pod('legacy-0', 'shop')
      .withRequiredNodeAffinity({ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] })
      .build();
    const v = karpenterPreflightWorkload(karpenterPreflightContext(input()), optOut);
    expect(v.outcome).toBe('ignored');
    expect(v.ignored).toEqual({
      reason: 'configured to not run on a Karpenter provisioned node (requirement=karpenter.sh/nodepool DoesNotExist)',
      silent: true,
    });
  });

  it('rejects a GPU pod on a pool of general-purpose families at the resources step', () => {
    const gpu = pod('train-0', 'ml').withRequests({ cpu: '1' }).withLimits({ 'nvidia.com/gpu': '1' }).build();
    const np = nodePool('general', { requirements: [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] }] });
    const v = karpenterPreflightWorkload(karpenterPreflightContext(input({ pools: [{ nodePool: np, source: 'manifests' }] })), gpu);
    expect(v.outcome).toBe('rejected');
    expect(v.nodePools[0].error).toMatch(/^no instance type has enough resources, /);
    expect(v.event).toMatch(/^Failed to schedule pod, no instance type has enough resources/);
  });
});

describe('servedBy', () => {
  const fits = karpenterPreflightWorkload(karpenterPreflightContext(input()), web());
  it('says both autoscalers when a CA group and a NodePool fit, Karpenter alone when no group does', () => {
    expect(servedBy(fits, { given: true, fits: ['ng-1'], undecided: false }).servedBy).toBe('both');
    expect(servedBy(fits, { given: true, fits: [], undecided: false })).toEqual({
      servedBy: 'karpenter',
      text: 'Karpenter, NodePool default (c6i.large, m6i.large, r6i.large, ...); no CA node group fits',
    });
  });
  it('says neither, or not evaluated when a CA group could not be judged', () => {
    const rejected = { ...fits, outcome: 'rejected' as const };
    expect(servedBy(rejected, { given: true, fits: [], undecided: false }).servedBy).toBe('neither');
    expect(servedBy(rejected, { given: true, fits: [], undecided: true }).servedBy).toBe('not-evaluated');
    expect(servedBy(rejected, { given: true, fits: ['ng-1'], undecided: false }).servedBy).toBe('ca');
  });
});
