// preflight --node-groups with the externalgrpc provider's own nodegroup-config.yaml: groups and templates as the
// provider builds them (BuildNodeFromTemplate, node_group.go:1040-1100 @ f792442), credentials never kept.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseNodeGroupsFile } from '../../src/gather/node-groups-file.js';
import { isExternalGrpcDeclared } from '../../src/model/preflight.js';
import { cli, ROOT } from './run.js';

const FILE = join(ROOT, 'examples', 'externalgrpc', 'nodegroup-config.yaml');
const TEXT = readFileSync(FILE, 'utf8');
const SECRETS = /AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE|Gu5t9xGARNpq86cd98joQYCN3EXAMPLE/;

const dir = mkdtempSync(join(tmpdir(), 'casdoctor-grpc-preflight-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MANIFESTS = join(dir, 'apps.yaml');
writeFileSync(
  MANIFESTS,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: pdf-render, namespace: reports}
spec:
  replicas: 1
  selector: {matchLabels: {app: pdf-render}}
  template:
    metadata: {labels: {app: pdf-render}}
    spec:
      containers:
      - name: render
        image: ccr.ccs.tencentyun.com/reports/pdf-render:3.0.2
        resources: {requests: {cpu: "6", memory: 6Gi}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: trainer, namespace: ml}
spec:
  replicas: 1
  serviceName: trainer
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      nodeSelector: {nvidia.com/gpu.present: "true"}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: trainer
        image: ccr.ccs.tencentyun.com/ml/trainer:0.9.3
        resources: {requests: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
`,
);

describe("--node-groups with the externalgrpc provider's nodegroup-config.yaml", () => {
  it('reads each group with the template the provider builds: allocatable = capacity, only cpu/memory/ephemeral-storage, pods 110', () => {
    const d = parseNodeGroupsFile(TEXT, 'nodegroup-config.yaml');
    expect(isExternalGrpcDeclared(d)).toBe(true);
    expect(d.groups.map((g) => g.name)).toEqual(['worker-addons', 'general', 'gpu', 'memory', 'default']);
    const gpu = d.groups.find((g) => g.name === 'gpu')!;
    expect(gpu.capacity).toEqual({ pods: '110', cpu: '32', memory: '128Gi', 'ephemeral-storage': '200Gi' });
    expect(gpu.allocatable).toEqual(gpu.capacity);
    expect(gpu.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
    // buildGenericLabels sets only the beta arch label; no zone labels, the hostname is the template's own
    expect(gpu.labels).toEqual({
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/os': 'linux',
      'node-role.kubernetes.io/gpu': '',
      'nvidia.com/gpu.present': 'true',
    });
    expect(gpu.notes).toContain('capacity nvidia.com/gpu never reaches CA (the provider reads only cpu, memory, ephemeral-storage)');
    expect(d.groups.find((g) => g.name === 'default')!.notes[0]).toContain('the provider adds this catch-all group itself');
  });

  it('scrubs the cloud credentials before keeping the text', () => {
    const d = parseNodeGroupsFile(TEXT, 'nodegroup-config.yaml');
    expect(TEXT).toMatch(SECRETS);
    expect(JSON.stringify(d)).not.toMatch(SECRETS);
  });

  it("still reads casdoctor's own format", () => {
    const own = parseNodeGroupsFile(
      'apiVersion: casdoctor.io/v1alpha1\nkind: NodeGroups\nnodeGroups:\n  - name: web\n    instanceType: m5.large\n    zones: [us-east-1a]\n    maxSize: 3\n',
      'own.yaml',
    );
    expect(isExternalGrpcDeclared(own)).toBe(false);
    expect(own.groups.map((g) => g.name)).toEqual(['web']);
  });

  it('places workloads on the provider-built templates in the real CLI: the GPU pod fits no group, the 6-CPU pod fits general', () => {
    const r = cli(['preflight', '-f', MANIFESTS, '--node-groups', FILE, '-o', 'json', '--fail-on', 'never']);
    expect(r.stderr).not.toMatch(/unexpected failure/);
    expect(r.stdout).not.toMatch(SECRETS);
    const report = JSON.parse(r.stdout);
    const unplaceable = (report.findings as any[]).filter((f) => f.checkId === 'workload-unplaceable').map((f) => `${f.subject.kind}/${f.subject.name}`);
    expect(unplaceable).toEqual(['StatefulSet/trainer']);
    const trainer = (report.findings as any[]).find((f) => f.checkId === 'workload-unplaceable');
    expect(trainer.message).toContain('gpu: nvidia.com/gpu 1 > 0 free');
  });
});
