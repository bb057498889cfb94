// The groups CA sees through the externalgrpc provider (wrapper/wrapper.go NodeGroups/NodeGroupNodes/TargetSize @
// f792442), the nodes mapped onto them, and what CA sees of each instance.
import type { CaConfig } from '../../model/ca-config.js';
import type { ExternalGrpcConfig, GrpcInstance, GrpcNodeGroupSpec, GrpcSchemaEra } from '../../model/externalgrpc.js';
import type { Node } from '../../model/k8s.js';
import type { ExternalGrpcNodeGroup, NodeGroup, NodeGroupsResult, NotAutoscaledNode } from '../../model/node-group.js';
import type { GroupScaleDownOptions } from '../../model/scale-down.js';
import type { ProviderContext } from '../types.js';
import { DEFAULT_GROUP_ID, parseExternalGrpcConfig } from './config.js';
import { externalGrpcConfigInputs, findProviderDeployment, providerSchemaEra } from './deployment.js';
import { nodeMembership } from './membership.js';
import { type CaDefaults, grpcOptionsAsCaSees } from './options.js';

/** How CA sees an instance record (stateMapping, wrapper.go:276-301), or 'hidden' when NodeGroupNodes skips it. */
export type CaInstanceView = 'creating' | 'running' | 'deleting' | 'unspecified' | 'hidden';

/** NodeGroupNodes (l.256-270): no providerID or Deleted -> not reported; unknown stage -> unspecified + ErrorInfo,
 * which CA drops (it reads ErrorInfo only for a specified state, externalgrpc_node_group.go:180-190). */
export function caInstanceView(i: GrpcInstance): CaInstanceView {
  if (i.providerID === '' || i.stage === 'Deleted') return 'hidden';
  switch (i.stage) {
    case 'Pending':
    case 'Creating':
    case 'Created':
    case 'Joined':
      return 'creating';
    case 'Running':
      return 'running';
    case 'PendingDeletion':
    case 'Deleting':
      return 'deleting';
    default:
      return 'unspecified';
  }
}

/** RefreshTargetSize (node_group.go:734-749): every instance not PendingDeletion/Deleting/Deleted. */
export function countedInTargetSize(i: GrpcInstance): boolean {
  return i.stage !== 'PendingDeletion' && i.stage !== 'Deleting' && i.stage !== 'Deleted';
}

export interface ExternalGrpcState {
  config: ExternalGrpcConfig;
  era: GrpcSchemaEra;
  providerImage?: string;
}

const stateCache = new WeakMap<object, ExternalGrpcState>();

/** The parsed provider config and proto era for a snapshot (cached per RawInputs object). */
export function externalGrpcState(ctx: Pick<ProviderContext, 'raw'>): ExternalGrpcState {
  const hit = stateCache.get(ctx.raw);
  if (hit) return hit;
  const dep = findProviderDeployment(ctx.raw.deployments);
  const state: ExternalGrpcState = {
    config: parseExternalGrpcConfig(externalGrpcConfigInputs(ctx.raw)),
    era: providerSchemaEra(dep?.image),
    ...(dep?.image ? { providerImage: dep.image } : {}),
  };
  stateCache.set(ctx.raw, state);
  return state;
}

function toGroup(spec: GrpcNodeGroupSpec, nodes: Node[], allNodes: Node[]): ExternalGrpcNodeGroup {
  const visible = spec.instances.filter((i) => caInstanceView(i) !== 'hidden');
  const nodeProviderIds = new Set(allNodes.map((n) => n.spec?.providerID).filter((p): p is string => !!p));
  // CA matches instances to nodes by providerID only; deleting ones are not expected to register
  // (clusterstate.go getNotRegisteredNodes/expectedToRegister; an unspecified state leaves Status nil)
  const unregistered = visible
    .filter((i) => caInstanceView(i) !== 'deleting')
    .filter((i) => !nodeProviderIds.has(i.providerID))
    .map((i) => ({ InstanceId: i.providerID, LifecycleState: i.stage }));
  // Pending records without providerID count in TargetSize but are never listed: CA's "upcoming" nodes with no instance
  const hidden = spec.instances.filter((i) => i.providerID === '' && countedInTargetSize(i)).length;
  return {
    provider: 'externalgrpc',
    name: spec.id,
    discovered: true,
    via: 'provider',
    minSize: spec.minSize,
    maxSize: spec.maxSize,
    targetSize: spec.targetSize,
    zones: [],
    instanceIds: visible.map((i) => i.providerID),
    nodes,
    unregisteredInstances: unregistered,
    placeholderCount: hidden,
    grpc: spec,
  };
}

/** NodeGroupProvider.buildNodeGroups: every group of the loaded config (NodeGroups returns all, wrapper.go:60-73). */
export function buildExternalGrpcNodeGroups(ctx: ProviderContext): NodeGroupsResult {
  const st = externalGrpcState(ctx);
  const cfg = st.config;
  const errors: string[] = cfg.problems
    .filter((p) => p.fatal)
    .map((p) => `${p.source}${p.path ? ` ${p.path}` : ''}: ${p.message}`);
  const notAutoscaled: NotAutoscaledNode[] = [];
  const specs = cfg.nodeGroups.map((g) => ({ ...g, servedBy: { schemaEra: st.era, ...(st.providerImage ? { image: st.providerImage } : {}) } }));
  if (specs.length === 0) {
    for (const node of ctx.raw.nodes) {
      notAutoscaled.push({ node, reason: `the externalgrpc provider has no node groups (${cfg.usedReason})` });
    }
    return { nodeGroups: [], notAutoscaled, missingExplicitGroups: [], errors };
  }
  const byGroup = new Map<string, Node[]>(specs.map((g) => [g.id, []]));
  for (const node of ctx.raw.nodes) {
    const m = nodeMembership(node, specs);
    if (m.error) errors.push(m.error);
    if (m.match.error && m.via === 'match') errors.push(m.match.error);
    const list = m.groupId !== undefined ? byGroup.get(m.groupId) : undefined;
    if (list) list.push(node);
    else notAutoscaled.push({ node, reason: `the provider answers NodeGroupForNode with NotFound for ${node.metadata.name ?? ''}` });
  }
  const nodeGroups: NodeGroup[] = specs.map((g) => toGroup(g, byGroup.get(g.id) ?? [], ctx.raw.nodes));
  return { nodeGroups, notAutoscaled, missingExplicitGroups: [], errors };
}

/** The implicit `default` group matters only once it holds nodes or instances. */
export function isExternalGrpcGroupRelevant(group: NodeGroup): boolean {
  if (group.provider !== 'externalgrpc') return false;
  if (group.grpc.id !== DEFAULT_GROUP_ID) return true;
  return group.nodes.length > 0 || group.targetSize > 0 || group.grpc.instances.length > 0;
}

export function caDefaults(ca: CaConfig): CaDefaults {
  const f = ca.flags;
  return {
    scaleDownUtilizationThreshold: f.scaleDownUtilizationThreshold.value,
    scaleDownGpuUtilizationThreshold: f.scaleDownGpuUtilizationThreshold.value,
    scaleDownUnneededTimeMs: f.scaleDownUnneededTime.value,
    scaleDownUnreadyTimeMs: f.scaleDownUnreadyTime.value,
    maxNodeProvisionTimeMs: f.maxNodeProvisionTime.value,
    maxNodeStartupTimeMs: f.maxNodeStartupTime.value,
    ignoreDaemonSetsUtilization: f.ignoreDaemonsetsUtilization.value,
    zeroOrMaxNodeScaling: false,
  };
}

/** NodeGroupProvider.scaleDownOptions: GetOptions as CA of the configured version receives it. */
export function externalGrpcScaleDownOptions(group: NodeGroup | undefined, ca: CaConfig): GroupScaleDownOptions {
  const spec = group?.provider === 'externalgrpc' ? group.grpc : undefined;
  const era = spec?.servedBy?.schemaEra ?? 'pre-1.35';
  const seen = grpcOptionsAsCaSees(spec, ca.version.minor, caDefaults(ca), era);
  const fromProvider = seen.source === 'provider';
  // only what scale-down reads, by CA's flag name (provision/startup time and zero-or-max are about scale-up and health)
  const flagOf: Partial<Record<keyof CaDefaults, string>> = {
    scaleDownUtilizationThreshold: 'scale-down-utilization-threshold',
    scaleDownGpuUtilizationThreshold: 'scale-down-gpu-utilization-threshold',
    scaleDownUnneededTimeMs: 'scale-down-unneeded-time',
    scaleDownUnreadyTimeMs: 'scale-down-unready-time',
    ignoreDaemonSetsUtilization: 'ignore-daemonsets-utilization',
  };
  const zeroed = seen.zeroed.filter((z) => flagOf[z.option] !== undefined);
  const problems = [
    ...seen.facts.filter(() => seen.panics),
    ...zeroed.map((z) => `${flagOf[z.option]} is ${z.option === 'ignoreDaemonSetsUtilization' ? 'false' : '0'} for this group: ${z.why}`),
  ];
  return {
    threshold: seen.values.scaleDownUtilizationThreshold,
    gpuThreshold: seen.values.scaleDownGpuUtilizationThreshold,
    thresholdSource: fromProvider ? 'provider' : 'flag',
    gpuThresholdSource: fromProvider ? 'provider' : 'flag',
    unneededTimeMs: seen.values.scaleDownUnneededTimeMs,
    unreadyTimeMs: seen.values.scaleDownUnreadyTimeMs,
    ignoreDaemonSetsUtilization: seen.values.ignoreDaemonSetsUtilization,
    problems,
  };
}
