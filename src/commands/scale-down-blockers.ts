import { runChecks } from '../checks/engine.js';
import { CHECKS } from '../checks/index.js';
import { InputError } from '../model/errors.js';
import { SEVERITY_ORDER } from '../model/findings.js';
import { renderJson } from '../report/json.js';
import { renderScaleDownText } from '../report/scale-down-text.js';
import { terminalStyle } from '../report/style.js';
import { Analysis } from '../simulate/analysis.js';
import { analyzeScaleDown, setNodeScope } from '../simulate/scale-down.js';
import {
  gatherInputs,
  loadInstanceTypeData,
  reportHeader,
  requireOutput,
  resolveNow,
  splitArgs,
} from './common.js';
import { labelsMatch, parseLabelSelector } from './selector.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface ScaleDownBlockersOptions extends GlobalOptions {
  node?: string;
  nodegroup?: string;
  selector?: string;
  /** --fail-on was given on the command line (the global default does not fail this command). */
  failOnExplicit?: boolean;
}

function listOf(names: string[], max = 8): string {
  return names.length > max ? `${names.slice(0, max).join(', ')}, ...` : names.join(', ');
}

export async function runScaleDownBlockers(o: ScaleDownBlockersOptions, deps: Deps): Promise<RunResult> {
  requireOutput(o.output, ['table', 'json'], 'scale-down-blockers');
  const reqs = o.selector ? parseLabelSelector(o.selector) : [];
  const now = resolveNow(o, deps);
  const caArgs = o.caArgs ? splitArgs(o.caArgs) : undefined;
  const raw = await gatherInputs(o, deps);
  for (const kind of ['nodes', 'pods'] as const) {
    if (!raw.provided.has(kind)) {
      throw new InputError(
        o.from.length
          ? `no ${kind === 'nodes' ? 'Nodes' : 'Pods'} in ${o.from.join(', ')}: add \`kubectl get ${kind}${kind === 'pods' ? ' -A' : ''} -o json\` output`
          : `no ${kind} could be listed from the cluster`,
      );
    }
  }
  const analysis = new Analysis(raw, { now, caArgs, staticInstanceTypes: await loadInstanceTypeData() });
  const names = raw.nodes.map((n) => n.metadata.name ?? '');
  if (o.node && !names.includes(o.node)) {
    throw new InputError(`node ${o.node} not found; nodes: ${listOf([...names].sort())}`);
  }
  if (o.nodegroup && !analysis.nodeGroupsResult.nodeGroups.some((g) => g.name === o.nodegroup)) {
    const groups = analysis.nodeGroupsResult.nodeGroups.map((g) => g.name).sort();
    throw new InputError(
      `node group ${o.nodegroup} not found${groups.length ? `; Auto Scaling groups: ${listOf(groups)}` : ': the input has no Auto Scaling groups'}`,
    );
  }
  setNodeScope(
    analysis,
    (node, group) =>
      (o.node === undefined || node.metadata.name === o.node) &&
      (o.nodegroup === undefined || group?.name === o.nodegroup) &&
      (reqs.length === 0 || labelsMatch(reqs, node.metadata.labels)),
  );
  const sd = analyzeScaleDown(analysis);
  const { findings, skipped } = runChecks(CHECKS, analysis, 'scale-down-blockers');

  for (const w of raw.warnings) deps.stderr(`warning: ${w}\n`);
  for (const g of raw.gaps) deps.stderr(`warning: ${g.detail}\n`);

  if (o.output === 'json') {
    deps.stdout(
      renderJson({
        schemaVersion: 1,
        command: 'scale-down-blockers',
        now: now.toISOString(),
        findings,
        skipped,
        summary: sd.summary,
        notes: sd.notes,
        nodes: sd.inScope.map((n) => n.report),
        cooldowns: sd.cooldowns.map((c) => ({
          cause: c.cause,
          at: c.at.toISOString(),
          flag: c.flag,
          leftSeconds: Math.ceil(c.leftMs / 1000),
          ...(c.group ? { nodeGroup: c.group } : {}),
        })),
      }),
    );
  } else {
    const ca = analysis.ca;
    const notes: string[] = [];
    if (analysis.nodeGroupsResult.nodeGroups.length === 0)
      notes.push(
        'no Auto Scaling Groups in the input: every node looks NotAutoscaled (add `aws autoscaling describe-auto-scaling-groups --output json`)',
      );
    notes.push(...sd.notes);
    if (o.node || o.nodegroup || o.selector)
      notes.push('filters choose what is shown; the simulation still covers every node, as CA does');
    deps.stdout(
      renderScaleDownText(
        {
          summary: sd.summary,
          nodes: sd.inScope.map((n) => n.report),
          caMinor: ca.version.minor,
          cooldowns: sd.cooldowns.map(
            (c) =>
              `${c.group ? `node group ${c.group}: ` : ''}${c.flag} after the ${c.cause.replaceAll('-', ' ')} at ${c.at.toISOString()} (${Math.ceil(c.leftMs / 60_000)}m left)`,
          ),
          ...(sd.caStartedAt ? { caStartedAt: sd.caStartedAt.toISOString() } : {}),
          findings,
          skipped,
          header: reportHeader(ca, now, o),
          notes,
          width: deps.stdoutIsTTY ? deps.terminalWidth : undefined,
        },
        await terminalStyle(o.color && deps.stdoutIsTTY),
      ),
    );
  }
  if (!o.failOnExplicit || o.failOn === 'never') return { exitCode: EXIT.ok };
  const threshold = SEVERITY_ORDER[o.failOn];
  return { exitCode: findings.some((f) => SEVERITY_ORDER[f.severity] <= threshold) ? EXIT.findings : EXIT.ok };
}
