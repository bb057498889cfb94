import type { Command } from 'commander';
import type { CliContext } from './register.js';

export function registerSnapshot(program: Command, ctx: CliContext): void {
  program
    .command('snapshot')
    .description(
      'write what casdoctor reads (live, or re-exported from --from) as kubectl/aws JSON dumps that --from reads back',
    )
    .option(
      '--redact',
      'replace AWS account ids, ARNs, IPs, host names, resource ids and object UIDs with stable pseudonyms',
    )
    .option('--redact-salt <secret>', 'salt for the pseudonyms (default: $CASDOCTOR_REDACT_SALT, else random per run)')
    .option('--redact-map <file>', 'also write original -> pseudonym to this file (keep it private; never in <dir>)')
    .option('--force', 'write into a non-empty directory, replacing an earlier snapshot there (links are replaced, never followed)')
    .option('--strict', 'exit 3 when something could not be gathered (forbidden, timed out, throttled)')
    .addHelpText(
      'after',
      `
-o <dir> (the global --output) names the directory to write; it must be new or empty (or --force). <dir> itself
may be a symbolic link to a directory (it is yours); every file inside is written as a new file and renamed into
place, so a link planted at a file name is replaced, never written through.

Written: one \`kubectl get -A -o json\` List per kind and one \`aws ... --output json\` document per output,
plus README.md (when, from where, what is left out, what could not be gathered). Never written: Secrets,
ConfigMaps other than the CA status, container env values (names stay), launch template / configuration
UserData, managedFields, annotations carrying manifests or credentials (last-applied-configuration, *token*,
*secret*, *password*), values of secret-like flags (--password x, --token=x), URL passwords, probe header values,
secret-like StorageClass parameters and tag values, and anything shaped like a token, access key, AWS secret key,
GitHub or Slack token, or private key.

--redact maps each value to HMAC-SHA256(salt, category + value), formatted like the original (12-digit
account, 10.x.y.z, ip-10-x-y-z.ec2.internal, i-<hex>, subnet-/vpc-/sg-/ami-/lt-/vol-<hex>, UUIDs,
host-<hex>.redacted.invalid, arn:...:<type>/redacted-<hex>): the same value gets the same pseudonym everywhere in
the snapshot, and in every snapshot taken with the same salt. Names (namespaces, workloads, node groups, labels,
tags) are kept: the verdicts depend on them.

Examples:
  casdoctor snapshot -o ./bundle                               live cluster and AWS
  casdoctor snapshot -o ./bundle --redact --redact-salt "$SALT" for a support ticket
  casdoctor snapshot --from ./dump -o ./redacted --redact      re-export an existing dump, redacted
  casdoctor why-pending --all --from ./bundle --now <time>     read it back

Exit codes: 0 written; 2 usage, input or environment error; 3 with --strict when something could not be gathered.`,
    )
    .action(async (opts: Record<string, unknown>, cmd: Command) => {
      const { runSnapshot } = await import('./snapshot.js');
      const globals = ctx.globalOptions(cmd);
      // -o is the global --output: here it names the directory, and only counts when given explicitly.
      const dir = program.getOptionValueSource('output') === 'default' ? undefined : globals.output;
      ctx.setResult(
        await runSnapshot(
          {
            ...globals,
            ...opts,
            dir,
            redactSalt:
              (opts.redactSalt as string | undefined) ??
              (opts.redact ? process.env.CASDOCTOR_REDACT_SALT || undefined : undefined),
            version: program.version(),
          } as never,
          ctx.deps(),
        ),
      );
    });
}
