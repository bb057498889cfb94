// The CA events of 1.30-1.37 (and the priority-expander ones), parsed from core/v1 Events as `kubectl get events -o json`
// prints them. Sources: processors/provreq/pods_filter.go, processors/capacitybuffer/scale_up_status_processor.go,
// core/podlistprocessor/filter_out_schedulable.go (1.37), expander/priority/priority.go.
import { describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../src/model/k8s.js';
import {
  caObjectEvents,
  latestCaEventForPod,
  parseCaObjectEvent,
  parseCaPodEvent,
} from '../../src/simulate/ca-events.js';
import { classifyPodForCa } from '../../src/simulate/ca-pod-filter.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import { analyze } from '../checks/harness.js';
import { caDeployment, DEFAULT_CA_ARGS, NOW, pendingPod, world } from '../builders/world.js';

function event(
  involved: KubeEvent['involvedObject'],
  reason: string,
  message: string,
  type = 'Normal',
  at = '2026-01-05T11:58:00Z',
): KubeEvent {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${involved.name}.18a2b3c4d5e6f7a8`, namespace: involved.namespace ?? 'default' },
    involvedObject: involved,
    reason,
    message,
    type,
    count: 2,
    firstTimestamp: '2026-01-05T11:50:00Z',
    lastTimestamp: at,
    source: { component: 'cluster-autoscaler' },
  };
}

const PROVREQ_TEXT = "Unschedulable pod didn't trigger scale-up, because it's consuming ProvisioningRequest ml/train-gpus";

describe('the ProvisioningRequest consumer event (reason "")', () => {
  const podRef = { kind: 'Pod', namespace: 'ml', name: 'train-0', uid: 'a1b2c3d4-0000-4000-8000-000000000001', apiVersion: 'v1' };
  it('parses with an empty reason and names the ProvisioningRequest', () => {
    const ev = parseCaPodEvent(event(podRef, '', PROVREQ_TEXT));
    expect(ev).toMatchObject({ reason: '', provisioningRequest: { namespace: 'ml', name: 'train-gpus' }, count: 2 });
  });
  it('ignores other empty-reason events', () => {
    expect(parseCaPodEvent(event(podRef, '', 'Started container main'))).toBeUndefined();
  });
  it('surfaces in why-pending as the pod\'s CA event, with the ProvisioningRequest', () => {
    const p = pendingPod('train-0', 'ml').withAnnotation('autoscaling.x-k8s.io/consume-provisioning-request', 'train-gpus').build();
    const w = world({ caArgs: [...DEFAULT_CA_ARGS, '--enable-provisioning-requests'] })
      .add('pods', p)
      .add('events', event({ kind: 'Pod', namespace: 'ml', name: 'train-0', uid: p.metadata.uid, apiVersion: 'v1' }, '', PROVREQ_TEXT));
    const r = analyze(w.raw).pods.find((x) => x.report.name === 'train-0')!;
    expect(r.report.caEvent).toMatchObject({ reason: '', provisioningRequest: 'ml/train-gpus' });
    expect(r.report.verdict).toBe('ignored');
    expect(r.report.summary).toContain('consumes ProvisioningRequest ml/train-gpus');
    expect(latestCaEventForPod(w.raw.events, p)?.provisioningRequest?.name).toBe('train-gpus');
  });
});

describe('pods that consume a ProvisioningRequest', () => {
  const p = pendingPod('train-0', 'ml').withAnnotation('cluster-autoscaler.kubernetes.io/consume-provisioning-request', 'train-gpus').build();
  it.each([
    ['are skipped by CA with --enable-provisioning-requests (deprecated annotation too)', ['--enable-provisioning-requests'], 'ignored'],
    ['are ordinary candidates without it (the filter is not installed)', [], 'candidate'],
  ])('%s', (_name, args, kind) => {
    const ca = buildCaConfig({ deployment: caDeployment([...DEFAULT_CA_ARGS, ...args], 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0') });
    expect(classifyPodForCa(p, ca, new Map(), NOW).kind).toBe(kind);
  });
});

describe('CapacityBuffer events', () => {
  const buffer = { kind: 'CapacityBuffer', namespace: 'batch', name: 'warm-pool', uid: 'b1', apiVersion: 'autoscaling.x-k8s.io/v1beta1' };
  it('parses NotTriggerScaleUp with the fake-pod count and the joined reasons', () => {
    const ev = parseCaObjectEvent(
      event(buffer, 'NotTriggerScaleUp', "capacity buffer 3 fake pods didn't trigger scale-up: 1 max node group size reached,1 max node group size reached"),
    );
    expect(ev).toMatchObject({ reason: 'NotTriggerScaleUp', fakePods: 3, object: { kind: 'CapacityBuffer', name: 'warm-pool' } });
    expect(ev?.reasonsText).toBe('1 max node group size reached,1 max node group size reached');
  });
  it('parses TriggeredScaleUp with the groups resized', () => {
    const ev = parseCaObjectEvent(
      event(buffer, 'TriggeredScaleUp', 'capacity buffer 2 fake pods triggered scale-up: [{prod-general 3->5 (max: 10)}]'),
    );
    expect(ev).toMatchObject({ fakePods: 2, groups: [{ group: 'prod-general', from: 3, to: 5, max: 10 }] });
  });
  it('leaves pod events to parseCaPodEvent', () => {
    expect(parseCaObjectEvent(event({ kind: 'Pod', namespace: 'web', name: 'x' }, 'TriggeredScaleUp', 'pod triggered scale-up: []'))).toBeUndefined();
  });
});

describe('status and priority-expander ConfigMap events', () => {
  const status = { kind: 'ConfigMap', namespace: 'kube-system', name: 'cluster-autoscaler-status', apiVersion: 'v1' };
  const priority = { kind: 'ConfigMap', namespace: 'kube-system', name: 'cluster-autoscaler-priority-expander', apiVersion: 'v1' };
  it('lists GracefulDegradation and PriorityConfigMap events newest first, with the unmatched group', () => {
    const events = [
      event(status, 'GracefulDegradationStarted', 'Autoscaler is unable to handle the large amount of unschedulable pods. Consider reducing the rate of adding new pods, so autoscaler could auto recover.', 'Warning', '2026-01-05T11:40:00Z'),
      event(status, 'GracefulDegradationStopped', 'Autoscaler exited from GracefulDegradationMode and works normally.', 'Normal', '2026-01-05T11:55:00Z'),
      event(priority, 'PriorityConfigMapNotMatchedGroup', "Priority expander: node group prod-ondemand not found in priority expander configuration. The group won't be used.", 'Warning', '2026-01-05T11:50:00Z'),
      event(priority, 'Scheduled', 'not CA'),
    ];
    const parsed = caObjectEvents(events);
    expect(parsed.map((e) => e.reason)).toEqual([
      'GracefulDegradationStopped',
      'PriorityConfigMapNotMatchedGroup',
      'GracefulDegradationStarted',
    ]);
    expect(parsed[1].nodeGroup).toBe('prod-ondemand');
    expect(parsed[2].type).toBe('Warning');
  });
});
