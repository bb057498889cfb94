import { caVersionText } from '../simulate/ca-config.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-config-invalid',
    title: 'Cluster Autoscaler flags CA would reject',
    summary:
      'A flag CA fails to start with: unknown flag, bad value, malformed --nodes or --node-group-auto-discovery.',
    severity: 'error',
    commands: ['why-pending'],
    requires: ['deployments'],
    messages: {
      invalid: 'CA flags ({where}) have a value CA {version} rejects: {error}.',
      unknown: 'CA flags ({where}) pass {flag}, which CA {version} does not know; CA exits with "unknown flag".',
    },
    upstream: 'cluster-autoscaler config/flags/flags.go; config/dynamic/node_group_spec.go',
  },
  run(ctx) {
    const ca = ctx.analysis.ca;
    if (!ca.found && ca.overrideArgs.length === 0) return;
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
        data: { where, version, error },
        subject,
        evidence: [{ source: 'CA container args', observed: ca.deploymentArgs.join(' ') }],
        remediation:
          'Fix the flag on the Deployment; check the CA pod logs (kubectl logs -n kube-system deploy/cluster-autoscaler) for the start-up error.',
      });
    }
    for (const flag of ca.unknownFlags) {
      ctx.report({
        messageId: 'unknown',
        data: { where, version, flag },
        subject,
        evidence: [{ source: 'CA container args', observed: flag }],
        remediation: 'Remove the flag, or upgrade CA to a version that has it.',
      });
    }
  },
});
