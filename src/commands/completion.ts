import type { Command } from 'commander';
import { UsageError } from '../model/errors.js';
import { shellQuote } from '../model/shell.js';
import { safeText } from '../report/sanitize.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

interface Spec {
  commands: Array<{ name: string; flags: string[] }>;
  globalFlags: string[];
  /** Flags that take a value (`--context <name>`), so the completer skips that value when looking for the subcommand. */
  valueFlags: string[];
  checkIds: string[];
}

function flagsOf(cmd: Command): string[] {
  return cmd.options.flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
}

function valueFlagsOf(cmd: Command): string[] {
  return cmd.options.filter((o) => o.required).flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
}

/** Reads subcommands and flags from the program itself, so completion never goes stale. */
export function completionSpec(program: Command, checkIds: string[]): Spec {
  const commands = program.commands.filter((c) => !c.name().startsWith('_') && c.name() !== 'help');
  return {
    commands: commands.map((c) => ({ name: c.name(), flags: flagsOf(c).filter((f) => f !== '--help' && f !== '-h') })),
    globalFlags: [...new Set([...flagsOf(program), '--help'])],
    valueFlags: [...new Set([program, ...commands].flatMap(valueFlagsOf))].sort(),
    checkIds,
  };
}

/**
 * The -o values each command accepts: what its run() passes to requireOutput (test/commands/completion.test.ts keeps
 * this in step). '' is the overview (no subcommand); snapshot's -o names a directory; other commands ignore -o.
 */
export const OUTPUT_FORMATS: Readonly<Record<string, readonly string[] | 'directory'>> = {
  '': ['table', 'json', 'yaml'],
  'why-pending': ['table', 'json', 'yaml', 'name', 'wide'],
  'asg-audit': ['table', 'json', 'yaml'],
  'node-group-audit': ['table', 'json', 'yaml'],
  'scale-down-blockers': ['table', 'json', 'yaml', 'name', 'wide'],
  checks: ['table', 'json'],
  preflight: ['table', 'json', 'sarif', 'junit', 'markdown'],
  snapshot: 'directory',
};

// Dynamic names come from kubectl and the aws CLI directly, so completing costs no casdoctor start-up. Their output is
// data: every shell below splits it into words and never expands or evaluates it (a name may be `$(...)`).
// After --from, the names come from the dump itself: casdoctor's hidden `__names` command reads it (bash and zsh keep the
// --from words in $from; the command that is being completed is the first word, so a kubectl plugin asks itself).
const PENDING_PODS = `if ((\${#from[@]})); then "\${words0}" __names pending-pods "\${from[@]}" \${ns:+-n "$ns"}; else kubectl get pods \${ns:+-n "$ns"} --field-selector=status.phase=Pending -o jsonpath='{.items[*].metadata.name}'; fi 2>/dev/null`;
const NODES = `if ((\${#from[@]})); then "\${words0}" __names nodes "\${from[@]}"; else kubectl get nodes -o jsonpath='{.items[*].metadata.name}'; fi 2>/dev/null`;
const NAMESPACES = `if ((\${#from[@]})); then "\${words0}" __names namespaces "\${from[@]}"; else kubectl get namespaces -o jsonpath='{.items[*].metadata.name}'; fi 2>/dev/null`;
const CONTEXTS = 'kubectl config get-contexts -o name 2>/dev/null';
const ASGS = `aws autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[].AutoScalingGroupName' --output text 2>/dev/null`;
const FAIL_ON = ['error', 'warning', 'info', 'never'];
const SHELLS = ['bash', 'zsh', 'fish'];
const FILE_FLAGS = ['--from', '--kubeconfig', '--iam-policy', '-f', '--filename', '--eksctl', '--node-groups', '--output-file', '--config', '--redact-map'];

/** Commands grouped by the -o values they accept, in OUTPUT_FORMATS order. */
function outputCases(): Array<{ commands: string[]; formats: readonly string[] | 'directory' }> {
  const cases: Array<{ commands: string[]; formats: readonly string[] | 'directory' }> = [];
  for (const [cmd, formats] of Object.entries(OUTPUT_FORMATS)) {
    const same = cases.find((c) => JSON.stringify(c.formats) === JSON.stringify(formats));
    if (same) same.commands.push(cmd);
    else cases.push({ commands: [cmd], formats });
  }
  return cases;
}

/** A static word list as one shell word (the words are casdoctor's own, but quote them anyway). */
function wordList(words: readonly string[]): string {
  return shellQuote(words.join(' '));
}

export function bashScript(spec: Spec): string {
  const cases = spec.commands
    .map((c) => {
      const dynamic =
        c.name === 'why-pending'
          ? `_casdoctor_reply "$cur" $' \\t\\n' < <(${PENDING_PODS})`
          : c.name === 'explain'
            ? `_casdoctor_reply "$cur" ' ' <<< ${wordList(spec.checkIds)}`
            : c.name === 'completion'
              ? `_casdoctor_reply "$cur" ' ' <<< ${wordList(SHELLS)}`
              : 'COMPREPLY=()';
      return `    ${c.name})
      if [[ "$cur" == -* ]]; then _casdoctor_reply "$cur" ' ' <<< ${wordList([...c.flags, ...spec.globalFlags])}; else ${dynamic}; fi ;;`;
    })
    .join('\n');
  const outputs = outputCases()
    .map(({ commands, formats }) => {
      const pattern = commands.map((c) => (c === '' ? "''" : c)).join('|');
      const reply = formats === 'directory' ? '_casdoctor_files -d' : `_casdoctor_reply "$cur" ' ' <<< ${wordList(formats)}`;
      return `        ${pattern}) ${reply} ;;`;
    })
    .join('\n');
  return `# casdoctor bash completion. Load it with:  source <(casdoctor completion bash)
# Names from kubectl and aws are data: read into an array, matched literally and inserted quoted (printf %q), never
# passed through compgen -W, which would expand them again and run a name like $(...).

# Reads words separated by the characters in $2 from stdin; COMPREPLY gets those that start with $1, shell-quoted.
_casdoctor_reply() {
  local cur="$1" w q
  local -a words
  COMPREPLY=()
  while IFS="$2" read -r -a words || ((\${#words[@]})); do
    for w in "\${words[@]}"; do
      printf -v q '%q' "$w"
      if [[ "$w" == "$cur"* || "$q" == "$cur"* ]]; then COMPREPLY+=("$q"); fi
    done
    words=()
  done
}

# File (or, with -d, directory) names, one per line (no mapfile: macOS ships bash 3.2); bash quotes them on insertion.
_casdoctor_files() {
  local f
  COMPREPLY=()
  compopt -o filenames 2>/dev/null
  while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen "\${1:--f}" -- "$cur")
}

_casdoctor() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" ns="" i w words0="\${COMP_WORDS[0]}"
  local -a from=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      -n|--namespace) ns="\${COMP_WORDS[i+1]}"; ((i++)) ;;
      --from) from+=(--from "\${COMP_WORDS[i+1]}"); ((i++)) ;;
      --from=*) from+=("$w") ;;
      ${spec.valueFlags.join('|')}) ((i++)) ;;
      --*=*) ;;
      -*) ;;
      *) [[ -z "$cmd" ]] && cmd="$w" ;;
    esac
  done
  case "$prev" in
    -n|--namespace) _casdoctor_reply "$cur" $' \\t\\n' < <(${NAMESPACES}); return ;;
    --context) _casdoctor_reply "$cur" $'\\n' < <(${CONTEXTS}); return ;;
    --node) _casdoctor_reply "$cur" $' \\t\\n' < <(${NODES}); return ;;
    --nodegroup|--asg) _casdoctor_reply "$cur" $'\\t\\n' < <(${ASGS}); return ;;
    -o|--output)
      case "$cmd" in
${outputs}
        *) COMPREPLY=() ;;
      esac
      return ;;
    --fail-on) _casdoctor_reply "$cur" ' ' <<< ${wordList(FAIL_ON)}; return ;;
    ${FILE_FLAGS.join('|')}) _casdoctor_files; return ;;
  esac
  if [[ -z "$cmd" ]]; then
    _casdoctor_reply "$cur" ' ' <<< ${wordList([...spec.commands.map((c) => c.name), ...spec.globalFlags])}
    return
  fi
  case "$cmd" in
${cases}
  esac
}
complete -F _casdoctor casdoctor kubectl-casdoctor
`;
}

export function zshScript(spec: Spec): string {
  const words = (list: readonly string[]) => `(${list.map(shellQuote).join(' ')})`;
  const cases = spec.commands
    .map((c) => {
      const dynamic =
        c.name === 'why-pending'
          ? `_casdoctor_add $' \\t\\n' "$(${PENDING_PODS.replaceAll('${ns:+-n "$ns"}', '${ns:+-n} ${ns:+$ns}')})"`
          : c.name === 'explain'
            ? `compadd -- ${spec.checkIds.map(shellQuote).join(' ')}`
            : c.name === 'completion'
              ? `compadd -- ${SHELLS.join(' ')}`
              : 'return 1';
      return `    (${c.name})
      if [[ $cur == -* ]]; then local -a f; f=${words([...c.flags, ...spec.globalFlags])}; compadd -- "\${f[@]}"; else ${dynamic}; fi ;;`;
    })
    .join('\n');
  const outputs = outputCases()
    .map(({ commands, formats }) => {
      const pattern = commands.map((c) => (c === '' ? "''" : c)).join('|');
      return `        (${pattern}) ${formats === 'directory' ? '_files -/' : `compadd -- ${formats.join(' ')}`} ;;`;
    })
    .join('\n');
  return `#compdef casdoctor kubectl-casdoctor
# casdoctor zsh completion. Load it with:  source <(casdoctor completion zsh)
# Names from kubectl and aws are data: split into words and handed to compadd, which quotes them; never eval'd or globbed.

# Adds the words of $2, split at the characters in $1 (never globbed: GLOB_SUBST is off), as matches.
_casdoctor_add() {
  emulate -L zsh
  local IFS=$1
  local -a c
  c=(\${=2})
  compadd -- "\${c[@]}"
}

_casdoctor() {
  emulate -L zsh
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} cmd= ns= i w words0=\${words[1]}
  local -a from
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    case $w in
      (-n|--namespace) ns=\${words[i+1]}; ((i++)) ;;
      (--from) from+=(--from \${words[i+1]}); ((i++)) ;;
      (--from=*) from+=($w) ;;
      (${spec.valueFlags.join('|')}) ((i++)) ;;
      (--*=*) ;;
      (-*) ;;
      (*) [[ -z $cmd ]] && cmd=$w ;;
    esac
  done
  case $prev in
    (-n|--namespace) _casdoctor_add $' \\t\\n' "$(${NAMESPACES})"; return ;;
    (--context) _casdoctor_add $'\\n' "$(${CONTEXTS})"; return ;;
    (--node) _casdoctor_add $' \\t\\n' "$(${NODES})"; return ;;
    (--nodegroup|--asg) _casdoctor_add $'\\t\\n' "$(${ASGS})"; return ;;
    (-o|--output)
      case $cmd in
${outputs}
        (*) return 1 ;;
      esac
      return ;;
    (--fail-on) compadd -- ${FAIL_ON.join(' ')}; return ;;
    (${FILE_FLAGS.join('|')}) _files; return ;;
  esac
  if [[ -z $cmd ]]; then
    local -a top
    top=${words([...spec.commands.map((c) => c.name), ...spec.globalFlags])}
    compadd -- "\${top[@]}"
    return
  fi
  case $cmd in
${cases}
  esac
}

if [[ \${funcstack[1]} == _casdoctor ]]; then
  _casdoctor "$@"
else
  (( \${+functions[compdef]} )) || { autoload -Uz compinit && compinit }
  compdef _casdoctor casdoctor kubectl-casdoctor
fi
`;
}

export function fishScript(spec: Spec): string {
  const fishWords = (list: readonly string[]) => shellQuote(list.join(' '));
  const lines = [
    '# casdoctor fish completion. Load it with:  casdoctor completion fish | source',
    '# Names from kubectl and aws are data: printed one per line by the functions below, which fish never evaluates.',
    '',
    'function __casdoctor_pending_pods',
    '    set -l tokens (commandline -opc)',
    '    set -l ns',
    '    for i in (seq (count $tokens))',
    '        if contains -- $tokens[$i] -n --namespace; and test $i -lt (count $tokens)',
    '            set ns -n $tokens[(math $i + 1)]',
    '        end',
    '    end',
    '    set -l from (__casdoctor_from)',
    '    if set -q from[1]',
    '        $tokens[1] __names pending-pods $from $ns 2>/dev/null',
    '    else',
    "        kubectl get pods $ns --field-selector=status.phase=Pending -o 'jsonpath={.items[*].metadata.name}' 2>/dev/null | string split -n -- ' '",
    '    end',
    'end',
    '# the --from words on the command line: then names come from the dump (casdoctor __names), not from kubectl',
    'function __casdoctor_from',
    '    set -l tokens (commandline -opc)',
    '    for i in (seq (count $tokens))',
    '        if test $tokens[$i] = --from; and test $i -lt (count $tokens)',
    '            echo --from',
    '            echo $tokens[(math $i + 1)]',
    '        else if string match -q -- "--from=*" $tokens[$i]',
    '            echo $tokens[$i]',
    '        end',
    '    end',
    'end',
    'function __casdoctor_namespaces',
    '    set -l from (__casdoctor_from)',
    '    set -l tokens (commandline -opc)',
    '    if set -q from[1]',
    '        $tokens[1] __names namespaces $from 2>/dev/null',
    '    else',
    "        kubectl get namespaces -o 'jsonpath={.items[*].metadata.name}' 2>/dev/null | string split -n -- ' '",
    '    end',
    'end',
    'function __casdoctor_nodes',
    '    set -l from (__casdoctor_from)',
    '    set -l tokens (commandline -opc)',
    '    if set -q from[1]',
    '        $tokens[1] __names nodes $from 2>/dev/null',
    '    else',
    "        kubectl get nodes -o 'jsonpath={.items[*].metadata.name}' 2>/dev/null | string split -n -- ' '",
    '    end',
    'end',
    'function __casdoctor_contexts',
    '    kubectl config get-contexts -o name 2>/dev/null',
    'end',
    'function __casdoctor_asgs',
    "    aws autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[].AutoScalingGroupName' --output text 2>/dev/null | string split -n -- \\t",
    'end',
    '',
    'complete -c casdoctor -f',
    `complete -c casdoctor -n __fish_use_subcommand -a ${fishWords(spec.commands.map((c) => c.name))}`,
    "complete -c casdoctor -n '__fish_seen_subcommand_from why-pending' -a '(__casdoctor_pending_pods)'",
    `complete -c casdoctor -n '__fish_seen_subcommand_from explain' -a ${fishWords(spec.checkIds)}`,
    `complete -c casdoctor -n '__fish_seen_subcommand_from completion' -a ${fishWords(SHELLS)}`,
    "complete -c casdoctor -s n -l namespace -x -a '(__casdoctor_namespaces)'",
    "complete -c casdoctor -l context -x -a '(__casdoctor_contexts)'",
    "complete -c casdoctor -l node -x -a '(__casdoctor_nodes)'",
    "complete -c casdoctor -l nodegroup -l asg -x -a '(__casdoctor_asgs)'",
    ...outputCases().map(({ commands, formats }) => {
      const named = commands.filter(Boolean);
      const condition = commands.includes('')
        ? '__fish_use_subcommand'
        : shellQuote(`__fish_seen_subcommand_from ${named.join(' ')}`);
      const values = formats === 'directory' ? "'(__fish_complete_directories)'" : fishWords(formats);
      return `complete -c casdoctor -n ${condition} -s o -l output -x -a ${values}`;
    }),
    `complete -c casdoctor -l fail-on -x -a ${fishWords(FAIL_ON)}`,
    ...FILE_FLAGS.filter((f) => f.startsWith('--')).map((f) => `complete -c casdoctor -l ${f.slice(2)} -r -F`),
  ];
  const longFlags = new Set<string>();
  for (const c of spec.commands) for (const f of c.flags) if (f.startsWith('--')) longFlags.add(f.slice(2));
  for (const f of spec.globalFlags) if (f.startsWith('--')) longFlags.add(f.slice(2));
  for (const f of [...longFlags].sort()) lines.push(`complete -c casdoctor -l ${f}`);
  return `${lines.join('\n')}\n`;
}

export async function runCompletion(shell: string, program: Command, deps: Deps): Promise<RunResult> {
  const { CHECKS } = await import('../checks/index.js');
  const spec = completionSpec(program, CHECKS.map((c) => c.meta.id));
  const scripts: Record<string, (s: Spec) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };
  const make = scripts[shell];
  if (!make) throw new UsageError(`completion: unknown shell "${shell}"; use bash, zsh or fish`);
  deps.stdout(make(spec));
  return { exitCode: EXIT.ok };
}

/**
 * `casdoctor __names KIND --from DUMP`: the names the completion scripts offer after --from, one a line: the Pending
 * pods why-pending would explain (in -n's namespace when given), the nodes, the namespaces. Only offline: live names
 * come from kubectl itself, which costs no casdoctor start-up.
 */
export async function runNames(kind: string, o: GlobalOptions & { namespace?: string }, deps: Deps): Promise<RunResult> {
  if (o.from.length === 0) throw new UsageError('__names reads a --from dump (live names come from kubectl)');
  const { gatherInputs } = await import('./common.js');
  const raw = await gatherInputs(o, { ...deps, stderr: () => {} });
  let names: string[];
  if (kind === 'pending-pods') {
    const { isPendingCandidate } = await import('../model/k8s.js');
    names = raw.pods.filter((p) => isPendingCandidate(p) && (o.namespace === undefined || p.metadata.namespace === o.namespace)).map((p) => p.metadata.name ?? '');
  } else if (kind === 'nodes') names = raw.nodes.map((n) => n.metadata.name ?? '');
  else if (kind === 'namespaces') names = raw.pods.map((p) => p.metadata.namespace ?? '');
  else throw new UsageError(`__names: unknown kind "${kind}"; use pending-pods, nodes or namespaces`);
  // a name is data: one line each, made safe; a name that is not one word would not complete as one anyway
  for (const n of [...new Set(names)].filter(Boolean).sort()) deps.stdout(`${safeText(n)}\n`);
  return { exitCode: EXIT.ok };
}
