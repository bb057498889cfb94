// CA's AWS provider: which ASGs are node groups (discovery by tags or --nodes) and which nodes belong to them.
import type { AsgInstance, AutoScalingGroup } from '../../model/aws.js';
import type { CaConfig } from '../../model/ca-config.js';
import type { Node } from '../../model/k8s.js';
import type { AsgNodeGroup, NodeGroupsResult, NodeGroupVia, NotAutoscaledNode } from '../../model/node-group.js';

// CA: cloudprovider/aws/aws_cloud_provider.go validAwsRefIdRegex (the placeholder alternative is not anchored at the start).
const PROVIDER_ID_RE =
  /^aws:\/\/\/[-0-9a-z]*\/[-0-9a-z]*(\/[-0-9a-z.]*)?$|aws:\/\/\/[-0-9a-z]*\/i-placeholder-.*$/;

/** `aws:///<zone>/<instance-id>` (optionally a third segment, or an i-placeholder id). CA: AwsRefFromProviderId. */
export function providerIdToInstance(
  providerID: string | undefined,
): { zone: string; instanceId: string } | undefined {
  if (!providerID || !PROVIDER_ID_RE.test(providerID)) return undefined;
  // CA takes strings.Split(id[7:], "/")[1] as the instance name.
  const parts = providerID.slice(7).split('/');
  if (parts.length < 2) return undefined;
  return { zone: parts[0], instanceId: parts[1] };
}

/**
 * First CA minor whose AWS provider ignores a providerID it cannot parse. Before it, NodeGroupForNode returned the parse
 * error and every loop failed ("Failed to get node infos for groups: wrong id: expected format aws:///<zone>/<name>, got
 * ..."): kubernetes/autoscaler#8045, fix 3a1973872f (cloudprovider/aws/aws_cloud_provider.go), first in 1.33.0, not backported.
 */
export const UNRECOGNIZED_PROVIDER_ID_TOLERATED_MINOR = 33;

/** Nodes whose non-empty providerID CA's AWS provider cannot parse (EKS Hybrid `eks-hybrid://`, other clouds, ...). */
export function nodesWithUnrecognizedProviderId(nodes: Node[]): Array<{ node: Node; providerID: string }> {
  const out: Array<{ node: Node; providerID: string }> = [];
  for (const node of nodes) {
    const providerID = node.spec?.providerID;
    // an empty providerID is only a warning in CA ("Node %v has no providerId"), never an error
    if (providerID && !providerIdToInstance(providerID)) out.push({ node, providerID });
  }
  return out;
}

export interface DiscoveredAsg {
  asg: AutoScalingGroup;
  discovered: boolean;
  min: number;
  max: number;
  via: NodeGroupVia;
  mismatch?: string;
}

/** The AWS provider's groups result: every group is an Auto Scaling group. */
export type AsgNodeGroupsResult = Omit<NodeGroupsResult, 'nodeGroups'> & { nodeGroups: AsgNodeGroup[] };

type DiscoveryConfig = Pick<CaConfig, 'nodeGroupSpecs' | 'autoDiscovery'>;

/** Why an ASG does not match the merged auto-discovery tags, or undefined when it matches all of them. */
function tagMismatch(asg: AutoScalingGroup, tags: Record<string, string | undefined>): string | undefined {
  const asgTags = new Map<string, string>();
  for (const t of asg.Tags ?? []) asgTags.set(t.Key, t.Value ?? '');
  const problems: string[] = [];
  for (const [key, want] of Object.entries(tags)) {
    const have = asgTags.get(key);
    if (have === undefined) problems.push(`missing tag "${key}"`);
    // aws_wrapper.go getAutoscalingGroupsByTags: a value becomes the filter tag:<key> = <value> (exact match).
    else if (want !== undefined && have !== want)
      problems.push(`tag "${key}" is "${have}", expected "${want}"`);
  }
  return problems.length ? `${problems.join('; ')} (--node-group-auto-discovery)` : undefined;
}

/**
 * Which ASGs CA manages. `--nodes` groups use the flag's min/max, not the ASG's (CA: auto_scaling_groups.go register);
 * auto-discovered ones must carry every tag of the merged spec (ANDed).
 */
export function discoverNodeGroups(asgs: AutoScalingGroup[], config: DiscoveryConfig): DiscoveredAsg[] {
  const explicit = new Map(config.nodeGroupSpecs.map((s) => [s.name, s]));
  const tags = config.autoDiscovery.tags;
  const hasDiscovery = Object.keys(tags).length > 0;
  return asgs.map((asg) => {
    const spec = explicit.get(asg.AutoScalingGroupName);
    if (spec) return { asg, discovered: true, min: spec.min, max: spec.max, via: 'nodes-flag' };
    if (!hasDiscovery) {
      const why =
        config.autoDiscovery.errors.length > 0
          ? 'not listed in --nodes, and --node-group-auto-discovery has no valid spec'
          : 'not listed in --nodes and no --node-group-auto-discovery is configured';
      return { asg, discovered: false, min: asg.MinSize, max: asg.MaxSize, via: 'none', mismatch: why };
    }
    const mismatch = tagMismatch(asg, tags);
    if (mismatch)
      return { asg, discovered: false, min: asg.MinSize, max: asg.MaxSize, via: 'none', mismatch };
    return { asg, discovered: true, min: asg.MinSize, max: asg.MaxSize, via: 'auto-discovery' };
  });
}

/** ASGs as CA's node groups, with nodes mapped by providerID (instances indexed once). */
export function buildNodeGroups(input: {
  asgs: AutoScalingGroup[];
  nodes: Node[];
  config: DiscoveryConfig;
}): AsgNodeGroupsResult {
  const discovered = discoverNodeGroups(input.asgs, input.config);
  const errors: string[] = [];
  const groups: AsgNodeGroup[] = discovered.map((d): AsgNodeGroup => {
    const asg = d.asg;
    const instances = asg.Instances ?? [];
    const mip = asg.MixedInstancesPolicy?.LaunchTemplate;
    // CA: auto_scaling_groups.go buildAsgFromAWS validates min/max of every ASG it fetched; one bad ASG fails the refresh.
    if (d.discovered && d.via === 'auto-discovery' && (asg.MinSize < 0 || asg.MaxSize < asg.MinSize)) {
      errors.push(
        `failed to create node group spec: ${asg.MinSize < 0 ? 'min size must be >= 0' : 'max size must be greater or equal to min size'} (ASG ${asg.AutoScalingGroupName})`,
      );
    }
    return {
      provider: 'aws',
      name: asg.AutoScalingGroupName,
      asg,
      discovered: d.discovered,
      via: d.via,
      ...(d.mismatch ? { mismatch: d.mismatch } : {}),
      minSize: d.min,
      maxSize: d.max,
      asgMinSize: asg.MinSize,
      asgMaxSize: asg.MaxSize,
      targetSize: asg.DesiredCapacity,
      zones: [...(asg.AvailabilityZones ?? [])],
      instanceIds: instances.map((i) => i.InstanceId),
      nodes: [],
      unregisteredInstances: [],
      placeholderCount: Math.max(0, asg.DesiredCapacity - instances.length),
      suspendedProcesses: (asg.SuspendedProcesses ?? []).map((p) => p.ProcessName),
      ...(asg.LaunchConfigurationName ? { launchConfigurationName: asg.LaunchConfigurationName } : {}),
      ...(asg.LaunchTemplate ? { launchTemplate: asg.LaunchTemplate } : {}),
      ...(asg.MixedInstancesPolicy
        ? {
            mixedInstances: {
              ...(mip?.LaunchTemplateSpecification
                ? { launchTemplate: mip.LaunchTemplateSpecification }
                : {}),
              instanceTypes: (mip?.Overrides ?? []).flatMap((o) => (o.InstanceType ? [o.InstanceType] : [])),
              hasInstanceRequirements: (mip?.Overrides ?? []).some((o) => !!o.InstanceRequirements),
            },
          }
        : {}),
    };
  });

  const groupByInstance = new Map<string, { group: AsgNodeGroup; instance: AsgInstance }>();
  for (const group of groups) {
    for (const instance of group.asg.Instances ?? [])
      groupByInstance.set(instance.InstanceId, { group, instance });
  }

  const notAutoscaled: NotAutoscaledNode[] = [];
  const registered = new Set<string>();
  for (const node of input.nodes) {
    const providerID = node.spec?.providerID;
    if (!providerID) {
      notAutoscaled.push({ node, reason: 'node has no spec.providerID' });
      continue;
    }
    const ref = providerIdToInstance(providerID);
    if (!ref) {
      notAutoscaled.push({
        node,
        reason: `providerID "${providerID}" is not of the form aws:///<zone>/<instance-id>`,
      });
      continue;
    }
    const hit = groupByInstance.get(ref.instanceId);
    if (!hit) {
      notAutoscaled.push({
        node,
        reason: `instance ${ref.instanceId} belongs to no Auto Scaling group in the snapshot`,
      });
      continue;
    }
    registered.add(ref.instanceId);
    hit.group.nodes.push(node);
    if (!hit.group.discovered) {
      notAutoscaled.push({
        node,
        asgName: hit.group.name,
        reason: `ASG ${hit.group.name} is not managed by cluster-autoscaler: ${hit.group.mismatch ?? 'not discovered'}`,
      });
    }
  }
  for (const group of groups) {
    group.unregisteredInstances = (group.asg.Instances ?? []).filter(
      (i) => i.LifecycleState === 'InService' && !registered.has(i.InstanceId),
    );
  }
  const present = new Set(input.asgs.map((a) => a.AutoScalingGroupName));
  const missingExplicitGroups = input.config.nodeGroupSpecs.map((s) => s.name).filter((n) => !present.has(n));
  return { nodeGroups: groups, notAutoscaled, missingExplicitGroups, errors };
}
