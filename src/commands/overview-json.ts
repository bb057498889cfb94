// `casdoctor -o json|yaml`: the overview as a machine document (docs/json.md), for dashboards and alerts.
import type { JsonReport } from '../report/json.js';
import type { OverviewData } from './overview-data.js';

/** The overview's counts as data; the lines a person reads (CA's, IAM's, each NodePool's) are kept as text. */
export function overviewJson(d: OverviewData, now: Date): JsonReport {
  const k = d.karpenter;
  return {
    schemaVersion: 1,
    command: 'overview',
    now: now.toISOString(),
    // the node groups' error findings the overview names (the first three): asg-audit -o json has every finding
    findings: d.asg.top,
    skipped: [],
    // a Karpenter-only cluster has no CA to describe (the text overview says the same)
    clusterAutoscaler: { lines: d.ca },
    pending: {
      total: d.pending.total,
      noScaleUp: d.pending.noScaleUp,
      scaleUp: d.pending.scaleUp,
      fitsExistingNode: d.pending.fitsNode,
      // counted by the verdict of the autoscaler that serves each pod (its route), as why-pending's JSON v3
      ignored: d.pending.ignored,
      notEvaluated: d.pending.notEvaluated ?? 0,
      caNotRunning: d.pending.caNotRunning ?? 0,
      noScaleUpPods: d.pending.blocked,
    },
    ...(d.karpenterOnly ? { karpenterOnly: true } : {}),
    scaleDown: {
      nodes: d.scaleDown.nodes,
      removable: d.scaleDown.removable,
      kept: d.scaleDown.topReasons.map(([reason, count]) => ({ reason, count })),
      ...(d.scaleDown.notEvaluated ? { notEvaluated: d.scaleDown.notEvaluated } : {}),
      ...(d.scaleDown.caNotRunning ? { caNotRunning: true } : {}),
    },
    ...(d.karpenterOnly
      ? {}
      : {
          nodeGroups: {
            provider: d.provider?.id ?? 'aws',
            ...(d.provider ? { source: d.provider.source } : {}),
            findings: { error: d.asg.error, warning: d.asg.warning, info: d.asg.info },
          },
        }),
    iam: d.iam,
    ...(k
      ? {
          karpenter: {
            lines: k.lines,
            nodePools: k.nodePools,
            routes: k.routes,
            podsByRoute: k.podsByRoute,
            nodes: { total: k.nodes.total, kept: k.nodes.kept, byBlocker: k.nodes.byBlocker.map(([checkId, count]) => ({ checkId, count })) },
          },
        }
      : {}),
  };
}
