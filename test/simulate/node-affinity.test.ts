import { describe, expect, it } from 'vitest';
import type { NodeSelectorTerm } from '../../src/model/k8s.js';
import {
  NODE_AFFINITY,
  nodeAffinity,
  nodeSelectorTermsMatch,
  podMatchesNodeSelectorAndAffinity,
  REASON_NODE_AFFINITY,
} from '../../src/simulate/predicates/node-affinity.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { node, pod, term } from '../builders/k8s.js';

const view = buildClusterView({ nodes: [], pods: [] });
const m5 = node('ip-10-0-1-23.ec2.internal')
  .withInstanceType('m5.xlarge')
  .inZone('us-east-1a')
  .withLabels({ 'eks.amazonaws.com/nodegroup': 'general', 'example.com/generation': '5' })
  .build();

describe('nodeSelector', () => {
  it('passes when every key matches', () => {
    const p = pod()
      .withNodeSelector({ 'kubernetes.io/arch': 'amd64', 'eks.amazonaws.com/nodegroup': 'general' })
      .build();
    expect(podMatchesNodeSelectorAndAffinity(p, m5)).toBe(true);
  });

  it('rejects when one key has another value, with the scheduler reason and the mismatch', () => {
    const p = pod()
      .withNodeSelector({ 'kubernetes.io/arch': 'arm64', 'eks.amazonaws.com/nodegroup': 'general' })
      .build();
    const s = nodeAffinity(p, nodeInfoFor(m5, []), view);
    expect(s).toMatchObject({
      plugin: NODE_AFFINITY,
      code: 'UnschedulableAndUnresolvable',
      reasons: [REASON_NODE_AFFINITY],
    });
    expect(REASON_NODE_AFFINITY).toBe("node(s) didn't match Pod's node affinity/selector");
    expect(s.details).toEqual(['nodeSelector kubernetes.io/arch=arm64, node has kubernetes.io/arch=amd64']);
  });

  it('rejects when the node lacks the label', () => {
    const p = pod().withNodeSelector({ 'karpenter.sh/capacity-type': 'spot' }).build();
    const s = nodeAffinity(p, nodeInfoFor(m5, []), view);
    expect(s.details).toEqual([
      'nodeSelector karpenter.sh/capacity-type=spot, node has no label karpenter.sh/capacity-type',
    ]);
  });
});

describe('required node affinity operators', () => {
  const cases: Array<[string, NodeSelectorTerm, boolean]> = [
    ['In with the node value', term('topology.kubernetes.io/zone', 'In', ['us-east-1a', 'us-east-1b']), true],
    ['In without the node value', term('topology.kubernetes.io/zone', 'In', ['us-east-1c']), false],
    ['In on a missing label', term('example.com/pool', 'In', ['a']), false],
    ['NotIn without the node value', term('node.kubernetes.io/instance-type', 'NotIn', ['t3.micro']), true],
    ['NotIn with the node value', term('node.kubernetes.io/instance-type', 'NotIn', ['m5.xlarge']), false],
    ['NotIn on a missing label', term('example.com/pool', 'NotIn', ['a']), true],
    ['Exists on a present label', term('eks.amazonaws.com/nodegroup', 'Exists'), true],
    ['Exists on a missing label', term('example.com/pool', 'Exists'), false],
    ['DoesNotExist on a missing label', term('example.com/pool', 'DoesNotExist'), true],
    ['DoesNotExist on a present label', term('eks.amazonaws.com/nodegroup', 'DoesNotExist'), false],
    ['Gt below the node value', term('example.com/generation', 'Gt', ['4']), true],
    ['Gt equal to the node value', term('example.com/generation', 'Gt', ['5']), false],
    ['Lt above the node value', term('example.com/generation', 'Lt', ['6']), true],
    ['Lt on a non-integer label value', term('kubernetes.io/arch', 'Lt', ['6']), false],
    ['Gt on a missing label', term('example.com/pool', 'Gt', ['1']), false],
    ['Gt with a non-integer value (invalid term)', term('example.com/generation', 'Gt', ['four']), false],
    ['Gt with two values (invalid term)', term('example.com/generation', 'Gt', ['1', '2']), false],
    ['In without values (invalid term)', term('topology.kubernetes.io/zone', 'In', []), false],
    ['Exists with values (invalid term)', term('eks.amazonaws.com/nodegroup', 'Exists', ['general']), false],
    [
      'an unknown operator (invalid term)',
      term('topology.kubernetes.io/zone', 'Equals', ['us-east-1a']),
      false,
    ],
    [
      'matchFields metadata.name In the node name',
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-10-0-1-23.ec2.internal'] }] },
      true,
    ],
    [
      'matchFields metadata.name In another name',
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-10-0-9-9.ec2.internal'] }] },
      false,
    ],
    [
      'matchFields metadata.name NotIn another name',
      { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['ip-10-0-9-9.ec2.internal'] }] },
      true,
    ],
    [
      'matchFields with Exists (invalid term)',
      { matchFields: [{ key: 'metadata.name', operator: 'Exists' }] },
      false,
    ],
    ['an empty term, which selects nothing', {}, false],
  ];
  it.each(cases)('%s: matches=%s', (_name, t, expected) => {
    const p = pod().withRequiredNodeAffinity(t).build();
    expect(podMatchesNodeSelectorAndAffinity(p, m5)).toBe(expected);
    expect(nodeAffinity(p, nodeInfoFor(m5, []), view).code).toBe(
      expected ? 'Success' : 'UnschedulableAndUnresolvable',
    );
  });

  it('ANDs the expressions of one term', () => {
    const t: NodeSelectorTerm = {
      matchExpressions: [
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
        { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
      ],
    };
    expect(nodeSelectorTermsMatch([t], m5)).toBe(false);
  });

  it('ORs the terms', () => {
    const p = pod()
      .withRequiredNodeAffinity(
        term('kubernetes.io/arch', 'In', ['arm64']),
        term('topology.kubernetes.io/zone', 'In', ['us-east-1a']),
      )
      .build();
    expect(podMatchesNodeSelectorAndAffinity(p, m5)).toBe(true);
  });

  it('matches nothing with an empty term list', () => {
    expect(nodeSelectorTermsMatch([], m5)).toBe(false);
  });

  it('requires both the nodeSelector and the affinity', () => {
    const p = pod()
      .withNodeSelector({ 'kubernetes.io/arch': 'amd64' })
      .withRequiredNodeAffinity(term('topology.kubernetes.io/zone', 'In', ['us-east-1b']))
      .build();
    const s = nodeAffinity(p, nodeInfoFor(m5, []), view);
    expect(s.code).toBe('UnschedulableAndUnresolvable');
    expect(s.details).toEqual([
      'required node affinity term 1/1: topology.kubernetes.io/zone In [us-east-1b] (node has topology.kubernetes.io/zone=us-east-1a)',
    ]);
  });

  it('ignores matchFields for a node without a name, as PV node affinity checks labels only', () => {
    const labelsOnly = { metadata: { labels: m5.metadata.labels } };
    const byName: NodeSelectorTerm = {
      matchFields: [{ key: 'metadata.name', operator: 'In', values: ['elsewhere'] }],
    };
    expect(nodeSelectorTermsMatch([byName], labelsOnly)).toBe(true);
  });
});
