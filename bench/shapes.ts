// `node bench/out/build/bench/shapes.js`: times the offline commands on clusters that differ in one dimension at a time
// (issue 18): where Pending pods come from (10 controllers, one ReplicaSet each, 3,000 replicas of one), how many node
// groups (30 / 300 / 1,000) and how many nodes (500 / 5,000 / 15,000, 20 pods a node), all at once (15,000 nodes with
// 1,000 groups), each command in text and JSON,
// next to the JSON.parse floor of the same dump. Writes bench/out/shapes.json and the "Cluster shapes" section of
// docs/performance.md (between its shape markers; bench/run.ts keeps that section). Not part of `npm test`.
// Flags: --shapes base,distinct,...  --commands why-pending,asg-audit,scale-down-blockers (none: the floor only)
//        --formats text,json
//        --runs 3  --timeout 900 (seconds per process)  --cli <bin/casdoctor.js of another build>  --no-write  --list
//        --render-only (rewrite the docs section from bench/out/shapes.json)
// Build first: npm run build && npx tsc -p bench/tsconfig.json
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { DUMP_TIME, GENERATOR_VERSION, parseSize, ROOT } from './generate.js';

interface Shape {
  name: string;
  /** What varies, for the table. */
  varies: string;
  /** generate.ts size argument */
  spec: string;
}

const SHAPES: readonly Shape[] = [
  { name: 'base', varies: '5,000 nodes, 300 groups, Pending from 10 controllers', spec: 'nodes=5000,pods=100000,asgs=300' },
  { name: 'distinct', varies: 'Pending from ~290 ReplicaSets (one pod each)', spec: 'nodes=5000,pods=100000,asgs=300,pending=distinct' },
  { name: 'replicas', varies: '+3,000 Pending replicas of one ReplicaSet', spec: 'nodes=5000,pods=100000,asgs=300,pending=replicas' },
  { name: 'groups-30', varies: '30 node groups', spec: 'nodes=5000,pods=100000,asgs=30' },
  { name: 'groups-1000', varies: '1,000 node groups', spec: 'nodes=5000,pods=100000,asgs=1000' },
  { name: 'nodes-500', varies: '500 nodes, 10k pods', spec: 'nodes=500,pods=10000,asgs=300' },
  { name: 'nodes-15000', varies: '15,000 nodes, 300k pods', spec: 'nodes=15000,pods=300000,asgs=300' },
  // issue 18's largest target: every dimension at once
  { name: 'max', varies: '15,000 nodes, 300k pods, 1,000 groups', spec: 'nodes=15000,pods=300000,asgs=1000' },
];

const COMMAND_ARGS: Record<string, string[]> = {
  'why-pending': ['why-pending', '--all'],
  'asg-audit': ['asg-audit'],
  'scale-down-blockers': ['scale-down-blockers'],
};

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const value = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
};
const SHAPE_NAMES = value('shapes', SHAPES.map((s) => s.name).join(',')).split(',');
const COMMANDS = value('commands', Object.keys(COMMAND_ARGS).join(',')).split(',');
const FORMATS = value('formats', 'text,json').split(',');
const RUNS = Number(value('runs', '3'));
const TIMEOUT_S = Number(value('timeout', '900'));
const WRITE = !flag('no-write');

const OUT = join(ROOT, 'bench', 'out');
const DUMPS = join(OUT, 'dumps');
// --cli: another build of casdoctor (e.g. a copy of bin/ and dist/ from before a change), for before/after tables
const CLI = value('cli', join(ROOT, 'bin', 'casdoctor.js'));
const BUILD = join(OUT, 'build', 'bench');
const BEGIN = '<!-- shapes:begin -->';
const END = '<!-- shapes:end -->';

interface Sample {
  wallMs: number;
  cpuMs: number;
  rssKb: number;
  outBytes: number;
  exit: number;
  stderr: string;
}

interface Row {
  shape: string;
  command: string;
  format: string;
  runs: number;
  wallMs: number;
  cpuMs: number;
  rssMb: number;
  outBytes: number;
  ok: boolean;
  error?: string;
}

function log(s: string): void {
  process.stderr.write(`${s}\n`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor((s.length - 1) / 2)];
}

/** One process under /usr/bin/time; stdout is counted, not kept. */
function runOnce(cmd: string[]): Promise<Sample> {
  const tmp = join(OUT, `shapes-time-${process.pid}.txt`);
  const full = ['/usr/bin/time', '-f', '%e %U %S %M', '-o', tmp, ...cmd];
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(full[0], full.slice(1), { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let outBytes = 0;
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      outBytes += c.length;
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 4000) stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_S * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const [, user, sys, rss] = existsSync(tmp) ? readFileSync(tmp, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) : [];
      resolve({ wallMs, cpuMs: ((user ?? Number.NaN) + (sys ?? Number.NaN)) * 1000, rssKb: rss ?? Number.NaN, outBytes, exit: code ?? 137, stderr });
    });
  });
}

async function measure(shape: string, command: string, format: string, cmd: string[], runs: number): Promise<Row> {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const s = await runOnce(cmd);
    samples.push(s);
    if (s.exit !== 0) break; // --fail-on never: anything else is a failure that will not go away
  }
  const failed = samples.find((s) => s.exit !== 0);
  const row: Row = {
    shape,
    command,
    format,
    runs: samples.length,
    wallMs: median(samples.map((s) => s.wallMs)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    rssMb: median(samples.map((s) => s.rssKb)) / 1024,
    outBytes: median(samples.map((s) => s.outBytes)),
    ok: !failed,
    ...(failed ? { error: `exit ${failed.exit}: ${failed.stderr.trim().split('\n').at(-1) ?? ''}` } : {}),
  };
  log(`  ${shape} ${command} ${format}: ${fmtMs(row.wallMs)} wall, ${fmtMs(row.cpuMs)} CPU, ${fmtMb(row.rssMb)}, ${fmtBytes(row.outBytes)}${row.ok ? '' : ` FAILED ${row.error}`}`);
  return row;
}

function ensureDump(shape: Shape): string {
  const dir = join(DUMPS, `shape-${shape.name}`);
  const stamp = join(dir, 'SUMMARY.txt');
  const size = parseSize(`${shape.spec},name=shape-${shape.name}`);
  const want = `generator v${GENERATOR_VERSION}, size ${size.name}: ${JSON.stringify({ spec: shape.spec })}`;
  const fresh = existsSync(join(dir, 'SHAPE.txt')) && readFileSync(join(dir, 'SHAPE.txt'), 'utf8') === want && existsSync(stamp);
  if (!fresh) {
    log(`generating ${shape.name} (${shape.spec})…`);
    const r = spawnSync(process.execPath, ['--max-old-space-size=12000', join(BUILD, 'generate.js'), `${shape.spec},name=shape-${shape.name}`, dir], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`generating ${shape.name} failed`);
    writeFileSync(join(dir, 'SHAPE.txt'), want);
  }
  return dir;
}

function fmtMs(ms: number): string {
  return Number.isNaN(ms) ? '–' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
function fmtMb(mb: number): string {
  return Number.isNaN(mb) ? '–' : mb >= 1024 ? `${(mb / 1024).toFixed(2)} GiB` : `${Math.round(mb)} MiB`;
}
function fmtBytes(b: number): string {
  return b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : b >= 1e3 ? `${(b / 1e3).toFixed(1)} KB` : `${b} B`;
}

function render(rows: Row[], floors: Map<string, Row>, loads: number[]): string {
  const lines = [
    BEGIN,
    '## Cluster shapes',
    '',
    `Measured by [bench/shapes.ts](../bench/shapes.ts) on ${new Date().toISOString().slice(0, 10)}: medians of the Runs column (fewer runs at 15,000 nodes; one where a run failed) on ${os.cpus().length} CPUs${loads.length ? ` (load average ${Math.min(...loads).toFixed(2)} – ${Math.max(...loads).toFixed(2)} in the last invocation)` : ''}. On a machine shared with other work wall times are inflated: CPU time (user + sys) is steadier. One dimension varies at a time around 5,000 nodes / 100k pods / 300 groups; "× floor" divides wall time, then CPU time, by the JSON.parse floor of the same dump ([bench/parse-floor.ts](../bench/parse-floor.ts)).`,
    '',
    '| Shape | Command | Format | Runs | Wall | CPU | Peak RSS | Output | × floor | Result |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const floor = floors.get(r.shape);
    const x = floor?.ok && r.ok ? `${(r.wallMs / floor.wallMs).toFixed(1)}× / ${(r.cpuMs / floor.cpuMs).toFixed(1)}×` : '–';
    const shape = SHAPES.find((s) => s.name === r.shape);
    lines.push(`| ${r.shape}: ${shape?.varies ?? ''} | ${r.command} | ${r.format} | ${r.runs} | ${fmtMs(r.wallMs)} | ${fmtMs(r.cpuMs)} | ${fmtMb(r.rssMb)} | ${r.command === 'floor' ? '–' : fmtBytes(r.outBytes)} | ${r.command === 'floor' ? '1×' : x} | ${r.ok ? 'ok' : `**failed**: ${r.error}`} |`);
  }
  // hand-written findings (before/after, profiles) live next to the script, so regenerating keeps them
  const notes = join(ROOT, 'bench', 'shapes-notes.md');
  if (existsSync(notes)) lines.push('', readFileSync(notes, 'utf8').trimEnd());
  lines.push('', END);
  return lines.join('\n');
}

const rowKey = (r: Row) => `${r.shape} ${r.command} ${r.format}`;

/** Rows of earlier runs this run does not measure again, so subsets (e.g. --commands none: the floor) add up. */
function earlierRows(measured: Set<string>): Row[] {
  const path = join(OUT, 'shapes.json');
  if (!existsSync(path)) return [];
  const old = JSON.parse(readFileSync(path, 'utf8')) as { rows?: Row[] };
  return (old.rows ?? []).filter((r) => !measured.has(rowKey(r)));
}

function write(rows: Row[], loads: number[]): void {
  const commands = ['floor', ...Object.keys(COMMAND_ARGS)];
  const order = (r: Row) =>
    SHAPES.findIndex((s) => s.name === r.shape) * 100 + commands.indexOf(r.command) * 10 + (r.format === 'json' ? 1 : 0);
  const all = [...earlierRows(new Set(rows.map(rowKey))), ...rows].sort((x, y) => order(x) - order(y));
  writeFileSync(join(OUT, 'shapes.json'), `${JSON.stringify({ rows: all }, null, 2)}\n`);
  const floors = new Map(all.filter((r) => r.command === 'floor').map((r) => [r.shape, r]));
  const section = render(all, floors, loads);
  if (!WRITE) {
    console.log(section);
    return;
  }
  const doc = join(ROOT, 'docs', 'performance.md');
  const text = readFileSync(doc, 'utf8');
  const at = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const next = at >= 0 && end > at ? `${text.slice(0, at)}${section}${text.slice(end + END.length)}` : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(doc, next);
  log('wrote the shapes section of docs/performance.md and bench/out/shapes.json');
}

async function main(): Promise<void> {
  if (flag('list')) {
    for (const s of SHAPES) console.log(`${s.name.padEnd(12)} ${s.spec}  (${s.varies})`);
    return;
  }
  mkdirSync(OUT, { recursive: true });
  if (flag('render-only')) {
    // rewrite the docs section from bench/out/shapes.json (e.g. after editing shapes-notes.md), measuring nothing
    write([], []);
    return;
  }
  const shapes = SHAPE_NAMES.map((n) => SHAPES.find((s) => s.name === n)).filter((s): s is Shape => s !== undefined);
  const rows: Row[] = [];
  const loads = [os.loadavg()[0]];
  for (const shape of shapes) {
    const dir = ensureDump(shape);
    log(`${shape.name}:`);
    rows.push(await measure(shape.name, 'floor', '–', [process.execPath, join(BUILD, 'parse-floor.js'), dir], RUNS));
    for (const command of COMMANDS.filter((c) => COMMAND_ARGS[c])) {
      for (const format of FORMATS) {
        const cmd = [process.execPath, CLI, ...COMMAND_ARGS[command], ...(format === 'json' ? ['-o', 'json'] : []), '--from', dir, '--now', DUMP_TIME, '--fail-on', 'never'];
        rows.push(await measure(shape.name, command, format, cmd, RUNS));
        loads.push(os.loadavg()[0]);
      }
    }
    write(rows, loads); // after every shape: a long run stopped early still leaves its figures
  }
}

await main();
