// --watch with -o json|yaml, and preflight -o json: the document is streamed through the same writer as a single
// why-pending run (issue 18: no machine format is held as one string), after a round's banner on stderr, same bytes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PreflightCommandOptions, runPreflight } from '../../src/commands/preflight.js';
import { runScaleDownBlockers, type ScaleDownBlockersOptions } from '../../src/commands/scale-down-blockers.js';
import type { Deps, RunResult } from '../../src/commands/types.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { DEMO, ROOT } from './run.js';

interface Captured {
  stdout: string;
  stderr: string;
  /** Every write, stdout and stderr in the order they happened. */
  writes: Array<{ to: 'out' | 'err'; text: string }>;
  exitCode: number;
}

/** Runs the command once (no --watch), as the CLI with stdout piped. */
async function single(run: (deps: Deps) => Promise<RunResult>): Promise<Captured> {
  const c = capturingDeps();
  const r = await run(c.deps);
  return { stdout: c.stdout(), stderr: c.stderr(), writes: [], exitCode: r.exitCode };
}

/** Runs the command with --watch and stops it (as Ctrl-C does) once the first round is written. */
async function firstRound(run: (deps: Deps) => Promise<RunResult>): Promise<Captured> {
  let interrupt: (() => void) | undefined;
  const writes: Captured['writes'] = [];
  const c = capturingDeps({
    onInterrupt: (h) => {
      interrupt = h;
      return () => undefined;
    },
  });
  const deps: Deps = {
    ...c.deps,
    stdout: (s) => {
      writes.push({ to: 'out', text: s });
      c.deps.stdout(s);
    },
    stderr: (s) => {
      writes.push({ to: 'err', text: s });
      c.deps.stderr(s);
    },
  };
  const done = run(deps);
  // the round is written before the loop waits out its interval
  for (let i = 0; i < 600 && !c.stdout().endsWith('\n'); i++) await new Promise((r) => setTimeout(r, 50));
  interrupt!();
  const r = await done;
  return { stdout: c.stdout(), stderr: c.stderr(), writes, exitCode: r.exitCode };
}

const whyPending = (o: Partial<WhyPendingOptions>) => (deps: Deps) =>
  runWhyPending({ ...PIPED_JSON, from: [DEMO], all: true, ...o } as WhyPendingOptions, deps);
const scaleDown = (o: Partial<ScaleDownBlockersOptions>) => (deps: Deps) =>
  runScaleDownBlockers({ ...PIPED_JSON, from: [DEMO], ...o } as ScaleDownBlockersOptions, deps);

describe('--watch in machine formats', () => {
  for (const output of ['json', 'yaml'] as const) {
    it(`why-pending -o ${output}: the round's document is the single run's, byte for byte, streamed after the banner`, async () => {
      const once = await single(whyPending({ output }));
      const watched = await firstRound(whyPending({ output, watch: '10s' }));
      expect(watched.stdout).toBe(once.stdout);
      expect(watched.exitCode).toBe(once.exitCode);
      // the banner first (stderr), then the document in more than one write: the demo's JSON is 87 KB, chunks 64 KB
      const firstOut = watched.writes.findIndex((w) => w.to === 'out');
      expect(watched.writes.slice(0, firstOut).map((w) => w.text).join('')).toContain('round 1 at ');
      expect(watched.writes.filter((w) => w.to === 'out').length).toBeGreaterThan(output === 'json' ? 1 : 10);
    }, 30_000);
  }

  it('scale-down-blockers -o json: the same bytes as a single run, after the banner', async () => {
    const once = await single(scaleDown({}));
    const watched = await firstRound(scaleDown({ watch: '10s' }));
    expect(watched.stdout).toBe(once.stdout);
    expect(JSON.parse(watched.stdout).command).toBe('scale-down-blockers');
    expect(watched.writes[0]).toEqual({ to: 'err', text: expect.stringContaining('round 1 at ') });
  }, 30_000);
});

describe('preflight -o json', () => {
  it('writes stdout through the streaming writer, the same bytes as the document it renders for --output-file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-preflight-stream-'));
    try {
      const ex = join(ROOT, 'examples', 'preflight');
      const file = join(dir, 'report.json');
      const writes: string[] = [];
      const c = capturingDeps();
      const deps: Deps = { ...c.deps, stdout: (s) => void writes.push(s) };
      await runPreflight(
        {
          ...PIPED_JSON,
          filename: [join(ex, 'manifests')],
          eksctl: join(ex, 'cluster.yaml'),
          config: join(ex, '.casdoctor.yaml'),
          outputFile: [`json=${file}`],
        } as PreflightCommandOptions,
        deps,
      );
      const stdout = writes.join('');
      expect(JSON.parse(stdout).command).toBe('preflight');
      expect(stdout).toBe(readFileSync(file, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
