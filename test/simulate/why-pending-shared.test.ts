// Pods of one ReplicaSet share their simulation (equivalence groups), but not their verdict: one may be ignored by CA
// while another makes CA scale up. What only the scale-up pod may say (the expander's pick) must not leak.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWhyPending } from '../../src/commands/why-pending.js';
import type { PodReport } from '../../src/model/why-pending.js';
import { capturingDeps, PIPED_JSON } from '../commands/in-process.js';
import { DEMO } from '../commands/run.js';

const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-shared-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function whyPendingJson(dir: string): Promise<PodReport[]> {
  const c = capturingDeps();
  await runWhyPending({ ...PIPED_JSON, from: [dir], all: true, allNamespaces: true }, c.deps);
  return JSON.parse(c.stdout()).pods;
}

describe('equivalent Pending pods', () => {
  it('mark the expander’s pick only on the pod CA scales up for, not on a sibling CA ignores', async () => {
    const dir = join(tmp, 'demo');
    cpSync(DEMO, dir, { recursive: true });
    const list = JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8'));
    const api = list.items.find(
      (p: { metadata: { name: string }; spec: { nodeName?: string } }) =>
        p.metadata.name.startsWith('api-') && !p.spec.nodeName,
    );
    // a sibling the scheduler has not looked at yet: no PodScheduled condition, so CA leaves it alone
    const sibling = structuredClone(api);
    sibling.metadata.name = `${api.metadata.name.slice(0, -5)}aaaaa`;
    sibling.metadata.uid = '1a2b3c4d-5e6f-4a0b-9c8d-7e6f5a4b3c2d';
    sibling.status.conditions = [];
    list.items.push(sibling);
    writeFileSync(join(dir, 'pods.json'), JSON.stringify(list, null, 4));

    for (const order of ['as listed', 'sibling first']) {
      if (order === 'sibling first') {
        list.items = [sibling, ...list.items.filter((p: unknown) => p !== sibling)];
        writeFileSync(join(dir, 'pods.json'), JSON.stringify(list, null, 4));
      }
      const pods = await whyPendingJson(dir);
      const up = pods.find((p) => p.name === api.metadata.name);
      const ignored = pods.find((p) => p.name === sibling.metadata.name);
      expect(up?.verdict, order).toBe('scale-up');
      expect(up?.nodeGroups.filter((g) => g.expanderChoice).map((g) => g.name), order).toEqual([up?.expander?.choice]);
      expect(ignored?.verdict, order).toBe('ignored');
      expect(ignored?.nodeGroups.some((g) => g.expanderChoice), order).toBe(false);
      expect(ignored?.expander, order).toBeUndefined();
    }
  });
});
