import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerWhyThisType(program: Command, ctx: CliContext): void {
  program
    .command('why-this-type')
    .description("why Karpenter launched this instance type: the NodeClaim's candidates in Karpenter's order, the launch filters, the cut to 60 for CreateFleet, the allocation strategy, the offerings refused at launch, and the prices used")
    .argument('[nodeclaim]', 'one NodeClaim: its name, nodeclaim/NAME, or the name of the node it became')
    .option('--nodepool <name>', "only this NodePool's NodeClaims")
    .addHelpText(
      'after',
      `
Examples:
  casdoctor why-this-type --from examples/karpenter --now 2026-11-24T14:00:00Z
      every NodeClaim: the type it got, its price, how many candidates went to CreateFleet, and why
  casdoctor why-this-type nodeclaim/general-4ldmz --from examples/karpenter --now 2026-11-24T14:00:00Z
      one NodeClaim's launch path, candidates and prices
  casdoctor why-this-type ip-10-20-11-141.ec2.internal -o json
      live: the NodeClaim behind this node, as JSON (docs/json.md)
  casdoctor why-this-type --nodepool batch

Prices: on-demand from casdoctor's table (data/prices-on-demand.json, from Karpenter's own static tables, with
their date); spot from ec2:DescribeSpotPriceHistory live, or offline from
  aws ec2 describe-spot-price-history --start-time "$(date -u +%FT%TZ)" \\
    --product-descriptions Linux/UNIX 'Linux/UNIX (Amazon VPC)' --output json > spot-prices.json
in --from. Offerings refused at launch come from Karpenter's log (its DEBUG lines), live or in --from.

Exit codes: 0 a report (what could not be evaluated is said in it); 2 usage, input or environment error (a
NodeClaim or NodePool the input does not hold is one).`,
    )
    .action(async (nodeclaim: string | undefined, opts: Record<string, unknown>, cmd: Command) => {
      const { runWhyThisType } = await import('./why-this-type.js');
      ctx.setResult(await runWhyThisType({ ...ctx.globalOptions(cmd), ...opts, ...(nodeclaim !== undefined ? { nodeclaim } : {}) } as never, ctx.deps()));
    });
}
