// Live vs offline on the same data (issue 18: "live RSS within 1.3x of offline"): the same generated 5,000-node /
// 100k-pod dump read by the built casdoctor from files (--from) and live from the loopback servers of test/servers
// (which hold the dump in this process), per command; peak RSS and CPU from /usr/bin/time. Not part of `npm test`.
// Run: npm run build && npx tsc -p bench/tsconfig.json && node bench/out/build/bench/live-vs-offline.js
// Flags: --shape nodes=5000,pods=100000,asgs=300 (the bench's "base" shape, cached as bench/out/dumps/shape-base)
//        --runs 3  --commands why-pending,scale-down-blockers,asg-audit (none: only the gathering)  --no-gather
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RawInputs } from '../src/model/snapshot.js';
import { startAwsServer } from '../test/servers/aws-server.js';
import { startKubeApiServer } from '../test/servers/kube-apiserver.js';
import { DUMP_TIME, GENERATOR_VERSION, ROOT } from './generate.js';

const argv = process.argv.slice(2);
const value = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
};
const SHAPE = value('shape', 'nodes=5000,pods=100000,asgs=300');
const RUNS = Number(value('runs', '3'));
const COMMANDS = value('commands', 'why-pending,scale-down-blockers,asg-audit').split(',').filter((c) => c !== 'none');
const GATHER = !argv.includes('--no-gather');
const OUT = join(ROOT, 'bench', 'out');
const BUILD = join(OUT, 'build', 'bench');
const CLI = join(ROOT, 'bin', 'casdoctor.js');
const TIME = '/usr/bin/time';
const log = (s: string) => process.stderr.write(`${s}\n`);

const ARGS: Record<string, string[]> = {
  'why-pending': ['why-pending', '--all', '-A'],
  'why-pending -o json': ['why-pending', '--all', '-A', '-o', 'json'],
  'scale-down-blockers': ['scale-down-blockers'],
  'asg-audit': ['asg-audit'],
};

/** The dump of the shape, generated once (the same cache directory as bench/shapes.ts for the base shape). */
function ensureDump(): string {
  const name = SHAPE === 'nodes=5000,pods=100000,asgs=300' ? 'shape-base' : `shape-${SHAPE.replace(/[^a-z0-9]+/gi, '-')}`;
  const dir = join(OUT, 'dumps', name);
  const stamp = join(dir, 'SUMMARY.txt');
  if (!(existsSync(stamp) && readFileSync(stamp, 'utf8').includes(`generator v${GENERATOR_VERSION},`))) {
    log(`generating ${SHAPE} into ${dir}…`);
    const r = spawnSync(process.execPath, ['--max-old-space-size=12000', join(BUILD, 'generate.js'), `${SHAPE},name=${name}`, dir], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('generating the dump failed');
  }
  return dir;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
  rssMb: number;
  exit: number;
  stderr: string;
}

/** One run of the CLI in its own process; CPU and peak RSS from /usr/bin/time. */
function runOnce(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  return runNode([CLI, ...args], env);
}

function runNode(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Sample> {
  const tmp = join(OUT, `live-vs-offline-time-${process.pid}.txt`);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ['-f', '%U %S %M %x', '-o', tmp, process.execPath, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 20_000) stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      const line = readFileSync(tmp, 'utf8').trim().split('\n').at(-1) ?? '';
      rmSync(tmp, { force: true });
      const [u, s, m, x] = line.split(' ').map(Number);
      resolve({ wallMs: performance.now() - t0, cpuMs: (u + s) * 1000, rssMb: m / 1024, exit: x, stderr });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  if (!existsSync(TIME)) throw new Error(`${TIME} is needed for peak RSS`);
  const dir = ensureDump();
  log(`loading ${dir} into the loopback servers…`);
  const { loadOffline } = (await import(pathToFileURL(join(ROOT, 'dist', 'gather', 'offline.js')).href)) as typeof import('../src/gather/offline.js');
  // whole objects, as an API server sends them: the projection under test is the client's
  const data: RawInputs = await loadOffline([dir], { fields: 'all' });
  // the server sorts by namespace/name on every request: sorted input keeps that linear (as bench/run.ts does)
  const key = (o: { metadata?: { namespace?: string; name?: string } }) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  for (const list of Object.values(data)) {
    if (!Array.isArray(list) || !list.every((o) => o && typeof o === 'object' && 'metadata' in o)) continue;
    (list as Array<{ metadata?: { namespace?: string; name?: string } }>).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
  // no gzip on loopback (it only burns CPU on both sides); pages as kube-apiserver sends them
  const kube = await startKubeApiServer(data, { gzipThreshold: Number.POSITIVE_INFINITY });
  const aws = await startAwsServer(data);
  const awsEnv = {
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ACCESS_KEY_ID: 'AKIDCASDOCTORBENCH',
    AWS_SECRET_ACCESS_KEY: 'casdoctor-bench-secret',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: join(os.tmpdir(), 'casdoctor-bench-none', 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(os.tmpdir(), 'casdoctor-bench-none', 'credentials'),
  };
  const common = ['--now', DUMP_TIME, '--fail-on', 'never'];
  const rows: Array<{ command: string; offline: Sample; live: Sample; ratio: number }> = [];
  const gathers: Array<{ fields: string; sample: Sample }> = [];
  try {
    // the live gathering alone (bench/live-gather.ts), whole objects (what live kept before the projection) vs projected
    if (GATHER) {
      for (const fields of ['all', 'read']) {
        const sample = await runNode([join(BUILD, 'live-gather.js'), kube.kubeconfigPath, aws.endpoint, fields]);
        gathers.push({ fields, sample });
        log(`live gathering, fields ${fields.padEnd(5)} ${sample.rssMb.toFixed(0).padStart(5)} MB ${(sample.cpuMs / 1000).toFixed(1).padStart(5)} s cpu${sample.exit ? ` exit ${sample.exit}` : ''}`);
      }
    }
    for (const command of COMMANDS) {
      const offline: Sample[] = [];
      const live: Sample[] = [];
      // interleaved, so background load hits both alike
      for (let i = 0; i < RUNS; i++) {
        offline.push(await runOnce([...ARGS[command], '--from', dir, ...common], {}));
        live.push(await runOnce([...ARGS[command], '--kubeconfig', kube.kubeconfigPath, '--request-timeout', '5m', ...common], awsEnv));
      }
      for (const [how, s] of [['offline', offline], ['live', live]] as const) {
        const bad = s.find((x) => x.exit !== 0);
        if (bad) log(`${command} ${how}: exit ${bad.exit}: ${bad.stderr.split('\n').find((l) => /error/.test(l)) ?? ''}`);
      }
      const pick = (s: Sample[]): Sample => ({
        wallMs: median(s.map((x) => x.wallMs)),
        cpuMs: median(s.map((x) => x.cpuMs)),
        rssMb: median(s.map((x) => x.rssMb)),
        exit: Math.max(...s.map((x) => x.exit)),
        stderr: '',
      });
      const row = { command, offline: pick(offline), live: pick(live), ratio: 0 };
      row.ratio = row.live.rssMb / row.offline.rssMb;
      rows.push(row);
      log(
        `${command.padEnd(22)} offline ${row.offline.rssMb.toFixed(0).padStart(5)} MB ${(row.offline.cpuMs / 1000).toFixed(1).padStart(5)} s cpu | live ${row.live.rssMb.toFixed(0).padStart(5)} MB ${(row.live.cpuMs / 1000).toFixed(1).padStart(5)} s cpu | RSS live/offline ${row.ratio.toFixed(2)}x ${row.ratio <= 1.3 ? 'met' : 'NOT met'} (≤ 1.3x)`,
      );
    }
  } finally {
    await kube.close();
    await aws.close();
  }
  mkdirSync(OUT, { recursive: true });
  writeFileSync(
    join(OUT, 'live-vs-offline.json'),
    `${JSON.stringify({ date: new Date().toISOString(), shape: SHAPE, runs: RUNS, cpus: os.cpus().length, rows, gathers }, null, 2)}\n`,
  );
  process.stdout.write(
    [
      `| command | offline peak RSS | live peak RSS | live / offline | offline CPU | live CPU |`,
      `|---|---|---|---|---|---|`,
      ...rows.map(
        (r) =>
          `| \`${ARGS[r.command].join(' ')}\` | ${r.offline.rssMb.toFixed(0)} MB | ${r.live.rssMb.toFixed(0)} MB | ${r.ratio.toFixed(2)}× | ${(r.offline.cpuMs / 1000).toFixed(1)} s | ${(r.live.cpuMs / 1000).toFixed(1)} s |`,
      ),
      '',
    ].join('\n'),
  );
}

await main();
