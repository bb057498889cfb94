// Fluent builders for AWS objects in the exact shapes `aws ... --output json` prints (PascalCase; EKS camelCase).
import type {
  AsgInstance,
  AsgTag,
  AutoScalingGroup,
  EksNodegroup,
  InstanceRequirements,
  LaunchConfiguration,
  LaunchTemplateOverride,
  LaunchTemplateSpecification,
  LaunchTemplateVersion,
  ScalingActivity,
} from '../../src/model/aws.js';

export const ACCOUNT = '111122223333';
export const REGION = 'us-east-1';

export class AsgBuilder {
  private g: AutoScalingGroup;

  constructor(name: string) {
    this.g = {
      AutoScalingGroupName: name,
      AutoScalingGroupARN: `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:6a1c3b5e-0d1f-4a8e-9f2b-3c4d5e6f7a8b:autoScalingGroupName/${name}`,
      MinSize: 0,
      MaxSize: 10,
      DesiredCapacity: 0,
      DefaultCooldown: 300,
      AvailabilityZones: [`${REGION}a`],
      LoadBalancerNames: [],
      TargetGroupARNs: [],
      HealthCheckType: 'EC2',
      HealthCheckGracePeriod: 15,
      Instances: [],
      CreatedTime: '2026-01-05T09:12:44.512000+00:00',
      SuspendedProcesses: [],
      VPCZoneIdentifier: 'subnet-0a1b2c3d4e5f60718',
      EnabledMetrics: [],
      Tags: [],
      TerminationPolicies: ['Default'],
      NewInstancesProtectedFromScaleIn: false,
      ServiceLinkedRoleARN: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling`,
      CapacityRebalance: false,
      TrafficSources: [],
    };
  }

  withSizes(min: number, max: number, desired = min): this {
    this.g.MinSize = min;
    this.g.MaxSize = max;
    this.g.DesiredCapacity = desired;
    return this;
  }

  withDesired(desired: number): this {
    this.g.DesiredCapacity = desired;
    return this;
  }

  withZones(...zones: string[]): this {
    this.g.AvailabilityZones = zones;
    return this;
  }

  /** Tags in the given order (the API returns them sorted by key; callers control order for order-sensitive tests). */
  withTags(tags: Record<string, string>, propagateAtLaunch = true): this {
    for (const [k, v] of Object.entries(tags)) this.withTag(k, v, propagateAtLaunch);
    return this;
  }

  withTag(key: string, value: string, propagateAtLaunch = true): this {
    const tag: AsgTag = {
      ResourceId: this.g.AutoScalingGroupName,
      ResourceType: 'auto-scaling-group',
      Key: key,
      Value: value,
      PropagateAtLaunch: propagateAtLaunch,
    };
    this.g.Tags = [...(this.g.Tags ?? []), tag];
    return this;
  }

  /** The standard auto-discovery tags. */
  withDiscoveryTags(cluster: string): this {
    return this.withTags({
      'k8s.io/cluster-autoscaler/enabled': 'true',
      [`k8s.io/cluster-autoscaler/${cluster}`]: 'owned',
    });
  }

  withLaunchTemplate(spec: { id?: string; name?: string; version?: string }): this {
    this.g.LaunchTemplate = ltSpec(spec);
    delete this.g.LaunchConfigurationName;
    return this;
  }

  withLaunchConfiguration(name: string): this {
    this.g.LaunchConfigurationName = name;
    delete this.g.LaunchTemplate;
    return this;
  }

  /** A MixedInstancesPolicy; overrides are instance type names or full override objects. */
  withMixedInstances(opts: {
    launchTemplate: { id?: string; name?: string; version?: string };
    overrides?: Array<string | LaunchTemplateOverride>;
    onDemandPercentage?: number;
  }): this {
    delete this.g.LaunchTemplate;
    delete this.g.LaunchConfigurationName;
    this.g.MixedInstancesPolicy = {
      LaunchTemplate: {
        LaunchTemplateSpecification: ltSpec(opts.launchTemplate),
        Overrides: (opts.overrides ?? []).map((o) => (typeof o === 'string' ? { InstanceType: o } : o)),
      },
      InstancesDistribution: {
        OnDemandAllocationStrategy: 'prioritized',
        OnDemandBaseCapacity: 0,
        OnDemandPercentageAboveBaseCapacity: opts.onDemandPercentage ?? 100,
        SpotAllocationStrategy: 'price-capacity-optimized',
      },
    };
    return this;
  }

  /** Attribute-based instance selection: one override with InstanceRequirements. */
  withInstanceRequirements(
    launchTemplate: { id?: string; name?: string; version?: string },
    req: InstanceRequirements,
  ): this {
    return this.withMixedInstances({ launchTemplate, overrides: [{ InstanceRequirements: req }] });
  }

  withInstance(id: string, opts: Partial<AsgInstance> = {}): this {
    const zone = opts.AvailabilityZone ?? this.g.AvailabilityZones?.[0] ?? `${REGION}a`;
    const instance: AsgInstance = {
      InstanceId: id,
      InstanceType: opts.InstanceType ?? 'm5.large',
      AvailabilityZone: zone,
      LifecycleState: 'InService',
      HealthStatus: 'Healthy',
      ...(this.g.LaunchTemplate ? { LaunchTemplate: this.g.LaunchTemplate } : {}),
      ...(this.g.LaunchConfigurationName ? { LaunchConfigurationName: this.g.LaunchConfigurationName } : {}),
      ProtectedFromScaleIn: false,
      ...opts,
    };
    this.g.Instances = [...(this.g.Instances ?? []), instance];
    return this;
  }

  withInstances(...ids: string[]): this {
    for (const id of ids) this.withInstance(id);
    return this;
  }

  withSuspendedProcesses(...names: string[]): this {
    this.g.SuspendedProcesses = names.map((n) => ({
      ProcessName: n,
      SuspensionReason: 'User suspended at 2026-03-01T10:00:00Z',
    }));
    return this;
  }

  build(): AutoScalingGroup {
    return structuredClone(this.g);
  }
}

function ltSpec(spec: { id?: string; name?: string; version?: string }): LaunchTemplateSpecification {
  return {
    ...(spec.id ? { LaunchTemplateId: spec.id } : {}),
    ...(spec.name ? { LaunchTemplateName: spec.name } : {}),
    ...(spec.version !== undefined ? { Version: spec.version } : {}),
  };
}

export function asg(name = 'eks-general-20260105-7ac6d3f2'): AsgBuilder {
  return new AsgBuilder(name);
}

/** One entry of `aws ec2 describe-launch-template-versions` (LaunchTemplateVersions[]). */
export class LaunchTemplateVersionBuilder {
  private v: LaunchTemplateVersion;

  constructor(id: string, versionNumber: number) {
    this.v = {
      LaunchTemplateId: id,
      LaunchTemplateName: `lt-name-${id}`,
      VersionNumber: versionNumber,
      CreateTime: '2026-01-05T09:10:02+00:00',
      CreatedBy: `arn:aws:iam::${ACCOUNT}:role/eks-admin`,
      DefaultVersion: false,
      LaunchTemplateData: {
        ImageId: 'ami-0c1d2e3f4a5b6c7d8',
        InstanceType: 'm5.large',
        MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 2 },
      },
    } as LaunchTemplateVersion;
  }

  named(name: string): this {
    this.v.LaunchTemplateName = name;
    return this;
  }

  asDefault(isDefault = true): this {
    this.v.DefaultVersion = isDefault;
    return this;
  }

  withInstanceType(t: string | undefined): this {
    const data = { ...(this.v.LaunchTemplateData ?? {}) };
    if (t === undefined) delete data.InstanceType;
    else data.InstanceType = t;
    this.v.LaunchTemplateData = data;
    return this;
  }

  withImage(imageId: string | undefined): this {
    const data = { ...(this.v.LaunchTemplateData ?? {}) };
    if (imageId === undefined) delete data.ImageId;
    else data.ImageId = imageId;
    this.v.LaunchTemplateData = data;
    return this;
  }

  withInstanceRequirements(req: InstanceRequirements): this {
    this.v.LaunchTemplateData = { ...(this.v.LaunchTemplateData ?? {}), InstanceRequirements: req };
    return this;
  }

  build(): LaunchTemplateVersion {
    return structuredClone(this.v);
  }
}

export function launchTemplateVersion(
  id = 'lt-0a1b2c3d4e5f60718',
  versionNumber = 1,
): LaunchTemplateVersionBuilder {
  return new LaunchTemplateVersionBuilder(id, versionNumber);
}

/** One entry of `aws autoscaling describe-launch-configurations`. */
export function launchConfiguration(
  name: string,
  instanceType: string | undefined = 'm5.large',
): LaunchConfiguration {
  return {
    LaunchConfigurationName: name,
    LaunchConfigurationARN: `arn:aws:autoscaling:${REGION}:${ACCOUNT}:launchConfiguration:0f9e8d7c-1111-2222-3333-444455556666:launchConfigurationName/${name}`,
    ImageId: 'ami-0c1d2e3f4a5b6c7d8',
    KeyName: '',
    SecurityGroups: ['sg-0123456789abcdef0'],
    ClassicLinkVPCSecurityGroups: [],
    UserData: '',
    ...(instanceType !== undefined ? { InstanceType: instanceType } : {}),
    KernelId: '',
    RamdiskId: '',
    BlockDeviceMappings: [],
    InstanceMonitoring: { Enabled: false },
    CreatedTime: '2025-11-02T08:00:00.000000+00:00',
    EbsOptimized: false,
  };
}

/** One entry of `aws autoscaling describe-scaling-activities` (Activities[]). */
export class ScalingActivityBuilder {
  private a: ScalingActivity;

  constructor(asgName: string) {
    this.a = {
      ActivityId: '5e6f7a8b-1c2d-4e3f-9a0b-1c2d3e4f5a6b',
      AutoScalingGroupName: asgName,
      Description: 'Launching a new EC2 instance: i-0f1e2d3c4b5a69788',
      Cause: `At 2026-03-01T10:00:12Z a user request update of AutoScalingGroup constraints to min: 0, max: 10, desired: 1 changing the desired capacity from 0 to 1.  At 2026-03-01T10:00:15Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 1.`,
      StartTime: '2026-03-01T10:00:17.120000+00:00',
      EndTime: '2026-03-01T10:00:49+00:00',
      StatusCode: 'Successful',
      Progress: 100,
    };
  }

  at(start: string, end?: string): this {
    this.a.StartTime = start;
    if (end) this.a.EndTime = end;
    return this;
  }

  failed(message: string): this {
    this.a.StatusCode = 'Failed';
    this.a.StatusMessage = message;
    this.a.Description = 'Launching a new EC2 instance.  Status Reason: ' + message;
    return this;
  }

  build(): ScalingActivity {
    return structuredClone(this.a);
  }
}

export function scalingActivity(asgName: string): ScalingActivityBuilder {
  return new ScalingActivityBuilder(asgName);
}

/** `aws eks describe-nodegroup` .nodegroup (camelCase). */
export class EksNodegroupBuilder {
  private n: EksNodegroup;

  constructor(cluster: string, name: string) {
    this.n = {
      nodegroupName: name,
      nodegroupArn: `arn:aws:eks:${REGION}:${ACCOUNT}:nodegroup/${cluster}/${name}/0ec6d3f2-aaaa-bbbb-cccc-1234567890ab`,
      clusterName: cluster,
      version: '1.33',
      releaseVersion: '1.33.0-20260101',
      createdAt: '2026-01-05T09:10:00.000000+00:00',
      modifiedAt: '2026-01-05T09:20:00.000000+00:00',
      status: 'ACTIVE',
      capacityType: 'ON_DEMAND',
      scalingConfig: { minSize: 0, maxSize: 10, desiredSize: 0 },
      instanceTypes: ['m5.large'],
      subnets: ['subnet-0a1b2c3d4e5f60718'],
      amiType: 'AL2023_x86_64_STANDARD',
      nodeRole: `arn:aws:iam::${ACCOUNT}:role/eks-node-role`,
      labels: {},
      resources: { autoScalingGroups: [{ name: `eks-${name}-0ec6d3f2-aaaa-bbbb-cccc-1234567890ab` }] },
      diskSize: 20,
      health: { issues: [] },
      updateConfig: { maxUnavailable: 1 },
      tags: {},
    };
  }

  withLabels(labels: Record<string, string>): this {
    this.n.labels = { ...(this.n.labels ?? {}), ...labels };
    return this;
  }

  /** EKS taints: effect NO_SCHEDULE | NO_EXECUTE | PREFER_NO_SCHEDULE; a value-less taint has no `value` key. */
  withTaint(key: string, value: string | undefined, effect: string): this {
    this.n.taints = [...(this.n.taints ?? []), { key, ...(value !== undefined ? { value } : {}), effect }];
    return this;
  }

  withCapacityType(t: 'ON_DEMAND' | 'SPOT'): this {
    this.n.capacityType = t;
    return this;
  }

  withTags(tags: Record<string, string>): this {
    this.n.tags = { ...(this.n.tags ?? {}), ...tags };
    return this;
  }

  withDiskSize(gib: number | undefined): this {
    if (gib === undefined) delete this.n.diskSize;
    else this.n.diskSize = gib;
    return this;
  }

  build(): EksNodegroup {
    return structuredClone(this.n);
  }
}

export function eksNodegroup(cluster = 'prod', name = 'general'): EksNodegroupBuilder {
  return new EksNodegroupBuilder(cluster, name);
}
