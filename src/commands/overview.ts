// `casdoctor` with no subcommand: a one-screen overview of autoscaling health, then (at a terminal) a menu of next steps.
import { CHECKS } from '../checks/index.js';
import { runChecks } from '../checks/lib/engine.js';
import { formatDurationShort } from '../model/duration.js';
import type { Finding } from '../model/findings.js';
import { PLAIN, type Style, terminalStyle } from '../report/style.js';
import { Analysis } from '../simulate/analysis.js';
import { caVersionText } from '../simulate/ca-config.js';
import { analyzeScaleDown } from '../simulate/scale-down.js';
import { analyzePods, isPendingCandidate } from '../simulate/why-pending.js';
import { gatherIam } from './asg-audit.js';
import { gatherInputs, loadInstanceTypeData, requireOutput, resolveNow, splitArgs } from './common.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface OverviewData {
  ca: string[];
  pending: { total: number; noScaleUp: number; ignored: number; scaleUp: number; fitsNode: number; blocked: string[] };
  scaleDown: { nodes: number; removable: number; topReasons: Array<[string, number]> };
  asg: { error: number; warning: number; info: number; top: Finding[] };
  iam: string;
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
  const a = new Analysis(raw, { now, caArgs: o.caArgs ? splitArgs(o.caArgs) : undefined, staticInstanceTypes: await loadInstanceTypeData() });
  a.scope = isPendingCandidate;
  await gatherIam(raw, a, { ...o }, deps);

  const ca = a.ca;
  const caLines: string[] = [];
  if (ca.found) {
    caLines.push(`CA ${caVersionText(ca)} in ${ca.deployment?.namespace}/${ca.deployment?.name}`);
    const f = ca.flags;
    caLines.push(
      `discovery ${f.nodeGroupAutoDiscovery.value.join(' ') || (f.nodes.value.length ? `--nodes ${f.nodes.value.join(' ')}` : 'none')} · expander ${f.expander.value}` +
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

  const pods = analyzePods(a);
  const v = (name: string) => pods.filter((p) => p.report.verdict === name).length;
  const blocked = pods.filter((p) => p.report.verdict === 'no-scale-up').map((p) => `${p.report.namespace}/${p.report.name}`);

  let scaleDown: OverviewData['scaleDown'] = { nodes: 0, removable: 0, topReasons: [] };
  if (raw.provided.has('nodes')) {
    const sd = analyzeScaleDown(a);
    scaleDown = {
      nodes: sd.nodes.length,
      removable: sd.nodes.filter((n) => n.report.removable).length,
      topReasons: countBy(sd.nodes, (n) => n.report.caReason ?? undefined).slice(0, 4),
    };
  }

  const asgRun = raw.provided.has('autoScalingGroups') ? runChecks(CHECKS, a, 'asg-audit') : { findings: [], skipped: [] };
  const bySev = (s: string) => asgRun.findings.filter((f) => f.severity === s).length;
  const iamFindings = asgRun.findings.filter((f) => f.checkId.startsWith('iam-'));
  const iamSkipped = asgRun.skipped.find((s) => s.checkId.startsWith('iam-'));
  const iam = iamSkipped
    ? `not evaluated: ${iamSkipped.detail}`
    : iamFindings.length
      ? `${iamFindings.length} denied action(s): ${[...new Set(iamFindings.map((f) => f.message.split(' ')[0]))].slice(0, 3).join(', ')}`
      : 'every action CA needs is allowed';

  const data: OverviewData = {
    ca: caLines,
    pending: { total: pods.length, noScaleUp: v('no-scale-up'), ignored: v('ignored-by-ca'), scaleUp: v('scale-up'), fitsNode: v('fits-existing-node'), blocked },
    scaleDown,
    asg: { error: bySev('error'), warning: bySev('warning'), info: bySev('info'), top: asgRun.findings.filter((f) => f.severity === 'error').slice(0, 3) },
    iam,
  };
  const exitCode = data.pending.noScaleUp + data.pending.ignored > 0 || data.asg.error > 0 ? EXIT.findings : EXIT.ok;
  return { data, exitCode };
}

export function renderOverview(d: OverviewData, s: Style = PLAIN): string {
  const lines = [s.bold('casdoctor · Cluster Autoscaler overview'), ''];
  lines.push(s.bold('Cluster Autoscaler'), ...d.ca.map((l) => `  ${l}`), '');
  lines.push(
    s.bold('Pending pods'),
    `  ${d.pending.total} Pending: ${d.pending.noScaleUp ? s.red(`${d.pending.noScaleUp} no node group can place`) : '0 no node group can place'}, ${d.pending.scaleUp} CA scales up, ${d.pending.fitsNode} fit existing nodes, ${d.pending.ignored} ignored by CA`,
  );
  if (d.pending.blocked.length) lines.push(`  stuck: ${d.pending.blocked.slice(0, 5).join(', ')}${d.pending.blocked.length > 5 ? ', ...' : ''}`);
  lines.push('', s.bold('Scale-down'));
  lines.push(
    `  ${d.scaleDown.removable} of ${d.scaleDown.nodes} nodes removable now${d.scaleDown.topReasons.length ? `; kept: ${d.scaleDown.topReasons.map(([r, n]) => `${n} ${r}`).join(', ')}` : ''}`,
  );
  lines.push('', s.bold('Auto Scaling groups'), `  findings: ${d.asg.error} error, ${d.asg.warning} warning, ${d.asg.info} info`);
  for (const f of d.asg.top) lines.push(`  ${s.red('✖')} ${f.checkId}  ${f.message.length > 140 ? `${f.message.slice(0, 139)}…` : f.message}`);
  lines.push('', s.bold('IAM'), `  ${d.iam}`, '');
  return `${lines.join('\n')}\n`;
}

const MENU = [
  { key: 'why-pending', label: 'Explain a Pending pod (pick one)' },
  { key: 'asg-audit', label: 'Audit the Auto Scaling groups' },
  { key: 'scale-down-blockers', label: 'Explain why nodes are not removed' },
];

export async function runOverview(o: GlobalOptions, deps: Deps): Promise<RunResult> {
  requireOutput(o.output, ['table'], 'casdoctor (overview)');
  const { data, exitCode } = await buildOverview(o, deps);
  deps.stdout(renderOverview(data, await terminalStyle(o.color && deps.stdoutIsTTY)));
  if (!(deps.terminal && deps.stdinIsTTY && deps.stdoutIsTTY && !o.yes)) {
    deps.stdout('Next: casdoctor why-pending --all · casdoctor asg-audit · casdoctor scale-down-blockers\n');
    return { exitCode };
  }
  const { pick } = await import('../interactive/picker.js');
  const choice = await pick('What next?', MENU.map((m) => ({ label: m.label, detail: `casdoctor ${m.key}`, value: m.key })), deps.terminal);
  if (choice === 'why-pending') {
    const { runWhyPending } = await import('./why-pending.js');
    return runWhyPending({ ...o }, deps);
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
