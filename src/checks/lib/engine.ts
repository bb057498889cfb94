import { compareFindings, type Finding, type Skipped } from '../../model/findings.js';
import type { Analysis, PodScope } from '../../simulate/analysis.js';
import { type Check, checkAutoscalerKey, type CheckMeta, type CommandName, type FindingInput, providerNotApplicable, toFinding } from '../define-check.js';
import { checkIsAboutPod, isKarpenterOnly } from './route.js';
import { applyFixRule } from './fix-safety.js';
import { karpenterOf } from '../../simulate/providers/karpenter/inputs.js';

export interface CheckRun {
  findings: Finding[];
  skipped: Skipped[];
}

/**
 * Runs the checks that belong to a command. A check whose required data is missing is skipped with the reason
 * (never silently passed); a check about another cloud provider than CA's does not run for this cluster.
 * Every finding's fix passes the fix rule (fix-safety.ts applyFixRule). Findings come out sorted by severity, check
 * id, subject.
 */
export function runChecks(checks: readonly Check[], analysis: Analysis, command: CommandName): CheckRun {
  const findings: Finding[] = [];
  const skipped: Skipped[] = [];
  // preflight decides who serves a workload itself (its node groups may come from files, not from the cluster)
  const routed = command !== 'preflight';
  const karpenterOnly = routed && isKarpenterOnly(analysis);
  const scopeOf = routed ? routeScopes(analysis) : (_meta: CheckMeta, scope: PodScope) => scope;
  for (const check of checks) {
    if (!check.meta.commands.includes(command)) continue;
    // a check about another CA cloud provider's groups is not part of this run (as Karpenter's checks on a cluster
    // without Karpenter): not run, not listed, so one provider's report never names another's checks
    if (providerNotApplicable(check.meta, analysis.provider.id)) continue;
    // the same for CA's checks on a Karpenter-only cluster: no CA to install, no ASGs to ask for
    if (karpenterOnly && checkAutoscalerKey(check.meta) === 'ca') continue;
    const missing =
      analysis.missingData(check.meta.requires) ??
      (check.meta.requiresRecord ?? []).map((k) => analysis.missingRecord(k)).find((m) => m !== undefined);
    if (missing) {
      skipped.push({ checkId: check.meta.id, reason: missing.reason, detail: missing.detail });
      continue;
    }
    // the check sees only the pods of its autoscaler (their route): CA's findings and fixes never reach a pod only
    // Karpenter serves, nor Karpenter's a pod only CA serves
    analysis.withScope(scopeOf(check.meta, analysis.scope), () =>
      check.run({
        analysis,
        command,
        // the fix rule, here where every finding is collected: a check cannot print a fix that could make things worse
        report: (input: FindingInput<string>) => findings.push(applyFixRule(analysis, toFinding(check.meta, input))),
        skip: (reason: string, detail: string) => skipped.push({ checkId: check.meta.id, reason, detail }),
      }),
    );
  }
  findings.sort(compareFindings);
  skipped.sort((a, b) => (a.checkId < b.checkId ? -1 : a.checkId > b.checkId ? 1 : 0));
  return { findings, skipped };
}

/**
 * The command's pod scope narrowed, per check, to the pods its autoscaler serves; one scope function per kind of check
 * (the analyses of a scope are cached by it). Without Karpenter in the input every pod is CA's: the scope is unchanged.
 */
function routeScopes(analysis: Analysis): (meta: CheckMeta, scope: PodScope) => PodScope {
  if (!karpenterOf(analysis).present) return (_meta, scope) => scope;
  const made = new Map<string, { base: PodScope; scope: PodScope }>();
  return (meta, base) => {
    const autoscaler = checkAutoscalerKey(meta);
    const key = meta.routes ? `routes:${meta.routes.join(',')}` : autoscaler;
    const hit = made.get(key);
    if (hit && hit.base === base) return hit.scope;
    const scope: PodScope = (pod) => base(pod) && checkIsAboutPod(analysis, pod, autoscaler, meta.routes);
    made.set(key, { base, scope });
    return scope;
  };
}
