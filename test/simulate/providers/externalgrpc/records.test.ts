// The provider's records as CA's loop changes them (src/providers/externalgrpc/records.ts): pods waiting on
// nodes that will never arrive read what CA will do next, per CA version and --now, not "CA is already adding them".
import { describe, expect, it } from 'vitest';
import type { ExternalGrpcNodeGroup } from '../../../../src/model/node-group.js';
import type { RawInputs } from '../../../../src/model/snapshot.js';
import { buildCaConfig } from '../../../../src/simulate/ca-config.js';
import { externalGrpcProvider } from '../../../../src/providers/externalgrpc/index.js';
import { grpcUpcomingFate } from '../../../../src/providers/externalgrpc/records.js';
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
  it('says nothing while one of the upcoming records is still in flight (a join InProcess may yet register)', () => {
    const { group, ca } = general('v1.28.4');
    expect(grpcUpcomingFate(group, ca, NOW)).toBeUndefined();
  });

  it('CA 1.28 reads the provision time as 0: it has already given up on every failed record', () => {
    const { group, ca } = general('v1.28.4', joinFailed);
    const f = grpcUpcomingFate(group, ca, NOW)!;
    expect(f.dead.map((i) => i.id)).toEqual(['p0w8zn4c', 's5ny2c8v', 'a1b2c3d4']);
    expect(f.provisionTimeMs).toBe(0);
    expect(f.given).toBe(true);
    expect(f.summary).toMatch(/^again, after backing general off .*the 3 node\(s\) general was adding will never arrive \(1 create that failed and 2 VMs stuck in Created\/Joined \(Failed\)\), and CA has given up on them \(--max-node-provision-time 0m as CA v1\.28\.4 reads it for general\): it deletes the unregistered VMs .* and drops the failed create with its size fix-up$/);
  });

  it('CA 1.26 uses --max-node-provision-time (15m) from the newest failure: waiting until then, given up after', () => {
    const { group, ca } = general('v1.26.8', joinFailed);
    // the newest failed record: a1b2c3d4 at 17:52:18+08:00 = 09:52:18Z
    const before = grpcUpcomingFate(group, ca, NOW)!;
    expect(before.given).toBe(false);
    expect(before.giveUpAt?.toISOString()).toBe('2026-11-24T10:07:18.641Z');
    expect(before.summary).toMatch(/^only after 2026-11-24T10:07:18\.641Z: until then it waits for 3 node\(s\) general is adding that will never arrive/);
    const after = grpcUpcomingFate(group, ca, new Date('2026-11-24T10:30:00Z'))!;
    expect(after.given).toBe(true);
    expect(after.summary).toContain('since 2026-11-24T10:07:18.641Z');
  });

  it('leaves CA 1.29-1.34 with autoscalingOptions to the panic (CA is not running at all)', () => {
    const { group, ca } = general('v1.32.7', joinFailed);
    expect(grpcUpcomingFate(group, ca, NOW)).toBeUndefined();
  });
});
