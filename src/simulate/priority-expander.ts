/**
 * The priority expander (`--expander=priority`): its ConfigMap, parsed the way CA parses it, and the group it keeps.
 * CA: pkg/expander/priority/priority.go (unanchored regexp.FindStringIndex per rule), pkg/expander/factory/chain.go.
 */
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { CaConfig } from '../model/ca-config.js';
import type { ConfigMap, KubeEvent } from '../model/k8s.js';
import { eventTime } from './ca-events.js';
import { compileRe2 } from './re2.js';

export const PRIORITY_CONFIGMAP_NAME = 'cluster-autoscaler-priority-expander';
export const PRIORITY_CONFIGMAP_KEY = 'priorities';
export const PRIORITY_EVENT_REASONS = [
  'PriorityConfigMapInvalid',
  'PriorityConfigMapNotMatchedGroup',
  'PriorityConfigMapNoGroupMatched',
] as const;

export interface PriorityRule {
  priority: number;
  pattern: string;
  regex?: RegExp;
  /** Valid RE2 casdoctor cannot evaluate in JavaScript (the rule is then not evaluated, never guessed). */
  unsupported?: string;
}

export type PriorityConfig =
  | { ok: true; rules: PriorityRule[] }
  | {
      ok: false;
      /** The Warning event CA records on the ConfigMap each loop ("Ignoring update"): priority filters nothing. */
      reason: 'PriorityConfigMapInvalid';
      message: string;
    };

/** The expander chain of --expander (comma-separated; CA: expander/factory/expander_factory.go). */
export function expanderChain(ca: CaConfig): string[] {
  return ca.flags.expander.value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function usesPriorityExpander(ca: CaConfig): boolean {
  return expanderChain(ca).includes('priority');
}

/** The ConfigMap CA reads: fixed name, in CA's --namespace (the expander's lister is namespaced to it). */
export function findPriorityConfigMap(configMaps: readonly ConfigMap[], ca: CaConfig): ConfigMap | undefined {
  const ns = ca.flags.namespace.value || 'kube-system';
  return configMaps.find((c) => c.metadata.name === PRIORITY_CONFIGMAP_NAME && (c.metadata.namespace ?? 'default') === ns);
}

/** The same name in another namespace: a common mistake (CA never reads it). */
export function misplacedPriorityConfigMaps(configMaps: readonly ConfigMap[], ca: CaConfig): ConfigMap[] {
  const ns = ca.flags.namespace.value || 'kube-system';
  return configMaps.filter((c) => c.metadata.name === PRIORITY_CONFIGMAP_NAME && (c.metadata.namespace ?? 'default') !== ns);
}

function invalid(err: string): PriorityConfig {
  return { ok: false, reason: 'PriorityConfigMapInvalid', message: `Wrong configuration for priority expander: ${err}. Ignoring update.` };
}

/**
 * CA: priority.go reloadConfigMap + parsePrioritiesYAMLString: sigs.k8s.io/yaml into map[int][]string, then
 * regexp.Compile per rule. Any error rejects the whole ConfigMap. YAML and JSON decoding errors are worded like Go's
 * (encoding/json messages); YAML syntax errors carry this parser's text, not go-yaml's.
 */
export function parsePriorityConfigMap(cm: ConfigMap): PriorityConfig {
  const data = cm.data ?? {};
  if (!Object.hasOwn(data, PRIORITY_CONFIGMAP_KEY)) {
    return {
      ok: false,
      reason: 'PriorityConfigMapInvalid',
      message: `Wrong configmap for priority expander, doesn't contain ${PRIORITY_CONFIGMAP_KEY} key. Ignoring update.`,
    };
  }
  const text = data[PRIORITY_CONFIGMAP_KEY];
  if (text === '') {
    return invalid(
      `priority configuration in ${PRIORITY_CONFIGMAP_NAME} configmap is empty; please provide valid configuration`,
    );
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    return invalid(`Can't parse YAML with priorities in the configmap: error converting YAML to JSON: ${doc.errors[0].message.split('\n')[0]}`);
  }
  const jsonErr = (msg: string) =>
    invalid(`Can't parse YAML with priorities in the configmap: error unmarshaling JSON: while decoding JSON: json: ${msg}`);
  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return { ok: true, rules: [] };
  if (!isMap(root)) return jsonErr(`cannot unmarshal ${isSeq(root) ? 'array' : jsonKind((root as { value?: unknown }).value)} into Go value of type map[int][]string`);
  const rules: PriorityRule[] = [];
  const compiled: Array<{ priority: number; pattern: string }> = [];
  for (const pair of root.items) {
    const keyNode = pair.key;
    const keyText = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    // encoding/json map[int] keys: strconv.ParseInt(key, 10, 64)
    if (!/^[+-]?\d+$/.test(keyText) || !Number.isSafeInteger(Number(keyText))) {
      return jsonErr(`cannot unmarshal number ${keyText} into Go value of type int`);
    }
    const priority = Number(keyText);
    const value = pair.value;
    if (value === null || (isScalar(value) && value.value === null)) continue;
    if (!isSeq(value)) {
      return jsonErr(`cannot unmarshal ${isMap(value) ? 'object' : jsonKind(isScalar(value) ? value.value : undefined)} into Go value of type []string`);
    }
    for (const item of value.items) {
      if (!isScalar(item)) {
        return jsonErr(`cannot unmarshal ${isMap(item) ? 'object' : 'array'} into Go value of type string`);
      }
      // sigs.k8s.io/yaml convertToJSONableObject coerces numbers and bools to strings for a string target; a null
      // item decodes to "" (a rule that matches every group)
      const v = item.value;
      compiled.push({ priority, pattern: v === null || v === undefined ? '' : String(v) });
    }
  }
  for (const { priority, pattern } of compiled) {
    const r = compileRe2(pattern);
    if (r.error) return invalid(`Can't compile regexp rule for priority ${priority} and rule ${pattern}: ${r.error}`);
    rules.push({ priority, pattern, ...(r.regex ? { regex: r.regex } : {}), ...(r.unsupported ? { unsupported: r.unsupported } : {}) });
  }
  return { ok: true, rules };
}

function jsonKind(v: unknown): string {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'value';
}

/** The rules matching a group name; `unknown` when a rule that could match is not evaluable in JavaScript. */
export function rulesMatching(rules: readonly PriorityRule[], group: string): { matched: PriorityRule[]; unknown: PriorityRule[] } {
  const matched: PriorityRule[] = [];
  const unknown: PriorityRule[] = [];
  for (const r of rules) {
    if (!r.regex) unknown.push(r);
    else if (r.regex.test(group)) matched.push(r);
  }
  return { matched, unknown };
}

export interface PriorityAudit {
  /** Rules that match no node group of the snapshot (typo, old ASG name, anchored wrongly). */
  rulesMatchingNothing: PriorityRule[];
  /** Groups no rule matches: CA logs PriorityConfigMapNotMatchedGroup and never picks them while a matched group fits. */
  groupsMatchedByNothing: string[];
  /** Groups whose only matching priority is below -1: CA's loop starts at maxPrio -1 and never keeps them. */
  groupsBelowMinusOne: string[];
  /** Rules casdoctor could not evaluate. */
  unsupportedRules: PriorityRule[];
}

export function auditPriorityRules(rules: readonly PriorityRule[], groups: readonly string[]): PriorityAudit {
  const unsupportedRules = rules.filter((r) => !r.regex);
  const rulesMatchingNothing = rules.filter((r) => r.regex && !groups.some((g) => r.regex!.test(g)));
  const groupsMatchedByNothing: string[] = [];
  const groupsBelowMinusOne: string[] = [];
  for (const g of groups) {
    const { matched, unknown } = rulesMatching(rules, g);
    if (matched.length === 0 && unknown.length === 0) groupsMatchedByNothing.push(g);
    else if (matched.length > 0 && unknown.length === 0 && Math.max(...matched.map((r) => r.priority)) < -1) {
      groupsBelowMinusOne.push(g);
    }
  }
  return { rulesMatchingNothing, groupsMatchedByNothing, groupsBelowMinusOne, unsupportedRules };
}

export interface PriorityPick {
  /** The options the priority filter keeps (highest priority); all options when it filters nothing. */
  kept: string[];
  /** Options no rule matches (CA warns "The group won't be used."). */
  notMatched: string[];
  /** The events CA records on the ConfigMap for these options. */
  events: Array<{ reason: (typeof PRIORITY_EVENT_REASONS)[number]; message: string }>;
  /** The single group CA picks, when the filter leaves one. */
  choice?: string;
  /** Why the pick is not certain (ties, unevaluable rules, invalid ConfigMap). */
  note?: string;
  priority?: number;
}

/**
 * CA: priority.go BestOptions over the expansion options (the groups that fit), then chain.go: one option left = the
 * pick; several = the next expander in --expander decides, or random when priority is last.
 */
export function pickByPriority(config: PriorityConfig, options: readonly string[], chain: readonly string[] = ['priority']): PriorityPick {
  const next = chain[chain.indexOf('priority') + 1];
  const fallback = next ? `the next expander (${next}) decides` : 'CA picks one at random: CA may decide either';
  if (options.length === 0) return { kept: [], notMatched: [], events: [] };
  if (!config.ok) {
    return {
      kept: [...options],
      notMatched: [],
      events: [{ reason: config.reason, message: config.message }],
      ...(options.length === 1 ? { choice: options[0] } : {}),
      note: `the priority ConfigMap is invalid, so priority filters nothing; ${fallback}`,
    };
  }
  const events: PriorityPick['events'] = [];
  let maxPrio = -1;
  let best: string[] = [];
  const notMatched: string[] = [];
  const unevaluable: string[] = [];
  for (const id of options) {
    const { matched, unknown } = rulesMatching(config.rules, id);
    if (unknown.length > 0) unevaluable.push(id);
    if (matched.length === 0) {
      if (unknown.length === 0) {
        notMatched.push(id);
        events.push({
          reason: 'PriorityConfigMapNotMatchedGroup',
          message: `Priority expander: node group ${id} not found in priority expander configuration. The group won't be used.`,
        });
      }
      continue;
    }
    const prio = Math.max(...matched.map((r) => r.priority));
    if (prio < maxPrio) continue;
    if (prio > maxPrio) {
      maxPrio = prio;
      best = [];
    }
    best.push(id);
  }
  if (best.length === 0) {
    events.push({
      reason: 'PriorityConfigMapNoGroupMatched',
      message: 'Priority expander: no priorities info found for any of the expansion options. No options filtered.',
    });
    return {
      kept: [...options],
      notMatched,
      events,
      ...(options.length === 1 ? { choice: options[0] } : {}),
      note: unevaluable.length
        ? `rules for ${unevaluable.join(', ')} cannot be evaluated by casdoctor (${config.rules.find((r) => !r.regex)?.unsupported ?? 'unsupported syntax'})`
        : `no rule matches any option, so priority filters nothing; ${fallback}`,
    };
  }
  const note = unevaluable.length
    ? `rules for ${unevaluable.join(', ')} cannot be evaluated by casdoctor, so the pick may differ`
    : best.length > 1
      ? `${best.join(', ')} share priority ${maxPrio}; ${fallback}`
      : undefined;
  return {
    kept: best,
    notMatched,
    events,
    priority: maxPrio,
    ...(best.length === 1 && unevaluable.length === 0 ? { choice: best[0] } : {}),
    ...(note ? { note } : {}),
  };
}

/** CA's priority-expander events on the ConfigMap, newest first. */
export function priorityExpanderEvents(events: readonly KubeEvent[], cm: ConfigMap): KubeEvent[] {
  const reasons = new Set<string>(PRIORITY_EVENT_REASONS);
  return events
    .filter(
      (e) =>
        e.involvedObject?.kind === 'ConfigMap' &&
        e.involvedObject.name === cm.metadata.name &&
        (e.involvedObject.namespace ?? 'default') === (cm.metadata.namespace ?? 'default') &&
        reasons.has(e.reason ?? ''),
    )
    .sort((a, b) => (eventTime(b)?.getTime() ?? 0) - (eventTime(a)?.getTime() ?? 0));
}

/**
 * The priority filter over why-pending's fitting groups, reading the ConfigMap as CA would this loop. A missing
 * ConfigMap filters nothing (priority.go reloadConfigMap error: "Priority expander config map ... not found").
 */
export function pickWithPriorityExpander(
  configMaps: readonly ConfigMap[],
  ca: CaConfig,
  options: readonly string[],
): PriorityPick | undefined {
  const chain = expanderChain(ca);
  if (!chain.includes('priority')) return undefined;
  const cm = findPriorityConfigMap(configMaps, ca);
  if (!cm) {
    const next = chain[chain.indexOf('priority') + 1];
    return {
      kept: [...options],
      notMatched: [],
      events: [],
      ...(options.length === 1 ? { choice: options[0] } : {}),
      note: `ConfigMap ${ca.flags.namespace.value || 'kube-system'}/${PRIORITY_CONFIGMAP_NAME} is not in the input (when it does not exist, priority filters nothing); ${next ? `the next expander (${next}) decides` : 'CA picks one at random: CA may decide either'}`,
    };
  }
  return pickByPriority(parsePriorityConfigMap(cm), options, chain);
}
