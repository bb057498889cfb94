import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerScaleDownBlockers(program: Command, ctx: CliContext): void {
  program
    .command('scale-down-blockers')
    .description("explain why Cluster Autoscaler keeps each node, in CA's order and with CA's reason names")
    .argument('[node]', 'only this node, as kubectl describe node takes it (the same as --node)')
    .option('--node <name>', 'only this node: its name, node/NAME, the short name the table prints (ip-10-0-14-37), or its instance id (i-…)')
    .option('--nodegroup <name>', 'only the nodes of this node group (ASG name) or Karpenter NodePool')
    .option('-l, --selector <selector>', 'node label selector, e.g. node-pool=general,capacity!=spot')
    .option('--pick', 'at a terminal: choose the node from a searchable list')
    .option('-w, --watch [interval]', 're-gather every interval (default 30s, at least 10s), redraw, and mark what changed')
    .addHelpText(
      'after',
      `
Examples:
  casdoctor scale-down-blockers                                 every node, live cluster and AWS
  casdoctor scale-down-blockers --nodegroup demo-general -o json
  casdoctor scale-down-blockers ip-10-0-14-37                         one node, as kubectl describe node
  casdoctor scale-down-blockers --node i-0093ef85be7adedb3            by instance id, as asg-audit prints it
  casdoctor scale-down-blockers --nodegroup batch                     a Karpenter NodePool's nodes
  casdoctor scale-down-blockers -l node-pool=general --from ./dump --now 2026-11-21T10:00:00Z
  casdoctor scale-down-blockers --from examples/demo --ca-args "--min-replica-count=2"
  casdoctor scale-down-blockers --pick                          at a terminal: pick the node from a list
  casdoctor scale-down-blockers --watch 1m                      redraw every minute, marking nodes that became removable

The simulation always covers every node (PDB budgets and free capacity are shared); the filters only
choose what is reported.

Exit codes: 0 on a completed report, whatever it finds, unless --fail-on is given: then 1 when a finding
is at or above that severity. 2 usage, input or environment error.`,
    )
    .action(async (node: string | undefined, opts: Record<string, unknown>, cmd: Command) => {
      if (node !== undefined && opts.node !== undefined && opts.node !== node)
        cmd.error(`error: the node is named twice: ${node} and --node ${String(opts.node)}; give one`, { exitCode: 2, code: 'casdoctor.usage' });
      if (node !== undefined) opts = { ...opts, node };
      const { runScaleDownBlockers } = await import('./scale-down-blockers.js');
      // findings fail the run only when the user asked for it: the global --fail-on default does not apply here
      const failOnExplicit = cmd.getOptionValueSourceWithGlobals('failOn') === 'cli';
      ctx.setResult(
        await runScaleDownBlockers({ ...ctx.globalOptions(cmd), ...opts, failOnExplicit } as never, ctx.deps()),
      );
    });
}
