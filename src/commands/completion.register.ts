import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerCompletion(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('print a shell completion script (subcommands, flags, and live pod, node and ASG names)')
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
}
