// When a dump was taken, from what it holds: the default clock of a --from run, so that ages ("updated 8s ago", "Pending
// for 12m") are measured as at the dump and not from whenever it is read. Pure.
import type { RawInputs } from '../model/snapshot.js';
import { eventTime } from './ca-events.js';
import { parseCaStatus } from './ca-status.js';

export interface DumpTime {
  at: Date;
  /** What gave it, in words: "the snapshot's record", "CA's status ConfigMap", "the newest event", "CA's log". */
  from: string;
}

/** The status ConfigMap's default name (CA's --status-config-map-name), in any namespace: CA's flags are not read yet. */
const STATUS_CONFIG_MAP = 'cluster-autoscaler-status';

/**
 * The newest of: a `casdoctor snapshot` directory's record, CA's status ConfigMap's time, the newest event, the last line
 * of CA's log. Undefined when the dump holds none of them (the wall clock is then all there is).
 */
export function dumpTime(raw: RawInputs): DumpTime | undefined {
  let best: DumpTime | undefined;
  const consider = (d: Date | undefined, from: string) => {
    if (!d || Number.isNaN(d.getTime())) return;
    if (!best || d.getTime() > best.at.getTime()) best = { at: d, from };
  };
  if (raw.takenAt) consider(new Date(raw.takenAt), "the snapshot's record");
  for (const cm of raw.configMaps) {
    if (cm.metadata.name !== STATUS_CONFIG_MAP) continue;
    const st = parseCaStatus(cm, new Date(0));
    for (const d of [st.lastUpdated, st.time]) consider(d, "CA's status ConfigMap");
  }
  for (const ev of raw.events) consider(eventTime(ev), 'the newest event');
  for (const log of raw.caLogs ?? []) if (log.lastTime) consider(new Date(log.lastTime), "CA's log");
  return best;
}
