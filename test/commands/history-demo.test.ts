// The bundled history example (examples/history, written by scripts/gen-history-demo.mjs): reproduced byte for byte by
// its generator, and told by `casdoctor history` as its README says — who removed each node and why, and the pod's wait.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHistory } from '../../src/commands/history.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { cli, ROOT } from './run.js';

const EXAMPLE = join(ROOT, 'examples', 'history');
const NOW = '2026-11-20T18:00:00Z';
const dns = (ip: string) => `ip-${ip.replaceAll('.', '-')}.eu-west-1.compute.internal`;

async function history(extra: Record<string, unknown> = {}, output = 'json'): Promise<{ code: number; out: string; err: string }> {
  const c = capturingDeps({ realNow: () => new Date(NOW) });
  const r = await runHistory({ ...PIPED_JSON, output: output as never, from: [EXAMPLE], now: NOW, ...extra }, c.deps);
  return { code: r.exitCode, out: c.stdout(), err: c.stderr() };
}
const json = async (extra: Record<string, unknown> = {}) => JSON.parse((await history(extra)).out);

describe('examples/history', () => {
  it('is reproduced byte for byte by scripts/gen-history-demo.mjs', () => {
    const out = mkdtempSync(join(tmpdir(), 'casdoctor-history-demo-'));
    try {
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'gen-history-demo.mjs'), out], { stdio: 'pipe' });
      const committed = readdirSync(EXAMPLE).filter((f) => f !== 'README.md').sort();
      expect(committed).toEqual(expect.arrayContaining(['cloudtrail-lookup-events.json', 'karpenter.log', 'cluster-autoscaler.log', 'scaling-activities.json']));
      expect(readdirSync(out).sort()).toEqual(committed);
      for (const f of committed) expect(readFileSync(join(out, f), 'utf8') === readFileSync(join(EXAMPLE, f), 'utf8'), f).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("without --now the window ends at the dump's own time (its newest line or event), said in the header, not at the wall clock", async () => {
    const c = capturingDeps({ realNow: () => new Date('2026-11-28T17:00:00Z') });
    const r = await runHistory({ ...PIPED_JSON, now: undefined, output: 'table', from: [EXAMPLE] }, c.deps);
    expect(r.exitCode).toBe(0);
    const header = c.stdout().split('\n')[0];
    expect(header).toMatch(/^casdoctor history · every group · 2026-11-20T\d\d:\d\d:\d\d\.\d{3}Z → 2026-11-20T\d\d:\d\d:\d\d\.\d{3}Z \(the dump's time, from .+; --now overrides\)/);
    expect(c.stdout()).toContain('nodes removed in the window:\n  2026-11-20T');
    // --now still overrides
    const o = capturingDeps({ realNow: () => new Date('2026-11-28T17:00:00Z') });
    await runHistory({ ...PIPED_JSON, output: 'table', from: [EXAMPLE], now: NOW }, o.deps);
    expect(o.stdout().split('\n')[0]).toContain('→ 2026-11-20T18:00:00Z · from');
  });

  it('reads every file of the bundle, the two logs and CloudTrail included, with no warning', async () => {
    const r = await history();
    expect(r.err).toBe('');
    const report = JSON.parse(r.out);
    expect(report.sources.map((s: any) => [s.kind, s.state])).toEqual([
      ['event', 'read'],
      ['object', 'read'],
      ['ca-log', 'read'],
      ['karpenter-log', 'read'],
      ['asg-activity', 'read'],
      ['cloudtrail', 'read'],
    ]);
  });

  it('names who removed each node of the afternoon, and why', async () => {
    const report = await json();
    const removals = Object.fromEntries(report.removals.map((r: any) => [r.node, [r.group, r.verdict.actor, r.verdict.reason]]));
    expect(removals).toEqual({
      [dns('10.0.13.77')]: ['eks-general-a', 'person', 'api-call'],
      [dns('10.0.22.48')]: ['eks-spot-a', 'ec2', 'spot_interrupted'],
      [dns('10.0.40.11')]: ['default', 'karpenter', 'underutilized'],
      [dns('10.0.12.201')]: ['eks-general-a', 'cluster-autoscaler', 'underutilized'],
    });
    const person = report.removals.find((r: any) => r.verdict.actor === 'person');
    expect(person.verdict.by).toBe('AWSReservedSSO_AdministratorAccess_5f2c1e0a9b8d7c6e/jane.doe@example.com (console)');
    expect(report.findings.map((f: any) => [f.checkId, f.severity, f.subject.name])).toEqual([['history-removed-by-other', 'info', dns('10.0.13.77')]]);
  });

  it("tells a CA scale-down by its utilization and threshold, joined to its instance by the one termination after it", async () => {
    const { node } = await json({ node: 'i-0c1d2e3f4a5b60718' });
    expect(node.node).toBe(dns('10.0.12.201'));
    expect(node.servedBy).toBe('cluster-autoscaler');
    expect(node.removed.text).toMatch(/^Cluster Autoscaler scale-down: underutilized \(memory utilization 0\.34 < threshold 0\.5\), unneeded since 2026-11-20T16:02:13/);
    expect(node.removed.text).toContain('role shop-prod-cluster-autoscaler');
    expect(node.evicted).toEqual(['shop/cart-5b8d6c7f9-qx2lp', 'shop/search-7f6d5c4b3-z8wkn']);
  });

  it('tells a Karpenter consolidation and its replacement from both ends', async () => {
    const old = (await json({ node: dns('10.0.40.11') })).node;
    expect(old.removed.text).toMatch(/^Karpenter disruption: underutilized, with 1 replacement\. TerminateInstance call by role KarpenterController-shop-prod/);
    const fresh = (await json({ node: dns('10.0.40.87') })).node;
    expect(fresh.created.text).toBe(`Karpenter replacement NodeClaim default-p9w4n for the underutilized disruption of ${dns('10.0.40.11')} (NodePool default)`);
    expect(fresh.removed).toBeUndefined();
  });

  it("tells an ASG's replacement by the instance it replaced, and an older creation as not evaluated", async () => {
    const repl = (await json({ node: dns('10.0.13.150') })).node;
    expect(repl.created).toMatchObject({ state: 'known', actor: 'asg', reason: 'replacement' });
    expect(repl.created.text).toContain('replaced i-0a9b8c7d6e5f40312');
    const spot = (await json({ node: dns('10.0.22.48') })).node;
    expect(spot.created.state).toBe('not-evaluated');
    expect(spot.gaps.join('\n')).toContain('events reach back only to 2026-11-20T17:10:01Z');
  });

  it("splits the GPU pod's seven-minute wait into phases, with the failed attempt on eks-gpu-a inside the launch", async () => {
    const { pod } = await json({ pod: 'ml/trainer-0' });
    expect(pod.totalMs).toBe(424_000);
    expect(pod.node).toBe(dns('10.0.52.14'));
    expect(pod.dominant.name).toBe('instance launched → node registered');
    const launch = pod.phases.find((p: any) => p.name === 'autoscaler decided → instance launched');
    expect(launch.what).toContain('failed attempt');
    expect(launch.what).toContain('eks-gpu-a');
    expect(new Set(pod.attempts.map((a: any) => a.kind))).toEqual(new Set(['launch-failed', 'backoff', 'scale-up-failed']));
  });

  it('gives the CA scale-up of eks-gpu-b for the pod as the GPU node\'s creation', async () => {
    const { node } = await json({ node: dns('10.0.52.14') });
    // the time is CA's log line's, to the millisecond
    expect(node.created.text).toMatch(/^Cluster Autoscaler scale-up of eks-gpu-b at 2026-11-20T17:11:51\.\d{3}Z for pod\(s\) ml\/trainer-0$/);
  });

  it('is an input error naming the node when no source names it', async () => {
    await expect(history({ node: 'ip-10-9-9-9.eu-west-1.compute.internal' })).rejects.toThrow(/no source names node ip-10-9-9-9/);
  });

  it("prints the README's outputs: the real CLI (exit 0 with one info finding), then the node and the pod in process", async () => {
    const readme = readFileSync(join(EXAMPLE, 'README.md'), 'utf8');
    const r = cli(['history', '--from', 'examples/history', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(readme).toContain(r.stdout.trimEnd());
    for (const extra of [{ node: 'ip-10-0-12-201.eu-west-1.compute.internal' }, { pod: 'ml/trainer-0' }]) {
      const c = capturingDeps({ realNow: () => new Date(NOW) });
      const code = await runHistory({ ...PIPED_JSON, output: 'table', failOn: 'error', from: ['examples/history'], now: NOW, ...extra }, c.deps);
      expect(code.exitCode).toBe(0);
      expect(readme, JSON.stringify(extra)).toContain(c.stdout().trimEnd());
    }
  });
});
