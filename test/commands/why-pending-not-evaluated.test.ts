// Three outcomes, never two: with no node group readable, a Pending pod's scale-up is "not evaluated", not "no".
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW } from './run.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-no-asgs-'));
  cpSync(DEMO, dir, { recursive: true });
  rmSync(join(dir, 'asgs.json'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('why-pending without Auto Scaling groups (real process)', () => {
  it('calls the scale-up not evaluated, says what to add once, and fails no gate for it', () => {
    const r = cli(['why-pending', '--all', '--from', dir, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
    const report = JSON.parse(r.stdout);
    const verdicts = new Set(report.pods.map((p: { verdict: string }) => p.verdict));
    expect(verdicts).toEqual(new Set(['not-evaluated', 'ignored']));
    const spark = report.pods.find((p: { name: string }) => p.name.startsWith('spark-driver-'));
    expect(spark.summary).toBe(
      'whether CA scales up is not known: no Auto Scaling groups in the input (add `aws autoscaling describe-auto-scaling-groups --output json`)',
    );
    // the scheduler's half still stands
    expect(spark.scheduler.message).toMatch(/^0\/11 nodes are available: /);
  });
  it('exits 0 when only the unknown is left, and 3 under --strict', () => {
    const web = ['why-pending', 'web/frontend-ndxrt2l4f-w4dtv', '--from', dir, '--now', DEMO_NOW];
    expect(cli(web).code).toBe(0);
    expect(cli([...web, '--strict']).code).toBe(3);
  });
  it('names the checks skipped for the same reason once, with the reason once', () => {
    const r = cli(['why-pending', '--all', '--from', dir, '--now', DEMO_NOW]);
    const line = r.stdout.split('\n').find((l) => l.startsWith('skipped checks'))!;
    expect(line.split('no autoscaling:DescribeAutoScalingGroups in the input').length - 1).toBe(1);
    expect(line).toContain('node-group-max-size-reached, node-group-no-template');
  });
});

describe('why-pending when a group cannot be built for lack of data (real process)', () => {
  let noLt: string;
  beforeAll(() => {
    noLt = mkdtempSync(join(tmpdir(), 'casdoctor-no-lt-'));
    cpSync(DEMO, noLt, { recursive: true });
    rmSync(join(noLt, 'launch-template-versions.json'));
  });
  afterAll(() => rmSync(noLt, { recursive: true, force: true }));

  it("says not evaluated, with the data to add, instead of CA's \"not ready for scale-up\"", () => {
    const r = cli(['why-pending', 'batch/report-builder-rcn64q4v2c-rgnzf', '--from', noLt, '--now', DEMO_NOW, '-o', 'json']);
    expect(r.code).toBe(0);
    const [p] = JSON.parse(r.stdout).pods;
    expect(p.verdict).toBe('not-evaluated');
    expect(p.summary).toContain('demo-batch, demo-gpu could not be evaluated (launch template lt-0a1b2c3d4e5f60003 version 3 not in the snapshot');
    const batch = p.nodeGroups.find((g: { name: string }) => g.name === 'demo-batch');
    expect(batch.reasons).toEqual(['not evaluated: data missing']);
  });
  it('keeps the verdict of a pod an evaluated group fits', () => {
    const r = cli(['why-pending', 'web/api-5jnmtxgjl-prp7m', '--from', noLt, '--now', DEMO_NOW, '-o', 'json']);
    expect(JSON.parse(r.stdout).pods[0].verdict).toBe('scale-up');
  });
});
