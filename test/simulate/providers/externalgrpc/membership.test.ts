// Provider: nodegroup/node_group.go:523-577 MatchNodeGroup, l.54-65 KubeReservedTaints; wrapper/wrapper.go:77-104.
import { describe, expect, it } from 'vitest';
import type { GrpcNodeGroupSpec } from '../../../../src/model/externalgrpc.js';
import type { Node, Taint } from '../../../../src/model/k8s.js';
import { implicitDefaultGroup } from '../../../../src/providers/externalgrpc/config.js';
import { matchNodeGroup, nodeMembership, taintMatchKeys } from '../../../../src/providers/externalgrpc/membership.js';

function group(id: string, labels: Record<string, string>, taints: Taint[] = [], annotations: Record<string, string> = {}): GrpcNodeGroupSpec {
  return {
    id,
    minSize: 0,
    maxSize: 10,
    targetSize: 0,
    instanceParameter: 'tpl',
    instances: [],
    nodeTemplate: { labels, annotations, capacity: { cpu: '8' }, allocatable: {}, taints },
  };
}

function node(name: string, labels: Record<string, string>, taints?: Taint[], annotations?: Record<string, string>): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...labels }, ...(annotations ? { annotations } : {}) },
    spec: taints ? { taints } : {},
  };
}

const GROUPS = [
  group('general', { 'node-role.kubernetes.io/general': '' }),
  group('addons', { 'node-role.kubernetes.io/worker-addons': '' }, [{ key: 'CriticalAddonsOnly', effect: 'NoSchedule' }]),
  group('gpu', { 'node-role.kubernetes.io/gpu': '' }, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }], { 'ops/owner': 'ml' }),
  implicitDefaultGroup(),
];

describe('MatchNodeGroup', () => {
  it.each([
    ['labels ⊇ template labels', node('a', { 'node-role.kubernetes.io/general': '', extra: 'x' }), 'general'],
    ['a template taint the node lacks is fine (node taints ⊆ template taints)', node('b', { 'node-role.kubernetes.io/worker-addons': '' }), 'addons'],
    ['node-condition and CA taints are ignored', node('c', { 'node-role.kubernetes.io/general': '' }, [
      { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
      { key: 'ToBeDeletedByClusterAutoscaler', value: '1732441000', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' },
    ]), 'general'],
    ['uninitialized is not reserved: the node falls to default', node('d', { 'node-role.kubernetes.io/general': '' }, [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }]), 'default'],
    ['a taint value must match too', node('e', { 'node-role.kubernetes.io/gpu': '' }, [{ key: 'nvidia.com/gpu', value: 'yes', effect: 'NoSchedule' }], { 'ops/owner': 'ml' }), 'default'],
    ['annotations ⊇ template annotations', node('f', { 'node-role.kubernetes.io/gpu': '' }, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }], { 'ops/owner': 'ml' }), 'gpu'],
    ['a missing annotation rejects', node('g', { 'node-role.kubernetes.io/gpu': '' }), 'default'],
    ['no label match -> default', node('h', {}), 'default'],
  ])('%s', (_n, n, want) => {
    expect(matchNodeGroup(n, GROUPS).groupId).toBe(want);
  });

  it('uses the first of several matches and reports the provider\'s error text', () => {
    const groups = [group('x', { role: 'w' }), group('y', {}), ...GROUPS];
    const r = matchNodeGroup(node('ip-10-20-1-7', { role: 'w' }), groups);
    expect(r.groupId).toBe('x');
    expect(r.candidates).toEqual(['x', 'y']);
    expect(r.error).toBe('node(ip-10-20-1-7) matched multiple nodegroup [x y]');
  });

  it('never matches a configured `default` group by template (it is skipped)', () => {
    const withDefault = [group('default', { role: 'w' })];
    expect(matchNodeGroup(node('n', { role: 'w' }), withDefault)).toMatchObject({ groupId: 'default', candidates: [] });
  });

  it('compares taints as key=value:effect strings', () => {
    expect(taintMatchKeys([{ key: 'a', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }])).toEqual(['a=:NoSchedule']);
  });
});

describe('NodeGroupForNode: by instance record first', () => {
  const recorded: GrpcNodeGroupSpec[] = [
    { ...GROUPS[0], instances: [{ id: 'k3v9xq2m', name: 'node-7fj2ka.vm10-20-1-14', ip: '10.20.1.14', providerID: 'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-3kd9s0a1', stage: 'Running', status: 'Success', error: '' }] },
    ...GROUPS.slice(1),
  ];

  it('answers the recorded group and predicts the move when a Running node no longer matches it', () => {
    const n = node('node-7fj2ka.vm10-20-1-14', {}, [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }]);
    expect(nodeMembership(n, recorded)).toMatchObject({ groupId: 'general', via: 'record', recordStage: 'Running', movesTo: 'default' });
  });

  it('does not move a record that is not Running yet (labels are patched at Joined)', () => {
    const joining = [{ ...recorded[0], instances: [{ ...recorded[0].instances[0], stage: 'Joined', status: 'InProcess' }] }, ...GROUPS.slice(1)];
    const m = nodeMembership(node('node-7fj2ka.vm10-20-1-14', {}), joining);
    expect(m.groupId).toBe('general');
    expect(m.movesTo).toBeUndefined();
  });

  it('places a node without a record by MatchNodeGroup', () => {
    expect(nodeMembership(node('new-node', { 'node-role.kubernetes.io/general': '' }), recorded)).toMatchObject({ groupId: 'general', via: 'match' });
  });

  it("answers the first group holding a record of the node and names every holder in the provider's error (FindNodeGroupByNodeName l.607-633)", () => {
    const rec = recorded[0].instances[0];
    const twice = [
      recorded[0],
      { ...GROUPS[1], instances: [{ ...rec, id: 'a8d0s1k2', stage: 'Joined' }, { ...rec, id: 'b7c6d5e4' }] },
      { ...GROUPS[2], instances: [{ ...rec, id: 'z9y8x7w6', name: 'other-node' }] },
      GROUPS[3],
    ];
    const m = nodeMembership(node('node-7fj2ka.vm10-20-1-14', {}), twice);
    expect(m).toMatchObject({ groupId: 'general', via: 'record', recordStage: 'Running' });
    expect(m.error).toBe('node(node-7fj2ka.vm10-20-1-14) matched multiple nodegroup [general addons]');
    // a group's first record of the node is the one that counts
    const addonsFirst = [twice[1], twice[0], GROUPS[3]];
    expect(nodeMembership(node('node-7fj2ka.vm10-20-1-14', {}), addonsFirst)).toMatchObject({ groupId: 'addons', recordStage: 'Joined' });
  });

  it('finds the record by providerID when the node is named by it (wrapper.go:77-104), and never by an empty providerID', () => {
    const pid = recorded[0].instances[0].providerID;
    const byPid: Node = { ...node(pid, {}), spec: { providerID: pid } };
    expect(nodeMembership(byPid, recorded)).toMatchObject({ groupId: 'general', via: 'record' });
    const unnamed: Node = { ...node('', {}), spec: { providerID: '' } };
    const blank = [{ ...recorded[0], instances: [{ ...recorded[0].instances[0], name: 'x', providerID: '' }] }, ...GROUPS.slice(1)];
    expect(nodeMembership(unnamed, blank).via).toBe('match');
  });
});
