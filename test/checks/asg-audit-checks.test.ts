// Each asg-audit check: at least one case that fires and one that must not.
import { describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import type { IamEvaluationResult, LaunchTemplateVersion } from '../../src/model/aws.js';
import type { Node, Pod } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { setAuditedAsgs } from '../../src/providers/aws/asg-audit.js';
import { isPendingCandidate } from '../../src/model/k8s.js';
import { ACCOUNT, asg, launchTemplateVersion, REGION, scalingActivity } from '../builders/aws.js';
import { node, pod, pv, pvc } from '../builders/k8s.js';
import { DEFAULT_CA_ARGS, instanceIdOf, NOW, pendingPod, world } from '../builders/world.js';
import { STATIC_TYPES } from './harness.js';

function audit(raw: RawInputs, opts: { caArgs?: string[]; asg?: string[] } = {}) {
  const analysis = new Analysis(raw, { now: NOW, caArgs: opts.caArgs, staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
  if (opts.asg) setAuditedAsgs(analysis, opts.asg);
  return { analysis, ...runChecks(CHECKS, analysis, 'asg-audit') };
}

function findings(raw: RawInputs, id: string, opts?: { caArgs?: string[]; asg?: string[] }) {
  return audit(raw, opts).findings.filter((f) => f.checkId === id);
}

const LABEL = 'k8s.io/cluster-autoscaler/node-template/label/';
const TAINT = 'k8s.io/cluster-autoscaler/node-template/taint/';
const RES = 'k8s.io/cluster-autoscaler/node-template/resources/';

interface GroupOpts {
  type?: string;
  min?: number;
  max?: number;
  desired?: number;
  tags?: Record<string, string>;
  nodes?: Node[];
  zones?: string[];
  discovered?: boolean;
  version?: string;
  ltPatch?: (v: LaunchTemplateVersion) => void;
}

/** An ASG of cluster prod with its launch template (v1, default), optionally owning nodes. */
function group(name: string, o: GroupOpts = {}) {
  const ltId = `lt-0${name.replace(/\W/g, '')}`.slice(0, 20);
  let b = asg(name);
  if (o.discovered !== false) b = b.withDiscoveryTags('prod');
  b = b
    .withTag('kubernetes.io/cluster/prod', 'owned')
    .withTags(o.tags ?? {})
    .withZones(...(o.zones ?? [`${REGION}a`]))
    .withLaunchTemplate({ id: ltId, version: o.version ?? '$Default' })
    .withSizes(o.min ?? 0, o.max ?? 10, o.desired ?? o.nodes?.length ?? 0);
  for (const n of o.nodes ?? [])
    b = b.withInstance(instanceIdOf(n), {
      InstanceType: o.type ?? 'm5.large',
      LaunchTemplate: { LaunchTemplateId: ltId, Version: '1' },
    });
  const lt = launchTemplateVersion(ltId, 1)
    .asDefault()
    .withInstanceType(o.type ?? 'm5.large')
    .build();
  o.ltPatch?.(lt);
  return { asg: b.build(), lt, ltId };
}

function add(w: ReturnType<typeof world>, g: ReturnType<typeof group>, nodes: Node[] = []) {
  w.add('autoScalingGroups', g.asg).add('launchTemplateVersions', g.lt);
  if (nodes.length) w.add('nodes', ...nodes);
  return w;
}

function m5large(name: string): Node {
  return node(name)
    .withInstanceType('m5.large')
    .withCapacity({ cpu: '2', memory: '7908276Ki', pods: '29' })
    .withAllocatable({ cpu: '1930m', memory: '7218100Ki', pods: '29' })
    .build();
}

function running(
  name: string,
  n: Node,
  extra: (p: ReturnType<typeof pod>) => ReturnType<typeof pod> = (p) => p,
): Pod {
  return extra(
    pod(name, 'web')
      .withRequests({ cpu: '100m', memory: '128Mi' })
      .ownedBy('ReplicaSet', `${name}-6d4b8c9f7`)
      .onNode(n.metadata.name!),
  ).build();
}

describe('asg-not-discovered', () => {
  it('names the discovery tag an ASG owning nodes lacks, with the tag command', () => {
    const n = m5large('ip-10-0-3-245.ec2.internal');
    const w = add(
      world(),
      group('prod-monitoring', {
        discovered: false,
        tags: { 'k8s.io/cluster-autoscaler/enabled': 'true' },
        nodes: [n],
        min: 1,
      }),
      [n],
    );
    const [f] = findings(w.raw, 'asg-not-discovered');
    expect(f).toMatchObject({ severity: 'error', nodeGroup: 'prod-monitoring' });
    expect(f.message).toBe(
      'ASG prod-monitoring owns 1 node(s) of this cluster but CA never scales it: missing tag "k8s.io/cluster-autoscaler/prod" (--node-group-auto-discovery).',
    );
    expect(f.remediation).toContain('Key=k8s.io/cluster-autoscaler/prod,Value=owned');
  });

  it('warns about an ASG tagged for the cluster that owns no node', () => {
    const w = add(world(), group('prod-spare', { discovered: false }));
    expect(findings(w.raw, 'asg-not-discovered')).toMatchObject([{ severity: 'warning' }]);
  });

  it('stays quiet for discovered ASGs and for ASGs of other clusters', () => {
    const w = world().add(
      'autoScalingGroups',
      asg('staging-general').withTag('kubernetes.io/cluster/staging', 'owned').build(),
    );
    expect(findings(w.raw, 'asg-not-discovered')).toEqual([]);
  });
});

describe('asg-discovered-without-nodes', () => {
  it('reports a discovered ASG whose running instances never became nodes', () => {
    const g = group('prod-ghost', { desired: 1 });
    g.asg.Instances = [
      { InstanceId: 'i-0aaaabbbbcccc1111', InstanceType: 'm5.large', LifecycleState: 'InService' },
    ];
    const [f] = findings(add(world(), g).raw, 'asg-discovered-without-nodes');
    expect(f).toMatchObject({ severity: 'error', nodeGroup: 'prod-ghost' });
    expect(f.message).toContain(
      'runs 1 instance(s) (i-0aaaabbbbcccc1111) that are not nodes of this cluster',
    );
  });

  it('reports a discovered ASG tagged for another cluster', () => {
    const g = group('staging-batch', { tags: { 'eks:cluster-name': 'staging' } });
    const [f] = findings(add(world(), g).raw, 'asg-discovered-without-nodes');
    expect(f.message).toContain('tagged for another cluster (eks:cluster-name=staging)');
  });

  it('accepts a discovered group at zero that belongs to this cluster', () => {
    expect(findings(add(world(), group('prod-batch')).raw, 'asg-discovered-without-nodes')).toEqual([]);
  });
});

describe('discovery-spec-invalid', () => {
  it.each([
    [
      'an unknown discoverer',
      ['--node-group-auto-discovery=mig:namePrefix=x'],
      'unsupported discoverer specified: mig',
    ],
    [
      'a --nodes value that is not min:max:name',
      ['--nodes=1:x:prod-general'],
      'failed to set max size: x, expected integer',
    ],
  ])('reports %s with CA’s error', (_name, caArgs, error) => {
    const fs = findings(world().raw, 'discovery-spec-invalid', { caArgs });
    expect(fs.map((f) => f.message).join('\n')).toContain(error);
  });

  it('reports a CA with neither discovery nor --nodes', () => {
    const fs = findings(world({ caArgs: ['--v=4', '--cloud-provider=aws'] }).raw, 'discovery-spec-invalid');
    expect(fs.map((f) => f.message)).toEqual([
      'CA has neither --node-group-auto-discovery nor --nodes: it manages no node group.',
    ]);
  });

  it('accepts the standard discovery spec', () => {
    expect(findings(world().raw, 'discovery-spec-invalid')).toEqual([]);
  });
});

describe('discovery-specs-anded', () => {
  const args = [
    '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled',
    '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/prod',
  ];

  it('names the ASGs that match one flag but not the merged filter', () => {
    const n = m5large('ip-10-0-5-5.ec2.internal');
    const g = group('prod-batch', {
      discovered: false,
      tags: { 'k8s.io/cluster-autoscaler/enabled': 'true' },
      nodes: [n],
      min: 1,
    });
    const [f] = findings(add(world(), g, [n]).raw, 'discovery-specs-anded', { caArgs: args });
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('prod-batch match one flag but not all');
  });

  it('reports a tag given two values (the later wins)', () => {
    const fs = findings(world().raw, 'discovery-specs-anded', {
      caArgs: ['--node-group-auto-discovery=asg:tag=team=a', '--node-group-auto-discovery=asg:tag=team=b'],
    });
    expect(fs.map((f) => f.message)).toContain(
      'CA merges its --node-group-auto-discovery flags and the later value of tag team wins: a then b.',
    );
  });

  it('only notes the AND when no ASG is affected, and says nothing for one flag', () => {
    expect(findings(world().raw, 'discovery-specs-anded', { caArgs: args })).toMatchObject([
      { severity: 'info' },
    ]);
    expect(findings(world().raw, 'discovery-specs-anded')).toEqual([]);
  });
});

describe('discovery-nodes-flag-mixed', () => {
  it('warns when --nodes and auto-discovery are combined and names the overlap', () => {
    const [f] = findings(world().raw, 'discovery-nodes-flag-mixed', {
      caArgs: [...DEFAULT_CA_ARGS, '--nodes=1:5:prod-general'],
    });
    expect(f.message).toContain('prod-general also match the discovery tags');
  });

  it('accepts either mechanism alone', () => {
    expect(findings(world().raw, 'discovery-nodes-flag-mixed')).toEqual([]);
    const nodesOnly = world({ caArgs: ['--v=4', '--cloud-provider=aws', '--nodes=1:5:prod-general'] });
    expect(findings(nodesOnly.raw, 'discovery-nodes-flag-mixed')).toEqual([]);
  });
});

describe('nodes-flag-asg-mismatch', () => {
  it('reports --nodes bounds outside the ASG and a missing ASG', () => {
    const fs = findings(world().raw, 'nodes-flag-asg-mismatch', {
      caArgs: ['--nodes=0:20:prod-general', '--nodes=1:3:prod-nope'],
    });
    expect(fs.map((f) => f.message).sort()).toEqual([
      "--nodes=0:20:prod-general lets CA scale prod-general down to 0 but the ASG's MinSize is 1: CA's scale-down below 1 fails.",
      "--nodes=0:20:prod-general lets CA scale prod-general to 20 but the ASG's MaxSize is 5: SetDesiredCapacity above 5 fails.",
      '--nodes=1:3:prod-nope names ASG prod-nope, which does not exist in this region.',
    ]);
  });

  it('accepts --nodes within the ASG bounds', () => {
    expect(
      findings(world().raw, 'nodes-flag-asg-mismatch', { caArgs: ['--nodes=1:5:prod-general'] }),
    ).toEqual([]);
  });
});

describe('discovery-cluster-name-mismatch', () => {
  it('names the cluster the node-owning ASGs are tagged for', () => {
    const [f] = findings(world().raw, 'discovery-cluster-name-mismatch', {
      caArgs: [
        '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod-eks',
      ],
    });
    expect(f.message).toBe(
      "CA discovers ASGs tagged k8s.io/cluster-autoscaler/prod-eks, which no ASG carries; the ASGs owning this cluster's nodes are tagged for cluster prod.",
    );
    expect(f.remediation).toContain('k8s.io/cluster-autoscaler/prod');
  });

  it('accepts a spec whose cluster tag exists', () => {
    expect(findings(world().raw, 'discovery-cluster-name-mismatch')).toEqual([]);
  });
});

describe('template-instance-type-unknown', () => {
  it('quotes CA for a group at zero whose type CA does not know', () => {
    const [f] = findings(
      add(world(), group('prod-new', { type: 'zz9.xlarge' })).raw,
      'template-instance-type-unknown',
    );
    expect(f).toMatchObject({ severity: 'error', caReason: 'not ready for scale-up' });
    expect(f.message).toContain('ASG "prod-new" uses the unknown EC2 instance type "zz9.xlarge"');
  });

  it('only warns while a real node still serves as the template', () => {
    const n = node('ip-10-0-9-9.ec2.internal').withInstanceType('zz9.xlarge').build();
    const [f] = findings(
      add(world(), group('prod-new', { type: 'zz9.xlarge', nodes: [n] }), [n]).raw,
      'template-instance-type-unknown',
    );
    expect(f.severity).toBe('warning');
  });

  it('accepts known types', () => {
    expect(
      findings(add(world(), group('prod-new', { type: 'm5.large' })).raw, 'template-instance-type-unknown'),
    ).toEqual([]);
  });
});

describe('template-label-missing', () => {
  const batchPod = () =>
    pendingPod('report-builder-7c9d8f6b5-abcde', 'batch').withNodeSelector({ 'node-pool': 'batch' }).build();

  it('finds a kubelet --node-labels label of a group at zero in the launch template user data', () => {
    const userData = Buffer.from(
      '#!/bin/bash\n/etc/eks/bootstrap.sh prod --kubelet-extra-args "--node-labels=node-pool=batch,team=data"\n',
    ).toString('base64');
    const g = group('prod-batch', { ltPatch: (v) => (v.LaunchTemplateData!.UserData = userData) });
    expect(findings(add(world(), g).raw, 'template-label-missing')).toEqual([]); // nothing selects it yet
    const w = add(world(), g);
    w.add('pods', batchPod());
    const [hit] = findings(w.raw, 'template-label-missing');
    expect(hit).toMatchObject({ severity: 'error', nodeGroup: 'prod-batch' });
    expect(hit.message).toBe(
      `Node group prod-batch: new nodes get label node-pool=batch (kubelet --node-labels in launch template ${g.ltId} v1 UserData) but CA's scratch template has no node-pool; selected by ReplicaSet batch/report-builder (CA uses this template now: the group has no usable node).`,
    );
    expect(hit.remediation).toContain(`Key=${LABEL}node-pool,Value=batch`);
  });

  it('reads the labels real nodes carry when the group can scale to zero', () => {
    const n = m5large('ip-10-0-7-7.ec2.internal');
    n.metadata.labels!['alpha.eksctl.io/nodegroup-name'] = 'ng-1';
    const w = add(world(), group('prod-ng1', { nodes: [n] }), [n]);
    w.add(
      'pods',
      running('etl', n, (p) => p.withNodeSelector({ 'alpha.eksctl.io/nodegroup-name': 'ng-1' })),
    );
    const [f] = findings(w.raw, 'template-label-missing');
    expect(f).toMatchObject({ severity: 'warning' });
    expect(f.message).toContain(
      'new nodes get label alpha.eksctl.io/nodegroup-name=ng-1 (node ip-10-0-7-7.ec2.internal)',
    );
  });

  it('stays quiet when the label tag is there, or when nothing selects the label', () => {
    const n = m5large('ip-10-0-7-7.ec2.internal');
    n.metadata.labels!['node-pool'] = 'batch';
    const tagged = add(
      world(),
      group('prod-batch', { nodes: [n], tags: { [`${LABEL}node-pool`]: 'batch' } }),
      [n],
    );
    tagged.add(
      'pods',
      running('etl', n, (p) => p.withNodeSelector({ 'node-pool': 'batch' })),
    );
    expect(findings(tagged.raw, 'template-label-missing')).toEqual([]);
    const unused = add(world(), group('prod-batch', { nodes: [n] }), [n]);
    expect(findings(unused.raw, 'template-label-missing')).toEqual([]);
  });
});

describe('template-taint-mismatch', () => {
  it('reports a node taint missing from the template, naming the pods CA would misplace', () => {
    const n = node('ip-10-0-8-8.ec2.internal')
      .withInstanceType('m5.large')
      .withTaint('dedicated', 'gpu')
      .build();
    const w = add(world(), group('prod-gpu', { nodes: [n] }), [n]);
    w.add('pods', pendingPod('api-7f9c8d6b5-zzzzz', 'web').build());
    const [f] = findings(w.raw, 'template-taint-mismatch');
    expect(f.message).toContain(
      "new nodes get taint dedicated=gpu:NoSchedule (node ip-10-0-8-8.ec2.internal) but CA's scratch template does not have it",
    );
    expect(f.message).toContain('ReplicaSet web/api-7f9c8d6b5');
    expect(f.remediation).toContain(`Key=${TAINT}dedicated,Value=gpu:NoSchedule`);
  });

  it('reports a template taint the nodes no longer carry', () => {
    const n = m5large('ip-10-0-8-8.ec2.internal');
    const w = add(
      world(),
      group('prod-gpu', { nodes: [n], tags: { [`${TAINT}dedicated`]: 'gpu:NoSchedule' } }),
      [n],
    );
    w.add('pods', running('api', n));
    const [f] = findings(w.raw, 'template-taint-mismatch');
    expect(f.message).toContain("CA's scratch template has taint dedicated=gpu:NoSchedule, new nodes do not");
    expect(f.remediation).toContain('aws autoscaling delete-tags');
  });

  it('accepts a taint tag that matches the nodes', () => {
    const n = node('ip-10-0-8-8.ec2.internal')
      .withInstanceType('m5.large')
      .withTaint('dedicated', 'gpu')
      .build();
    const w = add(
      world(),
      group('prod-gpu', { nodes: [n], tags: { [`${TAINT}dedicated`]: 'gpu:NoSchedule' } }),
      [n],
    );
    expect(findings(w.raw, 'template-taint-mismatch')).toEqual([]);
  });
});

describe('template-capacity-mismatch', () => {
  it('reports a template memory far from the nodes’ (here: a wrong resources tag)', () => {
    const n = m5large('ip-10-0-6-6.ec2.internal');
    const w = add(world(), group('prod-small', { nodes: [n], tags: { [`${RES}memory`]: '4Gi' } }), [n]);
    const [f] = findings(w.raw, 'template-capacity-mismatch');
    expect(f.message).toContain(
      "CA's scratch template (m5.large) has memory 4Gi, the group's m5.large nodes have 7908276Ki",
    );
    expect(f.remediation).toContain(`Key=${RES}memory,Value=7218100Ki`);
  });

  it('accepts the few percent real RAM is under the nominal size', () => {
    const n = m5large('ip-10-0-6-6.ec2.internal');
    expect(
      findings(add(world(), group('prod-small', { nodes: [n] }), [n]).raw, 'template-capacity-mismatch'),
    ).toEqual([]);
  });
});

describe('template-allocatable-overstated', () => {
  it('names the Pending pod that fits the template but not a real node', () => {
    const w = add(world(), group('prod-mem'));
    w.add(
      'pods',
      pendingPod('cache-6f7d8c9b4-qqqqq', 'web').withRequests({ cpu: '500m', memory: '7600Mi' }).build(),
    );
    const [f] = findings(w.raw, 'template-allocatable-overstated');
    expect(f.severity).toBe('error');
    expect(f.message).toContain(
      "CA's scratch template offers cpu 2, memory 8Gi allocatable (its whole capacity), a real m5.large node has at most cpu 1930m, memory 7518Mi",
    );
    expect(f.message).toContain('CA scales up for ReplicaSet web/cache-6f7d8c9b4');
  });

  it('is only informational without affected pods, and quiet once resource tags are set', () => {
    expect(findings(add(world(), group('prod-mem')).raw, 'template-allocatable-overstated')).toMatchObject([
      { severity: 'info' },
    ]);
    const tagged = group('prod-mem', { tags: { [`${RES}cpu`]: '1930m', [`${RES}memory`]: '7218100Ki' } });
    expect(findings(add(world(), tagged).raw, 'template-allocatable-overstated')).toEqual([]);
  });
});

describe('template-pods-overstated', () => {
  it('compares 110 with the EKS max pods of the type', () => {
    const [f] = findings(add(world(), group('prod-small')).raw, 'template-pods-overstated');
    expect(f.message).toContain("CA's scratch template allows 110 pods, a real m5.large node takes 29");
    expect(f.severity).toBe('info');
  });

  it('warns when more Pending pods target the group than one node takes', () => {
    const w = add(world(), group('prod-small'));
    for (let i = 0; i < 30; i++)
      w.add(
        'pods',
        pendingPod(`tiny-5d6c7b8a9-${String(i).padStart(5, 'a')}`, 'web')
          .withRequests({ cpu: '10m', memory: '16Mi' })
          .build(),
      );
    expect(findings(w.raw, 'template-pods-overstated')).toMatchObject([{ severity: 'warning' }]);
  });

  it('accepts a pods resource tag', () => {
    expect(
      findings(
        add(world(), group('prod-small', { tags: { [`${RES}pods`]: '29' } })).raw,
        'template-pods-overstated',
      ),
    ).toEqual([]);
  });
});

describe('template-ephemeral-storage-missing', () => {
  it('is an error when a Pending pod that targets the group requests ephemeral-storage', () => {
    const w = add(world(), group('prod-scratch'));
    w.add(
      'pods',
      pendingPod('build-5c6d7e8f9-aaaaa', 'ci')
        .withRequests({ cpu: '1', 'ephemeral-storage': '20Gi' })
        .build(),
    );
    const [f] = findings(w.raw, 'template-ephemeral-storage-missing');
    expect(f).toMatchObject({ severity: 'error', schedulerReason: 'Insufficient ephemeral-storage' });
    expect(f.remediation).toContain(`Key=${RES}ephemeral-storage,Value=`);
  });

  it('is informational without such pods and quiet with the tag', () => {
    expect(
      findings(add(world(), group('prod-scratch')).raw, 'template-ephemeral-storage-missing'),
    ).toMatchObject([{ severity: 'info' }]);
    const tagged = group('prod-scratch', { tags: { [`${RES}ephemeral-storage`]: '90Gi' } });
    expect(findings(add(world(), tagged).raw, 'template-ephemeral-storage-missing')).toEqual([]);
  });
});

describe('template-gpu-mismatch', () => {
  it('reports a GPU type CA’s table counts as 0 GPUs while a Pending pod needs one', () => {
    const w = add(
      world(),
      group('prod-gpu', { type: 'g6f.xlarge', tags: { [`${TAINT}nvidia.com/gpu`]: 'true:NoSchedule' } }),
    );
    w.add(
      'pods',
      pendingPod('inference-6c7d8e9f5-bbbbb', 'ml')
        .withRequests({ cpu: '2', memory: '8Gi', 'nvidia.com/gpu': '1' })
        .withToleration({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' })
        .build(),
    );
    const [f] = findings(w.raw, 'template-gpu-mismatch');
    expect(f).toMatchObject({ severity: 'error', schedulerReason: 'Insufficient nvidia.com/gpu' });
    expect(f.message).toContain(
      "CA's scratch template (g6f.xlarge) offers nvidia.com/gpu 0, less than the 1 requested by ReplicaSet ml/inference-6c7d8e9f5",
    );
  });

  it('reports AMD GPUs the nodes expose as amd.com/gpu while CA counts them as nvidia.com/gpu', () => {
    const n = node('ip-10-0-4-4.ec2.internal')
      .withInstanceType('g4ad.xlarge')
      .withResources({ 'amd.com/gpu': '1' })
      .build();
    const w = add(world(), group('prod-amd', { type: 'g4ad.xlarge', nodes: [n] }), [n]);
    const [f] = findings(w.raw, 'template-gpu-mismatch');
    expect(f.message).toContain(
      "the group's nodes offer amd.com/gpu 1, CA's scratch template has no amd.com/gpu (it counts them as nvidia.com/gpu 1)",
    );
  });

  it('accepts a GPU type CA counts right', () => {
    const w = add(world(), group('prod-gpu', { type: 'g5.xlarge' }));
    w.add(
      'pods',
      pendingPod('inference-6c7d8e9f5-bbbbb', 'ml').withRequests({ 'nvidia.com/gpu': '1' }).build(),
    );
    expect(findings(w.raw, 'template-gpu-mismatch')).toEqual([]);
  });
});

describe('mixed-instances-shape-differs', () => {
  const mixed = (...types: string[]) =>
    asg('prod-spot')
      .withDiscoveryTags('prod')
      .withMixedInstances({
        launchTemplate: { id: 'lt-0spot000000000001', version: '$Default' },
        overrides: types,
      })
      .build();
  const run = (...types: string[]) =>
    findings(world().add('autoScalingGroups', mixed(...types)).raw, 'mixed-instances-shape-differs');

  it.each([
    ['a smaller override', ['m5.xlarge', 'm5.large'], 'warning', 'cpu 2 < 4; memory 8Gi < 16Gi'],
    ['another architecture', ['m5.large', 'm6g.large'], 'warning', 'architecture arm64, not amd64'],
    ['a larger override', ['m5.large', 'r5.large'], 'info', 'the larger r5.large'],
  ])('reports %s', (_name, types, severity, text) => {
    const [f] = run(...types);
    expect(f.severity).toBe(severity);
    expect(f.message).toContain(text);
  });

  it('accepts overrides of the same shape', () => {
    expect(run('m5.large', 'm5a.large', 'm6i.large')).toEqual([]);
  });

  it('names only workloads that fit the first override but not the smaller one', () => {
    const w = world().add('autoScalingGroups', mixed('m5.xlarge', 'm5.large'));
    w.add(
      'pods',
      pendingPod('mid-1', 'web').withRequests({ cpu: '3', memory: '1Gi' }).build(), // fits m5.xlarge, not m5.large
      pendingPod('huge-1', 'web').withRequests({ cpu: '32', memory: '1Gi' }).build(), // fits neither
    );
    const [f] = findings(w.raw, 'mixed-instances-shape-differs');
    expect(f.message).toContain('mid-1');
    expect(f.message).not.toContain('huge-1');
  });
});

describe('mixed-instances-weighted', () => {
  const weighted = (w?: string) =>
    asg('prod-spot')
      .withDiscoveryTags('prod')
      .withMixedInstances({
        launchTemplate: { id: 'lt-0spot000000000001' },
        overrides: [
          { InstanceType: 'm5.large', ...(w ? { WeightedCapacity: '1' } : {}) },
          { InstanceType: 'm5.2xlarge', ...(w ? { WeightedCapacity: w } : {}) },
        ],
      })
      .withSizes(0, 10, 3)
      .build();

  it('reports instance weights', () => {
    const [f] = findings(world().add('autoScalingGroups', weighted('4')).raw, 'mixed-instances-weighted');
    expect(f.message).toBe(
      'Node group prod-spot weights its overrides (m5.large=1, m5.2xlarge=4); CA reads DesiredCapacity 3 as 3 nodes while the ASG runs 0 instance(s).',
    );
  });

  it('accepts unweighted overrides', () => {
    expect(findings(world().add('autoScalingGroups', weighted()).raw, 'mixed-instances-weighted')).toEqual(
      [],
    );
    expect(findings(world().add('autoScalingGroups', weighted('1')).raw, 'mixed-instances-weighted')).toEqual(
      [],
    );
  });
});

describe('mixed-instances-attribute-based', () => {
  it('says which type and which minimums CA simulates', () => {
    const g = asg('prod-abs')
      .withDiscoveryTags('prod')
      .withInstanceRequirements(
        { id: 'lt-0abs0000000000001', version: '$Default' },
        { VCpuCount: { Min: 4, Max: 16 }, MemoryMiB: { Min: 8192 } },
      )
      .build();
    const w = world()
      .add('autoScalingGroups', g)
      .add(
        'launchTemplateVersions',
        launchTemplateVersion('lt-0abs0000000000001', 1).asDefault().withInstanceType(undefined).build(),
      )
      .add('instanceTypesFromRequirements', { InstanceType: 'm5.2xlarge' })
      .add('images', { ImageId: 'ami-0c1d2e3f4a5b6c7d8', Architecture: 'x86_64' });
    const [f] = findings(w.raw, 'mixed-instances-attribute-based');
    expect(f.message).toBe(
      'Node group prod-abs selects instances by attributes (vCPU 4-16, memory 8Gi-∞); CA simulates m5.2xlarge with cpu 4, memory 8Gi, whatever the ASG launches.',
    );
  });

  it('stays quiet for instance-type groups', () => {
    expect(findings(world().raw, 'mixed-instances-attribute-based')).toEqual([]);
  });
});

describe('launch-template-drift', () => {
  function drifted(instanceVersion: string) {
    const n = node('ip-10-0-2-2.ec2.internal').build();
    const g = asg('prod-web')
      .withDiscoveryTags('prod')
      .withLaunchTemplate({ id: 'lt-0web00000000000001', version: '$Latest' })
      .withSizes(1, 5, 1)
      .withInstance(instanceIdOf(n), {
        InstanceType: 'm5.xlarge',
        LaunchTemplate: { LaunchTemplateId: 'lt-0web00000000000001', Version: instanceVersion },
      })
      .build();
    return world()
      .add('autoScalingGroups', g)
      .add('nodes', n)
      .add(
        'launchTemplateVersions',
        launchTemplateVersion('lt-0web00000000000001', 1).asDefault().withInstanceType('m5.xlarge').build(),
        launchTemplateVersion('lt-0web00000000000001', 2)
          .withInstanceType('m5.2xlarge')
          .withImage('ami-0ffffeeeeddddcccc')
          .build(),
      );
  }

  it('reports instances launched from an older version with another instance type', () => {
    const fs = findings(drifted('1').raw, 'launch-template-drift');
    const drift = fs.find((f) => f.severity === 'warning')!;
    expect(drift.message).toContain('CA reads v2: m5.2xlarge, ami-0ffffeeeeddddcccc');
    expect(drift.message).toContain('instance type m5.xlarge → m5.2xlarge (v1 → v2)');
    expect(fs.find((f) => f.severity === 'info')?.message).toBe(
      'ASG prod-web uses launch template lt-0web00000000000001 $Latest (v2) while its default version is v1: CA and new instances use v2.',
    );
  });

  it('accepts instances on the version CA reads', () => {
    expect(findings(drifted('2').raw, 'launch-template-drift').filter((f) => f.severity !== 'info')).toEqual(
      [],
    );
    expect(findings(world().raw, 'launch-template-drift')).toEqual([]);
  });
});

describe('asg-multi-az-zonal-volumes', () => {
  function stateful(zones: string[]) {
    const n = m5large('ip-10-0-9-58.ec2.internal');
    const w = add(
      world(),
      group('prod-stateful', { nodes: [n], zones, min: 1, tags: { [`${LABEL}node-pool`]: 'stateful' } }),
      [n],
    );
    n.metadata.labels!['node-pool'] = 'stateful';
    const claim = pvc('data-ledger-0', 'payments').boundTo('pvc-0ledger').build();
    const volume = pv('pvc-0ledger').inZone(`${REGION}c`).boundTo(claim).build();
    w.add('pvcs', claim).add('pvs', volume);
    w.add(
      'pods',
      pendingPod('ledger-0', 'payments')
        .withNodeSelector({ 'node-pool': 'stateful' })
        .withPvc('data-ledger-0')
        .build(),
    );
    return w;
  }

  it('reports the Pending pod whose volume sits outside the template’s zone', () => {
    const [f] = findings(
      stateful([`${REGION}a`, `${REGION}b`, `${REGION}c`]).raw,
      'asg-multi-az-zonal-volumes',
    );
    expect(f.severity).toBe('error');
    expect(f.message).toContain(
      "CA's template is in us-east-1a, so CA never scales it for payments/ledger-0 (volume in us-east-1c)",
    );
  });

  it('stays quiet for a single-AZ group', () => {
    expect(findings(stateful([`${REGION}a`]).raw, 'asg-multi-az-zonal-volumes')).toEqual([]);
  });
});

describe('asg-process-suspended', () => {
  it.each([
    ['Launch', 'error'],
    ['Terminate', 'warning'],
    ['AZRebalance', 'info'],
  ])('reports a suspended %s process', (process, severity) => {
    const g = asg('prod-web').withDiscoveryTags('prod').withSuspendedProcesses(process).build();
    const [f] = findings(world().add('autoScalingGroups', g).raw, 'asg-process-suspended');
    expect(f.severity).toBe(severity);
    expect(f.remediation).toBe(
      `aws autoscaling resume-processes --auto-scaling-group-name prod-web --scaling-processes ${process}`,
    );
  });

  it('ignores processes CA does not depend on', () => {
    const g = asg('prod-web').withDiscoveryTags('prod').withSuspendedProcesses('AddToLoadBalancer').build();
    expect(findings(world().add('autoScalingGroups', g).raw, 'asg-process-suspended')).toEqual([]);
  });
});

describe('asg-scaling-activity-failed', () => {
  const ice =
    'We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1b).';
  const fail = (at: string) => scalingActivity('prod-general').at(at).failed(ice).build();

  it('quotes AWS for a recent failure that no launch has recovered from', () => {
    const w = world().add('scalingActivities', fail('2026-01-05T11:40:02.120000+00:00'));
    w.raw.autoScalingGroups[0].DesiredCapacity = 2;
    const [f] = findings(w.raw, 'asg-scaling-activity-failed');
    expect(f).toMatchObject({ severity: 'error', caReason: 'placeholder-cannot-be-fulfilled' });
    expect(f.message).toBe(
      `Node group prod-general: a launch failed at 2026-01-05T11:40:02Z (EC2 capacity), 1 requested instance(s) still missing: "${ice}".`,
    );
  });

  it('notes a failure a later launch recovered from', () => {
    const w = world().add(
      'scalingActivities',
      fail('2026-01-05T11:40:02.120000+00:00'),
      scalingActivity('prod-general').at('2026-01-05T11:41:12.000000+00:00').build(),
    );
    expect(findings(w.raw, 'asg-scaling-activity-failed')).toMatchObject([{ severity: 'info' }]);
  });

  it('ignores failures older than a week', () => {
    expect(
      findings(
        world().add('scalingActivities', fail('2025-12-20T10:00:00+00:00')).raw,
        'asg-scaling-activity-failed',
      ),
    ).toEqual([]);
  });
});

describe('asg-max-size-pending-pods', () => {
  it('reports the group at max size that the Pending pod fits', () => {
    const w = world();
    w.raw.autoScalingGroups[0].MaxSize = 1;
    w.add('pods', pendingPod().withNodeSelector({ 'node-pool': 'general' }).build());
    const [f] = findings(w.raw, 'asg-max-size-pending-pods');
    expect(f).toMatchObject({ nodeGroup: 'prod-general', caReason: 'max node group size reached' });
  });

  it('stays quiet below max size, and outside --asg', () => {
    const w = world();
    w.add('pods', pendingPod().withNodeSelector({ 'node-pool': 'general' }).build());
    expect(findings(w.raw, 'asg-max-size-pending-pods')).toEqual([]);
    w.raw.autoScalingGroups[0].MaxSize = 1;
    w.add('autoScalingGroups', asg('prod-other').withDiscoveryTags('prod').build());
    expect(findings(w.raw, 'asg-max-size-pending-pods', { asg: ['prod-other'] })).toEqual([]);
  });
});

describe('iam-permission-denied', () => {
  const arn = (name: string) =>
    `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:6a1c3b5e-0d1f-4a8e-9f2b-3c4d5e6f7a8b:autoScalingGroupName/${name}`;
  const allowed = (action: string, resource = '*'): IamEvaluationResult => ({
    EvalActionName: action,
    EvalResourceName: resource,
    EvalDecision: 'allowed',
    MatchedStatements: [{ SourcePolicyId: 'ca', SourcePolicyType: 'IAM Policy' }],
    MissingContextValues: [],
  });
  const everything = [
    'autoscaling:DescribeAutoScalingGroups',
    'autoscaling:DescribeScalingActivities',
    'ec2:DescribeLaunchTemplateVersions',
    'ec2:DescribeInstanceTypes',
    'autoscaling:SetDesiredCapacity',
    'autoscaling:TerminateInstanceInAutoScalingGroup',
  ];

  it('reports a write action denied on one ASG, with the missing tag context and what breaks', () => {
    const results = everything.map((a) => allowed(a));
    results.push({
      EvalActionName: 'autoscaling:SetDesiredCapacity',
      EvalResourceName: arn('prod-general'),
      EvalDecision: 'implicitDeny',
      MatchedStatements: [],
      MissingContextValues: ['aws:ResourceTag/k8s.io/cluster-autoscaler/prod-owner'],
    });
    const [f] = findings(world().add('iamEvaluationResults', ...results).raw, 'iam-permission-denied');
    expect(f).toMatchObject({
      severity: 'error',
      nodeGroup: 'prod-general',
      subject: { kind: 'AutoScalingGroup' },
    });
    expect(f.message).toBe(
      'autoscaling:SetDesiredCapacity on ASG prod-general is implicitly denied for the simulated principal: a statement conditions on aws:ResourceTag/k8s.io/cluster-autoscaler/prod-owner, which the request does not carry; in CA: scale-up fails: FailedToScaleUpGroup event, then backoff (cloudProviderError).',
    );
  });

  it('flags a condition key of the wrong service and names the right one', () => {
    const results = everything.map((a) => allowed(a));
    results.push({
      EvalActionName: 'autoscaling:TerminateInstanceInAutoScalingGroup',
      EvalResourceName: arn('prod-general'),
      EvalDecision: 'implicitDeny',
      MissingContextValues: ['ec2:ResourceTag/k8s.io/cluster-autoscaler/prod'],
    });
    const [f] = findings(world().add('iamEvaluationResults', ...results).raw, 'iam-permission-denied');
    expect(f.message).toContain(
      'ec2:ResourceTag/k8s.io/cluster-autoscaler/prod can never be present on autoscaling:TerminateInstanceInAutoScalingGroup',
    );
    expect(f.remediation).toContain(
      'aws:ResourceTag/k8s.io/cluster-autoscaler/prod instead of ec2:ResourceTag/k8s.io/cluster-autoscaler/prod',
    );
  });

  it('lists the actions the evaluation does not cover, and names explicit denies', () => {
    const results = [
      allowed('autoscaling:DescribeAutoScalingGroups'),
      {
        EvalActionName: 'autoscaling:SetDesiredCapacity',
        EvalResourceName: '*',
        EvalDecision: 'explicitDeny',
        MatchedStatements: [{ SourcePolicyId: 'deny-scaling', SourcePolicyType: 'IAM Policy' }],
      },
    ];
    const fs = findings(world().add('iamEvaluationResults', ...results).raw, 'iam-permission-denied');
    expect(fs.map((f) => f.message)).toEqual([
      'autoscaling:SetDesiredCapacity on ASG prod-general is explicitly denied for the simulated principal: denied by deny-scaling; in CA: scale-up fails: FailedToScaleUpGroup event, then backoff (cloudProviderError).',
      'The IAM evaluation does not cover autoscaling:DescribeScalingActivities, ec2:DescribeLaunchTemplateVersions, ec2:DescribeInstanceTypes, autoscaling:TerminateInstanceInAutoScalingGroup; casdoctor cannot tell whether the simulated principal may call them.',
    ]);
  });

  it('passes when everything CA needs is allowed, and is skipped (never passed) without an evaluation', () => {
    expect(
      findings(
        world().add('iamEvaluationResults', ...everything.map((a) => allowed(a))).raw,
        'iam-permission-denied',
      ),
    ).toEqual([]);
    const { skipped } = audit(world().raw);
    expect(skipped.find((s) => s.checkId === 'iam-permission-denied')).toMatchObject({
      reason: 'not-provided',
    });
  });
});
