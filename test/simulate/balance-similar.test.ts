// --balance-similar-node-groups: CA's comparator (pkg/processors/nodegroupset/compare_nodegroups.go, aws_nodegroups.go).
import { describe, expect, it } from 'vitest';
import type { Node } from '../../src/model/k8s.js';
import {
  awsIgnoresZoneId,
  type BalancingConfig,
  balancingConfigFrom,
  similarGroups,
  similarSets,
  templateDifference,
} from '../../src/simulate/balance-similar.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { node, pod } from '../builders/k8s.js';
import { caDeployment } from '../builders/world.js';

function cfg(args: string[] = [], image = 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.36.1'): BalancingConfig {
  return balancingConfigFrom(buildCaConfig({ deployment: caDeployment(['--cloud-provider=aws', '--balance-similar-node-groups', ...args], image) }));
}

function tpl(n: Node) {
  return nodeInfoFor(n, []);
}

const a = node('template-node-for-eks-a').inZone('us-east-1a').withLabels({ 'eks.amazonaws.com/nodegroup': 'a', 'topology.k8s.aws/zone-id': 'use1-az1' }).build();
const b = node('template-node-for-eks-b').inZone('us-east-1b').withLabels({ 'eks.amazonaws.com/nodegroup': 'b', 'topology.k8s.aws/zone-id': 'use1-az2' }).build();

describe('templateDifference', () => {
  it('treats two zones of one instance type as similar: zone, hostname and EKS node group labels are ignored', () => {
    expect(templateDifference(tpl(a), tpl(b), cfg())).toBeUndefined();
  });

  it('splits on topology.k8s.aws/zone-id before 1.32.6 (ignored only since the 2025-12 backports)', () => {
    const old = cfg([], 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1');
    expect(templateDifference(tpl(a), tpl(b), old)).toBe('label topology.k8s.aws/zone-id differs: use1-az1 vs use1-az2');
    expect(awsIgnoresZoneId({ minor: 32, version: 'v1.32.6', known: true })).toBe(true);
    expect(awsIgnoresZoneId({ minor: 33, version: 'v1.33.3', known: true })).toBe(false);
  });

  it('splits on any other label and suggests --balancing-ignore-label, which then joins them', () => {
    const c = node('template-node-for-eks-c').inZone('us-east-1b').withLabels({ 'eks.amazonaws.com/nodegroup-image': 'ami-0b1c2d3e4f5a6b7c8' }).build();
    expect(templateDifference(tpl(a), tpl(c), cfg())).toBe(
      'label eks.amazonaws.com/nodegroup-image is on one template only (ami-0b1c2d3e4f5a6b7c8); add --balancing-ignore-label=eks.amazonaws.com/nodegroup-image if it does not matter',
    );
    expect(templateDifference(tpl(a), tpl(c), cfg(['--balancing-ignore-label=eks.amazonaws.com/nodegroup-image']))).toBeUndefined();
  });

  it('requires exact capacity except memory, which may differ by 1.5%', () => {
    const bigDisk = node('template-node-for-eks-d').withCapacity({ 'ephemeral-storage': '104845292Ki' }).build();
    expect(templateDifference(tpl(a), tpl(bigDisk), cfg())).toMatch(/^capacity ephemeral-storage differs/);
    const slightlyLessMemory = node('template-node-for-eks-e').withCapacity({ memory: '15800000Ki' }).build();
    expect(templateDifference(tpl(a), tpl(slightlyLessMemory), cfg())).toBeUndefined();
  });

  it('compares free resources after DaemonSet pods within 5%', () => {
    const withDs = nodeInfoFor(b, [pod('ds-agent-x', 'kube-system').withRequests({ cpu: '500m' }).ownedBy('DaemonSet', 'agent').onNode(b.metadata.name!).build()]);
    expect(templateDifference(tpl(a), withDs, cfg())).toMatch(/^free cpu \(allocatable minus DaemonSet pods\) differs by more than 5%/);
  });

  it('compares only the --balancing-label labels when set (label_nodegroups.go)', () => {
    const c = node('template-node-for-eks-c').withCapacity({ cpu: '8' }).withLabels({ pool: 'general' }).build();
    const d = node('template-node-for-eks-d').withLabels({ pool: 'general' }).build();
    expect(templateDifference(tpl(c), tpl(d), cfg(['--balancing-label=pool']))).toBeUndefined();
    expect(templateDifference(tpl(c), tpl(a), cfg(['--balancing-label=pool']))).toBe('label pool is missing (--balancing-label)');
  });
});

describe('similarGroups', () => {
  it('returns every pair sorted by group name with the first difference', () => {
    const big = node('template-node-for-eks-big').withCapacity({ cpu: '8' }).build();
    expect(similarGroups([{ group: 'eks-b', info: tpl(b) }, { group: 'eks-a', info: tpl(a) }, { group: 'eks-big', info: tpl(big) }], cfg())).toEqual([
      { a: 'eks-a', b: 'eks-b', similar: true },
      { a: 'eks-a', b: 'eks-big', similar: false, difference: 'capacity cpu differs (4000 vs 8000): only memory may differ' },
      { a: 'eks-b', b: 'eks-big', similar: false, difference: 'capacity cpu differs (4000 vs 8000): only memory may differ' },
    ]);
  });
});

describe('similarSets', () => {
  it('puts each group in the first set whose first group it is similar to, with the difference from the first set', () => {
    const big = node('template-node-for-eks-big').withCapacity({ cpu: '8' }).build();
    const big2 = node('template-node-for-eks-big-2').inZone('us-east-1b').withCapacity({ cpu: '8' }).build();
    const groups = [
      { group: 'eks-big-2', info: tpl(big2) },
      { group: 'eks-b', info: tpl(b) },
      { group: 'eks-big', info: tpl(big) },
      { group: 'eks-a', info: tpl(a) },
    ];
    expect(similarSets(groups, cfg())).toEqual([
      { groups: ['eks-a', 'eks-b'] },
      { groups: ['eks-big', 'eks-big-2'], difference: 'capacity cpu differs (4000 vs 8000): only memory may differ' },
    ]);
  });

  it('returns a single set when every group is similar, so nothing differs', () => {
    expect(similarSets([{ group: 'eks-a', info: tpl(a) }, { group: 'eks-b', info: tpl(b) }], cfg())).toEqual([{ groups: ['eks-a', 'eks-b'] }]);
  });
});
