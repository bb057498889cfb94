// Nodes, pods and NodeClaims as history steps: their own timestamps outlive the 1-hour events (creation, conditions'
// lastTransitionTime, taints' timeAdded, deletionTimestamp, Karpenter's termination annotation).
import type { Node, Pod } from '../../model/k8s.js';
import type { NodeClaim } from '../../model/karpenter.js';
import type { HistoryStep } from '../../model/history.js';
import { instanceIdOf, line, ms } from './text.js';

const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
/** CA's taint on a node it is deleting, and Karpenter's (v1) on a node it disrupts. */
const CA_TAINT = 'ToBeDeletedByClusterAutoscaler';
const KARPENTER_TAINT = 'karpenter.sh/disrupted';
/** karpenter.sh/v1 NodeClaim annotation: when the instance will be terminated regardless of drain (aws#7083). */
const TERMINATION_ANNOTATION = 'karpenter.sh/nodeclaim-termination-timestamp';

const src = (what: string) => ({ kind: 'object' as const, where: what });

export function stepsFromNodes(nodes: readonly Node[]): HistoryStep[] {
  const out: HistoryStep[] = [];
  for (const n of nodes) {
    const name = line(n.metadata?.name ?? '', 253);
    if (!name) continue;
    const instanceId = instanceIdOf(n.spec?.providerID);
    const group = n.metadata?.labels?.[NODEPOOL_LABEL];
    const base = { node: name, ...(instanceId ? { instanceId } : {}), ...(group ? { group: line(group, 253) } : {}) };
    const where = `Node ${name}`;
    const created = ms(n.metadata?.creationTimestamp);
    if (created !== undefined) out.push({ t: created, kind: 'node-registered', actor: 'kubelet', summary: 'Node object created (registered)', source: src(`${where} creationTimestamp`), ...base });
    for (const c of n.status?.conditions ?? []) {
      if (c.type !== 'Ready') continue;
      const t = ms(c.lastTransitionTime);
      if (t === undefined) continue;
      if (c.status === 'True') out.push({ t, kind: 'node-ready', actor: 'kubelet', summary: 'Ready since', source: src(`${where} Ready condition`), ...base });
      else out.push({ t, kind: 'node-not-ready', actor: 'kubelet', summary: `Ready=${line(c.status, 10)} (${line(c.reason ?? '', 80)})`, raw: line(c.message), source: src(`${where} Ready condition`), ...base });
    }
    for (const taint of n.spec?.taints ?? []) {
      if (taint.key !== CA_TAINT && taint.key !== KARPENTER_TAINT) continue;
      const t = ms((taint as { timeAdded?: string }).timeAdded);
      // CA's taint value is the Unix time it was added (core/utils/taints: ToBeDeletedTaint)
      const fromValue = taint.key === CA_TAINT && /^\d{9,11}$/.test(taint.value ?? '') ? Number(taint.value) * 1000 : undefined;
      const at = t ?? fromValue;
      if (at === undefined) continue;
      out.push({
        t: at,
        kind: 'tainted',
        actor: taint.key === CA_TAINT ? 'cluster-autoscaler' : 'karpenter',
        reason: taint.key,
        summary: `tainted ${taint.key}:${line(taint.effect ?? '', 20)}`,
        source: src(`${where} taint`),
        ...base,
      });
    }
    const deleted = ms(n.metadata?.deletionTimestamp);
    if (deleted !== undefined) out.push({ t: deleted, kind: 'node-deleted', actor: 'unknown', summary: 'Node deletion requested (deletionTimestamp)', source: src(`${where} deletionTimestamp`), ...base });
  }
  return out;
}

export function stepsFromNodeClaims(claims: readonly NodeClaim[]): HistoryStep[] {
  const out: HistoryStep[] = [];
  for (const c of claims) {
    const name = line(c.metadata?.name ?? '', 253);
    if (!name) continue;
    const node = c.status?.nodeName ? line(c.status.nodeName, 253) : undefined;
    const instanceId = instanceIdOf(c.status?.providerID);
    const group = c.metadata?.labels?.[NODEPOOL_LABEL];
    const base = { nodeClaim: name, ...(node ? { node } : {}), ...(instanceId ? { instanceId } : {}), ...(group ? { group: line(group, 253) } : {}) };
    const where = `NodeClaim ${name}`;
    const created = ms(c.metadata?.creationTimestamp);
    if (created !== undefined) out.push({ t: created, kind: 'nodeclaim-created', actor: 'karpenter', summary: 'NodeClaim created', source: src(`${where} creationTimestamp`), ...base });
    for (const cond of c.status?.conditions ?? []) {
      const t = ms(cond.lastTransitionTime);
      if (t === undefined) continue;
      const at = { t, actor: 'karpenter' as const, source: src(`${where} ${line(cond.type, 40)} condition`), ...base };
      if (cond.status === 'True' && cond.type === 'Launched') out.push({ ...at, kind: 'instance-launched', summary: 'instance launched' });
      else if (cond.status === 'False' && cond.type === 'Launched')
        out.push({ ...at, kind: 'launch-failed', reason: line(cond.reason ?? '', 80), summary: 'launch failed', raw: line(cond.message) });
      else if (cond.status === 'True' && cond.type === 'Registered') out.push({ ...at, kind: 'node-registered', summary: 'node registered' });
      else if (cond.status === 'True' && cond.type === 'Initialized') out.push({ ...at, kind: 'node-initialized', summary: 'node initialized' });
      // True with reason Underutilized|Empty|Drifted while a disruption command is in flight (disruption/queue.go:279)
      else if (cond.status === 'True' && cond.type === 'DisruptionReason')
        out.push({ ...at, kind: 'disrupting', reason: line(cond.reason ?? '', 40).toLowerCase(), summary: `disrupting: ${line(cond.reason ?? '', 40)}` });
      else if (cond.status === 'True' && cond.type === 'InstanceTerminating') out.push({ ...at, kind: 'instance-terminate-requested', summary: 'instance terminating' });
    }
    const deleted = ms(c.metadata?.deletionTimestamp);
    if (deleted !== undefined) out.push({ t: deleted, kind: 'nodeclaim-deleted', actor: 'karpenter', summary: 'NodeClaim deletion requested', source: src(`${where} deletionTimestamp`), ...base });
    const term = ms(c.metadata?.annotations?.[TERMINATION_ANNOTATION]);
    if (term !== undefined)
      out.push({ t: term, kind: 'instance-terminate-requested', actor: 'karpenter', reason: 'termination-grace-period', summary: `terminated by ${TERMINATION_ANNOTATION} at the latest`, source: src(`${where} annotation`), ...base });
  }
  return out;
}

export function stepsFromPods(pods: readonly Pod[]): HistoryStep[] {
  const out: HistoryStep[] = [];
  for (const p of pods) {
    const pod = `${line(p.metadata?.namespace ?? 'default', 63)}/${line(p.metadata?.name ?? '', 253)}`;
    const node = p.spec?.nodeName ? line(p.spec.nodeName, 253) : undefined;
    const where = `Pod ${pod}`;
    const created = ms(p.metadata?.creationTimestamp);
    if (created !== undefined) out.push({ t: created, kind: 'pod-created', actor: 'unknown', pod, summary: 'pod created', source: src(`${where} creationTimestamp`) });
    for (const c of p.status?.conditions ?? []) {
      const t = ms(c.lastTransitionTime);
      if (t === undefined) continue;
      if (c.type === 'PodScheduled' && c.status === 'True')
        out.push({ t, kind: 'pod-scheduled', actor: 'scheduler', pod, ...(node ? { node } : {}), summary: node ? `scheduled on ${node}` : 'scheduled', source: src(`${where} PodScheduled condition`) });
      else if (c.type === 'PodScheduled' && c.status === 'False')
        out.push({ t, kind: 'pod-unschedulable', actor: 'scheduler', pod, summary: `unschedulable: ${line(c.message ?? c.reason ?? '')}`, source: src(`${where} PodScheduled condition`) });
      else if (c.type === 'Ready' && c.status === 'True')
        out.push({ t, kind: 'pod-started', actor: 'kubelet', pod, ...(node ? { node } : {}), summary: 'pod Ready', source: src(`${where} Ready condition`) });
    }
  }
  return out;
}
