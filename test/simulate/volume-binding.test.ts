import { describe, expect, it } from 'vitest';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../src/model/k8s.js';
import {
  REASON_PV_NOT_EXIST,
  REASON_UNBOUND_IMMEDIATE,
  REASON_VOLUME_BIND_CONFLICT,
  REASON_VOLUME_NODE_AFFINITY_CONFLICT,
  VOLUME_BINDING,
  volumeBinding,
  volumeBindingPreFilter,
} from '../../src/simulate/predicates/volume-binding.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView, type ClusterViewInput } from '../../src/simulate/scheduler.js';
import { node, pod, pv, pvc, storageClass, term } from '../builders/k8s.js';

const nodeA = node('ip-10-0-1-23.ec2.internal').inZone('us-east-1a').build();
const nodeB = node('ip-10-0-2-45.ec2.internal').inZone('us-east-1b').build();
const gp3 = storageClass('gp3').waitForFirstConsumer().asDefault().build();

function view(
  data: { pvcs?: PersistentVolumeClaim[]; pvs?: PersistentVolume[]; storageClasses?: StorageClass[] },
  has?: ClusterViewInput['has'],
) {
  return buildClusterView({
    nodes: [nodeA, nodeB],
    pods: [],
    pvcs: data.pvcs ?? [],
    pvs: data.pvs ?? [],
    storageClasses: data.storageClasses ?? [gp3],
    has,
  });
}

const podWithData = pod('db-0').withPvc('data-db-0', 'data').build();
const bound = pvc('data-db-0').boundTo('pvc-7a1e').build();
const pvInA = pv('pvc-7a1e').inZone('us-east-1a').boundTo(bound).build();

describe('VolumeBinding PreFilter', () => {
  it('passes a pod without claims even when no storage data was gathered', () => {
    const v = view({}, { pvcs: false, pvs: false, storageClasses: false });
    expect(volumeBindingPreFilter(pod().withEmptyDir('tmp').build(), v).code).toBe('Success');
    expect(volumeBinding(pod().build(), nodeInfoFor(nodeA, []), v).code).toBe('Success');
  });

  it('rejects a pod whose claim does not exist, with the PreFilter message', () => {
    const s = volumeBindingPreFilter(podWithData, view({}));
    expect(s).toMatchObject({
      plugin: VOLUME_BINDING,
      code: 'UnschedulableAndUnresolvable',
      reasons: ['persistentvolumeclaim "data-db-0" not found'],
    });
  });

  it('explains a missing generic ephemeral claim as waiting for the controller', () => {
    const p = pod('runner-x').withEphemeralVolume('scratch').build();
    expect(volumeBindingPreFilter(p, view({})).reasons).toEqual([
      'waiting for ephemeral volume controller to create the persistentvolumeclaim "runner-x-scratch"',
    ]);
  });

  it('accepts an ephemeral claim owned by the pod and rejects one owned by someone else', () => {
    const p = pod('runner-x').withEphemeralVolume('scratch').build();
    const mine = pvc('runner-x-scratch').ownedByPod(p).build();
    expect(volumeBindingPreFilter(p, view({ pvcs: [mine] })).code).toBe('Success');
    const other = pvc('runner-x-scratch').ownedByPod(pod('someone-else').build()).build();
    expect(volumeBindingPreFilter(p, view({ pvcs: [other] })).reasons).toEqual([
      'PVC default/runner-x-scratch was not created for pod default/runner-x (pod is not owner)',
    ]);
  });

  it('rejects a Lost claim', () => {
    const lost = pvc('data-db-0').boundTo('pvc-gone').lost().build();
    expect(volumeBindingPreFilter(podWithData, view({ pvcs: [lost] })).reasons).toEqual([
      'persistentvolumeclaim "data-db-0" bound to non-existent persistentvolume "pvc-gone"',
    ]);
  });

  it('rejects a claim being deleted', () => {
    const deleting = pvc('data-db-0').boundTo('pvc-7a1e').terminating().build();
    expect(volumeBindingPreFilter(podWithData, view({ pvcs: [deleting], pvs: [pvInA] })).reasons).toEqual([
      'persistentvolumeclaim "data-db-0" is being deleted',
    ]);
  });

  it('rejects an unbound claim with Immediate binding', () => {
    const io2 = storageClass('io2').immediate().build();
    const waiting = pvc('data-db-0').withStorageClass('io2').build();
    const s = volumeBindingPreFilter(podWithData, view({ pvcs: [waiting], storageClasses: [gp3, io2] }));
    expect(s).toMatchObject({ code: 'UnschedulableAndUnresolvable', reasons: [REASON_UNBOUND_IMMEDIATE] });
    expect(REASON_UNBOUND_IMMEDIATE).toBe('pod has unbound immediate PersistentVolumeClaims');
    expect(s.details).toEqual(['claim data-db-0 is Pending with Immediate binding (class io2)']);
  });

  it('treats a claim whose class does not exist as Immediate', () => {
    const orphan = pvc('data-db-0').withStorageClass('missing-class').build();
    expect(volumeBindingPreFilter(podWithData, view({ pvcs: [orphan] })).reasons).toEqual([
      REASON_UNBOUND_IMMEDIATE,
    ]);
  });

  it('treats a pre-bound claim (volumeName set, binding not complete) as Immediate', () => {
    const prebound = pvc('data-db-0').preBoundTo('pvc-7a1e').build();
    expect(volumeBindingPreFilter(podWithData, view({ pvcs: [prebound], pvs: [pvInA] })).reasons).toEqual([
      REASON_UNBOUND_IMMEDIATE,
    ]);
  });

  it('uses the default class for a claim without a class', () => {
    const classless = pvc('data-db-0').withStorageClass(null).build();
    expect(volumeBindingPreFilter(podWithData, view({ pvcs: [classless] })).code).toBe('Success');
  });
});

describe('VolumeBinding Filter', () => {
  it('passes a bound claim whose PV is in the node zone', () => {
    const v = view({ pvcs: [bound], pvs: [pvInA] });
    expect(volumeBinding(podWithData, nodeInfoFor(nodeA, []), v).code).toBe('Success');
  });

  it('rejects a node outside the bound PV’s node affinity', () => {
    const v = view({ pvcs: [bound], pvs: [pvInA] });
    const s = volumeBinding(podWithData, nodeInfoFor(nodeB, []), v);
    expect(s).toMatchObject({
      code: 'UnschedulableAndUnresolvable',
      reasons: [REASON_VOLUME_NODE_AFFINITY_CONFLICT],
    });
    expect(REASON_VOLUME_NODE_AFFINITY_CONFLICT).toBe('node(s) had volume node affinity conflict');
    expect(s.details).toEqual([
      'claim data-db-0 is bound to PersistentVolume pvc-7a1e; on node ip-10-0-2-45.ec2.internal: PV node affinity term 1/1: topology.kubernetes.io/zone In [us-east-1a] (node has topology.kubernetes.io/zone=us-east-1b)',
    ]);
  });

  it('rejects every node when the bound PV does not exist', () => {
    const s = volumeBinding(podWithData, nodeInfoFor(nodeA, []), view({ pvcs: [bound], pvs: [] }));
    expect(s.reasons).toEqual([REASON_PV_NOT_EXIST]);
    expect(REASON_PV_NOT_EXIST).toBe(
      'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)',
    );
  });

  it('passes an unbound WaitForFirstConsumer claim when the class can provision anywhere', () => {
    const waiting = pvc('data-db-0').build();
    expect(volumeBinding(podWithData, nodeInfoFor(nodeB, []), view({ pvcs: [waiting] })).code).toBe(
      'Success',
    );
  });

  it('rejects a node outside the class allowedTopologies', () => {
    const zonal = storageClass('gp3-a')
      .withAllowedTopologies('topology.kubernetes.io/zone', ['us-east-1a'])
      .build();
    const waiting = pvc('data-db-0').withStorageClass('gp3-a').build();
    const v = view({ pvcs: [waiting], storageClasses: [gp3, zonal] });
    expect(volumeBinding(podWithData, nodeInfoFor(nodeA, []), v).code).toBe('Success');
    const s = volumeBinding(podWithData, nodeInfoFor(nodeB, []), v);
    expect(s.reasons).toEqual([REASON_VOLUME_BIND_CONFLICT]);
    expect(REASON_VOLUME_BIND_CONFLICT).toBe("node(s) didn't find available persistent volumes to bind");
    expect(s.details).toEqual([
      'claim data-db-0: StorageClass gp3-a allows only topology.kubernetes.io/zone in [us-east-1a]; node ip-10-0-2-45.ec2.internal does not match',
    ]);
  });

  it('binds a local claim only to an Available PV on the node', () => {
    const local = storageClass('local-storage').withProvisioner('kubernetes.io/no-provisioner').build();
    const waiting = pvc('data-db-0').withStorageClass('local-storage').requesting('100Gi').build();
    const disk = pv('local-pv-1a')
      .withStorageClass('local-storage')
      .withCapacity('200Gi')
      .withNodeAffinity(term('kubernetes.io/hostname', 'In', ['ip-10-0-1-23.ec2.internal']))
      .build();
    const v = view({ pvcs: [waiting], pvs: [disk], storageClasses: [gp3, local] });
    expect(volumeBinding(podWithData, nodeInfoFor(nodeA, []), v).code).toBe('Success');
    expect(volumeBinding(podWithData, nodeInfoFor(nodeB, []), v).reasons).toEqual([
      REASON_VOLUME_BIND_CONFLICT,
    ]);
  });

  it('does not bind a claim to a PV that is too small, of another class, or already claimed', () => {
    const local = storageClass('local-storage').withProvisioner('kubernetes.io/no-provisioner').build();
    const waiting = pvc('data-db-0').withStorageClass('local-storage').requesting('100Gi').build();
    const small = pv('small').withStorageClass('local-storage').withCapacity('50Gi').build();
    const otherClass = pv('other').withStorageClass('gp3').withCapacity('500Gi').build();
    const taken = pv('taken')
      .withStorageClass('local-storage')
      .withCapacity('500Gi')
      .boundTo('default/other-claim')
      .build();
    const v = view({ pvcs: [waiting], pvs: [small, otherClass, taken], storageClasses: [gp3, local] });
    expect(volumeBinding(podWithData, nodeInfoFor(nodeA, []), v).reasons).toEqual([
      REASON_VOLUME_BIND_CONFLICT,
    ]);
  });

  it('reports both a bound conflict and an unbound conflict for one pod', () => {
    const local = storageClass('local-storage').withProvisioner('kubernetes.io/no-provisioner').build();
    const p = pod('db-0').withPvc('data-db-0').withPvc('scratch-db-0').build();
    const scratch = pvc('scratch-db-0').withStorageClass('local-storage').build();
    const v = view({ pvcs: [bound, scratch], pvs: [pvInA], storageClasses: [gp3, local] });
    expect(volumeBinding(p, nodeInfoFor(nodeB, []), v).reasons).toEqual([
      REASON_VOLUME_NODE_AFFINITY_CONFLICT,
      REASON_VOLUME_BIND_CONFLICT,
    ]);
  });
});

describe('VolumeBinding without the data it needs', () => {
  it('is not evaluated when PVCs were not gathered', () => {
    const s = volumeBinding(podWithData, nodeInfoFor(nodeA, []), view({}, { pvcs: false }));
    expect(s.code).toBe('NotEvaluated');
    expect(s.details).toEqual(['PersistentVolumeClaims were not gathered; the pod uses claim(s) data-db-0']);
  });

  it('is not evaluated when PVs were not gathered for a bound claim', () => {
    const s = volumeBinding(podWithData, nodeInfoFor(nodeA, []), view({ pvcs: [bound] }, { pvs: false }));
    expect(s.code).toBe('NotEvaluated');
    expect(s.details?.[0]).toContain('PersistentVolumes were not gathered');
  });

  it('is not evaluated when StorageClasses were not gathered for an unbound claim', () => {
    const s = volumeBinding(
      podWithData,
      nodeInfoFor(nodeA, []),
      view({ pvcs: [pvc('data-db-0').build()] }, { storageClasses: false }),
    );
    expect(s.code).toBe('NotEvaluated');
    expect(s.details?.[0]).toContain('StorageClasses were not gathered');
  });
});
