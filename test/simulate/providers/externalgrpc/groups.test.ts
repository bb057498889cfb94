// Provider: wrapper/wrapper.go:244-301 (NodeGroupNodes, stateMapping), 319-354 (GetOptions), nodegroup/node_group.go:734-749.
// CA: cloudprovider/externalgrpc/externalgrpc_node_group.go GetOptions at tags 1.25.0, 1.27.1, 1.29.0, 1.34.0, 1.35.0.
import { describe, expect, it } from 'vitest';
import type { GrpcInstance, GrpcNodeGroupSpec } from '../../../../src/model/externalgrpc.js';
import type { ExternalGrpcNodeGroup } from '../../../../src/model/node-group.js';
import { caDefaults, caInstanceView, countedInTargetSize } from '../../../../src/providers/externalgrpc/groups.js';
import { externalGrpcProvider } from '../../../../src/providers/externalgrpc/index.js';
import { grpcOptionsAsCaSees } from '../../../../src/providers/externalgrpc/options.js';
import { caCloudConfigText, findProviderDeployment, hasExternalGrpcInput, providerSchemaEra } from '../../../../src/providers/externalgrpc/deployment.js';
import { parseCloudConfig } from '../../../../src/providers/externalgrpc/config.js';
import { clusterInputs, NOW } from '../../../fixtures/externalgrpc/load.js';

function ins(stage: string, providerID = 'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-1'): GrpcInstance {
  return { id: 'i', name: '', ip: '', providerID, stage, status: 'Init', error: '' };
}

describe('stateMapping / NodeGroupNodes / RefreshTargetSize', () => {
  it.each([
    ['Pending', 'creating', true],
    ['Creating', 'creating', true],
    ['Created', 'creating', true],
    ['Joined', 'creating', true],
    ['Running', 'running', true],
    ['PendingDeletion', 'deleting', false],
    ['Deleting', 'deleting', false],
    ['Deleted', 'hidden', false],
    ['Rebooting', 'unspecified', true],
  ])('%s is %s to CA; counted in TargetSize: %s', (stage, view, counted) => {
    expect(caInstanceView(ins(stage))).toBe(view);
    expect(countedInTargetSize(ins(stage))).toBe(counted);
  });

  it('hides a record without providerID (a failed create) while TargetSize counts it (G5)', () => {
    const pending = ins('Pending', '');
    expect(caInstanceView(pending)).toBe('hidden');
    expect(countedInTargetSize(pending)).toBe(true);
  });
});

describe('externalGrpcProvider.buildNodeGroups on the fixture cluster', () => {
  const { raw, ca } = clusterInputs();
  const ctx = { raw, ca, now: NOW };
  const result = externalGrpcProvider.buildNodeGroups(ctx);
  const g = (id: string) => result.nodeGroups.find((x) => x.name === id) as ExternalGrpcNodeGroup;

  it('lists every group of the ConfigMap, the provider\'s default included', () => {
    expect(result.nodeGroups.map((x) => [x.name, x.minSize, x.maxSize, x.targetSize])).toEqual([
      ['master', 3, 3, 3],
      ['worker-addons', 3, 3, 3],
      ['general', 1, 30, 5],
      ['gpu-a100', 0, 4, 0],
      ['default', 0, 1000, 1],
    ]);
    expect(result.nodeGroups.every((x) => x.provider === 'externalgrpc' && x.via === 'provider' && x.discovered)).toBe(true);
  });

  it('maps nodes by record: masters without providerID, addons by name, the unmatched node to default', () => {
    expect(g('master').nodes.map((n) => n.metadata.name)).toEqual(['k8s-master-01', 'k8s-master-02', 'k8s-master-03']);
    expect(g('worker-addons').nodes).toHaveLength(3);
    expect(g('general').nodes.map((n) => n.metadata.name)).toEqual(['node-7fj2ka.vm10-20-1-14', 'node-0pl3nb.vm10-20-1-15']);
    expect(g('default').nodes.map((n) => n.metadata.name)).toEqual(['legacy-db-01']);
    expect(result.notAutoscaled).toEqual([]);
  });

  it('reports what CA sees of general\'s instances: the hook-failed and join-waiting VMs are unregistered, the failed create hidden', () => {
    const general = g('general');
    expect(general.instanceIds).toEqual([
      'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-3kd9s0a1',
      'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-8sd0f2lq',
      'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-6hf2kq9d',
      'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-2mz7ra4c',
    ]);
    expect(general.unregisteredInstances).toEqual([
      { InstanceId: 'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-6hf2kq9d', LifecycleState: 'Created' },
      { InstanceId: 'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-2mz7ra4c', LifecycleState: 'Joined' },
    ]);
    expect(general.placeholderCount).toBe(1);
    expect(general.grpc.servedBy).toEqual({ schemaEra: 'pre-1.35', image: 'ccr.ccs.tencentyun.com/ops/cluster-autoscaler-grpc-cloud-provider:v1.1.0' });
  });

  it('treats the implicit default group as relevant only while it holds something', () => {
    expect(externalGrpcProvider.isRelevant(g('default'), ctx, result)).toBe(true);
    const empty = { ...g('default'), nodes: [], targetSize: 0, grpc: { ...g('default').grpc, instances: [] } };
    expect(externalGrpcProvider.isRelevant(empty, ctx, result)).toBe(false);
    expect(externalGrpcProvider.isRelevant(g('gpu-a100'), ctx, result)).toBe(true);
  });

  it('describes its source and declares no scratch merge and no kube-proxy pod', () => {
    expect(externalGrpcProvider.describeSource(ctx)).toBe('ConfigMap kube-system/nodegroup-status');
    expect(externalGrpcProvider.mergesScratchResourcesIntoRealNodes).toBe(false);
    expect(externalGrpcProvider.addsKubeProxyToScratch).toBe(false);
    expect(externalGrpcProvider.id).toBe('externalgrpc');
  });

  it('falls back to the mounted file when there is no nodegroup-status ConfigMap', () => {
    const fileOnly = clusterInputs({ withStatus: false });
    const fctx = { raw: fileOnly.raw, ca: fileOnly.ca, now: NOW };
    expect(externalGrpcProvider.describeSource(fctx)).toBe('file /opt/nodegroup-config.yaml (ConfigMap kube-system/cluster-autoscaler-grpc-cloud-provider-cm key nodegroup-config)');
    const r = externalGrpcProvider.buildNodeGroups(fctx);
    expect(r.nodeGroups.map((x) => x.name)).toEqual(['master', 'worker-addons', 'general', 'default']);
    // no records yet: every node placed by MatchNodeGroup (masters match "master" by label and taint)
    expect(r.nodeGroups[0].nodes).toHaveLength(3);
  });

  it('counts an instance in an unknown stage as unregistered (CA leaves its Status nil)', () => {
    const odd = clusterInputs();
    const cm = odd.raw.configMaps.find((c) => c.metadata.name === 'nodegroup-status');
    if (cm?.data) cm.data.NodeGroupsConfig = cm.data.NodeGroupsConfig.replace('stage: Created', 'stage: Rebooting');
    const r = externalGrpcProvider.buildNodeGroups({ raw: odd.raw, ca: odd.ca, now: NOW });
    const general = r.nodeGroups.find((x) => x.name === 'general');
    expect(general?.unregisteredInstances[0]).toEqual({ InstanceId: 'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-6hf2kq9d', LifecycleState: 'Rebooting' });
  });

  it('reports every node as not autoscaled when no config is in the input', () => {
    const none = clusterInputs({ withStatus: false, withFile: false });
    expect(hasExternalGrpcInput(none.raw)).toBe(false);
    expect(hasExternalGrpcInput(clusterInputs({ withFile: false }).raw)).toBe(true);
    const r = externalGrpcProvider.buildNodeGroups({ raw: none.raw, ca: none.ca, now: NOW });
    expect(r.nodeGroups).toEqual([]);
    expect(r.notAutoscaled).toHaveLength(none.raw.nodes.length);
  });
});

describe('the provider Deployment and CA\'s cloud-config', () => {
  it('finds the provider by image and reads its flags', () => {
    const { raw } = clusterInputs();
    expect(findProviderDeployment(raw.deployments)).toMatchObject({ namespace: 'kube-system', statusConfigMap: 'nodegroup-status', configFile: '/opt/nodegroup-config.yaml', createParallelism: 3 });
  });

  it.each([
    ['ccr.ccs.tencentyun.com/ops/cluster-autoscaler-grpc-cloud-provider:v1.1.0', 'pre-1.35'],
    ['cluster-autoscaler-grpc-cloud-provider:v0.0.0', 'pre-1.35'],
    ['registry.example.com/cluster-autoscaler-grpc-cloud-provider@sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0', 'pre-1.35'],
    ['ghcr.io/acme/my-grpc-provider:2.0.0', 'unknown'],
  ])('era of %s is %s', (image, era) => {
    expect(providerSchemaEra(image)).toBe(era);
  });

  it('resolves --cloud-config through CA\'s volume mount to the ConfigMap key', () => {
    const { raw, ca } = clusterInputs();
    const t = caCloudConfigText(raw, ca);
    expect(t).toMatchObject({ path: '/config/cloud-config', from: 'ConfigMap kube-system/cluster-autoscaler-cloud-config key cloud-config' });
    expect(parseCloudConfig(t?.text ?? '', ca.version.minor)).toMatchObject({ address: 'cluster-autoscaler-grpc-cloud-provider:8086', tls: false, grpcTimeoutMs: 10_000, problems: [] });
  });
});

describe('GetOptions as CA of each version receives it (G2, G4, G11)', () => {
  const defaults = caDefaults(clusterInputs().ca);
  const full: GrpcNodeGroupSpec = {
    id: 'general',
    minSize: 1,
    maxSize: 30,
    targetSize: 2,
    instanceParameter: 'tpl',
    instances: [],
    autoscalingOptions: {
      scaleDownUtilizationThreshold: 0.6,
      scaleDownGpuUtilizationThreshold: 0.6,
      scaleDownUnneededTimeMs: 2_400_000,
      scaleDownUnreadyTimeMs: 600_000,
      present: ['scaleDownUtilizationThreshold', 'scaleDownGpuUtilizationThreshold', 'scaleDownUnneededTime', 'scaleDownUnreadyTime'],
    },
  };
  const partial: GrpcNodeGroupSpec = {
    ...full,
    autoscalingOptions: { scaleDownUtilizationThreshold: 0, scaleDownGpuUtilizationThreshold: 0, scaleDownUnneededTimeMs: 1_200_000, scaleDownUnreadyTimeMs: 0, present: ['scaleDownUnneededTime'] },
  };
  const nil: GrpcNodeGroupSpec = { ...full, autoscalingOptions: undefined };

  it.each([
    // minor, spec, source, threshold, unneeded ms, provision ms, startup ms
    [25, nil, 'defaults', 0.5, 600_000, 900_000, 900_000],
    [25, full, 'provider', 0.6, 2_400_000, 900_000, 900_000],
    [27, nil, 'defaults', 0.5, 600_000, 0, 900_000],
    [28, full, 'provider', 0.6, 2_400_000, 0, 900_000],
    [29, nil, 'defaults', 0.5, 600_000, 900_000, 900_000],
    [30, full, 'panic', 0.5, 600_000, 900_000, 900_000],
    [34, partial, 'panic', 0.5, 600_000, 900_000, 900_000],
    [35, nil, 'defaults', 0.5, 600_000, 900_000, 0],
    [35, full, 'provider', 0.6, 0, 0, 0],
    [31, partial, 'panic', 0.5, 600_000, 900_000, 900_000],
    [26, partial, 'provider', 0, 1_200_000, 900_000, 900_000],
  ] as const)('CA 1.%i: %s', (minor, spec, source, threshold, unneeded, provision, startup) => {
    const r = grpcOptionsAsCaSees(spec, minor, defaults, 'pre-1.35');
    expect(r.source).toBe(source);
    expect(r.panics).toBe(source === 'panic');
    expect(r.values.scaleDownUtilizationThreshold).toBe(threshold);
    expect(r.values.scaleDownUnneededTimeMs).toBe(unneeded);
    expect(r.values.maxNodeProvisionTimeMs).toBe(provision);
    expect(r.values.maxNodeStartupTimeMs).toBe(startup);
  });

  it.each([
    // minor, spec, ignoreDaemonSetsUtilization as CA gets it with --ignore-daemonsets-utilization=true
    [27, nil, true],
    [28, nil, false],
    [29, nil, false],
    [32, nil, false],
    [30, full, false],
    [33, nil, true],
    [35, full, false],
    [34, nil, true],
  ] as const)('CA 1.%i: --ignore-daemonsets-utilization=true per group (1.28-1.32 never copy field 7) (case %#)', (minor, spec, expected) => {
    const r = grpcOptionsAsCaSees(spec, minor, { ...defaults, ignoreDaemonSetsUtilization: true }, 'pre-1.35');
    expect(r.values.ignoreDaemonSetsUtilization).toBe(expected);
    if (!expected && minor < 33) expect(r.zeroed.find((z) => z.option === 'ignoreDaemonSetsUtilization')?.why).toMatch(/first read in 1\.33/);
  });

  it('lists the zeroed options of a partial autoscalingOptions (CA 1.26)', () => {
    const r = grpcOptionsAsCaSees(partial, 26, defaults, 'pre-1.35');
    expect(r.zeroed.map((z) => z.option)).toEqual(['scaleDownUtilizationThreshold', 'scaleDownGpuUtilizationThreshold', 'scaleDownUnreadyTimeMs']);
  });
});
