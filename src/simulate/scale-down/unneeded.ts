// Scale-down stage 5: unneeded nodes, empty ones first, then those that need a drain: the unneeded timer where the data
// bounds it, the group's min size and the cluster's resource minimums (core/scaledown/unneeded/nodes.go RemovableAt,
// resource/limits.go LimitsLeft).
import type { Node } from '../../model/k8s.js';
import { formatResource } from '../../model/quantity.js';
import type { GroupScaleDownOptions, NodeWait } from '../../model/scale-down.js';
import type { Analysis } from '../analysis.js';
import { parseResourceList } from '../resources.js';
import { DELETION_CANDIDATE_TAINT } from '../template-node.js';
import { minutes, ref } from './format.js';
import { beingDeleted, taintTime } from './node-facts.js';
import type { Working } from './types.js';

/** Stage 5: unneeded nodes (unneeded/nodes.go RemovableAt): empty nodes first, then those that need a drain. */
export function unneededNodes(
  a: Analysis,
  work: Working[],
  { groupOptions, defaults, caStart }: { groupOptions: Map<string, GroupScaleDownOptions>; defaults: GroupScaleDownOptions; caStart: Date | undefined },
): void {
  const now = a.now;
  const sizeLeft = new Map<string, number>();
  for (const g of a.nodeGroupsResult.nodeGroups) {
    const deleting = g.nodes.filter((n) => beingDeleted(n, now)).length;
    sizeLeft.set(g.name, g.targetSize - deleting);
  }
  const limits = limitsLeft(a, now);
  const removable = work.filter((w) => w.reason === undefined);
  const ordered = [...removable.filter((w) => w.podsToReschedule.length === 0), ...removable.filter((w) => w.podsToReschedule.length > 0)];
  for (const w of ordered) {
    const group = w.entry.group!;
    const opts = groupOptions.get(group.name) ?? defaults;
    const timer = unneededTimer(w, opts, caStart, now);
    if (timer?.certain) {
      w.reason = w.ready ? 'NotUnneededLongEnough' : 'NotUnreadyLongEnough';
      w.summary = timer.wait.detail;
      w.waits.push(timer.wait);
      continue;
    }
    if (timer) w.waits.push(timer.wait);
    const size = sizeLeft.get(group.name) ?? group.targetSize;
    if (size <= group.minSize) {
      w.reason = 'NodeGroupMinSizeReached';
      w.summary = `removing it would take ${group.name} below its min size ${group.minSize} (other nodes of the group go first)`;
      continue;
    }
    const delta = nodeCoresAndMemory(w.entry.node);
    const exceeded: string[] = [];
    if (limits.cores !== undefined && delta.cores > limits.cores) exceeded.push('cpu');
    if (limits.memory !== undefined && delta.memory > limits.memory) exceeded.push('memory');
    if (exceeded.length) {
      w.reason = 'MinimalResourceLimitExceeded';
      w.summary = `removing it would take the cluster below --${exceeded.map((r) => (r === 'cpu' ? 'cores' : 'memory')).join('/--')}-total minimum (${describeLimits(a, limits)})`;
      continue;
    }
    if (limits.cores !== undefined) limits.cores -= delta.cores;
    if (limits.memory !== undefined) limits.memory -= delta.memory;
    sizeLeft.set(group.name, size - 1);
    if (w.onCompletion.length) {
      w.reason = 'BlockedByOnCompletionPod';
      w.summary = `waits for ${w.onCompletion.map(ref).join(', ')} to finish (safe-to-evict: "on-completion")`;
      w.waits.push({ kind: 'on-completion', detail: w.summary });
    }
  }
}

/** The unneeded timer where the data bounds it: CA's in-memory timers restart with the CA pod; the soft taint dates marking. */
function unneededTimer(
  w: Working,
  opts: GroupScaleDownOptions,
  caStart: Date | undefined,
  now: Date,
): { certain: boolean; wait: NodeWait } | undefined {
  const needMs = w.ready ? opts.unneededTimeMs : opts.unreadyTimeMs;
  const flag = w.ready ? 'scale-down-unneeded-time' : 'scale-down-unready-time';
  const kind = w.ready ? 'unneeded-time' : 'unready-time';
  const marked = taintTime(w.entry.node, DELETION_CANDIDATE_TAINT);
  const candidates = [caStart, marked ?? undefined].filter((d): d is Date => d instanceof Date);
  if (candidates.length === 0) return undefined;
  const since = new Date(Math.max(...candidates.map((d) => d.getTime())));
  const left = since.getTime() + needMs - now.getTime();
  const src =
    marked instanceof Date && marked.getTime() === since.getTime()
      ? `marked ${DELETION_CANDIDATE_TAINT} at ${since.toISOString()}`
      : `CA (re)started at ${since.toISOString()} and keeps its timers in memory`;
  // CA deletes only when since + unneededTime is strictly before now (unneeded/nodes.go)
  if (left >= 0) {
    return {
      certain: true,
      wait: {
        kind,
        detail: `unneeded for less than --${flag}=${minutes(needMs)} (${src}): ${minutes(Math.max(left, 1))} left`,
        leftSeconds: Math.ceil(left / 1000),
      },
    };
  }
  return undefined;
}

/** core_utils.GetNodeCoresAndMemory: capacity, cores rounded up, memory in bytes. */
function nodeCoresAndMemory(node: Node): { cores: number; memory: number } {
  const cap = parseResourceList(node.status?.capacity);
  return { cores: Math.ceil((cap.cpu ?? 0) / 1000), memory: cap.memory ?? 0 };
}

/** resource/limits.go LimitsLeft: how much may still be removed above --cores-total / --memory-total minimums. */
function limitsLeft(a: Analysis, now: Date): { cores?: number; memory?: number; totalCores: number; totalMemory: number } {
  let totalCores = 0;
  let totalMemory = 0;
  for (const n of a.raw.nodes) {
    if (beingDeleted(n, now)) continue;
    const r = nodeCoresAndMemory(n);
    totalCores += r.cores;
    totalMemory += r.memory;
  }
  const minCores = a.ca.flags.coresTotal.value.min;
  const minMemory = a.ca.flags.memoryTotal.value.min * 1024 ** 3;
  return {
    ...(minCores > 0 ? { cores: Math.max(0, totalCores - minCores) } : {}),
    ...(minMemory > 0 ? { memory: Math.max(0, totalMemory - minMemory) } : {}),
    totalCores,
    totalMemory,
  };
}

function describeLimits(a: Analysis, l: { totalCores: number; totalMemory: number }): string {
  const c = a.ca.flags.coresTotal.value.min;
  const m = a.ca.flags.memoryTotal.value.min;
  return `cluster has ${l.totalCores} cores / ${formatResource('memory', l.totalMemory)}; minimums ${c} cores / ${m}Gi`;
}
