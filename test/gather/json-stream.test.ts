import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDocuments } from '../../src/gather/json-stream.js';
import { loadOffline } from '../../src/gather/offline.js';
import { parseDocuments } from '../../src/gather/offline-read.js';
import { InputError } from '../../src/model/errors.js';

const DEMO = join(import.meta.dirname, '..', '..', 'examples', 'demo');
const demoPods = readFileSync(join(DEMO, 'pods.json'), 'utf8');
const demoNodes = readFileSync(join(DEMO, 'nodes.json'), 'utf8');

function file(name: string, text: string): string {
  const d = mkdtempSync(join(tmpdir(), 'casdoctor-json-stream-'));
  writeFileSync(join(d, name), text);
  return join(d, name);
}

/** Streams every file, in chunks small enough that items, batches and the list's end straddle chunk boundaries. */
const streamed = { streamThresholdBytes: 0, chunkBytes: 4096 };

describe('readDocuments', () => {
  it('streams a kubectl List and yields exactly what JSON.parse yields', async () => {
    for (const text of [demoPods, demoNodes]) {
      const got = await readDocuments(file('list.json', text), parseDocuments, streamed);
      expect(got).toEqual([JSON.parse(text)]);
    }
  });

  it('keeps an item larger than a chunk whole', async () => {
    const got = await readDocuments(file('pods.json', demoPods), parseDocuments, {
      streamThresholdBytes: 0,
      chunkBytes: 1024, // pod items are 3-20 KB
    });
    expect((got[0] as { items: unknown[] }).items).toHaveLength(JSON.parse(demoPods).items.length);
    expect(got).toEqual([JSON.parse(demoPods)]);
  });

  it('streams CRLF line ends, two-space indents and non-ASCII text alike', async () => {
    const doc = JSON.parse(demoNodes);
    doc.items[0].metadata.annotations['casdoctor.io/note'] = 'Zürich ✓ 東京';
    for (const text of [
      JSON.stringify(doc, null, 4).replaceAll('\n', '\r\n'),
      JSON.stringify(doc, null, 2),
      JSON.stringify(doc, null, 4),
    ]) {
      expect(await readDocuments(file('nodes.json', text), parseDocuments, streamed)).toEqual([doc]);
    }
  });

  it('reads an empty List and the keys around the items', async () => {
    const text = JSON.stringify(
      { apiVersion: 'v1', items: [], kind: 'List', metadata: { resourceVersion: '' } },
      null,
      4,
    );
    expect(await readDocuments(file('empty.json', text), parseDocuments, streamed)).toEqual([
      { apiVersion: 'v1', items: [], kind: 'List', metadata: { resourceVersion: '' } },
    ]);
  });

  it('parses compact JSON, aws output without items and YAML as whole documents', async () => {
    const compact = JSON.stringify(JSON.parse(demoNodes));
    expect(await readDocuments(file('c.json', compact), parseDocuments, streamed)).toEqual([
      JSON.parse(demoNodes),
    ]);
    const asgs = readFileSync(join(DEMO, 'asgs.json'), 'utf8');
    expect(await readDocuments(file('asgs.json', asgs), parseDocuments, streamed)).toEqual([JSON.parse(asgs)]);
    const yaml = 'kind: Pod\napiVersion: v1\nmetadata:\n  name: a\n---\nkind: Pod\napiVersion: v1\nmetadata:\n  name: b\n';
    expect(await readDocuments(file('p.yaml', yaml), parseDocuments, streamed)).toHaveLength(2);
  });

  it('reports a malformed streamed file with the same line and column as a whole-text parse', async () => {
    const lines = demoPods.split('\n');
    const at = lines.findIndex((l) => l.includes('"generateName"'));
    lines[at] = lines[at].replace(/,$/, ''); // a missing comma, deep inside the first item
    const path = file('bad.json', lines.join('\n'));
    const whole = await readDocuments(path, parseDocuments, { streamThresholdBytes: Infinity }).catch((e) => e);
    const stream = await readDocuments(path, parseDocuments, { ...streamed, wholeTextLimitBytes: 10 }).catch(
      (e) => e,
    );
    expect(whole).toBeInstanceOf(InputError);
    expect(stream).toBeInstanceOf(InputError);
    expect(whole.message).toMatch(new RegExp(`bad\\.json:${at + 2}:\\d+: malformed JSON`));
    expect(stream.position).toEqual(whole.position);
  });

  it('says how to fix a file too large for one string that is not an indented List', async () => {
    const path = file('huge.json', JSON.stringify(JSON.parse(demoNodes)));
    const err = await readDocuments(path, parseDocuments, { ...streamed, wholeTextLimitBytes: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toContain('huge.json');
    expect(err.message).toContain('indented like `kubectl get -o json`');
  });
});

describe('loadOffline with streaming', () => {
  it('loads the demo dump to the same snapshot streamed or whole', async () => {
    const whole = await loadOffline([DEMO], { streamThresholdBytes: Infinity });
    const stream = await loadOffline([DEMO], streamed);
    expect(stream).toEqual(whole);
    expect(stream.pods.length).toBeGreaterThan(50);
  });
});
