import { describe, expect, it } from 'vitest';
import {
  NODE_RESOURCES_FIT,
  nodeResourcesFit,
  REASON_TOO_MANY_PODS,
} from '../../src/simulate/predicates/node-resources-fit.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { node, pod } from '../builders/k8s.js';

const view = buildClusterView({ nodes: [], pods: [] });
const N = 'ip-10-0-1-23.ec2.internal';
// allocatable: cpu 3920m, memory 14880140Ki, pods 58, ephemeral-storage 76224326324
const m5 = node(N).build();
const busy = [
  pod('api-0').withRequests({ cpu: '1', memory: '4Gi' }).onNode(N).build(),
  pod('aws-node-7xk2d', 'kube-system').withRequests({ cpu: '250m' }).onNode(N).build(),
];

describe('NodeResourcesFit', () => {
  it('passes a pod that fits the free capacity exactly', () => {
    const p = pod().withRequests({ cpu: '2670m' }).build();
    expect(nodeResourcesFit(p, nodeInfoFor(m5, busy), view).code).toBe('Success');
  });

  it('reports Insufficient cpu with the concrete numbers', () => {
    const p = pod().withRequests({ cpu: '3' }).build();
    const s = nodeResourcesFit(p, nodeInfoFor(m5, busy), view);
    expect(s).toEqual({
      plugin: NODE_RESOURCES_FIT,
      code: 'Unschedulable',
      reasons: ['Insufficient cpu'],
      details: ['requests cpu 3, node allocatable 3920m, already requested 1250m, free 2670m'],
    });
  });

  it('reports every shortfall in upstream order: pods, cpu, memory, ephemeral-storage, extended', () => {
    const full = node(N).withAllocatable({ pods: '2' }).build();
    const p = pod()
      .withRequests({ 'nvidia.com/gpu': '1', 'ephemeral-storage': '100Gi', memory: '12Gi', cpu: '3' })
      .build();
    const s = nodeResourcesFit(p, nodeInfoFor(full, busy), view);
    expect(s.reasons).toEqual([
      REASON_TOO_MANY_PODS,
      'Insufficient cpu',
      'Insufficient memory',
      'Insufficient ephemeral-storage',
      'Insufficient nvidia.com/gpu',
    ]);
    expect(s.details?.[0]).toBe(`node ${N} already runs 2 pods, allocatable pods 2`);
    expect(s.details?.[4]).toBe('requests nvidia.com/gpu 1, node allocatable 0, already requested 0, free 0');
  });

  it('checks extended resources in name order', () => {
    const p = pod().withRequests({ 'vpc.amazonaws.com/pod-eni': '1', 'nvidia.com/gpu': '1' }).build();
    expect(nodeResourcesFit(p, nodeInfoFor(m5, []), view).reasons).toEqual([
      'Insufficient nvidia.com/gpu',
      'Insufficient vpc.amazonaws.com/pod-eni',
    ]);
  });

  it('reports Too many pods even for a pod without requests', () => {
    const full = node(N).withAllocatable({ pods: '2' }).build();
    const s = nodeResourcesFit(pod().build(), nodeInfoFor(full, busy), view);
    expect(s).toMatchObject({ code: 'Unschedulable', reasons: ['Too many pods'] });
  });

  it('rejects every pod on a node without allocatable pods', () => {
    const nopods = node(N).withoutResources('pods').build();
    expect(nodeResourcesFit(pod().build(), nodeInfoFor(nopods, []), view).reasons).toEqual(['Too many pods']);
  });

  it('ignores zero requests', () => {
    const p = pod().withRequests({ cpu: '0', 'nvidia.com/gpu': '0' }).build();
    expect(nodeResourcesFit(p, nodeInfoFor(m5, busy), view).code).toBe('Success');
  });

  it('is unresolvable when the request exceeds the whole node', () => {
    const p = pod().withRequests({ cpu: '8' }).build();
    const s = nodeResourcesFit(p, nodeInfoFor(m5, []), view);
    expect(s.code).toBe('UnschedulableAndUnresolvable');
    expect(s.details).toEqual(['requests cpu 8, node allocatable 3920m, already requested 0, free 3920m']);
  });

  it('uses the effective requests including init containers and overhead', () => {
    const p = pod()
      .withRequests({ cpu: '100m' })
      .withInitContainer({ requests: { cpu: '3' } })
      .build();
    expect(nodeResourcesFit(p, nodeInfoFor(m5, busy), view).reasons).toEqual(['Insufficient cpu']);
  });

  it('reports memory in binary units', () => {
    const p = pod().withRequests({ memory: '12Gi' }).build();
    const s = nodeResourcesFit(p, nodeInfoFor(m5, busy), view);
    expect(s.details).toEqual([
      'requests memory 12Gi, node allocatable 14880140Ki, already requested 4Gi, free 10685836Ki',
    ]);
  });

  it('formats negative free capacity on an overcommitted node', () => {
    const over = [pod('hog').withRequests({ cpu: '5' }).onNode(N).build()];
    const s = nodeResourcesFit(pod().withRequests({ cpu: '100m' }).build(), nodeInfoFor(m5, over), view);
    expect(s.details).toEqual([
      'requests cpu 100m, node allocatable 3920m, already requested 5, free -1080m',
    ]);
  });
});
