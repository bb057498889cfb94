import type { AutoScalingGroup } from '../model/aws.js';
import { auditedAsgGroups } from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { caSubject, listNames } from '../providers/aws/asg-audit-checks.js';

function matches(asg: AutoScalingGroup, tags: Record<string, string | undefined>): boolean {
  const have = new Map((asg.Tags ?? []).map((t) => [t.Key, t.Value ?? '']));
  return Object.entries(tags).every(([k, v]) => have.has(k) && (v === undefined || have.get(k) === v));
}

const fmtTags = (tags: Record<string, string | undefined>) =>
  Object.entries(tags)
    .map(([k, v]) => (v === undefined ? k : `${k}=${v}`))
    .join(',');

export default defineCheck({
  meta: {
    id: 'discovery-specs-anded',
    title: 'Several --node-group-auto-discovery flags are ANDed, not ORed',
    summary:
      'CA merges every --node-group-auto-discovery flag into one tag filter: an ASG must carry the tags of all of them.',
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups'],
    providers: ['aws'],
    messages: {
      excluded:
        'CA merges its {count} --node-group-auto-discovery flags into one filter ({merged}); {groups} match one flag but not all, so CA does not manage them.',
      overridden:
        'CA merges its --node-group-auto-discovery flags and the later value of tag {key} wins: {values}.',
      anded:
        'CA merges its {count} --node-group-auto-discovery flags into one filter ({merged}); ASGs must carry all of these tags.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/auto_scaling_groups.go buildAsgTags; kubernetes/autoscaler#7009 (closed unmerged)',
  },
  run(ctx) {
    const a = ctx.analysis;
    const specs = a.ca.autoDiscovery.specs.filter((s) => !s.error);
    if (specs.length < 2) return;
    const merged = fmtTags(a.ca.autoDiscovery.tags);
    const subject = caSubject(a);
    const evidence = [
      { source: 'CA flags', observed: specs.map((s) => `--node-group-auto-discovery=${s.raw}`).join(' ') },
    ];
    const values = new Map<string, Array<string | undefined>>();
    for (const s of specs)
      for (const [k, v] of Object.entries(s.tags)) values.set(k, [...(values.get(k) ?? []), v]);
    let reported = false;
    for (const [key, vs] of values) {
      if (new Set(vs).size < 2) continue;
      reported = true;
      ctx.report({
        messageId: 'overridden',
        data: { key, values: vs.map((v) => v ?? '(any value)').join(' then ') },
        subject,
        evidence,
        remediation: `Put every tag into one flag, e.g. --node-group-auto-discovery=asg:tag=${merged}; CA cannot OR two values of one tag.`,
      });
    }
    const excluded = auditedAsgGroups(a).filter(
      (g) =>
        !g.discovered &&
        g.via === 'none' &&
        specs.some((s) => matches(g.asg, s.tags)) &&
        !matches(g.asg, a.ca.autoDiscovery.tags),
    );
    if (excluded.length > 0) {
      reported = true;
      ctx.report({
        messageId: 'excluded',
        data: { count: specs.length, merged, groups: listNames(excluded.map((g) => g.name)) },
        subject,
        evidence: [
          ...evidence,
          ...excluded.slice(0, 5).map((g) => ({
            source: `ASG ${g.name}`,
            observed: `matches ${specs
              .filter((s) => matches(g.asg, s.tags))
              .map((s) => s.raw)
              .join(' and ')}`,
            expected: `all of ${merged}`,
          })),
        ],
        remediation:
          'To manage groups with different tags, give them one common tag and discover by it (one flag), or list them with --nodes. Several discovery flags never widen the selection.',
      });
    }
    if (!reported) {
      ctx.report({
        messageId: 'anded',
        severity: 'info',
        data: { count: specs.length, merged },
        subject,
        evidence,
        remediation: `Write it as one flag to make the AND explicit: --node-group-auto-discovery=asg:tag=${merged}`,
      });
    }
  },
});
