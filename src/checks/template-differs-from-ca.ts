import { parseQuantity } from '../model/quantity.js';
import { diffTemplates } from '../simulate/ca-record.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'template-differs-from-ca',
    title: "CA's own template node for a group differs from the one casdoctor builds",
    summary:
      "CA's /snapshotz (--debugging-snapshot-enabled) holds CA's real template per group; a label, taint or resource that differs from casdoctor's template changes what fits.",
    severity: 'warning',
    commands: ['why-pending', 'asg-audit'],
    requires: ['autoScalingGroups'],
    requiresRecord: ['caSnapshotz'],
    messages: {
      differs: "Node group {group}: CA's template differs from casdoctor's in {count} field(s): {fields}.",
      missing: "Node group {group}: CA's snapshot has no template for it, casdoctor builds one from {source}.",
      error: "CA's /snapshotz could not be read: {error}.",
    },
    upstream: 'cluster-autoscaler debuggingsnapshot/debugging_snapshot.go (TemplateNodes); processors/nodeinfosprovider',
  },
  run(ctx) {
    const a = ctx.analysis;
    const snap = a.caSnapshotz;
    if (!snap) return;
    const subjectCa = { kind: 'Deployment', name: a.ca.deployment?.name ?? 'cluster-autoscaler', namespace: a.ca.deployment?.namespace ?? 'kube-system' };
    if ('error' in snap && !('templates' in snap)) {
      ctx.report({ messageId: 'error', severity: 'info', data: { error: snap.error }, subject: subjectCa, evidence: [{ source: 'CA /snapshotz', observed: snap.error }] });
      return;
    }
    if (!snap.hasTemplates) {
      ctx.skip('not-provided', "CA's /snapshotz has no TemplateNodes (CA before 1.26 did not include them): upgrade CA to compare templates");
      return;
    }
    const q = (s: string) => {
      try {
        return parseQuantity(s);
      } catch {
        return Number.NaN;
      }
    };
    for (const g of a.nodeGroups) {
      if (!g.discovered) continue;
      const ours = a.template(g);
      const theirs = snap.templates.get(g.name);
      const subject = { kind: a.provider.words.groupKind, name: g.name };
      if (!theirs) {
        if (ours.node)
          ctx.report({
            messageId: 'missing',
            severity: 'info',
            data: { group: g.name, source: ours.source === 'node' ? `node ${ours.fromNode}` : ours.source === 'asg' ? 'the ASG' : ctx.analysis.provider.templateSourceLabel(g, ours, 'any', ctx.analysis.providerContext) },
            subject,
            nodeGroup: g.name,
            evidence: [{ source: 'CA /snapshotz', observed: `TemplateNodes has ${snap.templates.size} group(s), not ${g.name}` }],
          });
        continue;
      }
      if (!ours.node) continue;
      const diffs = diffTemplates(theirs.node, ours.node, q);
      if (diffs.length === 0) continue;
      const fields = diffs
        .slice(0, 8)
        .map((d) => `${d.field} ${d.key} (CA: ${d.ca ?? 'absent'}, casdoctor: ${d.casdoctor ?? 'absent'})`)
        .join('; ');
      ctx.report({
        messageId: 'differs',
        data: { group: g.name, count: diffs.length, fields: diffs.length > 8 ? `${fields}; and ${diffs.length - 8} more` : fields },
        subject,
        nodeGroup: g.name,
        evidence: diffs.map((d) => ({ source: `CA /snapshotz TemplateNodes[${g.name}] ${d.field} ${d.key}`, observed: d.ca ?? 'absent', expected: `casdoctor: ${d.casdoctor ?? 'absent'}` })),
        remediation:
          ours.source === 'node'
            ? `casdoctor copies a current node of the group (${ours.fromNode}); CA keeps the template of the node it last saw healthy until it restarts. If the group's nodes changed (new AMI, labels), CA's template is stale: restart CA to rebuild it.`
            : "casdoctor builds the scratch template from the ASG's launch template, instance type and node-template tags as CA does; a difference means a tag, instance-type table or CA version difference. Check the node-template tags and CA's version.",
      });
    }
  },
});
