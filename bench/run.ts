// `npm run bench`: times the built casdoctor (bin/casdoctor.js → dist/) on generated dumps of three sizes and live
// against the loopback Kubernetes and AWS servers, next to the floors (`node -e 0`, kubectl), then writes
// docs/performance.md and bench/out/results.json. Not part of `npm test`.
// Flags: --sizes small,medium,large  --runs 5  --medium-runs 3  --large-runs 3  --live-runs 3  --kubectl-runs 1
//        --startup-runs 10  --ca-log-runs 3  --no-offline  --no-live  --no-profile  --no-ca-log  --no-yaml  --no-write
//        --history-runs 1  --no-history  --record-seconds 60  --no-record
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RawInputs } from '../src/model/snapshot.js';
import type { AwsServer } from '../test/servers/aws-server.js';
import { startAwsServer } from '../test/servers/aws-server.js';
import type { KubeApiServer } from '../test/servers/kube-apiserver.js';
import { startKubeApiServer } from '../test/servers/kube-apiserver.js';
import { CA_LOG_GENERATOR_VERSION } from './ca-log.js';
import { HISTORY_GENERATOR_VERSION, HISTORY_NOW } from './history.js';
import { recordBench, type RecordBenchResult } from './record.js';
import { yamlDumpBench, yamlDumpVerdict } from './yaml-dumps.js';
import { type BenchSize, DUMP_TIME, GENERATOR_VERSION, manifestsPath, ROOT, SIZES } from './generate.js';

// ---------------------------------------------------------------------------------------------------------------
// options

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const value = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
};
const SIZE_NAMES = value('sizes', 'small,medium,large').split(',');
const RUNS = Number(value('runs', '5'));
const MEDIUM_RUNS = Number(value('medium-runs', '3'));
const LARGE_RUNS = Number(value('large-runs', '3'));
const LIVE_RUNS = Number(value('live-runs', '2'));
// kubectl needs minutes and ~10 GB for 100k pods: one run by default keeps the bench near 10 minutes
const KUBECTL_RUNS = Number(value('kubectl-runs', '1'));
const PROFILE = !flag('no-profile');
const STARTUP_RUNS = Number(value('startup-runs', '10'));
const LIVE = !flag('no-live');
const WRITE = !flag('no-write');
const OFFLINE = !flag('no-offline');
const CA_LOG = !flag('no-ca-log');
const CA_LOG_RUNS = Number(value('ca-log-runs', '3'));
// `casdoctor history` over the issue's inputs (issue 26): a 100 MB CA log, a 100 MB Karpenter log, 50,000 events, 10,000 activities
const HISTORY = !flag('no-history');
const HISTORY_RUNS = Number(value('history-runs', '1'));
// `casdoctor record` fed 1,000 events a second by the loopback server's watch (bench/record.ts)
const RECORD = !flag('no-record');
const RECORD_SECONDS = Number(value('record-seconds', '60'));
// `kubectl get pods -A -o yaml` dumps of 20 and 90 MB against the same pods as JSON (bench/yaml-dumps.ts)
const YAML_DUMPS = !flag('no-yaml');

const OUT = join(ROOT, 'bench', 'out');
const DUMPS = join(OUT, 'dumps');
const CLI = join(ROOT, 'bin', 'casdoctor.js');
const TIME = '/usr/bin/time';
const HAS_TIME = existsSync(TIME);
const TARGET_COMMANDS = ['why-pending', 'asg-audit', 'scale-down-blockers', 'preflight'] as const;

// ---------------------------------------------------------------------------------------------------------------
// measuring one process

interface Sample {
  wallMs: number;
  cpuMs: number;
  rssKb: number;
  exit: number;
  stderr: string;
  stdout: string;
  /** CPU the bench process itself used meanwhile: the loopback servers' work in live runs. */
  serverCpuMs: number;
}

/** Runs argv once; wall time from the bench's clock, CPU and peak RSS from /usr/bin/time (else /proc polling). */
function runOnce(cmd: string[], opts: { env?: NodeJS.ProcessEnv; captureStdout?: boolean } = {}): Promise<Sample> {
  const tmp = join(OUT, `time-${process.pid}.txt`);
  const full = HAS_TIME ? [TIME, '-f', '%e %U %S %M %x', '-o', tmp, ...cmd] : cmd;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(full[0], full.slice(1), {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', opts.captureStdout ? 'pipe' : 'ignore', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr?.on('data', (c: Buffer) => {
      if (stderr.length < 20_000) stderr += c.toString();
    });
    child.stdout?.on('data', (c: Buffer) => {
      if (stdout.length < 1_000_000) stdout += c.toString();
    });
    // without /usr/bin/time: the child's high-water mark, polled (VmHWM only grows, so the last read is close)
    let hwmKb = 0;
    const poll = HAS_TIME
      ? undefined
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
          } catch {
            /* exited */
          }
        }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const cpu = process.cpuUsage(cpu0);
      if (poll) clearInterval(poll);
      let cpuMs = Number.NaN;
      let rssKb = hwmKb;
      let exit = code ?? -1;
      if (HAS_TIME) {
        const line = readFileSync(tmp, 'utf8').trim().split('\n').at(-1) ?? '';
        const [, u, s, m, x] = line.split(' ').map(Number);
        cpuMs = (u + s) * 1000;
        rssKb = m;
        exit = x;
        rmSync(tmp, { force: true });
      }
      resolve({ wallMs, cpuMs, rssKb, exit, stderr, stdout, serverCpuMs: (cpu.user + cpu.system) / 1000 });
    });
  });
}

interface Measurement {
  label: string;
  size?: string;
  command: string;
  argv: string[];
  samples: Sample[];
  wallMs: number;
  cpuMs: number;
  rssMb: number;
  serverCpuMs: number;
  ok: boolean;
  error?: string;
  load: number;
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function summarize(label: string, command: string, cmd: string[], samples: Sample[], size?: string): Measurement {
  const failed = samples.find((s) => s.exit !== 0);
  const m: Measurement = {
    label,
    size,
    command,
    argv: cmd,
    samples,
    wallMs: median(samples.map((s) => s.wallMs)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    rssMb: median(samples.map((s) => s.rssKb)) / 1024,
    serverCpuMs: median(samples.map((s) => s.serverCpuMs)),
    ok: !failed,
    error: failed ? `exit ${failed.exit}: ${firstError(failed.stderr)}` : undefined,
    load: os.loadavg()[0],
  };
  log(
    `${label.padEnd(44)} ${fmtS(m.wallMs).padStart(8)} wall ${fmtS(m.cpuMs).padStart(8)} cpu ${fmtMb(m.rssMb).padStart(8)}  load ${m.load.toFixed(2)}${m.error ? `  FAILED ${m.error}` : ''}`,
  );
  return m;
}

function firstError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '' && !/^\s*\[/.test(l));
  return (lines.find((l) => /error|Error/.test(l)) ?? lines[0] ?? '').trim().slice(0, 200);
}

async function measure(
  label: string,
  command: string,
  cmd: string[],
  runs: number,
  opts: { env?: NodeJS.ProcessEnv; size?: string } = {},
): Promise<Measurement> {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const s = await runOnce(cmd, opts);
    samples.push(s);
    if (s.exit !== 0 && s.exit !== 1) break; // a usage or input error will not go away
  }
  return summarize(label, command, cmd, samples, opts.size);
}

const fmtS = (ms: number) => (Number.isNaN(ms) ? 'n/a' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const fmtMb = (mb: number) => (Number.isNaN(mb) ? 'n/a' : mb >= 1024 ? `${(mb / 1024).toFixed(2)} GB` : `${Math.round(mb)} MB`);
const log = (s: string) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------------------------
// dumps

interface DumpInfo {
  size: BenchSize;
  dir: string;
  summary: Record<string, number>;
  bytes: number;
  podsBytes: number;
}

function ensureDump(size: BenchSize): DumpInfo {
  const dir = join(DUMPS, size.name);
  const stamp = join(dir, 'SUMMARY.txt');
  const fresh = existsSync(stamp) && readFileSync(stamp, 'utf8').includes(`generator v${GENERATOR_VERSION},`);
  if (!fresh) {
    log(`generating the ${size.name} dump (${size.nodes} nodes, ${size.pods} pods, ${size.asgs} ASGs)…`);
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=8192', join(ROOT, 'bench', 'out', 'build', 'bench', 'generate.js'), size.name, dir],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) throw new Error(`generating ${size.name} failed`);
  }
  const text = readFileSync(stamp, 'utf8');
  const summary = JSON.parse(text.slice(text.indexOf('{')));
  const files = spawnSync('du', ['-sb', dir], { encoding: 'utf8' }).stdout.split('\t')[0];
  const pods = spawnSync('du', ['-sb', join(dir, 'pods.json')], { encoding: 'utf8' }).stdout.split('\t')[0];
  return { size, dir, summary, bytes: Number(files), podsBytes: Number(pods) };
}

// ---------------------------------------------------------------------------------------------------------------
// the commands this build has

function availableCommands(): string[] {
  const r = spawnSync(process.execPath, [CLI, '--help'], { cwd: ROOT, encoding: 'utf8' });
  const names = new Set<string>();
  let inCommands = false;
  for (const line of r.stdout.split('\n')) {
    if (/^Commands:/.test(line)) inCommands = true;
    else if (inCommands) {
      const m = /^ {2}([a-z][a-z-]+)/.exec(line);
      if (m) names.add(m[1]);
    }
  }
  return TARGET_COMMANDS.filter((c) => names.has(c));
}

/** Each command's arguments; preflight checks 40 Deployments, their PDBs and 5 StatefulSets of the dump, as a CI job would. */
const COMMAND_ARGS: Record<string, (dir: string) => string[]> = {
  'why-pending': () => ['why-pending', '--all'],
  'why-pending -o json': () => ['why-pending', '--all', '-o', 'json'],
  'asg-audit': () => ['asg-audit'],
  'scale-down-blockers': () => ['scale-down-blockers'],
  preflight: (dir) => ['preflight', '-f', dir === '<dump>' ? '<dump>-manifests.json' : manifestsPath(dir)],
};
const shownArgs = (command: string) =>
  COMMAND_ARGS[command]('<dump>').join(' ');
/** The commands with a time target at the large size; the others get at most two runs there, to keep the bench short. */
const TIMED_AT_LARGE = new Set(['why-pending', 'scale-down-blockers']);
/** Informational variants get one run per size. */
const ONE_RUN = new Set(['why-pending -o json']);

// ---------------------------------------------------------------------------------------------------------------
// live: the loopback servers hold the large dump

interface LiveResult {
  size: BenchSize;
  kubectl: Measurement;
  raw: Measurement;
  gather: Measurement;
  whyPending?: Measurement;
  objects: Record<string, number>;
  kubeRequests: { casdoctor: Record<string, RequestStats>; kubectl: Record<string, RequestStats> };
  awsCalls: Record<string, number>;
  gatherCounts?: Record<string, number>;
  gaps: string[];
}

interface RequestStats {
  requests: number;
  lists: number;
  gets: number;
  limits: string[];
  continued: number;
}

/** Requests per resource type: LISTs (with their limit and continue tokens) and single-object GETs. */
function requestStats(reqs: KubeApiServer['requests']): Record<string, RequestStats> {
  const out: Record<string, RequestStats> = {};
  for (const r of reqs) {
    const m = /^\/(?:api\/v1|apis\/[^/]+\/v1)(?:\/namespaces\/[^/]+)?\/([^/]+)(\/[^/]+)?$/.exec(r.path);
    const key = m ? m[1] : 'discovery';
    const s = (out[key] ??= { requests: 0, lists: 0, gets: 0, limits: [], continued: 0 });
    s.requests++;
    if (m && m[2]) s.gets++;
    else if (m) {
      s.lists++;
      const l = r.query.limit ?? '(none)';
      if (!s.limits.includes(l)) s.limits.push(l);
      if (r.query.continue) s.continued++;
    }
  }
  return out;
}

const PLURAL: Record<string, string> = {
  pods: 'pods',
  nodes: 'nodes',
  events: 'events',
  pdbs: 'poddisruptionbudgets',
  pvcs: 'persistentvolumeclaims',
  pvs: 'persistentvolumes',
  storageClasses: 'storageclasses',
  replicaSets: 'replicasets',
  deployments: 'deployments',
  statefulSets: 'statefulsets',
  daemonSets: 'daemonsets',
  jobs: 'jobs',
  priorityClasses: 'priorityclasses',
  configMaps: 'configmaps',
  serviceAccounts: 'serviceaccounts',
};

async function live(dump: DumpInfo, runs: number): Promise<LiveResult> {
  log(`\nlive: loading the ${dump.size.name} dump into the loopback servers…`);
  const { loadOffline } = (await import(pathToFileURL(join(ROOT, 'dist', 'gather', 'offline.js')).href)) as typeof import(
    '../src/gather/offline.js'
  );
  const data: RawInputs = await loadOffline([dump.dir]);
  // The server sorts by namespace/name on every request: sorted input keeps that linear.
  const key = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  for (const k of Object.keys(PLURAL) as Array<keyof typeof PLURAL>) {
    const list = data[k as keyof RawInputs] as Array<{ metadata: { namespace?: string; name?: string } }>;
    list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
  // No gzip: on loopback it only burns CPU on both sides (kube-apiserver would gzip pages over 128 KiB).
  const kube: KubeApiServer = await startKubeApiServer(data, { gzipThreshold: Number.POSITIVE_INFINITY });
  const aws: AwsServer = await startAwsServer(data);
  const objects = Object.fromEntries(Object.entries(PLURAL).map(([k, p]) => [p, (data[k as keyof RawInputs] as unknown[]).length]));
  try {
    const kc = kube.kubeconfigPath;
    const kubectlCmd = (cache: string) => [
      'kubectl', 'get', 'pods,nodes,events,pdb', '-A', '-o', 'json', '--kubeconfig', kc, '--cache-dir', cache,
    ];
    const gatherCmd = [process.execPath, join(ROOT, 'bench', 'out', 'build', 'bench', 'live-gather.js'), kc, aws.endpoint];
    const rawCmd = [process.execPath, join(ROOT, 'bench', 'out', 'build', 'bench', 'raw-list.js'), kc];
    const kubectlSamples: Sample[] = [];
    const rawSamples: Sample[] = [];
    const gatherSamples: Sample[] = [];
    let kubectlReqs: KubeApiServer['requests'] = [];
    let gatherReqs: KubeApiServer['requests'] = [];
    let awsReqs: AwsServer['requests'] = [];
    // interleaved, so background load hits both alike; each kubectl run starts with an empty discovery cache
    for (let i = 0; i < Math.max(runs, KUBECTL_RUNS); i++) {
      if (i < KUBECTL_RUNS) {
        const cache = mkdtempSync(join(os.tmpdir(), 'casdoctor-bench-kubectl-'));
        const from = kube.requests.length;
        kubectlSamples.push(await runOnce(kubectlCmd(cache)));
        kubectlReqs = kube.requests.slice(from);
        rmSync(cache, { recursive: true, force: true });
      }
      if (i < runs) {
        rawSamples.push(await runOnce(rawCmd, { captureStdout: true }));
        const from = kube.requests.length;
        const awsFrom = aws.requests.length;
        gatherSamples.push(await runOnce(gatherCmd, { captureStdout: true }));
        gatherReqs = kube.requests.slice(from);
        awsReqs = aws.requests.slice(awsFrom);
      }
    }
    const kubectl = summarize('kubectl get pods,nodes,events,pdb -A -o json', 'kubectl', kubectlCmd('<tmp>'), kubectlSamples, dump.size.name);
    const raw = summarize('raw floor: the same 15 LISTs, JSON.parse only', 'raw', rawCmd, rawSamples, dump.size.name);
    const gather = summarize('casdoctor live gathering (all kinds + AWS)', 'gather', gatherCmd, gatherSamples, dump.size.name);
    let gatherCounts: Record<string, number> | undefined;
    let gaps: string[] = [];
    try {
      const parsed = JSON.parse(gatherSamples.at(-1)?.stdout ?? '');
      gatherCounts = parsed.counts;
      gaps = parsed.gaps;
    } catch {
      /* reported as a failed run */
    }
    // the whole command, live: AWS through AWS_ENDPOINT_URL and static credentials, as a user's CI would
    const awsEnv = {
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_ACCESS_KEY_ID: 'AKIDCASDOCTORBENCH',
      AWS_SECRET_ACCESS_KEY: 'casdoctor-bench-secret',
      AWS_REGION: 'us-east-1',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: join(os.tmpdir(), 'casdoctor-bench-none', 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(os.tmpdir(), 'casdoctor-bench-none', 'credentials'),
    };
    const wpCmd = [process.execPath, CLI, 'why-pending', '--all', '--kubeconfig', kc, '--now', DUMP_TIME, '--fail-on', 'never', '--request-timeout', '5m'];
    const whyPending = await measure('casdoctor why-pending --all (live)', 'why-pending live', wpCmd, 1, {
      env: awsEnv,
      size: dump.size.name,
    });
    const awsCalls: Record<string, number> = {};
    for (const r of awsReqs) awsCalls[`${r.service}:${r.action}`] = (awsCalls[`${r.service}:${r.action}`] ?? 0) + 1;
    return {
      size: dump.size,
      kubectl,
      raw,
      gather,
      whyPending,
      objects,
      kubeRequests: { casdoctor: requestStats(gatherReqs), kubectl: requestStats(kubectlReqs) },
      awsCalls,
      gatherCounts,
      gaps,
    };
  } finally {
    await kube.close();
    await aws.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// CA log parsing: readCaLogFile on a generated 100 MB Cluster Autoscaler log (bench/ca-log.ts), in its own process

interface CaLogBench {
  file: string;
  bytes: number;
  lines: number;
  chunks: Measurement;
  readline: Measurement;
  /** From the parse runs' own report (median). */
  mbPerS: number;
  readlineMbPerS: number;
}

async function caLogBench(runs: number): Promise<CaLogBench> {
  const dir = join(OUT, 'ca-log');
  const file = join(dir, 'ca-100mb.log');
  const stamp = `${file}.version`;
  const script = join(ROOT, 'bench', 'out', 'build', 'bench', 'ca-log.js');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== `v${CA_LOG_GENERATOR_VERSION}`) {
    log('generating a 100 MB CA log (5,000 nodes, 300 ASGs, 300 Pending pods, --v=4)…');
    mkdirSync(dir, { recursive: true });
    const r = spawnSync(process.execPath, [script, 'generate', file, '100'], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error('generating the CA log failed');
    writeFileSync(stamp, `v${CA_LOG_GENERATOR_VERSION}\n`);
  }
  const run = async (label: string, extra: string[]) => {
    const samples: Sample[] = [];
    for (let i = 0; i < runs; i++) samples.push(await runOnce([process.execPath, script, 'parse', file, ...extra], { captureStdout: true }));
    const reports = samples.map((x) => {
      try {
        return JSON.parse(x.stdout) as { mbPerS: number; lines: number; bytes: number };
      } catch {
        return undefined;
      }
    });
    return { m: summarize(label, 'ca-log', [process.execPath, script, 'parse', '<file>', ...extra], samples), reports };
  };
  const chunks = await run('readCaLogFile (100 MB CA log)', []);
  const readline = await run('node:readline + parser (same log)', ['--readline']);
  const first = chunks.reports.find((r) => r);
  return {
    file,
    bytes: first?.bytes ?? statSync(file).size,
    lines: first?.lines ?? 0,
    chunks: chunks.m,
    readline: readline.m,
    mbPerS: median(chunks.reports.filter((r) => r).map((r) => r!.mbPerS)),
    readlineMbPerS: median(readline.reports.filter((r) => r).map((r) => r!.mbPerS)),
  };
}

function caLogVerdict(c: CaLogBench): Verdict {
  return {
    target: 'a 100 MB CA log parsed by `readCaLogFile` in a few seconds (< 5 s) with bounded memory (peak RSS < 256 MB)',
    measured: c.chunks.ok
      ? `${fmtS(c.chunks.wallMs)} (CPU ${fmtS(c.chunks.cpuMs)}), ${c.mbPerS} MB/s, peak RSS ${fmtMb(c.chunks.rssMb)}; node:readline instead: ${fmtS(c.readline.wallMs)}, ${c.readlineMbPerS} MB/s`
      : `failed (${c.chunks.error})`,
    met: c.chunks.ok ? c.chunks.wallMs < 5000 && c.chunks.rssMb < 256 : false,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// casdoctor history over generated inputs of the issue's size (bench/history.ts, the CA log of bench/ca-log.ts)

async function historyBench(runs: number): Promise<Measurement> {
  const dir = join(OUT, 'history');
  const stamp = join(dir, '.version');
  const want = `v${HISTORY_GENERATOR_VERSION}.${CA_LOG_GENERATOR_VERSION}`;
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== want) {
    log('generating the history inputs (100 MB CA log, 100 MB Karpenter log, 50,000 events, 10,000 scaling activities)…');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const build = join(ROOT, 'bench', 'out', 'build', 'bench');
    for (const args of [[join(build, 'ca-log.js'), 'generate', join(dir, 'ca.log'), '100'], [join(build, 'history.js'), 'generate', dir]]) {
      const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
      if (r.status !== 0) throw new Error(`generating the history inputs failed: ${args.join(' ')}`);
    }
    writeFileSync(stamp, `${want}\n`);
  }
  const cmd = [process.execPath, CLI, 'history', '--from', dir, '--now', HISTORY_NOW, '--since', '24h', '-o', 'json'];
  return measure('history (100 MB CA log, 100 MB Karpenter log, 50,000 events, 10,000 activities)', 'history', cmd, runs);
}

function recordVerdict(r: RecordBenchResult): Verdict {
  return {
    target: '`record` at 1,000 events a second stays under 150 MB',
    measured: `${r.sent} events in ${r.seconds} s, ${r.journaled} journaled (${fmtMb(r.journalBytes / 1e6)}), peak RSS ${fmtMb(r.peakRssMb)}, CPU ${fmtS(r.cpuMs)}`,
    met: r.journaled === r.sent && r.peakRssMb < 150,
  };
}

function historyVerdict(m: Measurement): Verdict {
  return {
    target: '`history` over a 100 MB CA log, a 100 MB Karpenter log, 50,000 events and 10,000 scaling activities in under 3 s and 600 MB',
    measured: m.ok ? `${fmtS(m.wallMs)} (CPU ${fmtS(m.cpuMs)}), peak RSS ${fmtMb(m.rssMb)}` : `failed (${m.error})`,
    met: m.ok ? m.wallMs < 3000 && m.rssMb < 600 : false,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// where the time goes: one run under the V8 sampling profiler

interface ProfileSummary {
  command: string;
  totalMs: number;
  /** Self time by file (dist/ files, node_modules packages, native code, the garbage collector). */
  selfByFile: Array<[string, number]>;
  /** Inclusive time of casdoctor's own functions. */
  inclusive: Array<[string, number]>;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

function summarizeProfile(command: string, file: string): ProfileSummary {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  prof.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000));
  const where = (url: string) => {
    if (!url) return '(native / V8)';
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (m) return `node_modules/${m[1]}`;
    const d = /\/(dist\/.+)$/.exec(url);
    return d ? d[1] : url.startsWith('node:') ? 'node: internals' : url;
  };
  const name = (n: CpuProfile['nodes'][number]) =>
    `${n.callFrame.functionName || '(anonymous)'} (${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1})`;
  const selfByFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalMs = 0;
  for (const n of prof.nodes) {
    const t = time.get(n.id) ?? 0;
    if (!t) continue;
    totalMs += t;
    const f = n.callFrame.functionName === '(garbage collector)' ? '(garbage collector)' : where(n.callFrame.url);
    selfByFile.set(f, (selfByFile.get(f) ?? 0) + t);
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id)!;
      if (!/\/dist\//.test(node.callFrame.url)) continue;
      const k = name(node);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m].filter(([, t]) => t >= totalMs * 0.02).sort((a, b) => b[1] - a[1]).slice(0, n);
  return { command, totalMs, selfByFile: top(selfByFile, 12), inclusive: top(inclusive, 25) };
}

async function profile(command: string, dump: DumpInfo): Promise<ProfileSummary | undefined> {
  const dir = mkdtempSync(join(os.tmpdir(), 'casdoctor-bench-prof-'));
  try {
    const cmd = [process.execPath, '--cpu-prof', '--cpu-prof-dir', dir, CLI, ...COMMAND_ARGS[command](dump.dir), '--from', dump.dir, '--now', DUMP_TIME, '--fail-on', 'never'];
    const s = await runOnce(cmd);
    log(`profiled ${command} (${dump.size.name}): ${fmtS(s.wallMs)}${s.exit > 1 ? ` FAILED ${firstError(s.stderr)}` : ''}`);
    const file = spawnSync('ls', [dir], { encoding: 'utf8' }).stdout.split('\n').find((f) => f.endsWith('.cpuprofile'));
    return file ? summarizeProfile(`${shownArgs(command)} (${dump.size.name})`, join(dir, file)) : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the report

interface Verdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

/** ", 2.1× the JSON.parse floor (2.95 s)" when the floor was measured at the same size. */
function floorNote(offline: Measurement[], m: Measurement): string {
  const floor = offline.find((x) => x.command === 'parse floor' && x.size === m.size && x.ok);
  return floor ? `; ${(m.wallMs / floor.wallMs).toFixed(1)}× the JSON.parse floor of the same dump (${fmtS(floor.wallMs)})` : '';
}

function verdicts(startup: { node: Measurement; help: Measurement }, offline: Measurement[], liveResult: LiveResult | undefined, sizes: DumpInfo[]): Verdict[] {
  const out: Verdict[] = [];
  const ratio = startup.help.wallMs / startup.node.wallMs;
  out.push({
    target: '`casdoctor --help` ≤ 2.5× `node -e 0`',
    measured: `${fmtS(startup.help.wallMs)} vs ${fmtS(startup.node.wallMs)}: ${ratio.toFixed(2)}×`,
    met: ratio <= 2.5,
  });
  const large = sizes.find((s) => s.size.name === 'large');
  const small = sizes.find((s) => s.size.name === 'small');
  const at = (command: string, size: string) => offline.find((m) => m.command === command && m.size === size);
  for (const [command, limitS] of [
    ['why-pending', 5],
    ['scale-down-blockers', 10],
  ] as const) {
    const m = large && at(command, 'large');
    out.push({
      target: `5,000 nodes / 100k pods: \`${shownArgs(command)}\` < ${limitS} s offline`,
      measured: !m
        ? !large || !OFFLINE
          ? 'offline runs at the large size skipped'
          : 'command not in this build'
        : m.ok
          ? `${fmtS(m.wallMs)} (CPU ${fmtS(m.cpuMs)})${floorNote(offline, m)}`
          : `failed (${m.error})`,
      met: m ? m.ok && m.wallMs < limitS * 1000 : undefined,
    });
  }
  if (large) {
    const ms = offline.filter((m) => m.size === 'large' && (m.command === 'why-pending' || m.command === 'scale-down-blockers'));
    const worst = ms.reduce<Measurement | undefined>((a, m) => (!a || m.rssMb > a.rssMb ? m : a), undefined);
    out.push({
      target: '5,000 nodes / 100k pods: peak RSS < 1 GB (why-pending, scale-down-blockers)',
      measured: worst ? ms.map((m) => `${m.command} ${m.ok ? fmtMb(m.rssMb) : 'failed'}`).join(', ') : 'offline runs skipped',
      met: worst ? ms.every((m) => m.ok && m.rssMb < 1024) : undefined,
    });
  }
  if (large && small) {
    for (const command of [...new Set(offline.map((m) => m.command))]) {
      const a = at(command, 'small');
      const b = at(command, 'large');
      if (!a || !b) continue;
      const g = b.wallMs / a.wallMs;
      out.push({
        target: `growth small → large (10× the cluster) ≤ 12×: \`${command}\``,
        measured:
          a.ok && b.ok
            ? `${fmtS(a.wallMs)} → ${fmtS(b.wallMs)}: ${g.toFixed(1)}× (CPU ${fmtS(a.cpuMs)} → ${fmtS(b.cpuMs)}: ${(b.cpuMs / a.cpuMs).toFixed(1)}×)`
            : 'a run failed',
        met: a.ok && b.ok ? g <= 12 : false,
      });
    }
  }
  if (liveResult) {
    const r = liveResult.gather.wallMs / liveResult.kubectl.wallMs;
    out.push({
      target: 'live gathering at the largest size ≤ 1.5× the kubectl floor',
      measured: liveResult.gather.ok
        ? `${fmtS(liveResult.gather.wallMs)} vs ${fmtS(liveResult.kubectl.wallMs)}: ${r.toFixed(2)}× (raw floor of the same 15 LISTs: ${fmtS(liveResult.raw.wallMs)}, casdoctor ${(liveResult.gather.wallMs / liveResult.raw.wallMs).toFixed(2)}× that)`
        : `failed (${liveResult.gather.error})`,
      met: liveResult.gather.ok && liveResult.kubectl.ok ? r <= 1.5 : false,
    });
    const c = liveResult.kubeRequests.casdoctor;
    const pagesOk = Object.entries(liveResult.objects).every(([plural, n]) => {
      const s = c[plural];
      if (!s) return false;
      return s.gets === 0 && s.lists === Math.max(1, Math.ceil(n / 500));
    });
    out.push({
      target: 'one paginated list per resource type (limit 500, continue tokens, no per-object GETs)',
      measured: pagesOk ? 'yes: LISTs per type = ⌈objects / 500⌉' : 'no: see the request table',
      met: pagesOk,
    });
    const asgCalls = liveResult.awsCalls['autoscaling:DescribeAutoScalingGroups'] ?? 0;
    const ltCalls = liveResult.awsCalls['ec2:DescribeLaunchTemplateVersions'] ?? 0;
    const asgs = liveResult.size.asgs;
    const batched = asgCalls === Math.ceil(asgs / 100) && ltCalls <= asgs;
    out.push({
      target: 'AWS calls batched (DescribeAutoScalingGroups 100 per page; launch-template versions once per template)',
      measured: `DescribeAutoScalingGroups ${asgCalls} calls for ${asgs} ASGs; DescribeLaunchTemplateVersions ${ltCalls} calls for ${asgs} templates (all versions of a template in one call); DescribeScalingActivities ${liveResult.awsCalls['autoscaling:DescribeScalingActivities'] ?? 0} calls (the API takes one group per call)`,
      met: batched,
    });
  }
  return out;
}

const mark = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? '**met**' : '**not met**');

function render(ctx: {
  date: string;
  machine: Record<string, string>;
  sizes: DumpInfo[];
  startup: { node: Measurement; help: Measurement };
  offline: Measurement[];
  liveResult?: LiveResult;
  profiles: ProfileSummary[];
  verdicts: Verdict[];
  commands: string[];
  elapsedS: number;
  loads: number[];
  caLog?: CaLogBench;
  history?: Measurement;
}): string {
  const L: string[] = [];
  const row = (cells: Array<string | number>) => L.push(`| ${cells.join(' | ')} |`);
  L.push('# Performance', '');
  L.push(
    `Measured by \`npm run bench\` ([bench/run.ts](../bench/run.ts)) on ${ctx.date}; this page is generated, do not edit it by hand.`,
    `The whole bench took ${Math.round(ctx.elapsedS)} s. Re-run it after changes to src/gather, src/simulate or src/report.`,
    '',
  );
  L.push('## Targets', '', '| Target | Measured | Verdict |', '|---|---|---|');
  for (const v of ctx.verdicts) row([v.target, v.measured, mark(v.met)]);
  const missing = TARGET_COMMANDS.filter((c) => !ctx.commands.includes(c));
  if (missing.length) L.push('', `Not in this build, so not measured: ${missing.map((c) => `\`${c}\``).join(', ')}.`);
  L.push('', '## Machine', '', '| | |', '|---|---|');
  for (const [k, v] of Object.entries(ctx.machine)) row([k, v]);
  row([
    'load average (1 min) during the runs',
    `${Math.min(...ctx.loads).toFixed(2)} – ${Math.max(...ctx.loads).toFixed(2)} (other work on the machine inflates wall time; CPU time is steadier)`,
  ]);

  L.push('', '## Method', '');
  L.push(
    `- **Dumps**: [bench/generate.ts](../bench/generate.ts) writes one EKS cluster per size into \`bench/out/dumps/<size>/\` (gitignored) in the offline format: \`kubectl get -o json\` Lists (sorted keys, 4-space indent) and \`aws ... --output json\`. Objects are cloned from [examples/demo](../examples/demo) and renamed consistently (node names, providerIDs and ASG instance ids agree). A seeded PRNG (mulberry32) makes every run write the same bytes. Each cluster has DaemonSets on every node, PDBs (some with maxUnavailable 0), EBS PVs pinned to zones, tainted and GPU node groups, groups at max size and at zero, undiscovered groups, spot groups with mixed instance types, completed Job pods, bare pods, 300 Pending pods from ten controllers (selector and taint mismatches, too large, scale-up, max size, expendable priority, GPU from zero, volume zone conflict, pod anti-affinity, topology spread) with their scheduler and CA events, the Cluster Autoscaler Deployment and its status ConfigMap.`,
    `- **Timing**: each command is a fresh process (\`node bin/casdoctor.js …\`, the built dist/). Wall time is taken by the bench around the process; CPU time (user + sys) and peak RSS come from \`${HAS_TIME ? '/usr/bin/time' : '/proc/<pid>/status VmHWM, polled every 20 ms'}\`. The tables show the median of ${RUNS} runs at the small size, ${MEDIUM_RUNS} at medium, ${LARGE_RUNS} at large for \`why-pending\` and \`scale-down-blockers\` (two for the other commands, one for \`-o json\` at every size), ${STARTUP_RUNS} for start-up; live: ${LIVE_RUNS} casdoctor gatherings and raw floors, ${KUBECTL_RUNS} kubectl run(s) (kubectl needs minutes and ~10 GB for 100k pods) and one live \`why-pending\`. Fewer runs at the large size keep the whole bench near 10 minutes on this machine. stdout goes to /dev/null (plain-text table, no TTY).`,
    `- **Offline**: \`casdoctor <command> --from bench/out/dumps/<size> --now ${DUMP_TIME} --fail-on never\`; \`preflight\` gets 40 Deployments, their PDBs and 5 StatefulSets of the dump as its manifests (as \`helm template\` renders them; the same count at every size).`,
    '- **Floor**: [bench/parse-floor.ts](../bench/parse-floor.ts) reads every file of the large dump and JSON.parse\'s it on one thread, large Lists in 64 KB batches of items, keeping nothing: what no offline command can beat on one core. The machine is shared and its speed varies by up to half from hour to hour (memory-bound work most); the floor, measured in the same bench, shows how fast the machine was.',
    '- **Live**: the loopback servers of test/servers (compiled with [bench/tsconfig.json](../bench/tsconfig.json), not part of `npm test`) run in the bench process and serve the large dump: kube-apiserver over HTTPS with a bearer token, pages of the requested `limit`, no gzip (on loopback it only burns CPU on both sides), and the AWS query/EC2/JSON protocols. The floor is `kubectl get pods,nodes,events,pdb -A -o json --kubeconfig <k> --cache-dir <fresh tmp>` (the same bytes moved and parsed; kubectl also prints them). casdoctor\'s live gathering is [bench/live-gather.ts](../bench/live-gather.ts): `gatherLive` from dist/ in its own process, every Kubernetes kind casdoctor reads plus the AWS calls. A second, tighter floor is [bench/raw-list.ts](../bench/raw-list.ts): the same 15 LISTs as casdoctor, paginated and in parallel the same way, each page only JSON.parse\'d. The runs alternate. "Server CPU" is the CPU the bench process (the loopback servers, single-threaded) spent during a run: when it approaches the wall time, the server is the bottleneck, not the client.',
  );

  L.push('', '## Dumps', '', '| Size | Nodes | Pods | Pending | ASGs | Events | Deployments | ReplicaSets | PDBs | PVs | Namespaces | pods.json | All files |', '|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const d of ctx.sizes) {
    const s = d.summary;
    row([d.size.name, s.nodes, s.pods, s.pendingPods, s.asgs, s.events, s.deployments, s.replicaSets, s.pdbs, s.pvs, s.namespaces, fmtMb(d.podsBytes / 2 ** 20), fmtMb(d.bytes / 2 ** 20)]);
  }

  L.push('', '## Start-up', '', '| Command | Wall (median) | CPU | Peak RSS |', '|---|---|---|---|');
  for (const m of [ctx.startup.node, ctx.startup.help]) row([`\`${m.label}\``, fmtS(m.wallMs), fmtS(m.cpuMs), fmtMb(m.rssMb)]);

  L.push('', '## Offline commands', '', '| Command | Size | Wall (median) | CPU | Peak RSS | Runs | Result |', '|---|---|---|---|---|---|---|');
  for (const m of ctx.offline)
    row([m.command === 'parse floor' ? 'JSON.parse floor ([bench/parse-floor.ts](../bench/parse-floor.ts))' : `\`${shownArgs(m.command)}\``, m.size ?? '', fmtS(m.wallMs), fmtS(m.cpuMs), fmtMb(m.rssMb), m.samples.length, m.ok ? 'ok' : `failed: ${m.error?.replaceAll('|', '\\|')}`]);

  if (ctx.caLog) {
    const c = ctx.caLog;
    L.push('', '## CA log parsing', '');
    L.push(
      `[bench/ca-log.ts](../bench/ca-log.ts) writes a Cluster Autoscaler 1.32 log at \`--v=4\` (klog text, as \`kubectl logs\` prints it) of a 5,000-node cluster with 300 ASGs and 300 Pending pods: ${(c.bytes / 1e6).toFixed(0)} MB, ${c.lines.toLocaleString('en-US')} lines, one main loop every 10 s. Each run parses it in a fresh process; the summary keeps the latest record per pod × group and per node, so memory does not grow with the log.`,
      '',
      '| Reader | Wall (median) | CPU | Peak RSS | MB/s | Runs | Result |',
      '|---|---|---|---|---|---|---|',
    );
    row(['`readCaLogFile` (1 MiB chunks split on bytes)', fmtS(c.chunks.wallMs), fmtS(c.chunks.cpuMs), fmtMb(c.chunks.rssMb), c.mbPerS, c.chunks.samples.length, c.chunks.ok ? 'ok' : `failed: ${c.chunks.error}`]);
    row(['`node:readline` + the same parser', fmtS(c.readline.wallMs), fmtS(c.readline.cpuMs), fmtMb(c.readline.rssMb), c.readlineMbPerS, c.readline.samples.length, c.readline.ok ? 'ok' : `failed: ${c.readline.error}`]);
  }

  if (ctx.history) {
    const h = ctx.history;
    L.push('', '## History', '');
    L.push(
      `[bench/history.ts](../bench/history.ts) writes a day of a mixed cluster: a 100 MB Karpenter log (22,000 node lives: provisioning, launch, registration, disruption, deletion), 50,000 events and 10,000 ASG scaling activities, beside the 100 MB CA log above. \`${h.argv.slice(2).join(' ').replace(join(OUT, 'history'), '<dir>')}\`.`,
      '',
      '| Run | Wall (median) | CPU | Peak RSS | Runs | Result |',
      '|---|---|---|---|---|---|',
    );
    row([h.label, fmtS(h.wallMs), fmtS(h.cpuMs), fmtMb(h.rssMb), h.samples.length, h.ok ? 'ok' : `failed: ${h.error?.replaceAll('|', '\\|')}`]);
  }

  const lr = ctx.liveResult;
  if (lr) {
    L.push('', `## Live gathering (${lr.size.name}: ${lr.size.nodes} nodes, ${lr.size.pods} pods, ${lr.size.asgs} ASGs)`, '');
    L.push('| Run | Wall (median) | CPU | Peak RSS | Server CPU | Result |', '|---|---|---|---|---|---|');
    for (const m of [lr.kubectl, lr.raw, lr.gather, lr.whyPending].filter((x): x is Measurement => !!x))
      row([m.label, fmtS(m.wallMs), fmtS(m.cpuMs), fmtMb(m.rssMb), fmtS(m.serverCpuMs), m.ok ? 'ok' : `failed: ${m.error?.replaceAll('|', '\\|')}`]);
    L.push('', '### Kubernetes requests per resource type (one run each)', '');
    L.push('| Resource | Objects | casdoctor LISTs | limit | continued | GETs | kubectl LISTs |', '|---|---|---|---|---|---|---|');
    for (const [plural, n] of Object.entries(lr.objects)) {
      const c = lr.kubeRequests.casdoctor[plural];
      const k = lr.kubeRequests.kubectl[plural];
      row([plural, n, c?.lists ?? 0, c?.limits.join(', ') ?? '', c?.continued ?? 0, c?.gets ?? 0, k?.lists ?? '–']);
    }
    const disc = lr.kubeRequests.kubectl.discovery?.requests ?? 0;
    L.push('', `kubectl also made ${disc} discovery request(s) (fresh cache); casdoctor made ${lr.kubeRequests.casdoctor.discovery?.requests ?? 0}.`);
    L.push('', '### AWS calls (one run)', '', '| Action | Calls |', '|---|---|');
    for (const [a, n] of Object.entries(lr.awsCalls).sort()) row([a, n]);
    if (lr.gaps.length) L.push('', `Gaps reported by the live gathering: ${lr.gaps.join('; ')}`);
  }
  for (const p of ctx.profiles) {
    L.push('', `## Where the time goes: \`${p.command}\``, '');
    L.push(
      `One run under \`node --cpu-prof\` (${fmtS(p.totalMs)} sampled; the profiler adds some overhead). Entries under 2% are left out.`,
      '',
      '| Self time by file | ms | % |',
      '|---|---|---|',
    );
    for (const [f, t] of p.selfByFile) row([f, Math.round(t), ((100 * t) / p.totalMs).toFixed(0)]);
    L.push('', '| Inclusive time, casdoctor functions | ms | % |', '|---|---|---|');
    for (const [f, t] of p.inclusive) row([`\`${f}\``, Math.round(t), ((100 * t) / p.totalMs).toFixed(0)]);
  }
  L.push('');
  return L.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

/** Keeps the "Cluster shapes" section bench/shapes.ts wrote (between its markers) when the rest is regenerated. */
function withShapesSection(doc: string): string {
  const path = join(ROOT, 'docs', 'performance.md');
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const at = old.indexOf('<!-- shapes:begin -->');
  const end = old.indexOf('<!-- shapes:end -->');
  return at >= 0 && end > at ? `${doc.trimEnd()}\n\n${old.slice(at, end + '<!-- shapes:end -->'.length)}\n` : doc;
}

async function main(): Promise<void> {
  const started = Date.now();
  mkdirSync(OUT, { recursive: true });
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/ is missing: npm run build');
  const loads: number[] = [os.loadavg()[0]];
  const sizes = SIZES.filter((s) => SIZE_NAMES.includes(s.name)).map(ensureDump);
  const commands = availableCommands();
  log(`commands in this build: ${commands.join(', ')}`);

  const node = await measure('node -e 0', 'node', [process.execPath, '-e', '0'], STARTUP_RUNS);
  const help = await measure('casdoctor --help', 'help', [process.execPath, CLI, '--help'], STARTUP_RUNS);
  loads.push(os.loadavg()[0]);

  const offline: Measurement[] = [];
  const large = sizes.find((d) => d.size.name === 'large');
  if (OFFLINE && large) {
    const floor = join(ROOT, 'bench', 'out', 'build', 'bench', 'parse-floor.js');
    offline.push(await measure('JSON.parse floor (large)', 'parse floor', [process.execPath, floor, large.dir], LARGE_RUNS, { size: 'large' }));
  }
  const variants = [...commands.flatMap((c) => (c === 'why-pending' ? [c, 'why-pending -o json'] : [c]))];
  for (const d of OFFLINE ? sizes : []) {
    for (const command of variants) {
      const cmd = [process.execPath, CLI, ...COMMAND_ARGS[command](d.dir), '--from', d.dir, '--now', DUMP_TIME, '--fail-on', 'never'];
      const runs = ONE_RUN.has(command)
        ? 1
        : d.size.name === 'large'
          ? TIMED_AT_LARGE.has(command)
            ? LARGE_RUNS
            : Math.min(LARGE_RUNS, 2)
          : d.size.name === 'medium'
            ? MEDIUM_RUNS
            : RUNS;
      offline.push(await measure(`${command} (${d.size.name})`, command, cmd, runs, { size: d.size.name }));
      loads.push(os.loadavg()[0]);
    }
  }

  const caLog = CA_LOG ? await caLogBench(CA_LOG_RUNS) : undefined;
  loads.push(os.loadavg()[0]);
  const yamlDumps = YAML_DUMPS ? yamlDumpBench([20, 90]) : undefined;
  loads.push(os.loadavg()[0]);
  const history = HISTORY ? await historyBench(HISTORY_RUNS) : undefined;
  loads.push(os.loadavg()[0]);
  const record = RECORD ? await recordBench(1000, RECORD_SECONDS) : undefined;
  loads.push(os.loadavg()[0]);

  const profiles: ProfileSummary[] = [];
  const largest = sizes.at(-1);
  if (PROFILE && OFFLINE && largest) {
    for (const command of commands.filter((c) => c === 'why-pending' || c === 'scale-down-blockers')) {
      const p = await profile(command, largest);
      if (p) profiles.push(p);
    }
  }

  let liveResult: LiveResult | undefined;
  if (LIVE && largest) liveResult = await live(largest, LIVE_RUNS);
  loads.push(os.loadavg()[0]);

  const mem = os.totalmem();
  const kubectlVersion = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '';
  const machine: Record<string, string> = {
    'CPUs (nproc)': String(os.availableParallelism()),
    'CPU model': os.cpus()[0]?.model ?? 'unknown',
    memory: `${(mem / 2 ** 30).toFixed(1)} GiB`,
    'Node.js': process.version,
    OS: `${os.type()} ${os.release()}`,
    kubectl: kubectlVersion.replace('Client Version: ', ''),
  };
  const v = verdicts({ node, help }, offline, liveResult, sizes);
  if (caLog) v.push(caLogVerdict(caLog));
  if (yamlDumps) v.push(yamlDumpVerdict(yamlDumps));
  if (history) v.push(historyVerdict(history));
  if (record) v.push(recordVerdict(record));
  const date = new Date().toISOString().slice(0, 10);
  const elapsedS = (Date.now() - started) / 1000;
  const doc = render({ date, machine, sizes, startup: { node, help }, offline, liveResult, profiles, verdicts: v, commands, elapsedS, loads, caLog, history });
  const strip = (m: Measurement) => ({ ...m, samples: m.samples.map(({ stdout: _o, stderr: _e, ...s }) => s) });
  writeFileSync(
    join(OUT, 'results.json'),
    `${JSON.stringify(
      {
        date,
        machine,
        sizes: sizes.map(({ size, summary, bytes }) => ({ size, summary, bytes })),
        startup: { node: strip(node), help: strip(help) },
        offline: offline.map(strip),
        live: liveResult && {
          ...liveResult,
          kubectl: strip(liveResult.kubectl),
          raw: strip(liveResult.raw),
          gather: strip(liveResult.gather),
          whyPending: liveResult.whyPending && strip(liveResult.whyPending),
        },
        profiles,
        caLog: caLog && { ...caLog, chunks: strip(caLog.chunks), readline: strip(caLog.readline) },
        yamlDumps,
        history: history && strip(history),
        record,
        verdicts: v,
      },
      null,
      2,
    )}\n`,
  );
  if (WRITE) writeFileSync(join(ROOT, 'docs', 'performance.md'), withShapesSection(doc));
  log(`\n${v.map((x) => `${mark(x.met).replaceAll('*', '').padEnd(12)} ${x.target}: ${x.measured}`).join('\n')}`);
  log(`\n${WRITE ? 'wrote docs/performance.md and ' : ''}bench/out/results.json in ${Math.round(elapsedS)} s`);
}

await main();
