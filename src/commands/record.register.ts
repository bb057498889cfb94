import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerRecord(program: Command, ctx: CliContext): void {
  program
    .command('record')
    .description('a read-only journal that outlives the 1-hour events: watches events, nodes, pods, NodeClaims and CA\'s status ConfigMap into a bounded directory that `history --from DIR` reads')
    .option('--dir <path>', 'the journal directory (created; an existing journal is resumed)')
    .option('--max-size <size>', 'the most the journal may hold on disk (256Mi, 1Gi …)', '256Mi')
    .option('--max-age <duration>', 'journal files older than this are removed (7d, 48h …)', '7d')
    .addHelpText(
      'after',
      `
Examples:
  casdoctor record --dir /var/lib/casdoctor/journal
      watch the current context until Ctrl-C or SIGTERM; started again, it resumes where it stopped
  casdoctor record --dir ./journal --max-size 1Gi --max-age 14d --context prod
      a larger, longer journal of another context
  casdoctor history --from ./journal --from ca.log --node ip-10-0-12-201.eu-west-1.compute.internal
      read it back, with any other --from sources

In a cluster: deploy/record/ (a Deployment with a get/list/watch-only ClusterRole and a volume). docs/history.md#record.

Exit codes: 0 stopped by a signal; 2 usage or environment error (no kubeconfig, a directory that is no journal).`,
    )
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      const { runRecord } = await import('./record.js');
      ctx.setResult(await runRecord({ ...ctx.globalOptions(cmd), ...opts } as never, ctx.deps()));
    });
}
