// `casdoctor preflight` against Karpenter NodePools through the real process: workloads × NodePools in Karpenter's
// order and words, the three outcomes, CA and Karpenter side by side, every output format and exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './run.js';

const FX = 'test/fixtures/preflight-karpenter';
const NOW = ['--now', '2026-11-21T10:00:00Z'];

function run(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), 'preflight', ...args, ...NOW], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface PoolVerdict {
  nodePool: string;
  outcome: string;
  chosen: boolean;
  stage?: string;
  error?: string;
  detail: string;
  instanceTypes: string[];
  instanceTypeCount: number;
  daemonSets: string[];
  daemonSetOverhead: Record<string, string>;
  notEvaluated?: Array<{ missing: string; supply: string }>;
  launchError?: string;
  notes: string[];
}
interface Workload {
  kind: string;
  namespace: string;
  name: string;
  location: { file: string; line: number };
  karpenter: {
    outcome: string;
    nodePool?: string;
    instanceTypes?: string[];
    instanceTypeCount?: number;
    event?: string;
    nodePools: PoolVerdict[];
  };
  servedBy: string;
  servedByText: string;
}
interface Report {
  findings: Array<{ checkId: string; severity: string; subject: { kind: string; name: string }; message: string; location: { file: string; line: number } }>;
  skipped: Array<{ checkId: string; reason: string; detail: string }>;
  notApplicable: Array<{ checkId: string; reason: string }>;
  nodePools: Array<{ name: string; weight: number; nodeClass: { name: string; given: boolean; zonesKnown: boolean; amisKnown: boolean }; zones?: string[]; taints: string[]; startupTaints: string[]; limits?: Record<string, string> }>;
  workloads: Workload[];
}

const workload = (r: Report, name: string): Workload => {
  const w = r.workloads.find((x) => x.name === name);
  if (!w) throw new Error(`no workload ${name}`);
  return w;
};
const pool = (w: Workload, name: string): PoolVerdict => {
  const p = w.karpenter.nodePools.find((x) => x.nodePool === name);
  if (!p) throw new Error(`no pool ${name} for ${w.name}`);
  return p;
};

describe('preflight -f workloads --nodepools NodePools (Karpenter only)', () => {
  let r: ReturnType<typeof run>;
  let json: Report;
  beforeAll(() => {
    r = run(['-f', `${FX}/workloads.yaml`, '--nodepools', `${FX}/nodepools.yaml`, '-o', 'json']);
    json = JSON.parse(r.stdout) as Report;
  });

  it('exits 1 because workloads no NodePool takes are errors', () => {
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
  });

  it('names the NodePool and example instance types for a workload that fits, with the DaemonSet overhead counted', () => {
    const web = workload(json, 'web');
    expect(web.karpenter.outcome).toBe('fits');
    expect(web.karpenter.nodePool).toBe('general');
    expect(web.servedBy).toBe('karpenter');
    expect(web.karpenter.instanceTypeCount).toBeGreaterThan(10);
    // the general pool allows c, m, r of generation 6 and up, amd64 only
    for (const t of web.karpenter.instanceTypes ?? []) expect(t).toMatch(/^[cmr]([6-9]|\d\d)[a-z-]*\.[a-z0-9]+$/);
    const general = pool(web, 'general');
    expect(general.chosen).toBe(true);
    expect(general.daemonSets).toEqual(['monitoring/node-agent']);
    expect(general.daemonSetOverhead).toMatchObject({ cpu: '200m', memory: '256Mi' });
    expect(json.findings.filter((f) => f.subject.name === 'web')).toEqual([]);
  });

  it("rejects a custom label the NodePools neither require nor set, in Karpenter's words", () => {
    const p = workload(json, 'payments');
    expect(p.karpenter.outcome).toBe('rejected');
    expect(pool(p, 'general')).toMatchObject({
      outcome: 'rejected',
      stage: 'requirements',
      error: 'incompatible requirements, label "example.com/team" does not have known values',
    });
    expect(pool(p, 'general').detail).toContain('neither lists in spec.template.spec.requirements nor sets in spec.template.metadata.labels');
  });

  it('rejects a GPU workload on pools without GPU instance types at the resources step, with the requests and overhead', () => {
    const t = pool(workload(json, 'trainer'), 'general');
    expect(t.stage).toBe('instance-types');
    expect(t.error).toMatch(/^no instance type has enough resources, requirements=.*resources=\{"cpu":"3200m","memory":"12544Mi","nvidia.com\/gpu":"1","pods":"2"\}$/);
  });

  it('rejects an arm64-only workload on amd64-only pools', () => {
    const t = workload(json, 'thumbnailer');
    expect(pool(t, 'general').error).toBe(
      'incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]',
    );
  });

  it('rejects a tainted pool the workload does not tolerate, and leaves startupTaints out of the check', () => {
    const s = pool(workload(json, 'search'), 'search');
    expect(s).toMatchObject({ stage: 'taints', error: 'did not tolerate taint (taint=dedicated=search:NoSchedule)' });
    expect(s.notes.join(' ')).toContain('startupTaints node.cilium.io/agent-not-ready=true:NoExecute are not checked');
    expect(json.nodePools.find((n) => n.name === 'search')).toMatchObject({
      taints: ['dedicated=search:NoSchedule'],
      startupTaints: ['node.cilium.io/agent-not-ready=true:NoExecute'],
    });
  });

  it('says limits cannot hold even one node of the smallest type the workload fits', () => {
    const t = pool(workload(json, 'report'), 'tiny');
    expect(t.stage).toBe('resource-limits');
    expect(t.error).toBe('all available instance types exceed limits for nodepool (NodePool=tiny)');
    expect(t.detail).toContain('the smallest instance type the pod fits, m6i.large, needs cpu 2 against limits cpu 1');
  });

  it('reports one karpenter-workload-unplaceable error per rejected workload, at its file and line', () => {
    const errors = json.findings.filter((f) => f.checkId === 'karpenter-workload-unplaceable');
    expect(errors.map((f) => f.subject.name).sort()).toEqual(['payments', 'report', 'search', 'thumbnailer', 'trainer']);
    for (const f of errors) {
      expect(f.severity).toBe('error');
      expect(f.location.file).toBe(`${FX}/workloads.yaml`);
    }
    expect(errors.find((f) => f.subject.name === 'payments')?.location.line).toBe(21);
  });

  it('lists the NodePools with their NodeClass zones from status.subnets, and CA placement as not applicable', () => {
    expect(json.nodePools.map((n) => [n.name, n.weight])).toEqual([
      ['general', 50],
      ['search', 20],
      ['tiny', 5],
    ]);
    expect(json.nodePools[0]).toMatchObject({
      nodeClass: { name: 'default', given: true, zonesKnown: true, amisKnown: true },
      zones: ['eu-west-1a', 'eu-west-1b'],
      limits: { cpu: '200', memory: '800Gi' },
    });
    expect(json.notApplicable).toContainEqual({
      checkId: 'workload-unplaceable',
      reason: 'no CA node groups given: Karpenter NodePools only',
    });
  });

  it('prints the NodePools and one verdict per workload in the table output', () => {
    const t = run(['-f', `${FX}/workloads.yaml`, '--nodepools', `${FX}/nodepools.yaml`]);
    expect(t.code).toBe(1);
    expect(t.stdout).toContain("Karpenter NodePools, in Karpenter's order");
    expect(t.stdout).toMatch(/Deployment shop\/web +✔ NodePool general: \d+ instance type\(s\), e\.g\. /);
    expect(t.stdout).toContain('      tiny: all available instance types exceed limits for nodepool (NodePool=tiny)');
    expect(t.stdout).toMatch(/✖ 5 errors, 0 warnings/);
  });
});

describe('preflight with NodePools among the -f manifests', () => {
  it('reads a NodePool, an EC2NodeClass and Deployments from one file: launch fails on AMIs, fits with zones unevaluated, not evaluated', () => {
    const r = run(['-f', `${FX}/mixed.yaml`, '-o', 'json']);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as Report;
    // arm64 types fit the graviton pool, but its EC2NodeClass resolved only an x86_64 AMI
    const transcoder = workload(json, 'transcoder');
    expect(transcoder.karpenter).toMatchObject({ outcome: 'launch-fails', nodePool: 'graviton' });
    expect(pool(transcoder, 'graviton').launchError).toBe('no instance types satisfy requirements of amis [ami-0c1d2e3f4a5b6c7d8]');
    expect(json.findings.find((f) => f.checkId === 'karpenter-workload-launch-fails')?.subject.name).toBe('transcoder');
    // the standard pool's EC2NodeClass is not given: it fits, and says what was not evaluated
    const api = workload(json, 'api');
    expect(api.karpenter).toMatchObject({ outcome: 'fits', nodePool: 'standard' });
    expect(pool(api, 'standard').notEvaluated?.map((n) => n.missing)).toEqual([
      'zones: EC2NodeClass standard is not among the inputs',
      'AMI requirements of EC2NodeClass standard (not among the inputs)',
    ]);
    // a workload pinned to a zone: graviton's subnets lack it; standard's subnets are unknown
    const ingest = workload(json, 'ingest');
    expect(ingest.karpenter.outcome).toBe('not-evaluated');
    expect(pool(ingest, 'graviton')).toMatchObject({ outcome: 'rejected', stage: 'instance-types' });
    expect(pool(ingest, 'standard').outcome).toBe('not-evaluated');
    expect(json.skipped).toEqual([
      expect.objectContaining({ checkId: 'karpenter-workload-unplaceable', reason: 'not-evaluated' }),
    ]);
    expect(json.skipped[0].detail).toContain('Deployment media/ingest');
    expect(json.nodePools.find((n) => n.name === 'standard')?.nodeClass).toEqual({
      name: 'standard',
      given: false,
      zonesKnown: false,
      amisKnown: false,
    });
  });

  it('exits 3 when only a not-evaluated workload remains under --fail-on never, and 0 with --no-strict', () => {
    expect(run(['-f', `${FX}/mixed.yaml`, '--fail-on', 'never', '-o', 'json']).code).toBe(3);
    expect(run(['-f', `${FX}/mixed.yaml`, '--fail-on', 'never', '--no-strict', '-o', 'json']).code).toBe(0);
  });

  it('warns about a v1beta1 NodePool and ignores it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-karpenter-'));
    const file = join(dir, 'all.yaml');
    writeFileSync(
      file,
      `${readFileSync(join(ROOT, FX, 'workloads.yaml'), 'utf8')}\n---\napiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata:\n  name: old\nspec:\n  template:\n    spec:\n      nodeClassRef:\n        name: default\n      requirements: []\n`,
    );
    const r = run(['-f', file, '-o', 'json']);
    expect(r.stderr).toMatch(/warning: .*all\.yaml:\d+: a NodePool of karpenter\.sh\/v1beta1 \(Karpenter v0\.32-v0\.37\) is not supported/);
    expect((JSON.parse(r.stdout) as { nodePools?: unknown }).nodePools).toBeUndefined();
  });
});

describe('preflight with NodePools from a --from dump', () => {
  it('reads the dump\'s NodePools, counts its nodes against the limits, and treats CA as absent, not as missing input', () => {
    const r = run(['-f', `${FX}/workloads.yaml`, '--from', 'test/fixtures/karpenter', '-o', 'json']);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as Report & { nodePools: Array<{ source: string }> };
    expect(json.nodePools.length).toBeGreaterThan(0);
    for (const p of json.nodePools) expect(p.source).toBe('from');
    expect(json.skipped).toEqual([]);
    expect(json.notApplicable.map((n) => n.reason)).toContain(
      'no CA node groups in the input and no CA Deployment: Karpenter NodePools only',
    );
    // a pool whose nodes already use its limits says so, instead of "cannot hold even one node"
    const exhausted = json.workloads.flatMap((w) => w.karpenter.nodePools).filter((p) => p.stage === 'node-limit');
    expect(exhausted.length).toBeGreaterThan(0);
    for (const p of exhausted) {
      expect(p.detail).toMatch(/^limits\.nodes 1 reached by the pool's nodes and in-flight NodeClaims; /);
      expect(p.detail).not.toContain('cannot hold even one');
    }
    // the GPU job tolerates the gpu pool's taint: only the pool's existing node keeps it out
    expect(pool(workload(json, 'trainer'), 'gpu').detail).toContain("more than the limits (nodes 1) leave after the pool's nodes");
  });

  it('exits 2 when --nodepools holds no NodePool, or when it and -f both ask for stdin', () => {
    const none = run(['-f', `${FX}/workloads.yaml`, '--nodepools', `${FX}/node-groups.yaml`]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`--nodepools ${FX}/node-groups.yaml: no karpenter.sh/v1 NodePool in the input`);
    const stdin = run(['-f', '-', '--nodepools', '-']);
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('-f - and --nodepools - both read stdin');
  });

  it('refuses a NodePool limit that is no quantity, naming the file, line and field (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-karpenter-'));
    const file = join(dir, 'pools.yaml');
    writeFileSync(file, readFileSync(join(ROOT, FX, 'nodepools.yaml'), 'utf8').replace('cpu: "1"\n', 'cpu: "1.5.3"\n'));
    const r = run(['-f', `${FX}/workloads.yaml`, '--nodepools', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pools\.yaml:\d+: NodePool tiny: spec\.limits\.cpu: "1\.5\.3" is not a valid quantity/);
  });
});

describe('preflight with CA node groups and Karpenter NodePools together', () => {
  let json: Report;
  let code: number | null;
  beforeAll(() => {
    const r = run(['-f', `${FX}/workloads.yaml`, '--nodepools', `${FX}/nodepools.yaml`, '--node-groups', `${FX}/node-groups.yaml`, '-o', 'json']);
    code = r.code;
    json = JSON.parse(r.stdout) as Report;
  });

  it('says which autoscaler serves each workload', () => {
    expect(code).toBe(1);
    const served = Object.fromEntries(json.workloads.map((w) => [w.name, w.servedBy]));
    expect(served).toEqual({
      web: 'both',
      payments: 'neither',
      trainer: 'ca',
      thumbnailer: 'neither',
      search: 'neither',
      report: 'neither',
      indexer: 'karpenter',
    });
    expect(workload(json, 'trainer').servedByText).toBe('Cluster Autoscaler, node group(s) legacy-gpu (no NodePool fits)');
  });

  it('warns when both autoscalers would add a node, and drops CA\'s "unplaceable" for a workload Karpenter serves', () => {
    expect(json.findings.filter((f) => f.checkId === 'karpenter-workload-served-by-both').map((f) => [f.subject.name, f.severity])).toEqual([['web', 'warning']]);
    const unplaceable = json.findings.filter((f) => f.checkId === 'workload-unplaceable').map((f) => f.subject.name);
    expect(unplaceable).not.toContain('indexer');
    expect(unplaceable).toContain('payments');
    // CA serves the trainer: Karpenter's rejection of it is no finding
    expect(json.findings.filter((f) => f.subject.name === 'trainer')).toEqual([]);
  });
});

describe('preflight Karpenter verdicts in every format', () => {
  it('writes them to SARIF, JUnit and markdown beside the table', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-karpenter-'));
    const r = run([
      '-f',
      `${FX}/workloads.yaml`,
      '--nodepools',
      `${FX}/nodepools.yaml`,
      '--output-file',
      `sarif=${join(dir, 'r.sarif')}`,
      '--output-file',
      `junit=${join(dir, 'junit.xml')}`,
      '--output-file',
      `markdown=${join(dir, 'r.md')}`,
    ]);
    expect(r.code).toBe(1);
    const sarif = JSON.parse(readFileSync(join(dir, 'r.sarif'), 'utf8'));
    const rules = sarif.runs[0].tool.driver.rules.map((x: { id: string }) => x.id);
    expect(rules).toEqual(expect.arrayContaining(['karpenter-workload-unplaceable', 'karpenter-workload-launch-fails', 'karpenter-workload-served-by-both']));
    const results = sarif.runs[0].results.filter((x: { ruleId: string }) => x.ruleId === 'karpenter-workload-unplaceable');
    expect(results).toHaveLength(5);
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase name="karpenter-workload-unplaceable" classname="casdoctor\.preflight\.Deployment\.shop\.payments"[^>]*>\s*<failure message="Deployment shop\/payments: no Karpenter NodePool would provision for it: general: incompatible requirements, label &quot;example\.com\/team&quot; does not have known values/);
    expect(junit).toMatch(/<testcase name="karpenter-workload-unplaceable" classname="casdoctor\.preflight\.Deployment\.shop\.web"[^>]*\/>/);
    const md = readFileSync(join(dir, 'r.md'), 'utf8');
    expect(md).toMatch(/^## ❌ casdoctor preflight: 5 errors/);
    expect(md).toContain('`karpenter-workload-unplaceable`');
  });

  it('never prints control characters from a NodePool manifest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-karpenter-'));
    const file = join(dir, 'pools.yaml');
    writeFileSync(
      file,
      readFileSync(join(ROOT, FX, 'nodepools.yaml'), 'utf8').replace('value: search\n', 'value: "search\\u001b[2J\\u001b]0;pwned\\u0007"\n'),
    );
    const r = run(['-f', `${FX}/workloads.yaml`, '--nodepools', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('did not tolerate taint (taint=dedicated=search');
    expect(r.stdout).not.toMatch(/[\u001b\u0007]/);
  });
});
