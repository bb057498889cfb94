import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEksctlConfig, parseEksctlTaints } from '../../src/providers/aws/gather-eksctl.js';

const ROOT = join(import.meta.dirname, '..', '..');

const CONFIG = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: prod
  region: eu-west-1
vpc:
  subnets:
    private:
      eu-west-1a: { id: subnet-0a1b2c3d4e5f60001 }
      priv-b: { id: subnet-0a1b2c3d4e5f60002, az: eu-west-1b }
nodeGroups:
  - name: spot-mixed
    instanceType: mixed
    instancesDistribution:
      instanceTypes: [m5.xlarge, m5a.xlarge]
      spotInstancePools: 2
    minSize: 0
    maxSize: 8
    subnets: [priv-b]
    labels: {lifecycle: spot}
    taints:
      spot: "true:PreferNoSchedule"
    propagateASGTags: true
    iam:
      withAddonPolicies:
        autoScaler: true
  - name: plain
managedNodeGroups:
  - name: gpu
    instanceTypes: [g5.xlarge]
    spot: true
    minSize: 0
    maxSize: 3
    desiredCapacity: 0
    labels: {accelerator: a10g}
    taints:
      - key: nvidia.com/gpu
        effect: NoSchedule
    tags:
      k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage: 100Gi
`;

describe('reading an eksctl ClusterConfig (--eksctl)', () => {
  it('turns an unmanaged group into ASG tags CA reads: discovery from autoScaler, node-template tags from propagateASGTags', () => {
    const r = parseEksctlConfig(CONFIG, 'cluster.yaml');
    const g = r.groups.find((x) => x.name === 'spot-mixed');
    expect(g).toMatchObject({
      managed: false,
      instanceTypes: ['m5.xlarge', 'm5a.xlarge'],
      zones: ['eu-west-1b'],
      minSize: 0,
      maxSize: 8,
      desiredCapacity: 0,
      location: { file: 'cluster.yaml', line: 12 },
      labels: {
        lifecycle: 'spot',
        'alpha.eksctl.io/cluster-name': 'prod',
        'alpha.eksctl.io/nodegroup-name': 'spot-mixed',
      },
      taints: [{ key: 'spot', value: 'true', effect: 'PreferNoSchedule' }],
    });
    expect(Object.fromEntries(g!.asgTags.map((t) => [t.key, t.value]))).toEqual({
      'kubernetes.io/cluster/prod': 'owned',
      'k8s.io/cluster-autoscaler/enabled': 'true',
      'k8s.io/cluster-autoscaler/prod': 'owned',
      'k8s.io/cluster-autoscaler/node-template/label/lifecycle': 'spot',
      'k8s.io/cluster-autoscaler/node-template/label/alpha.eksctl.io/cluster-name': 'prod',
      'k8s.io/cluster-autoscaler/node-template/label/alpha.eksctl.io/nodegroup-name': 'spot-mixed',
      // eksctl: pkg/cfn/builder/nodegroup.go GenerateClusterAutoscalerTags writes the taint's value only
      'k8s.io/cluster-autoscaler/node-template/taint/spot': 'true',
    });
  });

  it("applies eksctl's defaults (2 nodes, m5.large, the cluster's zones) and says so", () => {
    const g = parseEksctlConfig(CONFIG, 'cluster.yaml').groups.find((x) => x.name === 'plain')!;
    expect(g).toMatchObject({
      instanceTypes: ['m5.large'],
      minSize: 2,
      maxSize: 2,
      desiredCapacity: 2,
      zones: ['eu-west-1a', 'eu-west-1b'],
    });
    expect(g.notes.join('\n')).toMatch(/default m5\.large assumed/);
    expect(g.asgTags.some((t) => t.key === 'k8s.io/cluster-autoscaler/enabled')).toBe(false);
  });

  it('describes a managed group the way eks:DescribeNodegroup returns it to CA, with the EKS auto-discovery tags', () => {
    const g = parseEksctlConfig(CONFIG, 'cluster.yaml').groups.find((x) => x.name === 'gpu')!;
    expect(g.managed).toBe(true);
    expect(g.eks).toEqual({
      labels: {
        accelerator: 'a10g',
        'alpha.eksctl.io/cluster-name': 'prod',
        'alpha.eksctl.io/nodegroup-name': 'gpu',
      },
      taints: [{ key: 'nvidia.com/gpu', effect: 'NO_SCHEDULE' }],
      capacityType: 'SPOT',
      tags: { 'k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage': '100Gi' },
    });
    expect(g.labels['eks.amazonaws.com/capacityType']).toBe('SPOT');
    expect(g.asgTags.map((t) => t.key)).toEqual([
      'eks:cluster-name',
      'k8s.io/cluster-autoscaler/enabled',
      'k8s.io/cluster-autoscaler/prod',
      'eks:nodegroup-name',
    ]);
    expect(g.notes.join('\n')).toMatch(/taint without a value/);
  });

  it('reads taints in both the list and the map form, and rejects an unknown effect with the line', () => {
    expect(parseEksctlTaints([{ key: 'a', value: 'b', effect: 'NoExecute' }], 'f', 1)).toEqual([
      { key: 'a', value: 'b', effect: 'NoExecute' },
    ]);
    expect(parseEksctlTaints({ a: 'b:NoSchedule', c: ':PreferNoSchedule' }, 'f', 1)).toEqual([
      { key: 'a', value: 'b', effect: 'NoSchedule' },
      { key: 'c', effect: 'PreferNoSchedule' },
    ]);
    expect(() => parseEksctlTaints({ a: 'b:Sometimes' }, 'f', 7)).toThrow(
      /^f:7: taint a has effect "Sometimes"/,
    );
  });

  it('rejects what is not a ClusterConfig, and sizes eksctl would reject, naming the line', () => {
    expect(() => parseEksctlConfig('kind: Deployment\n', 'x.yaml')).toThrow(/not an eksctl ClusterConfig/);
    const bad =
      'apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\nnodeGroups:\n  - name: a\n    minSize: 3\n    maxSize: 1\n';
    expect(() => parseEksctlConfig(bad, 'bad.yaml')).toThrow(
      /^bad\.yaml:5: nodeGroups\[0\] \(a\): maxSize 1 is below minSize 3/,
    );
  });

  it('reads the example ClusterConfig shipped in examples/preflight', () => {
    const r = parseEksctlConfig(
      readFileSync(join(ROOT, 'examples/preflight/cluster.yaml'), 'utf8'),
      'cluster.yaml',
    );
    expect(r.groups.map((g) => [g.name, g.managed, g.zones.length])).toEqual([
      ['batch', false, 1],
      ['general', true, 3],
      ['gpu', true, 1],
    ]);
  });
});
