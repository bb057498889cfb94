// The readable preflight report for a terminal or a CI log: inputs, node groups as CA sees them, findings with
// file:line, evidence and fix, then a one-line summary.
import type { Finding } from '../model/findings.js';
import type { PreflightReport, PreflightWorkloadReport } from '../model/preflight.js';
import {
  type KarpenterPoolSummary,
  type KarpenterWorkloadReport,
  poolReasonText,
  type PreflightKarpenterReport,
} from '../simulate/providers/karpenter/preflight.js';
import { evidenceText, indent } from './findings-text.js';
import { isFailing } from './junit.js';
import { safeLines, safeText as t } from './sanitize.js';
import { PLAIN, type Style, severityMark } from './style.js';
import { visibleWidth, wrapHeader, wrapWords } from './table.js';

/** Fits a line to the terminal (`width`), continuation lines indented `hang`; no width: unchanged (a file, a CI log). */
function fitLine(line: string, width: number | undefined, hang: number): string {
  return width ? line.split('\n').flatMap((l) => wrapWords(l, width, hang)).join('\n') : line;
}

function subject(f: Finding): string {
  return t(`${f.subject.kind} ${f.subject.namespace ? `${f.subject.namespace}/` : ''}${f.subject.name}`);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function findingBlock(f: Finding, s: Style, width?: number): string {
  const where = f.location ? t(`${f.location.file}:${f.location.line}`) : '';
  const head = `${severityMark(f.severity, s)} ${s.bold(t(f.checkId))}  ${subject(f)}`;
  // at a narrow terminal the file:line goes under the finding, whole (it is copied into an editor)
  const lines = [width && where && visibleWidth(head) + 2 + where.length > width ? `${head}\n    ${s.dim(where)}` : `${head}${where ? s.dim(`  ${where}`) : ''}`];
  lines.push(fitLine(indent(t(f.message), '    '), width, 4));
  for (const e of f.evidence.slice(0, 8)) lines.push(s.dim(fitLine(`    · ${evidenceText(e)}`, width, 6)));
  if (f.evidence.length > 8) lines.push(s.dim(`    · … ${f.evidence.length - 8} more (-o json)`));
  // a fix's prose wraps; its YAML and commands (indented deeper, or a command line) stay as written, to paste
  if (f.remediation)
    lines.push(
      indent(`fix: ${safeLines(f.remediation)}`, '    ')
        .split('\n')
        .map((l) => (/^ {5}/.test(l) || /^\s*(aws|kubectl|casdoctor|eksctl|helm) /.test(l) ? l : fitLine(l, width, 4)))
        .join('\n'),
    );
  lines.push(s.dim(width && 10 + f.docsUrl.length > width ? `    docs:\n      ${f.docsUrl}` : `    docs: ${f.docsUrl}`));
  return lines.join('\n');
}

function poolLine(p: KarpenterPoolSummary, width: number): string {
  const nc = p.nodeClass;
  const cls = !nc.given
    ? `EC2NodeClass ${nc.name} not given: zones and AMIs not evaluated`
    : `EC2NodeClass ${nc.name}${p.zones ? ` (${p.zones.join(',')})` : ': no status, zones not evaluated'}${nc.given && !nc.amisKnown ? ', AMIs not evaluated' : ''}`;
  const limits = p.limits ? `  limits ${Object.entries(p.limits).map(([k, v]) => `${k} ${String(v)}`).join(', ')}` : '';
  const taints = p.taints.length > 0 ? `  taints ${p.taints.join(', ')}` : '';
  return `  ${t(p.name).padEnd(width)}  weight ${String(p.weight).padEnd(3)}  ${t(cls)}${t(limits)}${t(taints)}`;
}

/** NodePools, then one line per workload: the pool and instance types Karpenter would launch, or why not. */
function karpenterLines(pools: KarpenterPoolSummary[], report: PreflightReport, s: Style, width?: number): string[] {
  const out: string[] = [];
  const sources = (report.inputs as { nodePools?: string[] }).nodePools ?? [];
  out.push(s.dim(`Karpenter NodePools, in Karpenter's order${sources.length > 0 ? ` (${t(sources.join(', '))})` : ''}:`));
  const nameWidth = Math.max(...pools.map((p) => t(p.name).length));
  for (const p of [...pools].sort((a, b) => b.weight - a.weight || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))) out.push(fitLine(poolLine(p, nameWidth), width, nameWidth + 4));
  const workloads = report.workloads as Array<PreflightWorkloadReport & Partial<KarpenterWorkloadReport>>;
  if (workloads.length === 0) return out;
  out.push(s.dim(report.groups.length > 0 ? 'which autoscaler adds a node for each workload:' : 'Karpenter per workload:'));
  const label = (w: PreflightWorkloadReport) => t(`${w.kind} ${w.namespace}/${w.name}`);
  const lw = Math.min(48, Math.max(...workloads.map((w) => label(w).length)));
  for (const w of workloads) {
    const k = w.karpenter;
    if (!k) continue;
    const head = `  ${label(w).padEnd(lw)}  `;
    if (report.groups.length > 0 && w.servedByText) {
      const mark = w.servedBy === 'neither' ? s.red('✖') : w.servedBy === 'not-evaluated' || w.servedBy === 'both' ? s.yellow('▲') : s.green('✔');
      out.push(`${head}${mark} ${t(w.servedByText)}`);
    } else if (k.outcome === 'fits') {
      const chosen = k.nodePools.find((v) => v.chosen);
      const caveat = chosen?.notEvaluated?.length ? s.yellow(` (not evaluated: ${t(chosen.notEvaluated.map((n) => (n.missing.startsWith('zones') ? 'zones' : 'AMI requirements')).join(', '))})`) : '';
      out.push(`${head}${s.green('✔')} NodePool ${t(k.nodePool)}: ${k.instanceTypeCount} instance type(s), e.g. ${t((k.instanceTypes ?? []).slice(0, 3).join(', '))}${caveat}`);
    } else if (k.outcome === 'ignored') {
      out.push(`${head}${s.dim('–')} ${t(`Karpenter ignores it: ${k.ignored?.reason ?? ''}`)}`);
    } else if (k.outcome === 'launch-fails') {
      out.push(`${head}${s.red('✖')} ${t(`NodePool ${k.nodePool ?? ''} fits, but the NodeClaim would not launch`)}`);
    } else {
      out.push(`${head}${k.outcome === 'not-evaluated' ? s.yellow('▲ not evaluated') : s.red('✖ no NodePool')}`);
    }
    if (k.outcome !== 'fits' && k.outcome !== 'ignored') {
      for (const v of k.nodePools) {
        out.push(s.dim(`      ${t(poolReasonText(v))}`));
      }
    }
  }
  return out;
}

/** The readable report; with `width` (a terminal's columns) every line fits it, fixes and URLs kept whole. */
export function renderPreflightText(report: PreflightReport, s: Style = PLAIN, width?: number): string {
  const out: string[] = [];
  const active = report.findings.filter((f) => !f.suppressed);
  const suppressed = report.findings.filter((f) => f.suppressed);
  out.push(
    s.bold('casdoctor preflight') +
      s.dim(
        ` · ${plural(report.objects.length, 'object')} from ${plural(report.inputs.manifests.length, 'file')} · ${t(report.inputs.ca)}`,
      ),
  );
  if (report.groups.length > 0) {
    out.push(s.dim(`node groups (${t(report.inputs.nodeGroups.join(', '))}):`));
    const nameWidth = Math.max(...report.groups.map((x) => t(x.name).length));
    for (const g of report.groups) {
      const type = t(g.instanceType ?? '?');
      const zones = t(
        g.zones.length > 1
          ? `${g.zones.join(',')} (CA template: ${g.templateZone ?? '?'})`
          : g.zones.join(','),
      );
      out.push(
        `  ${t(g.name).padEnd(nameWidth)}  ${type.padEnd(12)}  ${t(`${g.minSize}-${g.maxSize}`).padEnd(6)}  ${zones}${g.gate ? s.yellow(`  ${t(g.gate)}`) : ''}`,
      );
    }
  } else if ((report as PreflightReport & PreflightKarpenterReport).nodePools) {
    out.push(s.dim('CA node groups: none given (--eksctl, --node-groups, --from or --live); CA placement checks not applicable'));
  } else {
    out.push(
      s.dim(
        'node groups: none given (--eksctl, --node-groups, --from or --live); placement checks not applicable',
      ),
    );
  }
  const karpenter = report as PreflightReport & PreflightKarpenterReport;
  if (karpenter.nodePools) out.push(...karpenterLines(karpenter.nodePools, report, s).map((l) => fitLine(l, width, 6)));
  for (const n of report.notes) out.push(s.yellow(fitLine(`note: ${safeLines(n)}`.replaceAll('\n', '\n      '), width, 6)));
  // what is above is fitted here; the findings below fit themselves
  const top = out.splice(0).map((l, n) => (n === 0 && width ? wrapHeader(l, width).join('\n') : fitLine(l, width, 4)));
  out.push(...top, '');
  for (const f of active) {
    out.push(findingBlock(f, s, width));
    out.push('');
  }
  if (suppressed.length > 0) {
    out.push(s.dim(`suppressed (${suppressed.length}):`));
    for (const f of suppressed) out.push(s.dim(fitLine(`  ${t(f.checkId)}  ${subject(f)}: ${t(f.suppressed?.reason)}`, width, 4)));
    out.push('');
  }
  for (const k of report.skipped) out.push(s.yellow(fitLine(`skipped ${t(k.checkId)}: ${t(k.detail)}`, width, 4)));
  if (report.skipped.length) out.push('');
  const failing = active.filter((f) => isFailing(f, report.failOn)).length;
  const count = (sev: string) => active.filter((f) => f.severity === sev).length;
  const summary = [
    plural(count('error'), 'error'),
    plural(count('warning'), 'warning'),
    plural(count('info'), 'note'),
    `${suppressed.length} suppressed`,
    `${report.skipped.length} skipped`,
    `${report.notApplicable.length} not applicable`,
  ].join(', ');
  const mark = failing > 0 ? s.red('✖') : report.skipped.length > 0 ? s.yellow('▲') : s.green('✔');
  out.push(fitLine(`${mark} ${summary}${failing > 0 ? ` · ${plural(failing, 'finding')} at or above --fail-on ${report.failOn}` : ''}`, width, 2));
  return `${out.join('\n')}\n`;
}
