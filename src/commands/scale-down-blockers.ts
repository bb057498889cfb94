import { isKarpenterNode, karpenterConsolidationStory, karpenterDisruptions, karpenterInputs, karpenterLog } from '../checks/lib/karpenter.js';
import { karpenterKeeps, karpenterNodeJson, renderKarpenterDisruptionSection } from '../report/karpenter-text.js';
import { isKarpenterOnly, karpenterHeaderText } from '../checks/lib/route.js';
import { caHealthFrom } from '../model/ca-health.js';
import { InputError, UsageError } from '../model/errors.js';
import type { ScaleDownNodeReport } from '../model/scale-down.js';
import type { LabelSelectorRequirement, Node } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import type { RawInputs } from '../model/snapshot.js';
import { renderScaleDownText, type ScaleDownTextInput, scaleDownTextBlocks } from '../report/scale-down-text.js';
import { terminalStyle, wantsColor } from '../report/style.js';
import type { Analysis } from '../simulate/analysis.js';
import { analyzeScaleDown } from '../simulate/scale-down.js';
import {
  gatherInputs,
  headerProvider,
  noNodeGroupsNote,
  reportHeader,
  type ChunkSink,
  type DeferredWrite,
  renderMachineReport,
  stdoutSink,
  writeMachineReport,
  renderNames,
  requireOutput,
} from './common.js';
import { analyse, checksOf, warnInputs } from './pipeline.js';
import { exitCodeFor } from './strict.js';
import { labelsMatch, parseLabelSelector } from './selector.js';
import { parseWatchInterval } from './watch-interval.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface ScaleDownBlockersOptions extends GlobalOptions {
  node?: string;
  nodegroup?: string;
  selector?: string;
  /** --fail-on was given on the command line (the global default does not fail this command). */
  failOnExplicit?: boolean;
  /** --pick: choose the node from a list (at a terminal). */
  pick?: boolean;
  /** --watch [interval] */
  watch?: string | boolean;
}

function canPromptWith(o: ScaleDownBlockersOptions, deps: Deps): boolean {
  return Boolean(deps.terminal && deps.stdinIsTTY && deps.stdoutIsTTY && o.output === 'table' && !o.yes);
}

function listOf(names: string[], max = 8): string {
  return names.length > max ? `${names.slice(0, max).join(', ')}, ...` : names.join(', ');
}

export interface ScaleDownRound {
  text: string;
  nodes: ScaleDownNodeReport[];
  exitCode: number;
  /** sink 'deferred' (a --watch round): writes the machine report, streamed, once the round's banner is out. */
  write?: DeferredWrite;
}

export async function runScaleDownBlockers(o: ScaleDownBlockersOptions, deps: Deps): Promise<RunResult> {
  requireOutput(o.output, ['table', 'wide', 'json', 'yaml', 'name'], 'scale-down-blockers');
  if (o.selector) parseLabelSelector(o.selector);
  const watchMs = o.watch === undefined ? undefined : parseWatchInterval(o.watch);
  let target = o;
  if (o.pick) {
    if (o.node) throw new UsageError('--pick chooses a node; it does not combine with --node');
    if (!canPromptWith(o, deps)) throw new UsageError('--pick needs a terminal (and no -o json or --yes); name the node with --node');
    const raw = await gatherInputs(o, deps);
    const node = await pickNode(raw, deps);
    if (!node) return { exitCode: EXIT.ok };
    target = { ...o, node };
  }
  if (watchMs === undefined) {
    // -o json|yaml is streamed to stdout as it is written; a --watch round streams it after the round's banner
    const round = await scaleDownRound(target, deps, stdoutSink(deps));
    if (round.text) deps.stdout(round.text);
    return { exitCode: round.exitCode };
  }
  const { compactNodes, watchLoop } = await import('./watch.js');
  return watchLoop({
    intervalMs: watchMs,
    deps,
    round: () => scaleDownRound(target, deps, 'deferred'),
    machine: o.output !== 'table' && o.output !== 'wide',
    changes: (prev, next) => nodeChanges(prev.nodes, next.nodes),
    ...(o.output === 'table' ? { compact: (r: ScaleDownRound) => compactNodes(r.nodes) } : {}),
  });
}

/** What changed between two rounds: a node became removable (or stopped being), its CA reason changed, it appeared or went. */
export function nodeChanges(prev: ScaleDownNodeReport[], next: ScaleDownNodeReport[]): string[] {
  const before = new Map(prev.map((n) => [n.name, n]));
  const after = new Map(next.map((n) => [n.name, n]));
  const out: string[] = [];
  for (const [name, n] of after) {
    const b = before.get(name);
    if (!b) out.push(`${name} is new (${n.removable ? 'removable' : n.caReason})`);
    else if (b.removable !== n.removable) out.push(`${name} ${n.removable ? 'became removable' : `is no longer removable: ${n.caReason}`}`);
    else if (b.caReason !== n.caReason) out.push(`${name}: ${b.caReason} → ${n.caReason}`);
  }
  for (const name of before.keys()) if (!after.has(name)) out.push(`${name} is gone`);
  return out;
}

/** Lists the nodes (group, Ready) and lets the user choose one. */
async function pickNode(raw: RawInputs, deps: Deps): Promise<string | undefined> {
  const items = [...raw.nodes]
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
    .map((n) => {
      const labels = n.metadata.labels ?? {};
      const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      return {
        label: n.metadata.name ?? '',
        detail: `${labels['node.kubernetes.io/instance-type'] ?? '?'} · ${labels['topology.kubernetes.io/zone'] ?? '?'}${ready ? '' : ' · NotReady'}`,
        value: n.metadata.name ?? '',
      };
    });
  if (items.length === 0) {
    deps.stdout('No nodes.\n');
    return undefined;
  }
  const { pick } = await import('../interactive/picker.js');
  return pick('Pick a node', items, deps.terminal!);
}

/**
 * The node a --node argument names: its full name, kubectl's node/NAME, the short name casdoctor's tables print
 * (ip-10-0-14-37 for ip-10-0-14-37.ec2.internal) when exactly one node has it, or its EC2 instance id (i-…, as
 * asg-audit prints it), found in the nodes' spec.providerID (aws:///us-east-1a/i-…).
 */
export function resolveNodeName(arg: string, names: readonly string[], providerIds: ReadonlyMap<string, string> = new Map()): string {
  const name = /^(nodes?|no)\//i.test(arg) ? arg.slice(arg.indexOf('/') + 1) : arg;
  if (names.includes(name)) return name;
  if (/^i-[0-9a-f]{8,17}$/.test(name)) {
    const owners = [...providerIds].filter(([, id]) => id.endsWith(`/${name}`)).map(([node]) => node);
    if (owners.length === 1) return owners[0];
    if (owners.length === 0) throw new InputError(`no node has instance ${name} (spec.providerID); nodes: ${listOf([...names].sort())}`);
  }
  const short = names.filter((n) => n.startsWith(`${name}.`));
  if (short.length === 1) return short[0];
  if (short.length > 1) throw new UsageError(`node ${name} is ambiguous: ${listOf([...short].sort())}; give the full name`);
  throw new InputError(`node ${name} not found; nodes: ${listOf([...names].sort())}`);
}

/**
 * What --nodegroup names: a CA node group, else a Karpenter NodePool; nodepool/NAME (as the lists name a NodePool) is
 * the NodePool NAME unless a group has that very name.
 */
function nodegroupTarget(arg: string, a: Analysis): { name: string; isGroup: boolean } {
  const isGroup = (name: string) => a.nodeGroupsResult.nodeGroups.some((g) => g.name === name);
  const name = arg.startsWith('nodepool/') && !isGroup(arg) ? arg.slice('nodepool/'.length) : arg;
  return { name, isGroup: isGroup(name) };
}

/** The nodes the command shows (--node resolved, --nodegroup, -l); the simulation still covers every node. */
function nodeScopeOf(
  node: string | undefined,
  nodegroup: string | undefined,
  reqs: LabelSelectorRequirement[],
): (n: Node, group: NodeGroup | undefined, a: Analysis) => boolean {
  let target: { name: string; isGroup: boolean } | undefined;
  return (n, group, a) => {
    if (node !== undefined && n.metadata.name !== node) return false;
    if (reqs.length > 0 && !labelsMatch(reqs, n.metadata.labels)) return false;
    if (nodegroup === undefined) return true;
    target ??= nodegroupTarget(nodegroup, a);
    // a NodePool's nodes belong to no CA group: its label names the pool (docs/karpenter.md)
    return group?.name === target.name || (!target.isGroup && isKarpenterNode(n) && n.metadata.labels?.['karpenter.sh/nodepool'] === target.name);
  };
}

function requireNodesAndPods(o: ScaleDownBlockersOptions, raw: RawInputs): void {
  for (const kind of ['nodes', 'pods'] as const) {
    if (!raw.provided.has(kind)) {
      throw new InputError(
        o.from.length
          ? `no ${kind === 'nodes' ? 'Nodes' : 'Pods'} in ${o.from.join(', ')}: add \`kubectl get ${kind}${kind === 'pods' ? ' -A' : ''} -o json\` output`
          : `no ${kind} could be listed from the cluster`,
      );
    }
  }
  // a node whose pods the dump left out looks empty, hence "removable": scale-down needs every pod, as a missing list
  if (raw.podsPartial) throw new InputError(`scale-down cannot be evaluated on part of the cluster's pods: ${raw.podsPartial.detail}`);
}

/** One complete run: gather, analyse, check, render. */
export async function scaleDownRound(o: ScaleDownBlockersOptions, deps: Deps, sink?: ChunkSink | 'deferred'): Promise<ScaleDownRound> {
  const reqs = o.selector ? parseLabelSelector(o.selector) : [];
  const { raw, now, analysis } = await analyse(o, deps, {
    require: (raw) => requireNodesAndPods(o, raw),
    scopes: (raw) => {
      const names = raw.nodes.map((n) => n.metadata.name ?? '');
      if (o.node) o = { ...o, node: resolveNodeName(o.node, names, new Map(raw.nodes.map((n) => [n.metadata.name ?? '', n.spec?.providerID ?? '']))) };
      return { nodeScope: nodeScopeOf(o.node, o.nodegroup, reqs) };
    },
  });
  const kPresent = karpenterInputs(analysis).present;
  const nodePoolNames = karpenterInputs(analysis).nodePools.map((np) => np.metadata.name ?? '');
  if (o.nodegroup) {
    const target = nodegroupTarget(o.nodegroup, analysis);
    o = { ...o, nodegroup: target.name };
    if (!target.isGroup && !nodePoolNames.includes(target.name)) {
      const groups = [...analysis.nodeGroupsResult.nodeGroups.map((g) => g.name), ...nodePoolNames.map((n) => `nodepool/${n}`)].sort();
      throw new InputError(
        `node group ${o.nodegroup} not found${groups.length ? `; Auto Scaling groups: ${listOf(groups)}` : ': the input has no Auto Scaling groups'}`,
      );
    }
  }
  const sd = analyzeScaleDown(analysis);
  const checkRun = checksOf(analysis, 'scale-down-blockers');
  const skipped = checkRun.skipped;
  // Karpenter's nodes belong to no ASG by design: CA's "not autoscaled" about them is not a problem to fix
  const karpenterNodeNames = new Set(raw.nodes.filter(isKarpenterNode).map((n) => n.metadata.name ?? ''));
  const findings = checkRun.findings.filter((f) => !(f.checkId === 'node-not-autoscaled' && karpenterNodeNames.has(f.subject.name)));
  // Karpenter's latest line on each node (or its NodeClaim), from its log when the input has one
  const kLog = kPresent ? karpenterLog(analysis) : undefined;
  const kLogged = (d: { node?: string; nodeClaim?: string }) => (d.node ? kLog?.nodes.get(d.node) : undefined) ?? (d.nodeClaim ? kLog?.nodes.get(d.nodeClaim) : undefined);
  const kNodes = kPresent
    ? karpenterDisruptions(analysis).filter((d) => {
        const node = d.node ? raw.nodes.find((n) => n.metadata.name === d.node) : undefined;
        return (
          (o.node === undefined || d.node === o.node) &&
          (o.nodegroup === undefined || d.nodePool === o.nodegroup) &&
          (reqs.length === 0 || (node !== undefined && labelsMatch(reqs, node.metadata.labels)))
        );
      })
    : [];
  const caHealth = caHealthFrom(findings);
  // a Karpenter-only cluster: Karpenter's section is the report (CA's checks did not run: engine.ts)
  const karpenterOnly = isKarpenterOnly(analysis);
  // no CA, no CA cooldown (a scale-up event of a CA that is gone must not read as one now)
  const cooldowns = karpenterOnly ? [] : sd.cooldowns;
  const logIndex = analysis.caLogIndex;
  // CA's own word per node beside casdoctor's verdict (a copy: the analysis is memoized)
  const nodeReports = sd.inScope.map((n) => {
    const rec = logIndex?.forNode(n.name);
    return rec
      ? { ...n.report, caLogged: { status: rec.status, ...(rec.reason ? { reason: rec.reason } : {}), message: rec.message, ...(rec.lastSeen ? { at: rec.lastSeen } : {}) } }
      : n.report;
  });

  warnInputs(raw, deps);

  let text: string;
  let write: DeferredWrite | undefined;
  if (o.output === 'name') {
    text = renderNames('node', nodeReports.map((n) => n.name));
  } else if (o.output === 'json' || o.output === 'yaml') {
    const report = {
        schemaVersion: 1 as const,
        command: 'scale-down-blockers',
        now: now.toISOString(),
          findings,
        skipped,
        summary: sd.summary,
        notes: sd.notes,
        nodes: nodeReports,
        cooldowns: cooldowns.map((c) => ({
          cause: c.cause,
          at: c.at.toISOString(),
          flag: c.flag,
          leftSeconds: Math.ceil(c.leftMs / 1000),
          ...(c.group ? { nodeGroup: c.group } : {}),
        })),
        caHealth: { running: caHealth.running, findings: caHealth.findings.map((f) => f.checkId) },
        ...(kPresent ? { karpenter: { now: now.toISOString(), nodes: kNodes.map((d) => karpenterNodeJson(d, kLogged(d), karpenterConsolidationStory(analysis, d))) } } : {}),
      };
    if (sink === 'deferred') write = (s) => writeMachineReport(o.output, report, s);
    else if (sink) await writeMachineReport(o.output, report, sink);
    text = sink ? '' : await renderMachineReport(o.output, report);
  } else {
    const ca = analysis.ca;
    const notes: string[] = [];
    if (karpenterOnly) {
      const others = raw.nodes.filter((n) => !isKarpenterNode(n)).length;
      if (others) notes.push(`no Cluster Autoscaler in the input: Karpenter removes its own nodes; the ${others} node(s) of no NodePool are removed by no autoscaler`);
    } else if (analysis.nodeGroupsResult.nodeGroups.length === 0)
      notes.push(
        noNodeGroupsNote(analysis, 'no Auto Scaling Groups in the input: every node looks NotAutoscaled (add `aws autoscaling describe-auto-scaling-groups --output json`)'),
      );
    notes.push(...sd.notes);
    if (o.node || o.nodegroup || o.selector)
      notes.push('filters choose what is shown; the simulation still covers every node, as CA does');
    const header = reportHeader(ca, now, o, undefined, headerProvider(analysis));
    const input: ScaleDownTextInput = {
          summary: karpenterOnly ? `${kNodes.filter((d) => !karpenterKeeps(d)).length} of ${kNodes.length} Karpenter node(s) may go now` : sd.summary,
          nodes: nodeReports,
          ...(karpenterOnly ? { karpenterOnly } : {}),
          caMinor: ca.version.minor,
          cooldowns: cooldowns.map(
            (c) =>
              `${c.group ? `node group ${c.group}: ` : ''}${c.flag} after the ${c.cause.replaceAll('-', ' ')} at ${c.at.toISOString()} (${Math.ceil(c.leftMs / 60_000)}m left)`,
          ),
          ...(sd.caStartedAt ? { caStartedAt: sd.caStartedAt.toISOString() } : {}),
          findings,
          skipped,
          header: karpenterOnly ? { ...header, ca: karpenterHeaderText(analysis) } : header,
          notes,
          width: deps.stdoutIsTTY && o.output !== 'wide' ? deps.terminalWidth : undefined,
          wide: o.output === 'wide',
          karpenterNodePools: new Map(raw.nodes.filter(isKarpenterNode).map((n) => [n.metadata.name ?? '', n.metadata.labels?.['karpenter.sh/nodepool'] ?? ''])),
          karpenter: (st) => renderKarpenterDisruptionSection(kNodes, st, { now: now.toISOString(), logged: kLogged, story: (d) => karpenterConsolidationStory(analysis, d), ...(karpenterOnly ? { caAbsent: true } : {}) }),
        };
    const style = await terminalStyle(wantsColor(o, deps));
    if (sink && sink !== 'deferred') {
      // written as it is made, in chunks: at 15,000 nodes the whole report is 18 MB held beside the analysis
      await writeBlocks(scaleDownTextBlocks(input, style), sink);
      text = '';
    } else text = renderScaleDownText(input, style);
  }
  const nodes = sd.inScope.map((n) => n.report);
  const deferred = write ? { write } : {};
  // the global --fail-on default does not fail this command: only one given on its command line
  return { text, nodes, exitCode: o.failOnExplicit ? exitCodeFor(o.failOn, findings) : EXIT.ok, ...deferred };
}

/** Blocks of a text report to `sink`, each followed by a newline, in chunks of about 64 KiB (backpressure honoured). */
async function writeBlocks(blocks: Iterable<string>, sink: ChunkSink): Promise<void> {
  let chunk = '';
  for (const b of blocks) {
    chunk += `${b}\n`;
    if (chunk.length >= 1 << 16) {
      await sink(chunk);
      chunk = '';
    }
  }
  if (chunk) await sink(chunk);
}
