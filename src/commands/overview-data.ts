// The overview's data (casdoctor with no command): what the text and the -o json|yaml renderers both read.
import type { Finding } from '../model/findings.js';
import type { PodRoute } from '../model/why-pending.js';

export interface OverviewData {
  /** The time the report is as of (--now, the dump's own time, or the wall clock). */
  now: Date;
  ca: string[];
  /** Pending pods by the verdict of the autoscaler that serves each (its route, checks/lib/route.ts). */
  pending: { total: number; noScaleUp: number; ignored: number; scaleUp: number; fitsNode: number; notEvaluated?: number; blocked: string[]; caNotRunning?: number };
  /** Karpenter without Cluster Autoscaler: the overview is Karpenter's (no CA, ASG or IAM section). */
  karpenterOnly?: boolean;
  scaleDown: { nodes: number; removable: number; topReasons: Array<[string, number]>; caNotRunning?: boolean; notEvaluated?: string };
  asg: { error: number; warning: number; info: number; top: Finding[] };
  iam: string;
  /** CA's cloud provider when it is not aws: its id and which of its inputs it runs with (ConfigMap or file). */
  provider?: { id: string; source: string };
  /** Karpenter beside CA: its NodePools, who serves each Pending pod, the Karpenter nodes it keeps. Absent without Karpenter. */
  karpenter?: {
    lines: string[];
    nodePools: Array<{ name: string; line: string }>;
    routes: { ca: number; karpenter: number; both: number; neither: number; unknown: number };
    /** Pending pods by route, as namespace/name. */
    podsByRoute: Record<PodRoute, string[]>;
    nodes: { total: number; kept: number; byBlocker: Array<[string, number]> };
  };
}
