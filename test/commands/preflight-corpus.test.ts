// Issue 14: the real CLI (dist/, `npm run build` first) over test/fixtures/preflight-corpus, inputs written here in
// the shapes eksctl, kubectl and helm produce. Exit codes: 0 clean, 1 a failing finding, 2 unusable input, 3 skipped
// (not evaluated) under strict.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './run.js';

const C = 'test/fixtures/preflight-corpus';
const NOW = ['--now', '2026-11-21T10:00:00Z'];

function run(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), 'preflight', ...args, ...NOW], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(args: string[]) {
  const r = run([...args, '-o', 'json']);
  return { ...r, report: JSON.parse(r.stdout) };
}

const ids = (report: { findings: Array<{ checkId: string }> }) => report.findings.map((f) => f.checkId).sort();

describe('preflight on realistic inputs (real process)', () => {
  it('passes an `eksctl create cluster --dry-run` config (instanceSelector: {} is absent)', () => {
    const r = json(['--eksctl', `${C}/dry-run/cluster.yaml`, '-f', `${C}/dry-run/app.yaml`]);
    expect(r.code).toBe(0);
    expect(r.report.nodeGroups[0]).toMatchObject({ name: 'ng-1', instanceType: 'm5.large' });
    expect(r.stderr).toBe('');
  });

  it('reports a managed group with only a launchTemplate as not evaluated (exit 3), never as unplaceable', () => {
    const r = json(['--eksctl', `${C}/managed-launch-template/cluster.yaml`, '-f', `${C}/managed-launch-template/app.yaml`]);
    expect(r.code).toBe(3);
    expect(ids(r.report)).toEqual([]);
    expect(r.report.skipped).toEqual([
      expect.objectContaining({ checkId: 'workload-unplaceable', reason: 'not-evaluated' }),
    ]);
    expect(r.report.workloads[0].nodeGroups[0].notEvaluated.supply).toMatch(/describe-launch-template-versions/);
    expect(r.stdout).not.toMatch(/unable to find instance type/);
    expect(run(['--eksctl', `${C}/managed-launch-template/cluster.yaml`, '-f', `${C}/managed-launch-template/app.yaml`, '--no-strict']).code).toBe(0);
  });

  it('resolves instanceSelector groups offline and places the workload', () => {
    const r = json(['--eksctl', `${C}/instance-selector/cluster.yaml`, '-f', `${C}/instance-selector/app.yaml`]);
    expect(r.code).toBe(0);
    const general = r.report.nodeGroups.find((g: { name: string }) => g.name === 'general');
    expect(general.instanceType).toBe('c5.large');
    expect(general.gate).toBeUndefined();
  });

  it('treats an Auto Mode cluster as nothing for CA to scale (not applicable, exit 0), not as incomplete input', () => {
    const r = json(['--eksctl', `${C}/auto-mode/cluster.yaml`, '-f', `${C}/auto-mode/app.yaml`]);
    expect(r.code).toBe(0);
    expect(r.report.skipped).toEqual([]);
    expect(r.report.notApplicable[0].reason).toMatch(/EKS Auto Mode/);
  });

  it('binds a claim pre-bound to a PV in the same file', () => {
    const r = json(['--eksctl', `${C}/cluster.yaml`, '-f', `${C}/static-pv`]);
    expect(r.code).toBe(0);
    expect(ids(r.report)).toEqual([]);
  });

  it('names operator-managed pods instead of "pdb-matches-nothing"', () => {
    const r = json(['--eksctl', `${C}/cluster.yaml`, '-f', `${C}/operator-pdb`]);
    expect(ids(r.report)).not.toContain('pdb-matches-nothing');
    expect(r.report.notes.join('\n')).toMatch(/selects operator-managed pods \(from Prometheus monitoring\/main/);
  });

  it('evaluates a ReplicationController instead of dropping it', () => {
    const r = json(['--eksctl', `${C}/cluster.yaml`, '-f', `${C}/replication-controller`]);
    expect(r.report.workloads.map((w: { kind: string }) => w.kind)).toEqual(['ReplicationController']);
    expect(r.report.findings).toEqual([
      expect.objectContaining({ checkId: 'workload-unplaceable', subject: expect.objectContaining({ kind: 'ReplicationController' }) }),
    ]);
  });

  it("runs CA's flag checks on CA's Deployment among the manifests: the placeholder, and one discovery finding", () => {
    const r = json(['--eksctl', `${C}/cluster.yaml`, '-f', `${C}/ca-placeholder`]);
    expect(r.code).toBe(1);
    expect(ids(r.report)).toEqual(['discovery-spec-invalid', 'workload-unplaceable']);
    expect(r.report.findings.find((f: { checkId: string }) => f.checkId === 'workload-unplaceable').message).toMatch(
      /manage none of the 1 node group\(s\)/,
    );
  });

  it('says "render it first" for an unrendered Helm chart (exit 2), with file:line', () => {
    const r = run(['--eksctl', `${C}/cluster.yaml`, '-f', `${C}/helm-unrendered`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /helm-unrendered\/templates\/deployment\.yaml:1: an unrendered Helm template .*render it first \(`helm template <release> <chart> \| casdoctor preflight -f -`\)/,
    );
    expect(r.stderr).not.toMatch(/malformed JSON|Keys with collection values/);
  });

  it('says once, per skipped check, that no node group was read from a dump of pods only and how to supply it', () => {
    const r = json(['-f', `${C}/dry-run/app.yaml`, '--from', `${C}/pods-only-dump`]);
    expect(r.code).toBe(3);
    const details = new Set(r.report.skipped.map((x: { detail: string }) => x.detail));
    expect([...details]).toEqual([
      expect.stringMatching(/no node groups could be read from --from .*aws autoscaling describe-auto-scaling-groups.*the workloads are not evaluated/),
    ]);
    expect(r.stdout).not.toMatch(/no node group in the snapshot/);
  });

  it('writes absolute -f paths outside the working directory as file:// URIs in SARIF', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-corpus-'));
    const manifest = join(dir, 'redis.yaml');
    copyFileSync(join(ROOT, C, 'replication-controller', 'redis.yaml'), manifest);
    const sarifPath = join(dir, 'out.sarif');
    run(['--eksctl', `${C}/cluster.yaml`, '-f', manifest, '--output-file', `sarif=${sarifPath}`]);
    const sarif = JSON.parse(readFileSync(sarifPath, 'utf8'));
    const uri = sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri as string;
    expect(uri).toBe(`file://${manifest}`);
  });
});
