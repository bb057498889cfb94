// The node-group audit's dispatcher: `asg-audit` and `node-group-audit` gather the same input, build the Analysis once,
// and hand it to the audit of the provider CA runs (the Auto Scaling group audit under AWS, the provider's own node-group
// audit otherwise). Each command keeps its name, help and report header; only this file picks between the two audits.
import { isPendingCandidate } from '../model/k8s.js';
import { type AsgAuditOptions, auditAsgs } from './asg-audit.js';
import { requireOutput } from './common.js';
import { runProviderAudit } from './node-group-audit.js';
import { analyse } from './pipeline.js';
import type { Deps, RunResult } from './types.js';

export type AuditCommand = 'asg-audit' | 'node-group-audit';

/** Either audit command: gathers, builds the Analysis, and runs the audit of CA's provider under the command's name. */
export async function runAudit(o: AsgAuditOptions, deps: Deps, command: AuditCommand): Promise<RunResult> {
  requireOutput(o.output, ['table', 'json', 'yaml'], command);
  // the audit's pods are those waiting for a node (a group's targeted pods)
  const { raw, analysis } = await analyse(o, deps, { scopes: () => ({ podScope: isPendingCandidate }) });
  // the Auto Scaling group audit is AWS's (asg-audit is its name there; node-group-audit says the same on AWS)
  if (analysis.provider.auditCommand === 'asg-audit') return auditAsgs(o, deps, raw, analysis);
  return runProviderAudit(o, deps, raw, analysis, command);
}

/** `casdoctor asg-audit`. */
export function runAsgAudit(o: AsgAuditOptions, deps: Deps): Promise<RunResult> {
  return runAudit(o, deps, 'asg-audit');
}

/** `casdoctor node-group-audit`. */
export function runNodeGroupAudit(o: AsgAuditOptions, deps: Deps): Promise<RunResult> {
  return runAudit(o, deps, 'node-group-audit');
}
