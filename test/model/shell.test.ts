// shellQuote/shellCommand: a table of what they print, and every hostile word read back by real shells unchanged.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { shellCommand, shellQuote } from '../../src/model/shell.js';

const CASES: Array<[string, string, string]> = [
  ['a plain ASG name stays bare', 'eks-general-20260105-7ac6d3f2', 'eks-general-20260105-7ac6d3f2'],
  ['a tag spec with = , : / stays bare', 'ResourceId=prod,Key=k8s.io/cluster-autoscaler/prod,Value=owned', 'ResourceId=prod,Key=k8s.io/cluster-autoscaler/prod,Value=owned'],
  ['an annotation removal stays bare', 'cluster-autoscaler.kubernetes.io/scale-down-disabled-', 'cluster-autoscaler.kubernetes.io/scale-down-disabled-'],
  ['@ % + stay bare', 'a@b%c+d', 'a@b%c+d'],
  ['the empty string is two quotes', '', "''"],
  ['a single quote closes, escapes and reopens', "it's", "'it'\\''s'"],
  ['command substitution is quoted', '$(touch /tmp/x)', "'$(touch /tmp/x)'"],
  ['backticks are quoted', '`id`', "'`id`'"],
  ['a semicolon and comment are quoted', 'demo-batch;touch${IFS}/tmp/x;#', "'demo-batch;touch${IFS}/tmp/x;#'"],
  ['a newline stays inside the quotes', 'a\nb', "'a\nb'"],
  ['globs, tilde and spaces are quoted', '~/x *.json [ab]', "'~/x *.json [ab]'"],
  ['JSON is quoted whole', '{"spec":{"maxUnavailable":1}}', '\'{"spec":{"maxUnavailable":1}}\''],
  ['a label selector with spaces and parentheses is quoted', 'a=b,c in (x, y)', "'a=b,c in (x, y)'"],
  ['unicode (and a bidi override) is quoted', 'zöne\u202e', "'zöne\u202e'"],
  ['$Default is quoted', 'Version=$Default', "'Version=$Default'"],
];

describe('shellQuote', () => {
  it.each(CASES)('%s', (_name, arg, quoted) => {
    expect(shellQuote(arg)).toBe(quoted);
  });
});

describe('shellCommand', () => {
  it('joins the quoted arguments with spaces', () => {
    expect(shellCommand(['kubectl', 'annotate', 'pod', '-n', "we'b", 'api-1', 'x=y'])).toBe("kubectl annotate pod -n 'we'\\''b' api-1 x=y");
  });

  const hostile = [...CASES.map(([, arg]) => arg), "'", "''", "\\'", '\\', '"$HOME"', '!!', '-n', '%1', '\t', '${IFS}'];
  const shells = ['bash', 'sh', 'zsh'].filter((s) => existsSync(`/bin/${s}`) || existsSync(`/usr/bin/${s}`));
  it.each(shells)('%s reads every word back as the argument it was (zsh: skipped where not installed)', (shell) => {
    // printf '%s\0' prints each argument the shell passes, NUL-terminated
    const out = execFileSync(shell, ['-c', `printf '%s\\0' ${hostile.map(shellQuote).join(' ')}`], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(hostile);
  });
});
