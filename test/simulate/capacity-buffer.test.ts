// CapacityBuffer: replicas (translators/replicas.go), what CA injects (processors/capacitybuffer/pod_list_processor.go),
// its events (scale_up_status_processor.go) and where the fake pods sit.
import { describe, expect, it } from 'vitest';
import type { KubeEvent, Workload } from '../../src/model/k8s.js';
import {
  bufferFakePods,
  bufferOfFakePod,
  bufferPodsByNode,
  type BufferContext,
  desiredBufferReplicas,
  explainCapacityBuffer,
  parseCapacityBufferEvent,
  placeBufferPods,
  replicasFromPercentage,
} from '../../src/simulate/capacity-buffer.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { capacityBuffer, condition, podTemplate, readyBufferStatus } from '../builders/ca-crds.js';
import { node } from '../builders/k8s.js';
import { filler } from '../builders/world.js';

const ON: BufferContext['settings'] = { controllerEnabled: true, podInjectionEnabled: true, supported: true };

function deployment(name: string, replicas: number, statusReplicas?: number): Workload {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'web', uid: '4c0f7a1e-9b2d-4e3f-8a5b-6c7d8e9f0a1b' },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', resources: { requests: { cpu: '500m' } } }] } } },
    ...(statusReplicas !== undefined ? { status: { replicas: statusReplicas } } : {}),
  };
}

describe('desiredBufferReplicas', () => {
  const chunk = bufferFakePods(capacityBuffer('b'), podTemplate('b-chunk', 'web', { cpu: '500m', memory: '1Gi' }), 1)[0];

  it('rounds the percentage up and returns 0 for 0 replicas (no minimum of 1)', () => {
    expect(replicasFromPercentage(20, 10)).toBe(2);
    expect(replicasFromPercentage(20, 11)).toBe(3);
    expect(replicasFromPercentage(20, 0)).toBe(0);
  });

  it('takes the max of replicas and percentage, capped by limits', () => {
    const b = capacityBuffer('b', { spec: { scalableRef: { apiGroup: 'apps', kind: 'Deployment', name: 'api' }, replicas: 1, percentage: 30, limits: { cpu: '2' } } });
    expect(desiredBufferReplicas(b, chunk, 10)).toMatchObject({ replicas: 3, fromPercentage: 3, fromLimits: 4 });
    const capped = capacityBuffer('b', { spec: { scalableRef: { apiGroup: 'apps', kind: 'Deployment', name: 'api' }, percentage: 50, limits: { cpu: '2' } } });
    expect(desiredBufferReplicas(capped, chunk, 10).replicas).toBe(4);
  });

  it('fills the limits when neither replicas nor percentage is set', () => {
    expect(desiredBufferReplicas(capacityBuffer('b', { spec: { podTemplateRef: { name: 'b-chunk' }, limits: { memory: '5Gi' } } }), chunk, undefined).replicas).toBe(5);
  });

  it("errors like CA's controller when limits name no resource the pod requests", () => {
    expect(desiredBufferReplicas(capacityBuffer('b', { spec: { podTemplateRef: { name: 'b-chunk' }, limits: { 'nvidia.com/gpu': '4' } } }), chunk, undefined).error).toBe(
      "couldn't get number of replicas for buffer: resources in configured limits not found in the pod template",
    );
  });
});

describe('explainCapacityBuffer', () => {
  const tpl = podTemplate('web-buffer-chunk', 'web', { cpu: '500m', memory: '512Mi' });
  const ready = capacityBuffer('web-buffer', { status: readyBufferStatus('web-buffer-chunk', 3) });
  const ctx: BufferContext = { settings: ON, podTemplates: [tpl], workloads: {} };

  it('injects status.replicas fake pods named capacity-buffer-<name>-<i>, annotated and safe to evict', () => {
    const s = explainCapacityBuffer(ready, ctx);
    expect(s.phase).toBe('injected');
    expect(s.fakePods.map((p) => p.metadata.name)).toEqual(['capacity-buffer-web-buffer-1', 'capacity-buffer-web-buffer-2', 'capacity-buffer-web-buffer-3']);
    expect(s.fakePods[0].metadata.annotations).toMatchObject({ podType: 'capacityBufferFakePod', 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' });
    expect(bufferOfFakePod(s.fakePods[0])).toBe('web/web-buffer');
  });

  it('injects nothing without --capacity-buffer-pod-injection-enabled', () => {
    expect(explainCapacityBuffer(ready, { ...ctx, settings: { ...ON, podInjectionEnabled: false } }).phase).toBe('ca-not-configured');
  });

  it('reports a not-ready buffer with the controller\'s message', () => {
    const b = capacityBuffer('web-buffer', {
      status: {
        provisioningStrategy: 'buffer.x-k8s.io/active-capacity',
        conditions: [condition('ReadyForProvisioning', 'False', 'error', 'Buffer not ready for provisioning: failed to resolve scalable object: failed to get Deployment: deployments.apps "api" not found')],
      },
    });
    expect(explainCapacityBuffer(b, ctx)).toMatchObject({ phase: 'not-ready', reason: 'error' });
  });

  it('calls a buffer with zero replicas empty (BufferIsEmpty)', () => {
    expect(explainCapacityBuffer(capacityBuffer('web-buffer', { status: readyBufferStatus('web-buffer-chunk', 0) }), ctx)).toMatchObject({ phase: 'empty', reason: 'BufferIsEmpty' });
  });

  it('skips a buffer whose PodTemplate generation changed (podtemplate_generation_filter.go)', () => {
    const changed = { ...tpl, metadata: { ...tpl.metadata, generation: 2 } };
    expect(explainCapacityBuffer(ready, { ...ctx, podTemplates: [changed] }).phase).toBe('template-changed');
  });

  it('resolves a scalableRef percentage from the Deployment\'s status replicas', () => {
    const b = capacityBuffer('api-buffer', { spec: { scalableRef: { apiGroup: 'apps', kind: 'Deployment', name: 'api' }, percentage: 25 } });
    expect(explainCapacityBuffer(b, { ...ctx, workloads: { deployments: [deployment('api', 10, 9)] } }).desired).toMatchObject({ replicas: 3, scalableReplicas: 9 });
  });
});

describe('parseCapacityBufferEvent', () => {
  function ev(reason: string, message: string): KubeEvent {
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-buffer.18a1b2c3d4e5f607', namespace: 'web' },
      involvedObject: { kind: 'CapacityBuffer', namespace: 'web', name: 'web-buffer', apiVersion: 'autoscaling.x-k8s.io/v1beta1' },
      reason,
      message,
      type: 'Normal',
      count: 1,
      source: { component: 'cluster-autoscaler' },
      lastTimestamp: '2026-01-05T11:58:00Z',
    };
  }

  it('reads NotTriggerScaleUp with one reason list per fake pod joined by ","', () => {
    const e = parseCapacityBufferEvent(ev('NotTriggerScaleUp', "capacity buffer 2 fake pods didn't trigger scale-up: 1 max node group size reached, 2 Insufficient cpu,1 max node group size reached, 2 Insufficient cpu"));
    expect(e).toMatchObject({ reason: 'NotTriggerScaleUp', podCount: 2, reasons: { 'max node group size reached': 1, 'Insufficient cpu': 2 } });
  });

  it('reads TriggeredScaleUp with the groups resized', () => {
    const e = parseCapacityBufferEvent(ev('TriggeredScaleUp', 'capacity buffer 3 fake pods triggered scale-up: [{prod-general 1->2 (max: 5)}]'));
    expect(e).toMatchObject({ podCount: 3, groups: [{ group: 'prod-general', from: 1, to: 2, max: 5 }] });
  });
});

describe('placeBufferPods', () => {
  it('packs fake pods onto nodes with room (they keep those nodes) and leaves the rest to trigger a scale-up', () => {
    const busy = node('ip-10-0-1-10.ec2.internal').build();
    const idle = node('ip-10-0-1-11.ec2.internal').build();
    const view = buildClusterView({ nodes: [busy, idle], pods: [filler(busy)], pvcs: [], pvs: [], storageClasses: [], has: { pvcs: true, pvs: true, storageClasses: true } });
    const pods = bufferFakePods(capacityBuffer('web-buffer'), podTemplate('web-buffer-chunk', 'web', { cpu: '1500m' }), 3);
    const placed = placeBufferPods(pods, view);
    expect([...placed.byNode.entries()].map(([n, ps]) => [n, ps.length])).toEqual([['ip-10-0-1-11.ec2.internal', 2]]);
    expect(placed.unplaced.map((p) => p.metadata.name)).toEqual(['capacity-buffer-web-buffer-3']);
  });
});

describe('bufferPodsByNode', () => {
  it('names the buffers keeping each node and counts the fake pods left to scale up for', () => {
    const idle = node('ip-10-0-1-11.ec2.internal').build();
    const view = buildClusterView({ nodes: [idle], pods: [], pvcs: [], pvs: [], storageClasses: [], has: { pvcs: true, pvs: true, storageClasses: true } });
    const tpl = podTemplate('web-buffer-chunk', 'web', { cpu: '1500m' });
    const s = explainCapacityBuffer(capacityBuffer('web-buffer', { status: readyBufferStatus('web-buffer-chunk', 3) }), { settings: ON, podTemplates: [tpl], workloads: {} });
    const out = bufferPodsByNode([s], view);
    expect([...out.byNode]).toEqual([['ip-10-0-1-11.ec2.internal', ['web/web-buffer']]]);
    expect([...out.scaleUpFor]).toEqual([['web/web-buffer', 1]]);
  });
});
