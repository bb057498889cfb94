import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseNodeGroupsFile } from '../../src/gather/node-groups-file.js';

const ROOT = join(import.meta.dirname, '..', '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/node-groups.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true }).compile(schema);
const EXAMPLE = readFileSync(join(ROOT, 'examples/preflight/node-groups.yaml'), 'utf8');

const head = 'apiVersion: casdoctor.io/v1alpha1\nkind: NodeGroups\nclusterName: demo\nnodeGroups:\n';

/** Both the JSON Schema and the reader must accept or reject a document. */
function verdicts(text: string): { schema: boolean; reader: boolean | string } {
  const schemaOk = validate(parse(text)) as boolean;
  try {
    parseNodeGroupsFile(text, 'ng.yaml');
    return { schema: schemaOk, reader: true };
  } catch (e) {
    return { schema: schemaOk, reader: (e as Error).message };
  }
}

describe("casdoctor's node-groups file (--node-groups)", () => {
  it('validates the shipped example against schemas/node-groups.schema.json', () => {
    expect(validate(parse(EXAMPLE)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('reads the example into groups with node-template tags unless propagateASGTags is false', () => {
    const r = parseNodeGroupsFile(EXAMPLE, 'node-groups.yaml');
    const batch = r.groups.find((g) => g.name === 'batch')!;
    expect(batch.asgTags.map((t) => t.key)).toEqual([
      'k8s.io/cluster-autoscaler/enabled',
      'k8s.io/cluster-autoscaler/demo',
      'k8s.io/cluster-autoscaler/node-template/taint/dedicated',
    ]);
    expect(batch.labels).toEqual({ workload: 'batch' });
    const gpu = r.groups.find((g) => g.name === 'gpu')!;
    expect(gpu.eks?.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }]);
    expect(gpu.location).toEqual({ file: 'node-groups.yaml', line: 17 });
  });

  it('takes an explicit capacity instead of an instance type', () => {
    const text = `${head}  - name: metal\n    capacity: {cpu: "96", memory: 384Gi, pods: "250"}\n    architecture: arm64\n    zones: [us-east-1a]\n    maxSize: 2\n`;
    expect(verdicts(text)).toEqual({ schema: true, reader: true });
    const [g] = parseNodeGroupsFile(text, 'ng.yaml').groups;
    expect(g).toMatchObject({
      instanceTypes: [],
      capacity: { cpu: '96', memory: '384Gi', pods: '250' },
      architecture: 'arm64',
    });
  });

  it.each([
    [
      'an unknown field',
      `${head}  - name: a\n    instanceType: m5.large\n    zones: [us-east-1a]\n    maxSize: 1\n    minsize: 0\n`,
      /ng\.yaml:9: unknown field minsize/,
    ],
    [
      'a zone that is not an availability zone',
      `${head}  - name: a\n    instanceType: m5.large\n    zones: [us-east-1]\n    maxSize: 1\n`,
      /"us-east-1" is not an availability zone/,
    ],
    [
      'no maxSize',
      `${head}  - name: a\n    instanceType: m5.large\n    zones: [us-east-1a]\n`,
      /needs maxSize/,
    ],
    [
      'neither instance type nor capacity',
      `${head}  - name: a\n    zones: [us-east-1a]\n    maxSize: 1\n`,
      /needs instanceType, instanceTypes or capacity/,
    ],
    [
      'a taint effect Kubernetes does not know',
      `${head}  - name: a\n    instanceType: m5.large\n    zones: [us-east-1a]\n    maxSize: 1\n    taints: [{key: k, value: v, effect: NoEvict}]\n`,
      /effect "NoEvict"/,
    ],
    [
      'a capacity that is not a quantity',
      `${head}  - name: a\n    capacity: {cpu: "four", memory: 1Gi}\n    zones: [us-east-1a]\n    maxSize: 1\n`,
      /capacity\.cpu: "four" is not a quantity/,
    ],
  ])('rejects %s, in the schema and in the reader', (_what, text, message) => {
    const v = verdicts(text);
    expect(v.schema).toBe(false);
    expect(v.reader).toMatch(message);
  });
});
