import type { AsgInstance, AutoScalingGroup, LaunchTemplateSpecification } from './aws.js';
import type { Node } from './k8s.js';

/** How CA came to manage an ASG. */
export type NodeGroupVia = 'auto-discovery' | 'nodes-flag' | 'none';

/** An ASG as Cluster Autoscaler sees it (a "node group"), with the Kubernetes nodes mapped onto it. */
export interface NodeGroup {
  /** The ASG name, which is CA's node group id. */
  name: string;
  asg: AutoScalingGroup;
  /** true when CA manages the ASG (matched auto-discovery tags or listed in --nodes). */
  discovered: boolean;
  via: NodeGroupVia;
  /** Why CA does not manage it (missing tag key, wrong value, ...). */
  mismatch?: string;
  /** CA's view: --nodes min/max override the ASG's own. */
  minSize: number;
  maxSize: number;
  asgMinSize: number;
  asgMaxSize: number;
  /** DesiredCapacity: CA's TargetSize(). */
  targetSize: number;
  zones: string[];
  instanceIds: string[];
  /** Nodes whose providerID names one of the ASG's instances, in input order. */
  nodes: Node[];
  /** InService instances with no Node carrying their providerID. */
  unregisteredInstances: AsgInstance[];
  /** DesiredCapacity - len(Instances) when positive: CA invents i-placeholder-<asg>-<n> instances for these. */
  placeholderCount: number;
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
