// JUnit XML for CI test reports: one <testsuite> per manifest object, one <testcase> per check that judges that
// kind of object. A finding at or above --fail-on is a <failure>; suppressed findings and skipped checks are
// <skipped>; findings below --fail-on pass and carry their text in <system-out>.
import { type Finding, SEVERITY_ORDER } from '../model/findings.js';
import type { PreflightObject, PreflightReport } from '../model/preflight.js';
import { safeText } from './sanitize.js';

/**
 * XML 1.0 text: control and bidi characters made visible (raw ESC is not even valid XML), markup escaped, and what XML
 * still cannot hold (lone surrogates, U+FFFE/FFFF) dropped. Nothing is cut: JUnit is a file for CI, not a terminal.
 */
export function xmlEscape(s: string): string {
  return safeText(s, { multiline: true, max: Number.POSITIVE_INFINITY })
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

function objectKey(o: { kind: string; namespace?: string; name: string }): string {
  return `${o.kind}/${o.namespace ?? ''}/${o.name}`;
}

function objectLabel(o: { kind: string; namespace?: string; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

function findingBody(f: Finding): string {
  const lines = [f.message];
  for (const e of f.evidence)
    lines.push(`- ${e.source}: ${e.observed}${e.expected ? ` (expected ${e.expected})` : ''}`);
  if (f.remediation) lines.push(`Fix: ${f.remediation}`);
  lines.push(`Docs: ${f.docsUrl}`);
  return lines.join('\n');
}

interface Case {
  name: string;
  classname: string;
  file?: string;
  line?: number;
  failure?: { message: string; type: string; body: string };
  skipped?: string;
  out?: string;
}

export function isFailing(f: Finding, failOn: PreflightReport['failOn']): boolean {
  if (f.suppressed || failOn === 'never') return false;
  return SEVERITY_ORDER[f.severity] <= SEVERITY_ORDER[failOn];
}

export function renderJunit(report: PreflightReport): string {
  const byObject = new Map<string, Finding[]>();
  for (const f of report.findings) {
    const k = objectKey(f.subject);
    const list = byObject.get(k) ?? [];
    list.push(f);
    byObject.set(k, list);
  }
  const skipped = new Map(report.skipped.map((s) => [s.checkId, s]));
  const notApplicable = new Set(report.notApplicable.map((n) => n.checkId));
  const objects: PreflightObject[] = [...report.objects];
  // a finding about an object not in the list (should not happen) still gets its suite
  for (const f of report.findings) {
    if (!objects.some((o) => objectKey(o) === objectKey(f.subject))) {
      objects.push({
        kind: f.subject.kind,
        ...(f.subject.namespace ? { namespace: f.subject.namespace } : {}),
        name: f.subject.name,
        location: f.location ?? { file: report.inputs.manifests[0] ?? '', line: 1 },
      });
    }
  }
  const suites: Array<{ o: PreflightObject; cases: Case[] }> = [];
  for (const o of objects) {
    const classname = ['casdoctor', 'preflight', o.kind, ...(o.namespace ? [o.namespace] : []), o.name].join(
      '.',
    );
    const findings = byObject.get(objectKey(o)) ?? [];
    const checkIds = new Set(report.checks.filter((c) => c.kinds.includes(o.kind)).map((c) => c.id));
    for (const f of findings) checkIds.add(f.checkId);
    const cases: Case[] = [];
    for (const id of [...checkIds].sort()) {
      if (notApplicable.has(id) && !findings.some((f) => f.checkId === id)) continue;
      const base: Case = { name: id, classname, file: o.location.file, line: o.location.line };
      const own = findings.filter((f) => f.checkId === id);
      const failing = own.filter((f) => isFailing(f, report.failOn));
      const suppressed = own.filter((f) => f.suppressed);
      const passing = own.filter((f) => !f.suppressed && !isFailing(f, report.failOn));
      if (failing.length > 0) {
        base.failure = {
          message: failing.map((f) => f.message).join(' | '),
          type: failing[0].severity,
          body: failing.map(findingBody).join('\n\n'),
        };
      } else if (skipped.has(id) && own.length === 0) {
        const s = skipped.get(id);
        base.skipped = `check skipped (${s?.reason}): ${s?.detail}`;
      } else if (suppressed.length > 0 && passing.length === 0) {
        base.skipped = `suppressed: ${suppressed.map((f) => f.suppressed?.reason).join('; ')}`;
      }
      if (passing.length > 0 && !base.failure) {
        base.out = passing.map((f) => `[${f.severity}] ${findingBody(f)}`).join('\n\n');
      }
      cases.push(base);
    }
    if (cases.length > 0) suites.push({ o, cases });
  }
  const count = (cs: Case[], k: 'failure' | 'skipped') => cs.filter((c) => c[k] !== undefined).length;
  const all = suites.flatMap((s) => s.cases);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="casdoctor preflight" tests="${all.length}" failures="${count(all, 'failure')}" errors="0" skipped="${count(all, 'skipped')}" time="0">`,
  );
  for (const { o, cases } of suites) {
    out.push(
      `  <testsuite name="${xmlEscape(objectLabel(o))}" tests="${cases.length}" failures="${count(cases, 'failure')}" errors="0" skipped="${count(cases, 'skipped')}" time="0" timestamp="${xmlEscape(report.now.replace(/\.\d{3}Z$/, ''))}" file="${xmlEscape(o.location.file)}">`,
    );
    for (const c of cases) {
      const attrs = `name="${xmlEscape(c.name)}" classname="${xmlEscape(c.classname)}"${c.file ? ` file="${xmlEscape(c.file)}"` : ''}${c.line ? ` line="${c.line}"` : ''} time="0"`;
      if (!c.failure && c.skipped === undefined && c.out === undefined) {
        out.push(`    <testcase ${attrs}/>`);
        continue;
      }
      out.push(`    <testcase ${attrs}>`);
      if (c.failure) {
        out.push(
          `      <failure message="${xmlEscape(c.failure.message)}" type="${xmlEscape(c.failure.type)}">${xmlEscape(c.failure.body)}</failure>`,
        );
      }
      if (c.skipped !== undefined) out.push(`      <skipped message="${xmlEscape(c.skipped)}"/>`);
      if (c.out !== undefined) out.push(`      <system-out>${xmlEscape(c.out)}</system-out>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
