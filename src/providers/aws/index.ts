// CA's AWS cloud provider (--cloud-provider=aws): Auto Scaling groups as node groups.
import type { NodeGroupProvider } from '../types.js';
import { buildNodeGroups } from './node-groups.js';
import { groupScaleDownOptions } from './options.js';
import { awsClusterNames, isRelevantAsg } from './relevance.js';
import { buildScratchTemplate } from './template.js';
import { asgDeclares, asgLaunchedTypes, asgScaleUpBlockers, asgTags, awsWords } from './words.js';
import { asgInspectFailures, asgLowerMinSize, asgRaiseMaxSize, asgSetTemplateLabels, asgSetTemplateResource, asgSetTemplateTaint, asgTemplateSourceLabel } from './wording.js';

export { awsClusterNames, isRelevantAsg } from './relevance.js';

export const awsProvider: NodeGroupProvider = {
  id: 'aws',
  groupNoun: 'Auto Scaling group',
  templateLabelEdit: 'the tag',
  addNodeGroupsHint: 'add `aws autoscaling describe-auto-scaling-groups --output json` to the input',
  nodeLabelHowTo: "kubelet --node-labels in the launch template, or the EKS node group's labels",
  buildNodeGroups: (ctx) => buildNodeGroups({ asgs: ctx.raw.autoScalingGroups, nodes: ctx.raw.nodes, config: ctx.ca }),
  clusterNames: (ctx, all) => awsClusterNames(ctx.ca, all),
  isRelevant: (group, ctx, all) => isRelevantAsg(group, ctx.ca, all),
  scratchTemplate: (group, tctx) => buildScratchTemplate(group, tctx),
  // CA: processors/nodeinfosprovider/asg_tag_resource_node_info_provider.go (AWS's NodeInfoProcessor)
  mergesScratchResourcesIntoRealNodes: true,
  // CA: cloudprovider/aws/aws_cloud_provider.go TemplateNodeInfo adds cloudprovider.BuildKubeProxy
  addsKubeProxyToScratch: true,
  scaleDownOptions: (group, ca) => groupScaleDownOptions(group, ca),
  describeSource: (ctx) =>
    `${ctx.raw.autoScalingGroups.length} Auto Scaling group(s) from autoscaling:DescribeAutoScalingGroups`,
  templateSourceLabel: (group, t, aspect) => asgTemplateSourceLabel(group, t, aspect),
  // the template carries the launch template's / MixedInstancesPolicy's type already
  instanceTypeOf: () => undefined,
  setTemplateLabels: (edits) => asgSetTemplateLabels(edits),
  setTemplateTaint: (group, taint) => asgSetTemplateTaint(group, taint),
  setTemplateResource: (group, resource, quantity) => asgSetTemplateResource(group, resource, quantity),
  inspectFailures: (group) => asgInspectFailures(group),
  lowerMinSize: (group, minSize) => asgLowerMinSize(group, minSize),
  raiseMaxSize: (group, maxSize) => asgRaiseMaxSize(group, maxSize),
  words: awsWords,
  groupKinds: ['autoScalingGroups'],
  auditCommand: 'asg-audit',
  // EC2 instance types are suggestions only where CA launches EC2 instances
  suggestsInstanceTypes: true,
  scaleUpBlockers: asgScaleUpBlockers,
  templateDeclares: asgDeclares,
  groupTags: asgTags,
  launchedInstanceTypes: asgLaunchedTypes,
};
