// examples/karpenter and examples/karpenter-only (written by scripts/gen-karpenter-demo.mjs): reproduced byte for byte by
// their generator, the Karpenter-only variant free of every trace of CA, and its README showing the tool's real output.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { buildOverview, renderOverview } from '../../src/commands/overview.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { ROOT } from './run.js';

const NOW = '2026-11-24T14:00:00Z';
const KONLY = join(ROOT, 'examples', 'karpenter-only');

/** The generator's output for a variant, compared file by file with the committed example. */
function regenerates(example: string, args: string[]): void {
  const dir = join(ROOT, 'examples', example);
  const out = mkdtempSync(join(tmpdir(), `casdoctor-${example}-`));
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'gen-karpenter-demo.mjs'), out, ...args], { stdio: 'pipe' });
    const committed = readdirSync(dir).filter((f) => f !== 'README.md').sort();
    expect(readdirSync(out).sort()).toEqual(committed);
    for (const f of committed) expect(readFileSync(join(out, f), 'utf8') === readFileSync(join(dir, f), 'utf8'), f).toBe(true);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The fenced block after a README heading. */
function block(readme: string, heading: string): string {
  const at = readme.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const open = readme.indexOf('\n```\n', at);
  const close = readme.indexOf('\n```\n', open + 5);
  return `${readme.slice(open + 5, close)}\n`;
}

describe('the Karpenter examples', () => {
  it('examples/karpenter is reproduced byte for byte by scripts/gen-karpenter-demo.mjs', () => regenerates('karpenter', []));

  it('examples/karpenter-only is reproduced byte for byte by scripts/gen-karpenter-demo.mjs --karpenter-only', () =>
    regenerates('karpenter-only', ['--karpenter-only']));

  it('examples/karpenter-only holds no trace of Cluster Autoscaler: no ASG file, Deployment, pod, status ConfigMap or event', () => {
    const files = readdirSync(KONLY);
    expect(files).not.toContain('asgs.json');
    expect(files).not.toContain('launch-template-versions.json');
    for (const f of files.filter((x) => x.endsWith('.json'))) expect(readFileSync(join(KONLY, f), 'utf8'), f).not.toContain('cluster-autoscaler');
    // and the rest of the cluster is the mixed example's
    expect(readFileSync(join(KONLY, 'nodepools.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'examples', 'karpenter', 'nodepools.json'), 'utf8'));
  });

  it("examples/karpenter-only/README.md shows why-pending's and the overview's real output", async () => {
    const readme = readFileSync(join(KONLY, 'README.md'), 'utf8');
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    const r = await runWhyPending({ ...PIPED_JSON, now: NOW, from: [KONLY], all: true, allNamespaces: true, output: 'table', failOn: 'error' } as WhyPendingOptions, c.deps);
    expect(r.exitCode).toBe(1);
    expect(block(readme, '## why-pending')).toBe(c.stdout().split(KONLY).join('examples/karpenter-only'));
    const o = capturingDeps({ realNow: () => new Date(NOW) });
    const { data } = await buildOverview({ ...PIPED_JSON, now: NOW, from: [KONLY], output: 'table' }, o.deps);
    // the piped overview ends with the next commands, which name the input as given
    const next = `Next:\n  casdoctor why-pending -A --from examples/karpenter-only --now ${NOW}\n  casdoctor scale-down-blockers --from examples/karpenter-only --now ${NOW}\n`;
    expect(block(readme, '## Overview')).toBe(renderOverview(data) + next);
  });
});
