import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerWhyPending(program: Command, ctx: CliContext): void {
  program
    .command('why-pending')
    .description(
      'explain why pods are Pending: the scheduler against existing nodes, CA against every node group',
    )
    .argument('[pod]', "pod name: NAME, pod/NAME (as kubectl prints it) or NAMESPACE/NAME; or a controller as kubectl's TYPE/NAME (deploy/api, sts/ledger-db, rs/, ds/, job/, cj/): its Pending pods")
    .option(
      // kubectl accepts -n=payments and -l=app=api; commander hands a short option's `=value` over verbatim
      '-n, --namespace <ns>',
      "namespace of the pod(s) (default live: the kubeconfig context's namespace, else default, as kubectl; with --from: every namespace in the files, as kubectl get -f)",
      (v: string) => v.replace(/^=/, ''),
    )
    .option('-A, --all-namespaces', 'look at pods in every namespace; alone, every Pending pod in the cluster (--all -A)')
    .option('--all', 'every Pending pod (in the namespace, or everywhere with -A)')
    .option('-l, --selector <selector>', 'label selector for pods, e.g. app=api,tier!=batch', (v: string) => v.replace(/^=/, ''))
    .option('--show-nodes', 'with -o json|yaml: every node\'s scheduler result and every node group for each pod (default: counts by reason and samples; docs/json.md)')
    .option('--strict', 'exit 3 when a check is skipped because data is missing, forbidden or timed out')
    .option('-w, --watch [interval]', 're-gather every interval (default 30s, at least 10s), redraw, and mark what changed')
    .addHelpText(
      'after',
      `
Examples:
  casdoctor why-pending -n payments api-7f9c8d6b5-x2x7q     one pod, live cluster and AWS
  casdoctor why-pending pod/orders-pg-0 -n databases         TYPE/NAME, as kubectl get prints it
  casdoctor why-pending deploy/api -n web                    the Pending pods of a Deployment (sts/, job/, rs/, ds/, cj/ too)
  casdoctor why-pending -A                                   every Pending pod in the cluster
  casdoctor why-pending -A -o name                           NAMESPACE/NAME per line, which why-pending takes back:
      ... | xargs -n1 casdoctor why-pending                  (without -A: pod/NAME, as kubectl prints it)
  casdoctor why-pending --all                                every Pending pod in the context's namespace
  casdoctor why-pending --all -n web -l app=frontend -o json
  casdoctor why-pending --all -A -o json --show-nodes        every node's and node group's result per pod
  casdoctor why-pending --all --from ./dump --now 2026-11-21T10:00:00Z
  casdoctor why-pending --all --from examples/demo --ca-args "--expander=random"
  casdoctor why-pending                                      at a terminal: pick a Pending pod from a list
  casdoctor why-pending --all -A --watch 30s                 redraw every 30s, marking what changed

Exit codes: 0 every examined pod gets a node; 1 some pod cannot (or a finding at --fail-on);
2 usage, input or environment error; 3 with --strict when a check was skipped (its data missing,
forbidden or timed out) and nothing else failed. --fail-on never always exits 0 on a completed report.`,
    )
    .action(async (pod: string | undefined, opts: Record<string, unknown>, cmd: Command) => {
      const { runWhyPending } = await import('./why-pending.js');
      ctx.setResult(await runWhyPending({ ...ctx.globalOptions(cmd), pod, ...opts } as never, ctx.deps()));
    });
}
