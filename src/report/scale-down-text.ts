import type { Finding, Skipped } from '../model/findings.js';
import type { NotBlockingKind, ScaleDownNodeReport, UnremovableReason } from '../model/scale-down.js';
import { findingBlock, findingCounts, indent, skippedLines } from './findings-text.js';
import { caHealthSection, isCaHealthFinding } from './ca-health-text.js';
import { safeText as t } from './sanitize.js';
import { PLAIN, type Style } from './style.js';
import { fitTable, plainTable, wrapProse } from './table.js';

export interface ScaleDownTextInput {
  summary: string;
  nodes: ScaleDownNodeReport[];
  caMinor: number;
  /** Active cooldowns, one line each. */
  cooldowns: string[];
  caStartedAt?: string;
  findings: Finding[];
  skipped: Skipped[];
  header: { ca: string; now: string; source: string };
  notes: string[];
  /** Wrap long cells to this width (terminal); undefined = no wrapping (pipes). */
  width?: number;
  /** -o wide: full node names in the table (the table is not fitted to a terminal). */
  wide?: boolean;
  /** Karpenter's nodes (name -> NodePool): CA ignores them by design, Karpenter decides. */
  karpenterNodePools?: Map<string, string>;
  /** The Karpenter section (src/report/karpenter-text.ts), after CA's reasons. */
  karpenter?: (s: Style) => string[];
  /** Karpenter without Cluster Autoscaler: no CA table or reasons, Karpenter's section alone decides. */
  karpenterOnly?: boolean;
}

/** CA's pipeline order: the order the reasons are grouped in. */
const REASON_ORDER: UnremovableReason[] = [
  'NotAutoscaled',
  'NodeGroupMinSizeReached',
  'CurrentlyBeingDeleted',
  'ScaleDownDisabledAnnotation',
  'ScaleDownUnreadyDisabled',
  'UnexpectedError',
  'NotUnderutilized',
  'BlockedByPod',
  'NoPlaceToMovePods',
  'NotUnneededLongEnough',
  'NotUnreadyLongEnough',
  'MinimalResourceLimitExceeded',
  'BlockedByOnCompletionPod',
];

const NOT_BLOCKING_TITLE: Record<NotBlockingKind, string> = {
  DaemonSet: 'DaemonSet pods (evicted with the node, never a reason to keep it)',
  Mirror: 'mirror (static) pods',
  Completed: 'completed pods',
  LongTerminating: 'pods terminating past their grace period',
  SafeToEvict: 'pods annotated safe-to-evict: "true"',
  KubeSystemPastTimeout: 'kube-system pods past --blocking-system-pod-distruption-timeout',
  MemoryEmptyDir: 'emptyDir volumes in memory',
  LocalVolumesAnnotated: 'local volumes named in safe-to-evict-local-volumes',
  Expendable: 'expendable pods (priority below --expendable-pods-priority-cutoff)',
};

function pct(v: number): string {
  return `${(v * 100).toFixed(1).replace(/\.0$/, '')}%`;
}

function shortNode(name: string): string {
  return t(name.replace(/\.(ec2|compute)\.internal$/, ''));
}

function utilCell(n: ScaleDownNodeReport): string {
  const u = n.utilization;
  if (!u) return '-';
  const cmp = n.caReason === 'NotUnderutilized' ? '>' : '<=';
  return `${t(u.resource)} ${pct(u.value)} ${cmp} ${pct(u.threshold)}${u.thresholdSource === 'asg-tag' || u.thresholdSource === 'provider' ? '*' : ''}`;
}

function verdictCell(n: ScaleDownNodeReport, s: Style): string {
  if (n.verdict === 'removable') return s.green('removable');
  if (n.verdict === 'waiting') {
    const left = Math.max(0, ...n.waits.map((w) => w.leftSeconds ?? 0));
    return s.yellow(left ? `waiting ${Math.ceil(left / 60)}m` : 'waiting');
  }
  return s.red('kept');
}

function blockingCell(n: ScaleDownNodeReport): string {
  if (n.blockingPods.length === 0)
    return n.caReason === 'NoPlaceToMovePods' && n.unplaceable ? `no room: ${t(n.unplaceable.name)}` : '';
  const reasons = [...new Set(n.blockingPods.map((b) => b.caReason))];
  return `${n.blockingPods.length}: ${t(reasons.join(', '))}`;
}

function nodeDetail(n: ScaleDownNodeReport, s: Style): string[] {
  const out: string[] = [];
  const head = `${s.bold(t(n.name))}${n.nodeGroup ? s.dim(` (${t(n.nodeGroup)})`) : ''}`;
  let line = t(n.summary);
  if (n.caReason === 'BlockedByPod')
    line = `${n.blockingPods.length} blocking pod(s); CA stops at the first${n.utilization ? ` (${utilCell(n)})` : ''}`;
  else if (n.caReason === 'NoPlaceToMovePods' && n.unplaceable)
    line = `pod ${t(`${n.unplaceable.namespace}/${n.unplaceable.name}`)}${n.unplaceable.movedFrom ? ` (moved here from ${shortNode(n.unplaceable.movedFrom)} in CA's simulation)` : ''} fits no other node${n.utilization ? ` (${utilCell(n)})` : ''}`;
  out.push(`  ${head}: ${line}`);
  const blockingHere = n.caReason === 'BlockedByPod';
  if (n.blockingPods.length) {
    if (!blockingHere) out.push(s.dim('    would also block it, once the reason above is gone:'));
    for (const b of n.blockingPods) {
      const mark = blockingHere ? s.red('✖') : s.dim('·');
      out.push(
        `    ${mark} ${t(`${b.namespace}/${b.name}`)}  ${s.bold(t(b.caReason))}  ${s.dim(t(b.message))}${b.first && blockingHere ? s.dim(" (first: CA's reason)") : ''}${b.movedFrom ? s.dim(` (runs on ${shortNode(b.movedFrom)}; CA's simulation moved it here)`) : ''}`,
      );
    }
  }
  if (n.unplaceable) out.push(`    ${s.red('✖')} ${t(n.unplaceable.message)}`);
  if (n.podsToMove?.length)
    out.push(
      s.dim(`    moves: ${n.podsToMove.map((m) => `${t(`${m.namespace}/${m.name}`)} -> ${shortNode(m.destination)}`).join(', ')}`),
    );
  for (const w of n.waits) out.push(`    ${s.yellow('◷')} ${t(w.detail)}`);
  for (const note of n.notes) out.push(s.dim(`    note: ${t(note)}`));
  for (const c of n.caMayDecideEither ?? []) out.push(s.yellow(`    CA may decide either: ${t(c, { max: 600 })}`));
  if (n.caLogged)
    out.push(`    CA logged  ${t(n.caLogged.message)}${n.caLogged.reason ? ` (${t(n.caLogged.reason)})` : ''}${n.caLogged.at ? s.dim(` at ${t(n.caLogged.at)}`) : ''}`);
  return out;
}

function notBlockingSection(nodes: ScaleDownNodeReport[], caMinor: number, s: Style): string[] {
  const byKind = new Map<NotBlockingKind, string[]>();
  for (const n of nodes) {
    for (const p of n.notBlocking) {
      const label = t(p.kind === 'DaemonSet' ? p.name.replace(/-[a-z0-9]{5}$/, '') : `${p.namespace}/${p.name}`);
      const detail = p.volumes?.length ? `${label} (${t(p.volumes.join(', '))})` : label;
      // appended in place: copying the list per pod was quadratic (20,000 DaemonSet pods at 5,000 nodes)
      const items = byKind.get(p.kind);
      if (items) items.push(`${detail} on ${shortNode(n.name)}`);
      else byKind.set(p.kind, [`${detail} on ${shortNode(n.name)}`]);
    }
  }
  const out: string[] = [s.bold('Does not block (often believed to)')];
  for (const kind of Object.keys(NOT_BLOCKING_TITLE) as NotBlockingKind[]) {
    const items = byKind.get(kind);
    if (!items?.length) continue;
    if (kind === 'DaemonSet') {
      const names = [...new Set(items.map((i) => i.split(' on ')[0]))].sort();
      out.push(`  ${NOT_BLOCKING_TITLE[kind]}: ${items.length} (${names.join(', ')})`);
      continue;
    }
    out.push(`  ${NOT_BLOCKING_TITLE[kind]}: ${items.join('; ')}`);
  }
  if (caMinor < 33)
    out.push(
      s.dim(
        `  kube-system pods without a PDB: CA 1.${caMinor} blocks on them for as long as they run; 1.33+ only for their first hour (--blocking-system-pod-distruption-timeout)`,
      ),
    );
  return out.length > 1 ? out : [];
}

/** The text report, whole. */
export function renderScaleDownText(input: ScaleDownTextInput, s: Style = PLAIN): string {
  return `${[...scaleDownTextBlocks(input, s)].join('\n')}\n`;
}

/**
 * The text report block by block (a line, or the node table), each to be followed by a newline: written as it is made,
 * a report of 15,000 nodes is never held whole beside the analysis.
 */
export function* scaleDownTextBlocks(input: ScaleDownTextInput, s: Style = PLAIN): Generator<string> {
  // at a terminal, every line of prose wraps at spaces to its width (pipes get one line per fact, for grep)
  const width = input.width;
  let table: string | undefined;
  for (const block of blocksOf(input, s, (t) => (table = t))) yield width && block !== table ? wrapProse(block, width) : block;
}

/** The report's blocks in order; `isTable` is told which one is the node table (it is not wrapped as prose). */
function* blocksOf(input: ScaleDownTextInput, s: Style, isTable: (t: string) => void): Generator<string> {
  yield s.bold('casdoctor scale-down-blockers') + s.dim(` · ${t(input.header.ca)} · now ${t(input.header.now)} · ${t(input.header.source)}`);
  for (const n of input.notes) yield s.yellow(`note: ${t(n)}`);
  for (const c of input.cooldowns) yield s.yellow(`cooldown: ${t(c)}`);
  const health = caHealthSection(input.findings, s);
  if (health.length) yield* ['', ...health];
  const summary = t(input.summary);
  yield* ['', s.bold(summary), ''];
  if (input.karpenterOnly) {
    const k = input.karpenter?.(s) ?? [];
    yield* k.length ? [...k, ''] : ['No Karpenter node in scope.', ''];
  } else if (input.nodes.length === 0) {
    yield* ['No nodes in scope.', ''];
  } else {
    const rows = input.nodes.map((n) => [
      input.wide ? t(n.name) : shortNode(n.name),
      t(n.nodeGroup ?? (input.karpenterNodePools?.has(n.name) ? `nodepool/${input.karpenterNodePools.get(n.name)}` : '-')),
      utilCell(n),
      verdictCell(n, s),
      t(n.caReason ?? '-'),
      blockingCell(n),
    ]);
    // at a narrow terminal the utilization cell would break into three lines beside CA's longest reason: it goes under
    // the row with the blocking pods instead ("utilization: cpu 75.6% <= 85%*; blocking pods: …"), whole
    const narrow = input.width !== undefined && input.width < 100;
    const head = narrow ? ['NODE', 'GROUP', 'VERDICT', 'CA REASON', 'UTILIZATION'] : ['NODE', 'GROUP', 'UTILIZATION', 'VERDICT', 'CA REASON', 'BLOCKING PODS'];
    const cells = narrow
      ? rows.map(([node, group, util, verdict, reason, blocking]) => [node, group, verdict, reason, blocking ? `${util}; blocking pods: ${blocking}` : util])
      : rows;
    const table = input.width ? fitTable(head, cells, input.width) : plainTable(head, rows);
    isTable(table);
    yield table;
    if (input.nodes.some((n) => n.utilization?.thresholdSource === 'asg-tag'))
      yield s.dim('  * threshold from the ASG tag k8s.io/cluster-autoscaler/node-template/autoscaling-options/...');
    // externalgrpc: GetOptions answers the group's autoscalingOptions (as CA of this version reads them)
    if (input.nodes.some((n) => n.utilization?.thresholdSource === 'provider'))
      yield s.dim("  * threshold from the provider's per-group autoscalingOptions (GetOptions), as this CA version reads them");
    yield '';
    yield s.bold("Why, by CA reason (CA's order)");
    const removable = input.nodes.filter((n) => n.removable);
    if (removable.length) {
      yield s.green(`removable (${removable.length})`);
      for (const n of removable) yield* nodeDetail(n, s);
    }
    for (const reason of REASON_ORDER) {
      const hit = input.nodes.filter((n) => n.caReason === reason);
      if (!hit.length) continue;
      yield `${s.bold(reason)} (${hit.length})`;
      for (const n of hit) {
        const pool = reason === 'NotAutoscaled' ? input.karpenterNodePools?.get(n.name) : undefined;
        // CA never manages Karpenter's instances: say so instead of presenting it as a problem
        if (pool !== undefined) yield `  ${s.bold(t(n.name))}: Karpenter node (NodePool ${t(pool)}); CA ignores it by design and Karpenter decides whether it goes (below)`;
        else yield* nodeDetail(n, s);
      }
    }
    yield '';
    const k = input.karpenter?.(s) ?? [];
    if (k.length) yield* [...k, ''];
    const nb = notBlockingSection(input.nodes, input.caMinor, s);
    if (nb.length) yield* [...nb, ''];
  }
  const rest = input.findings.filter((f) => !isCaHealthFinding(f));
  if (rest.length > 0) {
    yield s.bold('What to change');
    for (const f of rest) yield indent(findingBlock(f, s, { keepBlank: true }), '  ', true);
    yield '';
  }
  yield `${s.bold(summary)} · ${findingCounts(input.findings)}`;
  yield* skippedLines(input.skipped, s);
}
