// Issue 18: why-pending's JSON contract v2 (docs/json.md) on the bundled demo and on clusters grown from it.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { equivalenceSignature, NODE_GROUPS_LISTED, SAMPLE_NAMES, whyPendingPodEntries } from '../../src/commands/why-pending-json.js';
import { SCHEDULER_CODES, type PodReport } from '../../src/model/why-pending.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { parseFitError } from '../../src/simulate/scheduler.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { DEMO } from './run.js';

type Json = any;

async function whyPending(o: Partial<WhyPendingOptions>): Promise<{ json: Json; text: string; stderr: string }> {
  const c = capturingDeps();
  await runWhyPending({ ...PIPED_JSON, from: [DEMO], all: true, ...o } as WhyPendingOptions, c.deps);
  const text = c.stdout();
  return { json: o.output === 'table' ? undefined : JSON.parse(text), text, stderr: c.stderr() };
}

const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-json-v2-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Items = { items: Array<Json> };
const read = (dir: string, f: string): Items => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Items;

/** The demo with `replicas` Pending pods of the api ReplicaSet (its own pod included), as the API server lists them. */
function withReplicas(name: string, replicas: number): string {
  const dir = join(tmp, name);
  cpSync(DEMO, dir, { recursive: true });
  const pods = read(dir, 'pods.json');
  const api = pods.items.find((p) => p.metadata.name === 'api-5jnmtxgjl-prp7m');
  for (let i = 1; i < replicas; i++) {
    const copy = structuredClone(api);
    copy.metadata.name = `api-5jnmtxgjl-r${String(i).padStart(4, '0')}`;
    copy.metadata.uid = `b2474be3-d507-4cb1-a61c-${String(i).padStart(12, '0')}`;
    pods.items.push(copy);
  }
  writeFileSync(join(dir, 'pods.json'), JSON.stringify(pods));
  return dir;
}

/**
 * The demo grown to `copies` × its nodes (renamed, same shapes, same pods on them) and `workloads` more Pending pods,
 * each from its own ReplicaSet (a multi-team cluster: nothing to share).
 */
function grown(name: string, copies: number, workloads: number): string {
  const dir = join(tmp, name);
  cpSync(DEMO, dir, { recursive: true });
  const nodes = read(dir, 'nodes.json');
  const pods = read(dir, 'pods.json');
  const original = [...nodes.items];
  const onNode = new Map<string, Json[]>();
  for (const p of pods.items) if (p.spec.nodeName) onNode.set(p.spec.nodeName, [...(onNode.get(p.spec.nodeName) ?? []), p]);
  for (let c = 1; c < copies; c++) {
    for (const n of original) {
      const copy = structuredClone(n);
      const nodeName = `c${c}-${n.metadata.name}`;
      copy.metadata.name = nodeName;
      copy.metadata.uid = `${c}-${n.metadata.uid}`;
      copy.metadata.labels['kubernetes.io/hostname'] = nodeName;
      nodes.items.push(copy);
      for (const p of onNode.get(n.metadata.name) ?? []) {
        const pc = structuredClone(p);
        pc.metadata.name = `c${c}-${p.metadata.name}`;
        pc.metadata.uid = `${c}-${p.metadata.uid}`;
        pc.spec.nodeName = nodeName;
        pods.items.push(pc);
      }
    }
  }
  const pending = pods.items.filter((p) => !p.spec.nodeName && p.metadata.ownerReferences?.[0]?.kind === 'ReplicaSet');
  for (let w = 0; w < workloads; w++) {
    const p = structuredClone(pending[w % pending.length]);
    p.metadata.name = `team-${w}-${p.metadata.name}`;
    p.metadata.uid = `team-${w}-${p.metadata.uid}`;
    p.metadata.ownerReferences[0] = { ...p.metadata.ownerReferences[0], name: `team-${w}-rs`, uid: `team-${w}-rs-uid` };
    pods.items.push(p);
  }
  writeFileSync(join(dir, 'nodes.json'), JSON.stringify(nodes));
  writeFileSync(join(dir, 'pods.json'), JSON.stringify(pods));
  return dir;
}

describe('why-pending -o json, contract v2, on the demo', () => {
  let report: Json;
  beforeAll(async () => {
    report = (await whyPending({})).json;
  });

  it('says schemaVersion 3 (issue 24: the verdict follows the route) and keeps the top-level keys and their order', () => {
    expect(Object.keys(report)).toEqual(['schemaVersion', 'command', 'now', 'findings', 'skipped', 'pods', 'caHealth']);
    expect(report.schemaVersion).toBe(3);
  });

  it("counts the scheduler's reasons per node as its FitError message does, with bounded samples and no per-node list", () => {
    for (const p of report.pods) {
      const s = p.scheduler;
      expect(s.nodes, p.name).toBeUndefined();
      expect(s.nodesTotal).toBe(11);
      if (s.fits > 0) continue;
      const parsed = parseFitError(s.message)!;
      expect(parsed.numAllNodes).toBe(11);
      if (parsed.preFilterMsg) continue;
      expect(new Map(s.reasons.map((r: Json) => [r.reason, r.count])), p.name).toEqual(parsed.reasons);
      for (const r of s.reasons) expect(r.sampleNodes.length).toBe(Math.min(SAMPLE_NAMES, r.count));
    }
  });

  it('lists the node groups with the verdict and reasons as v1 did, and counts every group by reason', () => {
    const api = report.pods.find((p: Json) => p.name === 'api-5jnmtxgjl-prp7m');
    const general = api.nodeGroups.find((g: Json) => g.name === 'demo-general');
    expect(general).toMatchObject({ fits: true, expanderChoice: true, template: { source: 'node', instanceType: 'm5.xlarge' } });
    expect(api.nodeGroupSummary.total).toBe(api.nodeGroups.length);
    expect(api.nodeGroupSummary.listed).toBe(api.nodeGroups.length);
    expect(api.nodeGroupSummary.fits).toBe(api.nodeGroups.filter((g: Json) => g.fits).length);
    const counted = api.nodeGroupSummary.reasons.reduce((n: number, r: Json) => n + r.count, 0);
    expect(counted).toBe(api.nodeGroups.filter((g: Json) => !g.fits).reduce((n: number, g: Json) => n + g.reasons.length, 0));
  });

  it("gives CA's scale-up size on the group a lone pod fits: one node of the six demo-general may add", () => {
    const api = report.pods.find((p: Json) => p.name === 'api-5jnmtxgjl-prp7m');
    // m5.xlarge: 3920m allocatable less the DaemonSet pods holds two pods of 1500m
    expect(api.nodeGroups.find((g: Json) => g.name === 'demo-general').scaleUp).toEqual({
      pods: 1,
      podsPerNode: 2,
      nodesNeeded: 1,
      nodesAllowed: 6,
      limitedBy: 'max-size',
      podsPlaced: 1,
      podsLeftPending: 0,
    });
    for (const p of report.pods) for (const g of p.nodeGroups) if (!g.fits) expect(g.scaleUp, `${p.name} ${g.name}`).toBeUndefined();
  });

  it('lists every node with --show-nodes, as v1 did, and the counts are those of the list', async () => {
    const full = (await whyPending({ showNodes: true })).json;
    for (const p of full.pods) {
      const s = p.scheduler;
      expect(s.nodes).toHaveLength(11);
      expect(s.nodes.filter((n: Json) => n.fits).length).toBe(s.fits);
      for (const r of s.reasons) {
        const named = s.nodes.filter((n: Json) => n.reasons.includes(r.reason));
        expect(named.length, r.reason).toBe(r.count);
        expect(r.sampleNodes).toEqual(named.slice(0, SAMPLE_NAMES).map((n: Json) => n.name));
      }
    }
  });

  it('lists every node for a single named pod without being asked', async () => {
    const one = (await whyPending({ all: false, pod: 'payments/ledger-db-0' })).json;
    expect(one.pods).toHaveLength(1);
    expect(one.pods[0].scheduler.nodes).toHaveLength(11);
    expect(one.pods[0].scheduler.nodes[0]).toEqual({ name: expect.any(String), fits: false, reasons: expect.any(Array) });
  });

  it('writes the same document as YAML', async () => {
    const c = capturingDeps();
    await runWhyPending({ ...PIPED_JSON, from: [DEMO], all: true, output: 'yaml' } as WhyPendingOptions, c.deps);
    const { parse } = await import('yaml');
    expect(parse(c.stdout())).toEqual(report);
  });

  it('refuses --show-nodes for the text report, exit 2', async () => {
    await expect(whyPending({ showNodes: true, output: 'table' })).rejects.toThrow(/--show-nodes adds every node to -o json\|yaml/);
  });
});

describe('why-pending -o json with 50 Pending replicas of one ReplicaSet', () => {
  let report: Json;
  let text: string;
  beforeAll(async () => {
    const dir = withReplicas('replicas', 50);
    report = (await whyPending({ from: [dir] })).json;
    text = (await whyPending({ from: [dir], output: 'table' })).text;
  });

  it('evaluates them once: the first carries the evaluation and the count, the others say sameAs with their own identity', () => {
    const api = report.pods.filter((p: Json) => p.namespace === 'web' && p.name.startsWith('api-5jnmtxgjl-'));
    expect(api).toHaveLength(50);
    const [first, ...others] = api;
    expect(first.equivalentPods).toEqual({ count: 50, controller: 'ReplicaSet api-5jnmtxgjl' });
    expect(first.scheduler.nodesTotal).toBe(11);
    for (const o of others) {
      expect(Object.keys(o).sort()).toEqual(expect.arrayContaining(['namespace', 'name', 'sameAs', 'verdict']));
      expect(o.sameAs).toBe(`web/${first.name}`);
      expect(o.verdict).toBe('scale-up');
      expect(o.scheduler).toBeUndefined();
      expect(o.nodeGroups).toBeUndefined();
    }
    expect(new Set(api.map((p: Json) => p.name)).size).toBe(50);
  });

  it("says how many of them CA's scale-up places before demo-general's max size, as the text report does", () => {
    const first = report.pods.find((p: Json) => p.equivalentPods);
    const size = first.nodeGroups.find((g: Json) => g.name === 'demo-general').scaleUp;
    expect(size).toEqual({ pods: 50, podsPerNode: 2, nodesNeeded: 25, nodesAllowed: 6, limitedBy: 'max-size', podsPlaced: 12, podsLeftPending: 38 });
    expect(text).toContain('packs 2 of them per new m5.xlarge node of demo-general, which has room for 6 more node(s)');
    expect(text).toContain('this scale-up places 12 of the 50; for the other 38');
  });
});

describe('why-pending -o json on a grown cluster', () => {
  it('stays valid and bounded per examined pod: the size does not follow the number of nodes', async () => {
    const perPod: number[] = [];
    for (const copies of [20, 120]) {
      const dir = grown(`grown-${copies}`, copies, 120);
      const c = capturingDeps();
      await runWhyPending({ ...PIPED_JSON, from: [dir], all: true } as WhyPendingOptions, c.deps);
      const out = c.stdout();
      const json = JSON.parse(out);
      expect(json.pods.length).toBeGreaterThanOrEqual(120);
      for (const p of json.pods) {
        expect(p.scheduler.nodesTotal).toBe(11 * copies);
        expect(p.scheduler.fitNodes.length).toBeLessThanOrEqual(10);
        expect(p.nodeGroups.length).toBeLessThanOrEqual(NODE_GROUPS_LISTED);
        for (const r of p.scheduler.reasons) expect(r.sampleNodes.length).toBeLessThanOrEqual(SAMPLE_NAMES);
      }
      // the whole document, findings included, and the pods' part alone (the scheduler's per-node detail was there)
      expect(out.length / json.pods.length).toBeLessThan(20_000);
      perPod.push(JSON.stringify(json.pods, null, 2).length / json.pods.length);
    }
    // v1 wrote ~100 bytes per node per pod: 1,320 nodes alone would be ~130 KB a pod
    expect(perPod[1]).toBeLessThan(20_000);
    expect(perPod[1]).toBeLessThan(perPod[0] * 1.2);
  }, 30_000);
});

describe("the scheduler's summary from the compact per-node codes", () => {
  const names = ['n-a', 'n-b', 'n-c', 'n-d'];
  const table = [
    { fits: false, reasons: ['Insufficient cpu'] },
    { fits: false, reasons: ["node(s) had untolerated taint {dedicated: databases}"] },
    { fits: true, reasons: [] },
  ];
  const message = '0/4 nodes are available: ...';
  const noGroups = { nodeGroups: [] } as unknown as Parameters<typeof whyPendingPodEntries>[0];
  const report = (codes: number[], compact: boolean): PodReport => {
    const c = Uint32Array.from(codes);
    const nodes = Array.from(c, (code, i) => ({ name: names[i], ...table[code] }));
    const scheduler: PodReport['scheduler'] = compact ? { message, nodes, [SCHEDULER_CODES]: { table, codes: c, names } } : { message, nodes };
    return { namespace: 'web', name: 'api-0', verdict: 'no-scale-up', summary: '', requests: {}, scheduler, nodeGroups: [] };
  };

  it('signs equal per-node results alike and the same results on other nodes apart', () => {
    const sig = (codes: number[]) => equivalenceSignature(report(codes, true), 'web/rs-uid');
    expect(sig([0, 1, 0, 2])).toBe(sig([0, 1, 0, 2]));
    // the same reason counts (and message), on different nodes
    expect(sig([1, 0, 0, 2])).not.toBe(sig([0, 1, 0, 2]));
    expect(sig([0, 1, 2, 0])).not.toBe(sig([0, 1, 0, 2]));
  });

  it('counts and samples as the per-node list does', () => {
    for (const codes of [[0, 1, 0, 2], [2, 2, 2, 2], [1, 1, 1, 0], [0, 0, 0, 0]]) {
      const fromCodes = whyPendingPodEntries(noGroups, [], [report(codes, true)], { full: false });
      const fromList = whyPendingPodEntries(noGroups, [], [report(codes, false)], { full: false });
      expect([...fromCodes][0], codes.join()).toEqual([...fromList][0]);
    }
  });
});
