import type { NodeGroupReport } from '../model/asg-audit.js';
import type { Finding, Skipped } from '../model/findings.js';
import { findingBlock, findingCounts, indent, skippedLines } from './findings-text.js';
import { caHealthSection, isCaHealthFinding } from './ca-health-text.js';
import { safeText as t } from './sanitize.js';
import { PLAIN, type Style } from './style.js';
import { wrapProse } from './table.js';

export interface AsgAuditTextInput {
  nodeGroups: NodeGroupReport[];
  findings: Finding[];
  skipped: Skipped[];
  header: { ca: string; discovery: string; now: string; source: string };
  notes: string[];
  /** The terminal's width: every line wraps at spaces to it (undefined in pipes: one line per fact). */
  width?: number;
}

function templateText(g: NodeGroupReport): string {
  const tpl = g.template;
  if (tpl.source === 'node') return `template: node ${t(tpl.fromNode ?? '')}`.trimEnd();
  if (tpl.source === 'asg') return 'template: ASG scratch (no usable node)';
  return `template: none (${t(tpl.reason ?? 'unknown')})`;
}

function groupHeader(g: NodeGroupReport, s: Style): string {
  const managed = g.discovered
    ? s.green(g.via === 'nodes-flag' ? 'managed (--nodes)' : 'managed (auto-discovery)')
    : s.red('NOT managed by CA');
  // numbers from an offline dump are whatever the file holds: the whole cell is made safe
  const sizes = t(
    `min/desired/max ${g.minSize}/${g.desiredCapacity}/${g.maxSize}${
      g.minSize !== g.asgMinSize || g.maxSize !== g.asgMaxSize ? ` (ASG ${g.asgMinSize}..${g.asgMaxSize})` : ''
    }`,
  );
  const parts = [
    managed,
    sizes,
    t(`${g.nodes} node${g.nodes === 1 ? '' : 's'}`),
    t(g.zones.join(',')) || 'no AZ',
    t(g.instanceTypes.join(',')) || 'no instance type',
    templateText(g),
  ];
  return `${s.bold(t(g.name))}  ${parts.join(' · ')}`;
}

/** The asg-audit report: one block per ASG with its findings, then cluster-wide findings, then totals. */
export function renderAsgAuditText(input: AsgAuditTextInput, s: Style = PLAIN): string {
  const out: string[] = [];
  out.push(
    s.bold('casdoctor asg-audit') +
      s.dim(
        ` · ${t(input.header.ca)} · ${t(input.header.discovery)} · now ${t(input.header.now)} · ${t(input.header.source)}`,
      ),
  );
  for (const n of input.notes) out.push(s.yellow(`note: ${t(n)}`));
  out.push('');
  // is CA running at all: first
  const health = caHealthSection(input.findings, s);
  if (health.length) out.push(...health, '');
  const names = new Set(input.nodeGroups.map((g) => g.name));
  const groupOf = (f: Finding): string | undefined => {
    if (f.nodeGroup && names.has(f.nodeGroup)) return f.nodeGroup;
    if (f.subject.kind === 'AutoScalingGroup' && names.has(f.subject.name)) return f.subject.name;
    return undefined;
  };
  if (input.nodeGroups.length === 0) out.push('No Auto Scaling group of this cluster in the input.', '');
  for (const g of input.nodeGroups) {
    out.push(groupHeader(g, s));
    const fs = input.findings.filter((f) => groupOf(f) === g.name);
    if (fs.length === 0) out.push(s.green('  ✔ no findings'));
    for (const f of fs) out.push(indent(findingBlock(f, s, { keepBlank: true }), '  ', true));
    out.push('');
  }
  const rest = input.findings.filter((f) => groupOf(f) === undefined && !isCaHealthFinding(f));
  if (rest.length > 0) {
    out.push(s.bold('Cluster-wide'));
    for (const f of rest) out.push(indent(findingBlock(f, s, { keepBlank: true }), '  ', true));
    out.push('');
  }
  out.push(`${s.bold(`${input.nodeGroups.length} ASG(s) audited`)} · ${findingCounts(input.findings)}`);
  out.push(...skippedLines(input.skipped, s));
  const text = out.join('\n');
  return `${input.width ? wrapProse(text, input.width) : text}\n`;
}
