import type { AsgInstance, AutoScalingGroup, LaunchTemplateSpecification } from './aws.js';
import type { GrpcNodeGroupSpec } from './externalgrpc.js';
import type { Node } from './k8s.js';

/** The CA cloud providers casdoctor models (CA's --cloud-provider). */
export type ProviderId = 'aws' | 'externalgrpc';

/** How CA came to manage a node group ('provider': the provider lists it, as externalgrpc's NodeGroups()). */
export type NodeGroupVia = 'auto-discovery' | 'nodes-flag' | 'none' | 'provider';

/** What every CA node group has, whichever cloud provider lists it. */
export interface NodeGroupBase {
  provider: ProviderId;
  /** CA's node group id (the ASG name on AWS). */
  name: string;
  /** true when CA manages the group (AWS: matched auto-discovery tags or listed in --nodes). */
  discovered: boolean;
  via: NodeGroupVia;
  /** Why CA does not manage it (missing tag key, wrong value, ...). */
  mismatch?: string;
  /** CA's view: MinSize()/MaxSize() (on AWS --nodes min/max override the ASG's own). */
  minSize: number;
  maxSize: number;
  /** CA's TargetSize() (DesiredCapacity on AWS). */
  targetSize: number;
  zones: string[];
  instanceIds: string[];
  /** Nodes whose providerID names one of the group's instances, in input order. */
  nodes: Node[];
  /** Instances the provider reports as created/creating that have no Node yet (CA counts them as upcoming). */
  unregisteredInstances: Array<{ InstanceId: string; LifecycleState?: string; AvailabilityZone?: string }>;
  /** Target size minus instances when positive: CA invents placeholder instances for these. */
  placeholderCount: number;
}

/** An ASG as Cluster Autoscaler sees it (a "node group"), with the Kubernetes nodes mapped onto it. */
export interface AsgNodeGroup extends NodeGroupBase {
  provider: 'aws';
  asg: AutoScalingGroup;
  asgMinSize: number;
  asgMaxSize: number;
  /** InService instances with no Node carrying their providerID. */
  unregisteredInstances: AsgInstance[];
  suspendedProcesses: string[];
  launchConfigurationName?: string;
  launchTemplate?: LaunchTemplateSpecification;
  mixedInstances?: {
    launchTemplate?: LaunchTemplateSpecification;
    /** Override instance types in API order; CA simulates only the first. */
    instanceTypes: string[];
    /** At least one override uses InstanceRequirements (attribute-based selection). */
    hasInstanceRequirements: boolean;
  };
}

/** A node group of CA's externalgrpc cloud provider, as its config (nodegroup-config.yaml / nodegroup-status) declares it. */
export interface ExternalGrpcNodeGroup extends NodeGroupBase {
  provider: 'externalgrpc';
  grpc: GrpcNodeGroupSpec;
}

/** A CA node group: discriminated on `provider`; AWS-only code narrows or uses Analysis.asgGroups. */
export type NodeGroup = AsgNodeGroup | ExternalGrpcNodeGroup;

/** A node CA does not autoscale: no/unparsable providerID, or its instance is in no (managed) ASG. */
export interface NotAutoscaledNode {
  node: Node;
  reason: string;
  /** The ASG holding the instance when that ASG is not managed by CA. */
  asgName?: string;
}

export interface NodeGroupsResult {
  nodeGroups: NodeGroup[];
  notAutoscaled: NotAutoscaledNode[];
  /** --nodes entries naming an ASG that is not in the snapshot. */
  missingExplicitGroups: string[];
  /** Errors CA's ASG refresh would fail with (e.g. a discovered ASG whose min/max fail validation). */
  errors: string[];
}
