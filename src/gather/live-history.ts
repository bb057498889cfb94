// Live sources only `casdoctor history` reads, beyond the shared live gathering (events, nodes, pods, NodeClaims, the
// ASGs' activities, CA's log): CloudTrail's LookupEvents. Read-only; a missing permission is a gap, never a failure.
import type { RawInputs } from '../model/snapshot.js';

export interface HistoryLiveOptions {
  since: number;
  now: number;
  profile?: string;
  region?: string;
}

/** Adds what history reads live to `raw`; what cannot be read becomes a gap naming the permission. */
export async function gatherHistoryLive(raw: RawInputs, o: HistoryLiveOptions): Promise<void> {
  void o;
  raw.gaps.push({
    resource: 'cloudtrail',
    reason: 'error',
    detail: 'CloudTrail LookupEvents is not read live by this version (needs cloudtrail:LookupEvents); run `aws cloudtrail lookup-events --output json` and pass it with --from',
  });
}
