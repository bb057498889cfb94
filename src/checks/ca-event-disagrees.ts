import { formatDurationShort } from '../model/duration.js';
import { shellCommand } from '../model/shell.js';
import { grpcScaleUpNeverLands } from '../providers/externalgrpc/records.js';
import { normalizeSchedulerReason } from '../simulate/scheduler.js';
import type { CaPodEvent } from '../simulate/ca-events.js';
import type { PodAnalysis } from '../simulate/why-pending.js';
import { defineCheck } from './define-check.js';
import { boundedList, EVIDENCE_FULL, EVIDENCE_SAMPLE, listNames, MESSAGE_NAMES, pendingAnalyses, podSubject } from './lib/support.js';

/** The NotTriggerScaleUp reason set CA would print now, per casdoctor: reason -> number of node groups. */
export function expectedCaReasons(p: PodAnalysis, simulateSkipped: boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of p.groups) {
    if (!g.group.discovered || g.fits) continue;
    let reasons: string[];
    if (g.skip) {
      // --scaleup-simulation-for-skipped-node-groups-enabled (1.36+): skipped groups listed only when they'd fit
      if (simulateSkipped && (g.failures.length > 0 || !g.template.node))
        reasons = g.failures[0]?.reasons ?? [];
      else reasons = [g.skip.reason];
    } else if (g.failures[0]) reasons = g.failures[0].reasons;
    else continue;
    for (const r of new Set(reasons)) out[r] = (out[r] ?? 0) + 1;
  }
  return out;
}

function fmt(r: Record<string, number>): string {
  return Object.entries(r)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
}

/**
 * One side's reason counts: all of them up to EVIDENCE_FULL reasons; beyond (one reason per distinct taint at hundreds
 * of groups), the first `max` that differ from the other side, how many more differ, and how many agree.
 */
function fmtAgainst(
  r: Record<string, number>,
  otherRaw: Record<string, number>,
  mine: Record<string, number>,
  other: Record<string, number>,
  max: number,
  otherName: string,
): string {
  const entries = Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length <= EVIDENCE_FULL) return fmt(r);
  // a reason agrees when the other side has it with the same count, or the same total under the normalized wording
  const differ = entries.filter(
    ([k, v]) => otherRaw[k] !== v && mine[normalizeSchedulerReason(k)] !== other[normalizeSchedulerReason(k)],
  );
  const same = entries.length - differ.length;
  const listed = boundedList(differ.map(([k, v]) => `${v} ${k}`), 'that differ', ', ', max);
  return `${listed}${same ? `${differ.length ? '; ' : ''}${same} more as ${otherName}` : ''}`;
}

/**
 * CA's event text as quoted in a finding: whole up to EVIDENCE_FULL reasons; beyond, its first `max` reasons and how many
 * more (the pod's own "CA said" line, and caEvent in -o json, keep the whole text).
 */
function quotedEvent(ev: CaPodEvent, max: number): string {
  const entries = Object.entries(ev.reasons ?? {});
  if (entries.length <= EVIDENCE_FULL) return ev.message;
  const at = ev.message.indexOf(`${entries[0][1]} ${entries[0][0]}`);
  if (at < 0) return ev.message;
  return `${ev.message.slice(0, at)}${boundedList(entries.map(([k, v]) => `${v} ${k}`), 'reasons', ', ', max)}`;
}

export default defineCheck({
  meta: {
    id: 'ca-event-disagrees',
    title: "CA's last event on the pod differs from casdoctor's computation",
    summary:
      "CA's NotTriggerScaleUp / TriggeredScaleUp event tells another story than the snapshot: something changed, or CA sees a different template.",
    severity: 'info',
    commands: ['why-pending'],
    requires: ['pods', 'events', 'autoScalingGroups'],
    messages: {
      saidNoButFits:
        'Pod {pod}: CA said "{event}" {age} ago, but casdoctor finds that {groups} can host it now.',
      saidYesButBlocked:
        'Pod {pod}: CA triggered a scale-up ({event}) {age} ago, but casdoctor finds no node group can host it now.',
      reasonsDiffer: "Pod {pod}: CA's reasons ({caReasons}) differ from casdoctor's ({ours}).",
    },
    upstream:
      'cluster-autoscaler processors/status/eventing_scale_up_processor.go; utils/kubernetes/factory.go (event rate limit)',
  },
  run(ctx) {
    const a = ctx.analysis;
    const simulateSkipped = a.ca.flags.scaleupSimulationForSkippedNodeGroupsEnabled.value === true;
    for (const p of pendingAnalyses(a)) {
      const ev = p.caEvent;
      if (!ev) continue;
      const v = p.report.verdict;
      if (v !== 'scale-up' && v !== 'no-scale-up') continue;
      const age = ev.time ? formatDurationShort(a.now.getTime() - ev.time.getTime()) : 'some time';
      const pod = `${p.report.namespace}/${p.report.name}`;
      const why = [
        'CA emits at most one event per pod and reason every 5 minutes, so the event can describe an older state.',
        'CA keeps the template of the last healthy node of a group until it restarts; casdoctor builds it from the snapshot.',
        'Something changed since: a group was resized, tagged or backed off, or CA was reconfigured.',
      ];
      if (ev.reason === 'NotTriggerScaleUp' && v === 'scale-up') {
        ctx.report({
          messageId: 'saidNoButFits',
          severity: 'warning',
          data: {
            pod,
            event: quotedEvent(ev, MESSAGE_NAMES),
            age,
            groups: listNames(
              p.groups.filter((g) => g.fits).map((g) => g.group.name),
              MESSAGE_NAMES,
            ),
          },
          subject: podSubject(p.pod),
          caReason: 'NotTriggerScaleUp',
          evidence: [
            { source: 'CA event', observed: quotedEvent(ev, EVIDENCE_SAMPLE) },
            { source: 'casdoctor', observed: p.report.summary },
          ],
          remediation: `${why.join(' ')} Watch for the next CA event: ${shellCommand(['kubectl', 'get', 'events', '-n', p.report.namespace, '--field-selector', `involvedObject.name=${p.report.name}`])}`,
        });
        continue;
      }
      if (ev.reason === 'TriggeredScaleUp' && v === 'no-scale-up') {
        // CA did scale up, and agrees: on this externalgrpc provider the new nodes never come (records.ts)
        const scaled = (ev.groups ?? []).map((g) => a.nodeGroups.find((n) => n.name === g.group));
        if (scaled.length && scaled.every((g) => g && grpcScaleUpNeverLands(g, a.ca) !== undefined)) continue;
        const groups = (ev.groups ?? []).map((g) => `${g.group} ${g.from}->${g.to}`).join(', ');
        ctx.report({
          messageId: 'saidYesButBlocked',
          severity: 'warning',
          data: { pod, event: groups || ev.message, age },
          subject: podSubject(p.pod),
          caReason: 'TriggeredScaleUp',
          evidence: [
            { source: 'CA event', observed: ev.message },
            { source: 'casdoctor', observed: p.report.summary },
          ],
          remediation:
            'If the scaled group is now at max size or its new instances never registered, that is why (see the node-group findings). Otherwise: ' +
            why.join(' '),
        });
        continue;
      }
      if (ev.reason === 'NotTriggerScaleUp' && ev.reasons && v === 'no-scale-up') {
        // CA 1.33+ prints "max total nodes in cluster reached" without counts (≤1.32: no event at all)
        if (p.groups.some((g) => g.skip?.kind === 'max-nodes-total')) {
          if (ev.maxTotalNodesReached) continue;
        }
        // the oldest format lists no reasons; nothing to compare
        if (ev.format === 'legacy-no-reasons' || ev.format === 'unrecognised') continue;
        // a group whose template casdoctor could not build for lack of data (not CA's problem) says nothing about CA
        if (p.groups.some((g) => g.group.discovered && g.template.source === 'none' && (g.template.missing?.length ?? 0) > 0))
          continue;
        const ours = expectedCaReasons(p, simulateSkipped);
        if (Object.keys(ours).length === 0) continue;
        const theirs = ev.reasons;
        // the taint reason changed wording in kube-scheduler 1.35; compare the normalized forms
        const norm = (r: Record<string, number>) => {
          const out: Record<string, number> = {};
          for (const [k, n] of Object.entries(r))
            out[normalizeSchedulerReason(k)] = (out[normalizeSchedulerReason(k)] ?? 0) + n;
          return out;
        };
        const [o, t] = [norm(ours), norm(theirs)];
        const same =
          Object.keys(o).length === Object.keys(t).length && Object.entries(o).every(([k, n]) => t[k] === n);
        if (same) continue;
        ctx.report({
          messageId: 'reasonsDiffer',
          data: {
            pod,
            caReasons: fmtAgainst(theirs, ours, t, o, MESSAGE_NAMES, "casdoctor's"),
            ours: fmtAgainst(ours, theirs, o, t, MESSAGE_NAMES, "CA's"),
          },
          subject: podSubject(p.pod),
          caReason: 'NotTriggerScaleUp',
          evidence: [
            { source: `CA event (${age} ago)`, observed: fmtAgainst(theirs, ours, t, o, EVIDENCE_SAMPLE, "casdoctor's") },
            { source: 'casdoctor', observed: fmtAgainst(ours, theirs, o, t, EVIDENCE_SAMPLE, "CA's") },
          ],
          remediation: why.join(' '),
        });
      }
    }
  },
});
