// Karpenter's controller Deployment found among the input's Deployments, and its settings read as Karpenter reads them:
// env vars the Helm chart sets (charts/karpenter/templates/deployment.yaml), each overridden by its flag
// (karpenter pkg/operator/options/options.go, karpenter-provider-aws pkg/operator/options/options.go).
import { describe, expect, it } from 'vitest';
import type { Container, Deployment } from '../../../../src/model/k8s.js';
import { DEFAULT_KARPENTER_FEATURE_GATES } from '../../../../src/model/karpenter.js';
import { emptyInputs } from '../../../../src/model/snapshot.js';
import { karpenterInputs, karpenterOf } from '../../../../src/simulate/providers/karpenter/inputs.js';
import {
  findKarpenterDeployment,
  isKarpenterControllerDeployment,
  karpenterSettingsFromDeployments,
  karpenterVersionFromImage,
} from '../../../../src/simulate/providers/karpenter/settings.js';

type Env = NonNullable<Container['env']>;

/** The env the Helm chart writes (fixed entries first, then one per settings value), values as given. */
function chartEnv(settings: Array<[string, string]>): Env {
  return [
    { name: 'KUBERNETES_MIN_VERSION', value: '1.19.0-0' },
    { name: 'KARPENTER_SERVICE', value: 'karpenter' },
    { name: 'WEBHOOK_PORT', value: '8443' },
    { name: 'WEBHOOK_METRICS_PORT', value: '8001' },
    { name: 'DISABLE_WEBHOOK', value: 'false' },
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'METRICS_PORT', value: '8080' },
    { name: 'HEALTH_PROBE_PORT', value: '8081' },
    { name: 'SYSTEM_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
    {
      name: 'MEMORY_LIMIT',
      valueFrom: { resourceFieldRef: { containerName: 'controller', divisor: '0', resource: 'limits.memory' } },
    },
    ...settings.map(([name, value]) => ({ name, value })),
  ];
}

function karpenterDeployment(
  o: { namespace?: string; name?: string; image?: string; env?: Env; args?: string[]; labels?: Record<string, string>; replicas?: number } = {},
): Deployment {
  const labels = o.labels ?? {
    'app.kubernetes.io/instance': 'karpenter',
    'app.kubernetes.io/managed-by': 'Helm',
    'app.kubernetes.io/name': 'karpenter',
    'app.kubernetes.io/version': '1.8.1',
    'helm.sh/chart': 'karpenter-1.8.1',
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: o.name ?? 'karpenter', namespace: o.namespace ?? 'kube-system', labels, uid: '9b2f7c1e-3a4d-4e5f-8a6b-7c8d9e0f1a2b' },
    spec: {
      replicas: o.replicas ?? 2,
      selector: { matchLabels: { 'app.kubernetes.io/instance': 'karpenter', 'app.kubernetes.io/name': 'karpenter' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/instance': 'karpenter', 'app.kubernetes.io/name': 'karpenter' } },
        spec: {
          serviceAccountName: 'karpenter',
          containers: [
            {
              name: 'controller',
              image:
                o.image ??
                'public.ecr.aws/karpenter/controller:1.8.1@sha256:0ba8b9ae39dab4b4e2b23dc5d8ea68a4e0c2e5f05ce5e8e9f0b0e0d8f1b7a2c1',
              env: o.env ?? chartEnv([]),
              ...(o.args ? { args: o.args } : {}),
              ports: [
                { name: 'http-metrics', containerPort: 8080, protocol: 'TCP' },
                { name: 'http', containerPort: 8081, protocol: 'TCP' },
              ],
            },
          ],
        },
      },
    },
  } as Deployment;
}

const caDeployment: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'cluster-autoscaler', namespace: 'kube-system', labels: { app: 'cluster-autoscaler' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'cluster-autoscaler' } },
    template: {
      metadata: { labels: { app: 'cluster-autoscaler' } },
      spec: {
        containers: [
          {
            name: 'cluster-autoscaler',
            image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.1',
            command: ['./cluster-autoscaler', '--cloud-provider=aws', '--cluster-name=shop-prod'],
          },
        ],
      },
    },
  },
} as Deployment;

describe('Karpenter’s settings from its Deployment', () => {
  const cases: Array<{ name: string; deployment: Deployment; want: Record<string, unknown> }> = [
    {
      name: 'the 1.8 chart with its defaults: every gate at its default, overhead 0.075, no reserved ENIs',
      deployment: karpenterDeployment({
        env: chartEnv([
          ['FEATURE_GATES', 'NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,StaticCapacity=false'],
          ['BATCH_MAX_DURATION', '10s'],
          ['BATCH_IDLE_DURATION', '1s'],
          ['CLUSTER_NAME', 'shop-prod'],
          ['VM_MEMORY_OVERHEAD_PERCENT', '0.075'],
          ['INTERRUPTION_QUEUE', 'Karpenter-shop-prod'],
          ['RESERVED_ENIS', '0'],
        ]),
      }),
      want: {
        version: '1.8.1',
        namespace: 'kube-system',
        name: 'karpenter',
        source: 'Deployment kube-system/karpenter',
        clusterName: 'shop-prod',
        vmMemoryOverheadPercent: 0.075,
        reservedENIs: 0,
        batchMaxDuration: '10s',
        batchIdleDuration: '1s',
        interruptionQueue: 'Karpenter-shop-prod',
        featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES },
      },
    },
    {
      name: 'the 1.0 chart with spot-to-spot consolidation on, custom networking (one reserved ENI) and more overhead',
      deployment: karpenterDeployment({
        namespace: 'karpenter',
        image: 'public.ecr.aws/karpenter/controller:1.0.8@sha256:e6ee5b3b4ec3d5ed3c8ad5b3f4ce2bc0e4c5a4bd6f0b2d4e8e2e5d1a7c9f3b2a',
        labels: { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/version': '1.0.8', 'helm.sh/chart': 'karpenter-1.0.8' },
        env: chartEnv([
          ['FEATURE_GATES', 'SpotToSpotConsolidation=true'],
          ['BATCH_MAX_DURATION', '30s'],
          ['BATCH_IDLE_DURATION', '5s'],
          ['CLUSTER_NAME', 'payments-eu'],
          ['VM_MEMORY_OVERHEAD_PERCENT', '0.1'],
          ['RESERVED_ENIS', '1'],
        ]),
      }),
      want: {
        version: '1.0.8',
        namespace: 'karpenter',
        clusterName: 'payments-eu',
        vmMemoryOverheadPercent: 0.1,
        reservedENIs: 1,
        batchMaxDuration: '30s',
        batchIdleDuration: '5s',
        featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES, SpotToSpotConsolidation: true },
      },
    },
    {
      name: 'flags in args win over the env vars they default from',
      deployment: karpenterDeployment({
        env: chartEnv([
          ['CLUSTER_NAME', 'from-env'],
          ['FEATURE_GATES', 'SpotToSpotConsolidation=false'],
        ]),
        args: ['--cluster-name', 'from-flag', '--feature-gates=SpotToSpotConsolidation=true,NodeRepair=true', '--vm-memory-overhead-percent=0.05'],
      }),
      want: {
        clusterName: 'from-flag',
        vmMemoryOverheadPercent: 0.05,
        featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES, SpotToSpotConsolidation: true, NodeRepair: true },
      },
    },
    {
      name: 'a value from a ConfigMap is known by name only, and unparsable numbers fall back to Karpenter’s defaults',
      deployment: karpenterDeployment({
        env: [
          { name: 'CLUSTER_NAME', valueFrom: { configMapKeyRef: { name: 'cluster-info', key: 'name' } } },
          { name: 'VM_MEMORY_OVERHEAD_PERCENT', value: '7.5%' },
          { name: 'RESERVED_ENIS', value: '-1' },
          { name: 'FEATURE_GATES', value: 'SpotToSpotConsolidation=yes,NodeRepair=true' },
        ],
      }),
      want: {
        clusterName: undefined,
        env: { CLUSTER_NAME: undefined, VM_MEMORY_OVERHEAD_PERCENT: '7.5%', RESERVED_ENIS: '-1', FEATURE_GATES: 'SpotToSpotConsolidation=yes,NodeRepair=true' },
        vmMemoryOverheadPercent: 0.075,
        reservedENIs: 0,
        featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES, NodeRepair: true },
      },
    },
    {
      name: 'a digest-only image from a private mirror takes its version from the chart’s app.kubernetes.io/version label',
      deployment: karpenterDeployment({
        image: '111122223333.dkr.ecr.us-east-1.amazonaws.com/karpenter/controller@sha256:0ba8b9ae39dab4b4e2b23dc5d8ea68a4e0c2e5f05ce5e8e9f0b0e0d8f1b7a2c1',
        labels: { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/version': '1.7.3' },
      }),
      want: { version: '1.7.3' },
    },
  ];
  for (const c of cases) {
    it(`reads ${c.name}`, () => {
      const s = karpenterSettingsFromDeployments([caDeployment, c.deployment]);
      expect(s).toMatchObject(c.want);
    });
  }

  it('reads the version from every image tag shape Karpenter has shipped, and none from a digest alone', () => {
    const table: Array<[string | undefined, string | undefined]> = [
      ['public.ecr.aws/karpenter/controller:1.8.1@sha256:0ba8b9ae39dab4b4e2b23dc5d8ea68a4e0c2e5f05ce5e8e9f0b0e0d8f1b7a2c1', '1.8.1'],
      ['public.ecr.aws/karpenter/controller:v0.37.0', '0.37.0'],
      ['localhost:5000/karpenter/controller:1.2.0-rc.1', '1.2.0-rc.1'],
      ['localhost:5000/karpenter/controller', undefined],
      ['public.ecr.aws/karpenter/controller@sha256:0ba8b9ae39dab4b4e2b23dc5d8ea68a4e0c2e5f05ce5e8e9f0b0e0d8f1b7a2c1', undefined],
      ['public.ecr.aws/karpenter/controller:latest', undefined],
      [undefined, undefined],
    ];
    for (const [image, want] of table) expect(karpenterVersionFromImage(image), String(image)).toBe(want);
  });

  it('finds the controller in any namespace by its image, and by the chart’s labels when the image is renamed', () => {
    const renamed = karpenterDeployment({ name: 'karp', namespace: 'platform', image: 'registry.acme.io/mirror/karp-ctl:1.8.1' });
    expect(findKarpenterDeployment([caDeployment, renamed])).toMatchObject({ by: 'helm-labels', container: { name: 'controller' } });
    const byImage = karpenterDeployment({ labels: { app: 'autoscaler' } });
    expect(findKarpenterDeployment([byImage])?.by).toBe('image');
    // the image wins over a label-only match, whatever their order
    expect(findKarpenterDeployment([renamed, byImage])?.deployment).toBe(byImage);
    expect(findKarpenterDeployment([caDeployment])).toBeUndefined();
    expect(isKarpenterControllerDeployment(caDeployment)).toBe(false);
    expect(isKarpenterControllerDeployment(renamed)).toBe(true);
  });

  it('prefers a running controller over one scaled to zero', () => {
    const old = karpenterDeployment({ namespace: 'a-old', replicas: 0 });
    const live = karpenterDeployment({ namespace: 'karpenter' });
    expect(findKarpenterDeployment([old, live])?.deployment).toBe(live);
  });
});

describe('karpenterOf', () => {
  it('calls Karpenter present when only its Deployment is in the input, and gives one view per Analysis', () => {
    const raw = emptyInputs();
    raw.deployments = [caDeployment, karpenterDeployment()];
    raw.provided.add('deployments');
    const analysis = { raw };
    const view = karpenterOf(analysis);
    expect(view.present).toBe(true);
    expect(view.settings?.version).toBe('1.8.1');
    expect(view.provided).toEqual({ nodePools: false, nodeClasses: false, nodeClaims: false, offerings: false });
    expect(karpenterOf(analysis)).toBe(view);
    expect(karpenterOf({ raw })).not.toBe(view);
  });

  it('calls Karpenter absent when its CRDs were listed empty and no Deployment runs it', () => {
    const raw = emptyInputs();
    raw.deployments = [caDeployment];
    for (const k of ['deployments', 'nodePools', 'ec2NodeClasses', 'nodeClaims'] as const) raw.provided.add(k);
    const view = karpenterInputs(raw);
    expect(view.present).toBe(false);
    expect(view.settings).toBeUndefined();
    expect(view.provided).toEqual({ nodePools: true, nodeClasses: true, nodeClaims: true, offerings: false });
    expect(view.zones).toEqual([]);
  });
});
