import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerHistory(program: Command, ctx: CliContext): void {
  program
    .command('history')
    .description('what the autoscalers (and everyone else) did, and why: a node\'s life and end, a pod\'s wait, a group over a window')
    .option('--node <name|instance-id>', 'one node: why it was created, and who removed it and why (a node name or an EC2 instance id)')
    .option('--pod <[namespace/]name>', "one pod's wait for a node: each phase with its length, and which dominated")
    .option('--nodegroup <name>', 'one ASG or NodePool over the window (default: every group)')
    .option('--since <duration|time>', 'the window: a duration back from now (6h, 90m, 2d) or an RFC 3339 time', '6h')
    .addHelpText(
      'after',
      `
Examples:
  casdoctor history --from examples/history --now 2026-11-20T18:00:00Z
      the day's scale-ups, scale-downs, failures and removals by group, and the findings
  casdoctor history --node ip-10-0-12-201.eu-west-1.compute.internal --from examples/history --now 2026-11-20T18:00:00Z
      who removed this node, and why
  casdoctor history --node i-0c1d2e3f4a5b60718 --from examples/history --now 2026-11-20T18:00:00Z
      the same, by EC2 instance id
  casdoctor history --pod shop/checkout-7d9f8-x2x9q --from examples/history --now 2026-11-20T18:00:00Z
      why this pod waited for a node, phase by phase
  casdoctor history --nodegroup eks-spot-a --since 24h -o json
      live: one group over a day, as JSON

Output: -o table (default), wide (adds each step's source and raw text), json or yaml (docs/history.md).

Sources (each optional; what is missing is said, with how to supply it): Kubernetes events (all namespaces), nodes,
pods and NodeClaims, Cluster Autoscaler's log, Karpenter's log, the ASGs' scaling activities and CloudTrail
(aws cloudtrail lookup-events). Offline, --from takes kubectl and aws outputs and the two logs (plain or gzip).

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above --fail-on; 2 usage, input or environment
error (a node or pod no source names is one).`,
    )
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      const { runHistory } = await import('./history.js');
      ctx.setResult(await runHistory({ ...ctx.globalOptions(cmd), ...opts } as never, ctx.deps()));
    });
}
