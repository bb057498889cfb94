#!/usr/bin/env node
// Generates data/instance-types.json from CA's static instance-type table (../shared/data/ec2-instance-types.tsv).
// Usage: node scripts/gen-instance-types.mjs [path/to/ec2-instance-types.tsv]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2] ?? join(root, '..', 'shared', 'data', 'ec2-instance-types.tsv');
const lines = readFileSync(source, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');
const header = lines.shift().split('\t');
const expected = ['instanceType', 'vcpu', 'memoryMiB', 'gpu', 'architecture', 'maxPods'];
if (header.join() !== expected.join()) {
  console.error(`unexpected header in ${source}: ${header.join(',')} (want ${expected.join(',')})`);
  process.exit(2);
}
const types = {};
for (const line of lines) {
  const [name, vcpu, mem, gpu, arch, maxPods] = line.split('\t');
  types[name] = {
    vcpu: Number(vcpu),
    memoryMiB: Number(mem),
    gpu: Number(gpu),
    architecture: arch,
    ...(maxPods ? { maxPods: Number(maxPods) } : {}),
  };
}
const out = {
  source:
    'kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/ec2_instance_types.go (static list last updated 2026-01-22) + awslabs/amazon-eks-ami eni-max-pods.txt, via shared/data/ec2-instance-types.tsv',
  sourceFile: relative(root, source).split('\\').join('/'),
  staticListLastUpdateTime: '2026-01-22',
  generatedAt: new Date().toISOString().slice(0, 10),
  count: Object.keys(types).length,
  instanceTypes: types,
};
// one instance type per line keeps diffs of a table refresh readable
const { instanceTypes, ...meta } = out;
const body = Object.entries(instanceTypes)
  .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
  .join(',\n');
const head = JSON.stringify(meta, null, 2).replace(/\n}$/, '');
writeFileSync(join(root, 'data', 'instance-types.json'), `${head},\n  "instanceTypes": {\n${body}\n  }\n}\n`);
console.error(`wrote data/instance-types.json: ${out.count} instance types`);
