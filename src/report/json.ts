import type { Finding, Skipped } from '../model/findings.js';

export interface JsonReport {
  schemaVersion: 1;
  command: string;
  now: string;
  findings: Finding[];
  skipped: Skipped[];
  [extra: string]: unknown;
}

/** The stable machine contract: keys in a fixed order, two-space indent, trailing newline. */
export function renderJson(report: JsonReport): string {
  const { schemaVersion, command, now, findings, skipped, ...rest } = report;
  return `${JSON.stringify({ schemaVersion, command, now, findings, skipped, ...rest }, null, 2)}\n`;
}
