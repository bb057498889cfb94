// Karpenter's controller log, line by line: zap JSON records ({"level","time","logger","message","commit", …values}),
// bare or behind an RFC 3339 prefix (`kubectl logs --timestamps`, a CRI log file). Pure and bounded: push() a line,
// finish() for the summary. The messages and their values are Karpenter's own, cited per line below (v1.0–v1.14).
import {
  DEFAULT_KARPENTER_LOG_LIMITS,
  type KarpenterDisruptedNode,
  type KarpenterLogKind,
  type KarpenterLogLimits,
  type KarpenterLogRecord,
  type KarpenterLogSource,
  type KarpenterLogSummary,
} from '../../../../model/karpenter-log.js';
import { oneLine } from '../../../../model/text.js';

const PREFIX = /^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\s+(?:(?:stdout|stderr) [FP] )?/;

/** message → kind, for the messages whose wording is fixed. */
const KINDS: ReadonlyMap<string, KarpenterLogKind> = new Map([
  // karpenter provisioning/provisioner.go:449, scheduling/scheduler.go:330, provisioner.go:489 (v1.14.1)
  ['found provisionable pod(s)', 'provisionable-pods'],
  ['computed new nodeclaim(s) to fit pod(s)', 'computed-nodeclaims'],
  ['created nodeclaim', 'created-nodeclaim'],
  // nodeclaim/lifecycle/launch.go:87,124, registration.go:118, initialization.go:99
  ['launched nodeclaim', 'launched-nodeclaim'],
  ['failed launching nodeclaim', 'launch-failed'],
  ['registered nodeclaim', 'registered-nodeclaim'],
  ['initialized nodeclaim', 'initialized-nodeclaim'],
  // disruption/queue.go:322 (v1.3+; v1.0–v1.2 wrote "disrupting nodeclaim(s) via …", handled below)
  ['disrupting node(s)', 'disrupting'],
  // node/termination/terminator/terminator.go:89, node/termination/controller.go:387, nodeclaim/lifecycle/controller.go:275,316
  ['tainted node', 'tainted-node'],
  ['deleted node', 'deleted-node'],
  ['deleted nodeclaim', 'deleted-nodeclaim'],
  ['annotated nodeclaim', 'annotated-nodeclaim'],
  // nodeclaim/expiration/controller.go:85 (V1), nodeclaim/lifecycle/liveness.go:152 (V1)
  ['deleting expired nodeclaim', 'expired-nodeclaim'],
  ['terminating due to timeout', 'timeout'],
  // aws: controllers/interruption/utils.go:160, instancestatus_controller.go:159, cache/unavailableofferings.go:144 (V1)
  ['initiating delete from interruption message', 'interruption'],
  ['detected unhealthy instance owned by cluster', 'unhealthy-instance'],
  ['removing offering from offerings', 'offering-unavailable'],
]);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** klog.KObj as zap writes it: {"name": "x"} or {"name": "x", "namespace": "y"}; a bare string in older lines. */
const objName = (v: unknown): string | undefined => {
  if (typeof v === 'string') return str(v);
  if (v && typeof v === 'object' && !Array.isArray(v)) return str((v as Record<string, unknown>).name);
  return undefined;
};
/** klog.KObj of a namespaced object: "ns/name" ({"name","namespace"}), or the bare name. */
const objKey = (v: unknown): string | undefined => {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const name = str(o.name);
    return name && str(o.namespace) ? `${str(o.namespace)}/${name}` : name;
  }
  return str(v);
};
/**
 * client-go's leader election through klog, which Karpenter routes into its zap logger (pkg/operator/operator.go:145
 * @v1.14.1 klog.SetLogger): tools/leaderelection/leaderelection.go:257,271,297@client-go v0.33.2.
 */
const LEADER: ReadonlyArray<[RegExp, NonNullable<KarpenterLogRecord['leaderEvent']>]> = [
  [/^attempting to acquire leader lease (\S+?)\.\.\.$/, 'attempting'],
  [/^successfully acquired lease (\S+)$/, 'acquired'],
  [/^failed to renew lease (\S+?): /, 'renew-failed'],
];
const INSTANCE_ID = /\bi-[0-9a-f]{8,17}\b/;
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** "a/b, c/d and 3 other(s)" (pretty.Slice) → names and the count of the rest. */
export function splitPrettySlice(s: string, cap: number): { names: string[]; more: number } {
  let more = 0;
  const m = /\s+and (\d+) other\(s\)$/.exec(s);
  if (m) {
    more = Number(m[1]);
    s = s.slice(0, m.index);
  }
  const all = s.split(/,\s*/).map((x) => x.trim()).filter(Boolean);
  return { names: all.slice(0, cap).map(oneLine), more: more + Math.max(0, all.length - cap) };
}

export interface KarpenterLogParser {
  push(line: string): void;
  finish(): KarpenterLogSummary;
}

export function createKarpenterLogParser(opts: { source: KarpenterLogSource; limits?: Partial<KarpenterLogLimits> }): KarpenterLogParser {
  const limits: KarpenterLogLimits = { ...DEFAULT_KARPENTER_LOG_LIMITS, ...opts.limits };
  const records: KarpenterLogRecord[] = [];
  let head = 0; // ring start once full
  let dropped = 0;
  let lines = 0;
  let other = 0;
  let unrecognised = 0;
  let json = 0;
  let prefixed = 0;
  let first: number | undefined;
  let last: number | undefined;
  let commit: string | undefined;
  const samples: Array<{ line: number; text: string }> = [];

  const keep = (r: KarpenterLogRecord) => {
    if (records.length < limits.records) records.push(r);
    else {
      records[head] = r;
      head = (head + 1) % limits.records;
      dropped++;
    }
  };

  return {
    push(raw: string) {
      lines++;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') return;
      let body = line;
      let isPrefixed = false;
      if (line.charCodeAt(0) !== 123) {
        const p = PREFIX.exec(line);
        if (p) {
          body = line.slice(p[0].length);
          isPrefixed = true;
        }
      }
      const r = body.charCodeAt(0) === 123 ? parseRecord(body) : undefined;
      if (!r) {
        unrecognised++;
        if (samples.length < limits.samples) samples.push({ line: lines, text: cut(oneLine(line), 200) });
        return;
      }
      if (isPrefixed) prefixed++;
      else json++;
      commit ??= str(r.commit);
      const time = Date.parse(String(r.time ?? r.ts ?? ''));
      // the log's coverage is every line's time, not only the kept records'
      if (!Number.isNaN(time)) {
        if (first === undefined || time < first) first = time;
        if (last === undefined || time > last) last = time;
      }
      const rec = toRecord(r, Number.isNaN(time) ? undefined : time, lines, limits);
      if (!rec) {
        other++;
        return;
      }
      keep(rec);
    },
    finish(): KarpenterLogSummary {
      const ordered = head === 0 ? records : [...records.slice(head), ...records.slice(0, head)];
      return {
        source: opts.source,
        format: json + prefixed === 0 ? 'unknown' : prefixed > json ? 'prefixed-json' : 'json',
        lines,
        otherLines: other,
        unrecognisedLines: unrecognised,
        samples,
        records: ordered,
        dropped,
        ...(first !== undefined ? { firstTime: first } : {}),
        ...(last !== undefined ? { lastTime: last } : {}),
        ...(commit ? { commit: cut(oneLine(commit), 40) } : {}),
      };
    },
  };
}

/** A zap record of Karpenter's: an object with `level`, a time and `message` (`msg` in pre-v0.32 builds). */
function parseRecord(body: string): Record<string, unknown> | undefined {
  let o: unknown;
  try {
    o = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const r = o as Record<string, unknown>;
  if (typeof r.message !== 'string' && typeof r.msg === 'string') r.message = r.msg;
  if (typeof r.level !== 'string' || typeof r.message !== 'string' || (r.time === undefined && r.ts === undefined)) return undefined;
  return r;
}

function toRecord(r: Record<string, unknown>, time: number | undefined, line: number, limits: KarpenterLogLimits): KarpenterLogRecord | undefined {
  if (time === undefined) return undefined;
  const message = r.message as string;
  const level = (r.level as string).toUpperCase();
  let kind = KINDS.get(message);
  // v1.0–v1.2: "disrupting nodeclaim(s) via replace, terminating 1 nodes (2 pods) ip-…/m5.large/on-demand …"
  if (!kind && message.startsWith('disrupting nodeclaim(s) via ')) kind = 'disrupting';
  const leader = kind ? undefined : LEADER.map(([re, ev]) => [re.exec(message), ev] as const).find(([m]) => m);
  if (leader) kind = 'leader-election';
  if (!kind && level === 'ERROR') kind = 'error';
  if (!kind) return undefined;
  const rec: KarpenterLogRecord = { time, kind, level, message: cut(oneLine(message), limits.messageChars), line };
  if (leader?.[0]) {
    rec.lease = cut(oneLine(leader[0][1]), 200);
    rec.leaderEvent = leader[1];
  }
  // scheduling/scheduler.go:302@v1.14.1 "could not schedule pod" (and every error line naming a pod): the pod, namespaced
  const pod = objKey(r.Pod) ?? objKey(r.pod);
  if (kind === 'error' && pod) rec.pods = [cut(oneLine(pod), 320)];
  const set = <K extends keyof KarpenterLogRecord>(k: K, v: KarpenterLogRecord[K] | undefined) => {
    if (v !== undefined) rec[k] = typeof v === 'string' ? (cut(oneLine(v), limits.messageChars) as KarpenterLogRecord[K]) : v;
  };
  set('controller', str(r.controller));
  set('nodeClaim', objName(r.NodeClaim) ?? objName(r.nodeclaim));
  set('node', objName(r.Node) ?? objName(r.node));
  set('nodePool', objName(r.NodePool) ?? objName(r.nodepool));
  const providerId = str(r['provider-id']) ?? str(r.providerID);
  set('providerId', providerId);
  set('instanceId', (providerId ?? str(r.instance) ?? str(r['instance-id']))?.match(INSTANCE_ID)?.[0]);
  set('instanceType', str(r['instance-type']));
  set('zone', str(r.zone));
  set('capacityType', str(r['capacity-type']));
  set('error', str(r.error));
  set('ttl', str(r.ttl));
  set('timeout', str(r.timeout));
  set('commandId', str(r['command-id']));
  set('reason', str(r.reason) ?? str(r.messageKind));
  if (kind === 'disrupting') disruption(r, rec, message, limits);
  if (kind === 'provisionable-pods') {
    const pods = str(r.Pods) ?? str(r.pods);
    if (pods) {
      const { names, more } = splitPrettySlice(pods, limits.podsPerRecord);
      rec.pods = names;
      if (more) rec.podsMore = more;
    }
  }
  if (kind === 'computed-nodeclaims') set('podCount', num(r.pods));
  return rec;
}

function disruption(r: Record<string, unknown>, rec: KarpenterLogRecord, message: string, limits: KarpenterLogLimits): void {
  const command = str(r.command);
  if (command) {
    rec.command = cut(oneLine(command), limits.messageChars);
    // v1.9+: "Underutilized/<id>: replace: …" (disruption/types.go:333 @v1.14.1)
    const m = /^([A-Za-z]+)\/([^:\s]+):/.exec(command);
    if (m) {
      rec.reason ??= m[1].toLowerCase();
      rec.commandId ??= m[2];
    }
  }
  if (rec.reason) rec.reason = rec.reason.toLowerCase();
  const decision = str(r.decision);
  if (decision) rec.decision = decision.toLowerCase();
  const pc = num(r['pod-count']);
  if (pc !== undefined) rec.podCount = pc;
  const nodes = r['disrupted-nodes'];
  if (Array.isArray(nodes)) {
    rec.disrupted = nodes.slice(0, 100).flatMap((n): KarpenterDisruptedNode[] => {
      if (!n || typeof n !== 'object') return [];
      const o = n as Record<string, unknown>;
      const d: KarpenterDisruptedNode = {};
      const node = objName(o.Node);
      const nc = objName(o.NodeClaim);
      const it = str(o['instance-type']);
      const ct = str(o['capacity-type']);
      if (node) d.node = oneLine(node);
      if (nc) d.nodeClaim = oneLine(nc);
      if (it) d.instanceType = oneLine(it);
      if (ct) d.capacityType = oneLine(ct);
      return [d];
    });
  }
  const repl = r['replacement-nodes'];
  if (Array.isArray(repl)) {
    rec.replacements = repl.length;
    const first = repl[0] as Record<string, unknown> | undefined;
    const types = first && typeof first === 'object' ? str(first['instance-types']) : undefined;
    const ct = first && typeof first === 'object' ? str(first['capacity-type']) : undefined;
    if (types || ct) rec.replacementTypes = cut(oneLine([ct, types].filter(Boolean).join(' ')), 200);
  }
  // v1.0–v1.2: the command is the message ("via replace, terminating 1 nodes (2 pods) ip-a/m5.large/on-demand and replacing with …")
  const legacy = /^disrupting nodeclaim\(s\) via (replace|delete), terminating (\d+) nodes \((\d+) pods\) (.*?)(?: and replacing with (.*))?$/.exec(message);
  if (legacy) {
    rec.decision ??= legacy[1];
    rec.podCount ??= Number(legacy[3]);
    rec.disrupted ??= legacy[4].split(', ').slice(0, 100).map((s) => {
      const [node, instanceType, capacityType] = s.split('/');
      return { node: oneLine(node), ...(instanceType ? { instanceType: oneLine(instanceType) } : {}), ...(capacityType ? { capacityType: oneLine(capacityType) } : {}) };
    });
    if (legacy[5]) {
      rec.replacements ??= 1;
      rec.replacementTypes ??= cut(oneLine(legacy[5]), 200);
    }
  }
  if (rec.disrupted?.length === 1) {
    rec.node ??= rec.disrupted[0].node;
    rec.nodeClaim ??= rec.disrupted[0].nodeClaim;
  }
}

/** Is this the start of a Karpenter log? Most non-blank lines are zap JSON records, and one carries Karpenter's marks. */
export function sniffKarpenterLog(head: string): boolean {
  const all = head.split('\n');
  if (all.length > 1) all.pop();
  const lines = all.slice(0, 200).filter((l) => l.trim() !== '');
  if (lines.length === 0) return false;
  let records = 0;
  let karpenter = 0;
  for (const l of lines) {
    let body = l.endsWith('\r') ? l.slice(0, -1) : l;
    if (body.charCodeAt(0) !== 123) {
      const p = PREFIX.exec(body);
      if (!p) continue;
      body = body.slice(p[0].length);
    }
    const r = parseRecord(body);
    if (!r) continue;
    records++;
    // Karpenter's own: its logger names, controllers and keys (zap's "commit" with "logger": "controller" …)
    if (
      r.logger === 'controller' ||
      (typeof r.logger === 'string' && r.logger.startsWith('controller.')) ||
      KINDS.has(r.message as string) ||
      'NodeClaim' in r ||
      'NodePool' in r ||
      (typeof r.controller === 'string' && /nodeclaim|nodepool|provisioner|disruption|interruption|node\.termination/.test(r.controller))
    )
      karpenter++;
  }
  return records * 2 >= lines.length && karpenter >= 1;
}
