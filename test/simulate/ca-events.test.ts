import { describe, expect, it } from 'vitest';
import type { KubeEvent, Pod } from '../../src/model/k8s.js';
import {
  indexEventsByInvolvedObject,
  latestCaEventForPod,
  parseCaPodEvent,
  parseNotTriggerReasons,
  parseTriggeredScaleUp,
} from '../../src/simulate/ca-events.js';

const POD_UID = '7b6a5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d';

/** A core/v1 Event as `kubectl get events -o json` prints CA's events. */
function caEvent(
  reason: string,
  message: string,
  opts: Partial<KubeEvent> & { name?: string; podName?: string; uid?: string } = {},
): KubeEvent {
  const { name, podName, uid, ...rest } = opts;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: name ?? `${podName ?? 'api-7d9f8c6b5-x2k4q'}.18a2b3c4d5e6f7a8`,
      namespace: 'payments',
      uid: 'e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9',
      creationTimestamp: '2026-03-01T10:00:10Z',
    },
    involvedObject: {
      kind: 'Pod',
      namespace: 'payments',
      name: podName ?? 'api-7d9f8c6b5-x2k4q',
      uid: uid ?? POD_UID,
      apiVersion: 'v1',
    },
    reason,
    message,
    source: { component: 'cluster-autoscaler' },
    firstTimestamp: '2026-03-01T10:00:10Z',
    lastTimestamp: '2026-03-01T10:00:10Z',
    count: 1,
    type: 'Normal',
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
    ...rest,
  } as KubeEvent;
}

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'api-7d9f8c6b5-x2k4q', namespace: 'payments', uid: POD_UID },
  spec: { containers: [{ name: 'api', image: 'example/api:1.4.2' }] },
  status: { phase: 'Pending' },
};

describe('parseNotTriggerReasons', () => {
  it('reads the reasons as a set: the order CA prints them in is random', () => {
    const a = parseNotTriggerReasons(
      "3 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector, 1 max node group size reached",
    );
    const b = parseNotTriggerReasons(
      "1 max node group size reached, 3 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector",
    );
    expect(a).toEqual(b);
    expect(a).toEqual({
      'Insufficient cpu': 3,
      "node(s) didn't match Pod's node affinity/selector": 1,
      'max node group size reached': 1,
    });
  });

  it.each([
    [
      'the 1.35+ quota reason with commas and quotes',
      '2 exceeded quota: "cluster-wide", resources: cpu, memory, 1 Insufficient memory',
      { 'exceeded quota: "cluster-wide", resources: cpu, memory': 2, 'Insufficient memory': 1 },
    ],
    [
      'the <=1.34 cluster limit reason with a comma',
      '1 max cluster cpu, memory limit reached, 2 not ready for scale-up',
      { 'max cluster cpu, memory limit reached': 1, 'not ready for scale-up': 2 },
    ],
    [
      'taint strings with braces and colons',
      '2 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node.cilium.io/agent-not-ready: }',
      {
        'node(s) had untolerated taint {dedicated: gpu}': 2,
        'node(s) had untolerated taint {node.cilium.io/agent-not-ready: }': 1,
      },
    ],
    ['a single reason', '1 in backoff after failed scale-up', { 'in backoff after failed scale-up': 1 }],
  ])('keeps %s intact', (_name, list, reasons) => {
    expect(parseNotTriggerReasons(list)).toEqual(reasons);
  });
});

describe('parseCaPodEvent', () => {
  it.each([
    [
      'the current format',
      "pod didn't trigger scale-up: 2 Insufficient cpu, 1 max node group size reached",
      { format: 'current', reasons: { 'Insufficient cpu': 2, 'max node group size reached': 1 } },
    ],
    [
      'the legacy format with reasons',
      "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 1 Insufficient memory",
      { format: 'legacy', reasons: { 'Insufficient memory': 1 } },
    ],
    [
      'the oldest format without reasons',
      "pod didn't trigger scale-up (it wouldn't fit if a new node is added)",
      { format: 'legacy-no-reasons', reasons: {} },
    ],
    [
      'the 1.33+ max-nodes-total form',
      "pod didn't trigger scale-up: max total nodes in cluster reached",
      { format: 'max-total-nodes', reasons: {}, maxTotalNodesReached: true },
    ],
  ])('parses NotTriggerScaleUp in %s', (_name, message, expected) => {
    expect(parseCaPodEvent(caEvent('NotTriggerScaleUp', message))).toMatchObject(expected);
  });

  it('parses TriggeredScaleUp with several groups, including names with spaces', () => {
    const ev = caEvent(
      'TriggeredScaleUp',
      'pod triggered scale-up: [{eks-general-20260105-7ac6d3f2 1->3 (max: 10)} {legacy workers 0->1 (max: 4)}]',
    );
    expect(parseCaPodEvent(ev)?.groups).toEqual([
      { group: 'eks-general-20260105-7ac6d3f2', from: 1, to: 3, max: 10 },
      { group: 'legacy workers', from: 0, to: 1, max: 4 },
    ]);
    expect(parseTriggeredScaleUp('pod triggered scale-up: []')).toEqual([]);
  });

  it.each([
    ['ScaleDown', 'deleting pod for node scale down'],
    ['ScaleDownFailed', 'failed to delete pod for ScaleDown'],
  ])('recognises the %s pod event by reason', (reason, message) => {
    expect(parseCaPodEvent(caEvent(reason, message, { type: 'Warning' }))).toMatchObject({
      reason,
      message,
      type: 'Warning',
    });
  });

  it('ignores events of other reasons or other components', () => {
    expect(parseCaPodEvent(caEvent('FailedScheduling', '0/3 nodes are available'))).toBeUndefined();
    expect(
      parseCaPodEvent(caEvent('ScaleDown', 'x', { source: { component: 'some-other-controller' } })),
    ).toBeUndefined();
  });

  it('takes the count from series for new-style events', () => {
    const ev = caEvent('NotTriggerScaleUp', "pod didn't trigger scale-up: 1 Insufficient cpu", {
      count: undefined,
      series: { count: 7, lastObservedTime: '2026-03-01T10:30:00.000000Z' },
    });
    expect(parseCaPodEvent(ev)).toMatchObject({ count: 7, time: new Date('2026-03-01T10:30:00Z') });
  });

  it('flags an unknown NotTriggerScaleUp message shape', () => {
    expect(parseCaPodEvent(caEvent('NotTriggerScaleUp', 'something else'))?.format).toBe('unrecognised');
  });
});

describe('latestCaEventForPod', () => {
  it.each([
    ['lastTimestamp', { lastTimestamp: '2026-03-01T10:20:00Z' }, { lastTimestamp: '2026-03-01T10:05:00Z' }],
    [
      'eventTime (events.k8s.io style, no lastTimestamp)',
      { lastTimestamp: null, firstTimestamp: null, eventTime: '2026-03-01T10:20:00.000000Z' },
      { lastTimestamp: '2026-03-01T10:05:00Z' },
    ],
    [
      'series.lastObservedTime',
      {
        lastTimestamp: '2026-03-01T10:00:00Z',
        series: { count: 3, lastObservedTime: '2026-03-01T10:25:00.000000Z' },
      },
      { lastTimestamp: '2026-03-01T10:15:00Z' },
    ],
    [
      'firstTimestamp alone',
      { lastTimestamp: null, firstTimestamp: '2026-03-01T10:20:00Z' },
      { lastTimestamp: null, firstTimestamp: '2026-03-01T10:05:00Z' },
    ],
  ])('picks the newest event by %s', (_name, newer, older) => {
    const events = [
      caEvent('NotTriggerScaleUp', "pod didn't trigger scale-up: 1 Insufficient cpu", {
        ...older,
        name: 'old',
      }),
      caEvent('TriggeredScaleUp', 'pod triggered scale-up: [{ng 0->1 (max: 3)}]', { ...newer, name: 'new' }),
    ];
    expect(latestCaEventForPod(events, pod)?.event.metadata.name).toBe('new');
    expect(latestCaEventForPod([...events].reverse(), pod)?.event.metadata.name).toBe('new');
  });

  it('ignores events of another pod, of a previous pod with the same name, and non-CA events', () => {
    const events = [
      caEvent('NotTriggerScaleUp', "pod didn't trigger scale-up: 1 Insufficient cpu", {
        podName: 'other-pod',
      }),
      caEvent('NotTriggerScaleUp', "pod didn't trigger scale-up: 1 Insufficient cpu", {
        uid: '00000000-0000-0000-0000-000000000000',
        lastTimestamp: '2026-03-01T11:00:00Z',
      }),
      caEvent('FailedScheduling', '0/3 nodes are available: 3 Insufficient cpu.', {
        source: { component: 'default-scheduler' },
        lastTimestamp: '2026-03-01T11:00:00Z',
      }),
    ];
    expect(latestCaEventForPod(events, pod)).toBeUndefined();
  });

  it('looks pods up in a prebuilt index', () => {
    const events = [
      caEvent('NotTriggerScaleUp', "pod didn't trigger scale-up: 2 Insufficient memory"),
      caEvent('NotTriggerScaleUp', "pod didn't trigger scale-up: 1 Insufficient cpu", {
        podName: 'worker-0',
        uid: 'w0',
      }),
    ];
    const index = indexEventsByInvolvedObject(events);
    expect(index.byObject.size).toBe(2);
    expect(latestCaEventForPod(index, pod)?.reasons).toEqual({ 'Insufficient memory': 2 });
    const worker: Pod = { ...pod, metadata: { name: 'worker-0', namespace: 'payments', uid: 'w0' } };
    expect(latestCaEventForPod(index, worker)?.reasons).toEqual({ 'Insufficient cpu': 1 });
  });
});
