// node-group-audit: the audit under any provider. AWS: asg-audit's report (its AWS name). externalgrpc: the groups as
// the provider declares them, the stage of every instance record, and the provider's findings.
import { GRPC_INSTANCE_STAGES } from '../model/externalgrpc.js';
import type { NodeGroup } from '../model/node-group.js';
import { findingBlock, findingCounts, skippedLines } from '../report/findings-text.js';
import { safeText } from '../report/sanitize.js';
import { terminalStyle, wantsColor } from '../report/style.js';
import { fitTable, plainTable, wrapProse } from '../report/table.js';
import type { Analysis } from '../simulate/analysis.js';
import type { AsgAuditOptions } from './asg-audit.js';
import type { RawInputs } from '../model/snapshot.js';
import {
  headerProvider,
  reportHeader,
  stdoutSink,
  writeMachineReport,
} from './common.js';
import { checksOf, warnInputs } from './pipeline.js';
import { exitCodeFor } from './strict.js';
import type { Deps, RunResult } from './types.js';
import { isGrpcGroup } from '../providers/externalgrpc/words.js';

/** "Running 3, Created 1, Pending 1 (1 failed)": instance records by stage, in life-cycle order. */
export function stageSummary(g: NodeGroup): string {
  if (!isGrpcGroup(g)) return '-';
  const parts: string[] = [];
  const known = new Set<string>(GRPC_INSTANCE_STAGES);
  const stages = [...GRPC_INSTANCE_STAGES, ...new Set(g.grpc.instances.map((i) => i.stage).filter((s) => !known.has(s)))];
  for (const stage of stages) {
    const of = g.grpc.instances.filter((i) => i.stage === stage);
    if (of.length === 0) continue;
    const failed = of.filter((i) => i.status === 'Failed').length;
    parts.push(`${stage || '(none)'} ${of.length}${failed ? ` (${failed} failed)` : ''}`);
  }
  return parts.join(', ') || 'no instances';
}

/** The audit of a non-AWS provider's node groups on gathered input; `command` names the report (commands/audit.ts dispatches). */
export async function runProviderAudit(
  o: AsgAuditOptions,
  deps: Deps,
  raw: RawInputs,
  analysis: Analysis,
  command: 'node-group-audit' | 'asg-audit',
): Promise<RunResult> {
  const now = analysis.now;
  const { findings, skipped } = checksOf(analysis, 'asg-audit');
  const ctx = analysis.providerContext;
  const groups = analysis.nodeGroups.map((g) => {
    const t = analysis.template(g);
    return {
      name: g.name,
      minSize: g.minSize,
      targetSize: g.targetSize,
      maxSize: g.maxSize,
      nodes: g.nodes.length,
      ...(t.instanceType ? { instanceType: t.instanceType } : {}),
      template: t.source === 'node' ? `node ${t.fromNode ?? ''}` : t.source === 'none' ? 'none' : analysis.provider.templateSourceLabel(g, t, 'any', ctx),
      stages: stageSummary(g),
      instances: isGrpcGroup(g) ? g.grpc.instances.map((i) => ({ id: i.id, name: i.name, stage: i.stage, status: i.status, ...(i.updateTime ? { updateTime: i.updateTime } : {}) })) : [],
    };
  });
  warnInputs(raw, deps, false);
  if (o.output === 'json' || o.output === 'yaml') {
    await writeMachineReport(
      o.output,
      { schemaVersion: 1, command, provider: analysis.provider.id, source: analysis.provider.describeSource(ctx), now: now.toISOString(), findings, skipped, nodeGroups: groups },
      stdoutSink(deps),
    );
  } else {
    const s = await terminalStyle(wantsColor(o, deps));
    const h = reportHeader(analysis.ca, now, o, undefined, headerProvider(analysis));
    const out: string[] = [`${s.bold(`casdoctor ${command}`)} · ${safeText(h.ca)} · now ${h.now} · ${safeText(h.source)}`, ''];
    // at a terminal, the table fits its width and the prose wraps at spaces, as asg-audit's does
    const width = deps.stdoutIsTTY ? deps.terminalWidth : undefined;
    const head = ['NODE GROUP', 'MIN/TARGET/MAX', 'NODES', 'INSTANCE', 'INSTANCES BY STAGE'];
    const rows = groups.map((g) => [safeText(g.name), `${g.minSize}/${g.targetSize}/${g.maxSize}`, String(g.nodes), safeText(g.instanceType ?? '-'), safeText(g.stages)]);
    const table = width ? fitTable(head, rows, width) : plainTable(head, rows);
    out.push(table);
    out.push('');
    for (const f of findings) out.push(findingBlock(f, s), '');
    out.push(findingCounts(findings), ...skippedLines(skipped, s));
    deps.stdout(`${out.map((b) => (width && b !== table ? wrapProse(b, width) : b)).join('\n')}\n`);
  }
  return { exitCode: exitCodeFor(o.failOn, findings) };
}
