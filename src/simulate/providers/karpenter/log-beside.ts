/**
 * Karpenter's own log beside casdoctor's verdicts: from the parsed summaries (log/parser.ts, one per file or pod), the
 * latest line Karpenter wrote about each pod and each node or NodeClaim, and the leader election each pod logged.
 * Pure and bounded: the summaries are bounded already; this keeps one line per pod and per node.
 */
import type { KarpenterLogRecord, KarpenterLogSummary } from '../../../model/karpenter-log.js';

/** One line Karpenter logged, as a reader sees it beside a verdict. */
export interface KarpenterLogged {
  /** Epoch ms of the line. */
  time: number;
  kind: KarpenterLogRecord['kind'];
  /** Karpenter's message with its values, one line ("could not schedule pod: incompatible with nodepool …"). */
  text: string;
  /** Disruption: reason (underutilized, empty, drifted, expired …) and decision (delete, replace). */
  reason?: string;
  decision?: string;
  /** Where it was read: a file path or "pod ns/name", and its line. */
  where: string;
  line: number;
}

export interface KarpenterLeaderState {
  /** The log it was read from ("pod kube-system/karpenter-5d…", or a file). */
  where: string;
  /** The last leader-election line of that log: holds the lease, waits for it, or lost it. */
  state: 'leader' | 'waiting' | 'lost';
  at: number;
  lease?: string;
  text: string;
}

export interface KarpenterLogIndex {
  /** Where each summary came from, in input order. */
  sources: string[];
  from?: number;
  to?: number;
  /** namespace/name -> the latest line naming the pod (could not schedule it, or found it provisionable). */
  pods: Map<string, KarpenterLogged>;
  /** Node name or NodeClaim name -> the latest line about it (disrupting, timeout, launch failure, interruption …). */
  nodes: Map<string, KarpenterLogged>;
  leaders: KarpenterLeaderState[];
  /** Lines the parser could not read as Karpenter's (the rest was read). */
  unrecognisedLines: number;
}

/** The kinds that tell a node's fate (the provisioning kinds name NodeClaims too, but say nothing of a verdict). */
const NODE_KINDS: ReadonlySet<KarpenterLogRecord['kind']> = new Set([
  'disrupting',
  'tainted-node',
  'deleted-node',
  'deleted-nodeclaim',
  'expired-nodeclaim',
  'timeout',
  'interruption',
  'unhealthy-instance',
  'launch-failed',
  'error',
]);

export function sourceName(s: KarpenterLogSummary['source']): string {
  return s.kind === 'file' ? s.path : s.kind === 'pod' ? `pod ${s.namespace}/${s.pod}` : (s.name ?? 'text');
}

/** "disrupting node(s): underutilized, delete" / "could not schedule pod: <error>": the message and what matters of its values. */
export function loggedText(r: KarpenterLogRecord): string {
  switch (r.kind) {
    case 'disrupting': {
      const what = [r.reason, r.decision].filter(Boolean).join(', ');
      const repl = r.decision === 'replace' && r.replacementTypes ? ` -> ${r.replacementTypes}` : '';
      return `${r.message}${what ? `: ${what}` : ''}${repl}${r.podCount !== undefined ? ` (${r.podCount} pod(s))` : ''}`;
    }
    case 'provisionable-pods':
      return `${r.message}${r.podsMore ? ` (with ${r.pods?.length ?? 0} + ${r.podsMore} other pod(s))` : ''}`;
    case 'timeout':
      return `${r.message}${r.reason ? `: ${r.reason}` : ''}${r.timeout ? ` after ${r.timeout}` : ''}`;
    case 'interruption':
      return `${r.message}${r.reason ? `: ${r.reason}` : ''}`;
    default:
      return r.error ? `${r.message}: ${r.error}` : r.message;
  }
}

function keepLatest(m: Map<string, KarpenterLogged>, key: string | undefined, v: KarpenterLogged): void {
  if (!key) return;
  const old = m.get(key);
  if (!old || v.time >= old.time) m.set(key, v);
}

/** undefined when no log has a line (none given, or every one empty over the window read): nothing to set beside. */
export function karpenterLogIndex(logs: readonly KarpenterLogSummary[]): KarpenterLogIndex | undefined {
  if (!logs.some((l) => l.records.length + l.otherLines + l.unrecognisedLines > 0)) return undefined;
  const idx: KarpenterLogIndex = { sources: [], pods: new Map(), nodes: new Map(), leaders: [], unrecognisedLines: 0 };
  for (const log of logs) {
    const where = sourceName(log.source);
    idx.sources.push(where);
    idx.unrecognisedLines += log.unrecognisedLines;
    if (log.firstTime !== undefined && (idx.from === undefined || log.firstTime < idx.from)) idx.from = log.firstTime;
    if (log.lastTime !== undefined && (idx.to === undefined || log.lastTime > idx.to)) idx.to = log.lastTime;
    let leader: KarpenterLeaderState | undefined;
    for (const r of log.records) {
      const logged: KarpenterLogged = {
        time: r.time,
        kind: r.kind,
        text: loggedText(r),
        ...(r.reason ? { reason: r.reason } : {}),
        ...(r.decision ? { decision: r.decision } : {}),
        where,
        line: r.line,
      };
      if (r.kind === 'leader-election' && r.leaderEvent) {
        if (!leader || r.time >= leader.at) {
          const state = r.leaderEvent === 'acquired' ? 'leader' : r.leaderEvent === 'attempting' ? 'waiting' : 'lost';
          leader = { where, state, at: r.time, ...(r.lease ? { lease: r.lease } : {}), text: r.message };
        }
        continue;
      }
      if (r.kind === 'provisionable-pods' || (r.kind === 'error' && r.pods?.length)) for (const p of r.pods ?? []) keepLatest(idx.pods, p, logged);
      if (!NODE_KINDS.has(r.kind)) continue;
      if (r.kind === 'disrupting' && r.disrupted?.length) {
        for (const d of r.disrupted) {
          keepLatest(idx.nodes, d.node, logged);
          if (d.nodeClaim !== d.node) keepLatest(idx.nodes, d.nodeClaim, logged);
        }
        continue;
      }
      keepLatest(idx.nodes, r.node, logged);
      if (r.nodeClaim !== r.node) keepLatest(idx.nodes, r.nodeClaim, logged);
    }
    if (leader) idx.leaders.push(leader);
  }
  return idx;
}
