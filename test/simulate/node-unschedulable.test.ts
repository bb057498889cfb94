import { describe, expect, it } from 'vitest';
import type { Toleration } from '../../src/model/k8s.js';
import {
  NODE_UNSCHEDULABLE,
  nodeUnschedulable,
  REASON_NODE_UNSCHEDULABLE,
} from '../../src/simulate/predicates/node-unschedulable.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { node, pod } from '../builders/k8s.js';

const view = buildClusterView({ nodes: [], pods: [] });

describe('NodeUnschedulable', () => {
  it('rejects a cordoned node with the scheduler reason', () => {
    const s = nodeUnschedulable(
      pod().build(),
      nodeInfoFor(node('cordoned').unschedulable().build(), []),
      view,
    );
    expect(s).toMatchObject({
      plugin: NODE_UNSCHEDULABLE,
      code: 'UnschedulableAndUnresolvable',
      reasons: [REASON_NODE_UNSCHEDULABLE],
    });
    expect(REASON_NODE_UNSCHEDULABLE).toBe('node(s) were unschedulable');
    expect(s.details?.[0]).toContain('cordoned');
  });

  it('rejects a node flagged unschedulable even without the taint (a CA template copy)', () => {
    const s = nodeUnschedulable(
      pod().build(),
      nodeInfoFor(node('tpl').withUnschedulableFlag().build(), []),
      view,
    );
    expect(s.code).toBe('UnschedulableAndUnresolvable');
  });

  it('passes a schedulable node', () => {
    expect(nodeUnschedulable(pod().build(), nodeInfoFor(node().build(), []), view).code).toBe('Success');
  });

  const tolerations: Array<[string, Toleration, boolean]> = [
    [
      'the unschedulable taint key with Exists',
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      true,
    ],
    [
      'the unschedulable taint key with any effect',
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists' },
      true,
    ],
    ['an empty key with Exists (tolerates everything)', { operator: 'Exists' }, true],
    [
      'the key but only for NoExecute',
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' },
      false,
    ],
    ['another key', { key: 'dedicated', operator: 'Exists' }, false],
  ];
  it.each(tolerations)('a pod tolerating %s passes: %s', (_name, toleration, passes) => {
    const s = nodeUnschedulable(
      pod().withToleration(toleration).build(),
      nodeInfoFor(node().unschedulable().build(), []),
      view,
    );
    expect(s.code).toBe(passes ? 'Success' : 'UnschedulableAndUnresolvable');
  });
});
