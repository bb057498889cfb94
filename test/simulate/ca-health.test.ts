import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/model/k8s.js';
import { caPodProblems, caPodsHealth, versionSkew } from '../../src/simulate/ca-health.js';
import { findingsOf } from '../checks/harness.js';
import { caDeployment, DEFAULT_CA_ARGS, world } from '../builders/world.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';

// CA's pod as `kubectl get pod -o json` prints it; the status is varied per case.
function caPod(name: string, status: Record<string, unknown>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'kube-system',
      uid: `0b7e5c1a-${name.length}f2d-4c3b-9a8e-1d2c3b4a5f60`,
      labels: { app: 'cluster-autoscaler', 'pod-template-hash': '6d5f8b7c9' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cluster-autoscaler-6d5f8b7c9', uid: 'r', controller: true }],
    },
    spec: {
      nodeName: 'ip-10-0-1-10.ec2.internal',
      serviceAccountName: 'cluster-autoscaler',
      containers: [{ name: 'cluster-autoscaler', image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1' }],
    },
    status,
  } as Pod;
}

const ready = (s: 'True' | 'False') => [
  { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: '2026-01-05T09:00:00Z' },
  { type: 'Initialized', status: 'True', lastTransitionTime: '2026-01-05T09:00:00Z' },
  { type: 'Ready', status: s, lastTransitionTime: '2026-01-05T11:58:00Z' },
  { type: 'ContainersReady', status: s, lastTransitionTime: '2026-01-05T11:58:00Z' },
  { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-05T09:00:00Z' },
];

const crashLooping = caPod('cluster-autoscaler-6d5f8b7c9-x7k2p', {
  phase: 'Running',
  conditions: ready('False'),
  startTime: '2026-01-05T09:00:00Z',
  containerStatuses: [
    {
      name: 'cluster-autoscaler',
      ready: false,
      restartCount: 14,
      started: false,
      image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
      state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container=cluster-autoscaler' } },
      lastState: { terminated: { exitCode: 255, reason: 'Error', startedAt: '2026-01-05T11:55:02Z', finishedAt: '2026-01-05T11:55:09Z' } },
    },
  ],
});

const oomKilled = caPod('cluster-autoscaler-6d5f8b7c9-q4w8e', {
  phase: 'Running',
  conditions: ready('True'),
  containerStatuses: [
    {
      name: 'cluster-autoscaler',
      ready: true,
      restartCount: 4,
      started: true,
      state: { running: { startedAt: '2026-01-05T11:59:00Z' } },
      lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: '2026-01-05T11:50:00Z', finishedAt: '2026-01-05T11:58:41Z' } },
    },
  ],
});

const healthy = caPod('cluster-autoscaler-6d5f8b7c9-h9j2k', {
  phase: 'Running',
  conditions: ready('True'),
  containerStatuses: [
    { name: 'cluster-autoscaler', ready: true, restartCount: 0, started: true, state: { running: { startedAt: '2026-01-05T09:00:05Z' } } },
  ],
});

describe('CA pod health', () => {
  const ca = buildCaConfig({ deployment: caDeployment(DEFAULT_CA_ARGS) });
  const deployments = [caDeployment(DEFAULT_CA_ARGS)];

  it('reads the CA container by name: restarts, waiting reason and the last termination', () => {
    const h = caPodsHealth(ca, deployments, [crashLooping]);
    expect(h.pods[0]).toMatchObject({
      name: 'cluster-autoscaler-6d5f8b7c9-x7k2p',
      ready: false,
      container: { restartCount: 14, waitingReason: 'CrashLoopBackOff', lastTermination: { exitCode: 255, reason: 'Error' } },
    });
  });

  it('names CrashLoopBackOff with the restart count and the last exit', () => {
    const [p] = caPodProblems(caPodsHealth(ca, deployments, [crashLooping]));
    expect(p.kind).toBe('crash-loop');
    expect(p.detail).toBe('CrashLoopBackOff, 14 restarts, last terminated: Error, exit code 255 at 2026-01-05T11:55:09Z');
  });

  it('calls an OOM-killed CA that restarted an error even while the new container is Ready', () => {
    const [p] = caPodProblems(caPodsHealth(ca, deployments, [oomKilled]));
    expect(p.kind).toBe('oom-killed');
    expect(p.detail).toContain('OOMKilled, exit code 137');
  });

  it('says nothing of a healthy CA, and nothing of a not-Ready standby when another replica is healthy', () => {
    expect(caPodProblems(caPodsHealth(ca, deployments, [healthy]))).toEqual([]);
    const standby = caPod('cluster-autoscaler-6d5f8b7c9-s1s2s', {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
    });
    expect(caPodProblems(caPodsHealth(ca, deployments, [healthy, standby]))).toEqual([]);
  });

  it('reports replicas: 0 and a Deployment with no pod', () => {
    const zero = { ...caDeployment(DEFAULT_CA_ARGS), spec: { ...caDeployment(DEFAULT_CA_ARGS).spec!, replicas: 0 } };
    expect(caPodProblems(caPodsHealth(ca, [zero], [])).map((p) => p.kind)).toEqual(['scaled-to-zero']);
    expect(caPodProblems(caPodsHealth(ca, deployments, [])).map((p) => p.kind)).toEqual(['no-pod']);
  });

  it('ignores pods of other Deployments in the namespace', () => {
    const other = { ...healthy, metadata: { ...healthy.metadata, labels: { app: 'coredns' } } };
    expect(caPodsHealth(ca, deployments, [other]).pods).toEqual([]);
  });

  it('measures skew against the newest kubelet minor', () => {
    expect(versionSkew(30, ['v1.33.5-eks-113cf36', 'v1.32.9-eks-113cf36'])).toEqual({ caMinor: 30, clusterMinor: 33 });
    expect(versionSkew(30, [])).toBeUndefined();
  });
});

describe('ca-pod-unhealthy', () => {
  it('fires on a crash-looping CA with a paste-safe logs command', () => {
    const w = world().add('pods', crashLooping);
    const [f] = findingsOf(w.raw, 'ca-pod-unhealthy');
    expect(f.severity).toBe('error');
    expect(f.message).toContain('crash-looping');
    expect(f.remediation).toContain('kubectl -n kube-system logs cluster-autoscaler-6d5f8b7c9-x7k2p -c cluster-autoscaler --previous');
  });
  it('stays quiet when CA is healthy', () => {
    const w = world().add('pods', healthy);
    expect(findingsOf(w.raw, 'ca-pod-unhealthy')).toEqual([]);
  });
});

describe('ca-version-skew', () => {
  it('warns when CA is two or more minors behind the kubelets', () => {
    const w = world({ caArgs: DEFAULT_CA_ARGS });
    w.raw.deployments = [caDeployment(DEFAULT_CA_ARGS, 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.2')];
    w.raw.nodes[0].status!.nodeInfo = { ...(w.raw.nodes[0].status!.nodeInfo ?? {}), kubeletVersion: 'v1.33.5-eks-113cf36' } as never;
    const [f] = findingsOf(w.raw, 'ca-version-skew');
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('3 minor versions apart');
  });
  it('stays quiet when the minors match', () => {
    const w = world();
    w.raw.nodes[0].status!.nodeInfo = { ...(w.raw.nodes[0].status!.nodeInfo ?? {}), kubeletVersion: 'v1.32.9-eks-113cf36' } as never;
    expect(findingsOf(w.raw, 'ca-version-skew')).toEqual([]);
  });
});
