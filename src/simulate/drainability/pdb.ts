// CA: simulator/drainability/rules/pdb/rule.go — a matching PDB with no disruptions left (in this loop) blocks.
import type { Pod } from '../../model/k8s.js';
import { blocked, type DrainContext, type DrainStatus, UNDEFINED } from './types.js';

export const PDB = 'PDB';

export function pdb(ctx: DrainContext, pod: Pod): DrainStatus {
  for (const p of ctx.pdbs.matching(pod)) {
    if (p.remaining < 1) {
      return blocked(
        'NotEnoughPdb',
        `not enough pod disruption budget to move ${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`,
      );
    }
  }
  return UNDEFINED;
}
