// The bundled externalgrpc example (examples/externalgrpc, written by scripts/gen-externalgrpc-demo.mjs): reproduced
// byte for byte by its generator, consistent with itself, and told by the real CLI as its README says.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { cli, ROOT } from './run.js';

const EXAMPLE = join(ROOT, 'examples', 'externalgrpc');
const NOW = '2026-11-21T10:00:00Z';
const text = (f: string) => readFileSync(join(EXAMPLE, f), 'utf8');
const items = (f: string): any[] => JSON.parse(text(f)).items;
const status = () => parseYaml(items('configmaps-kube-system.json').find((c) => c.metadata.name === 'nodegroup-status').data.NodeGroupsConfig);

describe('examples/externalgrpc', () => {
  it('is reproduced byte for byte by scripts/gen-externalgrpc-demo.mjs', () => {
    const out = mkdtempSync(join(tmpdir(), 'casdoctor-externalgrpc-demo-'));
    try {
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'gen-externalgrpc-demo.mjs'), out], { stdio: 'pipe' });
      const committed = readdirSync(EXAMPLE).filter((f) => f !== 'README.md').sort();
      expect(committed).toContain('nodegroup-config.yaml');
      expect(readdirSync(out).sort()).toEqual(committed);
      for (const f of committed) expect(readFileSync(join(out, f), 'utf8') === text(f), f).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("maps every Running instance record of the provider to a Node with its providerID, and no other record to one", () => {
    const nodes = new Map(items('nodes.json').map((n) => [n.spec.providerID, n.metadata.name]));
    const records = status().nodeGroups.flatMap((g: any) => g.instances.map((i: any) => ({ ...i, group: g.id })));
    for (const r of records) {
      if (r.stage === 'Running') expect(nodes.get(r.providerID), r.id).toBe(r.name);
      else expect(nodes.has(r.providerID), r.id).toBe(false);
    }
    expect(records.filter((r: any) => r.stage === 'Running')).toHaveLength(nodes.size);
    // one VM stuck in Created (its join hook failed) and one create that failed before the cloud returned an id
    expect(records.filter((r: any) => r.stage !== 'Running').map((r: any) => [r.group, r.stage, r.status, r.providerID === ''])).toEqual([
      ['general', 'Created', 'Failed', false],
      ['general', 'Pending', 'Failed', true],
    ]);
  });

  it("counts in each group's targetSize every record not being deleted (RefreshTargetSize, node_group.go:734-749)", () => {
    for (const g of status().nodeGroups) {
      const counted = g.instances.filter((i: any) => !['PendingDeletion', 'Deleting', 'Deleted'].includes(i.stage)).length;
      expect(g.targetSize, g.id).toBe(counted);
    }
  });

  it('leaves reports/pdf-render without an existing node: 10.0.2.31 has fewer than 6 CPUs free yet is under 50% used', () => {
    const milli = (q: string) => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
    const on = items('pods.json').filter((p) => p.spec.nodeName === '10.0.2.31' && p.status.phase === 'Running');
    const used = on.reduce((s, p) => s + p.spec.containers.reduce((t: number, c: any) => t + milli(c.resources.requests?.cpu ?? '0'), 0), 0);
    const alloc = milli(items('nodes.json').find((n) => n.metadata.name === '10.0.2.31').status.allocatable.cpu);
    expect(alloc - used).toBeLessThan(6000);
    expect(used / alloc).toBeLessThan(0.5);
  });

  it('holds the start-up file the provider ignores while its ConfigMap exists, with credentials never printed', () => {
    const r = cli(['node-group-audit', '--from', EXAMPLE, '--now', NOW, '-o', 'json']);
    expect(r.stdout).not.toMatch(/AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE|Gu5t9xGARNpq86cd98joQYCN3EXAMPLE/);
    const ids = (JSON.parse(r.stdout).findings as any[]).map((f) => f.checkId);
    expect(ids).toEqual(expect.arrayContaining(['externalgrpc-config-file-ignored', 'externalgrpc-credentials-in-configmap']));
  });

  it('runs why-pending: four kinds of Pending, CA events that agree with casdoctor, and the provider findings', () => {
    const r = cli(['why-pending', '--all', '-A', '--from', EXAMPLE, '--now', NOW, '-o', 'json']);
    expect(r.stderr).not.toMatch(/unexpected failure/);
    const report = JSON.parse(r.stdout);
    const verdicts = Object.fromEntries(report.pods.map((p: any) => [`${p.namespace}/${p.name.replace(/-[a-z0-9]+-[a-z0-9]{5}$/, '')}`, p.verdict]));
    expect(verdicts).toEqual({
      'analytics/etl-worker': 'no-scale-up',
      'infra/log-shipper': 'no-scale-up',
      'ml/trainer-0': 'no-scale-up',
      // CA 1.28 reads the provision time as 0 from this provider: it deletes every new instance before it can join, so
      // a scale-up of general brings no node (src/providers/externalgrpc/records.ts)
      'reports/pdf-render': 'no-scale-up',
      'shop/checkout': 'no-scale-up',
    });
    const ids = (report.findings as any[]).map((f) => `${f.checkId} ${f.subject.kind}/${f.subject.name}`);
    expect(ids.filter((i) => i.startsWith('ca-event-disagrees') || i.startsWith('pod-fits-existing-node'))).toEqual([]);
    expect(ids).toEqual(
      expect.arrayContaining([
        'externalgrpc-instance-stuck Instance/824b8e8d',
        'externalgrpc-failed-create-hidden Instance/2a174cdb',
        'externalgrpc-proto-version-mismatch Deployment/cluster-autoscaler',
        'externalgrpc-template-resources-ignored NodeGroup/gpu',
        'externalgrpc-group-cannot-create-instances NodeGroup/default',
        'pod-node-selector-mismatch Pod/log-shipper-zhbfsp59nj-jfljk',
        'pod-insufficient-resources Pod/trainer-0',
      ]),
    );
    for (const f of report.findings) expect(JSON.stringify(f)).not.toMatch(/AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE|Gu5t9xGARNpq86cd98joQYCN3EXAMPLE/);
  });

  it('runs scale-down-blockers: both nodes of the default group, the control plane among them, are removable', () => {
    const r = cli(['scale-down-blockers', '--from', EXAMPLE, '--now', NOW, '-o', 'json']);
    const report = JSON.parse(r.stdout);
    const removable = (report.nodes as any[]).filter((n) => n.verdict === 'removable').map((n) => n.name);
    expect(removable).toEqual(['10.0.0.10', '10.0.2.31']);
    const ids = (report.findings as any[]).map((f) => `${f.checkId} ${f.subject.kind}/${f.subject.name}`);
    expect(ids).toEqual(
      expect.arrayContaining([
        'externalgrpc-default-group-holds-nodes Node/10.0.0.10',
        'externalgrpc-default-group-holds-nodes Node/10.0.2.31',
        // memory's file sets one option; the provider wrote 0 for the other three into its ConfigMap
        'externalgrpc-autoscaling-options-partial NodeGroup/memory',
      ]),
    );
  });

  it("shows in its README the pod verdicts why-pending prints today (node scripts/gen-externalgrpc-demo.mjs --readme refreshes them)", () => {
    const readme = text('README.md');
    const block = /### why-pending\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const headlines = (t: string) => t.split('\n').filter((l) => /^(✖|✔|↑|⧗|\?) /.test(l));
    const now = cli(['why-pending', '--all', '-A', '--from', EXAMPLE, '--now', NOW]).stdout;
    expect(headlines(block).length).toBe(5);
    expect(headlines(block)).toEqual(headlines(now));
  });
});
