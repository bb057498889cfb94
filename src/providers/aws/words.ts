// How generic checks and commands speak of an Auto Scaling group: the sentences that were `provider === 'aws'`
// branches in those files, byte for byte, plus the few facts about an ASG they asked for (tags, suspended processes).
import type { AsgNodeGroup, NodeGroup } from '../../model/node-group.js';
import type { ProviderWords } from '../types.js';
import { NODE_TEMPLATE_TAG } from './wording.js';

/** Narrows a node group to an ASG (AWS-only code; generic code asks the provider's members instead). */
export function isAsgGroup(g: NodeGroup): g is AsgNodeGroup {
  return g.provider === 'aws';
}

export const awsWords: ProviderWords = {
  title: 'AWS',
  checksSubject: 'AWS Auto Scaling groups',
  groupKind: 'AutoScalingGroup',
  groupShort: 'ASG',
  groupsCounted: 'Auto Scaling group(s)',
  groupSource: (name) => `ASG ${name}`,
  targetSizeField: 'DesiredCapacity',
  minSizeField: 'MinSize',
  targetSizeProse: 'desired capacity',
  unhealthyFix: (g) =>
    `Look at ${g.name}'s nodes that are NotReady or instances that never joined (kubectl get nodes; the ASG's instances); fix bootstrap (user data, IAM instance profile, security groups) so new nodes register.`,
  backoffCauses: 'instance capacity in the AZ, vCPU quota, launch template',
  noTemplateSource: (g) => `ASG ${g.name}`,
  noTemplateExpected: 'a Ready node of the group, or a scratch template from the launch template',
  noTemplateFix: 'Make sure the ASG has a launch template or configuration CA can read, or keep one Ready node in the group.',
  templateFix: "Give CA's template what the pod needs (node-template tags on the ASG), or stop selecting what only real nodes have.",
  selectorFix: "Fix the pod's nodeSelector / required node affinity, or add node-template/label tags to the ASG meant for it.",
  nodesOutsideGroups: () =>
    'Nodes outside any ASG (no or foreign providerID, Fargate, hybrid) are never removed by CA. Nothing to fix unless the node should belong to an ASG.',
  noGroupsInInput: 'no Auto Scaling groups in the input (add `aws autoscaling describe-auto-scaling-groups --output json`)',
};

/** The ASG's node-template tag for a label, taint or resource (aws_manager.go buildNodeFromTemplate reads them). */
export function asgDeclares(g: NodeGroup, aspect: 'label' | 'taint' | 'resources', key: string): boolean {
  return isAsgGroup(g) && (g.asg.Tags ?? []).some((t) => t.Key === `${NODE_TEMPLATE_TAG}${aspect}/${key}`);
}

export function asgTags(g: NodeGroup): string[] {
  return isAsgGroup(g) ? (g.asg.Tags ?? []).map((t) => `${t.Key}=${t.Value ?? ''}`) : [];
}

export function asgScaleUpBlockers(g: NodeGroup): string[] {
  return isAsgGroup(g) && g.suspendedProcesses.includes('Launch')
    ? ['the ASG has its Launch process suspended: CA raises DesiredCapacity but AWS launches no instance']
    : [];
}

export function asgLaunchedTypes(g: NodeGroup): string[] {
  return isAsgGroup(g) ? (g.mixedInstances?.instanceTypes ?? []) : [];
}
