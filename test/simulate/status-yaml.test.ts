// The fast reader of CA's status YAML must give what the yaml package gives, or nothing (then the caller uses the
// yaml package): checked on the statuses in this repository and on thousands of random documents in go-yaml's style,
// and on mutations of them that leave that style.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseStatusYaml } from '../../src/simulate/status-yaml.js';

function statusOf(file: string): string {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { items?: Array<{ data?: Record<string, string> }>; data?: Record<string, string> };
  const items = doc.items ?? [doc];
  const cm = items.find((c) => typeof c.data?.status === 'string');
  if (!cm?.data) throw new Error(`${file}: no status`);
  return cm.data.status;
}

/** The yaml package's answer, or 'throws'. */
function reference(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return 'throws';
  }
}

function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)], chance: (p: number) => next() < p };
}

// scalars as go-yaml writes them, and (now and then) some it does not: the reader must then answer as the yaml
// package does or not at all
const SCALARS = [
  'Healthy', 'NoActivity', 'InProgress', 'Running', '0', '7', '5000', '-3', '0.5', '1.25', 'true', 'false', 'null', '~', 'True',
  '"2026-11-21T09:59:52.118246319Z"', '2026-11-21 09:59:52.118246319 +0000 UTC', '"a quoted string"', "'single'", 'eks-general-a1b2',
  'ip-10-0-0-4.ec2.internal', 'a:b', 'a#b', '{}', '[]', 'NULL', 'FALSE', '12345678901234567890',
];
const ODD_SCALARS = [
  '1e3', '0x1F', '0o17', '.inf', '.nan', '+5', '007', '-0', '1.', '.5', '"esc\\"aped"', 'x: y', 'trailing ', '- dash', '&anchor',
  '*alias', '!tag x', '|', '>', '@at', '`tick', '%p', 'a #comment', '"unterminated', "it''s", '...', '---', '',
];
const KEYS = ['name', 'status', 'health', 'nodeCounts', 'registered', 'total', 'ready', 'time', 'minSize', 'maxSize', 'cloudProviderTarget', 'scaleUp', 'x.y/z', 'k-8'];
const ODD_KEYS = ['null', 'true', '_x', '"q"', 'a b', '1', 'Null'];
const scalarOf = (r: ReturnType<typeof rng>) => (r.chance(0.03) ? r.pick(ODD_SCALARS) : r.pick(SCALARS));
const keyOf = (r: ReturnType<typeof rng>) => (r.chance(0.03) ? r.pick(ODD_KEYS) : r.pick(KEYS));

function emit(r: ReturnType<typeof rng>, depth: number, indent: string, v2: boolean): string[] {
  const lines: string[] = [];
  const keys = new Set<string>();
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    const key = keyOf(r);
    if (keys.has(key) && !r.chance(0.05)) continue; // a duplicate now and then
    keys.add(key);
    const kind = depth > 2 ? 0 : r.int(4);
    if (kind <= 1) lines.push(`${indent}${key}: ${scalarOf(r)}`);
    else if (kind === 2) {
      lines.push(`${indent}${key}:`);
      lines.push(...emit(r, depth + 1, `${indent}  `, v2));
    } else {
      lines.push(`${indent}${key}:`);
      const seqIndent = v2 ? indent : `${indent}  `;
      const items = 1 + r.int(3);
      for (let j = 0; j < items; j++) {
        if (r.chance(0.3)) lines.push(`${seqIndent}- ${scalarOf(r)}`);
        else {
          const body = emit(r, depth + 1, `${seqIndent}  `, v2);
          lines.push(`${seqIndent}- ${body[0].trimStart()}`, ...body.slice(1));
        }
      }
    }
  }
  return lines;
}

describe('parseStatusYaml', () => {
  it("reads the statuses in this repository's examples and scenarios as the yaml package does, without falling back", () => {
    const files = ['examples/demo/configmaps-kube-system.json', 'examples/karpenter/configmaps-kube-system.json', 'test/scenarios/group-backoff/configmaps-kube-system.json'];
    for (const f of files) {
      const text = statusOf(f);
      const fast = parseStatusYaml(text);
      expect(fast, f).toBeDefined();
      expect(fast, f).toEqual(parse(text));
    }
  });

  it('agrees with the yaml package on 4,000 random go-yaml-style documents, or leaves them to it', () => {
    const r = rng(20261124);
    let read = 0;
    for (let round = 0; round < 4000; round++) {
      let text = `${emit(r, 0, '', r.chance(0.5)).join('\n')}\n`;
      if (r.chance(0.2)) {
        // a mutation: one character inserted somewhere
        const at = r.int(text.length);
        text = text.slice(0, at) + r.pick([' ', ':', '-', '#', '"', "'", '\n', '\t', '{', '[', '&', '\\', 'x']) + text.slice(at);
      }
      const fast = parseStatusYaml(text);
      if (fast === undefined) continue;
      read++;
      expect(fast, `round ${round}:\n${text}`).toEqual(reference(text));
    }
    // most documents are in the style the reader takes: the fast path is really used
    expect(read).toBeGreaterThan(1000);
    expect(read).toBeLessThan(4000);
  });

  it('leaves to the yaml package what it does not read: comments, anchors, block scalars, flow mappings, escapes, tabs', () => {
    for (const text of ['a: 1 # note\n', 'a: &x 1\nb: *x\n', 'a: |\n  text\n', 'a: {b: 1}\n', 'a: "x\\ty"\n', 'a:\n\tb: 1\n', '---\na: 1\n', 'a: 1\na: 2\n']) {
      expect(parseStatusYaml(text), text).toBeUndefined();
    }
  });
});
