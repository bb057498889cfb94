// The golden matrix: every example × every command × every output format the command takes (OUTPUT_FORMATS), byte for
// byte, with each run's exit code and stderr; plus a snapshot round trip. Refactors (the provider seam, the import
// circles, the provider folders) must leave all of it unchanged; a change on purpose lands in its own commit with
// `UPDATE_GOLDEN=1 npx vitest run test/simulate/providers/aws-outputs-unchanged.test.ts`, which rewrites
// test/golden/<example>/. examples/preflight's eksctl run in every format is test/report/preflight-golden.test.ts's.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsgAuditOptions } from '../../../src/commands/asg-audit.js';
import { runAsgAudit, runNodeGroupAudit } from '../../../src/commands/audit.js';
import { runExplain, runListChecks } from '../../../src/commands/checks.js';
import { OUTPUT_FORMATS } from '../../../src/commands/completion.js';
import { runOverview } from '../../../src/commands/overview.js';
import { runPreflight, type PreflightCommandOptions } from '../../../src/commands/preflight.js';
import { runScaleDownBlockers } from '../../../src/commands/scale-down-blockers.js';
import { runSnapshot } from '../../../src/commands/snapshot.js';
import type { Deps, GlobalOptions, OutputFormat, RunResult } from '../../../src/commands/types.js';
import { runWhyPending } from '../../../src/commands/why-pending.js';
import { capturingDeps } from '../../commands/in-process.js';
import { ROOT } from '../../commands/run.js';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const IAM_POLICY = 'examples/iam/ca-policy.json';
const PREFLIGHT_MANIFESTS = 'examples/preflight/manifests';

// the CLI's own defaults, as `casdoctor <command> --from <example> --now <time> -o <format>` in a pipe
function globals(from: string[], now: string): GlobalOptions {
  return { from, requestTimeout: '30s', caLogSince: '1h', now, output: 'table', failOn: 'error', color: false, debug: false, yes: false };
}

type Run = (o: GlobalOptions, deps: Deps) => Promise<RunResult>;
interface Cell {
  /** the golden file's stem: the command, then the variant (`asg-audit.iam-policy`) */
  stem: string;
  /** the command whose -o values (OUTPUT_FORMATS) the cell runs in */
  command: string;
  run: Run;
}

const whyPending: Run = (o, d) => runWhyPending({ ...o, all: true, allNamespaces: true }, d);
const scaleDown: Run = (o, d) => runScaleDownBlockers({ ...o, failOnExplicit: false }, d);
const withIam = (o: GlobalOptions): AsgAuditOptions => ({ ...o, iamPolicy: [IAM_POLICY] });
const preflight =
  (extra: Partial<PreflightCommandOptions>): Run =>
  (o, d) =>
    runPreflight({ ...o, namespace: 'default', strict: true, ...extra }, d);

/**
 * The commands every dump (a --from directory) runs; `asg-audit` and `node-group-audit` each under both providers
 * (node-group-audit --iam-policy is asg-audit's run under AWS, and ignored under another provider: not repeated).
 */
const DUMP_CELLS: Cell[] = [
  { stem: 'why-pending', command: 'why-pending', run: whyPending },
  { stem: 'scale-down-blockers', command: 'scale-down-blockers', run: scaleDown },
  { stem: 'asg-audit', command: 'asg-audit', run: runAsgAudit },
  { stem: 'asg-audit.iam-policy', command: 'asg-audit', run: (o, d) => runAsgAudit(withIam(o), d) },
  { stem: 'node-group-audit', command: 'node-group-audit', run: runNodeGroupAudit },
  { stem: 'overview', command: '', run: runOverview },
  { stem: 'preflight', command: 'preflight', run: preflight({ filename: [PREFLIGHT_MANIFESTS] }) },
];

interface Example {
  name: string;
  from: string[];
  now: string;
  cells: Cell[];
  /** snapshot -o <tmp> from the example, then why-pending -o json from the snapshot */
  roundTrip: boolean;
}

const EXAMPLES: Example[] = [
  { name: 'demo', from: ['examples/demo'], now: '2026-11-21T10:00:00Z', cells: DUMP_CELLS, roundTrip: true },
  { name: 'externalgrpc', from: ['examples/externalgrpc'], now: '2026-11-21T10:00:00Z', cells: DUMP_CELLS, roundTrip: true },
  { name: 'karpenter', from: ['examples/karpenter'], now: '2026-11-24T14:00:00Z', cells: DUMP_CELLS, roundTrip: true },
  {
    // manifests only: preflight is the one command that reads them (the eksctl run: test/golden/preflight.*)
    name: 'preflight',
    from: [],
    now: '2026-11-21T10:00:00Z',
    roundTrip: false,
    cells: [
      {
        stem: 'preflight.node-groups',
        command: 'preflight',
        run: preflight({
          filename: [PREFLIGHT_MANIFESTS],
          nodeGroups: ['examples/preflight/node-groups.yaml'],
          config: 'examples/preflight/.casdoctor.yaml',
        }),
      },
      { stem: 'preflight.clean', command: 'preflight', run: preflight({ filename: ['examples/preflight/clean'], eksctl: 'examples/preflight/cluster.yaml' }) },
      {
        stem: 'preflight.nodepools',
        command: 'preflight',
        run: preflight({ filename: [PREFLIGHT_MANIFESTS], nodepools: ['examples/karpenter/nodepools.json', 'examples/karpenter/ec2nodeclasses.json'] }),
      },
    ],
  },
  {
    // the commands that read no cluster: the check list and one check's page
    name: 'cli',
    from: [],
    now: '2026-11-21T10:00:00Z',
    roundTrip: false,
    cells: [
      { stem: 'checks', command: 'checks', run: runListChecks },
      { stem: 'explain.pod-untolerated-taint', command: 'explain', run: (o, d) => runExplain('pod-untolerated-taint', o, d) },
    ],
  },
];

function formatsOf(command: string): OutputFormat[] {
  const f = OUTPUT_FORMATS[command];
  return f === undefined || f === 'directory' ? ['table'] : (f as OutputFormat[]);
}

const EXT: Record<OutputFormat, string> = {
  table: 'txt',
  wide: 'wide.txt',
  name: 'name.txt',
  json: 'json',
  yaml: 'yaml',
  sarif: 'sarif',
  junit: 'junit.xml',
  markdown: 'md',
};

const goldenDir = (example: string) => join(ROOT, 'test', 'golden', example);

/** What a run shows a user besides stdout: its exit code and stderr, one entry per golden file. */
interface Side {
  exitCode: number;
  stderr: string;
}

for (const ex of EXAMPLES) {
  describe(`examples/${ex.name}: every command in every format prints exactly test/golden/${ex.name}/`, () => {
    const outputs = new Map<string, string>();
    const sides: Record<string, Side> = {};
    const trips: Record<string, string> = {};
    let tmp = '';

    beforeAll(async () => {
      // one process, the runs one after another: each builds its own Analysis from the same files
      const base = globals(ex.from, ex.now);
      tmp = mkdtempSync(join(tmpdir(), `casdoctor-golden-${ex.name}-`));
      for (const c of ex.cells) {
        // preflight writes its other formats with --output-file from the same run (the same renderer as -o; the
        // stdout forms are test/report/preflight-golden.test.ts's): one preflight run per cell instead of five
        const once = c.command === 'preflight';
        for (const format of once ? ['table' as const] : formatsOf(c.command)) {
          const file = `${c.stem}.${EXT[format]}`;
          const others = once ? formatsOf(c.command).filter((f) => f !== 'table') : [];
          const outputFile = others.map((f) => `${f}=${join(tmp, `${c.stem}.${EXT[f]}`)}`);
          const cap = capturingDeps();
          let exitCode: number;
          try {
            exitCode = (await c.run({ ...base, output: format, ...(once ? { outputFile } : {}) } as GlobalOptions, cap.deps)).exitCode;
          } catch (e) {
            // a command's own error (usage, input) is part of what it prints: the CLI maps it to exit 2
            exitCode = 2;
            cap.deps.stderr(`error: ${(e as Error).message}\n`);
          }
          outputs.set(file, cap.stdout());
          sides[file] = { exitCode, stderr: cap.stderr() };
          for (const f of others) outputs.set(`${c.stem}.${EXT[f]}`, readFileSync(join(tmp, `${c.stem}.${EXT[f]}`), 'utf8'));
        }
      }
      if (ex.roundTrip) {
        const plain = join(tmp, 'plain');
        const redacted = join(tmp, 'redacted');
        const map = join(tmp, 'map.json');
        for (const s of [
          { dir: plain },
          { dir: redacted, redact: true, redactSalt: 'golden-matrix', redactMap: map },
        ]) {
          const cap = capturingDeps();
          const r = await runSnapshot({ ...base, ...s, version: 'golden' }, cap.deps);
          expect(r.exitCode, cap.stderr()).toBe(0);
        }
        for (const [key, dir] of [['plain', plain], ['redacted', redacted]]) {
          const cap = capturingDeps();
          await whyPending({ ...globals([dir], ex.now), output: 'json' }, cap.deps);
          trips[key] = cap.stdout();
        }
        // undo the pseudonyms, longest first so that no pseudonym is replaced inside a longer one
        const mapped = JSON.parse(readFileSync(map, 'utf8')) as Array<{ category: string; original: string; pseudonym: string }>;
        // an EC2 host name's pseudonym is its IPv4 pseudonym, dashed (ip-10-0-14-37 -> ip-<a-b-c-d>): gather/redact.ts
        const dashed = mapped
          .filter((e) => e.category === 'ipv4')
          .map((e) => ({ ...e, original: `ip-${e.original.replaceAll('.', '-')}`, pseudonym: `ip-${e.pseudonym.replaceAll('.', '-')}` }));
        const entries = [...mapped, ...dashed].sort((a, b) => b.pseudonym.length - a.pseudonym.length);
        trips.unredacted = entries.reduce((s, e) => s.replaceAll(e.pseudonym, e.original), trips.redacted);
        trips.pseudonyms = String(entries.length);
      }
    }, 180_000);

    afterAll(() => {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });

    for (const c of ex.cells) {
      for (const format of formatsOf(c.command)) {
        const file = `${c.stem}.${EXT[format]}`;
        it(`${c.stem} -o ${format} prints exactly test/golden/${ex.name}/${file}`, () => {
          const path = join(goldenDir(ex.name), file);
          if (UPDATE) {
            mkdirSync(goldenDir(ex.name), { recursive: true });
            writeFileSync(path, outputs.get(file)!);
          }
          expect(outputs.get(file)).toBe(readFileSync(path, 'utf8'));
        });
      }
    }

    it(`exits and warns as test/golden/${ex.name}/runs.json says`, () => {
      const path = join(goldenDir(ex.name), 'runs.json');
      const text = `${JSON.stringify(sides, null, 2)}\n`;
      if (UPDATE) writeFileSync(path, text);
      expect(text).toBe(readFileSync(path, 'utf8'));
    });

    if (ex.roundTrip) {
      it('why-pending -o json from a snapshot of the example equals the one from the example', () => {
        expect(JSON.parse(trips.plain)).toEqual(JSON.parse(outputs.get('why-pending.json')!));
        expect(trips.plain).toBe(outputs.get('why-pending.json'));
      });

      it('from a redacted snapshot it differs only by the pseudonyms in the redaction map', () => {
        expect(Number(trips.pseudonyms)).toBeGreaterThan(0);
        expect(trips.redacted).not.toBe(outputs.get('why-pending.json'));
        expect(trips.unredacted).toBe(outputs.get('why-pending.json'));
      });
    }
  });
}

describe('the matrix', () => {
  it('covers every command the CLI offers (completion.ts OUTPUT_FORMATS) but snapshot, which the round trips run', () => {
    const covered = new Set(EXAMPLES.flatMap((e) => e.cells.map((c) => c.command)));
    for (const command of Object.keys(OUTPUT_FORMATS)) {
      if (command !== 'snapshot') expect(covered, command || '(overview)').toContain(command);
    }
  });

  it('runs the AWS provider on the demo, so no asg-audit check is skipped as not applicable', () => {
    const report = JSON.parse(readFileSync(join(goldenDir('demo'), 'asg-audit.json'), 'utf8')) as { skipped: Array<{ reason: string }> };
    expect(report.skipped.map((s) => s.reason)).not.toContain('not-applicable');
  });
});
