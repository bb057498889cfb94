// ProvisioningRequest state and PodSet simulation. CA: pkg/processors/provreq/processor.go (10-min booking, 7-day expiry),
// pkg/provisioningrequest/{checkcapacity,besteffortatomic}, core/scaleup/orchestrator/orchestrator.go (all-or-nothing).
import { describe, expect, it } from 'vitest';
import type { ProvisioningRequest } from '../../src/model/ca-crds.js';
import { Analysis } from '../../src/simulate/analysis.js';
import {
  ALL_OR_NOTHING_REASON,
  AWS_NOT_ATOMIC,
  consumedProvisioningRequestRef,
  explainProvisioningRequest,
  type ProvReqCaSettings,
  provReqClassKind,
  provisioningRequestStage,
} from '../../src/simulate/provisioning-request.js';
import { podForPodSet, simulateProvisioningRequest } from '../../src/simulate/provisioning-request/simulation.js';
import { analyzePod } from '../../src/simulate/why-pending.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import { caDeployment } from '../builders/world.js';
import { condition, podTemplate, provisioningRequest } from '../builders/ca-crds.js';
import { pod } from '../builders/k8s.js';
import { NOW, world } from '../builders/world.js';
import { STATIC_TYPES } from '../checks/harness.js';

const ENABLED: ProvReqCaSettings = { enabled: true, processorInstance: '', batchProcessing: false };
const CHECK = 'check-capacity.autoscaling.x-k8s.io';

function state(pr: ProvisioningRequest, settings = ENABLED, templates = [podTemplate(`${pr.metadata.name}-tpl`)]) {
  return explainProvisioningRequest(pr, { now: NOW, settings, podTemplates: templates });
}

describe('consumedProvisioningRequestRef', () => {
  it('reads the consume annotation and its deprecated form, in the pod namespace (pods_filter.go)', () => {
    const p = pod('trainer-0', 'batch').withAnnotation('autoscaling.x-k8s.io/consume-provisioning-request', 'train-64').build();
    expect(consumedProvisioningRequestRef(p)).toEqual({ namespace: 'batch', name: 'train-64' });
    const old = pod('trainer-1', 'batch').withAnnotation('cluster-autoscaler.kubernetes.io/consume-provisioning-request', 'train-64').build();
    expect(consumedProvisioningRequestRef(old)).toEqual({ namespace: 'batch', name: 'train-64' });
  });

  it('ignores the class annotation alone: CA filters on the consume annotation only', () => {
    const p = pod('trainer-2', 'batch').withAnnotation('autoscaling.x-k8s.io/provisioning-class-name', CHECK).build();
    expect(consumedProvisioningRequestRef(p)).toBeUndefined();
  });
});

describe('provReqClassKind (supported_classes.go)', () => {
  it.each([
    ['best-effort-atomic-scale-up.autoscaling.x-k8s.io', undefined, '', 'best-effort-atomic'],
    [CHECK, undefined, '', 'check-capacity'],
    ['queued-provisioning.gke.io', undefined, '', 'unsupported'],
    [CHECK, 'team-a', '', 'unsupported'],
    [CHECK, 'team-a', 'team-a', 'check-capacity'],
    ['best-effort-atomic-scale-up.autoscaling.x-k8s.io', undefined, 'team-a', 'unsupported'],
  ])('class %s with processorInstance %s on a CA with instance "%s" is %s', (cls, inst, caInst, kind) => {
    const pr = provisioningRequest('x', { className: cls, ...(inst ? { parameters: { processorInstance: inst } } : {}) });
    expect(provReqClassKind(pr, caInst)).toBe(kind);
  });
});

describe('explainProvisioningRequest', () => {
  it('is new when CA has written no condition yet', () => {
    expect(state(provisioningRequest('train')).phase).toBe('new');
  });

  it('is waiting with CA\'s reason when Provisioned=False', () => {
    const s = state(provisioningRequest('train', {
      conditions: [
        condition('Accepted', 'True', 'Accepted', 'ProvisioningRequest is accepted by ClusterAutoscaler'),
        condition('Provisioned', 'False', 'CapacityIsNotFound', 'Capacity is not found, CA will try to find it later.'),
      ],
    }));
    expect(s).toMatchObject({ phase: 'waiting', reason: 'CapacityIsNotFound' });
    expect(s.summary).toMatch(/retrying with backoff/);
  });

  it('counts the 10-minute booking from the Provisioned transition (processor.go defaultReservationTime)', () => {
    const fresh = state(provisioningRequest('train', { className: CHECK, conditions: [condition('Provisioned', 'True', 'CapacityIsFound', 'Capacity is found in the cluster', '2026-01-05T11:56:00Z')] }));
    expect(fresh.phase).toBe('provisioned');
    expect(fresh.bookingExpiresAt?.toISOString()).toBe('2026-01-05T12:06:00.000Z');
    expect(fresh.summary).toMatch(/booked for 6 min more/);
    const stale = state(provisioningRequest('train', { className: CHECK, conditions: [condition('Provisioned', 'True', 'CapacityIsFound', 'Capacity is found in the cluster', '2026-01-05T11:30:00Z')] }));
    expect(stale.summary).toMatch(/ran out 20 min ago: CA sets BookingExpired on its next loop/);
  });

  it('flags a request older than 7 days without Provisioned as about to fail with Expired', () => {
    const s = state(provisioningRequest('train', { created: '2025-12-28T11:00:00Z', conditions: [condition('Provisioned', 'False', 'CapacityIsNotFound', 'Capacity is not found, CA will try to find it later.')] }));
    expect(s.expiresAt?.toISOString()).toBe('2026-01-04T11:00:00.000Z');
    expect(s.summary).toMatch(/marks it Failed \(Expired\) on its next loop/);
  });

  it('reports Failed, BookingExpired, CA disabled, a foreign class and missing templates', () => {
    expect(state(provisioningRequest('a', { conditions: [condition('Failed', 'True', 'Expired', 'ProvisioningRequest is expired')] }))).toMatchObject({ phase: 'failed', reason: 'Expired' });
    expect(state(provisioningRequest('b', { conditions: [condition('Provisioned', 'True', 'CapacityIsProvisioned', 'Capacity is found in the cluster'), condition('BookingExpired', 'True', 'CapacityBookingConsumed', 'Capacity booking consumed: all pods scheduled')] }))).toMatchObject({ phase: 'booking-expired', reason: 'CapacityBookingConsumed' });
    expect(state(provisioningRequest('c'), { ...ENABLED, enabled: false }).phase).toBe('ca-disabled');
    expect(state(provisioningRequest('d', { className: 'queued-provisioning.gke.io' })).phase).toBe('unsupported-class');
    expect(state(provisioningRequest('e'), ENABLED, [])).toMatchObject({
      phase: 'missing-templates',
      reason: 'FailedToCreatePods',
      message: 'missing pod templates, 1 pod templates were referenced, 1 templates were missing: e-tpl',
    });
  });

  it('notes an invalid noRetry value, which CA ignores (checkcapacity/provisioningclass.go)', () => {
    const s = state(provisioningRequest('train', { className: CHECK, parameters: { noRetry: 'yes' } }));
    expect(s.noRetry).toBe(false);
    expect(s.notes[0]).toMatch(/noRetry="yes" is invalid/);
  });
});

describe('podForPodSet', () => {
  it('builds the pod CA injects: named <pr>-<set>-<i>, consuming the request, owned by it (provisioningrequest/pods/pods.go)', () => {
    const pr = provisioningRequest('train');
    const p = podForPodSet(pr, podTemplate('train-tpl'), 0, 2);
    expect(p.metadata.name).toBe('train-0-2');
    expect(p.metadata.annotations?.['autoscaling.x-k8s.io/consume-provisioning-request']).toBe('train');
    expect(p.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'ProvisioningRequest', name: 'train', controller: true });
    expect(p.metadata.labels).toEqual({ app: 'train-tpl' });
  });
});

describe('simulateProvisioningRequest', () => {
  // world(): prod-general (m5.xlarge, max 5, desired 1) with one node whose 3920m allocatable has 3500m requested
  function run(pr: ProvisioningRequest, requests?: Record<string, string>) {
    const w = world();
    const a = new Analysis(w.raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
    const templates = pr.spec.podSets.map((ps) => podTemplate(ps.podTemplateRef.name!, 'batch', requests));
    return simulateProvisioningRequest(pr, templates, {
      evaluateGroups: (p) => analyzePod(a, p).groups,
      view: a.view,
    });
  }

  it('check-capacity fits small pods on the existing node', () => {
    const sim = run(provisioningRequest('probe', { className: CHECK, podSets: [{ template: 'probe-tpl', count: 2 }] }), { cpu: '200m', memory: '256Mi' });
    expect(sim).toMatchObject({ verdict: 'fits-existing', existing: { placed: 2 } });
  });

  it('check-capacity never scales up: pods that need a new node are "no-fit" with the nodes\' reasons', () => {
    const sim = run(provisioningRequest('probe', { className: CHECK, podSets: [{ template: 'probe-tpl', count: 2 }] }));
    expect(sim.verdict).toBe('no-fit');
    expect(sim.groups).toEqual([]);
    expect(sim.reason).toBe('only 0 of 2 pods of PodSet 0 (PodTemplate probe-tpl) fit existing nodes (1 Insufficient cpu): CA sets Provisioned=False (CapacityIsNotFound)');
  });

  it('best-effort-atomic finds one group that takes every pod within its max size, with the AWS caveat', () => {
    const sim = run(provisioningRequest('train', { podSets: [{ template: 'train-tpl', count: 9 }] }));
    expect(sim.verdict).toBe('scale-up');
    expect(sim.groups).toEqual([
      expect.objectContaining({ group: 'prod-general', fits: true, nodesNeeded: 3, headroom: 4 }),
    ]);
    expect(sim.groups[0].podSets[0]).toMatchObject({ podsPerNode: 3, nodesNeeded: 3 });
    expect(sim.caveats).toContain(AWS_NOT_ATOMIC);
  });

  it('best-effort-atomic rejects a group that cannot take all pods: all-or-nothing (rejectedreasons.go)', () => {
    const sim = run(provisioningRequest('train', { podSets: [{ template: 'train-tpl', count: 15 }] }));
    expect(sim.verdict).toBe('no-fit');
    expect(sim.groups[0]).toMatchObject({
      fits: false,
      reason: ALL_OR_NOTHING_REASON,
      detail: 'needs 5 new node(s); the group can add 4 (desired 1, max 5)',
    });
  });

  it('best-effort-atomic names the predicate that fails on the group template', () => {
    const pr = provisioningRequest('gpu', { podSets: [{ template: 'gpu-tpl', count: 1 }] });
    const w = world();
    const a = new Analysis(w.raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
    const tpl = podTemplate('gpu-tpl', 'batch', { cpu: '1' }, { nodeSelector: { 'node-pool': 'gpu' } });
    const sim = simulateProvisioningRequest(pr, [tpl], { evaluateGroups: (p) => analyzePod(a, p).groups, view: a.view });
    expect(sim.verdict).toBe('no-fit');
    expect(sim.groups[0].reason).toBe("node(s) didn't match Pod's node affinity/selector");
  });

  it('one host port per node: a second copy fails NodePorts, so each pod needs its own node', () => {
    const w = world();
    const a = new Analysis(w.raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
    const tpl = podTemplate('hp-tpl', 'batch', { cpu: '1' }, { containers: [{ name: 'w', resources: { requests: { cpu: '1' } }, ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }] }] });
    const pr = provisioningRequest('hp', { podSets: [{ template: 'hp-tpl', count: 3 }] });
    const hp = simulateProvisioningRequest(pr, [tpl], { evaluateGroups: (p) => analyzePod(a, p).groups, view: a.view });
    expect(hp.groups[0].podSets[0]).toMatchObject({ podsPerNode: 1, nodesNeeded: 3 });
  });
});

describe('provisioningRequestStage', () => {
  const consumer = pod('trainer-0', 'batch').withAnnotation('autoscaling.x-k8s.io/consume-provisioning-request', 'train').build();
  const ca = buildCaConfig({ deployment: caDeployment(['--cloud-provider=aws', '--enable-provisioning-requests=true']) });

  it('makes a consumer pod "ignored" with the request\'s state instead of a scale-up verdict', () => {
    const pr = provisioningRequest('train', { conditions: [condition('Accepted', 'True', 'Accepted', 'ProvisioningRequest is accepted by ClusterAutoscaler')] });
    expect(provisioningRequestStage(consumer, { provisioningRequests: [pr], podTemplates: [podTemplate('train-tpl')], ca, now: NOW })).toEqual({
      kind: 'ignored',
      caWord: 'consumes ProvisioningRequest',
      reason: 'CA is waiting on ProvisioningRequest batch/train: accepted by CA, not decided yet',
    });
  });

  it('says so when the request does not exist, and leaves other pods alone', () => {
    expect(provisioningRequestStage(consumer, { provisioningRequests: [], ca, now: NOW })?.reason).toBe(
      'it consumes ProvisioningRequest batch/train, which does not exist: nothing will provision it',
    );
    expect(provisioningRequestStage(pod('web-0', 'batch').build(), { ca, now: NOW })).toBeUndefined();
  });

  it('leaves consumer pods to normal scale-up when CA runs without --enable-provisioning-requests', () => {
    const off = buildCaConfig({ deployment: caDeployment(['--cloud-provider=aws']) });
    expect(provisioningRequestStage(consumer, { provisioningRequests: [], ca: off, now: NOW })).toBeUndefined();
  });
});
