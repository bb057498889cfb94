// scripts/casdoctor-dump.sh with stub `kubectl` and `aws` on PATH that print what the real ones print for the demo
// cluster (its files, filtered as the API would): the script asks for every ASG's launch template by id and version, its
// activities and the instance types in use, writes exactly what --from reads, and the dump reads back to the demo's
// report. No network: the stubs read files.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

let tmp: string;
let bin: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-dump-script-'));
  bin = join(tmp, 'bin');
  mkdirSync(bin);
  const common = `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const DEMO = ${JSON.stringify(DEMO)};
const INSTANCE_TYPES = ${JSON.stringify(join(ROOT, 'data', 'instance-types.json'))};
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(join(tmp, 'calls.log'))}, JSON.stringify([path.basename(process.argv[1]), ...args]) + '\\n');
const opt = (name) => { const i = args.indexOf(name); return i < 0 ? undefined : args[i + 1]; };
const json = (file) => JSON.parse(fs.readFileSync(path.join(DEMO, file), 'utf8'));
const print = (v) => process.stdout.write(JSON.stringify(v, null, 4) + '\\n');
`;
  const kubectl = `${common}
const FILES = { pods: 'pods.json', nodes: 'nodes.json', events: 'events.json', poddisruptionbudgets: 'pdbs.json',
  persistentvolumeclaims: 'pvcs.json', persistentvolumes: 'pvs.json', storageclasses: 'storageclasses.json',
  replicasets: 'replicasets.json', deployments: 'deployments.json', statefulsets: 'statefulsets.json',
  daemonsets: 'daemonsets.json', jobs: 'jobs.json', priorityclasses: 'priorityclasses.json',
  'provisioningrequests.autoscaling.x-k8s.io': 'provisioningrequests.json', 'capacitybuffers.autoscaling.x-k8s.io': 'capacitybuffers.json',
  podtemplates: 'podtemplates.json' };
if (args.includes('logs')) { process.stdout.write(fs.readFileSync(path.join(DEMO, 'cluster-autoscaler.log'))); process.exit(0); }
const r = args[args.indexOf('get') + 1];
if (r === 'configmap') { print(json('configmaps-kube-system.json')); process.exit(0); }
if (FILES[r]) { print(json(FILES[r])); process.exit(0); }
process.stderr.write('error: the server doesn\\'t have a resource type "' + r.split('.')[0] + '"\\n');
process.exit(1);
`;
  const aws = `${common}
const asgs = json('asgs.json').AutoScalingGroups;
const cmd = args.slice(0, 2).join(' ');
const query = opt('--query');
const text = (rows) => process.stdout.write(rows.map((r) => r.map((v) => v ?? 'None').join('\\t')).join('\\n') + '\\n');
if (cmd === 'autoscaling describe-auto-scaling-groups') {
  if (!query) print({ AutoScalingGroups: asgs });
  else if (query === 'AutoScalingGroups[].[AutoScalingGroupName]') text(asgs.map((g) => [g.AutoScalingGroupName]));
  else if (query.startsWith('AutoScalingGroups[].[LaunchTemplate.LaunchTemplateId')) {
    text(asgs.map((g) => { const m = g.MixedInstancesPolicy?.LaunchTemplate?.LaunchTemplateSpecification;
      return [g.LaunchTemplate?.LaunchTemplateId, g.LaunchTemplate?.Version, m?.LaunchTemplateId, m?.Version, g.LaunchConfigurationName]; }));
  } else { process.stderr.write('stub: unknown query ' + query + '\\n'); process.exit(255); }
} else if (cmd === 'ec2 describe-launch-template-versions') {
  const id = opt('--launch-template-id');
  const v = opt('--versions');
  const all = json('launch-template-versions.json').LaunchTemplateVersions.filter((x) => x.LaunchTemplateId === id);
  const latest = Math.max(...all.map((x) => x.VersionNumber));
  print({ LaunchTemplateVersions: all.filter((x) => v === '$Default' ? x.DefaultVersion : v === '$Latest' ? x.VersionNumber === latest : String(x.VersionNumber) === v) });
} else if (cmd === 'autoscaling describe-scaling-activities') {
  const name = opt('--auto-scaling-group-name');
  print({ Activities: json('scaling-activities.json').Activities.filter((x) => x.AutoScalingGroupName === name) });
} else if (cmd === 'ec2 describe-instance-types') {
  const table = JSON.parse(fs.readFileSync(INSTANCE_TYPES, 'utf8')).instanceTypes;
  const names = args.slice(args.indexOf('--instance-types') + 1).filter((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--output');
  print({ InstanceTypes: names.map((n) => ({ InstanceType: n, VCpuInfo: { DefaultVCpus: table[n].vcpu }, MemoryInfo: { SizeInMiB: table[n].memoryMiB },
    ProcessorInfo: { SupportedArchitectures: [table[n].architecture === 'arm64' ? 'arm64' : 'x86_64'] },
    ...(table[n].gpu ? { GpuInfo: { Gpus: [{ Name: 'L4', Manufacturer: 'NVIDIA', Count: table[n].gpu }] } } : {}) })) });
} else { process.stderr.write('stub: unknown command ' + args.join(' ') + '\\n'); process.exit(255); }
`;
  writeFileSync(join(bin, 'kubectl'), kubectl);
  writeFileSync(join(bin, 'aws'), aws);
  chmodSync(join(bin, 'kubectl'), 0o755);
  chmodSync(join(bin, 'aws'), 0o755);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dump(out: string, extra: string[] = []) {
  return spawnSync('sh', [join(ROOT, 'scripts', 'casdoctor-dump.sh'), '-o', out, ...extra], {
    encoding: 'utf8',
    // the stubs first; node for their shebang; the shell's own tools
    env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmp },
  });
}

describe('scripts/casdoctor-dump.sh', () => {
  it('writes what --from reads, launch templates by id and version for every ASG, and reads back to the demo (real CLI)', () => {
    const out = join(tmp, 'dump');
    const r = dump(out, ['--since', '2h']);
    expect(r.status, r.stderr).toBe(0);
    // Karpenter is not installed on the demo cluster: said, not fatal
    expect(r.stderr).toContain('casdoctor-dump.sh: warning: nodepools.karpenter.sh not read (error: the server doesn\'t have a resource type "nodepools"); skipped');
    const calls = readFileSync(join(tmp, 'calls.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    const lts = calls.filter((c) => c[2] === 'describe-launch-template-versions').map((c) => `${c[c.indexOf('--launch-template-id') + 1]} ${c[c.indexOf('--versions') + 1]}`);
    // each ASG's own version: $Latest, none given ($Default), 3, $Default, $Latest, the mixed policy's $Default, $Latest
    expect(lts).toEqual([
      'lt-0a1b2c3d4e5f60001 $Latest',
      'lt-0a1b2c3d4e5f60002 $Default',
      'lt-0a1b2c3d4e5f60003 3',
      'lt-0a1b2c3d4e5f60004 $Default',
      'lt-0a1b2c3d4e5f60005 $Latest',
      'lt-0a1b2c3d4e5f60006 $Default',
      'lt-0a1b2c3d4e5f60007 $Latest',
    ]);
    expect(calls.filter((c) => c[2] === 'describe-scaling-activities')).toHaveLength(7);
    expect(calls.find((c) => c.includes('logs'))).toEqual(['kubectl', '-n', 'kube-system', 'logs', 'deploy/cluster-autoscaler', '--since=2h']);
    const types = calls.find((c) => c[2] === 'describe-instance-types');
    expect(types?.slice(types.indexOf('--instance-types') + 1, types.indexOf('--output')).sort()).toEqual(
      ['c5.2xlarge', 'g6f.xlarge', 'm5.large', 'm5.xlarge', 'm5a.large', 'm6i.large', 'r5.2xlarge'],
    );
    expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/^Taken \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ by casdoctor dump script/m);

    const fromDump = cli(['why-pending', '-A', '--from', out, '--now', DEMO_NOW, '-o', 'json']);
    const fromDemo = cli(['why-pending', '-A', '--from', DEMO, '--now', DEMO_NOW, '-o', 'json']);
    expect(fromDump.stderr).toBe('');
    const verdicts = (s: string) =>
      (JSON.parse(s) as { pods: Array<{ namespace: string; name: string; verdict: string }> }).pods.map((p) => `${p.namespace}/${p.name} ${p.verdict}`);
    expect(verdicts(fromDump.stdout)).toEqual(verdicts(fromDemo.stdout));
    const audit = cli(['asg-audit', '--from', out, '--now', DEMO_NOW, '-o', 'json']);
    expect(audit.stderr).toBe('');
    const findings = (s: string) =>
      (JSON.parse(s) as { findings: Array<{ checkId: string; subject?: { name?: string } }> }).findings.map((f) => `${f.checkId} ${f.subject?.name ?? ''}`).sort();
    expect(findings(audit.stdout)).toEqual(findings(cli(['asg-audit', '--from', DEMO, '--now', DEMO_NOW, '-o', 'json']).stdout));
  }, 180_000);

  it('refuses a directory that is not empty, and an unknown argument', () => {
    const out = join(tmp, 'full');
    mkdirSync(out);
    writeFileSync(join(out, 'x'), '');
    const r = dump(out);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`casdoctor-dump.sh: ${out} exists and is not empty: choose another directory with -o`);
    const u = dump(join(tmp, 'u'), ['--bogus']);
    expect(u.status).toBe(2);
    expect(u.stderr).toContain('casdoctor-dump.sh: unknown argument: --bogus');
  });
});
