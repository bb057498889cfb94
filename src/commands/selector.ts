import { UsageError } from '../model/errors.js';
import type { LabelSelectorRequirement } from '../model/k8s.js';

/** Parses kubectl's -l syntax: `a=b,c!=d,e in (x,y),f notin (z),g,!h` into requirements. */
export function parseLabelSelector(s: string): LabelSelectorRequirement[] {
  const out: LabelSelectorRequirement[] = [];
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  for (const raw of parts) {
    const p = raw.trim();
    if (p === '') continue;
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) {
      out.push({
        key: m[1],
        operator: m[2] === 'in' ? 'In' : 'NotIn',
        values: m[3]
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      });
    } else if ((m = /^([\w./-]+)\s*!=\s*([\w.-]*)$/.exec(p))) {
      out.push({ key: m[1], operator: 'NotIn', values: [m[2]] });
    } else if ((m = /^([\w./-]+)\s*==?\s*([\w.-]*)$/.exec(p))) {
      out.push({ key: m[1], operator: 'In', values: [m[2]] });
    } else if ((m = /^!\s*([\w./-]+)$/.exec(p))) {
      out.push({ key: m[1], operator: 'DoesNotExist' });
    } else if ((m = /^([\w./-]+)$/.exec(p))) {
      out.push({ key: m[1], operator: 'Exists' });
    } else {
      throw new UsageError(
        `-l ${JSON.stringify(s)}: cannot parse "${p}" (use k=v, k!=v, k in (a,b), k notin (a), k, !k)`,
      );
    }
  }
  return out;
}

export function labelsMatch(
  reqs: LabelSelectorRequirement[],
  labels: Record<string, string> | undefined,
): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    switch (r.operator) {
      case 'In':
        return has && (r.values ?? []).includes(l[r.key]);
      case 'NotIn':
        return !has || !(r.values ?? []).includes(l[r.key]);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return false;
    }
  });
}
