// AWS objects in the PascalCase shape `aws ... --output json` prints them (and the SDK v3 returns).
// EKS is the exception: `aws eks describe-nodegroup` prints camelCase, and so does the SDK.

export interface AsgTag {
  Key: string;
  Value?: string;
  ResourceId?: string;
  ResourceType?: string;
  PropagateAtLaunch?: boolean;
}

export interface LaunchTemplateSpecification {
  LaunchTemplateId?: string;
  LaunchTemplateName?: string;
  Version?: string;
}

export interface InstanceRequirements {
  VCpuCount?: { Min?: number; Max?: number };
  MemoryMiB?: { Min?: number; Max?: number };
  AcceleratorCount?: { Min?: number; Max?: number };
  AcceleratorManufacturers?: string[];
  AcceleratorTypes?: string[];
  [k: string]: unknown;
}

export interface LaunchTemplateOverride {
  InstanceType?: string;
  WeightedCapacity?: string;
  InstanceRequirements?: InstanceRequirements;
  LaunchTemplateSpecification?: LaunchTemplateSpecification;
}

export interface MixedInstancesPolicy {
  LaunchTemplate?: {
    LaunchTemplateSpecification?: LaunchTemplateSpecification;
    Overrides?: LaunchTemplateOverride[];
  };
  InstancesDistribution?: Record<string, unknown>;
}

export interface AsgInstance {
  InstanceId: string;
  InstanceType?: string;
  AvailabilityZone?: string;
  LifecycleState?: string;
  HealthStatus?: string;
  LaunchTemplate?: LaunchTemplateSpecification;
  LaunchConfigurationName?: string;
  ProtectedFromScaleIn?: boolean;
}

export interface SuspendedProcess {
  ProcessName: string;
  SuspensionReason?: string;
}

export interface AutoScalingGroup {
  AutoScalingGroupName: string;
  AutoScalingGroupARN?: string;
  LaunchConfigurationName?: string;
  LaunchTemplate?: LaunchTemplateSpecification;
  MixedInstancesPolicy?: MixedInstancesPolicy;
  MinSize: number;
  MaxSize: number;
  DesiredCapacity: number;
  AvailabilityZones?: string[];
  Instances?: AsgInstance[];
  Tags?: AsgTag[];
  SuspendedProcesses?: SuspendedProcess[];
  CreatedTime?: string;
  Status?: string;
  VPCZoneIdentifier?: string;
  [k: string]: unknown;
}

export interface LaunchTemplateVersion {
  LaunchTemplateId?: string;
  LaunchTemplateName?: string;
  VersionNumber?: number;
  DefaultVersion?: boolean;
  CreateTime?: string;
  LaunchTemplateData?: {
    InstanceType?: string;
    ImageId?: string;
    InstanceRequirements?: InstanceRequirements;
    TagSpecifications?: Array<{ ResourceType?: string; Tags?: Array<{ Key: string; Value?: string }> }>;
    UserData?: string;
    [k: string]: unknown;
  };
}

export interface LaunchConfiguration {
  LaunchConfigurationName: string;
  InstanceType?: string;
  ImageId?: string;
  [k: string]: unknown;
}

/** One entry of `aws ec2 describe-instance-types` (InstanceTypes[]). */
export interface Ec2InstanceTypeInfo {
  InstanceType: string;
  VCpuInfo?: { DefaultVCpus?: number };
  MemoryInfo?: { SizeInMiB?: number };
  GpuInfo?: { Gpus?: Array<{ Count?: number; Manufacturer?: string; Name?: string }> };
  ProcessorInfo?: { SupportedArchitectures?: string[] };
  [k: string]: unknown;
}

export interface Ec2Image {
  ImageId: string;
  Architecture?: string;
  Name?: string;
  [k: string]: unknown;
}

export interface ScalingActivity {
  ActivityId?: string;
  AutoScalingGroupName: string;
  Description?: string;
  Cause?: string;
  StartTime?: string;
  EndTime?: string;
  StatusCode?: string; // Successful | Failed | Cancelled | InProgress | ...
  StatusMessage?: string;
  Progress?: number;
}

export interface IamEvaluationResult {
  EvalActionName: string;
  EvalResourceName?: string;
  EvalDecision: 'allowed' | 'explicitDeny' | 'implicitDeny' | string;
  MatchedStatements?: Array<{ SourcePolicyId?: string; SourcePolicyType?: string }>;
  MissingContextValues?: string[];
  [k: string]: unknown;
}

export interface EksNodegroup {
  nodegroupName: string;
  clusterName: string;
  nodegroupArn?: string;
  labels?: Record<string, string>;
  taints?: Array<{
    key?: string;
    value?: string;
    effect?: 'NO_SCHEDULE' | 'NO_EXECUTE' | 'PREFER_NO_SCHEDULE' | string;
  }>;
  capacityType?: 'ON_DEMAND' | 'SPOT' | string;
  amiType?: string;
  diskSize?: number;
  version?: string;
  instanceTypes?: string[];
  scalingConfig?: { minSize?: number; maxSize?: number; desiredSize?: number };
  resources?: { autoScalingGroups?: Array<{ name: string }> };
  tags?: Record<string, string>;
  [k: string]: unknown;
}

/** One row of `aws ec2 describe-instance-type-offerings --location-type availability-zone --output json`. */
/** One ec2:DescribeSpotPriceHistory record, as `aws ec2 describe-spot-price-history --output json` prints it. */
export interface Ec2SpotPrice {
  AvailabilityZone?: string;
  AvailabilityZoneId?: string;
  InstanceType: string;
  /** "Linux/UNIX", "Linux/UNIX (Amazon VPC)", "Windows", … */
  ProductDescription?: string;
  /** Hourly price as a decimal string, e.g. "0.071200". */
  SpotPrice: string;
  /** When the price took effect (RFC 3339). */
  Timestamp: string;
}

export interface Ec2InstanceTypeOffering {
  InstanceType: string;
  /** 'availability-zone' here; EC2 also answers 'region' and 'availability-zone-id'. */
  LocationType?: string;
  /** The zone name, e.g. "us-east-1a". */
  Location: string;
}
