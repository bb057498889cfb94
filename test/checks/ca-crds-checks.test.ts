// The ProvisioningRequest / CapacityBuffer / priority-expander checks: each fires on one case and stays silent on another.
import { describe, expect, it } from 'vitest';
import balanceSimilarGroupsDiffer from '../../src/checks/balance-similar-groups-differ.js';
import capacityBufferNotProvisioning from '../../src/checks/capacity-buffer-not-provisioning.js';
import type { Check } from '../../src/checks/define-check.js';
import { runChecks } from '../../src/checks/lib/engine.js';
import podConsumesProvisioningRequest from '../../src/checks/pod-consumes-provisioning-request.js';
import priorityExpanderConfigInvalid from '../../src/checks/priority-expander-config-invalid.js';
import provisioningRequestNotProvisioned from '../../src/checks/provisioning-request-not-provisioned.js';
import type { CaCrdKind } from '../../src/model/ca-crds.js';
import type { ConfigMap, KubeEvent } from '../../src/model/k8s.js';
import type { DataKind, RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { isPendingCandidate } from '../../src/model/k8s.js';
import { capacityBuffer, condition, podTemplate, provisioningRequest, readyBufferStatus } from '../builders/ca-crds.js';
import { asg } from '../builders/aws.js';
import { node } from '../builders/k8s.js';
import { caDeployment, DEFAULT_CA_ARGS, instanceIdOf, NOW, pendingPod, world } from '../builders/world.js';
import { STATIC_TYPES } from './harness.js';

const CHECKS: Check[] = [
  balanceSimilarGroupsDiffer,
  capacityBufferNotProvisioning,
  podConsumesProvisioningRequest,
  priorityExpanderConfigInvalid,
  provisioningRequestNotProvisioned,
] as Check[];
const NEW_CA = 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.36.1';

function setup(args: string[] = [], crds: Partial<Pick<RawInputs, CaCrdKind>> = {}) {
  const w = world({ withCa: false });
  w.add('deployments', caDeployment([...DEFAULT_CA_ARGS, ...args], NEW_CA));
  const raw = w.raw;
  for (const [k, v] of Object.entries(crds)) {
    (raw as unknown as Record<string, unknown>)[k] = v;
    raw.provided.add(k as DataKind);
  }
  return w;
}

function run(w: ReturnType<typeof world>, id: string, command: 'why-pending' | 'asg-audit' = 'why-pending') {
  const analysis = new Analysis(w.raw, { now: NOW, staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
  const out = runChecks(CHECKS, analysis, command);
  return { findings: out.findings.filter((f) => f.checkId === id), skipped: out.skipped.filter((s) => s.checkId === id) };
}

describe('provisioning-request-not-provisioned', () => {
  const notFound = [
    condition('Accepted', 'True', 'Accepted', 'ProvisioningRequest is accepted by ClusterAutoscaler'),
    condition('Provisioned', 'False', 'CapacityIsNotFound', 'Capacity is not found, CA will try to find it later.'),
  ];

  it('fires for an atomic request no single group can hold, with all-or-nothing as the simulation reason', () => {
    const w = setup(['--enable-provisioning-requests=true'], {
      provisioningRequests: [provisioningRequest('train', { podSets: [{ template: 'train-tpl', count: 15 }], conditions: notFound })],
      podTemplates: [podTemplate('train-tpl')],
    });
    const { findings } = run(w, 'provisioning-request-not-provisioned');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'warning', caReason: 'CapacityIsNotFound', subject: { kind: 'ProvisioningRequest', name: 'train', namespace: 'batch' } });
    expect(findings[0].message).toMatch(/^ProvisioningRequest batch\/train \(best-effort-atomic-scale-up\.autoscaling\.x-k8s\.io\) is not provisioned: /);
    expect(findings[0].message).toContain('no single node group can take them all (prod-general: not all pods would fit and scale-up is using all-or-nothing strategy, needs 5 new node(s); the group can add 4 (desired 1, max 5))');
    expect(findings[0].evidence.map((e) => e.observed)).toContain(
      "best-effort-atomic is not atomic on ASGs: the AWS provider does not implement AtomicIncreaseSize, so CA raises the ASG's desired capacity like any scale-up and marks the request Provisioned without waiting for the instances (cloudprovider/aws/aws_cloud_provider.go; executor.go increaseSize falls back to IncreaseSize)",
    );
  });

  it('is an error when CA runs without --enable-provisioning-requests', () => {
    const w = setup([], { provisioningRequests: [provisioningRequest('train', { conditions: notFound })], podTemplates: [podTemplate('train-tpl')] });
    const { findings } = run(w, 'provisioning-request-not-provisioned');
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['error', 'ProvisioningRequest batch/train (best-effort-atomic-scale-up.autoscaling.x-k8s.io) is not processed: CA runs without --enable-provisioning-requests=true: nothing processes it, and CA scales up for its consumer pods like for any pod (the consume annotation is only read with the flag).'],
    ]);
  });

  it('stays silent for a request Provisioned 4 minutes ago', () => {
    const w = setup(['--enable-provisioning-requests=true'], {
      provisioningRequests: [provisioningRequest('train', { conditions: [condition('Provisioned', 'True', 'CapacityIsProvisioned', 'Capacity is found in the cluster', '2026-01-05T11:56:00Z')] })],
      podTemplates: [podTemplate('train-tpl')],
    });
    expect(run(w, 'provisioning-request-not-provisioned').findings).toEqual([]);
  });

  it('is skipped, not passed, when ProvisioningRequests were not gathered', () => {
    const { findings, skipped } = run(setup(['--enable-provisioning-requests=true']), 'provisioning-request-not-provisioned');
    expect(findings).toEqual([]);
    expect(skipped).toEqual([expect.objectContaining({ reason: 'not-provided' })]);
  });
});

describe('pod-consumes-provisioning-request', () => {
  const consumer = pendingPod('trainer-6f7d9c8b5-abcde', 'batch').withAnnotation('autoscaling.x-k8s.io/consume-provisioning-request', 'train').build();

  it("says CA is waiting on the request, with the request's state", () => {
    const w = setup(['--enable-provisioning-requests=true'], {
      provisioningRequests: [provisioningRequest('train', { conditions: [condition('Provisioned', 'False', 'CapacityIsNotFound', 'Capacity is not found, CA will try to find it later.')] })],
      podTemplates: [podTemplate('train-tpl')],
    });
    w.add('pods', consumer);
    const { findings } = run(w, 'pod-consumes-provisioning-request');
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['info', 'Pod batch/trainer-6f7d9c8b5-abcde consumes ProvisioningRequest batch/train: CA does not scale up for it; Provisioned=False (CapacityIsNotFound): Capacity is not found, CA will try to find it later, retrying with backoff (--provisioning-request-initial-backoff-time 1m, doubling to 10m).'],
    ]);
  });

  it('warns when the request does not exist', () => {
    const w = setup(['--enable-provisioning-requests=true'], { provisioningRequests: [], podTemplates: [] });
    w.add('pods', consumer);
    expect(run(w, 'pod-consumes-provisioning-request').findings.map((f) => f.severity)).toEqual(['warning']);
  });

  it('warns that CA scales up for a consumer pod like any pod when --enable-provisioning-requests is off (builder/autoscaler.go)', () => {
    const w = setup([], { provisioningRequests: [provisioningRequest('train')], podTemplates: [podTemplate('train-tpl')] });
    w.add('pods', consumer);
    expect(run(w, 'pod-consumes-provisioning-request').findings.map((f) => [f.severity, f.message])).toEqual([
      ['warning', 'Pod batch/trainer-6f7d9c8b5-abcde consumes ProvisioningRequest batch/train, but CA runs without --enable-provisioning-requests: CA scales up for it like any pod and never processes the request.'],
    ]);
  });

  it('notes a pod with only the class annotation, which CA treats as a regular pod', () => {
    const w = setup();
    w.add('pods', pendingPod('worker-7c9d8f6b5-fghij', 'batch').withAnnotation('autoscaling.x-k8s.io/provisioning-class-name', 'check-capacity.autoscaling.x-k8s.io').build());
    expect(run(w, 'pod-consumes-provisioning-request').findings.map((f) => f.message)).toEqual([
      'Pod batch/worker-7c9d8f6b5-fghij carries the autoscaling.x-k8s.io/provisioning-class-name annotation but not consume-provisioning-request: CA treats it as a regular pod.',
    ]);
  });

  it('stays silent for a regular pending pod', () => {
    const w = setup();
    w.add('pods', pendingPod().build());
    expect(run(w, 'pod-consumes-provisioning-request').findings).toEqual([]);
  });
});

describe('capacity-buffer-not-provisioning', () => {
  const flags = ['--capacity-buffer-controller-enabled=true', '--capacity-buffer-pod-injection-enabled=true'];
  const buffer = capacityBuffer('web-buffer', { status: readyBufferStatus('web-buffer-chunk', 2) });
  const tpl = podTemplate('web-buffer-chunk', 'web', { cpu: '1', memory: '1Gi' });

  it('fires when CA does not inject the fake pods (flag off)', () => {
    const w = setup([], { capacityBuffers: [buffer], podTemplates: [tpl] });
    expect(run(w, 'capacity-buffer-not-provisioning').findings.map((f) => f.message)).toEqual([
      'CapacityBuffer web/web-buffer keeps no capacity: CA runs without --capacity-buffer-pod-injection-enabled=true: no fake pods, no scale-up for the buffer.',
    ]);
  });

  it("fires when CA's last event on the buffer says the fake pods did not trigger a scale-up", () => {
    const ev: KubeEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-buffer.18a1b2c3d4e5f607', namespace: 'web' },
      involvedObject: { kind: 'CapacityBuffer', namespace: 'web', name: 'web-buffer', apiVersion: 'autoscaling.x-k8s.io/v1beta1' },
      reason: 'NotTriggerScaleUp',
      message: "capacity buffer 2 fake pods didn't trigger scale-up: 1 max node group size reached,1 max node group size reached",
      type: 'Normal',
      count: 3,
      source: { component: 'cluster-autoscaler' },
      lastTimestamp: '2026-01-05T11:55:00Z',
    };
    const w = setup(flags, { capacityBuffers: [buffer], podTemplates: [tpl] });
    w.add('events', ev);
    const { findings } = run(w, 'capacity-buffer-not-provisioning');
    expect(findings.map((f) => [f.caReason, f.message])).toEqual([
      ['NotTriggerScaleUp', "CapacityBuffer web/web-buffer: CA's 2 fake pod(s) did not trigger a scale-up 5 min ago: 1 max node group size reached."],
    ]);
  });

  it('stays silent for a ready buffer CA injects', () => {
    const w = setup(flags, { capacityBuffers: [buffer], podTemplates: [tpl] });
    expect(run(w, 'capacity-buffer-not-provisioning').findings).toEqual([]);
  });

  it('makes no claim about a ready buffer when PodTemplates were not gathered', () => {
    expect(run(setup(flags, { capacityBuffers: [buffer] }), 'capacity-buffer-not-provisioning').findings).toEqual([]);
  });

  it('is skipped when CapacityBuffers were not gathered', () => {
    expect(run(setup(flags), 'capacity-buffer-not-provisioning').skipped).toHaveLength(1);
  });
});

describe('priority-expander-config-invalid', () => {
  function cm(data: Record<string, string>, namespace = 'kube-system'): ConfigMap {
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-autoscaler-priority-expander', namespace }, data };
  }

  it('fires as an error with CA\'s PriorityConfigMapInvalid text (awsdocs/amazon-eks-user-guide#315)', () => {
    const w = setup(['--expander=priority']);
    w.add('configMaps', cm({ priority: '10:\n  - .*' }));
    const { findings } = run(w, 'priority-expander-config-invalid');
    expect(findings.map((f) => [f.severity, f.caReason, f.message])).toEqual([
      ['error', 'PriorityConfigMapInvalid', "ConfigMap kube-system/cluster-autoscaler-priority-expander is rejected by CA: Wrong configmap for priority expander, doesn't contain priorities key. Ignoring update."],
    ]);
  });

  it('fires when the ConfigMap is in another namespace than CA\'s --namespace', () => {
    const w = setup(['--expander=priority,least-waste']);
    w.add('configMaps', cm({ priorities: '10:\n  - .*' }, 'default'));
    const { findings } = run(w, 'priority-expander-config-invalid');
    expect(findings[0].message).toBe('CA runs --expander=priority,least-waste but ConfigMap kube-system/cluster-autoscaler-priority-expander does not exist: the priority expander filters nothing.');
    expect(findings[0].evidence[0].observed).toBe('exists in namespace default');
  });

  it('names a rule matching no group and a group matched by no rule', () => {
    const w = setup(['--expander=priority']);
    w.add('configMaps', cm({ priorities: '50:\n  - .*spot.*\n' }));
    expect(run(w, 'priority-expander-config-invalid').findings.map((f) => f.message)).toEqual([
      "Node group prod-general matches no rule in kube-system/cluster-autoscaler-priority-expander: CA won't use it while a matched group fits.",
      'ConfigMap kube-system/cluster-autoscaler-priority-expander: rule ".*spot.*" (priority 50) matches no node group.',
    ]);
  });

  it('stays silent for a ConfigMap whose rules cover every group, and when priority is not the expander', () => {
    const good = setup(['--expander=priority']);
    good.add('configMaps', cm({ priorities: '10:\n  - ^prod-general$\n' }));
    expect(run(good, 'priority-expander-config-invalid').findings).toEqual([]);
    const other = setup();
    other.add('configMaps', cm({ priority: 'oops' }));
    expect(run(other, 'priority-expander-config-invalid').findings).toEqual([]);
  });
});

describe('balance-similar-groups-differ', () => {
  function addGroup(w: ReturnType<typeof world>, name: string, ip: string, labels: Record<string, string>) {
    const n = node(`ip-${ip}.ec2.internal`).inZone('us-east-1b').withLabels({ 'node-pool': 'general', ...labels }).build();
    w.add('nodes', n);
    w.add(
      'autoScalingGroups',
      asg(name)
        .withDiscoveryTags('prod')
        .withLaunchTemplate({ id: 'lt-0general000000001', version: '$Latest' })
        .withSizes(1, 5, 1)
        .withZones('us-east-1b')
        .withInstance(instanceIdOf(n), { InstanceType: 'm5.xlarge', AvailabilityZone: 'us-east-1b' })
        .build(),
    );
  }

  function withZoneB(labels: Record<string, string>, args = ['--balance-similar-node-groups=true']) {
    const w = setup(args);
    addGroup(w, 'prod-general-b', '10-0-2-20', labels);
    return w;
  }

  it('names the label that splits two m5.xlarge groups (compare_nodegroups.go compareLabels)', () => {
    const { findings } = run(withZoneB({ 'eks.amazonaws.com/nodegroup-image': 'ami-0b1c2d3e4f5a6b7c8' }), 'balance-similar-groups-differ', 'asg-audit');
    expect(findings.map((f) => f.message)).toEqual([
      'Node groups prod-general and prod-general-b both run m5.xlarge, but CA does not treat them as similar: label eks.amazonaws.com/nodegroup-image is on one template only (ami-0b1c2d3e4f5a6b7c8); add --balancing-ignore-label=eks.amazonaws.com/nodegroup-image if it does not matter.',
    ]);
  });

  it('reports one finding per set of similar groups, not one per pair, naming five groups and how many more', () => {
    const w = withZoneB({});
    const ami = { 'eks.amazonaws.com/nodegroup-image': 'ami-0b1c2d3e4f5a6b7c8' };
    for (let i = 0; i < 7; i++) addGroup(w, `prod-general-ami-${i}`, `10-0-3-${i + 10}`, ami);
    const { findings } = run(w, 'balance-similar-groups-differ', 'asg-audit');
    expect(findings.map((f) => f.message)).toEqual([
      'Node groups prod-general-ami-0, prod-general-ami-1, prod-general-ami-2, prod-general-ami-3, prod-general-ami-4 and 2 more run m5.xlarge like prod-general, prod-general-b, but CA does not treat the two sets as similar: label eks.amazonaws.com/nodegroup-image is on one template only (ami-0b1c2d3e4f5a6b7c8); add --balancing-ignore-label=eks.amazonaws.com/nodegroup-image if it does not matter (prod-general vs prod-general-ami-0).',
    ]);
    expect(findings[0].subject.name).toBe('prod-general-ami-0');
    expect(findings[0].evidence[1].observed).toBe(
      '7 similar to prod-general-ami-0: prod-general-ami-0, prod-general-ami-1, prod-general-ami-2, prod-general-ami-3, prod-general-ami-4, prod-general-ami-5, prod-general-ami-6; 2 similar to prod-general',
    );
  });

  it('stays silent for groups that differ only by zone, and when balancing is off', () => {
    expect(run(withZoneB({ 'topology.k8s.aws/zone-id': 'use1-az2' }), 'balance-similar-groups-differ', 'asg-audit').findings).toEqual([]);
    expect(run(withZoneB({ 'eks.amazonaws.com/nodegroup-image': 'ami-0b1c2d3e4f5a6b7c8' }, []), 'balance-similar-groups-differ', 'asg-audit').findings).toEqual([]);
  });
});
