// The registry of checks, sorted by id. A test keeps it equal to the files in this folder and to docs/checks/.
import caConfigInvalid from './ca-config-invalid.js';
import caDeploymentNotFound from './ca-deployment-not-found.js';
import caEventDisagrees from './ca-event-disagrees.js';
import caStatusStale from './ca-status-stale.js';
import clusterScaleUpLimit from './cluster-scale-up-limit.js';
import type { Check } from './define-check.js';
import nodeGroupBackoff from './node-group-backoff.js';
import nodeGroupInstanceNotRegistered from './node-group-instance-not-registered.js';
import nodeGroupLaunchSuspended from './node-group-launch-suspended.js';
import nodeGroupMaxSizeReached from './node-group-max-size-reached.js';
import nodeGroupNoTemplate from './node-group-no-template.js';
import nodeGroupNotDiscovered from './node-group-not-discovered.js';
import nodeGroupUnhealthy from './node-group-unhealthy.js';
import podFitsExistingNode from './pod-fits-existing-node.js';
import podIgnoredByCa from './pod-ignored-by-ca.js';
import podInsufficientResources from './pod-insufficient-resources.js';
import podNodeSelectorMismatch from './pod-node-selector-mismatch.js';
import podPredicateNotEvaluated from './pod-predicate-not-evaluated.js';
import podSchedulingConstraint from './pod-scheduling-constraint.js';
import podUntoleratedTaint from './pod-untolerated-taint.js';
import podVolumeZoneConflict from './pod-volume-zone-conflict.js';

export const CHECKS: readonly Check[] = [
  caConfigInvalid,
  caDeploymentNotFound,
  caEventDisagrees,
  caStatusStale,
  clusterScaleUpLimit,
  nodeGroupBackoff,
  nodeGroupInstanceNotRegistered,
  nodeGroupLaunchSuspended,
  nodeGroupMaxSizeReached,
  nodeGroupNoTemplate,
  nodeGroupNotDiscovered,
  nodeGroupUnhealthy,
  podFitsExistingNode,
  podIgnoredByCa,
  podInsufficientResources,
  podNodeSelectorMismatch,
  podPredicateNotEvaluated,
  podSchedulingConstraint,
  podUntoleratedTaint,
  podVolumeZoneConflict,
] as Check[];

export function findCheck(id: string): Check | undefined {
  return CHECKS.find((c) => c.meta.id === id);
}
