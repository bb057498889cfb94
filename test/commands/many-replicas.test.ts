// Issue 15: 3,000 Pending replicas of one ReplicaSet read as one block with a count and CA's scale-up capacity.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW } from './run.js';

const REPLICAS = 3000;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-replicas-'));
  cpSync(DEMO, dir, { recursive: true });
  const pods = JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8')) as { items: Array<{ metadata: Record<string, unknown> }> };
  const api = pods.items.find((p) => p.metadata.name === 'api-5jnmtxgjl-prp7m')!;
  // the same ReplicaSet's pods as the API server lists them: one spec, their own names and uids
  for (let i = 1; i < REPLICAS; i++) {
    const copy = structuredClone(api);
    copy.metadata.name = `api-5jnmtxgjl-r${String(i).padStart(4, '0')}`;
    copy.metadata.uid = `b2474be3-d507-4cb1-a61c-${String(i).padStart(12, '0')}`;
    pods.items.push(copy);
  }
  writeFileSync(join(dir, 'pods.json'), JSON.stringify(pods));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('why-pending --all with 3,000 Pending replicas of one ReplicaSet', () => {
  it('prints one block with the count, and how many the scale-up places before demo-general is at its max size', () => {
    const r = cli(['why-pending', '-A', '--from', dir, '--now', DEMO_NOW]);
    expect(r.code).toBe(1);
    const blocks = r.stdout.split('\n').filter((l) => /^[✖↑✔] /.test(l));
    expect(blocks.filter((l) => l.includes('web/api-5jnmtxgjl'))).toEqual([
      `↑ web/api-5jnmtxgjl-prp7m and ${REPLICAS - 1} more Pending replica(s) of ReplicaSet api-5jnmtxgjl  CA scales up: CA can scale up demo-general`,
    ]);
    // m5.xlarge: 4 vCPU, 3920m allocatable less the DaemonSet pods; the pod asks 1500m, so 2 per node; 6 nodes of room
    expect(r.stdout).toMatch(
      /scale-up {3}CA's estimator packs (\d+) of them per new m5\.xlarge node of demo-general, which has room for 6 more node\(s\) \(max 10, target 4\): this scale-up places (\d+) of the 3000; for the other (\d+), they stay Pending \("max node group size reached"\)/,
    );
    const [, perNode, placed, rest] = /packs (\d+) .* places (\d+) of the 3000; for the other (\d+)/.exec(r.stdout)!;
    expect(Number(placed)).toBe(Number(perNode) * 6);
    expect(Number(placed) + Number(rest)).toBe(REPLICAS);
    expect(r.stdout).toContain(`${REPLICAS + 7} pod(s):`);
    expect(r.stdout.split('\n').length).toBeLessThan(400);
  });

  it('with --max-nodes-total the cluster-wide limit caps the scale-up, and the report says which limit', () => {
    const r = cli(['why-pending', '-A', '--from', dir, '--now', DEMO_NOW, '--ca-args', '--max-nodes-total=13']);
    expect(r.stdout).toMatch(
      /which has room for 2 more node\(s\) \(--max-nodes-total=13 with 11 nodes\): this scale-up places (\d+) of the 3000; for the other \d+, they stay Pending until --max-nodes-total \(13\) is raised/,
    );
  });

  it('with --max-nodes-per-scaleup one scale-up adds at most that many nodes, and the text and -o json agree', () => {
    const r = cli(['why-pending', '-A', '--from', dir, '--now', DEMO_NOW, '--ca-args', '--max-nodes-per-scaleup=4']);
    const m = /packs (\d+) of them per new m5\.xlarge node of demo-general, which adds at most 4 node\(s\) in one scale-up \(--max-nodes-per-scaleup=4; max 10, target 4\): this scale-up places (\d+) of the 3000; for the other (\d+), CA's next loops scale up again, at most 4 node\(s\) each/.exec(r.stdout);
    expect(m, r.stdout.slice(0, 2000)).not.toBeNull();
    const [, perNode, placed] = m!;
    expect(Number(placed)).toBe(Number(perNode) * 4);
    const j = cli(['why-pending', '-A', '--from', dir, '--now', DEMO_NOW, '--ca-args', '--max-nodes-per-scaleup=4', '-o', 'json', '--fail-on', 'never']);
    const doc = JSON.parse(j.stdout) as { pods: Array<{ name: string; nodeGroups?: Array<{ name: string; scaleUp?: Record<string, unknown> }> }> };
    const first = doc.pods.find((p) => p.name === 'api-5jnmtxgjl-prp7m');
    const size = first?.nodeGroups?.find((g) => g.name === 'demo-general')?.scaleUp;
    expect(size).toEqual({ pods: REPLICAS, podsPerNode: Number(perNode), nodesNeeded: Math.ceil(REPLICAS / Number(perNode)), nodesAllowed: 4, limitedBy: 'max-nodes-per-scaleup', podsPlaced: Number(placed), podsLeftPending: REPLICAS - Number(placed) });
  });

  it('the machine formats still list every pod', () => {
    const r = cli(['why-pending', '-A', '--from', dir, '--now', DEMO_NOW, '-o', 'name', '--fail-on', 'never']);
    expect(r.stdout.trim().split('\n')).toHaveLength(REPLICAS + 7);
  });
});
