import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCaLogFromPod, parseCaLogText, readCaLogFile, sniffCaLog } from '../../src/gather/ca-log-file.js';
import { InputError } from '../../src/model/errors.js';

const NOW = new Date('2026-11-21T10:00:00Z');
const dir = mkdtempSync(join(os.tmpdir(), 'casdoctor-ca-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// CA 1.32.1 at --v=4 as `kubectl logs` prints it; the pod name holds a multi-byte character to test chunk edges.
const LOG = [
  'I1121 09:59:52.118342       1 static_autoscaler.go:274] Starting main loop',
  'I1121 09:59:52.118901       1 auto_scaling_groups.go:428] Regenerating instance to ASG map for ASG names: []',
  'I1121 09:59:52.129870       1 orchestrator.go:588] Pod ml/inférence-0 can\'t be scheduled on demo-gpu, predicate checking error: can\'t schedule pod ml/inférence-0: predicate "NodeResourcesFit" didn\'t pass (predicateReasons=[Insufficient nvidia.com/gpu]; debugInfo=nodeName: "template-node-for-demo-gpu-8674665223082153551")',
  'E1121 09:59:52.130100       1 static_autoscaler.go:518] Failed to scale up: failed to increase node group size: AccessDenied: User: arn:aws:sts::111122223333:assumed-role/demo-cluster-autoscaler/1 is not authorized to perform: autoscaling:SetDesiredCapacity on resource: arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:u:autoScalingGroupName/demo-gpu because no identity-based policy allows the autoscaling:SetDesiredCapacity action',
  '\tstatus code: 403, request id: 3c5e1f9a-8b7d-4e2c-9a1f-6d4b8c2e0f13',
  'I1121 09:59:52.142808       1 cluster.go:159] node ip-10-0-22-96.ec2.internal cannot be removed: not enough pod disruption budget to move payments/payments-api-7f6d8c9b5-hx2lp',
  '',
].join('\n');

function write(name: string, data: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
}

describe('sniffCaLog', () => {
  it('recognises CA klog text by its source files and messages', () => {
    expect(sniffCaLog(LOG)).toBe(true);
  });

  it('recognises CA --logging-format=json and kubectl --timestamps output', () => {
    const json = [
      '{"ts":1763719192118.342,"caller":"core/static_autoscaler.go:274","msg":"Starting main loop\\n","v":4}',
      '{"ts":1763719192119.1,"caller":"aws/auto_scaling_groups.go:428","msg":"Regenerating instance to ASG map for ASG names: []\\n","v":4}',
    ].join('\n');
    expect(sniffCaLog(`${json}\n`)).toBe(true);
    const prefixed = LOG.split('\n')
      .filter((l) => l.startsWith('I'))
      .map((l) => `2026-11-21T09:59:52.118342871Z ${l}`)
      .join('\n');
    expect(sniffCaLog(`${prefixed}\n`)).toBe(true);
  });

  it('rejects a kubectl JSON dump, prose, and another component\'s klog', () => {
    expect(sniffCaLog('{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List"\n}\n')).toBe(false);
    expect(sniffCaLog('# Notes\nThe cluster autoscaler did not scale up.\n')).toBe(false);
    const kubelet = [
      'I1121 09:59:52.118342    2291 kubelet.go:2436] "SyncLoop ADD" source="api" pods=["kube-system/aws-node-x"]',
      'I1121 09:59:52.118400    2291 kubelet_node_status.go:72] "Attempting to register node" node="ip-10-0-1-1"',
    ].join('\n');
    expect(sniffCaLog(`${kubelet}\n`)).toBe(false);
    expect(sniffCaLog('')).toBe(false);
  });
});

describe('readCaLogFile', () => {
  it('gives the same summary as parsing the text in memory, apart from the source', async () => {
    const p = write('ca.log', LOG);
    const s = await readCaLogFile(p, { now: NOW });
    const t = parseCaLogText(LOG, { now: NOW });
    expect({ ...s, source: undefined }).toEqual({ ...t, source: undefined });
    expect(s.source).toEqual({ kind: 'file', path: p });
    expect(s.predicateFailures).toMatchObject([{ pod: 'ml/inférence-0', group: 'demo-gpu' }]);
    expect(s.awsErrors).toMatchObject([{ kind: 'access-denied', group: 'demo-gpu' }]);
    expect(s.lines).toEqual({ total: 6, blank: 0, recognised: 5, unmatched: 0, unparsed: 0, continuation: 1 });
  });

  it('splits lines correctly across tiny chunks, multi-byte characters and CRLF', async () => {
    const p = write('ca-crlf.log', LOG.replaceAll('\n', '\r\n'));
    const small = await readCaLogFile(p, { now: NOW, chunkBytes: 7 });
    const whole = parseCaLogText(LOG, { now: NOW });
    expect({ ...small, source: undefined }).toEqual({ ...whole, source: undefined });
  });

  it('reads a gzip-compressed log by its magic bytes', async () => {
    const p = write('ca.log.gz', gzipSync(Buffer.from(LOG)));
    const s = await readCaLogFile(p, { now: NOW });
    expect(s.mainLoop.count).toBe(1);
    expect(s.predicateFailures).toHaveLength(1);
  });

  it('dates klog lines by the file\'s mtime when no clock is given', async () => {
    const p = write('ca-mtime.log', 'I1231 23:59:50.000000       1 static_autoscaler.go:274] Starting main loop\n');
    const mtime = new Date('2027-01-01T00:00:10Z');
    utimesSync(p, mtime, mtime);
    const s = await readCaLogFile(p);
    expect(s.mainLoop.first).toBe('2026-12-31T23:59:50.000Z');
  });

  it('names the file in an InputError when it is missing or not a regular file', async () => {
    await expect(readCaLogFile(join(dir, 'nope.log'))).rejects.toThrow(InputError);
    await expect(readCaLogFile(join(dir, 'nope.log'))).rejects.toThrow(/nope\.log: no such file or directory/);
    await expect(readCaLogFile(dir)).rejects.toThrow(/not a regular file/);
  });
});

describe('parseCaLogFromPod', () => {
  it('names the pod, container and previous flag as the source', () => {
    const s = parseCaLogFromPod(
      { namespace: 'kube-system', pod: 'cluster-autoscaler-6b8f9d7c5-r4t2m', container: 'cluster-autoscaler', previous: true, sinceSeconds: 3600, text: LOG, truncated: false },
      NOW,
    );
    expect(s.source).toEqual({ kind: 'pod', namespace: 'kube-system', pod: 'cluster-autoscaler-6b8f9d7c5-r4t2m', container: 'cluster-autoscaler', previous: true });
    expect(s.mainLoop.count).toBe(1);
  });
});
