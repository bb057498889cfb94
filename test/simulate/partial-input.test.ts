// A pods-only input (`kubectl get pods -n web -o json` and nothing else) is partial input, recognised as such: the
// answers that need the rest are "not evaluated", with what to add; not a cluster of one namespace and no nodes.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOffline } from '../../src/gather/offline.js';
import { partialPods, podsMissingIn } from '../../src/simulate/partial-input.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { capturingDeps, PIPED_JSON } from '../commands/in-process.js';
import { DEMO, DEMO_NOW } from '../commands/run.js';

const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-pods-only-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A directory holding the demo's pods of `namespaces`, as one pods.json List, and `more` files copied from the demo. */
function podsOf(name: string, namespaces: string[], more: string[] = []): string {
  const dir = join(tmp, name);
  const list = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8'));
  list.items = list.items.filter((p: { metadata: { namespace: string } }) => namespaces.includes(p.metadata.namespace));
  mkdirSync(dir);
  writeFileSync(join(dir, 'pods.json'), JSON.stringify(list));
  for (const f of more) writeFileSync(join(dir, f), readFileSync(join(DEMO, f)));
  return dir;
}

describe('pods alone', () => {
  it('one namespace: recognised, with the namespace, the command it came from and what to add', async () => {
    const raw = await loadOffline([podsOf('web', ['web'])]);
    const p = partialPods(raw)!;
    expect(p.podsOnly).toEqual(['web']);
    expect(p.detail).toMatch(/^the input is pods alone \(9 pod\(s\) of namespace web, as `kubectl get pods -n web -o json` prints\), without the cluster around them: .* Add `kubectl get pods -A -o json`, `kubectl get nodes -o json`/);
    expect(raw.podsPartial).toEqual(p);
    // said once, instead of the bare "no Nodes" warning
    expect(raw.warnings).toContain(p.detail);
    expect(raw.warnings.some((w) => w.startsWith('no Nodes in the input'))).toBe(false);
    // any other namespace may hold pods the input does not show (CA's own, in kube-system)
    expect(podsMissingIn(p, 'kube-system')).toBe(true);
    expect(podsMissingIn(p, 'web')).toBe(false);
  });

  it('pods beside the nodes are not pods alone (the namespace rule decides)', async () => {
    const raw = await loadOffline([podsOf('web-and-nodes', ['web'], ['nodes.json'])]);
    expect(partialPods(raw)?.podsOnly).toBeUndefined();
  });

  it('why-pending tells the user on stderr, and no pod gets a verdict it cannot have', async () => {
    const c = capturingDeps({ realNow: () => new Date(DEMO_NOW) });
    const r = await runWhyPending({ ...PIPED_JSON, now: DEMO_NOW, from: [podsOf('web-cli', ['web'])], all: true, allNamespaces: true, output: 'json', failOn: 'error' } as WhyPendingOptions, c.deps);
    expect(c.stderr()).toContain('warning: the input is pods alone (9 pod(s) of namespace web');
    const json = JSON.parse(c.stdout());
    for (const p of json.pods) expect(['not-evaluated', 'not-pending']).toContain(p.verdict);
    expect(r.exitCode).toBe(0);
  });
});
