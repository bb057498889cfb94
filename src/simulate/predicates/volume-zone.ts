/**
 * kube-scheduler VolumeZone Filter (pkg/scheduler/framework/plugins/volumezone/volume_zone.go): a bound PV's zone
 * and region labels (GA or beta keys; values may be "a__b" zone sets) must include the node's value. A node with
 * none of those labels passes (single-zone clusters). Unbound claims are skipped here: VolumeBinding, which runs
 * first, already rejects unbound Immediate claims, and WaitForFirstConsumer claims are skipped upstream too.
 */
import type { Pod } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { failure, notEvaluated, success } from './status.js';
import { isClaimBound, pvcKey, pvcNotFoundReason } from './volume-binding.js';

export const VOLUME_ZONE = 'VolumeZone';
export const REASON_VOLUME_ZONE_CONFLICT = 'node(s) had no available volume zone';

const TOPOLOGY_LABELS = [
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
];

const GA_LABEL: Record<string, string> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
};

/** volumehelpers.LabelZonesToSet: "a__b" -> {a, b}; undefined when a member is blank (the label is then ignored). */
export function labelZonesToSet(value: string): Set<string> | undefined {
  const out = new Set<string>();
  for (const part of value.split('__')) {
    const z = part.trim();
    if (z === '') return undefined;
    out.add(z);
  }
  return out;
}

export function volumeZone(pod: Pod, nodeInfo: NodeInfo, view: ClusterView): FilterStatus {
  const claims = (pod.spec.volumes ?? []).filter((v) => v.persistentVolumeClaim);
  if (claims.length === 0) return success(VOLUME_ZONE);
  const missing = [!view.has.pvcs && 'PersistentVolumeClaims', !view.has.pvs && 'PersistentVolumes'].filter(
    Boolean,
  );
  if (missing.length > 0) {
    return notEvaluated(VOLUME_ZONE, [
      `${missing.join(' and ')} were not gathered; cannot compare volume zones`,
    ]);
  }
  const nodeLabels = nodeInfo.node.metadata.labels ?? {};
  if (!TOPOLOGY_LABELS.some((k) => Object.hasOwn(nodeLabels, k))) return success(VOLUME_ZONE);
  for (const v of claims) {
    const claimName = v.persistentVolumeClaim!.claimName;
    const pvc = view.pvcs.get(pvcKey(pod.metadata.namespace, claimName));
    if (!pvc) return failure(VOLUME_ZONE, 'UnschedulableAndUnresolvable', [pvcNotFoundReason(claimName)]);
    if (!isClaimBound(pvc)) continue;
    const pvName = pvc.spec!.volumeName!;
    const pv = view.pvs.get(pvName);
    if (!pv) {
      return failure(VOLUME_ZONE, 'UnschedulableAndUnresolvable', [`persistentvolume "${pvName}" not found`]);
    }
    const pvLabels = pv.metadata.labels ?? {};
    for (const key of TOPOLOGY_LABELS) {
      if (!Object.hasOwn(pvLabels, key)) continue;
      const values = labelZonesToSet(pvLabels[key]);
      if (!values) continue;
      let nodeValue = nodeLabels[key];
      if (!Object.hasOwn(nodeLabels, key) && GA_LABEL[key]) nodeValue = nodeLabels[GA_LABEL[key]];
      if (nodeValue === undefined || !values.has(nodeValue)) {
        return failure(
          VOLUME_ZONE,
          'UnschedulableAndUnresolvable',
          [REASON_VOLUME_ZONE_CONFLICT],
          [
            `claim ${claimName} uses PersistentVolume ${pvName} with ${key}=${pvLabels[key]}; node ${nodeInfo.node.metadata.name} has ${nodeValue === undefined ? `no ${key} label` : `${GA_LABEL[key] && !Object.hasOwn(nodeLabels, key) ? GA_LABEL[key] : key}=${nodeValue}`}`,
          ],
        );
      }
    }
  }
  return success(VOLUME_ZONE);
}
