// The `asg-audit -o json` contract for node groups: what CA sees for each audited ASG.
import type { NodeGroupVia } from './node-group.js';

export interface TemplateReport {
  /** 'node' = a real node of the group, 'asg' = CA's scratch template from the ASG, 'none' = CA has no template. */
  source: 'node' | 'asg' | 'provider' | 'none';
  instanceType?: string;
  /** The real node the template was copied from. */
  fromNode?: string;
  /** Why there is no template, in CA's words where CA has some. */
  reason?: string;
  labels: Record<string, string>;
  taints: Array<{ key: string; value: string; effect: string }>;
  /** Kubernetes quantity strings, as a Node's status holds them. */
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
}

export interface NodeGroupReport {
  name: string;
  discovered: boolean;
  via: NodeGroupVia;
  /** CA's view: --nodes min/max override the ASG's own. */
  minSize: number;
  maxSize: number;
  desiredCapacity: number;
  asgMinSize: number;
  asgMaxSize: number;
  zones: string[];
  /** What the group launches: MixedInstancesPolicy overrides in API order, else the launch template / configuration type. */
  instanceTypes: string[];
  /** Kubernetes nodes of this cluster backed by the group's instances. */
  nodes: number;
  /** The template CA uses now. */
  template: TemplateReport;
  /** What CA would build with no node (scale from zero, or after a CA restart with the group at zero). */
  scratchTemplate: TemplateReport;
}
