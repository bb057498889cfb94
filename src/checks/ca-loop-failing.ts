import type { CaLogHealthKind, CaLogSummary } from '../model/ca-log.js';
import { shellCommand } from '../model/shell.js';
import { isFresh } from '../simulate/ca-record.js';
import { defineCheck } from './define-check.js';

/** Loop-level errors that stop CA from scaling, in CA's words, with what each means. */
const STOPPING: Partial<Record<CaLogHealthKind, string>> = {
  'failed-to-create-aws-manager': 'CA cannot start its AWS provider',
  'failed-to-regenerate-asg-cache': 'CA cannot list its ASGs, so the loop ends before any scaling',
  'failed-to-fix-node-group-sizes': 'CA cannot reconcile a group\'s size, so the loop ends before any scaling',
  'failed-to-get-node-infos': 'CA cannot build a node group\'s template, so the loop ends before any scaling',
  'cluster-not-ready': 'CA considers the cluster unhealthy and does no scaling',
};

/** The one object a loop error names: an instance type, a node group, a providerID, an IAM action — from its own text first. */
export function objectOf(log: CaLogSummary, message: string): string | undefined {
  const hybrid = /(eks-hybrid:\/\/\S+|[a-z0-9-]+:\/\/\S*)/.exec(message);
  if (hybrid && !/^https?:/.test(hybrid[1])) return `providerID ${hybrid[1].replace(/[",)]+$/, '')}`;
  const type = /instance type "?([a-z0-9-]+\.[a-z0-9-]+)"?/i.exec(message);
  const asg = /(?:node group|nodegroup|ASG|asg) "?([A-Za-z0-9._:/-]+?)"?(?=[\s:,;)]|$)/.exec(message);
  if (type) return `instance type ${type[1]}${asg ? ` (ASG ${asg[1]})` : ''}`;
  const action = /not authorized to perform:? ([a-z0-9-]+:[A-Za-z]+)(?: on resource:? (\S+))?/.exec(message);
  if (action) return `${action[1]}${action[2] ? ` on ${action[2].replace(/[",]+$/, '')}` : ''}`;
  // otherwise the AWS error CA logged with this very message
  for (const e of log.awsErrors) {
    if (!isFresh(e.lastSeen, log) || !(message.includes(e.message) || e.message.includes(message))) continue;
    if (e.kind === 'web-identity') return `role ${e.resource ?? e.principal ?? "(CA's IRSA role)"}`;
    if (e.kind === 'access-denied' && e.action) return `${e.action}${e.resource ? ` on ${e.resource}` : ''}`;
    if (e.kind === 'no-availability-zone' && e.group) return `ASG ${e.group} (no AvailabilityZones)`;
  }
  return asg ? `node group ${asg[1]}` : undefined;
}

export default defineCheck({
  meta: {
    id: 'ca-loop-failing',
    title: 'CA runs but every loop fails before it scales',
    summary:
      'CA logs a fatal error, an AWS identity failure, a loop-stopping error ("Failed to fix node group sizes", "Failed to get node infos"), or the same error every loop; or reports the cluster unsafe to autoscale.',
    severity: 'error',
    commands: ['why-pending', 'asg-audit', 'scale-down-blockers'],
    requires: ['deployments'],
    messages: {
      fatal: 'CA exited with a fatal error at {at}: "{message}".',
      stopping: 'CA logged "{message}" {count} time(s), last at {at}: {meaning}{object}.',
      repeated: 'CA logged the same {level} in {loops} of {total} loops, last at {at}: "{message}".',
      forbidden:
        'CA cannot list {resource} ({count} time(s), last at {at}): its ClusterRole lacks list and watch on {resource}{group}, so what CA reads from them is missing.',
      failedScaleUps:
        "CA's metrics count {count} failed scale-up(s) since CA started ({reasons}): each backs the group off for up to 30 minutes.",
      skippedScaleUps:
        "CA's metrics count {count} scale-up(s) CA skipped for cluster resource limits ({reasons}): --cores-total / --memory-total stop it.",
      unsafe:
        'CA reports cluster_safe_to_autoscale 0: it considers the cluster unhealthy (too many unready nodes) and scales nothing.',
    },
    upstream:
      'cluster-autoscaler core/static_autoscaler.go RunOnce; cloudprovider/aws/aws_manager.go; metrics/metrics.go cluster_safe_to_autoscale',
  },
  run(ctx) {
    const a = ctx.analysis;
    const log = a.caLog;
    const metrics = a.caMetrics;
    if (!log && !metrics) {
      ctx.skip('not-provided', a.missingRecord('caLog')?.detail ?? 'no CA log or metrics in the input');
      return;
    }
    const ns = a.ca.deployment?.namespace ?? 'kube-system';
    const dep = a.ca.deployment?.name ?? 'cluster-autoscaler';
    const subject = { kind: 'Deployment', name: dep, namespace: ns };
    const logs = shellCommand(['kubectl', '-n', ns, 'logs', `deploy/${dep}`, '--since=30m']);
    if (metrics?.safeToAutoscale === 0) {
      ctx.report({
        messageId: 'unsafe',
        data: {},
        subject,
        evidence: [{ source: 'CA /metrics', observed: 'cluster_autoscaler_cluster_safe_to_autoscale 0', expected: '1' }],
        remediation: `Find the unready nodes CA counts (--max-total-unready-percentage 45, --ok-total-unready-count 3):\n  ${shellCommand(['kubectl', 'get', 'nodes'])}`,
      });
    }
    if (metrics) {
      const fmt = (r: Record<string, number>) =>
        Object.entries(r)
          .sort(([x], [y]) => (x < y ? -1 : 1))
          .map(([k, v]) => `${k || 'unknown'} ${v}`)
          .join(', ');
      const failed = Object.values(metrics.failedScaleUps).reduce((x, y) => x + y, 0);
      if (failed > 0)
        ctx.report({
          messageId: 'failedScaleUps',
          severity: 'warning',
          data: { count: failed, reasons: fmt(metrics.failedScaleUps) },
          subject,
          evidence: [{ source: 'CA /metrics', observed: `cluster_autoscaler_failed_scale_ups_total: ${fmt(metrics.failedScaleUps)}` }],
          remediation: 'See node-group-backoff and asg-scaling-activity-failed for the groups and AWS\'s reasons; the counter only grows until CA restarts.',
        });
      const skippedUp: Record<string, number> = {};
      for (const e of metrics.skippedScaleEvents) if (e.direction === 'up') skippedUp[e.reason] = (skippedUp[e.reason] ?? 0) + e.count;
      const skippedCount = Object.values(skippedUp).reduce((x, y) => x + y, 0);
      if (skippedCount > 0)
        ctx.report({
          messageId: 'skippedScaleUps',
          severity: 'info',
          data: { count: skippedCount, reasons: fmt(skippedUp) },
          subject,
          evidence: [{ source: 'CA /metrics', observed: `cluster_autoscaler_skipped_scale_events_count{direction="up"}: ${fmt(skippedUp)}` }],
          remediation: 'See cluster-scale-up-limit for the limits and what the cluster uses now.',
        });
    }
    if (!log) return;
    for (const f of log.fatals) {
      ctx.report({
        messageId: 'fatal',
        data: { at: f.time ?? 'unknown time', message: f.message },
        subject,
        evidence: [{ source: 'CA log', observed: f.message }],
        remediation: fixFor(f.message, logs),
      });
    }
    const reported = new Set<string>();
    for (const h of log.health) {
      if (h.kind === 'kube-api-list-failed' && h.forbidden && isFresh(h.lastSeen, log)) {
        const f = h.forbidden;
        ctx.report({
          messageId: 'forbidden',
          severity: 'warning',
          data: { resource: f.resource, group: f.group ? ` in API group ${f.group}` : '', count: h.count, at: h.lastSeen ?? 'unknown time' },
          subject,
          evidence: [{ source: 'CA log', observed: h.lastMessage }],
          remediation: `Grant CA's ClusterRole list and watch on ${f.group ? `${f.resource}.${f.group}` : f.resource} (the Helm chart's role has it since the release that added it), then check:\n  ${shellCommand(['kubectl', 'auth', 'can-i', 'list', f.group ? `${f.resource}.${f.group}` : f.resource, `--as=${f.user}`])}`,
        });
        continue;
      }
      const meaning = STOPPING[h.kind];
      if (!meaning || !isFresh(h.lastSeen, log)) continue;
      // the fatal line already says it
      if (h.kind === 'failed-to-create-aws-manager' && log.fatals.length > 0) continue;
      const object = objectOf(log, h.lastMessage);
      reported.add(h.lastMessage);
      ctx.report({
        messageId: 'stopping',
        data: {
          message: h.lastMessage,
          count: h.count,
          at: h.lastSeen ?? 'unknown time',
          meaning,
          object: object ? `; the object: ${object}` : '',
        },
        subject,
        evidence: [{ source: 'CA log', observed: `${h.count}× ${h.lastMessage}` }],
        remediation: fixFor(h.lastMessage, logs, object),
      });
    }
    const loops = log.mainLoop.count;
    for (const r of log.repeatedErrors) {
      if (loops < 3 || r.loops < Math.max(3, Math.ceil(loops / 2)) || !isFresh(r.lastSeen, log)) continue;
      if ([...reported].some((m) => r.sample.includes(m) || m.includes(r.sample))) continue;
      ctx.report({
        messageId: 'repeated',
        severity: 'warning',
        data: { level: r.level === 'W' ? 'warning' : 'error', loops: r.loops, total: loops, at: r.lastSeen ?? 'unknown time', message: r.sample },
        subject,
        evidence: [{ source: 'CA log', observed: `${r.count}× in ${r.loops} loops: ${r.sample}` }],
        remediation: fixFor(r.sample, logs, objectOf(log, r.sample)),
      });
    }
  },
});

function fixFor(message: string, logs: string, object?: string): string {
  if (/AssumeRoleWithWebIdentity|WebIdentityErr|InvalidIdentityToken/.test(message))
    return "CA cannot assume its IAM role: the role's trust policy must allow the cluster's OIDC provider and CA's service account (system:serviceaccount:<namespace>:<name>), and the service account's eks.amazonaws.com/role-arn annotation must name the role.";
  if (/AccessDenied|UnauthorizedOperation|not authorized/.test(message))
    return `Grant CA's role the action${object ? ` (${object})` : ''}; the AWS provider's README (cloudprovider/aws) lists the actions CA needs.`;
  if (/instance type|InstanceType/.test(message))
    return `CA does not know the instance type${object ? ` (${object})` : ''}: upgrade CA to a release that lists it, or set the ASG's k8s.io/cluster-autoscaler/node-template/resources/* tags.`;
  if (/providerID|provider ID|eks-hybrid/.test(message))
    return 'Before CA 1.33 one node with a providerID the AWS provider does not recognise (hybrid or Fargate nodes) fails every loop: upgrade CA to 1.33 or later.';
  return `Read the surrounding lines:\n  ${logs}`;
}
