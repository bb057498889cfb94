/**
 * CA's default rule list in CA's order (simulator/drainability/rules/rules.go Default) and Rules.Drainable: the first
 * rule with a decisive outcome wins. No default rule uses the Overrides mechanism, so it is not modelled.
 */
import type { Pod } from '../../model/k8s.js';
import { DAEMON_SET, daemonSet } from './daemon-set.js';
import { LOCAL_STORAGE, localStorage } from './local-storage.js';
import { LONG_TERMINATING, longTerminating } from './long-terminating.js';
import { MIRROR, mirror } from './mirror.js';
import { NOT_SAFE_TO_EVICT, notSafeToEvict } from './not-safe-to-evict.js';
import { ON_COMPLETION, onCompletion } from './on-completion.js';
import { PDB, pdb } from './pdb.js';
import { REPLICA_COUNT, replicaCount } from './replica-count.js';
import { REPLICATED, replicated } from './replicated.js';
import { SAFE_TO_EVICT_RULE, safeToEvict } from './safe-to-evict.js';
import { SYSTEM, system } from './system.js';
import { TERMINAL, terminal } from './terminal.js';
import type { DrainContext, DrainOptions, DrainRule, DrainStatus } from './types.js';

/** The rules enabled by these flags, in CA's order (a skipped rule is not in the list at all). */
export function defaultRules(options: DrainOptions): DrainRule[] {
  const all: Array<{ rule: DrainRule; skip?: boolean }> = [
    { rule: { name: MIRROR, drainable: mirror } },
    { rule: { name: LONG_TERMINATING, drainable: longTerminating } },
    { rule: { name: REPLICA_COUNT, drainable: replicaCount }, skip: !options.skipNodesWithCustomControllerPods },
    // interrupting checks
    { rule: { name: DAEMON_SET, drainable: daemonSet } },
    { rule: { name: SAFE_TO_EVICT_RULE, drainable: safeToEvict } },
    { rule: { name: TERMINAL, drainable: terminal } },
    // CA 1.36 added OnCompletion after Terminal
    { rule: { name: ON_COMPLETION, drainable: onCompletion }, skip: options.minor < 36 },
    // blocking checks
    { rule: { name: REPLICATED, drainable: replicated } },
    { rule: { name: SYSTEM, drainable: system }, skip: !options.skipNodesWithSystemPods },
    { rule: { name: NOT_SAFE_TO_EVICT, drainable: notSafeToEvict } },
    { rule: { name: LOCAL_STORAGE, drainable: localStorage }, skip: !options.skipNodesWithLocalStorage },
    { rule: { name: PDB, drainable: pdb } },
  ];
  return all.filter((r) => !r.skip).map((r) => r.rule);
}

export interface RuleVerdict extends DrainStatus {
  /** The deciding rule's name; undefined when no rule was decisive (the pod is simply moved). */
  rule?: string;
}

/** Rules.Drainable: the first non-Undefined outcome, with the rule that gave it. */
export function drainable(rules: readonly DrainRule[], ctx: DrainContext, pod: Pod): RuleVerdict {
  for (const r of rules) {
    const s = r.drainable(ctx, pod);
    if (s.outcome !== 'Undefined') return { ...s, rule: r.name };
  }
  return { outcome: 'Undefined' };
}
