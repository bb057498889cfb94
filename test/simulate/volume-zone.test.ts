import { describe, expect, it } from 'vitest';
import {
  labelZonesToSet,
  REASON_VOLUME_ZONE_CONFLICT,
  VOLUME_ZONE,
  volumeZone,
} from '../../src/simulate/predicates/volume-zone.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView, type ClusterViewInput } from '../../src/simulate/scheduler.js';
import { node, pod, pv, pvc, storageClass } from '../builders/k8s.js';

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

  // kube-scheduler pkg/scheduler/framework/plugins/volumezone/volume_zone.go getPVbyPod: only a WaitForFirstConsumer
  // claim without a volume is skipped; the other unbound cases reject the pod on every node, zone labels or not.
  it.each([
    ['skips an unbound claim whose class waits for the first consumer', pvc('data-db-0'), [storageClass('gp3')], 'Success', undefined],
    [
      'rejects an unbound claim of an Immediate class',
      pvc('data-db-0'),
      [storageClass('gp3').immediate()],
      'UnschedulableAndUnresolvable',
      'PersistentVolume had no name',
    ],
    [
      'rejects an unbound claim without a class',
      pvc('data-db-0').withStorageClass(null),
      [],
      'UnschedulableAndUnresolvable',
      'PersistentVolumeClaim had no pv name and storageClass name',
    ],
    [
      'rejects an unbound claim whose class does not exist',
      pvc('data-db-0').withStorageClass('io2'),
      [storageClass('gp3')],
      'UnschedulableAndUnresolvable',
      'storageclass.storage.k8s.io "io2" not found',
    ],
  ])('%s', (_name, claimBuilder, classes, code, reason) => {
    const v = buildClusterView({
      nodes: [],
      pods: [],
      pvcs: [claimBuilder.build()],
      pvs: [],
      storageClasses: classes.map((c) => c.build()),
    });
    const bare = node()
      .withoutLabel(
        'topology.kubernetes.io/zone',
        'topology.kubernetes.io/region',
        'failure-domain.beta.kubernetes.io/zone',
        'failure-domain.beta.kubernetes.io/region',
      )
      .build();
    for (const n of [node().inZone('us-east-1b').build(), bare]) {
      const s = volumeZone(p, nodeInfoFor(n, []), v);
      expect(s.code).toBe(code);
      if (reason) expect(s.reasons).toEqual([reason]);
    }
  });

  it('rejects a pod whose claim does not exist with the lister\'s not-found error', () => {
    const v = buildClusterView({ nodes: [], pods: [], pvcs: [], pvs: [], storageClasses: [] });
    expect(volumeZone(p, nodeInfoFor(node().build(), []), v).reasons).toEqual([
      'persistentvolumeclaim "data-db-0" not found',
    ]);
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
