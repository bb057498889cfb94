// Live sources only `casdoctor history` reads, beyond the shared live gathering (events, nodes, pods, NodeClaims, the
// ASGs' activities, CA's log): CloudTrail's LookupEvents for the calls that start or end an instance or resize a group.
// Read-only and bounded (pages per event name); a missing permission is a gap naming it, never a failure.
import type { RawInputs } from '../model/snapshot.js';
import { CLOUDTRAIL_EVENT_NAMES } from '../simulate/history/source-aws.js';
import { awsClientConfig } from '../providers/aws/gather-client.js';

export interface HistoryLiveOptions {
  since: number;
  now: number;
  profile?: string;
  region?: string;
  requestTimeoutMs?: number;
  /** Test hooks, as the shared live gathering takes them (loopback endpoint, static credentials, fast retries). */
  awsEndpoint?: string;
  awsCredentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  awsMaxAttempts?: number;
  awsRetryDelayMs?: number;
  /** Pages read per event name (LookupEvents returns at most 50 records a page). */
  cloudTrailPages?: number;
}

/** LookupEvents allows 2 calls a second per account and region: a few pages per name, one name at a time. */
const PAGES_PER_NAME = 20;
const DENIED = new Set(['AccessDeniedException', 'AccessDenied', 'UnauthorizedOperation']);

/** The region the shared gathering read AWS in ("live: aws eu-west-1"), else --region. */
function regionOf(raw: RawInputs, o: HistoryLiveOptions): string | undefined {
  for (const s of raw.sources) {
    const m = /^live: aws (\S+)$/.exec(s);
    if (m) return m[1];
  }
  return o.region;
}

/** Adds CloudTrail's records of the window to `raw` (the CLI's shape); what cannot be read becomes a gap. */
export async function gatherHistoryLive(raw: RawInputs, o: HistoryLiveOptions): Promise<void> {
  const region = regionOf(raw, o);
  if (!region) {
    raw.gaps.push({ resource: 'cloudtrail', reason: 'error', detail: 'cloudtrail:LookupEvents not called: no AWS region (pass --region)' });
    return;
  }
  const ct = await import('@aws-sdk/client-cloudtrail');
  const client = new ct.CloudTrailClient(
    await awsClientConfig({
      region,
      profile: o.profile,
      requestTimeoutMs: o.requestTimeoutMs ?? 30_000,
      ...(o.awsEndpoint ? { endpoint: o.awsEndpoint } : {}),
      ...(o.awsCredentials ? { credentials: o.awsCredentials } : {}),
      ...(o.awsMaxAttempts !== undefined ? { maxAttempts: o.awsMaxAttempts } : {}),
      ...(o.awsRetryDelayMs !== undefined ? { retryDelayMs: o.awsRetryDelayMs } : {}),
    }),
  );
  const records: Array<Record<string, unknown>> = [];
  const truncated: string[] = [];
  try {
    for (const name of CLOUDTRAIL_EVENT_NAMES) {
      let token: string | undefined;
      const seen = new Set<string>();
      for (let page = 0; ; page++) {
        if (page >= (o.cloudTrailPages ?? PAGES_PER_NAME)) {
          truncated.push(name);
          break;
        }
        const out = await client.send(
          new ct.LookupEventsCommand({
            LookupAttributes: [{ AttributeKey: 'EventName', AttributeValue: name }],
            StartTime: new Date(o.since),
            EndTime: new Date(o.now),
            MaxResults: 50,
            ...(token ? { NextToken: token } : {}),
          }),
        );
        for (const e of out.Events ?? []) {
          // the CLI's shape: EventTime as ISO text, CloudTrailEvent still the JSON string AWS returns
          records.push({ ...e, ...(e.EventTime instanceof Date ? { EventTime: e.EventTime.toISOString() } : {}) } as Record<string, unknown>);
        }
        token = out.NextToken;
        // a token that comes back is a loop AWS never makes: stop
        if (!token || seen.has(token)) break;
        seen.add(token);
      }
    }
  } catch (e) {
    const code = (e as { name?: string }).name ?? '';
    const message = e instanceof Error ? e.message : String(e);
    raw.gaps.push({
      resource: 'cloudtrail',
      reason: DENIED.has(code) ? 'forbidden' : 'error',
      detail: `cloudtrail:LookupEvents (region ${region}): ${code ? `${code}: ` : ''}${message.slice(0, 500)}`,
    });
    return;
  } finally {
    client.destroy();
  }
  raw.cloudTrailEvents = records;
  raw.sources.push(`live: cloudtrail lookup-events ${region}`);
  if (truncated.length) raw.warnings.push(`CloudTrail: more than ${(o.cloudTrailPages ?? PAGES_PER_NAME) * 50} ${truncated.join(', ')} records in the window; the newest were read (narrow --since)`);
}
