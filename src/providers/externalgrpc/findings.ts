// The externalgrpc provider's findings (field notes 4a, G1-G11, plus stuck instances) as data; the lead wraps them as
// checks. Provider: sunkaimr/cluster-autoscaler-grpc-cloud-provider @ f792442; CA: kubernetes/autoscaler tags.
import type { ExternalGrpcConfig, GrpcInstance, GrpcNodeGroupSpec, GrpcSchemaEra } from '../../model/externalgrpc.js';
import type { Node } from '../../model/k8s.js';
import { DEFAULT_GROUP_ID } from './config.js';
import type { ProviderContext } from '../types.js';
import { caDefaults, countedInTargetSize, externalGrpcState } from './groups.js';
import { KUBE_RESERVED_TAINTS, nodeMembership } from './membership.js';
import { type CaDefaults, grpcOptionsAsCaSees, PER_GROUP_STARTUP_TIME_MINOR } from './options.js';
import { buildProviderTemplateNode, NODE_BYTES_ONLY_MINOR } from './template.js';

export type GrpcFindingId = 'G1' | 'G2' | 'G3' | 'G4' | 'G5' | 'G6' | 'G7' | 'G8' | 'G9' | 'G10' | 'G11' | 'STUCK';

export interface GrpcFinding {
  id: GrpcFindingId;
  /** Finer kind inside an id, e.g. 'panic' / 'durations-zero' for G2. */
  kind: string;
  group?: string;
  node?: string;
  instance?: string;
  source?: string;
  message: string;
  values: Record<string, string | number | boolean | string[]>;
  /** Upstream file:line the finding rests on. */
  upstream: string;
}

export interface GrpcFindingsInput {
  config: ExternalGrpcConfig;
  /** Groups as loaded (config.nodeGroups). */
  groups: GrpcNodeGroupSpec[];
  nodes: Node[];
  caMinor: number;
  caDefaults: CaDefaults;
  era: GrpcSchemaEra;
  providerImage?: string;
  now: Date;
  /** Startup/ignore taints from CA's flags (--startup-taint, --ignore-taint, prefixes): transient taints on nodes. */
  startupTaints?: string[];
  /** How long an instance may sit in Creating/Created/Joined before STUCK fires; default --max-node-provision-time. */
  stageBoundMs?: number;
}

/**
 * Whether a G1/G2 finding rests on the proto the provider was built with (so cannot be told for an image of unknown
 * era): the nil template (G1), the panic and 1.35's unread duration fields (G2) do; CA 1.27-1.28's
 * MaxNodeProvisionTime = 0 is CA's own client bug, whatever the provider answers.
 */
export function dependsOnProviderProto(f: GrpcFinding): boolean {
  return f.id === 'G1' || (f.id === 'G2' && f.kind !== 'provision-time-zero');
}

/** G1: CA >= 1.35 reads only nodeBytes; a pre-1.35 server answers nodeInfo -> nil template, cached, then a nil deref. */
export function protoTemplateIncompatibility(i: GrpcFindingsInput): GrpcFinding[] {
  // CA 1.35.0 externalgrpc_node_group.go:230-244 (nodeBytes only); provider protos/externalgrpc.proto:336-339 (nodeInfo = 1)
  if (i.caMinor < NODE_BYTES_ONLY_MINOR || i.era !== 'pre-1.35') return [];
  return [
    {
      id: 'G1',
      kind: 'template-nil',
      message: `CA 1.${i.caMinor} reads only nodeBytes from NodeGroupTemplateNodeInfo, but this provider (${i.providerImage ?? 'image unknown'}) is built on the pre-1.35 proto and fills only nodeInfo: every group without a Ready node gets a nil template`,
      values: { caMinor: i.caMinor, providerEra: i.era, groups: i.groups.map((g) => g.id) },
      upstream: 'kubernetes/autoscaler 1.35.0 cluster-autoscaler/cloudprovider/externalgrpc/externalgrpc_node_group.go:232-244; provider go.mod:19, protos/externalgrpc.proto:336-339',
    },
  ];
}

/** G2 (and CA 1.27-1.28's MaxNodeProvisionTime=0): per-group options that CA of this minor cannot read from this provider. */
export function optionsIncompatibility(i: GrpcFindingsInput): GrpcFinding[] {
  const out: GrpcFinding[] = [];
  for (const g of i.groups) {
    const seen = grpcOptionsAsCaSees(g, i.caMinor, i.caDefaults, i.era);
    if (seen.panics) {
      // CA 1.29.0 externalgrpc_node_group.go:296 pbOpts.GetMaxNodeProvisionTime().Duration; provider wrapper.go:342-353
      out.push({
        id: 'G2',
        kind: 'panic',
        group: g.id,
        message: seen.facts[0] ?? '',
        values: { caMinor: i.caMinor, optionsPresent: g.autoscalingOptions?.present ?? [] },
        upstream: 'kubernetes/autoscaler 1.29.0-1.34.x externalgrpc_node_group.go GetOptions (GetMaxNodeProvisionTime().Duration); provider wrapper/wrapper.go:342-353',
      });
      continue;
    }
    const timers = seen.zeroed.filter((z) =>
      ['scaleDownUnneededTimeMs', 'scaleDownUnreadyTimeMs', 'maxNodeProvisionTimeMs'].includes(z.option),
    );
    const protoCaused = timers.filter((z) => !z.why.startsWith('autoscalingOptions.'));
    if (protoCaused.length) {
      out.push({
        id: 'G2',
        kind: i.caMinor >= 35 ? 'durations-zero' : 'provision-time-zero',
        group: g.id,
        message: `CA 1.${i.caMinor} gets ${protoCaused.map((z) => z.option.replace(/Ms$/, '')).join(', ')} = 0 for "${g.id}": ${protoCaused.map((z) => z.why).join('; ')}`,
        values: Object.fromEntries(protoCaused.map((z) => [z.option, 0])),
        upstream:
          i.caMinor >= 35
            ? 'kubernetes/autoscaler 1.35.0 externalgrpc_node_group.go:304-326; provider wrapper/wrapper.go:342-353'
            : 'kubernetes/autoscaler 1.27/1.28 externalgrpc_node_group.go GetOptions (no MaxNodeProvisionTime; fixed by 6df52ec0a4 in 1.29)',
      });
    }
  }
  return out;
}

/** G4: autoscalingOptions with some keys omitted -> Go zero values for those. */
export function partialOptions(i: GrpcFindingsInput): GrpcFinding[] {
  const out: GrpcFinding[] = [];
  for (const g of i.groups) {
    const ao = g.autoscalingOptions;
    if (!ao || ao.present.length === 4) continue;
    const all = ['scaleDownUtilizationThreshold', 'scaleDownGpuUtilizationThreshold', 'scaleDownUnneededTime', 'scaleDownUnreadyTime'];
    const missing = all.filter((k) => !ao.present.includes(k as (typeof ao.present)[number]));
    // provider nodegroup/node_group.go:144-149 (omitempty fields), wrapper/wrapper.go:342-353 (copied as is)
    out.push({
      id: 'G4',
      kind: 'partial-options',
      group: g.id,
      message: `autoscalingOptions of "${g.id}" omits ${missing.join(', ')}: the provider sends 0 for ${missing.length === 1 ? 'it' : 'them'} instead of CA's flag value${missing.includes('scaleDownUtilizationThreshold') ? ' (threshold 0: no node of the group is ever below it, so none is unneeded by utilization)' : ''}${missing.some((k) => k.endsWith('Time')) ? ' (time 0: a node is removable the moment it is unneeded/unready)' : ''}`,
      values: { missing, present: ao.present },
      upstream: 'provider nodegroup/node_group.go:144-149, wrapper/wrapper.go:342-353',
    });
  }
  return out;
}

/** G3: declared allocatable / extended resources / unparsable capacity that never reach CA's template. */
export function ignoredTemplateResources(i: GrpcFindingsInput): GrpcFinding[] {
  const out: GrpcFinding[] = [];
  for (const g of i.groups) {
    if (g.implicit) continue;
    const built = buildProviderTemplateNode(g, i.now);
    const t = g.nodeTemplate;
    if (!built || !t) continue;
    const alloc = built.node.status?.allocatable ?? {};
    const allocDiffs = Object.entries(t.allocatable).filter(([k, v]) => alloc[k] !== v);
    const upstream = 'provider nodegroup/node_group.go:1056-1077 (BuildNodeFromTemplate)';
    if (allocDiffs.length) {
      out.push({
        id: 'G3',
        kind: 'allocatable-ignored',
        group: g.id,
        message: `"${g.id}" declares allocatable ${allocDiffs.map(([k, v]) => `${k}=${v}`).join(', ')} but CA's template has allocatable = capacity (${allocDiffs.map(([k]) => `${k}=${alloc[k] ?? 'absent'}`).join(', ')})`,
        values: Object.fromEntries(allocDiffs.map(([k, v]) => [`allocatable.${k}`, `${v} -> ${alloc[k] ?? 'absent'}`])),
        upstream,
      });
    }
    if (built.droppedCapacity.length) {
      out.push({
        id: 'G3',
        kind: 'capacity-dropped',
        group: g.id,
        message: `"${g.id}" declares ${built.droppedCapacity.map((k) => `${k}=${t.capacity[k]}`).join(', ')} in capacity; the provider reads only cpu, memory and ephemeral-storage (pods fixed at 110), so CA never sees ${built.droppedCapacity.join(', ')}`,
        values: { dropped: built.droppedCapacity },
        upstream,
      });
    }
    for (const d of built.defaulted) {
      out.push({
        id: 'G3',
        kind: 'capacity-defaulted',
        group: g.id,
        message: `"${g.id}" capacity.${d.resource} ${d.declared === undefined ? 'is missing' : `"${d.declared}" does not parse`}: the provider uses ${d.used}`,
        values: { resource: d.resource, declared: d.declared ?? '', used: d.used },
        upstream,
      });
    }
  }
  return out;
}

/** G6: the `default` group holding nodes, and groups CA may scale up that have no instanceParameter. */
export function defaultGroupExposure(i: GrpcFindingsInput): GrpcFinding[] {
  const out: GrpcFinding[] = [];
  const inDefault = i.nodes.filter((n) => nodeMembership(n, i.groups).groupId === DEFAULT_GROUP_ID);
  if (inDefault.length) {
    out.push({
      id: 'G6',
      kind: 'default-holds-nodes',
      group: DEFAULT_GROUP_ID,
      message: `${inDefault.length} node(s) match no configured group and sit in the provider's "default" group (min 0, max 1000): CA may scale them down`,
      values: { nodes: inDefault.map((n) => n.metadata.name ?? '') },
      upstream: 'provider nodegroup/node_group.go:561-564 (MatchNodeGroup), l.1404-1428 (default group), wrapper/wrapper.go:60-73',
    });
  }
  for (const g of i.groups) {
    if (g.instanceParameter !== '' || g.maxSize <= g.targetSize) continue;
    out.push({
      id: 'G6',
      kind: 'no-instance-parameter',
      group: g.id,
      message: `"${g.id}" has no instanceParameter but room to grow (target ${g.targetSize}, max ${g.maxSize}): a scale-up CA sends there creates records that fail with "nodegroup(${g.id}).InstanceParameter[] not exist"`,
      values: { targetSize: g.targetSize, maxSize: g.maxSize, implicit: !!g.implicit },
      upstream: 'provider nodegroup/node_group.go:1842-1849 (createInstance)',
    });
  }
  return out;
}

// Transient taints MatchNodeGroup does not ignore (only KUBE_RESERVED_TAINTS are): their arrival moves a node.
const TRANSIENT_TAINT_PREFIXES = [
  'node.cloudprovider.kubernetes.io/',
  'ignore-taint.cluster-autoscaler.kubernetes.io/',
  'startup-taint.cluster-autoscaler.kubernetes.io/',
  'status-taint.cluster-autoscaler.kubernetes.io/',
  'aws-node-termination-handler/',
  'karpenter.sh/',
];

/** G7: nodes whose group depends on labels/taints that change (record vs match differ, or a transient taint). */
export function membershipDrift(i: GrpcFindingsInput): GrpcFinding[] {
  const out: GrpcFinding[] = [];
  const startup = new Set(i.startupTaints ?? []);
  for (const node of i.nodes) {
    const m = nodeMembership(node, i.groups);
    const transient = (node.spec?.taints ?? [])
      .map((t) => t.key)
      .filter((k) => !KUBE_RESERVED_TAINTS.includes(k) && (startup.has(k) || TRANSIENT_TAINT_PREFIXES.some((p) => k.startsWith(p))));
    const upstream = 'provider nodegroup/node_group.go:529-559 (MatchNodeGroup), l.796-825 (UpdateNodeInNodeGroup)';
    if (m.movesTo !== undefined) {
      out.push({
        id: 'G7',
        kind: 'moves',
        node: node.metadata.name ?? '',
        group: m.groupId ?? '',
        message: `node ${node.metadata.name ?? ''} is recorded in "${m.groupId ?? ''}" but its labels/annotations/taints now match "${m.movesTo}": the provider moves it there at its next update`,
        values: { recorded: m.groupId ?? '', matches: m.movesTo, transientTaints: transient },
        upstream,
      });
    } else if (transient.length) {
      out.push({
        id: 'G7',
        kind: 'transient-taint',
        node: node.metadata.name ?? '',
        group: m.groupId ?? '',
        message: `node ${node.metadata.name ?? ''} carries ${transient.join(', ')}, which MatchNodeGroup does not ignore: its group (now "${m.match.groupId}") changes when the taint comes or goes`,
        values: { transientTaints: transient, matches: m.match.groupId },
        upstream,
      });
    }
  }
  return out;
}

/** G8: cloud credentials inside a ConfigMap (paths only). */
export function credentialsInConfigMap(i: GrpcFindingsInput): GrpcFinding[] {
  const bySource = new Map<string, string[]>();
  for (const c of i.config.credentialPaths) {
    if (!c.source.includes('ConfigMap ')) continue;
    bySource.set(c.source, [...(bySource.get(c.source) ?? []), c.path]);
  }
  return [...bySource].map(([source, paths]) => ({
    id: 'G8' as const,
    kind: 'credentials-in-configmap',
    source,
    message: `${source} holds cloud credentials at ${paths.join(', ')}: readable by anyone who may get ConfigMaps in that namespace`,
    values: { paths },
    upstream: 'provider nodegroup/node_group.go:1102-1124 (Yaml() writes CloudProviderOption), l.1181-1216',
  }));
}

/** G9: accounts at the README's place cloudProviderOption.<provider> instead of cloudProviderOption.accounts. */
export function accountsMisplaced(i: GrpcFindingsInput): GrpcFinding[] {
  const c = i.config;
  if (c.accountsLocation !== 'legacy' && c.accountsLocation !== 'both') return [];
  return [
    {
      id: 'G9',
      kind: 'accounts-legacy',
      ...(c.used ? { source: c.usedDescription } : {}),
      message: `cloud accounts sit under cloudProviderOption.${c.legacyAccountProviders.join(', cloudProviderOption.')} (the README's layout) but the provider reads cloudProviderOption.accounts: ${c.accountsLocation === 'legacy' ? 'every create fails with "missing cloudProviderOption config"' : 'those entries are ignored'}`,
      values: { legacyProviders: c.legacyAccountProviders, accounts: c.accounts },
      upstream: 'provider provider/provier.go:14-17 (yaml:"accounts"), l.54-59; README.md 配置文件准备',
    },
  ];
}

/** G10: the file differs from the ConfigMap the provider actually loads. */
export function fileIgnored(i: GrpcFindingsInput): GrpcFinding[] {
  const c = i.config;
  if (c.used?.kind !== 'configmap' || !c.fileDiffersFromConfigMap) return [];
  return [
    {
      id: 'G10',
      kind: 'file-ignored',
      source: c.usedDescription,
      message: `nodegroup-config.yaml differs from ${c.usedDescription} (${c.fileDifferences.join('; ')}); the provider loads the ConfigMap, so the file's edits have no effect until the ConfigMap is deleted or changed through the HTTP API`,
      values: { differences: c.fileDifferences, ...(c.lastUpdated ? { lastUpdated: c.lastUpdated } : {}) },
      upstream: 'provider nodegroup/node_group.go:1377-1400 (loadNodeGroups)',
    },
  ];
}

/** G11: CA >= 1.35 gets MaxNodeStartupTime 0 from any GetOptions answer (no proto field). */
export function startupTimeZero(i: GrpcFindingsInput): GrpcFinding[] {
  if (i.caMinor < PER_GROUP_STARTUP_TIME_MINOR || i.groups.length === 0) return [];
  return [
    {
      id: 'G11',
      kind: 'startup-time-zero',
      message: `CA 1.${i.caMinor} uses MaxNodeStartupTime = 0 for every externalgrpc group (flag --max-node-startup-time ${Math.round(i.caDefaults.maxNodeStartupTimeMs / 1000)}s is ignored): a registered node that is not Ready yet counts as Unready at once`,
      values: { caMinor: i.caMinor, flagMs: i.caDefaults.maxNodeStartupTimeMs },
      upstream: 'kubernetes/autoscaler 1.35.0 clusterstate/clusterstate.go:638-652, processors/nodegroupconfig/node_group_config_processor.go:114-124, externalgrpc_node_group.go:328-336',
    },
  ];
}

function ageMs(ins: GrpcInstance, now: Date): number | undefined {
  const t = ins.updateTime ? Date.parse(ins.updateTime) : Number.NaN;
  return Number.isNaN(t) ? undefined : now.getTime() - t;
}

/** G5: create records CA cannot see (no providerID) that still count in TargetSize. */
export function hiddenFailedCreates(i: GrpcFindingsInput): GrpcFinding[] {
  const out: GrpcFinding[] = [];
  for (const g of i.groups) {
    for (const ins of g.instances) {
      if (ins.providerID !== '' || !countedInTargetSize(ins) || ins.status !== 'Failed') continue;
      const age = ageMs(ins, i.now);
      out.push({
        id: 'G5',
        kind: 'failed-create-hidden',
        group: g.id,
        instance: ins.id,
        message: `instance record ${ins.id} of "${g.id}" failed in ${ins.stage} (${ins.error || 'no error text'}): it has no providerID, so CA never sees it or its error, yet it counts in TargetSize; CA waits --max-node-provision-time (${Math.round(i.caDefaults.maxNodeProvisionTimeMs / 60000)}m) before giving up, and the provider never retries it`,
        values: { stage: ins.stage, status: ins.status, error: ins.error, ...(age !== undefined ? { ageMs: age } : {}) },
        upstream: 'provider wrapper/wrapper.go:256-262 (NodeGroupNodes), nodegroup/node_group.go:734-749 (RefreshTargetSize), l.1642 (only Init/"" retried)',
      });
    }
  }
  return out;
}

/** STUCK: instances in Creating/Created/Joined past a bound, or failed there (hook failed: "节点创建后未加入集群"). */
export function stuckInstances(i: GrpcFindingsInput): GrpcFinding[] {
  const out: GrpcFinding[] = [];
  const bound = i.stageBoundMs ?? i.caDefaults.maxNodeProvisionTimeMs;
  for (const g of i.groups) {
    for (const ins of g.instances) {
      if (!['Creating', 'Created', 'Joined', 'PendingDeletion', 'Deleting'].includes(ins.stage)) continue;
      const age = ageMs(ins, i.now);
      const failed = ins.status === 'Failed';
      // waitJoined sets InProcess on "node not found" (l.2001-2006); handleRouteInstances retries only Init/"" (l.1642)
      const joinedNeverRetried = ins.stage === 'Joined' && ins.status === 'InProcess' && ins.error !== '';
      const late = age !== undefined && age > bound;
      if (!failed && !joinedNeverRetried && !late) continue;
      const why = failed
        ? `failed there (${ins.error || 'no error text'}); the provider does not retry a Failed record`
        : joinedNeverRetried
          ? `waiting for Node ${ins.name} (${ins.error}); the provider never looks again (status InProcess is not retried)`
          : `for ${Math.round((age ?? 0) / 60000)}m, longer than ${Math.round(bound / 60000)}m`;
      out.push({
        id: 'STUCK',
        kind: ins.stage === 'Created' ? 'created-never-joined' : `stuck-${ins.stage.toLowerCase()}`,
        group: g.id,
        instance: ins.id,
        message: `instance ${ins.id}${ins.name ? ` (${ins.name})` : ''} of "${g.id}" is stuck in ${ins.stage}: ${why}`,
        values: {
          stage: ins.stage,
          status: ins.status,
          error: ins.error,
          providerID: ins.providerID,
          ...(age !== undefined ? { ageMs: age } : {}),
          boundMs: bound,
        },
        upstream: 'provider nodegroup/node_group.go:1606-1653 (handleRouteInstances), l.1961-2028 (hook and join), README FAQ',
      });
    }
  }
  return out;
}

/** Every finding, in id order. */
export function externalGrpcFindings(i: GrpcFindingsInput): GrpcFinding[] {
  return [
    ...protoTemplateIncompatibility(i),
    ...optionsIncompatibility(i),
    ...ignoredTemplateResources(i),
    ...partialOptions(i),
    ...hiddenFailedCreates(i),
    ...defaultGroupExposure(i),
    ...membershipDrift(i),
    ...credentialsInConfigMap(i),
    ...accountsMisplaced(i),
    ...fileIgnored(i),
    ...startupTimeZero(i),
    ...stuckInstances(i),
  ];
}

/** The findings' input for a snapshot: the loaded config, its groups, CA's version and flags, the provider's era. */
export function externalGrpcFindingsInput(ctx: ProviderContext): GrpcFindingsInput {
  const st = externalGrpcState(ctx);
  const f = ctx.ca.flags;
  return {
    config: st.config,
    groups: st.config.nodeGroups,
    nodes: ctx.raw.nodes,
    caMinor: ctx.ca.version.minor,
    caDefaults: caDefaults(ctx.ca),
    era: st.era,
    ...(st.providerImage ? { providerImage: st.providerImage } : {}),
    now: ctx.now,
    startupTaints: [...f.startupTaint.value, ...f.ignoreTaint.value],
  };
}
