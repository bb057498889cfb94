// ProvisioningRequest, PodTemplate and CapacityBuffer objects as `kubectl get ... -o json` prints them.
import type { CapacityBuffer, PodTemplate, ProvisioningRequest } from '../../src/model/ca-crds.js';
import type { MetaCondition } from '../../src/model/k8s.js';
import type { PodSpec } from '../../src/model/k8s.js';
import { uidFor } from './k8s.js';

export function podTemplate(
  name: string,
  namespace = 'batch',
  requests: Record<string, string> = { cpu: '1', memory: '1Gi' },
  spec: Partial<PodSpec> = {},
): PodTemplate {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: {
      name,
      namespace,
      uid: uidFor(`podtemplate/${namespace}/${name}`),
      resourceVersion: '7340032',
      generation: 1,
      creationTimestamp: '2026-01-05T11:40:00Z',
    },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: 'worker',
            image: 'public.ecr.aws/docker/library/busybox:1.36',
            resources: { requests },
          },
        ],
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 30,
        ...spec,
      },
    },
  };
}

export function condition(
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
  lastTransitionTime = '2026-01-05T11:55:00Z',
): MetaCondition {
  return { type, status, reason, message, lastTransitionTime, observedGeneration: 1 };
}

export function provisioningRequest(
  name: string,
  opts: {
    namespace?: string;
    className?: string;
    podSets?: Array<{ template: string; count: number }>;
    parameters?: Record<string, string>;
    conditions?: MetaCondition[];
    created?: string;
    apiVersion?: string;
  } = {},
): ProvisioningRequest {
  const namespace = opts.namespace ?? 'batch';
  return {
    apiVersion: opts.apiVersion ?? 'autoscaling.x-k8s.io/v1',
    kind: 'ProvisioningRequest',
    metadata: {
      name,
      namespace,
      uid: uidFor(`provreq/${namespace}/${name}`),
      resourceVersion: '7340099',
      generation: 1,
      creationTimestamp: opts.created ?? '2026-01-05T11:50:00Z',
    },
    spec: {
      provisioningClassName: opts.className ?? 'best-effort-atomic-scale-up.autoscaling.x-k8s.io',
      podSets: (opts.podSets ?? [{ template: `${name}-tpl`, count: 3 }]).map((p) => ({
        podTemplateRef: { name: p.template },
        count: p.count,
      })),
      ...(opts.parameters ? { parameters: opts.parameters } : {}),
    },
    status: opts.conditions ? { conditions: opts.conditions } : {},
  };
}

export function capacityBuffer(
  name: string,
  opts: {
    namespace?: string;
    spec?: CapacityBuffer['spec'];
    status?: CapacityBuffer['status'];
    apiVersion?: string;
  } = {},
): CapacityBuffer {
  const namespace = opts.namespace ?? 'web';
  return {
    apiVersion: opts.apiVersion ?? 'autoscaling.x-k8s.io/v1beta1',
    kind: 'CapacityBuffer',
    metadata: {
      name,
      namespace,
      uid: uidFor(`capacitybuffer/${namespace}/${name}`),
      resourceVersion: '7340123',
      generation: 1,
      creationTimestamp: '2026-01-05T10:00:00Z',
    },
    spec: opts.spec ?? { podTemplateRef: { name: `${name}-chunk` }, replicas: 2 },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

/** The status CA's buffer controller writes for a ready buffer (capacitybuffer/common/common.go). */
export function readyBufferStatus(template: string, replicas: number): NonNullable<CapacityBuffer['status']> {
  return {
    podTemplateRef: { name: template },
    replicas,
    podTemplateGeneration: 1,
    provisioningStrategy: 'buffer.x-k8s.io/active-capacity',
    conditions: [
      condition('ReadyForProvisioning', 'True', 'AttributesSetSuccessfully', 'ready', '2026-01-05T10:00:05Z'),
      { type: 'Provisioning', status: 'True', reason: 'FakePodsInjected', message: '', lastTransitionTime: '2026-01-05T10:00:15Z' },
    ],
  };
}
