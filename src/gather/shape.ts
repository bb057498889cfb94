// The shape of what casdoctor reads from a dump, checked once at the edge (the offline loader). A hand-edited or
// truncated-and-repaired file can carry a number where a list belongs or a null inside a list; such a value is dropped
// (as if the field were absent) and reported as a warning, so the analysis only ever sees the types the API defines.
// Only the fields casdoctor reads are described (the tables in gather/shapes/, after src/model/k8s.ts, aws.ts). By
// default every other field is left untouched; with `project`, a Kubernetes object is copied with only the described
// fields: a pod as kubectl prints it is ~10 KB, of which casdoctor reads a fifth, and at 100k pods the rest was half
// the heap and most of the GC time.
import type { DataKind } from '../model/snapshot.js';
import { AWS_SHAPES } from './shapes/aws.js';
import { isObject, type Shape } from './shapes/builders.js';
import { assignedPodForWhyPending, KUBE_SHAPES } from './shapes/kube.js';

export { isObject };

/** What a command reads: 'read' is every command's fields; 'why-pending' cuts pods already on a node further. */
export type FieldProfile = 'read' | 'why-pending';

const DROP = Symbol('drop');
/** A projected record none of whose kept keys is present: left out, without a warning. */
const OMIT = Symbol('omit');

function describe(shape: Shape): string {
  if (shape === 'time') return 'an RFC 3339 time with a 4-digit year';
  if (typeof shape === 'string') return shape === 'int-or-string' ? 'an integer or a string' : `a ${shape}`;
  if ('nullable' in shape) return describe(shape.nullable);
  if ('array' in shape) return 'a list';
  return 'an object';
}

// Where fit() is, kept as a stack and turned into "spec.containers[0].ports" only when a problem is reported: building
// that string for every field of every object was most of the loader's time at 100k pods.
const KEYS: Array<string | number> = [];
const STEPS: number[] = []; // 0: an object member, 1: a record entry, 2: a list index

function here(base: string): string {
  let out = base;
  for (let i = 0; i < KEYS.length; i++) {
    const k = KEYS[i];
    out = STEPS[i] === 2 ? `${out}[${k}]` : STEPS[i] === 1 ? `${out}.${k}` : out ? `${out}.${k}` : String(k);
  }
  return out;
}

// Go's time.Time marshals only years 0000-9999 (RFC 3339), so an API server or aws-cli never prints another; a year
// near JavaScript's limit (+275760) turned into an Invalid Date later and crashed a report.
const TIME_RE = /^\d{4}-\d\d-\d\d(?:[Tt ]|$)/;
// A pattern, not Date.parse: ten timestamps a pod at 100k pods made Date.parse a visible share of the load time.
function isTime(v: string): boolean {
  return v === '' || TIME_RE.test(v);
}

function bad(v: unknown, shape: Shape, base: string, problems: string[]): typeof DROP {
  const got =
    v === null
      ? 'null'
      : Array.isArray(v)
        ? 'a list'
        : shape === 'time' && typeof v === 'string'
          ? JSON.stringify(v.slice(0, 40))
          : typeof v;
  problems.push(`${here(base)}: expected ${describe(shape)}, got ${got}`);
  return DROP;
}

// Set by fitToShape for the one call: copy only the described fields instead of fitting in place.
let PROJECT = false;

const members = new WeakMap<Record<string, Shape>, Array<[string, Shape]>>();
const fieldMaps = new WeakMap<Record<string, Shape>, Map<string, Shape>>();
function fieldMapOf(fields: Record<string, Shape>): Map<string, Shape> {
  let m = fieldMaps.get(fields);
  if (!m) fieldMaps.set(fields, (m = new Map(Object.entries(fields))));
  return m;
}

function membersOf(fields: Record<string, Shape>): Array<[string, Shape]> {
  let m = members.get(fields);
  if (!m) members.set(fields, (m = Object.entries(fields)));
  return m;
}

/**
 * The value fitted to the shape, or DROP; `problems` gets "path: expected ..., got ..." for what was dropped. Fits in
 * place: a list is copied only when an entry is dropped.
 */
function fit(v: unknown, shape: Shape, base: string, problems: string[]): unknown {
  if (typeof shape === 'string') {
    switch (shape) {
      case 'string':
        return typeof v === 'string' ? v : bad(v, shape, base, problems);
      case 'boolean':
        return typeof v === 'boolean' ? v : bad(v, shape, base, problems);
      case 'number':
        return typeof v === 'number' && Number.isFinite(v) ? v : bad(v, shape, base, problems);
      case 'time':
        return typeof v === 'string' && isTime(v) ? v : bad(v, shape, base, problems);
      case 'quantity':
      case 'int-or-string':
        return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
          ? v
          : bad(v, shape, base, problems);
    }
  }
  if ('nullable' in shape) return v === null ? null : fit(v, shape.nullable, base, problems);
  if ('array' in shape) {
    if (!Array.isArray(v)) return bad(v, shape, base, problems);
    if (PROJECT) {
      const out: unknown[] = [];
      const only = shape.projectOnly;
      for (let i = 0; i < v.length; i++) {
        if (only && !only(v[i])) continue;
        KEYS.push(i);
        STEPS.push(2);
        const y = fit(v[i], shape.array, base, problems);
        KEYS.pop();
        STEPS.pop();
        if (y !== DROP) out.push(y);
      }
      return out;
    }
    let kept: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      KEYS.push(i);
      STEPS.push(2);
      const y = fit(v[i], shape.array, base, problems);
      KEYS.pop();
      STEPS.pop();
      if (y === DROP) kept ??= v.slice(0, i);
      else if (kept) kept.push(y);
      else if (y !== v[i]) v[i] = y;
    }
    return kept ?? v;
  }
  if ('record' in shape) {
    if (!isObject(v)) return bad(v, shape, base, problems);
    const keys = shape.projectKeys;
    if (PROJECT && keys) {
      let out: Record<string, unknown> | undefined;
      for (const k in v) {
        if (!keys.has(k)) continue;
        KEYS.push(k);
        STEPS.push(1);
        const y = fit(v[k], shape.record, base, problems);
        KEYS.pop();
        STEPS.pop();
        if (y !== DROP) (out ??= {})[k] = y;
      }
      return out ?? OMIT;
    }
    for (const k of Object.keys(v)) {
      KEYS.push(k);
      STEPS.push(1);
      const y = fit(v[k], shape.record, base, problems);
      KEYS.pop();
      STEPS.pop();
      if (y === DROP) delete v[k];
      else if (y !== v[k]) v[k] = y;
    }
    return v;
  }
  if (!isObject(v)) return bad(v, shape, base, problems);
  const fields = membersOf(shape.object);
  // An object whose content is not described (a generic ephemeral volume) is kept whole: only its presence is read.
  if (PROJECT && fields.length > 0) {
    const described = fieldMapOf(shape.object);
    const out: Record<string, unknown> = {};
    // in the object's own key order, so what is printed from it (a pod's tolerations as evidence) reads the same
    for (const k in v) {
      const s = described.get(k);
      const x = v[k];
      if (s === undefined || x === undefined) continue;
      KEYS.push(k);
      STEPS.push(0);
      const y = fit(x, s, base, problems);
      KEYS.pop();
      STEPS.pop();
      if (y !== DROP && y !== OMIT) out[k] = y;
    }
    return missingRequired(out, shape.required, base, problems) ? DROP : out;
  }
  for (const [k, s] of fields) {
    if (!Object.hasOwn(v, k) || v[k] === undefined) continue;
    KEYS.push(k);
    STEPS.push(0);
    const y = fit(v[k], s, base, problems);
    KEYS.pop();
    STEPS.pop();
    if (y === DROP) delete v[k];
    else if (y !== v[k]) v[k] = y;
  }
  return missingRequired(v, shape.required, base, problems) ? DROP : v;
}

function missingRequired(
  v: Record<string, unknown>,
  required: readonly string[] | undefined,
  base: string,
  problems: string[],
): boolean {
  for (const k of required ?? []) {
    if (!Object.hasOwn(v, k)) {
      const path = here(base);
      problems.push(`${path ? `${path}: ` : ''}no valid ${k}; ignored`);
      return true;
    }
  }
  return false;
}

/**
 * Fits one object of a dump to the shape casdoctor reads: wrong-typed fields are removed, list entries of the wrong type
 * dropped. Returns the object (the same one, fitted in place; with `project`, a copy of a Kubernetes object holding only
 * the fields casdoctor reads, plus apiVersion and kind), or undefined when it is unusable (an ASG without a name, a Pod
 * without a spec). `problems` collects what was removed, for a warning. AWS outputs are never projected: they are small.
 */
export function fitToShape<T extends Record<string, unknown>>(
  kind: DataKind,
  value: T,
  problems: string[],
  at = '',
  project = false,
  profile: FieldProfile = 'read',
): T | undefined {
  const assigned =
    project &&
    profile === 'why-pending' &&
    kind === 'pods' &&
    isObject(value.spec) &&
    typeof value.spec.nodeName === 'string' &&
    value.spec.nodeName !== '';
  const kube = assigned ? assignedPodForWhyPending : KUBE_SHAPES[kind];
  const shape = kube ?? AWS_SHAPES[kind];
  if (!shape) return value;
  KEYS.length = 0;
  STEPS.length = 0;
  PROJECT = project && kube !== undefined;
  let fitted: unknown;
  try {
    fitted = fit(value, shape, at, problems);
  } finally {
    PROJECT = false;
  }
  if (fitted === DROP) return undefined;
  let out = fitted as Record<string, unknown>;
  if (out !== value) {
    const head: Record<string, unknown> = {};
    if (value.apiVersion !== undefined) head.apiVersion = value.apiVersion;
    if (value.kind !== undefined) head.kind = value.kind;
    out = Object.assign(head, out);
  }
  // A Pod's containers are required by the API; an absent list is read as empty rather than crash on it.
  if (kind === 'pods' && isObject(out.spec) && !Array.isArray(out.spec.containers)) out.spec.containers = [];
  return out as T;
}
