// casdoctor history: gather once (events, objects, the autoscalers' logs, ASG activities, CloudTrail), then the pure
// history (src/simulate/history) tells a node's life, a pod's wait or the groups' window; rendered as a table or JSON.
import type { RawInputs } from '../model/snapshot.js';
import { InputError, UsageError } from '../model/errors.js';
import type { HistorySourceStatus, HistoryStep } from '../model/history.js';
import { parseGoDuration } from '../model/duration.js';
import { findingBlock, findingCounts } from '../report/findings-text.js';
import { safeText } from '../report/sanitize.js';
import { terminalStyle } from '../report/style.js';
import { fitTable, plainTable, wrapHeader, wrapProse } from '../report/table.js';
import { gatherInputs, parseRequestTimeout, requireOutput, resolveNow, stdoutSink, writeMachineReport } from './common.js';
import { exitCodeFor } from './strict.js';
import type { Deps, GlobalOptions, RunResult } from './types.js';

export interface HistoryOptions extends GlobalOptions {
  node?: string;
  pod?: string;
  nodegroup?: string;
  since?: string;
}

/** --since: a duration back from now (Go's units, plus d for days) or an RFC 3339 time. */
export function parseSince(s: string, now: Date): number {
  const v = s.trim();
  if (/^\d{4}-\d\d-\d\dT/.test(v)) {
    const t = Date.parse(v);
    if (Number.isNaN(t)) throw new UsageError(`--since ${JSON.stringify(s)} is not a valid RFC 3339 time`);
    return t;
  }
  const days = /^(\d+)d(.*)$/.exec(v);
  try {
    const ms = (days ? Number(days[1]) * 86_400_000 : 0) + (days && days[2] === '' ? 0 : parseGoDuration(days ? days[2] : v));
    if (!(ms > 0)) throw new Error('not positive');
    return now.getTime() - ms;
  } catch {
    throw new UsageError(`--since ${JSON.stringify(s)}: use a duration such as 6h, 90m or 2d, or an RFC 3339 time such as 2026-11-20T08:00:00Z`);
  }
}

const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString().replace('.000Z', 'Z'));

/** A step as the JSON contract writes it: ISO time first, the rest as gathered. */
function stepJson(s: HistoryStep) {
  const { t, ...rest } = s;
  return { time: iso(t), ...rest };
}

function sourceJson(s: HistorySourceStatus) {
  const { from, to, ...rest } = s;
  return { ...rest, ...(from !== undefined ? { from: iso(from) } : {}), ...(to !== undefined ? { to: iso(to) } : {}) };
}

/** The dump's own time: the newest of its record, CA's status, events, CA's and Karpenter's log lines. */
async function dumpNow(raw: RawInputs): Promise<{ at: number; from: string } | undefined> {
  const { dumpTime } = await import('../simulate/dump-time.js');
  const d = dumpTime(raw);
  let best = d ? { at: d.at.getTime(), from: d.from } : undefined;
  for (const k of raw.karpenterLogs ?? []) if (k.lastTime !== undefined && (!best || k.lastTime > best.at)) best = { at: k.lastTime, from: "Karpenter's log" };
  return best;
}

export async function runHistory(o: HistoryOptions, deps: Deps): Promise<RunResult> {
  const output = requireOutput(o.output, ['table', 'wide', 'json', 'yaml'], 'history');
  const given = [o.node && '--node', o.pod && '--pod'].filter(Boolean);
  if (given.length > 1) throw new UsageError(`history: ${given.join(' and ')} ask two questions; give one`);
  let now = resolveNow(o, deps);
  let since = parseSince(o.since ?? '6h', now);
  if (since >= now.getTime()) throw new UsageError(`--since ${JSON.stringify(o.since)} is not before now (${now.toISOString()})`);
  // live: both autoscalers' logs over the window (CA's within --ca-log-since's bounds, Karpenter's likewise)
  const windowSeconds = Math.ceil((now.getTime() - since) / 1000);
  // `casdoctor record`'s journals are read here; every other --from path as by every command
  const { isJournalDir, readJournal } = await import('../gather/history-files.js');
  const journals = o.from.filter(isJournalDir);
  const others = o.from.filter((p) => !journals.includes(p));
  const { emptyInputs } = await import('../model/snapshot.js');
  const raw =
    o.from.length > 0
      ? others.length > 0
        ? await gatherInputs({ ...o, from: others }, deps)
        : emptyInputs()
      : await gatherInputs({ ...o, caLogSince: `${windowSeconds}s` }, { ...deps, liveOverrides: { ...(deps.liveOverrides ?? {}), karpenterLogSinceSeconds: windowSeconds } });
  for (const j of journals) await readJournal(j, raw);
  // a dump's story ends when the dump was taken, not at the wall clock (as every command reads --from; --now overrides)
  const dump = o.now === undefined && o.from.length > 0 ? await dumpNow(raw) : undefined;
  const nowFrom = dump?.from;
  if (dump) {
    now = new Date(dump.at);
    since = parseSince(o.since ?? '6h', now);
  }
  if (o.from.length === 0) {
    const { gatherHistoryLive } = await import('../gather/live-history.js');
    await gatherHistoryLive(raw, { since, now: now.getTime(), profile: o.profile, region: o.region, requestTimeoutMs: parseRequestTimeout(o.requestTimeout), ...((deps.liveOverrides ?? {}) as object) });
  }
  const { readCaLogSteps } = await import('../gather/history-files.js');
  const caLogs = await readCaLogSteps(raw, o.now !== undefined ? now : undefined);
  const { assembleHistory } = await import('../simulate/history/assemble.js');
  const { buildIdentity, enrich, nodeStory, podStory, windowReport } = await import('../simulate/history/timeline.js');
  const ctx = assembleHistory(raw, {
    now: now.getTime(),
    since,
    live: o.from.length === 0,
    caLogs,
    yearFrom: o.now !== undefined ? '--now' : o.from.length ? "each log file's modification time" : 'the time it was read',
  });
  const id = buildIdentity(ctx);
  const steps = enrich(ctx.steps, id);
  for (const w of raw.warnings) deps.stderr(`warning: ${safeText(w)}\n`);

  const pod = o.pod ? (o.pod.includes('/') ? o.pod : `default/${o.pod}`) : undefined;
  const node = o.node ? nodeStory(ctx, id, steps, o.node) : undefined;
  if (o.node && !node) throw new InputError(`history: no source names node ${o.node}; check the name (kubectl get nodes, or its EC2 instance id) and that --from holds the sources of its time`);
  const podS = pod ? podStory(ctx, id, steps, pod) : undefined;
  if (pod && !podS) throw new InputError(`history: no source names pod ${pod}; give it as namespace/name (kubectl get pods -A) and check that --from holds its events or the pod`);
  const window = !o.node && !o.pod ? windowReport(ctx, id, steps, o.nodegroup) : undefined;
  if (o.nodegroup && window && window.groups.length === 0)
    throw new InputError(`history: no source names node group or NodePool ${o.nodegroup} between ${iso(since)} and ${iso(now.getTime())}; check the name or widen --since`);
  const findings = window?.findings ?? [];

  if (output === 'json' || output === 'yaml') {
    await writeMachineReport(
      output,
      {
        schemaVersion: 1,
        command: 'history',
        now: now.toISOString(),
        findings,
        skipped: [],
        window: { since: iso(since), until: iso(now.getTime()) },
        query: { ...(o.node ? { node: o.node } : {}), ...(pod ? { pod } : {}), ...(o.nodegroup ? { nodegroup: o.nodegroup } : {}) },
        sources: ctx.sources.map(sourceJson),
        clock: ctx.clockNotes,
        ...(node
          ? { node: { ...node, steps: node.steps.map(stepJson), created: { ...node.created, at: iso(node.created.at) }, ...(node.removed ? { removed: { ...node.removed, at: iso(node.removed.at) } } : {}) } }
          : {}),
        ...(podS
          ? { pod: { ...podS, steps: podS.steps.map(stepJson), attempts: podS.attempts.map(stepJson), phases: podS.phases.map((p) => ({ ...p, from: iso(p.from), to: iso(p.to) })), dominant: podS.dominant ? { ...podS.dominant, from: iso(podS.dominant.from), to: iso(podS.dominant.to) } : undefined } }
          : {}),
        ...(window ? { groups: window.groups, removals: window.removals.map((r) => ({ ...r, verdict: { ...r.verdict, at: iso(r.verdict.at) } })) } : {}),
      },
      stdoutSink(deps),
    );
  } else {
    const s = await terminalStyle(o.color && deps.stdoutIsTTY);
    const wide = output === 'wide';
    const from = o.from.length ? `from ${o.from.join(', ')}` : 'live';
    const what = o.node ? `node ${o.node}` : pod ? `pod ${pod}` : o.nodegroup ? `group ${o.nodegroup}` : 'every group';
    const until = `${iso(now.getTime())}${nowFrom ? ` (the dump's time, from ${nowFrom}; --now overrides)` : ''}`;
    const header = `${s.bold('casdoctor history')} · ${safeText(what)} · ${iso(since)} → ${until} · ${safeText(from)}`;
    // the header fits the terminal, broken between its facts (issue 28)
    // at a terminal every line fits it (issue 28): tables fitted, prose wrapped; -o wide and pipes stay as they are
    const width = deps.stdoutIsTTY && !wide ? deps.terminalWidth : undefined;
    const tables = new Set<string>();
    const table = (h: string[], rows: string[][]) => {
      const t = width ? fitTable(h, rows, width) : plainTable(h, rows);
      tables.add(t);
      return t;
    };
    const out: string[] = [width ? wrapHeader(header, width).join('\n') : header, ''];
    const stepRows = (list: readonly HistoryStep[], t0: number) =>
      list.map((x) => {
        const row = [iso(x.t)!, `+${offset(x.t - t0)}`, x.kind, safeText(x.by ?? x.actor, { max: 60 }), safeText(subjectOf(x, o.node !== undefined), { max: 80 }), safeText(x.summary, { max: wide ? 2000 : 160 })];
        if (wide) row.push(safeText(x.source.where, { max: 200 }), safeText(x.raw ?? '', { max: 600 }));
        return row;
      });
    const head = ['TIME', 'SINCE', 'STEP', 'BY', 'WHO', 'WHAT', ...(wide ? ['SOURCE', 'RAW'] : [])];
    if (node) {
      const parts = [node.node && `node ${node.node}`, node.instanceId && `instance ${node.instanceId}`, node.nodeClaim && `NodeClaim ${node.nodeClaim}`, node.group && `${node.servedBy === 'karpenter' ? 'NodePool' : 'group'} ${node.group}`, node.servedBy && `served by ${node.servedBy === 'karpenter' ? 'Karpenter' : 'Cluster Autoscaler'}`].filter(Boolean);
      out.push(safeText(parts.join(' · ')));
      out.push(`${s.bold('created:')} ${node.created.state === 'known' ? '' : 'not evaluated — '}${safeText(node.created.text)}`);
      if (node.removed) out.push(`${s.bold('removed:')} ${node.removed.state === 'known' ? '' : 'not evaluated — '}${safeText(node.removed.text)}`);
      else out.push(`${s.bold('removed:')} no step of its end in the sources (still running, or its end is past the sources)`);
      if (node.evicted.length) out.push(`${s.bold('evicted:')} ${safeText(node.evicted.join(', '))}`);
      out.push('', table(head, stepRows(node.steps, node.steps[0].t)));
      if (node.gaps.length) out.push('', s.bold('missing evidence:'), ...node.gaps.map((g) => `  - ${safeText(g)}`));
    }
    if (podS) {
      out.push(`pod ${safeText(podS.pod)}${podS.node ? ` · landed on ${safeText(podS.node)}` : ''}${podS.totalMs !== undefined ? ` · waited ${offset(podS.totalMs)}` : ''}`);
      if (podS.dominant) out.push(`${s.bold('dominant phase:')} ${safeText(podS.dominant.name)} (${offset(podS.dominant.ms)}): ${safeText(podS.dominant.what)}`);
      out.push('', table(['PHASE', 'FROM', 'LENGTH', 'MADE OF'], podS.phases.map((p) => [safeText(p.name), iso(p.from)!, offset(p.ms), safeText(p.what)])));
      if (podS.attempts.length) out.push('', s.bold('failed and retried attempts:'), ...podS.attempts.map((a) => `  ${iso(a.t)}  ${safeText(a.group ?? '')}  ${safeText(a.summary, { max: 200 })}`));
      out.push('', table(head, stepRows(podS.steps, podS.steps[0].t)));
      if (podS.gaps.length) out.push('', s.bold('missing evidence:'), ...podS.gaps.map((g) => `  - ${safeText(g)}`));
    }
    if (window) {
      out.push(
        window.groups.length
          ? table(
              ['GROUP', 'AUTOSCALER', 'SCALE-UPS', 'REMOVED BY IT', 'FAILURES', 'BACKOFFS', 'INTERRUPTED', 'REMOVED BY OTHERS'],
              window.groups.map((g) => [safeText(g.group), g.autoscaler, String(g.scaleUps), String(g.scaleDowns), String(g.failures), String(g.backoffs), String(g.interruptions), String(g.removedByOthers)]),
            )
          : '  no group scaled in the window',
      );
      out.push('', s.bold('nodes removed in the window:'));
      if (window.removals.length === 0) out.push('  none in the sources');
      for (const r of window.removals) out.push(`  ${iso(r.verdict.at) ?? '?'}  ${safeText(r.node)}${r.group ? ` (${safeText(r.group)})` : ''}`, `      ${r.verdict.state === 'known' ? '' : 'not evaluated — '}${safeText(r.verdict.text)}`);
      out.push('');
      for (const f of findings) out.push(findingBlock(f, s), '');
      out.push(findingCounts(findings));
    }
    out.push('', s.bold('sources:'));
    for (const src of ctx.sources)
      out.push(
        src.state === 'read'
          ? `  ${safeText(src.name)}: ${src.steps} step(s)${src.from !== undefined ? `, ${iso(src.from)} → ${iso(src.to)}` : ''}`
          : `  ${safeText(src.name)}: ${src.state === 'not-provided' ? 'not provided' : 'not evaluated'} — ${safeText(src.detail ?? '')}`,
      );
    if (ctx.clockNotes.length) out.push('', s.bold('clocks and coverage:'), ...ctx.clockNotes.map((n) => `  - ${safeText(n)}`));
    deps.stdout(`${out.map((b, i) => (width && i > 0 && !tables.has(b) ? wrapProse(b, width) : b)).join('\n')}\n`);
  }
  return { exitCode: exitCodeFor(o.failOn, findings) };
}

/** The subject of a step in a table: a node story names the pods; a window names the node (or instance, or group). */
function subjectOf(x: HistoryStep, nodeStory: boolean): string {
  if (x.pod) return x.pod;
  if (nodeStory) return x.pods?.length ? `${x.pods.length} pod(s)` : (x.group ?? '');
  return x.node ?? x.instanceId ?? x.nodeClaim ?? x.group ?? '';
}

/** "7m12s", "2h3m", "0s": an offset or a length. */
function offset(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  const h = Math.floor(m / 60);
  return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
}
