import { describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW } from './run.js';

const demo = ['--from', DEMO, '--now', DEMO_NOW];
const short = (name: string) => name.replace(/\.ec2\.internal$/, '');

describe('casdoctor scale-down-blockers on the bundled demo (real process)', () => {
  it("gives every node CA's verdict and reason, in stable JSON on stdout only, exit 0", () => {
    const r = cli(['scale-down-blockers', ...demo, '-o', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual([
      'schemaVersion',
      'command',
      'now',
      'findings',
      'skipped',
      'summary',
      'notes',
      'nodes',
      'cooldowns',
      'caHealth',
    ]);
    expect(report.summary).toBe(
      '0 of 11 nodes could be removed now; 1 not autoscaled; 1 at min size; 1 scale-down disabled by annotation; 1 not underutilized; 4 blocked by pods: 2 UnmovableKubeSystemPod, 1 ControllerNotFound, 1 LocalStorageRequested; 3 no place to move pods',
    );
    const byNode = Object.fromEntries(
      report.nodes.map((n: { name: string; caReason: string; blockingPods: Array<{ caReason: string }> }) => [
        short(n.name),
        [n.caReason, n.blockingPods.map((b) => b.caReason).join(',')],
      ]),
    );
    expect(byNode).toEqual({
      'ip-10-0-11-142': ['BlockedByPod', 'UnmovableKubeSystemPod,LocalStorageRequested,NotEnoughPdb'],
      'ip-10-0-14-37': ['BlockedByPod', 'LocalStorageRequested,UnmovableKubeSystemPod,NotEnoughPdb'],
      'ip-10-0-18-203': ['NotUnderutilized', ''],
      'ip-10-0-22-96': ['BlockedByPod', 'ControllerNotFound,NotEnoughPdb'],
      'ip-10-0-27-211': ['BlockedByPod', 'UnmovableKubeSystemPod,NotSafeToEvictAnnotation,NotReplicated'],
      'ip-10-0-29-12': ['NoPlaceToMovePods', ''],
      'ip-10-0-3-245': ['NotAutoscaled', ''],
      'ip-10-0-41-17': ['NodeGroupMinSizeReached', ''],
      'ip-10-0-45-120': ['NoPlaceToMovePods', ''],
      'ip-10-0-6-88': ['NoPlaceToMovePods', ''],
      'ip-10-0-9-58': ['ScaleDownDisabledAnnotation', ''],
    });
    const general = report.nodes.find((n: { name: string }) => n.name.startsWith('ip-10-0-22-96'));
    expect(general).toMatchObject({
      nodeGroup: 'demo-general',
      removable: false,
      utilization: { cpu: 0.8431, resource: 'cpu', threshold: 0.85, thresholdSource: 'asg-tag' },
    });
    const spot = report.nodes.find((n: { name: string }) => n.name.startsWith('ip-10-0-6-88'));
    expect(spot.utilization).toMatchObject({ threshold: 0.7, ignoredDaemonSets: true });
    const pdbFinding = report.findings.find((f: { checkId: string }) => f.checkId === 'pdb-blocks-scale-down');
    expect(pdbFinding.message).toBe(
      'PodDisruptionBudget payments/payments-api (maxUnavailable: 0) allows 0 disruption(s): it keeps 3 node(s): ip-10-0-11-142.ec2.internal, ip-10-0-14-37.ec2.internal, ip-10-0-22-96.ec2.internal (NotEnoughPdb).',
    );
    expect(r.stderr).toBe('');
  });

  it('prints the summary first, the table, what does not block and what to change; no colors in a pipe', () => {
    const r = cli(['scale-down-blockers', ...demo]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    // CA's own health comes first (the demo's CA cannot list VolumeAttachments), then the summary
    expect(lines[2]).toBe('CA health');
    const summary = lines.findIndex((l) => /^0 of 11 nodes could be removed now; /.test(l));
    expect(summary).toBeGreaterThan(2);
    expect(lines.slice(3, summary).join('\n')).toContain('ca-loop-failing');
    expect(r.stdout).toMatch(/NODE\s+GROUP\s+UTILIZATION\s+VERDICT\s+CA REASON\s+BLOCKING PODS/);
    expect(r.stdout).toMatch(/ip-10-0-22-96\s+demo-general\s+cpu 84\.3% <= 85%\*\s+kept\s+BlockedByPod/);
    expect(r.stdout).toContain('mirror (static) pods: kube-system/pg-backup-agent-ip-10-0-41-17.ec2.internal');
    expect(r.stdout).toContain('emptyDir volumes in memory: ml/model-registry-');
    expect(r.stdout).toContain('cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: "socket-dir"');
    expect(r.stdout).toContain('CA 1.33+ would still block on it until 2026-11-21T10:35:20.000Z');
    expect(r.stdout).toContain('CA 1.33+ would not block on it: it is');
    expect(r.stdout.includes('\u001b[')).toBe(false);
  });

  it('exits 1 only when --fail-on asks for it', () => {
    expect(cli(['scale-down-blockers', ...demo, '--fail-on', 'warning']).code).toBe(1);
    expect(cli(['scale-down-blockers', ...demo, '--fail-on', 'error']).code).toBe(0);
    expect(cli(['scale-down-blockers', ...demo, '--fail-on', 'never']).code).toBe(0);
  });

  it('narrows the report with --node, --nodegroup and -l, while simulating every node', () => {
    const one = JSON.parse(cli(['scale-down-blockers', ...demo, '-o', 'json', '--node', 'ip-10-0-27-211.ec2.internal']).stdout);
    expect(one.nodes.map((n: { name: string }) => n.name)).toEqual(['ip-10-0-27-211.ec2.internal']);
    expect(one.summary).toBe('0 of 1 node could be removed now; 1 blocked by pods: 1 UnmovableKubeSystemPod');
    expect(new Set(one.findings.map((f: { checkId: string }) => f.checkId))).toEqual(
      // CA's health is about CA, not a node: it stays in a narrowed report
      new Set(['ca-loop-failing', 'pod-unmovable-kube-system', 'pod-not-safe-to-evict', 'pod-not-replicated']),
    );
    const spot = JSON.parse(cli(['scale-down-blockers', ...demo, '-o', 'json', '--nodegroup', 'demo-spot']).stdout);
    expect(spot.nodes.map((n: { caReason: string }) => n.caReason)).toEqual([
      'NoPlaceToMovePods',
      'NoPlaceToMovePods',
      'NoPlaceToMovePods',
    ]);
    const stateful = JSON.parse(cli(['scale-down-blockers', ...demo, '-o', 'json', '-l', 'node-pool=stateful']).stdout);
    expect(stateful.nodes.map((n: { caReason: string }) => n.caReason)).toEqual([
      'NotUnderutilized',
      'ScaleDownDisabledAnnotation',
    ]);
  });

  it('applies --ca-args: --min-replica-count=2 turns single-replica pods into MinReplicasReached', () => {
    const r = cli(['scale-down-blockers', ...demo, '-o', 'json', '--ca-args', '--min-replica-count=2']);
    const g1 = JSON.parse(r.stdout).nodes.find((n: { name: string }) => n.name.startsWith('ip-10-0-11-142'));
    expect(g1.blockingPods[0]).toMatchObject({ caReason: 'MinReplicasReached', rule: 'ReplicaCount' });
  });

  it('rejects unknown nodes and groups and bad flags with exit 2 and no stack trace', () => {
    const node = cli(['scale-down-blockers', ...demo, '--node', 'ip-10-9-9-9']);
    expect(node.code).toBe(2);
    expect(node.stderr).toMatch(/node ip-10-9-9-9 not found; nodes: ip-10-0-11-142\.ec2\.internal/);
    const group = cli(['scale-down-blockers', ...demo, '--nodegroup', 'nope']);
    expect(group.code).toBe(2);
    expect(group.stderr).toMatch(/node group nope not found; Auto Scaling groups: demo-batch/);
    for (const args of [
      ['-o', 'xml'],
      ['-l', 'a in (b'],
    ]) {
      const r = cli(['scale-down-blockers', ...demo, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
