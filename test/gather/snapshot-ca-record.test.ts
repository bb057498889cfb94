// `casdoctor snapshot` carries CA's own words: its log (one file per container and previous instance), its /metrics and
// /snapshotz, scrubbed like everything else (and pseudonymised with --redact), CA's custom resources and its
// priority-expander ConfigMap; and all of it reads back through --from to the same report as the live run.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSnapshot } from '../../src/commands/snapshot.js';
import type { Deps } from '../../src/commands/types.js';
import { runWhyPending } from '../../src/commands/why-pending.js';
import { parseCaLogText } from '../../src/gather/ca-log-file.js';
import { loadOffline } from '../../src/gather/offline.js';
import { Redactor } from '../../src/gather/redact.js';
import { buildSnapshotFiles, type SnapshotFile, writeSnapshot } from '../../src/gather/snapshot-writer.js';
import type { CaLogText } from '../../src/model/ca-record.js';
import type { ConfigMap } from '../../src/model/k8s.js';
import { emptyInputs, type RawInputs } from '../../src/model/snapshot.js';
import { capacityBuffer, podTemplate, provisioningRequest } from '../builders/ca-crds.js';
import { DEMO, DEMO_NOW } from '../commands/run.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { DEFAULT_CA_METRICS, type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { mutatingAwsRequests, mutatingKubeRequests } from './live-fixtures.js';

const TAKEN = new Date(DEMO_NOW);
const DEMO_LOG = readFileSync(join(DEMO, 'cluster-autoscaler.log'), 'utf8');
const CA_POD = 'cluster-autoscaler-8kg94h6kv-htgq4';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTEDKEY';

// What CA really logs that must not leave the cluster: its flags at startup (a --password-like flag), an AWS SDK error
// quoting a key id, a proxy URL with credentials, a bearer token from a webhook error.
const SECRET_LINES = [
  'I1121 09:57:01.000001       1 flags.go:64] FLAG: --kube-api-password="PLANTED-flag"',
  'E1121 09:57:02.000002       1 aws_manager.go:262] Failed to regenerate ASG cache: InvalidClientTokenId: The security token included in the request is invalid (AccessKeyId AKIAPLANTED000000001; aws_secret_access_key=' + AWS_SECRET + ')',
  'W1121 09:57:03.000003       1 clusterstate.go:1001] proxy https://ops:PLANTED-url@proxy.acme-corp.io:3128 refused: Bearer eyJhbGciOiJSUzI1NiJ9.PLANTEDPLANTED.c2lnbmF0dXJl',
  'I1121 09:57:04.000004       1 static_autoscaler.go:274] Starting main loop',
  'I1121 09:57:04.100000       1 scale_down.go:300] Node ip-10-0-14-37.ec2.internal (i-0a1b2c3d4e5f60001) is unremovable: cpu requested (71% of allocatable) is above the scale-down utilization threshold',
].join('\n');

function logText(previous: boolean, text = `${SECRET_LINES}\n`): CaLogText {
  return { namespace: 'kube-system', pod: CA_POD, container: 'cluster-autoscaler', previous, sinceSeconds: 3600, text, truncated: false };
}

function snapshotz(): string {
  const node = {
    metadata: { name: 'ip-10-0-14-37.ec2.internal', uid: '2a1c9c0e-6c38-4d8c-9e63-3b6a0c0d4e21' },
    status: { nodeInfo: { systemUUID: 'ec2d1f3a-5b6c-7d8e-9f00-112233445566', machineID: '0123456789abcdef0123456789abcdef' } },
  };
  const pod = {
    metadata: { name: 'ledger-0', namespace: 'payments', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"PLANTED":"manifest"}' } },
    spec: { containers: [{ name: 'ledger', env: [{ name: 'DB_PASSWORD', value: 'PLANTED-env' }] }] },
  };
  return JSON.stringify({
    NodeList: [{ Node: node, Pods: [pod] }],
    UnscheduledPodsCanBeScheduled: [pod],
    StartTimestamp: '2026-11-21T09:58:02.118296Z',
    EndTimestamp: '2026-11-21T09:58:02.301112Z',
    TemplateNodes: { 'demo-batch': { Node: { ...node, metadata: { name: 'template-node-for-demo-batch-1' } }, Pods: [] } },
  });
}

function raw(): RawInputs {
  const r = emptyInputs();
  r.caLogTexts = [logText(true), logText(false)];
  r.caProxyTexts = [
    { namespace: 'kube-system', pod: CA_POD, port: 8085, path: '/metrics', text: `${DEFAULT_CA_METRICS}# proxy https://ops:PLANTED-metrics@proxy.acme-corp.io\n`, truncated: false },
    { namespace: 'kube-system', pod: CA_POD, port: 8085, path: '/snapshotz', text: snapshotz(), truncated: false },
  ];
  const priority: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cluster-autoscaler-priority-expander', namespace: 'kube-system' },
    data: { priorities: '50:\n  - .*spot.*\n' },
  };
  const other: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config', namespace: 'web' }, data: { DSN: 'x' } };
  r.configMaps = [priority, other];
  r.provisioningRequests = [provisioningRequest('train-llm')];
  r.podTemplates = [podTemplate('train-llm-tpl', 'batch', { cpu: '1' }, { containers: [{ name: 'w', image: 'busybox', env: [{ name: 'TOKEN', value: 'PLANTED-template-env' }] }] } as never)];
  r.capacityBuffers = [capacityBuffer('web-headroom')];
  for (const k of ['configMaps', 'provisioningRequests', 'podTemplates', 'capacityBuffers'] as const) r.provided.add(k);
  return r;
}

const build = (redactor?: Redactor) =>
  buildSnapshotFiles(raw(), { statusConfigMaps: [], redactor, takenAt: TAKEN, source: 'live: test', version: '0.1.0' });
const byName = (files: SnapshotFile[]) => new Map(files.map((f) => [f.name, f]));

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-snapshot-ca-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the snapshot of CA’s record', () => {
  it('writes one scrubbed log file per container and previous instance, /metrics and /snapshotz, and no planted secret', () => {
    const files = byName(build());
    const log = files.get(`ca-log-${CA_POD}-cluster-autoscaler.log`)!;
    const previous = files.get(`ca-log-${CA_POD}-cluster-autoscaler-previous.log`)!;
    expect(log.count).toBe(5);
    expect(log.command).toBe(`kubectl logs -n kube-system ${CA_POD} -c cluster-autoscaler --since=3600s`);
    expect(previous.command).toBe(`kubectl logs -n kube-system ${CA_POD} -c cluster-autoscaler --since=3600s --previous`);
    expect(files.get('ca-metrics.txt')!.command).toBe(`kubectl get --raw /api/v1/namespaces/kube-system/pods/${CA_POD}:8085/proxy/metrics`);
    expect(files.get('ca-snapshotz.json')!.count).toBe(1);
    for (const f of files.values()) expect(f.content, f.name).not.toMatch(/PLANTED|AKIAPLANTED|wJalrXUtnFEMI/);
    // scrubbed, not dropped: the lines CA's checks read are intact
    expect(log.content).toContain('static_autoscaler.go:274] Starting main loop');
    expect(log.content).toContain('FLAG: --kube-api-password=[redacted]');
    expect(log.content).toContain('https://ops:[redacted]@proxy.acme-corp.io:3128');
    const snap = JSON.parse(files.get('ca-snapshotz.json')!.content);
    expect(Object.keys(snap)).toEqual(['NodeList', 'UnscheduledPodsCanBeScheduled', 'StartTimestamp', 'EndTimestamp', 'TemplateNodes']);
    expect(snap.NodeList[0].Pods[0].spec.containers[0].env).toEqual([{ name: 'DB_PASSWORD' }]);
    expect(snap.NodeList[0].Pods[0].metadata.annotations).toEqual({});
    expect(files.get('README.md')!.content).toContain(`| ca-log-${CA_POD}-cluster-autoscaler.log | 5 |`);
  });

  it('keeps CA’s priority-expander ConfigMap and its custom resources, scrubbing the PodTemplate’s env values', () => {
    const files = byName(build());
    expect(JSON.parse(files.get('configmaps.json')!.content).items.map((c: ConfigMap) => c.metadata.name)).toEqual([
      'cluster-autoscaler-priority-expander',
    ]);
    expect(JSON.parse(files.get('provisioningrequests.json')!.content).items).toHaveLength(1);
    expect(JSON.parse(files.get('capacitybuffers.json')!.content).items).toHaveLength(1);
    const tpl = JSON.parse(files.get('podtemplates.json')!.content).items[0];
    expect(tpl.template.spec.containers[0].env).toEqual([{ name: 'TOKEN' }]);
  });

  it('pseudonymises host names, IPs and instance ids in the log, /metrics and /snapshotz with --redact, as in the dumps', () => {
    const redactor = new Redactor('a-salt');
    const files = byName(build(redactor));
    const log = files.get(`ca-log-${CA_POD}-cluster-autoscaler.log`)!.content;
    expect(log).not.toContain('10-0-14-37');
    expect(log).not.toContain('i-0a1b2c3d4e5f60001');
    expect(log).toContain(`Node ${redactor.redactString('ip-10-0-14-37.ec2.internal')} (${redactor.pseudonym('instance', 'i-0a1b2c3d4e5f60001')})`);
    expect(log).not.toContain('proxy.acme-corp.io');
    const snap = files.get('ca-snapshotz.json')!.content;
    expect(snap).not.toContain('10-0-14-37');
    expect(snap).not.toContain('ec2d1f3a-5b6c-7d8e-9f00-112233445566');
    expect(snap).toContain('template-node-for-demo-batch-1');
  });

  it('reads back through --from: the same log summaries (dated by the file time it sets), /metrics, /snapshotz and resources', async () => {
    const dir = join(tmp, 'roundtrip');
    await writeSnapshot(dir, build());
    expect(statSync(join(dir, `ca-log-${CA_POD}-cluster-autoscaler.log`)).mtime.toISOString()).toBe(TAKEN.toISOString());
    const back = await loadOffline([dir]);
    expect(back.warnings).toEqual([]);
    const scrubbed = readFileSync(join(dir, `ca-log-${CA_POD}-cluster-autoscaler.log`), 'utf8');
    const expected = parseCaLogText(scrubbed, { now: TAKEN });
    // the current and the previous container's logs are read as one log, merged by time
    expect(back.caLogs).toHaveLength(1);
    for (const s of back.caLogs!) {
      expect(s.lines).toEqual(expected.lines);
      expect(s.lastTime).toBe(expected.lastTime);
    }
    expect(back.caProxyTexts?.map((t) => t.path)).toEqual(['/metrics', '/snapshotz']);
    expect(back.caProxyTexts![1].text).toBe(readFileSync(join(dir, 'ca-snapshotz.json'), 'utf8'));
    expect(back.provisioningRequests).toHaveLength(1);
    expect(back.podTemplates).toHaveLength(1);
    expect(back.capacityBuffers).toHaveLength(1);
    expect(back.configMaps.map((c) => c.metadata.name)).toEqual(['cluster-autoscaler-priority-expander']);
  });
});

describe('a live snapshot with CA’s log reads back to the same report', () => {
  let kube: KubeApiServer;
  let aws: AwsServer;
  beforeAll(async () => {
    const demo = await loadOffline([DEMO]);
    kube = await startKubeApiServer(demo, { podLogs: { [`kube-system/${CA_POD}/cluster-autoscaler`]: DEMO_LOG } });
    aws = await startAwsServer(demo);
  });
  afterAll(async () => {
    expect(mutatingKubeRequests(kube.requests)).toEqual([]);
    expect(mutatingAwsRequests(aws.requests)).toEqual([]);
    await kube.close();
    await aws.close();
  });

  function deps(): Deps & { out: () => string } {
    let stdout = '';
    return {
      out: () => stdout,
      stdout: (s) => void (stdout += s),
      stderr: () => {},
      stdoutIsTTY: false,
      stderrIsTTY: false,
      realNow: () => new Date(DEMO_NOW),
      liveOverrides: {
        awsEndpoint: aws.endpoint,
        awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
        awsRetryDelayMs: 0,
      },
    } as Deps & { out: () => string };
  }
  const common = { requestTimeout: '10s', now: DEMO_NOW, failOn: 'never' as const, color: false, debug: false };

  it('gives the same why-pending JSON, CA-record checks included, from the snapshot as from the live cluster', async () => {
    const dir = join(tmp, 'live');
    const live = { kubeconfig: kube.kubeconfigPath, region: 'us-east-1' };
    const snap = await runSnapshot({ ...common, ...live, from: [], output: 'table', dir, version: '0.1.0' }, deps());
    expect(snap.exitCode).toBe(0);
    expect(readFileSync(join(dir, `ca-log-${CA_POD}-cluster-autoscaler.log`), 'utf8')).toBe(DEMO_LOG);
    expect(readFileSync(join(dir, 'ca-metrics.txt'), 'utf8')).toBe(DEFAULT_CA_METRICS);

    const report = async (from: string[]) => {
      const d = deps();
      await runWhyPending({ ...common, ...(from.length ? {} : live), from, output: 'json', all: true, allNamespaces: true }, d);
      return JSON.parse(d.out());
    };
    const liveReport = await report([]);
    const back = await report([dir]);
    expect(back).toEqual(liveReport);
    // CA's log was read and used: no CA-record check is skipped for want of it
    expect(liveReport.skipped.filter((s: { detail: string }) => /CA log|CA's log/.test(s.detail))).toEqual([]);
  });
});
