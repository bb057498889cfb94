import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const demo = ['--from', DEMO, '--now', DEMO_NOW];
const POLICY = join(ROOT, 'examples', 'iam', 'ca-policy.json');

interface Report {
  findings: Array<{ checkId: string; severity: string; nodeGroup?: string; message: string }>;
  skipped: Array<{ checkId: string; reason: string; detail: string }>;
  nodeGroups: Array<{
    name: string;
    discovered: boolean;
    template: { source: string; labels: Record<string, string>; capacity: Record<string, string> };
    scratchTemplate: { source: string; labels: Record<string, string>; allocatable: Record<string, string> };
  }>;
}

describe('casdoctor asg-audit on the bundled demo (real process)', () => {
  it('prints the node groups as CA sees them and the findings in stable JSON on stdout only', () => {
    const r = cli(['asg-audit', ...demo, '-o', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report & Record<string, unknown>;
    expect(Object.keys(report)).toEqual([
      'schemaVersion',
      'command',
      'now',
      'findings',
      'skipped',
      'nodeGroups',
    ]);
    expect(report).toMatchObject({ schemaVersion: 1, command: 'asg-audit', now: '2026-11-21T10:00:00.000Z' });
    const groups = Object.fromEntries(report.nodeGroups.map((g) => [g.name, g]));
    expect(groups['demo-monitoring'].discovered).toBe(false);
    expect(groups['demo-batch']).toMatchObject({ discovered: true, template: { source: 'asg' } });
    expect(groups['demo-batch'].scratchTemplate.labels['node-pool']).toBeUndefined();
    expect(groups['demo-general'].template.source).toBe('node');
    expect(groups['demo-general'].scratchTemplate.allocatable).toMatchObject({
      cpu: '4',
      memory: '16Gi',
      pods: '110',
    });
    const at = (id: string) => report.findings.filter((f) => f.checkId === id).map((f) => f.nodeGroup);
    expect(at('asg-not-discovered')).toContain('demo-monitoring');
    expect(at('template-label-missing')).toContain('demo-batch');
    expect(at('template-gpu-mismatch')).toContain('demo-gpu');
    expect(at('asg-multi-az-zonal-volumes')).toContain('demo-stateful');
    expect(at('asg-max-size-pending-pods')).toContain('demo-spot');
    expect(at('asg-scaling-activity-failed')).toContain('demo-stateful');
    expect(at('asg-process-suspended')).toEqual(['demo-stateful']);
    expect(at('mixed-instances-shape-differs')).toEqual(['demo-spot']);
    expect(at('launch-template-drift')).toEqual(['demo-general']);
    expect(report.skipped.find((s) => s.checkId === 'iam-permission-denied')?.detail).toContain(
      '--iam-policy',
    );
  });

  it('groups the readable report by ASG and evaluates an IAM policy given with --iam-policy', () => {
    const r = cli(['asg-audit', ...demo, '--iam-policy', POLICY, '--fail-on', 'never']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^casdoctor asg-audit · CA v1\.32\.1 \(kube-system\/cluster-autoscaler\)/);
    const monitoring = r.stdout.indexOf('\ndemo-monitoring  NOT managed by CA');
    expect(monitoring).toBeGreaterThan(0);
    expect(r.stdout.indexOf('asg-not-discovered', monitoring)).toBeGreaterThan(monitoring);
    expect(r.stdout).toContain('\nCluster-wide\n');
    expect(r.stdout).toContain(
      'iam-permission-denied  autoscaling:DescribeScalingActivities on "*" is implicitly denied for role demo-cluster-autoscaler',
    );
    // demo-gpu's k8s.io/cluster-autoscaler/demo=shared keeps it discovered but fails the policy's "owned" condition
    expect(r.stdout).toContain(
      'iam-permission-denied  autoscaling:SetDesiredCapacity on ASG demo-gpu is implicitly denied for role demo-cluster-autoscaler',
    );
    // the demo reads CA's log; only CA's own templates are missing, because the demo's CA serves no /snapshotz
    const skipped = r.stdout.split('\n').find((l) => l.startsWith('skipped checks'));
    expect(skipped).toBe(
      "skipped checks (1): template-differs-from-ca (CA runs without --debugging-snapshot-enabled=true, so it serves no /snapshotz (CA's own template per group); add the flag to compare templates)",
    );
  });

  it('audits only the ASGs named with --asg', () => {
    const r = cli(['asg-audit', ...demo, '--asg', 'demo-batch', '-o', 'json']);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.nodeGroups.map((g) => g.name)).toEqual(['demo-batch']);
    expect(new Set(report.findings.map((f) => f.nodeGroup).filter(Boolean))).toEqual(new Set(['demo-batch']));
  });

  it('exits 2 with a message for an unknown ASG, a missing policy file or an unsupported format', () => {
    const unknown = cli(['asg-audit', ...demo, '--asg', 'demo-nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'error: --asg demo-nope: no such Auto Scaling group; groups: demo-batch, demo-databases',
    );
    const noFile = cli(['asg-audit', ...demo, '--iam-policy', join(ROOT, 'examples', 'iam', 'nope.json')]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('nope.json: no such file');
    const sarif = cli(['asg-audit', ...demo, '-o', 'sarif']);
    expect(sarif.code).toBe(2);
    expect(sarif.stdout).toBe('');
  });

  it('exits 2 when the input has no Auto Scaling groups', () => {
    const r = cli(['asg-audit', '--from', join(DEMO, 'nodes.json'), '--now', DEMO_NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no Auto Scaling groups in');
  });
});
