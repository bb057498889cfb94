// The externalgrpc provider's node-group config (sunkaimr/cluster-autoscaler-grpc-cloud-provider @ f792442) and CA's
// --cloud-config for externalgrpc. Pure: text in, data out. The ConfigMap is decoded as yaml.v3 does
// (node_group.go:1339 readNodeGroupFromConfigMap), the file as viper v1.4.0 + mapstructure do (l.1347-1375).
import { isAlias, isMap, isScalar, isSeq, Lexer, parseDocument, type Scalar } from 'yaml';
import { parseGoDuration } from '../../model/duration.js';
import type {
  AccountsLocation,
  ExternalGrpcCloudConfig,
  ExternalGrpcConfig,
  ExternalGrpcConfigInput,
  ExternalGrpcConfigProblem,
  ExternalGrpcConfigSource,
  GrpcAutoscalingOptionKey,
  GrpcAutoscalingOptions,
  GrpcInstance,
  GrpcNodeGroupSpec,
  GrpcNodeTemplate,
} from '../../model/externalgrpc.js';
import type { Taint } from '../../model/k8s.js';
import { field, isNullNode, parseTree, type TNode } from './yaml-tree.js';

export const NODEGROUP_STATUS_CONFIGMAP = 'nodegroup-status';
export const NODEGROUP_STATUS_KEY = 'NodeGroupsConfig';
export const LAST_UPDATED_ANNOTATION = 'cluster-autoscaler.grpc-provider/last-updated';
export const DEFAULT_GROUP_ID = 'default';
export const REDACTED = '<redacted>';

// ---------------------------------------------------------------------------------------------------------------
// Credential scrubbing

/** Keys whose value is a secret wherever they appear (e.g. a CVM LoginSettings.Password inside instanceParameter); a
 * CVM's UserData is cloud-init in base64, where join tokens and passwords live. */
const CREDENTIAL_KEY = /(secret|passw(or)?d|token|credential|private.?key|access.?key|user.?data)/i;

/**
 * Every comment's text dropped, its '#' kept (lines and columns stay where they were): a comment is free text where an
 * operator leaves an old key ("# old secretKey ..."), and nothing casdoctor reads is in one. The lexer tells a comment
 * from a '#' inside a quoted or block scalar; its control tokens are not source text.
 */
function stripCommentText(text: string): string {
  let out = '';
  for (const tok of new Lexer().lex(text)) {
    if (tok === '\x02' || tok === '\x18' || tok === '\x1f') continue;
    out += tok.startsWith('#') ? '#' : tok;
  }
  return out;
}

type PathPart = string | number;

/** True for a scalar at `path` that holds a credential: every leaf under cloudProviderOption.accounts or a legacy
 * cloudProviderOption.<provider> block (provider/provier.go:14-24), plus credential-named keys anywhere. */
function isCredentialPath(path: PathPart[]): boolean {
  const last = [...path].reverse().find((p): p is string => typeof p === 'string');
  if (last !== undefined && CREDENTIAL_KEY.test(last)) return true;
  const [root, second] = path;
  if (typeof root !== 'string' || root.toLowerCase() !== 'cloudprovideroption') return false;
  if (typeof second !== 'string' || path.length < 3) return false;
  return second.toLowerCase() !== 'instanceparameter';
}

function pathText(path: PathPart[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${p}` : p;
  return s;
}

/** Line-based fallback for text the YAML parser rejects: `<credential-key>: value` (block, flow and block scalars). */
function scrubLines(text: string, paths: string[]): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const keyRe = /^(\s*-?\s*)(["']?)([A-Za-z0-9_.-]+)\2(\s*:\s*)(.*)$/;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = keyRe.exec(line);
    if (m && CREDENTIAL_KEY.test(m[3]) && m[5].trim() !== '' && !m[5].startsWith(`"${REDACTED}"`)) {
      const value = m[5].trim();
      out.push(`${m[1]}${m[2]}${m[3]}${m[2]}${m[4]}"${REDACTED}"`);
      if (!paths.includes(m[3])) paths.push(m[3]);
      if (/^[|>]/.test(value)) {
        // a block scalar: drop its more-indented continuation lines
        const indent = /^\s*/.exec(line)?.[0].length ?? 0;
        while (i + 1 < lines.length && (lines[i + 1].trim() === '' || (/^\s*/.exec(lines[i + 1])?.[0].length ?? 0) > indent)) i++;
      }
      continue;
    }
    // flow style on one line: {secretId: "x", secretKey: y}
    out.push(
      line.replace(
        /(["']?)([A-Za-z0-9_-]+)\1(\s*:\s*)("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,}\]\s][^,}\]]*)/g,
        (all, q: string, key: string, sep: string, val: string) =>
          CREDENTIAL_KEY.test(key) && val !== `"${REDACTED}"` ? `${q}${key}${q}${sep}"${REDACTED}"` : all,
      ),
    );
  }
  return out.join('\n');
}

/**
 * The text with every credential value replaced by "<redacted>" and every comment's text dropped, and the YAML paths
 * where credentials were found. Everything else (layout, other values) is kept byte for byte.
 */
export function scrubExternalGrpcCredentials(text: string): { text: string; paths: string[] } {
  const paths: string[] = [];
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) {
    const scrubbed = stripCommentText(scrubLines(text, paths));
    return { text: scrubbed, paths };
  }
  const spans: Array<[number, number]> = [];
  const redact = (node: Scalar) => {
    if (node.range && (node.value !== null || node.source)) spans.push([node.range[0], node.range[1]]);
  };
  const walk = (node: unknown, path: PathPart[], depth: number) => {
    if (depth > 64) return;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        walk(pair.value, [...path, key], depth + 1);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...path, i], depth + 1));
    } else if (isCredentialPath(path)) {
      const target = isAlias(node) ? node.resolve(doc) : node;
      if (isScalar(target) && target.value !== null && String(target.value) !== '') {
        redact(target);
        paths.push(pathText(path));
      } else if (target && !isScalar(target)) {
        walk(target, path, depth + 1);
      }
    }
  };
  walk(doc.contents, [], 0);
  // splice from the end so earlier offsets stay valid; an alias's target may be listed twice
  const unique = [...new Map(spans.map((s) => [s[0], s])).values()].sort((a, b) => b[0] - a[0]);
  let out = text;
  // a block scalar's range ends after its last line break: keep the break, or the next key joins this line
  for (const [start, end] of unique) out = `${out.slice(0, start)}"${REDACTED}"${/\n$/.test(out.slice(start, end)) ? '\n' : ''}${out.slice(end)}`;
  // belt and braces: credential-named keys the structure walk could not see (e.g. inside a block scalar)
  out = stripCommentText(scrubLines(out, paths));
  return { text: out, paths };
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding (yaml.v3 for the ConfigMap, viper+mapstructure for the file)

type Mode = 'yamlv3' | 'viper';

interface Ctx {
  mode: Mode;
  source: string;
  problems: ExternalGrpcConfigProblem[];
}

function problem(ctx: Ctx, path: string, message: string, fatal: boolean): void {
  ctx.problems.push({ source: ctx.source, path, message, fatal });
}

const INT_RE = /^[-+]?[0-9][0-9_]*$/;
const FLOAT_RE = /^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

function unmarshalError(ctx: Ctx, path: string, n: TNode, goType: string): void {
  const what = n.kind === 'scalar' ? `\`${n.text}\`` : n.kind === 'map' ? 'a mapping' : 'a sequence';
  problem(
    ctx,
    path,
    ctx.mode === 'yamlv3'
      ? `cannot unmarshal ${what} into ${goType}: yaml.Unmarshal fails and the provider exits at start-up (klog.Fatal, node_group.go:1380)`
      : `cannot decode ${what} into ${goType}: viper.Unmarshal fails and the provider exits at start-up (node_group.go:1370-1371)`,
    true,
  );
}

function decodeInt(ctx: Ctx, n: TNode | undefined, path: string): number {
  if (n === undefined || isNullNode(n)) return 0;
  if (n.kind === 'scalar') {
    const t = n.text.trim();
    if (INT_RE.test(t) && (!n.quoted || ctx.mode === 'viper')) return Number(t.replace(/_/g, ''));
    // mapstructure truncates a float into an int field
    if (ctx.mode === 'viper' && FLOAT_RE.test(t)) return Math.trunc(Number(t.replace(/_/g, '')));
  }
  unmarshalError(ctx, path, n, 'int');
  return 0;
}

function decodeFloat(ctx: Ctx, n: TNode | undefined, path: string): number {
  if (n === undefined || isNullNode(n)) return 0;
  if (n.kind === 'scalar') {
    const t = n.text.trim();
    if (FLOAT_RE.test(t) && (!n.quoted || ctx.mode === 'viper')) return Number(t.replace(/_/g, ''));
  }
  unmarshalError(ctx, path, n, 'float64');
  return 0;
}

function decodeString(ctx: Ctx, n: TNode | undefined, path: string): string {
  if (n === undefined || isNullNode(n)) return '';
  if (n.kind === 'scalar') return n.text;
  unmarshalError(ctx, path, n, 'string');
  return '';
}

/** time.Duration: yaml.v3 takes only a string for time.ParseDuration (an integer is an error); mapstructure's
 * StringToTimeDurationHookFunc parses strings and takes integers as nanoseconds (weakly typed). */
function decodeDuration(ctx: Ctx, n: TNode | undefined, path: string): number {
  if (n === undefined || isNullNode(n)) return 0;
  if (n.kind === 'scalar') {
    const t = n.text.trim();
    if (!n.quoted && INT_RE.test(t)) {
      if (ctx.mode === 'viper') return Number(t.replace(/_/g, '')) / 1e6;
      unmarshalError(ctx, path, n, 'time.Duration (yaml.v3 wants a string such as "10m")');
      return 0;
    }
    try {
      return parseGoDuration(n.text);
    } catch {
      unmarshalError(ctx, path, n, 'time.Duration');
      return 0;
    }
  }
  unmarshalError(ctx, path, n, 'time.Duration');
  return 0;
}

function decodeStringMap(ctx: Ctx, n: TNode | undefined, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (n === undefined || isNullNode(n)) return out;
  if (n.kind !== 'map') {
    unmarshalError(ctx, path, n, 'map[string]string');
    return out;
  }
  for (const [k, v] of n.entries) {
    Object.defineProperty(out, k, {
      value: decodeString(ctx, v, `${path}.${k}`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function checkKeys(ctx: Ctx, n: TNode | undefined, path: string, known: readonly string[]): void {
  if (n?.kind !== 'map') return;
  for (const k of n.entries.keys()) {
    const ok = ctx.mode === 'viper' ? known.some((x) => x.toLowerCase() === k.toLowerCase()) : known.includes(k);
    if (!ok) {
      problem(
        ctx,
        path ? `${path}.${k}` : k,
        `unknown key "${k}" is ignored by the provider${ctx.mode === 'yamlv3' ? ' (yaml.v3 matches keys exactly, case included)' : ''}`,
        false,
      );
    }
  }
}

const GROUP_KEYS = ['id', 'minSize', 'maxSize', 'targetSize', 'autoscalingOptions', 'nodeTemplate', 'instanceParameter', 'instances'] as const;
const TEMPLATE_KEYS = ['labels', 'annotations', 'capacity', 'allocatable', 'taints'] as const;
const OPTION_KEYS: readonly GrpcAutoscalingOptionKey[] = [
  'scaleDownUtilizationThreshold',
  'scaleDownGpuUtilizationThreshold',
  'scaleDownUnneededTime',
  'scaleDownUnreadyTime',
];
const INSTANCE_KEYS = ['id', 'name', 'ip', 'providerID', 'stage', 'status', 'error', 'updateTime'] as const;
// corev1.Taint has json tags only: yaml.v3 uses the lower-cased field names (key, value, effect, timeadded)
const TAINT_KEYS = ['key', 'value', 'effect', 'timeadded'] as const;

function decodeTaints(ctx: Ctx, n: TNode | undefined, path: string): Taint[] {
  if (n === undefined || isNullNode(n)) return [];
  if (n.kind !== 'seq') {
    unmarshalError(ctx, path, n, '[]v1.Taint');
    return [];
  }
  return n.items.map((t, i) => {
    const p = `${path}[${i}]`;
    checkKeys(ctx, t, p, TAINT_KEYS);
    const ci = ctx.mode === 'viper';
    const taint: Taint = {
      key: decodeString(ctx, field(t, 'key', ci), `${p}.key`),
      effect: decodeString(ctx, field(t, 'effect', ci), `${p}.effect`),
    };
    const value = decodeString(ctx, field(t, 'value', ci), `${p}.value`);
    if (value !== '') taint.value = value;
    return taint;
  });
}

function decodeTemplate(ctx: Ctx, n: TNode | undefined, path: string): GrpcNodeTemplate | undefined {
  if (n === undefined || isNullNode(n)) return undefined;
  if (n.kind !== 'map') {
    unmarshalError(ctx, path, n, 'NodeTemplate');
    return undefined;
  }
  checkKeys(ctx, n, path, TEMPLATE_KEYS);
  const ci = ctx.mode === 'viper';
  return {
    labels: decodeStringMap(ctx, field(n, 'labels', ci), `${path}.labels`),
    annotations: decodeStringMap(ctx, field(n, 'annotations', ci), `${path}.annotations`),
    capacity: decodeStringMap(ctx, field(n, 'capacity', ci), `${path}.capacity`),
    allocatable: decodeStringMap(ctx, field(n, 'allocatable', ci), `${path}.allocatable`),
    taints: decodeTaints(ctx, field(n, 'taints', ci), `${path}.taints`),
  };
}

function decodeOptions(ctx: Ctx, n: TNode | undefined, path: string): GrpcAutoscalingOptions | undefined {
  if (n === undefined || isNullNode(n)) return undefined;
  if (n.kind !== 'map') {
    unmarshalError(ctx, path, n, 'AutoscalingOptions');
    return undefined;
  }
  checkKeys(ctx, n, path, OPTION_KEYS);
  const ci = ctx.mode === 'viper';
  const present = OPTION_KEYS.filter((k) => !isNullNode(field(n, k, ci)));
  return {
    scaleDownUtilizationThreshold: decodeFloat(ctx, field(n, 'scaleDownUtilizationThreshold', ci), `${path}.scaleDownUtilizationThreshold`),
    scaleDownGpuUtilizationThreshold: decodeFloat(
      ctx,
      field(n, 'scaleDownGpuUtilizationThreshold', ci),
      `${path}.scaleDownGpuUtilizationThreshold`,
    ),
    scaleDownUnneededTimeMs: decodeDuration(ctx, field(n, 'scaleDownUnneededTime', ci), `${path}.scaleDownUnneededTime`),
    scaleDownUnreadyTimeMs: decodeDuration(ctx, field(n, 'scaleDownUnreadyTime', ci), `${path}.scaleDownUnreadyTime`),
    present,
  };
}

function decodeInstances(ctx: Ctx, n: TNode | undefined, path: string): GrpcInstance[] {
  if (n === undefined || isNullNode(n)) return [];
  if (n.kind !== 'seq') {
    unmarshalError(ctx, path, n, 'InstanceList');
    return [];
  }
  const ci = ctx.mode === 'viper';
  return n.items.map((item, i) => {
    const p = `${path}[${i}]`;
    checkKeys(ctx, item, p, INSTANCE_KEYS);
    const s = (k: string) => decodeString(ctx, field(item, k, ci), `${p}.${k}`);
    const ins: GrpcInstance = {
      id: s('id'),
      name: s('name'),
      ip: s('ip'),
      providerID: s('providerID'),
      stage: s('stage'),
      status: s('status'),
      error: s('error'),
    };
    const t = s('updateTime');
    if (t) {
      ins.updateTime = t;
      if (Number.isNaN(Date.parse(t))) problem(ctx, `${p}.updateTime`, `"${t}" is not an RFC 3339 time`, ctx.mode === 'yamlv3');
    }
    return ins;
  });
}

function decodeGroup(ctx: Ctx, n: TNode, path: string): GrpcNodeGroupSpec {
  checkKeys(ctx, n, path, GROUP_KEYS);
  const ci = ctx.mode === 'viper';
  const g: GrpcNodeGroupSpec = {
    id: decodeString(ctx, field(n, 'id', ci), `${path}.id`),
    minSize: decodeInt(ctx, field(n, 'minSize', ci), `${path}.minSize`),
    maxSize: decodeInt(ctx, field(n, 'maxSize', ci), `${path}.maxSize`),
    targetSize: decodeInt(ctx, field(n, 'targetSize', ci), `${path}.targetSize`),
    instanceParameter: decodeString(ctx, field(n, 'instanceParameter', ci), `${path}.instanceParameter`),
    instances: decodeInstances(ctx, field(n, 'instances', ci), `${path}.instances`),
  };
  const opts = decodeOptions(ctx, field(n, 'autoscalingOptions', ci), `${path}.autoscalingOptions`);
  if (opts) g.autoscalingOptions = opts;
  const tpl = decodeTemplate(ctx, field(n, 'nodeTemplate', ci), `${path}.nodeTemplate`);
  if (tpl) g.nodeTemplate = tpl;
  else {
    problem(
      ctx,
      `${path}.nodeTemplate`,
      `group "${g.id}" has no nodeTemplate: the provider dereferences the nil pointer in MatchNodeGroup (node_group.go:547) and BuildNodeFromTemplate (l.1042) and crashes`,
      true,
    );
  }
  return g;
}

/** loadNodeGroups l.1404-1428: the catch-all group the provider adds when the config has none named `default`. */
export function implicitDefaultGroup(): GrpcNodeGroupSpec {
  return {
    id: DEFAULT_GROUP_ID,
    minSize: 0,
    maxSize: 1000,
    targetSize: 0,
    instanceParameter: '',
    instances: [],
    nodeTemplate: {
      labels: {},
      annotations: {},
      capacity: { cpu: '8', memory: '16G', 'ephemeral-storage': '200G' },
      allocatable: { cpu: '8', memory: '16G', 'ephemeral-storage': '200G' },
      taints: [],
    },
    implicit: true,
  };
}

interface ParsedInput {
  ok: boolean;
  empty: boolean;
  groups: GrpcNodeGroupSpec[];
  instanceParameters: ExternalGrpcConfig['instanceParameters'];
  accounts: string[];
  legacyAccountProviders: string[];
  credentialPaths: string[];
  problems: ExternalGrpcConfigProblem[];
}

export function describeSource(s: ExternalGrpcConfigSource): string {
  if (s.kind === 'configmap') return `ConfigMap ${s.namespace}/${s.name}`;
  const cm = s.fromConfigMap;
  return cm ? `file ${s.path} (ConfigMap ${cm.namespace}/${cm.name} key ${cm.key})` : `file ${s.path}`;
}

function collectCredentialPaths(n: TNode | undefined, path: PathPart[], out: string[]): void {
  if (n === undefined) return;
  if (n.kind === 'map') for (const [k, v] of n.entries) collectCredentialPaths(v, [...path, k], out);
  else if (n.kind === 'seq') n.items.forEach((v, i) => collectCredentialPaths(v, [...path, i], out));
  else if (!n.isNull && n.text !== '' && isCredentialPath(path)) out.push(pathText(path));
}

function parseInput(input: ExternalGrpcConfigInput): ParsedInput {
  const mode: Mode = input.source.kind === 'configmap' ? 'yamlv3' : 'viper';
  const ctx: Ctx = { mode, source: describeSource(input.source), problems: [] };
  const res: ParsedInput = {
    ok: true,
    empty: input.text.length === 0,
    groups: [],
    instanceParameters: {},
    accounts: [],
    legacyAccountProviders: [],
    credentialPaths: [],
    problems: ctx.problems,
  };
  let root: TNode | undefined;
  try {
    root = parseTree(input.text);
  } catch (e) {
    problem(ctx, '', `malformed YAML: ${(e as Error).message}; the provider exits at start-up (klog.Fatal)`, true);
    res.ok = false;
    return res;
  }
  if (root !== undefined && root.kind !== 'map') {
    unmarshalError(ctx, '', root, 'NodeGroupsConfig');
    res.ok = false;
    return res;
  }
  collectCredentialPaths(root, [], res.credentialPaths);
  const ci = mode === 'viper';
  checkKeys(ctx, root, '', ['cloudProviderOption', 'nodeGroups']);
  const cpo = field(root, 'cloudProviderOption', ci);
  if (cpo?.kind === 'map') {
    for (const [k, v] of cpo.entries) {
      const lower = k.toLowerCase();
      const isAccounts = ci ? lower === 'accounts' : k === 'accounts';
      const isParams = ci ? lower === 'instanceparameter' : k === 'instanceParameter';
      if (isAccounts && v.kind === 'map') {
        for (const [prov, accs] of v.entries) {
          if (accs.kind === 'map') for (const acc of accs.entries.keys()) res.accounts.push(`${prov}/${acc}`);
        }
      } else if (isParams && v.kind === 'map') {
        for (const [name, p] of v.entries) {
          const tpl = decodeString(ctx, field(p, 'providerIdTemplate', ci), `cloudProviderOption.instanceParameter.${name}.providerIdTemplate`);
          // viper lower-cases map keys and splits them on "." (viper v1.4.0 insensitiviseMap / AllSettings)
          const loaded = mode === 'viper' ? name.toLowerCase() : name;
          if (mode === 'viper' && (loaded !== name || name.includes('.'))) {
            problem(
              ctx,
              `cloudProviderOption.instanceParameter.${name}`,
              `viper lower-cases map keys and splits them on "." when it reads the file: "${name}" is not found under that name`,
              false,
            );
          }
          // parameter is passed verbatim to CVM RunInstances (provider/providers/tencentcloud/tencent.go): read for reports only
          const param = field(p, 'parameter', ci);
          const scalarAt = (n: TNode | undefined) => (n?.kind === 'scalar' && !n.isNull && n.text !== '' ? n.text : undefined);
          const instanceType = scalarAt(field(param, 'InstanceType', ci));
          const zone = scalarAt(field(field(param, 'Placement', ci), 'Zone', ci));
          if (!name.includes('.') || mode !== 'viper') {
            res.instanceParameters[loaded] = { providerIdTemplate: tpl, ...(instanceType ? { instanceType } : {}), ...(zone ? { zone } : {}) };
          }
        }
      } else if (!isAccounts && !isParams) {
        res.legacyAccountProviders.push(k);
      }
    }
  }
  const ngs = field(root, 'nodeGroups', ci);
  if (ngs !== undefined && !isNullNode(ngs) && ngs.kind !== 'seq') unmarshalError(ctx, 'nodeGroups', ngs, '[]NodeGroup');
  if (ngs?.kind === 'seq') {
    const seen = new Set<string>();
    ngs.items.forEach((item, i) => {
      const p = `nodeGroups[${i}]`;
      if (item.kind !== 'map') {
        unmarshalError(ctx, p, item, 'NodeGroup');
        return;
      }
      const g = decodeGroup(ctx, item, p);
      // nodeGroupCache.add (l.151-158) keeps the first group with an id
      if (seen.has(g.id)) {
        problem(ctx, `${p}.id`, `duplicate group id "${g.id}": the provider keeps the first and drops this one`, false);
        return;
      }
      seen.add(g.id);
      res.groups.push(g);
    });
  }
  for (const [i, g] of res.groups.entries()) {
    if (g.instanceParameter && !(g.instanceParameter in res.instanceParameters)) {
      problem(
        ctx,
        `nodeGroups[${i}].instanceParameter`,
        `"${g.instanceParameter}" is not under cloudProviderOption.instanceParameter: every create fails with "nodegroup(${g.id}).InstanceParameter[${g.instanceParameter}] not exist" (node_group.go:1844)`,
        false,
      );
    }
  }
  res.ok = !ctx.problems.some((p) => p.fatal && p.path === '');
  return res;
}

/** Group fields an operator edits (runtime state — targetSize, instances — excluded) as a comparable string. */
function specKey(g: GrpcNodeGroupSpec): Record<string, string> {
  const sortObj = (o: Record<string, string> | undefined) =>
    JSON.stringify(Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const t = g.nodeTemplate;
  return {
    minSize: String(g.minSize),
    maxSize: String(g.maxSize),
    instanceParameter: g.instanceParameter,
    autoscalingOptions: JSON.stringify(g.autoscalingOptions ? { ...g.autoscalingOptions, present: undefined } : null),
    'nodeTemplate.labels': sortObj(t?.labels),
    'nodeTemplate.annotations': sortObj(t?.annotations),
    'nodeTemplate.capacity': sortObj(t?.capacity),
    'nodeTemplate.taints': JSON.stringify(t?.taints ?? []),
  };
}

function differences(cm: ParsedInput, file: ParsedInput): string[] {
  const out: string[] = [];
  const byId = (gs: GrpcNodeGroupSpec[]) => new Map(gs.map((g) => [g.id, g]));
  const a = byId(cm.groups);
  const b = byId(file.groups);
  for (const [id, g] of b) {
    const c = a.get(id);
    if (!c) {
      out.push(`group "${id}" is only in the file`);
      continue;
    }
    const ka = specKey(c);
    const kb = specKey(g);
    for (const k of Object.keys(ka)) if (ka[k] !== kb[k]) out.push(`group "${id}" ${k} differs`);
  }
  for (const id of a.keys()) if (!b.has(id)) out.push(`group "${id}" is only in the ConfigMap`);
  const pa = Object.keys(cm.instanceParameters).sort();
  const pb = Object.keys(file.instanceParameters).sort();
  if (JSON.stringify(pa) !== JSON.stringify(pb)) out.push('cloudProviderOption.instanceParameter names differ');
  return out;
}

/**
 * The config the provider runs with. loadNodeGroups (node_group.go:1377-1400): the ConfigMap when it exists and its
 * NodeGroupsConfig is non-empty (a parse error there is fatal, no fallback), else the file.
 */
export function parseExternalGrpcConfig(inputs: ExternalGrpcConfigInput[]): ExternalGrpcConfig {
  const cmInput = inputs.find((i) => i.source.kind === 'configmap');
  const fileInput = inputs.find((i) => i.source.kind === 'file');
  const cm = cmInput ? parseInput(cmInput) : undefined;
  const file = fileInput ? parseInput(fileInput) : undefined;
  const result: ExternalGrpcConfig = {
    usedDescription: 'none',
    usedReason: 'neither the nodegroup-status ConfigMap nor nodegroup-config.yaml is in the input',
    fileDifferences: [],
    nodeGroups: [],
    instanceParameters: {},
    accountsLocation: 'none',
    accounts: [],
    legacyAccountProviders: [],
    credentialPaths: [],
    problems: [],
  };
  let chosen: { input: ExternalGrpcConfigInput; parsed: ParsedInput } | undefined;
  if (cmInput && cm && !cm.empty) {
    chosen = { input: cmInput, parsed: cm };
    result.usedReason = `the ConfigMap exists and ${NODEGROUP_STATUS_KEY} is non-empty: the provider loads it and ignores the file`;
  } else if (fileInput && file) {
    chosen = { input: fileInput, parsed: file };
    result.usedReason = cmInput
      ? `the ConfigMap's ${NODEGROUP_STATUS_KEY} is empty: the provider loads the file`
      : 'no nodegroup-status ConfigMap: the provider loads the file (and creates the ConfigMap 5 s later)';
  } else if (cmInput && cm) {
    chosen = { input: cmInput, parsed: cm };
    result.usedReason = `the ConfigMap's ${NODEGROUP_STATUS_KEY} is empty and no file was given`;
  }
  for (const [input, parsed] of [
    [cmInput, cm],
    [fileInput, file],
  ] as const) {
    if (!input || !parsed) continue;
    for (const path of parsed.credentialPaths) result.credentialPaths.push({ source: describeSource(input.source), path });
  }
  if (!chosen) return result;
  const p = chosen.parsed;
  result.used = chosen.input.source;
  result.usedDescription = describeSource(chosen.input.source);
  if (chosen.input.lastUpdated) result.lastUpdated = chosen.input.lastUpdated;
  result.problems = [...p.problems];
  if (p.ok) {
    result.nodeGroups = [...p.groups];
    if (!p.groups.some((g) => g.id === DEFAULT_GROUP_ID)) result.nodeGroups.push(implicitDefaultGroup());
  }
  result.instanceParameters = p.instanceParameters;
  result.accounts = p.accounts;
  result.legacyAccountProviders = p.legacyAccountProviders;
  const loc: AccountsLocation =
    p.accounts.length && p.legacyAccountProviders.length
      ? 'both'
      : p.accounts.length
        ? 'accounts'
        : p.legacyAccountProviders.length
          ? 'legacy'
          : 'none';
  result.accountsLocation = loc;
  if (cm && file && cmInput && fileInput && !cm.empty) {
    result.fileDifferences = cm.ok && file.ok ? differences(cm, file) : ['one of the two does not parse'];
    result.fileDiffersFromConfigMap = result.fileDifferences.length > 0;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// CA's --cloud-config for externalgrpc

const DEFAULT_GRPC_TIMEOUT_MS = 5000;

/** net.SplitHostPort's acceptance: host:port, [host]:port, [host%zone]:port; a bare host or extra colons fail. */
function splitHostPortOk(addr: string): boolean {
  if (addr.startsWith('[')) return /^\[[^\]]*\]:[^:]*$/.test(addr);
  const parts = addr.split(':');
  return parts.length === 2;
}

/**
 * CA's cloudConfig (cloudprovider/externalgrpc/externalgrpc_cloud_provider.go newExternalGrpcCloudProviderClient):
 * sigs.k8s.io/yaml, so keys match case-insensitively as encoding/json does; `grpc_timeout` only from CA 1.29.
 */
export function parseCloudConfig(text: string, caMinor?: number): ExternalGrpcCloudConfig {
  const out: ExternalGrpcCloudConfig = {
    keyPresent: false,
    certPresent: false,
    cacertPresent: false,
    tls: false,
    grpcTimeoutMs: DEFAULT_GRPC_TIMEOUT_MS,
    problems: [],
  };
  let root: TNode | undefined;
  try {
    root = parseTree(text);
  } catch (e) {
    out.problems.push(`can't parse YAML: ${(e as Error).message} (CA exits: klog.Fatalf in BuildExternalGrpc)`);
    return out;
  }
  if (root !== undefined && root.kind !== 'map') {
    out.problems.push("can't parse YAML: the cloud config is not a mapping (CA exits)");
    return out;
  }
  const str = (k: string): string | undefined => {
    const n = field(root, k, true);
    if (n === undefined || isNullNode(n)) return undefined;
    if (n.kind !== 'scalar') {
      out.problems.push(`can't parse YAML: ${k} is not a string (CA exits)`);
      return undefined;
    }
    return n.text;
  };
  const address = str('address');
  if (address !== undefined) out.address = address;
  out.keyPresent = !!str('key');
  out.certPresent = !!str('cert');
  out.cacertPresent = !!str('cacert');
  out.tls = out.certPresent;
  if (!address || !splitHostPortOk(address)) {
    out.problems.push(`failed to parse address "${address ?? ''}": CA exits (net.SplitHostPort needs host:port)`);
  }
  if (out.certPresent && (!out.keyPresent || !out.cacertPresent)) {
    out.problems.push(
      `cert is set but ${!out.keyPresent ? 'key' : 'cacert'} is empty: CA exits reading the file ""`,
    );
  }
  if (!out.certPresent && (out.keyPresent || out.cacertPresent)) {
    out.problems.push('key/cacert are set but cert is empty: CA dials without TLS (grpc.WithInsecure) and ignores them');
  }
  const gt = field(root, 'grpc_timeout', true);
  if (gt !== undefined && !isNullNode(gt)) {
    if (caMinor !== undefined && caMinor < 29) {
      out.problems.push(`grpc_timeout is ignored by CA 1.${caMinor} (read from 1.29); calls time out after 5s`);
    } else if (gt.kind !== 'scalar' || (!gt.quoted && FLOAT_RE.test(gt.text.trim()))) {
      // metav1.Duration.UnmarshalJSON wants a JSON string
      out.problems.push(`can't parse YAML: grpc_timeout must be a duration string such as "10s" (CA exits)`);
    } else {
      try {
        out.grpcTimeoutMs = parseGoDuration(gt.text);
        out.grpcTimeoutRaw = gt.text;
      } catch {
        out.problems.push(`can't parse YAML: grpc_timeout "${gt.text}" is not a Go duration (CA exits)`);
      }
    }
  }
  return out;
}
