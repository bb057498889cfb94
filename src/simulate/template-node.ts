import type {
  AsgTag,
  AutoScalingGroup,
  Ec2Image,
  EksNodegroup,
  InstanceRequirements,
  LaunchConfiguration,
  LaunchTemplateSpecification,
  LaunchTemplateVersion,
} from '../model/aws.js';
import type { CaConfig } from '../model/ca-config.js';
import type { DaemonSet, Node, NodeCondition, Pod, ResourceMap, Taint, Toleration } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import { formatBytes, isValidQuantity } from '../model/quantity.js';
import { controllerRef, isDaemonSetPod } from './drainability/pod-util.js';
import type { InstanceTypeInfo, InstanceTypeTable } from './instance-types.js';
import { podMatchesNodeSelectorAndAffinity } from './predicates/node-affinity.js';
import { findUntoleratedTaint } from './predicates/taint-toleration.js';

export const LABEL_PREFIX = 'k8s.io/cluster-autoscaler/node-template/label/';
export const TAINT_PREFIX = 'k8s.io/cluster-autoscaler/node-template/taint/';
export const RESOURCES_PREFIX = 'k8s.io/cluster-autoscaler/node-template/resources/';
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

export type RequirementsTypes = Array<{ InstanceType: string }>;

export interface TemplateContext {
  now: Date;
  config: CaConfig;
  instanceTypes: InstanceTypeTable;
  launchTemplateVersions: LaunchTemplateVersion[];
  launchConfigurations: LaunchConfiguration[];
  images: Ec2Image[];
  /** GetInstanceTypesFromInstanceRequirements output in API order: one list, or one list per ASG name. */
  instanceTypesFromRequirements: RequirementsTypes | Record<string, RequirementsTypes>;
  eksNodegroups: EksNodegroup[];
  daemonSets: DaemonSet[];
  /** Scheduled pods by node name. */
  podsByNode: Map<string, Pod[]>;
}

export interface TemplateResult {
  /** 'node' = a real node of the group, 'asg' = CA's scratch template from the ASG, 'none' = CA has no template. */
  source: 'node' | 'asg' | 'none';
  node?: Node;
  /** Pods CA puts on the template: mirror and DaemonSet pods (plus the fake kube-proxy pod on scratch templates). */
  pods: Pod[];
  instanceType?: string;
  instanceTypeInfo?: InstanceTypeInfo;
  /** The real node the template was copied from. */
  fromNode?: string;
  /** The real node was unready/unschedulable: CA's last resort. */
  fromUnreadyNode?: boolean;
  /** Why there is no template, in CA's words where CA has some. */
  reason?: string;
  /** The skip reason CA reports for the group in NotTriggerScaleUp when there is no template. */
  caReason?: 'not ready for scale-up';
  /** Data / permissions whose absence prevented or weakened the template, e.g. "ec2:DescribeLaunchTemplateVersions". */
  missing?: string[];
  notes: string[];
  /** The ASG scratch template (also when a real node is used, for comparison); absent when the result is the scratch. */
  scratch?: ScratchTemplate;
}

export type ScratchTemplate = Omit<TemplateResult, 'scratch'>;

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
// Tag extraction (CA: cloudprovider/aws/aws_manager.go)

/** extractLabelsFromAsg: keys containing the label prefix, else keys containing "eks:" (text after it). Later tags win. */
export function labelsFromAsgTags(tags: AsgTag[] | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const tag of tags ?? []) {
    let splits = tag.Key.split(LABEL_PREFIX);
    if (splits.length <= 1) splits = tag.Key.split('eks:');
    if (splits.length > 1 && splits[1] !== '') result[splits[1]] = tag.Value ?? '';
  }
  return result;
}

/** extractTaintsFromAsg: value must match `(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)` (unanchored), split at the first ':'. */
export function taintsFromAsgTags(tags: AsgTag[] | undefined): { taints: Taint[]; ignored: string[] } {
  const taints: Taint[] = [];
  const ignored: string[] = [];
  for (const tag of tags ?? []) {
    const splits = tag.Key.split(TAINT_PREFIX);
    if (splits.length <= 1) continue;
    const v = tag.Value ?? '';
    if (!/(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)/.test(v)) {
      ignored.push(`${tag.Key}=${v}`);
      continue;
    }
    const colon = v.indexOf(':');
    taints.push({ key: splits[1], value: v.slice(0, colon), effect: v.slice(colon + 1) });
  }
  return { taints, ignored };
}

/** extractAllocatableResourcesFromAsg: any resource name; unparsable quantities are silently skipped by CA. */
export function resourcesFromTags(entries: Array<[string, string | undefined]>): {
  resources: Record<string, string>;
  ignored: string[];
} {
  const resources: Record<string, string> = {};
  const ignored: string[] = [];
  for (const [key, value] of entries) {
    const splits = key.split(RESOURCES_PREFIX);
    if (splits.length <= 1 || splits[1] === '') continue;
    const v = value ?? '';
    if (v.trim() !== v || !isValidQuantity(v)) {
      ignored.push(`${key}=${v}`);
      continue;
    }
    resources[splits[1]] = v;
  }
  return { resources, ignored };
}

// ---------------------------------------------------------------------------------------------------------------
// Instance type resolution (CA: aws_wrapper.go getInstanceTypesForAsgs, getInstanceTypeByLaunchTemplate)

function ltLabel(spec: LaunchTemplateSpecification): string {
  return spec.LaunchTemplateId ?? spec.LaunchTemplateName ?? '(unnamed)';
}

/** `$Latest` = highest VersionNumber, `$Default` = DefaultVersion, else the number; Version unset means `$Default`. */
export function resolveLaunchTemplateVersion(
  spec: LaunchTemplateSpecification,
  versions: LaunchTemplateVersion[],
): LaunchTemplateVersion | undefined {
  const wanted = spec.Version ?? '$Default'; // CA: auto_scaling_groups.go buildLaunchTemplateFromSpec (kubernetes/autoscaler#1728)
  const same = versions.filter(
    (v) =>
      (spec.LaunchTemplateId !== undefined && v.LaunchTemplateId === spec.LaunchTemplateId) ||
      (spec.LaunchTemplateName !== undefined && v.LaunchTemplateName === spec.LaunchTemplateName),
  );
  if (wanted === '$Latest') {
    return same.reduce<LaunchTemplateVersion | undefined>(
      (best, v) => (best === undefined || (v.VersionNumber ?? -1) > (best.VersionNumber ?? -1) ? v : best),
      undefined,
    );
  }
  if (wanted === '$Default') return same.find((v) => v.DefaultVersion === true);
  return same.find((v) => String(v.VersionNumber) === wanted);
}

export interface InstanceTypeResolution {
  instanceType?: string;
  error?: string;
  missing?: string[];
  notes: string[];
  /** MixedInstancesPolicy requirements override: CPU/memory/GPU replaced by their minimums. */
  requirementsOverride?: InstanceRequirements;
}

function requirementsTypesFor(ctx: TemplateContext, asgName: string): RequirementsTypes {
  const r = ctx.instanceTypesFromRequirements;
  return Array.isArray(r) ? r : (r?.[asgName] ?? []);
}

function resolveViaLaunchTemplate(
  asg: AutoScalingGroup,
  spec: LaunchTemplateSpecification,
  ctx: TemplateContext,
  notes: string[],
): InstanceTypeResolution {
  const version = resolveLaunchTemplateVersion(spec, ctx.launchTemplateVersions);
  const v = spec.Version ?? '$Default';
  if (!version) {
    return {
      error: `launch template ${ltLabel(spec)} version ${v} not in the snapshot (needs ec2:DescribeLaunchTemplateVersions)`,
      missing: ['ec2:DescribeLaunchTemplateVersions'],
      notes,
    };
  }
  const data = version.LaunchTemplateData;
  if (!data) return { error: `no data found for launch template ${ltLabel(spec)}, version ${v}`, notes };
  if (data.InstanceType) {
    notes.push(
      `instance type ${data.InstanceType} from launch template ${ltLabel(spec)} version ${v} (${version.VersionNumber})`,
    );
    return { instanceType: data.InstanceType, notes };
  }
  if (data.InstanceRequirements && data.ImageId) {
    return resolveRequirements(
      asg,
      data.ImageId,
      ctx,
      notes,
      `launch template ${ltLabel(spec)} version ${v}`,
    );
  }
  return { error: 'unable to find instance type using launch template', notes };
}

function resolveRequirements(
  asg: AutoScalingGroup,
  imageId: string | undefined,
  ctx: TemplateContext,
  notes: string[],
  from: string,
  requirementsOverride?: InstanceRequirements,
): InstanceTypeResolution {
  const types = requirementsTypesFor(ctx, asg.AutoScalingGroupName);
  if (imageId && !ctx.images.some((i) => i.ImageId === imageId)) {
    notes.push(`image ${imageId} not in the snapshot (CA reads its architecture with ec2:DescribeImages)`);
  }
  if (types.length === 0) {
    return {
      error: `no instance types for the instance requirements of ${from} in the snapshot (needs ec2:GetInstanceTypesFromInstanceRequirements)`,
      missing: ['ec2:GetInstanceTypesFromInstanceRequirements', 'ec2:DescribeImages'],
      notes,
    };
  }
  notes.push(
    `attribute-based instance selection: CA simulates the first type returned, ${types[0].InstanceType} of ${types.length}`,
  );
  return {
    instanceType: types[0].InstanceType,
    notes,
    ...(requirementsOverride ? { requirementsOverride } : {}),
  };
}

export function resolveInstanceType(asg: AutoScalingGroup, ctx: TemplateContext): InstanceTypeResolution {
  const notes: string[] = [];
  if (asg.LaunchConfigurationName) {
    const lc = ctx.launchConfigurations.find(
      (l) => l.LaunchConfigurationName === asg.LaunchConfigurationName,
    );
    if (!lc) {
      return {
        error: `launch configuration ${asg.LaunchConfigurationName} not in the snapshot (needs autoscaling:DescribeLaunchConfigurations)`,
        missing: ['autoscaling:DescribeLaunchConfigurations'],
        notes,
      };
    }
    if (!lc.InstanceType)
      return { error: `could not find instance type for ${asg.AutoScalingGroupName}`, notes };
    notes.push(`instance type ${lc.InstanceType} from launch configuration ${lc.LaunchConfigurationName}`);
    return { instanceType: lc.InstanceType, notes };
  }
  if (asg.LaunchTemplate) return resolveViaLaunchTemplate(asg, asg.LaunchTemplate, ctx, notes);
  const mip = asg.MixedInstancesPolicy?.LaunchTemplate;
  if (asg.MixedInstancesPolicy) {
    const overrides = mip?.Overrides ?? [];
    const typeOverrides = overrides.filter((o) => o.InstanceType).map((o) => o.InstanceType as string);
    const reqOverrides = overrides.filter((o) => o.InstanceRequirements);
    if (typeOverrides.length > 0 && reqOverrides.length > 0) {
      return {
        error: 'invalid setup of both instance type and instance requirements overrides configured',
        notes,
      };
    }
    if (typeOverrides.length > 0) {
      // CA: aws_wrapper.go getInstanceTypesForAsgs uses instanceTypesOverrides[0]; weights and the other types are ignored.
      notes.push(
        `MixedInstancesPolicy: CA simulates the first override ${typeOverrides[0]} of ${typeOverrides.length}` +
          (typeOverrides.length > 1 ? ` (${typeOverrides.join(', ')})` : ''),
      );
      return { instanceType: typeOverrides[0], notes };
    }
    const spec = mip?.LaunchTemplateSpecification;
    if (!spec) return { error: 'no launch template found for mixed instances policy', notes };
    if (reqOverrides.length === 1) {
      const version = resolveLaunchTemplateVersion(spec, ctx.launchTemplateVersions);
      if (!version) {
        return {
          error: `launch template ${ltLabel(spec)} version ${spec.Version ?? '$Default'} not in the snapshot (needs ec2:DescribeLaunchTemplateVersions)`,
          missing: ['ec2:DescribeLaunchTemplateVersions'],
          notes,
        };
      }
      return resolveRequirements(
        asg,
        version.LaunchTemplateData?.ImageId,
        ctx,
        notes,
        `the MixedInstancesPolicy of ${asg.AutoScalingGroupName}`,
        reqOverrides[0].InstanceRequirements,
      );
    }
    return resolveViaLaunchTemplate(asg, spec, ctx, notes);
  }
  return {
    error: `ASG ${asg.AutoScalingGroupName} has neither a launch configuration nor a launch template`,
    notes,
  };
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
function addDeprecatedLabels(labels: Record<string, string>): void {
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
function podsExpectedOnFreshNode(
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
function kubeProxyPod(asgName: string, nodeName: string): Pod {
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
function readyConditions(now: Date): NodeCondition[] {
  const t = new Date(now.getTime() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return [
    { type: 'Ready', status: 'True', lastTransitionTime: t },
    { type: 'NetworkUnavailable', status: 'False', lastTransitionTime: t },
    { type: 'MemoryPressure', status: 'False', lastTransitionTime: t },
    { type: 'DiskPressure', status: 'False', lastTransitionTime: t },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// EKS managed node groups (CA: aws_wrapper.go getManagedNodegroupInfo)

const EKS_EFFECTS: Record<string, string> = {
  NO_SCHEDULE: 'NoSchedule',
  NO_EXECUTE: 'NoExecute',
  PREFER_NO_SCHEDULE: 'PreferNoSchedule',
};

/** First CA minor that translates EKS taint effects (NO_SCHEDULE -> NoSchedule); commit 74a5500ab0, kubernetes/autoscaler#6481. */
export const EKS_TAINT_TRANSLATION_MINOR = 31;

function managedNodegroupData(
  ng: EksNodegroup,
  minor: number,
): { labels: Record<string, string>; taints: Taint[]; tags: Record<string, string> } | { error: string } {
  const taints: Taint[] = [];
  for (const t of ng.taints ?? []) {
    // Only taints with both key and value reach the template; an unknown effect fails the whole lookup.
    if (t.key === undefined || t.value === undefined) continue;
    if (minor < EKS_TAINT_TRANSLATION_MINOR) {
      // CA <= 1.30: cloudprovider/aws/aws_wrapper.go getManagedNodegroupInfo copies EKS's "NO_SCHEDULE" verbatim; the
      // scheduler only honours NoSchedule/NoExecute, so the template's taint repels nothing.
      if (t.effect !== undefined) taints.push({ key: t.key, value: t.value, effect: t.effect });
      continue;
    }
    const effect = EKS_EFFECTS[t.effect ?? ''];
    if (!effect) return { error: `couldn't find matching taint effect for ${t.effect ?? '(none)'}` };
    taints.push({ key: t.key, value: t.value, effect });
  }
  const labels: Record<string, string> = {};
  if (typeof ng.diskSize === 'number') labels.diskSize = String(ng.diskSize);
  if (ng.amiType) labels.amiType = ng.amiType;
  if (ng.capacityType) labels['eks.amazonaws.com/capacityType'] = ng.capacityType;
  if (ng.version) labels.k8sVersion = ng.version;
  if (ng.nodegroupName) labels['eks.amazonaws.com/nodegroup'] = ng.nodegroupName;
  Object.assign(labels, ng.labels ?? {});
  return { labels, taints, tags: { ...(ng.tags ?? {}) } };
}

// ---------------------------------------------------------------------------------------------------------------
// The scratch template (CA: AwsNodeGroup.TemplateNodeInfo -> getAsgTemplate + buildNodeFromTemplate)

export function buildScratchTemplate(group: NodeGroup, ctx: TemplateContext): ScratchTemplate {
  const asg = group.asg;
  const name = asg.AutoScalingGroupName;
  const notes: string[] = [];
  const none = (reason: string, extra: Partial<ScratchTemplate> = {}): ScratchTemplate => ({
    source: 'none',
    pods: [],
    reason,
    caReason: 'not ready for scale-up',
    notes,
    ...extra,
  });
  const zones = asg.AvailabilityZones ?? [];
  if (zones.length === 0) return none(`unable to get first AvailabilityZone for ASG "${name}"`);
  const zone = zones[0];
  const region = zone.slice(0, -1);
  if (zones.length > 1) notes.push(`ASG spans ${zones.length} zones; CA's template uses the first, ${zone}`);

  const res = resolveInstanceType(asg, ctx);
  notes.push(...res.notes);
  if (!res.instanceType) {
    return none(
      res.error ?? `could not find instance type for ${name}`,
      res.missing ? { missing: res.missing } : {},
    );
  }
  const info = ctx.instanceTypes.lookup(res.instanceType);
  if (!info) {
    return none(`ASG "${name}" uses the unknown EC2 instance type "${res.instanceType}"`, {
      instanceType: res.instanceType,
    });
  }
  const missing: string[] = [];
  const suffix = templateSuffix(name);
  const nodeName = templateNodeName(name);
  const minor = ctx.config.version.minor;

  // Capacity: pods fixed at 110, GPUs always as nvidia.com/gpu, memory in bytes; allocatable == capacity.
  const capacity: Record<string, string> = {
    pods: '110',
    cpu: String(info.vcpu),
    'nvidia.com/gpu': String(info.gpu),
    memory: formatBytes(info.memoryMiB * 1024 * 1024),
  };
  const req = res.requirementsOverride;
  if (req) {
    // updateCapacityWithRequirementsOverrides: only for a MixedInstancesPolicy without instance-type overrides.
    if (req.VCpuCount?.Min !== undefined) capacity.cpu = String(req.VCpuCount.Min);
    if (req.MemoryMiB?.Min !== undefined) capacity.memory = formatBytes(req.MemoryMiB.Min * 1024 * 1024);
    const nvidia = (req.AcceleratorManufacturers ?? []).includes('nvidia');
    const gpuType = (req.AcceleratorTypes ?? []).includes('gpu');
    if (nvidia && gpuType && req.AcceleratorCount?.Min !== undefined) {
      capacity['nvidia.com/gpu'] = String(req.AcceleratorCount.Min);
    }
    notes.push('CPU and memory come from the instance requirements minimums, not from the instance type');
  }
  const tagResources = resourcesFromTags((asg.Tags ?? []).map((t) => [t.Key, t.Value]));
  Object.assign(capacity, tagResources.resources);
  for (const ig of tagResources.ignored) notes.push(`resource tag ignored by CA (not a quantity): ${ig}`);

  const labels: Record<string, string> = {
    'kubernetes.io/arch': info.architecture,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': info.name,
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    ...(minor >= 29 ? { 'topology.ebs.csi.aws.com/zone': zone } : {}),
    'kubernetes.io/hostname': nodeName,
  };
  Object.assign(labels, labelsFromAsgTags(asg.Tags));
  const tagTaints = taintsFromAsgTags(asg.Tags);
  for (const ig of tagTaints.ignored)
    notes.push(`taint tag ignored by CA (value is not <value>:<effect>): ${ig}`);
  let taints = tagTaints.taints;

  const ngName = labels['nodegroup-name'];
  const clusterName = labels['cluster-name'];
  if (ngName && clusterName) {
    const ng = ctx.eksNodegroups.find((n) => n.nodegroupName === ngName && n.clusterName === clusterName);
    if (!ng) {
      missing.push('eks:DescribeNodegroup');
      notes.push(
        `EKS nodegroup ${ngName} in cluster ${clusterName} not in the snapshot (needs eks:DescribeNodegroup): the template lacks its labels, taints and resource tags`,
      );
    } else {
      const data = managedNodegroupData(ng, minor);
      if ('error' in data) {
        notes.push(
          `CA fails the DescribeNodegroup lookup for ${ngName} (${data.error}): no EKS labels or taints`,
        );
      } else {
        // joinNodeLabelsChoosingUserValuesOverAPIValues: the EKS API's labels overwrite ASG-tag labels.
        Object.assign(labels, data.labels);
        taints = [...taints, ...data.taints];
        const untranslated = data.taints.filter((t) => !['NoSchedule', 'NoExecute', 'PreferNoSchedule'].includes(t.effect));
        if (untranslated.length) {
          notes.push(
            `CA 1.${minor} copies EKS taint effects untranslated (fixed in 1.31): ${untranslated.map((t) => `${t.key}=${t.value}:${t.effect}`).join(', ')} repels no pod on the template, while real nodes get the taint`,
          );
        }
        const mngResources = resourcesFromTags(Object.entries(data.tags));
        Object.assign(capacity, mngResources.resources);
        for (const ig of mngResources.ignored)
          notes.push(`EKS nodegroup resource tag ignored (not a quantity): ${ig}`);
      }
    }
  }

  const sanitizedTaints = sanitizeTaints(taints, ctx.config);
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: nodeName, uid: `${nodeName}-uid`, labels },
    spec: sanitizedTaints.length ? { taints: sanitizedTaints } : {},
    status: { capacity: { ...capacity }, allocatable: { ...capacity }, conditions: readyConditions(ctx.now) },
  };
  // DaemonSet pods are matched before the template-node and deprecated labels are added (node_info_utils.go).
  const expected = podsExpectedOnFreshNode(
    node,
    [kubeProxyPod(name, nodeName)],
    ctx.daemonSets,
    true,
    suffix,
  );
  if (minor >= 36) labels[TEMPLATE_NODE_LABEL] = 'true';
  addDeprecatedLabels(labels);
  return {
    source: 'asg',
    node,
    pods: expected.pods,
    instanceType: info.name,
    instanceTypeInfo: info,
    ...(missing.length ? { missing } : {}),
    notes,
  };
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
  const scratch = buildScratchTemplate(group, ctx);
  const good = group.nodes.find((n) => isGoodTemplateCandidate(n, ctx.now));
  const fromNode = (example: Node, unready: boolean): TemplateResult =>
    templateFromExample(group, example, unready, scratch, ctx);
  if (good) return fromNode(good, false);
  if (scratch.source === 'asg') {
    const cacheNote =
      group.nodes.length > 0 || group.targetSize > 0
        ? 'no Ready (for 1 min) schedulable node: CA uses a template cached from an earlier good node of this group if it saw one since it started (--node-info-cache-expire-time), otherwise this ASG template'
        : 'no node: CA uses a template cached from an earlier node of this group if it saw one since it started (--node-info-cache-expire-time), otherwise this ASG template';
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
  const taints = (node.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort();
  const alloc = Object.entries(node.status?.allocatable ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  return JSON.stringify([parts, taints, alloc]);
}

/** Which parts of the template shape differ between two nodes: label keys, taints, allocatable. */
export function shapeDiffKeys(a: Node, b: Node): { labels: string[]; taints: boolean; allocatable: boolean } {
  const la = a.metadata.labels ?? {};
  const lb = b.metadata.labels ?? {};
  const taintKey = (n: Node) =>
    (n.spec?.taints ?? [])
      .map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`)
      .sort()
      .join(',');
  const allocKey = (n: Node) =>
    Object.entries(n.status?.allocatable ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join(',');
  return {
    labels: SHAPE_LABELS.filter((k) => la[k] !== lb[k]),
    taints: taintKey(a) !== taintKey(b),
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
  const added = mergeMissingResources(built.node, scratch);
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
