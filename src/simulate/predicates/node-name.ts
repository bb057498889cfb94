/** kube-scheduler NodeName Filter (pkg/scheduler/framework/plugins/nodename/node_name.go). */
import type { Pod } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { failure, success } from './status.js';

export const NODE_NAME = 'NodeName';
export const REASON_NODE_NAME = "node(s) didn't match the requested node name";

export function nodeName(pod: Pod, nodeInfo: NodeInfo, _view?: ClusterView): FilterStatus {
  const wanted = pod.spec.nodeName;
  if (!wanted || wanted === nodeInfo.node.metadata.name) return success(NODE_NAME);
  return failure(
    NODE_NAME,
    'UnschedulableAndUnresolvable',
    [REASON_NODE_NAME],
    [`pod requests node ${wanted}, this is ${nodeInfo.node.metadata.name}`],
  );
}
