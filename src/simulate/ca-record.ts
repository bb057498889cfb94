// CA's own record next to casdoctor's reasoning: its /metrics, its /snapshotz, and what its log said per pod × group
// and per node. Pure: the texts were fetched (bounded) by src/gather and the log parsed by src/simulate/ca-log.
import type { CaLogNodeRecord, CaLogPredicateFailure, CaLogSummary } from '../model/ca-log.js';
import { formatTaint, type Node, type Pod } from '../model/k8s.js';

// ---------------------------------------------------------------------------------------------------------------
// /metrics (Prometheus text exposition, namespace cluster_autoscaler; CA: metrics/metrics.go)

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface CaMetricsSummary {
  /** cluster_safe_to_autoscale: 0 = CA stops all scaling (too many unready nodes). */
  safeToAutoscale?: number;
  /** last_activity{activity}: unix seconds of the last start of each step ("main" = the loop). */
  lastActivity: Record<string, number>;
  /** unremovable_nodes_count{reason} */
  unremovable: Record<string, number>;
  /** node_group_backoff_status{node_group,reason} = 1 */
  backoff: Array<{ group: string; reason: string }>;
  /** node_group_healthiness{node_group} = 0 */
  unhealthyGroups: string[];
  /** failed_scale_ups_total{reason}, summed over the GPU labels */
  failedScaleUps: Record<string, number>;
  /** skipped_scale_events_count{direction,reason} */
  skippedScaleEvents: Array<{ direction: string; reason: string; count: number }>;
  /** errors_total{type} */
  errors: Record<string, number>;
  /** Lines that were not samples of the exposition format (not comments). */
  malformedLines: number;
  samples: number;
}

const PREFIX = 'cluster_autoscaler_';

/** One sample line: name{a="b",c="d"} value [timestamp]. Label values unescape \\ \" \n. */
export function parseMetricLine(line: string): MetricSample | undefined {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?\s*$/.exec(line);
  if (!m) return undefined;
  const labels: Record<string, string> = {};
  if (m[3]) {
    const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
    let lm: RegExpExecArray | null;
    let consumed = 0;
    while ((lm = re.exec(m[3])) !== null) {
      labels[lm[1]] = lm[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
      consumed = re.lastIndex;
    }
    if (consumed !== m[3].length && m[3].slice(consumed).trim() !== '') return undefined;
  }
  const raw = m[4];
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
  if (Number.isNaN(value) && raw !== 'NaN') return undefined;
  return { name: m[1], labels, value };
}

export function parseCaMetrics(text: string): CaMetricsSummary {
  const out: CaMetricsSummary = {
    lastActivity: {},
    unremovable: {},
    backoff: [],
    unhealthyGroups: [],
    failedScaleUps: {},
    skippedScaleEvents: [],
    errors: {},
    malformedLines: 0,
    samples: 0,
  };
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const s = parseMetricLine(line);
    if (!s) {
      out.malformedLines++;
      continue;
    }
    out.samples++;
    if (!s.name.startsWith(PREFIX)) continue;
    const name = s.name.slice(PREFIX.length);
    switch (name) {
      case 'cluster_safe_to_autoscale':
        out.safeToAutoscale = s.value;
        break;
      case 'last_activity':
        if (s.labels.activity) out.lastActivity[s.labels.activity] = s.value;
        break;
      case 'unremovable_nodes_count':
        if (s.labels.reason && s.value > 0) out.unremovable[s.labels.reason] = s.value;
        break;
      case 'node_group_backoff_status':
        if (s.value === 1 && s.labels.node_group) out.backoff.push({ group: s.labels.node_group, reason: s.labels.reason ?? '' });
        break;
      case 'node_group_healthiness':
        if (s.value === 0 && s.labels.node_group) out.unhealthyGroups.push(s.labels.node_group);
        break;
      case 'failed_scale_ups_total':
        if (s.value > 0) {
          const r = s.labels.reason ?? '';
          out.failedScaleUps[r] = (out.failedScaleUps[r] ?? 0) + s.value;
        }
        break;
      case 'skipped_scale_events_count':
        if (s.value > 0)
          out.skippedScaleEvents.push({ direction: s.labels.direction ?? '', reason: s.labels.reason ?? '', count: s.value });
        break;
      case 'errors_total':
        if (s.labels.type !== undefined && s.value > 0) out.errors[s.labels.type] = s.value;
        break;
    }
  }
  out.backoff.sort((a, b) => a.group.localeCompare(b.group) || a.reason.localeCompare(b.reason));
  out.unhealthyGroups.sort();
  out.skippedScaleEvents.sort((a, b) => a.direction.localeCompare(b.direction) || a.reason.localeCompare(b.reason));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// /snapshotz (--debugging-snapshot-enabled; CA: debuggingsnapshot/debugging_snapshot.go DebuggingSnapshotImpl)

export interface CaSnapshotz {
  start?: string;
  end?: string;
  error?: string;
  /** Node group id -> CA's template node (TemplateNodes, CA ≥ 1.26; absent in older snapshots). */
  templates: Map<string, { node: Node; pods: Pod[] }>;
  hasTemplates: boolean;
  /** "namespace/name" of UnscheduledPodsCanBeScheduled: pods CA found room for on existing or upcoming nodes. */
  schedulable: string[];
  nodeCount: number;
}

export function parseCaSnapshotz(text: string): CaSnapshotz | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON: ${(e as Error).message.slice(0, 200)}` };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { error: 'not a debugging snapshot object' };
  const d = doc as Record<string, unknown>;
  if (!('NodeList' in d) && !('TemplateNodes' in d) && !('Error' in d))
    return { error: 'no NodeList, TemplateNodes or Error: not CA\'s /snapshotz' };
  const templates = new Map<string, { node: Node; pods: Pod[] }>();
  const tn = d.TemplateNodes;
  if (tn && typeof tn === 'object') {
    for (const [group, v] of Object.entries(tn as Record<string, unknown>)) {
      const cn = v as { Node?: Node; Pods?: Pod[] } | null;
      if (cn?.Node) templates.set(group, { node: cn.Node, pods: Array.isArray(cn.Pods) ? cn.Pods : [] });
    }
  }
  const schedulable = Array.isArray(d.UnscheduledPodsCanBeScheduled)
    ? (d.UnscheduledPodsCanBeScheduled as Pod[]).map((p) => `${p?.metadata?.namespace ?? 'default'}/${p?.metadata?.name ?? ''}`).sort()
    : [];
  return {
    ...(typeof d.StartTimestamp === 'string' ? { start: d.StartTimestamp } : {}),
    ...(typeof d.EndTimestamp === 'string' ? { end: d.EndTimestamp } : {}),
    ...(typeof d.Error === 'string' && d.Error !== '' ? { error: d.Error } : {}),
    templates,
    hasTemplates: 'TemplateNodes' in d,
    schedulable,
    nodeCount: Array.isArray(d.NodeList) ? d.NodeList.length : 0,
  };
}

/** Labels CA sets per template copy (random names, hostname) and casdoctor cannot reproduce: never a difference. */
const VOLATILE_LABELS = new Set(['kubernetes.io/hostname']);
/** Resources compared between templates. */
const COMPARED_RESOURCES = ['cpu', 'memory', 'pods', 'ephemeral-storage', 'nvidia.com/gpu', 'aws.amazon.com/neuron', 'vpc.amazonaws.com/pod-eni'];

export interface TemplateDifference {
  field: 'label' | 'taint' | 'allocatable' | 'capacity';
  key: string;
  ca?: string;
  casdoctor?: string;
}

/** Where CA's real template differs from casdoctor's, field by field; quantities compared by value. */
export function diffTemplates(
  ca: Node,
  ours: Node,
  parseQuantity: (q: string) => number,
): TemplateDifference[] {
  const out: TemplateDifference[] = [];
  const caLabels = ca.metadata.labels ?? {};
  const ourLabels = ours.metadata.labels ?? {};
  for (const k of [...new Set([...Object.keys(caLabels), ...Object.keys(ourLabels)])].sort()) {
    if (VOLATILE_LABELS.has(k)) continue;
    if (caLabels[k] !== ourLabels[k])
      out.push({ field: 'label', key: k, ...(k in caLabels ? { ca: caLabels[k] } : {}), ...(k in ourLabels ? { casdoctor: ourLabels[k] } : {}) });
  }
  const caTaints = new Set((ca.spec?.taints ?? []).map(formatTaint));
  const ourTaints = new Set((ours.spec?.taints ?? []).map(formatTaint));
  for (const t of [...caTaints].filter((t) => !ourTaints.has(t)).sort()) out.push({ field: 'taint', key: t, ca: 'present', casdoctor: 'absent' });
  for (const t of [...ourTaints].filter((t) => !caTaints.has(t)).sort()) out.push({ field: 'taint', key: t, ca: 'absent', casdoctor: 'present' });
  for (const field of ['allocatable', 'capacity'] as const) {
    const a = (ca.status?.[field] ?? {}) as Record<string, string>;
    const b = (ours.status?.[field] ?? {}) as Record<string, string>;
    for (const r of COMPARED_RESOURCES) {
      if (a[r] === undefined && b[r] === undefined) continue;
      const va = a[r] !== undefined ? parseQuantity(String(a[r])) : undefined;
      const vb = b[r] !== undefined ? parseQuantity(String(b[r])) : undefined;
      if (va === vb) continue;
      // a missing zero is no difference (CA omits zero GPUs)
      if ((va ?? 0) === 0 && (vb ?? 0) === 0) continue;
      out.push({ field, key: r, ...(a[r] !== undefined ? { ca: String(a[r]) } : {}), ...(b[r] !== undefined ? { casdoctor: String(b[r]) } : {}) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The log next to casdoctor's verdicts

/** A log record counts as CA's current view when CA said it within this long before the log's last line. */
export const LOG_FRESH_MS = 10 * 60_000;

export function isFresh(lastSeen: string | undefined, summary: CaLogSummary): boolean {
  if (!lastSeen || !summary.lastTime) return true;
  return Date.parse(summary.lastTime) - Date.parse(lastSeen) <= LOG_FRESH_MS;
}

export interface PodLogView {
  /** Node group -> CA's latest predicate failure for this pod (or, when CA logged only a sibling, for that sibling). */
  failures: Map<string, CaLogPredicateFailure>;
  /** The pod CA named, when it is a sibling of the same controller (CA logs one pod per equivalence group). */
  via?: string;
  /** CA's hinting simulator placed the pod on an existing node: "Pod … can be moved to <node>". */
  movedTo?: string;
}

function ownerKey(p: Pod | undefined): string | undefined {
  const o = p?.metadata.ownerReferences?.find((r) => r.controller) ?? p?.metadata.ownerReferences?.[0];
  return o ? `${p?.metadata.namespace ?? 'default'}/${o.kind}/${o.name}` : undefined;
}

/** Index of a summary's per-pod records, built once per run. */
export class CaLogIndex {
  private byPod = new Map<string, CaLogPredicateFailure[]>();
  private byOwner = new Map<string, CaLogPredicateFailure[]>();
  private moves = new Map<string, string>();
  private nodes = new Map<string, CaLogNodeRecord>();

  constructor(
    readonly summary: CaLogSummary,
    podsByRef: Map<string, Pod>,
  ) {
    for (const f of summary.predicateFailures) {
      if (!isFresh(f.lastSeen, summary)) continue;
      const ref = f.namespace ? `${f.namespace}/${f.name}` : f.name;
      push(this.byPod, ref, f);
      if (!f.namespace) continue;
      const owner = ownerKey(podsByRef.get(ref));
      if (owner) push(this.byOwner, owner, f);
    }
    for (const m of summary.podMoves) if (isFresh(m.lastSeen, summary)) this.moves.set(m.pod, m.node);
    for (const n of summary.nodes) if (isFresh(n.lastSeen, summary)) this.nodes.set(n.node, n);
  }

  forPod(pod: Pod): PodLogView {
    const ns = pod.metadata.namespace ?? 'default';
    const ref = `${ns}/${pod.metadata.name ?? ''}`;
    let list = this.byPod.get(ref) ?? this.byPod.get(pod.metadata.name ?? '');
    let via: string | undefined;
    if (!list) {
      const owner = ownerKey(pod);
      const sib = owner ? this.byOwner.get(owner) : undefined;
      if (sib && sib.length > 0) {
        list = sib;
        via = sib[0].pod;
      }
    }
    const failures = new Map<string, CaLogPredicateFailure>();
    for (const f of list ?? []) {
      const prev = failures.get(f.group);
      if (!prev || (f.lastSeen ?? '') > (prev.lastSeen ?? '')) failures.set(f.group, f);
    }
    const movedTo = this.moves.get(ref);
    return { failures, ...(via ? { via } : {}), ...(movedTo ? { movedTo } : {}) };
  }

  forNode(name: string): CaLogNodeRecord | undefined {
    return this.nodes.get(name);
  }

  get hasPodRecords(): boolean {
    return this.byPod.size > 0 || this.moves.size > 0;
  }

  get hasNodeRecords(): boolean {
    return this.nodes.size > 0;
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/** "NodeAffinity: node(s) didn't match Pod's node affinity/selector" — what CA logged, in one line. */
export function loggedFailureText(f: CaLogPredicateFailure): string {
  const reasons = f.reasons.length ? f.reasons.join(', ') : f.error;
  return f.plugin ? `${f.plugin}: ${reasons}` : reasons;
}
