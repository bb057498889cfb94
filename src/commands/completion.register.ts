import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerCompletion(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('print a shell completion script (subcommands, flags, and pod, node and ASG names: live, or from --from)')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      `
Examples:
  source <(casdoctor completion bash)          # bash, e.g. in ~/.bashrc
  source <(casdoctor completion zsh)           # zsh, e.g. in ~/.zshrc
  casdoctor completion fish | source           # fish`,
    )
    .action(async (shell: string, _opts: unknown, cmd: Command) => {
      const { runCompletion } = await import('./completion.js');
      ctx.setResult(await runCompletion(shell, program, ctx.deps()));
      void cmd;
    });

  // what the completion scripts run after --from: the names in the dump, one a line (no live cluster to ask)
  program
    .command('__names', { hidden: true })
    .argument('<kind>', 'pending-pods, nodes or namespaces')
    .option('-n, --namespace <ns>', 'pending-pods: only this namespace')
    .action(async (kind: string, opts: { namespace?: string }, cmd: Command) => {
      const { runNames } = await import('./completion.js');
      ctx.setResult(await runNames(kind, { ...ctx.globalOptions(cmd), namespace: opts.namespace }, ctx.deps()));
    });
}
