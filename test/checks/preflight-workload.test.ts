// Per-check tables for preflight's manifest-level checks: requests, priority, pod-scale-up-delay, scale-down blockers, PDBs.
import { describe, expect, it } from 'vitest';
import { inputs } from '../builders/inputs.js';
import { pod as podBuilder } from '../builders/k8s.js';
import { deployment, preflightRun, yamlStream } from './preflight-harness.js';

const priorityClass = (name: string, value: number, globalDefault = false) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
  globalDefault,
});

const barePod = (name: string, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ops', ...meta },
  spec: {
    containers: [
      { name: 'sh', image: 'busybox:1.37', resources: { requests: { cpu: '50m', memory: '64Mi' } } },
    ],
  },
});

const pdb = (name: string, spec: Record<string, unknown>, apiVersion = 'policy/v1') => ({
  apiVersion,
  kind: 'PodDisruptionBudget',
  metadata: { name, namespace: 'web' },
  spec,
});

describe('workload-missing-requests', () => {
  it('fires for containers and sidecars without cpu or memory requests', () => {
    const d = deployment('api', {
      containers: [
        { name: 'app', image: 'a', resources: { requests: { cpu: '100m' } } },
        { name: 'proxy', image: 'p' },
      ],
      spec: {
        initContainers: [
          { name: 'mesh', image: 'm', restartPolicy: 'Always' },
          { name: 'migrate', image: 'x' },
        ],
      },
    });
    const [f] = preflightRun(yamlStream(d), { eksctl: null }).of('workload-missing-requests');
    expect(f.message).toBe(
      'Deployment web/api: sidecar mesh, container app, container proxy set no cpu or memory request; CA and the scheduler count them as 0, so no node is added for them and nodes look emptier than they are.',
    );
    expect(f.evidence.map((e) => e.observed)).toEqual(['no cpu, memory', 'no memory', 'no cpu, memory']);
  });

  it('does not fire when limits default the requests, pod-level requests cover them, or only a plain init container lacks them', () => {
    const limits = deployment('a', {
      containers: [{ name: 'c', image: 'c', resources: { limits: { cpu: '1', memory: '1Gi' } } }],
    });
    const podLevel = deployment('b', {
      containers: [{ name: 'c', image: 'c' }],
      spec: { resources: { requests: { cpu: '1', memory: '1Gi' } } },
    });
    const init = deployment('c', { spec: { initContainers: [{ name: 'migrate', image: 'x' }] } });
    expect(
      preflightRun(yamlStream(limits, podLevel, init), { eksctl: null }).of('workload-missing-requests'),
    ).toEqual([]);
  });
});

describe('workload-expendable-priority', () => {
  it('fires below the cutoff, naming the class and the cutoff', () => {
    const r = preflightRun(
      yamlStream(
        priorityClass('batch-low', -50),
        deployment('backfill', { spec: { priorityClassName: 'batch-low' } }),
      ),
      {
        eksctl: null,
      },
    );
    const [f] = r.of('workload-expendable-priority');
    expect(f).toMatchObject({ caReason: 'expendable', severity: 'warning' });
    expect(f.message).toContain(
      'priority -50 (PriorityClass batch-low), below --expendable-pods-priority-cutoff=-10',
    );
  });

  it('uses the global default class for pods that name none', () => {
    const r = preflightRun(yamlStream(priorityClass('lowest', -20, true), deployment('api')), {
      eksctl: null,
    });
    expect(r.of('workload-expendable-priority')[0].message).toContain('global default PriorityClass lowest');
  });

  it('does not fire at the cutoff itself, with a lower --expendable-pods-priority-cutoff, or for DaemonSets', () => {
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'ops' },
      spec: {
        selector: { matchLabels: { app: 'a' } },
        template: {
          metadata: { labels: { app: 'a' } },
          spec: { priorityClassName: 'batch-low', containers: [{ name: 'a', image: 'a' }] },
        },
      },
    };
    const at = yamlStream(
      priorityClass('edge', -10),
      deployment('api', { spec: { priorityClassName: 'edge' } }),
      priorityClass('batch-low', -50),
      ds,
    );
    expect(preflightRun(at, { eksctl: null }).of('workload-expendable-priority')).toEqual([]);
    const low = yamlStream(
      priorityClass('batch-low', -50),
      deployment('backfill', { spec: { priorityClassName: 'batch-low' } }),
    );
    expect(
      preflightRun(low, { eksctl: null, caArgs: ['--expendable-pods-priority-cutoff=-100'] }).of(
        'workload-expendable-priority',
      ),
    ).toEqual([]);
  });
});

describe('workload-scale-up-delay-misuse', () => {
  const KEY = 'cluster-autoscaler.kubernetes.io/pod-scale-up-delay';

  it('fires for the annotation on the controller instead of the pod template', () => {
    const d = deployment('backfill', { meta: { annotations: { [KEY]: '600s' } } });
    const [f] = preflightRun(yamlStream(d), { eksctl: null }).of('workload-scale-up-delay-misuse');
    expect(f.message).toContain('on its own metadata, not on the pod template');
  });

  it('fires for a value that is not a Go duration, and for one below --new-pod-scale-up-delay', () => {
    const bad = deployment('a', { annotations: { [KEY]: '10 minutes' } });
    const short = deployment('b', { annotations: { [KEY]: '60s' } });
    const r = preflightRun(yamlStream(bad, short), { eksctl: null, caArgs: ['--new-pod-scale-up-delay=5m'] });
    expect(r.of('workload-scale-up-delay-misuse').map((f) => f.message)).toEqual([
      'Deployment web/a sets cluster-autoscaler.kubernetes.io/pod-scale-up-delay: "10 minutes", which is not a Go duration; CA logs an error and uses --new-pod-scale-up-delay (5m0s).',
      'Deployment web/b sets cluster-autoscaler.kubernetes.io/pod-scale-up-delay: "60s", shorter than --new-pod-scale-up-delay=5m0s; CA ignores a delay below the global one.',
    ]);
  });

  it('does not fire for a valid delay on the pod template', () => {
    const d = deployment('a', { annotations: { [KEY]: '600s' } });
    expect(preflightRun(yamlStream(d), { eksctl: null }).of('workload-scale-up-delay-misuse')).toEqual([]);
  });
});

describe('scale-down blockers on the manifest level', () => {
  it('workload-not-safe-to-evict fires for exactly "false", not for values CA ignores or DaemonSet pods', () => {
    const no = deployment('session', {
      annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' },
    });
    const ignored = deployment('other', {
      annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'False' },
    });
    const r = preflightRun(yamlStream(no, ignored), { eksctl: null });
    expect(r.of('workload-not-safe-to-evict').map((f) => [f.subject.name, f.caReason])).toEqual([
      ['session', 'NotSafeToEvictAnnotation'],
    ]);
  });

  it('workload-local-storage-blocks-scale-down fires for unlisted emptyDir and hostPath volumes only', () => {
    const vols = (extra: Record<string, unknown> = {}) => ({
      spec: {
        volumes: [
          { name: 'cache', emptyDir: {} },
          { name: 'shm', emptyDir: { medium: 'Memory' } },
          { name: 'logs', hostPath: { path: '/var/log' } },
          { name: 'config', configMap: { name: 'cfg' } },
        ],
      },
      ...extra,
    });
    const blocked = deployment('a', vols());
    const partly = deployment(
      'b',
      vols({ annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes': 'cache' } }),
    );
    const listed = deployment(
      'c',
      vols({ annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes': 'cache,logs' } }),
    );
    const safe = deployment(
      'd',
      vols({ annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' } }),
    );
    const r = preflightRun(yamlStream(blocked, partly, listed, safe), { eksctl: null });
    expect(
      r
        .of('workload-local-storage-blocks-scale-down')
        .map((f) => [f.subject.name, f.message.match(/volume\(s\) (\S+)/)?.[1]]),
    ).toEqual([
      ['a', 'cache,'],
      ['b', 'logs'],
    ]);
    const off = preflightRun(yamlStream(blocked), {
      eksctl: null,
      caArgs: ['--skip-nodes-with-local-storage=false'],
    });
    expect(off.of('workload-local-storage-blocks-scale-down')).toEqual([]);
  });

  it('workload-bare-pod fires for a pod without controller unless it is safe to evict', () => {
    const safe = barePod('ok', { annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' } });
    const owned = barePod('owned', {
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x-7d9f', uid: 'u1', controller: true },
      ],
    });
    const r = preflightRun(yamlStream(barePod('debug-shell'), safe, owned), { eksctl: null });
    expect(r.of('workload-bare-pod').map((f) => [f.subject.name, f.caReason])).toEqual([
      ['debug-shell', 'NotReplicated'],
    ]);
  });

  it('workload-custom-controller-owner fires for an operator-owned pod unless CA counts custom controllers as replicated', () => {
    const spark = barePod('etl-driver', {
      ownerReferences: [
        {
          apiVersion: 'sparkoperator.k8s.io/v1beta2',
          kind: 'SparkApplication',
          name: 'etl',
          uid: 'u2',
          controller: true,
        },
      ],
    });
    const job = barePod('migrate', {
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'Job', name: 'migrate', uid: 'u3', controller: true },
      ],
    });
    const r = preflightRun(yamlStream(spark, job), { eksctl: null });
    expect(r.of('workload-custom-controller-owner').map((f) => f.subject.name)).toEqual(['etl-driver']);
    expect(r.of('workload-bare-pod')).toEqual([]);
    const off = preflightRun(yamlStream(spark), {
      eksctl: null,
      caArgs: ['--skip-nodes-with-custom-controller-pods=false'],
    });
    expect(off.of('workload-custom-controller-owner')).toEqual([]);
  });
});

describe('pdb-allows-no-disruption', () => {
  const frontend = deployment('frontend', { replicas: 2 });

  it.each([
    ['minAvailable equal to the replicas', { minAvailable: 2 }, 'minAvailable 2'],
    ['maxUnavailable 0', { maxUnavailable: 0 }, 'maxUnavailable 0'],
    ['minAvailable 100%', { minAvailable: '100%' }, 'minAvailable 100%'],
    ['a percentage that rounds up to every pod', { minAvailable: '51%' }, 'minAvailable 51%'],
  ])('fires for %s', (_what, spec, rule) => {
    const r = preflightRun(
      yamlStream(frontend, pdb('frontend', { ...spec, selector: { matchLabels: { app: 'frontend' } } })),
      {
        eksctl: null,
      },
    );
    const [f] = r.of('pdb-allows-no-disruption');
    expect(f).toMatchObject({
      caReason: 'NotEnoughPdb',
      subject: { kind: 'PodDisruptionBudget', name: 'frontend' },
    });
    expect(f.message).toContain(`(${rule})`);
  });

  it('counts the HPA floor, not an unset replicas field', () => {
    const d = deployment('checkout');
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'checkout', namespace: 'web' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout' },
        minReplicas: 3,
        maxReplicas: 9,
      },
    };
    const r = preflightRun(
      yamlStream(
        d,
        hpa,
        pdb('checkout', { minAvailable: 2, selector: { matchLabels: { app: 'checkout' } } }),
      ),
      {
        eksctl: null,
      },
    );
    expect(r.of('pdb-allows-no-disruption')).toEqual([]);
  });

  it('does not fire for maxUnavailable 1, nor for a policy/v1 PDB with neither field', () => {
    const r = preflightRun(
      yamlStream(
        frontend,
        pdb('a', { maxUnavailable: 1, selector: { matchLabels: { app: 'frontend' } } }),
        pdb('b', { selector: { matchLabels: { app: 'frontend' } } }),
      ),
      { eksctl: null },
    );
    expect(r.of('pdb-allows-no-disruption')).toEqual([]);
  });
});

describe('pdb-matches-nothing', () => {
  it('fires for a selector no pod template carries, and for a missing selector', () => {
    const r = preflightRun(
      yamlStream(
        deployment('api'),
        pdb('api', { maxUnavailable: 1, selector: { matchLabels: { app: 'api-server' } } }),
        pdb('nothing', { maxUnavailable: 1 }),
      ),
      { eksctl: null },
    );
    expect(r.of('pdb-matches-nothing').map((f) => [f.subject.name, f.message])).toEqual([
      [
        'api',
        'PodDisruptionBudget web/api selects app=api-server, which matches no workload in namespace web among the inputs: it protects nothing.',
      ],
      [
        'nothing',
        'PodDisruptionBudget web/nothing has no selector: in policy/v1 that selects no pod, so it protects nothing.',
      ],
    ]);
  });

  it('does not fire when a running pod of the cluster matches (--live / --from)', () => {
    const running = podBuilder('api-7d9f-x2x7q', 'web')
      .withLabels({ app: 'api-server' })
      .onNode('ip-10-0-1-5.ec2.internal')
      .build();
    const r = preflightRun(
      yamlStream(pdb('api', { maxUnavailable: 1, selector: { matchLabels: { app: 'api-server' } } })),
      {
        eksctl: null,
        cluster: { raw: inputs({ pods: [running] }), via: 'from' },
      },
    );
    expect(r.of('pdb-matches-nothing')).toEqual([]);
  });
});
