// Host ports a pod would clash on with the DaemonSets of a new node (scheduling/hostportusage.go). Pure.
import type { Pod } from '../../../model/k8s.js';

interface HostPort {
  ip: string;
  port: number;
  protocol: string;
}

/** scheduling/hostportusage.go GetHostPorts: the containers' hostPorts, hostIP defaulting to 0.0.0.0. */
function hostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort) continue;
      out.push({ ip: p.hostIP || '0.0.0.0', port: p.hostPort, protocol: p.protocol ?? 'TCP' });
    }
  }
  return out;
}

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** hostportusage.go Conflicts: the pod's first host port a DaemonSet already uses on the node (same protocol and port, overlapping IP). */
export function hostPortClash(pod: Pod, daemons: Array<{ name: string; pod: Pod }>): { error: string; port: HostPort; daemonSet: string } | undefined {
  const mine = hostPorts(pod);
  if (mine.length === 0) return undefined;
  for (const n of mine) {
    for (const d of daemons) {
      for (const e of hostPorts(d.pod)) {
        if (n.protocol !== e.protocol || n.port !== e.port) continue;
        if (n.ip !== e.ip && !UNSPECIFIED.has(n.ip) && !UNSPECIFIED.has(e.ip)) continue;
        return {
          error: `pod hostport conflicts with existing hostport configuration (pod-hostport-ip=${n.ip}, pod-hostport-port=${n.port}, pod-hostport-protocol=${n.protocol}, existing-hostport-ip=${e.ip}, existing-hostport-port=${e.port}, existing-hostport-protocol=${e.protocol})`,
          port: n,
          daemonSet: d.name,
        };
      }
    }
  }
  return undefined;
}
