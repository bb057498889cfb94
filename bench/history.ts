// `casdoctor history` inputs for `npm run bench` (issue 26: under 3 s and 600 MB): a 100 MB Karpenter log (JSON lines
// of a busy day: provisioning, the NodeClaim lifecycle, consolidations, ICEs, interruptions), 50,000 events and 10,000
// ASG scaling activities, beside the 100 MB CA log of bench/ca-log.ts. Deterministic: a seeded PRNG, a fixed clock.
// Usage: node bench/out/build/bench/history.js generate <dir> [karpenterMB] [events] [activities]
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Bumped whenever the generated inputs change, so a cached directory is rebuilt. */
export const HISTORY_GENERATOR_VERSION = 1;
/** The CA log of bench/ca-log.ts covers 09:00–~10:00 of this day; the rest spans the 24 hours before. */
export const HISTORY_NOW = '2026-11-21T10:00:00Z';
const T0 = Date.parse('2026-11-20T10:00:00Z');
const DAY = 86_400_000;

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
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[this.int(16)];
    return s;
  }
}

const iso = (t: number) => new Date(t).toISOString();
const isoS = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
const uuid = (r: Rng) => `${r.hex(8)}-${r.hex(4)}-4${r.hex(3)}-8${r.hex(3)}-${r.hex(12)}`;
const nodeName = (i: number) => `ip-10-${(i >> 16) & 255}-${(i >> 8) & 255}-${i & 255}.eu-west-1.compute.internal`;
const instance = (i: number) => `i-0${i.toString(16).padStart(16, '0')}`;
const POOLS = ['default', 'batch', 'spot-general', 'gpu', 'arm64', 'system'];
const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
const TYPES = ['m5.large', 'm6i.xlarge', 'c6i.xlarge', 'r6i.2xlarge', 'm7g.large', 'g5.xlarge'];
const ASGS = Array.from({ length: 40 }, (_, i) => `eks-${['general', 'batch', 'spot', 'gpu'][i % 4]}-${String(i).padStart(2, '0')}`);

class Lines {
  private buf: string[] = [];
  private len = 0;
  bytes = 0;
  constructor(private readonly out: NodeJS.WritableStream) {}
  async push(l: string): Promise<void> {
    this.buf.push(l);
    this.len += l.length + 1;
    if (this.len >= 1 << 20) await this.flush();
  }
  async flush(): Promise<void> {
    if (!this.buf.length) return;
    const chunk = `${this.buf.join('\n')}\n`;
    this.bytes += Buffer.byteLength(chunk);
    this.buf = [];
    this.len = 0;
    if (!this.out.write(chunk)) await once(this.out as NodeJS.EventEmitter, 'drain');
  }
}

const head = (r: Rng, level: string, t: number, message: string, controller: string, name = '') =>
  `{"level":"${level}","time":"${iso(t)}","logger":"controller","message":"${message}","commit":"4d1b7e9","controller":"${controller}","namespace":"","name":"${name}","reconcileID":"${uuid(r)}"`;

/** One node's life in Karpenter's words, from the provisioner's batch to the NodeClaim's deletion (~10 lines, ~6 KB). */
async function nodeLife(out: Lines, r: Rng, i: number, t: number): Promise<void> {
  const pool = POOLS[i % POOLS.length];
  const claim = `${pool}-${r.hex(5)}`;
  const node = nodeName(i);
  const zone = ZONES[i % 3];
  const type = TYPES[r.int(TYPES.length)];
  const cap = r.int(3) ? 'spot' : 'on-demand';
  const pid = `aws:///${zone}/${instance(i)}`;
  const pods = Array.from({ length: 1 + r.int(4) }, (_, k) => `shop/web-${r.hex(9)}-${r.hex(5)}${k}`).join(', ');
  const lc = (m: string, extra: string) => head(r, 'INFO', t, m, 'nodeclaim.lifecycle', claim) + `,"controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"${claim}"}${extra}}`;
  await out.push(`${head(r, 'INFO', t, 'found provisionable pod(s)', 'provisioner')},"Pods":"${pods}","duration":"${(10 + r.next() * 40).toFixed(2)}ms"}`);
  await out.push(`${head(r, 'INFO', (t += 20), 'computed new nodeclaim(s) to fit pod(s)', 'provisioner')},"nodeclaims":1,"pods":${pods.split(',').length}}`);
  await out.push(`${head(r, 'INFO', (t += 900), 'created nodeclaim', 'provisioner')},"NodePool":{"name":"${pool}"},"NodeClaim":{"name":"${claim}"},"requests":{"cpu":"1100m","memory":"1Gi","pods":"5"},"instance-types":"c5.xlarge, c5a.xlarge, c6i.xlarge, m5.large, m5a.large and 41 other(s)"}`);
  if (i % 17 === 3) {
    await out.push(`${head(r, 'DEBUG', (t += 2000), 'removing offering from offerings', 'nodeclaim.lifecycle')},"reason":"InsufficientInstanceCapacity","instance-type":"${type}","zone":"${zone}","capacity-type":"spot","ttl":"3m0s"}`);
  }
  await out.push(lc('launched nodeclaim', `,"provider-id":"${pid}","instance-type":"${type}","zone":"${zone}","capacity-type":"${cap}","allocatable":{"cpu":"3920m","ephemeral-storage":"17Gi","memory":"6584Mi","pods":"58"}`));
  await out.push(lc('registered nodeclaim', `,"provider-id":"${pid}","Node":{"name":"${node}"}`).replace(`"time":"${iso(t)}"`, `"time":"${iso((t += 35_000))}"`));
  await out.push(lc('initialized nodeclaim', `,"provider-id":"${pid}","Node":{"name":"${node}"},"allocatable":{"cpu":"3920m","memory":"6584Mi","pods":"58"}`).replace(`"time":"${iso(t)}"`, `"time":"${iso((t += 25_000))}"`));
  t += 20 * 60_000 + r.int(3 * 3600_000);
  if (i % 23 === 5) {
    await out.push(`${head(r, 'INFO', t, 'initiating delete from interruption message', 'interruption')},"queue":"karpenter-interruption","messageKind":"spot_interrupted","NodeClaim":{"name":"${claim}"},"action":"CordonAndDrain","Node":{"name":"${node}"}}`);
  } else {
    const reason = ['Underutilized', 'Empty', 'Drifted'][i % 3];
    await out.push(
      `${head(r, 'INFO', t, 'disrupting node(s)', 'disruption')},"command":"${reason}/${uuid(r)}: delete: nodepools=[${pool}]: [${node}]","decision":"delete","disrupted-node-count":1,"replacement-node-count":0,"pod-count":${r.int(8)},"disrupted-nodes":[{"Node":{"name":"${node}"},"NodeClaim":{"name":"${claim}"},"instance-type":"${type}","capacity-type":"${cap}"}],"replacement-nodes":[]}`,
    );
  }
  await out.push(`${head(r, 'INFO', (t += 60), 'tainted node', 'node.termination', node)},"controllerGroup":"","controllerKind":"Node","Node":{"name":"${node}"},"taint.Key":"karpenter.sh/disrupted","taint.Value":"","taint.Effect":"NoSchedule"}`);
  await out.push(`${head(r, 'INFO', (t += 90_000), 'deleted node', 'node.termination', node)},"controllerGroup":"","controllerKind":"Node","Node":{"name":"${node}"}}`);
  await out.push(lc('deleted nodeclaim', `,"Node":{"name":"${node}"},"provider-id":"${pid}"`).replace(`"time":"${iso(t)}"`, `"time":"${iso((t += 2000))}"`));
}

async function karpenterLog(file: string, megabytes: number): Promise<number> {
  const r = new Rng(2611);
  const stream = createWriteStream(file);
  const out = new Lines(stream);
  const target = megabytes * 1_000_000;
  // node lives start evenly over the day; their lines interleave a little (not sorted: Karpenter's controllers log concurrently)
  // each node's lines are made whole, then all are written in time order, as Karpenter's one process writes them
  const lines: Array<{ t: number; l: string }> = [];
  const collect = { push: async (l: string) => void lines.push({ t: Date.parse(/"time":"([^"]+)"/.exec(l)![1]), l }) } as unknown as Lines;
  let n = 0;
  for (let bytes = 0; bytes < target; n++) {
    const t = T0 + ((n * 7_919) % DAY) + r.int(1000);
    const before = lines.length;
    await nodeLife(collect, r, n, t);
    if (n % 40 === 0) await collect.push(`${head(r, 'INFO', t + 5, 'discovered ssm parameter', 'nodeclass', 'default')},"controllerGroup":"karpenter.k8s.aws","controllerKind":"EC2NodeClass","EC2NodeClass":{"name":"default"},"parameter":"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id","value":"ami-0a4c8e2f1b3d59687"}`);
    for (let i = before; i < lines.length; i++) bytes += lines[i].l.length + 1;
  }
  lines.sort((a, b) => a.t - b.t);
  for (const x of lines) await out.push(x.l);
  await out.flush();
  stream.end();
  await once(stream, 'finish');
  return n;
}

function events(count: number): unknown {
  const r = new Rng(2612);
  const items: unknown[] = [];
  const kinds: Array<(i: number, t: number) => Record<string, unknown>> = [
    (i) => ({ involvedObject: { apiVersion: 'v1', kind: 'Pod', name: `web-${i.toString(36)}`, namespace: 'shop' }, reason: 'FailedScheduling', type: 'Warning', message: '0/120 nodes are available: 120 Insufficient cpu. preemption: 0/120 nodes are available: 120 No preemption victims found for incoming pod.', source: { component: 'default-scheduler' } }),
    (i) => ({ involvedObject: { apiVersion: 'v1', kind: 'Pod', name: `web-${i.toString(36)}`, namespace: 'shop' }, reason: 'TriggeredScaleUp', type: 'Normal', message: `pod triggered scale-up: [{${ASGS[i % ASGS.length]} 3->4 (max: 20)}]`, source: { component: 'cluster-autoscaler' } }),
    (i) => ({ involvedObject: { apiVersion: 'v1', kind: 'Pod', name: `web-${i.toString(36)}`, namespace: 'shop' }, reason: 'Nominated', type: 'Normal', message: `Pod should schedule on: nodeclaim/default-${i.toString(36)}`, source: { component: 'karpenter' } }),
    (i) => ({ involvedObject: { apiVersion: 'v1', kind: 'Pod', name: `web-${i.toString(36)}`, namespace: 'shop' }, reason: 'Scheduled', type: 'Normal', message: `Successfully assigned shop/web-${i.toString(36)} to ${nodeName(i)}`, source: { component: 'default-scheduler' } }),
    (i) => ({ involvedObject: { apiVersion: 'v1', kind: 'Node', name: nodeName(i) }, reason: 'RegisteredNode', type: 'Normal', message: `Node ${nodeName(i)} event: Registered Node ${nodeName(i)} in Controller`, source: { component: 'node-controller' } }),
    (i) => ({ involvedObject: { apiVersion: 'v1', kind: 'Node', name: nodeName(i) }, reason: 'ScaleDown', type: 'Normal', message: 'marked the node as toBeDeleted/unschedulable', source: { component: 'cluster-autoscaler' } }),
    (i) => ({ involvedObject: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: `default-${i.toString(36)}` }, reason: 'DisruptionTerminating', type: 'Normal', message: 'Disrupting NodeClaim: Underutilized', source: { component: 'karpenter' } }),
    (i) => ({ involvedObject: { apiVersion: 'v1', kind: 'Node', name: nodeName(i) }, reason: 'NodeNotReady', type: 'Normal', message: 'Node is not ready', source: { component: 'node-controller' } }),
  ];
  for (let i = 0; i < count; i++) {
    const t = T0 + Math.floor((i / count) * DAY) + r.int(5000);
    const e = kinds[i % kinds.length](i, t);
    const ns = (e.involvedObject as { namespace?: string }).namespace ?? 'default';
    items.push({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${(e.involvedObject as { name: string }).name}.${r.hex(16)}`, namespace: ns, uid: uuid(r), resourceVersion: String(7_000_000 + i), creationTimestamp: isoS(t) },
      ...e,
      count: 1 + r.int(5),
      firstTimestamp: isoS(t),
      lastTimestamp: isoS(t + r.int(60_000)),
      eventTime: null,
      reportingComponent: (e.source as { component: string }).component,
      reportingInstance: '',
    });
  }
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
}

function activities(count: number): unknown {
  const r = new Rng(2613);
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const t = T0 + DAY - Math.floor((i / count) * DAY);
    const asg = ASGS[i % ASGS.length];
    const id = instance(0x100000 + i);
    const at = isoS(t);
    const [cause, description, status] = [
      [`At ${at} a user request explicitly set group desired capacity changing the desired capacity from 3 to 4.  At ${at} an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 3 to 4.`, `Launching a new EC2 instance: ${id}`, 'Successful'],
      [`At ${at} an instance was taken out of service in response to an EC2 health check indicating it has been terminated or stopped.`, `Terminating EC2 instance: ${id}`, 'Successful'],
      [`At ${at} instance ${id} was taken out of service in response to a user request, shrinking the capacity from 4 to 3.`, `Terminating EC2 instance: ${id}`, 'Successful'],
      [`At ${at} a user request explicitly set group desired capacity changing the desired capacity from 0 to 1.  At ${at} an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 1.`, 'Launching a new EC2 instance.  Status Reason: We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested (eu-west-1a). Our system will be working on provisioning additional capacity. Launching EC2 instance failed.', 'Failed'],
      [`At ${at} an instance was launched in response to an unhealthy instance needing to be replaced.`, `Launching a new EC2 instance: ${id}`, 'Successful'],
    ][i % 5];
    out.push({
      ActivityId: uuid(r),
      AutoScalingGroupARN: `arn:aws:autoscaling:eu-west-1:111122223333:autoScalingGroup:${uuid(r)}:autoScalingGroupName/${asg}`,
      AutoScalingGroupName: asg,
      Cause: cause,
      Description: description,
      Details: `{"Subnet ID":"subnet-${r.hex(17)}","Availability Zone":"${ZONES[i % 3]}"}`,
      EndTime: isoS(t + 30_000),
      Progress: 100,
      StartTime: iso(t + 2000),
      StatusCode: status,
    });
  }
  return { Activities: out };
}

export async function generateHistoryInputs(dir: string, karpenterMb = 100, eventCount = 50_000, activityCount = 10_000): Promise<{ nodeLives: number }> {
  mkdirSync(dir, { recursive: true });
  const nodeLives = await karpenterLog(join(dir, 'karpenter.log'), karpenterMb);
  writeFileSync(join(dir, 'events.json'), JSON.stringify(events(eventCount)));
  writeFileSync(join(dir, 'scaling-activities.json'), JSON.stringify(activities(activityCount)));
  return { nodeLives };
}

// run only as a script: bench/run.ts imports the constants above
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mode, dir, mb, ev, act] = process.argv.slice(2);
  if (mode === 'generate' && dir) process.stdout.write(`${JSON.stringify(await generateHistoryInputs(dir, Number(mb ?? 100), Number(ev ?? 50_000), Number(act ?? 10_000)))}\n`);
  else {
    process.stderr.write('usage: history.js generate <dir> [karpenterMB] [events] [activities]\n');
    process.exitCode = 2;
  }
}
