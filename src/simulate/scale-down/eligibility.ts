// Scale-down stages 1-3: CA's pre-filter and eligibility, in CA's order, with the utilization of every autoscaled node
// (core/scaledown/eligibility/eligibility.go FilterOutUnremovable, simulator/utilization).
import type { CaConfig } from '../../model/ca-config.js';
import type { Node, Pod } from '../../model/k8s.js';
import type { NotAutoscaledNode } from '../../model/node-group.js';
import type { GroupScaleDownOptions, NodeUtilization } from '../../model/scale-down.js';
import { TO_BE_DELETED_TAINT } from '../template-node.js';
import { calculateUtilization, nodeGpuResource } from '../utilization.js';
import { pct, round4 } from './format.js';
import { beingDeleted } from './node-facts.js';
import type { Working } from './types.js';

export const SCALE_DOWN_DISABLED_ANNOTATION = 'cluster-autoscaler.kubernetes.io/scale-down-disabled';

/** Stage 1-3: pre-filter and eligibility, in CA's order; utilization for every autoscaled node. */
export function eligibility(
  work: Working[],
  { ca, now, notAutoscaled, groupOptions, defaults, podsOn, pendingNotes }: {
    ca: CaConfig;
    now: Date;
    notAutoscaled: Map<Node, NotAutoscaledNode>;
    groupOptions: Map<string, GroupScaleDownOptions>;
    defaults: GroupScaleDownOptions;
    podsOn: Map<string, Pod[]>;
    pendingNotes: Map<string, string[]>;
  },
): void {
  for (const w of work) {
    const { node, name } = w.entry;
    const na = notAutoscaled.get(node);
    const group = na ? undefined : w.entry.group;
    const report = w.entry.report;
    const pods = podsOn.get(name) ?? [];
    const opts = group ? (groupOptions.get(group.name) ?? defaults) : defaults;
    if (na || !group) {
      w.reason = 'NotAutoscaled';
      w.summary = na ? na.reason : 'the node belongs to no node group';
      if (na?.asgName) report.nodeGroup = na.asgName;
      continue;
    }
    for (const p of opts.problems) report.notes.push(p);
    report.notes.push(...(pendingNotes.get(name) ?? []));
    if (group.targetSize <= group.minSize) {
      w.reason = 'NodeGroupMinSizeReached';
      w.summary = `node group ${group.name} is at its min size (desired ${group.targetSize}, min ${group.minSize}${group.via === 'nodes-flag' ? ' from --nodes' : ''})`;
      continue;
    }
    if (beingDeleted(node, now)) {
      w.reason = 'CurrentlyBeingDeleted';
      w.summary = `CA is deleting the node (${TO_BE_DELETED_TAINT} taint)`;
      continue;
    }
    if (node.metadata.annotations?.[SCALE_DOWN_DISABLED_ANNOTATION] === 'true') {
      w.reason = 'ScaleDownDisabledAnnotation';
      w.summary = `annotation ${SCALE_DOWN_DISABLED_ANNOTATION}: "true"`;
      continue;
    }
    const u = calculateUtilization(node, pods, {
      ignoreDaemonSets: opts.ignoreDaemonSetsUtilization,
      ignoreMirrorPods: ca.flags.ignoreMirrorPodsUtilization.value,
      now,
    });
    const gpu = nodeGpuResource(node) !== undefined;
    const threshold = gpu ? opts.gpuThreshold : opts.threshold;
    const util: NodeUtilization = {
      cpu: round4(u.cpu),
      memory: round4(u.memory),
      ...(u.gpu !== undefined ? { gpu: round4(u.gpu) } : {}),
      value: round4(u.value),
      resource: u.resource,
      threshold,
      thresholdSource: gpu ? opts.gpuThresholdSource : opts.thresholdSource,
      ignoredDaemonSets: opts.ignoreDaemonSetsUtilization,
      ignoredMirrorPods: ca.flags.ignoreMirrorPodsUtilization.value,
    };
    report.utilization = util;
    if (u.unreadyGpu) report.notes.push(`${u.resource} is missing or 0 in allocatable: CA counts the GPU node as 0% utilized`);
    if (u.error) {
      w.reason = 'UnexpectedError';
      w.summary = `CA cannot compute utilization: ${u.error}`;
      continue;
    }
    if (!ca.flags.scaleDownUnreadyEnabled.value && !w.ready) {
      w.reason = 'ScaleDownUnreadyDisabled';
      w.summary = 'the node is not Ready and --scale-down-unready-enabled=false';
      continue;
    }
    // CA compares utilization > threshold since kubernetes/autoscaler#8975 (cherry-picked to 1.32+ patches);
    // older releases used >=, so equality was "not underutilized" there.
    const over = ca.version.minor <= 31 ? u.value >= threshold : u.value > threshold;
    if (over) {
      w.reason = 'NotUnderutilized';
      w.summary = `${u.resource} requested is ${pct(u.value)} of allocatable, above the ${pct(threshold)} threshold${util.thresholdSource === 'asg-tag' ? ' (ASG tag)' : util.thresholdSource === 'provider' ? " (the provider's autoscalingOptions)" : ''}`;
    }
  }
}
