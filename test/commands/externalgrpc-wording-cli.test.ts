// The reports on an externalgrpc cluster speak of its provider, not of ASGs: the real CLI on examples/externalgrpc
// (npm run build first), a bare nodegroup-config.yaml in --from, and AWS's wording kept on examples/demo.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const EXAMPLE = join(ROOT, 'examples', 'externalgrpc');
const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-egrpc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('why-pending on an externalgrpc cluster', () => {
  const r = cli(['why-pending', '--all', '-A', '--from', EXAMPLE, '--now', DEMO_NOW]);

  it('names the input the provider runs with in the header line', () => {
    expect(r.stdout.split('\n')[0]).toContain('· externalgrpc groups from ConfigMap kube-system/nodegroup-status');
  });

  it('prints no aws CLI command and no ASG wording outside the list of AWS-only checks', () => {
    const body = r.stdout.split('\n').filter((l) => !l.startsWith('not applicable'));
    expect(body.join('\n')).not.toMatch(/aws autoscaling|ASG|Auto Scaling/);
  });

  it("fills INSTANCE from the group's instanceParameter and says target size, not desired capacity", () => {
    expect(r.stdout).toMatch(/memory\s+0\/2\/2\s+M5\.4XLARGE128\s+node/);
    expect(r.stdout).toContain('max node group size reached (target size 2 >= max size 2)');
  });

  it('raises a max size through the provider HTTP API with every field the API overwrites', () => {
    expect(r.stdout).toContain('kubectl -n kube-system port-forward deployment/cluster-autoscaler-grpc-cloud-provider 8080:8080 &');
    expect(r.stdout).toContain(
      `curl -sS -X POST http://127.0.0.1:8080/api/v1/nodegroup -H 'Content-Type: application/json' -d '{"id":"memory","minSize":0,"maxSize":4,"instanceParameter":"tencentcloud_beijing5_m5_4xlarge128","autoscalingOptions":{"scaleDownUtilizationThreshold":0,"scaleDownGpuUtilizationThreshold":0,"scaleDownUnneededTime":1200000000000,"scaleDownUnreadyTime":0}}'`,
    );
  });

  it('adds a missing label by editing the nodeTemplate in the ConfigMap with the provider stopped', () => {
    expect(r.stdout).toContain('gpu template (nodeTemplate.labels in ConfigMap kube-system/nodegroup-status)');
    const block = r.stdout.slice(r.stdout.indexOf('kubectl -n kube-system scale deployment cluster-autoscaler-grpc-cloud-provider --replicas=0'));
    expect(block.split('\n').slice(0, 3).map((l) => l.trim())).toEqual([
      'kubectl -n kube-system scale deployment cluster-autoscaler-grpc-cloud-provider --replicas=0',
      'kubectl -n kube-system edit configmap nodegroup-status',
      '#   group default: nodeTemplate.labels: "dedicated": "infra"',
    ]);
    expect(r.stdout).toContain('kubectl -n kube-system scale deployment cluster-autoscaler-grpc-cloud-provider --replicas=1');
  });

  it('says a GPU never reaches the template instead of suggesting EC2 instance types', () => {
    expect(r.stdout).toContain('The provider never passes nvidia.com/gpu to CA');
    expect(r.stdout).not.toMatch(/g4dn|g5\.4xlarge/);
  });
});

describe('scale-down-blockers and the overview on an externalgrpc cluster', () => {
  it("marks a threshold that comes from the group's autoscalingOptions and names the provider's source", () => {
    const r = cli(['scale-down-blockers', '--from', EXAMPLE, '--now', DEMO_NOW]);
    expect(r.stdout.split('\n')[0]).toContain('externalgrpc groups from ConfigMap kube-system/nodegroup-status');
    // memory's autoscalingOptions set the threshold to 0 (CA 1.28 reads fields 1-4 of the provider's answer)
    expect(r.stdout).toMatch(/10\.0\.4\.11\s+memory\s+memory 78\.6% > 0%\*/);
    expect(r.stdout).toMatch(/10\.0\.2\.21\s+general\s+cpu 80\.6% > 50%\s/);
    expect(r.stdout).toContain("* threshold from the provider's per-group autoscalingOptions (GetOptions), as this CA version reads them");
  });

  it('speaks of node groups, not Auto Scaling groups or IAM, and suggests node-group-audit', () => {
    const r = cli(['--from', EXAMPLE, '--now', DEMO_NOW]);
    expect(r.stdout).toContain('node groups from the externalgrpc provider (ConfigMap kube-system/nodegroup-status)');
    expect(r.stdout).toContain('Node groups (externalgrpc)');
    expect(r.stdout).toContain('not applicable: CA runs with --cloud-provider=externalgrpc');
    expect(r.stdout).toContain(`casdoctor node-group-audit --from ${EXAMPLE} --now ${DEMO_NOW}`);
    expect(r.stdout).not.toContain('casdoctor asg-audit');
  });
});

describe('node-group-audit', () => {
  it('lists every externalgrpc group with its instance records by stage', () => {
    const r = cli(['node-group-audit', '--from', EXAMPLE, '--now', DEMO_NOW, '--fail-on', 'never']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/general\s+1\/4\/6\s+2\s+S5\.2XLARGE16\s+Pending 1 \(1 failed\), Created 1 \(1 failed\), Running 2/);
    expect(r.stdout).toMatch(/gpu\s+0\/0\/4\s+0\s+GN7\.8XLARGE128\s+no instances/);
  });

  it('is listed in --help next to asg-audit', () => {
    const r = cli(['--help']);
    expect(r.stdout).toContain('node-group-audit');
    expect(r.stdout).toContain('asg-audit');
  });
});

describe('a bare nodegroup-config.yaml in --from', () => {
  const secret = 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE';
  const key = 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY';
  const dir = join(tmp, 'file-only');
  rmSync(dir, { recursive: true, force: true });
  // realistic: the provider's own sample with credentials at the place the code reads (provider/provier.go accounts)
  const yaml = `cloudProviderOption:
  accounts:
    tencentcloud:
      zhansan:
        secretId: "${secret}"
        secretKey: ${key}
  instanceParameter:
    tencentcloud_beijing5_1-2-3-x:
      providerIdTemplate: "externalgrpc://tencentcloud/zhansan/ap-beijing/{{InstanceID}}"
      parameter:
        InstanceType: "S5.2XLARGE16"
        Placement: { ProjectId: 123456, Zone: "ap-beijing-5" }
nodeGroups:
- id: "autoscaler-test"
  minSize: 0
  maxSize: 10
  targetSize: 0
  instanceParameter: "tencentcloud_beijing5_1-2-3-x"
  nodeTemplate:
    labels: { "node-role.kubernetes.io/autoscaler-test": "" }
    capacity: { cpu: "8", memory: "16G", ephemeral-storage: "200G" }
`;
  it('is recognised by content, used as the provider config, and no credential value is printed', () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nodegroup-config.yaml'), yaml);
    const r = cli(['node-group-audit', '--from', dir, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
    expect(r.stderr).not.toContain('not a Kubernetes object');
    const doc = JSON.parse(r.stdout) as { provider: string; source: string; nodeGroups: Array<{ name: string; instanceType?: string }> };
    expect(doc.provider).toBe('externalgrpc');
    expect(doc.source).toBe(`file ${join(dir, 'nodegroup-config.yaml')}`);
    expect(doc.nodeGroups.map((g) => [g.name, g.instanceType])).toEqual([['autoscaler-test', 'S5.2XLARGE16']]);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(r.stdout + r.stderr).not.toContain(key);
  });
});

describe('a nodegroup-config.yaml beside the nodegroup-status ConfigMap', () => {
  it('is read, but the ConfigMap is what the provider runs with (it loads the file only without one)', () => {
    const dir = join(tmp, 'both');
    cpSync(EXAMPLE, dir, { recursive: true });
    writeFileSync(join(dir, 'nodegroup-config.yaml'), 'cloudProviderOption:\n  instanceParameter: {}\nnodeGroups:\n- id: only-in-file\n  minSize: 0\n  maxSize: 3\n  nodeTemplate:\n    labels: {}\n');
    const r = cli(['node-group-audit', '--from', dir, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
    const doc = JSON.parse(r.stdout) as { source: string; nodeGroups: Array<{ name: string }> };
    expect(doc.source).toBe('ConfigMap kube-system/nodegroup-status');
    expect(doc.nodeGroups.map((g) => g.name)).not.toContain('only-in-file');
  });
});

describe('snapshot --redact of the externalgrpc example', () => {
  it('writes no credential value, no hook script and no node IP, and reads back to the same groups', () => {
    const out = join(tmp, 'snap-redact');
    const w = cli(['snapshot', '--from', EXAMPLE, '--now', DEMO_NOW, '--redact', '-o', out]);
    expect(w.code).toBe(0);
    const text = readdirSync(out).map((f) => readFileSync(join(out, f), 'utf8')).join('\n');
    for (const secret of ['AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE', '10.0.2.40']) expect(text).not.toContain(secret);
    expect(text).not.toContain('after_created_hook.sh"');
    const a = cli(['node-group-audit', '--from', out, '--now', DEMO_NOW]);
    const b = cli(['node-group-audit', '--from', EXAMPLE, '--now', DEMO_NOW]);
    const table = (s: string) => s.split('\n').slice(2, 8).join('\n');
    expect(table(a.stdout)).toBe(table(b.stdout));
  });
});

describe("preflight on the provider's nodegroup-config.yaml", () => {
  it("names the provider's nodeTemplate, not ASGs, launch templates or tags, and says CA 1.35+ reads no template", () => {
    const manifest = join(tmp, 'unplaceable.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: trainer, namespace: ml}',
        'spec:',
        '  replicas: 1',
        '  selector: {matchLabels: {app: trainer}}',
        '  template:',
        '    metadata: {labels: {app: trainer}}',
        '    spec:',
        '      nodeSelector: {dedicated: infra}',
        '      containers:',
        '      - name: t',
        '        image: busybox',
        '        resources: {requests: {cpu: "8", memory: 32Gi, nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}',
        '',
      ].join('\n'),
    );
    const r = cli(['preflight', '-f', manifest, '--node-groups', join(EXAMPLE, 'nodegroup-config.yaml'), '--fail-on', 'never']);
    expect(r.stdout).toContain('✖ workload-unplaceable  Deployment ml/trainer');
    expect(r.stdout).not.toMatch(/\bASG\b|launch template|node-template|EKS|aws /);
    expect(r.stdout).toContain("CA template for node group gpu (the provider's nodeTemplate: labels, taints, cpu, memory, ephemeral-storage)");
    expect(r.stdout).toContain("this provider never passes nvidia.com/gpu to CA's template");
    expect(r.stdout).toContain("give the group those labels in its nodeTemplate.labels");
    expect(r.stdout).toMatch(/no CA Deployment among the inputs, so CA 1\.\d+ is assumed; it reads no template from this provider/);
  });
});

describe('the AWS demo keeps its wording', () => {
  it('has no provider source in the header and still prints the aws CLI fixes', () => {
    const r = cli(['why-pending', '--all', '-A', '--from', DEMO, '--now', DEMO_NOW]);
    expect(r.stdout.split('\n')[0]).not.toContain('groups from');
    expect(r.stdout).toContain('aws autoscaling create-or-update-tags');
  });
});
