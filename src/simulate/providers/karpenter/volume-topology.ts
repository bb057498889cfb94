// The zones a pod's volumes allow (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/volumetopology.go). Pure.
import type { Pod } from '../../../model/k8s.js';
import { type KRequirements, addRequirement, copyRequirements, intersects, requirementsFrom } from './requirements.js';
import { karpenterHas } from './versions.js';
import type { KarpenterPlacementContext } from './placement-types.js';

/** volumetopology.go GetRequirements: one alternative list per claim (PV node affinity terms, else StorageClass topologies). */
export function volumeAlternatives(pod: Pod, ctx: KarpenterPlacementContext): { alternatives: KRequirements[]; notes: string[] } {
  // before v1.13 only the first PV node-affinity term and the first StorageClass topology term count (volumetopology.go:116-121,137-139@v1.6.2)
  const firstOnly = !karpenterHas(ctx.settings?.version, 'volume-alternatives');
  let alternatives: KRequirements[] = [new Map()];
  const notes: string[] = [];
  for (const vol of pod.spec.volumes ?? []) {
    const claim = vol.persistentVolumeClaim?.claimName;
    if (!claim) continue;
    const ns = pod.metadata.namespace ?? 'default';
    const pvc = (ctx.pvcs ?? []).find((p) => p.metadata.name === claim && (p.metadata.namespace ?? 'default') === ns);
    if (!pvc) continue;
    let volAlts: KRequirements[] = [];
    if (pvc.spec?.volumeName) {
      const pv = (ctx.pvs ?? []).find((p) => p.metadata.name === pvc.spec?.volumeName);
      if (!pv) {
        notes.push(`PersistentVolume ${pvc.spec.volumeName} of claim ${claim} is not in the snapshot: its zone is not checked`);
        continue;
      }
      for (const term of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
        const exprs = (term.matchExpressions ?? []).filter((e) => !((pv.spec?.local || pv.spec?.hostPath) && e.key === 'kubernetes.io/hostname'));
        volAlts.push(requirementsFrom(exprs));
        if (firstOnly) break;
      }
    } else if (pvc.spec?.storageClassName) {
      const sc = (ctx.storageClasses ?? []).find((s) => s.metadata.name === pvc.spec?.storageClassName);
      for (const t of sc?.allowedTopologies ?? []) {
        const exprs = (t.matchLabelExpressions ?? []).map((e) => ({ key: e.key, operator: 'In', values: e.values }));
        if (exprs.length > 0) volAlts.push(requirementsFrom(exprs));
        if (firstOnly && exprs.length > 0) break;
      }
    }
    volAlts = volAlts.filter((a) => a.size > 0 || volAlts.length === 1);
    if (volAlts.length === 0) continue;
    // volumetopology.go mergeVolumeRequirementAlternatives: cross product of compatible alternatives
    const merged: KRequirements[] = [];
    for (const a of alternatives) {
      for (const v of volAlts) {
        if (intersects(a, v).length > 0) continue;
        const m = copyRequirements(a);
        for (const r of v.values()) addRequirement(m, r);
        merged.push(m);
      }
    }
    alternatives = merged.length > 0 ? merged : volAlts;
  }
  return { alternatives: alternatives.filter((a) => a.size > 0), notes };
}
