// CA's scratch template for an externalgrpc group: the provider's BuildNodeFromTemplate (node_group.go:1040-1100 @
// f792442), then CA's SanitizedTemplateNodeInfoFromNodeGroup (simulator/node_info_utils.go): no kube-proxy pod, no
// resource-tag merge, DaemonSet pods forced.
import type { GrpcNodeGroupSpec } from '../../model/externalgrpc.js';
import type { Node, NodeCondition, Pod } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import { isValidQuantity } from '../../model/quantity.js';
import type { ScratchTemplate, TemplateContext } from '../../simulate/node-group-provider.js';
import {
  daemonSetPodFor,
  daemonSetShouldRun,
  sanitizeTaints,
  TEMPLATE_NODE_LABEL,
  templateNodeName,
  templateSuffix,
} from '../../simulate/template-node.js';

/** node_group.go:1056-1071: what BuildNodeFromTemplate substitutes when a capacity value does not parse. */
export const GRPC_CAPACITY_DEFAULTS = {
  cpu: '8',
  // resource.NewQuantity(16*1024*1024*1024, DecimalSI)
  memory: '17179869184',
  // resource.NewQuantity(200*1024*1024*1024, DecimalSI)
  'ephemeral-storage': '214748364800',
} as const;
/** node_group.go:1073. */
export const GRPC_TEMPLATE_PODS = '110';
/** The only capacity keys BuildNodeFromTemplate reads. */
export const GRPC_CAPACITY_KEYS = ['cpu', 'memory', 'ephemeral-storage'] as const;

/** First CA minor whose client reads only nodeBytes (field 2): CA commits 2f35e9a417 + a627ed2d2d. */
export const NODE_BYTES_ONLY_MINOR = 35;

/** resource.ParseQuantity as Go runs it: no trimming, "" is an error. */
function goParsesQuantity(s: string | undefined): s is string {
  return s !== undefined && s !== '' && s === s.trim() && isValidQuantity(s);
}

export interface ProviderTemplateNode {
  node: Node;
  /** Capacity values the provider replaced with its defaults (it logs "parse nodegroup(%s) NodeTemplate.Capacity.%s(%s) failed"). */
  defaulted: Array<{ resource: string; declared: string | undefined; used: string }>;
  /** Capacity keys other than cpu/memory/ephemeral-storage: never reach CA. */
  droppedCapacity: string[];
}

/** cloudprovider.BuildReadyConditions as vendored by the provider. */
function readyConditions(now: Date): NodeCondition[] {
  const t = new Date(now.getTime() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return [
    { type: 'Ready', status: 'True', lastTransitionTime: t },
    { type: 'NetworkUnavailable', status: 'False', lastTransitionTime: t },
    { type: 'MemoryPressure', status: 'False', lastTransitionTime: t },
    { type: 'DiskPressure', status: 'False', lastTransitionTime: t },
  ];
}

/**
 * The v1.Node the provider answers NodeGroupTemplateNodeInfo with (BuildNodeFromTemplate). Name `<id>-<rand>` (a
 * stable stand-in for rand.Int63()), hostname label = that name, no UID, no zone/region labels.
 * Returns undefined when nodeTemplate is nil (the provider dereferences it and crashes).
 */
export function buildProviderTemplateNode(spec: GrpcNodeGroupSpec, now: Date): ProviderTemplateNode | undefined {
  const t = spec.nodeTemplate;
  if (!t) return undefined;
  const nodeName = `${spec.id}-${templateSuffix(spec.id)}`;
  const defaulted: ProviderTemplateNode['defaulted'] = [];
  const capacity: Record<string, string> = { pods: GRPC_TEMPLATE_PODS };
  for (const r of GRPC_CAPACITY_KEYS) {
    const declared = Object.hasOwn(t.capacity, r) ? t.capacity[r] : undefined;
    if (goParsesQuantity(declared)) capacity[r] = declared;
    else {
      capacity[r] = GRPC_CAPACITY_DEFAULTS[r];
      defaulted.push({ resource: r, declared, used: GRPC_CAPACITY_DEFAULTS[r] });
    }
  }
  const droppedCapacity = Object.keys(t.capacity).filter(
    (k) => !(GRPC_CAPACITY_KEYS as readonly string[]).includes(k) && k !== 'pods',
  );
  if (Object.hasOwn(t.capacity, 'pods')) droppedCapacity.push('pods');
  // buildGenericLabels l.1085-1100: only the beta arch label; template labels are applied last and may override these
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/hostname': nodeName,
  };
  for (const [k, v] of Object.entries(t.labels)) labels[k] = v;
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      labels,
      ...(Object.keys(t.annotations).length ? { annotations: { ...t.annotations } } : {}),
    },
    spec: t.taints.length ? { taints: t.taints.map((x) => ({ ...x })) } : {},
    // l.1077: Allocatable = Capacity; nodeTemplate.allocatable is never read
    status: { capacity: { ...capacity }, allocatable: { ...capacity }, conditions: readyConditions(now) },
  };
  return { node, defaulted, droppedCapacity };
}

function none(reason: string, notes: string[]): ScratchTemplate {
  return { source: 'none', pods: [], reason, notes };
}

/** CA's template for a group when no real node serves: TemplateNodeInfo() via gRPC, then sanitized. */
export function buildGrpcScratchTemplate(spec: GrpcNodeGroupSpec, ctx: TemplateContext): ScratchTemplate {
  const notes: string[] = [];
  const minor = ctx.config.version.minor;
  if (minor >= NODE_BYTES_ONLY_MINOR && spec.servedBy?.schemaEra === 'pre-1.35') {
    // externalgrpc_node_group.go (1.35) reads only nodeBytes; the old server fills nodeInfo (field 1) -> nil, nil cached
    return none(
      `CA 1.${minor} reads only nodeBytes from NodeGroupTemplateNodeInfo; this provider (pre-1.35 proto) fills only nodeInfo, so TemplateNodeInfo() returns nil and CA's sanitizer dereferences it`,
      notes,
    );
  }
  const built = buildProviderTemplateNode(spec, ctx.now);
  if (!built) {
    return none(
      `group "${spec.id}" has no nodeTemplate: the provider's BuildNodeFromTemplate dereferences nil and the call fails`,
      notes,
    );
  }
  const t = spec.nodeTemplate;
  for (const d of built.defaulted) {
    notes.push(
      `capacity.${d.resource} ${d.declared === undefined ? 'is missing' : `"${d.declared}" does not parse`}: the provider uses ${d.used}`,
    );
  }
  if (built.droppedCapacity.length) {
    notes.push(
      `capacity keys ${built.droppedCapacity.join(', ')} never reach CA: the provider reads only cpu, memory, ephemeral-storage (pods is fixed at 110)`,
    );
  }
  if (t && Object.keys(t.allocatable).length) {
    const differs = Object.entries(t.allocatable).some(([k, v]) => built.node.status?.allocatable?.[k] !== v);
    if (differs) notes.push('nodeTemplate.allocatable is ignored: CA sees allocatable = capacity');
  }
  const labels = built.node.metadata.labels ?? {};
  if (!Object.hasOwn(labels, 'kubernetes.io/arch')) {
    notes.push('no kubernetes.io/arch label (only beta.kubernetes.io/arch=amd64): pods selecting kubernetes.io/arch do not fit');
  }
  if (!Object.hasOwn(labels, 'topology.kubernetes.io/zone')) {
    notes.push('no zone or region labels: pods with zonal volumes or zone topology constraints cannot be placed on it');
  }
  notes.push('CA caches this template for the node group object\'s lifetime (until Refresh rebuilds the groups)');

  // createSanitizedNode: new name, hostname label, sanitized taints; UpdateDeprecatedLabels adds nothing here (no
  // instance-type/region/zone labels)
  const nodeName = templateNodeName(spec.id);
  const suffix = templateSuffix(spec.id);
  const sanitized: Node = structuredClone(built.node);
  sanitized.metadata.name = nodeName;
  sanitized.metadata.uid = `${nodeName}-uid`;
  const sLabels: Record<string, string> = { ...labels, 'kubernetes.io/hostname': nodeName };
  sanitized.metadata.labels = sLabels;
  const taints = sanitizeTaints(built.node.spec?.taints, ctx.config);
  sanitized.spec = taints.length ? { taints } : {};
  // podsExpectedOnFreshNode with forceDaemonSets=true and no example pods (framework.NewNodeInfo(node, nil))
  const pods: Pod[] = [];
  for (const ds of ctx.daemonSets) {
    if (ds.metadata.deletionTimestamp) continue;
    const pod = daemonSetPodFor(ds, nodeName, suffix);
    if (daemonSetShouldRun(ds, pod, sanitized)) pods.push(pod);
  }
  if (minor >= 36) sLabels[TEMPLATE_NODE_LABEL] = 'true';
  return { source: 'provider', node: sanitized, pods, notes };
}

/** NodeGroupProvider.scratchTemplate for externalgrpc. */
export function externalGrpcScratchTemplate(group: NodeGroup, tctx: TemplateContext): ScratchTemplate {
  if (group.provider !== 'externalgrpc') return none(`${group.name} is not an externalgrpc node group`, []);
  return buildGrpcScratchTemplate(group.grpc, tctx);
}
