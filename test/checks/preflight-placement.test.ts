// Per-check tables for preflight's placement family: unplaceable, fits only real nodes, fits the template only.
import { describe, expect, it } from 'vitest';
import { world } from '../builders/world.js';
import { CLUSTER, deployment, preflightRun, yamlStream } from './preflight-harness.js';

const cronJob = (spec: Record<string, unknown>) => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'nightly-report', namespace: 'batch' },
  spec: {
    schedule: '0 2 * * *',
    jobTemplate: {
      spec: {
        template: {
          spec: {
            restartPolicy: 'OnFailure',
            containers: [
              { name: 'report', image: 'reports:1', resources: { requests: { cpu: '1', memory: '2Gi' } } },
            ],
            ...spec,
          },
        },
      },
    },
  },
});
const batchSelector = {
  nodeSelector: { workload: 'batch' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }],
};

describe('workload-unplaceable', () => {
  it('fires when no group fits even from zero, with each group’s failing predicate and values', () => {
    const big = deployment('warehouse', {
      containers: [{ name: 'app', image: 'wh:1', resources: { requests: { cpu: '16', memory: '8Gi' } } }],
    });
    const [f] = preflightRun(yamlStream(big)).of('workload-unplaceable');
    expect(f).toMatchObject({
      severity: 'error',
      subject: { kind: 'Deployment', namespace: 'web', name: 'warehouse' },
    });
    expect(f.location).toBeUndefined(); // the command adds locations
    expect(f.message).toContain('fits none of the 3 node group(s), even when CA scales them from zero');
    expect(f.message).toContain('general: cpu 16 > 1900m free');
    expect(f.message).toContain('gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated');
    expect(f.evidence.map((e) => e.source)).toEqual([
      'CA template for batch from the eksctl node group cluster.yaml:19',
      'CA template for general from the eksctl node group cluster.yaml:6',
      'CA template for gpu from the eksctl node group cluster.yaml:11',
    ]);
  });

  it('names CA-level reasons when CA manages none of the groups', () => {
    const r = preflightRun(yamlStream(deployment('api')), {
      caArgs: ['--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/other-cluster'],
    });
    // issue 14: one discovery finding on CA's Deployment, not the same verdict on every workload
    const [f] = r.of('workload-unplaceable');
    expect(f.message).toContain('manage none of the 3 node group(s) (batch, general, gpu)');
    expect(f.evidence).toContainEqual({
      source: 'node group general',
      observed: 'missing tag "k8s.io/cluster-autoscaler/other-cluster" (--node-group-auto-discovery)',
    });
  });

  it('says so for an arm64-only image when no group runs arm64', () => {
    const arm = deployment('edge', { spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } } });
    const [f] = preflightRun(yamlStream(arm)).of('workload-unplaceable');
    expect(f.message).toContain(
      'general: nodeSelector kubernetes.io/arch=arm64, node has kubernetes.io/arch=amd64',
    );
    expect(f.remediation).toMatch(/CPU architecture no group runs/);
  });

  it('does not fire for a workload a group fits, nor for DaemonSets or workloads scaled to 0', () => {
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'ops' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { nodeSelector: { nope: 'x' }, containers: [{ name: 'a', image: 'a' }] },
        },
      },
    };
    const zero = deployment('parked', { replicas: 0, spec: { nodeSelector: { nope: 'x' } } });
    expect(preflightRun(yamlStream(deployment('api'), ds, zero)).of('workload-unplaceable')).toEqual([]);
  });

  it('is not applicable without node groups: no finding, the check is reported as not provided', () => {
    const r = preflightRun(yamlStream(deployment('warehouse', { spec: { nodeSelector: { nope: 'x' } } })), {
      eksctl: null,
    });
    expect(r.of('workload-unplaceable')).toEqual([]);
    expect(r.skipped.find((s) => s.checkId === 'workload-unplaceable')?.reason).toBe('not-provided');
  });
});

describe('workload-fits-only-real-nodes', () => {
  it('fires as an error when the label the pod selects is on real nodes but not on a scale-to-zero template', () => {
    const [f] = preflightRun(yamlStream(cronJob(batchSelector))).of('workload-fits-only-real-nodes');
    expect(f).toMatchObject({ severity: 'error', subject: { kind: 'CronJob', name: 'nightly-report' } });
    expect(f.message).toContain('lacks label(s) workload=batch');
    expect(f.remediation).toContain('k8s.io/cluster-autoscaler/node-template/label/workload: "batch"');
  });

  it('is only a warning when the group keeps a node (minSize > 0), so CA normally templates from it', () => {
    const cluster = CLUSTER.replace('    minSize: 0\n    maxSize: 20', '    minSize: 1\n    maxSize: 20');
    const [f] = preflightRun(yamlStream(cronJob(batchSelector)), { eksctl: cluster }).of(
      'workload-fits-only-real-nodes',
    );
    expect(f.severity).toBe('warning');
  });

  it('does not fire once propagateASGTags puts the labels into the template', () => {
    const cluster = CLUSTER.replace(
      '    labels: {workload: batch}',
      '    labels: {workload: batch}\n    propagateASGTags: true',
    );
    const r = preflightRun(yamlStream(cronJob(batchSelector)), { eksctl: cluster });
    expect(r.of('workload-fits-only-real-nodes')).toEqual([]);
    expect(r.of('workload-unplaceable')).toEqual([]);
  });

  it('compares a real node from a dump (--from) with the ASG-built template CA falls back to', () => {
    // world(): ASG prod-general has a node labelled node-pool=general but no node-template label tag
    const pod = deployment('api', { spec: { nodeSelector: { 'node-pool': 'general' } } });
    const r = preflightRun(yamlStream(pod), { eksctl: null, cluster: { raw: world().raw, via: 'from' } });
    const [f] = r.of('workload-fits-only-real-nodes');
    expect(f).toMatchObject({ severity: 'warning', subject: { name: 'api' } });
    expect(f.message).toContain('fits real nodes of prod-general');
    expect(f.evidence[1]).toEqual({
      source: 'node ip-10-0-1-10.ec2.internal',
      observed: 'takes the pod (node-pool=general)',
    });
    expect(f.remediation).toContain(
      'aws autoscaling create-or-update-tags --tags ResourceId=prod-general,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/label/node-pool,Value=general',
    );
  });

  it('does not fire for managed node group labels, which CA reads with eks:DescribeNodegroup', () => {
    const pod = deployment('api', { spec: { nodeSelector: { workload: 'general' } } });
    expect(preflightRun(yamlStream(pod)).of('workload-fits-only-real-nodes')).toEqual([]);
  });
});

describe('workload-fits-template-not-real-node', () => {
  const hungry = deployment('cache', {
    containers: [
      {
        name: 'memcached',
        image: 'memcached:1.6',
        resources: { requests: { cpu: '500m', memory: '7.5Gi' } },
      },
    ],
  });

  it('fires when the pod fits the template (allocatable = capacity) but not a real node after the EKS reservations', () => {
    const [f] = preflightRun(yamlStream(hungry)).of('workload-fits-template-not-real-node');
    expect(f).toMatchObject({ severity: 'error', schedulerReason: 'Insufficient memory' });
    expect(f.message).toContain('(memory 7680Mi > 7518Mi free)');
    expect(f.evidence[0].observed).toBe('Insufficient memory: memory: requests 7680Mi, allocatable 7518Mi');
  });

  it('is a warning when another fitting group has room on its real nodes', () => {
    const cluster = CLUSTER.replace(
      'managedNodeGroups:\n',
      'managedNodeGroups:\n  - name: large\n    instanceType: m5.xlarge\n    minSize: 0\n    maxSize: 5\n',
    );
    const [f] = preflightRun(yamlStream(hungry), { eksctl: cluster }).of(
      'workload-fits-template-not-real-node',
    );
    expect(f.severity).toBe('warning');
    expect(f.message).toContain("if CA's expander picks general");
  });

  it('fires when real nodes carry a taint CA’s template lacks, and advises the taint tag', () => {
    const cluster = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
nodeGroups:
  - name: tainted
    instanceType: m5.large
    minSize: 0
    maxSize: 3
    availabilityZones: [us-east-1a]
    taints: {dedicated: "infra:NoSchedule"}
`;
    const [f] = preflightRun(yamlStream(deployment('api')), { eksctl: cluster }).of(
      'workload-fits-template-not-real-node',
    );
    expect(f.message).toContain('taint dedicated=infra:NoSchedule not tolerated');
    expect(f.remediation).toContain(
      'k8s.io/cluster-autoscaler/node-template/taint/dedicated: "infra:NoSchedule"',
    );
  });

  it('does not fire for a pod that fits a real node', () => {
    expect(preflightRun(yamlStream(deployment('api'))).of('workload-fits-template-not-real-node')).toEqual(
      [],
    );
  });
});
