import type { CaConfig } from '../model/ca-config.js';
import type { NodeGroup, NodeGroupsResult, ProviderId } from '../model/node-group.js';
import type { GroupScaleDownOptions } from '../model/scale-down.js';
import type { RawInputs } from '../model/snapshot.js';
import type { Taint } from '../model/k8s.js';
import type { ScratchTemplate, TemplateProvider } from '../simulate/node-group-provider.js';

/** What a provider reads: the whole typed snapshot and CA's parsed configuration. */
export interface ProviderContext {
  raw: RawInputs;
  ca: CaConfig;
  now: Date;
}

/**
 * A CA cloud provider as casdoctor models it: which node groups CA sees, which nodes belong to them, the template CA
 * builds when no real node serves, and the per-group options. CA's simulation (why-pending, scale-down, templates)
 * consumes only this; a new provider is a new folder under src/simulate/providers/.
 */
export interface NodeGroupProvider extends TemplateProvider {
  readonly id: ProviderId;
  /** Groups CA sees, nodes mapped onto them, nodes CA does not autoscale, refresh errors. */
  buildNodeGroups(ctx: ProviderContext): NodeGroupsResult;
  /** The names this snapshot gives its cluster (AWS: CA's discovery tags, --cluster-name, owned ASGs' cluster tags). */
  clusterNames(ctx: ProviderContext, all: NodeGroupsResult): Set<string>;
  /** Whether a group matters to this cluster's report (AWS: discovered, has nodes, or tagged for the cluster). */
  isRelevant(group: NodeGroup, ctx: ProviderContext, all: NodeGroupsResult): boolean;
  // groupNoun, scratchTemplate (TemplateNodeInfo()), mergesScratchResourcesIntoRealNodes, addsKubeProxyToScratch:
  // TemplateProvider (node-group-provider.ts), what template building needs
  /** Per-group scale-down options CA reads from the provider (GetOptions); CA's flags where the provider has none. */
  scaleDownOptions(group: NodeGroup | undefined, ca: CaConfig): GroupScaleDownOptions;
  /** Where the provider's input came from, for the report: e.g. "ConfigMap kube-system/nodegroup-status". */
  describeSource(ctx: ProviderContext): string;
  /** What a template-label fix edits, in a sentence ("the tag", "the nodeTemplate label"). */
  readonly templateLabelEdit: string;
  /** How an operator puts a label on the group's real nodes, in a parenthesis. */
  readonly nodeLabelHowTo: string;
  /** What to add to an input that holds none of the provider's node groups, in a sentence. */
  readonly addNodeGroupsHint: string;
  /**
   * Where a scratch template's `aspect` comes from, in a report's parenthesis. AWS: "ASG tags", "ASG, m5.large";
   * externalgrpc: "nodeTemplate in ConfigMap kube-system/nodegroup-status".
   */
  templateSourceLabel(group: NodeGroup, template: ScratchTemplate, aspect: TemplateAspect, ctx: ProviderContext): string;
  /** The instance type a group launches when its template does not say (externalgrpc: instanceParameter's InstanceType). */
  instanceTypeOf(group: NodeGroup, ctx: ProviderContext): string | undefined;
  /** How to give the group's scratch template a label / taint / resource (several edits of one kind in one remedy). */
  setTemplateLabels(edits: Array<{ group: NodeGroup; key: string; value: string }>, ctx: ProviderContext): Remedy;
  setTemplateTaint(group: NodeGroup, taint: Taint, ctx: ProviderContext): Remedy;
  setTemplateResource(group: NodeGroup, resource: string, quantity: string, ctx: ProviderContext): Remedy;
  /** Where to find why the group's instances fail to launch (AWS: scaling activities; externalgrpc: the provider's log). */
  inspectFailures(group: NodeGroup, ctx: ProviderContext): Remedy;
  /** How to lower the group's min size to `minSize`. */
  lowerMinSize(group: NodeGroup, minSize: number, ctx: ProviderContext): Remedy;
  /** How to raise the group's max size to `maxSize`. */
  raiseMaxSize(group: NodeGroup, maxSize: number, ctx: ProviderContext): Remedy;
}

/** What of a scratch template a report speaks of: its labels, taints, resources, instance type, or the whole. */
export type TemplateAspect = 'labels' | 'taints' | 'resources' | 'type' | 'any';

/**
 * A provider's way to change a group, for a finding's remediation: `intro` ends with ":" when commands follow.
 * `commands` are shell lines, foreign values quoted (src/model/shell.ts); `note` is one more sentence, when needed.
 * `possible` is false when the provider has no way to do it (the intro then says what to do instead).
 */
export interface Remedy {
  intro: string;
  commands: string[];
  note?: string;
  possible: boolean;
}

/** The remedy as indented lines under its intro (the layout every check prints). */
export function remedyText(r: Remedy, indent = '  '): string {
  return [r.intro, ...r.commands.map((c) => `${indent}${c}`), ...(r.note ? [r.note] : [])].join('\n');
}
