/**
 * CA: simulator/drainability/rules/replicated/rule.go — a pod without a controller blocks; with
 * --skip-nodes-with-custom-controller-pods=true (default) so does one whose controller is not a
 * ReplicationController, Job, ReplicaSet or StatefulSet (e.g. an operator's CRD).
 */
import type { Pod } from '../../model/k8s.js';
import { controllerRef } from './pod-util.js';
import { blocked, type DrainContext, type DrainStatus, UNDEFINED } from './types.js';

export const REPLICATED = 'Replicated';

const REPLICATED_KINDS = new Set(['ReplicationController', 'Job', 'ReplicaSet', 'StatefulSet']);

export function replicated(ctx: DrainContext, pod: Pod): DrainStatus {
  const ref = controllerRef(pod);
  let isReplicated = ref !== undefined;
  if (ctx.options.skipNodesWithCustomControllerPods) isReplicated = isReplicated && REPLICATED_KINDS.has(ref!.kind);
  if (isReplicated) return UNDEFINED;
  return blocked('NotReplicated', `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''} is not replicated`);
}
