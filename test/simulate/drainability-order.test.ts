// Every bullet of ca-semantics.md §1.4 "Consequences of the rule order": the full rule list, first decisive rule wins.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/model/k8s.js';
import { defaultRules, drainable } from '../../src/simulate/drainability/rules.js';
import { pod } from '../builders/k8s.js';
import { analyzeSd, nodeName, sdWorld } from '../builders/scale-down-world.js';
import { pdb, replicaSet } from '../builders/workloads.js';
import { drainCtx, keyed } from '../builders/drain.js';

const SAFE = 'cluster-autoscaler.kubernetes.io/safe-to-evict';

function judge(p: Pod, o: Parameters<typeof drainCtx>[0] = {}) {
  const ctx = drainCtx(o);
  const v = drainable(defaultRules(ctx.options), ctx, p);
  return v.reason ? `${v.rule}:${v.outcome}:${v.reason}` : `${v.rule ?? '-'}:${v.outcome}`;
}

const bare = (ns = 'web') => pod('debug-shell', ns).onNode('n');
const rsPod = (ns = 'web') => pod('api-7f9c8d6b5-x2x7q', ns).withLabels({ app: 'api' }).ownedBy('ReplicaSet', 'api-7f9c8d6b5').onNode('n');
const exhausted = pdb('web', 'api').selecting({ app: 'api' }).healthy(3, 3).build();

describe('safe-to-evict: "true" overrides NotReplicated, kube-system, local storage and PDB', () => {
  it.each<[string, Pod, Parameters<typeof drainCtx>[0]]>([
    ['a bare pod', bare().withAnnotation(SAFE, 'true').build(), {}],
    [
      'a young kube-system pod without a PDB',
      rsPod('kube-system').createdAt('2026-01-05T11:50:00Z').withAnnotation(SAFE, 'true').build(),
      { listers: { replicaSets: keyed(replicaSet('kube-system', 'api-7f9c8d6b5', 1)) } },
    ],
    ['a pod with a hostPath volume', rsPod().withVolume({ name: 'd', hostPath: { path: '/d' } }).withAnnotation(SAFE, 'true').build(), {}],
    ['a pod whose PDB allows no disruption (the PDB rule is never reached)', rsPod().withAnnotation(SAFE, 'true').build(), { pdbs: [exhausted] }],
  ])('drains %s', (_name, p, o) => {
    expect(judge(p, o)).toBe('SafeToEvict:DrainOk');
  });

  it('without the annotation each of them blocks', () => {
    expect(judge(bare().build())).toBe('Replicated:BlockDrain:NotReplicated');
    expect(judge(rsPod().build(), { pdbs: [exhausted] })).toBe('PDB:BlockDrain:NotEnoughPdb');
  });
});

describe('safe-to-evict: "true" does not override a missing controller', () => {
  it('reports ControllerNotFound, because ReplicaCount runs before SafeToEvict', () => {
    const p = pod('api-5d8c7b6a4-q9q9q', 'web').ownedBy('ReplicaSet', 'api-5d8c7b6a4').withAnnotation(SAFE, 'true').onNode('n').build();
    expect(judge(p)).toBe('ReplicaCount:BlockDrain:ControllerNotFound');
  });
});

describe('DaemonSet pods', () => {
  it('never block, even with safe-to-evict: "false"', () => {
    const p = pod('aws-node-abcde', 'kube-system').ownedBy('DaemonSet', 'aws-node').withAnnotation(SAFE, 'false').onNode('n').build();
    expect(judge(p)).toBe('DaemonSet:DrainOk');
  });

  it('do block when their DaemonSet was deleted (ControllerNotFound)', () => {
    const p = pod('fluent-bit-abcde', 'kube-system').ownedBy('DaemonSet', 'fluent-bit').onNode('n').build();
    expect(judge(p)).toBe('ReplicaCount:BlockDrain:ControllerNotFound');
  });
});

describe('mirror (static) pods', () => {
  it('never block, whatever else they carry, and are never moved', () => {
    const w = sdWorld({ nodes: 2 });
    const mirror = pod(`kube-proxy-${nodeName(1)}`, 'kube-system')
      .withAnnotations({ 'kubernetes.io/config.mirror': 'c0ffee', [SAFE]: 'false' })
      .withVolume({ name: 'lib', hostPath: { path: '/lib/modules' } })
      .ownedBy('Node', nodeName(1), { apiVersion: 'v1' })
      .withRequests({ cpu: '100m' })
      .onNode(nodeName(1))
      .build();
    w.add('pods', mirror);
    expect(judge(mirror)).toBe('Mirror:SkipDrain');
    const n = analyzeSd(w.raw).node(nodeName(1));
    expect(n.report.blockingPods).toEqual([]);
    expect(n.report.removable).toBe(true);
    expect(n.report.podsToMove).toEqual([]);
    expect(n.report.notBlocking.map((x) => x.kind)).toContain('Mirror');
  });
});

describe('completed and failed pods (Terminal)', () => {
  it.each<[string, Pod]>([
    ['with safe-to-evict: "false"', bare().withAnnotation(SAFE, 'false').withSpec({ restartPolicy: 'Never' }).withPhase('Succeeded').build()],
    ['with local storage', bare().withEmptyDir('scratch').withSpec({ restartPolicy: 'OnFailure' }).withPhase('Succeeded').build()],
    ['with no controller at all', bare().withSpec({ restartPolicy: 'Always' }).withPhase('Failed').build()],
  ])('never block %s', (_name, p) => {
    expect(judge(p)).toBe('Terminal:DrainOk');
  });
});

describe('kube-system pods since CA 1.33', () => {
  const ks = (created: string) =>
    pod('metrics-server-7d5c8b9f4-abcde', 'kube-system')
      .withLabels({ app: 'metrics-server' })
      .ownedBy('ReplicaSet', 'metrics-server-7d5c8b9f4')
      .createdAt(created);
  const listers = { replicaSets: new Map([['kube-system/metrics-server-7d5c8b9f4', replicaSet('kube-system', 'metrics-server-7d5c8b9f4', 1)]]) };

  it('an old one without a PDB is drained at rule 9, so safe-to-evict "false", local storage and PDB are never checked', () => {
    const p = ks('2026-01-05T09:00:00Z').withAnnotation(SAFE, 'false').withEmptyDir('tmp').onNode('n').build();
    expect(judge(p, { listers })).toBe('System:DrainOk');
  });

  it('a young one without a PDB still blocks', () => {
    expect(judge(ks('2026-01-05T11:30:00Z').onNode('n').build(), { listers })).toBe('System:BlockDrain:UnmovableKubeSystemPod');
  });

  it('one with a PDB passes rule 9 and is judged by rules 10-12', () => {
    const covered = pdb('kube-system', 'metrics-server').selecting({ app: 'metrics-server' }).healthy(1, 0).build();
    expect(judge(ks('2026-01-05T09:00:00Z').withAnnotation(SAFE, 'false').onNode('n').build(), { listers, pdbs: [covered] })).toBe(
      'NotSafeToEvict:BlockDrain:NotSafeToEvictAnnotation',
    );
    expect(judge(ks('2026-01-05T09:00:00Z').withEmptyDir('tmp').onNode('n').build(), { listers, pdbs: [covered] })).toBe(
      'LocalStorage:BlockDrain:LocalStorageRequested',
    );
    const zero = pdb('kube-system', 'metrics-server').selecting({ app: 'metrics-server' }).healthy(1, 1).build();
    expect(judge(ks('2026-01-05T09:00:00Z').onNode('n').build(), { listers, pdbs: [zero] })).toBe('PDB:BlockDrain:NotEnoughPdb');
  });

  it('one with no controller is blocked earlier, by Replicated', () => {
    expect(judge(bare('kube-system').createdAt('2026-01-05T09:00:00Z').build())).toBe('Replicated:BlockDrain:NotReplicated');
  });

  it('on CA 1.32 an old one without a PDB still blocks', () => {
    expect(judge(ks('2025-06-01T00:00:00Z').onNode('n').build(), { listers, minor: 32, blockingSystemPodDistruptionTimeoutMs: undefined })).toBe(
      'System:BlockDrain:UnmovableKubeSystemPod',
    );
  });
});

describe('pods of custom controllers', () => {
  const rollout = () => pod('api-6c9d8-abcde', 'web').ownedBy('Rollout', 'api', { apiVersion: 'argoproj.io/v1alpha1' }).onNode('n');
  it('block with NotReplicated by default', () => {
    expect(judge(rollout().build())).toBe('Replicated:BlockDrain:NotReplicated');
  });
  it('do not block with safe-to-evict: "true"', () => {
    expect(judge(rollout().withAnnotation(SAFE, 'true').build())).toBe('SafeToEvict:DrainOk');
  });
  it('do not block with --skip-nodes-with-custom-controller-pods=false', () => {
    expect(judge(rollout().build(), { skipNodesWithCustomControllerPods: false })).toBe('-:Undefined');
  });
  it('Deployment pods are owned by ReplicaSets, so they are fine', () => {
    expect(judge(rsPod().build())).toBe('-:Undefined');
  });
});

describe('terminating pods that are not yet long-terminating', () => {
  it('go through the rules like any other pod', () => {
    expect(judge(bare().terminating('2026-01-05T11:59:50Z').build())).toBe('Replicated:BlockDrain:NotReplicated');
    expect(judge(bare().terminating('2026-01-05T11:50:00Z').build())).toBe('LongTerminating:SkipDrain');
  });
});

describe('volumes that are not local storage', () => {
  it.each<[string, Record<string, unknown>]>([
    ['emptyDir in memory', { emptyDir: { medium: 'Memory' } }],
    ['configMap', { configMap: { name: 'app-config' } }],
    ['secret', { secret: { secretName: 'app-tls' } }],
    ['projected', { projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
    ['downwardAPI', { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }],
    ['persistentVolumeClaim', { persistentVolumeClaim: { claimName: 'data-0' } }],
  ])('%s does not block', (_name, v) => {
    expect(judge(rsPod().withVolume({ name: 'v', ...v } as never).build())).toBe('-:Undefined');
  });

  it('a PVC-backed pod must still fit elsewhere: a volume pinned to another zone leaves no place', () => {
    const w = sdWorld({ nodes: 2 });
    const p = w.app('web', 'db', nodeName(1));
    p.spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }];
    w.add(
      'pvcs',
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data-db-0', namespace: 'web' },
        spec: { storageClassName: 'gp3', volumeName: 'pvc-1', accessModes: ['ReadWriteOnce'] },
        status: { phase: 'Bound' },
      },
    );
    w.add('pvs', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-1' },
      spec: {
        storageClassName: 'gp3',
        claimRef: { namespace: 'web', name: 'data-db-0' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1c'] }] }],
          },
        },
      },
      status: { phase: 'Bound' },
    });
    w.add('storageClasses', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'gp3' },
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
    const n = analyzeSd(w.raw).node(nodeName(1));
    expect(n.report.blockingPods).toEqual([]);
    expect(n.report.caReason).toBe('NoPlaceToMovePods');
    expect(n.report.unplaceable?.message).toBe('0/1 nodes are available: 1 node(s) had volume node affinity conflict.');
  });
});
