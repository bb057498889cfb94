// CA's externalgrpc cloud provider backed by sunkaimr/cluster-autoscaler-grpc-cloud-provider, behind the provider seam.
import type { NodeGroupProvider } from '../types.js';
import { buildExternalGrpcNodeGroups, externalGrpcScaleDownOptions, externalGrpcState, isExternalGrpcGroupRelevant } from './groups.js';
import { externalGrpcScratchTemplate } from './template.js';
import {
  grpcInspectFailures,
  grpcInstanceTypeOf,
  grpcLowerMinSize,
  grpcRaiseMaxSize,
  grpcSetTemplateLabels,
  grpcSetTemplateResource,
  grpcSetTemplateTaint,
  grpcTemplateSourceLabel,
} from './wording.js';
import { externalGrpcWords } from './words.js';
import { externalGrpcConfigMapRefs } from './deployment.js';
import { keepExternalGrpcConfigMap } from './snapshot.js';

export const externalGrpcProvider: NodeGroupProvider = {
  id: 'externalgrpc',
  groupNoun: 'externalgrpc node group',
  templateLabelEdit: 'the nodeTemplate label',
  addNodeGroupsHint: "add `kubectl -n kube-system get configmap nodegroup-status -o json` or the provider's nodegroup-config.yaml to the input",
  nodeLabelHowTo: "the kubelet's --node-labels in the instances' start-up script, the group's instanceParameter user data",
  buildNodeGroups: buildExternalGrpcNodeGroups,
  // the provider's groups carry no cluster tags: only CA's own --cluster-name names the cluster
  clusterNames: (ctx) => new Set(ctx.ca.flags.clusterName?.value ? [ctx.ca.flags.clusterName.value] : []),
  isRelevant: (group) => isExternalGrpcGroupRelevant(group),
  scratchTemplate: externalGrpcScratchTemplate,
  // externalgrpc_node_group.go TemplateNodeInfo: no AsgTagResourceNodeInfoProvider-style merge
  mergesScratchResourcesIntoRealNodes: false,
  // framework.NewNodeInfo(node, nil): no fake kube-proxy pod
  addsKubeProxyToScratch: false,
  scaleDownOptions: externalGrpcScaleDownOptions,
  describeSource: (ctx) => {
    const cfg = externalGrpcState(ctx).config;
    return cfg.used ? cfg.usedDescription : 'no externalgrpc provider config in the input';
  },
  templateSourceLabel: grpcTemplateSourceLabel,
  instanceTypeOf: grpcInstanceTypeOf,
  setTemplateLabels: grpcSetTemplateLabels,
  setTemplateTaint: grpcSetTemplateTaint,
  setTemplateResource: grpcSetTemplateResource,
  inspectFailures: grpcInspectFailures,
  lowerMinSize: grpcLowerMinSize,
  raiseMaxSize: grpcRaiseMaxSize,
  words: externalGrpcWords,
  // the groups come from the provider's own config (describeSource), not from a listed kind
  groupKinds: [],
  auditCommand: 'node-group-audit',
  suggestsInstanceTypes: false,
  scaleUpBlockers: () => [],
  // nodeTemplate is the template itself: nothing beside it declares labels, taints or resources
  templateDeclares: () => false,
  groupTags: () => [],
  launchedInstanceTypes: () => [],
  configMapRefs: externalGrpcConfigMapRefs,
  keepConfigMap: keepExternalGrpcConfigMap,
};

export { scrubExternalGrpcCredentials, parseExternalGrpcConfig, parseCloudConfig } from './config.js';
