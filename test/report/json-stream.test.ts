// Issue 18: machine reports are written chunk by chunk, and the chunks add up to exactly what one string used to hold.
import { Document, visit } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderMachineReport, writeMachineReport } from '../../src/commands/common.js';
import { type JsonReport, jsonChunks, renderJson } from '../../src/report/json.js';
import { safeJsonText } from '../../src/report/sanitize.js';

const finding = {
  checkId: 'pod-untolerated-taint',
  severity: 'error' as const,
  subject: { kind: 'Pod', name: 'api-5jnmtxgjl-prp7m', namespace: 'web' },
  message: 'Pod web/api-5jnmtxgjl-prp7m does not tolerate taint dedicated=databases:NoSchedule',
  evidence: [{ source: 'node group demo-databases', observed: 'taint dedicated=databases:NoSchedule' }],
  remediation: 'Add a toleration:\n  tolerations:\n    - key: dedicated\n      operator: Equal\n\n      value: databases',
  docsUrl: 'https://github.com/casdoctor/casdoctor/blob/main/docs/checks/pod-untolerated-taint.md',
};

/** A document with every shape JSON.stringify treats specially: undefined, functions, toJSON, empty containers, foreign text. */
function report(): JsonReport {
  return {
    schemaVersion: 1,
    command: 'scale-down-blockers',
    now: '2026-11-21T10:00:00.000Z',
    findings: [finding, { ...finding, message: 'label from a hostile pod: \u202eevil\u009b[2J\u2028end', nodeGroup: undefined }],
    skipped: [],
    summary: { nodes: 3, removable: 0, at: new Date('2026-11-21T10:00:00Z'), none: undefined, fn: () => 1 },
    notes: [],
    nodes: [
      { name: 'ip-10-0-14-37.ec2.internal', blockers: [{ rule: 'NotSafeToEvictAnnotation', pods: ['web/a', 'web/b'] }], empty: {} },
      undefined,
      'a string element',
      42,
      [[], [1, [2, { deep: [3] }]]],
    ],
    caHealth: { running: true, findings: [] },
  };
}

/** What renderJson was before it streamed: one JSON.stringify of the document, sanitized. */
function oneString(r: JsonReport): string {
  const { schemaVersion, command, now, findings, skipped, ...rest } = r;
  return `${safeJsonText(JSON.stringify({ schemaVersion, command, now, findings, skipped, ...rest }, null, 2))}\n`;
}

/** What -o yaml was before it streamed: the whole document parsed from the JSON into one yaml Document. */
function oneYaml(r: JsonReport): string {
  const doc = new Document(JSON.parse(oneString(r)), { aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_k, node) {
      if (typeof node.value === 'string' && /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(node.value))
        node.type = 'QUOTE_DOUBLE';
    },
  });
  return safeJsonText(doc.toString({ lineWidth: 0 }));
}

describe('streamed JSON', () => {
  it('adds up to exactly JSON.stringify of the same document, for every chunk size', () => {
    const expected = oneString(report());
    expect(renderJson(report())).toBe(expected);
    for (const size of [1, 7, 100, 4096]) expect([...jsonChunks(report(), size)].join(''), `chunks of ${size}`).toBe(expected);
  });

  it('writes an iterable (a generator of entries) as the array of its elements, building each only when reached', () => {
    const built: number[] = [];
    function* entries() {
      for (let i = 0; i < 3; i++) {
        built.push(i);
        yield { index: i, name: `pod-${i}` };
      }
    }
    const r = { ...report(), pods: entries() };
    const chunks = jsonChunks(r, 1);
    const first = chunks.next().value as string;
    expect(first.length).toBeGreaterThan(0);
    expect(built).toEqual([]);
    const out = first + [...chunks].join('');
    expect(built).toEqual([0, 1, 2]);
    expect(out).toBe(oneString({ ...report(), pods: [0, 1, 2].map((i) => ({ index: i, name: `pod-${i}` })) }));
  });

  it('never holds the document in one chunk: a 20,000-element list is written in pieces of about the chunk size', () => {
    const big = { ...report(), nodes: Array.from({ length: 20_000 }, (_, i) => ({ name: `ip-10-0-${i}.ec2.internal`, fits: false })) };
    const sizes = [...jsonChunks(big, 64 * 1024)].map((c) => c.length);
    expect(sizes.length).toBeGreaterThan(10);
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024 + 200);
  });

  it('escapes the characters a terminal acts on, as renderJson always did, and the data still parses to the same values', () => {
    const out = renderJson(report());
    expect(out).not.toMatch(/[\u202e\u009b\u2028]/);
    expect(out).toContain('\\u202eevil\\u009b[2J\\u2028end');
    expect(JSON.parse(out).findings[1].message).toBe('label from a hostile pod: \u202eevil\u009b[2J\u2028end');
  });
});

describe('streamed YAML', () => {
  it('is byte-equal to the YAML of the whole document, multi-line and hostile strings and empty lists included', async () => {
    expect(await renderMachineReport('yaml', report())).toBe(oneYaml(report()));
  });

  it('writes an empty top-level list as [] and a list of scalars under its key', async () => {
    const r: JsonReport = { schemaVersion: 1, command: 'asg-audit', now: 'n', findings: [], skipped: [], nodeGroups: ['a', 'b'], notes: [] };
    const out = await renderMachineReport('yaml', r);
    expect(out).toBe(oneYaml(r));
    expect(out).toContain('findings: []\n');
    expect(out).toContain('nodeGroups:\n  - a\n  - b\n');
  });
});

describe('writeMachineReport', () => {
  it('waits for the sink before writing the next chunk (backpressure)', async () => {
    const big = { ...report(), nodes: Array.from({ length: 5_000 }, (_, i) => ({ name: `node-${i}`, reasons: ['Insufficient cpu'] })) };
    const written: string[] = [];
    let release: (() => void) | undefined;
    const sink = (chunk: string) => {
      written.push(chunk);
      // the first chunk is slow to drain: nothing more may be written until it has
      if (written.length === 1) return new Promise<void>((resolve) => (release = resolve));
    };
    const done = writeMachineReport('json', big, sink);
    await new Promise((r) => setTimeout(r, 20));
    expect(written).toHaveLength(1);
    release!();
    await done;
    expect(written.length).toBeGreaterThan(1);
    expect(written.join('')).toBe(oneString(big));
  });
});
