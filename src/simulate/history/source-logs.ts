// The autoscalers' logs as history steps. CA: its klog/JSON envelope and message templates (src/simulate/ca-log), one
// step per decision — a line CA repeats every loop (unneeded, unschedulable) is one step per run. Karpenter: the records
// of src/simulate/providers/karpenter/log. Both bounded.
import type { HistoryStep } from '../../model/history.js';
import type { KarpenterLogRecord } from '../../model/karpenter-log.js';
import { CA_LOG_TEMPLATES, parseEnvelope } from '../ca-log/index.js';
import { line } from './text.js';

const byId = (id: string): RegExp => {
  const t = CA_LOG_TEMPLATES.find((x) => x.id === id);
  if (!t) throw new Error(`CA log template ${id} is missing`);
  return t.re;
};
const RE = {
  setSize: byId('scale-up-set-size'),
  timedOut: byId('scale-up-timed-out'),
  backoff: byId('disabling-scale-up'),
  unneeded: byId('unneeded-for'),
  removingEmpty: byId('removing-empty-node'),
  removing: byId('removing-node'),
  unschedulable: byId('pod-is-unschedulable'),
  bestOption: byId('best-option'),
  scalingFailed: [byId('asg-scaling-failed-1.35'), byId('asg-scaling-failed-1.24')],
  failedScaleUp: byId('failed-to-scale-up'),
};
// CA: core/scaledown/actuation/drain.go "Failed to evict pod %s, error: %v"
const FAILED_EVICT = /^Failed to evict pod (\S+), error: (.*)$/;
/** simulator/utilization Info printed with %v: {CpuUtil MemUtil GpuUtil ResourceName Utilization} */
const UTILIZATION = /^\{([\d.e-]+) ([\d.e-]+) ([\d.e-]+) (\S+) ([\d.e-]+)\}(?:, pods to reschedule: (.*))?$/;

/** A repeated line starts a new run after this gap (CA's loop is 10s; a run ends when the line stops). */
const RUN_GAP_MS = 2 * 60_000;
const MAX_KEYS = 50_000;

export interface CaLogSteps {
  steps: HistoryStep[];
  lines: number;
  enveloped: number;
  firstTime?: number;
  lastTime?: number;
  /** klog lines carry no year: it came from the reference clock. */
  yearInferred: boolean;
  dropped: number;
}

export interface CaLogStepper {
  push(raw: string): void;
  finish(): CaLogSteps;
}

export function createCaLogStepper(opts: { where: string; now: number; maxSteps?: number }): CaLogStepper {
  const maxSteps = opts.maxSteps ?? 200_000;
  const steps: HistoryStep[] = [];
  const runs = new Map<string, number>();
  let lines = 0;
  let enveloped = 0;
  let first: number | undefined;
  let last: number | undefined;
  let yearInferred = false;
  let dropped = 0;
  const newRun = (key: string, t: number): boolean => {
    const prev = runs.get(key);
    if (runs.size >= MAX_KEYS && prev === undefined) runs.clear();
    runs.set(key, t);
    return prev === undefined || t - prev > RUN_GAP_MS;
  };
  const add = (s: Omit<HistoryStep, 'source' | 'actor'>, lineNo: number) => {
    if (steps.length >= maxSteps) {
      dropped++;
      return;
    }
    steps.push({ ...s, actor: 'cluster-autoscaler', source: { kind: 'ca-log', where: `${opts.where}:${lineNo}` } });
  };
  return {
    push(raw: string) {
      lines++;
      const e = parseEnvelope(raw.endsWith('\r') ? raw.slice(0, -1) : raw, opts.now);
      if (!e || e.time === undefined) return;
      enveloped++;
      if (e.yearFrom === 'now') yearInferred = true;
      const t = e.time;
      if (first === undefined || t < first) first = t;
      if (last === undefined || t > last) last = t;
      const msg = e.msg;
      const c = msg.charCodeAt(0);
      let m: RegExpExecArray | null;
      // cheap first-letter gates before the regexes: most lines of a V4 log are none of these
      if (c === 83 /* S */) {
        if ((m = RE.setSize.exec(msg))) return add({ t, kind: 'scale-up', group: line(m[1], 255), summary: `scale-up: group size set to ${m[2]}`, raw: line(msg) }, lines);
        if ((m = RE.removingEmpty.exec(msg))) return add({ t, kind: 'scale-down', node: line(m[1], 253), reason: 'empty', summary: 'scale-down: removing empty node', raw: line(msg) }, lines);
        if ((m = RE.removing.exec(msg))) {
          const u = UTILIZATION.exec(m[2]);
          const pods = u?.[6] ? u[6].split(',').map((p) => line(p.trim(), 300)).filter(Boolean).slice(0, 50) : undefined;
          const util = u ? `${u[4]} utilization ${Number(u[5]).toFixed(2)}` : line(m[2], 120);
          return add({ t, kind: 'scale-down', node: line(m[1], 253), reason: 'underutilized', summary: `scale-down: removing underutilized node (${util})`, raw: line(msg), ...(pods?.length ? { pods } : {}) }, lines);
        }
        if ((m = RE.timedOut.exec(msg))) return add({ t, kind: 'scale-up-timeout', group: line(m[1], 255), summary: `scale-up timed out after ${line(m[2], 40)}`, raw: line(msg) }, lines);
      }
      if (c === 68 /* D */ && (m = RE.backoff.exec(msg))) {
        if (!newRun(`backoff ${m[1]} ${m[2]}`, t)) return;
        return add({ t, kind: 'backoff', group: line(m[1], 255), reason: line(m[4] || m[3] || 'backoff', 80), summary: `group backed off until ${line(m[2].replace(/ m=[+-][\d.]+$/, ''), 60)} (${line(m[3], 40)}/${line(m[4], 80)})`, raw: line(msg) }, lines);
      }
      if (c === 80 /* P */ && (m = RE.unschedulable.exec(msg))) {
        if (!newRun(`pod ${m[1]}`, t)) return;
        return add({ t, kind: 'pod-unschedulable', pod: line(m[1], 320), summary: 'CA sees the pod unschedulable', raw: line(msg) }, lines);
      }
      if (c === 66 /* B */ && (m = RE.bestOption.exec(msg))) return add({ t, kind: 'scale-up', group: line(m[1], 255), reason: 'expander', summary: 'expander chose this group', raw: line(msg) }, lines);
      if (c === 65 /* A */) {
        for (const re of RE.scalingFailed) {
          if ((m = re.exec(msg))) return add({ t, kind: 'scale-up-failed', group: line(m[1], 255), summary: `scaling failed: ${line(m[2], 300)}`, raw: line(msg) }, lines);
        }
      }
      if (c === 70 /* F */) {
        if ((m = RE.failedScaleUp.exec(msg))) return add({ t, kind: 'scale-up-failed', summary: `scale-up failed: ${line(m[1], 300)}`, raw: line(msg) }, lines);
        if ((m = FAILED_EVICT.exec(msg))) return add({ t, kind: 'error', pod: line(m[1], 320), reason: 'eviction-failed', summary: `eviction failed: ${line(m[2], 300)}`, raw: line(msg) }, lines);
      }
      if ((m = RE.unneeded.exec(msg))) {
        if (!newRun(`unneeded ${m[1]}`, t)) return;
        return add({ t, kind: 'unneeded', node: line(m[1], 253), summary: 'CA marks the node unneeded', raw: line(msg) }, lines);
      }
    },
    finish() {
      return { steps, lines, enveloped, yearInferred, dropped, ...(first !== undefined ? { firstTime: first } : {}), ...(last !== undefined ? { lastTime: last } : {}) };
    },
  };
}

/** Karpenter's log records → steps. `where` names the file or pod. */
export function stepsFromKarpenterLog(records: readonly KarpenterLogRecord[], where: string): HistoryStep[] {
  const out: HistoryStep[] = [];
  for (const r of records) {
    // one shape for every step (no conditional spreads: a 100 MB log makes 200,000 of them)
    const base: Pick<HistoryStep, 't' | 'actor' | 'source' | 'node' | 'nodeClaim' | 'instanceId' | 'group'> = {
      t: r.time,
      actor: 'karpenter',
      source: { kind: 'karpenter-log', where: `${where}:${r.line}` },
    };
    if (r.node) base.node = r.node;
    if (r.nodeClaim) base.nodeClaim = r.nodeClaim;
    if (r.instanceId) base.instanceId = r.instanceId;
    if (r.nodePool) base.group = r.nodePool;
    const offering = [r.instanceType, r.zone, r.capacityType].filter(Boolean).join(' ');
    switch (r.kind) {
      case 'provisionable-pods':
        out.push({ ...base, kind: 'pod-unschedulable', summary: `Karpenter found provisionable pod(s)${r.podsMore ? ` (+${r.podsMore} more)` : ''}`, ...(r.pods ? { pods: r.pods } : {}) });
        break;
      case 'created-nodeclaim':
        // the disruption controller creates the replacements of a consolidation (disruption/queue.go:297 @v1.14.1)
        if (r.controller?.includes('disruption')) out.push({ ...base, kind: 'nodeclaim-created', reason: 'replacement', summary: 'replacement NodeClaim created for a disruption', raw: r.message });
        else out.push({ ...base, kind: 'nodeclaim-created', summary: 'NodeClaim created for pending pods', raw: r.message });
        break;
      case 'launched-nodeclaim':
        out.push({ ...base, kind: 'instance-launched', summary: `instance launched${offering ? ` (${offering})` : ''}` });
        break;
      case 'launch-failed':
        out.push({ ...base, kind: 'launch-failed', reason: /InsufficientInstanceCapacity|insufficient capacity/i.test(r.error ?? '') ? 'insufficient_capacity' : 'launch-failed', summary: `launch failed: ${r.error ?? r.message}` });
        break;
      case 'registered-nodeclaim':
        out.push({ ...base, kind: 'node-registered', summary: 'node registered' });
        break;
      case 'initialized-nodeclaim':
        out.push({ ...base, kind: 'node-initialized', summary: 'node initialized' });
        break;
      case 'disrupting': {
        const repl = r.decision === 'replace' ? ` with ${r.replacements ?? 1} replacement(s)${r.replacementTypes ? ` (${r.replacementTypes})` : ''}` : '';
        const nodes = r.disrupted?.length ? r.disrupted : [{ node: r.node, nodeClaim: r.nodeClaim }];
        for (const d of nodes)
          out.push({
            ...base,
            ...(d.node ? { node: d.node } : {}),
            ...(d.nodeClaim ? { nodeClaim: d.nodeClaim } : {}),
            kind: 'disrupting',
            ...(r.reason ? { reason: r.reason } : {}),
            summary: `Karpenter disrupts the node: ${r.reason ?? 'reason not logged'}, ${r.decision ?? 'decision not logged'}${repl}${r.podCount !== undefined ? `, ${r.podCount} pod(s) to reschedule` : ''}`,
            raw: r.command ?? r.message,
          });
        break;
      }
      case 'tainted-node':
        out.push({ ...base, kind: 'tainted', reason: 'karpenter.sh/disrupted', summary: 'tainted karpenter.sh/disrupted:NoSchedule' });
        break;
      case 'deleted-node':
        out.push({ ...base, kind: 'node-deleted', summary: 'Node deleted by Karpenter (drained)' });
        break;
      case 'deleted-nodeclaim':
        out.push({ ...base, kind: 'nodeclaim-deleted', summary: 'NodeClaim deleted, instance terminated' });
        break;
      case 'annotated-nodeclaim':
        out.push({ ...base, kind: 'instance-terminate-requested', reason: 'termination-grace-period', summary: 'termination deadline set on the NodeClaim' });
        break;
      case 'expired-nodeclaim':
        out.push({ ...base, kind: 'disrupting', reason: 'expired', summary: 'NodeClaim expired (expireAfter)' });
        break;
      case 'timeout':
        out.push({ ...base, kind: 'timeout', ...(r.reason ? { reason: r.reason } : {}), summary: `NodeClaim deleted: ${r.reason ?? 'timeout'}${r.timeout ? ` after ${r.timeout}` : ''}` });
        break;
      case 'interruption':
        out.push({ ...base, kind: r.reason === 'rebalance_recommendation' ? 'rebalance-recommendation' : 'interruption', ...(r.reason ? { reason: r.reason } : {}), summary: `interruption message: ${r.reason ?? 'unknown kind'}` });
        break;
      case 'unhealthy-instance':
        out.push({ ...base, kind: 'unhealthy', reason: 'instance_unhealthy', summary: 'EC2 reports the instance unhealthy' });
        break;
      case 'offering-unavailable':
        out.push({ ...base, kind: 'offering-unavailable', ...(r.reason ? { reason: r.reason } : {}), summary: `offering ${offering} unavailable for ${r.ttl ?? 'a while'}: ${r.reason ?? ''}`.trim() });
        break;
      case 'error':
        out.push({ ...base, kind: 'error', summary: `${r.message}${r.error ? `: ${r.error}` : ''}` });
        break;
      default:
        break;
    }
  }
  return out;
}
