import { shellCommand } from '../model/shell.js';
import { loggedFailureText } from '../simulate/ca-record.js';
import { analyzeScaleDown } from '../simulate/scale-down.js';
import { defineCheck } from './define-check.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

const WHY =
  'CA may see a different template (it keeps the last healthy node of a group until it restarts), a different cluster (the log is from an earlier loop), or casdoctor lacks data CA has.';

export default defineCheck({
  meta: {
    id: 'ca-log-disagrees',
    title: "CA's log says something else than casdoctor about a pod × group or a node",
    summary:
      "CA's own log line for a Pending pod on a node group, or for a node in scale-down, differs from casdoctor's verdict: one of the two is wrong, and both texts are shown.",
    severity: 'warning',
    commands: ['why-pending', 'scale-down-blockers'],
    requires: ['pods'],
    messages: {
      saysFails: 'Pod {pod} on group {group}: CA logged "{logged}" at {at}, but casdoctor finds the pod fits the group.',
      saysOtherPlugin:
        'Pod {pod} on group {group}: CA logged "{logged}" at {at}, casdoctor finds "{ours}" first.',
      saysMoved:
        'Pod {pod}: CA placed it on existing node {node} at {at} (so it triggers no scale-up), but casdoctor finds no existing node fits ({ours}).',
      nodeBlocked: 'Node {node}: CA logged "{logged}" at {at}, but casdoctor finds it {ours}.',
      nodeReason: 'Node {node}: CA logged {theirs} ("{logged}") at {at}, casdoctor finds {ours}.',
      metricsBackoff:
        "Node group {group}: CA's metrics show it in backoff ({reason}), but {ours}; CA skips it for scale-up until the backoff ends.",
      metricsUnremovable:
        "CA's metrics count unremovable nodes by reason as {theirs}; casdoctor finds {ours}.",
      otherPod:
        'Node {node}: CA named {theirs} as the pod that blocks it at {at}, casdoctor names {ours} first; both block the node and CA may decide either (its pod order is not fixed).',
      unknownPod:
        'Node {node}: CA named {theirs} ({reason}) as the pod that blocks it at {at}, but casdoctor finds no such blocking pod ({ours}).',
    },
    upstream:
      'cluster-autoscaler core/scaleup/orchestrator/orchestrator.go (predicate errors, V2), simulator/scheduling/hinting_simulator.go, simulator/cluster.go',
  },
  run(ctx) {
    const a = ctx.analysis;
    const idx = a.caLogIndex;
    const metrics = a.caMetrics;
    if (!idx && !metrics) {
      ctx.skip('not-provided', a.missingRecord('caLog')?.detail ?? 'no CA log or metrics in the input');
      return;
    }
    if (metrics && ctx.command === 'why-pending') {
      // CA's own backoff gauge against what casdoctor read (the status ConfigMap)
      for (const b of metrics.backoff) {
        const g = a.nodeGroups.find((x) => x.name === b.group);
        if (!g) continue;
        const st = a.caStatus?.nodeGroups.find((x) => x.name === b.group);
        if (st?.scaleUpStatus === 'Backoff') continue;
        ctx.report({
          messageId: 'metricsBackoff',
          data: { group: b.group, reason: b.reason || 'no reason', ours: st ? `the status ConfigMap says ${st.scaleUpStatus ?? 'no backoff'}` : 'no status ConfigMap says so' },
          subject: { kind: 'AutoScalingGroup', name: b.group },
          nodeGroup: b.group,
          evidence: [{ source: 'CA /metrics', observed: `cluster_autoscaler_node_group_backoff_status{node_group="${b.group}",reason="${b.reason}"} 1` }],
          remediation: 'The status ConfigMap and the metrics come from different moments, or the status is stale (see ca-status-stale). The metric is CA\'s live state.',
        });
      }
    }
    if (metrics && ctx.command === 'scale-down-blockers' && Object.keys(metrics.unremovable).length > 0) {
      const ours: Record<string, number> = {};
      for (const n of analyzeScaleDown(a).nodes) if (n.report.caReason) ours[n.report.caReason] = (ours[n.report.caReason] ?? 0) + 1;
      const fmt = (r: Record<string, number>) =>
        Object.entries(r)
          .sort(([x], [y]) => (x < y ? -1 : 1))
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none';
      if (fmt(ours) !== fmt(metrics.unremovable))
        ctx.report({
          messageId: 'metricsUnremovable',
          severity: 'info',
          data: { theirs: fmt(metrics.unremovable), ours: fmt(ours) },
          subject: { kind: 'Deployment', name: a.ca.deployment?.name ?? 'cluster-autoscaler', namespace: a.ca.deployment?.namespace ?? 'kube-system' },
          evidence: [{ source: 'CA /metrics', observed: `cluster_autoscaler_unremovable_nodes_count: ${fmt(metrics.unremovable)}` }],
          remediation: `${WHY} CA counts the nodes of its last loop; casdoctor counts every node of the snapshot.`,
        });
    }
    if (!idx) return;
    const ns = a.ca.deployment?.namespace ?? 'kube-system';
    const dep = a.ca.deployment?.name ?? 'cluster-autoscaler';
    if (ctx.command === 'why-pending') {
      if (!idx.hasPodRecords) {
        ctx.skip(
          'not-provided',
          "CA's log has no per-pod lines (CA logs predicate errors at --v=2 and placements at --v=4): nothing to compare",
        );
        return;
      }
      for (const p of pendingAnalyses(a)) {
        const view = idx.forPod(p.pod);
        const pod = `${p.report.namespace}/${p.report.name}`;
        const grep = shellCommand(['kubectl', '-n', ns, 'logs', `deploy/${dep}`, '--since=1h']) + ` | grep -F ${shellCommand([view.via ?? pod])}`;
        if (view.movedTo && (p.report.verdict === 'scale-up' || p.report.verdict === 'no-scale-up')) {
          ctx.report({
            messageId: 'saysMoved',
            data: { pod, node: view.movedTo, at: idx.summary.lastTime ?? 'unknown time', ours: p.report.scheduler.message },
            subject: podSubject(p.pod),
            evidence: [
              { source: 'CA log', observed: `Pod ${pod} can be moved to ${view.movedTo}` },
              { source: 'casdoctor', observed: p.report.summary },
            ],
            remediation: `${WHY} CA then waits for the scheduler to bind the pod; if it never does, the two disagree about that node. Read CA's lines:\n  ${grep}`,
          });
        }
        for (const g of p.groups) {
          const f = view.failures.get(g.group.name);
          if (!f) continue;
          const logged = loggedFailureText(f) + (view.via && view.via !== pod ? ` (for ${view.via}, same controller)` : '');
          const at = f.lastSeen ?? 'unknown time';
          const evidence = [
            { source: 'CA log', observed: `Pod ${f.pod} can't be scheduled on ${f.group}: ${f.error}` },
            { source: 'casdoctor', observed: g.failures.length ? g.failures.map((x) => `${x.plugin}: ${x.reasons.join(', ')}`).join('; ') : 'passes every predicate' },
          ];
          if (g.failures.length === 0 && g.notEvaluated.length === 0 && g.template.node) {
            ctx.report({
              messageId: 'saysFails',
              data: { pod, group: g.group.name, logged, at },
              subject: podSubject(p.pod),
              nodeGroup: g.group.name,
              evidence,
              remediation: `${WHY} Compare CA's template with casdoctor's (CA's /snapshotz with --debugging-snapshot-enabled shows it). Read CA's lines:\n  ${grep}`,
            });
          } else if (f.plugin && g.failures.length > 0 && !g.failures.some((x) => x.plugin === f.plugin)) {
            ctx.report({
              messageId: 'saysOtherPlugin',
              severity: 'info',
              data: { pod, group: g.group.name, logged, at, ours: `${g.failures[0].plugin}: ${g.failures[0].reasons.join(', ')}` },
              subject: podSubject(p.pod),
              nodeGroup: g.group.name,
              evidence,
              remediation: `The scheduler stops at the first failing plugin, and both fail the group; fix both. ${WHY}`,
            });
          }
        }
      }
      return;
    }
    if (!idx.hasNodeRecords) {
      ctx.skip('not-provided', "CA's log has no scale-down lines for nodes (CA logs them at --v=2 to --v=4): nothing to compare");
      return;
    }
    for (const n of analyzeScaleDown(a).inScope) {
      const rec = idx.forNode(n.name);
      if (!rec) continue;
      const ours = n.report.removable ? 'removable' : `unremovable: ${n.report.caReason ?? 'unknown'}`;
      const at = rec.lastSeen ?? 'unknown time';
      const evidence = [
        { source: 'CA log', observed: `${rec.node} ${rec.message}` },
        { source: 'casdoctor', observed: n.report.summary },
      ];
      const subject = { kind: 'Node', name: n.name };
      const remediation = `${WHY} CA's scale-down simulation may also move pods to other nodes than casdoctor's, so a PDB-bound or tight node can be removable in one loop and not the next (CA may decide either). Read CA's lines:\n  ${shellCommand(['kubectl', '-n', ns, 'logs', `deploy/${dep}`, '--since=1h'])} | grep -F ${shellCommand([n.name])}`;
      if (rec.status === 'unremovable' && n.report.removable) {
        ctx.report({ messageId: 'nodeBlocked', data: { node: n.name, logged: rec.message, at, ours }, subject, evidence, remediation });
      } else if ((rec.status === 'removable' || rec.status === 'unneeded' || rec.status === 'removing') && !n.report.removable && n.report.caReason !== 'NotUnneededLongEnough') {
        ctx.report({ messageId: 'nodeBlocked', data: { node: n.name, logged: rec.message, at, ours }, subject, evidence, remediation });
      } else if (rec.status === 'unremovable' && rec.reason === 'BlockedByPod' && rec.blockingPod && n.report.caReason === 'BlockedByPod') {
        // CA names the first blocking pod in the node's pod list, whose order CA does not fix (utils/drain, pod listers)
        const theirs = `${rec.blockingPod.namespace ? `${rec.blockingPod.namespace}/` : ''}${rec.blockingPod.name}`;
        const same = (b: { namespace: string; name: string }) =>
          b.name === rec.blockingPod!.name && (rec.blockingPod!.namespace === undefined || b.namespace === rec.blockingPod!.namespace);
        const first = n.report.blockingPods.find((b) => b.first) ?? n.report.blockingPods[0];
        if (first && same(first)) continue;
        const listed = n.report.blockingPods.find(same);
        const oursText = first ? `${first.namespace}/${first.name} (${first.caReason})` : 'none';
        ctx.report({
          messageId: listed ? 'otherPod' : 'unknownPod',
          severity: listed ? 'info' : 'warning',
          data: { node: n.name, theirs, reason: rec.blockingPod.reason, at, ours: oursText },
          subject,
          evidence,
          remediation: listed
            ? `Fix every blocking pod of the node, not only the one CA names: ${n.report.blockingPods.map((b) => `${b.namespace}/${b.name} (${b.caReason})`).join(', ')}.`
            : remediation,
        });
      } else if (rec.status === 'unremovable' && rec.reason && n.report.caReason && rec.reason !== n.report.caReason) {
        ctx.report({
          messageId: 'nodeReason',
          severity: 'info',
          data: { node: n.name, theirs: rec.reason, logged: rec.message, at, ours: n.report.caReason },
          subject,
          evidence,
          remediation,
        });
      }
    }
  },
});
