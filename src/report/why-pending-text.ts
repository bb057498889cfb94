import type { Finding, Skipped } from '../model/findings.js';
import type { PodReport, PodVerdict } from '../model/why-pending.js';
import { findingBlock, findingCounts, indent, skippedLines } from './findings-text.js';
import { PLAIN, type Style } from './style.js';
import { plainTable } from './table.js';

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
}

const VERDICT_TEXT: Record<PodVerdict, string> = {
  'not-pending': 'not pending',
  'fits-existing-node': 'fits an existing node',
  'scale-up': 'CA scales up',
  'no-scale-up': 'no scale-up',
  'ignored-by-ca': 'ignored by CA',
};

function verdictMark(v: PodVerdict, s: Style): string {
  if (v === 'no-scale-up' || v === 'ignored-by-ca') return s.red('✖');
  if (v === 'scale-up') return s.green('↑');
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
function shownGroups(p: PodReport): { shown: PodReport['nodeGroups']; hidden: PodReport['nodeGroups'] } {
  if (p.nodeGroups.length <= GROUP_ROWS_SHOWN + 1) return { shown: p.nodeGroups, hidden: [] };
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
    const r = g.fits ? 'fits' : g.reasons.join(', ');
    byReason.set(r, (byReason.get(r) ?? 0) + 1);
  }
  const parts = [...byReason]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([r, n]) => `${n} × ${r}`);
  return s.dim(`  … and ${hidden.length} more node groups: ${parts.join(' · ')} (every group is in -o json)`);
}

function groupTable(p: PodReport, s: Style, width?: number): string {
  const head = ['NODE GROUP', 'MIN/CUR/MAX', 'INSTANCE', 'TEMPLATE', 'FITS', 'FIRST FAILING REASON'];
  const fixed = 18 + 13 + 14 + 10 + 6 + 12;
  const reasonWidth = width ? Math.max(30, width - fixed) : undefined;
  const { shown, hidden } = shownGroups(p);
  const rows = shown.map((g) => {
    const mark = g.fits ? s.green('yes') : g.predicatesPass ? s.yellow('no*') : s.red('no');
    const reason = g.fits
      ? g.expanderChoice
        ? s.green(`fits; ${p.expander?.name ?? 'expander'} picks it`)
        : 'fits'
      : `${g.reasons.join(', ')}${g.values ? s.dim(` (${g.values})`) : ''}`;
    return [
      g.name,
      `${g.minSize}/${g.targetSize}/${g.maxSize}`,
      g.template.instanceType ?? '-',
      g.template.source,
      mark,
      reason,
    ];
  });
  const table = plainTable(head, rows, reasonWidth);
  return hidden.length ? `${table}\n${hiddenSummary(hidden, s)}` : table;
}

export function renderWhyPendingText(input: WhyPendingTextInput, s: Style = PLAIN): string {
  const out: string[] = [];
  out.push(
    s.bold(`casdoctor why-pending`) +
      s.dim(` · ${input.header.ca} · now ${input.header.now} · ${input.header.source}`),
  );
  for (const n of input.notes) out.push(s.yellow(`note: ${n}`));
  out.push('');
  const podFindings = new Map<string, Finding[]>();
  const otherFindings: Finding[] = [];
  for (const f of input.findings) {
    if (f.subject.kind === 'Pod') {
      const k = `${f.subject.namespace}/${f.subject.name}`;
      podFindings.set(k, [...(podFindings.get(k) ?? []), f]);
    } else otherFindings.push(f);
  }
  if (input.pods.length === 0) out.push('No Pending pods in scope.', '');
  for (const p of input.pods) {
    const key = `${p.namespace}/${p.name}`;
    out.push(`${verdictMark(p.verdict, s)} ${s.bold(key)}  ${s.bold(VERDICT_TEXT[p.verdict])}: ${p.summary}`);
    if (p.verdict === 'not-pending') {
      out.push('');
      continue;
    }
    const req = Object.entries(p.requests)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    out.push(`  requests   ${req || 'none'}`);
    if (p.scheduler.message) out.push(`  scheduler  ${p.scheduler.message}`);
    if (p.caEvent)
      out.push(
        `  CA said    ${p.caEvent.reason}${p.caEvent.ageSeconds !== undefined ? ` ${ago(p.caEvent.ageSeconds)}` : ''}: ${p.caEvent.message}`,
      );
    else if (p.verdict !== 'fits-existing-node')
      out.push(s.dim('  CA said    nothing (no NotTriggerScaleUp/TriggeredScaleUp event on the pod)'));
    if (p.expander?.note) out.push(s.dim(`  expander   ${p.expander.note}`));
    if (p.nodeGroups.length > 0 && p.verdict !== 'fits-existing-node' && p.verdict !== 'ignored-by-ca') {
      out.push('');
      out.push(groupTable(p, s, input.width));
    }
    const fs = podFindings.get(key) ?? [];
    if (fs.length > 0) {
      out.push('');
      for (const f of fs) out.push(indent(findingBlock(f, s, { links: input.hyperlinks }), '  '));
    }
    out.push('');
  }
  if (otherFindings.length > 0) {
    out.push(s.bold('Node groups and cluster'));
    for (const f of otherFindings) out.push(indent(findingBlock(f, s, { links: input.hyperlinks }), '  '));
    out.push('');
  }
  const counts = new Map<PodVerdict, number>();
  for (const p of input.pods) counts.set(p.verdict, (counts.get(p.verdict) ?? 0) + 1);
  const parts = (
    ['scale-up', 'fits-existing-node', 'no-scale-up', 'ignored-by-ca', 'not-pending'] as PodVerdict[]
  )
    .filter((v) => counts.get(v))
    .map((v) => `${counts.get(v)} ${VERDICT_TEXT[v]}`);
  out.push(
    `${s.bold(`${input.pods.length} pod(s): ${parts.join(', ') || 'none'}`)} · ${findingCounts(input.findings)}`,
  );
  out.push(...skippedLines(input.skipped, s));
  return `${out.join('\n')}\n`;
}
