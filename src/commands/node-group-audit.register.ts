import type { Command } from 'commander';
import type { CliContext } from './register.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerNodeGroupAudit(program: Command, ctx: CliContext): void {
  program
    .command('node-group-audit')
    .description(
      "audit CA's node groups under any cloud provider: externalgrpc groups with the stage of every instance and the provider's findings; on AWS the same as asg-audit",
    )
    .option('--asg <name>', 'AWS: audit only this ASG (repeatable)', collect)
    .option('--iam-policy <file>', "AWS: CA's IAM policy, as asg-audit takes it (repeatable)", collect)
    .addHelpText(
      'after',
      `
Examples:
  casdoctor node-group-audit --from examples/externalgrpc --now 2026-11-21T10:00:00Z
  casdoctor node-group-audit -o json                          live cluster: the provider's ConfigMaps, read-only

CA's --cloud-provider picks the provider (externalgrpc, aws). On AWS this is asg-audit, which stays its name there.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above --fail-on; 2 usage, input or environment
error.`,
    )
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      const { runNodeGroupAudit } = await import('./audit.js');
      ctx.setResult(await runNodeGroupAudit({ ...ctx.globalOptions(cmd), ...opts } as never, ctx.deps()));
    });
}
