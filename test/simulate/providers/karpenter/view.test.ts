import { describe, expect, it } from 'vitest';
import { instanceIdFromProviderId, nodePoolView, nodePoolViews } from '../../../../src/simulate/providers/karpenter/view.js';
import { loadKarpenterFixture } from '../../../fixtures/karpenter-disruption/load.js';

function inputs() {
  const f = loadKarpenterFixture();
  return { ...f, nodeClasses: f.nodeClasses };
}

describe('nodePoolViews', () => {
  it('orders NodePools as Karpenter tries them: weight descending (nodepool.go OrderByWeight)', () => {
    expect(nodePoolViews(inputs()).map((v) => v.name)).toEqual(['gpu', 'batch', 'general']);
  });

  it('breaks weight ties by name descending, as OrderByWeight does', () => {
    const f = inputs();
    for (const np of f.nodePools) delete np.spec.weight;
    expect(nodePoolViews(f).map((v) => v.name)).toEqual(['gpu', 'general', 'batch']);
  });
});

describe('nodePoolView', () => {
  it('maps the general pool onto a node-group shape: nodes by label, min 0, no node limit, zones from the NodeClass subnets', () => {
    const f = inputs();
    const v = nodePoolView(f.nodePools.find((np) => np.metadata.name === 'general')!, f);
    expect(v).toMatchObject({
      provider: 'karpenter',
      name: 'general',
      minSize: 0,
      maxSize: Infinity,
      targetSize: 4,
      zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
      zonesSource: 'nodeclass-status',
      nodeClassName: 'default',
      placeholderCount: 0,
    });
    expect(v.nodes.map((n) => n.metadata.name)).toEqual(['ip-10-0-101-17.ec2.internal', 'ip-10-0-102-44.ec2.internal', 'ip-10-0-103-9.ec2.internal']);
    expect(v.instanceIds).toContain('i-0a1b2c3d4e5f60711');
  });

  it('lists the NodeClaim whose node never joined as an unregistered instance', () => {
    const f = inputs();
    const v = nodePoolView(f.nodePools.find((np) => np.metadata.name === 'general')!, f);
    expect(v.unregisteredInstances).toEqual([{ InstanceId: 'i-0f60718293a4b5c66', LifecycleState: 'Launched', AvailabilityZone: 'us-east-1b' }]);
  });

  it('compares the pool\'s resources with its limits, from status.resources', () => {
    const f = inputs();
    const v = nodePoolView(f.nodePools.find((np) => np.metadata.name === 'general')!, f);
    expect(v.resources.find((r) => r.resource === 'cpu')).toMatchObject({ used: 14, limit: 1000, exceeded: false, usedText: '14', limitText: '1000' });
    expect(v.resources.find((r) => r.resource === 'memory')).toMatchObject({ limitText: '4000Gi', exceeded: false });
    expect(v.resources.find((r) => r.resource === 'nodes')).toMatchObject({ used: 4, limit: undefined });
  });

  it('takes maxSize from limits.nodes and flags a limit already exceeded', () => {
    const f = inputs();
    const batch = f.nodePools.find((np) => np.metadata.name === 'batch')!;
    batch.spec.limits = { cpu: '4', nodes: '20' };
    const v = nodePoolView(batch, f);
    expect(v.maxSize).toBe(20);
    expect(v.resources.find((r) => r.resource === 'cpu')).toMatchObject({ used: 8, limit: 4, exceeded: true });
  });

  it('narrows the NodeClass subnets to the pool\'s own zone requirement', () => {
    const f = inputs();
    const v = nodePoolView(f.nodePools.find((np) => np.metadata.name === 'gpu')!, f);
    expect(v).toMatchObject({ zones: ['us-east-1a'], zonesSource: 'nodeclass-status', nodes: [], targetSize: 0, weight: 50 });
  });

  it('falls back to the pool requirement and says so when the NodeClass is missing', () => {
    const f = inputs();
    f.nodeClasses = [];
    const v = nodePoolView(f.nodePools.find((np) => np.metadata.name === 'general')!, f);
    expect(v).toMatchObject({ zonesSource: 'nodepool-requirements', zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'] });
    expect(v.notes).toEqual(['EC2NodeClass default is not in the input']);
  });

  it('sums node capacity itself when the NodePool has no status yet', () => {
    const f = inputs();
    const batch = f.nodePools.find((np) => np.metadata.name === 'batch')!;
    delete batch.status;
    const v = nodePoolView(batch, f);
    expect(v.resources.find((r) => r.resource === 'cpu')).toMatchObject({ used: 8, limit: 256 });
    expect(v.resources.find((r) => r.resource === 'nodes')).toMatchObject({ used: 1, limit: 20 });
  });

  it('uses spec.replicas as size for a static NodePool', () => {
    const f = inputs();
    const batch = f.nodePools.find((np) => np.metadata.name === 'batch')!;
    batch.spec.replicas = 3;
    delete batch.spec.limits;
    expect(nodePoolView(batch, f)).toMatchObject({ maxSize: 3, targetSize: 3, replicas: 3 });
  });
});

describe('instanceIdFromProviderId', () => {
  it('reads the EC2 instance id from an AWS provider ID and nothing else', () => {
    expect(instanceIdFromProviderId('aws:///us-east-1a/i-0a1b2c3d4e5f60711')).toBe('i-0a1b2c3d4e5f60711');
    expect(instanceIdFromProviderId('kind://docker/kind/kind-worker')).toBeUndefined();
  });
});
