#!/usr/bin/env node
// Entry point: builds the commander program, runs one command, maps its RunResult to process.exitCode.
// Keep this file light: commands, SDKs and renderers are imported lazily inside actions.
import { Command, CommanderError, Option } from 'commander';
import { registerAsgAudit } from './commands/asg-audit.register.js';
import { registerCompletion } from './commands/completion.register.js';
import { registerPreflight } from './commands/preflight.register.js';
import { registerScaleDownBlockers } from './commands/scale-down-blockers.register.js';
import { registerSnapshot } from './commands/snapshot.register.js';
import { registerWhyPending } from './commands/why-pending.register.js';
import type { CliContext, Registrar } from './commands/register.js';
import type { Deps, GlobalOptions, RunResult } from './commands/types.js';
import { EXIT } from './commands/types.js';

/** One registrar per command (src/commands/<name>.register.ts): flags and help; the command itself loads lazily. */
const REGISTRARS: Registrar[] = [registerWhyPending, registerAsgAudit, registerCompletion, registerSnapshot, registerScaleDownBlockers, registerPreflight];

const VERSION = '0.1.0';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name(process.env.CASDOCTOR_AS_KUBECTL_PLUGIN ? 'kubectl casdoctor' : 'casdoctor')
    .description(
      'A doctor for the Kubernetes Cluster Autoscaler on AWS Auto Scaling Groups.\n' +
        'Explains why pods stay Pending, what CA sees for every node group, and what to change.',
    )
    .version(VERSION, '--version')
    .showSuggestionAfterError(true)
    .option(
      '--from <path>',
      'read `kubectl get -o json|yaml` and `aws ... --output json` dumps (file or dir; repeatable) instead of the live cluster',
      collect,
    )
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current context)')
    .option('--profile <name>', 'AWS profile (default: the AWS credential chain)')
    .option('--region <region>', "AWS region (default: AWS_REGION, the profile, or the nodes' region label)")
    .option('--request-timeout <duration>', 'bound on each API call (Go duration)', '30s')
    .option('--now <rfc3339>', 'the clock for time-based rules (default: now)')
    .option(
      '--ca-args <flags>',
      'Cluster Autoscaler flags overriding those found on its Deployment, e.g. "--expander=random --max-nodes-total=50"',
    )
    .option('-o, --output <format>', 'output format: table or json (preflight also: sarif, junit, markdown)', 'table')
    .addOption(
      new Option('--fail-on <level>', 'exit 1 when a finding at or above this severity exists')
        .choices(['error', 'warning', 'info', 'never'])
        .default('error'),
    )
    .option('--no-color', 'no colors (also NO_COLOR=1)')
    .option('--debug', 'print stack traces for unexpected errors')
    .option('-y, --yes', 'never prompt, even at a terminal');

  for (const register of REGISTRARS) register(program, cliContext);

  // no subcommand: the overview (and, at a terminal, a menu of next steps)
  program.action(async (_opts: unknown, cmd: Command) => {
    const { runOverview } = await import('./commands/overview.js');
    setResult(await runOverview(globalOptions(cmd), defaultDeps()));
  });

  program
    .command('checks')
    .description('list every check: id, severity, commands, summary')
    .action(async (_opts: unknown, cmd: Command) => {
      const { runListChecks } = await import('./commands/checks.js');
      setResult(await runListChecks(globalOptions(cmd), defaultDeps()));
    });

  program
    .command('explain')
    .description("print a check's documentation")
    .argument('<check-id>', 'the check id, e.g. pod-untolerated-taint')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { runExplain } = await import('./commands/checks.js');
      setResult(await runExplain(id, globalOptions(cmd), defaultDeps()));
    });

  return program;
}

const cliContext: CliContext = {
  globalOptions: (cmd) => globalOptions(cmd),
  deps: () => defaultDeps(),
  setResult: (r) => setResult(r),
};

function globalOptions(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals() as Record<string, unknown>;
  const noColor = o.color === false || (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '');
  return {
    from: (o.from as string[] | undefined) ?? [],
    kubeconfig: o.kubeconfig as string | undefined,
    context: o.context as string | undefined,
    profile: o.profile as string | undefined,
    region: o.region as string | undefined,
    requestTimeout: o.requestTimeout as string,
    now: o.now as string | undefined,
    caArgs: o.caArgs as string | undefined,
    output: o.output as GlobalOptions['output'],
    failOn: o.failOn as GlobalOptions['failOn'],
    color: !noColor,
    debug: Boolean(o.debug),
    yes: Boolean(o.yes),
  };
}

function defaultDeps(): Deps {
  return {
    stdout: (s: string) => process.stdout.write(s),
    stderr: (s: string) => process.stderr.write(s),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    ...(process.stdin.isTTY && process.stdout.isTTY ? { terminal: { input: process.stdin, output: process.stdout } } : {}),
    onInterrupt: (handler: () => void) => {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
    terminalWidth: process.stdout.columns,
    realNow: () => new Date(),
  };
}

let result: RunResult | undefined;
function setResult(r: RunResult): void {
  result = r;
}

// `casdoctor ... | head` closes stdout early: stop quietly instead of crashing with EPIPE
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  program.exitOverride();
  program.configureOutput({
    writeErr: (s) => process.stderr.write(s),
    writeOut: (s) => process.stdout.write(s),
  });
  try {
    await program.parseAsync(argv);
    process.exitCode = result?.exitCode ?? EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors were printed by commander
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const { handleError } = await import('./commands/errors.js');
    process.exitCode = handleError(e, argv.includes('--debug'), (s) => process.stderr.write(s));
  }
}

await main(process.argv);
