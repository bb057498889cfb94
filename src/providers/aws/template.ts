// CA's AWS provider's template for a group with no usable real node: AwsNodeGroup.TemplateNodeInfo -> getAsgTemplate +
// buildNodeFromTemplate (cloudprovider/aws/aws_manager.go), from ASG tags, the launch template and EKS managed node groups.
import type {
  AsgTag,
  AutoScalingGroup,
  EksNodegroup,
  InstanceRequirements,
  LaunchTemplateSpecification,
  LaunchTemplateVersion,
} from '../../model/aws.js';
import type { Node, Taint } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import { formatBytes, isValidQuantity } from '../../model/quantity.js';
import type { RequirementsTypes, ScratchTemplate, TemplateContext } from '../../simulate/node-group-provider.js';
import {
  addDeprecatedLabels,
  kubeProxyPod,
  podsExpectedOnFreshNode,
  readyConditions,
  sanitizeTaints,
  TEMPLATE_NODE_LABEL,
  templateNodeName,
  templateSuffix,
} from '../../simulate/template-node.js';

export const LABEL_PREFIX = 'k8s.io/cluster-autoscaler/node-template/label/';
export const TAINT_PREFIX = 'k8s.io/cluster-autoscaler/node-template/taint/';
export const RESOURCES_PREFIX = 'k8s.io/cluster-autoscaler/node-template/resources/';

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
  if (group.provider !== 'aws') return { source: 'none', pods: [], reason: `${group.name} is not an Auto Scaling group`, notes: [] };
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
