import type { PartialPods } from './partial-input.js';
import type { CaConfig } from '../model/ca-config.js';
import type { Node, Pod, PriorityClass } from '../model/k8s.js';
import type { AsgNodeGroup, NodeGroup, NodeGroupsResult } from '../model/node-group.js';
import type { ClusterView, NodeInfo } from '../model/scheduling.js';
import type { DataKind, Gap, RawInputs } from '../model/snapshot.js';
import { shellCommand, shellQuote } from '../model/shell.js';
import { buildCaConfig, findCaDeployment } from './ca-config.js';
import { type EventIndex, indexEventsByInvolvedObject } from './ca-events.js';
import { type CaStatus, findCaStatusConfigMap, parseCaStatus } from './ca-status.js';
import {
  buildInstanceTypeTable,
  type InstanceTypeTable,
  type StaticInstanceTypeData,
} from './instance-types.js';
import { buildClusterView } from './scheduler.js';
import { isOtherProvidersGroupKind, providerFor } from '../providers/index.js';
import type { NodeGroupProvider, ProviderContext } from '../providers/types.js';
import type { TemplateContext, TemplateResult } from './node-group-provider.js';
import { buildTemplateNode } from './template-node.js';
import type { CaLogSummary } from '../model/ca-log.js';
import { CA_CRD_HOW_TO_PROVIDE, CA_CRD_RESOURCES, type CaCrdKind } from '../model/ca-crds.js';
import { KARPENTER_CRD_HOW_TO_PROVIDE, KARPENTER_CRD_RESOURCES, type KarpenterCrdKind } from '../model/karpenter-crds.js';
import {
  CaLogIndex,
  type CaMetricsSummary,
  type CaSnapshotz,
  parseCaMetrics,
  parseCaSnapshotz,
} from './ca-record.js';
import { isAsgGroup } from '../providers/aws/words.js';

/** Parts of CA's own record a check may need; missing ones make the check skipped with how to supply them. */
export type CaRecordKind = 'caLog' | 'caMetrics' | 'caSnapshotz';

/** Picks CA's cloud provider from CA's flags and the input (CA's cloudprovider/builder: one switch over the registry). */
export type ProviderResolver = (ca: CaConfig, raw: RawInputs) => NodeGroupProvider;

/** Pod selection of a command (why-pending <pod>, -n, -l, --all). */
export type PodScope = (pod: Pod) => boolean;

/**
 * Node selection of a command (scale-down-blockers --node, --nodegroup, -l): what it reports, never what it simulates.
 * Called lazily, with the analysis, so a scope may ask which node groups exist.
 */
export type NodeScope = (node: Node, group: NodeGroup | undefined, a: Analysis) => boolean;

export interface AnalysisOptions {
  now: Date;
  /** --ca-args, split into flags */
  caArgs?: string[];
  staticInstanceTypes: StaticInstanceTypeData;
  /** CA's cloud provider, resolved once CA's flags are read; absent = the registry's providerFor. */
  provider?: ProviderResolver;
  /** The pods the command asks about; absent = every pod. */
  podScope?: PodScope;
  /** The nodes the command reports on; absent = every node. */
  nodeScope?: NodeScope;
}

const HUMAN_KIND: Partial<Record<DataKind, string>> = {
  pods: 'pods',
  nodes: 'nodes',
  events: 'events',
  pdbs: 'poddisruptionbudgets.policy',
  pvcs: 'persistentvolumeclaims',
  pvs: 'persistentvolumes',
  storageClasses: 'storageclasses.storage.k8s.io',
  replicaSets: 'replicasets.apps',
  replicationControllers: 'replicationcontrollers',
  deployments: 'deployments.apps',
  statefulSets: 'statefulsets.apps',
  daemonSets: 'daemonsets.apps',
  jobs: 'jobs.batch',
  priorityClasses: 'priorityclasses.scheduling.k8s.io',
  configMaps: 'configmaps',
  serviceAccounts: 'serviceaccounts',
  ...CA_CRD_RESOURCES,
  ...KARPENTER_CRD_RESOURCES,
  instanceTypeOfferings: 'ec2:DescribeInstanceTypeOfferings',
  autoScalingGroups: 'autoscaling:DescribeAutoScalingGroups',
  launchTemplateVersions: 'ec2:DescribeLaunchTemplateVersions',
  launchConfigurations: 'autoscaling:DescribeLaunchConfigurations',
  instanceTypes: 'ec2:DescribeInstanceTypes',
  scalingActivities: 'autoscaling:DescribeScalingActivities',
  iamEvaluationResults: 'iam:SimulatePrincipalPolicy',
  eksNodegroups: 'eks:DescribeNodegroup',
};

function memo<T>(fn: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = fn();
      done = true;
    }
    return value;
  };
}

/**
 * The typed snapshot plus everything derived from it, computed once and lazily. Pure: no I/O happens here.
 * Commands build one Analysis per run and hand it to the checks.
 */
export class Analysis {
  readonly now: Date;
  private templates = new Map<string, TemplateResult>();
  private podScope: PodScope;
  /** The nodes the command reports on (scale-down-blockers' filters); every node unless the command narrowed them. */
  readonly nodeScope: NodeScope;

  constructor(
    readonly raw: RawInputs,
    private readonly options: AnalysisOptions,
  ) {
    this.now = options.now;
    this.podScope = options.podScope ?? (() => true);
    this.nodeScope = options.nodeScope ?? (() => true);
  }

  /** The pods in question: the command's scope, narrowed to one check's autoscaler while that check runs. */
  get scope(): PodScope {
    return this.podScope;
  }

  /** Runs `fn` with the pods narrowed to `scope` (the check engine: a check sees only the pods of its autoscaler). */
  withScope<T>(scope: PodScope, fn: () => T): T {
    const outer = this.podScope;
    this.podScope = scope;
    try {
      return fn();
    } finally {
      this.podScope = outer;
    }
  }

  private caMemo = memo(() => {
    const found = findCaDeployment(this.raw.deployments);
    return buildCaConfig({ deployment: found?.deployment, overrideArgs: this.options.caArgs });
  });
  get ca(): CaConfig {
    return this.caMemo();
  }

  private caStatusMemo = memo((): CaStatus | undefined => {
    const cm = findCaStatusConfigMap(this.raw.configMaps, this.ca);
    return cm ? parseCaStatus(cm, this.now) : undefined;
  });
  get caStatus(): CaStatus | undefined {
    return this.caStatusMemo();
  }

  private instanceTypesMemo = memo(() =>
    buildInstanceTypeTable(this.options.staticInstanceTypes, this.raw.instanceTypes, this.ca),
  );
  get instanceTypes(): InstanceTypeTable {
    return this.instanceTypesMemo();
  }

  private providerMemo = memo(() => (this.options.provider ?? providerFor)(this.ca, this.raw));
  /** CA's cloud provider (--cloud-provider): lists the node groups, builds scratch templates, reads per-group options. */
  get provider(): NodeGroupProvider {
    return this.providerMemo();
  }

  private providerContextMemo = memo((): ProviderContext => ({ raw: this.raw, ca: this.ca, now: this.now }));
  get providerContext(): ProviderContext {
    return this.providerContextMemo();
  }

  private nodeGroupsMemo = memo(() => this.provider.buildNodeGroups(this.providerContext));
  get nodeGroupsResult(): NodeGroupsResult {
    return this.nodeGroupsMemo();
  }

  /** Groups that matter to this cluster (AWS: discovered by CA, owning nodes, or tagged for the cluster). Sorted by name. */
  private relevantGroupsMemo = memo(() => {
    const all = this.nodeGroupsResult;
    return all.nodeGroups
      .filter((g) => this.provider.isRelevant(g, this.providerContext, all))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  });
  get nodeGroups(): NodeGroup[] {
    return this.relevantGroupsMemo();
  }

  private asgGroupsMemo = memo(() => this.nodeGroups.filter(isAsgGroup));
  /** The relevant groups that are Auto Scaling groups (empty unless CA runs the AWS provider). Sorted by name. */
  get asgGroups(): AsgNodeGroup[] {
    return this.asgGroupsMemo();
  }

  /** Cluster names this snapshot knows of, as the provider reads them (AWS: CA's discovery tags, eks: tags of owned ASGs). */
  clusterNames(): Set<string> {
    return this.provider.clusterNames(this.providerContext, this.nodeGroupsResult);
  }

  private podsByNodeMemo = memo(() => {
    const map = new Map<string, Pod[]>();
    for (const p of this.raw.pods) {
      const n = p.spec?.nodeName;
      if (!n) continue;
      const phase = p.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      let list = map.get(n);
      if (!list) map.set(n, (list = []));
      list.push(p);
    }
    return map;
  });
  /** Running (non-terminal) pods by node name. */
  get podsByNode(): Map<string, Pod[]> {
    return this.podsByNodeMemo();
  }

  private viewMemo = memo(() =>
    buildClusterView({
      nodes: this.raw.nodes,
      pods: this.raw.pods,
      pvcs: this.raw.pvcs,
      pvs: this.raw.pvs,
      storageClasses: this.raw.storageClasses,
      // a dump without PVs says nothing about PVs: only what was provided counts as known
      has: {
        pvcs: this.raw.provided.has('pvcs'),
        pvs: this.raw.provided.has('pvs'),
        storageClasses: this.raw.provided.has('storageClasses'),
      },
    }),
  );
  /** Existing nodes with their pods, plus volumes: what the scheduler sees. */
  get view(): ClusterView {
    return this.viewMemo();
  }

  private nodeInfoByNameMemo = memo(
    () => new Map<string, NodeInfo>(this.view.nodeInfos.map((n) => [n.node.metadata.name ?? '', n])),
  );
  nodeInfo(name: string): NodeInfo | undefined {
    return this.nodeInfoByNameMemo().get(name);
  }

  private eventsMemo = memo(() => indexEventsByInvolvedObject(this.raw.events));
  get events(): EventIndex {
    return this.eventsMemo();
  }

  private priorityClassesMemo = memo(
    () => new Map<string, PriorityClass>(this.raw.priorityClasses.map((p) => [p.metadata.name ?? '', p])),
  );
  get priorityClasses(): Map<string, PriorityClass> {
    return this.priorityClassesMemo();
  }

  private templateContextMemo = memo(
    (): TemplateContext => ({
      now: this.now,
      config: this.ca,
      instanceTypes: this.instanceTypes,
      launchTemplateVersions: this.raw.launchTemplateVersions,
      launchConfigurations: this.raw.launchConfigurations,
      images: this.raw.images,
      instanceTypesFromRequirements: this.raw.instanceTypesFromRequirements,
      eksNodegroups: this.raw.eksNodegroups,
      daemonSets: this.raw.daemonSets,
      podsByNode: this.podsByNode,
      provider: this.provider,
    }),
  );
  /** What template building reads, with this run's provider. */
  get templateContext(): TemplateContext {
    return this.templateContextMemo();
  }

  /** The template node CA would use for a group (real node, else the provider's scratch template), built once per group. */
  template(group: NodeGroup): TemplateResult {
    let t = this.templates.get(group.name);
    if (!t) {
      t = buildTemplateNode(group, this.templateContext);
      // a provider whose nodes carry no instance-type label names the type itself (externalgrpc: instanceParameter)
      const type = t.instanceType === undefined ? this.provider.instanceTypeOf(group, this.providerContext) : undefined;
      if (type !== undefined) t = { ...t, instanceType: type };
      this.templates.set(group.name, t);
    }
    return t;
  }

  /**
   * kube-scheduler 1.35 (kubernetes#134740, backported to 1.34.2) stopped naming the taint in its reason:
   * "node(s) had untolerated taint(s)". CA reports what its vendored scheduler says; the scheduler what the cluster runs.
   */
  get caTaintReason(): 'with-taint' | 'redacted' {
    return this.ca.version.minor >= 35 ? 'redacted' : 'with-taint';
  }

  private schedulerTaintReasonMemo = memo((): 'with-taint' | 'redacted' => {
    // the newest kubelet stands in for the control plane's version (it is never newer than the API server)
    const redacted = this.raw.nodes.some((n) => {
      const m = /^v1\.(\d+)\.(\d+)/.exec(n.status?.nodeInfo?.kubeletVersion ?? '');
      return m !== null && (Number(m[1]) >= 35 || (Number(m[1]) === 34 && Number(m[2]) >= 2));
    });
    return redacted ? 'redacted' : 'with-taint';
  });
  get schedulerTaintReason(): 'with-taint' | 'redacted' {
    return this.schedulerTaintReasonMemo();
  }

  /** Nodes that are Ready, as CA counts them for --max-nodes-total. */
  readyNodes(): Node[] {
    return this.raw.nodes.filter((n) =>
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
  }

  /** CA's log: the summary that reaches furthest in time (the current container's, when both were read). */
  private caLogMemo = memo((): CaLogSummary | undefined => {
    const logs = this.raw.caLogs ?? [];
    let best: CaLogSummary | undefined;
    for (const l of logs) {
      if (l.lines.total === 0) continue;
      if (!best || (l.lastTime ?? '') > (best.lastTime ?? '')) best = l;
    }
    return best;
  });
  get caLog(): CaLogSummary | undefined {
    return this.caLogMemo();
  }

  private caLogIndexMemo = memo((): CaLogIndex | undefined => {
    const log = this.caLog;
    if (!log) return undefined;
    const byRef = new Map<string, Pod>();
    for (const p of this.raw.pods) byRef.set(`${p.metadata.namespace ?? 'default'}/${p.metadata.name ?? ''}`, p);
    return new CaLogIndex(log, byRef);
  });
  /** CA's latest logged view per pod × group and per node. */
  get caLogIndex(): CaLogIndex | undefined {
    return this.caLogIndexMemo();
  }

  private caMetricsMemo = memo((): CaMetricsSummary | undefined => {
    const t = (this.raw.caProxyTexts ?? []).find((x) => x.path === '/metrics');
    return t ? parseCaMetrics(t.text) : undefined;
  });
  get caMetrics(): CaMetricsSummary | undefined {
    return this.caMetricsMemo();
  }

  private caSnapshotzMemo = memo((): CaSnapshotz | { error: string } | undefined => {
    const t = (this.raw.caProxyTexts ?? []).find((x) => x.path === '/snapshotz');
    return t ? parseCaSnapshotz(t.text) : undefined;
  });
  get caSnapshotz(): CaSnapshotz | { error: string } | undefined {
    return this.caSnapshotzMemo();
  }

  /** Why the input's pods are only part of the cluster's (one namespace, single pods: a --from dump), or undefined. */
  get podsPartial(): PartialPods | undefined {
    return this.raw.podsPartial;
  }

  /** Why a part of CA's record is not available, with how to supply it; undefined when it is. */
  missingRecord(kind: CaRecordKind): { reason: string; detail: string } | undefined {
    const ns = this.ca.deployment?.namespace ?? 'kube-system';
    const dep = this.ca.deployment?.name ?? 'cluster-autoscaler';
    if (kind === 'caLog') {
      if (this.caLog) return undefined;
      const gap = this.raw.gaps.find((g) => g.resource === 'pods/log');
      if (gap) return { reason: gap.reason, detail: `CA's log could not be read (${gap.detail}); grant get on pods/log in ${ns}` };
      if ((this.raw.caLogs ?? []).length > 0) return { reason: 'not-provided', detail: "CA's log is empty" };
      return {
        reason: 'not-provided',
        detail: `no CA log in the input: add \`${shellCommand(['kubectl', '-n', ns, 'logs', `deploy/${dep}`, '--since=1h'])} > ca.log\` to the dump`,
      };
    }
    const path = kind === 'caMetrics' ? '/metrics' : '/snapshotz';
    if (kind === 'caSnapshotz' && this.ca.found && this.ca.flags.debuggingSnapshotEnabled.value !== true && !this.caSnapshotz)
      return {
        reason: 'not-provided',
        detail: 'CA runs without --debugging-snapshot-enabled=true, so it serves no /snapshotz (CA\'s own template per group); add the flag to compare templates',
      };
    if ((this.raw.caProxyTexts ?? []).some((x) => x.path === path)) return undefined;
    const gap = this.raw.gaps.find((g) => g.resource === 'pods/proxy' && g.detail.includes(path));
    if (gap) return { reason: gap.reason, detail: `CA's ${path} could not be read (${gap.detail}); grant get on pods/proxy in ${ns}` };
    const port = (this.ca.flags.address.value.split(':').pop() || '8085');
    return {
      reason: 'not-provided',
      // the <ca-pod> placeholder stays outside the quotes, so the user's pod name joins the quoted parts
      detail: `no CA ${path} in the input: add \`kubectl get --raw ${shellQuote(`/api/v1/namespaces/${ns}/pods/`)}<ca-pod>${shellQuote(`:${port}/proxy${path}`)} > ca${path.replace('/', '-')}.${kind === 'caMetrics' ? 'txt' : 'json'}\` to the dump`,
    };
  }

  gapFor(kind: DataKind): Gap | undefined {
    const name = HUMAN_KIND[kind] ?? kind;
    return this.raw.gaps.find((g) => g.resource === name || g.resource === kind);
  }

  /** Why a check that needs these kinds cannot run, or undefined when all are present. */
  missingData(kinds: readonly DataKind[]): { reason: string; detail: string } | undefined {
    for (const k of kinds) {
      // under another provider the node groups come from it, not from ASGs (AWS-only checks are gated by meta.providers)
      if (isOtherProvidersGroupKind(k, this.provider)) continue;
      const gap = this.gapFor(k);
      if (gap) return { reason: gap.reason, detail: gap.detail };
      if (!this.raw.provided.has(k)) {
        const how = Object.hasOwn(CA_CRD_HOW_TO_PROVIDE, k)
          ? CA_CRD_HOW_TO_PROVIDE[k as CaCrdKind]
          : Object.hasOwn(KARPENTER_CRD_HOW_TO_PROVIDE, k)
            ? KARPENTER_CRD_HOW_TO_PROVIDE[k as KarpenterCrdKind]
            : undefined;
        return {
          reason: 'not-provided',
          detail: `no ${HUMAN_KIND[k] ?? k} in the input (${this.raw.sources.length ? (how ? `add \`${how}\` to the dump` : 'add the dump') : 'not gathered'})`,
        };
      }
    }
    return undefined;
  }
}
