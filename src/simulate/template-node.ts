import type { CaConfig } from '../model/ca-config.js';
import { type DaemonSet, type Node, type NodeCondition, type Pod, type ResourceMap, type Taint, taintKey, type Toleration } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import { controllerRef, isDaemonSetPod } from './drainability/pod-util.js';
import type { ScratchTemplate, TemplateContext, TemplateResult } from './node-group-provider.js';
import { podMatchesNodeSelectorAndAffinity } from './predicates/node-affinity.js';
import { findUntoleratedTaint } from './predicates/taint-toleration.js';

export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';
export const DELETION_CANDIDATE_TAINT = 'DeletionCandidateOfClusterAutoscaler';
export const TEMPLATE_NODE_LABEL = 'cluster-autoscaler.kubernetes.io/template-node';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

// CA: utils/taints/taints.go NodeConditionTaints.
export const NODE_CONDITION_TAINTS = new Set([
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/unschedulable',
  'node.kubernetes.io/memory-pressure',
  'node.kubernetes.io/disk-pressure',
  'node.kubernetes.io/network-unavailable',
  'node.kubernetes.io/pid-pressure',
  'node.cloudprovider.kubernetes.io/uninitialized',
  'node.cloudprovider.kubernetes.io/shutdown',
  'cloud.google.com/impending-node-termination',
  'NodeWithImpairedVolumes',
]);
const STARTUP_TAINT_PREFIXES = [
  'ignore-taint.cluster-autoscaler.kubernetes.io/',
  'startup-taint.cluster-autoscaler.kubernetes.io/',
];
const STATUS_TAINT_PREFIXES = ['status-taint.cluster-autoscaler.kubernetes.io/'];
/** CA: processors/nodeinfosprovider/mixed_nodeinfos_processor.go stabilizationDelay. */
const STABILIZATION_DELAY_MS = 60_000;

/** A stable stand-in for CA's rand.Int63() name suffix. */
export function templateSuffix(groupName: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < groupName.length; i++) {
    h ^= groupName.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return String(h);
}

export function templateNodeName(groupName: string): string {
  return `template-node-for-${groupName}-${templateSuffix(groupName)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Sanitisation (CA: simulator/node_info_utils.go, utils/taints/taints.go SanitizeTaints)

export function sanitizeTaints(taints: Taint[] | undefined, config: CaConfig): Taint[] {
  const f = config.flags;
  const startup = new Set([...f.ignoreTaint.value, ...f.startupTaint.value]);
  const status = new Set(f.statusTaint.value);
  const startupPrefixes = [...STARTUP_TAINT_PREFIXES, ...f.startupTaintPrefix.value];
  return (taints ?? []).filter((t) => {
    if (t.key === TO_BE_DELETED_TAINT || t.key === DELETION_CANDIDATE_TAINT) return false;
    if (NODE_CONDITION_TAINTS.has(t.key)) return false;
    if (startup.has(t.key) || startupPrefixes.some((p) => t.key.startsWith(p))) return false;
    if (status.has(t.key) || STATUS_TAINT_PREFIXES.some((p) => t.key.startsWith(p))) return false;
    return true;
  });
}

/** labels.UpdateDeprecatedLabels: beta labels mirrored from the stable ones (scratch templates only). */
export function addDeprecatedLabels(labels: Record<string, string>): void {
  const pairs: Array<[string, string]> = [
    ['kubernetes.io/arch', 'beta.kubernetes.io/arch'],
    ['kubernetes.io/os', 'beta.kubernetes.io/os'],
    ['node.kubernetes.io/instance-type', 'beta.kubernetes.io/instance-type'],
    ['topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'],
    ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'],
  ];
  for (const [stable, beta] of pairs) if (stable in labels) labels[beta] = labels[stable];
}

function isMirrorPod(pod: Pod): boolean {
  return !!pod.metadata.annotations?.[MIRROR_ANNOTATION];
}

function sanitizedPod(pod: Pod, nodeName: string, suffix: string): Pod {
  const copy = structuredClone(pod);
  copy.metadata.name = `${pod.metadata.name}-${suffix}`;
  copy.metadata.uid = `${pod.metadata.uid ?? pod.metadata.name}-${suffix}`;
  copy.spec.nodeName = nodeName;
  return copy;
}

// k8s pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations.
function daemonPodTolerations(spec: Pod['spec']): Toleration[] {
  const extra: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (spec.hostNetwork) {
    extra.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  }
  const existing = spec.tolerations ?? [];
  return [
    ...existing,
    ...extra.filter((e) => !existing.some((t) => t.key === e.key && t.effect === e.effect)),
  ];
}

/** A pod as the DaemonSet controller would create it for `node` (k8s daemon util NewPod), named as CA names it. */
export function daemonSetPodFor(ds: DaemonSet, nodeName: string, suffix: string): Pod {
  const template = ds.spec?.template ?? {};
  const spec = structuredClone(template.spec ?? { containers: [] });
  spec.nodeName = nodeName;
  spec.tolerations = daemonPodTolerations(spec);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...structuredClone(template.metadata ?? {}),
      name: `${ds.metadata.name}-pod-${suffix}`,
      namespace: ds.metadata.namespace,
      uid: `${ds.metadata.uid ?? ds.metadata.name}-pod-${suffix}`,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          name: ds.metadata.name ?? '',
          ...(ds.metadata.uid ? { uid: ds.metadata.uid } : {}),
          controller: true,
        },
      ],
    },
    spec,
  };
}

/** k8s pkg/controller/daemon NodeShouldRunDaemonPod, as CA's utils/daemonset GetDaemonSetPodsForNode uses it. */
export function daemonSetShouldRun(ds: DaemonSet, pod: Pod, node: Node): boolean {
  const wantedNode = ds.spec?.template?.spec?.nodeName;
  if (wantedNode && wantedNode !== node.metadata.name) return false;
  if (!podMatchesNodeSelectorAndAffinity(pod, node)) return false;
  return !findUntoleratedTaint(pod.spec.tolerations, node.spec?.taints, ['NoSchedule', 'NoExecute']);
}

/** CA: simulator/node_info_utils.go isPreemptingSystemNodeCritical. */
function isPreemptingSystemNodeCritical(pod: Pod): boolean {
  if (pod.spec.priorityClassName !== 'system-node-critical') return false;
  const policy = pod.spec.preemptionPolicy;
  return policy === undefined || policy === 'PreemptLowerPriority';
}

/** CA: simulator/node_info_utils.go podsExpectedOnFreshNode. */
export function podsExpectedOnFreshNode(
  sanitizedNode: Node,
  examplePods: Pod[],
  daemonSets: DaemonSet[],
  forceDaemonSets: boolean,
  suffix: string,
): { pods: Pod[]; addedDaemonSets: string[] } {
  const nodeName = sanitizedNode.metadata.name ?? '';
  const pods: Pod[] = [];
  const running = new Set<string>();
  for (const pod of examplePods) {
    if (pod.metadata.deletionTimestamp) continue;
    if (isMirrorPod(pod) || isDaemonSetPod(pod)) pods.push(sanitizedPod(pod, nodeName, suffix));
    const ctrl = controllerRef(pod);
    if (ctrl?.kind === 'DaemonSet') {
      running.add(ctrl.uid ? `uid:${ctrl.uid}` : `name:${pod.metadata.namespace}/${ctrl.name}`);
    }
  }
  const addedDaemonSets: string[] = [];
  for (const ds of daemonSets) {
    if (ds.metadata.deletionTimestamp) continue;
    const isRunning =
      (ds.metadata.uid && running.has(`uid:${ds.metadata.uid}`)) ||
      running.has(`name:${ds.metadata.namespace}/${ds.metadata.name}`);
    if (isRunning) continue;
    const pod = daemonSetPodFor(ds, nodeName, suffix);
    if (!daemonSetShouldRun(ds, pod, sanitizedNode)) continue;
    if (!forceDaemonSets && !isPreemptingSystemNodeCritical(pod)) continue;
    pods.push(pod);
    addedDaemonSets.push(`${ds.metadata.namespace}/${ds.metadata.name}`);
  }
  return { pods, addedDaemonSets };
}

/** cloudprovider.BuildKubeProxy: a static kube-proxy pod requesting 100m CPU on every scratch template. */
export function kubeProxyPod(asgName: string, nodeName: string): Pod {
  // Named kube-proxy-<asg>-<rand> upstream; sanitisation then appends the template suffix.
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `kube-proxy-${asgName}`,
      namespace: 'kube-system',
      uid: `kube-proxy-${asgName}`,
      labels: { component: 'kube-proxy', tier: 'node' },
      annotations: {
        'kubernetes.io/config.source': 'file',
        'scheduler.alpha.kubernetes.io/critical-pod': 'true',
        [MIRROR_ANNOTATION]: '1234567890abcdef',
      },
    },
    spec: {
      nodeName,
      containers: [{ name: 'kube-proxy', image: 'kubeproxy', resources: { requests: { cpu: '100m' } } }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** cloudprovider.BuildReadyConditions: Ready since a minute ago. */
export function readyConditions(now: Date): NodeCondition[] {
  const t = new Date(now.getTime() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return [
    { type: 'Ready', status: 'True', lastTransitionTime: t },
    { type: 'NetworkUnavailable', status: 'False', lastTransitionTime: t },
    { type: 'MemoryPressure', status: 'False', lastTransitionTime: t },
    { type: 'DiskPressure', status: 'False', lastTransitionTime: t },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Real-node templates (CA: processors/nodeinfosprovider/mixed_nodeinfos_processor.go)

/** CA: utils/kubernetes/ready.go GetReadinessState. */
function readinessOf(node: Node): { ready: boolean; lastTransition: number } {
  let ready = true;
  let readyFound = false;
  let last = Number.NEGATIVE_INFINITY;
  const bump = (t: string | undefined) => {
    const ms = t ? Date.parse(t) : Number.NaN;
    if (!Number.isNaN(ms) && ms > last) last = ms;
  };
  for (const c of node.status?.conditions ?? []) {
    if (c.type === 'Ready') {
      readyFound = true;
      if (c.status !== 'True') ready = false;
      bump(c.lastTransitionTime);
    } else if (c.type === 'NetworkUnavailable' && c.status === 'True') {
      ready = false;
      bump(c.lastTransitionTime);
    }
  }
  for (const t of node.spec?.taints ?? []) {
    if (t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable') {
      ready = false;
      bump(t.timeAdded);
    }
  }
  return { ready: ready && readyFound, lastTransition: last };
}

/** Ready, Ready for at least a minute, schedulable, not being deleted by CA (isNodeGoodTemplateCandidate). */
export function isGoodTemplateCandidate(node: Node, now: Date): boolean {
  const { ready, lastTransition } = readinessOf(node);
  const stable = lastTransition + STABILIZATION_DELAY_MS < now.getTime();
  const schedulable = !node.spec?.unschedulable;
  const toBeDeleted = (node.spec?.taints ?? []).some((t) => t.key === TO_BE_DELETED_TAINT);
  return ready && stable && schedulable && !toBeDeleted;
}

function templateFromRealNode(
  group: NodeGroup,
  example: Node,
  ctx: TemplateContext,
): { node: Node; pods: Pod[]; notes: string[] } {
  const notes: string[] = [];
  const suffix = templateSuffix(group.name);
  const nodeName = templateNodeName(group.name);
  const node = structuredClone(example);
  node.metadata.name = nodeName;
  node.metadata.uid = `${nodeName}-uid`;
  node.metadata.labels = { ...(node.metadata.labels ?? {}), 'kubernetes.io/hostname': nodeName };
  node.spec = { ...(node.spec ?? {}) };
  const f = ctx.config.flags;
  if (f.scaleFromUnschedulable.supported && f.scaleFromUnschedulable.value) node.spec.unschedulable = false;
  const before = node.spec.taints ?? [];
  const taints = sanitizeTaints(before, ctx.config);
  const removed = before.filter((t) => !taints.includes(t)).map((t) => t.key);
  if (removed.length) notes.push(`taints CA drops from the template: ${removed.join(', ')}`);
  if (taints.length) node.spec.taints = taints;
  else delete node.spec.taints;
  const examplePods = (ctx.podsByNode.get(example.metadata.name ?? '') ?? []).filter(
    (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
  );
  const expected = podsExpectedOnFreshNode(node, examplePods, ctx.daemonSets, f.forceDs.value, suffix);
  if (expected.addedDaemonSets.length) {
    notes.push(
      `DaemonSets not yet running on ${example.metadata.name} added: ${expected.addedDaemonSets.join(', ')}`,
    );
  }
  if (ctx.config.version.minor >= 36) node.metadata.labels[TEMPLATE_NODE_LABEL] = 'true';
  return { node, pods: expected.pods, notes };
}

/** AsgTagResourceNodeInfoProvider: resources of the ASG template that the real node lacks are added to it. */
function mergeMissingResources(node: Node, scratch: ScratchTemplate): string[] {
  const added: string[] = [];
  const sc = scratch.node?.status;
  if (!sc) return added;
  node.status = { ...(node.status ?? {}) };
  const cap: ResourceMap = { ...(node.status.capacity ?? {}) };
  const alloc: ResourceMap = { ...(node.status.allocatable ?? {}) };
  for (const [k, v] of Object.entries(sc.capacity ?? {})) {
    if (!(k in cap)) {
      cap[k] = v;
      added.push(`${k}=${v}`);
    }
  }
  for (const [k, v] of Object.entries(sc.allocatable ?? {})) if (!(k in alloc)) alloc[k] = v;
  node.status.capacity = cap;
  node.status.allocatable = alloc;
  return added;
}

/**
 * The template CA would use for a node group: a good real node, else (after CA's in-memory cache, which casdoctor cannot
 * see) the ASG scratch template, else an unready/unschedulable node. Also returns the scratch template for comparison.
 */
export function buildTemplateNode(group: NodeGroup, ctx: TemplateContext): TemplateResult {
  const provider = ctx.provider;
  const scratch = provider.scratchTemplate(group, ctx);
  const good = group.nodes.find((n) => isGoodTemplateCandidate(n, ctx.now));
  const fromNode = (example: Node, unready: boolean): TemplateResult =>
    templateFromExample(group, example, unready, scratch, ctx);
  if (good) return fromNode(good, false);
  if (scratch.source === 'asg' || scratch.source === 'provider') {
    const what = scratch.source === 'asg' ? 'ASG' : provider.groupNoun;
    const cacheNote =
      group.nodes.length > 0 || group.targetSize > 0
        ? `no Ready (for 1 min) schedulable node: CA uses a template cached from an earlier good node of this group if it saw one since it started (--node-info-cache-expire-time), otherwise this ${what} template`
        : `no node: CA uses a template cached from an earlier node of this group if it saw one since it started (--node-info-cache-expire-time), otherwise this ${what} template`;
    return { ...scratch, notes: [cacheNote, ...scratch.notes] };
  }
  const broken = group.nodes[0];
  if (broken) return fromNode(broken, true);
  return { ...scratch, notes: [...scratch.notes] };
}

// Labels that make two nodes of one group different templates for scheduling: zone/region (volume zones, topology
// spread), instance type (mixed-instances groups), arch/os and capacity type. Per-node labels (hostname, instance id,
// network-node-layer) are left out so a uniform group yields one shape.
const SHAPE_LABELS = [
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.ebs.csi.aws.com/zone',
  'topology.k8s.aws/zone-id',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'eks.amazonaws.com/capacityType',
  'karpenter.sh/capacity-type',
  'node.kubernetes.io/lifecycle',
];

/** What distinguishes a node as a template: the shape labels, its taints and its allocatable. */
export function templateShape(node: Node): string {
  const labels = node.metadata.labels ?? {};
  const parts = SHAPE_LABELS.filter((k) => Object.hasOwn(labels, k)).map((k) => `${k}=${labels[k]}`);
  const taints = (node.spec?.taints ?? []).map(taintKey).sort();
  const alloc = Object.entries(node.status?.allocatable ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  return JSON.stringify([parts, taints, alloc]);
}

/** Which parts of the template shape differ between two nodes: label keys, taints, allocatable. */
export function shapeDiffKeys(a: Node, b: Node): { labels: string[]; taints: boolean; allocatable: boolean } {
  const la = a.metadata.labels ?? {};
  const lb = b.metadata.labels ?? {};
  const taintsKey = (n: Node) =>
    (n.spec?.taints ?? [])
      .map(taintKey)
      .sort()
      .join(',');
  const allocKey = (n: Node) =>
    Object.entries(n.status?.allocatable ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join(',');
  return {
    labels: SHAPE_LABELS.filter((k) => la[k] !== lb[k]),
    taints: taintsKey(a) !== taintsKey(b),
    allocatable: allocKey(a) !== allocKey(b),
  };
}

/** The shape labels on which two nodes differ, as "zone us-east-1a vs us-east-1b" fragments. */
export function shapeDifference(a: Node, b: Node): string[] {
  const la = a.metadata.labels ?? {};
  const lb = b.metadata.labels ?? {};
  const out: string[] = [];
  for (const k of SHAPE_LABELS) if (la[k] !== lb[k]) out.push(`${k} ${la[k] ?? '(none)'} vs ${lb[k] ?? '(none)'}`);
  const ta = (a.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort().join(',');
  const tb = (b.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort().join(',');
  if (ta !== tb) out.push(`taints [${ta}] vs [${tb}]`);
  if (out.length === 0) out.push('allocatable');
  return out;
}

/**
 * The other templates CA could use for a group: CA takes the first good node in its node list, whose order follows the
 * informer's and varies between runs (processors/nodeinfosprovider/mixed_nodeinfos_processor.go), so every good node is a
 * possible template. One template per distinct shape other than the chosen one's, at most `limit`; empty when the group's
 * good nodes look alike (the common case) or the template is not a real node.
 */
export function alternativeTemplates(
  group: NodeGroup,
  chosen: TemplateResult,
  ctx: TemplateContext,
  limit = 4,
): TemplateResult[] {
  if (chosen.source !== 'node' || chosen.fromUnreadyNode || !chosen.scratch) return [];
  const first = group.nodes.find((n) => n.metadata.name === chosen.fromNode);
  if (!first) return [];
  const seen = new Set([templateShape(first)]);
  const out: TemplateResult[] = [];
  for (const n of group.nodes) {
    if (out.length >= limit) break;
    if (n === first || !isGoodTemplateCandidate(n, ctx.now)) continue;
    const shape = templateShape(n);
    if (seen.has(shape)) continue;
    seen.add(shape);
    out.push(templateFromExample(group, n, false, chosen.scratch, ctx));
  }
  return out;
}

function templateFromExample(
  group: NodeGroup,
  example: Node,
  unready: boolean,
  scratch: ScratchTemplate,
  ctx: TemplateContext,
): TemplateResult {
  const built = templateFromRealNode(group, example, ctx);
  const notes = [
    unready
      ? `Built template for ${group.name} based on unready/unschedulable node ${example.metadata.name}`
      : `real node ${example.metadata.name} is the template`,
    ...built.notes,
  ];
  // CA: AsgTagResourceNodeInfoProvider (AWS only) adds the scratch template's extra resources to a real node's template
  const merges = ctx.provider.mergesScratchResourcesIntoRealNodes;
  const added = merges ? mergeMissingResources(built.node, scratch) : [];
  if (added.length)
    notes.push(`resources from the ASG template added to the real-node template: ${added.join(', ')}`);
  const instanceType = example.metadata.labels?.['node.kubernetes.io/instance-type'];
  const info = instanceType ? ctx.instanceTypes.lookup(instanceType) : undefined;
  return {
    source: 'node',
    node: built.node,
    pods: built.pods,
    ...(instanceType ? { instanceType } : {}),
    ...(info ? { instanceTypeInfo: info } : {}),
    fromNode: example.metadata.name,
    ...(unready ? { fromUnreadyNode: true } : {}),
    notes,
    scratch,
  };
}
