// How reports speak of an Auto Scaling group and how to change it: the node-template tags CA's AWS provider reads
// (cloudprovider/aws/aws_manager.go buildNodeFromTemplate) and the aws CLI. The strings are the ones reports printed
// before the provider seam, byte for byte.
import type { Taint } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import type { ScratchTemplate } from '../../simulate/node-group-provider.js';
import type { Remedy, TemplateAspect } from '../types.js';
import { shellCommand } from '../../model/shell.js';
import { asgMaxSizeCommand, asgTagCommand } from './commands.js';

export const NODE_TEMPLATE_TAG = 'k8s.io/cluster-autoscaler/node-template/';

export function asgTemplateSourceLabel(group: NodeGroup, t: ScratchTemplate, aspect: TemplateAspect): string {
  switch (aspect) {
    case 'labels':
      return 'ASG tags';
    case 'taints':
      return `ASG ${group.name} tags`;
    case 'type':
      return `ASG, ${t.instanceType}`;
    default:
      return 'ASG';
  }
}

export function asgSetTemplateLabels(edits: Array<{ group: NodeGroup; key: string; value: string }>): Remedy {
  return {
    intro: 'tell CA the label its nodes get (kubelet --node-labels is invisible to CA):',
    commands: edits.map((e) => asgTagCommand(e.group.name, `${NODE_TEMPLATE_TAG}label/${e.key}`, e.value)),
    possible: true,
  };
}

export function asgSetTemplateTaint(group: NodeGroup, taint: Taint): Remedy {
  return {
    intro: 'tell CA the taint its nodes get (kubelet --register-with-taints is invisible to CA):',
    commands: [asgTagCommand(group.name, `${NODE_TEMPLATE_TAG}taint/${taint.key}`, `${taint.value ?? ''}:${taint.effect}`)],
    possible: true,
  };
}

export function asgSetTemplateResource(group: NodeGroup, resource: string, quantity: string): Remedy {
  return {
    intro: 'tell CA the resource its nodes have:',
    commands: [asgTagCommand(group.name, `${NODE_TEMPLATE_TAG}resources/${resource}`, quantity)],
    possible: true,
  };
}

export function asgInspectFailures(group: NodeGroup): Remedy {
  return {
    intro: "Find the failure in the ASG's scaling activities:",
    commands: [shellCommand(['aws', 'autoscaling', 'describe-scaling-activities', '--auto-scaling-group-name', group.name, '--max-items', '5'])],
    possible: true,
  };
}

export function asgLowerMinSize(group: NodeGroup, minSize: number): Remedy {
  return {
    intro: 'If the group may shrink, lower its min size:',
    commands: [shellCommand(['aws', 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', group.name, '--min-size', String(minSize)])],
    possible: true,
  };
}

export function asgRaiseMaxSize(group: NodeGroup, maxSize: number): Remedy {
  return { intro: "Raise the ASG's max size, e.g.", commands: [asgMaxSizeCommand(group.name, maxSize)], possible: true };
}
