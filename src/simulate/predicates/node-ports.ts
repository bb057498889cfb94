/**
 * kube-scheduler NodePorts Filter (pkg/scheduler/framework/plugins/nodeports/node_ports.go, HostPortInfo in
 * framework/types.go): a wanted host port conflicts with a used one on the same protocol when either side binds
 * 0.0.0.0 or both bind the same IP. Ports come from containers and sidecars (scheduler util GetHostPorts).
 */
import type { ContainerPort, Pod } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { failure, podKey, success } from './status.js';

export const NODE_PORTS = 'NodePorts';
export const REASON_NODE_PORTS = "node(s) didn't have free ports for the requested pod ports";

const BIND_ALL = '0.0.0.0';

export interface HostPort {
  protocol: string;
  hostIP: string;
  port: number;
}

/**
 * Host ports a pod uses, sanitized (empty protocol = TCP, empty hostIP = 0.0.0.0). hostNetwork pods default
 * hostPort to containerPort, as the API server does for manifests that never went through it.
 */
export function podHostPorts(pod: Pod): HostPort[] {
  const containers = [
    ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'),
    ...(pod.spec.containers ?? []),
  ];
  const out: HostPort[] = [];
  for (const c of containers) {
    for (const p of c.ports ?? []) {
      const port = effectiveHostPort(p, pod.spec.hostNetwork === true);
      if (port <= 0) continue;
      out.push({ protocol: p.protocol || 'TCP', hostIP: p.hostIP || BIND_ALL, port });
    }
  }
  return out;
}

function effectiveHostPort(p: ContainerPort, hostNetwork: boolean): number {
  if (p.hostPort && p.hostPort > 0) return p.hostPort;
  return hostNetwork ? p.containerPort : 0;
}

interface UsedPorts {
  pods: Pod[];
  count: number;
  ports: Array<HostPort & { pod: string }>;
}

const usedCache = new WeakMap<NodeInfo, UsedPorts>();

function usedPorts(nodeInfo: NodeInfo): UsedPorts['ports'] {
  const cached = usedCache.get(nodeInfo);
  if (cached && cached.pods === nodeInfo.pods && cached.count === nodeInfo.pods.length) return cached.ports;
  const ports: UsedPorts['ports'] = [];
  for (const p of nodeInfo.pods) for (const hp of podHostPorts(p)) ports.push({ ...hp, pod: podKey(p) });
  usedCache.set(nodeInfo, { pods: nodeInfo.pods, count: nodeInfo.pods.length, ports });
  return ports;
}

function conflicts(want: HostPort, used: HostPort): boolean {
  if (want.port !== used.port || want.protocol !== used.protocol) return false;
  return want.hostIP === BIND_ALL || used.hostIP === BIND_ALL || want.hostIP === used.hostIP;
}

export function nodePorts(pod: Pod, nodeInfo: NodeInfo, _view?: ClusterView): FilterStatus {
  const wanted = podHostPorts(pod);
  if (wanted.length === 0) return success(NODE_PORTS);
  const used = usedPorts(nodeInfo);
  for (const w of wanted) {
    const clash = used.find((u) => conflicts(w, u));
    if (clash) {
      return failure(
        NODE_PORTS,
        'Unschedulable',
        [REASON_NODE_PORTS],
        [
          `host port ${w.protocol} ${w.hostIP}:${w.port} conflicts with ${clash.protocol} ${clash.hostIP}:${clash.port} of pod ${clash.pod} on node ${nodeInfo.node.metadata.name}`,
        ],
      );
    }
  }
  return success(NODE_PORTS);
}
