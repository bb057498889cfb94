import { compareFindings, type Finding, type Skipped } from '../../model/findings.js';
import type { Analysis } from '../../simulate/analysis.js';
import { type Check, type CommandName, type FindingInput, providerNotApplicable, toFinding } from '../define-check.js';

export interface CheckRun {
  findings: Finding[];
  skipped: Skipped[];
}

/**
 * Runs the checks that belong to a command. A check whose required data is missing is skipped with the reason
 * (never silently passed); a check about another cloud provider than CA's does not run for this cluster.
 * Findings come out sorted by severity, check id, subject.
 */
export function runChecks(checks: readonly Check[], analysis: Analysis, command: CommandName): CheckRun {
  const findings: Finding[] = [];
  const skipped: Skipped[] = [];
  for (const check of checks) {
    if (!check.meta.commands.includes(command)) continue;
    // a check about another CA cloud provider's groups is not part of this run (as Karpenter's checks on a cluster
    // without Karpenter): not run, not listed, so one provider's report never names another's checks
    if (providerNotApplicable(check.meta, analysis.provider.id)) continue;
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
