// Findings as the terminal reports of why-pending, scale-down-blockers and asg-audit print them.
import { oneUnitPerResourceLine } from '../model/quantity.js';
import { type Finding, NOT_APPLICABLE, type Skipped } from '../model/findings.js';
import { safeLines, safeText } from './sanitize.js';
import { hyperlink, type Style, severityMark } from './style.js';

/** Prefixes every line of `text`; with `keepBlank`, empty lines stay empty. */
export function indent(text: string, prefix: string, keepBlank = false): string {
  return text
    .split('\n')
    .map((l) => (keepBlank && l === '' ? l : prefix + l))
    .join('\n');
}

export interface FindingBlockOptions {
  /** The docs link as a clickable OSC 8 hyperlink. */
  links?: boolean;
  /** Empty lines of the remediation stay empty instead of getting its indent. */
  keepBlank?: boolean;
}

/** One evidence line's text: `source: observed (expected ...)`, every part foreign-safe. */
export function evidenceText(e: Finding['evidence'][number]): string {
  return `${safeText(e.source)}: ${oneUnitPerResourceLine(safeText(e.observed))}${e.expected ? ` (expected ${safeText(e.expected)})` : ''}`;
}

/** Mark, check id and message; up to six evidence lines; the fix; the docs link. Foreign text is made safe here. */
export function findingBlock(f: Finding, s: Style, o: FindingBlockOptions = {}): string {
  const lines = [`${severityMark(f.severity, s)} ${s.bold(safeText(f.checkId))}  ${safeText(f.message)}`];
  for (const e of f.evidence.slice(0, 6)) lines.push(s.dim(`    · ${evidenceText(e)}`));
  if (f.remediation) lines.push(indent(`fix: ${safeLines(f.remediation)}`, '    ', o.keepBlank));
  lines.push(s.dim(`    docs: ${o.links ? hyperlink(f.checkId, f.docsUrl) : f.docsUrl}`));
  return lines.join('\n');
}

/** "findings: 1 error, 0 warning, 2 info" */
export function findingCounts(findings: Finding[]): string {
  const count = (sev: string) => findings.filter((f) => f.severity === sev).length;
  return `findings: ${count('error')} error, ${count('warning')} warning, ${count('info')} info`;
}

/** "skipped checks (n): <id> (<detail>); ..." as one line, or no line when nothing was skipped. */
export function skippedLines(skipped: Skipped[], s: Style): string[] {
  // a check about another cloud provider is not a gap in the input: its own plain line, after the skipped ones
  const missing = skipped.filter((k) => k.reason !== NOT_APPLICABLE);
  const notApplicable = skipped.filter((k) => k.reason === NOT_APPLICABLE);
  return [
    ...(missing.length ? [s.yellow(`skipped checks (${missing.length}): `) + byDetailText(missing)] : []),
    ...(notApplicable.length ? [`not applicable (${notApplicable.length}): ${byDetailText(notApplicable)}`] : []),
  ];
}

/** "<id>, <id> (<detail>); ..." — checks skipped for the same reason share it (one AccessDenied text, not one per check). */
function byDetailText(skipped: Skipped[]): string {
  const byDetail = new Map<string, string[]>();
  for (const k of skipped) byDetail.set(k.detail, [...(byDetail.get(k.detail) ?? []), k.checkId]);
  return [...byDetail].map(([detail, ids]) => `${ids.map((id) => safeText(id)).join(', ')} (${safeText(detail)})`).join('; ');
}
