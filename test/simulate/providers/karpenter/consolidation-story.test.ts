// "Why not consolidated" (consolidation-story.ts) on examples/karpenter's nodes: Karpenter's order of methods, the
// Consolidatable condition, the node's latest consolidation events, and "Karpenter may decide either" once nothing blocks.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { karpenterConsolidationStory, karpenterDisruptions } from '../../../../src/checks/lib/karpenter.js';
import { loadOffline } from '../../../../src/gather/offline.js';
import type { RawInputs } from '../../../../src/model/snapshot.js';
import { Analysis } from '../../../../src/simulate/analysis.js';
import { STATIC_TYPES } from '../../../checks/harness.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'karpenter');
const NOW = new Date('2026-11-24T14:00:00Z');
let example: RawInputs;
beforeAll(async () => {
  example = await loadOffline([EXAMPLE]);
}, 60_000);

function story(node: string, change: (r: RawInputs) => void = () => {}, now = NOW) {
  const r = structuredClone(example);
  change(r);
  const a = new Analysis(r, { now, staticInstanceTypes: STATIC_TYPES });
  const d = karpenterDisruptions(a).find((x) => x.node === node)!;
  return karpenterConsolidationStory(a, d)!;
}

describe('why not consolidated', () => {
  it('walks Karpenter\'s order for a node a PDB holds, with its Consolidatable condition and the DisruptionBlocked event', () => {
    const s = story('ip-10-20-11-141.ec2.internal');
    expect(s.consolidatable).toEqual({ status: 'True', since: '2026-11-24T06:46:07Z' });
    expect([s.policy, s.consolidateAfter]).toEqual(['WhenEmptyOrUnderutilized', '5m']);
    expect(s.steps.map((x) => `${x.method} ${x.verdict}`)).toEqual(['emptiness not-applicable', 'drift not-applicable', 'multi-node blocked', 'single-node blocked', 'expiration possible']);
    expect(s.steps[2].why).toBe('blocked by pod-do-not-disrupt, pdb-blocks-eviction');
    expect(s.said).toEqual([{ reason: 'DisruptionBlocked', at: '2026-11-24T13:58:00Z', message: 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=checkout/schema-migrator-vhnv495tk5-xzl2v)' }]);
  });

  it('says Karpenter may decide either, and why, once the PDB allows a disruption and the budget window has closed', () => {
    // general's budget allows 0 Underutilized disruptions 09:00–17:00 on weekdays: 18:00 is outside it
    const s = story(
      'ip-10-20-11-203.ec2.internal',
      (r) => {
        for (const b of r.pdbs) if (b.status) b.status.disruptionsAllowed = 1;
      },
      new Date('2026-11-24T18:00:00Z'),
    );
    expect(s.steps.filter((x) => x.verdict === 'may-decide-either').map((x) => x.method)).toEqual(['multi-node', 'single-node']);
    expect(s.steps[2].why).toContain('binary search bounded by 1 minute');
    // the node is spot and the example's Karpenter runs without SpotToSpotConsolidation
    expect(s.steps[3].why).toContain('(not with a spot node: SpotToSpotConsolidation is off)');
  });
});
