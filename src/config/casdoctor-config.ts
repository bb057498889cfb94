/**
 * `.casdoctor.yaml`: per-check severity overrides and an ignore list whose entries must say why; plus the per-object
 * annotation `casdoctor.io/ignore: "<check-id>,..."`. Suppressed findings are kept (JSON, SARIF) and marked, never
 * dropped; they do not fail a run.
 *
 *   severity:
 *     workload-missing-requests: error
 *   ignore:
 *     - check: workload-bare-pod
 *       namespace: ops
 *       name: debug-*
 *       reason: Debug pods are deleted after each incident.
 */
import { existsSync } from 'node:fs';
import { readRegularFile } from '../gather/input-files.js';
import { parseYamlFile } from '../gather/yaml-file.js';
import { InputError } from '../model/errors.js';
import type { Finding, Severity } from '../model/findings.js';
import type { KubeObject } from '../model/k8s.js';

export const CONFIG_FILE_NAME = '.casdoctor.yaml';
export const IGNORE_ANNOTATION = 'casdoctor.io/ignore';
const SEVERITIES: Severity[] = ['error', 'warning', 'info'];
const ENTRY_KEYS = new Set(['check', 'reason', 'kind', 'namespace', 'name', 'file']);

export interface IgnoreEntry {
  /** A check id, or "*" for every check. */
  check: string;
  reason: string;
  /** Exact values or globs with "*"; `file` matches the path as given to -f ("**" crosses directories). */
  kind?: string;
  namespace?: string;
  name?: string;
  file?: string;
  /** Where the entry is written, for messages. */
  line: number;
}

export interface CasdoctorConfig {
  /** The file read, if any. */
  file?: string;
  severity: Record<string, Severity>;
  ignore: IgnoreEntry[];
}

export const EMPTY_CONFIG: CasdoctorConfig = { severity: {}, ignore: [] };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads the config: the path given (--config; must exist), else ./.casdoctor.yaml when present, else no config.
 * `knownChecks` lets unknown ids fail loudly: a typo must not silently ignore nothing.
 */
export async function loadCasdoctorConfig(
  path: string | undefined,
  knownChecks: ReadonlySet<string>,
  cwd = process.cwd(),
): Promise<CasdoctorConfig> {
  const file = path ?? `${cwd}/${CONFIG_FILE_NAME}`;
  // the default file is optional; a named one, or a default one that exists, must be a readable regular file
  if (!path && !existsSync(file)) return EMPTY_CONFIG;
  const text = await readRegularFile('--config', path ?? file);
  return parseCasdoctorConfig(text, path ?? CONFIG_FILE_NAME, knownChecks);
}

export function parseCasdoctorConfig(
  text: string,
  file: string,
  knownChecks: ReadonlySet<string>,
): CasdoctorConfig {
  const { doc, lineOf } = parseYamlFile(text, file, { uniqueKeys: true });
  const fail = (p: Array<string | number>, msg: string): never => {
    throw new InputError(`${file}:${lineOf(p)}: ${msg}`, file);
  };
  const unknownCheck = (p: Array<string | number>, id: string): never => {
    const near = [...knownChecks].filter((k) => k.includes(id) || id.includes(k)).slice(0, 3);
    return fail(
      p,
      `unknown check "${id}"${near.length ? `; did you mean ${near.join(', ')}?` : ''} (casdoctor checks lists them)`,
    );
  };
  const root = doc.toJS() as unknown;
  if (root === null || root === undefined) return { file, severity: {}, ignore: [] };
  if (!isObj(root)) return fail([], 'the config is a mapping with `severity` and `ignore`');
  for (const k of Object.keys(root))
    if (k !== 'severity' && k !== 'ignore') fail([k], `unknown key ${k} (allowed: severity, ignore)`);

  const severity: Record<string, Severity> = {};
  if (root.severity !== undefined && root.severity !== null) {
    if (!isObj(root.severity)) fail(['severity'], 'severity maps check ids to error, warning or info');
    for (const [id, v] of Object.entries(root.severity as Obj)) {
      if (!knownChecks.has(id)) unknownCheck(['severity', id], id);
      if (!SEVERITIES.includes(v as Severity))
        fail(['severity', id], `severity of ${id} must be error, warning or info, not ${JSON.stringify(v)}`);
      severity[id] = v as Severity;
    }
  }

  const ignore: IgnoreEntry[] = [];
  if (root.ignore !== undefined && root.ignore !== null) {
    if (!Array.isArray(root.ignore)) fail(['ignore'], 'ignore is a list of entries with check and reason');
    (root.ignore as unknown[]).forEach((e, i) => {
      const at = ['ignore', i];
      if (!isObj(e)) fail(at, 'an ignore entry is a mapping with check and reason');
      const entry = e as Obj;
      for (const k of Object.keys(entry))
        if (!ENTRY_KEYS.has(k))
          fail([...at, k], `unknown key ${k} in an ignore entry (allowed: ${[...ENTRY_KEYS].join(', ')})`);
      if (typeof entry.check !== 'string' || entry.check === '')
        fail(at, 'an ignore entry needs `check` (a check id or "*")');
      const check = entry.check as string;
      if (check !== '*' && !knownChecks.has(check)) unknownCheck([...at, 'check'], check);
      if (typeof entry.reason !== 'string' || entry.reason.trim() === '') {
        fail(at, `the ignore entry for ${check} needs a \`reason\`: say why the finding does not apply`);
      }
      const out: IgnoreEntry = { check, reason: (entry.reason as string).trim(), line: lineOf(at) };
      for (const k of ['kind', 'namespace', 'name', 'file'] as const) {
        const v = entry[k];
        if (v === undefined) continue;
        if (typeof v !== 'string' || v === '') fail([...at, k], `${k} must be a non-empty string`);
        out[k] = v as string;
      }
      ignore.push(out);
    });
  }
  return { file, severity, ignore };
}

/** "*" matches within a path segment, "**" across segments; everything else literally. */
export function globMatches(pattern: string, value: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(value);
}

function entryMatches(e: IgnoreEntry, f: Finding): boolean {
  if (e.check !== '*' && e.check !== f.checkId) return false;
  if (e.kind !== undefined && !globMatches(e.kind, f.subject.kind)) return false;
  if (e.namespace !== undefined && !globMatches(e.namespace, f.subject.namespace ?? '')) return false;
  if (e.name !== undefined && !globMatches(e.name, f.subject.name)) return false;
  if (e.file !== undefined) {
    const file = f.location?.file;
    if (!file || !(globMatches(e.file, file) || globMatches(e.file, file.replace(/^\.\//, '')))) return false;
  }
  return true;
}

/** The check ids an object's casdoctor.io/ignore annotation names ("*" = all). */
export function annotationIgnores(o: KubeObject | undefined): string[] {
  const raw = o?.metadata.annotations?.[IGNORE_ANNOTATION];
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface ApplyResult {
  findings: Finding[];
  /** Annotation entries naming no known check (typos), as "<object>: <id>". */
  unknownAnnotationIds: string[];
}

/**
 * Applies severity overrides, then suppressions: an ignore entry of the config, or the object's annotation.
 * `objectOf` finds the manifest object a finding is about.
 */
export function applyConfig(
  findings: Finding[],
  config: CasdoctorConfig,
  objectOf: (f: Finding) => KubeObject | undefined,
  knownChecks: ReadonlySet<string>,
): ApplyResult {
  const unknown = new Set<string>();
  const out = findings.map((f0) => {
    const f: Finding = { ...f0 };
    const override = config.severity[f.checkId];
    if (override) f.severity = override;
    const entry = config.ignore.find((e) => entryMatches(e, f));
    if (entry) {
      f.suppressed = {
        kind: 'config',
        reason: `${config.file ?? CONFIG_FILE_NAME}:${entry.line}: ${entry.reason}`,
      };
      return f;
    }
    const obj = objectOf(f);
    const ids = annotationIgnores(obj);
    for (const id of ids) {
      if (id !== '*' && !knownChecks.has(id))
        unknown.add(
          `${f.subject.kind} ${f.subject.namespace ? `${f.subject.namespace}/` : ''}${f.subject.name}: ${id}`,
        );
    }
    if (ids.includes('*') || ids.includes(f.checkId)) {
      const reason = obj?.metadata.annotations?.['casdoctor.io/ignore-reason'];
      f.suppressed = {
        kind: 'annotation',
        reason: `${IGNORE_ANNOTATION}: "${obj?.metadata.annotations?.[IGNORE_ANNOTATION]}" on ${f.subject.kind} ${f.subject.name}${reason ? ` (${reason})` : ''}`,
      };
    }
    return f;
  });
  return { findings: out, unknownAnnotationIds: [...unknown].sort() };
}
