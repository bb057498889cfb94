// The types template building shares with the cloud providers (types only): what a template reads, what it is, and what
// it needs from the provider. Here, not in template-node.ts, so that a provider and the generic code both import them
// without importing each other.
import type { Ec2Image, EksNodegroup, LaunchConfiguration, LaunchTemplateVersion } from '../model/aws.js';
import type { CaConfig } from '../model/ca-config.js';
import type { DaemonSet, Node, Pod } from '../model/k8s.js';
import type { NodeGroup } from '../model/node-group.js';
import type { InstanceTypeInfo, InstanceTypeTable } from './instance-types.js';

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
  /** CA's cloud provider for the group (Analysis passes the one it resolved from CA's --cloud-provider and the input). */
  provider: TemplateProvider;
}

/** What template building needs from a cloud provider (a part of NodeGroupProvider, providers/types.ts). */
export interface TemplateProvider {
  /** Singular noun for a group in prose: "Auto Scaling group", "externalgrpc node group". */
  readonly groupNoun: string;
  /** CA's template for the group when no real node serves (the provider's TemplateNodeInfo()). */
  scratchTemplate(group: NodeGroup, tctx: TemplateContext): ScratchTemplate;
  /** AWS merges the scratch template's extra resources into a real node's template; externalgrpc does not. */
  readonly mergesScratchResourcesIntoRealNodes: boolean;
  /** CA adds a fake kube-proxy pod to scratch templates (AWS yes, externalgrpc no). */
  readonly addsKubeProxyToScratch: boolean;
}

export interface TemplateResult {
  /**
   * 'node' = a real node of the group, 'asg' = CA's scratch template from the ASG, 'provider' = the template the cloud
   * provider returns (externalgrpc's NodeGroupTemplateNodeInfo), 'none' = CA has no template.
   */
  source: 'node' | 'asg' | 'provider' | 'none';
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
  /** The provider's scratch template (also when a real node is used, for comparison); absent when the result is the scratch. */
  scratch?: ScratchTemplate;
}

export type ScratchTemplate = Omit<TemplateResult, 'scratch'>;
