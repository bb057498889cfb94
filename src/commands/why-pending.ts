import { runChecks } from '../checks/lib/engine.js';
import { CHECKS } from '../checks/index.js';
import { InputError, UsageError } from '../model/errors.js';
import { SEVERITY_ORDER } from '../model/findings.js';
import type { Pod } from '../model/k8s.js';
import type { RawInputs } from '../model/snapshot.js';
import type { PodReport } from '../model/why-pending.js';
import { formatDurationShort } from '../model/duration.js';
import { indexEventsByInvolvedObject, latestCaEventForPod } from '../simulate/ca-events.js';
import { supportsHyperlinks } from '../report/style.js';
import { renderJson } from '../report/json.js';
import { terminalStyle } from '../report/style.js';
import { renderWhyPendingText } from '../report/why-pending-text.js';
import { Analysis } from '../simulate/analysis.js';
import { analyzePods, isPendingCandidate } from '../simulate/why-pending.js';
import {
  gatherInputs,
  loadInstanceTypeData,
  reportHeader,
  requireOutput,
  resolveNow,
  splitArgs,
} from './common.js';
import { labelsMatch, parseLabelSelector } from './selector.js';
import { parseWatchInterval } from './watch-interval.js';
import { strictExitCode } from './strict.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface WhyPendingOptions extends GlobalOptions {
  pod?: string;
  namespace?: string;
  allNamespaces?: boolean;
  all?: boolean;
  selector?: string;
  /** --watch [interval]: true for the default 30s */
  watch?: string | boolean;
  /** --strict: exit 3 when a check was skipped (data missing, forbidden, timed out) */
  strict?: boolean;
}

/** Resolves which pods to examine; errors name the pod and list what exists. */
export function selectPods(raw: RawInputs, o: WhyPendingOptions): (pod: Pod) => boolean {
  const reqs = o.selector ? parseLabelSelector(o.selector) : [];
  const ns = o.allNamespaces ? undefined : o.namespace;
  if (o.pod) {
    let name = o.pod;
    let podNs = ns;
    if (name.includes('/')) [podNs, name] = name.split('/', 2);
    const matches = raw.pods.filter(
      (p) => p.metadata.name === name && (podNs === undefined || p.metadata.namespace === podNs),
    );
    if (matches.length === 0) {
      const pending = raw.pods
        .filter(isPendingCandidate)
        .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
      throw new InputError(
        `pod ${podNs ? `${podNs}/` : ''}${name} not found${raw.sources.length ? ` in ${raw.sources.length} input file(s)` : ''}` +
          (pending.length
            ? `; Pending pods: ${pending.slice(0, 8).join(', ')}${pending.length > 8 ? ', ...' : ''}`
            : '; there are no Pending pods'),
      );
    }
    if (matches.length > 1) {
      throw new UsageError(
        `pod ${name} exists in several namespaces (${matches.map((p) => p.metadata.namespace).join(', ')}); pass -n <namespace>`,
      );
    }
    const target = matches[0];
    return (p) => p === target;
  }
  if (!o.all) throw new UsageError('name a pod (why-pending <pod> -n <namespace>) or pass --all');
  return (p) =>
    isPendingCandidate(p) &&
    (ns === undefined || p.metadata.namespace === ns) &&
    (reqs.length === 0 || labelsMatch(reqs, p.metadata.labels));
}

export interface WhyPendingRound {
  text: string;
  reports: PodReport[];
  exitCode: number;
}

/** True when casdoctor may ask the user something: a terminal on both ends, a human format, no --yes. */
export function canPrompt(o: WhyPendingOptions, deps: Deps): boolean {
  return Boolean(deps.stdinIsTTY && deps.stdoutIsTTY && o.output === 'table' && !o.yes);
}

export async function runWhyPending(o: WhyPendingOptions, deps: Deps): Promise<RunResult> {
  requireOutput(o.output, ['table', 'json'], 'why-pending');
  if (o.pod && o.all) throw new UsageError('pass either a pod name or --all, not both');
  const picking = !o.pod && !o.all;
  if (picking && !canPrompt(o, deps)) {
    throw new UsageError('name a pod (why-pending <pod> -n <namespace>) or pass --all');
  }
  if (o.selector && o.pod)
    throw new UsageError('-l selects pods for --all; it does not combine with a pod name');
  if (o.selector) parseLabelSelector(o.selector);
  const watchMs = o.watch === undefined ? undefined : parseWatchInterval(o.watch);
  resolveNow(o, deps);
  let chosen: { namespace: string; name: string } | undefined;
  if (picking) {
    const raw = await gatherInputs(o, deps, 'why-pending');
    chosen = await pickPendingPod(raw, o, deps);
    if (!chosen) return { exitCode: EXIT.ok };
  }
  const target: WhyPendingOptions = chosen ? { ...o, pod: `${chosen.namespace}/${chosen.name}` } : o;
  if (watchMs === undefined) {
    const round = await whyPendingRound(target, deps);
    deps.stdout(round.text);
    return { exitCode: round.exitCode };
  }
  const { watchLoop } = await import('./watch.js');
  return watchLoop({
    intervalMs: watchMs,
    deps,
    round: () => whyPendingRound(target, deps),
    changes: (prev, next) => podChanges(prev.reports, next.reports),
  });
}

/** Lists Pending pods (namespace, age, CA's last event) and lets the user choose one. */
async function pickPendingPod(raw: RawInputs, o: WhyPendingOptions, deps: Deps) {
  const now = resolveNow(o, deps);
  const ns = o.allNamespaces ? undefined : o.namespace;
  const pending = raw.pods
    .filter((p) => isPendingCandidate(p) && (ns === undefined || p.metadata.namespace === ns))
    .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  if (pending.length === 0) {
    deps.stdout(`No Pending pods${ns ? ` in namespace ${ns}` : ''}.\n`);
    return undefined;
  }
  const events = indexEventsByInvolvedObject(raw.events);
  const items = pending.map((p) => {
    const created = Date.parse(p.metadata.creationTimestamp ?? '');
    const age = Number.isFinite(created) ? formatDurationShort(Math.max(0, now.getTime() - created)) : '?';
    const ev = latestCaEventForPod(events, p);
    return {
      label: `${p.metadata.namespace}/${p.metadata.name}`,
      detail: `age ${age} · CA: ${ev ? ev.reason : 'no event'}`,
      value: { namespace: p.metadata.namespace ?? 'default', name: p.metadata.name ?? '' },
    };
  });
  const { pick } = await import('../interactive/picker.js');
  return pick('Pick a Pending pod', items, deps.terminal!);
}

/** What changed between two rounds, in words: a pod got a node, a verdict changed, CA emitted a new event. */
export function podChanges(prev: PodReport[], next: PodReport[]): string[] {
  const key = (r: PodReport) => `${r.namespace}/${r.name}`;
  const before = new Map(prev.map((r) => [key(r), r]));
  const after = new Map(next.map((r) => [key(r), r]));
  const out: string[] = [];
  for (const [k, r] of before) {
    const n = after.get(k);
    if (!n) out.push(`${k} is no longer Pending (it got a node or was deleted)`);
    else if (n.verdict !== r.verdict) out.push(`${k}: ${r.verdict} → ${n.verdict}`);
    if (n?.caEvent && (n.caEvent.time !== r.caEvent?.time || n.caEvent.message !== r.caEvent?.message)) {
      out.push(`${k}: new CA event ${n.caEvent.reason}: ${n.caEvent.message}`);
    }
  }
  for (const [k, r] of after) if (!before.has(k)) out.push(`${k} is newly Pending (${r.verdict})`);
  return out;
}

/** One complete run: gather, analyse, check, render. */
export async function whyPendingRound(o: WhyPendingOptions, deps: Deps): Promise<WhyPendingRound> {
  const now = resolveNow(o, deps);
  const caArgs = o.caArgs ? splitArgs(o.caArgs) : undefined;
  const raw = await gatherInputs(o, deps, 'why-pending');
  if (!raw.provided.has('pods')) {
    throw new InputError(
      o.from.length
        ? `no Pods in ${o.from.join(', ')}: add \`kubectl get pods -A -o json\` output`
        : 'no Pods could be listed from the cluster',
    );
  }
  const analysis = new Analysis(raw, { now, caArgs, staticInstanceTypes: await loadInstanceTypeData() });
  analysis.scope = selectPods(raw, o);
  const pods = analyzePods(analysis);
  const { findings, skipped } = runChecks(CHECKS, analysis, 'why-pending');
  const reports = pods.map((p) => p.report);

  for (const w of raw.warnings) deps.stderr(`warning: ${w}\n`);
  for (const g of raw.gaps) deps.stderr(`warning: ${g.detail}\n`);

  let text: string;
  if (o.output === 'json') {
    text = renderJson({
      schemaVersion: 1,
      command: 'why-pending',
      now: now.toISOString(),
      findings,
      skipped,
      pods: reports,
    });
  } else {
    const notes: string[] = [];
    if (analysis.nodeGroups.length === 0)
      notes.push(
        'no Auto Scaling Groups in the input: node groups cannot be evaluated (add `aws autoscaling describe-auto-scaling-groups --output json`)',
      );
    text = renderWhyPendingText(
      {
        pods: reports,
        findings,
        skipped,
        header: reportHeader(analysis.ca, now, o, `expander ${analysis.ca.flags.expander.value}`),
        notes,
        width: deps.stdoutIsTTY ? deps.terminalWidth : undefined,
        hyperlinks: deps.stdoutIsTTY && supportsHyperlinks(),
      },
      await terminalStyle(o.color && deps.stdoutIsTTY),
    );
  }
  let exitCode: number = EXIT.ok;
  if (o.failOn !== 'never') {
    const cannot = reports.some((r) => r.verdict === 'no-scale-up' || r.verdict === 'ignored-by-ca');
    const threshold = SEVERITY_ORDER[o.failOn];
    const failing = findings.some((f) => SEVERITY_ORDER[f.severity] <= threshold);
    exitCode = cannot || failing ? EXIT.findings : EXIT.ok;
  }
  // --strict: a check skipped for missing or forbidden data leaves the report incomplete (exit 3)
  return { text, reports, exitCode: strictExitCode(exitCode, o.strict, skipped.length > 0) };
}
