import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  manifestSetFrom,
  parseManifestText,
  readManifests,
  scanJsonValues,
} from '../../src/gather/manifests.js';
import { InputError } from '../../src/model/errors.js';

const HELM_OUTPUT = `---
# Source: shop/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: shop
---
# Source: shop/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels:
    app.kubernetes.io/name: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: shop
  template:
    metadata:
      labels:
        app.kubernetes.io/name: shop
    spec:
      containers:
        - name: shop
          image: shop:1.0.0
---
# Source: shop/templates/pdb.yaml
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: shop
  namespace: shop
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: shop
`;

describe('reading manifests (preflight -f)', () => {
  it('keeps each object of helm template output with the line its mapping starts at, skipping comments', () => {
    const r = parseManifestText(HELM_OUTPUT, 'chart.yaml');
    expect(r.objects.map((o) => [o.object.kind, o.location.line])).toEqual([
      ['Deployment', 9],
      ['PodDisruptionBudget', 30],
    ]);
    expect(r.ignoredKinds).toEqual({ ServiceAccount: 1 });
  });

  it('unpacks a kind: List with the line of every item', () => {
    const text = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '  - apiVersion: v1',
      '    kind: Pod',
      '    metadata: {name: a}',
      '    spec: {containers: [{name: c, image: x}]}',
      '  - apiVersion: storage.k8s.io/v1',
      '    kind: StorageClass',
      '    metadata: {name: gp3}',
      '    provisioner: ebs.csi.aws.com',
    ].join('\n');
    const r = parseManifestText(text, 'list.yaml');
    expect(r.objects.map((o) => [o.object.metadata.name, o.location.line])).toEqual([
      ['a', 4],
      ['gp3', 8],
    ]);
  });

  it('computes the line of each object in JSON: a List, an array, and several concatenated documents', () => {
    const list = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [] } },
          { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2' }, spec: { containers: [] } },
        ],
      },
      null,
      2,
    );
    const r = parseManifestText(list, 'pods.json');
    const lines = list.split('\n');
    const expected = lines
      .map((l, i) => [l, i + 1] as const)
      .filter(([l]) => l === '    {')
      .map(([, n]) => n);
    expect(r.objects.map((o) => o.location.line)).toEqual(expected);

    const stream = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[]}}\n\n{"apiVersion":"policy/v1",\n "kind":"PodDisruptionBudget","metadata":{"name":"b"}}\n`;
    const s = parseManifestText(stream, 'stream.json');
    expect(s.objects.map((o) => [o.object.metadata.name, o.location.line])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
    const arr = parseManifestText(
      '[\n {"kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[]}},\n {"kind":"Pod","metadata":{"name":"y"},"spec":{"containers":[]}}\n]',
      'arr.json',
    );
    expect(arr.objects.map((o) => o.location.line)).toEqual([2, 3]);
  });

  it('finds value boundaries in JSON without being fooled by braces inside strings', () => {
    const text = '{"a":"}{[","items":[{"b":"]"},{"c":1}]}{"d":2}';
    const spans = scanJsonValues(text);
    expect(spans).toHaveLength(2);
    expect(text.slice(spans[0].start, spans[0].end)).toBe('{"a":"}{[","items":[{"b":"]"},{"c":1}]}');
    expect(spans[0].elements.map((e) => text[e])).toEqual(['{', '{']);
  });

  it('rejects malformed YAML and JSON with file:line:column', () => {
    expect(() => parseManifestText('kind: Pod\nmetadata:\n  name: [a\n', 'bad.yaml')).toThrow(
      /^bad\.yaml:\d+:\d+: malformed YAML/,
    );
    try {
      parseManifestText('{\n  "kind": "Pod",\n  "metadata": {"name": "a",}\n}', 'bad.json');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).message).toMatch(/^bad\.json:3:\d+: malformed JSON/);
    }
  });

  it('reads YAML 1.1 merge keys the way kubectl does', () => {
    const text = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: m}',
      'spec:',
      '  template:',
      '    metadata:',
      '      labels: &labels {app: m}',
      '    spec:',
      '      containers: [{name: c, image: x}]',
      '  selector:',
      '    matchLabels:',
      '      <<: *labels',
    ].join('\n');
    const [o] = parseManifestText(text, 'm.yaml').objects;
    expect((o.object.spec as { selector: { matchLabels: unknown } }).selector.matchLabels).toEqual({
      app: 'm',
    });
  });

  it('warns about annotation values that are not strings and keeps their text', () => {
    const text = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: p',
      '  annotations:',
      '    cluster-autoscaler.kubernetes.io/safe-to-evict: false',
      'spec: {containers: [{name: c, image: x}]}',
    ].join('\n');
    const r = parseManifestText(text, 'p.yaml');
    expect(r.warnings[0]).toMatch(
      /^p\.yaml:1: metadata\.annotations\.cluster-autoscaler\.kubernetes\.io\/safe-to-evict is the boolean false, not a string/,
    );
    expect(r.objects[0].object.metadata.annotations).toEqual({
      'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false',
    });
  });

  it('defaults namespaces like kubectl apply -n, never for cluster-scoped kinds, and keeps the later of two duplicates', () => {
    const a = parseManifestText(
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3}\nprovisioner: ebs.csi.aws.com\n',
      'a.yaml',
    );
    const b = parseManifestText(
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team}\nspec: {containers: []}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n',
      'b.yaml',
    );
    const set = manifestSetFrom(
      [
        { file: 'a.yaml', result: a },
        { file: 'b.yaml', result: b },
      ],
      'team',
    );
    expect(
      set.objects.map((o) => [o.object.kind, o.object.metadata.namespace, o.location.file, o.location.line]),
    ).toEqual([
      ['StorageClass', undefined, 'a.yaml', 6],
      ['Pod', 'team', 'b.yaml', 6],
    ]);
    expect(set.warnings.join('\n')).toMatch(
      /a\.yaml:1: Pod team\/p is defined again at b\.yaml:6; the later one is used/,
    );
  });

  it('reads directories recursively in name order, stdin once, and fails on a missing path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-manifests-'));
    mkdirSync(join(dir, 'b'));
    writeFileSync(
      join(dir, 'b', 'z.yml'),
      'apiVersion: v1\nkind: Pod\nmetadata: {name: z}\nspec: {containers: []}\n',
    );
    writeFileSync(
      join(dir, 'a.json'),
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[]}}',
    );
    writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
    writeFileSync(join(dir, '.hidden.yaml'), 'kind: Pod\nmetadata: {name: hidden}\n');
    const set = await readManifests([dir, '-'], {
      readStdin: async () =>
        'apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: migrate-}\nspec: {template: {spec: {containers: []}}}\n',
    });
    expect(set.objects.map((o) => o.object.metadata.name)).toEqual(['a', 'z', 'migrate-']);
    expect(set.sources).toEqual([join(dir, 'a.json'), join(dir, 'b', 'z.yml'), '<stdin>']);
    expect(set.objects[2].location).toEqual({ file: '<stdin>', line: 1 });
    await expect(readManifests(['-', '-'])).rejects.toThrow(/only once/);
    await expect(readManifests([join(dir, 'missing')])).rejects.toThrow(/no such file or directory/);
  });

  it('points an eksctl ClusterConfig given with -f to --eksctl', () => {
    const r = parseManifestText(
      'apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: demo}\n',
      'cluster.yaml',
    );
    expect(r.objects).toEqual([]);
    expect(r.warnings[0]).toMatch(/pass it with --eksctl/);
  });
});
