import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/model/k8s.js';
import {
  buildClusterView,
  explainAgainstNodes,
  formatFitError,
  normalizeSchedulerReason,
  notEvaluatedReason,
  parseFitError,
} from '../../src/simulate/scheduler.js';
import { node, pod } from '../builders/k8s.js';

function nodes(count: number, make: (i: number) => Node): Node[] {
  return Array.from({ length: count }, (_, i) => make(i));
}

describe('explainAgainstNodes reproduces FitError.Error()', () => {
  it('aggregates reasons into a histogram sorted as strings, so 10 sorts before 2', () => {
    const all = [
      ...nodes(10, (i) => node(`gpu-${i}`).withTaint('nvidia.com/gpu', 'present').build()),
      ...nodes(2, (i) => node(`small-${i}`).build()),
    ];
    const e = explainAgainstNodes(
      pod('train').withRequests({ cpu: '8' }).build(),
      buildClusterView({ nodes: all, pods: [] }),
    );
    expect(e.message).toBe(
      '0/12 nodes are available: 10 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 Insufficient cpu.',
    );
    expect(e.fittingNodes).toEqual([]);
    expect(e.nodes[10]).toMatchObject({ name: 'small-0', fits: false, reasons: ['Insufficient cpu'] });
  });

  it('counts each reason of a node separately', () => {
    const all = [node('a').build(), node('b').build(), node('c').withTaint('dedicated', 'infra').build()];
    const p = pod('huge').withRequests({ cpu: '8', memory: '64Gi' }).build();
    expect(explainAgainstNodes(p, buildClusterView({ nodes: all, pods: [] })).message).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: infra}, 2 Insufficient cpu, 2 Insufficient memory.',
    );
  });

  it('returns an empty message and the fitting nodes when the pod fits somewhere', () => {
    const all = [node('a').withTaint('dedicated', 'infra').build(), node('b').build()];
    const e = explainAgainstNodes(
      pod().withRequests({ cpu: '1' }).build(),
      buildClusterView({ nodes: all, pods: [] }),
    );
    expect(e.message).toBe('');
    expect(e.fittingNodes).toEqual(['b']);
    expect(e.nodes.map((n) => n.fits)).toEqual([false, true]);
  });

  it('prints a PreFilter rejection once instead of a histogram', () => {
    const all = [node('a').build(), node('b').build(), node('c').build()];
    const view = buildClusterView({ nodes: all, pods: [], pvcs: [], pvs: [], storageClasses: [] });
    const e = explainAgainstNodes(pod('db-0').withPvc('data-db-0').build(), view);
    expect(e.message).toBe('0/3 nodes are available: persistentvolumeclaim "data-db-0" not found.');
    expect(e.preFilterFailure?.plugin).toBe('VolumeBinding');
    expect(e.nodes.every((n) => n.reasons[0] === 'persistentvolumeclaim "data-db-0" not found')).toBe(true);
  });

  it('counts nodes it could not evaluate under a casdoctor entry, never as fitting', () => {
    const all = [node('a').build(), node('b').withTaint('dedicated', 'infra').build()];
    const view = buildClusterView({ nodes: all, pods: [] });
    const e = explainAgainstNodes(pod('db-0').withPvc('data-db-0').build(), view);
    expect(e.fittingNodes).toEqual([]);
    expect(e.message).toBe(
      `0/2 nodes are available: 1 ${notEvaluatedReason(['VolumeBinding', 'VolumeZone'])}, 1 node(s) had untolerated taint {dedicated: infra}.`,
    );
    expect(notEvaluatedReason(['VolumeBinding', 'VolumeZone'])).toBe(
      'node(s) could not be evaluated (VolumeBinding/VolumeZone)',
    );
  });

  it('says so when there are no nodes at all', () => {
    expect(explainAgainstNodes(pod().build(), buildClusterView({ nodes: [], pods: [] })).message).toBe(
      'no nodes available to schedule pods',
    );
  });

  it('uses existing pods for the resource check', () => {
    const n = node('a').build();
    const running: Pod[] = [pod('hog').withRequests({ cpu: '3' }).onNode('a').build()];
    const e = explainAgainstNodes(
      pod().withRequests({ cpu: '1' }).build(),
      buildClusterView({ nodes: [n], pods: running }),
    );
    expect(e.message).toBe('0/1 nodes are available: 1 Insufficient cpu.');
  });
});

describe('formatFitError', () => {
  it('appends the PostFilter (preemption) message after the histogram', () => {
    expect(
      formatFitError(3, [['Insufficient cpu'], ['Insufficient cpu'], ['node(s) had untolerated taint(s)']], {
        postFilterMsg: 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      }),
    ).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });
});

describe('parseFitError', () => {
  it('reads a FailedScheduling message with a preemption suffix', () => {
    const parsed = parseFitError(
      "0/7 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod anti-affinity rules, 2 node(s) had untolerated taint(s), 3 Insufficient cpu, 3 Insufficient memory. preemption: 0/7 nodes are available: 7 Preemption is not helpful for scheduling.",
    );
    expect(parsed?.numAllNodes).toBe(7);
    expect(Object.fromEntries(parsed?.reasons ?? [])).toEqual({
      "node(s) didn't match Pod's node affinity/selector": 1,
      "node(s) didn't match pod anti-affinity rules": 1,
      'node(s) had untolerated taint(s)': 2,
      'Insufficient cpu': 3,
      'Insufficient memory': 3,
    });
    expect(parsed?.postFilterMsg).toBe(
      'preemption: 0/7 nodes are available: 7 Preemption is not helpful for scheduling.',
    );
  });

  it('reads a PreFilter message', () => {
    expect(
      parseFitError('0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.'),
    ).toEqual({
      numAllNodes: 3,
      preFilterMsg: 'pod has unbound immediate PersistentVolumeClaims',
      reasons: new Map(),
    });
  });

  it('reads its own output back', () => {
    const msg =
      '0/12 nodes are available: 10 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 Insufficient cpu.';
    expect(parseFitError(msg)?.reasons).toEqual(
      new Map([
        ['node(s) had untolerated taint {nvidia.com/gpu: present}', 10],
        ['Insufficient cpu', 2],
      ]),
    );
  });

  it('returns undefined for other messages', () => {
    expect(
      parseFitError('running PreBind plugin "VolumeBinding": binding volumes: timed out'),
    ).toBeUndefined();
  });
});

describe('normalizeSchedulerReason', () => {
  it.each([
    ['node(s) had untolerated taint {dedicated: gpu}', 'node(s) had untolerated taint(s)'],
    ["node(s) had taint {dedicated: gpu}, that the pod didn't tolerate", 'node(s) had untolerated taint(s)'],
    ["node(s) had taints that the pod didn't tolerate", 'node(s) had untolerated taint(s)'],
    ['Insufficient cpu', 'Insufficient cpu'],
  ])('maps %s to %s', (reason, normalized) => {
    expect(normalizeSchedulerReason(reason)).toBe(normalized);
  });
});
