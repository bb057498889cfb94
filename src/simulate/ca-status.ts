import { parse as parseYaml } from 'yaml';
import { parseStatusYaml } from './status-yaml.js';
import type { CaConfig } from '../model/ca-config.js';
import type { ConfigMap } from '../model/k8s.js';

/** The FAQ: treat the status as stale when it is more than about 3 minutes old. */
export const STATUS_STALE_AFTER_MS = 3 * 60_000;
export const LAST_UPDATED_ANNOTATION = 'cluster-autoscaler.kubernetes.io/last-updated';

export interface CaStatusNodeCounts {
  registered?: number;
  ready?: number;
  notStarted?: number;
  longNotStarted?: number;
  suspended?: number;
  beingDeleted?: number;
  unready?: number;
  resourceUnready?: number;
  longUnregistered?: number;
  unregistered?: number;
}

export interface CaStatusNodeGroup {
  name: string;
  health?: 'Healthy' | 'Unhealthy' | string;
  scaleUpStatus?: 'NoActivity' | 'InProgress' | 'Backoff' | 'Unhealthy' | string;
  /** Only with scaleUpStatus Backoff (1.30+; the text format has no error details). */
  backoff?: { errorCode: string; errorMessage: string };
  scaleDownStatus?: string;
  candidates?: number;
  cloudProviderTarget?: number;
  minSize?: number;
  maxSize?: number;
  ready?: number;
  registered?: number;
  counts: CaStatusNodeCounts;
}

export interface CaStatus {
  /** 'text' up to CA 1.29, 'yaml' since 1.30; 'unknown' when data.status is missing. */
  format: 'text' | 'yaml' | 'unknown';
  /** The status' own timestamp ("Cluster-autoscaler status at ..." / `time:`). */
  time?: Date;
  /** Annotation cluster-autoscaler.kubernetes.io/last-updated. */
  lastUpdated?: Date;
  /** true when the newest timestamp is older than 3 minutes: CA is probably not running its loop. */
  stale: boolean;
  ageMs?: number;
  autoscalerStatus?: 'Running' | 'Initializing' | string;
  message?: string;
  clusterHealth?: 'Healthy' | 'Unhealthy' | string;
  clusterScaleUp?: string;
  clusterScaleDown?: string;
  clusterCounts: CaStatusNodeCounts;
  nodeGroups: CaStatusNodeGroup[];
  /** Anything that could not be read; never thrown. */
  problems: string[];
  /**
   * Set when the status body could not be parsed or is cut short (truncated, an unknown format): what could not be
   * read. Its health and node-group states are then not evaluated; only its timestamps are used.
   */
  unreadable?: string;
}

/** The status ConfigMap CA writes: `--namespace` / `--status-config-map-name`. */
export function findCaStatusConfigMap(
  configMaps: ConfigMap[],
  config: Pick<CaConfig, 'flags'>,
): ConfigMap | undefined {
  const ns = config.flags.namespace.value;
  const name = config.flags.statusConfigMapName.value;
  return configMaps.find((cm) => cm.metadata.name === name && (cm.metadata.namespace ?? '') === ns);
}

/**
 * Go's time.Time.String() / layout "2006-01-02 15:04:05.999999999 -0700 MST" (CA: clusterstate/utils/status.go),
 * optionally followed by a monotonic clock reading " m=+12.3".
 */
export function parseGoTimeString(s: string): Date | undefined {
  const m =
    /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d+)? ([+-])(\d{2})(\d{2})(?: \S+)?(?: m=[+-][\d.]+)?$/.exec(
      s.trim(),
    );
  if (!m) return undefined;
  const frac = m[3] ? m[3].slice(0, 4).padEnd(4, '0') : '';
  const d = new Date(`${m[1]}T${m[2]}${frac}${m[4]}${m[5]}:${m[6]}`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function parseAnyTime(v: unknown): Date | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : v;
  if (typeof v !== 'string' || v === '') return undefined;
  const go = parseGoTimeString(v);
  if (go) return go;
  if (/^\d{4}-\d{2}-\d{2}T/.test(v)) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
}

/** Parse the status ConfigMap, text (<=1.29) or YAML (1.30+, both key orders). Never throws. */
export function parseCaStatus(cm: ConfigMap, now: Date): CaStatus {
  const status: CaStatus = {
    format: 'unknown',
    stale: false,
    clusterCounts: {},
    nodeGroups: [],
    problems: [],
  };
  const annotation = cm.metadata.annotations?.[LAST_UPDATED_ANNOTATION];
  if (annotation !== undefined) {
    const t = parseGoTimeString(annotation);
    if (t) status.lastUpdated = t;
    else status.problems.push(`annotation ${LAST_UPDATED_ANNOTATION} is not a Go timestamp: "${annotation}"`);
  }
  const body = cm.data?.status;
  if (typeof body !== 'string') {
    status.problems.push('the ConfigMap has no data.status');
  } else if (body.trimStart().startsWith('Cluster-autoscaler status at')) {
    status.format = 'text';
    parseTextStatus(body, status);
  } else if (/^\s*(Cluster-wide:|NodeGroups:)/m.test(body) && !/^\s*(autoscalerStatus|clusterWide|time):/m.test(body)) {
    // old CA text pasted or written without its "Cluster-autoscaler status at <time>:" header line: still the text
    // format (clusterstate/api/utils.go GetReadableString), read as such; the missing header is a problem, said once
    status.format = 'text';
    status.problems.push('text status without its "Cluster-autoscaler status at <time>:" header line');
    parseTextStatus(`Cluster-autoscaler status at (none):\n${body}`, status);
    status.problems = status.problems.filter((p) => p !== 'unreadable status time "(none)"');
  } else {
    status.format = 'yaml';
    parseYamlStatus(body, status);
  }
  if (typeof body === 'string') {
    const cut = status.format === 'text' ? textTruncation(body) : status.format === 'yaml' ? yamlTruncation(body) : undefined;
    if (cut) status.problems.push(cut);
    if (status.format === 'unknown' || cut)
      status.unreadable = status.problems.filter((p) => !p.startsWith('annotation ')).join('; ') || 'the status body';
  }
  const newest = [status.lastUpdated, status.time]
    .filter((d): d is Date => !!d)
    .sort((a, b) => b.getTime() - a.getTime())[0];
  if (newest) {
    status.ageMs = now.getTime() - newest.getTime();
    status.stale = status.ageMs > STATUS_STALE_AFTER_MS;
  } else status.problems.push('the status has no timestamp');
  return status;
}

/**
 * A text status cut short. CA <= 1.29 writes every condition as three lines, the last "LastTransitionTime: <time>"
 * (clusterstate/api/utils.go:35-75@cluster-autoscaler-1.29.0 getConditionsString), so a complete body ends with one,
 * or with a Health "<unknown>" line, or is "Initializing".
 */
function textTruncation(body: string): string | undefined {
  const lines = body.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const last = lines[lines.length - 1] ?? '';
  if (lines.length <= 1) return 'text status has nothing after its header (truncated?)';
  if (last === 'Initializing' || /^Health:\s+<unknown>$/.test(last)) return undefined;
  const t = /^LastTransitionTime:\s+(.*)$/.exec(last);
  if (t && parseGoTimeString(t[1])) return undefined;
  return `text status is cut short: it ends in "${last.slice(0, 60)}" instead of a condition's LastTransitionTime line`;
}

/**
 * A YAML status that parsed but lacks parts CA always writes (clusterstate/api/types.go, 1.30+): the time, the
 * cluster-wide health / scaleUp / scaleDown, and each node group's three — a body cut at a line boundary.
 */
function yamlTruncation(body: string): string | undefined {
  let doc: unknown;
  try {
    doc = parseStatusYaml(body) ?? parseYaml(body);
  } catch {
    return undefined; // said already by parseYamlStatus
  }
  if (!isObj(doc)) return undefined;
  if (doc.autoscalerStatus === 'Initializing') return undefined;
  const missing: string[] = [];
  if (doc.time === undefined) missing.push('time');
  const cw = doc.clusterWide;
  for (const k of ['health', 'scaleUp', 'scaleDown']) if (!isObj(cw) || !isObj(cw[k])) missing.push(`clusterWide.${k}`);
  if (Array.isArray(doc.nodeGroups))
    doc.nodeGroups.forEach((g, i) => {
      for (const k of ['health', 'scaleUp', 'scaleDown']) if (isObj(g) && !isObj(g[k])) missing.push(`nodeGroups[${i}].${k}`);
    });
  if (missing.length === 0) return undefined;
  return `status YAML lacks ${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ` and ${missing.length - 4} more` : ''}, which CA always writes (truncated?)`;
}

const COUNT_KEYS: Record<string, keyof CaStatusNodeCounts> = {
  ready: 'ready',
  unready: 'unready',
  resourceUnready: 'resourceUnready',
  notStarted: 'notStarted',
  longNotStarted: 'longNotStarted',
  registered: 'registered',
  longUnregistered: 'longUnregistered',
};

/** Text format: clusterstate/api/utils.go GetReadableString (CA <= 1.29). */
function parseTextStatus(body: string, status: CaStatus): void {
  const lines = body.split(/\r?\n/);
  const header = /^Cluster-autoscaler status at (.*):\s*$/.exec(lines[0].trim());
  if (header) {
    const t = parseGoTimeString(header[1]);
    if (t) status.time = t;
    else status.problems.push(`unreadable status time "${header[1]}"`);
  }
  const rest = lines.slice(1).join('\n').trim();
  if (rest === 'Initializing') {
    status.autoscalerStatus = 'Initializing';
    return;
  }
  let section: 'none' | 'cluster' | 'groups' = 'none';
  let group: CaStatusNodeGroup | undefined;
  for (const rawLine of lines.slice(1)) {
    const line = rawLine.trim();
    if (line === '') continue;
    if (/^Cluster-wide:/.test(line)) {
      section = 'cluster';
      status.autoscalerStatus = 'Running';
      continue;
    }
    if (/^NodeGroups:/.test(line)) {
      section = 'groups';
      continue;
    }
    const name = /^Name:\s+(.*)$/.exec(line);
    if (name && section === 'groups') {
      group = { name: name[1].trim(), counts: {} };
      status.nodeGroups.push(group);
      continue;
    }
    const entry = /^(Health|ScaleUp|ScaleDown):\s+(\S+)\s*(.*)$/.exec(line);
    if (!entry) continue; // LastProbeTime / LastTransitionTime lines
    const [, kind, word, detail] = entry;
    const nums = Object.fromEntries([...detail.matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
    if (section === 'cluster') {
      if (kind === 'Health') {
        status.clusterHealth = word;
        applyCounts(status.clusterCounts, nums);
      } else if (kind === 'ScaleUp') status.clusterScaleUp = word;
      else status.clusterScaleDown = word;
    } else if (section === 'groups' && group) {
      if (kind === 'Health') {
        group.health = word;
        applyCounts(group.counts, nums);
        if (nums.ready !== undefined) group.ready = nums.ready;
        if (nums.registered !== undefined) group.registered = nums.registered;
        if (nums.cloudProviderTarget !== undefined) group.cloudProviderTarget = nums.cloudProviderTarget;
        // "(minSize=1, maxSize=10)" in later versions, "(min=1, max=10)" in early ones.
        const min = nums.minSize ?? nums.min;
        const max = nums.maxSize ?? nums.max;
        if (min !== undefined) group.minSize = min;
        if (max !== undefined) group.maxSize = max;
      } else if (kind === 'ScaleUp') {
        group.scaleUpStatus = word;
        if (group.cloudProviderTarget === undefined && nums.cloudProviderTarget !== undefined) {
          group.cloudProviderTarget = nums.cloudProviderTarget;
        }
      } else {
        group.scaleDownStatus = word;
        if (nums.candidates !== undefined) group.candidates = nums.candidates;
      }
    }
  }
  if (!status.autoscalerStatus) status.problems.push('text status without a "Cluster-wide:" section');
}

function applyCounts(into: CaStatusNodeCounts, nums: Record<string, number>): void {
  for (const [k, v] of Object.entries(nums)) {
    const key = COUNT_KEYS[k];
    if (key) into[key] = v;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** YAML format: clusterstate/api/types.go (1.30+); yaml.v2 struct order up to 1.34, sorted keys and nulls since 1.35. */
function parseYamlStatus(body: string, status: CaStatus): void {
  let doc: unknown;
  try {
    doc = parseStatusYaml(body) ?? parseYaml(body);
  } catch (e) {
    status.problems.push(
      `status is neither the text format nor valid YAML: ${(e as Error).message.split('\n')[0]}`,
    );
    status.format = 'unknown';
    return;
  }
  // a text casdoctor cannot read is "unknown" (unparseable, with its problems), never a YAML status without data
  if (!isObj(doc)) {
    status.problems.push('status YAML is not a mapping');
    status.format = 'unknown';
    return;
  }
  const time = doc.time;
  if (time !== undefined && time !== null) {
    const t = parseAnyTime(time);
    if (t) status.time = t;
    else status.problems.push(`unreadable status time "${String(time)}"`);
  }
  const autoscalerStatus = str(doc.autoscalerStatus);
  if (autoscalerStatus) status.autoscalerStatus = autoscalerStatus;
  const message = str(doc.message);
  if (message) status.message = message;
  const cw = doc.clusterWide;
  if (isObj(cw)) {
    if (isObj(cw.health)) {
      const s = str(cw.health.status);
      if (s) status.clusterHealth = s;
      readCounts(cw.health.nodeCounts, status.clusterCounts);
    }
    if (isObj(cw.scaleUp) && str(cw.scaleUp.status)) status.clusterScaleUp = str(cw.scaleUp.status);
    if (isObj(cw.scaleDown) && str(cw.scaleDown.status)) status.clusterScaleDown = str(cw.scaleDown.status);
  } else if (cw !== undefined && cw !== null) status.problems.push('clusterWide is not a mapping');
  const groups = doc.nodeGroups;
  if (Array.isArray(groups)) {
    groups.forEach((g, i) => {
      if (!isObj(g) || typeof g.name !== 'string') {
        status.problems.push(`nodeGroups[${i}] has no name`);
        return;
      }
      status.nodeGroups.push(readYamlGroup(g));
    });
  } else if (groups !== undefined && groups !== null) status.problems.push('nodeGroups is not a list');
  if (!status.autoscalerStatus && !cw) {
    status.problems.push('status YAML has neither autoscalerStatus nor clusterWide');
    status.format = 'unknown';
  }
}

function readYamlGroup(g: Obj): CaStatusNodeGroup {
  const group: CaStatusNodeGroup = { name: g.name as string, counts: {} };
  if (isObj(g.health)) {
    const h = g.health;
    if (str(h.status)) group.health = str(h.status);
    readCounts(h.nodeCounts, group.counts);
    const target = num(h.cloudProviderTarget);
    if (target !== undefined) group.cloudProviderTarget = target;
    const min = num(h.minSize);
    if (min !== undefined) group.minSize = min;
    const max = num(h.maxSize);
    if (max !== undefined) group.maxSize = max;
    if (group.counts.ready !== undefined) group.ready = group.counts.ready;
    if (group.counts.registered !== undefined) group.registered = group.counts.registered;
  }
  if (isObj(g.scaleUp)) {
    const su = g.scaleUp;
    if (str(su.status)) group.scaleUpStatus = str(su.status);
    // 1.35+ prints an empty backoffInfo for every group; only a real error code or a Backoff status counts.
    if (isObj(su.backoffInfo)) {
      const errorCode = str(su.backoffInfo.errorCode) ?? '';
      const errorMessage = str(su.backoffInfo.errorMessage) ?? '';
      if (errorCode !== '' || errorMessage !== '' || group.scaleUpStatus === 'Backoff') {
        group.backoff = { errorCode, errorMessage };
      }
    }
  }
  if (isObj(g.scaleDown)) {
    if (str(g.scaleDown.status)) group.scaleDownStatus = str(g.scaleDown.status);
    const candidates = num(g.scaleDown.candidates);
    if (candidates !== undefined) group.candidates = candidates;
  }
  return group;
}

function readCounts(v: unknown, into: CaStatusNodeCounts): void {
  if (!isObj(v)) return;
  const reg = v.registered;
  if (isObj(reg)) {
    const set = (key: keyof CaStatusNodeCounts, val: unknown) => {
      const n = num(val);
      if (n !== undefined) into[key] = n;
    };
    set('registered', reg.total);
    set('ready', reg.ready);
    set('notStarted', reg.notStarted);
    set('suspended', reg.suspended);
    set('beingDeleted', reg.beingDeleted);
    if (isObj(reg.unready)) {
      set('unready', reg.unready.total);
      set('resourceUnready', reg.unready.resourceUnready);
    }
  }
  const lu = num(v.longUnregistered);
  if (lu !== undefined) into.longUnregistered = lu;
  const un = num(v.unregistered);
  if (un !== undefined) into.unregistered = un;
}
