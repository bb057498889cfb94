// The readable preflight report for a terminal or a CI log: inputs, node groups as CA sees them, findings with
// file:line, evidence and fix, then a one-line summary.
import type { Finding } from '../model/findings.js';
import type { PreflightReport } from '../model/preflight.js';
import { evidenceText, indent } from './findings-text.js';
import { isFailing } from './junit.js';
import { safeLines, safeText as t } from './sanitize.js';
import { PLAIN, type Style, severityMark } from './style.js';

function subject(f: Finding): string {
  return t(`${f.subject.kind} ${f.subject.namespace ? `${f.subject.namespace}/` : ''}${f.subject.name}`);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function findingBlock(f: Finding, s: Style): string {
  const where = f.location ? s.dim(`  ${t(`${f.location.file}:${f.location.line}`)}`) : '';
  const lines = [`${severityMark(f.severity, s)} ${s.bold(t(f.checkId))}  ${subject(f)}${where}`];
  lines.push(indent(t(f.message), '    '));
  for (const e of f.evidence.slice(0, 8)) lines.push(s.dim(`    · ${evidenceText(e)}`));
  if (f.evidence.length > 8) lines.push(s.dim(`    · … ${f.evidence.length - 8} more (-o json)`));
  if (f.remediation) lines.push(indent(`fix: ${safeLines(f.remediation)}`, '    '));
  lines.push(s.dim(`    docs: ${f.docsUrl}`));
  return lines.join('\n');
}

export function renderPreflightText(report: PreflightReport, s: Style = PLAIN): string {
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
  } else {
    out.push(
      s.dim(
        'node groups: none given (--eksctl, --node-groups, --from or --live); placement checks not applicable',
      ),
    );
  }
  for (const n of report.notes) out.push(s.yellow(`note: ${safeLines(n)}`.replaceAll('\n', '\n      ')));
  out.push('');
  for (const f of active) {
    out.push(findingBlock(f, s));
    out.push('');
  }
  if (suppressed.length > 0) {
    out.push(s.dim(`suppressed (${suppressed.length}):`));
    for (const f of suppressed) out.push(s.dim(`  ${t(f.checkId)}  ${subject(f)}: ${t(f.suppressed?.reason)}`));
    out.push('');
  }
  for (const k of report.skipped) out.push(s.yellow(`skipped ${t(k.checkId)}: ${t(k.detail)}`));
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
  out.push(
    `${mark} ${summary}${failing > 0 ? ` · ${plural(failing, 'finding')} at or above --fail-on ${report.failOn}` : ''}`,
  );
  return `${out.join('\n')}\n`;
}
