// `casdoctor` with no subcommand: a one-screen overview of autoscaling health, then (at a terminal) a menu of next steps.
import { caRunning } from '../simulate/ca-running.js';
import { CA_HEALTH_CHECKS, caHealthFrom } from '../model/ca-health.js';
import { shellCommand } from '../model/shell.js';
import { formatDurationShort } from '../model/duration.js';
import { safeText as t } from '../report/sanitize.js';
import { PLAIN, type Style, terminalStyle, wantsColor } from '../report/style.js';
import { wrapProse } from '../report/table.js';
import type { Analysis } from '../simulate/analysis.js';
import { caVersionText } from '../simulate/ca-config.js';
import { analyzeScaleDown } from '../simulate/scale-down.js';
import { analyzePods } from '../simulate/why-pending.js';
import { isPendingCandidate } from '../model/k8s.js';
import { InputError, UsageError } from '../model/errors.js';
import {
  isKarpenterNode,
  karpenterDisruptions,
  karpenterInputs,
  karpenterPoolViews,
  karpenterSkip,
} from '../checks/lib/karpenter.js';
import { karpenterKeeps } from '../report/karpenter-text.js';
import { isKarpenterOnly, noCaOverviewLine, podRoute } from '../checks/lib/route.js';
import type { PodVerdict } from '../model/why-pending.js';
import { stuckNodeClaims } from '../simulate/providers/karpenter/placement.js';
import { gatherIam } from './asg-audit.js';
import { renderMachineReport, requireOutput } from './common.js';
import { analyse, checksOf } from './pipeline.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export type { OverviewData } from './overview-data.js';
import type { OverviewData } from './overview-data.js';

function countBy<T>(items: T[], key: (t: T) => string | undefined): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const i of items) {
    const k = key(i);
    if (k) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

export async function buildOverview(o: GlobalOptions, deps: Deps): Promise<{ data: OverviewData; exitCode: number }> {
  const { raw, now, analysis: a } = await analyse(o, deps, {
    // nothing casdoctor reads: an error like every subcommand's, not an all-clear built from nothing
    require: (raw) => {
      if (raw.provided.has('pods') || raw.provided.has('nodes') || raw.provided.has('autoScalingGroups')) return;
      throw new InputError(
        o.from.length
          ? `no Pods, Nodes or Auto Scaling groups in ${o.from.join(', ')}: add \`kubectl get pods,nodes -A -o json\` and \`aws autoscaling describe-auto-scaling-groups --output json\` output`
          : 'no Pods, Nodes or Auto Scaling groups could be listed',
      );
    },
    scopes: () => ({ podScope: isPendingCandidate }),
  });
  await gatherIam(raw, a, { ...o }, deps);

  const ca = a.ca;
  const caLines: string[] = [];
  if (ca.found) {
    caLines.push(`CA ${caVersionText(ca)} in ${ca.deployment?.namespace}/${ca.deployment?.name}`);
    const f = ca.flags;
    caLines.push(
      `${a.provider.groupKinds.length === 0 ? `node groups from the ${a.provider.id} provider (${a.provider.describeSource(a.providerContext)})` : `discovery ${f.nodeGroupAutoDiscovery.value.join(' ') || (f.nodes.value.length ? `--nodes ${f.nodes.value.join(' ')}` : 'none')}`} · expander ${f.expander.value}` +
        ` · scale-down threshold ${f.scaleDownUtilizationThreshold.value}${f.maxNodesTotal.value ? ` · max nodes ${f.maxNodesTotal.value}` : ''}` +
        `${f.balanceSimilarNodeGroups.value ? ' · balance-similar-node-groups' : ''}`,
    );
  } else caLines.push(`no Cluster Autoscaler Deployment found (casdoctor assumes CA 1.${ca.version.minor} defaults)`);
  const st = a.caStatus;
  if (st) {
    const backoff = st.nodeGroups.filter((g) => g.scaleUpStatus === 'Backoff').map((g) => g.name);
    caLines.push(
      `status ConfigMap: ${st.unreadable ? `could not be parsed (${t(st.unreadable)}): CA's health not evaluated` : (st.clusterHealth ?? 'unknown')}, updated ${st.ageMs !== undefined ? `${formatDurationShort(Math.round(st.ageMs / 1000) * 1000)} ago` : 'at an unknown time'}${st.stale ? ' (STALE: CA is probably not running)' : ''}` +
        `${backoff.length ? ` · in backoff: ${backoff.join(', ')}` : ''}`,
    );
  } else if (raw.provided.has('configMaps')) caLines.push('status ConfigMap: missing');
  // which CA log was read (several files of one CA are one log, merged by time), and the window it covers (issue 28)
  const log = a.caLog;
  if (log) {
    const src = log.source;
    const where =
      src.kind === 'file'
        ? src.paths && src.paths.length > 1
          ? `${src.paths.length} files merged by time (${src.paths.join(', ')})`
          : src.path
        : src.kind === 'pod'
          ? `pod ${src.namespace}/${src.pod}${src.previous ? ' (previous container)' : ''}`
          : 'given text';
    caLines.push(t(`CA log: ${where}, ${log.firstTime ?? '?'} to ${log.lastTime ?? '?'}`));
  }
  // is CA running at all: its pod, its log, its metrics (the CA-health checks), first in the overview too
  const healthRun = checksOf(a, 'why-pending');
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
  // each pod's verdict is the one of the autoscaler that serves it (CA's alone without Karpenter in the input)
  const verdicts = pods.map((p) => podRoute(a, p)?.verdict ?? p.report.verdict);
  const v = (name: PodVerdict) => verdicts.filter((x) => x === name).length;
  const blocked = pods.filter((_, i) => verdicts[i] === 'no-scale-up').map((p) => `${p.report.namespace}/${p.report.name}`);
  const karpenterOnly = isKarpenterOnly(a);

  const karpenterNodeNames = new Set(raw.nodes.filter(isKarpenterNode).map((n) => n.metadata.name ?? ''));
  let scaleDown: OverviewData['scaleDown'] = { nodes: 0, removable: 0, topReasons: [] };
  // a node whose pods the dump left out looks empty: no "removable" from part of the pods
  if (raw.podsPartial) scaleDown = { ...scaleDown, notEvaluated: raw.podsPartial.detail };
  else if (!raw.provided.has('nodes')) scaleDown = { ...scaleDown, notEvaluated: 'no Nodes in the input (add `kubectl get nodes -o json`)' };
  else if (!karpenterOnly) {
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

  // a CA that cannot run deletes nothing: the count is what it would remove once it runs (src/simulate/ca-running.ts)
  const stopped = caRunning(a).state;
  if (stopped === 'cannot-run' || stopped === 'likely-cannot-run') scaleDown = { ...scaleDown, caNotRunning: true };

  const otherProvider = a.provider.groupKinds.length === 0;
  const asgRun = a.provider.groupKinds.every((k) => raw.provided.has(k)) && !karpenterOnly ? checksOf(a, 'asg-audit') : { findings: [], skipped: [] };
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
    now,
    // a Karpenter-only cluster has no CA to describe: one line says so, and names the groups nothing resizes
    ca: karpenterOnly ? [noCaOverviewLine(a)] : caLines,
    pending: {
      total: pods.length,
      noScaleUp: v('no-scale-up'),
      ignored: v('ignored'),
      scaleUp: v('scale-up'),
      fitsNode: v('fits-existing-node'),
      ...(v('not-evaluated') ? { notEvaluated: v('not-evaluated') } : {}),
      blocked,
      ...(v('ca-not-running') ? { caNotRunning: v('ca-not-running') } : {}),
    },
    ...(karpenterOnly ? { karpenterOnly } : {}),
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
  const podsByRoute: NonNullable<OverviewData['karpenter']>['podsByRoute'] = { ca: [], karpenter: [], both: [], neither: [], unknown: [] };
  for (const p of pods) {
    const r = podRoute(a, p)?.route;
    if (r) podsByRoute[r].push(`${p.report.namespace}/${p.report.name}`);
  }
  const disruptions = karpenterDisruptions(a).filter((d) => d.node !== undefined);
  const byBlocker = new Map<string, number>();
  for (const d of disruptions) for (const id of new Set(d.blockers.filter((b) => !b.partial).map((b) => b.id))) byBlocker.set(id, (byBlocker.get(id) ?? 0) + 1);
  return {
    lines,
    nodePools,
    routes: { ca: podsByRoute.ca.length, karpenter: podsByRoute.karpenter.length, both: podsByRoute.both.length, neither: podsByRoute.neither.length, unknown: podsByRoute.unknown.length },
    podsByRoute,
    nodes: {
      total: disruptions.length,
      kept: disruptions.filter(karpenterKeeps).length,
      byBlocker: [...byBlocker].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)),
    },
  };
}

export function renderOverview(d: OverviewData, s: Style = PLAIN): string {
  const k = d.karpenter;
  // a Karpenter-only cluster is a Karpenter cluster: no CA section, no ASGs or IAM to ask for
  const lines = [s.bold(d.karpenterOnly ? 'casdoctor · Karpenter overview' : 'casdoctor · Cluster Autoscaler overview'), ''];
  // every line below mixes casdoctor's words with foreign names, flags, tags and status text: made safe before styling
  lines.push(s.bold('Cluster Autoscaler'), ...d.ca.map((l) => `  ${t(l)}`), '');
  const p = d.pending;
  lines.push(
    s.bold('Pending pods'),
    k
      ? `  ${p.total} Pending: ${p.noScaleUp ? s.red(`${p.noScaleUp} no autoscaler can place`) : '0 no autoscaler can place'}, ${p.scaleUp} get a new node, ${p.fitsNode} fit existing nodes, ${p.ignored} ignored${p.notEvaluated ? `, ${p.notEvaluated} not evaluated` : ''}`
      : `  ${p.total} Pending: ${p.caNotRunning ? `${s.red(`${p.caNotRunning} wait for CA, which is not running`)}, ` : ''}${p.noScaleUp ? s.red(`${p.noScaleUp} no node group can place`) : '0 no node group can place'}, ${p.scaleUp} CA scales up, ${p.fitsNode} fit existing nodes, ${p.ignored} ignored by CA`,
  );
  if (d.pending.blocked.length)
    lines.push(`  stuck: ${t(d.pending.blocked.slice(0, 5).join(', '))}${d.pending.blocked.length > 5 ? ', ...' : ''}`);
  if (k) {
    const r = k.routes;
    lines.push(
      d.karpenterOnly
        ? `  who serves them: ${r.karpenter} Karpenter, ${r.neither ? s.red(`${r.neither} none`) : '0 none'}${r.unknown ? `, ${r.unknown} not known` : ''}`
        : `  who serves them: ${r.ca} CA, ${r.karpenter} Karpenter, ${r.both ? s.yellow(`${r.both} CA and Karpenter may both provision`) : '0 both'}, ${r.neither ? s.red(`${r.neither} neither`) : '0 neither'}${r.unknown ? `, ${r.unknown} not known` : ''}`,
    );
    for (const route of ['both', 'neither'] as const)
      if (k.podsByRoute[route].length)
        lines.push(`  ${route === 'neither' && d.karpenterOnly ? 'none' : route}: ${t(k.podsByRoute[route].slice(0, 5).join(', '))}${k.podsByRoute[route].length > 5 ? ', ...' : ''}`);
  }
  if (!d.karpenterOnly) {
    lines.push('', s.bold('Scale-down'));
    lines.push(
      d.scaleDown.notEvaluated ? `  not evaluated: ${t(d.scaleDown.notEvaluated)}` :
      `  ${d.scaleDown.caNotRunning ? `${s.red('CA is not running: nothing is scaled down')}; once it runs: ${d.scaleDown.removable} of ${d.scaleDown.nodes} nodes removable` : `${d.scaleDown.removable} of ${d.scaleDown.nodes} nodes removable now`}${d.scaleDown.topReasons.length ? `; kept: ${t(d.scaleDown.topReasons.map(([r, n]) => `${n} ${r}`).join(', '))}` : ''}`,
    );
  }
  if (k) {
    lines.push('', s.bold('Karpenter'), ...k.lines.map((l) => `  ${t(l)}`));
    for (const np of k.nodePools) lines.push(`  NodePool ${t(np.line)}`);
    lines.push(
      `  Karpenter nodes: ${k.nodes.kept} of ${k.nodes.total} held${k.nodes.byBlocker.length ? ` (${t(k.nodes.byBlocker.map(([id, n]) => `${n} ${id}`).join(', '))})` : ''}${d.karpenterOnly ? '' : '; CA ignores them by design'}`,
    );
  }
  if (d.karpenterOnly) {
    lines.push('');
    return `${lines.join('\n')}\n`;
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
    deps.stdout(await renderMachineReport(output, overviewJson(data, data.now)));
    return { exitCode };
  }
  const text = renderOverview(data, await terminalStyle(wantsColor(o, deps)));
  deps.stdout(deps.stdoutIsTTY && deps.terminalWidth ? `${wrapProse(text.replace(/\n$/, ''), deps.terminalWidth)}\n` : text);
  // kubectl's habit: print and exit; the menu of next commands only when asked for (--menu)
  if (!o.menu || !deps.terminal) {
    // the next commands read the same input as this one: --from, --now and the rest carried over
    const same = sameInputFlags(o);
    const next = data.karpenterOnly ? ['why-pending -A', 'scale-down-blockers'] : ['why-pending -A', data.provider ? 'node-group-audit' : 'asg-audit', 'scale-down-blockers'];
    deps.stdout(`Next:\n${next.map((c) => `  casdoctor ${c}${same}\n`).join('')}`);
    return { exitCode };
  }
  const { pick } = await import('../interactive/picker.js');
  // another provider's users audit with node-group-audit (asg-audit is the AWS name)
  const menu = data.karpenterOnly ? MENU.filter((m) => m.key !== 'asg-audit') : data.provider ? MENU.map((m) => (m.key === 'asg-audit' ? { key: 'node-group-audit', label: 'Audit the node groups' } : m)) : MENU;
  const choice = await pick('What next?', menu.map((m) => ({ label: m.label, detail: `casdoctor ${m.key}`, value: m.key })), deps.terminal);
  if (choice === 'why-pending') {
    const { runWhyPending } = await import('./why-pending.js');
    return runWhyPending({ ...o }, deps);
  }
  if (choice === 'node-group-audit') {
    const { runNodeGroupAudit } = await import('./audit.js');
    return runNodeGroupAudit({ ...o }, deps);
  }
  if (choice === 'asg-audit') {
    const { runAsgAudit } = await import('./audit.js');
    return runAsgAudit({ ...o }, deps);
  }
  if (choice === 'scale-down-blockers') {
    const { runScaleDownBlockers } = await import('./scale-down-blockers.js');
    return runScaleDownBlockers({ ...o }, deps);
  }
  return { exitCode };
}
