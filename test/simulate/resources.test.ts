import { describe, expect, it } from 'vitest';
import { QuantityError } from '../../src/model/quantity.js';
import {
  addResources,
  describeResources,
  freeResources,
  isScalarResourceName,
  maxResources,
  nodeInfoFor,
  parseResourceList,
  parseResourceListStrict,
  podRequests,
  type ResourceProblem,
  subtractResources,
} from '../../src/simulate/resources.js';
import { node, pod } from '../builders/k8s.js';

describe('parseResourceList', () => {
  it('converts cpu to millicores and everything else to whole base units, rounding up', () => {
    expect(
      parseResourceList({
        cpu: '3920m',
        memory: '14880140Ki',
        pods: '58',
        'nvidia.com/gpu': '1',
        'ephemeral-storage': '1.5',
      }),
    ).toEqual({ cpu: 3920, memory: 14880140 * 1024, pods: 58, 'nvidia.com/gpu': 1, 'ephemeral-storage': 2 });
  });

  it('skips an invalid quantity and reports it when asked', () => {
    const problems: ResourceProblem[] = [];
    expect(
      parseResourceList({ cpu: '1', memory: '1Gb' }, problems, 'containers[app].resources.requests'),
    ).toEqual({ cpu: 1000 });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      resource: 'memory',
      value: '1Gb',
      path: 'containers[app].resources.requests',
    });
    expect(problems[0].message).toContain('"1Gb"');
  });

  it('returns an empty list for a missing map', () => {
    expect(parseResourceList(undefined)).toEqual({});
  });

  it('throws a QuantityError in strict mode', () => {
    expect(() => parseResourceListStrict({ cpu: '1.5.3' })).toThrow(QuantityError);
    expect(parseResourceListStrict({ cpu: '250m' })).toEqual({ cpu: 250 });
  });
});

describe('resource arithmetic', () => {
  it('adds, subtracts and maxes per resource, keeping resources present on one side only', () => {
    const a = { cpu: 1000, memory: 10 };
    const b = { cpu: 500, 'nvidia.com/gpu': 1 };
    expect(addResources(a, b)).toEqual({ cpu: 1500, memory: 10, 'nvidia.com/gpu': 1 });
    expect(subtractResources(a, b)).toEqual({ cpu: 500, memory: 10, 'nvidia.com/gpu': -1 });
    expect(maxResources(a, b)).toEqual({ cpu: 1000, memory: 10, 'nvidia.com/gpu': 1 });
  });

  it('describes resources with cpu, memory and ephemeral-storage first', () => {
    expect(describeResources({ 'nvidia.com/gpu': 1, memory: 2 ** 30, cpu: 500 })).toBe(
      'cpu 500m, memory 1Gi, nvidia.com/gpu 1',
    );
  });

  it.each([
    ['nvidia.com/gpu', true],
    ['hugepages-2Mi', true],
    ['attachable-volumes-aws-ebs', true],
    ['kubernetes.io/batch-cpu', true],
    ['cpu', false],
    ['pods', false],
    ['storage', false],
  ])('treats %s as a scalar resource: %s', (name, scalar) => {
    expect(isScalarResourceName(name)).toBe(scalar);
  });
});

describe('podRequests (component-helpers PodRequests)', () => {
  it('sums regular containers', () => {
    const p = pod('web-0')
      .withRequests({ cpu: '250m', memory: '256Mi' })
      .withContainer({ name: 'envoy', requests: { cpu: '100m', memory: '128Mi' } })
      .build();
    expect(podRequests(p)).toEqual({ cpu: 350, memory: 384 * 2 ** 20 });
  });

  it('takes the largest init container when it exceeds the containers', () => {
    const p = pod('migrate-0')
      .withRequests({ cpu: '500m', memory: '512Mi' })
      .withInitContainer({ name: 'db-migrate', requests: { cpu: '2', memory: '256Mi' } })
      .withInitContainer({ name: 'warm-cache', requests: { cpu: '1', memory: '1Gi' } })
      .build();
    expect(podRequests(p)).toEqual({ cpu: 2000, memory: 2 ** 30 });
  });

  it('adds sidecars to the containers and to every later init container', () => {
    // sidecar 200m runs alongside the app (1) and the later init container (300m + 200m)
    const p = pod('api-0')
      .withRequests({ cpu: '1', memory: '1Gi' })
      .withInitContainer({ name: 'early-init', requests: { cpu: '1500m' } })
      .withSidecar({ name: 'istio-proxy', requests: { cpu: '200m', memory: '128Mi' } })
      .withInitContainer({ name: 'late-init', requests: { cpu: '300m', memory: '2Gi' } })
      .build();
    // containers+sidecars: cpu 1200m, memory 1152Mi; early-init: 1500m; late-init with sidecar: 500m, 2176Mi
    expect(podRequests(p)).toEqual({ cpu: 1500, memory: 2176 * 2 ** 20 });
  });

  it('lets a sidecar-heavy init phase win over the steady state', () => {
    const p = pod('batch-0')
      .withRequests({ cpu: '100m' })
      .withSidecar({ name: 'log-shipper', requests: { cpu: '400m' } })
      .withInitContainer({ name: 'fetch', requests: { cpu: '600m' } })
      .build();
    // steady: 100m + 400m = 500m; init: 400m + 600m = 1000m
    expect(podRequests(p)).toEqual({ cpu: 1000 });
  });

  it('adds the runtime class overhead', () => {
    const p = pod('kata-0')
      .withRequests({ cpu: '1', memory: '1Gi' })
      .withOverhead({ cpu: '250m', memory: '160Mi' })
      .build();
    expect(podRequests(p)).toEqual({ cpu: 1250, memory: 1184 * 2 ** 20 });
  });

  it('lets pod-level requests override cpu and memory but not other resources', () => {
    const p = pod('plr-0')
      .withRequests({ cpu: '100m', memory: '64Mi', 'nvidia.com/gpu': '1' })
      .withPodResources({ requests: { cpu: '2', memory: '4Gi' } })
      .withOverhead({ cpu: '100m' })
      .build();
    expect(podRequests(p)).toEqual({ cpu: 2100, memory: 4 * 2 ** 30, 'nvidia.com/gpu': 1 });
  });

  it('uses limits as requests when a manifest sets only limits, as the API server defaults them', () => {
    const p = pod('gpu-job')
      .withLimits({ cpu: '2', 'nvidia.com/gpu': '1' })
      .withRequests({ cpu: '500m' })
      .build();
    expect(podRequests(p)).toEqual({ cpu: 500, 'nvidia.com/gpu': 1 });
  });

  it('uses pod-level limits as pod-level requests', () => {
    const p = pod('plr-1')
      .withRequests({ cpu: '100m' })
      .withPodResources({ limits: { cpu: '3' } })
      .build();
    expect(podRequests(p)).toEqual({ cpu: 3000 });
  });

  it('ignores an invalid quantity and reports where it was', () => {
    const p = pod('broken').withRequests({ cpu: '1', memory: '1Gb' }).build();
    const problems: ResourceProblem[] = [];
    expect(podRequests(p, problems)).toEqual({ cpu: 1000 });
    expect(problems.map((x) => x.path)).toEqual(['containers[app].resources.requests']);
  });

  it('returns an empty list for a pod without requests', () => {
    expect(podRequests(pod('besteffort').build())).toEqual({});
  });
});

describe('nodeInfoFor', () => {
  it('sums the requests of the pods on the node and parses allocatable', () => {
    const n = node('ip-10-0-1-23.ec2.internal').build();
    const pods = [
      pod('a').withRequests({ cpu: '1', memory: '1Gi' }).onNode('ip-10-0-1-23.ec2.internal').build(),
      pod('b').withRequests({ cpu: '250m' }).onNode('ip-10-0-1-23.ec2.internal').build(),
    ];
    const info = nodeInfoFor(n, pods);
    expect(info.requested).toEqual({ cpu: 1250, memory: 2 ** 30 });
    expect(info.allocatable).toMatchObject({ cpu: 3920, memory: 14880140 * 1024, pods: 58 });
    expect(freeResources(info).cpu).toBe(2670);
    expect(info.pods).toBe(pods);
  });
});
