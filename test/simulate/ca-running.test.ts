// "Can CA run at all" as one fact (src/simulate/ca-running.ts) and the verdicts that follow it: CA's own pod, CA 1.29-1.34
// panicking on the provider's autoscalingOptions, CA 1.35 on a nil template, a size fix-up the provider turns into a
// no-op at min size. Upstream lines are in the source.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { caRunning, caScaleUpFails, podVerdictWhenCaCannotRun } from '../../src/simulate/ca-running.js';
import { inputs } from '../builders/inputs.js';
import { pod } from '../builders/k8s.js';
import { analyzePods } from '../../src/simulate/why-pending.js';
import { STATIC_TYPES } from '../checks/harness.js';
import { cluster, NOW, providerConfigMap, STATUS_CONFIGMAP } from '../fixtures/externalgrpc/load.js';

function grpcRaw(opts: { caTag?: string; statusEdit?: (t: string) => string; dropNode?: string; pods?: Pod[]; extraNodes?: Node[] } = {}): RawInputs {
  const c = cluster();
  const caDep = c.deployments[0];
  const container = caDep.spec?.template?.spec?.containers?.[0];
  if (opts.caTag && container) container.image = `registry.k8s.io/autoscaling/cluster-autoscaler:${opts.caTag}`;
  const status = structuredClone(STATUS_CONFIGMAP);
  if (opts.statusEdit) status.data = { ...status.data, NodeGroupsConfig: opts.statusEdit(status.data?.NodeGroupsConfig ?? '') };
  return inputs({
    deployments: c.deployments,
    configMaps: [...c.configMaps, status, providerConfigMap()],
    nodes: [...c.nodes.filter((n) => n.metadata.name !== opts.dropNode), ...(opts.extraNodes ?? [])],
    ...(opts.pods ? { pods: opts.pods } : {}),
  });
}
const analysis = (raw: RawInputs, now = NOW) => new Analysis(raw, { now, staticInstanceTypes: STATIC_TYPES });

const ADDONS_03 = `      - id: d9lq4x7e
        name: k8s-addons-03
        ip: 10.20.0.23
        providerID: externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-8c9d0e1f
        stage: Running
        status: Success
        updateTime: 2026-11-24T17:41:09.120470112+08:00`;

/** worker-addons (min = max = target = 3) lost k8s-addons-03; its record is a create that failed, with no providerID. */
function failedCreateAtMin(status: string, updateTime: string) {
  return (t: string) => {
    if (!t.includes(ADDONS_03)) throw new Error('fixture changed');
    return t.replace(
      ADDONS_03,
      `      - id: d9lq4x7e\n        name: ""\n        ip: ""\n        providerID: ""\n        stage: Pending\n        status: ${status}\n        error: 'create instance(d9lq4x7e) failed, [TencentCloudSDKError] Code=ResourceInsufficient.SpecifiedInstanceType'\n        updateTime: ${updateTime}`,
    );
  };
}

function caPod(name: string, status: Pod['status']): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'kube-system', labels: { app: 'cluster-autoscaler' } },
    spec: { containers: [{ name: 'cluster-autoscaler', image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.28.4' }], nodeName: 'k8s-master-01' },
    status,
  } as Pod;
}
const crashLooping = caPod('cluster-autoscaler-6d9f7c8b5-x2x9q', {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'False' }],
  containerStatuses: [
    {
      name: 'cluster-autoscaler',
      ready: false,
      restartCount: 14,
      state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } },
      lastState: { terminated: { reason: 'Error', exitCode: 255, finishedAt: '2026-11-24T10:02:10Z' } },
    },
  ],
} as Pod['status']);
const healthy = caPod('cluster-autoscaler-6d9f7c8b5-k7m2p', {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
  containerStatuses: [{ name: 'cluster-autoscaler', ready: true, restartCount: 0, state: { running: { startedAt: '2026-11-20T08:00:00Z' } } }],
} as Pod['status']);

describe('caRunning: the externalgrpc provider by CA version', () => {
  it('CA 1.26 and 1.28 on the fixture: no reason to stop (state unknown without CA\'s pod in the input)', () => {
    for (const tag of ['v1.26.8', 'v1.28.4']) {
      const r = caRunning(analysis(grpcRaw({ caTag: tag })));
      expect(r.reasons, tag).toEqual([]);
      expect(r.state, tag).toBe('unknown');
    }
  });

  it('CA 1.29-1.34 cannot run when a group sets autoscalingOptions: the nil MaxNodeProvisionTime panics (certain)', () => {
    for (const tag of ['v1.29.5', 'v1.32.7', 'v1.34.1']) {
      const r = caRunning(analysis(grpcRaw({ caTag: tag })));
      expect(r.state, tag).toBe('cannot-run');
      expect(r.reasons.map((x) => [x.kind, x.certainty, x.group]), tag).toEqual([
        ['options-panic', 'certain', 'general'],
        ['options-panic', 'certain', 'gpu-a100'],
      ]);
    }
  });

  it('CA 1.35 cannot run on the nil template of a group with no Ready node', () => {
    const r = caRunning(analysis(grpcRaw({ caTag: 'v1.35.2' })));
    expect(r.state).toBe('cannot-run');
    expect(r.reasons.map((x) => [x.kind, x.certainty, x.group])).toEqual([['template-nil', 'certain', 'gpu-a100']]);
    expect(r.reasons[0].text).toMatch(/gpu-a100 \(no Ready node/);
  });

  it('a failed create in a group at min size halts CA: certain at once on 1.28 (provision time 0), after the provision time on 1.26', () => {
    // the record failed at 17:58+08:00 = 09:58Z, 7 min before NOW
    const old = caRunning(analysis(grpcRaw({ caTag: 'v1.28.4', dropNode: 'k8s-addons-03', statusEdit: failedCreateAtMin('Failed', '2026-11-24T17:58:00+08:00') })));
    expect(old.state).toBe('cannot-run');
    expect(old.reasons.map((x) => [x.kind, x.certainty, x.group])).toEqual([['size-fix-halt', 'certain', 'worker-addons']]);
    expect(old.reasons[0].text).toMatch(/target 3 but 2 registered and 0 unregistered.*min size 3/);
    // CA 1.26 has no per-group provision time: --max-node-provision-time (15m) from the record's failure at 09:58Z
    const young = caRunning(analysis(grpcRaw({ caTag: 'v1.26.8', dropNode: 'k8s-addons-03', statusEdit: failedCreateAtMin('Failed', '2026-11-24T17:58:00+08:00') })));
    expect(young.state).toBe('likely-cannot-run');
    expect(young.reasons[0].since).toBe('2026-11-24T09:58:00.000Z');
    const later = caRunning(analysis(grpcRaw({ caTag: 'v1.26.8', dropNode: 'k8s-addons-03', statusEdit: failedCreateAtMin('Failed', '2026-11-24T17:58:00+08:00') }), new Date('2026-11-24T10:14:00Z')));
    expect(later.state).toBe('cannot-run');
    // a create still in flight may get its providerID: nothing to say yet
    const inFlight = caRunning(analysis(grpcRaw({ caTag: 'v1.26.8', dropNode: 'k8s-addons-03', statusEdit: failedCreateAtMin('InProcess', '2026-11-24T18:04:00+08:00') })));
    expect(inFlight.reasons).toEqual([]);
  });
});

describe("caRunning: CA's own pod", () => {
  it('a crash-looping CA pod stops CA (certain); a healthy replica beside it keeps the loop going', () => {
    const down = caRunning(analysis(grpcRaw({ caTag: 'v1.28.4', pods: [crashLooping] })));
    expect(down.state).toBe('cannot-run');
    expect(down.reasons.map((x) => [x.kind, x.certainty])).toEqual([['ca-pod', 'certain']]);
    expect(down.reasons[0].text).toMatch(/kube-system\/cluster-autoscaler-6d9f7c8b5-x2x9q is crash-looping \(CrashLoopBackOff, 14 restarts/);
    const up = caRunning(analysis(grpcRaw({ caTag: 'v1.28.4', pods: [crashLooping, healthy] })));
    expect(up).toEqual({ state: 'running', reasons: [] });
  });

  it('a crash-looping CA pod whose flags have one CA exits on names the flag and what CA prints (pflag: usage, exit 2)', () => {
    const raw = grpcRaw({ caTag: 'v1.28.4', pods: [crashLooping] });
    const c = raw.deployments[0].spec!.template!.spec!.containers[0];
    if (c.command) c.command = [...c.command, '--frobnicate=1'];
    else c.args = [...(c.args ?? []), '--frobnicate=1'];
    const r = caRunning(analysis(raw));
    expect(r.state).toBe('cannot-run');
    expect(r.reasons[0].text).toMatch(/is crash-looping .*; its flags have one CA v1\.28\.4 exits on at start-up: it prints "unknown flag: --frobnicate" and its usage, and exits with code 2$/);
    // a healthy pod proves the flags fine (casdoctor's flag table may lag CA's): nothing said
    const ok = grpcRaw({ caTag: 'v1.28.4', pods: [healthy] });
    const c2 = ok.deployments[0].spec!.template!.spec!.containers[0];
    c2.args = [...(c2.args ?? []), '--frobnicate=1'];
    expect(caRunning(analysis(ok)).reasons.filter((x) => x.kind === 'ca-pod')).toEqual([]);
  });

  it('a pods file without CA\'s namespace says nothing about CA (a partial dump is not "no pod")', () => {
    const other = { ...healthy, metadata: { name: 'web-1', namespace: 'web', labels: { app: 'web' } } } as Pod;
    const r = caRunning(analysis(grpcRaw({ caTag: 'v1.28.4', pods: [other] })));
    expect(r.reasons).toEqual([]);
  });
});

describe('the verdict hooks', () => {
  it("a pod CA would scale up for waits for CA instead, with what CA would do once it runs; a pod fitting a node keeps its verdict", () => {
    const a = analysis(grpcRaw({ caTag: 'v1.32.7' }));
    const r = podVerdictWhenCaCannotRun(a, 'scale-up', 'CA can scale up general');
    expect(r.verdict).toBe('ca-not-running');
    expect(r.summary).toMatch(/^nothing is scaled up or down \(CA v1\.32\.7 panics on node group general's GetOptions answer .*; 1 more reason in CA health\); once it runs: CA can scale up general$/);
    expect(podVerdictWhenCaCannotRun(a, 'fits-existing-node', 'fits existing node x')).toEqual({ verdict: 'fits-existing-node', summary: 'fits existing node x' });
    const fine = analysis(grpcRaw({ caTag: 'v1.28.4', pods: [healthy] }));
    expect(podVerdictWhenCaCannotRun(fine, 'scale-up', 'CA can scale up general')).toEqual({ verdict: 'scale-up', summary: 'CA can scale up general' });
  });
});

describe('caScaleUpFails: a node the provider cannot place', () => {
  /** A general node someone also labelled as worker-addons, joined after the provider last wrote its records. */
  function twoGroupNode(): Node {
    const n = structuredClone(cluster().nodes.find((x) => x.metadata.name === 'node-7fj2ka.vm10-20-1-14')!);
    n.metadata.name = 'node-9zz1aa.vm10-20-1-99';
    n.metadata.labels = { ...n.metadata.labels, 'kubernetes.io/hostname': 'node-9zz1aa.vm10-20-1-99', 'node-role.kubernetes.io/worker-addons': '' };
    n.spec = { ...n.spec, providerID: 'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-9zz1aa99' };
    return n;
  }

  it('matching two groups, the node never gets a record: every scale-up fails, and a scale-up verdict says so', () => {
    const a = analysis(grpcRaw({ caTag: 'v1.28.4', extraNodes: [twoGroupNode()], pods: [healthy] }));
    const fails = caScaleUpFails(a);
    expect(fails.map((f) => f.text)).toEqual([
      expect.stringMatching(/^the provider answers CA's NodeGroupForNode for node node-9zz1aa\.vm10-20-1-99 with an error \(node\(node-9zz1aa\.vm10-20-1-99\) matched multiple nodegroup \[worker-addons general\]: it never records such a node\)/),
    ]);
    // CA itself runs: scale-down is not stopped
    expect(caRunning(a).state).toBe('running');
    const r = podVerdictWhenCaCannotRun(a, 'scale-up', 'CA can scale up general');
    expect(r.verdict).toBe('no-scale-up');
    expect(r.summary).toMatch(/^every scale-up of CA's fails: .*; once that is fixed: CA can scale up general$/);
    expect(podVerdictWhenCaCannotRun(a, 'no-scale-up', 'x')).toEqual({ verdict: 'no-scale-up', summary: 'x' });
  });

  it('says nothing on the fixture as it is', () => {
    expect(caScaleUpFails(analysis(grpcRaw({ caTag: 'v1.28.4' })))).toEqual([]);
  });
});

describe('why-pending on an externalgrpc cluster without the provider state', () => {
  it('asks for the provider\'s ConfigMap, never for Auto Scaling groups', () => {
    const c = cluster();
    const pending = pod('checkout-5d8f7c9b4-x7k2p', 'shop').withRequests({ cpu: '200', memory: '1Gi' }).ownedBy('ReplicaSet', 'checkout-5d8f7c9b4').unschedulable().build();
    const raw = inputs({ deployments: c.deployments, configMaps: c.configMaps, nodes: c.nodes, pods: [pending] });
    const [p] = analyzePods(analysis(raw));
    expect(p.report.verdict).toBe('not-evaluated');
    expect(p.report.summary).toContain('no node groups from the externalgrpc provider');
    expect(p.report.summary).toContain('kubectl -n kube-system get configmap nodegroup-status -o json');
    expect(p.report.summary).not.toMatch(/aws|Auto Scaling/i);
  });
});

describe('grpcCreatesStalled: the provider creates nothing while stale InProcess records fill a create stage', () => {
  const ANCHOR = '      - id: a1b2c3d4\n';
  const stale = (t: string) =>
    t.replace(
      ANCHOR,
      [0, 1, 2]
        .map((k) => [`      - id: ip${k}xxxxx`, '        name: ""', '        ip: ""', '        providerID: ""', '        stage: Pending', '        status: InProcess', '        updateTime: 2026-11-24T17:20:00+08:00'].join('\n'))
        .join('\n') + `\n${ANCHOR}`,
    );
  const providerPod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'cluster-autoscaler-grpc-cloud-provider-6d9f8b7c5-x2x9q', namespace: 'kube-system' },
    spec: { containers: [{ name: 'provider', image: 'ccr.ccs.tencentyun.com/ops/cluster-autoscaler-grpc-cloud-provider:v1.1.0' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'provider', ready: true, restartCount: 1, state: { running: { startedAt: '2026-11-24T09:30:00Z' } } }] },
  } as unknown as Pod;
  // fits only gpu-a100's template (96 CPU): no existing node can take it
  const pending = pod('checkout-5d8f7c9b4-x7k2p', 'shop')
    .withRequests({ cpu: '40', memory: '100Gi' })
    .withNodeSelector({ 'node-role.kubernetes.io/gpu': '' })
    .withToleration({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' })
    .ownedBy('ReplicaSet', 'checkout-5d8f7c9b4')
    .unschedulable()
    .build();

  it("a Pending pod CA would scale up for gets no node while the provider's Pending stage is full (--create-parallelism 3 here)", () => {
    const checkout = (ps: ReturnType<typeof analyzePods>) => ps.find((x) => x.report.name === 'checkout-5d8f7c9b4-x7k2p')!;
    const p = checkout(analyzePods(analysis(grpcRaw({ caTag: 'v1.26.8', statusEdit: stale, pods: [healthy, providerPod, pending] }))));
    expect(p.report.verdict).toBe('no-scale-up');
    expect(p.report.summary).toMatch(/^no node will come: the provider moves no new instance past stage Pending: 3 record\(s\) stuck InProcess hold all 3 slot\(s\) of its --create-parallelism \(externalgrpc-stale-in-process\); once they are retried: /);
    // without the stale records the same pod is a scale-up
    const q = checkout(analyzePods(analysis(grpcRaw({ caTag: 'v1.26.8', pods: [healthy, providerPod, pending] }))));
    expect(q.report.verdict).toBe('scale-up');
  });
});
