// The DaemonSet pods Karpenter adds to a new node and whether they run on a template (scheduler.go getDaemonSetPods,
// isDaemonPodCompatible). Pure.
import type { Pod, Taint } from '../../../model/k8s.js';
import type { KarpenterInstanceType } from './instance-types.js';
import { type KRequirements, compatible, intersects, podRequirements, requiredTermCount } from './requirements.js';
import type { KarpenterPlacementContext } from './placement-types.js';
import { untoleratedTaints } from './util.js';

const daemonPodsByCtx = new WeakMap<KarpenterPlacementContext, Array<{ name: string; pod: Pod }>>();

/** The DaemonSet pods Karpenter adds to a new node, once per context (every Pending pod reads them). */
export function daemonPods(ctx: KarpenterPlacementContext): Array<{ name: string; pod: Pod }> {
  const hit = daemonPodsByCtx.get(ctx);
  if (hit) return hit;
  // the first pod of each DaemonSet (namespace/name), in pod order: one pass over the pods, not one per DaemonSet
  const firstLive = new Map<string, Pod>();
  for (const p of ctx.pods ?? []) {
    for (const o of p.metadata.ownerReferences ?? []) {
      if (o.kind !== 'DaemonSet') continue;
      const k = `${p.metadata.namespace ?? 'default'}/${o.name}`;
      if (!firstLive.has(k)) firstLive.set(k, p);
    }
  }
  const out: Array<{ name: string; pod: Pod }> = [];
  for (const ds of ctx.daemonSets) {
    const name = `${ds.metadata.namespace ?? 'default'}/${ds.metadata.name ?? ''}`;
    // provisioner.go getDaemonSetPods: a running pod of the DaemonSet when the cluster has one, else the template
    const live = firstLive.get(`${ds.metadata.namespace ?? 'default'}/${ds.metadata.name}`);
    const spec = live?.spec ?? ds.spec?.template?.spec;
    if (!spec) continue;
    const pod: Pod = { metadata: { name: ds.metadata.name, namespace: ds.metadata.namespace }, spec: { ...spec } };
    // daemonset.go PodForDaemonSet merges limits into requests; podRequests does the same for a missing request
    const dsAffinity = ds.spec?.template?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (live && dsAffinity) pod.spec.affinity = { ...(pod.spec.affinity ?? {}), nodeAffinity: { ...(pod.spec.affinity?.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: dsAffinity } };
    out.push({ name, pod });
  }
  daemonPodsByCtx.set(ctx, out);
  return out;
}

/** scheduler.go isDaemonPodCompatible: template taints tolerated, template requirements compatible, the type intersects. */
export function daemonCompatible(templateReqs: KRequirements, taints: Taint[], it: KarpenterInstanceType | undefined, pod: Pod): boolean {
  if (untoleratedTaints(taints, pod.spec.tolerations, true).length > 0) return false;
  for (let i = 0; i < requiredTermCount(pod); i++) {
    const reqs = podRequirements(pod, i);
    // it undefined: before v1.14 the overhead is one per template, whatever the instance type (scheduler.go:698-738@v1.6.2)
    if (compatible(templateReqs, reqs) === undefined && (!it || intersects(it.requirements, reqs).length === 0)) return true;
  }
  return false;
}
