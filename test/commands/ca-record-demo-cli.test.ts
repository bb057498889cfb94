// The demo's CA log read through the real CLI: CA's words beside casdoctor's, and where they differ.
import { describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW } from './run.js';

const demo = ['--from', DEMO, '--now', DEMO_NOW];

describe("CA's own record in the demo (real process)", () => {
  it('why-pending shows what CA logged per group, and that it agrees on every Pending pod', () => {
    const r = cli(['why-pending', '--all', ...demo, '-o', 'json']);
    const report = JSON.parse(r.stdout);
    const spark = report.pods.find((p: { name: string }) => p.name.startsWith('spark-driver-'));
    const logged = Object.fromEntries(
      spark.nodeGroups.filter((g: { caLogged?: unknown }) => g.caLogged).map((g: { name: string; caLogged: { text: string } }) => [g.name, g.caLogged.text]),
    );
    expect(logged).toEqual({
      'demo-batch': 'NodeResourcesFit: Insufficient cpu, Insufficient memory',
      'demo-databases': 'TaintToleration: node(s) had untolerated taint {dedicated: databases}',
      'demo-general': 'NodeResourcesFit: Insufficient cpu, Insufficient memory',
      'demo-gpu': 'TaintToleration: node(s) had untolerated taint {nvidia.com/gpu: true}',
      'demo-stateful': 'NodeResourcesFit: Insufficient cpu, Insufficient memory',
    });
    // CA's log agrees with every per-group verdict of the demo: no disagreement about a Pending pod
    expect(report.findings.filter((f: { checkId: string }) => f.checkId === 'ca-log-disagrees')).toEqual([]);
    expect(report.caHealth).toEqual({ running: null, findings: ['ca-loop-failing'] });
    const text = cli(['why-pending', '--all', ...demo]).stdout;
    expect(text).toContain('  CA logged  the same first failing reason for demo-batch, demo-databases, demo-general, demo-gpu, demo-stateful');
  });

  it("scale-down-blockers shows CA's word per node and the one node where CA names another blocking pod", () => {
    const r = cli(['scale-down-blockers', ...demo, '-o', 'json']);
    const report = JSON.parse(r.stdout);
    const node = report.nodes.find((n: { name: string }) => n.name === 'ip-10-0-22-96.ec2.internal');
    expect(node.caLogged).toMatchObject({ status: 'unremovable', reason: 'BlockedByPod' });
    expect(node.caLogged.message).toContain('not enough pod disruption budget to move payments/payments-api-');
    const [f] = report.findings.filter((x: { checkId: string }) => x.checkId === 'ca-log-disagrees');
    expect(f.severity).toBe('info');
    expect(f.message).toMatch(
      /^Node ip-10-0-22-96\.ec2\.internal: CA named payments\/payments-api-\S+ as the pod that blocks it at \S+, casdoctor names analytics\/backfill-2026-11-20-8wcwc \(ControllerNotFound\) first; both block the node and CA may decide either/,
    );
  });

  it("the CA-health finding of the demo: CA's ClusterRole cannot list VolumeAttachments", () => {
    const report = JSON.parse(cli(['asg-audit', ...demo, '-o', 'json']).stdout);
    const [f] = report.findings.filter((x: { checkId: string }) => x.checkId === 'ca-loop-failing');
    expect(f.severity).toBe('warning');
    expect(f.message).toMatch(/^CA cannot list volumeattachments \(3 time\(s\), last at /);
    expect(f.remediation).toContain('kubectl auth can-i list volumeattachments.storage.k8s.io --as=system:serviceaccount:kube-system:cluster-autoscaler');
  });
});
