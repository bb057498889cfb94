/**
 * metav1.LabelSelector matching (apimachinery pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector).
 * A missing selector matches nothing; an empty one ({}) matches everything. An invalid selector (unknown operator,
 * In/NotIn without values, Exists/DoesNotExist with values) matches nothing and is flagged `valid: false`.
 */
import type { LabelSelector, LabelSelectorRequirement } from '../../model/k8s.js';

export interface CompiledSelector {
  matches(labels: Record<string, string> | undefined): boolean;
  /** true for an empty selector ({}), which selects everything (labels.Selector.Empty()). */
  empty: boolean;
  /** false when LabelSelectorAsSelector would return an error. */
  valid: boolean;
  /** Every requirement a label set must meet (matchLabels as In); absent when the selector matches nothing. */
  requirements?: readonly LabelSelectorRequirement[];
}

const NOTHING: CompiledSelector = { matches: () => false, empty: false, valid: true };
const INVALID: CompiledSelector = { matches: () => false, empty: false, valid: false };

function requirementValid(r: LabelSelectorRequirement): boolean {
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      return (r.values?.length ?? 0) > 0;
    case 'Exists':
    case 'DoesNotExist':
      return (r.values?.length ?? 0) === 0;
    default:
      return false;
  }
}

export function requirementMatches(
  r: LabelSelectorRequirement,
  labels: Record<string, string> | undefined,
): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(labels![r.key]);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(labels![r.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}

/** Compiles a LabelSelector plus extra requirements (e.g. from matchLabelKeys). */
export function compileLabelSelector(
  selector: LabelSelector | null | undefined,
  extra: LabelSelectorRequirement[] = [],
): CompiledSelector {
  if (selector === null || selector === undefined) return NOTHING;
  const reqs: LabelSelectorRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    reqs.push({ key, operator: 'In', values: [value] });
  }
  reqs.push(...(selector.matchExpressions ?? []), ...extra);
  if (!reqs.every(requirementValid)) return INVALID;
  if (reqs.length === 0) return { matches: () => true, empty: true, valid: true, requirements: reqs };
  return {
    matches: (labels) => reqs.every((r) => requirementMatches(r, labels)),
    empty: false,
    valid: true,
    requirements: reqs,
  };
}

/** "app=web,tier in (a,b)" in kubectl's selector notation, for details. */
export function describeLabelSelector(selector: LabelSelector | null | undefined): string {
  if (!selector) return '<none>';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${e.operator.toLowerCase()} (${(e.values ?? []).join(',')})`);
  }
  return parts.length > 0 ? parts.join(',') : '<everything>';
}

// apimachinery pkg/util/validation/validation.go: qualified names and label values.
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** validation.IsValidLabelValue: at most 63 characters, empty or alphanumeric at both ends with [-_.] inside. */
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** validation.IsQualifiedName: an optional DNS-subdomain prefix (at most 253) and "/", then a name of at most 63. */
export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const [prefix, n] = parts;
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
    name = n;
  } else if (parts.length !== 1) return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}
