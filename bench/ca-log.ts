// CA log parsing for `npm run bench`: writes a realistic Cluster Autoscaler 1.32 log (klog text at --v=4, the `kubectl
// logs` shape) of a 5,000-node cluster with 300 ASGs and 300 Pending pods, then times readCaLogFile on it in this process.
// Deterministic: a seeded PRNG, a fixed clock. Prints one JSON line.
// Usage: node bench/out/build/bench/ca-log.js generate <file> [MB]
//        node bench/out/build/bench/ca-log.js parse <file> [--readline]
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { readCaLogFile } from '../src/gather/ca-log-file.js';
import { createCaLogParser } from '../src/simulate/ca-log/index.js';

/** Bumped whenever the generated log changes, so a cached file is rebuilt. */
export const CA_LOG_GENERATOR_VERSION = 1;
export const CA_LOG_NOW = '2026-11-21T10:00:00Z';

class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** klog's header for a time in ms since 2026-11-21T09:00:00Z (a Saturday morning of the demo cluster). */
function header(level: string, ms: number, file: string): string {
  const t = new Date(Date.UTC(2026, 10, 21, 9) + Math.floor(ms));
  const micros = pad(t.getUTCMilliseconds() * 1000 + Math.floor((ms % 1) * 1000), 6);
  return `${level}${pad(t.getUTCMonth() + 1, 2)}${pad(t.getUTCDate(), 2)} ${pad(t.getUTCHours(), 2)}:${pad(t.getUTCMinutes(), 2)}:${pad(t.getUTCSeconds(), 2)}.${micros}       1 ${file}] `;
}

async function generate(file: string, megabytes: number): Promise<void> {
  const rng = new Rng(1121);
  const out = createWriteStream(file);
  const target = megabytes * 1_000_000;
  const groups = Array.from({ length: 300 }, (_, i) => `demo-${['general', 'batch', 'stateful', 'spot', 'gpu', 'databases'][i % 6]}-${pad(i, 3)}`);
  const nodes = Array.from({ length: 5_000 }, (_, i) => `ip-10-${(i >> 8) & 255}-${i & 255}-${10 + (i % 200)}.ec2.internal`);
  const controllers = Array.from({ length: 10 }, (_, i) => ({ ns: ['batch', 'web', 'ml', 'payments', 'analytics'][i % 5], name: `worker-${pad(i, 2)}-7f6d8c9b5` }));
  const pending = Array.from({ length: 300 }, (_, i) => ({ ...controllers[i % 10], pod: `${controllers[i % 10].name}-${(i * 7919).toString(36).padStart(5, 'x')}` }));
  const plugins: Array<[string, string]> = [
    ['NodeAffinity', "node(s) didn't match Pod's node affinity/selector"],
    ['TaintToleration', 'node(s) had untolerated taint {dedicated: databases}'],
    ['NodeResourcesFit', 'Insufficient cpu, Insufficient memory'],
    ['VolumeZone', 'node(s) had volume node affinity conflict'],
  ];
  const blockers = [
    (n: string) => `node ${n} cannot be removed: not enough pod disruption budget to move payments/payments-api-7f6d8c9b5-hx2lp`,
    (n: string) => `node ${n} cannot be removed: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: coredns-5d78c9869d-q8w2z`,
    (n: string) => `node ${n} cannot be removed: pod with local storage present: ebs-csi-controller-5c6d7f8b9-q8w2z`,
    (n: string) => `node ${n} is not suitable for removal: can reschedule only 0 out of 1 pods`,
    (n: string) => `Node ${n} unremovable: cpu requested (${(50 + (n.length % 40)).toFixed(4)}% of allocatable) is above the scale-down utilization threshold`,
  ];
  let bytes = 0;
  let buf: string[] = [];
  let bufLen = 0;
  const push = async (line: string) => {
    buf.push(line);
    bufLen += line.length + 1;
    if (bufLen >= 1 << 20) {
      const chunk = `${buf.join('\n')}\n`;
      bytes += Buffer.byteLength(chunk);
      buf = [];
      bufLen = 0;
      if (!out.write(chunk)) await once(out, 'drain');
    }
  };
  for (let loop = 0; bytes + bufLen < target; loop++) {
    let t = loop * 10_000 + 2_118 + rng.int(20);
    const at = () => (t += 0.05 + rng.next() * 0.2);
    await push(`${header('I', at(), 'static_autoscaler.go:274')}Starting main loop`);
    if (loop % 6 === 0) {
      await push(`${header('I', at(), 'auto_scaling_groups.go:428')}Regenerating instance to ASG map for ASG names: []`);
      await push(`${header('I', at(), 'auto_scaling_groups.go:435')}Regenerating instance to ASG map for ASG tags: map[k8s.io/cluster-autoscaler/demo: k8s.io/cluster-autoscaler/enabled:]`);
    }
    if (loop % 20 === 7) await push(`${header('E', at(), 'aws_manager.go:128')}Failed to regenerate ASG cache: Throttling: Rate exceeded\n\tstatus code: 400, request id: ${pad(rng.int(1e9), 9)}-5f4e-4d3c-8b2a-1f0e9d8c7b6a`);
    await push(`${header('I', at(), 'filter_out_schedulable.go:95')}Filtering out schedulables`);
    await push(`${header('I', at(), 'filter_out_schedulable.go:122')}0 pods marked as unschedulable can be scheduled.`);
    for (const p of pending) await push(`${header('I', at(), 'orchestrator.go:101')}Pod ${p.ns}/${p.pod} is unschedulable`);
    await push(`${header('I', at(), 'orchestrator.go:110')}Upcoming 0 nodes`);
    for (let c = 0; c < controllers.length; c++) {
      const sample = pending[c];
      for (let g = 0; g < 60; g++) {
        const group = groups[(c * 37 + g * 5) % groups.length];
        if (g % 15 === 14) {
          await push(`${header('I', at(), 'orchestrator.go:413')}Skipping node group ${group} - max size reached`);
          continue;
        }
        const [plugin, reasons] = plugins[(c + g) % plugins.length];
        const debug = plugin === 'TaintToleration' ? `nodeName: "template-node-for-${group}-${5577006791947779410n + BigInt(g)}", nodeTaints: []v1.Taint{v1.Taint{Key:"dedicated", Value:"databases", Effect:"NoSchedule", TimeAdded:<nil>}}` : `nodeName: "template-node-for-${group}-${5577006791947779410n + BigInt(g)}"`;
        await push(
          `${header('I', at(), 'orchestrator.go:588')}Pod ${sample.ns}/${sample.pod} can't be scheduled on ${group}, predicate checking error: can't schedule pod ${sample.ns}/${sample.pod}: predicate "${plugin}" didn't pass (predicateReasons=[${reasons}]; debugInfo=${debug})`,
        );
        await push(`${header('I', at(), 'orchestrator.go:590')}29 other pods similar to ${sample.pod} can't be scheduled on ${group}`);
      }
    }
    if (loop % 30 === 0) {
      await push(`${header('I', at(), 'waste.go:55')}Expanding Node Group ${groups[0]} would waste 20.99% CPU, 64.40% Memory, 42.70% Blended`);
      await push(`${header('I', at(), 'orchestrator.go:185')}Best option to resize: ${groups[0]}`);
      await push(`${header('I', at(), 'orchestrator.go:189')}Estimated 1 nodes needed in ${groups[0]}`);
      await push(`${header('I', at(), 'orchestrator.go:254')}Final scale-up plan: [{${groups[0]} 4->5 (max: 10)}]`);
      await push(`${header('I', at(), 'executor.go:166')}Scale-up: setting group ${groups[0]} size to 5`);
      await push(`${header('I', at(), 'auto_scaling_groups.go:267')}Setting asg ${groups[0]} size to 5`);
    } else await push(`${header('I', at(), 'orchestrator.go:168')}No expansion options`);
    await push(`${header('I', at(), 'static_autoscaler.go:555')}Calculating unneeded nodes`);
    await push(`${header('I', at(), 'eligibility.go:104')}Scale-down calculation: ignoring 4830 nodes unremovable in the last 5m0s`);
    // each loop re-checks the nodes whose 5-minute unremovable mark expired: 1/30 of them
    for (let i = loop % 30; i < nodes.length; i += 30) {
      const n = nodes[i];
      await push(`${header('I', at(), i % 5 === 4 ? 'eligibility.go:163' : 'cluster.go:159')}${blockers[i % blockers.length](n)}`);
    }
    await push(`${header('I', at(), 'static_autoscaler.go:598')}Scale down status: lastScaleUpTime=2026-11-21 08:11:52.204117 +0000 UTC m=+1234.5 lastScaleDownDeleteTime=2026-11-20 16:42:09 +0000 UTC m=-1.0 lastScaleDownFailTime=2026-11-20 16:42:09 +0000 UTC m=-1.0 scaleDownForbidden=false scaleDownInCooldown=false`);
    await push(`${header('I', at(), 'static_autoscaler.go:619')}Starting scale down`);
  }
  if (buf.length) {
    const chunk = `${buf.join('\n')}\n`;
    bytes += Buffer.byteLength(chunk);
    out.write(chunk);
  }
  out.end();
  await once(out, 'finish');
  process.stdout.write(`${JSON.stringify({ file, bytes })}\n`);
}

async function parse(file: string, useReadline: boolean): Promise<void> {
  const bytes = statSync(file).size;
  const now = new Date(CA_LOG_NOW);
  const t0 = process.hrtime.bigint();
  let summary;
  if (useReadline) {
    const p = createCaLogParser({ source: { kind: 'file', path: file }, now });
    const rl = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of rl) p.push(line);
    summary = p.finish();
  } else summary = await readCaLogFile(file, { now });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage();
  process.stdout.write(
    `${JSON.stringify({
      reader: useReadline ? 'readline' : 'chunks',
      bytes,
      lines: summary.lines.total,
      recognised: summary.lines.recognised,
      loops: summary.mainLoop.count,
      predicateFailures: summary.predicateFailures.length,
      nodes: summary.nodes.length,
      ms: Math.round(ms),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      mbPerS: Number((bytes / 1e6 / (ms / 1000)).toFixed(1)),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      summaryBytes: JSON.stringify(summary).length,
    })}\n`,
  );
}

// run only as a script: bench/run.ts imports the constants above
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mode, file, arg] = process.argv.slice(2);
  if (mode === 'generate' && file) await generate(file, Number(arg ?? '100'));
  else if (mode === 'parse' && file) await parse(file, arg === '--readline');
  else {
    process.stderr.write('usage: ca-log.js generate <file> [MB] | parse <file> [--readline]\n');
    process.exitCode = 2;
  }
}
