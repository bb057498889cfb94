// Scale-down cooldowns: CA deletes nothing for --scale-down-delay-after-{add,delete,failure} after the last such event,
// per group with --scale-down-delay-type-local (static_autoscaler.go isScaleDownInCooldown;
// scale_down_candidates_delay_processor.go in local mode).
import type { Analysis } from '../analysis.js';
import { eventTime } from '../ca-events.js';
import type { Cooldown } from './types.js';

const CA_SET_DESIRED = /a user request explicitly set group desired capacity changing the desired capacity from (\d+) to (\d+)/;

export function cooldowns(a: Analysis, caStart: Date | undefined): Cooldown[] {
  const f = a.ca.flags;
  const local = f.scaleDownDelayTypeLocal.value;
  const managed = new Set(a.nodeGroups.filter((g) => g.discovered).map((g) => g.name));
  const events: Array<{ cause: Cooldown['cause']; at: Date; group?: string; evidence: string }> = [];
  for (const ev of a.raw.events) {
    const t = eventTime(ev);
    if (!t) continue;
    const comp = ev.source?.component ?? ev.reportingComponent;
    if (comp !== 'cluster-autoscaler') continue;
    if (ev.reason === 'TriggeredScaleUp') {
      const group = /\[\{(\S+) \d+->\d+/.exec(ev.message ?? '')?.[1];
      events.push({ cause: 'scale-up', at: t, group, evidence: `TriggeredScaleUp event: ${ev.message}` });
    } else if (ev.reason === 'ScaledUpGroup') {
      events.push({ cause: 'scale-up', at: t, evidence: `ScaledUpGroup event: ${ev.message}` });
    } else if (ev.reason === 'ScaleDownFailed') {
      events.push({ cause: 'scale-down-failure', at: t, evidence: `ScaleDownFailed event: ${ev.message}` });
    } else if (ev.reason === 'ScaleDown' && /removed/.test(ev.message ?? '')) {
      events.push({ cause: 'scale-down-delete', at: t, evidence: `ScaleDown event: ${ev.message}` });
    }
  }
  for (const act of a.raw.scalingActivities) {
    if (!managed.has(act.AutoScalingGroupName)) continue;
    const m = CA_SET_DESIRED.exec(act.Cause ?? '');
    if (!m || Number(m[2]) <= Number(m[1])) continue;
    const at = /^At (\S+Z) a user request explicitly set/.exec(act.Cause ?? '')?.[1] ?? act.StartTime;
    const t = at ? new Date(at) : undefined;
    if (!t || Number.isNaN(t.getTime())) continue;
    events.push({
      cause: 'scale-up',
      at: t,
      group: act.AutoScalingGroupName,
      evidence: `scaling activity: desired capacity of ${act.AutoScalingGroupName} set from ${m[1]} to ${m[2]} at ${t.toISOString()}`,
    });
  }
  const delays: Record<Cooldown['cause'], { flag: string; ms: number }> = {
    'scale-up': { flag: '--scale-down-delay-after-add', ms: f.scaleDownDelayAfterAdd.value },
    'scale-down-failure': { flag: '--scale-down-delay-after-failure', ms: f.scaleDownDelayAfterFailure.value },
    'scale-down-delete': { flag: '--scale-down-delay-after-delete', ms: f.scaleDownDelayAfterDelete.value },
  };
  const out: Cooldown[] = [];
  const now = a.now.getTime();
  for (const cause of Object.keys(delays) as Array<Cooldown['cause']>) {
    // CA's timestamps live in memory: a restart forgets them (static_autoscaler.go initialScaleTime = start - 1h)
    const relevant = events.filter((e) => e.cause === cause && (!caStart || e.at >= caStart) && e.at.getTime() <= now);
    const groups = local ? [...new Set(relevant.map((e) => e.group ?? ''))] : [undefined];
    for (const g of groups) {
      const mine = relevant.filter((e) => g === undefined || (e.group ?? '') === g);
      const last = mine.sort((x, y) => y.at.getTime() - x.at.getTime())[0];
      if (!last) continue;
      const left = last.at.getTime() + delays[cause].ms - now;
      if (left <= 0) continue;
      out.push({
        cause,
        at: last.at,
        flag: delays[cause].flag,
        delayMs: delays[cause].ms,
        leftMs: left,
        ...(g ? { group: g } : {}),
        evidence: last.evidence,
      });
    }
  }
  return out;
}
