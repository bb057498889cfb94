#!/usr/bin/env node
// Entry point: builds the commander program, runs one command, maps its RunResult to process.exitCode.
// Keep this file light: commands, SDKs and renderers are imported lazily inside actions.
import { Command, CommanderError, Option } from 'commander';
import { registerAsgAudit } from './commands/asg-audit.register.js';
import { registerNodeGroupAudit } from './commands/node-group-audit.register.js';
import { registerCompletion } from './commands/completion.register.js';
import { registerHistory } from './commands/history.register.js';
import { registerRecord } from './commands/record.register.js';
import { registerPreflight } from './commands/preflight.register.js';
import { registerScaleDownBlockers } from './commands/scale-down-blockers.register.js';
import { registerSnapshot } from './commands/snapshot.register.js';
import { registerWhyPending } from './commands/why-pending.register.js';
import { registerWhyThisType } from './commands/why-this-type.register.js';
import type { CliContext, Registrar } from './commands/register.js';
import type { Deps, GlobalOptions, RunResult } from './commands/types.js';
import { EXIT } from './commands/types.js';
import { guardTerminalOutput, safeLines } from './report/sanitize.js';
import { colorMode } from './report/style.js';

/** One registrar per command (src/commands/<name>.register.ts): flags and help; the command itself loads lazily. */
const REGISTRARS: Registrar[] = [registerWhyPending, registerAsgAudit, registerNodeGroupAudit, registerCompletion, registerSnapshot, registerScaleDownBlockers, registerPreflight, registerHistory, registerWhyThisType, registerRecord];

const VERSION = '0.1.0';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** How the user invoked casdoctor: `kubectl casdoctor` as a kubectl plugin. */
const PROGRAM_NAME = process.env.CASDOCTOR_AS_KUBECTL_PLUGIN ? 'kubectl casdoctor' : 'casdoctor';

/** The subcommand whose action is running, so an error's hint names its help (`casdoctor why-pending --help`). */
let activeCommand: string | undefined;

export function buildProgram(): Command {
  const program = new Command();
  // set before any subcommand exists: commander copies these settings into each subcommand as it is created, so a
  // subcommand's usage error throws (exit 2 in main) instead of calling process.exit(1), and its help lists the globals
  program
    .exitOverride()
    .configureOutput({ writeErr, writeOut })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError(`Run '${PROGRAM_NAME} --help' for usage.`);
  program
    .name(PROGRAM_NAME)
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
    .option('--ca-log-since <duration>', "how much of Cluster Autoscaler's own log to read live (Go duration, like kubectl logs --since)", '1h')
    .option('--now <rfc3339>', 'the clock for time-based rules (default: now)')
    .option(
      '--ca-args <flags>',
      'Cluster Autoscaler flags overriding those found on its Deployment, e.g. "--expander=random --max-nodes-total=50"',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format: table (default), json or yaml (every report, the overview too; checks: json only); why-pending and scale-down-blockers also wide and name; preflight also sarif, junit, markdown; snapshot: the directory to write')
        .default('table')
        // kubectl accepts -o=json; commander hands a short option's `=json` over verbatim
        .argParser((v: string) => v.replace(/^=/, '')),
    )
    .addOption(
      new Option('--fail-on <level>', 'exit 1 when a finding at or above this severity exists')
        .choices(['error', 'warning', 'info', 'never'])
        .default('error'),
    )
    .addOption(
      new Option('--color [when]', 'colors: auto (at a terminal, the default), always (also FORCE_COLOR=1, e.g. for less -R) or never')
        .choices(['always', 'never', 'auto'])
        .preset('always'),
    )
    .option('--no-color', 'no colors (also NO_COLOR=1)')
    .option('--debug', 'print stack traces for unexpected errors')
    .option('-y, --yes', 'never prompt, even at a terminal')
    .option('--menu', 'the overview (casdoctor alone) at a terminal: then choose the next command from a menu');

  for (const register of REGISTRARS) register(program, cliContext);

  program
    .command('checks')
    .description('list every check: id, the severities it can emit, commands, summary')
    .argument('[filter]', 'only the checks of an autoscaler (karpenter, ca), a provider (aws, externalgrpc), a command, or whose id contains the word')
    .option('--provider <name>', 'only the checks that apply to karpenter, ca, aws or externalgrpc')
    .option('--command <name>', 'only the checks a command runs: why-pending, asg-audit, scale-down-blockers, preflight')
    .addHelpText(
      'after',
      `
Examples:
  ${PROGRAM_NAME} checks                       the table: check, severities (most severe first), commands, summary
  ${PROGRAM_NAME} checks karpenter             Karpenter's checks only
  ${PROGRAM_NAME} checks --command scale-down-blockers
  ${PROGRAM_NAME} checks pdb                   the checks whose id contains "pdb"
  ${PROGRAM_NAME} checks -o json               the same as JSON, with each check's docs URL`,
    )
    .action(async (word: string | undefined, opts: { provider?: string; command?: string }, cmd: Command) => {
      const { runListChecks } = await import('./commands/checks.js');
      setResult(await runListChecks(globalOptions(cmd), defaultDeps(), { word, provider: opts.provider, command: opts.command }));
    });

  program
    .command('explain')
    .description("print a check's documentation, by its id or by a reason name casdoctor prints")
    .argument('<check-id>', "the check id, e.g. pod-untolerated-taint, or a name from CA's, the scheduler's or Karpenter's reasons")
    .addHelpText(
      'after',
      `
Examples:
  ${PROGRAM_NAME} explain pod-untolerated-taint
  ${PROGRAM_NAME} explain NotEnoughPdb                 the CA REASON scale-down-blockers prints
  ${PROGRAM_NAME} explain 'max node group size reached' a reason from CA's NotTriggerScaleUp event
  ${PROGRAM_NAME} explain asg-missing-discovery-tag | less`,
    )
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { runExplain } = await import('./commands/checks.js');
      setResult(await runExplain(id, globalOptions(cmd), defaultDeps()));
    });

  program
    .command('version')
    .description('print the version')
    .action(() => {
      writeOut(`${VERSION}\n`);
      setResult({ exitCode: EXIT.ok });
    });

  // `casdoctor help <command>`: commander adds it by itself only to a program without an action of its own, and its
  // own answer to an unknown name is the whole help on stderr; this one says which name is unknown, like a typo'd command
  program
    .command('help')
    .description('show help for a command')
    .argument('[command]', 'the command')
    .action(async (name: string | undefined, _opts: unknown, cmd: Command) => {
      const sub = name === undefined ? program : program.commands.find((c) => c.name() === name || c.aliases().includes(name));
      if (sub) {
        sub.outputHelp();
        setResult({ exitCode: EXIT.ok });
        return;
      }
      const { suggestSimilar } = await import('./commands/suggest.js');
      const near = suggestSimilar(name!, program.commands.map((c) => c.name()));
      cmd.error(`error: unknown command '${name}'${near.length ? `\n(Did you mean ${near.join(' or ')}?)` : ''}`, {
        exitCode: EXIT.usage,
        code: 'commander.unknownCommand',
      });
    });

  // each subcommand's usage errors point at its own help, not the program's
  for (const sub of program.commands)
    sub.showHelpAfterError(sub.name() === 'help' ? `Run '${PROGRAM_NAME} --help' for the commands.` : `Run '${PROGRAM_NAME} ${sub.name()} --help' for usage.`);

  program.hook('preAction', (_program, action) => {
    activeCommand = action === program ? undefined : action.name();
  });

  // no subcommand: the overview (and, at a terminal, a menu of next steps); a word that names no command is a typo
  program.allowExcessArguments(true);
  program.action(async (_opts: unknown, cmd: Command) => {
    if (cmd.args.length > 0) {
      const { suggestSimilar } = await import('./commands/suggest.js');
      const names = cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]).concat('help');
      const near = suggestSimilar(cmd.args[0], names);
      cmd.error(
        `error: unknown command '${cmd.args[0]}'${near.length ? `\n(Did you mean ${near.join(' or ')}?)` : ''}`,
        { exitCode: EXIT.usage, code: 'commander.unknownCommand' },
      );
    }
    const { runOverview } = await import('./commands/overview.js');
    setResult(await runOverview({ ...globalOptions(cmd), menu: Boolean(cmd.opts().menu) }, defaultDeps()));
  });

  program.addHelpText(
    'after',
    `
Examples:
  ${PROGRAM_NAME}                                          overview of the current cluster, then the next commands
  ${PROGRAM_NAME} -o json                                  the overview's counts as JSON (docs/json.md)
  ${PROGRAM_NAME} --menu                                   the overview, then pick the next command from a menu
  ${PROGRAM_NAME} why-pending --all -A                     why every Pending pod is Pending
  ${PROGRAM_NAME} why-pending pod/orders-pg-0 -n databases one pod, named as kubectl prints it
  ${PROGRAM_NAME} scale-down-blockers --node ip-10-0-14-37 why CA keeps this node
  ${PROGRAM_NAME} asg-audit -o json                        the node groups as CA sees them
  ${PROGRAM_NAME} why-pending --all --from examples/demo --now 2026-11-21T10:00:00Z   bundled demo data
  ${PROGRAM_NAME} help why-pending                         a command's flags and examples

Exit codes: 0 nothing at --fail-on; 1 findings at or above --fail-on; 2 usage, input or environment error;
3 incomplete (with --strict). Each command's --help gives its own.`,
  );

  return program;
}

const cliContext: CliContext = {
  globalOptions: (cmd) => globalOptions(cmd),
  deps: () => defaultDeps(),
  setResult: (r) => setResult(r),
};

function globalOptions(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals() as Record<string, unknown>;
  const mode = colorMode(o.color as string | boolean | undefined, process.env);
  return {
    from: (o.from as string[] | undefined) ?? [],
    kubeconfig: o.kubeconfig as string | undefined,
    context: o.context as string | undefined,
    profile: o.profile as string | undefined,
    region: o.region as string | undefined,
    requestTimeout: o.requestTimeout as string,
    caLogSince: o.caLogSince as string | undefined,
    now: o.now as string | undefined,
    caArgs: o.caArgs as string | undefined,
    output: o.output as GlobalOptions['output'],
    failOn: o.failOn as GlobalOptions['failOn'],
    color: mode !== 'never',
    colorMode: mode,
    debug: Boolean(o.debug),
    yes: Boolean(o.yes),
  };
}

// The last net for foreign text (src/report/sanitize.ts): stdout keeps only the escapes casdoctor writes itself (colours,
// docs links, the --watch redraw); stderr carries plain text only (warnings, errors, usage), so every control and bidi
// character on it is shown as an escape. Renderers sanitize each foreign value before styling it; this catches the rest.
const writeOut = (s: string) => process.stdout.write(guardTerminalOutput(s));
const writeErr = (s: string) => process.stderr.write(safeLines(s, Number.POSITIVE_INFINITY));

function defaultDeps(): Deps {
  return {
    stdout: writeOut,
    stderr: writeErr,
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

/**
 * The first operand of the command line when it names no command: `casdoctor why-pendng -A` must say "unknown
 * command", not "unknown option '-A'" (commander parses the flags after an unknown word as the program's own). Global
 * options that take a value are skipped with their value, so `--from dir why-pendng` finds the word too.
 */
export function mistypedCommand(program: Command, args: readonly string[]): string | undefined {
  const takesValue = new Set(
    program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined)),
  );
  const names = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return undefined;
    if (a.startsWith('-')) {
      if (!a.includes('=') && takesValue.has(a)) i++;
      continue;
    }
    return names.has(a) ? undefined : a;
  }
  return undefined;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  const typo = mistypedCommand(program, argv.slice(2));
  // a lone unknown word reaches the program's action, which says the same; with flags after it, commander would first
  // reject a subcommand's flag as the program's own
  if (typo !== undefined && argv.slice(2).some((a) => a.startsWith('-'))) {
    const { suggestSimilar } = await import('./commands/suggest.js');
    const near = suggestSimilar(typo, program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
    writeErr(`error: unknown command '${typo}'${near.length ? `\n(Did you mean ${near.join(' or ')}?)` : ''}\nRun '${PROGRAM_NAME} --help' for usage.\n`);
    process.exitCode = EXIT.usage;
    return;
  }
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
    process.exitCode = handleError(e, argv.includes('--debug'), writeErr, activeCommand ? `${PROGRAM_NAME} ${activeCommand}` : PROGRAM_NAME);
  }
}

await main(process.argv);
