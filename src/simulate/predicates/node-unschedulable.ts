/** kube-scheduler NodeUnschedulable Filter (pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go). */
import type { Pod } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { failure, success } from './status.js';
import { tolerationsTolerateTaint } from './taint-toleration.js';

export const NODE_UNSCHEDULABLE = 'NodeUnschedulable';
export const REASON_NODE_UNSCHEDULABLE = 'node(s) were unschedulable';

export function nodeUnschedulable(pod: Pod, nodeInfo: NodeInfo, _view?: ClusterView): FilterStatus {
  if (!nodeInfo.node.spec?.unschedulable) return success(NODE_UNSCHEDULABLE);
  // A pod tolerating the unschedulable taint also tolerates spec.unschedulable
  const tolerates = tolerationsTolerateTaint(pod.spec.tolerations, {
    key: 'node.kubernetes.io/unschedulable',
    effect: 'NoSchedule',
  });
  if (tolerates) return success(NODE_UNSCHEDULABLE);
  return failure(
    NODE_UNSCHEDULABLE,
    'UnschedulableAndUnresolvable',
    [REASON_NODE_UNSCHEDULABLE],
    [`node ${nodeInfo.node.metadata.name} is cordoned (spec.unschedulable: true)`],
  );
}
