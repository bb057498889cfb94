// `casdoctor` with no subcommand: a one-screen overview of autoscaling health, then (at a terminal) a menu of next steps.
import { CHECKS } from '../checks/index.js';
import { runChecks } from '../checks/lib/engine.js';
import { CA_HEALTH_CHECKS, caHealthFrom } from '../model/ca-health.js';
import { shellCommand } from '../model/shell.js';
import { formatDurationShort } from '../model/duration.js';
import type { Finding } from '../model/findings.js';
import { safeText as t } from '../report/sanitize.js';
import { PLAIN, type Style, terminalStyle, wantsColor } from '../report/style.js';
import { wrapProse } from '../report/table.js';
import { Analysis } from '../simulate/analysis.js';
import { caVersionText } from '../simulate/ca-config.js';
import { analyzeScaleDown } from '../simulate/scale-down.js';
import { analyzePods, isPendingCandidate } from '../simulate/why-pending.js';
import { InputError, UsageError } from '../model/errors.js';
import {
  isKarpenterNode,
  karpenterDisruptions,
  karpenterInputs,
  karpenterPodView,
  karpenterPoolViews,
  karpenterSkip,
} from '../checks/lib/karpenter.js';
import { karpenterKeeps } from '../report/karpenter-text.js';
import { stuckNodeClaims } from '../simulate/providers/karpenter/placement.js';
import { gatherIam } from './asg-audit.js';
import { gatherInputs, loadInstanceTypeData, renderMachineReport, requireOutput, resolveNow, splitArgs } from './common.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface OverviewData {
  ca: string[];
  pending: { total: number; noScaleUp: number; ignored: number; scaleUp: number; fitsNode: number; blocked: string[] };
  scaleDown: { nodes: number; removable: number; topReasons: Array<[string, number]> };
  asg: { error: number; warning: number; info: number; top: Finding[] };
  iam: string;
  /** CA's cloud provider when it is not aws: its id and which of its inputs it runs with (ConfigMap or file). */
  provider?: { id: string; source: string };
  /** Karpenter beside CA: its NodePools, who serves each Pending pod, the Karpenter nodes it keeps. Absent without Karpenter. */
  karpenter?: {
    lines: string[];
    nodePools: Array<{ name: string; line: string }>;
    routes: { ca: number; karpenter: number; both: number; neither: number };
    /** Pending pods by route, as namespace/name. */
    podsByRoute: Record<'ca' | 'karpenter' | 'both' | 'neither', string[]>;
    nodes: { total: number; kept: number; byBlocker: Array<[string, number]> };
  };
}

function countBy<T>(items: T[], key: (t: T) => string | undefined): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const i of items) {
    const k = key(i);
    if (k) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

export async function buildOverview(o: GlobalOptions, deps: Deps): Promise<{ data: OverviewData; exitCode: number }> {
  const now = resolveNow(o, deps);
  const raw = await gatherInputs(o, deps);
  // nothing casdoctor reads: an error like every subcommand's, not an all-clear built from nothing
  if (!raw.provided.has('pods') && !raw.provided.has('nodes') && !raw.provided.has('autoScalingGroups')) {
    throw new InputError(
      o.from.length
        ? `no Pods, Nodes or Auto Scaling groups in ${o.from.join(', ')}: add \`kubectl get pods,nodes -A -o json\` and \`aws autoscaling describe-auto-scaling-groups --output json\` output`
        : 'no Pods, Nodes or Auto Scaling groups could be listed',
    );
  }
  const a = new Analysis(raw, { now, caArgs: o.caArgs ? splitArgs(o.caArgs) : undefined, staticInstanceTypes: await loadInstanceTypeData() });
  a.scope = isPendingCandidate;
  await gatherIam(raw, a, { ...o }, deps);

  const ca = a.ca;
  const caLines: string[] = [];
  if (ca.found) {
    caLines.push(`CA ${caVersionText(ca)} in ${ca.deployment?.namespace}/${ca.deployment?.name}`);
    const f = ca.flags;
    caLines.push(
      `${a.provider.id !== 'aws' ? `node groups from the ${a.provider.id} provider (${a.provider.describeSource(a.providerContext)})` : `discovery ${f.nodeGroupAutoDiscovery.value.join(' ') || (f.nodes.value.length ? `--nodes ${f.nodes.value.join(' ')}` : 'none')}`} · expander ${f.expander.value}` +
        ` · scale-down threshold ${f.scaleDownUtilizationThreshold.value}${f.maxNodesTotal.value ? ` · max nodes ${f.maxNodesTotal.value}` : ''}` +
        `${f.balanceSimilarNodeGroups.value ? ' · balance-similar-node-groups' : ''}`,
    );
  } else caLines.push(`no Cluster Autoscaler Deployment found (casdoctor assumes CA 1.${ca.version.minor} defaults)`);
  const st = a.caStatus;
  if (st) {
    const backoff = st.nodeGroups.filter((g) => g.scaleUpStatus === 'Backoff').map((g) => g.name);
    caLines.push(
      `status ConfigMap: ${st.clusterHealth ?? 'unknown'}, updated ${st.ageMs !== undefined ? `${formatDurationShort(Math.round(st.ageMs / 1000) * 1000)} ago` : 'at an unknown time'}${st.stale ? ' (STALE: CA is probably not running)' : ''}` +
        `${backoff.length ? ` · in backoff: ${backoff.join(', ')}` : ''}`,
    );
  } else if (raw.provided.has('configMaps')) caLines.push('status ConfigMap: missing');
  // is CA running at all: its pod, its log, its metrics (the CA-health checks), first in the overview too
  const healthRun = runChecks(CHECKS, a, 'why-pending');
  const health = caHealthFrom(healthRun.findings);
  // a health check that could not run is named, never counted as "no problem"
  const healthIds = new Set<string>(CA_HEALTH_CHECKS);
  const unread = healthRun.skipped.filter((x) => healthIds.has(x.checkId));
  if (health.findings.length === 0)
    caLines.push(
      unread.length
        ? `CA health: no problem found; not evaluated: ${unread.map((x) => `${x.checkId} (${x.detail})`).join('; ')}`
        : 'CA health: no problem found in its pod, log or metrics',
    );
  else {
    caLines.push(health.running === false ? 'CA health: CA IS NOT SCALING NOW' : 'CA health:');
    for (const f of health.findings.slice(0, 4)) caLines.push(`  ${f.severity === 'error' ? '✖' : f.severity === 'warning' ? '▲' : 'ℹ'} ${f.checkId}  ${f.message}`);
    if (health.findings.length > 4) caLines.push(`  … and ${health.findings.length - 4} more (casdoctor why-pending --all)`);
  }

  const pods = analyzePods(a);
  const v = (name: string) => pods.filter((p) => p.report.verdict === name).length;
  const blocked = pods.filter((p) => p.report.verdict === 'no-scale-up').map((p) => `${p.report.namespace}/${p.report.name}`);

  const karpenterNodeNames = new Set(raw.nodes.filter(isKarpenterNode).map((n) => n.metadata.name ?? ''));
  let scaleDown: OverviewData['scaleDown'] = { nodes: 0, removable: 0, topReasons: [] };
  if (raw.provided.has('nodes')) {
    const sd = analyzeScaleDown(a);
    scaleDown = {
      nodes: sd.nodes.length,
      removable: sd.nodes.filter((n) => n.report.removable).length,
      // every reason: the kept counts add up to the nodes not removable
      // Karpenter's nodes are NotAutoscaled to CA by design: counted apart so they do not read as a problem
      topReasons: countBy(sd.nodes, (n) =>
        n.report.removable ? undefined : n.report.caReason === 'NotAutoscaled' && karpenterNodeNames.has(n.report.name) ? 'Karpenter nodes (CA ignores them)' : (n.report.caReason ?? n.report.verdict),
      ),
    };
  }

  const otherProvider = a.provider.id !== 'aws';
  const asgRun = raw.provided.has('autoScalingGroups') || otherProvider ? runChecks(CHECKS, a, 'asg-audit') : { findings: [], skipped: [] };
  const bySev = (s: string) => asgRun.findings.filter((f) => f.severity === s).length;
  const iamFindings = asgRun.findings.filter((f) => f.checkId.startsWith('iam-'));
  const iamSkipped = asgRun.skipped.find((s) => s.checkId.startsWith('iam-'));
  const iam = otherProvider
    ? `not applicable: CA runs with --cloud-provider=${a.provider.id}`
    : !raw.provided.has('autoScalingGroups')
    ? 'not evaluated: no Auto Scaling groups in the input'
    : iamSkipped
    ? // --iam-policy is asg-audit's flag: the overview must not advise a flag it rejects
      `not evaluated: ${iamSkipped.detail.replace(/pass --iam-policy/g, 'run casdoctor asg-audit --iam-policy')}`
    : iamFindings.length
      ? `${iamFindings.length} denied action(s): ${[...new Set(iamFindings.map((f) => f.message.split(' ')[0]))].slice(0, 3).join(', ')}`
      : 'every action CA needs is allowed';

  const karpenter = karpenterInputs(a).present ? karpenterOverview(a, pods) : undefined;

  const data: OverviewData = {
    ca: caLines,
    pending: { total: pods.length, noScaleUp: v('no-scale-up'), ignored: v('ignored-by-ca'), scaleUp: v('scale-up'), fitsNode: v('fits-existing-node'), blocked },
    scaleDown,
    asg: { error: bySev('error'), warning: bySev('warning'), info: bySev('info'), top: asgRun.findings.filter((f) => f.severity === 'error').slice(0, 3) },
    iam,
    ...(otherProvider ? { provider: { id: a.provider.id, source: a.provider.describeSource(a.providerContext) } } : {}),
    ...(karpenter ? { karpenter } : {}),
  };
  const exitCode = data.pending.noScaleUp + data.pending.ignored > 0 || data.asg.error > 0 ? EXIT.findings : EXIT.ok;
  return { data, exitCode };
}

/** The Karpenter half of the overview (src/checks/lib/karpenter.ts does the work). */
function karpenterOverview(a: Analysis, pods: ReturnType<typeof analyzePods>): NonNullable<OverviewData['karpenter']> {
  const k = karpenterInputs(a);
  const lines: string[] = [];
  const st = k.settings;
  lines.push(
    st
      ? `Karpenter ${st.version ?? '(version unknown)'} in ${st.namespace ?? '?'}/${st.name ?? '?'}${st.clusterName ? ` · cluster ${st.clusterName}` : ''}`
      : 'Karpenter: its CRDs are in the input but not its Deployment (version and settings unknown)',
  );
  const notReady = k.nodeClasses.filter((c) => c.status?.conditions?.find((x) => x.type === 'Ready')?.status !== 'True').map((c) => c.metadata.name ?? '');
  const stuck = stuckNodeClaims(k.nodeClaims, undefined, a.now).filter((c) => c.stage !== 'initialization' || c.ageMs > 15 * 60_000);
  lines.push(
    `${k.nodePools.length} NodePool(s) · ${k.nodeClasses.length} EC2NodeClass(es)${notReady.length ? ` (not Ready: ${notReady.join(', ')})` : ''} · ${k.nodeClaims.length} NodeClaim(s)${stuck.length ? ` (not joined: ${stuck.map((c) => `${c.name} ${c.stage === 'registration' ? 'never registered' : c.stage === 'launch' ? 'not launched' : 'not initialized'}`).join(', ')})` : ''}`,
  );
  const skip = karpenterSkip(a, ['nodePools', 'ec2NodeClasses', 'nodeClaims']);
  if (skip) lines.push(`incomplete: ${skip.detail}`);
  const nodePools = karpenterPoolViews(a).map((v) => {
    const limits = v.resources.filter((r) => r.limit !== undefined).map((r) => `${r.resource} ${r.usedText}/${r.limitText}${r.exceeded ? ' EXCEEDED' : ''}`);
    const d = v.nodePool.spec.disruption;
    const ready = v.nodePool.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    return {
      name: v.name,
      line: `${v.name}  weight ${v.weight ?? 0} · ${v.nodes.length} node(s)${v.unregisteredInstances.length ? ` + ${v.unregisteredInstances.length} launched, not registered` : ''} · ${limits.length ? `limits ${limits.join(', ')}` : 'no limits'} · zones ${v.zones.join(', ') || 'none'} · ${d?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized'} after ${d?.consolidateAfter ?? '0s'}${ready === 'False' ? ' · NOT READY' : ''}`,
    };
  });
  const podsByRoute: NonNullable<OverviewData['karpenter']>['podsByRoute'] = { ca: [], karpenter: [], both: [], neither: [] };
  for (const p of pods) {
    if (p.report.verdict === 'not-pending' || p.report.verdict === 'fits-existing-node') continue;
    const r = karpenterPodView(a, p).routing.route;
    if (r !== 'not-pending') podsByRoute[r].push(`${p.report.namespace}/${p.report.name}`);
  }
  const disruptions = karpenterDisruptions(a).filter((d) => d.node !== undefined);
  const byBlocker = new Map<string, number>();
  for (const d of disruptions) for (const id of new Set(d.blockers.filter((b) => !b.partial).map((b) => b.id))) byBlocker.set(id, (byBlocker.get(id) ?? 0) + 1);
  return {
    lines,
    nodePools,
    routes: { ca: podsByRoute.ca.length, karpenter: podsByRoute.karpenter.length, both: podsByRoute.both.length, neither: podsByRoute.neither.length },
    podsByRoute,
    nodes: {
      total: disruptions.length,
      kept: disruptions.filter(karpenterKeeps).length,
      byBlocker: [...byBlocker].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)),
    },
  };
}

export function renderOverview(d: OverviewData, s: Style = PLAIN): string {
  const lines = [s.bold('casdoctor · Cluster Autoscaler overview'), ''];
  // every line below mixes casdoctor's words with foreign names, flags, tags and status text: made safe before styling
  lines.push(s.bold('Cluster Autoscaler'), ...d.ca.map((l) => `  ${t(l)}`), '');
  lines.push(
    s.bold('Pending pods'),
    `  ${d.pending.total} Pending: ${d.pending.noScaleUp ? s.red(`${d.pending.noScaleUp} no node group can place`) : '0 no node group can place'}, ${d.pending.scaleUp} CA scales up, ${d.pending.fitsNode} fit existing nodes, ${d.pending.ignored} ignored by CA`,
  );
  if (d.pending.blocked.length)
    lines.push(`  stuck: ${t(d.pending.blocked.slice(0, 5).join(', '))}${d.pending.blocked.length > 5 ? ', ...' : ''}`);
  const k = d.karpenter;
  if (k) {
    const r = k.routes;
    lines.push(
      `  who serves them: ${r.ca} CA, ${r.karpenter} Karpenter, ${r.both ? s.yellow(`${r.both} CA and Karpenter may both provision`) : '0 both'}, ${r.neither ? s.red(`${r.neither} neither`) : '0 neither'}`,
    );
    for (const route of ['both', 'neither'] as const)
      if (k.podsByRoute[route].length)
        lines.push(`  ${route}: ${t(k.podsByRoute[route].slice(0, 5).join(', '))}${k.podsByRoute[route].length > 5 ? ', ...' : ''}`);
  }
  lines.push('', s.bold('Scale-down'));
  lines.push(
    `  ${d.scaleDown.removable} of ${d.scaleDown.nodes} nodes removable now${d.scaleDown.topReasons.length ? `; kept: ${t(d.scaleDown.topReasons.map(([r, n]) => `${n} ${r}`).join(', '))}` : ''}`,
  );
  if (k) {
    lines.push('', s.bold('Karpenter'), ...k.lines.map((l) => `  ${t(l)}`));
    for (const np of k.nodePools) lines.push(`  NodePool ${t(np.line)}`);
    lines.push(
      `  Karpenter nodes: ${k.nodes.kept} of ${k.nodes.total} held${k.nodes.byBlocker.length ? ` (${t(k.nodes.byBlocker.map(([id, n]) => `${n} ${id}`).join(', '))})` : ''}; CA ignores them by design`,
    );
  }
  const audit = d.provider ? 'node-group-audit' : 'asg-audit';
  lines.push('', s.bold(d.provider ? `Node groups (${t(d.provider.id)})` : 'Auto Scaling groups'), `  findings: ${d.asg.error} error, ${d.asg.warning} warning, ${d.asg.info} info`);
  // whole messages (a cut one loses the name a user copies); the rest are counted and the audit lists them
  for (const f of d.asg.top) lines.push(`  ${s.red('✖')} ${t(f.checkId)}  ${t(f.message)}`);
  if (d.asg.error > d.asg.top.length) lines.push(`  … and ${d.asg.error - d.asg.top.length} more error(s): casdoctor ${audit} lists every finding`);
  lines.push('', s.bold('IAM'), `  ${t(d.iam)}`, '');
  return `${lines.join('\n')}\n`;
}

/** Quotes a word for a POSIX shell when it needs it. */
/** The flags that choose what a command reads, as given to this run: appended to the suggested next commands. */
export function sameInputFlags(o: GlobalOptions): string {
  const flags: string[] = [];
  for (const f of o.from) flags.push('--from', f);
  if (o.kubeconfig) flags.push('--kubeconfig', o.kubeconfig);
  if (o.context) flags.push('--context', o.context);
  if (o.profile) flags.push('--profile', o.profile);
  if (o.region) flags.push('--region', o.region);
  if (o.now) flags.push('--now', o.now);
  if (o.caArgs) flags.push('--ca-args', o.caArgs);
  return flags.length ? ` ${t(shellCommand(flags))}` : '';
}

const MENU = [
  { key: 'why-pending', label: 'Explain a Pending pod (pick one)' },
  { key: 'asg-audit', label: 'Audit the Auto Scaling groups' },
  { key: 'scale-down-blockers', label: 'Explain why nodes are not removed' },
];

export async function runOverview(o: GlobalOptions & { menu?: boolean }, deps: Deps): Promise<RunResult> {
  const output = requireOutput(o.output, ['table', 'json', 'yaml'], 'casdoctor (overview)');
  if (o.menu && !(deps.terminal && deps.stdinIsTTY && deps.stdoutIsTTY && !o.yes && output === 'table'))
    throw new UsageError('--menu needs a terminal (and no -o json or --yes)');
  const { data, exitCode } = await buildOverview(o, deps);
  if (output !== 'table') {
    const { overviewJson } = await import('./overview-json.js');
    deps.stdout(await renderMachineReport(output, overviewJson(data, resolveNow(o, deps))));
    return { exitCode };
  }
  const text = renderOverview(data, await terminalStyle(wantsColor(o, deps)));
  deps.stdout(deps.stdoutIsTTY && deps.terminalWidth ? `${wrapProse(text.replace(/\n$/, ''), deps.terminalWidth)}\n` : text);
  // kubectl's habit: print and exit; the menu of next commands only when asked for (--menu)
  if (!o.menu || !deps.terminal) {
    // the next commands read the same input as this one: --from, --now and the rest carried over
    const same = sameInputFlags(o);
    deps.stdout(`Next:\n${['why-pending -A', data.provider ? 'node-group-audit' : 'asg-audit', 'scale-down-blockers'].map((c) => `  casdoctor ${c}${same}\n`).join('')}`);
    return { exitCode };
  }
  const { pick } = await import('../interactive/picker.js');
  // another provider's users audit with node-group-audit (asg-audit is the AWS name)
  const menu = data.provider ? MENU.map((m) => (m.key === 'asg-audit' ? { key: 'node-group-audit', label: 'Audit the node groups' } : m)) : MENU;
  const choice = await pick('What next?', menu.map((m) => ({ label: m.label, detail: `casdoctor ${m.key}`, value: m.key })), deps.terminal);
  if (choice === 'why-pending') {
    const { runWhyPending } = await import('./why-pending.js');
    return runWhyPending({ ...o }, deps);
  }
  if (choice === 'node-group-audit') {
    const { runNodeGroupAudit } = await import('./node-group-audit.js');
    return runNodeGroupAudit({ ...o }, deps);
  }
  if (choice === 'asg-audit') {
    const { runAsgAudit } = await import('./asg-audit.js');
    return runAsgAudit({ ...o }, deps);
  }
  if (choice === 'scale-down-blockers') {
    const { runScaleDownBlockers } = await import('./scale-down-blockers.js');
    return runScaleDownBlockers({ ...o }, deps);
  }
  return { exitCode };
}
