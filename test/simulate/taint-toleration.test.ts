import { describe, expect, it } from 'vitest';
import type { Taint, Toleration } from '../../src/model/k8s.js';
import {
  findUntoleratedTaint,
  TAINT_TOLERATION,
  taintToleration,
  toleratesTaint,
  untoleratedTaintReason,
} from '../../src/simulate/predicates/taint-toleration.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { node, pod } from '../builders/k8s.js';

const view = buildClusterView({ nodes: [], pods: [] });
const gpuTaint: Taint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };

describe('toleratesTaint (core/v1 Toleration.ToleratesTaint)', () => {
  const cases: Array<[string, Toleration, Taint, boolean]> = [
    [
      'Equal with the same key, value and effect',
      { key: 'nvidia.com/gpu', operator: 'Equal', value: 'present', effect: 'NoSchedule' },
      gpuTaint,
      true,
    ],
    [
      'an empty operator, which means Equal',
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      gpuTaint,
      true,
    ],
    [
      'Equal with another value',
      { key: 'nvidia.com/gpu', operator: 'Equal', value: 'absent', effect: 'NoSchedule' },
      gpuTaint,
      false,
    ],
    [
      'Exists on the key',
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      gpuTaint,
      true,
    ],
    [
      'Exists with an empty effect (all effects)',
      { key: 'nvidia.com/gpu', operator: 'Exists' },
      gpuTaint,
      true,
    ],
    [
      'Exists with another effect',
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute' },
      gpuTaint,
      false,
    ],
    ['Exists with an empty key (all taints)', { operator: 'Exists' }, gpuTaint, true],
    ['Exists on another key', { key: 'dedicated', operator: 'Exists' }, gpuTaint, false],
    [
      'Equal with an empty value against a value-less taint',
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Equal', value: '', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
      true,
    ],
    ['an unknown operator', { key: 'nvidia.com/gpu', operator: 'Gt', value: '1' }, gpuTaint, false],
  ];
  it.each(cases)('%s: %s', (_name, toleration, taint, expected) => {
    expect(toleratesTaint(toleration, taint)).toBe(expected);
  });
});

describe('findUntoleratedTaint', () => {
  const taints: Taint[] = [
    { key: 'DeletionCandidateOfClusterAutoscaler', value: '1736070000', effect: 'PreferNoSchedule' },
    { key: 'dedicated', value: 'batch', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  ];

  it('ignores PreferNoSchedule and returns the first NoSchedule/NoExecute taint in node order', () => {
    expect(findUntoleratedTaint([], taints)).toEqual(taints[1]);
  });

  it('skips tolerated taints', () => {
    expect(findUntoleratedTaint([{ key: 'dedicated', operator: 'Exists' }], taints)).toEqual(taints[2]);
  });

  it('honours a custom effect list', () => {
    expect(findUntoleratedTaint([], taints, ['NoExecute'])).toEqual(taints[2]);
    expect(findUntoleratedTaint([], taints, ['PreferNoSchedule'])).toEqual(taints[0]);
  });

  it('returns undefined for a node without taints or when everything is tolerated', () => {
    expect(findUntoleratedTaint(undefined, undefined)).toBeUndefined();
    expect(findUntoleratedTaint([{ operator: 'Exists' }], taints)).toBeUndefined();
  });
});

describe('TaintToleration', () => {
  it('rejects a node with an untolerated taint, naming key and value', () => {
    const s = taintToleration(
      pod().build(),
      nodeInfoFor(node('gpu-1').withTaint('nvidia.com/gpu', 'present').build(), []),
      view,
    );
    expect(s).toMatchObject({
      plugin: TAINT_TOLERATION,
      code: 'UnschedulableAndUnresolvable',
      reasons: ['node(s) had untolerated taint {nvidia.com/gpu: present}'],
    });
    expect(s.details?.[0]).toContain('nvidia.com/gpu=present:NoSchedule');
  });

  it('prints an empty value as "{key: }"', () => {
    expect(
      untoleratedTaintReason({ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }),
    ).toBe('node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }');
  });

  it('rejects an untolerated NoExecute taint although the defaulted tolerations cover not-ready', () => {
    const n = node()
      .withTaint('node.kubernetes.io/not-ready', undefined, 'NoExecute')
      .withTaint('spot', 'true', 'NoExecute')
      .build();
    const s = taintToleration(pod().build(), nodeInfoFor(n, []), view);
    expect(s.reasons).toEqual(['node(s) had untolerated taint {spot: true}']);
  });

  it('passes a node whose only taint is PreferNoSchedule', () => {
    const n = node()
      .withTaint('DeletionCandidateOfClusterAutoscaler', '1736070000', 'PreferNoSchedule')
      .build();
    expect(taintToleration(pod().build(), nodeInfoFor(n, []), view).code).toBe('Success');
  });

  it('passes a node whose taints are all tolerated', () => {
    const p = pod()
      .withToleration({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' })
      .build();
    const n = node().withTaint('nvidia.com/gpu', 'present').build();
    expect(taintToleration(p, nodeInfoFor(n, []), view).code).toBe('Success');
  });
});
