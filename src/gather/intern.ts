// One copy of each repeated string in the loaded snapshot. JSON.parse makes a new string for every value, so at 300k
// pods the same toleration keys, owner names, node names, images and quantities were held hundreds of thousands of
// times: a fifth of the loaded heap. Strings are values in JavaScript, so sharing one copy changes nothing else.

/** Strings longer than this are kept as they are (messages, certificates): rarely repeated, costly to hash. */
const MAX_INTERNED = 96;

/** Members whose values are (nearly) unique per object: looking them up would cost time and save nothing. */
const UNIQUE_VALUED = new Set([
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'startTime',
  'lastTransitionTime',
  'lastProbeTime',
  'lastHeartbeatTime',
  'firstTimestamp',
  'lastTimestamp',
  'eventTime',
  'lastObservedTime',
  'message',
]);

export type InternTable = Map<string, string>;

/** Replaces, in place, every short string value under `v` by the table's copy of it. Keys are left alone (V8 internalizes them). */
export function internStrings(v: unknown, table: InternTable): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string') {
        if (x.length <= MAX_INTERNED) {
          const s = table.get(x);
          if (s === undefined) table.set(x, x);
          else v[i] = s;
        }
      } else if (typeof x === 'object' && x !== null) internStrings(x, table);
    }
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'string') {
      if (x.length <= MAX_INTERNED && !UNIQUE_VALUED.has(k)) {
        const s = table.get(x);
        if (s === undefined) table.set(x, x);
        else o[k] = s;
      }
    } else if (typeof x === 'object' && x !== null) internStrings(x, table);
  }
}
