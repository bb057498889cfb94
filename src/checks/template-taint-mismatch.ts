import { formatTaint } from '../model/k8s.js';
import {
  auditedGroups,
  relevanceText,
  scratchRelevance,
  taintDrifts,
} from '../providers/aws/asg-audit.js';
import { TAINT_PREFIX } from '../providers/aws/template.js';
import { defineCheck } from './define-check.js';
import {
  deleteTagCommand,
  groupSubject,
  severityFor,
  softer,
  tagCommand,
  workloadList,
} from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'template-taint-mismatch',
    title: "CA's scale-from-zero template and the group's nodes disagree on taints",
    summary:
      'Real nodes carry a taint the scratch template lacks (CA scales the group for pods that cannot run there), or the template has a taint the nodes lack (CA never scales it for their pods).',
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'pods'],
    providers: ['aws'],
    messages: {
      missing:
        "Node group {group}: new nodes get taint {taint} ({source}) but CA's scratch template does not have it; CA would scale the group for pods that do not tolerate it: {workloads} ({when}).",
      extra:
        "Node group {group}: CA's scratch template has taint {taint}, new nodes do not ({source}); CA would not scale the group for {workloads} ({when}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go extractTaintsFromAsg; kubernetes/autoscaler#6481, #5902, #6452',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const g of auditedGroups(a)) {
      if (!g.discovered) continue;
      const relevance = scratchRelevance(a, g);
      for (const d of taintDrifts(a, g)) {
        if (d.workloads.length === 0 && relevance === 'unlikely') continue;
        const base = severityFor(relevance);
        const severity = d.workloads.length === 0 ? softer(base) : base;
        const taint = formatTaint(d.taint);
        const key = `${TAINT_PREFIX}${d.taint.key}`;
        ctx.report({
          messageId: d.kind,
          severity,
          data: {
            group: g.name,
            source: d.source,
            taint,
            workloads: workloadList(d.workloads),
            when: relevanceText(relevance, g),
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            {
              source: d.source,
              observed: d.kind === 'missing' ? `taint ${taint}` : `no taint ${d.taint.key}`,
            },
            {
              source: `ASG ${g.name} scratch template`,
              observed: d.kind === 'missing' ? `no taint ${d.taint.key}` : `taint ${taint}`,
            },
            ...d.pendingPods.slice(0, 5).map((p) => ({ source: `Pod ${p}`, observed: 'Pending' })),
          ],
          remediation:
            d.kind === 'missing'
              ? `Tell CA the taint new nodes get:\n  ${tagCommand(g.name, key, `${d.taint.value ?? ''}:${d.taint.effect}`)}`
              : `Remove the template taint if nodes no longer get it:\n  ${deleteTagCommand(g.name, key)}\nor make the nodes register with it again (kubelet --register-with-taints=${taint}).`,
        });
      }
    }
  },
});
