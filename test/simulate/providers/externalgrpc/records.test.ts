// The provider's records as CA's loop changes them (src/providers/externalgrpc/records.ts): pods waiting on
// nodes that will never arrive read what CA will do next, per CA version and --now, not "CA is already adding them".
import { describe, expect, it } from 'vitest';
import type { ExternalGrpcNodeGroup } from '../../../../src/model/node-group.js';
import type { RawInputs } from '../../../../src/model/snapshot.js';
import { buildCaConfig } from '../../../../src/simulate/ca-config.js';
import { externalGrpcProvider } from '../../../../src/providers/externalgrpc/index.js';
import type { KubeEvent } from '../../../../src/model/k8s.js';
import { backoffCycle, grpcScaleUpNeverLands, grpcUpcomingFate } from '../../../../src/providers/externalgrpc/records.js';
import { inputs } from '../../../builders/inputs.js';
import { cluster, NOW, providerConfigMap, STATUS_CONFIGMAP } from '../../../fixtures/externalgrpc/load.js';

const JOIN_IN_FLIGHT = `        stage: Joined
        status: InProcess`;

function general(caTag: string, edit: (t: string) => string = (t) => t) {
  const c = cluster();
  const dep = c.deployments[0];
  const container = dep.spec?.template?.spec?.containers?.[0];
  if (container) container.image = `registry.k8s.io/autoscaling/cluster-autoscaler:${caTag}`;
  const status = structuredClone(STATUS_CONFIGMAP);
  status.data = { ...status.data, NodeGroupsConfig: edit(status.data?.NodeGroupsConfig ?? '') };
  const raw: RawInputs = inputs({ deployments: c.deployments, configMaps: [...c.configMaps, status, providerConfigMap()], nodes: c.nodes });
  const ca = buildCaConfig({ deployment: dep });
  const groups = externalGrpcProvider.buildNodeGroups({ raw, ca, now: NOW }).nodeGroups;
  return { group: groups.find((g) => g.name === 'general') as ExternalGrpcNodeGroup, ca };
}
/** general's Joined record gave up too: every record the target counts beyond its nodes is Failed. */
const joinFailed = (t: string) => {
  if (!t.includes(JOIN_IN_FLIGHT)) throw new Error('fixture changed');
  return t.replace(JOIN_IN_FLIGHT, '        stage: Joined\n        status: Failed');
};

describe('grpcUpcomingFate', () => {
  it('says nothing while one of the upcoming records is still in flight on a CA that waits for it (1.26: 15m)', () => {
    const { group, ca } = general('v1.26.8');
    expect(grpcUpcomingFate(group, ca, NOW)).toBeUndefined();
  });

  it('CA 1.28 deletes even the record still in flight: no node will come, whatever the records say', () => {
    const { group, ca } = general('v1.28.4');
    const f = grpcUpcomingFate(group, ca, NOW)!;
    expect(f.nothingWillCome).toBe(true);
    expect(f.summary).toContain('1 still being created');
  });

  it('CA 1.28 reads the provision time as 0: it has given up on every record and cycles through backoff', () => {
    const { group, ca } = general('v1.28.4', joinFailed);
    const f = grpcUpcomingFate(group, ca, NOW)!;
    expect(f.dead.map((i) => i.id)).toEqual(['p0w8zn4c', 's5ny2c8v', 'a1b2c3d4']);
    expect(f.provisionTimeMs).toBe(0);
    expect(f.given).toBe(true);
    expect(f.nothingWillCome).toBe(true);
    // no scale-up event in the input: the newest record (09:52:18.641Z) anchors the first timeout
    expect(f.giveUpAt?.toISOString()).toBe('2026-11-24T09:52:18.641Z');
    // 5m backoff to 09:57:18.641, retry and fail 20s later, 10m backoff to 10:07:38.641
    expect(f.phase).toBe('backing-off');
    expect(f.failures).toBe(2);
    expect(f.backoffUntil?.toISOString()).toBe('2026-11-24T10:07:38.641Z');
    expect(f.summary).toMatch(/^no node will come to general while CA is v1\.28\.4: it reads --max-node-provision-time as 0 from this provider.* The 3 node\(s\) general was adding \(1 create that failed and 2 VMs stuck in Created\/Joined \(Failed\)\) are given up since 2026-11-24T09:52:18\.641Z; general is backed off until 2026-11-24T10:07:38\.641Z \(10m, backoff 2 if each retry fails the same way\)/);
  });

  it('CA 1.26 uses --max-node-provision-time (15m): waiting until the timeout, then backing off, then retrying', () => {
    const { group, ca } = general('v1.26.8', joinFailed);
    // the newest failed record: a1b2c3d4 at 17:52:18+08:00 = 09:52:18Z
    const before = grpcUpcomingFate(group, ca, NOW)!;
    expect(before.given).toBe(false);
    expect(before.phase).toBe('waiting');
    expect(before.nothingWillCome).toBe(false);
    expect(before.giveUpAt?.toISOString()).toBe('2026-11-24T10:07:18.641Z');
    expect(before.summary).toMatch(/^only after 2026-11-24T10:07:18\.641Z: until then it waits for 3 node\(s\) general is adding that will never arrive/);
    const backingOff = grpcUpcomingFate(group, ca, new Date('2026-11-24T10:10:00Z'))!;
    expect(backingOff.phase).toBe('backing-off');
    expect(backingOff.backoffUntil?.toISOString()).toBe('2026-11-24T10:12:18.641Z');
    expect(backingOff.summary).toContain('since 2026-11-24T10:07:18.641Z');
    expect(backingOff.summary).toContain('general is backed off until 2026-11-24T10:12:18.641Z (5m)');
    const retrying = grpcUpcomingFate(group, ca, new Date('2026-11-24T10:20:00Z'))!;
    expect(retrying.phase).toBe('retrying');
    expect(retrying.retryAt?.toISOString()).toBe('2026-11-24T10:12:28.641Z');
    expect(retrying.summary).toContain('CA scaled general up again at 2026-11-24T10:12:28.641Z after backoff 1 and waits for the new nodes until 2026-11-24T10:27:38.641Z');
  });

  it("anchors the first timeout on CA's own events: the scale-up's time + the provision time, or the ScaleUpTimedOut event", () => {
    const { group, ca } = general('v1.26.8', joinFailed);
    const ev = (reason: string, message: string, at: string): KubeEvent => ({
      metadata: { name: `e-${reason}`, namespace: 'kube-system' },
      involvedObject: { kind: 'ConfigMap', namespace: 'kube-system', name: 'cluster-autoscaler-status' },
      reason,
      message,
      type: reason === 'ScaleUpTimedOut' ? 'Warning' : 'Normal',
      source: { component: 'cluster-autoscaler' },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    }) as KubeEvent;
    const scaled = ev('ScaledUpGroup', 'Scale-up: setting group general size to 4 instead of 2 (max: 6)', '2026-11-24T09:40:00Z');
    const fromScaleUp = grpcUpcomingFate(group, ca, NOW, [scaled])!;
    expect(fromScaleUp.giveUpAt?.toISOString()).toBe('2026-11-24T09:55:10.000Z');
    expect(fromScaleUp.observed).toBe(false);
    expect(fromScaleUp.phase).toBe('retrying');
    const timedOut = ev('ScaleUpTimedOut', 'Nodes added to group general failed to register within 15m2.1s', '2026-11-24T09:55:02Z');
    const observed = grpcUpcomingFate(group, ca, NOW, [scaled, timedOut])!;
    expect(observed.observed).toBe(true);
    expect(observed.giveUpAt?.toISOString()).toBe('2026-11-24T09:55:02.000Z');
    // a timeout earlier than this CA's provision time after the scale-up was not this CA's (another version wrote it)
    const early = ev('ScaleUpTimedOut', 'Nodes added to group general failed to register within 10.2s', '2026-11-24T09:40:10Z');
    expect(grpcUpcomingFate(group, ca, NOW, [scaled, early])!.observed).toBe(false);
  });

  it('a group CA 1.28 would scale up never gets a node; CA 1.26 and 1.32 without options can', () => {
    expect(grpcScaleUpNeverLands(general('v1.28.4').group, general('v1.28.4').ca)).toMatch(/^CA v1\.28\.4 would scale up general, but no node will come/);
    expect(grpcScaleUpNeverLands(general('v1.26.8').group, general('v1.26.8').ca)).toBeUndefined();
  });

  it('a CA that cannot run keeps no scale-up, timeout or backoff: once it runs it gives up one provision time after its start', () => {
    const { group, ca } = general('v1.26.8', joinFailed);
    const f = grpcUpcomingFate(group, ca, new Date('2026-11-24T11:30:00Z'), [], { caStopped: true })!;
    expect(f.phase).toBe('waiting');
    expect(f.given).toBe(false);
    expect(f.summary).toMatch(/^only 15m after it starts \(--max-node-provision-time 15m as CA v1\.26\.8 reads it for general; a restarted CA remembers no scale-up, timeout or backoff\): until then it waits for 3 node\(s\)/);
  });

  it('leaves CA 1.29-1.34 with autoscalingOptions to the panic (CA is not running at all)', () => {
    const { group, ca } = general('v1.32.7', joinFailed);
    expect(grpcUpcomingFate(group, ca, NOW)).toBeUndefined();
  });
});

describe('backoffCycle (exponential_backoff.go: 5m doubling to 30m, reset after 3h)', () => {
  const flags = { initialMs: 300_000, maxMs: 1_800_000, resetMs: 3 * 3_600_000, loopMs: 10_000 };
  const t0 = new Date('2026-11-21T09:13:01Z');
  const at = (min: number) => new Date(t0.getTime() + min * 60_000);
  it('waits before the first timeout, then backs off 5m, 10m, 20m, 30m, 30m with a new scale-up between', () => {
    expect(backoffCycle(t0, 0, flags, at(-1)).phase).toBe('waiting');
    const seq: Array<[number, string, number]> = [];
    for (const m of [1, 5.1, 6, 15.5, 16, 40, 70, 110]) {
      const s = backoffCycle(t0, 0, flags, at(m));
      seq.push([m, s.phase, s.backoffMs ?? 0]);
    }
    expect(seq).toEqual([
      [1, 'backing-off', 300_000],
      [5.1, 'retrying', 0],
      [6, 'backing-off', 600_000],
      [15.5, 'retrying', 0],
      [16, 'backing-off', 1_200_000],
      [40, 'backing-off', 1_800_000],
      [70, 'backing-off', 1_800_000],
      [110, 'backing-off', 1_800_000],
    ]);
  });
  it('with a provision time longer than the reset timeout the backoff starts again at 5m', () => {
    const s = backoffCycle(t0, 4 * 3_600_000, flags, at(5 + 240 + 1));
    expect(s.phase).toBe('backing-off');
    expect(s.failures).toBe(2);
    expect(s.backoffMs).toBe(300_000);
  });
});
