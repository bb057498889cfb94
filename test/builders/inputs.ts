// Builds RawInputs from objects, marking every kind given as provided (as the offline loader would).
import { type DataKind, emptyInputs, type RawInputs } from '../../src/model/snapshot.js';

export function inputs(data: Partial<Record<DataKind, unknown[]>>): RawInputs {
  const r = emptyInputs();
  for (const [k, v] of Object.entries(data)) {
    (r as unknown as Record<string, unknown[]>)[k] = v as unknown[];
    r.provided.add(k as DataKind);
  }
  return r;
}
