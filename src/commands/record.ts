// casdoctor record: a long-running, read-only journal that outlives the 1-hour events. It lists and watches events,
// nodes, pods (their scheduling state), NodeClaims and CA's status ConfigMap, and appends what `history` reads to a
// bounded, rotating JSON-lines directory (record-journal.ts); `history --from DIR` reads it back. Stops on SIGINT or
// SIGTERM, resuming from the journal's resourceVersions when started again.
import type http from 'node:http';
import type https from 'node:https';
import { parseGoDuration } from '../model/duration.js';
import { UsageError } from '../model/errors.js';
import { EnvironmentError } from '../gather/errors.js';
import { safeText } from '../report/sanitize.js';
import { parseRequestTimeout } from './common.js';
import { Journal } from './record-journal.js';
import { RECORD_RESOURCES, ResourceWatcher, type WatchHooks } from './record-watch.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface RecordOptions extends GlobalOptions {
  dir?: string;
  maxSize?: string;
  maxAge?: string;
}

/** "256Mi", "1Gi", "500M", "10485760": bytes. */
export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(Ki|Mi|Gi|K|M|G)?$/.exec(s.trim());
  if (!m) throw new UsageError(`--max-size ${JSON.stringify(s)}: use a size such as 256Mi, 1Gi or 500M`);
  const unit = { Ki: 1024, Mi: 1 << 20, Gi: 1 << 30, K: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  const n = Math.floor(Number(m[1]) * unit);
  if (n < 64 * 1024) throw new UsageError(`--max-size ${JSON.stringify(s)} is under 64Ki: too small for a journal`);
  return n;
}

function parseAge(s: string): number {
  const days = /^(\d+)d$/.exec(s.trim());
  try {
    const ms = days ? Number(days[1]) * 86_400_000 : parseGoDuration(s.trim());
    if (ms > 0) return ms;
  } catch {
    /* below */
  }
  throw new UsageError(`--max-age ${JSON.stringify(s)}: use a duration such as 7d, 48h or 90m`);
}

/** Test hooks passed through deps.liveOverrides.record. */
export interface RecordTestHooks extends WatchHooks {
  signal?: AbortSignal;
  now?: () => number;
}

export async function runRecord(o: RecordOptions, deps: Deps): Promise<RunResult> {
  if (o.from.length) throw new UsageError('record watches a live cluster: --from does not apply (history --from DIR reads what it wrote)');
  if (!o.dir) throw new UsageError('record: give the journal directory with --dir DIR');
  const maxBytes = parseSize(o.maxSize ?? '256Mi');
  const maxAgeMs = parseAge(o.maxAge ?? '7d');
  const test = ((deps.liveOverrides ?? {}) as { record?: RecordTestHooks }).record ?? {};
  const now = test.now ?? (() => deps.realNow().getTime());
  const journal = new Journal(o.dir, { maxBytes, maxAgeMs }, now);

  const { loadKubeConfig, authHintFor, allowPlainHttp, refuseLegacyAuthProvider } = await import('../gather/kube-client.js');
  const { liveLimits } = await import('../gather/live-limits.js');
  // the same credentials and headers as every live read (live-kubernetes.ts gatherKubernetes)
  const { kc, context, server } = await loadKubeConfig(o);
  refuseLegacyAuthProvider(kc, context);
  allowPlainHttp(kc);
  const reqOpts: https.RequestOptions = { headers: {} };
  try {
    await kc.applyToHTTPSOptions(reqOpts);
  } catch (e) {
    throw new EnvironmentError(`cannot prepare credentials for context "${context}": ${(e as Error).message}`, authHintFor(kc, context), { cause: e });
  }
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'casdoctor-record (read-only)' };
  for (const [k, v] of Object.entries(reqOpts.headers ?? {})) if (v !== undefined) headers[k] = String(v);
  if (reqOpts.auth) headers.Authorization = `Basic ${Buffer.from(reqOpts.auth).toString('base64')}`;
  const agent = reqOpts.agent as (http.Agent & { keepAlive?: boolean }) | undefined;
  if (agent) agent.keepAlive = true;
  const target = { server, context, agent: agent as http.Agent, headers, timeoutMs: parseRequestTimeout(o.requestTimeout), authHint: authHintFor(kc, context), limits: liveLimits(), warnings: [] as string[] };

  const stop = new AbortController();
  const onStop = () => stop.abort();
  test.signal?.addEventListener('abort', onStop, { once: true });
  const offInterrupt = deps.onInterrupt?.(onStop);
  const onTerm = () => stop.abort();
  if (!test.signal) process.on('SIGTERM', onTerm);
  deps.stderr(`casdoctor record: context ${safeText(context)} → ${safeText(o.dir)} (at most ${maxBytes} bytes, ${Math.round(maxAgeMs / 3_600_000)}h); stop with Ctrl-C or SIGTERM\n`);
  const hooks: WatchHooks = {
    ...test,
    onUnavailable: (resource, why) => {
      deps.stderr(`record: ${safeText(resource)} not watched (${safeText(why, { max: 200 })})\n`);
      test.onUnavailable?.(resource, why);
    },
  };
  try {
    await Promise.all(RECORD_RESOURCES.map((spec) => new ResourceWatcher(target, spec, journal, hooks, now).run(stop.signal)));
  } finally {
    offInterrupt?.();
    process.off('SIGTERM', onTerm);
    agent?.destroy();
  }
  deps.stderr(`casdoctor record: stopped; ${journal.bytes} bytes in ${safeText(o.dir)}${journal.skipped ? `, ${journal.skipped} oversized record(s) skipped` : ''}\n`);
  return { exitCode: EXIT.ok };
}
