// `casdoctor record` under load for `npm run bench` (issue 26: 1,000 events a second stays under 150 MB): the loopback
// kube-apiserver in this process sends new events on the events watch at the rate asked, the built CLI records them into
// a temporary journal in its own process, whose peak RSS is read from /proc (VmHWM). Prints one JSON line.
// Usage: node bench/out/build/bench/record.js [eventsPerSecond] [seconds]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startKubeApiServer } from '../test/servers/kube-apiserver.js';
import { ROOT } from './generate.js';

export interface RecordBenchResult {
  eventsPerSecond: number;
  seconds: number;
  sent: number;
  journaled: number;
  journalBytes: number;
  peakRssMb: number;
  cpuMs: number;
  exit: number | null;
}


function event(i: number, t: number): Record<string, unknown> {
  const pod = `web-6c9f7d8b5-${i.toString(36).padStart(5, 'x')}`;
  const at = new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${pod}.${(i * 2654435761).toString(16)}`, namespace: 'shop', uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, creationTimestamp: at },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', name: pod, namespace: 'shop', uid: `p-${i}` },
    reason: i % 3 === 0 ? 'FailedScheduling' : i % 3 === 1 ? 'TriggeredScaleUp' : 'Scheduled',
    message: i % 3 === 0 ? '0/120 nodes are available: 120 Insufficient cpu. preemption: 0/120 nodes are available: 120 No preemption victims found for incoming pod.' : i % 3 === 1 ? 'pod triggered scale-up: [{eks-general-a 12->13 (max: 40)}]' : `Successfully assigned shop/${pod} to ip-10-0-${i % 250}-${i % 200}.eu-west-1.compute.internal`,
    source: { component: i % 3 === 1 ? 'cluster-autoscaler' : 'default-scheduler' },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    type: i % 3 === 0 ? 'Warning' : 'Normal',
    reportingComponent: i % 3 === 1 ? 'cluster-autoscaler' : 'default-scheduler',
    reportingInstance: '',
  };
}

export async function recordBench(eventsPerSecond = 1000, seconds = 30): Promise<RecordBenchResult> {
  const kube = await startKubeApiServer({ nodes: [], pods: [], events: [], configMaps: [] } as never);
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-record-bench-'));
  try {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), 'record', '--dir', join(dir, 'journal'), '--kubeconfig', kube.kubeconfigPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => void (stderr.length < 10_000 && (stderr += c.toString())));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await Promise.race([kube.watch.opened('events'), exited.then(() => Promise.reject(new Error(`record exited: ${stderr}`)))]);
    let peakKb = 0;
    const readHwm = () => {
      try {
        const s = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0));
      } catch {
        /* exited */
      }
    };
    let sent = 0;
    const t0 = Date.now();
    // batches every 100 ms, catching up to the rate by the clock
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(eventsPerSecond * seconds, Math.floor(((Date.now() - t0) / 1000) * eventsPerSecond));
        for (; sent < due; sent++) kube.watch.emit('events', 'ADDED', event(sent, t0 + sent));
        readHwm();
        if (sent >= eventsPerSecond * seconds) {
          clearInterval(tick);
          resolve();
        }
      }, 100);
    });
    readHwm();
    const cpu = (() => {
      try {
        const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
      } catch {
        return Number.NaN;
      }
    })();
    child.kill('SIGTERM');
    const exit = await exited;
    const files = readdirSync(join(dir, 'journal')).filter((n) => n.endsWith('.jsonl'));
    let journaled = 0;
    let journalBytes = 0;
    for (const f of files) {
      const p = join(dir, 'journal', f);
      journalBytes += statSync(p).size;
      journaled += readFileSync(p, 'utf8').split('\n').filter((l) => l.includes('"resource":"events"')).length;
    }
    return { eventsPerSecond, seconds, sent, journaled, journalBytes, peakRssMb: Math.round(peakKb / 1024), cpuMs: cpu, exit };
  } finally {
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [rate, secs] = process.argv.slice(2);
  process.stdout.write(`${JSON.stringify(await recordBench(Number(rate ?? 1000), Number(secs ?? 30)))}\n`);
}
