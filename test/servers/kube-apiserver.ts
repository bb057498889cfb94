// A loopback Kubernetes API server for tests: HTTPS with a CA made at test time, bearer-token auth, discovery, LIST and
// GET for the resources casdoctor reads (limit/continue, label and field selectors), real Status errors, fault and delay
// injection, and a record of every request. Read-only: any other verb gets 405 (and is recorded, so tests can fail on it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KubeObject } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { chooseCaPod } from '../../src/gather/live-ca-record.js';
import { findCaDeployment } from '../../src/simulate/ca-config.js';
import { pumpGzipBomb } from './gzip-bomb.js';
import { testTls } from './tls.js';

export interface KubeFault {
  /**
   * A resource ('pods', 'poddisruptionbudgets' or 'poddisruptionbudgets.policy'), a pod subresource ('pods/log',
   * 'pods/proxy'), a path prefix ('/api/v1/pods'), or '*'.
   */
  match: string;
  status: 401 | 403 | 404 | 410 | 429 | 500 | 503;
  /** Only requests carrying a continue token (a 410 Expired is only meaningful there). */
  onContinue?: boolean;
  /** How many matching requests fail; default: all. */
  times?: number;
  /** Sent as Retry-After on 429/503/500. */
  retryAfterSeconds?: number;
  message?: string;
}

export interface KubeServerOptions {
  /** HTTPS with a test CA (default) or plain HTTP (the kubeconfig then says insecure-skip-tls-verify). */
  tls?: boolean;
  /** The bearer token the server accepts; default 'casdoctor-test-token'. */
  token?: string;
  /** The user named in Forbidden messages. */
  user?: string;
  faults?: KubeFault[];
  /** Milliseconds to wait before answering, by resource, path prefix or '*'. */
  delays?: Record<string, number>;
  /** The server returns at most this many items per page even when asked for more (legal: limit is an upper bound). */
  maxPageSize?: number;
  /** Gzip responses larger than this when the client accepts gzip; default 128 KiB like kube-apiserver. */
  gzipThreshold?: number;
  /**
   * Container logs (`GET pods/{name}/log`), keyed "namespace/pod/container", and "namespace/pod/container/previous" for
   * the previous instance. An existing container without an entry logged nothing; without a previous entry the server
   * answers 400 like kube-apiserver for a container that never restarted. `limitBytes` cuts the text.
   * Default: when the data was loaded from a dump that holds CA's log (a log file in --from), CA's pod logged that file,
   * so the same dump served live and read offline gives the same report.
   */
  podLogs?: Record<string, string>;
  /**
   * What a pod answers through the API server's proxy (`GET pods/{name}:{port}/proxy{path}`), keyed
   * "namespace/pod:port/path". Default for an existing pod: /metrics on 8085 answers a small CA metrics page, any other
   * path 404 (CA registers /snapshotz only with --debugging-snapshot-enabled).
   */
  podProxy?: Record<string, string | { status: number; body: string; delayMs?: number }>;
  /** Misbehaving answers (tokens that loop, gzip bombs, endless or trickled bodies) to requests matching a rule. */
  hostile?: KubeHostile[];
  /**
   * The version the server serves of each of CA's custom resources, null when the CRD is not installed (every version
   * then answers 404, as kube-apiserver does for an unknown group/version/resource). Default: provisioningrequests v1,
   * capacitybuffers v1beta1 (CA 1.34's CRDs); Karpenter's nodepools, nodeclaims (karpenter.sh) and ec2nodeclasses
   * (karpenter.k8s.aws) v1, cluster-scoped.
   */
  crdVersions?: Partial<
    Record<'provisioningRequests' | 'capacityBuffers' | 'nodePools' | 'ec2NodeClasses' | 'nodeClaims', string | null>
  >;
}

/** A hostile answer, for the tests of casdoctor's live limits. */
export interface KubeHostile {
  /** Same matching as faults (resource, 'pods/log', path prefix or '*'). */
  match: string;
  /**
   * 'repeat-continue': every page carries the same continue token; 'endless-continue': a new token on every page;
   * 'gzip-bomb': a gzip stream that inflates to `bytes` (default 1 GiB) of JSON whitespace; 'endless-body': a list whose
   * items never end; 'trickle': one byte every `intervalMs` (default 200), forever.
   */
  mode: 'repeat-continue' | 'endless-continue' | 'gzip-bomb' | 'endless-body' | 'trickle';
  bytes?: number;
  intervalMs?: number;
}

/**
 * The log of CA's pod in a dump loaded with --from: the first CA log file it held, as the log of the container a live
 * gather would read (the pod and container live-ca-record.ts chooses).
 */
function caLogOfDump(data: Partial<RawInputs>): Record<string, string> {
  const file = data.caLogs?.find((l) => l.source.kind === 'file')?.source;
  const found = findCaDeployment(data.deployments ?? []);
  if (!file || file.kind !== 'file' || !found) return {};
  const choice = chooseCaPod(found.deployment, found.container, data.pods ?? [], data.replicaSets ?? []);
  if (!choice) return {};
  const bytes = readFileSync(file.path);
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8');
  return { [`${choice.pod.metadata.namespace}/${choice.pod.metadata.name}/${choice.container}`]: text };
}

/** CA's /metrics as a small cluster's CA serves it (CA: metrics/metrics.go), the default pod-proxy answer on 8085. */
export const DEFAULT_CA_METRICS = [
  '# HELP cluster_autoscaler_cluster_safe_to_autoscale [ALPHA] Whether or not cluster is healthy enough for autoscaling. 1 if it is, 0 otherwise.',
  '# TYPE cluster_autoscaler_cluster_safe_to_autoscale gauge',
  'cluster_autoscaler_cluster_safe_to_autoscale 1',
  '# HELP cluster_autoscaler_nodes_count [ALPHA] Number of nodes in cluster.',
  '# TYPE cluster_autoscaler_nodes_count gauge',
  'cluster_autoscaler_nodes_count{state="ready"} 3',
  '',
].join('\n');

export interface KubeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  userAgent: string;
}

export interface KubeconfigVariant {
  token?: string;
  /** null writes no current-context. */
  currentContext?: string | null;
  contextName?: string;
  /** Leave out certificate-authority-data (TLS then fails against the test CA). */
  withoutCa?: boolean;
  server?: string;
  /** Replaces the user entry, e.g. { exec: { apiVersion, command, args } }. */
  user?: Record<string, unknown>;
}

export interface KubeApiServer {
  url: string;
  /** A kubeconfig (context "casdoctor-test") with the CA data and the bearer token; in a temp dir removed on close. */
  kubeconfigPath: string;
  /** Writes another kubeconfig next to it (wrong token, no current context, another context name ...). */
  writeKubeconfig(name: string, variant?: KubeconfigVariant): string;
  /** Temp dir for this server (kubectl --cache-dir and the like). */
  dir: string;
  requests: KubeRequest[];
  setData(data: Partial<RawInputs>): void;
  /** Watch streams (`?watch=1`): tests drive them event by event, never by time. */
  watch: WatchControl;
  close(): Promise<void>;
}

/** The open watches of the loopback server, by resource plural ('events', 'nodes', 'nodeclaims' …). */
export interface WatchControl {
  /** Resolves when a watch of the resource is (or already was, for `n` opened so far) open: the n-th watch, default 1. */
  opened(resource: string, n?: number): Promise<{ resourceVersion: string }>;
  /** How many watches of the resource were opened so far. */
  count(resource: string): number;
  /** Sends a watch event to every open watch of the resource; returns how many got it. */
  emit(resource: string, type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: KubeObject | Record<string, unknown>): number;
  /** kube-apiserver's answer when the version fell out of its watch cache: an ERROR event with a 410 Status, then the end. */
  expire(resource: string): void;
  /** Ends every open watch of the resource (a dropped connection, or the server's timeoutSeconds). */
  end(resource?: string): void;
  /** Watches asked from a resourceVersion below this are answered 410 Gone at once (compaction). */
  goneBelow(rv: number): void;
}

interface ResourceDef {
  key: keyof RawInputs;
  plural: string;
  singular: string;
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  /** Field selectors the real API server accepts beyond metadata.name / metadata.namespace. */
  fields?: string[];
  /** A CustomResourceDefinition's resource: served at one version (KubeServerOptions.crdVersions), or not at all. */
  crd?: boolean;
}

const POD_FIELDS = [
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.nominatedNodeName',
];
const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

export const KUBE_RESOURCES: readonly ResourceDef[] = [
  {
    key: 'pods',
    plural: 'pods',
    singular: 'pod',
    group: '',
    version: 'v1',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    fields: POD_FIELDS,
  },
  {
    key: 'nodes',
    plural: 'nodes',
    singular: 'node',
    group: '',
    version: 'v1',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    fields: ['spec.unschedulable'],
  },
  {
    key: 'events',
    plural: 'events',
    singular: 'event',
    group: '',
    version: 'v1',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    fields: EVENT_FIELDS,
  },
  {
    key: 'pvcs',
    plural: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
  },
  {
    key: 'pvs',
    plural: 'persistentvolumes',
    singular: 'persistentvolume',
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
  },
  {
    key: 'configMaps',
    plural: 'configmaps',
    singular: 'configmap',
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
  },
  {
    key: 'serviceAccounts',
    plural: 'serviceaccounts',
    singular: 'serviceaccount',
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
  },
  {
    key: 'deployments',
    plural: 'deployments',
    singular: 'deployment',
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
  },
  {
    key: 'replicaSets',
    plural: 'replicasets',
    singular: 'replicaset',
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
  },
  {
    key: 'replicationControllers',
    plural: 'replicationcontrollers',
    singular: 'replicationcontroller',
    group: '',
    version: 'v1',
    kind: 'ReplicationController',
    namespaced: true,
    shortNames: ['rc'],
  },
  {
    key: 'statefulSets',
    plural: 'statefulsets',
    singular: 'statefulset',
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
  },
  {
    key: 'daemonSets',
    plural: 'daemonsets',
    singular: 'daemonset',
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
  },
  {
    key: 'pdbs',
    plural: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
  },
  {
    key: 'storageClasses',
    plural: 'storageclasses',
    singular: 'storageclass',
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
  },
  {
    key: 'priorityClasses',
    plural: 'priorityclasses',
    singular: 'priorityclass',
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
  },
  {
    key: 'jobs',
    plural: 'jobs',
    singular: 'job',
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    namespaced: true,
  },
  {
    key: 'podTemplates',
    plural: 'podtemplates',
    singular: 'podtemplate',
    group: '',
    version: 'v1',
    kind: 'PodTemplate',
    namespaced: true,
  },
  {
    key: 'provisioningRequests',
    plural: 'provisioningrequests',
    singular: 'provisioningrequest',
    group: 'autoscaling.x-k8s.io',
    version: 'v1',
    kind: 'ProvisioningRequest',
    namespaced: true,
    shortNames: ['provreq', 'provreqs'],
    crd: true,
  },
  {
    key: 'capacityBuffers',
    plural: 'capacitybuffers',
    singular: 'capacitybuffer',
    group: 'autoscaling.x-k8s.io',
    version: 'v1beta1',
    kind: 'CapacityBuffer',
    namespaced: true,
    crd: true,
  },
  // Karpenter's CRDs (karpenter pkg/apis/crds, karpenter-provider-aws pkg/apis/crds): cluster-scoped
  {
    key: 'nodePools',
    plural: 'nodepools',
    singular: 'nodepool',
    group: 'karpenter.sh',
    version: 'v1',
    kind: 'NodePool',
    namespaced: false,
    crd: true,
  },
  {
    key: 'nodeClaims',
    plural: 'nodeclaims',
    singular: 'nodeclaim',
    group: 'karpenter.sh',
    version: 'v1',
    kind: 'NodeClaim',
    namespaced: false,
    crd: true,
  },
  {
    key: 'ec2NodeClasses',
    plural: 'ec2nodeclasses',
    singular: 'ec2nodeclass',
    group: 'karpenter.k8s.aws',
    version: 'v1',
    kind: 'EC2NodeClass',
    namespaced: false,
    shortNames: ['ec2nc', 'ec2ncs'],
    crd: true,
  },
];

const EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function status(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

function resourceList(groupVersion: string, served: (r: ResourceDef) => string | null) {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: KUBE_RESOURCES.filter(
      (r) => served(r) !== null && (r.group ? `${r.group}/${served(r)}` : served(r)) === groupVersion,
    ).map((r) => ({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ['get', 'list', 'watch'],
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      storageVersionHash: Buffer.from(r.kind).toString('base64').slice(0, 11),
    })),
  };
}

function apiGroup(name: string, version = 'v1') {
  const gv = { groupVersion: `${name}/${version}`, version };
  return { name, versions: [gv], preferredVersion: gv };
}

// --- selectors ---------------------------------------------------------------------------------------------------

type Requirement = { key: string; op: '=' | '!=' | 'in' | 'notin' | 'exists' | '!'; values: string[] };

/** Splits on commas outside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

export function parseLabelSelector(s: string): Requirement[] {
  return splitTerms(s).map((t) => {
    let m = /^(\S+?)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t);
    if (m)
      return {
        key: m[1],
        op: m[2] as 'in' | 'notin',
        values: m[3]
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      };
    m = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(t);
    if (m) return { key: m[1], op: m[2] === '!=' ? '!=' : '=', values: [m[3]] };
    if (t.startsWith('!')) return { key: t.slice(1).trim(), op: '!', values: [] };
    if (/^[^\s!=()]+$/.test(t)) return { key: t, op: 'exists', values: [] };
    throw new Error(`unable to parse requirement: ${t}`);
  });
}

function matchesLabels(labels: Record<string, string> | undefined, reqs: Requirement[]): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    switch (r.op) {
      case '=':
        return has && l[r.key] === r.values[0];
      case '!=':
        return !has || l[r.key] !== r.values[0];
      case 'in':
        return has && r.values.includes(l[r.key]);
      case 'notin':
        return !has || !r.values.includes(l[r.key]);
      case 'exists':
        return has;
      case '!':
        return !has;
    }
    return false;
  });
}

function fieldValue(obj: KubeObject, path: string): string {
  let v: unknown = obj;
  for (const part of path.split('.'))
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  if (path === 'source' && v && typeof v === 'object') v = (v as { component?: string }).component;
  if (v === undefined || v === null) return '';
  return String(v);
}

function parseFieldSelector(
  s: string,
  def: ResourceDef,
): Array<{ key: string; neg: boolean; value: string }> {
  return splitTerms(s).map((t) => {
    const m = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(t);
    if (!m) throw new Error(`invalid selector: '${s}'; can't understand '${t}'`);
    const key = m[1].trim();
    if (!['metadata.name', 'metadata.namespace', ...(def.fields ?? [])].includes(key)) {
      throw new Error(`field label not supported: ${key}`);
    }
    return { key, neg: m[2] === '!=', value: m[3] };
  });
}

// --- server --------------------------------------------------------------------------------------------------------

export async function startKubeApiServer(
  data: Partial<RawInputs> = {},
  opts: KubeServerOptions = {},
): Promise<KubeApiServer> {
  const useTls = opts.tls ?? true;
  const token = opts.token ?? 'casdoctor-test-token';
  const user = opts.user ?? 'system:serviceaccount:casdoctor:reader';
  const gzipThreshold = opts.gzipThreshold ?? 128 * 1024;
  const faults = (opts.faults ?? []).map((f) => ({ ...f, left: f.times ?? Number.POSITIVE_INFINITY }));
  const requests: KubeRequest[] = [];
  let current: Partial<RawInputs> = data;
  let resourceVersion = 1000;
  const podLogs = opts.podLogs ?? caLogOfDump(data);
  const crdVersions = opts.crdVersions ?? {};
  /** The version a resource is served at; null: its CRD is not installed. */
  const served = (r: ResourceDef): string | null =>
    r.crd ? (Object.hasOwn(crdVersions, r.key) ? (crdVersions[r.key as keyof typeof crdVersions] ?? null) : r.version) : r.version;
  const groups = new Map<string, string>();
  for (const r of KUBE_RESOURCES) {
    const v = served(r);
    if (r.group !== '' && v !== null && !groups.has(r.group)) groups.set(r.group, v);
  }
  const timers = new Set<NodeJS.Timeout>();
  // open watch streams, and tests waiting for one to open
  const watchers: Array<{ plural: string; res: http.ServerResponse }> = [];
  const watchOpened = new Map<string, Array<{ resourceVersion: string }>>();
  const watchWaiters: Array<{ plural: string; n: number; resolve: (v: { resourceVersion: string }) => void }> = [];
  let watchGoneBelow = 0;
  const watchEvent = (res: http.ServerResponse, type: string, object: unknown) => {
    if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const openWatch = (plural: string, query: Record<string, string>, res: http.ServerResponse) => {
    const rv = query.resourceVersion ?? '';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    if (rv !== '' && Number(rv) < watchGoneBelow) {
      watchEvent(res, 'ERROR', status(410, 'Expired', `too old resource version: ${rv} (${watchGoneBelow})`));
      res.end();
      return;
    }
    watchers.push({ plural, res });
    res.on('close', () => watchers.splice(watchers.findIndex((w) => w.res === res), 1));
    const list = watchOpened.get(plural) ?? [];
    list.push({ resourceVersion: rv });
    watchOpened.set(plural, list);
    for (const w of watchWaiters.filter((x) => x.plural === plural && x.n <= list.length)) {
      watchWaiters.splice(watchWaiters.indexOf(w), 1);
      w.resolve(list[w.n - 1]);
    }
  };

  const matches = (m: string, path: string, def?: ResourceDef) =>
    m === '*' ||
    (m.startsWith('/')
      ? path.startsWith(m)
      : m.startsWith('pods/')
        ? podSubresource(path)?.kind === m.slice('pods/'.length)
        : !!def && (m === def.plural || m === `${def.plural}.${def.group}`));

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/\/$/, '') || '/';
    const query = Object.fromEntries(url.searchParams);
    requests.push({
      method: req.method ?? 'GET',
      path,
      query,
      userAgent: String(req.headers['user-agent'] ?? ''),
    });

    const send = (code: number, body: unknown, headers: Record<string, string> = {}) => {
      let payload: Buffer = Buffer.from(JSON.stringify(body));
      const h: Record<string, string> = { 'Content-Type': 'application/json', ...headers };
      if (payload.length > gzipThreshold && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        payload = gzipSync(payload);
        h['Content-Encoding'] = 'gzip';
      }
      h['Content-Length'] = String(payload.length);
      const go = () => {
        if (!res.destroyed) res.writeHead(code, h).end(payload);
      };
      const delay = Object.entries(opts.delays ?? {}).find(([m]) => matches(m, path, route?.def))?.[1] ?? 0;
      if (delay > 0) {
        const t = setTimeout(() => {
          timers.delete(t);
          go();
        }, delay);
        timers.add(t);
      } else go();
    };

    const route = resolve(path, served);
    let hostileToken: 'repeat-continue' | 'endless-continue' | undefined;

    if (req.headers.authorization !== `Bearer ${token}`)
      return send(401, status(401, 'Unauthorized', 'Unauthorized'));
    for (const f of faults) {
      if (f.left <= 0 || !matches(f.match, path, route?.def)) continue;
      if (f.onContinue && !query.continue) continue;
      f.left--;
      return sendFault(f, route?.def, route?.namespace, route?.name);
    }
    if (req.method !== 'GET') {
      return send(
        405,
        status(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`),
      );
    }

    for (const h of opts.hostile ?? []) {
      if (!matches(h.match, path, route?.def)) continue;
      if (h.mode === 'repeat-continue' || h.mode === 'endless-continue') {
        hostileToken = h.mode;
        break;
      }
      return misbehave(h);
    }
    const sub = podSubresource(path);
    if (sub) return servePodSubresource(sub);

    if (path === '/version') {
      return send(200, {
        major: '1',
        minor: '31',
        gitVersion: 'v1.31.4',
        gitCommit: 'a78aa47129b8539636eb86a9d00e31b2720fe06b',
        gitTreeState: 'clean',
        buildDate: '2024-12-10T11:36:23Z',
        goVersion: 'go1.22.9',
        compiler: 'gc',
        platform: 'linux/amd64',
      });
    }
    if (path === '/api') {
      return send(200, {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:443' }],
      });
    }
    if (path === '/apis')
      return send(200, {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [...groups].map(([name, version]) => apiGroup(name, version)),
      });
    if (path === '/api/v1') return send(200, resourceList('v1', served));
    const g = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (g && groups.has(g[1]) && (g[2] === undefined || g[2] === groups.get(g[1]))) {
      return g[2]
        ? send(200, resourceList(`${g[1]}/${g[2]}`, served))
        : send(200, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g[1], groups.get(g[1])) });
    }
    if (!route)
      return send(404, status(404, 'NotFound', 'the server could not find the requested resource', {}));

    const { def, namespace, name } = route;
    const all = ((current[def.key] as KubeObject[] | undefined) ?? [])
      .filter((o) => !namespace || o.metadata.namespace === namespace)
      .sort((a, b) => {
        const ka = `${a.metadata.namespace ?? ''}/${a.metadata.name}`;
        const kb = `${b.metadata.namespace ?? ''}/${b.metadata.name}`;
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
    const apiVersion = def.group ? `${def.group}/${served(def)}` : def.version;

    if (name !== undefined) {
      const obj = all.find((o) => o.metadata.name === name);
      if (!obj)
        return send(
          404,
          status(404, 'NotFound', `${qualified(def)} "${name}" not found`, {
            name,
            ...groupOf(def),
            kind: def.plural,
          }),
        );
      return send(200, { ...obj, apiVersion, kind: def.kind });
    }

    if (query.watch === '1' || query.watch === 'true') return openWatch(def.plural, query, res);

    let items = all;
    try {
      if (query.labelSelector) {
        const reqs = parseLabelSelector(query.labelSelector);
        items = items.filter((o) => matchesLabels(o.metadata.labels, reqs));
      }
      if (query.fieldSelector) {
        const reqs = parseFieldSelector(query.fieldSelector, def);
        items = items.filter((o) => reqs.every((r) => (fieldValue(o, r.key) === r.value) !== r.neg));
      }
    } catch (e) {
      return send(400, status(400, 'BadRequest', (e as Error).message));
    }

    let start = 0;
    if (query.continue) {
      try {
        start = JSON.parse(Buffer.from(query.continue, 'base64').toString('utf8')).start;
        if (typeof start !== 'number') throw new Error('no start');
      } catch {
        return send(
          400,
          status(
            400,
            'BadRequest',
            'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
          ),
        );
      }
    }
    const asked = Number(query.limit) > 0 ? Number(query.limit) : Number.POSITIVE_INFINITY;
    const limit = Math.min(asked, opts.maxPageSize ?? Number.POSITIVE_INFINITY);
    const page = items.slice(start, start + limit);
    const next = start + page.length;
    const metadata: Record<string, unknown> = { resourceVersion: String(resourceVersion) };
    if (hostileToken) {
      // a server that never ends the list: the same token again, or a new one every time
      const n = hostileToken === 'repeat-continue' ? 1 : Number(query.continue ? JSON.parse(Buffer.from(query.continue, 'base64').toString('utf8')).n ?? 0 : 0) + 1;
      metadata.continue = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: 0, n })).toString('base64');
      const stripped = items.slice(0, limit).map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
      return send(200, { kind: `${def.kind}List`, apiVersion, metadata, items: stripped });
    }
    if (next < items.length) {
      metadata.continue = Buffer.from(
        JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: next }),
      ).toString('base64');
      metadata.remainingItemCount = items.length - next;
    }
    // Real list responses carry no apiVersion/kind on items.
    const stripped = page.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    return send(200, { kind: `${def.kind}List`, apiVersion, metadata, items: stripped });

    function misbehave(h: KubeHostile) {
      const interval = h.intervalMs ?? 200;
      const stopped = () => res.destroyed || res.writableEnded;
      if (h.mode === 'trickle') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const t = setInterval(() => {
          if (stopped()) {
            clearInterval(t);
            timers.delete(t);
          } else res.write(' ');
        }, interval);
        timers.add(t);
        return;
      }
      if (h.mode === 'endless-body') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[');
        const item = Buffer.from(`${JSON.stringify({ metadata: { name: 'p'.repeat(200), namespace: 'default' } })},`.repeat(256));
        const pump = () => {
          while (!stopped() && res.write(item));
          if (!stopped()) res.once('drain', pump);
        };
        pump();
        return;
      }
      // gzip-bomb: a small compressed stream of whitespace that inflates to `bytes`
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      pumpGzipBomb(res, h.bytes);
    }

    function servePodSubresource(sub: PodSubresource) {
      const pods = (current.pods as KubeObject[] | undefined) ?? [];
      const pod = pods.find((p) => p.metadata.namespace === sub.namespace && p.metadata.name === sub.pod);
      if (!pod) {
        return send(
          404,
          status(404, 'NotFound', `pods "${sub.pod}" not found`, { name: sub.pod, kind: 'pods' }),
        );
      }
      const text = (code: number, body: string, delayMs = 0) => {
        const go = () => {
          if (res.destroyed) return;
          const payload = Buffer.from(body);
          res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(payload.length) }).end(payload);
        };
        if (delayMs <= 0) return go();
        const t = setTimeout(() => {
          timers.delete(t);
          go();
        }, delayMs);
        timers.add(t);
      };
      if (sub.kind === 'proxy') {
        const key = `${sub.namespace}/${sub.pod}:${sub.port}${sub.rest}`;
        const answer = opts.podProxy?.[key];
        if (answer !== undefined) {
          return typeof answer === 'string' ? text(200, answer) : text(answer.status, answer.body, answer.delayMs);
        }
        if (sub.port === '8085' && sub.rest === '/metrics') return text(200, DEFAULT_CA_METRICS);
        return text(404, '404 page not found\n');
      }
      const containers = ((pod.spec as { containers?: Array<{ name: string }> } | undefined)?.containers ?? []).map((c) => c.name);
      const container = query.container ?? (containers.length === 1 ? containers[0] : undefined);
      if (!container) {
        return send(400, status(400, 'BadRequest', `a container name must be specified for pod ${sub.pod}, choose one of: [${containers.join(' ')}]`));
      }
      if (!containers.includes(container)) {
        return send(400, status(400, 'BadRequest', `container ${container} is not valid for pod ${sub.pod}`));
      }
      const previous = query.previous === 'true';
      const key = `${sub.namespace}/${sub.pod}/${container}${previous ? '/previous' : ''}`;
      let log = podLogs[key];
      if (log === undefined && previous) {
        return send(400, status(400, 'BadRequest', `previous terminated container "${container}" in pod "${sub.pod}" not found`));
      }
      log ??= '';
      const limitBytes = Number(query.limitBytes);
      // kube-apiserver: limitBytes cuts the stream after that many bytes, mid-line if need be
      if (limitBytes > 0) log = Buffer.from(log).subarray(0, limitBytes).toString('utf8');
      return text(200, log);
    }

    function sendFault(f: KubeFault, d?: ResourceDef, ns?: string, objName?: string) {
      const verb = objName !== undefined ? 'get' : 'list';
      const retry: Record<string, string> =
        f.retryAfterSeconds !== undefined ? { 'Retry-After': String(f.retryAfterSeconds) } : {};
      const sub = podSubresource(path);
      if (sub && f.status === 403) {
        // RBAC's message for a subresource: resource "pods/log" (or "pods/proxy") in API group ""
        return send(
          403,
          status(
            403,
            'Forbidden',
            f.message ??
              `pods "${sub.pod}" is forbidden: User "${user}" cannot get resource "pods/${sub.kind}" in API group "" in the namespace "${sub.namespace}"`,
            { name: sub.pod, kind: 'pods' },
          ),
        );
      }
      switch (f.status) {
        case 401:
          return send(401, status(401, 'Unauthorized', f.message ?? 'Unauthorized'));
        case 403: {
          const res = d ? qualified(d) : path;
          const where = ns ? `in the namespace "${ns}"` : 'at the cluster scope';
          const msg =
            f.message ??
            (d
              ? `${objName !== undefined ? `${res} "${objName}"` : res} is forbidden: User "${user}" cannot ${verb} resource "${d.plural}" in API group "${d.group}" ${where}`
              : `forbidden: User "${user}" cannot get path "${path}"`);
          return send(
            403,
            status(
              403,
              'Forbidden',
              msg,
              d ? { ...(objName ? { name: objName } : {}), ...groupOf(d), kind: d.plural } : undefined,
            ),
          );
        }
        case 404:
          return send(
            404,
            status(404, 'NotFound', f.message ?? 'the server could not find the requested resource', {}),
          );
        case 410:
          return send(410, status(410, 'Expired', f.message ?? EXPIRED_MESSAGE));
        case 429:
          return send(
            429,
            status(429, 'TooManyRequests', f.message ?? 'Too many requests, please try again later.', {
              retryAfterSeconds: f.retryAfterSeconds ?? 1,
            }),
            retry,
          );
        case 503:
          return send(
            503,
            status(
              503,
              'ServiceUnavailable',
              f.message ?? 'the server is currently unable to handle the request',
            ),
            retry,
          );
        default:
          return send(
            500,
            status(
              500,
              'InternalError',
              f.message ?? 'Internal error occurred: etcdserver: request timed out',
              {
                causes: [{ message: 'etcdserver: request timed out' }],
              },
            ),
            retry,
          );
      }
    }
  };

  const tls = useTls ? testTls() : undefined;
  const server = tls
    ? https.createServer({ cert: tls.cert, key: tls.key }, handler)
    : http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const url = `${useTls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-kube-'));

  const writeKubeconfig = (name: string, v: KubeconfigVariant = {}): string => {
    const contextName = v.contextName ?? 'casdoctor-test';
    const cluster: Record<string, unknown> = { server: v.server ?? url };
    if (!useTls) cluster['insecure-skip-tls-verify'] = true;
    else if (!v.withoutCa)
      cluster['certificate-authority-data'] = Buffer.from(tls!.caCert).toString('base64');
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'casdoctor-test-cluster', cluster }],
      users: [{ name: 'casdoctor-test-user', user: v.user ?? { token: v.token ?? token } }],
      contexts: [
        { name: contextName, context: { cluster: 'casdoctor-test-cluster', user: 'casdoctor-test-user' } },
      ],
      ...(v.currentContext === null ? {} : { 'current-context': v.currentContext ?? contextName }),
      preferences: {},
    };
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(config, null, 2)); // JSON is YAML: kubectl and client-node both read it
    return file;
  };

  return {
    url,
    dir,
    kubeconfigPath: writeKubeconfig('kubeconfig'),
    writeKubeconfig,
    requests,
    setData(d) {
      current = d;
      resourceVersion++;
    },
    watch: {
      opened(plural, n = 1) {
        const list = watchOpened.get(plural) ?? [];
        if (list.length >= n) return Promise.resolve(list[n - 1]);
        return new Promise((resolve) => watchWaiters.push({ plural, n, resolve }));
      },
      count: (plural) => watchOpened.get(plural)?.length ?? 0,
      emit(plural, type, object) {
        resourceVersion++;
        const o = { ...object, metadata: { ...((object as KubeObject).metadata ?? {}), resourceVersion: String(resourceVersion) } };
        const open = watchers.filter((w) => w.plural === plural);
        for (const w of open) watchEvent(w.res, type, o);
        return open.length;
      },
      expire(plural) {
        for (const w of watchers.filter((x) => x.plural === plural)) {
          watchEvent(w.res, 'ERROR', status(410, 'Expired', 'too old resource version'));
          w.res.end();
        }
      },
      end(plural) {
        for (const w of watchers.filter((x) => plural === undefined || x.plural === plural)) w.res.end();
      },
      goneBelow(rv) {
        watchGoneBelow = rv;
      },
    },
    async close() {
      for (const w of [...watchers]) w.res.destroy();
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function qualified(d: ResourceDef): string {
  return d.group ? `${d.plural}.${d.group}` : d.plural;
}

function groupOf(d: ResourceDef) {
  return { group: d.group };
}

interface PodSubresource {
  kind: 'log' | 'proxy';
  namespace: string;
  pod: string;
  port?: string;
  /** The path after /proxy (proxy only), e.g. "/metrics". */
  rest?: string;
}

/** /api/v1/namespaces/<ns>/pods/<name>/log and /api/v1/namespaces/<ns>/pods/<name>[:<port>]/proxy[/<path>]. */
function podSubresource(path: string): PodSubresource | undefined {
  const log = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/:]+)\/log$/.exec(path);
  if (log) return { kind: 'log', namespace: decodeURIComponent(log[1]), pod: decodeURIComponent(log[2]) };
  const proxy = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/:]+)(?::(\d+))?\/proxy(\/.*)?$/.exec(path);
  if (!proxy) return undefined;
  return {
    kind: 'proxy',
    namespace: decodeURIComponent(proxy[1]),
    pod: decodeURIComponent(proxy[2]),
    port: proxy[3] ?? '80',
    rest: proxy[4] ?? '/',
  };
}

interface Route {
  def: ResourceDef;
  namespace?: string;
  name?: string;
}

/** /api/v1[/namespaces/<ns>]/<plural>[/<name>] and /apis/<group>/<version>/..., at the version the server serves. */
function resolve(path: string, served: (r: ResourceDef) => string | null): Route | undefined {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?$/.exec(
    path,
  );
  if (!m) return undefined;
  const group = m[2] ?? '';
  const def = KUBE_RESOURCES.find((r) => r.group === group && r.plural === m[5]);
  if (!def || (m[1] ?? m[3]) !== served(def)) return undefined;
  if (m[4] !== undefined && !def.namespaced) return undefined;
  return {
    def,
    namespace: m[4] !== undefined ? decodeURIComponent(m[4]) : undefined,
    name: m[6] !== undefined ? decodeURIComponent(m[6]) : undefined,
  };
}
