// why-pending's JSON contract v2 (docs/json.md): the scheduler's view counted by reason, as kube-scheduler reports it,
// equivalent pods sharing one evaluation, and CA's scale-up size, so the document grows with what differs.
import { createHash } from 'node:crypto';
import {
  SCHEDULER_CODES,
  type NodeGroupSummary,
  type PodEntryV2,
  type PodGroupResultV2,
  type PodNodeResult,
  type PodReport,
  type PodSameAsEntryV2,
  type SchedulerCodes,
  type SchedulerSummary,
} from '../model/why-pending.js';
import type { NodeGroup } from '../model/node-group.js';
import type { Analysis } from '../simulate/analysis.js';
import { estimateScaleUpSize } from '../simulate/scale-up-size.js';
import { notEvaluatedReason } from '../simulate/scheduler.js';
import type { PodAnalysis } from '../simulate/why-pending.js';

export const WHY_PENDING_SCHEMA_VERSION = 3 as const;
/** Nodes the pod fits on, named in `scheduler.fitNodes`. */
export const FIT_NODES_SAMPLE = 10;
/** Nodes named per scheduler reason, groups per node-group reason. */
export const SAMPLE_NAMES = 3;
/**
 * Reasons, most frequent first, that name sample nodes (groups) when there are more than REASONS_ALL_SAMPLED: one
 * reason per distinct taint runs to hundreds. Up to REASONS_ALL_SAMPLED reasons, each names its samples.
 */
export const SAMPLED_REASONS = 5;
export const REASONS_ALL_SAMPLED = 8;

/** How many of `n` reasons (most frequent first) name their samples. */
function sampledReasons(n: number): number {
  return n <= REASONS_ALL_SAMPLED ? n : SAMPLED_REASONS;
}
/** Node groups listed in full per pod without --show-nodes; every group is counted in nodeGroupSummary. */
export const NODE_GROUPS_LISTED = 10;
/** Of those, failing groups (beyond the ones CA could use or decides about): nodeGroupSummary counts the rest by reason. */
export const FAILING_GROUPS_LISTED = 2;

export interface WhyPendingJsonOptions {
  /** --show-nodes, or a single named pod: every node's result and every node group in full. */
  full: boolean;
}

interface SchedulerDigest {
  summary: Omit<SchedulerSummary, 'nodes'>;
  /** Hash of every node's result: equal digests, equal per-node results. */
  digest: string;
}

const schedulerDigests = new WeakMap<object, SchedulerDigest>();

/** The scheduler's per-node results counted by reason, computed once per distinct result (equivalent pods share it). */
function digestScheduler(s: PodReport['scheduler']): SchedulerDigest {
  const hit = schedulerDigests.get(s);
  if (hit) return hit;
  const compact = s[SCHEDULER_CODES];
  const d = compact ? digestCodes(s.message, compact) : digestNodes(s.message, s.nodes);
  schedulerDigests.set(s, d);
  return d;
}

type ReasonCounts = Map<string, { count: number; sampleNodes: string[] }>;

function summaryOf(message: string, nodesTotal: number, fits: number, fitNodes: string[], reasons: ReasonCounts): SchedulerDigest['summary'] {
  return {
    nodesTotal,
    fits,
    fitNodes,
    reasons: sortedCounts(reasons).map(([reason, e], i) => ({
      reason,
      count: e.count,
      sampleNodes: i < sampledReasons(reasons.size) ? e.sampleNodes : [],
    })),
    message,
  };
}

/** As kube-scheduler's FitError histogram counts them (scheduler.ts explain): a node casdoctor could not evaluate says so. */
function countedReasons(r: Omit<PodNodeResult, 'name'>): readonly string[] {
  return r.reasons.length ? r.reasons : r.notEvaluated?.length ? [notEvaluatedReason(r.notEvaluated)] : [];
}

/** From the compact form: one pass over the node codes, no entry per node built. */
function digestCodes(message: string, c: SchedulerCodes): SchedulerDigest {
  const reasons: ReasonCounts = new Map();
  // each distinct result's reason entries, resolved once
  const entries = c.table.map((r) =>
    r.fits
      ? undefined
      : countedReasons(r).map((reason) => {
          let e = reasons.get(reason);
          if (!e) reasons.set(reason, (e = { count: 0, sampleNodes: [] }));
          return e;
        }),
  );
  const fitNodes: string[] = [];
  let fits = 0;
  for (let i = 0; i < c.codes.length; i++) {
    const es = entries[c.codes[i]];
    if (!es) {
      fits++;
      if (fitNodes.length < FIT_NODES_SAMPLE) fitNodes.push(c.names[i]);
      continue;
    }
    for (const e of es) {
      e.count++;
      if (e.sampleNodes.length < SAMPLE_NAMES) e.sampleNodes.push(c.names[i]);
    }
  }
  // a table entry no node has (not built by computePod, but cheap to be sure of)
  for (const [k, e] of reasons) if (e.count === 0) reasons.delete(k);
  // equal per-node results build equal tables and codes (codes in order of first occurrence), over one view's nodes
  const hash = createHash('sha256').update(JSON.stringify(c.table)).update('\n').update(c.names.join('\n')).update('\n');
  hash.update(new Uint8Array(c.codes.buffer, c.codes.byteOffset, c.codes.byteLength));
  return { summary: summaryOf(message, c.codes.length, fits, fitNodes, reasons), digest: hash.digest('hex') };
}

function digestNodes(message: string, nodes: readonly PodNodeResult[]): SchedulerDigest {
  const hash = createHash('sha256');
  const fitNodes: string[] = [];
  let fits = 0;
  const reasons: ReasonCounts = new Map();
  for (const n of nodes) {
    hash.update(JSON.stringify(n));
    hash.update('\n');
    if (n.fits) {
      fits++;
      if (fitNodes.length < FIT_NODES_SAMPLE) fitNodes.push(n.name);
      continue;
    }
    for (const r of countedReasons(n)) {
      let e = reasons.get(r);
      if (!e) reasons.set(r, (e = { count: 0, sampleNodes: [] }));
      e.count++;
      if (e.sampleNodes.length < SAMPLE_NAMES) e.sampleNodes.push(n.name);
    }
  }
  return { summary: summaryOf(message, nodes.length, fits, fitNodes, reasons), digest: hash.digest('hex') };
}

/** Most frequent first, then by reason: the order a reader scans for the dominant cause. */
function sortedCounts<T extends { count: number }>(m: Map<string, T>): Array<[string, T]> {
  return [...m].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

const groupDigests = new WeakMap<object, string>();

/** The node-group rows' content, without what CA's log adds per pod (its time and the sibling named). */
function digestGroups(rows: PodReport['nodeGroups']): string {
  let d = groupDigests.get(rows);
  if (d === undefined) {
    const json = JSON.stringify(rows, (k, v: unknown) => (k === 'at' || k === 'pod' ? undefined : v));
    groupDigests.set(rows, (d = createHash('sha256').update(json).digest('hex')));
  }
  return d;
}

/**
 * The text report's equivalence groups (src/commands/replicas.ts): one controller and the same report but for the pod's
 * name, its event's time and what CA's log adds per pod. Large parts are compared by digest, once per shared object.
 */
export function equivalenceSignature(r: PodReport, owner: string): string {
  const { name: _name, caEvent, scheduler, nodeGroups, ...rest } = r;
  const event = caEvent ? { ...caEvent, time: undefined, ageSeconds: undefined } : undefined;
  return `${owner}\u0000${digestScheduler(scheduler).digest}\u0000${digestGroups(nodeGroups)}\u0000${JSON.stringify({ ...rest, message: scheduler.message, caEvent: event })}`;
}

export interface Grouping {
  /** For each report: the index of the report carrying its evaluation (itself when it carries one). */
  carrier: number[];
  /** For a carrier: how many reports it stands for, itself included (absent: 1). */
  count: Map<number, number>;
  /** For a carrier with a controller: "ReplicaSet web-7d9f". */
  owner: Map<number, string>;
}

/**
 * CA's equivalence groups among the reports (one controller, one spec, the same result): the JSON's `sameAs` and the
 * text's replica blocks both come from here.
 */
export function groupEquivalent(pods: PodAnalysis[], reports: PodReport[]): Grouping {
  const carrier: number[] = [];
  const count = new Map<number, number>();
  const owner = new Map<number, string>();
  const firstOf = new Map<string, number>();
  const controllerKey = (i: number): string | undefined => {
    const ref = pods[i]?.pod.metadata.ownerReferences?.find((o) => o.controller);
    return ref ? `${reports[i].namespace}/${ref.uid ?? `${ref.kind} ${ref.name}`}` : undefined;
  };
  // a controller with one Pending pod has nothing to share: skip its signature (a hash over every node's result)
  const perController = new Map<string, number>();
  reports.forEach((_, i) => {
    const k = controllerKey(i);
    if (k !== undefined) perController.set(k, (perController.get(k) ?? 0) + 1);
  });
  reports.forEach((r, i) => {
    const ref = pods[i]?.pod.metadata.ownerReferences?.find((o) => o.controller);
    if (!ref) {
      carrier.push(i);
      return;
    }
    const who = `${ref.kind} ${ref.name}`;
    const ck = controllerKey(i) as string;
    if ((perController.get(ck) ?? 0) < 2) {
      owner.set(i, who);
      carrier.push(i);
      return;
    }
    const key = equivalenceSignature(r, `${r.namespace}/${ref.uid ?? who}`);
    const first = firstOf.get(key);
    if (first === undefined) {
      firstOf.set(key, i);
      owner.set(i, who);
      carrier.push(i);
    } else {
      carrier.push(first);
      count.set(first, (count.get(first) ?? 1) + 1);
    }
  });
  return { carrier, count, owner };
}

/** The rows worth listing when there are many groups, as the text report ranks them (why-pending-text.ts shownGroups). */
function listedGroups(rows: PodReport['nodeGroups'], full: boolean): Set<PodReport['nodeGroups'][number]> {
  if (full || rows.length <= NODE_GROUPS_LISTED) return new Set(rows);
  const rank = (g: PodReport['nodeGroups'][number]) =>
    g.expanderChoice ? 0 : g.fits ? 1 : g.predicatesPass || g.notEvaluated || g.caMayDecideEither || g.caLogged ? 2 : g.discovered ? 3 : 4;
  const ranked = rows
    .map((g, i) => ({ g, i, r: rank(g) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, NODE_GROUPS_LISTED);
  // failing groups are alike by the hundred (nodeGroupSummary counts them by reason): a few of them are enough
  const telling = ranked.filter((x) => x.r <= 2);
  return new Set([...telling, ...ranked.filter((x) => x.r > 2).slice(0, FAILING_GROUPS_LISTED)].map((x) => x.g));
}

function groupSummary(rows: PodReport['nodeGroups'], listed: number): NodeGroupSummary {
  const reasons = new Map<string, { count: number; sampleGroups: string[] }>();
  let fits = 0;
  for (const g of rows) {
    if (g.fits) {
      fits++;
      continue;
    }
    for (const r of g.reasons) {
      let e = reasons.get(r);
      if (!e) reasons.set(r, (e = { count: 0, sampleGroups: [] }));
      e.count++;
      if (e.sampleGroups.length < SAMPLE_NAMES) e.sampleGroups.push(g.name);
    }
  }
  return {
    total: rows.length,
    fits,
    listed,
    reasons: sortedCounts(reasons).map(([reason, e], i) => ({
      reason,
      count: e.count,
      sampleGroups: i < sampledReasons(reasons.size) ? e.sampleGroups : [],
    })),
  };
}

function entryFor(
  a: Analysis,
  byName: Map<string, NodeGroup>,
  p: PodAnalysis | undefined,
  r: PodReport,
  count: number,
  owner: string | undefined,
  o: WhyPendingJsonOptions,
): PodEntryV2 {
  const { summary } = digestScheduler(r.scheduler);
  const scheduler: SchedulerSummary = o.full ? { ...summary, nodes: r.scheduler.nodes } : summary;
  const listed = listedGroups(r.nodeGroups, o.full);
  const nodeGroups: PodGroupResultV2[] = r.nodeGroups
    .filter((g) => listed.has(g))
    .map((g) => {
      // only where CA scales up for the pod (not for a pod it ignores, nor one an existing node takes)
      const group = g.fits && p && r.verdict === 'scale-up' ? byName.get(g.name) : undefined;
      const scaleUp = group && p ? estimateScaleUpSize(a, group, p.requests, count) : undefined;
      return scaleUp ? { ...g, scaleUp } : g;
    });
  const { scheduler: _s, nodeGroups: _g, caEvent, expander, ...head } = r;
  return {
    ...head,
    ...(count > 1 && owner ? { equivalentPods: { count, controller: owner } } : {}),
    scheduler,
    nodeGroups,
    nodeGroupSummary: groupSummary(r.nodeGroups, nodeGroups.length),
    ...(caEvent ? { caEvent } : {}),
    ...(expander ? { expander } : {}),
  };
}

/**
 * The `pods` of why-pending's JSON v2, in report order, built one entry at a time as the writer reaches it (a pod's
 * full node list with --show-nodes is held only while it is written). Equivalent pods after the first say `sameAs`.
 */
export function whyPendingPodEntries(
  a: Analysis,
  pods: PodAnalysis[],
  reports: PodReport[],
  o: WhyPendingJsonOptions,
): Iterable<PodEntryV2 | PodSameAsEntryV2> {
  const g = groupEquivalent(pods, reports);
  const byName = new Map(a.nodeGroups.map((ng) => [ng.name, ng]));
  return {
    *[Symbol.iterator]() {
      for (let i = 0; i < reports.length; i++) {
        const r = reports[i];
        const c = g.carrier[i];
        if (c === i) {
          yield entryFor(a, byName, pods[i], r, g.count.get(i) ?? 1, g.owner.get(i), o);
          continue;
        }
        const first = reports[c];
        yield {
          namespace: r.namespace,
          name: r.name,
          sameAs: `${first.namespace}/${first.name}`,
          verdict: r.verdict,
          ...(r.route ? { route: r.route } : {}),
          ...(r.caEvent ? { caEvent: r.caEvent } : {}),
        };
      }
    },
  };
}
