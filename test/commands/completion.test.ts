// Completion scripts run in the real shells available here, with a fake kubectl and aws on PATH (no cluster is contacted).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAsgAudit } from '../../src/commands/audit.js';
import { runListChecks } from '../../src/commands/checks.js';
import { OUTPUT_FORMATS } from '../../src/commands/completion.js';
import { runOverview } from '../../src/commands/overview.js';
import { runPreflight } from '../../src/commands/preflight.js';
import { runScaleDownBlockers } from '../../src/commands/scale-down-blockers.js';
import type { Deps, GlobalOptions, RunResult } from '../../src/commands/types.js';
import { runWhyPending } from '../../src/commands/why-pending.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { cli, DEMO, ROOT } from './run.js';

let bin: string;
let script: string;

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'casdoctor-completion-'));
  // a fake kubectl that answers the completion queries like the real one
  writeFileSync(
    join(bin, 'kubectl'),
    `#!/bin/sh
case "$*" in
  *"get pods"*"-n payments"*) printf 'ledger-db-0 ledger-db-1' ;;
  *"get pods"*) printf 'api-7f9c8d6b5-x2x7q report-builder-rcn64q4v2c-rgnzf' ;;
  *"get namespaces"*) printf 'default payments web' ;;
  *"get nodes"*) printf 'ip-10-0-1-5.ec2.internal ip-10-0-2-7.ec2.internal' ;;
esac
`,
  );
  chmodSync(join(bin, 'kubectl'), 0o755);
  const r = cli(['completion', 'bash']);
  expect(r.code).toBe(0);
  script = join(bin, 'casdoctor.bash');
  writeFileSync(script, r.stdout);
});

function complete(words: string[], path = bin): string[] {
  const out = execFileSync(
    'bash',
    ['-c', `source "${script}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _casdoctor; printf '%s\\n' "\${COMPREPLY[@]}"`],
    { encoding: 'utf8', env: { ...process.env, PATH: `${path}:${process.env.PATH}` } },
  );
  return out.split('\n').filter(Boolean);
}

describe('casdoctor completion bash', () => {
  it('completes subcommands', () => {
    expect(complete(['casdoctor', 'why'])).toEqual(['why-pending', 'why-this-type']);
    expect(complete(['casdoctor', 'why-p'])).toEqual(['why-pending']);
    expect(complete(['casdoctor', ''])).toEqual(expect.arrayContaining(['why-pending', 'checks', 'explain', 'completion']));
  });
  it('completes Pending pod names from kubectl, in the namespace given with -n', () => {
    expect(complete(['casdoctor', 'why-pending', 'a'])).toEqual(['api-7f9c8d6b5-x2x7q']);
    expect(complete(['casdoctor', 'why-pending', '-n', 'payments', ''])).toEqual(['ledger-db-0', 'ledger-db-1']);
  });
  it('after --from, completes pod, node and namespace names from the dump, not from kubectl (issue 28)', () => {
    const path = `${bin}:${join(ROOT, 'bin')}`;
    // ledger-db-1 is only in the fake kubectl's answer; ledger-db-0 is the demo's Pending pod in payments
    expect(complete(['casdoctor', '--from', DEMO, 'why-pending', '-n', 'payments', ''], path)).toEqual(['ledger-db-0']);
    expect(complete(['casdoctor', 'why-pending', `--from=${DEMO}`, 'rep'], path)).toEqual(['report-builder-rcn64q4v2c-rgnzf']);
    expect(complete(['casdoctor', 'why-pending', '--from', DEMO, '-n', 'pay'], path)).toEqual(['payments']);
    const nodes = complete(['casdoctor', 'scale-down-blockers', '--from', DEMO, '--node', 'ip-10-0-1'], path);
    expect(nodes).toEqual(['ip-10-0-11-142.ec2.internal', 'ip-10-0-14-37.ec2.internal', 'ip-10-0-18-203.ec2.internal']);
  });
  it('completes flags, flag values and check ids', () => {
    expect(complete(['casdoctor', 'why-pending', '--al'])).toEqual(expect.arrayContaining(['--all', '--all-namespaces']));
    expect(complete(['casdoctor', 'why-pending', '-n', 'pa'])).toEqual(['payments']);
    expect(complete(['casdoctor', 'explain', 'pod-untol'])).toEqual(['pod-untolerated-taint']);
  });
  it('offers only the -o values the command accepts', () => {
    expect(complete(['casdoctor', 'why-pending', '-o', 'j'])).toEqual(['json']);
    expect(complete(['casdoctor', 'asg-audit', '-o', ''])).toEqual(['table', 'json', 'yaml']);
    expect(complete(['casdoctor', 'preflight', '-o', 'j'])).toEqual(['json', 'junit']);
    expect(complete(['casdoctor', '-o', ''])).toEqual(['table', 'json', 'yaml']);
    expect(complete(['casdoctor', '--context', 'prod', 'preflight', '--output', 's'])).toEqual(['sarif']);
  });
  it('completes file names, and directories for snapshot -o, each as one candidate even with spaces', () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-files-'));
    mkdirSync(join(dir, 'my dump'));
    writeFileSync(join(dir, 'my policy.json'), '{}');
    const run = (words: string[]) =>
      execFileSync('bash', ['-c', `source "${script}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _casdoctor; printf '%s\\n' "\${COMPREPLY[@]}"`], {
        cwd: dir,
        encoding: 'utf8',
      }).split('\n').filter(Boolean);
    expect(run(['casdoctor', 'asg-audit', '--iam-policy', 'my'])).toEqual(['my dump', 'my policy.json']);
    expect(run(['casdoctor', 'snapshot', '-o', 'my'])).toEqual(['my dump']);
  });
  it('registers for both casdoctor and the kubectl plugin name', () => {
    const r = spawnSync('bash', ['-c', `source "${script}"; complete -p casdoctor kubectl-casdoctor`], { encoding: 'utf8' });
    expect(r.stdout).toContain('complete -F _casdoctor casdoctor');
    expect(r.stdout).toContain('complete -F _casdoctor kubectl-casdoctor');
  });
});

/**
 * A directory with fake aws and kubectl whose answers hold hostile names: an ASG and a context that run `touch` when a
 * shell evaluates them, and names with glob characters. Nothing may appear in `<dir>/effects`.
 */
function hostileWorld(): { bin: string; effects: string; asg: string; context: string; glob: string } {
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-completion-hostile-'));
  const effects = join(dir, 'effects');
  mkdirSync(effects);
  writeFileSync(join(dir, 'effects-decoy'), ''); // what the glob name would expand to
  const asg = `$(touch\${IFS}${effects}/asg)`;
  const context = `$(touch\${IFS}${effects}/context)`;
  const glob = `${dir}/effects-d*`;
  const hostileBin = join(dir, 'bin');
  mkdirSync(hostileBin);
  // aws --output text separates list items with tabs; kubectl config get-contexts -o name prints one per line
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    join(hostileBin, 'aws'),
    `#!/bin/sh\nprintf '%s\\t%s\\t%s\\t%s\\n' demo-batch ${quote(asg)} ${quote(`\`touch ${effects}/backtick\``)} ${quote(glob)}\n`,
  );
  writeFileSync(
    join(hostileBin, 'kubectl'),
    `#!/bin/sh\ncase "$*" in *get-contexts*) printf '%s\\n' prod ${quote(context)} ${quote(glob)} ;; esac\n`,
  );
  chmodSync(join(hostileBin, 'aws'), 0o755);
  chmodSync(join(hostileBin, 'kubectl'), 0o755);
  return { bin: hostileBin, effects, asg, context, glob };
}

describe('completion never evaluates the names it completes', () => {
  it('bash offers a hostile ASG and context name as quoted candidates and runs nothing', () => {
    const h = hostileWorld();
    // each candidate is what bash inserts; eval-ing it as a word must give back the name, and still run nothing
    const run = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source "${script}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _casdoctor; for c in "\${COMPREPLY[@]}"; do eval "printf '%s\\n' $c"; done`,
        ],
        { encoding: 'utf8', env: { ...process.env, PATH: `${h.bin}:${process.env.PATH}` } },
      )
        .split('\n')
        .filter(Boolean);
    const asgs = run(['casdoctor', 'asg-audit', '--asg', '']);
    const typed = run(['casdoctor', 'scale-down-blockers', '--nodegroup', '$']);
    const contexts = run(['casdoctor', '--context', '']);
    const quotedTyped = run(['casdoctor', '--context', '\\$']);
    expect(readdirSync(h.effects)).toEqual([]);
    expect(asgs).toEqual(['demo-batch', h.asg, `\`touch ${h.effects}/backtick\``, h.glob]);
    expect(typed).toEqual([h.asg]);
    expect(contexts).toEqual(['prod', h.context, h.glob]);
    expect(quotedTyped).toEqual([h.context]);
  });

  it.skipIf(!zshPath())('zsh inserts a hostile ASG and context name quoted and runs nothing (skipped where zsh is not installed)', () => {
    const h = hostileWorld();
    const f = join(h.bin, '..', 'casdoctor.zsh');
    writeFileSync(f, cli(['completion', 'zsh']).stdout);
    // what the command line holds after TAB, as the word zsh would pass (quotes removed)
    expect(zshComplete(f, h.bin, ['casdoctor asg-audit --asg \\$', 'casdoctor --context \\$', 'casdoctor --context /'])).toEqual([
      h.asg,
      h.context,
      h.glob,
    ]);
    expect(readdirSync(h.effects)).toEqual([]);
  });

  it.skipIf(!fishPath())('fish offers a hostile ASG and context name as candidates and runs nothing (skipped where fish is not installed)', () => {
    const h = hostileWorld();
    const f = join(h.bin, '..', 'casdoctor.fish');
    writeFileSync(f, cli(['completion', 'fish']).stdout);
    const out = spawnSync(
      fishPath()!,
      ['-c', `source "${f}"; complete -C 'casdoctor asg-audit --asg '; echo ---; complete -C 'casdoctor --context '`],
      { encoding: 'utf8', env: { ...process.env, PATH: `${h.bin}:${process.env.PATH}` } },
    );
    expect(out.stderr).toBe('');
    const [asgs, contexts] = out.stdout.split('---\n').map((s) => s.split('\n').filter(Boolean).sort());
    expect(asgs).toEqual([h.asg, `\`touch ${h.effects}/backtick\``, h.glob, 'demo-batch'].sort());
    expect(contexts).toEqual([h.context, h.glob, 'prod'].sort());
    expect(readdirSync(h.effects)).toEqual([]);
  });
});

function zshPath(): string | undefined {
  return ['/usr/bin/zsh', '/bin/zsh'].find((p) => existsSync(p));
}

function fishPath(): string | undefined {
  return ['/usr/bin/fish', '/bin/fish'].find((p) => existsSync(p));
}

/**
 * Types each line and TAB into an interactive zsh on a pseudo-terminal (zsh/zpty), then reads the command line's last
 * word as zsh would pass it: completion widgets only run inside the line editor, so nothing less tests them.
 */
function zshComplete(scriptFile: string, path: string, lines: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-zpty-'));
  const driver = join(dir, 'driver.zsh');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    driver,
    `zmodload zsh/zpty
zpty z ${q(`env PATH=${path}:${process.env.PATH} HOME=${dir} PS1='> ' zsh -f -i`)}
zpty -w z ${q(`autoload -U compinit; compinit -u -D; source ${q(scriptFile)}`)}
zpty -w z ${q(`dumpbuf() { print -r -- "\${(Q)\${(z)BUFFER}[-1]}" >> ${q(join(dir, 'out'))}; BUFFER=''; }; zle -N dumpbuf; bindkey '^X' dumpbuf`)}
zpty -w z 'print -r -- RE""ADY'
zpty -r z junk '*READY*'
n=0
for line in "$@"; do
  zpty -n -w z "$line"$'\\t\\C-x'
  (( n++ ))
  for i in {1..100}; do
    [[ -f ${q(join(dir, 'out'))} ]] && (( $(wc -l < ${q(join(dir, 'out'))}) >= n )) && break
    zpty -r -t z junk 2>/dev/null
    sleep 0.1
  done
done
zpty -d z
cat ${q(join(dir, 'out'))}
`,
  );
  const r = spawnSync(zshPath()!, ['-f', driver, ...lines], { encoding: 'utf8', timeout: 30_000 });
  return r.stdout.split('\n').filter(Boolean);
}

describe('casdoctor completion zsh and fish', () => {
  it.skipIf(!zshPath())('zsh loads the script without errors (skipped where zsh is not installed)', () => {
    const r = cli(['completion', 'zsh']);
    const f = join(bin, 'casdoctor.zsh');
    writeFileSync(f, r.stdout);
    const out = spawnSync(zshPath()!, ['-c', `autoload -U compinit && compinit -u; source "${f}"; echo ok`], { encoding: 'utf8' });
    expect(out.stdout.trim()).toBe('ok');
    expect(out.stderr).toBe('');
  });
  it.skipIf(!fishPath())('fish loads the script and completes subcommands, pods and -o values (skipped where fish is not installed)', () => {
    const r = cli(['completion', 'fish']);
    const f = join(bin, 'casdoctor.fish');
    writeFileSync(f, r.stdout);
    const out = spawnSync(
      fishPath()!,
      ['-c', `source "${f}"; complete -C 'casdoctor why'; complete -C 'casdoctor why-pending -n payments l'; complete -C 'casdoctor why-pending -o '`],
      { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
    );
    expect(out.stderr).toBe('');
    expect(out.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^why-pending/),
      expect.stringMatching(/^why-this-type/),
      'ledger-db-0',
      'ledger-db-1',
      'json',
      'name',
      'table',
      'wide',
      'yaml',
    ]);
  });
  it('prints scripts for all three shells and rejects others', () => {
    expect(cli(['completion', 'zsh']).stdout).toContain('compdef _casdoctor casdoctor kubectl-casdoctor');
    expect(cli(['completion', 'fish']).stdout).toContain("complete -c casdoctor -n __fish_use_subcommand -a 'why-pending");
    expect(cli(['completion', 'powershell']).code).toBe(2);
  });
});

describe('the -o values completion offers', () => {
  const ALL = ['table', 'json', 'yaml', 'name', 'wide', 'sarif', 'junit', 'markdown'];
  type Run = (o: GlobalOptions, deps: Deps) => Promise<RunResult>;
  const runs: Record<string, Run> = {
    '': runOverview,
    'why-pending': (o, d) => runWhyPending({ ...o, all: true }, d),
    'asg-audit': runAsgAudit as Run,
    'scale-down-blockers': runScaleDownBlockers as Run,
    checks: runListChecks,
    preflight: (o, d) => runPreflight({ ...o, file: [], namespace: 'default' } as never, d),
  };

  it('are exactly the formats each command accepts', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'casdoctor-empty-'));
    for (const [command, run] of Object.entries(runs)) {
      const accepted: string[] = [];
      for (const output of ALL) {
        const rejected = await run({ ...PIPED_JSON, from: [empty], output: output as GlobalOptions['output'] }, capturingDeps().deps).then(
          () => false,
          (e: Error) => /-o \S+ is not supported/.test(e.message),
        );
        if (!rejected) accepted.push(output);
      }
      expect(accepted, command || '(overview)').toEqual(OUTPUT_FORMATS[command]);
    }
  });
});
