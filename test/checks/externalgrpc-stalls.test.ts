// Provider states that stop everything (src/providers/externalgrpc/stalls.ts): InProcess records no handler
// will finish use up a stage's parallelism, and nodes joined without a providerID leave VMs that can never be deleted.
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { runChecks } from '../../src/checks/lib/engine.js';
import type { Pod } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { inputs } from '../builders/inputs.js';
import { cluster, NOW, providerConfigMap, STATUS_CONFIGMAP } from '../fixtures/externalgrpc/load.js';
import { STATIC_TYPES } from './harness.js';

function run(raw: RawInputs, id: string) {
  const analysis = new Analysis(raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
  const check = CHECKS.find((c) => c.meta.id === id)!;
  return runChecks([check], analysis, check.meta.commands[0]).findings;
}

/** The fixture with general's records edited, and optionally the provider's pod. */
function variant(edit: (text: string) => string, pods?: Pod[], nodes = cluster().nodes): RawInputs {
  const c = cluster();
  const status = structuredClone(STATUS_CONFIGMAP);
  status.data = { ...status.data, NodeGroupsConfig: edit(status.data?.NodeGroupsConfig ?? '') };
  return inputs({ deployments: c.deployments, configMaps: [...c.configMaps, status, providerConfigMap()], nodes, ...(pods ? { pods } : {}) });
}

const ANCHOR = '      - id: a1b2c3d4\n';
/** n records of general in `stage` with status InProcess, last updated at `at` (the provider writes +08:00). */
const inProcess = (n: number, stage: string, at: string) => (t: string) => {
  if (!t.includes(ANCHOR)) throw new Error('fixture changed');
  const recs = Array.from({ length: n }, (_, k) =>
    [`      - id: ip${k}xxxxx`, '        name: ""', '        ip: ""', '        providerID: ""', `        stage: ${stage}`, '        status: InProcess', `        updateTime: ${at}`].join('\n'),
  ).join('\n');
  return t.replace(ANCHOR, `${recs}\n${ANCHOR}`);
};
const providerPod = (startedAt: string): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'cluster-autoscaler-grpc-cloud-provider-6d9f8b7c5-x2x9q', namespace: 'kube-system' },
    spec: { containers: [{ name: 'provider', image: 'ccr.ccs.tencentyun.com/ops/cluster-autoscaler-grpc-cloud-provider:v1.1.0' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'provider', ready: true, restartCount: 1, state: { running: { startedAt } } }] },
  }) as unknown as Pod;

describe('externalgrpc-stale-in-process', () => {
  it("reports waitJoined's InProcess record as holding one of the 3 slots of --create-parallelism (the fixture's flag) of stage Joined (warning)", () => {
    const f = run(variant((t) => t), 'externalgrpc-stale-in-process');
    expect(f.map((x) => [x.severity, x.subject.name])).toEqual([['warning', 's5ny2c8v']]);
    expect(f[0].message).toBe(
      "1 record(s) stuck InProcess in stage Joined (s5ny2c8v (node-5hd8wq.vm10-20-1-31) of general) hold 1 of the 3 slot(s) of --create-parallelism for good: the provider moves instances of every node group past Joined 2 at a time.",
    );
  });

  it('three Pending records left InProcess by a provider restart stop every create (error, certain from the pod start)', () => {
    const f = run(variant(inProcess(3, 'Pending', '2026-11-24T17:20:00+08:00'), [providerPod('2026-11-24T09:30:00Z')]), 'externalgrpc-stale-in-process');
    const pending = f.find((x) => x.message.startsWith('Stage Pending'))!;
    expect(pending.severity).toBe('error');
    expect(pending.message).toMatch(/^Stage Pending is full: 3 record\(s\) stuck InProcess \(ip0xxxxx of general, .*\) hold all 3 slot\(s\) of --create-parallelism, so the provider moves no instance of any node group past Pending: no new instance is created for any scale-up\.$/);
    expect(pending.evidence[0].observed).toContain("updated before the provider's current process started (2026-11-24T09:30:00.000Z)");
    expect(pending.remediation).toContain("curl -sS -X POST http://127.0.0.1:8080/api/v1/nodegroup/instance -H 'Content-Type: application/json' -d '[{\"id\":\"ip0xxxxx\",\"stage\":\"Pending\",\"status\":\"Init\",\"error\":\"\"}");
  });

  it('records updated after the provider started, minutes ago, are in flight: nothing said', () => {
    const f = run(variant(inProcess(5, 'Pending', '2026-11-24T17:58:00+08:00'), [providerPod('2026-11-24T09:30:00Z')]), 'externalgrpc-stale-in-process');
    expect(f.filter((x) => x.message.includes('Pending'))).toEqual([]);
  });

  it('one old PendingDeletion record fills --delete-parallelism (1); without the pod start it is only likely (warning)', () => {
    const f = run(variant(inProcess(1, 'PendingDeletion', '2026-11-24T16:00:00+08:00')), 'externalgrpc-stale-in-process');
    const del = f.find((x) => x.message.startsWith('Stage PendingDeletion'))!;
    expect(del.severity).toBe('warning');
    expect(del.message).toContain('hold all 1 slot(s) of --delete-parallelism, so the provider moves no instance of any node group past PendingDeletion: no scale-down or unregistered-node delete runs its delete hook');
    expect(del.evidence[0].observed).toContain('InProcess for over 30m (likely a provider restart');
  });
});

describe('externalgrpc-node-without-provider-id', () => {
  it('names each node whose record has no providerID either, with the providerID to set and the annotation that makes the provider re-read it', () => {
    const f = run(variant((t) => t), 'externalgrpc-node-without-provider-id');
    expect(f.map((x) => x.subject.name)).toEqual(expect.arrayContaining(['k8s-master-01']));
    const m = f.find((x) => x.subject.name === 'k8s-master-01')!;
    expect(m.message).toMatch(/^Node k8s-master-01 of node group master has no spec\.providerID, and neither has its instance record m7sd01qa: CA never sees the instance/);
    expect(m.remediation).toContain("kubectl patch node k8s-master-01 --type merge -p '{\"spec\":{\"providerID\":");
    expect(m.remediation).toContain('kubectl annotate node k8s-master-01 --overwrite casdoctor.io/provider-id-set=true');
  });

  it('says nothing for a node with a providerID, even when its record lost it', () => {
    const f = run(variant((t) => t), 'externalgrpc-node-without-provider-id');
    expect(f.map((x) => x.subject.name)).not.toContain('node-7fj2ka.vm10-20-1-14');
  });
});
