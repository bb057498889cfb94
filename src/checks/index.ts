// The registry of checks, sorted by id. A test keeps it equal to the files in this folder and to docs/checks/.
import asgDiscoveredWithoutNodes from './asg-discovered-without-nodes.js';
import asgMaxSizePendingPods from './asg-max-size-pending-pods.js';
import asgMultiAzZonalVolumes from './asg-multi-az-zonal-volumes.js';
import asgNotDiscovered from './asg-not-discovered.js';
import asgProcessSuspended from './asg-process-suspended.js';
import asgScalingActivityFailed from './asg-scaling-activity-failed.js';
import balanceSimilarGroupsDiffer from './balance-similar-groups-differ.js';
import caConfigInvalid from './ca-config-invalid.js';
import caDeploymentNotFound from './ca-deployment-not-found.js';
import caEventDisagrees from './ca-event-disagrees.js';
import caGracefulDegradation from './ca-graceful-degradation.js';
import caLogDisagrees from './ca-log-disagrees.js';
import caLoopFailing from './ca-loop-failing.js';
import caLoopStalled from './ca-loop-stalled.js';
import caPodUnhealthy from './ca-pod-unhealthy.js';
import caPriorityConfigmapInvalid from './ca-priority-configmap-invalid.js';
import caProviderIdUnrecognized from './ca-provider-id-unrecognized.js';
import caScaleDownDisabled from './ca-scale-down-disabled.js';
import caStatusStale from './ca-status-stale.js';
import caVersionSkew from './ca-version-skew.js';
import capacityBufferNotProvisioning from './capacity-buffer-not-provisioning.js';
import clusterMinimumResourcesReached from './cluster-minimum-resources-reached.js';
import clusterScaleUpLimit from './cluster-scale-up-limit.js';
import type { Check } from './define-check.js';
import discoveryClusterNameMismatch from './discovery-cluster-name-mismatch.js';
import discoveryNodesFlagMixed from './discovery-nodes-flag-mixed.js';
import discoverySpecInvalid from './discovery-spec-invalid.js';
import discoverySpecsAnded from './discovery-specs-anded.js';
import externalgrpcAccountsKeyMisplaced from './externalgrpc-accounts-key-misplaced.js';
import externalgrpcAutoscalingOptionsPartial from './externalgrpc-autoscaling-options-partial.js';
import externalgrpcCaCannotRun from './externalgrpc-ca-cannot-run.js';
import externalgrpcConfigFileIgnored from './externalgrpc-config-file-ignored.js';
import externalgrpcCredentialsInConfigmap from './externalgrpc-credentials-in-configmap.js';
import externalgrpcDefaultGroupHoldsNodes from './externalgrpc-default-group-holds-nodes.js';
import externalgrpcFailedCreateHidden from './externalgrpc-failed-create-hidden.js';
import externalgrpcGroupCannotCreateInstances from './externalgrpc-group-cannot-create-instances.js';
import externalgrpcInstanceStuck from './externalgrpc-instance-stuck.js';
import externalgrpcNodeGroupMembershipDrift from './externalgrpc-node-group-membership-drift.js';
import externalgrpcNodeWithoutProviderId from './externalgrpc-node-without-provider-id.js';
import externalgrpcProtoVersionMismatch from './externalgrpc-proto-version-mismatch.js';
import externalgrpcStaleInProcess from './externalgrpc-stale-in-process.js';
import externalgrpcTemplateResourcesIgnored from './externalgrpc-template-resources-ignored.js';
import iamPermissionDenied from './iam-permission-denied.js';
import karpenterBudgetBlocksDisruption from './karpenter-budget-blocks-disruption.js';
import karpenterControllerUnhealthy from './karpenter-controller-unhealthy.js';
import karpenterCustomLabelUnknown from './karpenter-custom-label-unknown.js';
import karpenterLogDisagrees from './karpenter-log-disagrees.js';
import karpenterNodeDisruptionBlocked from './karpenter-node-disruption-blocked.js';
import karpenterNodeclaimNotRegistered from './karpenter-nodeclaim-not-registered.js';
import karpenterNodeclassNotReady from './karpenter-nodeclass-not-ready.js';
import karpenterNodepoolLimitsExhausted from './karpenter-nodepool-limits-exhausted.js';
import karpenterPodServedByBoth from './karpenter-pod-served-by-both.js';
import karpenterPodServedByNeither from './karpenter-pod-served-by-neither.js';
import karpenterPodUnplaceable from './karpenter-pod-unplaceable.js';
import launchTemplateDrift from './launch-template-drift.js';
import mixedInstancesAttributeBased from './mixed-instances-attribute-based.js';
import mixedInstancesShapeDiffers from './mixed-instances-shape-differs.js';
import mixedInstancesWeighted from './mixed-instances-weighted.js';
import nodeGroupBackoff from './node-group-backoff.js';
import nodeGroupInstanceNotRegistered from './node-group-instance-not-registered.js';
import nodeGroupLaunchSuspended from './node-group-launch-suspended.js';
import nodeGroupMaxSizeReached from './node-group-max-size-reached.js';
import nodeGroupMinSizeReached from './node-group-min-size-reached.js';
import nodeGroupNoTemplate from './node-group-no-template.js';
import nodeGroupNotDiscovered from './node-group-not-discovered.js';
import nodeGroupUnhealthy from './node-group-unhealthy.js';
import nodeNoPlaceToMovePods from './node-no-place-to-move-pods.js';
import nodeNotAutoscaled from './node-not-autoscaled.js';
import nodeScaleDownDisabled from './node-scale-down-disabled.js';
import nodeUnreadyScaleDownDisabled from './node-unready-scale-down-disabled.js';
import nodesFlagAsgMismatch from './nodes-flag-asg-mismatch.js';
import pdbAllowsNoDisruption from './pdb-allows-no-disruption.js';
import pdbBlocksScaleDown from './pdb-blocks-scale-down.js';
import pdbMatchesNothing from './pdb-matches-nothing.js';
import podConsumesProvisioningRequest from './pod-consumes-provisioning-request.js';
import podControllerNotFound from './pod-controller-not-found.js';
import podFitsExistingNode from './pod-fits-existing-node.js';
import podIgnoredByCa from './pod-ignored-by-ca.js';
import podInsufficientResources from './pod-insufficient-resources.js';
import podLocalStorage from './pod-local-storage.js';
import podMinReplicasReached from './pod-min-replicas-reached.js';
import podNodeSelectorMismatch from './pod-node-selector-mismatch.js';
import podNotReplicated from './pod-not-replicated.js';
import podNotSafeToEvict from './pod-not-safe-to-evict.js';
import podPredicateNotEvaluated from './pod-predicate-not-evaluated.js';
import podSchedulingConstraint from './pod-scheduling-constraint.js';
import podUnmovableKubeSystem from './pod-unmovable-kube-system.js';
import podUntoleratedTaint from './pod-untolerated-taint.js';
import podVolumeZoneConflict from './pod-volume-zone-conflict.js';
import priorityExpanderConfigInvalid from './priority-expander-config-invalid.js';
import provisioningRequestNotProvisioned from './provisioning-request-not-provisioned.js';
import scaleDownInCooldown from './scale-down-in-cooldown.js';
import storageClassImmediateBinding from './storage-class-immediate-binding.js';
import templateAllocatableOverstated from './template-allocatable-overstated.js';
import templateCapacityMismatch from './template-capacity-mismatch.js';
import templateDiffersFromCa from './template-differs-from-ca.js';
import templateEphemeralStorageMissing from './template-ephemeral-storage-missing.js';
import templateGpuMismatch from './template-gpu-mismatch.js';
import templateInstanceTypeUnknown from './template-instance-type-unknown.js';
import templateLabelMissing from './template-label-missing.js';
import templatePodsOverstated from './template-pods-overstated.js';
import templateTaintMismatch from './template-taint-mismatch.js';
import volumeImmediateBindingMultiAz from './volume-immediate-binding-multi-az.js';
import workloadBarePod from './workload-bare-pod.js';
import workloadCustomControllerOwner from './workload-custom-controller-owner.js';
import workloadExpendablePriority from './workload-expendable-priority.js';
import workloadFitsOnlyRealNodes from './workload-fits-only-real-nodes.js';
import workloadFitsTemplateNotRealNode from './workload-fits-template-not-real-node.js';
import workloadLocalStorageBlocksScaleDown from './workload-local-storage-blocks-scale-down.js';
import workloadMissingRequests from './workload-missing-requests.js';
import workloadNotSafeToEvict from './workload-not-safe-to-evict.js';
import workloadScaleUpDelayMisuse from './workload-scale-up-delay-misuse.js';
import workloadTopologySpreadExceedsZones from './workload-topology-spread-exceeds-zones.js';
import workloadUnplaceable from './workload-unplaceable.js';
import workloadZonalVolumeMultiAzGroup from './workload-zonal-volume-multi-az-group.js';

export const CHECKS: readonly Check[] = [
  asgDiscoveredWithoutNodes,
  asgMaxSizePendingPods,
  asgMultiAzZonalVolumes,
  asgNotDiscovered,
  asgProcessSuspended,
  asgScalingActivityFailed,
  balanceSimilarGroupsDiffer,
  caConfigInvalid,
  caDeploymentNotFound,
  caEventDisagrees,
  caGracefulDegradation,
  caLogDisagrees,
  caLoopFailing,
  caLoopStalled,
  caPodUnhealthy,
  caPriorityConfigmapInvalid,
  caProviderIdUnrecognized,
  caScaleDownDisabled,
  caStatusStale,
  caVersionSkew,
  capacityBufferNotProvisioning,
  clusterMinimumResourcesReached,
  clusterScaleUpLimit,
  discoveryClusterNameMismatch,
  discoveryNodesFlagMixed,
  discoverySpecInvalid,
  discoverySpecsAnded,
  externalgrpcAccountsKeyMisplaced,
  externalgrpcAutoscalingOptionsPartial,
  externalgrpcCaCannotRun,
  externalgrpcConfigFileIgnored,
  externalgrpcCredentialsInConfigmap,
  externalgrpcDefaultGroupHoldsNodes,
  externalgrpcFailedCreateHidden,
  externalgrpcGroupCannotCreateInstances,
  externalgrpcInstanceStuck,
  externalgrpcNodeGroupMembershipDrift,
  externalgrpcNodeWithoutProviderId,
  externalgrpcProtoVersionMismatch,
  externalgrpcStaleInProcess,
  externalgrpcTemplateResourcesIgnored,
  iamPermissionDenied,
  karpenterBudgetBlocksDisruption,
  karpenterControllerUnhealthy,
  karpenterCustomLabelUnknown,
  karpenterLogDisagrees,
  karpenterNodeDisruptionBlocked,
  karpenterNodeclaimNotRegistered,
  karpenterNodeclassNotReady,
  karpenterNodepoolLimitsExhausted,
  karpenterPodServedByBoth,
  karpenterPodServedByNeither,
  karpenterPodUnplaceable,
  launchTemplateDrift,
  mixedInstancesAttributeBased,
  mixedInstancesShapeDiffers,
  mixedInstancesWeighted,
  nodeGroupBackoff,
  nodeGroupInstanceNotRegistered,
  nodeGroupLaunchSuspended,
  nodeGroupMaxSizeReached,
  nodeGroupMinSizeReached,
  nodeGroupNoTemplate,
  nodeGroupNotDiscovered,
  nodeGroupUnhealthy,
  nodeNoPlaceToMovePods,
  nodeNotAutoscaled,
  nodeScaleDownDisabled,
  nodeUnreadyScaleDownDisabled,
  nodesFlagAsgMismatch,
  pdbAllowsNoDisruption,
  pdbBlocksScaleDown,
  pdbMatchesNothing,
  podConsumesProvisioningRequest,
  podControllerNotFound,
  podFitsExistingNode,
  podIgnoredByCa,
  podInsufficientResources,
  podLocalStorage,
  podMinReplicasReached,
  podNodeSelectorMismatch,
  podNotReplicated,
  podNotSafeToEvict,
  podPredicateNotEvaluated,
  podSchedulingConstraint,
  podUnmovableKubeSystem,
  podUntoleratedTaint,
  podVolumeZoneConflict,
  priorityExpanderConfigInvalid,
  provisioningRequestNotProvisioned,
  scaleDownInCooldown,
  storageClassImmediateBinding,
  templateAllocatableOverstated,
  templateCapacityMismatch,
  templateDiffersFromCa,
  templateEphemeralStorageMissing,
  templateGpuMismatch,
  templateInstanceTypeUnknown,
  templateLabelMissing,
  templatePodsOverstated,
  templateTaintMismatch,
  volumeImmediateBindingMultiAz,
  workloadBarePod,
  workloadCustomControllerOwner,
  workloadExpendablePriority,
  workloadFitsOnlyRealNodes,
  workloadFitsTemplateNotRealNode,
  workloadLocalStorageBlocksScaleDown,
  workloadMissingRequests,
  workloadNotSafeToEvict,
  workloadScaleUpDelayMisuse,
  workloadTopologySpreadExceedsZones,
  workloadUnplaceable,
  workloadZonalVolumeMultiAzGroup,
] as Check[];

export function findCheck(id: string): Check | undefined {
  return CHECKS.find((c) => c.meta.id === id);
}
