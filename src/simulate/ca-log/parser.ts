// The incremental CA log parser: push() one line at a time, finish() for the bounded summary. Pure: no I/O, no clock
// (the caller passes `now` to date klog's year-less headers). Memory is bounded by CaLogLimits whatever the log's size.
import type {
  CaLogAwsError,
  CaLogAwsErrorKind,
  CaLogFormat,
  CaLogGroupRecord,
  CaLogHealthKind,
  CaLogHealthRecord,
  CaLogLevel,
  CaLogLimits,
  CaLogNodeRecord,
  CaLogPlanEntry,
  CaLogPredicateFailure,
  CaLogSeen,
  CaLogSource,
  CaLogSummary,
} from '../../model/ca-log.js';
import { DEFAULT_CA_LOG_LIMITS } from '../../model/ca-log.js';
import { type EnvelopeLine, parseEnvelope } from './envelope.js';
import {
  type AwsErrorMatch,
  CA_LOG_TEMPLATES,
  type CaLogSink,
  type CaLogTemplate,
  detectAwsError,
  indexTemplates,
  mayBeAwsError,
} from './templates.js';

export interface CaLogParserOptions {
  source: CaLogSource;
  /** Reference clock for klog's missing year (a line is never dated more than a day after it). */
  now: Date | number;
  limits?: Partial<CaLogLimits>;
  /** Replaces the template table (tests). */
  templates?: readonly CaLogTemplate[];
}

export interface CaLogParser {
  push(line: string): void;
  finish(): CaLogSummary;
}

interface Seen {
  first?: number;
  last?: number;
  count: number;
}

const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
const seenOut = (s: Seen): CaLogSeen => ({ firstSeen: iso(s.first), lastSeen: iso(s.last), count: s.count });

function see(s: Seen, t: number | undefined): void {
  s.count++;
  if (t === undefined) return;
  if (s.first === undefined || t < s.first) s.first = t;
  if (s.last === undefined || t > s.last) s.last = t;
}

/**
 * A Map that keeps at most `cap` keys. When full, the least recently touched tenth is dropped in one batch: touching an
 * entry only stamps it (V8 Maps slow down badly under delete-and-reinsert on every hit).
 */
class Lru<V> {
  readonly map = new Map<string, { v: V; t: number }>();
  dropped = 0;
  private clock = 0;
  constructor(private readonly cap: number) {}
  get(key: string): V | undefined {
    return this.map.get(key)?.v;
  }
  /** Returns the entry for `key`, created by `make` if absent, and marks it most recently used. */
  touch(key: string, make: () => V): V {
    const e = this.map.get(key);
    if (e !== undefined) {
      e.t = ++this.clock;
      return e.v;
    }
    if (this.map.size >= this.cap) this.evict();
    const v = make();
    this.map.set(key, { v, t: ++this.clock });
    return v;
  }
  values(): Array<[string, V]> {
    return [...this.map].map(([k, e]) => [k, e.v]);
  }
  private evict(): void {
    // drop what was last touched in the oldest tenth of the stamp range (no sort: two passes over the map)
    let min = this.clock;
    for (const e of this.map.values()) if (e.t < min) min = e.t;
    const cutoff = min + Math.max(1, Math.floor((this.clock - min) / 10));
    for (const [k, e] of this.map) {
      if (e.t <= cutoff) {
        this.map.delete(k);
        this.dropped++;
      }
    }
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const AWS_ID = /\b(?:i|vol|lt|ami|sg|subnet|eni|r)-[0-9a-f]{8,17}\b/g;
const NUMBER = /\d+(?:\.\d+)?/g;

/** An error message with ids, numbers and times blanked, so one failure repeated every loop counts as one. */
export function normalizeCaLogMessage(msg: string): string {
  return msg.slice(0, 400).replace(UUID, '<uuid>').replace(AWS_ID, '<id>').replace(NUMBER, '#');
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

type GroupField = Exclude<keyof CaLogGroupRecord, 'group'>;
interface GroupState {
  group: string;
  fields: Partial<Record<GroupField, { value: object; seen: Seen }>>;
}

export function createCaLogParser(opts: CaLogParserOptions): CaLogParser {
  const limits: CaLogLimits = { ...DEFAULT_CA_LOG_LIMITS, ...opts.limits };
  const nowMs = typeof opts.now === 'number' ? opts.now : opts.now.getTime();
  const { byFirst, any } = indexTemplates(opts.templates ?? CA_LOG_TEMPLATES);
  const N = limits.messageChars;

  const lines = { total: 0, blank: 0, recognised: 0, unmatched: 0, unparsed: 0, continuation: 0 };
  const levels: Record<CaLogLevel, number> = { I: 0, W: 0, E: 0, F: 0 };
  const formats: Partial<Record<CaLogFormat, number>> = {};
  const templateHits: Record<string, number> = {};
  let firstTime: number | undefined;
  let lastTime: number | undefined;
  let yearFrom: 'prefix' | 'now' | undefined;
  let version: { version: string; time?: number } | undefined;
  let minMinor = 0;
  let maxMinor = Number.POSITIVE_INFINITY;
  let wordingSeen = false;

  const loop = { count: 0, first: undefined as number | undefined, last: undefined as number | undefined, maxGap: undefined as number | undefined, maxGapEnd: undefined as number | undefined };

  type PredState = { rec: Omit<CaLogPredicateFailure, 'firstSeen' | 'lastSeen' | 'count'>; seen: Seen };
  const preds = new Lru<PredState>(limits.predicateFailures);
  let lastPredKey: string | undefined;
  const moves = new Lru<{ node: string; seen: Seen }>(limits.podMoves);
  let filtered: { pods: number; seen: Seen } | undefined;
  const unschedulable = new Lru<Seen>(limits.unschedulablePods);
  const groups = new Lru<GroupState>(limits.groups);
  const plans: Array<{ time?: number; groups: CaLogPlanEntry[] }> = [];
  type NodeState = { rec: Omit<CaLogNodeRecord, 'firstSeen' | 'lastSeen' | 'count'>; seen: Seen };
  const nodes = new Lru<NodeState>(limits.nodes);
  const aws = new Lru<{ rec: Omit<CaLogAwsError, 'firstSeen' | 'lastSeen' | 'count'>; seen: Seen }>(limits.awsErrors);
  const health = new Map<CaLogHealthKind, { lastMessage: string; seen: Seen; extra?: Pick<CaLogHealthRecord, 'listKind' | 'forbidden'> }>();
  const fatals: Array<{ time?: number; file?: string; message: string }> = [];
  const errors = new Lru<{ level: CaLogLevel; sample: string; seen: Seen; loops: number; lastLoop: number }>(limits.errors);
  const unknown = new Map<string, { kind: 'unparsed' | 'unmatched'; example: string; count: number }>();
  let unknownNotSampled = 0;
  let asgRefresh: { names?: string; tags?: string; nextRefresh?: string; seen: Seen } | undefined;
  let recheck: { ignoredNodes?: number; unremovableNodes?: number; recheckAt?: string; seen: Seen } | undefined;

  // the line being handled (templates report through the sink without seeing it)
  let cur: EnvelopeLine | undefined;
  let awsHandled = false;
  let fatalHandled = false;

  function recordAws(text: string, m: AwsErrorMatch): void {
    const key = `${m.kind}|${m.action ?? ''}|${m.resource ?? ''}|${m.group ?? ''}|${m.instanceType ?? ''}`;
    const e = aws.touch(key, () => ({ rec: { kind: m.kind, message: '' }, seen: { count: 0 } }));
    e.rec = { kind: m.kind, action: m.action, resource: m.resource, principal: m.principal, group: m.group, instanceType: m.instanceType, message: cut(text, N) };
    see(e.seen, cur?.time);
  }

  const sink: CaLogSink = {
    mainLoop() {
      const t = cur?.time;
      loop.count++;
      if (t === undefined) return;
      if (loop.last !== undefined) {
        const gap = t - loop.last;
        if (loop.maxGap === undefined || gap > loop.maxGap) {
          loop.maxGap = gap;
          loop.maxGapEnd = t;
        }
      }
      if (loop.first === undefined) loop.first = t;
      loop.last = t;
    },
    version(v) {
      version = { version: v, time: cur?.time };
    },
    predicateFailure(f, details) {
      const pod = f.namespace === undefined ? f.name : `${f.namespace}/${f.name}`;
      const key = `${pod}\u0000${f.group}`;
      const p = preds.touch(key, () => ({ rec: { pod, name: f.name, group: f.group, reasons: [], error: '\u0000', template: '' }, seen: { count: 0 } }));
      const error = cut(f.error, N);
      // the same failure every loop: only the counts change
      if (p.rec.error !== error || p.rec.template !== curTemplate) {
        const d = details();
        const tn = d.debugInfo ? /nodeName: "([^"]+)"/.exec(d.debugInfo) : null;
        p.rec = {
          pod,
          namespace: f.namespace,
          name: f.name,
          group: f.group,
          plugin: d.plugin,
          reasons: d.reasons.map((r) => cut(r, N)),
          debugInfo: d.debugInfo === undefined ? undefined : cut(d.debugInfo, N),
          templateNode: tn?.[1],
          error,
          template: curTemplate,
          similarPods: p.rec.similarPods,
        };
      }
      see(p.seen, cur?.time);
      lastPredKey = key;
    },
    similarPods(name, group, others) {
      const p = lastPredKey === undefined ? undefined : preds.get(lastPredKey);
      if (p && p.rec.name === name && p.rec.group === group) p.rec.similarPods = others;
    },
    podMove(pod, node) {
      const e = moves.touch(pod, () => ({ node, seen: { count: 0 } }));
      e.node = node;
      see(e.seen, cur?.time);
    },
    unschedulablePod(pod) {
      see(
        unschedulable.touch(pod, () => ({ count: 0 })),
        cur?.time,
      );
    },
    schedulableFiltered(pods) {
      filtered ??= { pods, seen: { count: 0 } };
      filtered.pods = pods;
      see(filtered.seen, cur?.time);
    },
    group(group, field, value) {
      const g = groups.touch(group, () => ({ group, fields: {} }));
      const f = (g.fields[field] ??= { value, seen: { count: 0 } });
      f.value = value;
      see(f.seen, cur?.time);
    },
    plan(entries) {
      plans.push({ time: cur?.time, groups: entries });
      if (plans.length > limits.plans) plans.shift();
    },
    node(n) {
      const e = nodes.touch(n.node, () => ({ rec: { node: n.node, status: n.status, message: '\u0000', template: '' }, seen: { count: 0 } }));
      const message = cut(n.message, N);
      if (e.rec.message !== message || e.rec.status !== n.status || e.rec.template !== curTemplate) e.rec = { ...n, message, template: curTemplate };
      see(e.seen, cur?.time);
    },
    health(kind, message, extra) {
      let h = health.get(kind);
      if (!h) health.set(kind, (h = { lastMessage: '', seen: { count: 0 } }));
      h.lastMessage = cut(message, N);
      if (extra) h.extra = extra;
      see(h.seen, cur?.time);
    },
    fatal(message) {
      fatalHandled = true;
      fatals.push({ time: cur?.time, file: cur?.file, message: cut(message, N) });
      if (fatals.length > limits.fatals) fatals.shift();
    },
    asgRefresh(field, value) {
      asgRefresh ??= { seen: { count: 0 } };
      asgRefresh[field] = cut(value, N);
      see(asgRefresh.seen, cur?.time);
    },
    scaleDownRecheck(field, value, recheckAt) {
      recheck ??= { seen: { count: 0 } };
      recheck[field] = value;
      if (recheckAt !== undefined) recheck.recheckAt = cut(recheckAt, N);
      see(recheck.seen, cur?.time);
    },
    aws(text, group, kindIfNothingElse?: CaLogAwsErrorKind) {
      awsHandled = true;
      const m = mayBeAwsError(text) ? detectAwsError(text) : undefined;
      if (m) recordAws(text, { ...m, group: m.group ?? group });
      else if (kindIfNothingElse) recordAws(text, { kind: kindIfNothingElse, group });
    },
  };

  let curTemplate = '';

  function match(msg: string): CaLogTemplate | undefined {
    const list = byFirst.get(msg[0]);
    if (list) {
      for (const t of list) {
        if (!msg.startsWith(t.start)) continue;
        const m = t.re.exec(msg);
        if (m) {
          curTemplate = t.id;
          t.apply(m, sink);
          return t;
        }
      }
    }
    for (const t of any) {
      const m = t.re.exec(msg);
      if (m) {
        curTemplate = t.id;
        t.apply(m, sink);
        return t;
      }
    }
    return undefined;
  }

  function sample(kind: 'unparsed' | 'unmatched', key: string, example: string): void {
    const u = unknown.get(key);
    if (u) u.count++;
    else if (unknown.size < limits.unknownSamples) unknown.set(key, { kind, example: cut(example, 300), count: 1 });
    else unknownNotSampled++;
  }

  /** Handles one complete record; `more` = its continuation lines. */
  function handle(e: EnvelopeLine, more: string | undefined): void {
    cur = e;
    awsHandled = false;
    fatalHandled = false;
    formats[e.format] = (formats[e.format] ?? 0) + 1;
    levels[e.level]++;
    if (e.yearFrom) yearFrom = e.yearFrom === 'prefix' || yearFrom === 'prefix' ? 'prefix' : 'now';
    if (e.time !== undefined) {
      if (firstTime === undefined || e.time < firstTime) firstTime = e.time;
      if (lastTime === undefined || e.time > lastTime) lastTime = e.time;
    }
    // JSON messages may hold newlines themselves (klog's Infof keeps a trailing or embedded "\n")
    const nl = e.msg.indexOf('\n');
    const msg = nl < 0 ? e.msg : e.msg.slice(0, nl);
    if (nl >= 0) more = e.msg.slice(nl) + (more ?? '');
    const t = msg === '' ? undefined : match(msg);
    if (t) {
      lines.recognised++;
      templateHits[t.id] = (templateHits[t.id] ?? 0) + 1;
      if (t.minMinor !== undefined || t.maxMinor !== undefined) {
        wordingSeen = true;
        if (t.minMinor !== undefined && t.minMinor > minMinor) minMinor = t.minMinor;
        if (t.maxMinor !== undefined && t.maxMinor < maxMinor) maxMinor = t.maxMinor;
      }
    } else {
      lines.unmatched++;
      // klog's file:line names the call site, so it is the message's shape; JSON's caller likewise
      sample('unmatched', e.file ?? msg.slice(0, 40).replace(NUMBER, '#'), msg);
    }
    const full = more === undefined ? msg : msg + more;
    if (!awsHandled && (e.level !== 'I' || e.format === 'json' || e.format === 'prefixed-json') && mayBeAwsError(full)) {
      const m = detectAwsError(full);
      if (m) recordAws(full, m);
    }
    if (e.level === 'F' && !fatalHandled) {
      fatals.push({ time: e.time, file: e.file, message: cut(full, N) });
      if (fatals.length > limits.fatals) fatals.shift();
    }
    if (e.level !== 'I') {
      const norm = normalizeCaLogMessage(msg);
      const r = errors.touch(norm, () => ({ level: e.level, sample: '', seen: { count: 0 }, loops: 0, lastLoop: -1 }));
      r.level = e.level;
      r.sample = cut(msg, N);
      see(r.seen, e.time);
      if (loop.count > 0 && r.lastLoop !== loop.count) {
        r.loops++;
        r.lastLoop = loop.count;
      }
    }
    cur = undefined;
  }

  let pending: EnvelopeLine | undefined;
  /** The pending line's continuation lines, "\n"-joined (templates see only the first line; AWS detection and fatals see all). */
  let pendingMore: string | undefined;

  return {
    push(raw: string) {
      lines.total++;
      const line = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
      if (line.trim() === '') {
        lines.blank++;
        return;
      }
      const e = parseEnvelope(line, nowMs);
      if (e) {
        if (pending) handle(pending, pendingMore);
        pending = e;
        pendingMore = undefined;
        return;
      }
      // a header-less line continues the previous one only if indented, or after a fatal (Go's goroutine dump)
      if (pending && (line.charCodeAt(0) === 9 || line.charCodeAt(0) === 32 || pending.level === 'F')) {
        // aws-sdk-go v1 errors continue on "\tstatus code: 403, request id: …"; klog.Fatal is followed by goroutine dumps
        lines.continuation++;
        if ((pendingMore?.length ?? 0) < N) pendingMore = `${pendingMore ?? ''}\n${line}`.slice(0, N);
        return;
      }
      lines.unparsed++;
      sample('unparsed', line.slice(0, 40).replace(NUMBER, '#'), line);
    },

    finish(): CaLogSummary {
      if (pending) handle(pending, pendingMore);
      pending = undefined;
      pendingMore = undefined;
      let format: CaLogFormat = 'unknown';
      let best = 0;
      for (const [f, n] of Object.entries(formats) as Array<[CaLogFormat, number]>) {
        if (n > best) {
          best = n;
          format = f;
        }
      }
      const byKey = <T>(l: Lru<T>) => l.values().sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, v]) => v);
      const dropped: CaLogSummary['dropped'] = {};
      for (const [k, l] of [['predicateFailures', preds], ['podMoves', moves], ['unschedulablePods', unschedulable], ['nodes', nodes], ['groups', groups], ['errors', errors], ['awsErrors', aws]] as const) {
        if (l.dropped) dropped[k] = l.dropped;
      }
      const summary: CaLogSummary = {
        source: opts.source,
        format,
        formats: { ...formats },
        firstTime: iso(firstTime),
        lastTime: iso(lastTime),
        yearFrom,
        lines: { ...lines },
        levels: { ...levels },
        version: version && { version: version.version, time: iso(version.time) },
        wording: wordingSeen ? { minMinor, maxMinor: Number.isFinite(maxMinor) ? maxMinor : undefined, consistent: minMinor <= maxMinor } : undefined,
        mainLoop: {
          signal: loop.count ? 'starting-main-loop' : undefined,
          count: loop.count,
          first: iso(loop.first),
          last: iso(loop.last),
          maxGapMs: loop.maxGap,
          maxGapEndedAt: iso(loop.maxGapEnd),
          sinceLastLoopMs: loop.last !== undefined && lastTime !== undefined ? lastTime - loop.last : undefined,
        },
        predicateFailures: byKey(preds).map((p) => ({ ...p.rec, ...seenOut(p.seen) })),
        podMoves: moves.values().sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([pod, v]) => ({ pod, node: v.node, ...seenOut(v.seen) })),
        unschedulablePods: unschedulable.values().sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([pod, v]) => ({ pod, ...seenOut(v) })),
        schedulableFiltered: filtered && { pods: filtered.pods, ...seenOut(filtered.seen) },
        groups: byKey(groups).map((g) => {
          const out: CaLogGroupRecord = { group: g.group };
          for (const [k, f] of Object.entries(g.fields) as Array<[GroupField, { value: object; seen: Seen }]>) {
            (out as unknown as Record<string, unknown>)[k] = { ...f.value, ...seenOut(f.seen) };
          }
          return out;
        }),
        plans: plans.map((p) => ({ time: iso(p.time), groups: p.groups })),
        nodes: byKey(nodes).map((n) => ({ ...n.rec, ...seenOut(n.seen) })),
        awsErrors: byKey(aws).map((a) => ({ ...a.rec, ...seenOut(a.seen) })),
        health: [...health.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([kind, h]) => ({ kind, lastMessage: h.lastMessage, ...h.extra, ...seenOut(h.seen) })),
        fatals: fatals.map((f) => ({ time: iso(f.time), file: f.file, message: f.message })),
        repeatedErrors: errors
          .values()
          .map(([normalized, r]) => ({ level: r.level, normalized, sample: r.sample, loops: r.loops, ...seenOut(r.seen) }))
          .sort((a, b) => b.count - a.count || (a.normalized < b.normalized ? -1 : 1)),
        unknownSamples: [...unknown.values()].sort((a, b) => b.count - a.count || (a.example < b.example ? -1 : 1)),
        unknownNotSampled,
        dropped,
        templateHits: Object.fromEntries(Object.entries(templateHits).sort()),
        limits,
      };
      if (asgRefresh) summary.asgRefresh = { names: asgRefresh.names, tags: asgRefresh.tags, nextRefresh: asgRefresh.nextRefresh, ...seenOut(asgRefresh.seen) };
      if (recheck) summary.scaleDownRecheck = { ignoredNodes: recheck.ignoredNodes, unremovableNodes: recheck.unremovableNodes, recheckAt: recheck.recheckAt, ...seenOut(recheck.seen) };
      return summary;
    },
  };
}
