import { shellCommand } from '../model/shell.js';
import { safeText } from '../report/sanitize.js';
import { randomBytes } from 'node:crypto';
import { relative, resolve } from 'node:path';
import { Redactor } from '../gather/redact.js';
import {
  buildSnapshotFiles,
  checkSnapshotDir,
  replaceFile,
  SnapshotDirError,
  writeSnapshot,
} from '../gather/snapshot-writer.js';
import { InputError, UsageError } from '../model/errors.js';
import { buildCaConfig, findCaDeployment } from '../simulate/ca-config.js';
import { gatherInputs, resolveNow, splitArgs } from './common.js';
import { strictExitCode } from './strict.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

/** CA's --status-config-map-name default; the live gatherer lists ConfigMaps of this name in every namespace. */
const CA_STATUS_CONFIGMAP_DEFAULT = 'cluster-autoscaler-status';

export interface SnapshotOptions extends GlobalOptions {
  /** The directory to write (the global -o / --output, given explicitly). */
  dir?: string;
  redact?: boolean;
  /** --redact-salt, else $CASDOCTOR_REDACT_SALT: the same salt gives the same pseudonyms across runs. */
  redactSalt?: string;
  /** --redact-map <file>: writes original -> pseudonym, for the user's eyes only (never inside the snapshot). */
  redactMap?: string;
  force?: boolean;
  strict?: boolean;
  /** The CLI's version, for the snapshot's README. */
  version?: string;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'));
}

/** File-system failures as the user needs them: a busy directory is a usage error, anything else names the path. */
async function writeErrors<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof SnapshotDirError) {
      throw new UsageError(
        `snapshot: ${e.message}; --from reads every file in a directory, so write to a new one (or pass --force to replace an earlier snapshot there)`,
      );
    }
    const err = e as NodeJS.ErrnoException;
    throw new InputError(
      `snapshot: cannot write ${path}: ${err.code && !err.message.includes(err.code) ? `${err.code} ` : ''}${err.message}`,
    );
  }
}

/** Writes the standard dumps `--from` reads back: live, or re-exported from --from (e.g. to redact them). */
export async function runSnapshot(o: SnapshotOptions, deps: Deps): Promise<RunResult> {
  if (!o.dir) throw new UsageError('snapshot: name the directory to write with -o <dir>');
  // `snapshot -o json` is a format where every other command takes one, not a directory named json: ./json is one
  if (/^(table|json|yaml|wide|name|sarif|junit|markdown)$/.test(o.dir)) {
    throw new UsageError(
      `snapshot: -o names the directory to write, and "${o.dir}" is an output format; snapshot always writes kubectl/aws JSON dumps (to write a directory named ${o.dir}, pass -o ./${o.dir})`,
    );
  }
  if (!o.redact && (o.redactSalt !== undefined || o.redactMap !== undefined)) {
    throw new UsageError('snapshot: --redact-salt and --redact-map only apply with --redact');
  }
  if (o.redactMap && inside(o.redactMap, o.dir)) {
    throw new UsageError(`snapshot: --redact-map ${o.redactMap} must not be inside ${o.dir}: it undoes the redaction`);
  }
  if (o.redactSalt === '') throw new UsageError('snapshot: --redact-salt must not be empty');
  resolveNow(o, deps); // a bad --now fails before a long gather
  const caArgs = o.caArgs ? splitArgs(o.caArgs) : undefined;
  await writeErrors(o.dir, () => checkSnapshotDir(o.dir!, o.force)); // before a long live gather
  const raw = await gatherInputs(o, deps, 'all');
  // without --now, a dump is read as at its own time
  const takenAt = resolveNow(o, deps, raw);
  if (raw.provided.size === 0) {
    throw new InputError(
      o.from.length
        ? `nothing casdoctor reads in ${o.from.join(', ')}: no Kubernetes objects or AWS outputs to write`
        : 'nothing could be gathered from the cluster or AWS',
    );
  }

  // Keep the status ConfigMap CA writes (its --namespace / --status-config-map-name), and any of the default name.
  const ca = buildCaConfig({ deployment: findCaDeployment(raw.deployments)?.deployment, overrideArgs: caArgs });
  const statusConfigMaps = [{ namespace: ca.flags.namespace.value, name: ca.flags.statusConfigMapName.value }];
  for (const cm of raw.configMaps) {
    if (cm.metadata?.name === CA_STATUS_CONFIGMAP_DEFAULT)
      statusConfigMaps.push({ namespace: cm.metadata.namespace ?? '', name: CA_STATUS_CONFIGMAP_DEFAULT });
  }

  const salt = o.redact ? (o.redactSalt ?? randomBytes(32).toString('hex')) : undefined;
  const redactor = salt !== undefined ? new Redactor(salt) : undefined;
  const files = buildSnapshotFiles(raw, {
    statusConfigMaps,
    redactor,
    takenAt,
    source: o.from.length ? `${raw.sources.length} file(s) given with --from` : raw.sources.join(', '),
    version: o.version ?? 'unknown',
  });
  const { foreign } = await writeErrors(o.dir, () => writeSnapshot(o.dir!, files, { force: o.force }));
  if (redactor && o.redactMap) {
    const map = o.redactMap;
    await writeErrors(map, () => replaceFile(map, `${JSON.stringify(redactor.mapping(), null, 2)}\n`, 0o600));
  }

  for (const w of raw.warnings) deps.stderr(`warning: ${safeText(w)}\n`);
  for (const g of raw.gaps) deps.stderr(`warning: ${safeText(g.detail)}\n`);
  for (const f of foreign) deps.stderr(`warning: ${safeText(`${o.dir}/${f}`)} is not a casdoctor snapshot file; --from will read it too\n`);
  if (redactor && o.redactSalt === undefined) {
    deps.stderr(
      'note: pseudonyms come from a random salt; pass --redact-salt <secret> (or CASDOCTOR_REDACT_SALT) to get the same pseudonyms in every snapshot\n',
    );
  }

  const dumps = files.filter((f) => f.command !== '');
  const width = Math.max(...dumps.map((f) => f.name.length));
  const lines = [
    `Wrote ${dumps.length} dumps to ${o.dir}${redactor ? ' (redacted)' : ''}:`,
    ...dumps.map((f) => `  ${f.name.padEnd(width)}  ${f.count}`),
    raw.gaps.length
      ? `Incomplete: ${raw.gaps.length} thing(s) could not be gathered (see ${o.dir}/README.md).`
      : 'Complete: everything casdoctor reads was gathered.',
    `Read it back: ${shellCommand(['casdoctor', 'why-pending', '--all', '--from', o.dir, '--now', takenAt.toISOString()])}`,
  ];
  deps.stdout(`${lines.join('\n')}\n`);
  return { exitCode: strictExitCode(EXIT.ok, o.strict, raw.gaps.length > 0) };
}
