// CA's own record, live and read-only: its pod's log (current and previous container) and, through the API server's pod
// proxy, its /metrics and /snapshotz. Every read is a bounded GET; anything forbidden or unreachable becomes a gap.
import type { CaLogText, CaProxyText } from '../model/ca-record.js';
import type { Container, Deployment, Pod, ReplicaSet } from '../model/k8s.js';
import { parseGoDuration } from '../model/duration.js';
import { UsageError } from '../model/errors.js';
import type { Gap, GapReason } from '../model/snapshot.js';
import { buildCaConfig, findCaDeployment } from '../simulate/ca-config.js';
import { compileLabelSelector } from '../simulate/predicates/labels.js';
import { RequestTimeoutError } from './errors.js';
import { formatBytes } from './live-limits.js';
import { getWithRetry, type HttpResult, statusOf, type Target } from './kube-client.js';

/** `--ca-log-since` default: one hour, like a first look with `kubectl logs --since=1h`. */
export const DEFAULT_CA_LOG_SINCE_SECONDS = 3600;

/** `--ca-log-since <duration>`: a Go duration like kubectl's `--since` (30m, 1h, 1h30m; bare digits are seconds). */
export function parseCaLogSince(v: string): number {
  let ms: number | undefined;
  try {
    ms = parseGoDuration(/^\d+$/.test(v.trim()) ? `${v.trim()}s` : v.trim());
  } catch {
    ms = undefined;
  }
  if (ms === undefined || !(ms >= 1000)) {
    throw new UsageError(
      `--ca-log-since ${JSON.stringify(v)}: use a duration of at least 1s, such as 30m, 1h or 6h`,
    );
  }
  return Math.ceil(ms / 1000);
}

export interface CaRecord {
  caLogTexts: CaLogText[];
  caProxyTexts: CaProxyText[];
  gaps: Gap[];
}

export interface CaPodChoice {
  pod: Pod;
  container: string;
}

/**
 * The pod whose record to read: a pod of CA's Deployment (its selector, else ReplicaSets it owns), Running and Ready
 * first; the container named like cluster-autoscaler or running its binary.
 */
export function chooseCaPod(
  deployment: Deployment,
  caContainer: Container,
  pods: Pod[],
  replicaSets: ReplicaSet[],
): CaPodChoice | undefined {
  const ns = deployment.metadata.namespace;
  const name = deployment.metadata.name ?? '';
  const selector = deployment.spec?.selector;
  const compiled = selector ? compileLabelSelector(selector) : undefined;
  const ownedSets = new Set(
    replicaSets
      .filter(
        (rs) =>
          rs.metadata.namespace === ns &&
          rs.metadata.ownerReferences?.some((o) => o.kind === 'Deployment' && o.name === name),
      )
      .map((rs) => rs.metadata.name),
  );
  const mine = pods.filter((p) => {
    if (p.metadata.namespace !== ns || p.metadata.deletionTimestamp) return false;
    if (compiled?.valid && !compiled.empty && compiled.matches(p.metadata.labels ?? {})) return true;
    return (p.metadata.ownerReferences ?? []).some(
      (o) =>
        o.kind === 'ReplicaSet' &&
        (ownedSets.has(o.name) || (ownedSets.size === 0 && o.name.startsWith(`${name}-`))),
    );
  });
  const ready = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const rank = (p: Pod) => (p.status?.phase === 'Running' ? 0 : 2) + (ready(p) ? 0 : 1);
  const pod = [...mine].sort(
    (a, b) => rank(a) - rank(b) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1),
  )[0];
  if (!pod) return undefined;
  const containers = pod.spec?.containers ?? [];
  const runsCa = (c: Container) =>
    [...(c.command ?? []), ...(c.args ?? [])].some((a) => /(^|[\s/])cluster-autoscaler(\s|$)/.test(a));
  const container =
    containers.find((c) => c.name === caContainer.name) ??
    containers.find((c) => c.name.includes('cluster-autoscaler')) ??
    containers.find(runsCa) ??
    containers.find((c) => (c.image ?? '').includes('cluster-autoscaler'));
  return container ? { pod, container: container.name } : undefined;
}

/** The port of CA's --address (":8085", "0.0.0.0:8085", "[::]:8085"); CA's default is 8085. */
export function caAddressPort(address: string | undefined): number {
  const port = Number(/:(\d{1,5})$/.exec(address ?? '')?.[1]);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : 8085;
}

function gapReason(status: number): GapReason {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 429) return 'throttled';
  return 'error';
}

function gapFrom(resource: string, scope: string, what: string, res: HttpResult): Gap {
  const s = statusOf(res);
  const reason = gapReason(res.status);
  const word = reason === 'not-found' ? 'not found' : reason;
  return {
    resource,
    scope,
    reason,
    detail: `${word}: ${what}: HTTP ${res.status}${s.reason ? ` ${s.reason}` : ''}${s.message ? `: ${s.message}` : ''}`,
  };
}

function gapFromError(resource: string, scope: string, what: string, e: unknown): Gap {
  const timeout = e instanceof RequestTimeoutError;
  return {
    resource,
    scope,
    reason: timeout ? 'timeout' : 'error',
    detail: `${timeout ? 'timeout' : 'error'}: ${what}: ${(e as Error).message}`,
  };
}

/** A truncated text ends at its last whole line, so a parser never sees half a line. */
function wholeLines(text: string, truncated: boolean): string {
  if (!truncated) return text;
  const nl = text.lastIndexOf('\n');
  return nl >= 0 ? text.slice(0, nl + 1) : text;
}

export interface CaRecordOptions {
  sinceSeconds: number;
  progress: (msg: string) => void;
}

/** Reads CA's log and proxy pages for the CA Deployment found among the listed objects; never throws. */
export async function gatherCaRecord(
  target: Target,
  objects: { deployments: Deployment[]; pods: Pod[]; replicaSets: ReplicaSet[] },
  opts: CaRecordOptions,
): Promise<CaRecord> {
  const out: CaRecord = { caLogTexts: [], caProxyTexts: [], gaps: [] };
  const found = findCaDeployment(objects.deployments);
  if (!found) return out;
  const { deployment } = found;
  const ns = deployment.metadata.namespace ?? 'default';
  const scope = `namespace ${ns}`;
  const choice = chooseCaPod(deployment, found.container, objects.pods, objects.replicaSets);
  if (!choice) {
    out.gaps.push({
      resource: 'pods/log',
      scope,
      reason: 'not-found',
      detail: `not found: no pod of Deployment ${ns}/${deployment.metadata.name} among the listed pods, so CA's log was not read`,
    });
    return out;
  }
  const podName = choice.pod.metadata.name ?? '';
  const podPath = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(podName)}`;
  const limits = target.limits;
  const ca = buildCaConfig({ deployment });
  const port = caAddressPort(ca.flags.address.value);

  const readLog = async (previous: boolean): Promise<'forbidden' | undefined> => {
    const q = new URLSearchParams({
      container: choice.container,
      sinceSeconds: String(opts.sinceSeconds),
      limitBytes: String(limits.caLogBytes),
    });
    if (previous) q.set('previous', 'true');
    const what = `get pods/log ${ns}/${podName} container ${choice.container}${previous ? ' (previous)' : ''}`;
    let res: HttpResult;
    try {
      res = await getWithRetry(target, `${podPath}/log?${q}`, `GET ${podPath}/log`, {
        maxBytes: limits.caLogBytes,
        overflow: 'truncate',
        accept: '*/*',
      });
    } catch (e) {
      out.gaps.push(gapFromError('pods/log', scope, what, e));
      return undefined;
    }
    if (res.status === 200) {
      // limitBytes cuts silently: a body of exactly the cap may be cut
      const truncated = res.truncated || Buffer.byteLength(res.body) >= limits.caLogBytes;
      out.caLogTexts.push({
        namespace: ns,
        pod: podName,
        container: choice.container,
        previous,
        sinceSeconds: opts.sinceSeconds,
        text: wholeLines(res.body, truncated),
        truncated,
      });
      return undefined;
    }
    // 400 for `previous` means the container never restarted: nothing to read, nothing missing
    if (previous && res.status === 400) return undefined;
    out.gaps.push(gapFrom('pods/log', scope, what, res));
    return res.status === 403 ? 'forbidden' : undefined;
  };

  const readProxy = async (path: '/metrics' | '/snapshotz', maxBytes: number): Promise<boolean> => {
    const call = `${podPath}:${port}/proxy${path}`;
    const what = `get pods/proxy ${ns}/${podName}:${port}${path}`;
    let res: HttpResult;
    try {
      // /snapshotz answers after CA's next loop (CA: debuggingsnapshot/debugging_snapshotter.go): the request timeout bounds the wait
      res = await getWithRetry(target, call, `GET ${call}`, { maxBytes, overflow: 'truncate', accept: '*/*' });
    } catch (e) {
      out.gaps.push(gapFromError('pods/proxy', scope, what, e));
      return false;
    }
    if (res.status !== 200) {
      out.gaps.push(gapFrom('pods/proxy', scope, what, res));
      return res.status !== 403;
    }
    out.caProxyTexts.push({
      namespace: ns,
      pod: podName,
      port,
      path,
      text: path === '/metrics' ? wholeLines(res.body, res.truncated) : res.body,
      truncated: res.truncated,
    });
    return true;
  };

  opts.progress(
    `reading CA's log (${ns}/${podName}, last ${opts.sinceSeconds}s, at most ${formatBytes(limits.caLogBytes)})…`,
  );
  const logs = (async () => {
    if ((await readLog(false)) === 'forbidden') return; // one gap says it: previous would be forbidden too
    await readLog(true);
  })();
  const proxy = (async () => {
    const go = await readProxy('/metrics', limits.caMetricsBytes);
    if (go && ca.flags.debuggingSnapshotEnabled.value) await readProxy('/snapshotz', limits.caSnapshotBytes);
  })();
  await Promise.all([logs, proxy]);
  out.caLogTexts.sort((a, b) => Number(b.previous) - Number(a.previous));
  return out;
}
