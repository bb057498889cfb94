// Completion scripts run in the real shells available here, with a fake kubectl on PATH (no cluster is contacted).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from './run.js';

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

function complete(words: string[]): string[] {
  const out = execFileSync(
    'bash',
    ['-c', `source "${script}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _casdoctor; printf '%s\\n' "\${COMPREPLY[@]}"`],
    { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
  );
  return out.split('\n').filter(Boolean);
}

describe('casdoctor completion bash', () => {
  it('completes subcommands', () => {
    expect(complete(['casdoctor', 'why'])).toEqual(['why-pending']);
    expect(complete(['casdoctor', ''])).toEqual(expect.arrayContaining(['why-pending', 'checks', 'explain', 'completion']));
  });
  it('completes Pending pod names from kubectl, in the namespace given with -n', () => {
    expect(complete(['casdoctor', 'why-pending', 'a'])).toEqual(['api-7f9c8d6b5-x2x7q']);
    expect(complete(['casdoctor', 'why-pending', '-n', 'payments', ''])).toEqual(['ledger-db-0', 'ledger-db-1']);
    expect(complete(['casdoctor', '--from', 'dump', 'why-pending', 'rep'])).toEqual(['report-builder-rcn64q4v2c-rgnzf']);
  });
  it('completes flags, flag values and check ids', () => {
    expect(complete(['casdoctor', 'why-pending', '--al'])).toEqual(expect.arrayContaining(['--all', '--all-namespaces']));
    expect(complete(['casdoctor', 'why-pending', '-o', 'j'])).toEqual(['json', 'junit']);
    expect(complete(['casdoctor', 'why-pending', '-n', 'pa'])).toEqual(['payments']);
    expect(complete(['casdoctor', 'explain', 'pod-untol'])).toEqual(['pod-untolerated-taint']);
  });
  it('registers for both casdoctor and the kubectl plugin name', () => {
    const r = spawnSync('bash', ['-c', `source "${script}"; complete -p casdoctor kubectl-casdoctor`], { encoding: 'utf8' });
    expect(r.stdout).toContain('complete -F _casdoctor casdoctor');
    expect(r.stdout).toContain('complete -F _casdoctor kubectl-casdoctor');
  });
});

const zsh = ['/usr/bin/zsh', '/bin/zsh'].find((p) => existsSync(p));
const fish = ['/usr/bin/fish', '/bin/fish'].find((p) => existsSync(p));

describe('casdoctor completion zsh and fish', () => {
  it.skipIf(!zsh)('zsh loads the script without errors (skipped where zsh is not installed)', () => {
    const r = cli(['completion', 'zsh']);
    const f = join(bin, 'casdoctor.zsh');
    writeFileSync(f, r.stdout);
    const out = spawnSync(zsh!, ['-c', `autoload -U compinit && compinit -u; source "${f}"; echo ok`], { encoding: 'utf8' });
    expect(out.stdout.trim()).toBe('ok');
    expect(out.stderr).toBe('');
  });
  it.skipIf(!fish)('fish loads the script and completes subcommands (skipped where fish is not installed)', () => {
    const r = cli(['completion', 'fish']);
    const f = join(bin, 'casdoctor.fish');
    writeFileSync(f, r.stdout);
    const out = spawnSync(fish!, ['-c', `source "${f}"; complete -C 'casdoctor why'`], { encoding: 'utf8' });
    expect(out.stdout).toContain('why-pending');
  });
  it('prints scripts for all three shells and rejects others', () => {
    expect(cli(['completion', 'zsh']).stdout).toContain('bashcompinit');
    expect(cli(['completion', 'fish']).stdout).toContain("complete -c casdoctor -n __fish_use_subcommand -a 'why-pending");
    expect(cli(['completion', 'powershell']).code).toBe(2);
  });
});
