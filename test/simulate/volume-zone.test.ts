import { describe, expect, it } from 'vitest';
import {
  labelZonesToSet,
  REASON_VOLUME_ZONE_CONFLICT,
  VOLUME_ZONE,
  volumeZone,
} from '../../src/simulate/predicates/volume-zone.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView, type ClusterViewInput } from '../../src/simulate/scheduler.js';
import { node, pod, pv, pvc } from '../builders/k8s.js';

const claim = pvc('data-db-0').boundTo('pvc-legacy').build();
const p = pod('db-0').withPvc('data-db-0').build();

function view(
  pvs = [pv('pvc-legacy').inTreeInZone('us-east-1a').boundTo(claim).build()],
  has?: ClusterViewInput['has'],
) {
  return buildClusterView({ nodes: [], pods: [], pvcs: [claim], pvs, storageClasses: [], has });
}

describe('VolumeZone', () => {
  it('passes a node in the PV zone', () => {
    expect(volumeZone(p, nodeInfoFor(node().inZone('us-east-1a').build(), []), view()).code).toBe('Success');
  });

  it('rejects a node in another zone with the scheduler reason', () => {
    const s = volumeZone(
      p,
      nodeInfoFor(node('ip-10-0-2-45.ec2.internal').inZone('us-east-1b').build(), []),
      view(),
    );
    expect(s).toMatchObject({
      plugin: VOLUME_ZONE,
      code: 'UnschedulableAndUnresolvable',
      reasons: [REASON_VOLUME_ZONE_CONFLICT],
    });
    expect(REASON_VOLUME_ZONE_CONFLICT).toBe('node(s) had no available volume zone');
    expect(s.details).toEqual([
      'claim data-db-0 uses PersistentVolume pvc-legacy with failure-domain.beta.kubernetes.io/zone=us-east-1a; node ip-10-0-2-45.ec2.internal has failure-domain.beta.kubernetes.io/zone=us-east-1b',
    ]);
  });

  it('matches a beta PV label against a node that has only the GA label', () => {
    const gaOnly = node()
      .inZone('us-east-1b')
      .withoutLabel('failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region')
      .build();
    const s = volumeZone(p, nodeInfoFor(gaOnly, []), view());
    expect(s.code).toBe('UnschedulableAndUnresolvable');
    expect(s.details?.[0]).toContain('has topology.kubernetes.io/zone=us-east-1b');
  });

  it('accepts any zone of a multi-zone label value', () => {
    const multi = pv('pvc-legacy')
      .boundTo(claim)
      .withLabels({ 'topology.kubernetes.io/zone': 'us-east-1a__us-east-1b' })
      .build();
    expect(volumeZone(p, nodeInfoFor(node().inZone('us-east-1b').build(), []), view([multi])).code).toBe(
      'Success',
    );
    expect(volumeZone(p, nodeInfoFor(node().inZone('us-east-1c').build(), []), view([multi])).code).toBe(
      'UnschedulableAndUnresolvable',
    );
  });

  it('rejects a node in another region', () => {
    const regional = pv('pvc-legacy')
      .boundTo(claim)
      .withLabels({ 'topology.kubernetes.io/region': 'us-west-2' })
      .build();
    expect(volumeZone(p, nodeInfoFor(node().build(), []), view([regional])).reasons).toEqual([
      REASON_VOLUME_ZONE_CONFLICT,
    ]);
  });

  it('passes a node without any zone or region label (single-zone clusters)', () => {
    const bare = node()
      .withoutLabel(
        'topology.kubernetes.io/zone',
        'topology.kubernetes.io/region',
        'failure-domain.beta.kubernetes.io/zone',
        'failure-domain.beta.kubernetes.io/region',
      )
      .build();
    expect(volumeZone(p, nodeInfoFor(bare, []), view()).code).toBe('Success');
  });

  it('passes a CSI PV without zone labels (its node affinity is VolumeBinding’s job)', () => {
    const csi = pv('pvc-legacy').inZone('us-east-1a').boundTo(claim).build();
    expect(volumeZone(p, nodeInfoFor(node().inZone('us-east-1b').build(), []), view([csi])).code).toBe(
      'Success',
    );
  });

  it('skips unbound claims', () => {
    const unbound = pvc('data-db-0').build();
    const v = buildClusterView({ nodes: [], pods: [], pvcs: [unbound], pvs: [], storageClasses: [] });
    expect(volumeZone(p, nodeInfoFor(node().build(), []), v).code).toBe('Success');
  });

  it('is not evaluated without PVs', () => {
    const s = volumeZone(p, nodeInfoFor(node().build(), []), view([], { pvs: false }));
    expect(s).toMatchObject({
      code: 'NotEvaluated',
      details: ['PersistentVolumes were not gathered; cannot compare volume zones'],
    });
  });

  it('splits zone sets and ignores malformed ones', () => {
    expect([...(labelZonesToSet('us-east-1a__us-east-1b') ?? [])]).toEqual(['us-east-1a', 'us-east-1b']);
    expect(labelZonesToSet('us-east-1a____')).toBeUndefined();
  });
});
