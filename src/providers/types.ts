import type { CaConfig } from '../model/ca-config.js';
import type { NodeGroup, NodeGroupsResult } from '../model/node-group.js';
import type { GroupScaleDownOptions } from '../model/scale-down.js';
import type { DataKind, RawInputs } from '../model/snapshot.js';
import type { ConfigMap, Deployment, Taint } from '../model/k8s.js';
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
 * consumes only this; a new provider is a new folder under src/providers/ and one line in src/providers/index.ts.
 * Generic code asks these members, never the provider's id: a new provider gets its own words or a compile error.
 */
export interface NodeGroupProvider extends TemplateProvider {
  readonly id: string;
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
  /** Every sentence and name that differs by provider (reports, findings, fixes). */
  readonly words: ProviderWords;
  /**
   * The snapshot kinds the groups are listed from (AWS: autoScalingGroups). Empty when the provider's groups come from
   * its own config (externalgrpc's ConfigMap or file), which describeSource names.
   */
  readonly groupKinds: readonly DataKind[];
  /** The audit command that reports this provider's groups (asg-audit on AWS; node-group-audit elsewhere). */
  readonly auditCommand: 'asg-audit' | 'node-group-audit';
  /** Whether a finding may suggest cloud instance types that fit (AWS: EC2 types CA can launch). */
  readonly suggestsInstanceTypes: boolean;
  /** Why CA's scale-up of the group yields no node although CA raises its size (AWS: the Launch process suspended). */
  scaleUpBlockers(group: NodeGroup): string[];
  /** Whether the group's own template data declares this label / taint / resource (AWS: a node-template tag). */
  templateDeclares(group: NodeGroup, aspect: 'label' | 'taint' | 'resources', key: string): boolean;
  /** The group's own key=value metadata a report may match a pod's wishes against (AWS: the ASG's tags). */
  groupTags(group: NodeGroup): string[];
  /** The instance types the group launches besides its template's (AWS: a MixedInstancesPolicy's overrides). */
  launchedInstanceTypes(group: NodeGroup): string[];
  /** ConfigMaps the provider reads, by name: live gathering GETs them, a snapshot keeps them through keepConfigMap. */
  configMapRefs?(deployments: Deployment[], ca: CaConfig): ConfigMapRef[];
  /** What a snapshot keeps of one of those ConfigMaps (credentials and scripts stay out). */
  keepConfigMap?(ref: ConfigMapRef, cm: ConfigMap): ConfigMap;
}

/** A ConfigMap a provider reads, and why (for the RBAC hint when it is forbidden). */
export interface ConfigMapRef {
  namespace: string;
  name: string;
  why: string;
}

/** How a provider names its things and says its advice: the sentences generic checks and commands print. */
export interface ProviderWords {
  /** The provider's name in a table of checks: "AWS", "externalgrpc". */
  readonly title: string;
  /** What a check tagged with this provider is about: "AWS Auto Scaling groups". */
  readonly checksSubject: string;
  /** A group as a finding's subject kind: "AutoScalingGroup", "NodeGroup". */
  readonly groupKind: string;
  /** A group in a short phrase: "ASG", "node group". */
  readonly groupShort: string;
  /** Placement advice by constraint where the provider's differs from the generic one (workload-unplaceable). */
  readonly placementAdvice?: Partial<Record<string, string>>;
  /** Groups counted in prose: "Auto Scaling group(s)", "node group(s)"; default "node group(s)". */
  readonly groupsCounted?: string;
  /** A group as an evidence source: "ASG web", "externalgrpc node group web". */
  groupSource(name: string): string;
  /** The size fields as the provider spells them: DesiredCapacity / MinSize, targetSize / minSize. */
  readonly targetSizeField: string;
  readonly minSizeField: string;
  /** The target size in prose: "desired capacity", "target size". */
  readonly targetSizeProse: string;
  /** What to look at and fix when a group's new nodes do not become Ready. */
  unhealthyFix(group: NodeGroup, ctx: ProviderContext, provider: NodeGroupProvider): string;
  /** The usual causes of failed launches, in a parenthesis. */
  readonly backoffCauses: string;
  /** A group CA has no template for: the evidence's source, what was expected, and the fix. */
  noTemplateSource(group: NodeGroup, template: ScratchTemplate, ctx: ProviderContext, provider: NodeGroupProvider): string;
  readonly noTemplateExpected: string;
  readonly noTemplateFix: string;
  /** How to give CA's template what a pod needs, or stop selecting what only real nodes have. */
  readonly templateFix: string;
  /** How to fix a pod whose nodeSelector / affinity matches no group. */
  readonly selectorFix: string;
  /** Nodes in no group of the provider, and whether that needs a fix. */
  nodesOutsideGroups(ctx: ProviderContext, provider: NodeGroupProvider): string;
  /** The input holds none of the groupKinds: what to add (only when groupKinds is not empty). */
  readonly noGroupsInInput?: string;
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
