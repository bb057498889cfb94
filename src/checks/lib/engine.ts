import { compareFindings, type Finding, type Skipped } from '../../model/findings.js';
import type { Analysis } from '../../simulate/analysis.js';
import { type Check, type CommandName, type FindingInput, toFinding } from '../define-check.js';

export interface CheckRun {
  findings: Finding[];
  skipped: Skipped[];
}

/**
 * Runs the checks that belong to a command. A check whose required data is missing is skipped with the reason
 * (never silently passed). Findings come out sorted by severity, check id, subject.
 */
export function runChecks(checks: readonly Check[], analysis: Analysis, command: CommandName): CheckRun {
  const findings: Finding[] = [];
  const skipped: Skipped[] = [];
  for (const check of checks) {
    if (!check.meta.commands.includes(command)) continue;
    const missing =
      analysis.missingData(check.meta.requires) ??
      (check.meta.requiresRecord ?? []).map((k) => analysis.missingRecord(k)).find((m) => m !== undefined);
    if (missing) {
      skipped.push({ checkId: check.meta.id, reason: missing.reason, detail: missing.detail });
      continue;
    }
    check.run({
      analysis,
      command,
      report: (input: FindingInput<string>) => findings.push(toFinding(check.meta, input)),
      skip: (reason: string, detail: string) => skipped.push({ checkId: check.meta.id, reason, detail }),
    });
  }
  findings.sort(compareFindings);
  skipped.sort((a, b) => (a.checkId < b.checkId ? -1 : a.checkId > b.checkId ? 1 : 0));
  return { findings, skipped };
}
