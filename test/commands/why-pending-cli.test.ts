import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW } from './run.js';

const demo = ['--from', DEMO, '--now', DEMO_NOW];

describe('casdoctor why-pending on the bundled demo (real process)', () => {
  it('gives each Pending pod of the demo its verdict, in stable JSON on stdout only', () => {
    const r = cli(['why-pending', '--all', ...demo, '-o', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report).slice(0, 6)).toEqual([
      'schemaVersion',
      'command',
      'now',
      'findings',
      'skipped',
      'pods',
    ]);
    expect(report).toMatchObject({
      schemaVersion: 3,
      command: 'why-pending',
      now: '2026-11-21T10:00:00.000Z',
    });
    const verdicts = Object.fromEntries(
      report.pods.map((p: { namespace: string; name: string; verdict: string }) => [
        `${p.namespace}/${p.name.replace(/-[a-z0-9]{8,10}-[a-z0-9]{5}$/, '')}`,
        p.verdict,
      ]),
    );
    expect(verdicts).toEqual({
      'analytics/spark-driver': 'no-scale-up',
      'batch/report-builder': 'no-scale-up',
      'databases/orders-pg-0': 'no-scale-up',
      'ml/inference': 'no-scale-up',
      'overprovisioning/pause': 'ignored',
      'payments/ledger-db-0': 'no-scale-up',
      'web/api': 'scale-up',
      'web/frontend': 'no-scale-up',
    });
    const ids = new Set(report.findings.map((f: { checkId: string }) => f.checkId));
    for (const id of [
      'pod-untolerated-taint',
      'pod-node-selector-mismatch',
      'pod-insufficient-resources',
      'pod-volume-zone-conflict',
      'node-group-max-size-reached',
      'pod-ignored-by-ca',
    ]) {
      expect(ids, id).toContain(id);
    }
  });

  it('shows every node group with its template source, sizes and first failing reason for one pod', () => {
    const r = cli(['why-pending', '-n', 'payments', 'ledger-db-0', ...demo, '-o', 'json']);
    const [pod] = JSON.parse(r.stdout).pods;
    const stateful = pod.nodeGroups.find((g: { name: string }) => g.name === 'demo-stateful');
    expect(stateful).toMatchObject({
      fits: false,
      reasons: ['node(s) had volume node affinity conflict'],
      template: { source: 'node', instanceType: 'm5.large' },
      minSize: 1,
      maxSize: 6,
      values: 'volume needs us-east-1c, template in us-east-1a',
    });
    expect(pod.caEvent.reason).toBe('NotTriggerScaleUp');
    expect(pod.scheduler.message).toMatch(/^0\/11 nodes are available: /);
  });

  it('exits 0 with --fail-on never, the way the demo script runs it, and prints a readable report', () => {
    const r = cli(['why-pending', '--all', ...demo, '--fail-on', 'never']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('NODE GROUP');
    expect(r.stdout).toMatch(/8 pod\(s\): 1 CA scales up, 6 no scale-up, 1 ignored by CA/);
    expect(r.stdout.includes('\u001b[')).toBe(false); // no colors in a pipe
  });

  it('exits 0 when the examined pod gets a node', () => {
    const r = cli(['why-pending', ...demo, 'web/api-5jnmtxgjl-prp7m']);
    expect(r.stdout).toContain('CA scales up');
    expect(r.code).toBe(0);
  });

  it('names an unknown pod and lists the Pending ones, exit 2', () => {
    const r = cli(['why-pending', ...demo, '-n', 'web', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pod web\/nope not found .*; Pending pods: analytics\/spark-driver/);
    expect(r.stdout).toBe('');
  });

  it('rejects usage errors with exit 2 and no stack trace', () => {
    for (const args of [
      ['why-pending', ...demo],
      ['why-pending', '--all', 'x', ...demo],
      ['why-pending', '--all', '--from', DEMO, '--now', 'yesterday'],
      ['why-pending', '--all', ...demo, '-o', 'xml'],
      ['why-pending', '--all', ...demo, '-l', 'a in (b'],
    ]) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });

  it('stops on a malformed dump with the file and position, exit 2', () => {
    const d = mkdtempSync(join(tmpdir(), 'casdoctor-bad-'));
    writeFileSync(join(d, 'pods.json'), '{"items": [ {"kind": "Pod" ');
    const r = cli(['why-pending', '--all', '--from', d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pods\.json:1:\d+: malformed JSON/);
  });

  it('warns about unrecognised files on stderr and still reports', () => {
    const d = mkdtempSync(join(tmpdir(), 'casdoctor-extra-'));
    writeFileSync(join(d, 'notes.json'), '{"hello": "world"}');
    const r = cli(['why-pending', '--all', ...demo, '--from', d, '-o', 'json', '--fail-on', 'never']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('notes.json: no Kubernetes object or AWS output casdoctor recognises');
    expect(JSON.parse(r.stdout).pods).toHaveLength(8);
  });

  it('applies --ca-args over the Deployment flags (a lower cutoff makes CA consider the placeholder pod)', () => {
    const r = cli([
      'why-pending',
      ...demo,
      '-n',
      'overprovisioning',
      '--all',
      '-o',
      'json',
      '--ca-args',
      '--expendable-pods-priority-cutoff=-100',
    ]);
    const [pod] = JSON.parse(r.stdout).pods;
    expect(pod.verdict).not.toBe('ignored');
  });
});

describe('casdoctor checks and explain', () => {
  it("lists every check and prints one check's documentation", () => {
    const list = cli(['checks']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^pod-untolerated-taint\s+error\s+why-pending/m);
    const doc = cli(['explain', 'pod-untolerated-taint']);
    expect(doc.code).toBe(0);
    expect(doc.stdout).toMatch(/^# pod-untolerated-taint\n/);
    expect(cli(['explain', 'no-such-check']).code).toBe(2);
  });
});
