// Findings as the terminal reports of why-pending, scale-down-blockers and asg-audit print them.
import type { Finding, Skipped } from '../model/findings.js';
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

/** Mark, check id and message; up to six evidence lines; the fix; the docs link. */
export function findingBlock(f: Finding, s: Style, o: FindingBlockOptions = {}): string {
  const lines = [`${severityMark(f.severity, s)} ${s.bold(f.checkId)}  ${f.message}`];
  for (const e of f.evidence.slice(0, 6)) {
    lines.push(s.dim(`    · ${e.source}: ${e.observed}${e.expected ? ` (expected ${e.expected})` : ''}`));
  }
  if (f.remediation) lines.push(indent(`fix: ${f.remediation}`, '    ', o.keepBlank));
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
  if (skipped.length === 0) return [];
  return [
    s.yellow(`skipped checks (${skipped.length}): `) +
      skipped.map((k) => `${k.checkId} (${k.detail})`).join('; '),
  ];
}
