import { shellQuote } from '../model/shell.js';
import { auditedGroups, labelDrifts, relevanceText, scratchRelevance } from '../providers/aws/asg-audit.js';
import { LABEL_PREFIX } from '../providers/aws/template.js';
import { defineCheck } from './define-check.js';
import { systemLabelAdvice, systemLabelOwner } from './lib/fix-safety.js';
import { groupSubject, isManaged, severityFor, tagCommand, workloadList } from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'template-label-missing',
    title: "CA's scale-from-zero template lacks a label the group's nodes get",
    summary:
      'Real nodes of the group carry a label (kubelet --node-labels, EKS, eksctl) that workloads select, but no node-template/label tag tells CA: it works only while a node exists.',
    severity: 'error',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'pods'],
    providers: ['aws'],
    messages: {
      missing:
        "Node group {group}: new nodes get label {label}={value} ({source}) but CA's scratch template has no {label}; selected by {workloads} ({when}).",
      differs:
        "Node group {group}: new nodes get label {label}={value} ({source}) but CA's scratch template says {label}={templateValue}; selected by {workloads} ({when}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate, extractLabelsFromAsg; kubernetes/autoscaler#3780, #4010, #4998',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const g of auditedGroups(a)) {
      if (!g.discovered) continue;
      const relevance = scratchRelevance(a, g);
      for (const d of labelDrifts(a, g)) {
        const severity =
          relevance === 'now' && d.pendingPods.length === 0 ? 'warning' : severityFor(relevance);
        const fix = tagCommand(g.name, `${LABEL_PREFIX}${d.key}`, d.expected);
        ctx.report({
          messageId: d.templateValue === undefined ? 'missing' : 'differs',
          severity,
          data: {
            group: g.name,
            source: d.source,
            label: d.key,
            value: d.expected,
            templateValue: d.templateValue ?? '',
            workloads: workloadList(d.workloads),
            when: relevanceText(relevance, g),
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          schedulerReason: "node(s) didn't match Pod's node affinity/selector",
          evidence: [
            { source: d.source, observed: `${d.key}=${d.expected}` },
            {
              source: `ASG ${g.name} scratch template`,
              observed: d.templateValue === undefined ? `no label ${d.key}` : `${d.key}=${d.templateValue}`,
              expected: `${d.key}=${d.expected}`,
            },
            ...d.pendingPods
              .slice(0, 5)
              .map((p) => ({ source: `Pod ${p}`, observed: `Pending, selects ${d.key}` })),
          ],
          // the fix rule (lib/fix-safety.ts): a label the cloud, kubelet, EKS or Karpenter sets is never a template tag
          remediation: systemLabelOwner(d.key)
            ? systemLabelAdvice(a, d.key, d.expected)
            : `Tell CA the label new nodes get (CA never reads kubelet flags or user data):\n  ${fix}` +
            (isManaged(g)
              ? `\nFor a managed node group, putting it in the node group's labels works too (CA reads them with eks:DescribeNodegroup): aws eks update-nodegroup-config --cluster-name <cluster> --nodegroup-name <name> --labels ${shellQuote(`addOrUpdateLabels={${d.key}=${d.expected}}`)}`
              : ''),
        });
      }
    }
  },
});
