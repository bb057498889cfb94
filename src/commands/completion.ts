import type { Command } from 'commander';
import { UsageError } from '../model/errors.js';
import { type Deps, EXIT, type RunResult } from './types.js';

interface Spec {
  commands: Array<{ name: string; flags: string[] }>;
  globalFlags: string[];
  checkIds: string[];
}

function flagsOf(cmd: Command): string[] {
  return cmd.options.flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
}

/** Reads subcommands and flags from the program itself, so completion never goes stale. */
export function completionSpec(program: Command, checkIds: string[]): Spec {
  return {
    commands: program.commands
      .filter((c) => !c.name().startsWith('_') && c.name() !== 'help')
      .map((c) => ({ name: c.name(), flags: flagsOf(c).filter((f) => f !== '--help' && f !== '-h') })),
    globalFlags: [...new Set([...flagsOf(program), '--help'])],
    checkIds,
  };
}

// Dynamic names come from kubectl and the aws CLI directly, so completing costs no casdoctor start-up.
const PENDING_PODS = `kubectl get pods \${ns:+-n "$ns"} --field-selector=status.phase=Pending -o jsonpath='{.items[*].metadata.name}' 2>/dev/null`;
const NODES = `kubectl get nodes -o jsonpath='{.items[*].metadata.name}' 2>/dev/null`;
const NAMESPACES = `kubectl get namespaces -o jsonpath='{.items[*].metadata.name}' 2>/dev/null`;
const CONTEXTS = 'kubectl config get-contexts -o name 2>/dev/null';
const ASGS = `aws autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[].AutoScalingGroupName' --output text 2>/dev/null`;
const OUTPUTS = 'table json sarif junit markdown';
const FAIL_ON = 'error warning info never';
const FILE_FLAGS = ['--from', '--kubeconfig', '--iam-policy', '-f', '--file', '--eksctl', '--node-groups', '--output-file'];

/** Flags whose next word is their value, so the completer does not mistake it for the subcommand. */
const VALUE_FLAGS = [
  '--from', '--kubeconfig', '--context', '--profile', '--region', '--request-timeout', '--now', '--ca-args', '-o', '--output',
  '--fail-on', '-l', '--selector', '--node', '--nodegroup', '--asg', '--iam-policy', '-f', '--file', '--eksctl', '--node-groups',
  '--output-file', '--watch',
].join('|');

export function bashScript(spec: Spec): string {
  const cases = spec.commands
    .map((c) => {
      const dynamic =
        c.name === 'why-pending'
          ? `COMPREPLY=($(compgen -W "$(${PENDING_PODS})" -- "$cur"))`
          : c.name === 'explain'
            ? `COMPREPLY=($(compgen -W "${spec.checkIds.join(' ')}" -- "$cur"))`
            : c.name === 'completion'
              ? 'COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))'
              : 'COMPREPLY=()';
      return `    ${c.name})
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${[...c.flags, ...spec.globalFlags].join(' ')}" -- "$cur")); else ${dynamic}; fi ;;`;
    })
    .join('\n');
  return `# casdoctor bash completion. Load it with:  source <(casdoctor completion bash)
_casdoctor() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" ns="" i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      -n|--namespace) ns="\${COMP_WORDS[i+1]}"; ((i++)) ;;
      ${VALUE_FLAGS}) ((i++)) ;;
      --*=*) ;;
      -*) ;;
      *) [[ -z "$cmd" ]] && cmd="$w" ;;
    esac
  done
  case "$prev" in
    -n|--namespace) COMPREPLY=($(compgen -W "$(${NAMESPACES})" -- "$cur")); return ;;
    --context) COMPREPLY=($(compgen -W "$(${CONTEXTS})" -- "$cur")); return ;;
    --node) COMPREPLY=($(compgen -W "$(${NODES})" -- "$cur")); return ;;
    --nodegroup|--asg) COMPREPLY=($(compgen -W "$(${ASGS})" -- "$cur")); return ;;
    -o|--output) COMPREPLY=($(compgen -W "${OUTPUTS}" -- "$cur")); return ;;
    --fail-on) COMPREPLY=($(compgen -W "${FAIL_ON}" -- "$cur")); return ;;
    ${FILE_FLAGS.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W "${spec.commands.map((c) => c.name).join(' ')} ${spec.globalFlags.join(' ')}" -- "$cur"))
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
  return `#compdef casdoctor kubectl-casdoctor
# casdoctor zsh completion. Load it with:  source <(casdoctor completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(spec).replace(/^# casdoctor bash completion.*\n/, '')}`;
}

export function fishScript(spec: Spec): string {
  const lines = [
    '# casdoctor fish completion. Load it with:  casdoctor completion fish | source',
    'complete -c casdoctor -f',
    `complete -c casdoctor -n __fish_use_subcommand -a '${spec.commands.map((c) => c.name).join(' ')}'`,
    `complete -c casdoctor -n '__fish_seen_subcommand_from why-pending' -a '(${PENDING_PODS.replace(' ${ns:+-n "$ns"}', '')})'`,
    `complete -c casdoctor -n '__fish_seen_subcommand_from explain' -a '${spec.checkIds.join(' ')}'`,
    "complete -c casdoctor -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'",
    `complete -c casdoctor -s n -l namespace -x -a '(${NAMESPACES})'`,
    `complete -c casdoctor -l context -x -a '(${CONTEXTS})'`,
    `complete -c casdoctor -l node -x -a '(${NODES})'`,
    `complete -c casdoctor -l nodegroup -l asg -x -a '(${ASGS})'`,
    `complete -c casdoctor -s o -l output -x -a '${OUTPUTS}'`,
    `complete -c casdoctor -l fail-on -x -a '${FAIL_ON}'`,
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
