// Provider: nodegroup/node_group.go:1040-1100 BuildNodeFromTemplate @ f792442; CA: simulator/node_info_utils.go.
import { describe, expect, it } from 'vitest';
import type { GrpcNodeGroupSpec } from '../../../../src/model/externalgrpc.js';
import type { DaemonSet } from '../../../../src/model/k8s.js';
import { buildCaConfig } from '../../../../src/simulate/ca-config.js';
import { parseExternalGrpcConfig } from '../../../../src/providers/externalgrpc/config.js';
import {
  buildGrpcScratchTemplate,
  buildProviderTemplateNode,
} from '../../../../src/providers/externalgrpc/template.js';
import { buildInstanceTypeTable } from '../../../../src/simulate/instance-types.js';
import type { TemplateContext } from '../../../../src/simulate/node-group-provider.js';
import { externalGrpcProvider } from '../../../../src/providers/externalgrpc/index.js';
import { cluster, NOW, STATUS_TEXT } from '../../../fixtures/externalgrpc/load.js';

const groups = parseExternalGrpcConfig([{ source: { kind: 'configmap', namespace: 'kube-system', name: 'nodegroup-status' }, text: STATUS_TEXT }]).nodeGroups;
const byId = (id: string): GrpcNodeGroupSpec => {
  const g = groups.find((x) => x.id === id);
  if (!g) throw new Error(id);
  return g;
};

function ctx(tag = 'v1.32.1', daemonSets: DaemonSet[] = []): TemplateContext {
  const dep = structuredClone(cluster().deployments[0]);
  const c = dep.spec?.template?.spec?.containers?.[0];
  if (c) c.image = `registry.k8s.io/autoscaling/cluster-autoscaler:${tag}`;
  const config = buildCaConfig({ deployment: dep });
  return {
    now: NOW,
    config,
    instanceTypes: buildInstanceTypeTable({ instanceTypes: {}, staticListLastUpdateTime: '2026-10-01' }, [], config),
    launchTemplateVersions: [],
    launchConfigurations: [],
    images: [],
    instanceTypesFromRequirements: [],
    eksNodegroups: [],
    daemonSets,
    podsByNode: new Map(),
    provider: externalGrpcProvider,
  };
}

function ds(name: string, spec: Record<string, unknown> = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'kube-system', uid: `uid-${name}` },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image: `${name}:1`, resources: { requests: { cpu: '100m' } } }], ...spec },
      },
    },
  } as DaemonSet;
}

describe('BuildNodeFromTemplate', () => {
  it.each([
    // [group, capacity CA sees]
    ['worker-addons', { pods: '110', cpu: '48', memory: '16G', 'ephemeral-storage': '200G' }],
    ['gpu-a100', { pods: '110', cpu: '96', memory: '1T', 'ephemeral-storage': '500G' }],
    ['default', { pods: '110', cpu: '8', memory: '16G', 'ephemeral-storage': '200G' }],
  ])('gives %s allocatable = capacity with only cpu/memory/ephemeral-storage and pods 110', (id, capacity) => {
    const b = buildProviderTemplateNode(byId(id), NOW);
    expect(b?.node.status?.capacity).toEqual(capacity);
    expect(b?.node.status?.allocatable).toEqual(capacity);
  });

  it('drops extended resources such as nvidia.com/gpu (l.1056-1076 reads three keys)', () => {
    expect(buildProviderTemplateNode(byId('gpu-a100'), NOW)?.droppedCapacity).toEqual(['nvidia.com/gpu']);
  });

  it.each([
    ['missing', {}, '8'],
    ['unparsable "8 cores"', { cpu: '8 cores' }, '8'],
    ['padded " 4"', { cpu: ' 4' }, '8'],
    ['valid "4500m"', { cpu: '4500m' }, '4500m'],
  ])('uses the provider default when cpu is %s', (_n, capacity, cpu) => {
    const spec: GrpcNodeGroupSpec = { ...byId('general'), nodeTemplate: { ...byId('general').nodeTemplate!, capacity } };
    const b = buildProviderTemplateNode(spec, NOW);
    expect(b?.node.status?.capacity?.cpu).toBe(cpu);
    // memory/ephemeral-storage defaults: NewQuantity(16Gi / 200Gi, DecimalSI)
    expect(b?.node.status?.capacity?.memory).toBe('17179869184');
    expect(b?.node.status?.capacity?.['ephemeral-storage']).toBe('214748364800');
  });

  it('sets the hard-coded labels (beta arch only), template labels on top, no zone labels', () => {
    const b = buildProviderTemplateNode(byId('gpu-a100'), NOW);
    const name = b?.node.metadata.name ?? '';
    expect(name).toMatch(/^gpu-a100-\d+$/);
    expect(b?.node.metadata.labels).toEqual({
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/hostname': name,
      'node-role.kubernetes.io/gpu': '',
      'nvidia.com/gpu.product': 'A100-SXM4-80GB',
    });
    expect(b?.node.spec?.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
  });

  it('has no template for a group without nodeTemplate', () => {
    expect(buildProviderTemplateNode({ ...byId('general'), nodeTemplate: undefined }, NOW)).toBeUndefined();
  });
});

describe('CA\'s scratch template from it (SanitizedTemplateNodeInfoFromNodeGroup)', () => {
  it('renames the node, forces DaemonSet pods that tolerate its taints and adds no kube-proxy pod', () => {
    const t = buildGrpcScratchTemplate(byId('worker-addons'), ctx('v1.32.1', [ds('calico-node', { tolerations: [{ operator: 'Exists' }] }), ds('node-exporter')]));
    expect(t.source).toBe('provider');
    expect(t.node?.metadata.name).toMatch(/^template-node-for-worker-addons-\d+$/);
    expect(t.node?.metadata.labels?.['kubernetes.io/hostname']).toBe(t.node?.metadata.name);
    // node-exporter does not tolerate CriticalAddonsOnly:NoSchedule
    expect(t.pods.map((p) => p.metadata.name)).toEqual([expect.stringMatching(/^calico-node-pod-/)]);
    expect(t.pods.some((p) => p.metadata.name?.startsWith('kube-proxy'))).toBe(false);
    expect(t.notes).toContain('nodeTemplate.allocatable is ignored: CA sees allocatable = capacity');
  });

  it('drops a DaemonSet that selects kubernetes.io/arch: the template has only the beta label', () => {
    const t = buildGrpcScratchTemplate(byId('general'), ctx('v1.32.1', [ds('fluent-bit', { nodeSelector: { 'kubernetes.io/arch': 'amd64' } })]));
    expect(t.pods).toEqual([]);
    expect(t.notes.some((n) => n.includes('no kubernetes.io/arch label'))).toBe(true);
  });

  it('marks the node as a template from CA 1.36', () => {
    expect(buildGrpcScratchTemplate(byId('general'), ctx('v1.36.0')).node?.metadata.labels?.['cluster-autoscaler.kubernetes.io/template-node']).toBe('true');
    expect(buildGrpcScratchTemplate(byId('general'), ctx('v1.35.0')).node?.metadata.labels?.['cluster-autoscaler.kubernetes.io/template-node']).toBeUndefined();
  });

  it.each([
    ['v1.34.2', 'pre-1.35', 'provider'],
    ['v1.35.0', 'pre-1.35', 'none'],
    ['v1.35.0', 'unknown', 'provider'],
  ] as const)('CA %s with a %s provider: %s template (G1)', (tag, era, source) => {
    const spec = { ...byId('general'), servedBy: { schemaEra: era } };
    expect(buildGrpcScratchTemplate(spec, ctx(tag)).source).toBe(source);
  });
});
