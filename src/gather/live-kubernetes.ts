// Live Kubernetes gathering: one paginated, read-only LIST per resource type, all in parallel, keeping the exact JSON
// the API server sends (the `kubectl get -o json` shape). client-node is used only for kubeconfig and credentials.
import type http from 'node:http';
import type https from 'node:https';
import type { Deployment, KubeObject } from '../model/k8s.js';
import { shellCommand } from '../model/shell.js';
import { KARPENTER_CRD_API, KARPENTER_CRD_KINDS, KARPENTER_CRD_OBJECT_KIND } from '../model/karpenter-crds.js';
import { type DataKind, emptyInputs, type Gap, type RawInputs } from '../model/snapshot.js';
import { EnvironmentError, LimitExceededError, RequestTimeoutError } from './errors.js';
import { buildCaConfig, findCaDeployment } from '../simulate/ca-config.js';
import {
  allowPlainHttp,
  authHintFor,
  getWithRetry,
  type HttpResult,
  loadKubeConfig,
  refuseLegacyAuthProvider,
  statusOf,
  type Target,
  unauthorized,
} from './kube-client.js';
import { DEFAULT_CA_LOG_SINCE_SECONDS, gatherCaRecord } from './live-ca-record.js';
import { type LiveLimits, liveLimits } from './live-limits.js';
import { SharedPool } from './json-stream.js';
import { fromTransport, kindTarget, PREFIT_URL, Prefitted, whoOf } from './prefit.js';
import { internStrings, type InternTable } from './intern.js';
import { fitToShape, isObject } from './shape.js';

export interface KubeGatherOptions {
  /** A kubeconfig file; replaces $KUBECONFIG like `kubectl --kubeconfig`. */
  kubeconfig?: string;
  /** A context name; default: the current context (of the first $KUBECONFIG file that sets one, like kubectl). */
  context?: string;
  /** Bounds each HTTP call (connect to last byte). */
  requestTimeoutMs: number;
  /** Restricts events and PVCs to this namespace. Pods stay cluster-wide (node usage needs every pod). */
  namespace?: string;
  onProgress?: (msg: string) => void;
  /** Window of CA's log to read (`sinceSeconds`); default one hour. */
  caLogSinceSeconds?: number;
  /** Read CA's log and its /metrics and /snapshotz through the pod proxy (default true). */
  readCaRecord?: boolean;
  /** `history`: also read Karpenter's log (`pods/log`) over this many seconds, bounded as CA's. */
  karpenterLogSinceSeconds?: number;
  /** Test hook: smaller bounds (see live-limits.ts for the defaults and why). */
  limits?: Partial<LiveLimits>;
  /** As the offline loader: 'read'/'why-pending' keep only the fields casdoctor reads (shape.ts); 'all' (default) all. */
  fields?: 'read' | 'why-pending' | 'all';
}

interface ResourceSpec {
  key: DataKind;
  plural: string;
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  /** Listed in opts.namespace only, when one is given. */
  followsNamespace?: boolean;
  /** Without it nothing can be analysed: a timeout is an environment error, not a gap. */
  essential?: boolean;
  fieldSelector?: string;
  /**
   * A custom resource: API versions to try in order when one answers 404 (served versions change across CA releases);
   * a 404 for every one means the CRD is not installed, so there are none (provided, empty), never a gap.
   */
  crdVersions?: readonly string[];
  /**
   * Older API versions casdoctor does not read (Karpenter's v1beta1): listed only when every crdVersion answered 404;
   * objects there are a gap saying which release converts them, none there means the CRD is not installed.
   */
  refusedVersions?: readonly string[];
  /** Why objects of refusedVersions are not read (the gap's detail, after "list <resource>: "). */
  refusedHint?: string;
  /** Added to a 403's gap detail: the RBAC rule to add. */
  forbiddenHint?: string;
}

/** The CA status ConfigMap; the only ConfigMap ever read (CA: --status-config-map-name default). */
export const CA_STATUS_CONFIGMAP = 'cluster-autoscaler-status';

const RESOURCES: readonly ResourceSpec[] = [
  { key: 'pods', plural: 'pods', group: '', version: 'v1', kind: 'Pod', namespaced: true, essential: true },
  {
    key: 'nodes',
    plural: 'nodes',
    group: '',
    version: 'v1',
    kind: 'Node',
    namespaced: false,
    essential: true,
  },
  {
    key: 'events',
    plural: 'events',
    group: '',
    version: 'v1',
    kind: 'Event',
    namespaced: true,
    followsNamespace: true,
  },
  {
    key: 'pdbs',
    plural: 'poddisruptionbudgets',
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
    namespaced: true,
  },
  {
    key: 'pvcs',
    plural: 'persistentvolumeclaims',
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    followsNamespace: true,
  },
  {
    key: 'pvs',
    plural: 'persistentvolumes',
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    namespaced: false,
  },
  {
    key: 'storageClasses',
    plural: 'storageclasses',
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'StorageClass',
    namespaced: false,
  },
  {
    key: 'replicaSets',
    plural: 'replicasets',
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    namespaced: true,
  },
  {
    key: 'replicationControllers',
    plural: 'replicationcontrollers',
    group: '',
    version: 'v1',
    kind: 'ReplicationController',
    namespaced: true,
  },
  {
    key: 'deployments',
    plural: 'deployments',
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    namespaced: true,
  },
  {
    key: 'statefulSets',
    plural: 'statefulsets',
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    namespaced: true,
  },
  {
    key: 'daemonSets',
    plural: 'daemonsets',
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    namespaced: true,
  },
  { key: 'jobs', plural: 'jobs', group: 'batch', version: 'v1', kind: 'Job', namespaced: true },
  {
    key: 'priorityClasses',
    plural: 'priorityclasses',
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    namespaced: false,
  },
  {
    key: 'serviceAccounts',
    plural: 'serviceaccounts',
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    namespaced: true,
  },
  {
    key: 'configMaps',
    plural: 'configmaps',
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    namespaced: true,
    fieldSelector: `metadata.name=${CA_STATUS_CONFIGMAP}`,
  },
  // CA's own resources (CA: apis/provisioningrequest, apis/capacitybuffer) and the PodTemplates they reference
  {
    key: 'provisioningRequests',
    plural: 'provisioningrequests',
    group: 'autoscaling.x-k8s.io',
    version: 'v1',
    kind: 'ProvisioningRequest',
    namespaced: true,
    crdVersions: ['v1', 'v1beta1'],
  },
  {
    key: 'podTemplates',
    plural: 'podtemplates',
    group: '',
    version: 'v1',
    kind: 'PodTemplate',
    namespaced: true,
  },
  {
    key: 'capacityBuffers',
    plural: 'capacitybuffers',
    group: 'autoscaling.x-k8s.io',
    version: 'v1beta1',
    kind: 'CapacityBuffer',
    namespaced: true,
    crdVersions: ['v1beta1', 'v1alpha1'],
  },
  // Karpenter's resources (cluster-scoped): v1 only; a cluster still on v1beta1 (Karpenter v0.32-v0.37) is told so
  ...KARPENTER_CRD_KINDS.map(
    (key): ResourceSpec => ({
      key,
      plural: KARPENTER_CRD_API[key].plural,
      group: KARPENTER_CRD_API[key].group,
      version: 'v1',
      kind: KARPENTER_CRD_OBJECT_KIND[key],
      namespaced: false,
      crdVersions: ['v1'],
      refusedVersions: ['v1beta1'],
      forbiddenHint: `grant list on ${KARPENTER_CRD_API[key].plural} in API group ${KARPENTER_CRD_API[key].group} (deploy/casdoctor-clusterrole.yaml)`,
      refusedHint: `the cluster serves only ${KARPENTER_CRD_API[key].group}/v1beta1 (Karpenter v0.32-v0.37), which casdoctor does not read; Karpenter v1.0 serves ${KARPENTER_CRD_API[key].group}/v1 and converts v1beta1 objects to it: upgrade Karpenter to v1.0 or later`,
    }),
  ),
];

/** CA's priority-expander ConfigMap (CA: expander/priority/priority.go), fetched by name in CA's --namespace. */
export const CA_PRIORITY_CONFIGMAP = 'cluster-autoscaler-priority-expander';

const PAGE_LIMIT = 500; // kubectl's default --chunk-size

function resourceName(spec: ResourceSpec): string {
  return spec.group ? `${spec.plural}.${spec.group}` : spec.plural;
}

function basePath(spec: ResourceSpec, namespace?: string): string {
  const root = spec.group ? `/apis/${spec.group}/${spec.version}` : `/api/${spec.version}`;
  return namespace
    ? `${root}/namespaces/${encodeURIComponent(namespace)}/${spec.plural}`
    : `${root}/${spec.plural}`;
}

type ListOutcome = { items: KubeObject[] } | { gap: Gap };

/** Lists one resource type across pages; a 410 Expired continue token restarts the list once. */
async function listAll(
  target: Target,
  spec: ResourceSpec,
  namespace: string | undefined,
  progress: (m: string) => void,
): Promise<ListOutcome> {
  const name = resourceName(spec);
  const scope = namespace ? `namespace ${namespace}` : 'cluster scope';
  const call = `GET ${basePath(spec, namespace)}`;
  let restarts = 0;
  let pages = 0; // across a restart: the budget bounds the requests, not one pass
  restart: for (;;) {
    const seen = new Set<string>(); // a restarted list may see the same tokens again
    const items: KubeObject[] = [];
    const fitter = itemFitter(target, spec);
    let cont: string | undefined;
    do {
      const q = new URLSearchParams({ limit: String(PAGE_LIMIT) });
      if (cont) q.set('continue', cont);
      if (spec.fieldSelector) q.set('fieldSelector', spec.fieldSelector);
      let res: HttpResult;
      try {
        res = await getWithRetry(target, `${basePath(spec, namespace)}?${q}`, call, { rawBody: target.pool !== undefined });
      } catch (e) {
        if (e instanceof RequestTimeoutError && !spec.essential) {
          return {
            gap: {
              resource: name,
              scope,
              reason: 'timeout',
              detail: `timeout: list ${name} (${scope}): ${e.message}`,
            },
          };
        }
        if (e instanceof RequestTimeoutError) {
          throw new EnvironmentError(
            `listing ${name}: ${e.message}`,
            `${shellCommand(['kubectl', 'cluster-info', '--context', target.context])}; or allow more time with --request-timeout`,
            {
              cause: e,
            },
          );
        }
        throw e;
      }
      if (res.status === 200) {
        const page = await fitPage(target, spec, fitter, res, items);
        if (!page.ok) {
          return {
            gap: {
              resource: name,
              scope,
              reason: 'error',
              detail: `error: list ${name} (${scope}): the server did not answer JSON`,
            },
          };
        }
        cont = page.cont || undefined;
        pages++;
        if (cont) {
          checkNextPage(target, call, name, cont, seen, pages);
          progress(`listing ${name}… ${items.length}`);
        }
        continue;
      }
      if (res.status === 401) throw unauthorized(target, res);
      if (res.status === 410 && restarts === 0) {
        restarts++;
        progress(`listing ${name}: continue token expired, starting over`);
        continue restart;
      }
      return { gap: gapFromStatus(name, scope, res) };
    } while (cont);
    fitter.flush();
    return { items };
  }
}

/**
 * One page of a LIST into `items`: parsed and projected by a parse worker when one is free (as the offline loader does
 * its large files: the whole objects never reach this thread's heap, only the fields casdoctor reads), else here.
 * Not ok: the page is not JSON.
 */
async function fitPage(
  target: Target,
  spec: ResourceSpec,
  fitter: ReturnType<typeof itemFitter>,
  res: HttpResult,
  items: KubeObject[],
): Promise<{ ok: true; cont?: string } | { ok: false }> {
  const defaultApiVersion = spec.group ? `${spec.group}/${spec.version}` : spec.version;
  const pool = res.bytes && !spec.crdVersions && kindTarget(spec.kind) === spec.key ? await target.pool?.get() : undefined;
  const slot = pool?.available();
  if (pool && slot && res.bytes) {
    const r = await pool.submitPage(slot, res.bytes, spec.kind, defaultApiVersion);
    if (r.crashed) throw new Error(`parse worker failed: ${r.error}`);
    if (r.error !== undefined || !r.meta) return { ok: false };
    for (const t of JSON.parse(r.text ?? '[]') as unknown[]) {
      const fitted = fitter.take(fromTransport(t));
      if (fitted) items.push(fitted);
    }
    return { ok: true, ...(r.meta.continue ? { cont: r.meta.continue } : {}) };
  }
  let list: { apiVersion?: string; items?: Record<string, unknown>[]; metadata?: { continue?: string } };
  try {
    list = JSON.parse(res.bytes ? res.bytes.toString('utf8') : res.body);
  } catch {
    return { ok: false };
  }
  if (typeof list !== 'object' || list === null) return { ok: false };
  const apiVersion = typeof list.apiVersion === 'string' ? list.apiVersion : defaultApiVersion;
  // API servers omit apiVersion/kind on list items; kubectl -o json prints them. Each page is fitted (and
  // projected, as --from is) before the next is read, so only one page of whole objects is ever held.
  for (const item of Array.isArray(list.items) ? list.items : []) {
    const fitted = fitter.fit({ apiVersion, kind: spec.kind, ...item });
    if (fitted) items.push(fitted);
  }
  const cont = list.metadata?.continue;
  return { ok: true, ...(typeof cont === 'string' && cont ? { cont } : {}) };
}

// one copy of each repeated string per gather, across its lists (as the offline loader keeps them: src/gather/intern.ts)
const internTables = new WeakMap<Target, InternTable>();

/**
 * Fits each listed object to the shape casdoctor reads, as the offline loader does (src/gather/prefit.ts): a wrong-typed
 * field is dropped with a warning, and with fields 'read' or 'why-pending' only the fields casdoctor reads are kept.
 */
function itemFitter(target: Target, spec: ResourceSpec) {
  const profile = target.fields === 'all' ? undefined : target.fields;
  let strings = internTables.get(target);
  if (!strings) internTables.set(target, (strings = new Map()));
  const table = strings;
  const problems: string[] = [];
  let problemCount = 0;
  /** A fitted object kept: its problems counted (the first few named), its strings interned when projected. */
  const kept = (out: Record<string, unknown> | undefined, found: string[], who: () => string): KubeObject | undefined => {
    if (found.length && problems.length < 3) for (const p of found) problems.push(`${who()}: ${p}`);
    problemCount += found.length;
    if (out && profile !== undefined) internStrings(out, table);
    return out as unknown as KubeObject | undefined;
  };
  return {
    fit(item: Record<string, unknown>): KubeObject | undefined {
      // CA's custom resources are few and small and checked whole by the analysis (ca-crds.ts), as offline
      if (spec.crdVersions || !isObject(item.metadata)) return item as unknown as KubeObject;
      const found: string[] = [];
      const out = fitToShape(spec.key, item, found, '', profile !== undefined, profile);
      return kept(out, found, () => whoOf(spec.kind, item.metadata as Record<string, unknown>));
    },
    /** An item a parse worker already fitted (prefit.ts); anything it left as it was is fitted here. */
    take(v: unknown): KubeObject | undefined {
      if (!(v instanceof Prefitted)) return isObject(v) ? this.fit(v) : undefined;
      return kept(v.obj, v.problems, () => v.who);
    },
    flush() {
      if (problemCount === 0) return;
      target.warnings.push(
        `the Kubernetes API server ${target.server} sent ${problemCount} value(s) of the wrong type in ${resourceName(spec)}; ignored (${problems.slice(0, 3).join('; ')}${problemCount > 3 ? '; ...' : ''})`,
      );
    },
  };
}

/** Stops a list whose server repeats a continue token or never stops paging. */
function checkNextPage(
  target: Target,
  call: string,
  name: string,
  token: string,
  seen: Set<string>,
  pages: number,
): void {
  const hint = `${shellCommand(['kubectl', 'get', name, '-A', '--chunk-size=500', '--context', target.context, '-o', 'name'])} | wc -l shows whether the server ever stops`;
  if (seen.has(token)) {
    throw new LimitExceededError(
      `the Kubernetes API server ${target.server} sent a continue token it had sent before while listing ${name} (${call}, page ${pages + 1}); casdoctor stops instead of paging forever`,
      hint,
      'repeated continue token',
    );
  }
  if (pages >= target.limits.maxListPages) {
    throw new LimitExceededError(
      `the Kubernetes API server ${target.server} was still paging after ${pages} pages of ${name} (${call}); casdoctor reads at most ${target.limits.maxListPages} pages per list`,
      hint,
      `${target.limits.maxListPages} pages per list`,
    );
  }
  seen.add(token);
}

function gapFromStatus(name: string, scope: string, res: HttpResult): Gap {
  const s = statusOf(res);
  const what = `list ${name} (${scope})`;
  switch (res.status) {
    case 403:
      return {
        resource: name,
        scope,
        reason: 'forbidden',
        detail: `forbidden: ${what}${s.message ? `: ${s.message}` : ''}`,
      };
    case 404:
      return {
        resource: name,
        scope,
        reason: 'not-found',
        detail: `not found: ${what}: ${s.message ?? 'the server could not find the requested resource'}`,
      };
    case 429:
      return {
        resource: name,
        scope,
        reason: 'throttled',
        detail: `throttled: ${what}: ${s.message ?? 'too many requests'}`,
      };
    default:
      return {
        resource: name,
        scope,
        reason: 'error',
        detail: `error: ${what}: HTTP ${res.status}${s.reason ? ` ${s.reason}` : ''}${s.message ? `: ${s.message}` : ''}`,
      };
  }
}

/** Gathers every Kubernetes kind casdoctor reads. Forbidden or missing resource types become gaps. */
export async function gatherKubernetes(opts: KubeGatherOptions): Promise<RawInputs> {
  const progress = (m: string) => opts.onProgress?.(`kubernetes: ${m}`);
  const { kc, context, server } = await loadKubeConfig(opts);
  progress(`context ${context} (${server})`);
  refuseLegacyAuthProvider(kc, context);
  allowPlainHttp(kc);

  const reqOpts: https.RequestOptions = { headers: {} };
  try {
    await kc.applyToHTTPSOptions(reqOpts);
  } catch (e) {
    throw new EnvironmentError(
      `cannot prepare credentials for context "${context}": ${(e as Error).message}`,
      authHintFor(kc, context),
      { cause: e },
    );
  }
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Accept-Encoding': 'gzip',
    'User-Agent': 'casdoctor (read-only)',
  };
  for (const [k, v] of Object.entries(reqOpts.headers ?? {})) if (v !== undefined) headers[k] = String(v);
  if (reqOpts.auth) headers.Authorization = `Basic ${Buffer.from(reqOpts.auth).toString('base64')}`;
  // client-node's agent has keepAlive off, so every page paid a new TCP and TLS handshake (~200 for a 100k-pod list):
  // reuse connections, as client-go does. Free sockets are unref'd and the agent is destroyed when the lists are done.
  const agent = reqOpts.agent as (http.Agent & { keepAlive?: boolean }) | undefined;
  if (agent) agent.keepAlive = true;
  const inputs = emptyInputs();
  const target: Target = {
    server,
    context,
    agent: agent as http.Agent,
    headers,
    timeoutMs: opts.requestTimeoutMs,
    authHint: authHintFor(kc, context),
    limits: liveLimits(opts.limits),
    fields: opts.fields,
    warnings: inputs.warnings,
    ...(opts.fields && opts.fields !== 'all' ? { pool: new SharedPool(PREFIT_URL, opts.fields) } : {}),
  };

  inputs.sources.push(`live: ${context}`);
  try {
    const outcomes = await Promise.all(
      RESOURCES.map(async (spec) => {
        progress(`listing ${resourceName(spec)}…`);
        const namespace = spec.followsNamespace ? opts.namespace : undefined;
        let outcome = spec.crdVersions
          ? await listCustomResource(target, spec, spec.crdVersions, progress)
          : await listAll(target, spec, namespace, progress);
        const extraGaps: Gap[] = [];
        if ('gap' in outcome && outcome.gap.reason === 'forbidden' && !namespace) {
          // Namespace-only RBAC: still list the pods the user asked about; the cluster-scope gap stays.
          if (spec.key === 'pods' && opts.namespace) {
            extraGaps.push(outcome.gap);
            outcome = await listAll(target, spec, opts.namespace, progress);
          } else if (spec.key === 'configMaps') {
            // casdoctor only needs CA's status ConfigMap: when the GET succeeds, nothing it needs is missing
            outcome = await getConfigMap(target, spec, 'kube-system', CA_STATUS_CONFIGMAP);
          }
        }
        if ('items' in outcome) progress(`listed ${outcome.items.length} ${resourceName(spec)}`);
        return { spec, outcome, extraGaps };
      }),
    );
    const podsOutcome = outcomes.find((o) => o.spec.key === 'pods')?.outcome;
    if (podsOutcome && 'gap' in podsOutcome) {
      // Every command needs pods: say why they could not be listed instead of "no Pods could be listed"
      const others = outcomes.filter((o) => o.spec.key !== 'pods' && 'gap' in o.outcome && o.outcome.gap.reason === podsOutcome.gap.reason);
      throw podsUnlisted(target, podsOutcome.gap, others.map((o) => resourceName(o.spec)));
    }
    for (const { spec, outcome, extraGaps } of outcomes) {
      inputs.gaps.push(...extraGaps);
      if ('gap' in outcome) {
        inputs.gaps.push(outcome.gap);
        continue;
      }
      (inputs[spec.key] as KubeObject[]).push(...outcome.items);
      inputs.provided.add(spec.key);
    }
    if (inputs.provided.has('configMaps')) {
      const priority = await getPriorityConfigMap(target, inputs.deployments);
      if (priority && 'items' in priority) inputs.configMaps.push(...priority.items);
      else if (priority) inputs.gaps.push(priority.gap);
    }
    await getProviderConfigMaps(target, inputs);
    // no credential of the externalgrpc provider's config stays in RawInputs (its ConfigMaps hold them: G8)
    (await import('../providers/externalgrpc/gather.js')).scrubExternalGrpcConfigMaps(inputs);
    if (opts.readCaRecord ?? true) {
      const record = await gatherCaRecord(target, inputs, {
        sinceSeconds: opts.caLogSinceSeconds ?? DEFAULT_CA_LOG_SINCE_SECONDS,
        progress,
      });
      inputs.caLogTexts = record.caLogTexts;
      inputs.caProxyTexts = record.caProxyTexts;
      inputs.gaps.push(...record.gaps);
    }
    // Karpenter's log beside the verdicts: over history's window, else the window CA's log is read over (--ca-log-since)
    const karpenterLogSince = opts.karpenterLogSinceSeconds ?? ((opts.readCaRecord ?? true) ? (opts.caLogSinceSeconds ?? DEFAULT_CA_LOG_SINCE_SECONDS) : undefined);
    if (karpenterLogSince) {
      const { gatherKarpenterLog } = await import('./live-karpenter-log.js');
      const k = await gatherKarpenterLog(target, inputs, { sinceSeconds: karpenterLogSince, maxBytes: target.limits.caLogBytes });
      if (k.logs.length) inputs.karpenterLogs = k.logs;
      if (k.texts.length) inputs.karpenterLogTexts = k.texts;
      inputs.gaps.push(...k.gaps);
    }
  } finally {
    await target.pool?.close();
    agent?.destroy();
  }
  return inputs;
}

/**
 * Pods could not be listed: nothing can be analysed. The message leads with the server's own words (for a 403 the user
 * it authenticated and the API group/resource RBAC checked) and counts the other lists that failed the same way.
 */
function podsUnlisted(target: Target, gap: Gap, sameFailure: string[] = []): EnvironmentError {
  const scoped = gap.scope && gap.scope !== 'cluster scope' ? gap.scope.replace(/^namespace /, '') : undefined;
  const canI = ['kubectl', 'auth', 'can-i', 'list', 'pods', ...(scoped ? ['-n', scoped] : ['--all-namespaces']), '--context', target.context];
  const hint =
    gap.reason === 'forbidden'
      ? `${shellCommand(canI)}; casdoctor needs list on pods (deploy/casdoctor-clusterrole.yaml)`
      : `${shellCommand(['kubectl', 'get', 'pods', '-A', '--context', target.context])} shows the same error`;
  const word = gap.reason === 'not-found' ? 'not found' : gap.reason;
  const more = sameFailure.length
    ? `; ${word} too: ${sameFailure.length > 6 ? `${sameFailure.slice(0, 6).join(', ')} and ${sameFailure.length - 6} more` : sameFailure.join(', ')}`
    : '';
  return new EnvironmentError(`cannot list pods from ${target.server}: ${gap.detail}${more}`, hint);
}

/**
 * Lists a custom resource at the first API version the server serves; a 404 at every version means the CRD is not
 * installed: there are none, which is known, not missing.
 */
async function listCustomResource(
  target: Target,
  spec: ResourceSpec,
  versions: readonly string[],
  progress: (m: string) => void,
): Promise<ListOutcome> {
  for (const version of versions) {
    const outcome = await listAll(target, { ...spec, version }, undefined, progress);
    if ('gap' in outcome && outcome.gap.reason === 'forbidden' && spec.forbiddenHint)
      return { gap: { ...outcome.gap, detail: `${outcome.gap.detail}; ${spec.forbiddenHint}` } };
    if (!('gap' in outcome) || outcome.gap.reason !== 'not-found') return outcome;
  }
  for (const version of spec.refusedVersions ?? []) {
    const outcome = await listAll(target, { ...spec, version }, undefined, progress);
    if ('gap' in outcome) {
      if (outcome.gap.reason === 'not-found') continue;
      return outcome;
    }
    if (outcome.items.length === 0) continue;
    const name = resourceName(spec);
    const hint = spec.refusedHint ?? `only ${spec.group}/${version} is served, which casdoctor does not read`;
    return {
      gap: {
        resource: name,
        scope: 'cluster scope',
        reason: 'error',
        detail: `unsupported: list ${name} (cluster scope): ${outcome.items.length} object(s) at ${spec.group}/${version}: ${hint}`,
      },
    };
  }
  return { items: [] };
}

/**
 * CA's priority-expander ConfigMap, GET by name in CA's --namespace (a 404: it does not exist, nothing missing); undefined
 * when there is no CA Deployment to tell the namespace.
 */
async function getPriorityConfigMap(target: Target, deployments: Deployment[]): Promise<ListOutcome | undefined> {
  const found = findCaDeployment(deployments);
  if (!found) return undefined;
  const ns = buildCaConfig({ deployment: found.deployment }).flags.namespace.value || 'kube-system';
  const spec = RESOURCES.find((r) => r.key === 'configMaps')!;
  const outcome = await getConfigMap(target, spec, ns, CA_PRIORITY_CONFIGMAP);
  if ('gap' in outcome && outcome.gap.reason === 'not-found') return { items: [] };
  return outcome;
}

/**
 * The ConfigMaps CA's cloud provider reads (configMapRefs; externalgrpc: its own and CA's --cloud-config): GET (read-only, by name)
 * each. A 404 is "not there"; forbidden is a gap naming the RBAC to add.
 */
async function getProviderConfigMaps(target: Target, inputs: RawInputs): Promise<void> {
  const found = findCaDeployment(inputs.deployments);
  if (!found) return;
  const ca = buildCaConfig({ deployment: found.deployment });
  const { providerById } = await import('../providers/index.js');
  const refs = providerById(ca.flags.cloudProvider.value)?.configMapRefs?.(inputs.deployments, ca) ?? [];
  const spec = RESOURCES.find((r) => r.key === 'configMaps')!;
  for (const ref of refs) {
    if (inputs.configMaps.some((c) => c.metadata.name === ref.name && (c.metadata.namespace ?? 'default') === ref.namespace)) continue;
    const outcome = await getConfigMap(target, spec, ref.namespace, ref.name);
    if ('items' in outcome) {
      inputs.configMaps.push(...outcome.items);
      inputs.provided.add('configMaps');
    } else if (outcome.gap.reason !== 'not-found') {
      const hint = outcome.gap.reason === 'forbidden'
        ? `; grant get on configmaps with resourceNames [${ref.name}] in namespace ${ref.namespace} (deploy/casdoctor-clusterrole.yaml)`
        : '';
      inputs.gaps.push({ ...outcome.gap, detail: `${outcome.gap.detail} (${ref.why})${hint}` });
    }
  }
}

/** GET one ConfigMap by name: the fallback for CA's status ConfigMap, and CA's priority-expander ConfigMap. */
async function getConfigMap(target: Target, spec: ResourceSpec, namespace: string, cmName: string): Promise<ListOutcome> {
  const path = `${basePath(spec, namespace)}/${encodeURIComponent(cmName)}`;
  const name = `${spec.plural}/${cmName}`;
  const scope = `namespace ${namespace}`;
  let res: HttpResult;
  try {
    res = await getWithRetry(target, path, `GET ${path}`);
  } catch (e) {
    if (!(e instanceof RequestTimeoutError)) throw e;
    return {
      gap: {
        resource: name,
        scope,
        reason: 'timeout',
        detail: `timeout: get ${name} (${scope}): ${e.message}`,
      },
    };
  }
  if (res.status === 200) {
    try {
      return { items: [{ apiVersion: 'v1', kind: 'ConfigMap', ...JSON.parse(res.body) }] };
    } catch {
      return {
        gap: {
          resource: name,
          scope,
          reason: 'error',
          detail: `error: get ${name} (${scope}): the server did not answer JSON`,
        },
      };
    }
  }
  if (res.status === 401) throw unauthorized(target, res);
  const gap = gapFromStatus(name, scope, res);
  return { gap: { ...gap, detail: gap.detail.replace(`list ${name}`, `get ${name}`) } };
}
