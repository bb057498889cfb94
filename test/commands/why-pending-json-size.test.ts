// Issue 18's size target for why-pending -o json (≤ 20 KB per examined pod at 300 node groups), on the demo grown to a
// multi-team cluster: hundreds of node groups, one dedicated taint per team, each Pending pod from its own ReplicaSet.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILING_GROUPS_LISTED, REASONS_ALL_SAMPLED, SAMPLE_NAMES, SAMPLED_REASONS } from '../../src/commands/why-pending-json.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { DEMO } from './run.js';

type Json = any;
type Items = { items: Json[] };

const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-json-size-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const GROUPS = 300;
// as on the bench's 5,000-node shape: ~30 dedicated (tainted) teams, so ~30 distinct taint reasons per pod
const TEAMS = 30;
const WORKLOADS = 120;

/**
 * The demo with GROUPS more empty ASGs (demo-batch's launch template; every tenth dedicated to a team by a taint tag,
 * the others labelled node-pool=pool-N), TEAMS copies of its nodes each tainted dedicated=team-N, and WORKLOADS more
 * Pending pods, each from its own ReplicaSet.
 */
function multiTeam(): string {
  const dir = join(tmp, 'multi-team');
  cpSync(DEMO, dir, { recursive: true });
  const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const asgs = read('asgs.json') as { AutoScalingGroups: Json[] };
  const batch = asgs.AutoScalingGroups.find((g) => g.AutoScalingGroupName === 'demo-batch');
  for (let i = 0; i < GROUPS; i++) {
    const g = structuredClone(batch);
    const name = `demo-pool-${String(i).padStart(3, '0')}`;
    g.AutoScalingGroupName = name;
    g.AutoScalingGroupARN = batch.AutoScalingGroupARN.replace('demo-batch', name);
    const tag = i % 10 === 0
      ? { Key: `k8s.io/cluster-autoscaler/node-template/taint/dedicated`, Value: `team-${i}:NoSchedule` }
      : { Key: 'k8s.io/cluster-autoscaler/node-template/label/node-pool', Value: `pool-${i}` };
    g.Tags = [...g.Tags.map((t: Json) => ({ ...t, ResourceId: name })), { ...tag, ResourceId: name, ResourceType: 'auto-scaling-group', PropagateAtLaunch: true }];
    asgs.AutoScalingGroups.push(g);
  }
  const nodes = read('nodes.json') as Items;
  const pods = read('pods.json') as Items;
  const original = [...nodes.items];
  for (let c = 1; c <= TEAMS; c++) {
    for (const n of original) {
      const copy = structuredClone(n);
      const nodeName = `t${c}-${n.metadata.name}`;
      copy.metadata.name = nodeName;
      copy.metadata.uid = `${c}-${n.metadata.uid}`;
      copy.metadata.labels['kubernetes.io/hostname'] = nodeName;
      copy.spec.taints = [...(copy.spec.taints ?? []), { key: 'dedicated', value: `team-${c}`, effect: 'NoSchedule' }];
      nodes.items.push(copy);
    }
  }
  const pending = pods.items.filter((p) => !p.spec.nodeName && p.metadata.ownerReferences?.[0]?.kind === 'ReplicaSet');
  for (let w = 0; w < WORKLOADS; w++) {
    const p = structuredClone(pending[w % pending.length]);
    p.metadata.name = `team-${w}-${p.metadata.name}`;
    p.metadata.uid = `team-${w}-${p.metadata.uid}`;
    p.metadata.ownerReferences[0] = { ...p.metadata.ownerReferences[0], name: `team-${w}-rs`, uid: `team-${w}-rs-uid` };
    pods.items.push(p);
  }
  writeFileSync(join(dir, 'asgs.json'), JSON.stringify(asgs));
  writeFileSync(join(dir, 'nodes.json'), JSON.stringify(nodes));
  writeFileSync(join(dir, 'pods.json'), JSON.stringify(pods));
  return dir;
}

describe('why-pending -o json on a multi-team cluster with 300 node groups', () => {
  let out: string;
  let json: Json;
  beforeAll(async () => {
    const c = capturingDeps();
    await runWhyPending({ ...PIPED_JSON, from: [multiTeam()], all: true } as WhyPendingOptions, c.deps);
    out = c.stdout();
    json = JSON.parse(out);
  }, 60_000);

  it('examines every group and every team taint: the shape the size target is about', () => {
    expect(json.pods.length).toBeGreaterThanOrEqual(WORKLOADS);
    const carriers = json.pods.filter((p: Json) => !p.sameAs && p.nodeGroupSummary);
    expect(Math.max(...carriers.map((p: Json) => p.nodeGroupSummary.total))).toBe(GROUPS + 7);
    expect(Math.max(...carriers.map((p: Json) => p.scheduler.reasons.length))).toBeGreaterThan(TEAMS);
  });

  it('stays under 20 KB per examined pod, findings included', () => {
    expect(Buffer.byteLength(out) / json.pods.length).toBeLessThan(20_000);
  });

  it('names sample nodes for the most frequent reasons only, and still counts every reason', () => {
    for (const p of json.pods) {
      if (!p.scheduler) continue;
      p.scheduler.reasons.forEach((r: Json, i: number) =>
        expect(r.sampleNodes.length, `${p.name} ${r.reason}`).toBe(
          i < SAMPLED_REASONS || p.scheduler.reasons.length <= REASONS_ALL_SAMPLED ? Math.min(SAMPLE_NAMES, r.count) : 0,
        ),
      );
      if (p.scheduler.fits > 0) continue;
      const counted = p.scheduler.reasons.filter((r: Json) => r.reason.startsWith('node(s) had untolerated taint {dedicated: team-'));
      expect(counted.length, p.name).toBe(TEAMS);
    }
  });

  it('lists a few failing groups and counts all of them by reason', () => {
    for (const p of json.pods) {
      if (!p.nodeGroups) continue;
      const failing = p.nodeGroups.filter((g: Json) => !g.fits && !g.predicatesPass && !g.notEvaluated && !g.caMayDecideEither && !g.caLogged);
      expect(failing.length, p.name).toBeLessThanOrEqual(FAILING_GROUPS_LISTED);
      expect(p.nodeGroupSummary.listed).toBe(p.nodeGroups.length);
      const counted = p.nodeGroupSummary.reasons.reduce((n: number, r: Json) => n + r.count, 0);
      expect(counted).toBeGreaterThanOrEqual(p.nodeGroupSummary.total - p.nodeGroupSummary.fits);
    }
  });

  it('keeps every finding bounded: no message or evidence list grows with the node groups', () => {
    for (const f of json.findings) {
      expect(f.evidence.length, f.checkId).toBeLessThanOrEqual(8);
      expect(JSON.stringify(f).length, `${f.checkId}: ${f.message.slice(0, 200)}`).toBeLessThan(6_000);
    }
  });
});
