// CA's own record given with --from, recognised by content whatever its name: its log (klog or JSON lines, plain or
// gzip, named .log, .txt, .json or nothing), its /metrics text and its /snapshotz JSON; CA's custom resources; and a
// README or other prose in a dump directory is a warning, never an error.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOffline } from '../../src/gather/offline.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { STATIC_TYPES } from '../checks/harness.js';
import { capacityBuffer, podTemplate, provisioningRequest } from '../builders/ca-crds.js';
import { cli, DEMO, DEMO_NOW } from '../commands/run.js';
import { DEFAULT_CA_METRICS } from '../servers/kube-apiserver.js';

const LOG = readFileSync(join(DEMO, 'cluster-autoscaler.log'), 'utf8');
const LOG_LINES = LOG.split('\n').filter((l) => l !== '').length;
// CA --logging-format=json (zapr): one JSON object per line, ts in epoch milliseconds
const JSON_LOG = [
  { ts: 1763719082118.296, caller: 'core/static_autoscaler.go:274', msg: 'Starting main loop\n', v: 4 },
  { ts: 1763719082223.553, caller: 'core/filter_out_schedulable.go:122', msg: '0 pods marked as unschedulable can be scheduled.\n', v: 4 },
  { ts: 1763719082225.235, caller: 'orchestrator/orchestrator.go:110', msg: 'Upcoming 0 nodes\n', v: 1 },
]
  .map((r) => JSON.stringify(r))
  .join('\n');
const SNAPSHOTZ = {
  NodeList: [],
  UnscheduledPodsCanBeScheduled: [],
  StartTimestamp: '2026-11-21T09:58:02.118296Z',
  EndTimestamp: '2026-11-21T09:58:02.301112Z',
  TemplateNodes: {},
};

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-offline-ca-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dir(name: string, files: Record<string, string | Buffer>): string {
  const d = join(tmp, name);
  mkdirSync(d);
  for (const [f, content] of Object.entries(files)) writeFileSync(join(d, f), content);
  return d;
}

const nodeList = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'ip-10-0-1-23.ec2.internal' }, status: {} }],
});

describe('CA’s record in --from, recognised by content', () => {
  it('reads CA logs named .log, .txt, without an extension and gzipped, beside dumps, and warns about a README', async () => {
    const d = dir('bundle', {
      'nodes.json': nodeList,
      'ca.log': LOG,
      'cluster-autoscaler': LOG,
      'ca-previous.log.gz': gzipSync(LOG),
      'kubectl-logs.txt': LOG,
      'README.txt': 'Support bundle for ticket 4711.\nCollected with kubectl and aws.\n',
    });
    const raw = await loadOffline([d]);
    // four copies of one log are one log (merged by time, each entry read once), whose source names every file
    expect(raw.caLogs?.map((l) => l.lines.total)).toEqual([LOG_LINES]);
    expect(raw.caLogs?.map((l) => (l.source as { paths?: string[] }).paths)).toEqual([
      ['ca-previous.log.gz', 'ca.log', 'cluster-autoscaler', 'kubectl-logs.txt'].map((f) => join(d, f)),
    ]);
    expect(raw.nodes.map((n) => n.metadata.name)).toEqual(['ip-10-0-1-23.ec2.internal']);
    expect(raw.warnings).toEqual([
      `${join(d, 'README.txt')}: not a Kubernetes object, AWS output, Cluster Autoscaler log, /metrics or /snapshotz casdoctor recognises; ignored`,
    ]);
    expect(raw.sources).not.toContain(join(d, 'README.txt'));
  });

  it('reads a JSON-format CA log by content even in a file named .json, instead of failing on it as malformed JSON', async () => {
    const d = dir('json-log', { 'ca.json': `${JSON_LOG}\n` });
    const raw = await loadOffline([join(d, 'ca.json')]);
    expect(raw.caLogs).toHaveLength(1);
    expect(raw.caLogs![0].lines.total).toBe(3);
    expect(raw.caLogs![0].format).toBe('json');
    expect(raw.warnings).toEqual([]);
  });

  it('keeps CA’s /metrics text and /snapshotz JSON as the pod proxy would have served them, and the analysis sees them', async () => {
    const d = dir('proxy', {
      'ca-metrics.txt': DEFAULT_CA_METRICS,
      'snapshotz.json': JSON.stringify(SNAPSHOTZ),
      'ca.log': LOG,
    });
    const raw = await loadOffline([d]);
    expect(raw.caProxyTexts).toEqual([
      { namespace: '', pod: '', port: 0, path: '/metrics', text: DEFAULT_CA_METRICS, truncated: false },
      { namespace: '', pod: '', port: 0, path: '/snapshotz', text: JSON.stringify(SNAPSHOTZ), truncated: false },
    ]);
    expect(raw.warnings).toEqual([]);
    const a = new Analysis(raw, { now: new Date(DEMO_NOW), staticInstanceTypes: STATIC_TYPES });
    expect(a.caLog?.lines.total).toBe(LOG_LINES);
    expect(a.caMetrics).toBeDefined();
    expect(a.caSnapshotz).toMatchObject({ start: SNAPSHOTZ.StartTimestamp, nodeCount: 0, hasTemplates: true });
    expect(a.missingRecord('caLog')).toBeUndefined();
    expect(a.missingRecord('caMetrics')).toBeUndefined();
  });

  it('bounds /metrics (cut at its last whole line) and /snapshotz (ignored past the cap), each with a warning', async () => {
    const big = `${DEFAULT_CA_METRICS}${'cluster_autoscaler_skipped_scale_events_count{direction="up",reason="CpuResourceLimit"} 0\n'.repeat(50)}`;
    const d = dir('bounds', { 'metrics.prom': big, 'snapshotz.json': JSON.stringify({ ...SNAPSHOTZ, NodeList: new Array(50).fill({ Node: {} }) }) });
    const raw = await loadOffline([d], { caRecordBytes: { metrics: 1000, snapshotz: 500 } });
    const metrics = raw.caProxyTexts!.find((t) => t.path === '/metrics')!;
    expect(metrics.truncated).toBe(true);
    expect(metrics.text.length).toBeLessThanOrEqual(1000);
    expect(metrics.text.endsWith('\n')).toBe(true);
    expect(big.startsWith(metrics.text)).toBe(true);
    expect(raw.caProxyTexts!.find((t) => t.path === '/snapshotz')).toBeUndefined();
    expect(raw.warnings).toEqual([
      `${join(d, 'metrics.prom')}: larger than 1000 bytes; only the first 1000 bytes of CA's /metrics are read`,
      `${join(d, 'snapshotz.json')}: larger than 500 bytes, more than casdoctor reads of CA's /snapshotz; ignored`,
    ]);
  });

  it('does not take Prometheus text of another program, or JSON that only starts like /snapshotz, for CA’s', async () => {
    const d = dir('lookalikes', {
      'node-exporter.txt': '# HELP node_load1 1m load average.\n# TYPE node_load1 gauge\nnode_load1 0.21\n',
      'not-snapshotz.json': JSON.stringify({ NodeList: [], note: 'no timestamps' }),
    });
    const raw = await loadOffline([d]);
    expect(raw.caProxyTexts ?? []).toEqual([]);
    expect(raw.warnings).toEqual([
      `${join(d, 'node-exporter.txt')}: not a Kubernetes object, AWS output, Cluster Autoscaler log, /metrics or /snapshotz casdoctor recognises; ignored`,
      `${join(d, 'not-snapshotz.json')}: starts like CA's /snapshotz but is not one (no NodeList or TemplateNodes with a StartTimestamp); ignored`,
    ]);
  });

  it('reads kubectl JSON saved under another name (pods.txt), and still refuses malformed JSON in a .json file', async () => {
    const d = dir('names', { 'nodes.txt': nodeList });
    expect((await loadOffline([d])).nodes).toHaveLength(1);
    const bad = dir('bad', { 'nodes.json': '{"apiVersion": "v1", "items": [' });
    await expect(loadOffline([bad])).rejects.toThrow(/malformed JSON/);
  });

  it('reads an empty log file that casdoctor snapshot wrote (CA logged nothing) as an empty CA log', async () => {
    const d = dir('empty', { 'ca-log-cluster-autoscaler-6d9f7c8b5-h2x4k-cluster-autoscaler.log': '', 'empty.txt': '' });
    const raw = await loadOffline([d]);
    expect(raw.caLogs?.map((l) => l.lines.total)).toEqual([0]);
    expect(raw.warnings).toEqual([]);
  });
});

describe('CA’s custom resources in --from', () => {
  it('recognises ProvisioningRequests, PodTemplates and CapacityBuffers, in kubectl Lists and as the API server lists them', async () => {
    const pr = provisioningRequest('train-llm');
    const tpl = podTemplate('train-llm-tpl');
    const buffer = capacityBuffer('web-headroom');
    // the API server's typed lists carry no apiVersion/kind on items
    const strip = ({ apiVersion: _a, kind: _k, ...rest }: Record<string, unknown>) => rest;
    const d = dir('crds', {
      'provreqs.json': JSON.stringify({ apiVersion: 'autoscaling.x-k8s.io/v1', kind: 'ProvisioningRequestList', metadata: {}, items: [strip(pr as never)] }),
      'podtemplates.json': JSON.stringify({ apiVersion: 'v1', kind: 'PodTemplateList', metadata: {}, items: [strip(tpl as never)] }),
      'buffers.yaml': `apiVersion: v1\nkind: List\nitems:\n- ${JSON.stringify(buffer)}\n`,
    });
    const raw = await loadOffline([d]);
    expect(raw.provisioningRequests).toEqual([pr]);
    expect(raw.podTemplates).toEqual([tpl]);
    expect(raw.capacityBuffers).toEqual([buffer]);
    expect([...raw.provided].sort()).toEqual(['capacityBuffers', 'podTemplates', 'provisioningRequests']);
    expect(raw.warnings).toEqual([]);
  });

  it('marks an empty typed list as "there are none", and ignores a ProvisioningRequest of another API group with a warning', async () => {
    const d = dir('crds-empty', {
      'provreqs.json': JSON.stringify({ apiVersion: 'autoscaling.x-k8s.io/v1', kind: 'ProvisioningRequestList', metadata: {}, items: [] }),
      'other.json': JSON.stringify({ ...provisioningRequest('x'), apiVersion: 'example.com/v1' }),
    });
    const raw = await loadOffline([d]);
    expect(raw.provided.has('provisioningRequests')).toBe(true);
    expect(raw.provisioningRequests).toEqual([]);
    expect(raw.warnings).toEqual([
      `${join(d, 'other.json')}: a ProvisioningRequest of example.com/v1 without the spec Cluster Autoscaler reads; ignored`,
      `${join(d, 'other.json')}: no Kubernetes object or AWS output casdoctor recognises; ignored`,
    ]);
  });
});

describe('CA’s record in --from, through the real CLI', () => {
  it('runs the CA-record checks on a dump with CA’s log, and names a README it does not read without failing', () => {
    const d = join(tmp, 'cli');
    mkdirSync(d);
    for (const f of ['nodes.json', 'pods.json', 'deployments.json', 'replicasets.json', 'configmaps-kube-system.json', 'asgs.json'])
      writeFileSync(join(d, f), readFileSync(join(DEMO, f)));
    writeFileSync(join(d, 'ca.log.gz'), gzipSync(LOG));
    writeFileSync(join(d, 'README.txt'), 'Collected for ticket 4711.\n');
    const r = cli(['why-pending', '--all', '--from', d, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: ${join(d, 'README.txt')}: not a Kubernetes object`);
    const report = JSON.parse(r.stdout) as { skipped: Array<{ checkId: string; detail: string }> };
    expect(report.skipped.filter((s) => s.detail.includes('no CA log in the input'))).toEqual([]);

    const dumpsOnly = ['nodes.json', 'pods.json', 'deployments.json'].flatMap((f) => ['--from', join(d, f)]);
    const without = cli(['why-pending', '--all', ...dumpsOnly, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
    const skipped = (JSON.parse(without.stdout) as { skipped: Array<{ detail: string }> }).skipped;
    expect(skipped.some((s) => s.detail.includes('no CA log in the input'))).toBe(true);
  });
});
