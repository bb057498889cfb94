import type { CaConfig } from '../model/ca-config.js';
import type { Node } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';

/** The 15m CA used before --max-node-startup-time existed (clusterstate.go MaxNodeStartupTime), and the flag's default. */
const DEFAULT_MAX_NODE_STARTUP_MS = 15 * 60_000;

/** The startup time CA applies: the flag from 1.35 (AWS ASG tags cannot override it), the 15m constant before. */
export function maxNodeStartupTimeMs(config: Pick<CaConfig, 'flags'>): number {
  const f = config.flags.maxNodeStartupTime;
  return f.supported ? f.value : DEFAULT_MAX_NODE_STARTUP_MS;
}

/** CA's readiness bucket for a registered node (clusterstate.go updateReadinessStats). */
export type NodeReadinessState = 'ready' | 'notStarted' | 'unready' | 'suspended';

/** CA: utils/kubernetes/ready.go GetNodeReadiness — Ready=True, no DiskPressure / NetworkUnavailable, no not-ready taint. */
export function isNodeReadyForCa(node: Node): boolean {
  let ready = true;
  let found = false;
  for (const c of node.status?.conditions ?? []) {
    if (c.type === 'Ready') {
      found = true;
      if (c.status !== 'True') ready = false;
    } else if ((c.type === 'DiskPressure' || c.type === 'NetworkUnavailable') && c.status === 'True') ready = false;
  }
  const notReadyTaints = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/disk-pressure', 'node.kubernetes.io/network-unavailable'];
  if ((node.spec?.taints ?? []).some((t) => notReadyTaints.includes(t.key))) ready = false;
  return found && ready;
}

/**
 * Which bucket CA puts a registered node in: a not-Ready node younger than the max node startup time is NotStarted (an
 * upcoming node CA keeps waiting for), an older one is Unready. CA: clusterstate/clusterstate.go updateReadinessStats.
 */
export function nodeReadinessState(node: Node, now: Date, startupMs: number): NodeReadinessState {
  const suspended = node.status?.conditions?.find((c) => c.type === 'Suspended');
  if (suspended?.status === 'True') return 'suspended';
  if (isNodeReadyForCa(node)) return 'ready';
  const created = Date.parse(node.metadata.creationTimestamp ?? '');
  // Go's zero time for a missing timestamp makes the node Unready at once
  if (Number.isFinite(created) && created + startupMs > now.getTime()) return 'notStarted';
  return 'unready';
}

export interface GroupReadiness {
  ready: number;
  notStarted: number;
  unready: number;
  suspended: number;
  /** The startup time used (ms) and whether it came from --max-node-startup-time (1.35+) or CA's fixed 15m. */
  maxNodeStartupMs: number;
  fromFlag: boolean;
  /** Names of the nodes counted Unready (not Ready for longer than the startup time). */
  unreadyNodes: string[];
  notStartedNodes: string[];
}

/** The group's registered nodes bucketed as CA's cluster state registry does. */
export function groupReadiness(group: NodeGroup, now: Date, config: Pick<CaConfig, 'flags'>): GroupReadiness {
  const startupMs = maxNodeStartupTimeMs(config);
  const out: GroupReadiness = {
    ready: 0,
    notStarted: 0,
    unready: 0,
    suspended: 0,
    maxNodeStartupMs: startupMs,
    fromFlag: config.flags.maxNodeStartupTime.supported,
    unreadyNodes: [],
    notStartedNodes: [],
  };
  for (const node of group.nodes) {
    const state = nodeReadinessState(node, now, startupMs);
    out[state]++;
    if (state === 'unready') out.unreadyNodes.push(node.metadata.name ?? '');
    if (state === 'notStarted') out.notStartedNodes.push(node.metadata.name ?? '');
  }
  return out;
}
