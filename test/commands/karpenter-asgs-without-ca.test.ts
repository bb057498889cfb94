// ASGs beside Karpenter and no Cluster Autoscaler (examples/karpenter less its CA Deployment, pods and status
// ConfigMap): the ASGs are no CA node groups, so no CA check runs as if CA were there — no "install CA", no
// "add --nodes", no CA cooldown — and each report says what the cluster is. A trace of CA running elsewhere (a fresh
// status ConfigMap, --ca-args) keeps CA in the picture.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { buildOverview, renderOverview } from '../../src/commands/overview.js';
import { type AsgAuditOptions } from '../../src/commands/asg-audit.js';
import { runAsgAudit } from '../../src/commands/audit.js';
import { scaleDownRound, type ScaleDownBlockersOptions } from '../../src/commands/scale-down-blockers.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { ROOT } from './run.js';

type Json = any;
const NOW = '2026-11-24T14:00:00Z';
const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-asgs-no-ca-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function edit(dir: string, file: string, keep: (o: Json) => boolean): void {
  const path = join(dir, file);
  const list = JSON.parse(readFileSync(path, 'utf8'));
  list.items = list.items.filter(keep);
  writeFileSync(path, JSON.stringify(list));
}

/** examples/karpenter without CA's Deployment, ReplicaSet and pod; without its status ConfigMap unless `keepStatus`. */
function withoutCa(name: string, keepStatus: boolean): string {
  const dir = join(tmp, name);
  cpSync(join(ROOT, 'examples', 'karpenter'), dir, { recursive: true });
  const notCa = (o: Json) => !String(o.metadata.name).startsWith('cluster-autoscaler');
  edit(dir, 'deployments.json', notCa);
  edit(dir, 'replicasets.json', notCa);
  edit(dir, 'pods.json', notCa);
  if (!keepStatus) edit(dir, 'configmaps-kube-system.json', (o) => o.metadata.name !== 'cluster-autoscaler-status');
  return dir;
}

async function whyPending(dir: string, extra: Partial<WhyPendingOptions> = {}) {
  const c = capturingDeps({ realNow: () => new Date(NOW) });
  const base = { ...PIPED_JSON, now: NOW, from: [dir], all: true, allNamespaces: true, failOn: 'error' };
  await runWhyPending({ ...base, output: 'table', ...extra } as WhyPendingOptions, c.deps);
  const j = capturingDeps({ realNow: () => new Date(NOW) });
  await runWhyPending({ ...base, output: 'json', ...extra } as WhyPendingOptions, j.deps);
  return { text: c.stdout(), json: JSON.parse(j.stdout()) as Json };
}

describe('ASGs beside Karpenter, and no Cluster Autoscaler', () => {
  let dir: string;
  beforeAll(() => {
    dir = withoutCa('no-ca', false);
  });

  it('why-pending: Karpenter decides, the header names the ASGs nothing resizes, and no CA check runs', async () => {
    const { text, json } = await whyPending(dir);
    expect(text.split('\n')[0]).toBe(
      `casdoctor why-pending · Karpenter 1.6.2 · no Cluster Autoscaler in the input (no CA Deployment; 2 Auto Scaling group(s) that no autoscaler resizes) · now 2026-11-24T14:00:00.000Z · from ${dir}`,
    );
    expect(text).not.toMatch(/no CA found|Install CA|ca-deployment-not-found|CA said/);
    expect(json.findings.map((f: Json) => f.checkId).filter((id: string) => !id.startsWith('karpenter-'))).toEqual([]);
    for (const p of json.pods) expect(Object.keys(p.autoscalers ?? {})).not.toContain('ca');
  });

  it('asg-audit says no CA resizes these ASGs, instead of telling CA to discover them', async () => {
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    await expect(runAsgAudit({ ...PIPED_JSON, now: NOW, from: [dir], output: 'table' } as AsgAuditOptions, c.deps)).rejects.toThrow(
      /runs Karpenter and no Cluster Autoscaler .*: its 2 Auto Scaling group\(s\) \(shop-prod-legacy, shop-prod-system\) are resized by no autoscaler, and asg-audit audits CA's groups\. If CA runs outside the cluster, pass its flags with --ca-args/,
    );
    expect(c.stdout()).not.toContain('asg-not-discovered');
  });

  it('scale-down-blockers and the overview describe Karpenter, with no CA cooldown and no CA section', async () => {
    const s = capturingDeps({ realNow: () => new Date(NOW) });
    const round = await scaleDownRound({ ...PIPED_JSON, now: NOW, from: [dir], output: 'table' } as ScaleDownBlockersOptions, s.deps);
    expect(round.text).toContain('no Cluster Autoscaler in the input (no CA Deployment; 2 Auto Scaling group(s) that no autoscaler resizes)');
    expect(round.text).not.toMatch(/cooldown:|scale-down-delay-after-add|NotAutoscaled|CA REASON/);
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    const { data } = await buildOverview({ ...PIPED_JSON, now: NOW, from: [dir], output: 'table' }, c.deps);
    const overview = renderOverview(data);
    expect(overview.split('\n')[0]).toBe('casdoctor · Karpenter overview');
    expect(overview).toContain(
      '  none in the input (no CA Deployment; 2 Auto Scaling group(s) that no autoscaler resizes: shop-prod-legacy, shop-prod-system): Karpenter alone adds nodes\n',
    );
    expect(overview).not.toMatch(/CA 1\.37 defaults|CA health|asg-not-discovered/);
  });

  it('a fresh status ConfigMap or --ca-args says CA runs elsewhere: CA stays in the picture', async () => {
    const fresh = await whyPending(withoutCa('status-kept', true));
    expect(fresh.text.split('\n')[0]).toContain('no CA found');
    expect(fresh.json.findings.map((f: Json) => f.checkId)).toContain('ca-deployment-not-found');
    const args = await whyPending(dir, { caArgs: '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled' } as Partial<WhyPendingOptions>);
    expect(args.text.split('\n')[0]).not.toContain('no Cluster Autoscaler in the input');
  });
});
