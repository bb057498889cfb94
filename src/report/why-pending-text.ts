import type { Finding, Skipped } from '../model/findings.js';
import { oneUnitPerComparison } from '../model/quantity.js';
import type { PodReport, PodVerdict } from '../model/why-pending.js';
import { findingBlock, findingCounts, indent, skippedLines } from './findings-text.js';
import { caHealthSection, isCaHealthFinding } from './ca-health-text.js';
import { safeText as t } from './sanitize.js';
import { PLAIN, type Style } from './style.js';
import { fitTable, plainTable, wrapProse } from './table.js';

// tables already laid out for the terminal: the prose wrap leaves them alone
const fitted = new Set<string>();

export interface WhyPendingTextInput {
  pods: PodReport[];
  findings: Finding[];
  skipped: Skipped[];
  header: { ca: string; now: string; source: string };
  notes: string[];
  /** Wrap long cells to this width (terminal); undefined = no wrapping (pipes). */
  width?: number;
  /** Make docs links clickable (OSC 8) in terminals that support it. */
  hyperlinks?: boolean;
  /** Equivalent replicas shown as one block: the pods given a block (default: every pod) and each block's count. */
  shown?: PodReport[];
  /** -o wide: a row for every node group, however many (the table is not fitted to a terminal). */
  wide?: boolean;
  replicas?: Map<PodReport, { count: number; owner: string; capacity?: string }>;
  /** Karpenter's section of a pod (src/report/karpenter-text.ts), shown after CA's node groups; absent without Karpenter. */
  karpenter?: (p: PodReport, s: Style) => string[];
}

const VERDICT_TEXT: Record<PodVerdict, string> = {
  'not-pending': 'not pending',
  'fits-existing-node': 'fits an existing node',
  'scale-up': 'CA scales up',
  'no-scale-up': 'no scale-up',
  ignored: 'ignored by CA',
  'not-evaluated': 'not evaluated',
  'ca-not-running': 'CA is not running',
};

const WHO: Record<string, string> = { ca: 'CA', karpenter: 'Karpenter' };

/**
 * The headline's words for a pod: the verdict of the autoscaler(s) that serve it (its route). The one place a pod's
 * headline is worded; without a route (one autoscaler, CA) the words are CA's as always.
 */
export function verdictText(p: Pick<PodReport, 'verdict' | 'route' | 'autoscalers'>): string {
  if (p.verdict === 'scale-up' && p.route === 'karpenter') return 'Karpenter scales up';
  if (p.verdict === 'scale-up' && p.route === 'both') return 'either may provision';
  if (p.verdict === 'ignored' && p.autoscalers) {
    const who = Object.keys(p.autoscalers).map((k) => WHO[k] ?? k);
    return `ignored by ${who.join(' and ')}`;
  }
  return VERDICT_TEXT[p.verdict];
}

/** Whether the report shows CA's part of a pod (its event, expander, node groups): not when CA is not in the cluster. */
function showsCa(p: PodReport): boolean {
  return !p.autoscalers || p.autoscalers.ca !== undefined || p.route === undefined;
}

function verdictMark(v: PodVerdict, s: Style): string {
  if (v === 'no-scale-up' || v === 'ignored' || v === 'ca-not-running') return s.red('✖');
  if (v === 'scale-up') return s.green('↑');
  if (v === 'not-evaluated') return s.yellow('?');
  return s.green('✔');
}

function ago(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  if (seconds < 90) return `${seconds}s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m ago`;
  return `${Math.round(seconds / 3600)}h ago`;
}

/** Above this many node groups a pod's table shows the telling ones and counts the rest by reason. */
export const GROUP_ROWS_SHOWN = 12;

/**
 * The groups worth a row when there are hundreds: the expander's pick, those that fit, then those whose predicates
 * pass (CA skips them: max size, backoff), then the failing discovered ones, then the undiscovered; shown in name order.
 */
function shownGroups(p: PodReport, wide?: boolean): { shown: PodReport['nodeGroups']; hidden: PodReport['nodeGroups'] } {
  if (wide || p.nodeGroups.length <= GROUP_ROWS_SHOWN + 1) return { shown: p.nodeGroups, hidden: [] };
  const rank = (g: PodReport['nodeGroups'][number]) =>
    g.expanderChoice ? 0 : g.fits ? 1 : g.predicatesPass ? 2 : g.discovered ? 3 : 4;
  const picked = new Set(
    p.nodeGroups
      .map((g, i) => ({ g, i }))
      .sort((a, b) => rank(a.g) - rank(b.g) || a.i - b.i)
      .slice(0, GROUP_ROWS_SHOWN)
      .map((x) => x.g),
  );
  return {
    shown: p.nodeGroups.filter((g) => picked.has(g)),
    hidden: p.nodeGroups.filter((g) => !picked.has(g)),
  };
}

function hiddenSummary(hidden: PodReport['nodeGroups'], s: Style): string {
  const byReason = new Map<string, number>();
  for (const g of hidden) {
    const r = g.fits ? 'fits' : t(g.reasons.join(', '));
    byReason.set(r, (byReason.get(r) ?? 0) + 1);
  }
  const parts = [...byReason]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([r, n]) => `${n} × ${r}`);
  return s.dim(`  … and ${hidden.length} more node groups: ${parts.join(' · ')} (every group: -o wide)`);
}

function groupTable(p: PodReport, s: Style, width?: number, wide?: boolean): string[] {
  const head = ['NODE GROUP', 'MIN/CUR/MAX', 'INSTANCE', 'TEMPLATE', 'FITS', 'FIRST FAILING REASON'];
  const { shown, hidden } = shownGroups(p, wide);
  const rows = shown.map((g) => {
    const mark = g.fits
      ? s.green('yes')
      : g.skipReason?.startsWith('not evaluated')
        ? s.yellow('?')
        : g.predicatesPass
          ? s.yellow('no*')
          : s.red('no');
    const reason = g.fits
      ? g.expanderChoice
        ? s.green(`fits; ${t(p.expander?.name ?? 'expander')} picks it`)
        : 'fits'
      : `${t(g.reasons.join(', '))}${g.values ? s.dim(` (${t(g.values)})`) : ''}`;
    return [
      t(g.name),
      t(`${g.minSize}/${g.targetSize}/${g.maxSize}`),
      t(g.template.instanceType ?? '-'),
      t(g.template.source),
      mark,
      reason,
    ];
  });
  const table = width ? fitTable(head, rows, width) : plainTable(head, rows);
  fitted.add(table);
  return hidden.length ? [table, hiddenSummary(hidden, s)] : [table];
}

export function renderWhyPendingText(input: WhyPendingTextInput, s: Style = PLAIN): string {
  const out: string[] = [];
  out.push(
    s.bold(`casdoctor why-pending`) +
      s.dim(` · ${t(input.header.ca)} · now ${t(input.header.now)} · ${t(input.header.source)}`),
  );
  for (const n of input.notes) out.push(s.yellow(`note: ${t(n)}`));
  out.push('');
  // is CA running at all: first, before any pod is explained
  const health = caHealthSection(input.findings, s, { links: input.hyperlinks });
  // a named pod that is not Pending: that answer first; CA's health cannot be its cause, so it is folded to one line
  const notPending = input.pods.length === 1 && input.pods[0].verdict === 'not-pending';
  if (health.length && !notPending) out.push(...health, '');
  const podFindings = new Map<string, Finding[]>();
  const otherFindings: Finding[] = [];
  for (const f of input.findings) {
    if (isCaHealthFinding(f)) continue;
    if (f.subject.kind === 'Pod') {
      const k = `${f.subject.namespace}/${f.subject.name}`;
      podFindings.set(k, [...(podFindings.get(k) ?? []), f]);
    } else otherFindings.push(f);
  }
  if (input.pods.length === 0) out.push('No Pending pods in scope.', '');
  const folded = health.length && notPending ? [...new Set(input.findings.filter(isCaHealthFinding).map((f) => f.checkId))] : [];
  for (const p of input.shown ?? input.pods) {
    const key = `${p.namespace}/${p.name}`;
    const many = input.replicas?.get(p);
    const who = many ? `${s.bold(t(key))} and ${many.count - 1} more Pending replica(s) of ${t(many.owner)}` : s.bold(t(key));
    out.push(`${verdictMark(p.verdict, s)} ${who}  ${s.bold(verdictText(p))}: ${t(p.summary)}`);
    if (many?.capacity) out.push(`  scale-up   ${t(many.capacity)}`);
    if (p.verdict === 'not-pending') {
      out.push('');
      continue;
    }
    const req = Object.entries(p.requests)
      .map(([k, v]) => `${t(k)} ${t(v)}`)
      .join(', ');
    out.push(`  requests   ${req || 'none'}`);
    if (p.scheduler.message) out.push(`  scheduler  ${t(p.scheduler.message, { max: 2000 })}`);
    const ca = showsCa(p);
    if (!ca) {
      /* Karpenter-only: no CA event, expander or node groups to show */
    } else if (p.caEvent?.provisioningRequest)
      out.push(`  CA said    (ProvisioningRequest ${t(p.caEvent.provisioningRequest)})${p.caEvent.ageSeconds !== undefined ? ` ${ago(p.caEvent.ageSeconds)}` : ''}: ${t(p.caEvent.message, { max: 2000 })}`);
    else if (p.caEvent)
      out.push(
        `  CA said    ${t(p.caEvent.reason)}${p.caEvent.ageSeconds !== undefined ? ` ${ago(p.caEvent.ageSeconds)}` : ''}: ${t(p.caEvent.message, { max: 2000 })}`,
      );
    else if (p.verdict !== 'fits-existing-node')
      out.push(s.dim('  CA said    nothing (no NotTriggerScaleUp/TriggeredScaleUp event on the pod)'));
    if (ca && p.expander?.note) out.push(s.dim(`  expander   ${t(p.expander.note)}`));
    if (ca && p.nodeGroups.length > 0 && p.verdict !== 'fits-existing-node' && (p.autoscalers?.ca?.verdict ?? p.verdict) !== 'ignored') {
      out.push('');
      out.push(...groupTable(p, s, input.width, input.wide));
      // where the real CA's verdict depends on which node it copies as the template, say so instead of guessing
      for (const g of p.nodeGroups)
        if (g.caMayDecideEither) out.push(s.yellow(`  CA may decide either on ${t(g.name)}: ${t(g.caMayDecideEither, { max: 600 })}`));
      // the counterfactual, where no group fits: which stage stopped a group the pod would otherwise fit, and the change
      if (!p.nodeGroups.some((g) => g.fits))
        for (const g of p.nodeGroups)
          if (g.counterfactual) out.push(`  would flip ${t(g.name)} (${t(g.counterfactual.stage)}): ${t(g.counterfactual.change, { max: 600 })}`);
      // CA's own log beside casdoctor's verdict: one line for the groups where CA said what casdoctor says, one per
      // group where it said something else
      const logged = p.nodeGroups.filter((g) => g.caLogged);
      const agrees = logged.filter((g) => !g.fits && g.failedPlugin && g.caLogged!.text === `${g.failedPlugin}: ${g.reasons.join(', ')}`);
      if (agrees.length) {
        const via = agrees[0].caLogged!.pod && agrees[0].caLogged!.pod !== key ? ` (for ${t(agrees[0].caLogged!.pod)}, same controller)` : '';
        out.push(`  CA logged  the same first failing reason for ${agrees.map((g) => t(g.name)).join(', ')}${via}${agrees[0].caLogged!.at ? s.dim(` at ${t(agrees[0].caLogged!.at)}`) : ''}`);
      }
      for (const g of logged) {
        if (agrees.includes(g)) continue;
        const via = g.caLogged!.pod && g.caLogged!.pod !== key ? ` (for ${t(g.caLogged!.pod)})` : '';
        out.push(`  CA logged  ${s.yellow(t(g.name))}: ${t(g.caLogged!.text, { max: 500 })}${via}${g.caLogged!.at ? s.dim(` at ${t(g.caLogged!.at)}`) : ''}`);
      }
    }
    const karpenter = input.karpenter?.(p, s) ?? [];
    if (karpenter.length > 0) out.push('', ...karpenter);
    const fs = podFindings.get(key) ?? [];
    if (fs.length > 0) {
      out.push('');
      for (const f of fs) out.push(indent(findingBlock(f, s, { links: input.hyperlinks }), '  '));
    }
    out.push('');
  }
  if (folded.length)
    out.push(s.dim(`CA health: ${folded.length} finding(s) (${t(folded.join(', '))}), not about this pod; casdoctor why-pending --all shows them`), '');
  if (otherFindings.length > 0) {
    out.push(s.bold('Node groups and cluster'));
    for (const f of otherFindings) out.push(indent(findingBlock(f, s, { links: input.hyperlinks }), '  '));
    out.push('');
  }
  // counted by the headline's words (CA scales up, Karpenter scales up, …), in the verdicts' order
  const ORDER: PodVerdict[] = ['ca-not-running', 'scale-up', 'fits-existing-node', 'no-scale-up', 'ignored', 'not-evaluated', 'not-pending'];
  const counts = new Map<string, { n: number; rank: number }>();
  for (const p of input.pods) {
    const words = verdictText(p);
    const e = counts.get(words) ?? { n: 0, rank: ORDER.indexOf(p.verdict) };
    e.n++;
    counts.set(words, e);
  }
  const parts = [...counts].sort((a, b) => a[1].rank - b[1].rank).map(([words, e]) => `${e.n} ${words}`);
  out.push(
    `${s.bold(`${input.pods.length} pod(s): ${parts.join(', ') || 'none'}`)} · ${findingCounts(input.findings)}`,
  );
  out.push(...skippedLines(input.skipped, s));
  // at a terminal, every line of prose wraps at spaces to its width (pipes get one line per fact, for grep)
  const width = input.width;
  // for a reader, one unit per comparison (200Gi > 14.2Gi free); -o json keeps the canonical quantities
  const readable = out.map(oneUnitPerComparison);
  for (const [i, block] of out.entries()) if (fitted.has(block)) fitted.add(readable[i]);
  const lines = width ? readable.map((block) => (fitted.has(block) ? block : wrapProse(block, width))) : readable;
  fitted.clear();
  return `${lines.join('\n')}\n`;
}
