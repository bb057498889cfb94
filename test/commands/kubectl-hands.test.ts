// Issue 15: casdoctor as a kubectl user's hands expect it, through the real CLI (dist/cli.js).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const demo = ['--from', DEMO, '--now', DEMO_NOW];

describe('exit codes: every usage error exits 2, never the findings code 1', () => {
  it.each([
    [['why-pending', '--ekctl', 'x', ...demo], "unknown option '--ekctl'", 'why-pending'],
    [['why-pending', '--al', ...demo], '(Did you mean --all?)', 'why-pending'],
    [['explain'], "missing required argument 'check-id'", 'explain'],
    [['completion'], "missing required argument 'shell'", 'completion'],
    [['why-pending', 'a', 'b', ...demo], 'too many arguments', 'why-pending'],
    [['preflight', '--ekctl', 'x.yaml'], "unknown option '--ekctl'", 'preflight'],
  ])('%j exits 2 and points at that command\'s help', (args, message, command) => {
    const r = cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(`Run 'casdoctor ${command} --help' for usage.`);
    expect(r.stdout).toBe('');
  });

  it('the overview on a directory with nothing casdoctor reads exits 2 like the subcommands, claiming nothing about IAM', () => {
    const empty = mkdtempSync(join(tmpdir(), 'casdoctor-empty-'));
    const r = cli(['--from', empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no Pods, Nodes or Auto Scaling groups in ${empty}`);
    expect(r.stdout).not.toContain('every action CA needs is allowed');
  });

  it('a usage error raised by the command itself names that command\'s help', () => {
    const r = cli(['why-pending', ...demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Run 'casdoctor why-pending --help' for usage.");
  });
});

describe('commands and help', () => {
  it('a mistyped command suggests the one meant and exits 2', () => {
    const r = cli(['why-pendin', ...demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'why-pendin'");
    expect(r.stderr).toContain('(Did you mean why-pending?)');
    expect(r.stdout).toBe('');
  });

  it('`help <command>` prints that command\'s help, exit 0', () => {
    const r = cli(['help', 'scale-down-blockers']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: casdoctor scale-down-blockers [options]');
  });

  it('`help <unknown>` names the unknown command and suggests the one meant, exit 2', () => {
    const r = cli(['help', 'whypending']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'whypending'\n(Did you mean why-pending?)\nRun 'casdoctor --help' for the commands.\n");
  });

  it('-n=NAMESPACE and -l=SELECTOR work as in kubectl', () => {
    const r = cli(['why-pending', '-n=payments', 'ledger-db-0', ...demo, '-o', 'name', '--fail-on', 'never']);
    expect(r.stdout).toBe('pod/ledger-db-0\n');
    const l = cli(['why-pending', '--all', '-l=app=api', ...demo, '-o', 'name', '--fail-on', 'never']);
    expect(l.stdout).toBe('pod/api-5jnmtxgjl-prp7m\n');
  });

  it('`version` and `--version` print the version', () => {
    for (const args of [['version'], ['--version']]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    }
  });

  it('explain in a pipe prints the Markdown page itself (explain x > x.md)', () => {
    const r = cli(['explain', 'pod-untolerated-taint']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'docs', 'checks', 'pod-untolerated-taint.md'), 'utf8'));
  });

  it.each(['why-pending', 'scale-down-blockers', 'asg-audit', 'snapshot', 'checks', 'explain'])(
    '%s --help lists the global flags its examples use, and has examples',
    (command) => {
      const r = cli([command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Global Options:');
      for (const flag of ['-o, --output <format>', '--from <path>', '--now <rfc3339>', '--context <name>', '--profile <name>', '--region <region>', '--fail-on <level>'])
        expect(r.stdout).toContain(flag);
      expect(r.stdout).toMatch(/Examples:\n {2}casdoctor /);
    },
  );
});

describe('names as kubectl prints them (offline: every namespace in the files, as `kubectl get -f` shows them)', () => {
  const pods = (stdout: string) =>
    (JSON.parse(stdout) as { pods: Array<{ namespace: string; name: string }> }).pods.map((p) => `${p.namespace}/${p.name}`);

  it('why-pending takes kubectl\'s TYPE/NAME: pod/ledger-db-0 -n payments is the pod, not namespace "pod"', () => {
    for (const name of ['pod/ledger-db-0', 'pods/ledger-db-0', 'po/ledger-db-0']) {
      const r = cli(['why-pending', name, '-n', 'payments', ...demo, '-o', 'json', '--fail-on', 'never']);
      expect(r.stderr).toBe('');
      expect(pods(r.stdout)).toEqual(['payments/ledger-db-0']);
    }
  });

  it('-A alone explains every Pending pod in every namespace, as --all -A does', () => {
    const alone = cli(['why-pending', '-A', ...demo, '-o', 'json', '--fail-on', 'never']);
    const both = cli(['why-pending', '--all', '-A', ...demo, '-o', 'json', '--fail-on', 'never']);
    expect(alone.code).toBe(0);
    expect(pods(alone.stdout)).toHaveLength(8);
    expect(pods(alone.stdout)).toEqual(pods(both.stdout));
  });

  it('scale-down-blockers --node takes the short name its own table prints, and node/NAME', () => {
    for (const node of ['ip-10-0-14-37', 'node/ip-10-0-14-37.ec2.internal']) {
      const r = cli(['scale-down-blockers', '--node', node, ...demo, '-o', 'json']);
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as { nodes: Array<{ name: string }> }).nodes.map((n) => n.name)).toEqual(['ip-10-0-14-37.ec2.internal']);
    }
  });

  it('a node name that is neither a full nor a short node name is not found, and the nodes are listed', () => {
    const r = cli(['scale-down-blockers', '--node', 'ip-10-0-1', ...demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('node ip-10-0-1 not found; nodes: ip-10-0-11-142.ec2.internal');
  });
});

describe('formats', () => {
  const wp = ['why-pending', '-A', ...demo, '--fail-on', 'never'];

  it('-o=json is -o json, as kubectl accepts it', () => {
    const eq = cli([...wp, '-o=json']);
    expect(eq.code).toBe(0);
    expect(eq.stdout).toBe(cli([...wp, '-o', 'json']).stdout);
  });

  it('-o yaml is the JSON report in YAML, for why-pending, scale-down-blockers and asg-audit', async () => {
    const { parse } = await import('yaml');
    for (const args of [wp, ['scale-down-blockers', ...demo], ['asg-audit', ...demo, '--fail-on', 'never']]) {
      const yaml = cli([...args, '-o', 'yaml']);
      expect(yaml.code, yaml.stderr).toBe(0);
      expect(parse(yaml.stdout)).toEqual(JSON.parse(cli([...args, '-o', 'json']).stdout));
    }
  });

  it('-o name prints TYPE/NAME a line, as kubectl does: pod/ for why-pending, node/ for scale-down-blockers; with -A, NAMESPACE/NAME (issue 28)', () => {
    const pods = cli([...wp, '-o', 'name']);
    expect(pods.stdout.trim().split('\n')).toHaveLength(8);
    expect(pods.stdout).toContain('payments/ledger-db-0\n');
    expect(pods.stdout).toMatch(/^([a-z0-9-]+\/[a-z0-9.-]+\n)+$/);
    expect(cli(['why-pending', '--all', '-n', 'payments', ...demo, '-o', 'name', '--fail-on', 'never']).stdout).toBe('pod/ledger-db-0\n');
    const nodes = cli(['scale-down-blockers', ...demo, '-o', 'name']);
    expect(nodes.stdout).toContain('node/ip-10-0-14-37.ec2.internal\n');
    expect(nodes.stdout).toMatch(/^(node\/[a-z0-9.-]+\n)+$/);
  });

  it('a format a command does not print is a usage error naming the ones it does', () => {
    const r = cli([...wp, '-o', 'sarif']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('why-pending: -o sarif is not supported; use one of: table, wide, json, yaml, name');
  });

  it('-o wide prints the table with full node names (scale-down-blockers), never fitted to the terminal', () => {
    const wide = cli(['scale-down-blockers', ...demo, '-o', 'wide']);
    expect(wide.code).toBe(0);
    expect(wide.stdout).toMatch(/^ {2}ip-10-0-14-37\.ec2\.internal +demo-general /m);
    expect(cli(['scale-down-blockers', ...demo]).stdout).toMatch(/^ {2}ip-10-0-14-37 +demo-general /m);
    expect(cli([...wp, '-o', 'wide']).stdout).toContain('demo-databases   1/1/5');
  });

  it('snapshot -o json is a usage error, and no directory named json appears', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'casdoctor-snap-'));
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), 'snapshot', '--from', DEMO, '-o', 'json'], {
      cwd,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('"json" is an output format');
    expect(existsSync(join(cwd, 'json'))).toBe(false);
  });

  it('--watch -o json writes the round banner to stderr, so stdout is a stream of JSON documents', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'casdoctor.js'), ...wp, '-o', 'json', '--watch', '10s'], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (c) => {
        stdout += c;
        if (stdout.endsWith('}\n')) child.kill('SIGINT');
      });
      child.on('close', resolve);
    });
    expect(code).toBe(0);
    expect(stderr).toContain('round 1 at');
    expect(stdout).not.toContain('round 1');
    expect(JSON.parse(stdout).command).toBe('why-pending');
  });
});

describe('inputs', () => {
  it('--ca-args without the leading -- is a usage error, not silently ignored', () => {
    const r = cli(['why-pending', '-A', ...demo, '--ca-args', 'expander=random']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--ca-args: "expander=random" is not a flag; write CA\'s flags as on its command line, e.g. --ca-args "--expander=random"');
    // a flag's value as its own word is still a value, as on CA's command line
    expect(cli(['why-pending', '-A', ...demo, '--ca-args', '--expander random', '-o', 'json', '--fail-on', 'never']).code).toBe(0);
  });

  it('why-pending rejects a request that is no quantity (memory: 1.5.3Gi), naming the pod and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-quantity-'));
    cpSync(DEMO, dir, { recursive: true });
    const pods = JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8')) as {
      items: Array<{ metadata: { name: string }; spec: { containers: Array<{ resources: { requests: Record<string, string> } }> } }>;
    };
    pods.items.find((p) => p.metadata.name === 'ledger-db-0')!.spec.containers[0].resources.requests.memory = '1.5.3Gi';
    writeFileSync(join(dir, 'pods.json'), JSON.stringify(pods));
    const r = cli(['why-pending', '-A', '--from', dir, '--now', DEMO_NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pod payments\/ledger-db-0: spec\.containers\[[\w-]+\]\.resources\.requests\.memory: "1\.5\.3Gi" is not a valid quantity/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the overview', () => {
  it("counts add up, every error is accounted for, and its advice runs as written (same --from and --now)", () => {
    const r = cli(demo);
    expect(r.code).toBe(1);
    const kept = /(\d+) of (\d+) nodes removable now; kept: (.*)/.exec(r.stdout)!;
    const keptSum = [...kept[3].matchAll(/(\d+) [A-Za-z]+/g)].reduce((a, m) => a + Number(m[1]), 0);
    expect(keptSum + Number(kept[1])).toBe(Number(kept[2]));
    const errors = Number(/findings: (\d+) error/.exec(r.stdout)![1]);
    const listed = r.stdout.split('\n').filter((l) => l.startsWith('  ✖ ')).length;
    const more = Number(/… and (\d+) more error\(s\)/.exec(r.stdout)?.[1] ?? 0);
    expect(listed + more).toBe(errors);
    expect(r.stdout).not.toContain('…(');
    // never a flag the overview itself rejects
    expect(r.stdout).not.toMatch(/(^|[^t] )pass --iam-policy/m);
    const next = r.stdout.slice(r.stdout.indexOf('Next:\n') + 6).trim().split('\n').map((l) => l.trim());
    expect(next).toHaveLength(3);
    for (const line of next) {
      expect(line).toContain(`--from ${DEMO} --now ${DEMO_NOW}`);
      const run = cli([...line.split(' ').slice(1), '-o', 'json', '--fail-on', 'never']);
      expect(run.code, line).toBe(0);
    }
  });
});

describe('one unit per sentence', () => {
  it('a request compared with what is free reads in one unit (200Gi > 14.2Gi free), while -o json keeps the exact quantities', () => {
    const text = cli(['why-pending', '-A', ...demo, '--fail-on', 'never', '-o', 'wide']).stdout;
    expect(text).toContain('memory 200Gi > 14.2Gi free');
    expect(text).not.toMatch(/\d(Ki|Mi|Gi) > \d+(?!\1)(Ki|Mi|Gi) free/);
    expect(cli(['why-pending', '-A', ...demo, '--fail-on', 'never', '-o', 'json']).stdout).toContain('memory 200Gi > 14958064Ki free');
  });
});
