import type { Command } from 'commander';
import type { CliContext } from './register.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerPreflight(program: Command, ctx: CliContext): void {
  program
    .command('preflight')
    .description(
      'CI gate: check workload manifests against node groups and Karpenter NodePools before they ship (placement from zero, scale-down blockers, zonal storage)',
    )
    .option(
      '-f, --filename <path>',
      'manifests: a file, a directory (recursive) or - for stdin; YAML or JSON, `helm template` / `kustomize build` output (repeatable)',
      collect,
    )
    .option('--eksctl <file>', 'node groups from an eksctl ClusterConfig (nodeGroups and managedNodeGroups)')
    .option(
      '--node-groups <file>',
      "node groups in casdoctor's own format (schema: schemas/node-groups.schema.json); repeatable",
      collect,
    )
    .option(
      '--nodepools <path>',
      'Karpenter NodePools and EC2NodeClasses (karpenter.sh/v1, karpenter.k8s.aws/v1): a file, a directory or - ; repeatable (they may also sit among -f manifests or in a --from dump)',
      collect,
    )
    .option('--live', 'node groups, DaemonSets and CA flags from the current cluster and AWS')
    .option('-n, --namespace <ns>', 'namespace for objects that name none, as kubectl apply -n', 'default')
    .option('--config <file>', 'severity overrides and ignore list (default: ./.casdoctor.yaml when present)')
    .option(
      '--output-file <format=path>',
      'also write a format to a file, e.g. sarif=casdoctor.sarif; repeat for more formats',
      collect,
    )
    .option('--no-strict', 'do not exit 3 when a check was skipped because its input could not be read')
    .addHelpText(
      'after',
      `
Examples:
  casdoctor preflight -f k8s/ --eksctl cluster.yaml
  helm template my-release ./chart | casdoctor preflight -f - --node-groups node-groups.yaml
  kustomize build overlays/prod | casdoctor preflight -f - --from ./dump -o markdown
  casdoctor preflight -f k8s/ --eksctl cluster.yaml -o table \\
      --output-file sarif=casdoctor.sarif --output-file junit=casdoctor-junit.xml
  casdoctor preflight -f k8s/ --live --ca-args "--expendable-pods-priority-cutoff=-100"
  casdoctor preflight -f k8s/ --nodepools karpenter/      # NodePools + EC2NodeClasses; add --eksctl for CA groups too

Output: -o table|json|sarif|junit|markdown on stdout (one format); more formats with --output-file.
Suppress with .casdoctor.yaml (ignore entries need a reason) or the annotation casdoctor.io/ignore: "<check-id>,...".

Exit codes: 0 clean; 1 a finding at or above --fail-on (default error); 2 usage or input error;
3 incomplete: a check was skipped because its input was asked for but could not be read (--no-strict: 0/1).
A check whose input was never given (e.g. node groups) is not applicable, not skipped.`,
    )
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      const { runPreflight } = await import('./preflight.js');
      ctx.setResult(await runPreflight({ ...ctx.globalOptions(cmd), ...opts } as never, ctx.deps()));
    });
}
