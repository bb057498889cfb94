// The scale-down-blockers checks: each fires on its failure mode and stays quiet on the closest healthy case.
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/findings.js';
import { node, pod } from '../builders/k8s.js';
import { analyzeSd, NOW, nodeName, sdWorld } from '../builders/scale-down-world.js';
import { pdb } from '../builders/workloads.js';

const N1 = nodeName(1);
const N2 = nodeName(2);
const N3 = nodeName(3);
const CA_133 = 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0';

function findings(w: ReturnType<typeof sdWorld>, id: string, caArgs?: string[]): Finding[] {
  return analyzeSd(w.raw, caArgs ? { caArgs } : {}).findings.filter((f) => f.checkId === id);
}

describe('ca-scale-down-disabled', () => {
  it('fires when CA runs with --scale-down-enabled=false', () => {
    const [f] = findings(sdWorld({ caArgs: ['--scale-down-enabled=false'] }), 'ca-scale-down-disabled');
    expect(f).toMatchObject({
      severity: 'error',
      subject: { kind: 'Deployment', name: 'cluster-autoscaler', namespace: 'kube-system' },
      message: 'Cluster Autoscaler kube-system/cluster-autoscaler runs with --scale-down-enabled=false: it removes no node at all.',
    });
  });

  it('stays quiet with the default', () => {
    expect(findings(sdWorld(), 'ca-scale-down-disabled')).toEqual([]);
  });
});

describe('scale-down-in-cooldown', () => {
  const failed = (at: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${N1}.18f2b`, namespace: 'default' },
    involvedObject: { kind: 'Node', name: N1 },
    reason: 'ScaleDownFailed',
    message: 'failed to drain and delete node: pods remaining after timeout',
    type: 'Warning',
    count: 1,
    firstTimestamp: at,
    lastTimestamp: at,
    source: { component: 'cluster-autoscaler' },
  });

  it('fires after a failed scale-down, with the time left', () => {
    const w = sdWorld();
    w.add('events', failed('2026-01-05T11:58:30Z'));
    const [f] = findings(w, 'scale-down-in-cooldown');
    expect(f.message).toBe(
      'Scale-down is in cooldown for 1m30s more: --scale-down-delay-after-failure=3m after the scale down failure at 2026-01-05T11:58:30.000Z.',
    );
  });

  it('stays quiet once the delay has passed', () => {
    const w = sdWorld();
    w.add('events', failed('2026-01-05T11:50:00Z'));
    expect(findings(w, 'scale-down-in-cooldown')).toEqual([]);
  });

  it('is skipped without events', () => {
    const w = sdWorld();
    w.raw.provided.delete('events');
    expect(analyzeSd(w.raw).skipped.map((s) => s.checkId)).toContain('scale-down-in-cooldown');
  });
});

describe('node-not-autoscaled', () => {
  it('fires for a node outside every ASG, naming why', () => {
    const w = sdWorld();
    w.add('nodes', node('fargate-ip-10-0-9-9.ec2.internal').withProviderId('aws:///us-east-1a/fargate-ip-10-0-9-9').build());
    const [f] = findings(w, 'node-not-autoscaled');
    expect(f).toMatchObject({ caReason: 'NotAutoscaled', subject: { kind: 'Node', name: 'fargate-ip-10-0-9-9.ec2.internal' } });
    expect(f.message).toContain('belongs to no Auto Scaling group in the snapshot');
  });

  it('stays quiet for nodes of a discovered ASG', () => {
    expect(findings(sdWorld(), 'node-not-autoscaled')).toEqual([]);
  });

  it('is skipped without Auto Scaling groups', () => {
    const w = sdWorld();
    w.raw.provided.delete('autoScalingGroups');
    w.raw.autoScalingGroups = [];
    expect(analyzeSd(w.raw).skipped.map((s) => s.checkId)).toContain('node-not-autoscaled');
  });
});

describe('node-group-min-size-reached', () => {
  it('fires once per group, listing its nodes and the command to lower the min', () => {
    const fs = findings(sdWorld({ nodes: 2, min: 2 }), 'node-group-min-size-reached');
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toBe(`Node group prod-general is at its min size (desired 2, min 2): CA keeps node(s) ${N1}, ${N2}.`);
    expect(fs[0].remediation).toContain('--auto-scaling-group-name prod-general --min-size 1');
  });

  it('fires when other removable nodes of the group would take it to its min', () => {
    const fs = findings(sdWorld({ nodes: 3, min: 2 }), 'node-group-min-size-reached');
    expect(fs.map((f) => f.message)).toEqual([
      `Node group prod-general (desired 3, min 2) can lose 1 node(s), which CA takes from ${N1}: it keeps node(s) ${N2}, ${N3}.`,
    ]);
  });

  it('stays quiet when the group can lose every removable node', () => {
    const w = sdWorld({ nodes: 2, min: 1 });
    w.app('web', 'big', N2, { cpu: '3', memory: '1Gi' });
    expect(findings(w, 'node-group-min-size-reached')).toEqual([]);
  });
});

describe('node-scale-down-disabled', () => {
  it('fires for the annotation and shows how to remove it', () => {
    const w = sdWorld({ nodeBuilder: (i, b) => (i === 1 ? b.withAnnotation('cluster-autoscaler.kubernetes.io/scale-down-disabled', 'true') : b) });
    const [f] = findings(w, 'node-scale-down-disabled');
    expect(f.remediation).toContain(`kubectl annotate node ${N1} cluster-autoscaler.kubernetes.io/scale-down-disabled-`);
  });

  it('ignores any value other than "true"', () => {
    const w = sdWorld({ nodeBuilder: (i, b) => (i === 1 ? b.withAnnotation('cluster-autoscaler.kubernetes.io/scale-down-disabled', 'yes') : b) });
    expect(findings(w, 'node-scale-down-disabled')).toEqual([]);
  });
});

describe('node-unready-scale-down-disabled', () => {
  const unready = (caArgs: string[]) => sdWorld({ caArgs, nodeBuilder: (i, b) => (i === 1 ? b.notReady() : b) });
  it('fires for an unready node with --scale-down-unready-enabled=false', () => {
    const [f] = findings(unready(['--scale-down-unready-enabled=false']), 'node-unready-scale-down-disabled');
    expect(f.evidence[0]).toEqual({ source: `Node ${N1} condition Ready`, observed: 'False (KubeletNotReady)', expected: 'True' });
  });

  it('stays quiet with the default (CA removes unready nodes after --scale-down-unready-time)', () => {
    expect(findings(unready([]), 'node-unready-scale-down-disabled')).toEqual([]);
  });
});

describe('pod-controller-not-found', () => {
  it('fires for an orphaned pod on a node CA stops on, and says safe-to-evict will not help', () => {
    const w = sdWorld();
    w.add('pods', pod('backfill-x7k2p', 'analytics').ownedBy('Job', 'backfill').onNode(N1).build());
    const [f] = findings(w, 'pod-controller-not-found');
    expect(f.message).toBe(
      `Pod analytics/backfill-x7k2p on node ${N1} is owned by Job backfill, which does not exist: CA will not remove the node (ControllerNotFound).`,
    );
    expect(f.remediation).toContain('kubectl delete pod -n analytics backfill-x7k2p');
    expect(f.remediation).toContain('safe-to-evict: "true" does not help here');
  });

  it('stays quiet when the node is kept for an earlier reason (the pod is still listed in the report)', () => {
    const w = sdWorld();
    w.app('web', 'big', N1, { cpu: '3', memory: '1Gi' });
    w.add('pods', pod('backfill-x7k2p', 'analytics').ownedBy('Job', 'backfill').onNode(N1).build());
    const r = analyzeSd(w.raw);
    expect(r.findings.filter((f) => f.checkId === 'pod-controller-not-found')).toEqual([]);
    expect(r.node(N1).report.blockingPods.map((b) => b.caReason)).toEqual(['ControllerNotFound']);
  });

  it('is skipped when a controller kind is missing from the input', () => {
    const w = sdWorld();
    w.raw.provided.delete('jobs');
    expect(analyzeSd(w.raw).skipped.map((s) => s.checkId)).toContain('pod-controller-not-found');
  });
});

describe('pod-min-replicas-reached', () => {
  it('fires for a ReplicaSet below --min-replica-count', () => {
    const w = sdWorld();
    w.app('web', 'api', N1);
    const [f] = findings(w, 'pod-min-replicas-reached', ['--min-replica-count=2']);
    expect(f.message).toMatch(/belongs to ReplicaSet api-7f9c8d6b5 with 1 replica\(s\), below --min-replica-count=2/);
  });

  it('stays quiet at the default --min-replica-count=0', () => {
    const w = sdWorld();
    w.app('web', 'api', N1);
    expect(findings(w, 'pod-min-replicas-reached')).toEqual([]);
  });
});

describe('pod-not-replicated', () => {
  it('fires for a bare pod and for a custom controller, with different words', () => {
    const w = sdWorld();
    w.add(
      'pods',
      pod('psql-client', 'payments').onNode(N1).build(),
      pod('api-6c9d8-abcde', 'web').ownedBy('Rollout', 'api', { apiVersion: 'argoproj.io/v1alpha1' }).onNode(N2).build(),
    );
    const fs = findings(w, 'pod-not-replicated');
    expect(fs.map((f) => f.message)).toEqual([
      `Pod payments/psql-client on node ${N1} has no controller: CA will not remove the node (NotReplicated).`,
      `Pod web/api-6c9d8-abcde on node ${N2} is owned by Rollout api, not a ReplicationController, ReplicaSet, Job or StatefulSet: CA will not remove the node (NotReplicated).`,
    ]);
    expect(fs[1].remediation).toContain('--skip-nodes-with-custom-controller-pods=false');
  });

  it('stays quiet for Deployment pods', () => {
    const w = sdWorld();
    w.app('web', 'api', N1);
    expect(findings(w, 'pod-not-replicated')).toEqual([]);
  });
});

describe('pod-local-storage', () => {
  it('fires naming the volumes, and writes the annotation with the names already listed', () => {
    const w = sdWorld();
    const p = w.app('web', 'api', N1);
    p.spec.volumes = [{ name: 'cache', emptyDir: {} }, { name: 'spool', hostPath: { path: '/var/spool/app' } }];
    p.metadata.annotations = { 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes': 'cache' };
    const [f] = findings(w, 'pod-local-storage');
    expect(f.message).toContain('has local volume(s) spool:');
    expect(f.remediation).toContain('cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: "cache,spool"');
    expect(f.evidence[0].observed).toBe('spool (hostPath /var/spool/app)');
  });

  it('stays quiet for an emptyDir in memory, and with --skip-nodes-with-local-storage=false', () => {
    const w = sdWorld();
    w.app('web', 'api', N1).spec.volumes = [{ name: 'tmp', emptyDir: { medium: 'Memory' } }];
    w.app('web', 'web', N2).spec.volumes = [{ name: 'cache', emptyDir: {} }];
    expect(findings(w, 'pod-local-storage').map((f) => f.subject.name)).toEqual([expect.stringMatching(/^web-/)]);
    expect(findings(w, 'pod-local-storage', ['--skip-nodes-with-local-storage=false'])).toEqual([]);
  });
});

describe('pod-not-safe-to-evict', () => {
  it('fires for safe-to-evict: "false", pointing at the pod template', () => {
    const w = sdWorld();
    w.app('payments', 'worker', N1).metadata.annotations = { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' };
    const [f] = findings(w, 'pod-not-safe-to-evict');
    expect(f.caReason).toBe('NotSafeToEvictAnnotation');
    expect(f.remediation).toContain('the pod template of ReplicaSet payments/worker-7f9c8d6b5');
  });

  it('stays quiet for safe-to-evict: "true"', () => {
    const w = sdWorld();
    w.app('payments', 'worker', N1).metadata.annotations = { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' };
    expect(findings(w, 'pod-not-safe-to-evict')).toEqual([]);
  });
});

describe('pod-unmovable-kube-system', () => {
  const ks = (w: ReturnType<typeof sdWorld>, created: string) => {
    const p = w.app('kube-system', 'metrics-server', N1, { cpu: '100m', memory: '200Mi' });
    p.metadata.creationTimestamp = created;
    return p;
  };

  it('fires on CA 1.32, with the PDB manifest to add and what 1.33 would do', () => {
    const w = sdWorld();
    ks(w, '2025-12-20T10:00:00Z');
    const [f] = findings(w, 'pod-unmovable-kube-system');
    expect(f.message).toContain('CA will not remove the node while the pod exists (CA v1.32.1 has no timeout for it)');
    expect(f.remediation).toContain('kind: PodDisruptionBudget');
    expect(f.remediation).toContain('      app: "metrics-server"');
    expect(f.remediation).toContain('CA 1.33+ would not block on it: it is 16d old');
  });

  it('fires on CA 1.33 for a pod younger than the timeout, with the time it stops blocking', () => {
    const w = sdWorld({ image: CA_133 });
    ks(w, '2026-01-05T11:40:00Z');
    const [f] = findings(w, 'pod-unmovable-kube-system');
    expect(f.message).toContain('until 2026-01-05T12:40:00.000Z (created 20m ago');
  });

  it('stays quiet on CA 1.33 for a pod past the timeout, and for a pod a PDB covers', () => {
    const old = sdWorld({ image: CA_133 });
    ks(old, '2026-01-05T09:00:00Z');
    expect(findings(old, 'pod-unmovable-kube-system')).toEqual([]);
    expect(analyzeSd(old.raw).node(N1).report.notBlocking.map((x) => x.kind)).toContain('KubeSystemPastTimeout');
    const covered = sdWorld();
    ks(covered, '2025-12-20T10:00:00Z');
    covered.add('pdbs', pdb('kube-system', 'metrics-server').selecting({ app: 'metrics-server' }).healthy(1, 0).build());
    expect(findings(covered, 'pod-unmovable-kube-system')).toEqual([]);
  });
});

describe('pdb-blocks-scale-down', () => {
  it('fires once per PDB with maxUnavailable 0, listing every node it keeps and the patch', () => {
    const w = sdWorld();
    w.app('payments', 'payments-api', N1);
    w.app('payments', 'payments-api', N2);
    w.add('pdbs', pdb('payments', 'payments-api').selecting({ app: 'payments-api' }).maxUnavailable(0).healthy(2, 2).build());
    const fs = findings(w, 'pdb-blocks-scale-down');
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toBe(
      `PodDisruptionBudget payments/payments-api (maxUnavailable: 0) allows 0 disruption(s): it keeps 2 node(s): ${N1}, ${N2} (NotEnoughPdb).`,
    );
    expect(fs[0].remediation).toContain(`kubectl patch pdb -n payments payments-api --type merge -p '{"spec":{"maxUnavailable":1}}'`);
  });

  it('explains a minAvailable equal to the replica count', () => {
    const w = sdWorld();
    w.app('web', 'api', N1);
    w.add('pdbs', pdb('web', 'api').selecting({ app: 'api' }).minAvailable(1).healthy(1, 1).build());
    expect(findings(w, 'pdb-blocks-scale-down')[0].remediation).toContain('minAvailable: 1 equals the 1 pod(s) it selects');
  });

  it('stays quiet when the PDB allows a disruption', () => {
    const w = sdWorld();
    w.app('web', 'big', N2, { cpu: '2500m', memory: '1Gi' });
    w.app('web', 'big', N3, { cpu: '2500m', memory: '1Gi' });
    w.app('web', 'api', N1);
    w.add('pdbs', pdb('web', 'api').selecting({ app: 'api' }).healthy(2, 1).build());
    expect(findings(w, 'pdb-blocks-scale-down')).toEqual([]);
  });
});

describe('node-no-place-to-move-pods', () => {
  it('fires with the scheduler-style message over the other nodes', () => {
    const w = sdWorld({ nodes: 2 });
    w.app('web', 'big', N2, { cpu: '3', memory: '1Gi' });
    w.app('web', 'api', N1, { cpu: '1', memory: '1Gi' });
    const [f] = findings(w, 'node-no-place-to-move-pods');
    expect(f.message).toMatch(/^Node ip-10-0-1-11\.ec2\.internal is underutilized \(cpu 25\.5% <= 50%\) but pod web\/api-\S+ fits no other node: 0\/1 nodes are available: 1 Insufficient cpu\.$/);
  });

  it('stays quiet when there is room', () => {
    const w = sdWorld({ nodes: 2 });
    w.app('web', 'big', N2, { cpu: '2500m', memory: '1Gi' });
    w.app('web', 'api', N1, { cpu: '1', memory: '1Gi' });
    expect(findings(w, 'node-no-place-to-move-pods')).toEqual([]);
  });
});

describe('cluster-minimum-resources-reached', () => {
  it('fires when removing the node would go below --cores-total minimum', () => {
    const fs = findings(sdWorld({ nodes: 3 }), 'cluster-minimum-resources-reached', ['--cores-total=8:100']);
    expect(fs.map((f) => f.subject.name)).toEqual([N2, N3]);
    expect(fs[0].message).toContain('cluster has 12 cores');
  });

  it('stays quiet without a minimum', () => {
    expect(findings(sdWorld({ nodes: 3 }), 'cluster-minimum-resources-reached')).toEqual([]);
  });
});

describe("pods CA's simulation moved", () => {
  it('are reported on the node where they block, with the node they really run on', () => {
    const w = sdWorld({ nodes: 2 });
    w.app('web', 'api', N1, { cpu: '1', memory: '1Gi' });
    const r = analyzeSd(w.raw);
    // N1 goes first and its pod lands on the empty N2; N2 then has nowhere to send it
    expect(r.node(N1).report.removable).toBe(true);
    expect(r.node(N2).report.unplaceable).toMatchObject({ movedFrom: N1, message: 'no other node can take pods' });
  });
});

describe('scope', () => {
  it('reports only nodes (and their pods) the command looks at', () => {
    const w = sdWorld();
    w.add('pods', pod('debug-a', 'web').onNode(N1).build(), pod('debug-b', 'web').onNode(N2).build());
    const r = analyzeSd(w.raw, { scope: (n) => n.metadata.name === N2 });
    expect(r.findings.filter((f) => f.checkId === 'pod-not-replicated').map((f) => f.subject.name)).toEqual(['debug-b']);
    void NOW;
  });
});
