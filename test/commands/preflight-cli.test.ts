// `casdoctor preflight` as CI runs it: the real process on examples/preflight, exit codes 0/1/2/3, every output file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cli, ROOT } from './run.js';

const EX = 'examples/preflight';
const NOW = ['--now', '2026-11-21T10:00:00Z'];
const BASE = [
  'preflight',
  '-f',
  `${EX}/manifests`,
  '--eksctl',
  `${EX}/cluster.yaml`,
  '--config',
  `${EX}/.casdoctor.yaml`,
  ...NOW,
];

/** Runs the CLI from the repository root (paths in reports are relative to it), optionally with stdin. */
function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('casdoctor preflight on examples/preflight (real process)', () => {
  it('exits 1 and writes every format at once: table on stdout, json, sarif, junit and markdown to files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-preflight-'));
    const files = { json: 'r.json', sarif: 'r.sarif', junit: 'out/junit.xml', markdown: 'comment.md' };
    const r = run([
      ...BASE,
      ...Object.entries(files).flatMap(([f, p]) => ['--output-file', `${f}=${join(dir, p)}`]),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^casdoctor preflight · 21 objects from 7 files/);
    expect(r.stdout).toMatch(
      /✖ 6 errors, 10 warnings, 1 note, 3 suppressed, 0 skipped, 0 not applicable · 6 findings at or above --fail-on error\n$/,
    );

    const json = JSON.parse(readFileSync(join(dir, files.json), 'utf8'));
    expect(json).toMatchObject({
      schemaVersion: 1,
      command: 'preflight',
      now: '2026-11-21T10:00:00.000Z',
      skipped: [],
      notApplicable: [],
    });
    // the CA-flag checks fire on a broken CA Deployment, which examples/preflight does not hold: the corpus
    // test (test/commands/preflight-corpus.test.ts) makes them fire through the real CLI
    const caFlagChecks = new Set(['ca-config-invalid', 'discovery-spec-invalid']);
    const preflightIds = CHECKS.filter(
      (c) => c.meta.commands.includes('preflight') && !caFlagChecks.has(c.meta.id),
    ).map((c) => c.meta.id);
    // the example produces every finding family: each preflight check fires at least once
    expect([...new Set(json.findings.map((f: { checkId: string }) => f.checkId))].sort()).toEqual(
      preflightIds,
    );
    for (const f of json.findings)
      expect(f.location.file).toMatch(/^examples\/preflight\/manifests\/[a-z-]+\.yaml$/);

    const sarif = JSON.parse(readFileSync(join(dir, files.sarif), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results).toHaveLength(json.findings.length);
    expect(readFileSync(join(dir, files.junit), 'utf8')).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="casdoctor preflight" tests="\d+" failures="6"/,
    );
    expect(readFileSync(join(dir, files.markdown), 'utf8')).toMatch(
      /^## ❌ casdoctor preflight: 6 errors, 10 warnings, 1 note\n/,
    );
  });

  it('exits 0 for clean manifests, and for findings below --fail-on', () => {
    const clean = run(['preflight', '-f', `${EX}/clean`, '--eksctl', `${EX}/cluster.yaml`, ...NOW]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/✔ 0 errors, 0 warnings, 0 notes/);
    const never = run([...BASE, '--fail-on', 'never', '-o', 'json']);
    expect(never.code).toBe(0);
    expect(JSON.parse(never.stdout).summary.failing).toBe(0);
  });

  it('puts only one machine format on stdout, with warnings on stderr', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-preflight-warn-'));
    // an unquoted boolean annotation: kubectl would reject it, preflight warns and goes on
    writeFileSync(
      join(dir, 'pod.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ops\n  annotations:\n    cluster-autoscaler.kubernetes.io/safe-to-evict: true\nspec:\n  containers: [{name: c, image: busybox, resources: {requests: {cpu: 10m, memory: 8Mi}}}]\n',
    );
    const r = run([
      'preflight',
      '-f',
      `${EX}/manifests/web.yaml`,
      '-f',
      dir,
      '--node-groups',
      `${EX}/node-groups.yaml`,
      '-o',
      'sarif',
      ...NOW,
    ]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).runs[0].tool.driver.name).toBe('casdoctor');
    expect(r.stderr).toMatch(
      /^warning: .*pod\.yaml:1: metadata\.annotations\.cluster-autoscaler\.kubernetes\.io\/safe-to-evict is the boolean true, not a string/,
    );
    // the text "true" still counts: the bare pod is safe to evict, so no workload-bare-pod finding
    const ruleIds = JSON.parse(r.stdout).runs[0].results.map((x: { ruleId: string }) => x.ruleId);
    expect(ruleIds).not.toContain('workload-bare-pod');
  });

  it('reads helm template style output from stdin and points findings at <stdin> lines', () => {
    const stream = ['web.yaml', 'ops.yaml']
      .map((f) => readFileSync(join(ROOT, EX, 'manifests', f), 'utf8'))
      .join('---\n');
    const r = run(['preflight', '-f', '-', '--eksctl', `${EX}/cluster.yaml`, '-o', 'json', ...NOW], stream);
    const bare = JSON.parse(r.stdout).findings.find(
      (f: { checkId: string }) => f.checkId === 'workload-bare-pod',
    );
    const line =
      stream.split('\n').findIndex((l, i, all) => l === 'apiVersion: v1' && all[i + 1] === 'kind: Pod') + 1;
    expect(bare.location).toEqual({ file: '<stdin>', line });
  });

  it('exits 2 on usage and input errors, naming the problem', () => {
    expect(run(['preflight', '--eksctl', `${EX}/cluster.yaml`]).stderr).toMatch(
      /preflight needs manifests: -f/,
    );
    const format = run([...BASE, '-o', 'yaml']);
    expect([format.code, format.stderr]).toEqual([
      2,
      expect.stringMatching(/-o yaml is not supported; use one of: table, json, sarif, junit, markdown/),
    ]);
    const outFile = run([...BASE, '--output-file', 'sarif']);
    expect([outFile.code, outFile.stderr]).toEqual([2, expect.stringMatching(/use <format>=<path>/)]);

    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-preflight-bad-'));
    writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: [oops\n');
    const broken = run(['preflight', '-f', join(dir, 'broken.yaml'), ...NOW]);
    expect([broken.code, broken.stderr]).toEqual([
      2,
      expect.stringMatching(/broken\.yaml:\d+:\d+: malformed YAML/),
    ]);
    writeFileSync(join(dir, 'cfg.yaml'), 'ignore:\n  - check: workload-bare-pod\n');
    const cfg = run([...BASE.slice(0, 7), '--config', join(dir, 'cfg.yaml'), ...NOW]);
    expect([cfg.code, cfg.stderr]).toEqual([
      2,
      expect.stringMatching(/cfg\.yaml:2: the ignore entry for workload-bare-pod needs a `reason`/),
    ]);
    expect(run(['preflight', '-f', `${EX}/clean`, '--eksctl', join(dir, 'missing.yaml')]).code).toBe(2);
  });

  it('exits 3 when node groups were asked for but none could be read, and --no-strict relaxes it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'casdoctor-empty-dump-'));
    mkdirSync(join(empty, 'k8s'));
    writeFileSync(
      join(empty, 'k8s', 'nodes.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }),
    );
    const args = ['preflight', '-f', `${EX}/clean`, '--from', empty, ...NOW];
    const strict = run([...args, '-o', 'json']);
    expect(strict.code).toBe(3);
    const report = JSON.parse(strict.stdout);
    expect(report.skipped.map((s: { checkId: string }) => s.checkId)).toContain('workload-unplaceable');
    expect(report.skipped[0].detail).toMatch(/no node groups could be read from --from/);
    expect(run([...args, '--no-strict']).code).toBe(0);
  });

  it('treats node-group checks as not applicable (exit 0) when no node groups were given at all', () => {
    const r = run(['preflight', '-f', `${EX}/clean`, '-o', 'json', ...NOW]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.skipped).toEqual([]);
    expect(report.notApplicable.map((n: { checkId: string }) => n.checkId)).toEqual(
      expect.arrayContaining([
        'workload-unplaceable',
        'workload-fits-only-real-nodes',
        'volume-immediate-binding-multi-az',
      ]),
    );
  });

  it('ships a doc page for every preflight check, printed by casdoctor explain', () => {
    const r = cli(['explain', 'workload-unplaceable']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# workload-unplaceable\n/);
    expect(readdirSync(join(ROOT, 'docs/checks'))).toContain('workload-zonal-volume-multi-az-group.md');
    expect(cli(['checks']).stdout).toMatch(
      /^workload-unplaceable\s+error\s+preflight\s+A workload no node group can place/m,
    );
  });
});
