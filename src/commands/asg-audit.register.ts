import type { Command } from 'commander';
import type { CliContext } from './register.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerAsgAudit(program: Command, ctx: CliContext): void {
  program
    .command('asg-audit')
    .description(
      "audit the cluster's Auto Scaling groups as CA sees them: discovery, scale-from-zero templates, mixed instances, launch templates, placement and IAM",
    )
    .option('--asg <name>', 'audit only this ASG (repeatable)', collect)
    .option(
      '--iam-policy <file>',
      "CA's IAM policy (a policy document, or `aws iam get-policy-version` / `get-role-policy` output; repeatable), evaluated locally with the optional @cloud-copilot/iam-simulate",
      collect,
    )
    .addHelpText(
      'after',
      `
Examples:
  casdoctor asg-audit                                         live cluster and AWS, IAM simulated for CA's role
  casdoctor asg-audit --asg eks-general-20260105 -o json
  casdoctor asg-audit --from ./dump --now 2026-11-21T10:00:00Z
  casdoctor asg-audit --from examples/demo --iam-policy examples/iam/ca-policy.json

Live, the IAM checks call iam:SimulatePrincipalPolicy for the role CA runs as (IRSA, EKS Pod Identity or the node
role). Offline they need --iam-policy (npm install @cloud-copilot/iam-simulate@0.1.173, AGPL-3.0, not bundled) or
\`aws iam simulate-principal-policy\` output in --from.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above --fail-on; 2 usage, input or environment
error; 3 --iam-policy was given but the IAM checks could not run. --fail-on never always exits 0 on a completed report.`,
    )
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      const { runAsgAudit } = await import('./audit.js');
      ctx.setResult(await runAsgAudit({ ...ctx.globalOptions(cmd), ...opts } as never, ctx.deps()));
    });
}
