// CA health comes first, through the real CLI: a crash-looping CA makes every "CA scales up" say CA is not running.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW } from './run.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-ca-health-'));
  cpSync(DEMO, dir, { recursive: true });
  const file = join(dir, 'pods.json');
  const pods = JSON.parse(readFileSync(file, 'utf8'));
  const ca = pods.items.find((p: { metadata: { name: string } }) => p.metadata.name.startsWith('cluster-autoscaler-'));
  // as kubectl prints a CA that is OOM-killed at start-up, then backs off
  ca.status.conditions = ca.status.conditions.map((c: { type: string }) =>
    c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False', reason: 'ContainersNotReady' } : c,
  );
  ca.status.containerStatuses[0] = {
    ...ca.status.containerStatuses[0],
    ready: false,
    started: false,
    restartCount: 17,
    state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container=cluster-autoscaler pod=' + ca.metadata.name } },
    lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: '2026-11-21T09:57:40Z', finishedAt: '2026-11-21T09:57:58Z', containerID: ca.status.containerStatuses[0].containerID } },
  };
  writeFileSync(file, `${JSON.stringify(pods, null, 4)}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CA health first (real process)', () => {
  it('why-pending opens with CA health and no longer promises a scale-up', () => {
    const r = cli(['why-pending', '--all', '--from', dir, '--now', DEMO_NOW]);
    expect(r.stdout.indexOf('CA health: CA is not scaling now')).toBeGreaterThan(0);
    expect(r.stdout.indexOf('CA health')).toBeLessThan(r.stdout.indexOf('web/api-'));
    expect(r.stdout).toContain('ca-pod-unhealthy');
    expect(r.stdout).toMatch(/CrashLoopBackOff, 17 restarts, last terminated: OOMKilled, exit code 137/);
    // the crash-looping pod decides every verdict (src/simulate/ca-running.ts): the headline says so, then what CA would do
    expect(r.stdout).toMatch(/ {2}CA is not running: nothing is scaled up or down \(CA's pod kube-system\/cluster-autoscaler-\S+ is crash-looping \(CrashLoopBackOff, 17 restarts/);
    expect(r.stdout).toMatch(/; once it runs: (CA can scale up|fits a node)/);
    expect(r.stdout).not.toContain('↑ ');
  });
  it('says so in JSON too', () => {
    const r = cli(['why-pending', '--all', '--from', dir, '--now', DEMO_NOW, '-o', 'json']);
    const report = JSON.parse(r.stdout);
    expect(report.caHealth.running).toBe(false);
    expect(report.caHealth.findings).toContain('ca-pod-unhealthy');
    expect(report.pods.filter((p: { verdict: string }) => p.verdict === 'scale-up')).toEqual([]);
    const waiting = report.pods.filter((p: { verdict: string }) => p.verdict === 'ca-not-running');
    expect(waiting.length).toBeGreaterThan(0);
    for (const p of waiting.filter((x: { sameAs?: string }) => !x.sameAs)) expect(p.summary).toMatch(/^nothing is scaled up or down \(CA's pod .*; once it runs: /);
  });
  it('scale-down-blockers and asg-audit open with it as well', () => {
    for (const cmd of ['scale-down-blockers', 'asg-audit']) {
      const r = cli([cmd, '--from', dir, '--now', DEMO_NOW]);
      const at = r.stdout.indexOf('CA health');
      expect(at, cmd).toBeGreaterThan(0);
      expect(r.stdout.indexOf('ca-pod-unhealthy'), cmd).toBeGreaterThan(at);
    }
  });
  it('the healthy demo has no CA-health error', () => {
    const r = cli(['why-pending', '--all', '--from', DEMO, '--now', DEMO_NOW, '-o', 'json']);
    expect(JSON.parse(r.stdout).caHealth.running).toBe(null);
  });
});
