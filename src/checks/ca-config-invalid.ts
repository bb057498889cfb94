import { caVersionText } from '../simulate/ca-config.js';
import { preflightOf } from '../simulate/preflight.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-config-invalid',
    title: 'Cluster Autoscaler flags CA would reject',
    summary:
      'A flag CA fails to start with: unknown flag, bad value, malformed --nodes or --node-group-auto-discovery.',
    severity: 'error',
    // preflight: on a CA Deployment among the manifests (or --ca-args), before it reaches the cluster
    commands: ['why-pending', 'preflight'],
    requires: ['deployments'],
    messages: {
      invalid: 'CA flags ({where}) have a value CA {version} rejects: {error}.',
      unknown: 'CA flags ({where}) pass {flag}, which CA {version} does not know; CA exits with "unknown flag".',
      tooOld:
        'CA flags ({where}) pass {flag}, which CA has only from 1.{since}; CA {version} exits with "unknown flag".',
      removed:
        'CA flags ({where}) pass {flag}, which CA removed in 1.{until}; CA {version} exits with "unknown flag".',
    },
    upstream: 'cluster-autoscaler config/flags/flags.go; config/dynamic/node_group_spec.go',
  },
  run(ctx) {
    const ca = ctx.analysis.ca;
    if (!ca.found && ca.overrideArgs.length === 0) return;
    // preflight judges what the change ships: a CA Deployment among the manifests, or --ca-args, not the cluster's
    if (ctx.command === 'preflight' && preflightOf(ctx.analysis)?.caConfigSource === 'cluster') return;
    const deployment = ca.found ? `Deployment ${ca.deployment?.namespace ?? ''}/${ca.deployment?.name ?? ''}` : '';
    const where = [deployment, ca.overrideArgs.length ? '--ca-args' : ''].filter(Boolean).join(' and ');
    const version = caVersionText(ca);
    const subject = {
      kind: 'Deployment',
      name: ca.deployment?.name ?? 'cluster-autoscaler',
      namespace: ca.deployment?.namespace,
    };
    // unknown flags are reported once, by the 'unknown' message below
    for (const error of ca.errors.filter((e) => !e.startsWith('unknown flag:'))) {
      ctx.report({
        messageId: 'invalid',
        data: { where, version, error: collapseRepeatedPrefix(error) },
        subject,
        evidence: [{ source: 'CA container args', observed: ca.deploymentArgs.join(' ') }],
        remediation:
          'Fix the flag on the Deployment; check the CA pod logs (kubectl logs -n kube-system deploy/cluster-autoscaler) for the start-up error.',
      });
    }
    const versioned = new Map((ca.versionedFlags ?? []).map((f) => [f.flag, f]));
    for (const flag of ca.unknownFlags) {
      const known = versioned.get(flag);
      const evidence = [{ source: 'CA container args', observed: flag }];
      if (known?.since !== undefined) {
        ctx.report({
          messageId: 'tooOld',
          data: { where, version, flag, since: known.since },
          subject,
          evidence: [...evidence, { source: 'CA releases', observed: `${flag} exists from cluster-autoscaler 1.${known.since}.0` }],
          remediation: `Upgrade CA to 1.${known.since} or newer, or drop ${flag} from the Deployment.`,
        });
      } else if (known?.until !== undefined) {
        ctx.report({
          messageId: 'removed',
          data: { where, version, flag, until: known.until },
          subject,
          evidence: [...evidence, { source: 'CA releases', observed: `${flag} is gone from cluster-autoscaler 1.${known.until}.0` }],
          remediation: `Drop ${flag} from the Deployment (CA 1.${known.until} removed it).`,
        });
      } else {
        ctx.report({
          messageId: 'unknown',
          data: { where, version, flag },
          subject,
          evidence,
          remediation: 'Remove the flag: no upstream CA release has it (check its spelling).',
        });
      }
    }
  },
});

/** CA wraps some errors twice ("failed to parse node group spec: failed to parse node group spec: ..."); say it once. */
export function collapseRepeatedPrefix(error: string): string {
  return error.replace(/^([^:]{3,80}: )\1+/, '$1');
}
