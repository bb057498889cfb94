// Karpenter beside CA through the real CLI on examples/karpenter (built dist/; `npm run build --silent` first): each
// Pending pod's route and per-NodePool verdict in Karpenter's order and words, the nodes Karpenter keeps, the overview.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const EXAMPLE = join(ROOT, 'examples', 'karpenter');
const NOW = '2026-11-24T14:00:00Z';
const base = ['--from', EXAMPLE, '--now', NOW];

/** The lines of one pod's block in the text report (from its header to the next pod's). */
function podBlock(text: string, pod: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^[✖↑✔?] /.test(l) && l.includes(` ${pod}-`));
  expect(start, `no block for ${pod}`).toBeGreaterThanOrEqual(0);
  let end = lines.findIndex((l, i) => i > start && /^[✖↑✔?] /.test(l));
  if (end < 0) end = lines.length;
  return lines.slice(start, end).join('\n');
}

interface PoolJson {
  name: string;
  verdict: string;
  stage?: string;
  error?: string;
  legacyError?: string;
  funnel: Array<{ step: string; remaining: number }>;
  daemonSetOverhead: Record<string, string>;
  remainingLimits?: Record<string, string>;
}
interface PodJson {
  name: string;
  namespace: string;
  karpenter?: {
    route: string;
    chosen?: string;
    outcome?: string;
    inFlight?: { kind: string; name: string; nodePool?: string };
    event?: string;
    legacyEvent?: string;
    said?: { reason: string; message: string };
    nominated?: { nodeClaims: string[] };
    ignored?: { reason: string; emitsEvent: boolean };
    nodePools: PoolJson[];
    stuckNodeClaims: Array<{ name: string; stage: string; nominated: boolean; boundMs: number }>;
  };
}

let text = '';
let pods: PodJson[] = [];

beforeAll(() => {
  const t = cli(['why-pending', '--all', '-A', ...base, '--fail-on', 'never']);
  expect(t.code, t.stderr).toBe(0);
  text = t.stdout;
  const j = cli(['why-pending', '--all', '-A', ...base, '-o', 'json', '--fail-on', 'never']);
  expect(j.code, j.stderr).toBe(0);
  pods = (JSON.parse(j.stdout) as { pods: PodJson[] }).pods;
}, 120_000);

function podJson(prefix: string): NonNullable<PodJson['karpenter']> {
  const p = pods.find((x) => x.name.startsWith(`${prefix}-`));
  expect(p?.karpenter, `no karpenter object for ${prefix}`).toBeDefined();
  return p!.karpenter!;
}

describe('why-pending on a mixed CA + Karpenter cluster', () => {
  it('shows every NodePool in Karpenter order (weight 50, 10, 0) for each pod Karpenter considers', () => {
    for (const prefix of ['search-indexer', 'embedder', 'fraud-scorer', 'spark-exec-adhoc', 'recommendations', 'image-resizer']) {
      expect(podJson(prefix).nodePools.map((p) => p.name)).toEqual(['general', 'gpu', 'batch']);
    }
  });

  it('names the custom label the general pool does not define, in Karpenter words, and what v1.5 stopped saying', () => {
    const block = podBlock(text, 'web/search-indexer');
    expect(block).toContain('NodePool general (weight 50): no at requirements — Karpenter: incompatible requirements, label "shop.example.com/team" does not have known values');
    expect(block).toContain('v1.5+ no longer says: pool general; daemonset overhead cpu 155m, memory 120Mi, pods 3 (aws-node, ebs-csi-node, kube-proxy)');
    expect(block).toContain('NodePool gpu (weight 10): skipped — the NodePool is not Ready: NodeClassReady=False');
    expect(block).toContain('NodePool batch (weight 0): no at resource limits — Karpenter: all available instance types exceed limits for nodepool (NodePool=batch)');
    expect(block).toContain('✖ karpenter-custom-label-unknown');
  });

  it("shows Karpenter's FailedScheduling event as \"Karpenter said\", equal to what casdoctor computes for 1.6.2", () => {
    const k = podJson('search-indexer');
    expect(k.said?.message).toBe(k.event);
    expect(podBlock(text, 'web/search-indexer')).toContain(
      'Karpenter said  FailedScheduling 41s ago (×9): Failed to schedule pod, incompatible requirements, label "shop.example.com/team" does not have known values; all available instance types exceed limits for nodepool (NodePool=batch)',
    );
    expect(text).not.toContain('Karpenter would say');
    expect(k.legacyEvent).toContain('incompatible with nodepool "general", daemonset overhead={"cpu":"155m","memory":"120Mi","pods":"3"}, incompatible requirements');
  });

  it('stops the GPU pod at the resources step of the general pool: 208 types meet the requirements, none has room', () => {
    const general = podJson('embedder').nodePools[0];
    expect(general).toMatchObject({ verdict: 'rejected', stage: 'instance-types' });
    expect(general.error).toMatch(/^no instance type has enough resources, requirements=/);
    expect(general.funnel.map((f) => [f.step, f.remaining])).toEqual([
      ['nodepool', 332],
      ['limits', 208],
      ['requirements', 208],
      ['resources', 0],
      ['offerings', 0],
    ]);
    expect(podJson('embedder').nodePools[1]).toMatchObject({ name: 'gpu', verdict: 'not-evaluated', stage: 'nodepool-not-ready' });
    expect(podBlock(text, 'ml/embedder')).toContain('EC2NodeClass gpu is not Ready');
  });

  it('stops the zone-pinned pod at offerings: no subnet of the EC2NodeClass is in us-east-1c', () => {
    const general = podJson('fraud-scorer').nodePools[0];
    expect(general.stage).toBe('instance-types');
    expect(general.error).toContain('topology.kubernetes.io/zone In [us-east-1c]');
    expect(podBlock(text, 'checkout/fraud-scorer')).toContain('no instance type matches the combined requirements (zones us-east-1c');
  });

  it("gives the batch executor the batch pool's limit error with the remaining cpu", () => {
    const batch = podJson('spark-exec-adhoc').nodePools[2];
    expect(batch).toMatchObject({ stage: 'resource-limits', remainingLimits: { cpu: '0' } });
    expect(podBlock(text, 'analytics/spark-exec-adhoc')).toContain('remaining limits cpu 0');
  });

  it('sends the recommendations pod to the NodeClaim Karpenter nominated it to, not to a new node, with the 15m registration TTL', () => {
    const k = podJson('recommendations');
    // scheduler.go add@v1.6.2: existing capacity (the launched NodeClaim x7k2p, 13m old) before a new NodeClaim
    expect(k).toMatchObject({ route: 'karpenter', outcome: 'in-flight', inFlight: { kind: 'nodeclaim', name: 'general-x7k2p', nodePool: 'general' } });
    expect(k.chosen).toBeUndefined();
    expect(k.nominated?.nodeClaims).toEqual(['general-x7k2p']);
    expect(k.stuckNodeClaims).toEqual([expect.objectContaining({ name: 'general-x7k2p', stage: 'registration', nominated: true, boundMs: 900_000 })]);
    const block = podBlock(text, 'web/recommendations');
    expect(block).toContain('Karpenter serves it: no new node: it fits NodeClaim general-x7k2p, which Karpenter already has; no CA node group fits it');
    expect(block).toContain('NodeClaim general-x7k2p (NodePool general), which Karpenter nominated for this pod, launched 13m ago, no Node registered; Karpenter deletes it at 15m (registration TTL, 2m left)');
  });

  it('says Karpenter ignores the CA-routed pod without an event, and that CA serves it', () => {
    const k = podJson('report-gen');
    expect(k.route).toBe('ca');
    expect(k.ignored).toEqual({ reason: 'nodepool-does-not-exist', text: expect.stringContaining('configured to not run on a Karpenter provisioned node'), emitsEvent: false });
    expect(podBlock(text, 'legacy/report-gen')).toContain('Karpenter ignores the pod without an event: configured to not run on a Karpenter provisioned node (requirement=karpenter.sh/nodepool DoesNotExist)');
  });

  it('warns that CA and Karpenter may both provision for the pod both a group and a pool fit', () => {
    expect(podJson('image-resizer').route).toBe('both');
    const block = podBlock(text, 'web/image-resizer');
    expect(block).toContain('CA and Karpenter may both provision: CA node group(s) shop-prod-legacy and NodePool(s) general can each take it');
    expect(block).toContain('▲ karpenter-pod-served-by-both');
  });

  it('reports the pod routed away from Karpenter that no ASG fits as served by neither', () => {
    expect(podJson('pdf-archiver').route).toBe('neither');
    expect(podBlock(text, 'legacy/pdf-archiver')).toContain('✖ karpenter-pod-served-by-neither');
  });

  it('keeps the karpenter object off the CA-only demo, whose report is unchanged', () => {
    const r = cli(['why-pending', '--all', '--from', DEMO, '--now', DEMO_NOW, '--fail-on', 'never', '-o', 'json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { pods: PodJson[]; skipped: Array<{ checkId: string }> };
    expect(doc.pods.some((p) => p.karpenter !== undefined)).toBe(false);
    expect(doc.skipped.some((s) => s.checkId.startsWith('karpenter-'))).toBe(false);
  });
});

describe('scale-down-blockers on a mixed cluster', () => {
  it('takes a NodePool for --nodegroup as its list of groups names it, nodepool/NAME, as well as by its name', () => {
    const listed = cli(['scale-down-blockers', ...base, '--nodegroup', 'nope']);
    expect(listed.stderr).toContain('nodepool/batch');
    const prefixed = cli(['scale-down-blockers', ...base, '--nodegroup', 'nodepool/batch']);
    const bare = cli(['scale-down-blockers', ...base, '--nodegroup', 'batch']);
    expect(prefixed.code).toBe(0);
    expect(prefixed.stderr).not.toContain('not found');
    expect(prefixed.stdout).toBe(bare.stdout);
  });

  it("explains Karpenter's nodes in Karpenter's words and does not call them a CA problem", () => {
    const r = cli(['scale-down-blockers', ...base]);
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/ip-10-20-11-66 +nodepool\/batch/);
    expect(out).toContain('ip-10-20-11-66.ec2.internal: Karpenter node (NodePool batch); CA ignores it by design');
    expect(out).toContain('Karpenter nodes (Karpenter decides whether they go; CA ignores them by design) · budgets at 2026-11-24T14:00:00.000Z');
    expect(out).toContain('· Karpenter: disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation');
    expect(out).toContain('fix: kubectl annotate node ip-10-20-11-66.ec2.internal karpenter.sh/do-not-disrupt-');
    // Karpenter 1.6.2 (core 1.6.1): one PDB without brackets (statenode.go:247@v1.6.2), WhenEmpty's pre-v1.14 text (consolidation.go:114-116@v1.6.2)
    expect(out).toContain('· Karpenter: pdb prevents pod evictions (PodDisruptionBudget=checkout/payments-api)');
    expect(out).toContain('budgets[1] nodes "0" reasons [Underutilized] schedule "0 9 * * mon-fri" duration 8h (active since 2026-11-24T09:00:00Z until 2026-11-24T17:00:00Z)');
    expect(out).toContain('· Karpenter: NodePool "batch" has non-empty consolidation disabled');
    // the spot-to-spot text needs a consolidation simulation: no node of the example gets that far (consolidation.go:188-190@v1.6.2)
    expect(out).not.toContain('SpotToSpotConsolidation is disabled');
    expect(out).toContain('NodeClaim general-x7k2p (NodePool general)');
    expect(out).not.toMatch(/node-not-autoscaled +Node ip-10-20-11-66/);
    expect(out).toContain('ℹ karpenter-node-disruption-blocked  Node ip-10-20-11-66.ec2.internal of NodePool batch stays');
    expect(out).toContain('ℹ karpenter-budget-blocks-disruption  NodePool general allows 0 Underutilized disruptions now');
  });

  it('opens the budget window after business hours', () => {
    const r = cli(['scale-down-blockers', '--from', EXAMPLE, '--now', '2026-11-24T18:30:00Z']);
    expect(r.stdout).not.toContain('karpenter-budget-blocks-disruption  NodePool general');
    expect(r.stdout).not.toContain('No allowed disruptions for disruption reason Underutilized');
  });

  it('lists the Karpenter nodes in -o json with what keeps each', () => {
    const r = cli(['scale-down-blockers', ...base, '-o', 'json']);
    const doc = JSON.parse(r.stdout) as { karpenter: { nodes: Array<{ node?: string; nodeClaim?: string; kept: boolean; blockers: Array<{ id: string }> }> } };
    const byName = new Map(doc.karpenter.nodes.map((n) => [n.node ?? n.nodeClaim, n]));
    expect(byName.get('ip-10-20-11-66.ec2.internal')?.blockers.map((b) => b.id)).toContain('node-do-not-disrupt');
    // 203 is no candidate (its PDB): the budget never applies to it (disruption/helpers.go:225-273@v1.6.2)
    expect(byName.get('ip-10-20-11-203.ec2.internal')?.blockers.map((b) => b.id)).toEqual(['pdb-blocks-eviction']);
    expect(byName.get('general-x7k2p')?.blockers.map((b) => b.id)).toEqual(['nodeclaim-without-node']);
    expect([...byName.values()].every((n) => n.kept)).toBe(true);
  });

  it('takes a NodePool name for --nodegroup', () => {
    const r = cli(['scale-down-blockers', ...base, '--nodegroup', 'batch', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { karpenter: { nodes: Array<{ nodePool: string }> } };
    expect(doc.karpenter.nodes.map((n) => n.nodePool)).toEqual(['batch', 'batch']);
  });
});

describe('the overview of both autoscalers', () => {
  it('counts Pending pods by who serves them and shows the NodePools and the Karpenter nodes held', () => {
    const r = cli(base);
    const out = r.stdout;
    expect(out).toContain('who serves them: 1 CA, 1 Karpenter, 1 CA and Karpenter may both provision, 5 neither');
    expect(out).toContain('kept: 5 Karpenter nodes (CA ignores them), 2 NodeGroupMinSizeReached, 1 NotUnderutilized');
    expect(out).toContain('Karpenter 1.6.2 in karpenter/karpenter · cluster shop-prod');
    expect(out).toContain('3 NodePool(s) · 2 EC2NodeClass(es) (not Ready: gpu) · 6 NodeClaim(s) (not joined: general-x7k2p never registered)');
    expect(out).toContain('NodePool batch  weight 0 · 2 node(s) · limits cpu 32/32');
    expect(out).toContain('NodePool gpu  weight 10 · 0 node(s) · limits nvidia.com/gpu 0/8 · zones us-east-1a, us-east-1b · WhenEmpty after 30m · NOT READY');
    expect(out).toMatch(/Karpenter nodes: 5 of 5 held \(.*1 node-do-not-disrupt.*\); CA ignores them by design/);
  });
});

describe('casdoctor checks', () => {
  it('marks the checks about Karpenter', () => {
    const r = cli(['checks']);
    expect(r.stdout).toMatch(/^karpenter-pod-served-by-both\s+warning\s+why-pending\s+\[Karpenter\] In a mixed cluster/m);
    expect(r.stdout).toMatch(/^pod-untolerated-taint\s+error\s+why-pending\s+(?!\[Karpenter\])/m);
    const j = JSON.parse(cli(['checks', '-o', 'json']).stdout) as Array<{ id: string; autoscaler: string }>;
    expect(j.find((c) => c.id === 'karpenter-nodeclass-not-ready')?.autoscaler).toBe('karpenter');
    expect(j.find((c) => c.id === 'pod-untolerated-taint')?.autoscaler).toBe('cluster-autoscaler');
  });
});

describe('foreign text in Karpenter sections', () => {
  it("escapes terminal control sequences in Karpenter's event text", async () => {
    const { cpSync, mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-karpenter-'));
    cpSync(EXAMPLE, dir, { recursive: true });
    const events = JSON.parse(readFileSync(join(dir, 'events.json'), 'utf8')) as { items: Array<{ source?: { component?: string }; message: string; reason: string }> };
    for (const e of events.items) if (e.source?.component === 'karpenter' && e.reason === 'FailedScheduling') e.message = `Failed to schedule pod, \u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 \u001b[2J`;
    writeFileSync(join(dir, 'events.json'), JSON.stringify(events));
    const r = cli(['why-pending', '--all', '-A', '--from', dir, '--now', NOW, '--fail-on', 'never']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Karpenter said  FailedScheduling');
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).not.toContain('\u0007');
  });
});
