// Issue 28, "kubectl's habits": the mistakes and habits a kubectl user brings, through the real CLI where the process
// matters (argument parsing, the environment, bin/) and in process where the command shows the same.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { checksNaming, filterChecks, runExplain, runListChecks } from '../../src/commands/checks.js';
import { CHECKS } from '../../src/checks/index.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const demo = ['--from', DEMO, '--now', DEMO_NOW];
const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-habits-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a mistyped command is an unknown command whatever flags follow it', () => {
  it.each([
    [['why-pendng', '-A', ...demo], 'why-pendng', 'why-pending'],
    [['pending', '-A', ...demo], 'pending', 'why-pending'],
    [['why-pendng', '-n', 'payments', 'ledger-db-0', ...demo], 'why-pendng', 'why-pending'],
    [[...demo, 'scale-down-blocker', '--node', 'ip-10-0-14-37'], 'scale-down-blocker', 'scale-down-blockers'],
  ])('%j', (args, typo, meant) => {
    const r = cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: unknown command '${typo}'\n(Did you mean ${meant}?)\nRun 'casdoctor --help' for usage.\n`);
    expect(r.stdout).toBe('');
  });

  it('a global option\'s value is not taken for a command (-o name why-pending is why-pending)', () => {
    const r = cli(['-o', 'name', 'why-pending', '-n', 'payments', 'ledger-db-0', ...demo, '--fail-on', 'never']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('pod/ledger-db-0\n');
  });
});

describe('bin/ before a build', () => {
  it.each(['casdoctor.js', 'casdoctor', 'kubectl-casdoctor'])('bin/%s --help in a clone without dist/ says how to build, no stack', (bin) => {
    const clone = mkdtempSync(join(tmp, 'clone-'));
    cpSync(join(ROOT, 'bin'), join(clone, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(clone, 'package.json'));
    const r = spawnSync(process.execPath, [join(clone, 'bin', bin), '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('error: casdoctor is not built: run npm run build (or npm ci && npm run demo)\n');
    expect(r.stdout).toBe('');
  });
});

describe('explain takes the names casdoctor prints, not only check ids', () => {
  async function explain(term: string) {
    const c = capturingDeps();
    await runExplain(term, PIPED_JSON, c.deps);
    return { page: c.stdout().split('\n')[0], note: c.stderr() };
  }

  it.each([
    ['NotEnoughPdb', 'pdb-blocks-scale-down'],
    ['ScaleDownDisabledAnnotation', 'node-scale-down-disabled'],
    ['max node group size reached', 'node-group-max-size-reached'],
    ['NodeGroupMinSizeReached', 'node-group-min-size-reached'],
    ['NotSafeToEvictAnnotation', 'pod-not-safe-to-evict'],
    ['LocalStorageRequested', 'pod-local-storage'],
    ['UnmovableKubeSystemPod', 'pod-unmovable-kube-system'],
    ['ControllerNotFound', 'pod-controller-not-found'],
    ['NoPlaceToMovePods', 'node-no-place-to-move-pods'],
    ['NotAutoscaled', 'node-not-autoscaled'],
    ['Insufficient cpu', 'pod-insufficient-resources'],
    ['node(s) had untolerated taint', 'pod-untolerated-taint'],
    ['NodeClassNotReady', 'karpenter-nodeclass-not-ready'],
    ['DisruptionBlocked', 'karpenter-node-disruption-blocked'],
  ])('explain %j prints %s, and says so on stderr', async (term, id) => {
    const r = await explain(term);
    expect(r.page).toBe(`# ${id}`);
    expect(r.note.startsWith(`${JSON.stringify(term)} is explained by ${id}`)).toBe(true);
  });

  it('names the other pages that mention the term', async () => {
    expect((await explain('NotEnoughPdb')).note).toContain('also named in pdb-allows-no-disruption');
  });

  it('a mistyped check id still gets "did you mean", not a page search', async () => {
    await expect(explain('pod-untolerated-taints')).rejects.toThrow('no check "pod-untolerated-taints"; did you mean pod-untolerated-taint?');
  });

  it('a word no page names is an error, not a guess', async () => {
    await expect(explain('Frobnicated')).rejects.toThrow('no check "Frobnicated"');
    expect(checksNaming('pod', new Map([['pod-x', 'pod pod pod']]))).toEqual([]);
  });

  it('through the real CLI, the page is stdout and the note stderr', () => {
    const r = cli(['explain', 'NotEnoughPdb']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('# pdb-blocks-scale-down\n')).toBe(true);
    expect(r.stderr).toContain('"NotEnoughPdb" is explained by pdb-blocks-scale-down');
  });
});

describe('checks: the severities a check can emit, and filters', () => {
  async function list(filter = {}, output: 'json' | 'table' = 'json') {
    const c = capturingDeps();
    await runListChecks({ ...PIPED_JSON, output }, c.deps, filter);
    return c.stdout();
  }
  type Row = { id: string; severity: string; severities: string[]; autoscaler: string; commands: string[] };

  it('shows every severity its page declares, most severe first', async () => {
    const rows = JSON.parse(await list()) as Row[];
    const by = (id: string) => rows.find((r) => r.id === id)!;
    expect(by('asg-process-suspended').severities).toEqual(['error', 'warning', 'info']);
    expect(by('launch-template-drift').severities).toEqual(['warning', 'info']);
    expect(by('ca-loop-stalled').severities).toEqual(['error']);
    for (const r of rows) expect(r.severities, r.id).toContain(r.severity);
    const table = await list({}, 'table');
    expect(table).toMatch(/^asg-process-suspended +error\/warning\/info +asg-audit /m);
  });

  it('the severities each command emits on the bundled examples are within the range `checks` shows', async () => {
    const rows = new Map((JSON.parse(await list()) as Row[]).map((r) => [r.id, r.severities]));
    const seen: string[] = [];
    for (const [example, now] of [['demo', DEMO_NOW], ['karpenter', '2026-11-24T14:00:00Z'], ['externalgrpc', DEMO_NOW]]) {
      for (const args of [['asg-audit'], ['why-pending', '--all', '-A'], ['scale-down-blockers']]) {
        const r = cli([...args, '--from', join(ROOT, 'examples', example), '--now', now, '-o', 'json', '--fail-on', 'never']);
        for (const m of r.stdout.matchAll(/"checkId": "([^"]+)",\s*"severity": "(\w+)"/g)) {
          seen.push(m[1]);
          expect(rows.get(m[1]), `${example} ${args[0]}: ${m[1]} emitted as ${m[2]}`).toContain(m[2]);
        }
      }
    }
    expect(seen.length).toBeGreaterThan(20);
  });

  it('`checks karpenter`, --provider and --command filter', async () => {
    const ids = async (f: object) => (JSON.parse(await list(f)) as Row[]).map((r) => r.id);
    const karpenter = await ids({ word: 'karpenter' });
    expect(karpenter.length).toBeGreaterThan(5);
    expect(karpenter.every((id) => id.startsWith('karpenter-'))).toBe(true);
    expect(await ids({ provider: 'karpenter' })).toEqual(karpenter);
    expect(await ids({ provider: 'externalgrpc' })).toContain('externalgrpc-instance-stuck');
    expect(await ids({ provider: 'aws' })).not.toContain('externalgrpc-instance-stuck');
    expect(await ids({ provider: 'aws' })).toContain('asg-process-suspended');
    const sdb = (JSON.parse(await list({ command: 'scale-down-blockers' })) as Row[]);
    expect(sdb.every((r) => r.commands.includes('scale-down-blockers'))).toBe(true);
    expect(sdb.map((r) => r.id)).toContain('pdb-blocks-scale-down');
    expect(await ids({ word: 'pdb' })).toEqual(['pdb-allows-no-disruption', 'pdb-blocks-scale-down', 'pdb-matches-nothing']);
    expect(() => filterChecks(CHECKS, { word: 'nothing-like-this' })).toThrow('no check matches "nothing-like-this"');
    expect(() => filterChecks(CHECKS, { provider: 'gce' })).toThrow('--provider "gce": use one of');
  });

  it('through the real CLI: `checks karpenter` is a filter, not "too many arguments"', () => {
    const r = cli(['checks', 'karpenter']);
    expect(r.code).toBe(0);
    const ids = r.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]);
    expect(ids.every((id) => id.startsWith('karpenter-'))).toBe(true);
  });
});

describe('colours for less -R: --color=always|never|auto and FORCE_COLOR', () => {
  const ESC = '\u001b[';
  const run = (args: string[], env: Record<string, string | undefined>) =>
    cli(['why-pending', '-n', 'payments', 'ledger-db-0', ...demo, '--fail-on', 'never', ...args], { NO_COLOR: undefined, ...env });

  it.each([
    [[], {}, false],
    [['--color=always'], {}, true],
    [['--color', 'always'], {}, true],
    [['--color'], {}, true],
    [[], { FORCE_COLOR: '1' }, true],
    [[], { FORCE_COLOR: '0' }, false],
    [['--color=never'], { FORCE_COLOR: '1' }, false],
    [['--no-color'], { FORCE_COLOR: '1' }, false],
    [[], { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
    [['--color=always'], { NO_COLOR: '1' }, true],
    [['--color=auto'], { FORCE_COLOR: '1' }, false],
  ])('%j with %j in a pipe: colours %s', (args, env, coloured) => {
    const r = run(args, env);
    expect(r.code).toBe(0);
    expect(r.stdout.includes(ESC)).toBe(coloured);
    expect(r.stdout).toContain('ledger-db-0');
  });

  it('--color takes only always, never or auto', () => {
    const r = run(['--color=sometimes'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Allowed choices are always, never, auto");
  });
});

describe('scale-down-blockers names a node as kubectl and asg-audit do', () => {
  const names = (args: string[], from = demo) => {
    const r = cli(['scale-down-blockers', ...args, ...from, '-o', 'name']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return r.stdout;
  };

  it('a positional node, as `kubectl describe node ip-10-0-14-37`', () => {
    expect(names(['ip-10-0-14-37'])).toBe('node/ip-10-0-14-37.ec2.internal\n');
    expect(names(['node/ip-10-0-14-37.ec2.internal'])).toBe('node/ip-10-0-14-37.ec2.internal\n');
  });

  it('an EC2 instance id for --node, and positionally, found in spec.providerID', () => {
    // examples/demo/nodes.json: ip-10-0-11-142 is aws:///us-east-1a/i-0093ef85be7adedb3
    expect(names(['--node', 'i-0093ef85be7adedb3'])).toBe('node/ip-10-0-11-142.ec2.internal\n');
    expect(names(['i-0093ef85be7adedb3'])).toBe('node/ip-10-0-11-142.ec2.internal\n');
  });

  it('an instance id no node has is an input error that says where it looked', () => {
    const r = cli(['scale-down-blockers', '--node', 'i-0000000000000000f', ...demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no node has instance i-0000000000000000f (spec.providerID)');
  });

  it('the node named twice, differently, is a usage error', () => {
    const r = cli(['scale-down-blockers', 'ip-10-0-14-37', '--node', 'ip-10-0-22-96', ...demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the node is named twice');
  });

  it('--nodegroup with a Karpenter NodePool name selects that pool\'s nodes (docs/karpenter.md)', () => {
    const karpenter = ['--from', join(ROOT, 'examples', 'karpenter'), '--now', '2026-11-24T14:00:00Z'];
    const batch = names(['--nodegroup', 'batch'], karpenter).trim().split('\n').sort();
    expect(batch).toEqual(['node/ip-10-20-11-66.ec2.internal', 'node/ip-10-20-12-19.ec2.internal']);
    expect(names(['--nodegroup', 'nodepool/batch'], karpenter).trim().split('\n').sort()).toEqual(batch);
    const table = cli(['scale-down-blockers', '--nodegroup', 'batch', ...karpenter]);
    expect(table.stdout).toContain('0 of 2 nodes could be removed now');
    expect(table.stdout).not.toContain('No nodes in scope');
  });
});

describe("why-pending takes a controller as kubectl's TYPE/NAME", () => {
  const names = (args: string[]) => {
    const r = cli(['why-pending', ...args, ...demo, '-o', 'name', '--fail-on', 'never']);
    expect(r.stderr).toBe('');
    return r.stdout;
  };

  it.each([
    [['deploy/api'], 'pod/api-5jnmtxgjl-prp7m\n'],
    [['deployment/api', '-n', 'web'], 'pod/api-5jnmtxgjl-prp7m\n'],
    [['deployments.apps/frontend'], 'pod/frontend-ndxrt2l4f-w4dtv\n'],
    [['statefulset/ledger-db'], 'pod/ledger-db-0\n'],
    [['sts/orders-pg', '-n', 'databases'], 'pod/orders-pg-0\n'],
    [['rs/frontend-ndxrt2l4f'], 'pod/frontend-ndxrt2l4f-w4dtv\n'],
    // a controller whose pods all run: nothing Pending to explain
    [['ds/aws-node'], ''],
    [['job/backfill-2026-11-20'], ''],
  ])('%j explains that controller\'s Pending pods', (args, out) => {
    expect(names(args)).toBe(out);
  });

  it('deploy/api is not read as namespace "deploy"; a controller with no pod there names itself and the Pending pods', () => {
    const r = cli(['why-pending', 'deploy/api', '-n', 'payments', ...demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('deployment/api owns no pod in namespace payments in the input; Pending pods: ');
    expect(r.stderr).not.toContain('pod deploy/api not found');
  });

  it('the text report is the controller\'s Pending pods, explained', () => {
    const r = cli(['why-pending', 'deploy/api', ...demo, '--fail-on', 'never']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('↑ web/api-5jnmtxgjl-prp7m  CA scales up');
    expect(r.stdout).not.toContain('frontend-ndxrt2l4f-w4dtv');
  });

  it('ownership follows Kubernetes: a Deployment through its ReplicaSet <name>-<pod-template-hash>, a CronJob through its Job', async () => {
    const { ownedBy, parseControllerRef } = await import('../../src/commands/selector.js');
    const pod = (kind: string, name: string, labels: Record<string, string> = {}) => ({
      metadata: { name: 'p', namespace: 'ns', labels, ownerReferences: [{ kind, name, controller: true }] },
    });
    expect(ownedBy(pod('ReplicaSet', 'api-5jnmtxgjl', { 'pod-template-hash': '5jnmtxgjl' }), parseControllerRef('deploy/api')!)).toBe(true);
    // api-v2's ReplicaSet is not api's, though its name starts with "api-"
    expect(ownedBy(pod('ReplicaSet', 'api-v2-5jnmtxgjl', { 'pod-template-hash': '5jnmtxgjl' }), parseControllerRef('deploy/api')!)).toBe(false);
    expect(ownedBy(pod('Job', 'nightly-etl-29920440'), parseControllerRef('cj/nightly-etl')!)).toBe(true);
    const job = { metadata: { name: 'etl-1', namespace: 'ns', ownerReferences: [{ kind: 'CronJob', name: 'other', controller: true }] } };
    expect(ownedBy(pod('Job', 'etl-1'), parseControllerRef('cronjob/etl')!, [job])).toBe(false);
    expect(parseControllerRef('pod/x')).toBeUndefined();
    expect(parseControllerRef('payments/ledger-db-0')).toBeUndefined();
  });
});

describe('-o name -A prints what why-pending takes back', () => {
  it('NAMESPACE/NAME with -A, each line a valid argument; pod/NAME (kubectl\'s) without', () => {
    const all = cli(['why-pending', '-A', ...demo, '-o', 'name', '--fail-on', 'never']);
    const lines = all.stdout.trim().split('\n');
    expect(lines).toContain('payments/ledger-db-0');
    expect(lines).toHaveLength(8);
    const back = cli(['why-pending', lines[0], ...demo, '-o', 'name', '--fail-on', 'never']);
    expect(back.stderr).toBe('');
    expect(back.stdout).toBe(`pod/${lines[0].split('/')[1]}\n`);
    expect(cli(['why-pending', '--all', '-n', 'payments', ...demo, '-o', 'name', '--fail-on', 'never']).stdout).toBe('pod/ledger-db-0\n');
  });
});

describe('the overview: -o json|yaml, and no menu unless asked', () => {
  it('casdoctor -o json prints the overview\'s counts as a stable document, with the table\'s exit code', () => {
    const r = cli(['-o', 'json', ...demo]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as Record<string, any>;
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'command', 'now', 'findings', 'skipped', 'clusterAutoscaler', 'pending', 'scaleDown', 'nodeGroups', 'iam']);
    expect(doc.command).toBe('overview');
    expect(doc.pending).toMatchObject({ total: 8, noScaleUp: 6, scaleUp: 1 });
    expect(doc.scaleDown).toMatchObject({ nodes: 11, removable: 0 });
    expect(doc.nodeGroups.provider).toBe('aws');
    const table = cli(demo);
    expect(table.stdout).toContain(`${doc.pending.total} Pending: ${doc.pending.noScaleUp} no node group can place`);
  });

  it('-o yaml is the same document; -o name is refused with the formats it takes', () => {
    const y = cli(['-o', 'yaml', ...demo]);
    expect(y.stdout.startsWith('schemaVersion: 1\ncommand: overview\n')).toBe(true);
    const n = cli(['-o', 'name', ...demo]);
    expect(n.code).toBe(2);
    expect(n.stderr).toContain('-o name is not supported; use one of: table, json, yaml');
  });

  it('with Karpenter, the JSON says who serves the Pending pods', () => {
    const r = cli(['-o', 'json', '--from', join(ROOT, 'examples', 'karpenter'), '--now', '2026-11-24T14:00:00Z']);
    const doc = JSON.parse(r.stdout) as { karpenter: { routes: Record<string, number>; nodePools: Array<{ name: string }> } };
    expect(Object.keys(doc.karpenter.routes)).toEqual(['ca', 'karpenter', 'both', 'neither', 'unknown']);
    expect(doc.karpenter.nodePools.map((p) => p.name)).toContain('batch');
  });

  it('--menu off a terminal is a usage error, not a silent overview', () => {
    const r = cli(['--menu', ...demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--menu needs a terminal');
  });
});

describe('the README legend explains what the reports print', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const legend = readme.slice(readme.indexOf('### Reading a report (legend)'), readme.indexOf('## `casdoctor preflight`')).replace(/\s+/g, ' ');

  it('every mark the text reports print has a row', () => {
    for (const mark of ['✖', '▲', 'ℹ', '↑', '✔', '?']) expect(legend).toContain(`| \`${mark}\` |`);
  });

  it('every FITS value and every TEMPLATE source the examples print is explained', () => {
    for (const fits of ['`yes`', '`no`', '`no*`', '`?`']) expect(legend).toContain(fits);
    const sources = new Set<string>();
    for (const example of ['demo', 'externalgrpc']) {
      const r = cli(['why-pending', '-A', '--show-nodes', '--from', join(ROOT, 'examples', example), '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
      for (const m of r.stdout.matchAll(/"template": \{\s*"source": "(\w+)"/g)) sources.add(m[1]);
    }
    expect([...sources].sort()).toEqual(['asg', 'node', 'provider']);
    for (const s of [...sources, 'none']) expect(legend).toContain(`\`${s}\` (`);
  });
});

describe('--watch at a terminal redraws a compact view: what changed and the counts first', () => {
  it('why-pending: one line a pod under the counts, not the whole report each round', async () => {
    const { runWhyPending } = await import('../../src/commands/why-pending.js');
    let interrupt: (() => void) | undefined;
    const c = capturingDeps({
      stdoutIsTTY: true,
      terminalWidth: 80,
      onInterrupt: (h) => {
        interrupt = h;
        return () => undefined;
      },
    });
    const done = runWhyPending({ ...PIPED_JSON, output: 'table', from: [DEMO], allNamespaces: true, watch: '10s' } as never, c.deps);
    for (let i = 0; i < 600 && !c.stdout().includes('compact view'); i++) await new Promise((r) => setTimeout(r, 50));
    interrupt!();
    await done;
    const screen = c.stdout();
    expect(screen.startsWith('\u001b[H\u001b[2Jround 1 at ')).toBe(true);
    expect(screen).toContain('\n8 pod(s): ');
    expect(screen).toContain('\n  ↑ web/api-5jnmtxgjl-prp7m  ');
    expect(screen).toContain('\n  ✖ payments/ledger-db-0  ');
    // the whole report (CA health, node-group tables, fixes) is not reprinted each round
    expect(screen).not.toContain('NODE GROUP');
    expect(screen).not.toContain('fix:');
    expect(screen.split('\n').length).toBeLessThan(20);
  });

  it('off a terminal (a log), each round is still the whole report', async () => {
    const { runScaleDownBlockers } = await import('../../src/commands/scale-down-blockers.js');
    let interrupt: (() => void) | undefined;
    const c = capturingDeps({
      onInterrupt: (h) => {
        interrupt = h;
        return () => undefined;
      },
    });
    const done = runScaleDownBlockers({ ...PIPED_JSON, output: 'table', from: [DEMO], watch: '10s' } as never, c.deps);
    for (let i = 0; i < 600 && !c.stdout().includes('Why, by CA reason'); i++) await new Promise((r) => setTimeout(r, 50));
    interrupt!();
    await done;
    expect(c.stdout()).toContain('CA REASON');
    expect(c.stdout()).not.toContain('compact view');
  });
});

describe('a named pod that is not Pending', () => {
  it('gets "not pending" first, and CA health folded to one line (it cannot be the cause)', () => {
    const r = cli(['why-pending', 'customers-pg-0', ...demo]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[2]).toBe('✔ databases/customers-pg-0  not pending: scheduled on node ip-10-0-41-17.ec2.internal');
    expect(r.stdout).toContain('\nCA health: 1 finding(s) (ca-loop-failing), not about this pod; casdoctor why-pending --all shows them\n');
    expect(r.stdout).not.toContain('fix: Grant CA');
  });

  it('a Pending pod keeps the whole CA health block before it', () => {
    const r = cli(['why-pending', 'ledger-db-0', ...demo, '--fail-on', 'never']);
    expect(r.stdout.indexOf('CA health\n')).toBeLessThan(r.stdout.indexOf('payments/ledger-db-0'));
    expect(r.stdout).toContain('fix: Grant CA');
  });
});
