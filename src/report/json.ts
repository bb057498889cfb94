import type { Finding, Skipped } from '../model/findings.js';
import { safeJsonText } from './sanitize.js';

export interface JsonReport {
  schemaVersion: 1;
  command: string;
  now: string;
  findings: Finding[];
  skipped: Skipped[];
  [extra: string]: unknown;
}

/**
 * The stable machine contract: keys in a fixed order, two-space indent, trailing newline. The data is never altered;
 * only characters JSON.stringify leaves raw that a terminal acts on (C1, bidi) are written as \u escapes.
 */
export function renderJson(report: JsonReport): string {
  const { schemaVersion, command, now, findings, skipped, ...rest } = report;
  return `${safeJsonText(JSON.stringify({ schemaVersion, command, now, findings, skipped, ...rest }, null, 2))}\n`;
}
