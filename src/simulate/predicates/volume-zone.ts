/**
 * kube-scheduler VolumeZone PreFilter + Filter (pkg/scheduler/framework/plugins/volumezone/volume_zone.go): a bound PV's
 * zone and region labels (GA or beta keys; values may be "a__b" zone sets) must include the node's value. A node with
 * none of those labels passes (single-zone clusters). The PreFilter (getPVbyPod) looks at every claim first, whatever
 * the node: a claim without spec.volumeName is skipped only when its StorageClass is WaitForFirstConsumer; otherwise
 * it fails ("PersistentVolume had no name", or the class is missing / unnamed), as do a missing claim or PV.
 */
import type { Pod } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { failure, memoByViewAndPod, notEvaluated, success } from './status.js';
import { claimClassName, pvcKey, pvcNotFoundReason } from './volume-binding.js';

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

interface PvTopology {
  claimName: string;
  pvName: string;
  key: string;
  raw: string;
  values: Set<string>;
}

/** getPVbyPod: the zone labels of every bound claim's PV, or the status that rejects the pod on every node. */
function pvTopologies(pod: Pod, view: ClusterView): PvTopology[] | FilterStatus {
  const out: PvTopology[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (!v.persistentVolumeClaim) continue;
    const claimName = v.persistentVolumeClaim.claimName;
    const fail = (reason: string) => failure(VOLUME_ZONE, 'UnschedulableAndUnresolvable', [reason]);
    if (!claimName) return fail('PersistentVolumeClaim had no name');
    const pvc = view.pvcs.get(pvcKey(pod.metadata.namespace, claimName));
    if (!pvc) return fail(pvcNotFoundReason(claimName));
    const pvName = pvc.spec?.volumeName ?? '';
    if (pvName === '') {
      if (!view.has.storageClasses) {
        return notEvaluated(VOLUME_ZONE, [
          `StorageClasses were not gathered; cannot tell whether unbound claim ${claimName} waits for a consumer`,
        ]);
      }
      // storagehelpers.GetPersistentVolumeClaimClass; an unset class reads as the default class, as the admission
      // plugin would have set it at creation (the same assumption VolumeBinding makes here)
      const scName = claimClassName(pvc, view.storageClasses);
      if (scName === '') return fail('PersistentVolumeClaim had no pv name and storageClass name');
      const sc = view.storageClasses.get(scName);
      if (!sc) return fail(`storageclass.storage.k8s.io "${scName}" not found`);
      // the API server defaults an unset volumeBindingMode to Immediate (manifests in preflight leave it unset)
      if (sc.volumeBindingMode === 'WaitForFirstConsumer') continue; // upstream: "Skip unbound volumes"
      return fail('PersistentVolume had no name');
    }
    const pv = view.pvs.get(pvName);
    if (!pv) return fail(`persistentvolume "${pvName}" not found`);
    const pvLabels = pv.metadata.labels ?? {};
    for (const key of TOPOLOGY_LABELS) {
      if (!Object.hasOwn(pvLabels, key)) continue;
      const values = labelZonesToSet(pvLabels[key]);
      if (!values) continue; // "Failed to parse label, ignoring the label"
      out.push({ claimName, pvName, key, raw: pvLabels[key], values });
    }
  }
  return out;
}

const cachedTopologies = memoByViewAndPod(pvTopologies);

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
  const topologies = cachedTopologies(pod, view);
  if (!Array.isArray(topologies)) return topologies;
  const nodeLabels = nodeInfo.node.metadata.labels ?? {};
  if (!TOPOLOGY_LABELS.some((k) => Object.hasOwn(nodeLabels, k))) return success(VOLUME_ZONE);
  for (const t of topologies) {
    let nodeValue = nodeLabels[t.key];
    if (!Object.hasOwn(nodeLabels, t.key) && GA_LABEL[t.key]) nodeValue = nodeLabels[GA_LABEL[t.key]];
    if (nodeValue === undefined || !t.values.has(nodeValue)) {
      return failure(
        VOLUME_ZONE,
        'UnschedulableAndUnresolvable',
        [REASON_VOLUME_ZONE_CONFLICT],
        [
          `claim ${t.claimName} uses PersistentVolume ${t.pvName} with ${t.key}=${t.raw}; node ${nodeInfo.node.metadata.name} has ${nodeValue === undefined ? `no ${t.key} label` : `${GA_LABEL[t.key] && !Object.hasOwn(nodeLabels, t.key) ? GA_LABEL[t.key] : t.key}=${nodeValue}`}`,
        ],
      );
    }
  }
  return success(VOLUME_ZONE);
}
