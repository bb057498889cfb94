// Markdown fit for a pull-request comment: a verdict line, one table row per finding with file:line, details and
// fixes folded away, then what was suppressed, skipped or not applicable.
import type { Finding, Severity } from '../model/findings.js';
import type { PreflightReport } from '../model/preflight.js';
import { isFailing } from './junit.js';
import { safeCodeSpan, safeLines, safeMarkdown } from './sanitize.js';

const ICON: Record<Severity, string> = { error: '❌', warning: '⚠️', info: 'ℹ️' };

/** Foreign text on one line (a table cell, a list item, a heading): no pipes, newlines, HTML, links or mentions. */
function cell(s: string): string {
  return safeMarkdown(s, { cell: true });
}

function subject(f: Finding): string {
  return `${f.subject.kind} ${f.subject.namespace ? `${f.subject.namespace}/` : ''}${f.subject.name}`;
}

/** The file and line as a code span; `inCell` escapes the pipes GFM would split the table cell on. */
function where(f: Finding, inCell = false): string {
  return f.location ? safeCodeSpan(`${f.location.file}:${f.location.line}`, { cell: inCell }) : '';
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A fence longer than any backtick run inside the text. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

export function renderMarkdown(report: PreflightReport): string {
  const active = report.findings.filter((f) => !f.suppressed);
  const suppressed = report.findings.filter((f) => f.suppressed);
  const failing = active.filter((f) => isFailing(f, report.failOn));
  const count = (s: Severity) => active.filter((f) => f.severity === s).length;
  const parts = [
    plural(count('error'), 'error'),
    plural(count('warning'), 'warning'),
    plural(count('info'), 'note'),
  ];
  const verdict = failing.length > 0 ? '❌' : report.skipped.length > 0 ? '⚠️' : '✅';
  const out: string[] = [];
  out.push(`## ${verdict} casdoctor preflight: ${parts.join(', ')}`);
  out.push('');
  const groups = report.groups.length
    ? `${plural(report.groups.length, 'node group')} (${report.inputs.nodeGroups.join(', ')})`
    : 'no node groups given';
  out.push(
    `<sub>${plural(report.objects.length, 'object')} from ${plural(report.inputs.manifests.length, 'file')} · ${cell(groups)} · ${cell(report.inputs.ca)} · fails on ${cell(report.failOn)}</sub>`,
  );
  out.push('');
  if (active.length === 0) {
    out.push(
      'No findings: every workload has a node group CA can scale for it, and nothing blocks scale-down.',
    );
    out.push('');
  } else {
    out.push('| | Check | Object | Where | Finding |');
    out.push('|---|---|---|---|---|');
    for (const f of active) {
      out.push(
        `| ${ICON[f.severity]} ${f.severity} | [${safeCodeSpan(f.checkId, { cell: true })}](${f.docsUrl}) | ${cell(subject(f))} | ${where(f, true)} | ${cell(f.message)} |`,
      );
    }
    out.push('');
    out.push('<details><summary>Details and fixes</summary>');
    out.push('');
    for (const f of active) {
      out.push(
        `#### ${ICON[f.severity]} ${safeCodeSpan(f.checkId)} · ${cell(subject(f))}${f.location ? ` · ${where(f)}` : ''}`,
      );
      out.push('');
      out.push(safeMarkdown(f.message));
      out.push('');
      for (const e of f.evidence)
        out.push(
          `- ${safeMarkdown(e.source, { cell: true, lineStart: true })}: ${cell(e.observed)}${e.expected ? ` (expected ${cell(e.expected)})` : ''}`,
        );
      if (f.evidence.length) out.push('');
      if (f.remediation) {
        // inside a fenced code block nothing renders (no HTML, links or mentions): only control characters need care
        const fix = safeLines(f.remediation);
        const fe = fence(fix);
        out.push('**Fix**');
        out.push('');
        out.push(fe);
        out.push(fix);
        out.push(fe);
        out.push('');
      }
    }
    out.push('</details>');
    out.push('');
  }
  if (suppressed.length > 0) {
    out.push(`<details><summary>${plural(suppressed.length, 'suppressed finding')}</summary>`);
    out.push('');
    for (const f of suppressed) {
      out.push(`- ${safeCodeSpan(f.checkId)} · ${cell(subject(f))} ${where(f)}: ${cell(f.suppressed?.reason ?? '')}`);
    }
    out.push('');
    out.push('</details>');
    out.push('');
  }
  if (report.skipped.length > 0) {
    out.push(`**${plural(report.skipped.length, 'check')} skipped** (input asked for but not readable):`);
    out.push('');
    for (const s of report.skipped) out.push(`- ${safeCodeSpan(s.checkId)}: ${cell(s.detail)}`);
    out.push('');
  }
  if (report.notApplicable.length > 0) {
    const reasons = [...new Set(report.notApplicable.map((n) => n.reason))];
    out.push(
      `<sub>Not applicable: ${report.notApplicable.map((n) => safeCodeSpan(n.checkId)).join(', ')} (${cell(reasons.join('; '))}).</sub>`,
    );
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
