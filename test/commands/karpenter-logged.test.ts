// "Karpenter logged" beside the verdicts, end to end in process: examples/karpenter plus a Karpenter log file given to
// --from (recognised by its content), in scale-down-blockers' and why-pending's text and JSON.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScaleDownBlockers, type ScaleDownBlockersOptions } from '../../src/commands/scale-down-blockers.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { ROOT } from './run.js';

const EXAMPLE = join(ROOT, 'examples', 'karpenter');
const NOW = '2026-11-24T14:00:00Z';
const rec = (time: string, message: string, values: Record<string, unknown>, level = 'INFO') =>
  JSON.stringify({ level, time, logger: 'controller', message, commit: '4d1b7e9', ...values });
let dir: string;
let logFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-karpenter-logged-'));
  logFile = join(dir, 'karpenter.log');
  const lines = [
    rec('2026-11-24T13:58:30Z', 'could not schedule pod', { Pod: { name: 'embedder-8jjx4nc2nb-p8vrm', namespace: 'ml' }, error: 'incompatible with nodepool "gpu", nodeclass not ready' }, 'ERROR'),
    rec('2026-11-24T13:59:00Z', 'disrupting node(s)', {
      command: 'Underutilized/7f1c: delete: nodepools=[general]: [ip-10-20-11-203.ec2.internal] -> [] (savings: $0.12)',
      decision: 'delete',
      'disrupted-nodes': [{ Node: { name: 'ip-10-20-11-203.ec2.internal' }, NodeClaim: { name: 'general-tq8vb' } }],
      'replacement-nodes': [],
      'pod-count': 2,
    }),
  ];
  writeFileSync(logFile, `${lines.join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Karpenter logged, beside the verdicts', () => {
  it('scale-down-blockers prints the line under the node it names, with its source line, and a disagreement finding', async () => {
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    await runScaleDownBlockers({ ...PIPED_JSON, now: NOW, from: [EXAMPLE, logFile], output: 'table' } as ScaleDownBlockersOptions, c.deps);
    const out = c.stdout().split(dir).join('<dir>');
    const at = out.indexOf('ip-10-20-11-203.ec2.internal (NodePool general');
    expect(at).toBeGreaterThan(0);
    expect(out.slice(at).split('\n')[1]).toBe('    Karpenter logged  disrupting node(s): underutilized, delete (2 pod(s)) at 2026-11-24T13:59:00Z (<dir>/karpenter.log:2)');
    expect(out).toContain('karpenter-log-disagrees  Node ip-10-20-11-203.ec2.internal: Karpenter logged "disrupting node(s): underutilized, delete (2 pod(s))"');
    expect(out).not.toMatch(/skipped checks[^\n]*karpenter-log-disagrees/);
  });

  it('why-pending -o json carries the line on the pod it names', async () => {
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    await runWhyPending({ ...PIPED_JSON, now: NOW, from: [EXAMPLE, logFile], all: true, allNamespaces: true, output: 'json' } as WhyPendingOptions, c.deps);
    const doc = JSON.parse(c.stdout());
    const pod = doc.pods.find((p: { name: string }) => p.name === 'embedder-8jjx4nc2nb-p8vrm');
    expect(pod.karpenter.logged).toEqual({
      at: '2026-11-24T13:58:30Z',
      kind: 'error',
      text: 'could not schedule pod: incompatible with nodepool "gpu", nodeclass not ready',
      source: logFile,
      line: 1,
    });
  });
});
