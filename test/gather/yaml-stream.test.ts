import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { readYamlStream } from '../../src/gather/yaml-file.js';
import { InputError } from '../../src/model/errors.js';

const DEMO = join(import.meta.dirname, '..', '..', 'examples', 'demo');
const demo = (f: string) => JSON.parse(readFileSync(join(DEMO, f), 'utf8'));

/** What the whole-document parser gives (nulls dropped, as the loader does); its first error throws. */
function whole(text: string): unknown[] {
  return parseAllDocuments(text, { uniqueKeys: true })
    .map((d) => {
      if (d.errors[0]) throw d.errors[0];
      return d.toJS({ maxAliasCount: 100 });
    })
    .filter((v) => v !== null && v !== undefined);
}

async function streamed(text: string, stats = { fast: 0, library: 0 }): Promise<unknown[]> {
  return readYamlStream(text, 'dump.yaml', { stats });
}

/** mulberry32: the same cases every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// scalars that exercise the core schema and the quoting rules of YAML printers
const SCALARS: unknown[] = [
  'plain', 'true', 'null', '', '~', '0', '1.5', '0x1F', '0o17', '1e3', '.inf', 'yes', 'no', '-', '--flag=a',
  'a: b', 'a #b', '#x', "it's", 'say "hi"', 'tab\there', 'back\\slash', 'Zürich ✓ 東京', ' lead', 'trail ',
  'line1\nline2', 'line1\nline2\n', 'line1\n\n  indented\n', '\nleading newline', 'ends with two\n\n',
  '0/11 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}, 10 Insufficient cpu, 10 Insufficient memory. preemption: 0/11 nodes are available.',
  'x'.repeat(150), 'k8s.io/cluster-autoscaler/node-template/label/team', '{"json": [1, 2]}', '[a, b]', '*alias', '&anchor',
  '!tag', '%percent', '@at', '`tick', '? q', ': c', '100m', '512Mi', '1.5.3Gi', '2026-11-21T10:00:00Z', '012', '+1', '-0.5',
  42, -7, 0, 3.25, 1e21, true, false, null, {}, [],
];
const KEYS = ['name', 'app.kubernetes.io/name', 'kubernetes.io/os', '8080', 'true', 'null', 'with space', 'a:b', 'x-y_z', 'ünï', "q'uote", 'k #h'];

function value(r: () => number, depth: number): unknown {
  const x = r();
  if (depth > 3 || x < 0.55) return SCALARS[Math.floor(r() * SCALARS.length)];
  if (x < 0.8) {
    const o: Record<string, unknown> = {};
    const n = Math.floor(r() * 5);
    for (let i = 0; i < n; i++) o[KEYS[Math.floor(r() * KEYS.length)]] = value(r, depth + 1);
    return o;
  }
  return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
}

function item(r: () => number, i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: 'default', labels: { app: `a${i % 3}` } },
    spec: value(r, 0),
    status: { conditions: [{ type: 'PodScheduled', status: 'False', message: SCALARS[i % SCALARS.length] }] },
  };
}

describe('readYamlStream', () => {
  it('reads a kubectl -o yaml List item by item into exactly what the whole-document parser gives', async () => {
    // kubectl's layout (sequences flush with their key) and the indented one other printers use
    for (const [f, indentSeq] of [['pods.json', false], ['nodes.json', true], ['events.json', false], ['deployments.json', true]] as const) {
      const list = demo(f);
      {
        const text = stringify(list, { indentSeq });
        const stats = { fast: 0, library: 0 };
        expect(await streamed(text, stats)).toEqual(whole(text));
        // the fast path did the work: every demo item is in the subset kubectl prints
        expect(stats).toEqual({ fast: list.items.length, library: 0 });
      }
    }
  });

  it('agrees with the whole-document parser on generated dumps (quoting, block scalars, folding, odd keys, CRLF)', async () => {
    const r = rng(15);
    let fast = 0;
    for (let round = 0; round < 60; round++) {
      const items = Array.from({ length: 1 + Math.floor(r() * 6) }, (_, i) => item(r, round * 10 + i));
      const list = { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
      const opts = {
        indentSeq: r() < 0.5,
        lineWidth: [0, 40, 80][Math.floor(r() * 3)],
        defaultStringType: (['PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'] as const)[Math.floor(r() * 3)],
        indent: r() < 0.8 ? 2 : 4,
      };
      let text = stringify(list, opts);
      if (r() < 0.3) text = text.replaceAll('\n', '\r\n');
      if (r() < 0.3) text = `# kubectl get pods -o yaml\n${text}`;
      const stats = { fast: 0, library: 0 };
      const got = await streamed(text, stats);
      expect(got, text).toEqual(whole(text));
      fast += stats.fast;
    }
    expect(fast).toBeGreaterThan(30);
  });

  it('agrees with the whole-document parser, error or value, when comments and blank lines are sprinkled in', async () => {
    const r = rng(1515);
    const items = Array.from({ length: 8 }, (_, i) => item(r, i));
    const asList = stringify({ apiVersion: 'v1', items, kind: 'List', metadata: {} }, { indentSeq: false, lineWidth: 40 });
    const asDocuments = items.map((i) => stringify(i, { indentSeq: false, lineWidth: 40 })).join('---\n');
    let agreedOnValue = 0;
    for (let round = 0; round < 150; round++) {
      const lines = (round % 2 ? asDocuments : asList).split('\n');
      for (let k = 0; k < 6; k++) {
        const at = 1 + Math.floor(r() * (lines.length - 1));
        const indent = /^ */.exec(lines[at])?.[0] ?? '';
        const pick = r();
        if (pick < 0.35) lines.splice(at, 0, `${indent}# note ${k}`);
        else if (pick < 0.6) lines.splice(at, 0, '');
        else if (pick < 0.8) lines[at] = `${lines[at]} # trailing`;
        else lines.splice(at, 0, `${' '.repeat(Math.floor(r() * 6))}# odd indent`);
      }
      const text = lines.join(r() < 0.5 ? '\n' : '\r\n');
      let expected: unknown;
      try {
        expected = whole(text);
      } catch {
        expected = 'error';
      }
      const got = await streamed(text).catch(() => 'error');
      expect(got, text).toEqual(expected);
      if (expected !== 'error') agreedOnValue++;
    }
    expect(agreedOnValue).toBeGreaterThan(40);
  });

  it('reads flow maps, anchors inside an item, comments and folded scalars as the library does', async () => {
    const text = [
      'apiVersion: v1',
      'items:',
      '- kind: Pod # the first',
      '  metadata: {name: a, namespace: default}',
      '  spec:',
      '    containers: &c',
      '    - name: app',
      '      args: [--v=4, "--x=y"]',
      '    initContainers: *c',
      '# between items',
      '- kind: Pod',
      '  metadata:',
      "    name: 'b'",
      '    annotations:',
      '      "quoted/key": >',
      '        folded',
      '        text',
      '      note: |-',
      '        # not a comment',
      '          indented',
      '  spec: !!map {}',
      'kind: List',
      'metadata:',
      '  resourceVersion: ""',
      '',
    ].join('\n');
    const stats = { fast: 0, library: 0 };
    expect(await streamed(text, stats)).toEqual(whole(text));
    expect(stats.library).toBe(2);
  });

  it('parses a List whose items share an anchor whole, and refuses it past the size limit with the -o json fix', async () => {
    const text = 'items:\n- &x {kind: Pod, metadata: {name: a}}\n- *x\nkind: List\n';
    expect(await streamed(text)).toEqual(whole(text));
    const err = await readYamlStream(text, 'pods.yaml', { wholeLimitBytes: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/^pods\.yaml: .*share YAML anchors.*-o json/);
  });

  it('reads multi-document files per document, with --- and ... markers and empty documents', async () => {
    const pods = demo('pods.json').items.slice(0, 3);
    const text = `---\n${pods.map((p: unknown) => stringify(p)).join('---\n')}...\n---\n# only a comment\n---\n${stringify(demo('nodes.json'))}`;
    const stats = { fast: 0, library: 0 };
    expect(await streamed(text, stats)).toEqual(whole(text));
    // three pods and the comment-only document as documents, the nodes as List items: all by the fast parser
    expect(stats).toEqual({ fast: 4 + demo('nodes.json').items.length, library: 0 });
  });

  it('reports a duplicate key in an item at its line in the file, in words', async () => {
    const text = stringify(demo('pods.json'), { indentSeq: false }).replace(/^ {2}kind: Pod\n/m, '  kind: Pod\n  kind: Pod\n');
    const line = text.split('\n').findIndex((l, i, a) => l === '  kind: Pod' && a[i - 1] === l) + 1;
    const err = await streamed(text).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe(`dump.yaml:${line}:3: malformed YAML: duplicate key "kind" in one mapping (kubectl and kustomize reject it: keep one)`);
  });

  it('reports a duplicate key after the items at its line in the file', async () => {
    const text = `${stringify(demo('pods.json'))}kind: List\n`;
    const line = text.split('\n').length - 1;
    const err = await streamed(text).catch((e) => e);
    expect(err.message).toMatch(new RegExp(`^dump\\.yaml:${line}:1: malformed YAML: duplicate key "kind"`));
  });

  it('reports malformed YAML in an item at its line in the file', async () => {
    const good = stringify(demo('nodes.json'));
    const text = good.replace('  kind: Node\n', '  kind: Node\n  bad: [unclosed\n');
    const line = text.split('\n').indexOf('  bad: [unclosed') + 1;
    const err = await streamed(text).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.position?.line).toBeGreaterThanOrEqual(line);
    expect(err.message).toMatch(/^dump\.yaml:\d+:\d+: malformed YAML: /);
  });
});
