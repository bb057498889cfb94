// One table per CA drainability rule (simulator/drainability/rules/<rule>/rule.go), each rule called on its own.
import { describe, expect, it } from 'vitest';
import type { Pod, PodDisruptionBudget } from '../../src/model/k8s.js';
import { daemonSet } from '../../src/simulate/drainability/daemon-set.js';
import { localStorage } from '../../src/simulate/drainability/local-storage.js';
import { longTerminating } from '../../src/simulate/drainability/long-terminating.js';
import { mirror } from '../../src/simulate/drainability/mirror.js';
import { notSafeToEvict } from '../../src/simulate/drainability/not-safe-to-evict.js';
import { onCompletion } from '../../src/simulate/drainability/on-completion.js';
import { pdb as pdbRule } from '../../src/simulate/drainability/pdb.js';
import { replicaCount } from '../../src/simulate/drainability/replica-count.js';
import { replicated } from '../../src/simulate/drainability/replicated.js';
import { defaultRules } from '../../src/simulate/drainability/rules.js';
import { safeToEvict } from '../../src/simulate/drainability/safe-to-evict.js';
import { system } from '../../src/simulate/drainability/system.js';
import { terminal } from '../../src/simulate/drainability/terminal.js';
import type { DrainStatus } from '../../src/simulate/drainability/types.js';
import { drainCtx, keyed } from '../builders/drain.js';
import { pod } from '../builders/k8s.js';
import { job, pdb, replicaSet } from '../builders/workloads.js';

const SAFE = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
const LOCAL = 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes';

const base = () => pod('api-7f9c8d6b5-x2x7q', 'web').withLabels({ app: 'api' }).onNode('ip-10-0-1-11.ec2.internal');
const outcome = (s: DrainStatus) => (s.reason ? `${s.outcome}:${s.reason}` : s.outcome);

describe('Mirror rule', () => {
  it.each<[string, Pod, string]>([
    [
      'skips a mirror pod (annotation present, any value)',
      base().withAnnotation('kubernetes.io/config.mirror', 'a1b2c3').build(),
      'SkipDrain',
    ],
    ['skips a mirror pod with an empty annotation value', base().withAnnotation('kubernetes.io/config.mirror', '').build(), 'SkipDrain'],
    [
      'leaves a pod with only config.source to later rules',
      base().withAnnotation('kubernetes.io/config.source', 'file').build(),
      'Undefined',
    ],
    ['leaves a regular pod to later rules', base().build(), 'Undefined'],
  ])('%s', (_name, p, want) => {
    expect(outcome(mirror(drainCtx(), p))).toBe(want);
  });
});

describe('LongTerminating rule', () => {
  it.each<[string, Pod, string]>([
    ['skips a pod deleted 61s ago with the default 30s grace', base().terminating('2026-01-05T11:58:59Z').build(), 'SkipDrain'],
    ['does not skip at exactly grace + 30s (CA compares strictly)', base().terminating('2026-01-05T11:59:00Z').build(), 'Undefined'],
    [
      'honours a longer grace period (120s + 30s)',
      base().withSpec({ terminationGracePeriodSeconds: 120 }).terminating('2026-01-05T11:58:00Z').build(),
      'Undefined',
    ],
    [
      'uses 30s when the pod has no terminationGracePeriodSeconds',
      (() => {
        const p = base().terminating('2026-01-05T11:58:59Z').build();
        delete p.spec.terminationGracePeriodSeconds;
        return p;
      })(),
      'SkipDrain',
    ],
    ['leaves a pod that is not being deleted', base().build(), 'Undefined'],
  ])('%s', (_name, p, want) => {
    expect(outcome(longTerminating(drainCtx(), p))).toBe(want);
  });
});

describe('ReplicaCount rule', () => {
  const min2 = { minReplicaCount: 2 };
  it.each<[string, Pod, Parameters<typeof drainCtx>[0], string]>([
    ['passes a pod whose ReplicaSet exists', base().ownedBy('ReplicaSet', 'api-7f9c8d6b5').build(), {}, 'Undefined'],
    [
      'blocks a pod whose ReplicaSet is gone',
      base().ownedBy('ReplicaSet', 'api-5d8c7b6a4').build(),
      {},
      'BlockDrain:ControllerNotFound',
    ],
    ['blocks a pod whose Job is gone', pod('report-1', 'batch').ownedBy('Job', 'report-1').onNode('n').build(), {}, 'BlockDrain:ControllerNotFound'],
    ['passes a pod whose Job exists', pod('report-29920440-abcde', 'batch').ownedBy('Job', 'report-29920440').onNode('n').build(), {}, 'Undefined'],
    ['blocks a pod whose StatefulSet (apps) is gone', base().ownedBy('StatefulSet', 'db').build(), {}, 'BlockDrain:ControllerNotFound'],
    [
      "ignores a StatefulSet of another API group (CA has no lister for it)",
      base().ownedBy('StatefulSet', 'db', { apiVersion: 'apps.kruise.io/v1beta1' }).build(),
      {},
      'Undefined',
    ],
    [
      'blocks a DaemonSet pod whose DaemonSet is gone',
      pod('fluent-bit-abcde', 'kube-system').ownedBy('DaemonSet', 'fluent-bit').onNode('n').build(),
      {},
      'BlockDrain:ControllerNotFound',
    ],
    [
      'ignores a pod marked daemonset-pod whose controller is another kind',
      base().ownedBy('ReplicaSet', 'gone-1', { apiVersion: 'example.com/v1' }).withAnnotation('cluster-autoscaler.kubernetes.io/daemonset-pod', 'true').build(),
      {},
      'Undefined',
    ],
    [
      'blocks a ReplicaSet below --min-replica-count',
      base().ownedBy('ReplicaSet', 'one-1').build(),
      { ...min2, listers: { replicaSets: keyed(replicaSet('web', 'one-1', 1)) } },
      'BlockDrain:MinReplicasReached',
    ],
    [
      'passes a ReplicaSet exactly at --min-replica-count',
      base().ownedBy('ReplicaSet', 'two-1').build(),
      { ...min2, listers: { replicaSets: keyed(replicaSet('web', 'two-1', 2)) } },
      'Undefined',
    ],
    ['passes a pod without a controller (Replicated decides)', base().build(), {}, 'Undefined'],
    [
      'ignores an owner reference that is not the controller',
      base().ownedBy('ReplicaSet', 'gone-2', { controller: false }).build(),
      {},
      'Undefined',
    ],
    [
      'ignores an unparsable apiVersion',
      base().ownedBy('ReplicaSet', 'gone-3', { apiVersion: 'a/b/c' }).build(),
      {},
      'Undefined',
    ],
    ['does nothing when CA has no listers', base().ownedBy('ReplicaSet', 'gone-4').build(), { listers: null }, 'Undefined'],
    [
      'does nothing for a kind missing from the snapshot',
      base().ownedBy('ReplicaSet', 'gone-5').build(),
      { listers: { jobs: keyed(job('batch', 'x')) } },
      'Undefined',
    ],
  ])('%s', (_name, p, o, want) => {
    expect(outcome(replicaCount(drainCtx(o), p))).toBe(want);
  });

  it("words ControllerNotFound and MinReplicasReached the way CA's errors do", () => {
    expect(replicaCount(drainCtx(), base().ownedBy('ReplicaSet', 'api-5d8c7b6a4').build()).message).toBe(
      'replication controller for web/api-7f9c8d6b5-x2x7q is not available, err: replicasets.apps "api-5d8c7b6a4" not found',
    );
    const ctx = drainCtx({ minReplicaCount: 3, listers: { replicaSets: keyed(replicaSet('web', 'one-1', 1)) } });
    expect(replicaCount(ctx, base().ownedBy('ReplicaSet', 'one-1').build()).message).toBe(
      'replication controller for web/api-7f9c8d6b5-x2x7q has too few replicas spec: 1 min: 3',
    );
  });
});

describe('DaemonSet rule', () => {
  it.each<[string, Pod, string]>([
    ['drains a pod controlled by a DaemonSet', base().ownedBy('DaemonSet', 'aws-node').build(), 'DrainOk'],
    [
      'drains a pod with the daemonset-pod annotation',
      base().withAnnotation('cluster-autoscaler.kubernetes.io/daemonset-pod', 'true').build(),
      'DrainOk',
    ],
    [
      'ignores the annotation unless it is exactly "true"',
      base().withAnnotation('cluster-autoscaler.kubernetes.io/daemonset-pod', 'TRUE').build(),
      'Undefined',
    ],
    [
      'ignores a DaemonSet owner that is not the controller',
      base().ownedBy('DaemonSet', 'aws-node', { controller: false }).build(),
      'Undefined',
    ],
  ])('%s', (_name, p, want) => {
    expect(outcome(daemonSet(drainCtx(), p))).toBe(want);
  });
});

describe('SafeToEvict rule', () => {
  it.each<[string, string | undefined, string]>([
    ['drains a pod annotated "true"', 'true', 'DrainOk'],
    ['ignores "True" (CA compares the exact string)', 'True', 'Undefined'],
    ['ignores "false" (NotSafeToEvict decides)', 'false', 'Undefined'],
    ['ignores a pod without the annotation', undefined, 'Undefined'],
  ])('%s', (_name, value, want) => {
    const p = value === undefined ? base().build() : base().withAnnotation(SAFE, value).build();
    expect(outcome(safeToEvict(drainCtx(), p))).toBe(want);
  });
});

describe('Terminal rule', () => {
  const withPolicy = (restartPolicy: string, phase: string) =>
    base().withSpec({ restartPolicy }).withPhase(phase).build();
  it.each<[string, Pod, string]>([
    ['drains a Never pod that Succeeded', withPolicy('Never', 'Succeeded'), 'DrainOk'],
    ['drains a Never pod that Failed', withPolicy('Never', 'Failed'), 'DrainOk'],
    ['drains an OnFailure pod that Succeeded', withPolicy('OnFailure', 'Succeeded'), 'DrainOk'],
    ['drains any Failed pod, even with restartPolicy Always', withPolicy('Always', 'Failed'), 'DrainOk'],
    ['leaves an Always pod that Succeeded', withPolicy('Always', 'Succeeded'), 'Undefined'],
    ['leaves a Running pod', base().build(), 'Undefined'],
  ])('%s', (_name, p, want) => {
    expect(outcome(terminal(drainCtx(), p))).toBe(want);
  });
});

describe('OnCompletion rule (CA 1.36+)', () => {
  it('waits for a pod annotated "on-completion" and leaves others alone', () => {
    expect(onCompletion(drainCtx(), base().withAnnotation(SAFE, 'on-completion').build()).outcome).toBe(
      'WaitForCompletion',
    );
    expect(onCompletion(drainCtx(), base().withAnnotation(SAFE, 'true').build()).outcome).toBe('Undefined');
  });

  it('is part of the default rules only from 1.36 on', () => {
    expect(defaultRules(drainCtx({ minor: 35 }).options).map((r) => r.name)).not.toContain('OnCompletion');
    expect(defaultRules(drainCtx({ minor: 36 }).options).map((r) => r.name)).toContain('OnCompletion');
  });
});

describe('Replicated rule', () => {
  it.each<[string, Pod, boolean, string]>([
    ['blocks a bare pod', base().build(), true, 'BlockDrain:NotReplicated'],
    ['passes a ReplicaSet pod', base().ownedBy('ReplicaSet', 'api-7f9c8d6b5').build(), true, 'Undefined'],
    ['passes a StatefulSet pod', base().ownedBy('StatefulSet', 'db').build(), true, 'Undefined'],
    ['passes a Job pod', base().ownedBy('Job', 'report-1').build(), true, 'Undefined'],
    ['passes a ReplicationController pod', base().ownedBy('ReplicationController', 'legacy').build(), true, 'Undefined'],
    [
      'blocks a pod owned by a custom controller with --skip-nodes-with-custom-controller-pods=true',
      base().ownedBy('Rollout', 'api', { apiVersion: 'argoproj.io/v1alpha1' }).build(),
      true,
      'BlockDrain:NotReplicated',
    ],
    [
      'passes a custom-controller pod with --skip-nodes-with-custom-controller-pods=false',
      base().ownedBy('Rollout', 'api', { apiVersion: 'argoproj.io/v1alpha1' }).build(),
      false,
      'Undefined',
    ],
    [
      'blocks a pod owned directly by a Deployment (not a replicating kind to CA)',
      base().ownedBy('Deployment', 'api').build(),
      true,
      'BlockDrain:NotReplicated',
    ],
    ['still blocks a bare pod with the flag off', base().build(), false, 'BlockDrain:NotReplicated'],
  ])('%s', (_name, p, skipCustom, want) => {
    expect(outcome(replicated(drainCtx({ skipNodesWithCustomControllerPods: skipCustom }), p))).toBe(want);
  });

  it('uses the message CA logs', () => {
    expect(replicated(drainCtx(), base().build()).message).toBe('web/api-7f9c8d6b5-x2x7q is not replicated');
  });
});

describe('System rule', () => {
  const ks = (created: string) =>
    pod('metrics-server-7d5c8b9f4-abcde', 'kube-system')
      .withLabels({ 'k8s-app': 'metrics-server' })
      .createdAt(created)
      .onNode('n')
      .build();
  const pdbKs = pdb('kube-system', 'metrics-server').selecting({ 'k8s-app': 'metrics-server' }).build();
  it.each<[string, Pod, Parameters<typeof drainCtx>[0], string]>([
    ['blocks a young kube-system pod without a PDB (1.33+)', ks('2026-01-05T11:30:00Z'), {}, 'BlockDrain:UnmovableKubeSystemPod'],
    ['drains an old kube-system pod without a PDB (1.33+: past the 1h timeout)', ks('2026-01-05T10:00:00Z'), {}, 'DrainOk'],
    ['still blocks at exactly the timeout (CA compares strictly)', ks('2026-01-05T11:00:00Z'), {}, 'BlockDrain:UnmovableKubeSystemPod'],
    [
      'honours a shorter --blocking-system-pod-distruption-timeout',
      ks('2026-01-05T11:30:00Z'),
      { blockingSystemPodDistruptionTimeoutMs: 10 * 60_000 },
      'DrainOk',
    ],
    [
      'blocks an old kube-system pod on CA 1.32 (no timeout before 1.33)',
      ks('2025-12-01T00:00:00Z'),
      { minor: 32, blockingSystemPodDistruptionTimeoutMs: undefined },
      'BlockDrain:UnmovableKubeSystemPod',
    ],
    ['passes a kube-system pod a PDB covers', ks('2026-01-05T11:30:00Z'), { pdbs: [pdbKs] }, 'Undefined'],
    [
      'ignores a PDB of another namespace',
      ks('2026-01-05T11:30:00Z'),
      { pdbs: [pdb('default', 'metrics-server').selecting({ 'k8s-app': 'metrics-server' }).build()] },
      'BlockDrain:UnmovableKubeSystemPod',
    ],
    ['leaves pods of other namespaces alone', base().build(), {}, 'Undefined'],
  ])('%s', (_name, p, o, want) => {
    expect(outcome(system(drainCtx(o), p))).toBe(want);
  });

  it('uses the message CA logs', () => {
    expect(system(drainCtx(), ks('2026-01-05T11:30:00Z')).message).toBe(
      'non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: metrics-server-7d5c8b9f4-abcde',
    );
  });

  it('is skipped entirely with --skip-nodes-with-system-pods=false', () => {
    expect(defaultRules(drainCtx({ skipNodesWithSystemPods: false }).options).map((r) => r.name)).not.toContain(
      'System',
    );
  });
});

describe('NotSafeToEvict rule', () => {
  it.each<[string, string | undefined, string]>([
    ['blocks a pod annotated "false"', 'false', 'BlockDrain:NotSafeToEvictAnnotation'],
    ['ignores "False"', 'False', 'Undefined'],
    ['ignores "true"', 'true', 'Undefined'],
    ['ignores a pod without the annotation', undefined, 'Undefined'],
  ])('%s', (_name, value, want) => {
    const p = value === undefined ? base().build() : base().withAnnotation(SAFE, value).build();
    expect(outcome(notSafeToEvict(drainCtx(), p))).toBe(want);
  });
});

describe('LocalStorage rule', () => {
  const withVol = (v: Record<string, unknown>, annotation?: string) => {
    const b = base().withVolume({ name: 'data', ...v } as never);
    return (annotation === undefined ? b : b.withAnnotation(LOCAL, annotation)).build();
  };
  it.each<[string, Pod, string]>([
    ['blocks a hostPath volume', withVol({ hostPath: { path: '/var/lib/data', type: '' } }), 'BlockDrain:LocalStorageRequested'],
    ['blocks a disk-backed emptyDir', withVol({ emptyDir: {} }), 'BlockDrain:LocalStorageRequested'],
    ['blocks an emptyDir with medium ""', withVol({ emptyDir: { medium: '' } }), 'BlockDrain:LocalStorageRequested'],
    ['passes an emptyDir in memory', withVol({ emptyDir: { medium: 'Memory' } }), 'Undefined'],
    ['passes a volume named in safe-to-evict-local-volumes', withVol({ emptyDir: {} }, 'data'), 'Undefined'],
    ['passes when the list names it among others', withVol({ emptyDir: {} }, 'cache,data'), 'Undefined'],
    ['blocks when the list has a space before the name (" data" is another volume)', withVol({ emptyDir: {} }, 'cache, data'), 'BlockDrain:LocalStorageRequested'],
    ['passes configMap, secret, projected, downwardAPI and PVC volumes', withVol({ persistentVolumeClaim: { claimName: 'data-0' } }), 'Undefined'],
  ])('%s', (_name, p, want) => {
    expect(outcome(localStorage(drainCtx(), p))).toBe(want);
  });

  it('blocks when only one of two local volumes is named', () => {
    const p = base()
      .withEmptyDir('cache')
      .withVolume({ name: 'logs', hostPath: { path: '/var/log/app' } })
      .withAnnotation(LOCAL, 'cache')
      .build();
    expect(localStorage(drainCtx(), p)).toEqual({
      outcome: 'BlockDrain',
      reason: 'LocalStorageRequested',
      message: 'pod with local storage present: api-7f9c8d6b5-x2x7q',
    });
  });

  it('is skipped entirely with --skip-nodes-with-local-storage=false', () => {
    expect(defaultRules(drainCtx({ skipNodesWithLocalStorage: false }).options).map((r) => r.name)).not.toContain(
      'LocalStorage',
    );
  });
});

describe('PDB rule', () => {
  const p = () => base().ownedBy('ReplicaSet', 'api-7f9c8d6b5').build();
  it.each<[string, PodDisruptionBudget[], string]>([
    ['blocks a pod whose PDB allows 0 disruptions', [pdb('web', 'api').healthy(3, 3).build()], 'BlockDrain:NotEnoughPdb'],
    ['passes a pod whose PDB allows 1', [pdb('web', 'api').healthy(3, 2).build()], 'Undefined'],
    ['blocks when the PDB has no status yet (Go zero value: 0)', [pdb('web', 'api').withoutStatus().build()], 'BlockDrain:NotEnoughPdb'],
    ['ignores a PDB of another namespace', [pdb('payments', 'api').healthy(3, 3).build()], 'Undefined'],
    ['ignores a PDB with no selector (matches nothing)', [pdb('web', 'api').withSelector(null).healthy(3, 3).build()], 'Undefined'],
    ['applies a PDB with an empty selector to every pod of the namespace', [pdb('web', 'all').withSelector({}).healthy(3, 3).build()], 'BlockDrain:NotEnoughPdb'],
    [
      'blocks when any one of several matching PDBs is exhausted',
      [
        pdb('web', 'a').selecting({ app: 'api' }).healthy(3, 1).build(),
        pdb('web', 'b').selecting({ app: 'api' }).healthy(3, 3).build(),
      ],
      'BlockDrain:NotEnoughPdb',
    ],
  ])('%s', (_name, pdbs, want) => {
    expect(outcome(pdbRule(drainCtx({ pdbs }), p()))).toBe(want);
  });

  it('blocks once earlier nodes in the same loop used the budget (RemainingPdbTracker)', () => {
    const ctx = drainCtx({ pdbs: [pdb('web', 'api').selecting({ app: 'api' }).healthy(3, 2).build()] });
    expect(pdbRule(ctx, p()).outcome).toBe('Undefined');
    ctx.pdbs.removePods('ip-10-0-1-11.ec2.internal', [p()]);
    expect(pdbRule(ctx, p())).toEqual({
      outcome: 'BlockDrain',
      reason: 'NotEnoughPdb',
      message: 'not enough pod disruption budget to move web/api-7f9c8d6b5-x2x7q',
    });
  });
});

describe("the default rule list, in CA's order", () => {
  it('lists the rules as rules.go Default does, gated by the flags', () => {
    expect(defaultRules(drainCtx().options).map((r) => r.name)).toEqual([
      'Mirror',
      'LongTerminating',
      'ReplicaCount',
      'DaemonSet',
      'SafeToEvict',
      'Terminal',
      'OnCompletion',
      'Replicated',
      'System',
      'NotSafeToEvict',
      'LocalStorage',
      'PDB',
    ]);
    expect(
      defaultRules(
        drainCtx({ minor: 32, skipNodesWithCustomControllerPods: false, skipNodesWithSystemPods: false }).options,
      ).map((r) => r.name),
    ).toEqual(['Mirror', 'LongTerminating', 'DaemonSet', 'SafeToEvict', 'Terminal', 'Replicated', 'NotSafeToEvict', 'LocalStorage', 'PDB']);
  });
});
