// The offline loader keeps only the fields of Kubernetes objects that casdoctor reads (src/gather/shape.ts). This proves
// the cut changes no answer: every command, on every bundled dump and on a small generated cluster, prints the same
// bytes whether the loader keeps whole objects or only the read fields. A field read by the analysis but missing from
// the shapes makes one of these outputs differ.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDump, writeDump } from '../../bench/generate.js';
import { runAsgAudit } from '../../src/commands/audit.js';
import { runPreflight } from '../../src/commands/preflight.js';
import { runScaleDownBlockers } from '../../src/commands/scale-down-blockers.js';
import type { Deps } from '../../src/commands/types.js';
import { runWhyPending } from '../../src/commands/why-pending.js';
import { loadOffline } from '../../src/gather/offline.js';
import { capturingDeps, PIPED_JSON } from '../commands/in-process.js';
import { DEMO, ROOT } from '../commands/run.js';

type Runner = (o: never, deps: Deps) => Promise<{ exitCode: number }>;

async function run(runner: Runner, options: Record<string, unknown>, loadAllFields: boolean) {
  const c = capturingDeps({ loadAllFields });
  const r = await runner({ ...PIPED_JSON, ...options } as never, c.deps);
  return { exitCode: r.exitCode, stdout: c.stdout(), stderr: c.stderr() };
}

const SCENARIOS = join(ROOT, 'test', 'scenarios');

/** Appends objects to a kubectl List file of a copied dump. */
function addItems(dir: string, file: string, items: unknown[]): void {
  const list = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  list.items.push(...items);
  writeFileSync(join(dir, file), `${JSON.stringify(list, null, 4)}\n`);
}
/** Name, dump directory and --ca-args of each dump. */
const dirs: Array<[string, string, string | undefined]> = [['the demo', DEMO, undefined]];

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-projection-'));
  // each scenario as test/scenarios.test.ts builds it: its base dump overlaid with its own files
  for (const name of readdirSync(SCENARIOS).sort()) {
    const spec = JSON.parse(readFileSync(join(SCENARIOS, name, 'scenario.json'), 'utf8')) as {
      base?: string;
      args: string[];
    };
    const dump = join(tmp, name);
    if (spec.base) cpSync(join(ROOT, spec.base), dump, { recursive: true, filter: (src) => !src.endsWith('.md') });
    for (const f of readdirSync(join(SCENARIOS, name)))
      if (f !== 'scenario.json') cpSync(join(SCENARIOS, name, f), join(dump, f));
    const i = spec.args.indexOf('--ca-args');
    dirs.push([`scenario ${name}`, dump, i >= 0 ? spec.args[i + 1] : undefined]);
  }
  // the demo plus a local-storage claim that only a pre-created PV can satisfy (static binding reads the PV's
  // accessModes and volumeMode, the claim's selector)
  const local = join(tmp, 'local-pv');
  cpSync(DEMO, local, { recursive: true });
  addItems(local, 'storageclasses.json', [
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'local-storage', uid: 'a3c1e0de-0b6c-4f53-9a55-6a1b3c2d4e5f', creationTimestamp: '2026-11-16T10:25:51Z' },
      provisioner: 'kubernetes.io/no-provisioner',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
  ]);
  addItems(local, 'pvs.json', [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'local-pv-ip-10-0-11-142', uid: '5d2f4c1a-7e8b-4a90-b1c2-d3e4f5a6b7c8', labels: { tier: 'scratch' }, creationTimestamp: '2026-11-17T09:00:00Z' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: '50Gi' },
        local: { path: '/mnt/disks/ssd0' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['ip-10-0-11-142.ec2.internal'] }] },
            ],
          },
        },
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: 'local-storage',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Available' },
    },
  ]);
  addItems(local, 'pvcs.json', [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'scratch', namespace: 'web', uid: '0e9d8c7b-6a5f-4e3d-2c1b-0a9f8e7d6c5b', creationTimestamp: '2026-11-21T09:50:00Z' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '20Gi' } },
        selector: { matchLabels: { tier: 'scratch' } },
        storageClassName: 'local-storage',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    },
  ]);
  addItems(local, 'pods.json', [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'scratch-reader', namespace: 'web', uid: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', creationTimestamp: '2026-11-21T09:50:00Z' },
      spec: {
        containers: [{ name: 'reader', image: 'busybox:1.36', resources: { requests: { cpu: '50m', memory: '64Mi' } } }],
        volumes: [{ name: 'scratch', persistentVolumeClaim: { claimName: 'scratch' } }],
      },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastProbeTime: null, lastTransitionTime: '2026-11-21T09:50:01Z' }],
      },
    },
  ]);
  dirs.push(['the demo with a local PV', local, undefined]);
  // the demo plus a system-node-critical DaemonSet that does not preempt: CA leaves it off templates of real nodes
  const ds = join(tmp, 'non-preempting-ds');
  cpSync(DEMO, ds, { recursive: true });
  addItems(ds, 'daemonsets.json', [
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'node-problem-detector', namespace: 'kube-system', uid: '7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918', creationTimestamp: '2026-11-21T09:58:00Z' },
      spec: {
        selector: { matchLabels: { app: 'node-problem-detector' } },
        template: {
          metadata: { labels: { app: 'node-problem-detector' } },
          spec: {
            containers: [{ name: 'npd', image: 'registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.20', resources: { requests: { cpu: '20m', memory: '50Mi' } } }],
            preemptionPolicy: 'Never',
            priority: 2000001000,
            priorityClassName: 'system-node-critical',
            tolerations: [{ operator: 'Exists' }],
          },
        },
      },
      status: { currentNumberScheduled: 0, desiredNumberScheduled: 11, numberMisscheduled: 0, numberReady: 0 },
    },
  ]);
  dirs.push(['the demo with a non-preempting critical DaemonSet', ds, undefined]);
  // the demo plus a running pod whose required anti-affinity keeps a Pending pod off its zone: the scheduler checks
  // the anti-affinity of pods already placed (symmetry), so why-pending must keep it on pods that are on a node
  const anti = join(tmp, 'existing-anti-affinity');
  cpSync(DEMO, anti, { recursive: true });
  const solo = (name: string, uid: string, extra: Record<string, unknown>, status: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'web', uid, labels: { app: 'solo' }, creationTimestamp: '2026-11-21T09:40:00Z' },
    spec: {
      containers: [{ name: 'solo', image: 'nginx:1.27', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
      ...extra,
    },
    status,
  });
  addItems(anti, 'pods.json', [
    solo(
      'solo-a',
      '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98',
      {
        nodeName: 'ip-10-0-22-96.ec2.internal',
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { app: 'solo' } }, topologyKey: 'topology.kubernetes.io/zone' },
            ],
          },
        },
        tolerations: [{ effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 }],
      },
      { phase: 'Running', startTime: '2026-11-21T09:40:02Z' },
    ),
    solo('solo-b', '4d3c2b1a-0f9e-4e7d-8c6b-5f4e3d2c1b0a', {}, {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastProbeTime: null, lastTransitionTime: '2026-11-21T09:55:00Z' }],
    }),
  ]);
  dirs.push(['the demo with an anti-affine running pod', anti, undefined]);
  // the demo plus the two pod annotations no other dump carries: a Pending pod asking CA to wait before scaling up
  // for it, and a bare pod on an underutilized node that declares itself a DaemonSet pod (not a drain blocker)
  const annotated = join(tmp, 'annotated-pods');
  cpSync(DEMO, annotated, { recursive: true });
  const demoPods = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8')).items as Array<Record<string, any>>;
  const api = demoPods.find((p) => p.metadata.name.startsWith('api-') && !p.spec.nodeName);
  if (!api) throw new Error('the demo has no Pending api pod');
  const delayed = structuredClone(api);
  delayed.metadata = {
    ...delayed.metadata,
    name: 'api-delayed',
    uid: '6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817',
    creationTimestamp: '2026-11-21T09:58:00Z',
    annotations: { 'cluster-autoscaler.kubernetes.io/pod-scale-up-delay': '10m' },
  };
  addItems(annotated, 'pods.json', [
    delayed,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'log-shipper-ip-10-0-29-12',
        namespace: 'kube-system',
        uid: '8f7e6d5c-4b3a-4291-9f8e-7d6c5b4a3928',
        annotations: { 'cluster-autoscaler.kubernetes.io/daemonset-pod': 'true' },
        creationTimestamp: '2026-11-20T08:00:00Z',
      },
      spec: {
        containers: [{ name: 'shipper', image: 'fluent/fluent-bit:3.1', resources: { requests: { cpu: '10m', memory: '32Mi' } } }],
        nodeName: 'ip-10-0-29-12.ec2.internal',
      },
      status: { phase: 'Running', startTime: '2026-11-20T08:00:02Z' },
    },
  ]);
  dirs.push(['the demo with annotated pods', annotated, undefined]);
  // the bench generator at a tenth of its small size: DaemonSets, PDBs, PVs, spot and GPU groups, 300 Pending pods
  const dump = buildDump({ name: 'small', nodes: 50, pods: 1_000, asgs: 12 });
  writeDump(dump, join(tmp, 'generated'));
  dirs.push(['a generated 50-node cluster', join(tmp, 'generated'), undefined]);
  // the same with Cluster Autoscaler's container restarted at 09:55: its in-memory cooldowns and timers start from the
  // container's startedAt (status.containerStatuses), which hides the 09:52 scale-up's cooldown
  const ca = dump.kube.pods.find((p) => p.metadata.labels?.app === 'cluster-autoscaler');
  ca.status.containerStatuses[0].state = { running: { startedAt: '2026-11-21T09:55:00Z' } };
  writeDump(dump, join(tmp, 'ca-restarted'));
  dirs.push(['a generated cluster whose CA restarted', join(tmp, 'ca-restarted'), undefined]);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('keeping only the fields casdoctor reads', () => {
  it('leaves a pod with what the analysis reads and nothing kubectl adds besides', async () => {
    const whole = await loadOffline([DEMO], { fields: 'all' });
    const read = await loadOffline([DEMO], { fields: 'read' });
    expect(read.pods.length).toBe(whole.pods.length);
    const aws = whole.pods.find((p) => p.metadata.name?.startsWith('aws-node-'));
    const cut = read.pods.find((p) => p.metadata.name === aws?.metadata.name);
    expect(aws?.spec.containers[0].volumeMounts).toBeDefined();
    expect(cut?.spec.containers[0].volumeMounts).toBeUndefined();
    expect(cut?.spec.containers[0].resources).toEqual(aws?.spec.containers[0].resources);
    expect(cut?.spec.tolerations).toEqual(aws?.spec.tolerations);
    expect(cut?.metadata).toEqual(aws?.metadata);
    expect(cut?.kind).toBe('Pod');
    expect(cut?.apiVersion).toBe('v1');
    expect(JSON.stringify(read.pods).length).toBeLessThan(JSON.stringify(whole.pods).length * 0.6);
    // AWS outputs are small and kept whole
    expect(read.autoScalingGroups).toEqual(whole.autoScalingGroups);
  });

  it("keeps less of pods already on a node for why-pending: no tolerations, node affinity, volumes or conditions", async () => {
    const read = await loadOffline([DEMO], { fields: 'read' });
    const pending = await loadOffline([DEMO], { fields: 'why-pending' });
    const onNode = (p: (typeof read.pods)[number]) => Boolean(p.spec.nodeName);
    const ds = pending.pods.find((p) => onNode(p) && p.metadata.name?.startsWith('aws-node-'));
    expect(read.pods.find((p) => p.metadata.name === ds?.metadata.name)?.spec.tolerations?.length).toBeGreaterThan(0);
    expect(ds?.spec.tolerations).toBeUndefined();
    expect(ds?.spec.affinity?.nodeAffinity).toBeUndefined();
    expect(ds?.spec.volumes).toBeUndefined();
    expect(ds?.status?.conditions).toBeUndefined();
    expect(ds?.spec.containers[0].resources).toEqual(
      read.pods.find((p) => p.metadata.name === ds?.metadata.name)?.spec.containers[0].resources,
    );
    // Pending pods keep everything the simulation reads
    const waiting = pending.pods.filter((p) => !onNode(p));
    expect(waiting.length).toBeGreaterThan(0);
    for (const p of waiting) expect(p).toEqual(read.pods.find((q) => q.metadata.uid === p.metadata.uid));
    expect(JSON.stringify(pending.pods).length).toBeLessThan(JSON.stringify(read.pods).length * 0.8);
  });

  it.each([
    ['why-pending --all -o json', runWhyPending, { all: true, allNamespaces: true }],
    ['why-pending --all (table)', runWhyPending, { all: true, allNamespaces: true, output: 'table' }],
    ['scale-down-blockers -o json', runScaleDownBlockers, {}],
    ['scale-down-blockers --min-replica-count=2', runScaleDownBlockers, { caArgs: '--min-replica-count=2' }],
    ['scale-down-blockers (table)', runScaleDownBlockers, { output: 'table' }],
    ['asg-audit -o json', runAsgAudit, {}],
    ['asg-audit (table)', runAsgAudit, { output: 'table' }],
  ] as Array<[string, Runner, Record<string, unknown>]>)('%s prints the same on every dump', async (_, runner, extra) => {
    for (const [name, dir, caArgs] of dirs) {
      const options = { from: [dir], ...(caArgs ? { caArgs } : {}), ...extra };
      const whole = await run(runner, options, true);
      const read = await run(runner, options, false);
      expect(read.stdout.length, name).toBeGreaterThan(100);
      expect(read.stdout, name).toBe(whole.stdout);
      expect(read.stderr, name).toBe(whole.stderr);
      expect(read.exitCode, name).toBe(whole.exitCode);
    }
  });

  it('preflight --from prints the same', async () => {
    const options = {
      from: [DEMO],
      filename: [join(ROOT, 'examples', 'preflight', 'manifests')],
      strict: false,
    };
    const whole = await run(runPreflight as Runner, options, true);
    const read = await run(runPreflight as Runner, options, false);
    expect(read.stdout.length).toBeGreaterThan(100);
    expect(read.stdout).toBe(whole.stdout);
    expect(read.exitCode).toBe(whole.exitCode);
  });
});
