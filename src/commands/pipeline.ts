// One pipeline for every command that reads a cluster: gather once → an Analysis built with the run's clock, CA's
// flags, CA's provider and the command's scopes (inputs, never set afterwards) → the checks → an exit code. A command
// keeps its options, its input requirements and its rendering (GitHub CLI's NewCmdX/xRun with an injected factory).
import { CHECKS } from '../checks/index.js';
import type { CommandName } from '../checks/define-check.js';
import { type CheckRun, runChecks } from '../checks/lib/engine.js';
import type { RawInputs } from '../model/snapshot.js';
import { safeText } from '../report/sanitize.js';
import { Analysis, type NodeScope, type PodScope } from '../simulate/analysis.js';
import { providerFor } from '../providers/index.js';
import { gatherInputs, loadInstanceTypeData, resolveNow, splitArgs } from './common.js';
import type { Deps, GlobalOptions } from './types.js';

/** What a command asks of the pipeline; everything is optional. */
export interface AnalyseSpec {
  /** Which fields of Kubernetes objects to keep when reading a dump (why-pending keeps fewer of scheduled pods). */
  fields?: 'read' | 'why-pending';
  /** Throws an InputError naming what the command cannot do without (no Pods, no Nodes ...), before any analysis. */
  require?(raw: RawInputs): void;
  /** The command's pods and nodes, from the gathered input: given to the Analysis, never set on it afterwards. */
  scopes?(raw: RawInputs): { podScope?: PodScope; nodeScope?: NodeScope };
}

export interface Analysed {
  raw: RawInputs;
  /** The run's clock: --now, else a dump's own time, else the wall clock. */
  now: Date;
  analysis: Analysis;
}

/**
 * Gathers once (--from, else live) and builds the run's Analysis. A bad --now or --ca-args fails before a long gather;
 * without --now a dump is read as at its own time.
 */
export async function analyse(o: GlobalOptions, deps: Deps, spec: AnalyseSpec = {}): Promise<Analysed> {
  resolveNow(o, deps);
  const caArgs = o.caArgs ? splitArgs(o.caArgs) : undefined;
  const raw = await gatherInputs(o, deps, spec.fields ?? 'read');
  const now = resolveNow(o, deps, raw);
  spec.require?.(raw);
  const scopes = spec.scopes?.(raw) ?? {};
  const analysis = new Analysis(raw, {
    now,
    caArgs,
    staticInstanceTypes: await loadInstanceTypeData(),
    provider: providerFor,
    ...scopes,
  });
  return { raw, now, analysis };
}

/** The registered checks of one command over the analysis (the check registry is the one way to a finding). */
export function checksOf(analysis: Analysis, command: CommandName): CheckRun {
  return runChecks(CHECKS, analysis, command);
}

/** The input's warnings, then its gaps (those `gaps` keeps; none when false), on stderr, through the one sanitizer. */
export function warnInputs(raw: RawInputs, deps: Deps, gaps: boolean | ((g: RawInputs['gaps'][number]) => boolean) = true): void {
  for (const w of raw.warnings) deps.stderr(`warning: ${safeText(w)}\n`);
  if (gaps === false) return;
  for (const g of raw.gaps) if (gaps === true || gaps(g)) deps.stderr(`warning: ${safeText(g.detail)}\n`);
}
