// Karpenter's controller log, live (`GET pods/log`, the grant CA's log already needs), for `casdoctor history`: every
// pod of the Karpenter Deployment (only the leader logs decisions; the others print little), bounded in bytes and time,
// parsed into the same bounded summary a log file gives offline. Never throws: what cannot be read is a gap.
import type { Container, Deployment, Pod, ReplicaSet } from '../model/k8s.js';
import type { KarpenterLogSummary } from '../model/karpenter-log.js';
import type { Gap } from '../model/snapshot.js';
import { chooseCaPod } from './live-ca-record.js';
import { parseKarpenterLogText } from './history-files.js';
import { getWithRetry, type HttpResult, statusOf, type Target } from './kube-client.js';

/** Karpenter's controller: the chart's image (public.ecr.aws/karpenter/controller) or a Deployment named karpenter. */
export function findKarpenterDeployment(deployments: readonly Deployment[]): { deployment: Deployment; container: Container } | undefined {
  for (const d of deployments) {
    const containers = d.spec?.template?.spec?.containers ?? [];
    const c = containers.find((x) => /(^|\/)karpenter\/controller[:@]|(^|\/)karpenter[:@]/.test(x.image ?? '')) ?? (d.metadata.name === 'karpenter' ? containers.find((x) => x.name === 'controller') : undefined);
    if (c) return { deployment: d, container: c };
  }
  return undefined;
}

export async function gatherKarpenterLog(
  target: Target,
  objects: { deployments: Deployment[]; pods: Pod[]; replicaSets: ReplicaSet[] },
  opts: { sinceSeconds: number; maxBytes: number },
): Promise<{ logs: KarpenterLogSummary[]; gaps: Gap[]; texts: Array<{ name: string; text: string; truncated: boolean }> }> {
  const logs: KarpenterLogSummary[] = [];
  const texts: Array<{ name: string; text: string; truncated: boolean }> = [];
  const gaps: Gap[] = [];
  const found = findKarpenterDeployment(objects.deployments);
  if (!found) return { logs, gaps, texts };
  const ns = found.deployment.metadata.namespace ?? 'default';
  // every pod of the Deployment: chooseCaPod ranks one; the rest are read too (a replica that lost the lease logged before)
  const first = chooseCaPod(found.deployment, found.container, objects.pods, objects.replicaSets);
  if (!first) {
    gaps.push({ resource: 'pods/log', scope: `namespace ${ns}`, reason: 'not-found', detail: `not found: no pod of Deployment ${ns}/${found.deployment.metadata.name} among the listed pods, so Karpenter's log was not read` });
    return { logs, gaps, texts };
  }
  const owners = new Set((first.pod.metadata.ownerReferences ?? []).map((o) => o.name));
  const pods = objects.pods.filter((p) => p.metadata.namespace === ns && !p.metadata.deletionTimestamp && (p === first.pod || (p.metadata.ownerReferences ?? []).some((o) => owners.has(o.name)))).slice(0, 5);
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const path = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}/log`;
    const q = new URLSearchParams({ container: first.container, sinceSeconds: String(Math.max(1, Math.round(opts.sinceSeconds))), limitBytes: String(opts.maxBytes) });
    const what = `get pods/log ${ns}/${name} container ${first.container}`;
    let res: HttpResult;
    try {
      res = await getWithRetry(target, `${path}?${q}`, `GET ${path}`, { maxBytes: opts.maxBytes, overflow: 'truncate', accept: '*/*' });
    } catch (e) {
      gaps.push({ resource: 'pods/log', scope: `namespace ${ns}`, reason: 'error', detail: `error: ${what}: ${(e as Error).message}` });
      continue;
    }
    if (res.status !== 200) {
      const s = statusOf(res);
      gaps.push({ resource: 'pods/log', scope: `namespace ${ns}`, reason: res.status === 403 ? 'forbidden' : 'error', detail: `${res.status === 403 ? 'forbidden' : 'error'}: ${what}: HTTP ${res.status}${s.message ? `: ${s.message}` : ''}` });
      if (res.status === 403) break;
      continue;
    }
    // a body cut at the cap ends at its last whole line
    const text = res.truncated ? res.body.slice(0, res.body.lastIndexOf('\n') + 1) : res.body;
    logs.push(parseKarpenterLogText(text, { kind: 'pod', namespace: ns, pod: name }));
    texts.push({ name: `${ns}-${name}`, text, truncated: res.truncated });
  }
  return { logs, gaps, texts };
}
