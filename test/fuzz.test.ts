// Bad input, seeded: hundreds of mutations of the demo dump (truncated files, wrong types, missing and null fields, huge
// numbers, bad quantities, unknown enum values, unicode, duplicate names). Each one goes through the offline loader and
// the whole why-pending command in-process, and a few through the real CLI: every run must end in a report or a typed
// input error (exit 2), never an uncaught exception or a hang.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSnapshot, type SnapshotOptions } from '../src/commands/snapshot.js';
import type { Deps } from '../src/commands/types.js';
import { runWhyPending, type WhyPendingOptions } from '../src/commands/why-pending.js';
import { InputError } from '../src/model/errors.js';
import { cliAsync } from './commands/cli-async.js';
import { DEMO, DEMO_NOW } from './commands/run.js';

const MUTATIONS = Number(process.env.FUZZ_MUTATIONS ?? 500);
const CLI_RUNS = 6;
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_c0de);

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

class Fuzzer {
  constructor(readonly rand: () => number) {}
  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chance(p: number): boolean {
    return this.rand() < p;
  }
}

const BAD_QUANTITIES = [
  '1.5.3Gi',
  'abc',
  '-1',
  '-500m',
  '1Zi',
  '',
  '0x10',
  ' 1Gi',
  '1 Gi',
  'Infinity',
  'NaN',
  '1e1000',
  '1e308',
  '99999999999999999999999999999999Ei',
  '.',
  '+',
  '1E',
  '1Ki1',
  '٣Gi',
  '1,5Gi',
];
const ENUM_KEYS = new Set([
  'phase',
  'operator',
  'effect',
  'status',
  'type',
  'whenUnsatisfiable',
  'volumeBindingMode',
  'LifecycleState',
  'HealthStatus',
  'StatusCode',
  'EvalDecision',
  'reason',
  'kind',
  'restartPolicy',
  'nodeAffinityPolicy',
  'nodeTaintsPolicy',
  'preemptionPolicy',
  'Version',
  'capacityType',
  'ProcessName',
]);
const ENUM_VALUES = ['Bogus', '', 'pending', 'EXISTS', 'In ', '\u0000', 'NoSchedule,NoExecute', 'True ', '42'];
const UNICODE = [
  'ñødé-名前-🚀',
  '\u202Eevil\u202C',
  'e\u0301\u0301\u0301',
  '\uFFFF\uFFFE',
  '\uD800',
  'x'.repeat(20_000),
  'ip-10-0-0-1\u0000.ec2.internal',
  '0/11 nodes are available: ',
];
const DATES = ['not-a-date', '9999-99-99T99:99:99Z', '', '1970-01-01T00:00:00Z', '2026-11-21T10:00:00+25:00', '0'];
const NUMBERS = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -1, 0, -0, 0.5, 2 ** 63, 1e-320];

/** Every place in a document: [parent, key] pairs, collected once per mutation. */
function places(doc: Json): Array<[Json[] | { [k: string]: Json }, string | number]> {
  const out: Array<[Json[] | { [k: string]: Json }, string | number]> = [];
  const walk = (v: Json, depth: number) => {
    if (depth > 40 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push([v, i]);
        walk(x, depth + 1);
      });
    } else {
      for (const k of Object.keys(v)) {
        out.push([v, k]);
        walk(v[k], depth + 1);
      }
    }
  };
  walk(doc, 0);
  return out;
}

/** The items of a List or the array of an AWS output, where duplicates and renames make sense. */
function itemArray(doc: Json): Json[] | undefined {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  if (Array.isArray(doc.items)) return doc.items;
  for (const v of Object.values(doc)) if (Array.isArray(v)) return v;
  return undefined;
}

function nameOf(item: Json): string | undefined {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const meta = item.metadata;
  if (meta && typeof meta === 'object' && !Array.isArray(meta) && typeof meta.name === 'string') return meta.name;
  return typeof item.AutoScalingGroupName === 'string' ? item.AutoScalingGroupName : undefined;
}

/** Applies one mutation; returns a description (for the failure report) and the new file text. */
const BAD_FLAG_VALUES = ['', 'abc', '-1', '1e3s', '1.5.3Gi', '999999999999999999999', 'true,false', '🚀', '10m-5s', ':::'];

/** CA's own inputs: a flag of its Deployment, or the text of its status ConfigMap (YAML inside a string). */
function mutateCaInput(f: Fuzzer, doc: Json): string | undefined {
  const items = itemArray(doc) ?? [doc];
  for (const item of items) {
    const spec = (item as any)?.spec?.template?.spec;
    const container = spec?.containers?.find((c: any) => /cluster-autoscaler/.test(String(c?.image)));
    const args: unknown = container?.command ?? container?.args;
    if (Array.isArray(args) && args.length > 0) {
      const i = f.int(args.length);
      const flag = String(args[i]).split('=')[0];
      const value = f.pick(BAD_FLAG_VALUES);
      args[i] = f.chance(0.2) ? value : `${flag}=${value}`;
      return `CA flag ${args[i]}`;
    }
    const data = (item as any)?.data;
    if (data && typeof data.status === 'string') {
      const at = f.int(data.status.length);
      data.status = f.chance(0.5)
        ? data.status.slice(0, at)
        : `${data.status.slice(0, at)}${f.pick(['\n  - [', ': : :', '\t', 'health: {status: 7}', '\u0000'])}${data.status.slice(at)}`;
      return `status ConfigMap text changed at ${at}`;
    }
  }
  return undefined;
}

function mutate(f: Fuzzer, text: string): { what: string; text: string } {
  const kind = f.int(100);
  if (kind < 8) {
    const at = f.int(text.length);
    return { what: `truncated at ${at}`, text: text.slice(0, at) };
  }
  if (kind < 10) {
    const junk = f.pick(['null', '42', '"str"', '[]', '{}', 'garbage: [', '{"items": {}}', '- a\n- b', '\uFEFF{}', '']);
    return { what: `replaced by ${JSON.stringify(junk)}`, text: junk };
  }
  const doc = JSON.parse(text) as Json;
  const steps: string[] = [];
  if (kind < 30) {
    const ca = mutateCaInput(f, doc);
    if (ca) return { what: ca, text: JSON.stringify(doc) };
  }
  const rounds = 1 + f.int(3);
  for (let r = 0; r < rounds; r++) {
    const op = f.int(100);
    const items = itemArray(doc);
    if (op < 10 && items && items.length > 0) {
      // duplicate names: a copy of one item (same name, maybe changed), or one renamed to another's name
      const a = items[f.int(items.length)];
      const b = items[f.int(items.length)];
      if (f.chance(0.5)) {
        items.push(structuredClone(a));
        steps.push(`duplicated ${nameOf(a)}`);
      } else if (b && typeof b === 'object' && !Array.isArray(b) && nameOf(a)) {
        const meta = b.metadata;
        if (meta && typeof meta === 'object' && !Array.isArray(meta)) meta.name = nameOf(a)!;
        else if ('AutoScalingGroupName' in b) b.AutoScalingGroupName = nameOf(a)!;
        steps.push(`renamed ${nameOf(b)} to ${nameOf(a)}`);
      }
      continue;
    }
    // Aim inside one object (a Pending pod half the time in pods.json): a uniform pick over every place would
    // mostly hit the largest objects' status blocks.
    const pending = items?.filter((p) => JSON.stringify((p as { status?: Json })?.status ?? '').includes('"Pending"'));
    const target = items && items.length > 0 && f.chance(0.85)
      ? pending && pending.length > 0 && f.chance(0.5)
        ? f.pick(pending)
        : f.pick(items)
      : doc;
    const all = places(target);
    if (all.length === 0) break;
    const [parent, key] = f.pick(all);
    const old = (parent as Record<string | number, Json>)[key];
    const set = (v: Json | undefined, label: string) => {
      if (v === undefined) {
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key as string];
      } else (parent as Record<string | number, Json>)[key] = v;
      steps.push(`${String(key)}: ${label}`);
    };
    if (op < 22) set(undefined, 'deleted');
    else if (op < 32) set(null, 'null');
    else if (op < 50) {
      const wrong = f.pick<Json>([0, 1.5, true, false, '', 'x', [], {}, [null], { a: 1 }, '1Gi', -7]);
      set(wrong, `wrong type ${JSON.stringify(wrong)}`);
    } else if (op < 58) set(f.pick(NUMBERS), 'huge number');
    else if (op < 70 && (typeof old === 'string' || typeof old === 'number')) {
      set(f.pick(BAD_QUANTITIES), 'bad quantity');
    } else if (op < 80 && ENUM_KEYS.has(String(key))) set(f.pick(ENUM_VALUES), 'unknown enum value');
    else if (op < 88 && typeof old === 'string') {
      set(/Time|Timestamp|time$/.test(String(key)) ? f.pick(DATES) : f.pick(UNICODE), 'odd string');
    } else if (op < 94) set(f.pick(UNICODE), 'unicode');
    else if (op < 97 && old && typeof old === 'object') {
      let deep: Json = 'bottom';
      for (let i = 0; i < 200; i++) deep = [deep];
      set(deep, 'deeply nested');
    } else set(f.pick(NUMBERS), 'number');
  }
  // Most mutations stay valid JSON; some go out as YAML-looking or with a trailing comma, like hand-edited files.
  const out = JSON.stringify(doc);
  if (f.chance(0.03)) return { what: `${steps.join('; ')}; trailing comma`, text: `${out.slice(0, -1)},}` };
  return { what: steps.join('; ') || 'no-op', text: out ?? 'null' };
}

const files = readdirSync(DEMO).filter((n) => n.endsWith('.json'));
// Compact JSON: the same objects, parsed in half the time (the loader does not care about whitespace).
const original = new Map(files.map((n) => [n, JSON.stringify(JSON.parse(readFileSync(join(DEMO, n), 'utf8')))]));
// Weighted toward the files the analysis leans on most.
const WEIGHTED = [
  ...files,
  ...[
    'pods.json',
    'pods.json',
    'pods.json',
    'nodes.json',
    'nodes.json',
    'asgs.json',
    'asgs.json',
    'launch-template-versions.json',
    'events.json',
    'deployments.json',
    'configmaps-kube-system.json',
    'daemonsets.json',
  ].filter((f) => original.has(f)),
];

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-fuzz-'));
  snapshots = mkdtempSync(join(tmpdir(), 'casdoctor-fuzz-snapshots-'));
  for (const [name, text] of original) writeFileSync(join(dir, name), text);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(snapshots, { recursive: true, force: true });
});

function deps(): Deps & { out: string[] } {
  const out: string[] = [];
  return {
    out,
    stdout: (s) => void out.push(s),
    stderr: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    realNow: () => new Date(DEMO_NOW),
  };
}

function options(extra: Partial<WhyPendingOptions>): WhyPendingOptions {
  return {
    from: [dir],
    requestTimeout: '30s',
    now: DEMO_NOW,
    output: 'json',
    failOn: 'error',
    color: false,
    debug: false,
    all: true,
    allNamespaces: true,
    ...extra,
  };
}

interface Failure {
  i: number;
  file: string;
  what: string;
  error: string;
}

/** Runs a mutated file through the whole command; an InputError is a fine end, anything else thrown is a bug. */
async function runOne(o: WhyPendingOptions): Promise<'report' | 'input-error'> {
  const d = deps();
  try {
    const r = await runWhyPending(o, d);
    expect([0, 1]).toContain(r.exitCode);
    const text = d.out.join('');
    if (o.output === 'json') JSON.parse(text);
    else expect(text.length).toBeGreaterThan(0);
    return 'report';
  } catch (e) {
    if (e instanceof InputError) return 'input-error';
    throw e;
  }
}

/** `casdoctor snapshot --redact` of the mutated dump: it writes, or stops with an input error. */
async function snapshotOne(out: string): Promise<void> {
  try {
    const r = await runSnapshot(
      { ...options({}), output: 'table', dir: out, redact: true, redactSalt: 'fuzz' } as SnapshotOptions,
      deps(),
    );
    expect(r.exitCode).toBe(0);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
  }
}

let snapshots: string;

describe('seeded bad input', () => {
  it(`ends each of ${MUTATIONS} mutated demo dumps in a report or an input error (and every 20th in a snapshot), never a crash or a hang`, async () => {
    const f = new Fuzzer(prng(SEED));
    const failures: Failure[] = [];
    const outcomes = { report: 0, 'input-error': 0 };
    let slowest = 0;
    for (let i = 0; i < MUTATIONS; i++) {
      const file = f.pick(WEIGHTED);
      const { what, text } = mutate(f, original.get(file)!);
      writeFileSync(join(dir, file), text);
      const t0 = performance.now();
      try {
        const output = f.chance(0.75) ? 'json' : 'table';
        outcomes[await runOne(options({ output }))]++;
        // every 20th dump is also re-exported, redacted: the snapshot writer meets the same odd input
        if (i % 20 === 0) await snapshotOne(join(snapshots, String(i)));
      } catch (e) {
        failures.push({ i, file, what: what.slice(0, 300), error: (e as Error).stack ?? String(e) });
      } finally {
        slowest = Math.max(slowest, performance.now() - t0);
        writeFileSync(join(dir, file), original.get(file)!);
      }
    }
    if (process.env.FUZZ_DUMP) writeFileSync(process.env.FUZZ_DUMP, JSON.stringify(failures, null, 1));
    expect(failures.slice(0, 5)).toEqual([]);
    // the mutations reach both ends: most still give a report, and the broken files stop with file:line:column
    expect(outcomes.report).toBeGreaterThan(MUTATIONS / 2);
    expect(outcomes['input-error']).toBeGreaterThan(MUTATIONS / 20);
    expect(slowest).toBeLessThan(5_000);
  }, 120_000);

  it('gives the same exit code family through the real CLI: report (0/1) or input error (2) with a message, no stack', async () => {
    const f = new Fuzzer(prng(SEED ^ 0xc11));
    const cliDir = mkdtempSync(join(tmpdir(), 'casdoctor-fuzz-cli-'));
    try {
      const runs = await Promise.all(
        Array.from({ length: CLI_RUNS }, async (_, i) => {
          const sub = join(cliDir, String(i));
          cpSync(DEMO, sub, { recursive: true });
          const file =
            i === 0 ? 'pods.json' : f.pick(['pods.json', 'nodes.json', 'asgs.json', 'events.json', 'launch-template-versions.json']);
          const { what, text } =
            i === 0 ? { what: 'truncated', text: original.get(file)!.slice(0, 999) } : mutate(f, original.get(file)!);
          writeFileSync(join(sub, file), text);
          const r = await cliAsync(['why-pending', '--all', '-A', '--from', sub, '--now', DEMO_NOW, '-o', 'json']);
          return { what, file, ...r };
        }),
      );
      for (const r of runs) {
        const label = `${r.file}: ${r.what.slice(0, 200)}\n${r.stderr}`;
        expect([0, 1, 2], label).toContain(r.code);
        expect(r.stderr, label).not.toMatch(/unexpected failure|\s{4}at /);
        if (r.code === 2) expect(r.stderr, label).toMatch(/^error: /m);
        else expect(JSON.parse(r.stdout).command, label).toBe('why-pending');
      }
      expect(runs[0].code).toBe(2);
      expect(runs[0].stderr).toMatch(/^error: .*pods\.json:\d+:\d+: malformed JSON/m);
    } finally {
      rmSync(cliDir, { recursive: true, force: true });
    }
  }, 60_000);
});
