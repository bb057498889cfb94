// The per-pod node-group table: every group while there are few, the telling ones plus counts by reason when a cluster
// has hundreds (a 300-group cluster printed 270 lines per Pending pod).
import { describe, expect, it } from 'vitest';
import type { PodGroupResult, PodReport } from '../../src/model/why-pending.js';
import { GROUP_ROWS_SHOWN, renderWhyPendingText } from '../../src/report/why-pending-text.js';

function group(name: string, over: Partial<PodGroupResult>): PodGroupResult {
  return {
    name,
    fits: false,
    reasons: ['Insufficient cpu'],
    template: { source: 'asg', instanceType: 'm5.large' },
    discovered: true,
    minSize: 0,
    maxSize: 10,
    targetSize: 2,
    predicatesPass: false,
    failedPlugin: 'NodeResourcesFit',
    values: 'cpu 4 > 1930m free',
    details: [],
    ...over,
  };
}

function render(groups: PodGroupResult[]): string {
  const pod: PodReport = {
    namespace: 'web',
    name: 'api-7d9c-x2x8q',
    verdict: groups.some((g) => g.fits) ? 'scale-up' : 'no-scale-up',
    summary: 'test',
    requests: { cpu: '4' },
    scheduler: { message: '0/3 nodes are available: 3 Insufficient cpu.', nodes: [] },
    nodeGroups: groups,
  };
  return renderWhyPendingText({
    pods: [pod],
    findings: [],
    skipped: [],
    header: { ca: 'CA v1.32.1', now: '2026-11-21T10:00:00Z', source: 'test' },
    notes: [],
  });
}

const rowsOf = (text: string) =>
  text
    .split('\n')
    .filter((l) => /^ {2}ng-\d+ /.test(l))
    .map((l) => l.trim().split(/\s+/)[0]);

describe('the node-group table of a Pending pod', () => {
  it('lists every group when there are few', () => {
    const groups = Array.from({ length: GROUP_ROWS_SHOWN + 1 }, (_, i) => group(`ng-${String(i).padStart(3, '0')}`, {}));
    const text = render(groups);
    expect(rowsOf(text)).toEqual(groups.map((g) => g.name));
    expect(text).not.toContain('more node groups');
  });

  it('keeps the groups that fit or are only skipped by CA, then counts the hidden rest by reason', () => {
    const groups: PodGroupResult[] = [];
    for (let i = 0; i < 300; i++) {
      const name = `ng-${String(i).padStart(3, '0')}`;
      if (i === 250)
        groups.push(group(name, { fits: true, expanderChoice: true, reasons: [], predicatesPass: true, values: undefined }));
      else if (i < 15) groups.push(group(name, { fits: true, reasons: [], predicatesPass: true, values: undefined }));
      else if (i === 120)
        groups.push(group(name, { reasons: ['max node group size reached'], skipReason: 'max node group size reached', predicatesPass: true }));
      else if (i >= 280) groups.push(group(name, { discovered: false, reasons: ['not discovered by CA'] }));
      else if (i % 50 === 7) groups.push(group(name, { reasons: ['node(s) had untolerated taint {gpu: true}'] }));
      else groups.push(group(name, {}));
    }
    const text = render(groups);
    const rows = rowsOf(text);
    expect(rows).toHaveLength(GROUP_ROWS_SHOWN);
    expect(rows).toContain('ng-250'); // the expander's pick, even with more fitting groups than rows
    expect(rows.filter((r) => r !== 'ng-250')).toEqual(groups.slice(0, GROUP_ROWS_SHOWN - 1).map((g) => g.name));
    expect(rows).not.toContain('ng-290'); // undiscovered groups come last
    expect(rows).toEqual([...rows].sort()); // in name order
    const hidden = 300 - GROUP_ROWS_SHOWN;
    const count = (pred: (g: PodGroupResult) => boolean) => groups.filter((g) => pred(g) && !rows.includes(g.name)).length;
    const taints = count((g) => g.reasons[0]?.includes('taint'));
    const fits = count((g) => g.fits);
    const maxSize = count((g) => g.reasons[0] === 'max node group size reached');
    expect(fits).toBe(4);
    expect(text).toContain(
      `… and ${hidden} more node groups: ${hidden - 20 - taints - fits - maxSize} × Insufficient cpu · 20 × not discovered by CA · ${taints} × node(s) had untolerated taint {gpu: true} · ${fits} × fits · ${maxSize} × max node group size reached (every group: -o wide)`,
    );
  });
});
