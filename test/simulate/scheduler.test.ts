import { describe, expect, it } from 'vitest';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import {
  buildClusterView,
  DEFAULT_FILTER_ORDER,
  evaluateAllFilters,
  isAssignedActivePod,
  runFilters,
  runPreFilters,
} from '../../src/simulate/scheduler.js';
import { node, pod, pv, pvc, storageClass } from '../builders/k8s.js';

const N = 'ip-10-0-1-23.ec2.internal';
const emptyView = buildClusterView({ nodes: [], pods: [], pvcs: [], pvs: [], storageClasses: [] });

describe('DEFAULT_FILTER_ORDER', () => {
  it('follows kube-scheduler’s default plugin order for the plugins we implement', () => {
    expect(DEFAULT_FILTER_ORDER).toEqual([
      'NodeUnschedulable',
      'NodeName',
      'TaintToleration',
      'NodeAffinity',
      'NodePorts',
      'NodeResourcesFit',
      'VolumeBinding',
      'VolumeZone',
      'PodTopologySpread',
      'InterPodAffinity',
    ]);
  });
});

describe('runFilters', () => {
  const big = pod('big').withRequests({ cpu: '8' }).build();

  it('reports only the taint on a node that is both tainted and too small, because TaintToleration runs first', () => {
    const info = nodeInfoFor(node(N).withTaint('dedicated', 'gpu').build(), []);
    const r = runFilters(big, info, emptyView);
    expect(r.fits).toBe(false);
    expect(r.failure).toMatchObject({
      plugin: 'TaintToleration',
      reasons: ['node(s) had untolerated taint {dedicated: gpu}'],
    });
    expect(r.notEvaluated).toEqual([]);
  });

  it('reports the cordon before the taint on a cordoned node', () => {
    const r = runFilters(big, nodeInfoFor(node(N).unschedulable().build(), []), emptyView);
    expect(r.failure?.plugin).toBe('NodeUnschedulable');
  });

  it('reports resources when nothing earlier fails', () => {
    const r = runFilters(big, nodeInfoFor(node(N).build(), []), emptyView);
    expect(r.failure).toMatchObject({ plugin: 'NodeResourcesFit', reasons: ['Insufficient cpu'] });
  });

  it('fits when every plugin passes', () => {
    expect(
      runFilters(pod().withRequests({ cpu: '1' }).build(), nodeInfoFor(node(N).build(), []), emptyView),
    ).toEqual({
      fits: true,
      notEvaluated: [],
    });
  });

  it('never counts a NotEvaluated plugin as a pass, and keeps going', () => {
    const noStorage = buildClusterView({
      nodes: [],
      pods: [],
      has: { pvcs: false, pvs: false, storageClasses: false },
    });
    const p = pod('db-0').withPvc('data-db-0').build();
    const r = runFilters(p, nodeInfoFor(node(N).build(), []), noStorage);
    expect(r.fits).toBe(false);
    expect(r.failure).toBeUndefined();
    expect(r.notEvaluated.map((s) => s.plugin)).toEqual(['VolumeBinding', 'VolumeZone']);
  });

  it('sets the failure of a later plugin while keeping earlier NotEvaluated ones', () => {
    const noStorage = buildClusterView({
      nodes: [],
      pods: [],
      has: { pvcs: false, pvs: false, storageClasses: false },
    });
    const p = pod('db-0')
      .withLabels({ app: 'db' })
      .withPvc('data-db-0')
      .withTopologySpread({ topologyKey: 'example.com/rack', labelSelector: { matchLabels: { app: 'db' } } })
      .build();
    const r = runFilters(p, nodeInfoFor(node(N).build(), []), noStorage);
    expect(r.fits).toBe(false);
    expect(r.failure?.plugin).toBe('PodTopologySpread');
    expect(r.notEvaluated.map((s) => s.plugin)).toEqual(['VolumeBinding', 'VolumeZone']);
  });

  it('lets a PreFilter rejection win over any node-specific failure', () => {
    const p = pod('db-0').withPvc('data-db-0').withRequests({ cpu: '8' }).build();
    const r = runFilters(p, nodeInfoFor(node(N).withTaint('dedicated', 'gpu').build(), []), emptyView);
    expect(r.failure).toMatchObject({
      plugin: 'VolumeBinding',
      reasons: ['persistentvolumeclaim "data-db-0" not found'],
    });
    expect(runPreFilters(p, emptyView).failure?.plugin).toBe('VolumeBinding');
  });

  it('runs only the selected plugins', () => {
    const info = nodeInfoFor(node(N).withTaint('dedicated', 'gpu').build(), []);
    const r = runFilters(big, info, emptyView, { plugins: ['NodeResourcesFit'] });
    expect(r.failure?.plugin).toBe('NodeResourcesFit');
  });

  it('prints the redacted taint reason of newer schedulers on request', () => {
    const info = nodeInfoFor(node(N).withTaint('dedicated', 'gpu').build(), []);
    expect(runFilters(big, info, emptyView, { taintReason: 'redacted' }).failure?.reasons).toEqual([
      'node(s) had untolerated taint(s)',
    ]);
  });
});

describe('evaluateAllFilters', () => {
  it('collects every rejecting plugin in scheduler order', () => {
    const p = pod('big')
      .withRequests({ cpu: '8' })
      .withNodeSelector({ 'kubernetes.io/arch': 'arm64' })
      .build();
    const info = nodeInfoFor(node(N).withTaint('dedicated', 'gpu').build(), []);
    const all = evaluateAllFilters(p, info, emptyView);
    expect(all.failures.map((f) => f.plugin)).toEqual([
      'TaintToleration',
      'NodeAffinity',
      'NodeResourcesFit',
    ]);
    expect(all.notEvaluated).toEqual([]);
  });

  it('lists a PreFilter rejection once', () => {
    const p = pod('db-0').withPvc('data-db-0').build();
    const all = evaluateAllFilters(p, nodeInfoFor(node(N).build(), []), emptyView);
    expect(all.failures.map((f) => f.plugin)).toEqual(['VolumeBinding']);
  });

  it('returns nothing for a pod that fits', () => {
    const claim = pvc('data-db-0').boundTo('pvc-1').build();
    const view = buildClusterView({
      nodes: [],
      pods: [],
      pvcs: [claim],
      pvs: [pv('pvc-1').inZone('us-east-1a').boundTo(claim).build()],
      storageClasses: [storageClass().build()],
    });
    expect(
      evaluateAllFilters(pod('db-0').withPvc('data-db-0').build(), nodeInfoFor(node(N).build(), []), view),
    ).toEqual({
      failures: [],
      notEvaluated: [],
    });
  });
});

describe('buildClusterView', () => {
  it('puts running pods on their nodes and leaves out completed, unassigned and orphaned pods', () => {
    const view = buildClusterView({
      nodes: [node('n1').build(), node('n2').build()],
      pods: [
        pod('a').withRequests({ cpu: '1' }).onNode('n1').build(),
        pod('b').withRequests({ cpu: '1' }).onNode('n2').build(),
        pod('done').withRequests({ cpu: '1' }).onNode('n1').withPhase('Succeeded').build(),
        pod('failed').withRequests({ cpu: '1' }).onNode('n1').withPhase('Failed').build(),
        pod('pending').withRequests({ cpu: '1' }).unschedulable().build(),
        pod('ghost').withRequests({ cpu: '1' }).onNode('gone').build(),
        pod('c').withRequests({ cpu: '500m' }).onNode('n1').build(),
      ],
    });
    expect(view.nodeInfos.map((ni) => ni.pods.map((p) => p.metadata.name))).toEqual([['a', 'c'], ['b']]);
    expect(view.nodeInfos[0].requested).toEqual({ cpu: 1500 });
  });

  it('indexes claims by namespace/name and volumes and classes by name', () => {
    const view = buildClusterView({
      nodes: [],
      pods: [],
      pvcs: [pvc('data', 'payments').build()],
      pvs: [pv('pvc-1').build()],
      storageClasses: [storageClass('gp3').build()],
    });
    expect([...view.pvcs.keys()]).toEqual(['payments/data']);
    expect([...view.pvs.keys()]).toEqual(['pvc-1']);
    expect([...view.storageClasses.keys()]).toEqual(['gp3']);
    expect(view.has).toEqual({ pvcs: true, pvs: true, storageClasses: true });
  });

  it('marks kinds that were not given as not gathered, unless told otherwise', () => {
    expect(buildClusterView({ nodes: [], pods: [] }).has).toEqual({
      pvcs: false,
      pvs: false,
      storageClasses: false,
    });
    expect(buildClusterView({ nodes: [], pods: [], pvcs: [], has: { pvcs: false } }).has.pvcs).toBe(false);
  });

  it('treats a pod as assigned only with a node name and a non-terminal phase', () => {
    expect(isAssignedActivePod(pod().onNode('n1').build())).toBe(true);
    expect(isAssignedActivePod(pod().onNode('n1').withPhase('Succeeded').build())).toBe(false);
    expect(isAssignedActivePod(pod().build())).toBe(false);
  });
});
